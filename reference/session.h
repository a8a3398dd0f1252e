/*
 * session.h: the ock/1 session document, read into plain structs (no I/O).
 *
 * GET $OCK_URL/ock/v1/session answers {"protocol":"ock/1", "scenario", "trace_id", "prompts",
 * "config", "providers", "tools"} (DESIGN.md §3). Every value is checked, and an error names
 * its JSON path ("$.providers[1].api: expected one of ..."), because a broken session is the
 * one thing that makes ock-orchestrator exit non-zero. Unknown members are ignored, so a newer
 * mock can add some.
 */
#ifndef OCK_REF_SESSION_H
#define OCK_REF_SESSION_H

#include <stddef.h>

#include "ock/orchestrator.h"

struct ock__session_provider {
  char *name;
  enum ock_wire api;
  char *base_url;
  char *model;
  int priority;
};

struct ock__session_tool {
  char *name;
  char *description;   /* may be NULL */
  cJSON *input_schema; /* may be NULL */
};

struct ock__session {
  char *scenario; /* "" when absent */
  char *trace_id; /* NULL when absent */
  char **prompts;
  size_t n_prompts;
  struct ock_orchestrator_config config; /* defaults, then the session's config on top */
  struct ock__session_provider *providers;
  size_t n_providers;
  struct ock__session_tool *tools;
  size_t n_tools;
};

/* ock__session_parse reads doc over the defaults (copied; defaults->name is not used).
 * Returns OCK_OK with *out (free with ock__session_free), or a JSON status with err. */
int ock__session_parse(const cJSON *doc, const struct ock_orchestrator_config *defaults,
                       struct ock__session **out, struct ock_jerr *err);
void ock__session_free(struct ock__session *s); /* NULL is a no-op */

#endif
