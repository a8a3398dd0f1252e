/*
 * check_error.c: ERROR, the four strategies. A failed provider reply is reported with
 * provider:error; under retry a retryable failure is retried (never past max_retries, after a
 * provider:retry, waiting the backoff or the Retry-After the mock sent) and a non-retryable one
 * is not; under fallback the next provider by priority takes the turn; under fail_fast a tool
 * failure ends the execute with status error.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/grade.h"
#include "ock/caps.h"
#include "ock/contract.h"
#include "ock/json.h"
#include "model/view_calls.h"

static const char *fault_kind(const cJSON *reply) {
  const cJSON *f = cJSON_GetObjectItemCaseSensitive(reply, OCK_F_LLM_REPLY_FAULT);
  return cJSON_IsString(f) ? f->valuestring : ock_json_str(f, "kind");
}

/* retryable per SPEC.md: 408, 409, 429, 5xx but 501, 529, a cut or dropped stream. */
static int retryable(const cJSON *reply) {
  long status = (long)ock_json_int(reply, OCK_F_LLM_REPLY_STATUS, 200);
  const char *k = fault_kind(reply);
  if (status >= 400)
    return status == 408 || status == 409 || status == 429 || status == 529 ||
           (status >= 500 && status != 501);
  if (k && !strcmp(k, "malformed_chunk")) /* retryable when streamed, not as a whole body */
    return ock_json_bool(reply, OCK_F_LLM_REPLY_STREAM, 0);
  return k && (!strcmp(k, "cut_stream") || !strcmp(k, "error_mid_stream") ||
               !strcmp(k, "drop_connection") || !strcmp(k, "client_gone"));
}

/* scripted_turn: the fixture's script turn that produced this reply, or NULL. */
static const struct ock_fx_turn *scripted_turn(const struct view *v, const cJSON *reply) {
  const struct ock_fx_provider *p =
      ock_fixture_provider(v->fx, ock__str_field(reply, OCK_F_LLM_REPLY_PROVIDER));
  long long turn = ock_json_int(reply, OCK_F_LLM_REPLY_TURN, -1);
  return p && turn >= 0 && (size_t)turn < p->n_turns ? &p->turns[turn] : NULL;
}

/* retry_after_ms: what the mock told the SUT to wait, or -1. */
static double retry_after_ms(const struct view *v, const cJSON *reply) {
  const struct ock_fx_turn *t = scripted_turn(v, reply);
  if (!t || t->fault.kind != OCK_FX_FAULT_STATUS)
    return -1;
  if (t->fault.retry_after_ms >= 0)
    return (double)t->fault.retry_after_ms;
  return t->fault.retry_after >= 0 ? t->fault.retry_after * 1000.0 : -1;
}

static const char *next_provider(const struct view *v, const char *failed) {
  const struct ock_fx_provider *fp = ock_fixture_provider(v->fx, failed);
  long long fpr = fp ? fp->priority : 0;
  const char *best = NULL;
  long long bp = 0;
  int past = 0;
  for (size_t k = 0; k < v->fx->n_providers; k++) {
    long long pr = v->fx->providers[k].priority;
    const char *name = v->fx->providers[k].name;
    if (!strcmp(name, failed)) {
      past = 1;
      continue;
    }
    /* strictly later in (priority, list order) than the failed provider */
    if (pr < fpr || (pr == fpr && !past))
      continue;
    if (!best || pr < bp) {
      best = name;
      bp = pr;
    }
  }
  return best;
}

/* find the first event named name in [from, to). */
static const cJSON *event_between(const struct view *v, size_t from, size_t to, const char *name) {
  for (size_t i = from; i < to && i < v->n; i++)
    if (ock__is_event(v->e[i], name))
      return v->e[i];
  return NULL;
}

/* sigint_after: the harness sent a SIGINT after entry i and before the window's end. */
static int sigint_after(const struct view *v, const struct view_exec *x, size_t i) {
  for (size_t k = i + 1; k < x->end && k < v->n; k++)
    if (ock__is_kind(v->e[k], OCK_ENTRY_CANCEL))
      return 1;
  return 0;
}

/* reported: the failure of the request at entry index i (reply: its reply) was reported with a
 * provider:error before the next request (entry until). */
static void reported(struct grade_ctx *g, size_t i, const cJSON *reply, size_t until) {
  const struct view *v = g->v;
  const cJSON *err = event_between(v, i + 1, until, OCK_EV_PROVIDER_ERROR);
  const cJSON *e = ock__pf(err, OCK_FIELD_ERROR);
  const char *named = ock__pf_str(err, OCK_FIELD_PROVIDER);
  int ok = named && *named && cJSON_IsObject(e) && ock_json_str(e, "type") &&
           ock_json_str(e, "message") && ock__pf(err, OCK_FIELD_RETRYABLE) &&
           ock__pf(err, OCK_FIELD_STATUS_CODE);
  ock__grade_emit(g, CK_ERROR_PROVIDER_ERROR, ok,
                  err ? ock__entry_seq(err) : ock__entry_seq(v->e[i]),
                  "provider:error {provider, error:{type,message}, retryable, status_code}",
                  "failed reply %ld: %s", ock__entry_seq(reply),
                  !err ? "no provider:error"
                  : ok ? "reported"
                       : "provider:error lacks fields");
  /* retryable is a property of the error (SPEC.md 4.3.7, 5.7), not of the strategy or of the
   * retries left: the same fault carries the same value under every strategy. */
  const cJSON *r = ock__pf(err, OCK_FIELD_RETRYABLE);
  if (err && cJSON_IsBool(r)) {
    int cancelled = !strcmp(ock_json_str(e, "type") ? ock_json_str(e, "type") : "", "cancelled");
    int want = !cancelled && retryable(reply);
    ock__grade_emit(g, CK_ERROR_RETRYABLE_VALUE, cJSON_IsTrue(r) == want, ock__entry_seq(err),
                    "provider:error retryable as SPEC.md 5.7 classifies the fault",
                    "failed reply %ld (%s%s, strategy %s): retryable %s, expected %s",
                    ock__entry_seq(reply), fault_kind(reply) ? fault_kind(reply) : "HTTP ",
                    fault_kind(reply) ? "" : ock__str_field(reply, OCK_F_LLM_REPLY_STATUS),
                    ock_error_strategy_name(v->cfg.error_strategy),
                    cJSON_IsTrue(r) ? "true" : "false", want ? "true" : "false");
  }
}

/* One failed LLM request of an execute and what came after it. */
struct failure {
  const struct view_exec *x;
  size_t i;           /* the failed request's entry index */
  const cJSON *reply; /* its reply */
  int attempt;        /* 1 for the turn's first request, one more per failure before it */
  const cJSON *next;  /* the execute's next LLM request, or NULL */
  size_t j;           /* its entry index */
  const char *provider, *next_prov;
  int retry_on;         /* the strategy retries (retry or fallback) */
  int can_retry;        /* and this failure is retryable, within max_retries */
  const char *fallback; /* under fallback, the provider that takes over, or NULL */
  long long max_retries;
};

/* error_no_retry: a non-retryable error is not retried (OCK-ERROR-003). */
static void error_no_retry(struct grade_ctx *g, const struct failure *fl) {
  const cJSON *next = fl->next, *reply = fl->reply;
  const char *provider = fl->provider, *next_prov = fl->next_prov;
  ock__grade_emit(g, CK_ERROR_NO_RETRY, !next || strcmp(next_prov, provider),
                  next ? ock__entry_seq(next) : ock__entry_seq(reply),
                  "a non-retryable error is not retried", "HTTP %lld from %s was %s",
                  ock_json_int(reply, OCK_F_LLM_REPLY_STATUS, 0), provider,
                  next && !strcmp(next_prov, provider) ? "retried" : "not retried");
}

/* cancelled_before_retry: a SIGINT before the retry or fallback request went out pre-empts it
 * (SPEC.md 5.7): the execute must then end cancelled (OCK-ERROR-002 or OCK-ERROR-006). */
static void cancelled_before_retry(struct grade_ctx *g, const struct failure *fl) {
  const struct view_exec *x = fl->x;
  int can_retry = fl->can_retry, attempt = fl->attempt;
  const cJSON *c = x->complete_entry;
  ock__grade_emit(g, can_retry ? CK_ERROR_RETRY : CK_ERROR_FALLBACK,
                  ock__pf_is(c, OCK_FIELD_STATUS, OCK_PV_STATUS_CANCELLED), x->complete_seq,
                  "a SIGINT before the retry is sent ends the execute cancelled",
                  "attempt %d failed, then a SIGINT; no further request, status %s", attempt,
                  ock__pf_show(c, OCK_FIELD_STATUS));
}

/* error_retry_denied: a retry announced but kept from going out by a deny on its
 * provider:request (entry denied) is a retry made: the hook's decision ends the execute
 * (OCK-HOOK-002), not the SUT's (OCK-ERROR-002). */
static void error_retry_denied(struct grade_ctx *g, const struct failure *fl, size_t denied) {
  const struct view *v = g->v;
  size_t i = fl->i;
  const char *provider = fl->provider;
  int attempt = fl->attempt;
  const cJSON *ev = event_between(v, i + 1, denied, OCK_EV_PROVIDER_RETRY);
  const char *to = ock__pf_str(v->e[denied], OCK_FIELD_PROVIDER);
  ock__grade_emit(
      g, CK_ERROR_RETRY, ev && to && !strcmp(to, provider), ock__entry_seq(v->e[denied]),
      "a retryable error is retried after a provider:retry",
      "attempt %d failed; the retry's provider:request (to %s) was denied, %s", attempt,
      to && *to ? to : "(no provider)", ev ? "after a provider:retry" : "with no provider:retry");
}

/* error_retry_after: the retry waited gap ms, the Retry-After the provider sent (ra ms),
 * clamped to the cap (OCK-ERROR-005). */
static void error_retry_after(struct grade_ctx *g, const struct failure *fl, double gap, double ra,
                              double cap) {
  const cJSON *next = fl->next;
  double want = ra < cap ? ra : cap;
  ock__grade_emit(g, CK_ERROR_RETRY_AFTER,
                  gap >= want - GRADE_TIMING_EARLY_MS && gap <= want + ock__grade_late_ms(g),
                  ock__entry_seq(next), "the retry waits the Retry-After the provider sent",
                  "waited %.0f ms; Retry-After asked %.0f ms", gap, want);
}

/* error_backoff: the retry waited gap ms, and its provider:retry ev announced, the exponential
 * backoff with jitter, clamped to the cap (OCK-ERROR-004). */
static void error_backoff(struct grade_ctx *g, const struct failure *fl, const cJSON *ev,
                          double gap, double cap) {
  const struct view *v = g->v;
  const cJSON *next = fl->next;
  int attempt = fl->attempt;
  double base = (double)v->cfg.retry_base_delay_ms;
  double jitter = v->cfg.retry_jitter;
  double nominal = fmin(base * pow(2, attempt - 1), cap);
  double lo = nominal * (1 - jitter), hi = fmin(nominal * (1 + jitter), cap);
  double said = ock__pf_num(ev, OCK_FIELD_DELAY_MS, -1);
  int ok_said = v->traffic || (said >= lo - 1 && said <= hi + 1);
  int ok_gap = gap >= lo - GRADE_TIMING_EARLY_MS && gap <= hi + ock__grade_late_ms(g);
  char saids[32] = "missing"; /* an absent delay_ms says so, not -1 */
  if (cJSON_IsNumber(ock__pf(ev, OCK_FIELD_DELAY_MS)))
    snprintf(saids, sizeof saids, "%.0f", said);
  ock__grade_emit(g, CK_ERROR_BACKOFF, ok_said && ok_gap, ock__entry_seq(next),
                  "exponential backoff with jitter, clamped to the cap",
                  "retry %d: delay_ms %s, waited %.0f ms; allowed %.0f..%.0f ms", attempt, saids,
                  gap, lo, hi);
}

/* error_retry: a retryable error is retried after a provider:retry (OCK-ERROR-002), and the
 * retry waits as OCK-ERROR-004 or OCK-ERROR-005 says. */
static void error_retry(struct grade_ctx *g, const struct failure *fl) {
  const struct view *v = g->v;
  const cJSON *next = fl->next, *reply = fl->reply;
  const char *provider = fl->provider, *next_prov = fl->next_prov;
  size_t i = fl->i, j = fl->j;
  int attempt = fl->attempt;
  const cJSON *ev = next ? event_between(v, i + 1, j, OCK_EV_PROVIDER_RETRY) : NULL;
  /* A black-box SUT announces nothing: the retry itself is what the traffic shows. */
  int announced = ev || v->traffic;
  int ok = next && !strcmp(next_prov, provider) && announced;
  ock__grade_emit(
      g, CK_ERROR_RETRY, ok, next ? ock__entry_seq(next) : ock__entry_seq(reply),
      "a retryable error is retried after a provider:retry", "attempt %d failed (%s); %s", attempt,
      fault_kind(reply) ? fault_kind(reply) : ock__str_field(reply, OCK_F_LLM_REPLY_STATUS),
      !next                         ? "no retry"
      : strcmp(next_prov, provider) ? "the retry went elsewhere"
      : announced                   ? "retried"
                                    : "retried without provider:retry");
  if (ok) {
    double gap = ock__entry_time(next) - ock__entry_time(reply);
    double ra = retry_after_ms(v, reply);
    double cap = (double)v->cfg.retry_max_delay_ms;
    if (ra >= 0)
      error_retry_after(g, fl, gap, ra, cap);
    else
      error_backoff(g, fl, ev, gap, cap);
  }
}

/* error_retry_count: at most max_retries retries per turn (OCK-ERROR-008). */
static void error_retry_count(struct grade_ctx *g, const struct failure *fl) {
  const cJSON *next = fl->next, *reply = fl->reply;
  const char *provider = fl->provider, *next_prov = fl->next_prov;
  ock__grade_emit(g, CK_ERROR_RETRY_COUNT, !next || strcmp(next_prov, provider),
                  next ? ock__entry_seq(next) : ock__entry_seq(reply),
                  "at most max_retries retries per turn", "%s after %d attempts (max_retries %lld)",
                  next && !strcmp(next_prov, provider) ? "retried again" : "stopped", fl->attempt,
                  fl->max_retries);
}

/* error_fallback: the next provider by priority takes the turn, announced by provider:resolve
 * (OCK-ERROR-006). */
static void error_fallback(struct grade_ctx *g, const struct failure *fl) {
  const struct view *v = g->v;
  const cJSON *next = fl->next, *reply = fl->reply;
  const char *provider = fl->provider, *next_prov = fl->next_prov, *fallback = fl->fallback;
  size_t i = fl->i, j = fl->j;
  const cJSON *res = next ? event_between(v, i + 1, j, OCK_EV_PROVIDER_RESOLVE) : NULL;
  int announced = v->traffic || ock__pf_is(res, OCK_FIELD_PROVIDER, fallback);
  int ok = next && !strcmp(next_prov, fallback) && announced;
  ock__grade_emit(g, CK_ERROR_FALLBACK, ok, next ? ock__entry_seq(next) : ock__entry_seq(reply),
                  "the next provider by priority takes the turn, announced by provider:resolve",
                  "%s failed for good; %s", provider,
                  !next                         ? "no further request"
                  : strcmp(next_prov, fallback) ? "the next request went to another provider"
                  : announced                   ? "fell back"
                                                : "fell back without provider:resolve");
}

/* unrecovered: a provider error nothing recovers from ends the execute with status error
 * (OCK-ERROR-001). */
static void unrecovered(struct grade_ctx *g, const struct view_exec *x) {
  const cJSON *c = x->complete_entry;
  ock__grade_emit(g, CK_ERROR_PROVIDER_ERROR,
                  ock__pf_is(c, OCK_FIELD_STATUS, OCK_PV_STATUS_ERROR) ||
                      ock__pf_is(c, OCK_FIELD_STATUS, OCK_PV_STATUS_CANCELLED),
                  x->complete_seq,
                  "an unrecovered provider error ends the execute with status error",
                  "execute %d: status %s", x->index, ock__pf_show(c, OCK_FIELD_STATUS));
}

/* one_failure judges what the SUT did after the request at entry index i failed. */
static void one_failure(struct grade_ctx *g, const struct view_exec *x, size_t i,
                        const cJSON *reply, int attempt) {
  const struct view *v = g->v;
  struct failure fl = {.x = x, .i = i, .reply = reply, .attempt = attempt};
  fl.retry_on = v->cfg.error_strategy == OCK_ERROR_STRATEGY_RETRY ||
                v->cfg.error_strategy == OCK_ERROR_STRATEGY_FALLBACK;
  fl.max_retries = v->cfg.max_retries;
  fl.next = ock__next_request_after(v, i, &fl.j);
  if (fl.next && fl.j >= x->end)
    fl.next = NULL;
  reported(g, i, reply, fl.next ? fl.j : x->end);
  fl.provider = ock__str_field(reply, OCK_F_LLM_REPLY_PROVIDER);
  fl.next_prov = fl.next ? ock__str_field(fl.next, OCK_F_LLM_REQUEST_PROVIDER) : NULL;
  fl.can_retry = fl.retry_on && retryable(reply) && attempt <= fl.max_retries;
  fl.fallback =
      v->cfg.error_strategy == OCK_ERROR_STRATEGY_FALLBACK ? next_provider(v, fl.provider) : NULL;

  if (fl.retry_on && !retryable(reply))
    error_no_retry(g, &fl);
  if ((fl.can_retry || fl.fallback) && !fl.next && sigint_after(v, x, i)) {
    if (!v->traffic) /* the status that says cancelled is an event */
      cancelled_before_retry(g, &fl);
    return;
  }
  size_t denied = (size_t)-1;
  for (size_t k = i + 1; !fl.next && k < x->end && denied == (size_t)-1; k++)
    if (ock__is_event(v->e[k], OCK_EV_PROVIDER_REQUEST) && ock__event_denied(v->e[k]))
      denied = k;
  if (fl.can_retry && denied != (size_t)-1) {
    error_retry_denied(g, &fl, denied);
    return;
  }
  if (fl.can_retry)
    error_retry(g, &fl);
  else if (fl.retry_on && retryable(reply))
    error_retry_count(g, &fl);
  if (fl.fallback && !fl.can_retry)
    error_fallback(g, &fl);
  if (!fl.next && !(fl.can_retry || fl.fallback))
    unrecovered(g, x);
}

#define SKIPPED_TEXT "Error: skipped: an earlier tool call failed (fail_fast)"

/* skipped_calls: once the failure `failed` is known (its tool:error), no other call of its
 * response starts (judged in sequential rounds), and each call that never started has a result
 * (SPEC.md 5.7, a SHOULD), in the words of OCK-TEXT-008 (judged apart, so other words fail only the
 * text). */
static void skipped_calls(struct grade_ctx *g, const struct call_fate *f, size_t n,
                          const struct call_fate *failed) {
  const struct view *v = g->v;
  long known = ock__entry_seq(failed->error);
  size_t j;
  const cJSON *next = ock__next_request_after(v, failed->reply_index, &j);
  for (size_t i = 0; i < n; i++) {
    const struct call_fate *c = &f[i];
    if (c == failed || c->reply_index != failed->reply_index)
      continue;
    /* Only in a sequential round is the order the mock saw the SUT's own: with parallel calls a
     * start the SUT decided before it knew of the failure may reach the mock after its
     * tool:error, so there the start is not judged (timing is no evidence here). */
    if (c->start && ock__entry_seq(c->start) > known && !v->cfg.parallel_tools) {
      ock__grade_emit(g, CK_ERROR_FAIL_FAST_UNSTARTED, 0, ock__entry_seq(c->start),
                      "fail_fast: no call of the response starts once a tool failure is known",
                      "call %s started at %ld, after the failure of %s at %ld", ock__call_id(c),
                      ock__entry_seq(c->start), ock__call_id(failed), known);
      continue;
    }
    if (c->start || c->selecting || c->pre || c->post || c->error || !next)
      continue;
    const char *text = ock__request_result_text(next, ock__call_id(c));
    ock__grade_emit(g, CK_ERROR_FAIL_FAST_UNSTARTED, text != NULL, ock__entry_seq(next),
                    "a call fail_fast did not start has a result", "call %s was not started; %s",
                    ock__call_id(c),
                    text ? "it has a result" : "no result for it in the next LLM request");
    ock__text_of_result(g, CK_TEXT_SKIPPED, c, SKIPPED_TEXT, 0);
  }
}

static void fail_fast(struct grade_ctx *g) {
  const struct view *v = g->v;
  if (v->cfg.error_strategy != OCK_ERROR_STRATEGY_FAIL_FAST)
    return;
  struct call_fate *f = NULL;
  size_t n = ock__call_fates(v, &f);
  for (size_t i = 0; i < n; i++) {
    const char *t = ock__fate_error_type(&f[i]);
    if (!f[i].error || !f[i].x ||
        !(!strcmp(t, OCK_PV_TOOL_ERROR_ERROR_TYPE_EXECUTION_FAILED) ||
          !strcmp(t, OCK_PV_TOOL_ERROR_ERROR_TYPE_TIMEOUT) ||
          !strcmp(t, OCK_PV_TOOL_ERROR_ERROR_TYPE_INVALID_ARGUMENTS)))
      continue;
    size_t j;
    const cJSON *next = ock__next_request_after(v, f[i].reply_index, &j);
    int stopped = !next || j >= f[i].x->end;
    const cJSON *c = f[i].x->complete_entry;
    ock__grade_emit(
        g, CK_ERROR_FAIL_FAST, stopped && ock__pf_is(c, OCK_FIELD_STATUS, OCK_PV_STATUS_ERROR),
        ock__entry_seq(f[i].error), "fail_fast: a tool failure ends the execute with status error",
        "tool %s failed (%s); %s, status %s", ock__call_id(&f[i]), t,
        stopped ? "no further request" : "the loop went on", ock__pf_show(c, OCK_FIELD_STATUS));
    skipped_calls(g, f, n, &f[i]);
    break;
  }
  free(f);
}

/* is_best_provider: name is the first of the session providers by (priority, list order) that
 * is not in failed; *best is set to that provider (NULL when none is left). */
static int is_best_provider(const struct view *v, const char *name, const char **failed,
                            int n_failed, const char **best) {
  long long bp = 0;
  *best = NULL;
  for (size_t i = 0; i < v->fx->n_providers; i++) {
    const char *pn = v->fx->providers[i].name;
    int out = 0;
    for (int k = 0; k < n_failed; k++)
      out |= !strcmp(failed[k], pn);
    long long pr = v->fx->providers[i].priority;
    if (!out && (!*best || pr < bp)) {
      *best = pn;
      bp = pr;
    }
  }
  return *best && name ? !strcmp(*best, name) : 0;
}

/* later_turns: under fallback, a provider that failed for good (a non-retryable fault, or its
 * retry budget of the turn spent) is not used again in the execute; every request goes to the
 * best provider by priority among those that have not failed (SPEC.md 5.7, 5.9). */
static void later_turns(struct grade_ctx *g, const struct view_exec *x) {
  const struct view *v = g->v;
  if (v->cfg.error_strategy != OCK_ERROR_STRATEGY_FALLBACK)
    return;
  long long max_retries = v->cfg.max_retries;
  const char *failed[OCK_MAX_FAILED_PROVIDERS];
  int n_failed = 0, failures_in_turn = 0;
  const char *turn_provider = NULL;
  for (size_t i = x->first; i < x->end; i++) {
    if (!ock__is_kind(v->e[i], OCK_ENTRY_LLM_REQUEST))
      continue;
    const char *provider = ock__str_field(v->e[i], OCK_F_LLM_REQUEST_PROVIDER);
    const char *best;
    int ok = is_best_provider(v, provider, failed, n_failed, &best);
    if (n_failed > 0 || !ok)
      ock__grade_emit(g, CK_ERROR_FALLBACK_STICKS, ok, ock__entry_seq(v->e[i]),
                      "the best provider by priority that has not failed for good in the execute",
                      "execute %d: request to %s; %d provider(s) failed for good, expected %s",
                      x->index, provider, n_failed, best ? best : "(none left)");
    const cJSON *reply = ock__view_reply_of(v, i);
    if (!reply || !ock__reply_failed(reply)) {
      failures_in_turn = 0;
      turn_provider = NULL;
      continue;
    }
    if (!turn_provider || strcmp(turn_provider, provider))
      failures_in_turn = 0;
    turn_provider = provider;
    failures_in_turn++;
    if ((!retryable(reply) || failures_in_turn > max_retries) &&
        n_failed < OCK_MAX_FAILED_PROVIDERS) {
      failed[n_failed++] = provider;
      failures_in_turn = 0;
      turn_provider = NULL;
    }
  }
}

/* reply_numbering: a provider:stream or provider:response e carries the iteration of the request
 * it belongs to (OCK-ERROR-010). */
static void reply_numbering(struct grade_ctx *g, const struct view_exec *x, const cJSON *e,
                            long iteration) {
  const cJSON *it = ock__pf(e, OCK_FIELD_ITERATION);
  if (iteration < 1)
    return;
  char its[32] = "missing";
  if (cJSON_IsNumber(it))
    snprintf(its, sizeof its, "%g", it->valuedouble);
  ock__grade_emit(g, CK_ERROR_NUMBERING_REPLY,
                  cJSON_IsNumber(it) && it->valuedouble == (double)iteration, ock__entry_seq(e),
                  "provider:stream and provider:response carry the iteration of their request",
                  "execute %d: %s iteration %s, expected %ld", x->index, ock__event_name(e), its,
                  iteration);
}

/* numbering: provider:request and provider:error carry iteration, the turn number of the
 * execute (the wrap-up request is max_iterations + 1), and attempt, 1 for a turn's first
 * request and one more after each failed one (a retry or a fallback), as the mock saw them. */
static void numbering(struct grade_ctx *g, const struct view_exec *x) {
  const struct view *v = g->v;
  long iteration = 0, attempt = 0;
  int last_failed = 0;
  for (size_t i = x->first; i < x->end; i++) {
    const cJSON *e = v->e[i];
    if (ock__is_kind(e, OCK_ENTRY_LLM_REQUEST)) {
      last_failed = ock__reply_failed(ock__view_reply_of(v, i));
      continue;
    }
    int request = ock__is_event(e, OCK_EV_PROVIDER_REQUEST);
    if (ock__is_event(e, OCK_EV_PROVIDER_STREAM) || ock__is_event(e, OCK_EV_PROVIDER_RESPONSE)) {
      reply_numbering(g, x, e, iteration);
      continue;
    }
    if (!request && !ock__is_event(e, OCK_EV_PROVIDER_ERROR))
      continue;
    if (request) {
      if (last_failed && iteration > 0) {
        attempt++;
      } else {
        iteration++;
        attempt = 1;
      }
      last_failed = 1; /* until its reply is seen: a denied request has none */
    }
    const cJSON *it = ock__pf(e, OCK_FIELD_ITERATION);
    const cJSON *at = ock__pf(e, OCK_FIELD_ATTEMPT);
    int ok = cJSON_IsNumber(it) && cJSON_IsNumber(at) && it->valuedouble == (double)iteration &&
             at->valuedouble == (double)attempt;
    char its[32], ats[32]; /* an absent number says so, not -1 */
    snprintf(its, sizeof its, "missing");
    snprintf(ats, sizeof ats, "missing");
    if (cJSON_IsNumber(it))
      snprintf(its, sizeof its, "%g", it->valuedouble);
    if (cJSON_IsNumber(at))
      snprintf(ats, sizeof ats, "%g", at->valuedouble);
    ock__grade_emit(g, CK_ERROR_NUMBERING, ok, ock__entry_seq(e),
                    "iteration is the turn number, attempt counts the tries of the turn",
                    "execute %d: %s iteration %s attempt %s, expected %ld and %ld", x->index,
                    ock__event_name(e), its, ats, iteration, attempt);
  }
}

/* injected_between: an event between entry indexes from and to got an inject_context reply. */
static int injected_between(const struct view *v, size_t from, size_t to) {
  for (size_t i = from; i < to; i++)
    if (ock__is_kind(v->e[i], OCK_ENTRY_EVENT) &&
        !strcmp(ock__event_action(v->e[i]), OCK_PV_HOOK_RESULT_ACTION_INJECT_CONTEXT))
      return 1;
  return 0;
}

/* same_conversation: two neutral histories are equal by JSON value, message by message, leaving
 * out where each message sat on its wire (wire_index, wire_block: a fallback may change wire). */
static int same_conversation(const cJSON *a, const cJSON *b) {
  if (cJSON_GetArraySize(a) != cJSON_GetArraySize(b))
    return 0;
  cJSON *ca = cJSON_Duplicate(a, 1), *cb = cJSON_Duplicate(b, 1);
  cJSON *m;
  cJSON_ArrayForEach(m, ca) {
    cJSON_DeleteItemFromObjectCaseSensitive(m, "wire_index");
    cJSON_DeleteItemFromObjectCaseSensitive(m, "wire_block");
  }
  cJSON_ArrayForEach(m, cb) {
    cJSON_DeleteItemFromObjectCaseSensitive(m, "wire_index");
    cJSON_DeleteItemFromObjectCaseSensitive(m, "wire_block");
  }
  int same = ca && cb && cJSON_Compare(ca, cb, 1);
  cJSON_Delete(ca);
  cJSON_Delete(cb);
  return same;
}

/* retry_history: a request that continues a turn (a retry or a fallback) carries the turn's
 * conversation unchanged: nothing of the failed attempt was stored (OCK-ERROR-012). */
static void retry_history(struct grade_ctx *g, const struct view_exec *x) {
  const struct view *v = g->v;
  size_t first = 0;
  const cJSON *prev = NULL;
  int have = 0;
  for (size_t i = x->first; i < x->end; i++) {
    if (!ock__is_kind(v->e[i], OCK_ENTRY_LLM_REQUEST))
      continue;
    if (!have || !ock__reply_failed(prev)) {
      first = i;
    } else if (!injected_between(v, first, i)) {
      const cJSON *a = cJSON_GetObjectItemCaseSensitive(v->e[first], OCK_F_LLM_REQUEST_NEUTRAL);
      const cJSON *b = cJSON_GetObjectItemCaseSensitive(v->e[i], OCK_F_LLM_REQUEST_NEUTRAL);
      int na = cJSON_GetArraySize(a), nb = cJSON_GetArraySize(b);
      ock__grade_emit(g, CK_ERROR_RETRY_SAME_HISTORY, same_conversation(a, b),
                      ock__entry_seq(v->e[i]),
                      "a retry or fallback request carries the conversation of the turn's first "
                      "request",
                      "execute %d: request %ld repeats request %ld with %d message(s) where it had "
                      "%d%s",
                      x->index, ock__entry_seq(v->e[i]), ock__entry_seq(v->e[first]), nb, na,
                      nb == na ? ", some of them changed" : "");
    }
    have = 1;
    prev = ock__view_reply_of(v, i);
  }
}

void ock__check_error(struct grade_ctx *g) {
  const struct view *v = g->v;
  for (size_t k = 0; k < v->nx; k++) {
    const struct view_exec *x = &v->x[k];
    numbering(g, x);
    later_turns(g, x);
    retry_history(g, x);
    int attempt = 0;
    const cJSON *prev = NULL;
    for (size_t i = x->first; i < x->end; i++) {
      if (!ock__is_kind(v->e[i], OCK_ENTRY_LLM_REQUEST))
        continue;
      attempt = prev && ock__reply_failed(prev) ? attempt + 1 : 1;
      prev = ock__view_reply_of(v, i);
      /* No reply at all: the harness stopped the mock first (a timeout); nothing to judge. */
      if (prev && ock__reply_failed(prev))
        one_failure(g, x, i, prev, attempt);
    }
  }
  fail_fast(g);
}
