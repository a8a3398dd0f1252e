/*
 * exec_context.c: the CUGAR execution context, immutable and reference-counted.
 *
 * A context never changes after it is made: "adding" metadata makes a new context with a deep
 * copy of the metadata (upstream shared one dict, so a "frozen" context could still change).
 * A child made for a nested run keeps the trace ID and holds a reference to its parent, so the
 * chain stays valid however the caller frees. The reference count is atomic, so contexts may
 * be shared with tool threads.
 */
#include "ock/orchestrator.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "ock/caps.h"
#include "ock/status.h"

struct ock_exec_context {
  atomic_int refs;
  char *trace_id;
  cJSON *metadata;          /* always an object */
  ock_exec_context *parent; /* a reference we hold, or NULL */
  int depth;
};

static int trace_id_valid(const char *t) {
  size_t n = t ? strlen(t) : 0;
  if (n == 0 || n > OCK_MAX_TRACE_ID)
    return 0;
  for (size_t i = 0; i < n; i++)
    if (t[i] < 0x21 || t[i] > 0x7e)
      return 0;
  return 1;
}

/* make builds a context owning copies of trace_id and metadata (NULL = {}). */
static int make(const char *trace_id, const cJSON *metadata, const ock_exec_context *parent,
                ock_exec_context **out) {
  ock_exec_context *c = calloc(1, sizeof *c);
  if (!c)
    return OCK_ENOMEM;
  atomic_init(&c->refs, 1);
  c->trace_id = strdup(trace_id);
  c->metadata = metadata ? cJSON_Duplicate(metadata, 1) : cJSON_CreateObject();
  if (!c->trace_id || !c->metadata) {
    free(c->trace_id);
    cJSON_Delete(c->metadata);
    free(c);
    return OCK_ENOMEM;
  }
  if (parent) {
    c->parent = (ock_exec_context *)parent;
    atomic_fetch_add(&c->parent->refs, 1);
    c->depth = parent->depth + 1;
  }
  *out = c;
  return OCK_OK;
}

int ock_exec_context_new(const char *trace_id, ock_exec_context **out) {
  if (!out || !trace_id_valid(trace_id))
    return OCK_EINVAL;
  return make(trace_id, NULL, NULL, out);
}

int ock_exec_context_with_metadata(const ock_exec_context *c, const char *key, const cJSON *value,
                                   ock_exec_context **out) {
  if (!c || !key || !*key || !value || !out)
    return OCK_EINVAL;
  ock_exec_context *n = NULL;
  int rc = make(c->trace_id, c->metadata, c->parent, &n);
  if (rc)
    return rc;
  cJSON *copy = cJSON_Duplicate(value, 1);
  cJSON_DeleteItemFromObjectCaseSensitive(n->metadata, key);
  if (!copy || !cJSON_AddItemToObject(n->metadata, key, copy)) {
    cJSON_Delete(copy);
    ock_exec_context_free(n);
    return OCK_ENOMEM;
  }
  n->depth = c->depth;
  *out = n;
  return OCK_OK;
}

int ock_exec_context_child(const ock_exec_context *c, ock_exec_context **out) {
  if (!c || !out)
    return OCK_EINVAL;
  return make(c->trace_id, c->metadata, c, out);
}

const char *ock_exec_context_trace_id(const ock_exec_context *c) {
  return c ? c->trace_id : NULL;
}

const cJSON *ock_exec_context_metadata(const ock_exec_context *c) {
  return c ? c->metadata : NULL;
}

const ock_exec_context *ock_exec_context_parent(const ock_exec_context *c) {
  return c ? c->parent : NULL;
}

int ock_exec_context_depth(const ock_exec_context *c) {
  return c ? c->depth : 0;
}

void ock_exec_context_free(ock_exec_context *c) {
  while (c && atomic_fetch_sub(&c->refs, 1) == 1) {
    ock_exec_context *parent = c->parent;
    free(c->trace_id);
    cJSON_Delete(c->metadata);
    free(c);
    c = parent; /* release the reference the child held */
  }
}
