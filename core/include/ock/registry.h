/*
 * registry.h: the requirement registry, the single source of requirement IDs, levels and
 * capabilities, and of the event model (names, stages, required fields).
 *
 * The registry is core/requirements.json. A copy is built into every binary
 * (ock_registry_load_builtin), so an installed `ock` needs no data path; a test keeps SPEC.md
 * and the file in agreement.
 */
#ifndef OCK_REGISTRY_H
#define OCK_REGISTRY_H

#include <stddef.h>

#include "ock/json.h"

enum ock_level { OCK_LEVEL_MUST = 0, OCK_LEVEL_SHOULD = 1, OCK_LEVEL_MAY = 2 };

/* ock_level_name gives "MUST", "SHOULD" or "MAY". */
const char *ock_level_name(enum ock_level level);
/* ock_level_parse accepts those names in any case; returns OCK_OK or OCK_EINVAL. */
int ock_level_parse(const char *name, enum ock_level *out);

/* The capabilities a SUT may declare, in the order SPEC.md lists them. */
extern const char *const ock_capabilities[]; /* NULL-terminated */
/* ock_capability_known: 1 when name is one of ock_capabilities. */
int ock_capability_known(const char *name);

struct ock_requirement {
  const char *id;    /* "OCK-COMPLETE-001" */
  const char *group; /* "COMPLETE" */
  enum ock_level level;
  const char *capability; /* "core", "streaming", ... */
  const char *text;       /* the one testable sentence */
  const char *checked_by; /* the journal facts the check uses */
  const char *fix;        /* a typical cause and fix, for `ock explain` */
  int blackbox;           /* graded from the traffic alone by `ock run --blackbox` (SPEC.md 9.9) */
};

struct ock_event_def {
  const char *name;            /* "tool:pre" */
  const char *stage;           /* a stage name, "terminal" or "current" (see events.h) */
  const char *capability;      /* the capability that requires the event */
  const char *const *required; /* NULL-terminated field names */
  const char *const *optional; /* NULL-terminated field names */
};

typedef struct ock_registry ock_registry;

/* ock_registry_load parses and validates registry JSON (len bytes). Every string in the
 * registry is owned by it. Errors name the JSON path: duplicate IDs, an unknown level or
 * capability, an ID that does not match "OCK-<GROUP>-<3 digits>" with GROUP equal to `group`.
 * Returns OCK_OK, OCK_EJSON, OCK_ETYPE, OCK_EMISSING or OCK_ENOMEM. */
int ock_registry_load(const char *text, size_t len, ock_registry **out, struct ock_jerr *err);
/* ock_registry_load_builtin loads the copy built into the binary. */
int ock_registry_load_builtin(ock_registry **out, struct ock_jerr *err);
void ock_registry_free(ock_registry *r); /* NULL is a no-op */

const char *ock_registry_contract_version(const ock_registry *r);
size_t ock_registry_count(const ock_registry *r);
const struct ock_requirement *ock_registry_at(const ock_registry *r, size_t i);
/* ock_registry_find: the requirement with that ID, or NULL. */
const struct ock_requirement *ock_registry_find(const ock_registry *r, const char *id);

size_t ock_registry_event_count(const ock_registry *r);
const struct ock_event_def *ock_registry_event_at(const ock_registry *r, size_t i);
/* ock_registry_event: the event with that name, or NULL for an event the kit does not know. */
const struct ock_event_def *ock_registry_event(const ock_registry *r, const char *name);

#endif
