/*
 * check_lifecycle.c: LIFECYCLE and TRACE, the CUGAR lifecycle over an LLM loop: execution:start
 * and execution:end around every execute, each event's stage as SPEC.md maps it, only allowed
 * stage transitions, one terminal stage, deterministic and justified routing, and the session's
 * trace_id on every event and request.
 */
#include <string.h>

#include "checks/grade.h"
#include "ock/contract.h"
#include "ock/events.h"
#include "ock/json.h"

/* next_event: the index of the next known event entry after i, below hi. Custom events inside
 * an execute are ignored (SPEC.md 3.1), so they may stand anywhere between known ones. */
static size_t next_event(const struct grade_ctx *g, size_t i, size_t hi) {
  const struct view *v = g->v;
  for (size_t j = i + 1; j < hi; j++)
    if (ock__is_kind(v->e[j], OCK_ENTRY_EVENT) &&
        ock_registry_event(g->reg, ock__event_name(v->e[j])))
      return j;
  return (size_t)-1;
}

/* exec_end_status: the execution:end status that goes with orchestrator:complete's status. */
static const char *exec_end_status(const char *status) {
  if (status && !strcmp(status, OCK_PV_STATUS_CANCELLED))
    return OCK_PV_EXECUTION_END_STATUS_CANCELLED;
  if (status && !strcmp(status, OCK_PV_STATUS_ERROR))
    return OCK_PV_EXECUTION_END_STATUS_ERROR;
  return OCK_PV_EXECUTION_END_STATUS_COMPLETED;
}

static void execution_events(struct grade_ctx *g, const struct view_exec *x) {
  const struct view *v = g->v;
  size_t after = next_event(g, x->first, x->end);
  int start_ok = after != (size_t)-1 && ock__is_event(v->e[after], OCK_EV_EXECUTION_START);
  size_t end_i = (size_t)-1, complete_i = (size_t)-1;
  for (size_t i = x->first; i < x->end; i++) {
    if (ock__is_event(v->e[i], OCK_EV_EXECUTION_END) && end_i == (size_t)-1)
      end_i = i;
    if (ock__is_event(v->e[i], OCK_EV_ORCHESTRATOR_COMPLETE) && complete_i == (size_t)-1)
      complete_i = i;
  }
  const char *status = ock__pf_str(x->complete_entry, OCK_FIELD_STATUS);
  int end_ok = end_i != (size_t)-1 && complete_i != (size_t)-1 &&
               next_event(g, end_i, x->end) == complete_i &&
               ock__pf_is(v->e[end_i], OCK_FIELD_STATUS, exec_end_status(status));
  ock__grade_emit(g, CK_LIFECYCLE_EXECUTION_EVENTS, start_ok && end_ok, x->complete_seq,
                  "execution:start right after prompt:submit; execution:end with the "
                  "matching status right before orchestrator:complete",
                  "execute %d: execution:start %s; execution:end %s", x->index,
                  start_ok ? "in place" : "missing or misplaced",
                  end_i == (size_t)-1 ? "missing"
                  : end_ok            ? "in place"
                                      : "misplaced or with the wrong status");
}

/* The walk over one execute's staged events for the stage checks. */
struct stage_walk {
  enum ock_stage terminal;      /* the terminal stage the status maps to */
  int have_terminal;            /* the status maps to one */
  struct ock_stage_walk order;  /* the transitions so far (SPEC.md 4.4) */
  enum ock_stage seen_terminal; /* the last terminal stage seen; OCK_STAGE_COUNT when none */
  int stage_bad, trans_bad, terminal_bad; /* failures reported: only the first of each is */
};

/* stage_of_event judges the stage of event e of execute x: for a known event (def), the stage
 * SPEC.md maps it to (OCK-LIFECYCLE-002); for every event with a stage, an allowed transition from
 * the previous one (-003) and no second terminal stage (-004, which alone reports a move from one
 * terminal stage into another). A custom event's stage is its own
 * (any of the eight): it takes part in the walk, so that CUGAR's plan, route and execute steps,
 * which no known event names, are held to SPEC.md 4.4 too; one without a stage is skipped. */
static void stage_of_event(struct grade_ctx *g, const struct view_exec *x, const cJSON *e,
                           const struct ock_event_def *def, struct stage_walk *w) {
  enum ock_stage s;
  const char *got = ock__pf_str(e, OCK_FIELD_STAGE);
  if (ock_stage_parse(got, &s)) {
    if (def && !w->stage_bad++)
      ock__grade_emit(g, CK_LIFECYCLE_STAGE, 0, ock__entry_seq(e), "every event carries its stage",
                      "%s has stage \"%.30s\"", ock__event_name(e),
                      ock__pf_show(e, OCK_FIELD_STAGE));
    return;
  }
  int ok = 1; /* a custom event's stage is any of the eight */
  if (def && !strcmp(def->stage, "terminal"))
    ok = w->have_terminal && s == w->terminal;
  else if (def && !strcmp(def->stage, "current"))
    ok = !ock_stage_is_terminal(s);
  else if (def)
    ok = !strcmp(def->stage, got);
  if (!ok && !w->stage_bad++)
    ock__grade_emit(g, CK_LIFECYCLE_STAGE, 0, ock__entry_seq(e),
                    "every event carries the stage SPEC.md maps it to",
                    "%s has stage %s (expected %s)", ock__event_name(e), got,
                    strcmp(def->stage, "terminal") ? def->stage
                    : w->have_terminal             ? ock_stage_name(w->terminal)
                                                   : "terminal");
  enum ock_stage from = w->order.prev;
  /* A move from one terminal stage into another is a second terminal stage: OCK-LIFECYCLE-004's
   * finding below, not a transition of the table gone wrong. */
  int second_terminal = from != OCK_STAGE_COUNT && ock_stage_is_terminal(from) &&
                        ock_stage_is_terminal(s) && from != s;
  if (!ock_stage_walk_next(&w->order, s) && !second_terminal && !w->trans_bad++)
    ock__grade_emit(g, CK_LIFECYCLE_TRANSITIONS, 0, ock__entry_seq(e),
                    "only the transitions of SPEC.md's table", "execute %d: %s -> %s at %s",
                    x->index, ock_stage_name(from), ock_stage_name(s), ock__event_name(e));
  if (ock_stage_is_terminal(s)) {
    if (w->seen_terminal != OCK_STAGE_COUNT && w->seen_terminal != s && !w->terminal_bad++)
      ock__grade_emit(g, CK_LIFECYCLE_TERMINAL, 0, ock__entry_seq(e), "exactly one terminal stage",
                      "execute %d: %s and then %s", x->index, ock_stage_name(w->seen_terminal),
                      ock_stage_name(s));
    w->seen_terminal = s;
  }
}

/* stages_passed: what no event of x failed passes, and the terminal stage reached must match
 * the status (OCK-LIFECYCLE-004). */
static void stages_passed(struct grade_ctx *g, const struct view_exec *x,
                          const struct stage_walk *w) {
  if (!w->stage_bad)
    ock__grade_emit(g, CK_LIFECYCLE_STAGE, 1, -1, "every event carries its stage", "as expected");
  if (!w->trans_bad)
    ock__grade_emit(g, CK_LIFECYCLE_TRANSITIONS, 1, -1, "only the transitions of SPEC.md's table",
                    "as expected");
  if (!w->terminal_bad)
    ock__grade_emit(
        g, CK_LIFECYCLE_TERMINAL,
        w->seen_terminal != OCK_STAGE_COUNT && w->have_terminal && w->seen_terminal == w->terminal,
        x->complete_seq, "exactly one terminal stage, matching the status",
        "execute %d: terminal stage %s, status %s", x->index,
        w->seen_terminal == OCK_STAGE_COUNT ? "never reached" : ock_stage_name(w->seen_terminal),
        ock__pf_show(x->complete_entry, OCK_FIELD_STATUS));
}

static void stages(struct grade_ctx *g, const struct view_exec *x) {
  const struct view *v = g->v;
  const char *status = ock__pf_str(x->complete_entry, OCK_FIELD_STATUS);
  struct stage_walk w = {.terminal = OCK_STAGE_COUNT, .seen_terminal = OCK_STAGE_COUNT};
  ock_stage_walk_start(&w.order);
  w.have_terminal = ock_stage_for_status(status, &w.terminal) == 0;
  int any = 0;
  for (size_t i = x->first; i < x->end; i++) {
    const cJSON *e = v->e[i];
    if (!ock__is_kind(e, OCK_ENTRY_EVENT))
      continue;
    const struct ock_event_def *def = ock_registry_event(g->reg, ock__event_name(e));
    any |= def != NULL;
    stage_of_event(g, x, e, def, &w);
  }
  if (any)
    stages_passed(g, x, &w);
}

/* lowest_priority: the provider routing must choose first, and the one after it. */
static void expected_route(const struct view *v, const char **first, const char **second) {
  *first = *second = NULL;
  long long best = 0, next = 0;
  for (size_t k = 0; k < v->fx->n_providers; k++) {
    long long pr = v->fx->providers[k].priority;
    const char *name = v->fx->providers[k].name;
    if (!*first || pr < best) {
      *second = *first;
      next = best;
      *first = name;
      best = pr;
    } else if (!*second || pr < next) {
      *second = name;
      next = pr;
    }
  }
}

static void routing(struct grade_ctx *g) {
  const struct view *v = g->v;
  const cJSON *first_decision = NULL;
  const char *want, *want_fallback;
  expected_route(v, &want, &want_fallback);
  for (size_t k = 0; k < v->nx; k++) {
    const struct view_exec *x = &v->x[k];
    const cJSON *resolve = NULL;
    size_t request = (size_t)-1;
    for (size_t i = x->first; i < x->end && request == (size_t)-1; i++) {
      if (ock__is_event(v->e[i], OCK_EV_PROVIDER_RESOLVE) && !resolve)
        resolve = v->e[i];
      if (ock__is_event(v->e[i], OCK_EV_PROVIDER_REQUEST))
        request = i;
    }
    if (request == (size_t)-1)
      continue;
    const char *provider = ock__pf_str(resolve, OCK_FIELD_PROVIDER);
    const char *reason = ock__pf_str(resolve, OCK_FIELD_REASON);
    int ok = provider && *provider && reason && *reason && ock__pf(resolve, OCK_FIELD_FALLBACK);
    ock__grade_emit(
        g, CK_LIFECYCLE_RESOLVE, ok,
        resolve ? ock__entry_seq(resolve) : ock__entry_seq(v->e[request]),
        "provider:resolve {provider, reason, fallback} before the first provider:request",
        "execute %d: %s", x->index,
        !resolve ? "no provider:resolve before the first request"
        : ok     ? "present"
                 : "provider, reason or fallback missing");
    if (!resolve)
      continue;
    if (!first_decision) {
      first_decision = resolve;
      int ok_prio = ock__pf_is(resolve, OCK_FIELD_PROVIDER, want) &&
                    (want_fallback ? ock__pf_is(resolve, OCK_FIELD_FALLBACK, want_fallback)
                                   : cJSON_IsNull(ock__pf(resolve, OCK_FIELD_FALLBACK)));
      ock__grade_emit(g, CK_LIFECYCLE_ROUTING_PRIORITY, ok_prio, ock__entry_seq(resolve),
                      "the lowest priority number first, the next as fallback",
                      "chose %s (fallback %s); expected %s (fallback %s)",
                      ock__pf_show(resolve, OCK_FIELD_PROVIDER),
                      ock__pf_show(resolve, OCK_FIELD_FALLBACK), want ? want : "?",
                      want_fallback ? want_fallback : "null");
    } else {
      int same = ock__pf_same(resolve, first_decision, OCK_FIELD_PROVIDER) &&
                 ock__pf_same(resolve, first_decision, OCK_FIELD_REASON) &&
                 ock__pf_same(resolve, first_decision, OCK_FIELD_FALLBACK);
      ock__grade_emit(g, CK_LIFECYCLE_ROUTING_DETERMINISTIC, same, ock__entry_seq(resolve),
                      "the same inputs give the same routing decision",
                      "execute %d chose %s (%.60s), execute 1 chose %s (%.60s)", x->index,
                      ock__pf_show(resolve, OCK_FIELD_PROVIDER),
                      ock__pf_show(resolve, OCK_FIELD_REASON),
                      ock__pf_show(first_decision, OCK_FIELD_PROVIDER),
                      ock__pf_show(first_decision, OCK_FIELD_REASON));
    }
  }
}

static const char *session_trace_id(const struct view *v) {
  for (size_t i = 0; i < v->n; i++)
    if (ock__is_kind(v->e[i], OCK_ENTRY_SESSION) && ock_json_str(v->e[i], OCK_F_SESSION_TRACE_ID))
      return ock_json_str(v->e[i], OCK_F_SESSION_TRACE_ID);
  return ock_json_str(v->session, "trace_id");
}

static void trace(struct grade_ctx *g) {
  const struct view *v = g->v;
  const char *want = session_trace_id(v);
  if (!want)
    return;
  int bad = 0, any = 0;
  for (size_t i = 0; i < v->n; i++) {
    const cJSON *e = v->e[i];
    if (ock__is_kind(e, OCK_ENTRY_EVENT) && ock_registry_event(g->reg, ock__event_name(e))) {
      any = 1;
      if (!ock__pf_is(e, OCK_FIELD_TRACE_ID, want) && !bad++)
        ock__grade_emit(g, CK_TRACE_ID, 0, ock__entry_seq(e),
                        "every event carries the session's trace_id", "%s has trace_id \"%.60s\"",
                        ock__event_name(e), ock__pf_show(e, OCK_FIELD_TRACE_ID));
    }
    if (ock__is_kind(e, OCK_ENTRY_LLM_REQUEST) || ock__is_kind(e, OCK_ENTRY_TOOL_START)) {
      const char *headers = ock__is_kind(e, OCK_ENTRY_LLM_REQUEST) ? OCK_F_LLM_REQUEST_HEADERS
                                                                   : OCK_F_TOOL_START_HEADERS;
      const char *h =
          ock__str_field(cJSON_GetObjectItemCaseSensitive(e, headers), "x-ock-trace-id");
      ock__grade_emit(g, CK_TRACE_HEADER, !strcmp(h, want), ock__entry_seq(e),
                      "LLM and tool endpoint requests carry X-OCK-Trace-Id",
                      "%s %ld: header \"%.60s\"", ock__entry_kind(e), ock__entry_seq(e), h);
    }
  }
  if (any && !bad)
    ock__grade_emit(g, CK_TRACE_ID, 1, -1, "every event carries the session's trace_id",
                    "as expected");
}

void ock__check_lifecycle(struct grade_ctx *g) {
  /* The grammar reports misplaced execution events; presence is execution_events' below. */
  ock__grade_grammar(g, CK_LIFECYCLE_EXECUTION_EVENTS, 0);
  if (!ock__grade_applies(g, CK_LIFECYCLE_EXECUTION_EVENTS)) {
    /* Mark the rest of the group not applicable too, so the report says why. */
    static const enum check_name rest[] = {CK_LIFECYCLE_STAGE, CK_LIFECYCLE_TRANSITIONS,
                                           CK_LIFECYCLE_TERMINAL, CK_LIFECYCLE_RESOLVE,
                                           CK_TRACE_ID};
    for (size_t i = 0; i < sizeof rest / sizeof rest[0]; i++)
      ock__grade_applies(g, rest[i]);
    return;
  }
  for (size_t k = 0; k < g->v->nx; k++) {
    if (!g->v->x[k].complete)
      continue;
    execution_events(g, &g->v->x[k]);
    stages(g, &g->v->x[k]);
  }
  routing(g);
  trace(g);
}
