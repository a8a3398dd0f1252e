/*
 * check_order.c: ORDER, the event grammar's findings (grammar_rows.c) on the ORDER rows, plus
 * the events checked against reality: provider:request before each LLM request the mock received,
 * tool:pre before each tool run, provider:response equal to what the mock sent.
 */
#include <stdlib.h>
#include <string.h>

#include "checks/grade.h"
#include "ock/contract.h"
#include "ock/json.h"

/* The grammar's rows of this group (grammar_rows.c); the other rows it can fail are graded by
 * their own group's check. */
static void grammar(struct grade_ctx *g) {
  static const enum check_name own[] = {CK_ORDER_SUBMIT_FIRST, CK_ORDER_REQUEST_CLOSED,
                                        CK_ORDER_TOOL_PAIRING, CK_ORDER_PROMPT_COMPLETE,
                                        CK_ORDER_GRAMMAR};
  for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
    ock__grade_grammar(g, own[i], 1);
  ock__grade_grammar_uncharged(g);
}

/* prompt:complete exactly once on success/incomplete, never on error/cancelled. */
static void prompt_complete_presence(struct grade_ctx *g) {
  const struct view *v = g->v;
  for (size_t k = 0; k < v->nx; k++) {
    const struct view_exec *x = &v->x[k];
    const char *status = ock__pf_str(x->complete_entry, OCK_FIELD_STATUS);
    if (!status)
      continue;
    int n = 0;
    long seq = x->complete_seq;
    for (size_t i = x->first; i < x->end; i++)
      if (ock__is_event(v->e[i], OCK_EV_PROMPT_COMPLETE)) {
        n++;
        seq = ock__entry_seq(v->e[i]);
      }
    int returns =
        !strcmp(status, OCK_PV_STATUS_SUCCESS) || !strcmp(status, OCK_PV_STATUS_INCOMPLETE);
    ock__grade_emit(g, CK_ORDER_PROMPT_COMPLETE, returns ? n == 1 : n == 0, seq,
                    "one prompt:complete on success/incomplete, none on error/cancelled",
                    "execute %d: status %s with %d prompt:complete", x->index, status, n);
  }
}

/* never_sent: the provider:request at index i was closed by a cancelled provider:error before
 * any LLM request arrived: cancellation caught it before it was sent (SPEC.md 5.10). */
static int never_sent(const struct view *v, size_t i, size_t end) {
  for (size_t j = i + 1; j < end; j++) {
    const cJSON *e = v->e[j];
    if (ock__is_kind(e, OCK_ENTRY_LLM_REQUEST) || ock__is_event(e, OCK_EV_PROVIDER_RESPONSE) ||
        ock__is_event(e, OCK_EV_PROVIDER_REQUEST))
      return 0;
    if (ock__is_event(e, OCK_EV_PROVIDER_ERROR)) {
      const char *t = ock__str_field(ock__pf(e, OCK_FIELD_ERROR), "type");
      return !strcmp(t, "cancelled");
    }
  }
  return 0;
}

/* Every LLM request the mock received was announced by a provider:request first. */
static void requests_announced(struct grade_ctx *g) {
  const struct view *v = g->v;
  for (size_t k = 0; k < v->nx; k++) {
    const struct view_exec *x = &v->x[k];
    int announced = 0, received = 0, any = 0;
    for (size_t i = x->first; i < x->end; i++) {
      const cJSON *e = v->e[i];
      if (ock__is_event(e, OCK_EV_PROVIDER_REQUEST) && !ock__event_denied(e) &&
          !never_sent(v, i, x->end))
        announced++;
      if (ock__is_kind(e, OCK_ENTRY_LLM_REQUEST)) {
        any = 1;
        received++;
        if (received > announced)
          ock__grade_emit(g, CK_ORDER_REQUEST_BEFORE_LLM, 0, ock__entry_seq(e),
                          "provider:request before each LLM request",
                          "execute %d: LLM request %d arrived before its provider:request",
                          x->index, received);
      }
    }
    if (any || announced)
      ock__grade_emit(g, CK_ORDER_REQUEST_BEFORE_LLM, announced == received, x->complete_seq,
                      "as many provider:request (not denied) as LLM requests",
                      "execute %d: %d provider:request, %d LLM requests received", x->index,
                      announced, received);
  }
  for (size_t i = 0; i < v->n && (!v->nx || i < v->x[0].first); i++)
    if (ock__is_kind(v->e[i], OCK_ENTRY_LLM_REQUEST))
      ock__grade_emit(g, CK_ORDER_REQUEST_BEFORE_LLM, 0, ock__entry_seq(v->e[i]),
                      "LLM requests only inside an execute",
                      "an LLM request before any prompt:submit");
}

/* find_event finds the first event named name with data.tool_call_id == id in [from, to). */
static size_t find_tool_event(const struct view *v, size_t from, size_t to, const char *name,
                              const char *id) {
  for (size_t i = from; i < to; i++)
    if (ock__is_event(v->e[i], name) && ock__pf_is(v->e[i], OCK_FIELD_TOOL_CALL_ID, id))
      return i;
  return (size_t)-1;
}

/* tool:pre before the tool ran; tool:post/tool:error after its reply. */
static void tools_announced(struct grade_ctx *g) {
  const struct view *v = g->v;
  for (size_t i = 0; i < v->n; i++) {
    if (!ock__is_kind(v->e[i], OCK_ENTRY_TOOL_START))
      continue;
    const struct view_exec *x = ock__view_exec_of(v, i);
    if (!x)
      continue;
    const char *id = ock__str_field(v->e[i], OCK_F_TOOL_START_TOOL_CALL_ID);
    size_t pre = find_tool_event(v, x->first, i, OCK_EV_TOOL_PRE, id);
    ock__grade_emit(g, CK_ORDER_TOOL_PRE_BEFORE_RUN, pre != (size_t)-1, ock__entry_seq(v->e[i]),
                    "tool:pre before the tool endpoint is called", "tool %s (%s) ran %s",
                    ock__str_field(v->e[i], "name"), id,
                    pre != (size_t)-1 ? "after its tool:pre" : "without a tool:pre before it");
    /* The reply may reach the mock after the execute ended (a call the SUT stopped waiting for
     * on a SIGINT): it is looked for in the whole journal, so a tool:post sent before it is seen.
     */
    size_t end = (size_t)-1;
    for (size_t j = i + 1; j < v->n && end == (size_t)-1; j++)
      if (ock__is_kind(v->e[j], OCK_ENTRY_TOOL_END) &&
          !strcmp(ock__str_field(v->e[j], OCK_F_TOOL_END_TOOL_CALL_ID), id))
        end = j;
    if (end == (size_t)-1)
      continue;
    size_t post = find_tool_event(v, x->first, x->end, OCK_EV_TOOL_POST, id);
    if (post == (size_t)-1)
      post = find_tool_event(v, x->first, x->end, OCK_EV_TOOL_ERROR, id);
    const char *etype = post != (size_t)-1 && ock__is_event(v->e[post], OCK_EV_TOOL_ERROR)
                            ? ock__str_field(ock__pf(v->e[post], OCK_FIELD_ERROR), "type")
                            : "";
    /* A timeout or a cancellation closes the call before the endpoint answers, by design. */
    if (post != (size_t)-1 && strcmp(etype, OCK_PV_TOOL_ERROR_ERROR_TYPE_TIMEOUT) &&
        strcmp(etype, OCK_PV_TOOL_ERROR_ERROR_TYPE_CANCELLED))
      ock__grade_emit(g, CK_ORDER_TOOL_POST_AFTER_RUN, post > end, ock__entry_seq(v->e[post]),
                      "tool:post or tool:error after the tool replied",
                      "%s for %s came %s the tool's reply", ock__event_name(v->e[post]), id,
                      post > end ? "after" : "before");
  }
}

/* calls_equal: the event's tool_calls ids equal the reply's, in order. */
static int calls_equal(const cJSON *event_calls, const cJSON *reply_calls) {
  if (cJSON_GetArraySize(event_calls) != cJSON_GetArraySize(reply_calls))
    return 0;
  for (int i = 0; i < cJSON_GetArraySize(reply_calls); i++)
    if (strcmp(ock__str_field(cJSON_GetArrayItem(event_calls, i), "id"),
               ock__str_field(cJSON_GetArrayItem(reply_calls, i), "id")))
      return 0;
  return 1;
}

/* provider:response reports what the mock really sent. */
static void responses_match(struct grade_ctx *g) {
  const struct view *v = g->v;
  for (size_t i = 0; i < v->n; i++) {
    const cJSON *reply = v->e[i];
    if (!ock__is_kind(reply, OCK_ENTRY_LLM_REPLY) || ock__reply_failed(reply))
      continue;
    size_t j = i + 1;
    while (j < v->n && !ock__is_event(v->e[j], OCK_EV_PROVIDER_RESPONSE) &&
           !ock__is_event(v->e[j], OCK_EV_PROVIDER_ERROR) &&
           !ock__is_kind(v->e[j], OCK_ENTRY_LLM_REQUEST))
      j++;
    if (j >= v->n || !ock__is_kind(v->e[j], OCK_ENTRY_EVENT))
      continue; /* a later check (grammar, complete) reports a missing close */
    if (ock__reply_abandoned(v, i))
      continue; /* cancellation discards the reply, however complete (SPEC.md 5.10) */
    if (ock__is_event(v->e[j], OCK_EV_PROVIDER_ERROR)) {
      ock__grade_emit(g, CK_ORDER_RESPONSE_MATCHES, 0, ock__entry_seq(v->e[j]),
                      "a successful reply is reported with provider:response",
                      "the mock's reply %ld succeeded, the SUT reported provider:error",
                      ock__entry_seq(reply));
      continue;
    }
    const char *text = ock__str_field(reply, OCK_F_LLM_REPLY_TEXT);
    const char *content = ock__pf_str(v->e[j], OCK_FIELD_CONTENT);
    int ok_text = content && !strcmp(text, content);
    int ok_calls = calls_equal(ock__pf(v->e[j], OCK_FIELD_TOOL_CALLS),
                               cJSON_GetObjectItemCaseSensitive(reply, OCK_F_LLM_REPLY_TOOL_CALLS));
    ock__grade_emit(g, CK_ORDER_RESPONSE_MATCHES, ok_text && ok_calls, ock__entry_seq(v->e[j]),
                    "provider:response content and tool_calls equal the reply",
                    "%s%s (reply text \"%.60s\", event content \"%.60s\")",
                    ok_text ? "" : "content differs; ", ok_calls ? "" : "tool_calls differ", text,
                    ock__pf_show(v->e[j], OCK_FIELD_CONTENT));
  }
}

void ock__check_order(struct grade_ctx *g) {
  grammar(g);
  prompt_complete_presence(g);
  requests_announced(g);
  tools_announced(g);
  responses_match(g);
}
