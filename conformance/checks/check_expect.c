/*
 * check_expect.c: each scenario's own expectations (fixture "expect"), graded like the generic
 * checks. Each clause is charged to the requirement it proves (SPEC.md 8.8), decided by the
 * table below: a fixed requirement, or candidates the clause can prove, of which the fixture's
 * first listed one is taken. A clause, an element of a list clause or a tool of tool_calls may
 * name its requirement itself ("requirement"); that wins.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/grade.h"
#include "ock/contract.h"
#include "ock/json.h"
#include "model/outcome.h"

#define MAX_CANDIDATES 4

/* What each clause proves. For list clauses, a matching text prefix (`prefix`) narrows it. */
static const struct clause_rule {
  const char *clause;
  const char *prefix; /* last_request_contains: the text starts with this; NULL: any */
  const char *candidates[MAX_CANDIDATES];
} rules[] = {
    {"exit_code", NULL, {"OCK-PROC-002"}},
    {"executes.status", NULL, {"OCK-COMPLETE-006"}},
    {"executes.turn_count", NULL, {"OCK-COMPLETE-005"}},
    {"executes.reason", NULL, {"OCK-COMPLETE-006"}},
    {"executes.error_type", NULL, {"OCK-COMPLETE-007"}},
    {"timing", NULL, {"OCK-ERROR-005", "OCK-ERROR-004"}},
    {"tool_input", NULL, {"OCK-HOOK-006", "OCK-HOOK-012", "OCK-STREAM-003", "OCK-TOOL-004"}},
    /* An event every execute of that kind owes, by the requirement that owes it. */
    {"events_present", OCK_EV_PROMPT_SUBMIT, {"OCK-ORDER-001"}},
    {"events_present", OCK_EV_PROVIDER_REQUEST, {"OCK-ORDER-005"}},
    {"events_present", OCK_EV_PROVIDER_RESPONSE, {"OCK-ORDER-002"}},
    {"events_present", OCK_EV_PROMPT_COMPLETE, {"OCK-ORDER-004"}},
    {"events_present", OCK_EV_ORCHESTRATOR_COMPLETE, {"OCK-COMPLETE-001"}},
    {"events_present", "cancel:", {"OCK-CANCEL-002"}},
    {"events_present", "execution:", {"OCK-LIFECYCLE-001"}},
    /* The texts of SPEC.md 5.10 and 5.11, by their fixed prefixes: each its TEXT requirement
     * (SPEC.md 2.15), so a SUT that words them otherwise fails only a SHOULD. */
    {"last_request_contains", "Error: skipped: ", {"OCK-TEXT-008"}},
    {"last_request_contains", "Error: cancelled", {"OCK-TEXT-007"}},
    {"last_request_contains", "The previous operation was cancelled.", {"OCK-TEXT-010"}},
    {"last_request_contains", "Error: denied: ", {"OCK-TEXT-005"}},
    {"last_request_contains", "Error: tool '", {"OCK-TEXT-001"}},
    {"last_request_contains", "Error: invalid arguments: ", {"OCK-TEXT-004"}},
    {"last_request_contains", "Error: unknown error", {"OCK-TEXT-002"}},
    {"last_request_contains", "Error: ", {"OCK-TEXT-003"}},
};

/* tool_output_text: text is (part of) the output a scripted tool returned with success true (a
 * string, or the compact JSON of any other output), or "Error: <message>" of one that returned
 * success false. 1: output, 2: failure, 0: no. */
static int tool_output_text(const struct view *v, const char *text) {
  for (size_t i = 0; i < v->fx->n_tools; i++) {
    const cJSON *res = v->fx->tools[i].dflt.result;
    const cJSON *out = cJSON_GetObjectItemCaseSensitive(res, "output");
    const char *msg = ock_json_str(cJSON_GetObjectItemCaseSensitive(res, "error"), "message");
    if (cJSON_IsString(out) && *out->valuestring && strstr(out->valuestring, text))
      return 1;
    /* Any other output goes back as compact JSON, whose spacing is OCK-TOOL-006's (SPEC.md
     * 5.11); an absent output is null. */
    if (res && !cJSON_IsString(out) &&
        cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(res, "success"))) {
      char *compact = out ? cJSON_PrintUnformatted(out) : NULL;
      int hit = strstr(compact ? compact : "null", text) != NULL;
      free(compact);
      if (hit)
        return 1;
    }
    if (msg && *msg && !strncmp(text, "Error: ", 7) && strstr(msg, text + 7))
      return 2;
  }
  return 0;
}

/* charged: the requirement a clause (or one element of it, text: its text or NULL) proves.
 * own: what the element or clause names itself; fallback: expect.requirement or the fixture's
 * first requirement, for clauses whose proof depends on the scenario. */
static const char *charged(const struct view *v, const char *clause, const char *text,
                           const char *own, const char *fallback) {
  if (own)
    return own;
  if (text && !strcmp(clause, "last_request_contains")) {
    int kind = tool_output_text(v, text);
    if (kind)
      return kind == 1 ? "OCK-TOOL-006" : "OCK-TEXT-002";
  }
  for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
    const struct clause_rule *r = &rules[i];
    if (strcmp(r->clause, clause) ||
        (r->prefix && (!text || strncmp(text, r->prefix, strlen(r->prefix)))))
      continue;
    for (size_t k = 0; k < MAX_CANDIDATES && r->candidates[k]; k++)
      if (ock_fixture_lists(v->fx, r->candidates[k]))
        return r->candidates[k];
    return r->candidates[0];
  }
  return fallback;
}

static int count_events(const struct view *v, const char *name, long *seq) {
  int n = 0;
  for (size_t i = 0; i < v->n; i++)
    if (ock__is_event(v->e[i], name)) {
      n++;
      *seq = ock__entry_seq(v->e[i]);
    }
  return n;
}

static int history_contains(const cJSON *request, const char *text) {
  const cJSON *m;
  cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(request, OCK_F_LLM_REQUEST_NEUTRAL))
    if (strstr(ock__str_field(m, "content"), text))
      return 1;
  return 0;
}

static void executes(struct grade_ctx *g, const struct ock_fx_expect *e) {
  const struct view *v = g->v;
  for (size_t k = 0; k < e->n_executes; k++) {
    const struct ock_fx_expect_execute *want = &e->executes[k];
    const struct view_exec *x = k < v->nx ? &v->x[k] : NULL;
    int n = (int)k + 1;
    const cJSON *c = x ? x->complete_entry : NULL;
    long seq = x ? x->complete_seq : -1;
    if (want->status)
      ock__grade_emit_to(g, CK_EXPECT_STATUS, charged(v, "executes.status", NULL, NULL, NULL),
                         ock__pf_is(c, OCK_FIELD_STATUS, want->status), seq,
                         "status as the scenario expects", "execute %d: status %s, expected %s", n,
                         c ? ock__pf_show(c, OCK_FIELD_STATUS) : "(no orchestrator:complete)",
                         want->status);
    if (want->turn_count >= 0) {
      struct ock_payload tc = ock__payload(c, OCK_FIELD_TURN_COUNT);
      const cJSON *got = tc.json;
      char shown[64];
      if (cJSON_IsNumber(got))
        snprintf(shown, sizeof shown, "turn_count %g", got->valuedouble);
      else
        snprintf(shown, sizeof shown, "%s",
                 !c                                 ? "no orchestrator:complete"
                 : tc.state == OCK_PAYLOAD_MISTYPED ? "turn_count not a number"
                                                    : "no turn_count");
      ock__grade_emit_to(g, CK_EXPECT_TURN_COUNT,
                         charged(v, "executes.turn_count", NULL, NULL, NULL),
                         cJSON_IsNumber(got) && got->valuedouble == (double)want->turn_count, seq,
                         "turn_count as the scenario expects", "execute %d: %s, expected %lld", n,
                         shown, want->turn_count);
    }
    if (want->reason)
      ock__grade_emit_to(g, CK_EXPECT_REASON, charged(v, "executes.reason", NULL, NULL, NULL),
                         ock__pf_is(c, OCK_FIELD_REASON, want->reason), seq,
                         "reason as the scenario expects",
                         "execute %d: reason \"%s\", expected \"%s\"", n,
                         c ? ock__pf_show(c, OCK_FIELD_REASON) : "", want->reason);
    if (want->error_type) {
      const char *got = ock__str_field(ock__pf(c, OCK_FIELD_ERROR), "type");
      ock__grade_emit_to(
          g, CK_EXPECT_ERROR_TYPE, charged(v, "executes.error_type", NULL, NULL, NULL),
          c && !strcmp(got, want->error_type), seq, "error.type as the scenario expects",
          "execute %d: error.type \"%s\", expected \"%s\"", n, got, want->error_type);
    }
  }
}

/* timing: for each pair of consecutive LLM requests of one execute whose earlier one failed,
 * the gap from that failed reply to the next request lies in the expected range (SPEC.md 8.8);
 * a list of ranges gives one per such pair, in order. */
static void timing(struct grade_ctx *g, const struct ock_fx_expect *e, const char *req) {
  const struct view *v = g->v;
  size_t pair = 0;
  for (size_t k = 0; k < v->nx; k++) {
    const cJSON *failed = NULL;
    for (size_t i = v->x[k].first; i < v->x[k].end; i++) {
      if (!ock__is_kind(v->e[i], OCK_ENTRY_LLM_REQUEST))
        continue;
      if (failed) {
        const struct ock_fx_range *range = e->timing_each       ? &e->ranges[0]
                                           : pair < e->n_ranges ? &e->ranges[pair]
                                                                : NULL;
        pair++;
        if (range) {
          /* The fixture's max holds at --time-scale 1; a slower machine gets the extra late
           * tolerance OCK-ERROR-004 is given (SPEC.md 9.4), the min never moves. */
          double lo = range->min_ms,
                 hi = range->max_ms + ock__grade_late_ms(g) - GRADE_TIMING_LATE_MS;
          double gap = ock__entry_time(v->e[i]) - ock__entry_time(failed);
          ock__grade_emit_to(
              g, CK_EXPECT_TIMING, req, gap >= lo && gap <= hi, ock__entry_seq(v->e[i]),
              "the delay before the retry the scenario expects",
              "%.0f ms from the failed reply %ld to request %ld; expected %.0f..%.0f ms", gap,
              ock__entry_seq(failed), ock__entry_seq(v->e[i]), lo, hi);
        }
      }
      const cJSON *reply = ock__view_reply_of(v, i);
      failed = reply && ock__reply_failed(reply) ? reply : NULL;
    }
  }
}

static void expect_exit_code(struct grade_ctx *g, const struct ock_fx_expect *e) {
  const struct view *v = g->v;
  if (e->exit_code < 0)
    return;
  long long want = e->exit_code;
  const struct sut_result *p = v->proc;
  const char *req_x = charged(v, "exit_code", NULL, NULL, NULL);
  const char *spec = "exit code as the scenario expects";
  /* A process ended by a signal or the timeout has no exit code: say how it ended. */
  if (p->timed_out)
    ock__grade_emit_to(g, CK_EXPECT_EXIT_CODE, req_x, 0, -1, spec,
                       "timed out and was killed, expected exit code %lld", want);
  else if (p->signal)
    ock__grade_emit_to(g, CK_EXPECT_EXIT_CODE, req_x, 0, -1, spec,
                       "ended by %s, expected exit code %lld", ock__sut_signal_name(p->signal),
                       want);
  else
    ock__grade_emit_to(g, CK_EXPECT_EXIT_CODE, req_x, p->exit_code == want, -1, spec,
                       "exit code %d, expected %lld", p->exit_code, want);
}

/* expect_events: events_present (present 1) or events_absent (0); req is the requirement a
 * clause without one of its own is charged to (ock__check_expect). */
static void expect_events(struct grade_ctx *g, const struct ock_fx_expect_list *l, int present,
                          const char *req) {
  const struct view *v = g->v;
  const char *clause = present ? "events_present" : "events_absent";
  for (size_t k = 0; k < l->n; k++) {
    const struct ock_fx_expect_item *it = &l->items[k];
    long seq = -1;
    int n = count_events(v, it->name, &seq);
    ock__grade_emit_to(g, present ? CK_EXPECT_EVENTS_PRESENT : CK_EXPECT_EVENTS_ABSENT,
                       charged(v, clause, it->name, it->requirement, req), present ? n > 0 : n == 0,
                       seq,
                       present ? "the scenario's events are emitted"
                               : "the scenario's forbidden events are absent",
                       "%s: %d", it->name, n);
  }
}

static void expect_llm_requests(struct grade_ctx *g, const struct ock_fx_expect *e,
                                const char *req) {
  const struct view *v = g->v;
  if (!e->has_llm_requests)
    return;
  int n = 0;
  for (size_t i = 0; i < v->n; i++)
    n += ock__is_kind(v->e[i], OCK_ENTRY_LLM_REQUEST);
  long long want = e->llm_requests.count;
  ock__grade_emit_to(g, CK_EXPECT_LLM_REQUESTS,
                     charged(v, "llm_requests", NULL, e->llm_requests.requirement, req), n == want,
                     -1, "LLM requests as the scenario expects", "%d LLM requests, expected %lld",
                     n, want);
}

/* first_start: the first tool_start entry of the tool, or NULL. */
static const cJSON *first_start(const struct view *v, const char *tool) {
  for (size_t i = 0; i < v->n; i++)
    if (ock__is_kind(v->e[i], OCK_ENTRY_TOOL_START) &&
        !strcmp(ock__str_field(v->e[i], "name"), tool))
      return v->e[i];
  return NULL;
}

static void expect_tool_calls(struct grade_ctx *g, const struct ock_fx_expect_list *l,
                              const char *req) {
  const struct view *v = g->v;
  for (size_t k = 0; k < l->n; k++) {
    const struct ock_fx_expect_item *it = &l->items[k];
    int n = 0;
    for (size_t i = 0; i < v->n; i++)
      n += ock__is_kind(v->e[i], OCK_ENTRY_TOOL_START) &&
           !strcmp(ock__str_field(v->e[i], "name"), it->name);
    const char *own = it->requirement ? it->requirement : l->requirement;
    ock__grade_emit_to(g, CK_EXPECT_TOOL_CALLS, charged(v, "tool_calls", NULL, own, req),
                       n == it->count, -1, "tool runs as the scenario expects",
                       "tool %s ran %d times, expected %lld", it->name, n, it->count);
  }
}

static void expect_tool_input(struct grade_ctx *g, const struct ock_fx_expect_list *l,
                              const char *req) {
  const struct view *v = g->v;
  for (size_t k = 0; k < l->n; k++) {
    const struct ock_fx_expect_item *it = &l->items[k];
    const cJSON *start = first_start(v, it->name);
    const cJSON *got = start ? cJSON_GetObjectItemCaseSensitive(start, "input") : NULL;
    int same = got && cJSON_Compare(got, it->input, 1);
    ock__grade_emit_to(g, CK_EXPECT_TOOL_INPUT, charged(v, "tool_input", NULL, l->requirement, req),
                       same, start ? ock__entry_seq(start) : -1,
                       "the tool input the scenario expects", "tool %s %s", it->name,
                       !got   ? "never ran"
                       : same ? "got it"
                              : "got another input");
  }
}

static void expect_last_request(struct grade_ctx *g, const struct ock_fx_expect_list *l,
                                const char *req) {
  const struct view *v = g->v;
  const cJSON *last = NULL;
  for (size_t i = 0; i < v->n; i++)
    if (ock__is_kind(v->e[i], OCK_ENTRY_LLM_REQUEST))
      last = v->e[i];
  for (size_t k = 0; k < l->n; k++) {
    const struct ock_fx_expect_item *it = &l->items[k];
    int ok = last && history_contains(last, it->name);
    ock__grade_emit_to(g, CK_EXPECT_LAST_REQUEST,
                       charged(v, "last_request_contains", it->name, it->requirement, req), ok,
                       last ? ock__entry_seq(last) : -1,
                       "the last LLM request carries the scenario's text", "\"%.60s\" %s", it->name,
                       ok ? "present" : "absent");
  }
}

void ock__check_expect(struct grade_ctx *g) {
  const struct view *v = g->v;
  const struct ock_fx_expect *e = &v->fx->expect;
  if (!e->present)
    return;
  /* For clauses whose proof depends on the scenario, without a requirement of their own: the
   * fixture's first requirement is what it proves first. */
  const char *req = e->requirement          ? e->requirement
                    : v->fx->n_requirements ? v->fx->requirements[0]
                                            : "OCK-PROC-001";
  expect_exit_code(g, e);
  executes(g, e);
  expect_events(g, &e->events_present, 1, req);
  expect_events(g, &e->events_absent, 0, req);
  expect_llm_requests(g, e, req);
  expect_tool_calls(g, &e->tool_calls, req);
  expect_tool_input(g, &e->tool_input, req);
  if (e->has_timing)
    timing(g, e, charged(v, "timing", NULL, e->timing_requirement, req));
  expect_last_request(g, &e->last_request_contains, req);
}
