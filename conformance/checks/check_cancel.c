/*
 * check_cancel.c: CANCEL, SIGINT during an execute: it ends with status cancelled after
 * cancel:requested and cancel:completed, sends no LLM request and starts no tool once the cancel
 * is noticed, keeps the results of tools that finished, and leaves a context that ends with an
 * assistant message.
 * The words of a cancelled call's result and of that closing message (OCK-TEXT-007, OCK-TEXT-010,
 * SHOULD) are judged apart, so other words fail no MUST.
 */
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "checks/grade.h"
#include "ock/contract.h"
#include "ock/json.h"
#include "ock/utf8.h"
#include "model/view_calls.h"

#define CANCELLED_RESULT "Error: cancelled"                     /* SPEC.md 5.10 step 4 */
#define CLOSING_MESSAGE "The previous operation was cancelled." /* SPEC.md 5.10 step 5 */

static const cJSON *first_request_of(const struct view *v, const struct view_exec *x) {
  for (size_t i = x->first; i < x->end; i++)
    if (ock__is_kind(v->e[i], OCK_ENTRY_LLM_REQUEST))
      return v->e[i];
  return NULL;
}

/* refused: the execute may send no LLM request at all: its prompt:submit was denied, its prompt
 * is empty or white space, or the session has no provider. It ends as the deny or the input
 * validation says, whatever SIGINT arrives meanwhile (SPEC.md 5.10). */
static int refused(const struct view *v, const struct view_exec *x) {
  int blank = x->prompt && ock_utf8_is_blank(x->prompt);
  if (blank || v->fx->n_providers == 0)
    return 1;
  for (size_t i = x->first; i < x->end; i++)
    if (ock__is_event(v->e[i], OCK_EV_PROMPT_SUBMIT))
      return ock__event_denied(v->e[i]);
  return 0;
}

/* Where the SIGINT and the SUT's answer to it stand in one execute: entry indexes, (size_t)-1
 * when absent. */
struct cancel_marks {
  size_t fired;     /* the SIGINT that finds work to cancel */
  size_t ignored;   /* a SIGINT that finds none: late, after the answer, or in a refused execute */
  size_t requested; /* the first cancel:requested */
  size_t completed; /* the first cancel:completed */
  size_t answered;  /* the first prompt:complete or execution:end */
  int refused_execute;
  int n_requested, n_completed, n_signals;
};

static void find_marks(const struct view *v, const struct view_exec *x, struct cancel_marks *m) {
  size_t fired = (size_t)-1, requested = (size_t)-1, completed = (size_t)-1;
  size_t answered = (size_t)-1, ignored = (size_t)-1;
  int refused_execute = refused(v, x);
  int n_requested = 0, n_completed = 0, n_signals = 0;
  for (size_t i = x->first; i < x->end; i++) {
    n_requested += ock__is_event(v->e[i], OCK_EV_CANCEL_REQUESTED);
    n_completed += ock__is_event(v->e[i], OCK_EV_CANCEL_COMPLETED);
    n_signals += ock__is_kind(v->e[i], OCK_ENTRY_CANCEL);
    /* Once prompt:complete or execution:end went out, the execute's outcome is told. */
    if ((ock__is_event(v->e[i], OCK_EV_PROMPT_COMPLETE) ||
         ock__is_event(v->e[i], OCK_EV_EXECUTION_END)) &&
        answered == (size_t)-1)
      answered = i;
    /* A SIGINT after orchestrator:complete falls between executes; one after prompt:complete
     * finds the answer delivered, and one in a refused execute finds no work: nothing is left
     * to cancel (SPEC.md 5.10). */
    if (ock__is_kind(v->e[i], OCK_ENTRY_CANCEL) && fired == (size_t)-1 && ignored == (size_t)-1 &&
        (x->complete_seq < 0 || ock__entry_seq(v->e[i]) < x->complete_seq)) {
      if (answered == (size_t)-1 && !refused_execute)
        fired = i;
      else
        ignored = i;
    }
    if (ock__is_event(v->e[i], OCK_EV_CANCEL_REQUESTED) && requested == (size_t)-1)
      requested = i;
    if (ock__is_event(v->e[i], OCK_EV_CANCEL_COMPLETED) && completed == (size_t)-1)
      completed = i;
  }
  *m = (struct cancel_marks){.fired = fired,
                             .ignored = ignored,
                             .requested = requested,
                             .completed = completed,
                             .answered = answered,
                             .refused_execute = refused_execute,
                             .n_requested = n_requested,
                             .n_completed = n_completed,
                             .n_signals = n_signals};
}

/* cancel_ignored: a SIGINT with nothing left to cancel changes nothing (OCK-PROC-004). */
static void cancel_ignored(struct grade_ctx *g, const struct view_exec *x,
                           const struct cancel_marks *m) {
  const struct view *v = g->v;
  size_t requested = m->requested, answered = m->answered, ignored = m->ignored;
  const cJSON *c = x->complete_entry;
  const char *when =
      answered != (size_t)-1 && answered < ignored
          ? (ock__is_event(v->e[answered], OCK_EV_PROMPT_COMPLETE) ? "after prompt:complete"
                                                                   : "after execution:end")
      : m->refused_execute ? "in an execute that sends no request"
                           : "late";
  ock__grade_emit(g, CK_CANCEL_IGNORED,
                  requested == (size_t)-1 &&
                      !ock__pf_is(c, OCK_FIELD_STATUS, OCK_PV_STATUS_CANCELLED),
                  requested != (size_t)-1 ? ock__entry_seq(v->e[requested]) : x->complete_seq,
                  "a SIGINT after prompt:complete or execution:end, or in an execute that sends no "
                  "request (denied "
                  "or invalid prompt, no provider), is ignored: no cancel:requested, status not "
                  "cancelled",
                  "execute %d: SIGINT %s; %s, status %s", x->index, when,
                  requested == (size_t)-1 ? "no cancel:requested" : "cancel:requested sent",
                  c ? ock__pf_show(c, OCK_FIELD_STATUS) : "(no orchestrator:complete)");
}

static void cancel_status(struct grade_ctx *g, const struct view_exec *x) {
  const cJSON *c = x->complete_entry;
  ock__grade_emit(g, CK_CANCEL_STATUS, ock__pf_is(c, OCK_FIELD_STATUS, OCK_PV_STATUS_CANCELLED),
                  x->complete_seq, "SIGINT during an execute: status cancelled",
                  "execute %d: status %s", x->index,
                  c ? ock__pf_show(c, OCK_FIELD_STATUS) : "(no orchestrator:complete)");
}

static void cancel_events(struct grade_ctx *g, const struct view_exec *x,
                          const struct cancel_marks *m) {
  size_t requested = m->requested, completed = m->completed;
  ock__grade_emit(g, CK_CANCEL_EVENTS,
                  requested != (size_t)-1 && completed != (size_t)-1 && requested < completed,
                  x->complete_seq, "cancel:requested then cancel:completed",
                  "execute %d: cancel:requested %s, cancel:completed %s", x->index,
                  requested == (size_t)-1 ? "missing" : "present",
                  completed == (size_t)-1 ? "missing" : "present");
}

/* cancel_once: however many SIGINTs arrive, the execute is cancelled once (SPEC.md 5.10). */
static void cancel_once(struct grade_ctx *g, const struct view_exec *x,
                        const struct cancel_marks *m) {
  int n_requested = m->n_requested, n_completed = m->n_completed, n_signals = m->n_signals;
  ock__grade_emit(g, CK_CANCEL_ONCE, n_requested <= 1 && n_completed <= 1, x->complete_seq,
                  "at most one cancel:requested and one cancel:completed per execute",
                  "execute %d: %d SIGINT(s), %d cancel:requested, %d cancel:completed", x->index,
                  n_signals, n_requested, n_completed);
}

/* cancel_no_new_work: no LLM request is sent after the cancel is noticed. A tool started after
 * it is cancel_round_stopped's (OCK-CANCEL-006, a MUST), so each check sees a fault of its own.
 * A black-box SUT posts no cancel:requested: the SIGINT itself is the mark, and a request or a
 * tool run that starts more than the late tolerance after it is new work (SPEC.md 9.7); there
 * OCK-CANCEL-006 is not graded, so the tool run is this check's. */
static void cancel_no_new_work(struct grade_ctx *g, const struct view_exec *x,
                               const struct cancel_marks *m) {
  const struct view *v = g->v;
  size_t mark = v->traffic ? m->fired : m->requested;
  double after = v->traffic ? ock__entry_time(v->e[m->fired]) + ock__grade_late_ms(g) : -1;
  if (mark != (size_t)-1) {
    size_t late = (size_t)-1;
    for (size_t i = mark + 1; i < x->end && late == (size_t)-1; i++)
      if ((ock__is_kind(v->e[i], OCK_ENTRY_LLM_REQUEST) ||
           (v->traffic && ock__is_kind(v->e[i], OCK_ENTRY_TOOL_START))) &&
          ock__entry_time(v->e[i]) > after)
        late = i;
    ock__grade_emit(g, CK_CANCEL_NO_NEW_WORK, late == (size_t)-1,
                    late != (size_t)-1 ? ock__entry_seq(v->e[late]) : ock__entry_seq(v->e[mark]),
                    v->traffic ? "nothing new starts after the SIGINT"
                               : "no LLM request is sent after cancel:requested",
                    "%s",
                    late == (size_t)-1                                ? "nothing started"
                    : ock__is_kind(v->e[late], OCK_ENTRY_LLM_REQUEST) ? "an LLM request was sent"
                                                                      : "a tool was started");
  }
}

/* The mock holds the reply to the request that fired the cancel trigger this long (SPEC.md 8.7). */
#define CANCEL_HOLD_MS 200.0

/* cancel_grace_ms: how long after the SIGINT a SUT may still be busy noticing it: the hold, then
 * the late tolerance of SPEC.md 9.4. */
static double cancel_grace_ms(const struct grade_ctx *g) {
  return CANCEL_HOLD_MS * (g->time_scale > 1 ? g->time_scale : 1) + ock__grade_late_ms(g);
}

/* cancel_round_stopped: no tool call starts once the cancel is noticed, or past the grace after
 * the SIGINT when the SUT never says it noticed (OCK-CANCEL-006). Unlike OCK-CANCEL-004 this
 * looks at tools only: starting one acts on the world. */
static void cancel_round_stopped(struct grade_ctx *g, const struct view_exec *x,
                                 const struct cancel_marks *m) {
  const struct view *v = g->v;
  double deadline = ock__entry_time(v->e[m->fired]) + cancel_grace_ms(g);
  size_t late = (size_t)-1;
  for (size_t i = m->fired + 1; i < x->end && late == (size_t)-1; i++)
    if (ock__is_kind(v->e[i], OCK_ENTRY_TOOL_START) &&
        ((m->requested != (size_t)-1 && i > m->requested) || ock__entry_time(v->e[i]) > deadline))
      late = i;
  ock__grade_emit(
      g, CK_CANCEL_ROUND_STOPPED, late == (size_t)-1,
      late != (size_t)-1 ? ock__entry_seq(v->e[late]) : ock__entry_seq(v->e[m->fired]),
      "no tool call starts after cancel:requested, nor past the grace after the SIGINT",
      "execute %d: %s%s%s", x->index, late == (size_t)-1 ? "no tool started after the cancel" : "",
      late != (size_t)-1 ? ock__str_field(v->e[late], OCK_F_TOOL_START_TOOL_CALL_ID) : "",
      late == (size_t)-1                                  ? ""
      : m->requested != (size_t)-1 && late > m->requested ? " started after cancel:requested"
                                                          : " started long after the SIGINT");
}

/* closed_at: the seq at which the SUT reported call f (its tool:post or tool:error), or, when it
 * never did, the seq of the execute's orchestrator:complete (LONG_MAX without one). */
static long closed_at(const struct view_exec *x, const struct call_fate *f) {
  const cJSON *ev = f->post ? f->post : f->error;
  if (ev)
    return ock__entry_seq(ev);
  return x->complete_seq >= 0 ? x->complete_seq : LONG_MAX;
}

/* cancel_tool_abandoned: a tool running when the SIGINT came is abandoned: the SUT reports the
 * call without waiting for the endpoint's reply (OCK-CANCEL-006). A reply that came within the
 * grace may have been read before the SUT noticed the signal, and one the SUT hung up on
 * (client_gone) was not waited for; a SUT that abandons a request it cannot close reports the
 * call before the reply comes. */
static void cancel_tool_abandoned(struct grade_ctx *g, const struct view_exec *x,
                                  const struct cancel_marks *m) {
  const struct view *v = g->v;
  double sigint = ock__entry_time(v->e[m->fired]);
  long fired = ock__entry_seq(v->e[m->fired]);
  struct call_fate *f = NULL;
  size_t n = ock__call_fates(v, &f);
  for (size_t i = 0; i < n; i++) {
    const struct call_fate *c = &f[i];
    if (c->x != x || !c->start || !c->end || ock__entry_seq(c->start) > fired ||
        ock__entry_seq(c->end) < fired || ock_json_bool(c->end, OCK_F_TOOL_END_CLIENT_GONE, 0))
      continue;
    double after = ock__entry_time(c->end) - sigint;
    if (after <= cancel_grace_ms(g))
      continue;
    int waited = closed_at(x, c) > ock__entry_seq(c->end);
    ock__grade_emit(g, CK_CANCEL_TOOL_ABANDONED, !waited, ock__entry_seq(c->end),
                    "a tool running at the SIGINT is abandoned: the call is reported before its "
                    "endpoint replies",
                    "call %s (%.40s): the endpoint replied %.0f ms after the SIGINT, %s",
                    ock__call_id(c), ock__call_name(c), after,
                    waited ? "and the SUT reported the call only after that reply"
                           : "after the SUT had reported the call");
  }
  free(f);
}

/* reply_reported: the SUT reported the llm_reply with provider:response: after its request, that
 * event comes before any provider:error and any other LLM request of x. */
static int reply_reported(const struct view *v, const struct view_exec *x, const cJSON *reply) {
  long request = (long)ock_json_int(reply, OCK_F_LLM_REPLY_REQUEST_SEQ, -1);
  int after = 0;
  for (size_t i = x->first; i < x->end; i++) {
    if (ock__is_kind(v->e[i], OCK_ENTRY_LLM_REQUEST)) {
      if (after)
        return 0;
      after = ock__entry_seq(v->e[i]) == request;
    } else if (after && ock__is_event(v->e[i], OCK_EV_PROVIDER_ERROR)) {
      return 0;
    } else if (after && ock__is_event(v->e[i], OCK_EV_PROVIDER_RESPONSE)) {
      return 1;
    }
  }
  return 0;
}

/* cancel_results_kept: in next, the first request of the following execute, the tools that
 * finished before the SIGINT at fired keep their real results, and every other call the SUT took
 * up gets one, in the words of OCK-TEXT-007 when it has no real one (OCK-CANCEL-003). */
static void cancel_results_kept(struct grade_ctx *g, const struct view_exec *x, size_t fired,
                                const cJSON *next) {
  const struct view *v = g->v;
  struct call_fate *f = NULL;
  size_t n = ock__call_fates(v, &f);
  for (size_t i = 0; i < n; i++) {
    if (f[i].x != x || !f[i].end || ock__entry_seq(f[i].end) > ock__entry_seq(v->e[fired]))
      continue;
    const cJSON *out = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(f[i].end, "reply"), "output");
    const char *text = ock__request_result_text(next, ock__call_id(&f[i]));
    if (cJSON_IsString(out) && *out->valuestring)
      ock__grade_emit(g, CK_CANCEL_RESULTS_KEPT, text && strstr(text, out->valuestring),
                      ock__entry_seq(next),
                      "results of tools that finished before the cancel are kept",
                      "call %s: result in the next request \"%.60s\"", ock__call_id(&f[i]),
                      text ? text : "(missing)");
  }
  /* Every call of a reply the SUT reported is owed a result, also one that never started; a
   * call of a reply the SUT abandoned unreported was never taken up. */
  for (size_t i = 0; i < n; i++) {
    const struct call_fate *c = &f[i];
    if (c->x != x || (c->end && ock__entry_seq(c->end) <= ock__entry_seq(v->e[fired])) ||
        !(c->selecting || c->pre || c->error || c->start || reply_reported(v, x, c->reply)))
      continue;
    const char *text = ock__request_result_text(next, ock__call_id(c));
    ock__grade_emit(g, CK_CANCEL_RESULTS_KEPT, text != NULL, ock__entry_seq(next),
                    "every other call of a cancelled execute gets a result",
                    "call %s (%.40s), not finished before the cancel: %s", ock__call_id(c),
                    ock__call_name(c),
                    text ? "it has a result" : "no result for it in the next LLM request");
    if (!strcmp(ock__fate_error_type(c), OCK_PV_TOOL_ERROR_ERROR_TYPE_CANCELLED))
      ock__text_of_result(g, CK_TEXT_CANCELLED, c, CANCELLED_RESULT, 0);
  }
  free(f);
}

/* after_prompt: the index in hist of the first message after the last user message whose content
 * is prompt and that comes before the final message (the next prompt), or -1. */
static int after_prompt(const cJSON *hist, const char *prompt) {
  int n = cJSON_GetArraySize(hist), at = -1;
  for (int i = 0; prompt && i < n - 1; i++) {
    const cJSON *m = cJSON_GetArrayItem(hist, i);
    if (!strcmp(ock__str_field(m, "role"), "user") && !strcmp(ock__str_field(m, "content"), prompt))
      at = i + 1;
  }
  return at;
}

/* stored_part: what of the abandoned reply the assistant message m holds, or NULL. */
static const char *stored_part(const cJSON *reply, const cJSON *m) {
  const char *content = ock__str_field(m, "content");
  const char *text = ock__str_field(reply, OCK_F_LLM_REPLY_TEXT);
  if (*content && strcmp(content, CLOSING_MESSAGE) && !strncmp(text, content, strlen(content)))
    return "its text";
  const cJSON *c, *k;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(m, "tool_calls")) {
    cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(reply, OCK_F_LLM_REPLY_TOOL_CALLS)) {
      if (*ock__str_field(c, "id") && !strcmp(ock__str_field(c, "id"), ock__str_field(k, "id")))
        return "one of its tool calls";
    }
  }
  return NULL;
}

/* abandoned_reply: the reply to the llm_request at entry index i of x when the SUT closed that
 * request with provider:error cancelled after the SIGINT (SPEC.md 5.10 step 3), else NULL. The
 * mock may journal the reply late, even in the next execute, when the hang-up reached it late. */
static const cJSON *abandoned_reply(const struct view *v, const struct view_exec *x, size_t i) {
  int signalled = 0;
  for (size_t j = x->first; j < x->end; j++) {
    signalled |= ock__is_kind(v->e[j], OCK_ENTRY_CANCEL);
    if (j <= i)
      continue;
    if (ock__is_event(v->e[j], OCK_EV_PROVIDER_RESPONSE) ||
        ock__is_kind(v->e[j], OCK_ENTRY_LLM_REQUEST))
      return NULL;
    if (ock__is_event(v->e[j], OCK_EV_PROVIDER_ERROR)) {
      const cJSON *err = ock__pf(v->e[j], OCK_FIELD_ERROR);
      return signalled && !strcmp(ock__str_field(err, "type"), "cancelled")
                 ? ock__view_reply_of(v, i)
                 : NULL;
    }
  }
  return NULL;
}

/* cancel_abandoned_not_stored: nothing of a reply abandoned on the cancel reaches next, the first
 * request of the following execute (OCK-CANCEL-007). */
static void cancel_abandoned_not_stored(struct grade_ctx *g, const struct view_exec *x,
                                        const cJSON *next) {
  const struct view *v = g->v;
  const cJSON *hist = cJSON_GetObjectItemCaseSensitive(next, OCK_F_LLM_REQUEST_NEUTRAL);
  int from = after_prompt(hist, x->prompt);
  for (size_t i = x->first; i < x->end && from >= 0; i++) {
    const cJSON *reply =
        ock__is_kind(v->e[i], OCK_ENTRY_LLM_REQUEST) ? abandoned_reply(v, x, i) : NULL;
    if (!reply)
      continue;
    const char *part = NULL;
    for (int k = from; k < cJSON_GetArraySize(hist) - 1 && !part; k++) {
      const cJSON *m = cJSON_GetArrayItem(hist, k);
      if (!strcmp(ock__str_field(m, "role"), "assistant"))
        part = stored_part(reply, m);
    }
    ock__grade_emit(g, CK_CANCEL_ABANDONED_NOT_STORED, !part, ock__entry_seq(next),
                    "a reply abandoned on cancellation is not stored",
                    "execute %d: the reply %ld, abandoned, %s%s in the next request", x->index,
                    ock__entry_seq(reply), part ? part : "left nothing", part ? " is stored" : "");
  }
}

/* cancel_closing_message: next, the first request after a cancelled execute, has an assistant
 * message before its prompt (OCK-CANCEL-005), in the words of OCK-TEXT-010. */
static void cancel_closing_message(struct grade_ctx *g, const cJSON *next) {
  const cJSON *hist = cJSON_GetObjectItemCaseSensitive(next, OCK_F_LLM_REQUEST_NEUTRAL);
  int last_user = -1, i = 0;
  const cJSON *m;
  cJSON_ArrayForEach(m, hist) {
    if (!strcmp(ock__str_field(m, "role"), "user"))
      last_user = i;
    i++;
  }
  const cJSON *before = last_user > 0 ? cJSON_GetArrayItem(hist, last_user - 1) : NULL;
  int closed = before && !strcmp(ock__str_field(before, "role"), "assistant");
  ock__grade_emit(g, CK_CANCEL_CLOSING_MESSAGE, closed, ock__entry_seq(next),
                  "the context ends with an assistant message after a cancelled execute",
                  "the message before the next prompt is %s",
                  before ? ock__str_field(before, "role") : "missing");
  if (closed)
    ock__grade_emit(g, CK_TEXT_CLOSING_MESSAGE,
                    !strcmp(ock__str_field(before, "content"), CLOSING_MESSAGE),
                    ock__entry_seq(next), "the closing message is \"" CLOSING_MESSAGE "\"",
                    "the closing message is \"%.80s\"", ock__str_field(before, "content"));
}

static void one_execute(struct grade_ctx *g, size_t k) {
  const struct view *v = g->v;
  const struct view_exec *x = &v->x[k];
  struct cancel_marks m;
  find_marks(v, x, &m);
  if (m.ignored != (size_t)-1)
    cancel_ignored(g, x, &m);
  if (m.fired == (size_t)-1)
    return;
  cancel_status(g, x);
  cancel_events(g, x, &m);
  cancel_once(g, x, &m);
  cancel_no_new_work(g, x, &m);
  cancel_round_stopped(g, x, &m);
  if (!v->traffic)
    cancel_tool_abandoned(g, x, &m);
  if (k + 1 >= v->nx)
    return;
  const cJSON *next = first_request_of(v, &v->x[k + 1]);
  if (!next)
    return;
  cancel_results_kept(g, x, m.fired, next);
  cancel_abandoned_not_stored(g, x, next);
  cancel_closing_message(g, next);
}

void ock__check_cancel(struct grade_ctx *g) {
  /* The grammar's order of the cancel events, graded where a scenario saw one. */
  ock__grade_grammar(g, CK_CANCEL_EVENTS,
                     ock__view_saw_event(g->v, OCK_EV_CANCEL_REQUESTED) ||
                         ock__view_saw_event(g->v, OCK_EV_CANCEL_COMPLETED));
  for (size_t k = 0; k < g->v->nx; k++)
    one_execute(g, k);
}
