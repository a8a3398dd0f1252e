/*
 * events.c: lifecycle stages and their transitions (see events.h and SPEC.md §4).
 *
 * The transition table is the CUGAR lifecycle fitted to an LLM loop: route picks a provider,
 * plan is an LLM turn (the model decides what to do next), execute runs the tools it asked
 * for, aggregate hands the answer back; any stage may fail or be cancelled. CUGAR's own order
 * (plan first, then a route before each step's execute) is accepted beside it; the stage walk
 * keeps the two apart.
 */
#include "ock/events.h"

#include <stdio.h>
#include <string.h>

#include "ock/status.h"

static const char *const stage_names[OCK_STAGE_COUNT] = {
    "initialize", "plan", "route", "execute", "aggregate", "complete", "failed", "cancelled"};

const char *ock_stage_name(enum ock_stage s) {
  return (unsigned)s < OCK_STAGE_COUNT ? stage_names[s] : "?";
}

int ock_stage_parse(const char *name, enum ock_stage *out) {
  for (int i = 0; name && i < OCK_STAGE_COUNT; i++) {
    if (!strcmp(name, stage_names[i])) {
      *out = (enum ock_stage)i;
      return OCK_OK;
    }
  }
  return OCK_EINVAL;
}

static const char *const event_names[OCK_EVENT_KNOWN] = {
#define OCK_EVENT_NAME(ident, name) name,
    OCK_EVENT_MAP(OCK_EVENT_NAME)
#undef OCK_EVENT_NAME
};

enum ock_event ock_event_parse(const char *name) {
  for (int i = 0; name && i < OCK_EVENT_KNOWN; i++)
    if (!strcmp(name, event_names[i]))
      return (enum ock_event)i;
  return OCK_EVENT_CUSTOM;
}

const char *ock_event_name(enum ock_event e) {
  return (unsigned)e < OCK_EVENT_KNOWN ? event_names[e] : "custom";
}

int ock_event_is_tool(enum ock_event e) {
  return e == OCK_EVENT_TOOL_SELECTING || e == OCK_EVENT_TOOL_SELECTED || e == OCK_EVENT_TOOL_PRE ||
         e == OCK_EVENT_TOOL_POST || e == OCK_EVENT_TOOL_ERROR;
}

int ock_stage_is_terminal(enum ock_stage s) {
  return s == OCK_STAGE_COMPLETE || s == OCK_STAGE_FAILED || s == OCK_STAGE_CANCELLED;
}

int ock_stage_for_status(const char *status, enum ock_stage *out) {
  if (!status)
    return OCK_EINVAL;
  if (!strcmp(status, "success") || !strcmp(status, "incomplete"))
    *out = OCK_STAGE_COMPLETE;
  else if (!strcmp(status, "error"))
    *out = OCK_STAGE_FAILED;
  else if (!strcmp(status, "cancelled"))
    *out = OCK_STAGE_CANCELLED;
  else
    return OCK_EINVAL;
  return OCK_OK;
}

int ock_stage_transition_allowed(enum ock_stage from, enum ock_stage to) {
  if ((unsigned)from >= OCK_STAGE_COUNT || (unsigned)to >= OCK_STAGE_COUNT)
    return 0;
  if (from == to)
    return 1;
  if (ock_stage_is_terminal(from))
    return 0; /* a terminal stage is final; only events of the same stage may follow */
  if (to == OCK_STAGE_FAILED || to == OCK_STAGE_CANCELLED)
    return from != OCK_STAGE_AGGREGATE;
  switch (from) {
  case OCK_STAGE_INITIALIZE:
    return to == OCK_STAGE_ROUTE || to == OCK_STAGE_PLAN || to == OCK_STAGE_AGGREGATE;
  case OCK_STAGE_ROUTE:
    return to == OCK_STAGE_PLAN || to == OCK_STAGE_EXECUTE;
  case OCK_STAGE_PLAN:
    return to == OCK_STAGE_EXECUTE || to == OCK_STAGE_AGGREGATE || to == OCK_STAGE_ROUTE;
  case OCK_STAGE_EXECUTE:
    return to == OCK_STAGE_PLAN || to == OCK_STAGE_ROUTE || to == OCK_STAGE_AGGREGATE;
  case OCK_STAGE_AGGREGATE:
    return to == OCK_STAGE_COMPLETE;
  default:
    return 0;
  }
}

void ock_stage_walk_start(struct ock_stage_walk *w) {
  *w = (struct ock_stage_walk){.prev = OCK_STAGE_COUNT};
}

/* in_order: the pairs that belong to one order only. route -> execute starts a routed step, and
 * needs a plan before it (CUGAR: "PLAN MUST complete before ROUTE"); once steps are routed each
 * one is (plan -> execute would skip its ROUTE), the next step is routed from the last one's
 * execute, and the results are aggregated after it. In the provider-routing order the tool
 * results go back to the model instead: execute -> route and execute -> aggregate stay refused. */
static int in_order(const struct ock_stage_walk *w, enum ock_stage to) {
  enum ock_stage from = w->prev;
  if (from == OCK_STAGE_ROUTE && to == OCK_STAGE_EXECUTE)
    return w->planned && !w->unrouted_steps;
  if (from == OCK_STAGE_PLAN && to == OCK_STAGE_EXECUTE)
    return !w->routed_steps;
  if (from == OCK_STAGE_EXECUTE && (to == OCK_STAGE_ROUTE || to == OCK_STAGE_AGGREGATE))
    return w->routed_steps;
  return 1;
}

int ock_stage_walk_next(struct ock_stage_walk *w, enum ock_stage to) {
  enum ock_stage from = w->prev;
  int ok = from == OCK_STAGE_COUNT || (ock_stage_transition_allowed(from, to) && in_order(w, to));
  if (from == OCK_STAGE_ROUTE && to == OCK_STAGE_EXECUTE)
    w->routed_steps = 1;
  if (from == OCK_STAGE_PLAN && to == OCK_STAGE_EXECUTE)
    w->unrouted_steps = 1;
  if (to == OCK_STAGE_PLAN)
    w->planned = 1;
  w->prev = to;
  return ok;
}

static void note_missing(char *out, size_t n, size_t *used, const char *field) {
  if (*used >= n)
    return;
  int w = snprintf(out + *used, n - *used, "%s%s", *used ? ", " : "", field);
  if (w > 0)
    *used += (size_t)w;
}

int ock_event_missing_fields(const ock_registry *r, const char *name, const cJSON *data,
                             int with_lifecycle, char *out, size_t n) {
  size_t used = 0;
  int missing = 0;
  if (n)
    out[0] = '\0';
  const struct ock_event_def *d = ock_registry_event(r, name);
  if (!d)
    return 0;
  for (size_t i = 0; d->required[i]; i++) {
    if (!cJSON_HasObjectItem(data, d->required[i])) {
      note_missing(out, n, &used, d->required[i]);
      missing++;
    }
  }
  static const char *const lifecycle_fields[] = {"trace_id", "stage"};
  for (size_t i = 0; with_lifecycle && i < 2; i++) {
    if (!cJSON_HasObjectItem(data, lifecycle_fields[i])) {
      note_missing(out, n, &used, lifecycle_fields[i]);
      missing++;
    }
  }
  return missing;
}
