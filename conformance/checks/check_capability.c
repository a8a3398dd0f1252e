/*
 * check_capability.c: behaviour of a capability the SUT did not declare (SPEC.md 1.3). Its
 * checks were skipped, so the report would be silent about it; instead each capability seen
 * in the journal but not declared is a WARN (FAIL under --strict) saying what was seen: declare
 * it and its checks apply.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/grade.h"
#include "ock/caps.h"
#include "ock/contract.h"
#include "ock/json.h"
#include "model/view_calls.h"

/* What shows a capability in use: an event name, or (NULL) a journal test. */
static const struct {
  const char *capability;
  const char *event;
} signs[] = {
    {OCK_CAP_STREAMING, OCK_EV_PROVIDER_STREAM},
    {OCK_CAP_SCHEDULING, OCK_EV_TOOL_SELECTING},
    {OCK_CAP_SCHEDULING, OCK_EV_TOOL_SELECTED},
    {OCK_CAP_LIFECYCLE, OCK_EV_EXECUTION_START},
    {OCK_CAP_LIFECYCLE, OCK_EV_EXECUTION_END},
    {OCK_CAP_RESILIENCE, OCK_EV_PROVIDER_RETRY},
    {OCK_CAP_CANCELLATION, OCK_EV_CANCEL_REQUESTED},
    {OCK_CAP_CANCELLATION, OCK_EV_CANCEL_COMPLETED},
};

/* undeclared records the WARN for capability cap, seen at seq. */
static void undeclared(struct grade_ctx *g, const char *cap, long seq, const char *what) {
  /* Attributed to the capability's first requirement in the registry. */
  const struct ock_requirement *r = NULL;
  for (size_t i = 0; i < ock_registry_count(g->reg) && !r; i++)
    if (!strcmp(ock_registry_at(g->reg, i)->capability, cap))
      r = ock_registry_at(g->reg, i);
  if (!r)
    return;
  char id[64], msg[300], expected[160];
  snprintf(id, sizeof id, CHECK_CAPABILITY_PREFIX "%s", cap);
  const cJSON *c0;
  cJSON_ArrayForEach(c0, g->checks) {
    if (!strcmp(ock_json_str(c0, "id") ? ock_json_str(c0, "id") : "", id))
      return; /* one WARN per capability: the first sign seen */
  }
  snprintf(expected, sizeof expected, "capability %s declared when its behaviour is used", cap);
  snprintf(msg, sizeof msg,
           "%s seen, but capability %s is not declared, so its checks were skipped: declare it",
           what, cap);
  cJSON *c = cJSON_CreateObject();
  cJSON_AddStringToObject(c, "id", id);
  cJSON_AddStringToObject(c, "requirement", r->id);
  cJSON_AddStringToObject(c, "level", "SHOULD");
  cJSON_AddStringToObject(c, "verdict", g->strict ? OCK_V_FAIL : OCK_V_WARN);
  cJSON_AddStringToObject(c, "expected", expected);
  cJSON_AddStringToObject(c, "actual", what);
  cJSON *ev = cJSON_AddArrayToObject(c, "evidence");
  if (seq >= 0)
    cJSON_AddItemToArray(ev, cJSON_CreateNumber((double)seq));
  cJSON_AddStringToObject(c, "message", msg);
  cJSON_AddItemToArray(g->checks, c);
}

/* ---- behaviour signs (SPEC.md 1.3): what the journal shows beyond event names ------------- */

/* sign_overlap: two tool calls of one response whose endpoint calls overlap in time: the
 * tool_start of one before the tool_end of the other. An end the SUT no longer waited for
 * (client_gone: a timeout or a cancel) is no overlap: the SUT had moved on. Returns the seq of
 * the later start, or -1. */
static long sign_overlap(const struct view *v) {
  struct call_fate *f = NULL;
  size_t n = ock__call_fates(v, &f);
  long seq = -1;
  for (size_t a = 0; a < n && seq < 0; a++)
    for (size_t b = 0; b < n && seq < 0; b++) {
      if (a == b || f[a].reply_index != f[b].reply_index || !f[a].start || !f[a].end ||
          !f[b].start || ock_json_bool(f[a].end, OCK_F_TOOL_END_CLIENT_GONE, 0))
        continue;
      long a_start = ock__entry_seq(f[a].start), a_end = ock__entry_seq(f[a].end);
      long b_start = ock__entry_seq(f[b].start);
      if (b_start > a_start && b_start < a_end)
        seq = b_start;
    }
  free(f);
  return seq;
}

/* sign_lifecycle_field: an event whose data has stage or trace_id. */
static long sign_lifecycle_field(const struct view *v, const char **field) {
  for (size_t i = 0; i < v->n; i++) {
    int stage = ock__pf_sent(v->e[i], OCK_FIELD_STAGE);
    *field = stage ? OCK_PF_STAGE : OCK_PF_TRACE_ID;
    if (stage || ock__pf_sent(v->e[i], OCK_FIELD_TRACE_ID))
      return ock__entry_seq(v->e[i]);
  }
  return -1;
}

/* sign_retried: an LLM request of an execute after a faulted reply of that execute (under
 * fail_fast and continue a provider error ends the execute, so this is a retry or a fallback),
 * or a provider:resolve after a provider:error. */
static long sign_retried(const struct view *v, const char **what) {
  for (size_t k = 0; k < v->nx; k++) {
    int faulted = 0, errored = 0;
    for (size_t i = v->x[k].first; i < v->x[k].end; i++) {
      const cJSON *e = v->e[i];
      if (ock__is_kind(e, OCK_ENTRY_LLM_REQUEST) && faulted) {
        *what = "an LLM request that continues a turn after a faulted reply";
        return ock__entry_seq(e);
      }
      if (ock__is_event(e, OCK_EV_PROVIDER_RESOLVE) && errored) {
        *what = "a provider:resolve after a provider:error (a fallback)";
        return ock__entry_seq(e);
      }
      faulted |= ock__is_kind(e, OCK_ENTRY_LLM_REPLY) && ock__reply_failed(e);
      errored |= ock__is_event(e, OCK_EV_PROVIDER_ERROR);
    }
  }
  return -1;
}

/* sign_cancelled: orchestrator:complete with status cancelled. */
static long sign_cancelled(const struct view *v) {
  for (size_t k = 0; k < v->nx; k++)
    if (ock__pf_is(v->x[k].complete_entry, OCK_FIELD_STATUS, OCK_PV_STATUS_CANCELLED))
      return v->x[k].complete_seq;
  return -1;
}

/* behaviour: the signs of SPEC.md 1.3 that are not event names. */
static void behaviour(struct grade_ctx *g) {
  const struct view *v = g->v;
  const char *what = "";
  long seq;
  if (!ock__grade_declared(g, OCK_CAP_PARALLEL) && (seq = sign_overlap(v)) >= 0)
    undeclared(g, OCK_CAP_PARALLEL, seq, "two tool calls of one response running at the same time");
  if (!ock__grade_declared(g, OCK_CAP_LIFECYCLE) && (seq = sign_lifecycle_field(v, &what)) >= 0) {
    char text[80];
    snprintf(text, sizeof text, "an event with a %s field", what);
    undeclared(g, OCK_CAP_LIFECYCLE, seq, text);
  }
  if (!ock__grade_declared(g, OCK_CAP_RESILIENCE) && (seq = sign_retried(v, &what)) >= 0)
    undeclared(g, OCK_CAP_RESILIENCE, seq, what);
  if (!ock__grade_declared(g, OCK_CAP_CANCELLATION) && (seq = sign_cancelled(v)) >= 0)
    undeclared(g, OCK_CAP_CANCELLATION, seq, "an execute ended with status cancelled");
}

void ock__check_capability(struct grade_ctx *g) {
  const struct view *v = g->v;
  for (size_t s = 0; s < sizeof signs / sizeof signs[0]; s++) {
    if (ock__grade_declared(g, signs[s].capability))
      continue;
    for (size_t i = 0; i < v->n; i++) {
      if (ock__is_event(v->e[i], signs[s].event)) {
        char what[120];
        snprintf(what, sizeof what, "event %s", signs[s].event);
        undeclared(g, signs[s].capability, ock__entry_seq(v->e[i]), what);
        break;
      }
    }
  }
  if (!ock__grade_declared(g, OCK_CAP_STREAMING))
    for (size_t i = 0; i < v->n; i++)
      if (ock__is_kind(v->e[i], OCK_ENTRY_LLM_REQUEST) && ock_json_bool(v->e[i], "stream", 0) &&
          !v->cfg.streaming) {
        undeclared(g, OCK_CAP_STREAMING, ock__entry_seq(v->e[i]), "a streaming LLM request");
        break;
      }
  behaviour(g);
}
