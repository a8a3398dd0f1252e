/*
 * mut_events.c: the lies told in events (before the mock sees them) and in hook replies
 * (before the SUT sees them). Each hook looks for its one situation and leaves every other
 * message alone.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mut_hooks.h"
#include "ock/caps.h"
#include "ock/contract.h"
#include "ock/events.h"

/* ---- helpers ------------------------------------------------------------------------------- */

const char *ock__mut_str(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) ? v->valuestring : "";
}

void ock__mut_set_str(cJSON *o, const char *key, const char *value) {
  if (!cJSON_IsObject(o))
    return;
  cJSON *s = cJSON_CreateString(value);
  if (cJSON_HasObjectItem(o, key))
    cJSON_ReplaceItemInObjectCaseSensitive(o, key, s);
  else
    cJSON_AddItemToObject(o, key, s);
}

const char *ock__mut_event_name(const struct mutant_exchange *x) {
  return ock__mut_str(x->body, "event");
}

cJSON *ock__mut_event_data(const struct mutant_exchange *x) {
  cJSON *d = cJSON_GetObjectItemCaseSensitive(x->body, "data");
  return cJSON_IsObject(d) ? d : NULL;
}

static int is(const struct mutant_exchange *x, const char *name) {
  return !strcmp(ock__mut_event_name(x), name);
}

static const char *data_str(const struct mutant_exchange *x, const char *key) {
  return ock__mut_str(ock__mut_event_data(x), key);
}

static const char *error_type(const struct mutant_exchange *x) {
  return ock__mut_str(cJSON_GetObjectItemCaseSensitive(ock__mut_event_data(x), "error"), "type");
}

static void set_error_type(struct mutant_exchange *x, const char *type) {
  ock__mut_set_str(cJSON_GetObjectItemCaseSensitive(ock__mut_event_data(x), "error"), "type", type);
}

void ock__mut_answer_continue(struct mutant_exchange *x) {
  cJSON_Delete(x->answer);
  x->answer = cJSON_CreateObject();
  cJSON_AddStringToObject(x->answer, "action", "continue");
}

static void push(cJSON **list, cJSON *event) {
  if (!event)
    return;
  if (!*list)
    *list = cJSON_CreateArray();
  cJSON_AddItemToArray(*list, event);
}

void ock__mut_post_after(struct mutant_exchange *x, cJSON *event) {
  push(&x->after, event);
}

void ock__mut_post_before(struct mutant_exchange *x, cJSON *event) {
  push(&x->before, event);
}

void ock__mut_flush_held(struct mutant_state *s, struct mutant_exchange *x, int after) {
  while (cJSON_GetArraySize(s->held) > 0)
    push(after ? &x->after : &x->before, cJSON_DetachItemFromArray(s->held, 0));
}

/* event_named: a new event body {"event": name, "data": copy of data}. */
static cJSON *event_named(const char *name, const cJSON *data) {
  cJSON *e = cJSON_CreateObject();
  cJSON_AddStringToObject(e, "event", name);
  cJSON_AddItemToObject(e, "data", data ? cJSON_Duplicate(data, 1) : cJSON_CreateObject());
  return e;
}

/* reply_action: the action of the hook reply the mock sent, or "". */
static const char *reply_action(const struct mutant_exchange *x) {
  return ock__mut_str(x->reply, "action");
}

/* neutralise: the SUT gets {"action":"continue"} instead of the mock's reply. */
static void neutralise(struct mutant_exchange *x) {
  cJSON_Delete(x->reply);
  x->reply = cJSON_CreateObject();
  cJSON_AddStringToObject(x->reply, "action", "continue");
}

/* ---- COMPLETE ------------------------------------------------------------------------------ */

void ock__mut_complete_dropped_on_error(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (is(x, OCK_EV_ORCHESTRATOR_COMPLETE) && !strcmp(data_str(x, "status"), "error"))
    ock__mut_answer_continue(x);
}

void ock__mut_complete_never(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (is(x, OCK_EV_ORCHESTRATOR_COMPLETE))
    ock__mut_answer_continue(x);
}

void ock__mut_complete_twice(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (is(x, OCK_EV_ORCHESTRATOR_COMPLETE))
    ock__mut_post_after(x, cJSON_Duplicate(x->body, 1));
}

void ock__mut_event_after_complete(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (!is(x, OCK_EV_ORCHESTRATOR_COMPLETE))
    return;
  cJSON *late = event_named("ock-mutant:late", NULL);
  cJSON *d = cJSON_GetObjectItemCaseSensitive(late, "data");
  cJSON_AddStringToObject(d, "note", "an event after orchestrator:complete");
  if (*data_str(x, "trace_id"))
    cJSON_AddStringToObject(d, "trace_id", data_str(x, "trace_id"));
  if (*data_str(x, "stage"))
    cJSON_AddStringToObject(d, "stage", data_str(x, "stage"));
  ock__mut_post_after(x, late);
}

void ock__mut_complete_orchestrator_empty(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (is(x, OCK_EV_ORCHESTRATOR_COMPLETE))
    ock__mut_set_str(ock__mut_event_data(x), "orchestrator", "");
}

void ock__mut_response_rewritten(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (is(x, OCK_EV_PROMPT_COMPLETE))
    ock__mut_set_str(ock__mut_event_data(x), "response",
                     "(mutant) a response the provider never sent");
}

/* The response after a deny in other words (OCK-TEXT-009); prompt:complete and execution:end
 * keep carrying the same text, so only the wording differs. */
void ock__mut_other_deny_response(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  const char *r = data_str(x, "response");
  if ((!is(x, OCK_EV_PROMPT_COMPLETE) && !is(x, OCK_EV_EXECUTION_END)) || strncmp(r, "Denied: ", 8))
    return;
  char text[4200];
  snprintf(text, sizeof text, "Refused by a hook (%.4096s).", r + 8);
  ock__mut_set_str(ock__mut_event_data(x), "response", text);
}

void ock__mut_end_response_rewritten(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (is(x, OCK_EV_EXECUTION_END))
    ock__mut_set_str(ock__mut_event_data(x), "response",
                     "(mutant) a response the provider never sent");
}

void ock__mut_orchestrator_name_varies(struct mutant_state *s, struct mutant_exchange *x) {
  if (s->executes < 2 && !is(x, OCK_EV_CANCEL_COMPLETED))
    return;
  char name[256];
  snprintf(name, sizeof name, "%s-%d", data_str(x, "orchestrator"), s->executes);
  if (*data_str(x, "orchestrator"))
    ock__mut_set_str(ock__mut_event_data(x), "orchestrator", name);
}

void ock__mut_retryable_as_will_retry(struct mutant_state *s, struct mutant_exchange *x) {
  cJSON *d = ock__mut_event_data(x);
  if (!s->retrying && is(x, OCK_EV_PROVIDER_ERROR) && cJSON_HasObjectItem(d, "retryable"))
    cJSON_ReplaceItemInObjectCaseSensitive(d, "retryable", cJSON_CreateFalse());
}

void ock__mut_stream_iteration_one(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (is(x, OCK_EV_PROVIDER_STREAM))
    cJSON_ReplaceItemInObjectCaseSensitive(ock__mut_event_data(x), "iteration",
                                           cJSON_CreateNumber(1));
}

void ock__mut_wrap_up_iteration_repeated(struct mutant_state *s, struct mutant_exchange *x) {
  cJSON *it = cJSON_GetObjectItemCaseSensitive(ock__mut_event_data(x), "iteration");
  if (is(x, OCK_EV_PROVIDER_REQUEST) && cJSON_IsNumber(it) && it->valueint == s->max_iterations + 1)
    cJSON_SetNumberValue(it, s->max_iterations);
}

void ock__mut_attempt_reset_at_fallback(struct mutant_state *s, struct mutant_exchange *x) {
  static char last[256];
  static int last_execute = -1;
  if (!is(x, OCK_EV_PROVIDER_REQUEST))
    return;
  if (s->executes != last_execute)
    last[0] = '\0';
  last_execute = s->executes;
  cJSON *at = cJSON_GetObjectItemCaseSensitive(ock__mut_event_data(x), "attempt");
  const char *provider = data_str(x, "provider");
  if (last[0] && strcmp(last, provider) && cJSON_IsNumber(at))
    cJSON_SetNumberValue(at, 1);
  snprintf(last, sizeof last, "%s", provider);
}

void ock__mut_event_model_kept(struct mutant_state *s, struct mutant_exchange *x) {
  static char first[256];
  static int execute = -1;
  if (!is(x, OCK_EV_PROVIDER_REQUEST))
    return;
  const char *model = data_str(x, "model");
  if (s->executes != execute || !first[0]) {
    execute = s->executes;
    snprintf(first, sizeof first, "%s", model);
  } else if (strcmp(first, model)) {
    /* the request after a fallback carries the new provider's model; the event says the old */
    ock__mut_set_str(ock__mut_event_data(x), "model", first);
  }
}

void ock__mut_complete_status_done(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (is(x, OCK_EV_ORCHESTRATOR_COMPLETE))
    ock__mut_set_str(ock__mut_event_data(x), "status", "done");
}

void ock__mut_turn_count_plus_one(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  cJSON *tc = cJSON_GetObjectItemCaseSensitive(ock__mut_event_data(x), "turn_count");
  if (is(x, OCK_EV_ORCHESTRATOR_COMPLETE) && cJSON_IsNumber(tc))
    cJSON_SetNumberHelper(tc, tc->valuedouble + 1);
}

void ock__mut_incomplete_as_success(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (!is(x, OCK_EV_ORCHESTRATOR_COMPLETE) || strcmp(data_str(x, "status"), "incomplete"))
    return;
  ock__mut_set_str(ock__mut_event_data(x), "status", "success");
  cJSON_DeleteItemFromObjectCaseSensitive(ock__mut_event_data(x), "reason");
}

void ock__mut_success_as_incomplete(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (!is(x, OCK_EV_ORCHESTRATOR_COMPLETE) || strcmp(data_str(x, "status"), "success"))
    return;
  ock__mut_set_str(ock__mut_event_data(x), "status", "incomplete");
  ock__mut_set_str(ock__mut_event_data(x), "reason", "max_iterations");
}

/* An error flag a failed tool call set and nothing clears: the execute answered, and ends on the
 * error path all the same (no prompt:complete; execution:end and orchestrator:complete say error,
 * the latter with an error object). */
void ock__mut_tool_error_sticks(struct mutant_state *s, struct mutant_exchange *x) {
  cJSON *d = ock__mut_event_data(x);
  if (!s->tool_failed || !d)
    return;
  if (is(x, OCK_EV_PROMPT_COMPLETE)) {
    ock__mut_answer_continue(x);
  } else if (is(x, OCK_EV_EXECUTION_END) && !strcmp(data_str(x, "status"), "completed")) {
    cJSON_ReplaceItemInObjectCaseSensitive(d, "response", cJSON_CreateNull());
    ock__mut_set_str(d, "status", "error");
    ock__mut_set_str(d, "stage", "failed");
  } else if (is(x, OCK_EV_ORCHESTRATOR_COMPLETE) && !strcmp(data_str(x, "status"), "success")) {
    ock__mut_set_str(d, "status", "error");
    ock__mut_set_str(d, "stage", "failed");
    cJSON *err = cJSON_CreateObject();
    cJSON_AddStringToObject(err, "type", "execution_failed");
    cJSON_AddStringToObject(err, "message", "a tool call of this execute failed");
    cJSON_DeleteItemFromObjectCaseSensitive(d, "error");
    cJSON_AddItemToObject(d, "error", err);
  }
}

void ock__mut_limit_reason_renamed(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (is(x, OCK_EV_ORCHESTRATOR_COMPLETE) && !strcmp(data_str(x, "reason"), "max_iterations"))
    ock__mut_set_str(ock__mut_event_data(x), "reason", "iteration_limit");
}

void ock__mut_error_object_dropped(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (is(x, OCK_EV_ORCHESTRATOR_COMPLETE) && !strcmp(data_str(x, "status"), "error"))
    cJSON_DeleteItemFromObjectCaseSensitive(ock__mut_event_data(x), "error");
}

/* ---- ORDER --------------------------------------------------------------------------------- */

void ock__mut_event_before_submit(struct mutant_state *s, struct mutant_exchange *x) {
  if (is(x, OCK_EV_PROMPT_SUBMIT) && s->executes == 0)
    ock__mut_post_before(x, event_named(OCK_EV_EXECUTION_START, ock__mut_event_data(x)));
}

void ock__mut_provider_response_dropped(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (is(x, OCK_EV_PROVIDER_RESPONSE))
    ock__mut_answer_continue(x);
}

void ock__mut_tool_post_twice(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (is(x, OCK_EV_TOOL_POST))
    ock__mut_post_after(x, cJSON_Duplicate(x->body, 1));
}

void ock__mut_prompt_complete_dropped(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (is(x, OCK_EV_PROMPT_COMPLETE))
    ock__mut_answer_continue(x);
}

/* hold keeps this event back (the SUT is told "continue" at once); any other event first
 * lets the held ones go, so only the announced request or tool run overtakes them. */
static void hold(struct mutant_state *s, struct mutant_exchange *x, const char *name) {
  if (!is(x, name)) {
    ock__mut_flush_held(s, x, 0);
    return;
  }
  if (cJSON_GetArraySize(s->held) >= OCK_MAX_MUTANT_HELD)
    return;
  cJSON_AddItemToArray(s->held, cJSON_Duplicate(x->body, 1));
  ock__mut_answer_continue(x);
}

void ock__mut_provider_request_held(struct mutant_state *s, struct mutant_exchange *x) {
  hold(s, x, OCK_EV_PROVIDER_REQUEST);
}

void ock__mut_tool_pre_held(struct mutant_state *s, struct mutant_exchange *x) {
  hold(s, x, OCK_EV_TOOL_PRE);
}

void ock__mut_retry_without_error(struct mutant_state *s, struct mutant_exchange *x) {
  if (!is(x, OCK_EV_PROVIDER_RESPONSE) || s->responses_in_execute > 0)
    return;
  cJSON *retry = event_named(OCK_EV_PROVIDER_RETRY, NULL);
  cJSON *d = cJSON_GetObjectItemCaseSensitive(retry, "data");
  cJSON *from = ock__mut_event_data(x);
  cJSON_AddStringToObject(d, "provider", data_str(x, "provider"));
  cJSON *it = cJSON_GetObjectItemCaseSensitive(from, "iteration");
  cJSON_AddNumberToObject(d, "iteration", cJSON_IsNumber(it) ? it->valuedouble : 1);
  cJSON_AddNumberToObject(d, "attempt", 2);
  cJSON_AddNumberToObject(d, "delay_ms", 0);
  cJSON *err = cJSON_AddObjectToObject(d, "error");
  cJSON_AddStringToObject(err, "type", "http_error");
  cJSON_AddStringToObject(err, "message", "mutant: a retry with no error before it");
  if (*data_str(x, "trace_id"))
    cJSON_AddStringToObject(d, "trace_id", data_str(x, "trace_id"));
  if (*data_str(x, "stage"))
    cJSON_AddStringToObject(d, "stage", data_str(x, "stage"));
  ock__mut_post_after(x, retry);
}

void ock__mut_response_content_changed(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (!is(x, OCK_EV_PROVIDER_RESPONSE))
    return;
  char text[4096];
  snprintf(text, sizeof text, "%s [mutant]", data_str(x, "content"));
  ock__mut_set_str(ock__mut_event_data(x), "content", text);
}

/* A SUT that closes an abandoned request as a broken stream: the reply it received looks failed. */
void ock__mut_abandoned_as_failure(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (is(x, OCK_EV_PROVIDER_ERROR) && !strcmp(error_type(x), "cancelled"))
    set_error_type(x, "stream_error");
}

/* ---- TOOL ---------------------------------------------------------------------------------- */

void ock__mut_not_found_mislabelled(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (is(x, OCK_EV_TOOL_ERROR) && !strcmp(error_type(x), "not_found"))
    set_error_type(x, "execution_failed");
}

/* A call closed as cancelled is reported the way a finished call is: tool:post with a failed
 * result, where SPEC.md 5.10 wants tool:error cancelled; for a call still running, that tool:post
 * comes before the tool replied. */
void ock__mut_cancelled_as_post(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  cJSON *d = ock__mut_event_data(x);
  cJSON *err = cJSON_GetObjectItemCaseSensitive(d, "error");
  if (!is(x, OCK_EV_TOOL_ERROR) || strcmp(ock__mut_str(err, "type"), "cancelled"))
    return;
  cJSON *result = cJSON_CreateObject();
  cJSON_AddFalseToObject(result, "success");
  cJSON_AddNullToObject(result, "output");
  cJSON_AddItemToObject(result, "error", cJSON_DetachItemViaPointer(d, err));
  cJSON_AddItemToObject(d, "result", result);
  ock__mut_set_str(x->body, "event", OCK_EV_TOOL_POST);
}

void ock__mut_failed_result_as_error(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  cJSON *d = ock__mut_event_data(x);
  cJSON *result = cJSON_GetObjectItemCaseSensitive(d, "result");
  if (!is(x, OCK_EV_TOOL_POST) ||
      !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(result, "success")))
    return;
  const char *msg = ock__mut_str(cJSON_GetObjectItemCaseSensitive(result, "error"), "message");
  cJSON *err = cJSON_CreateObject();
  cJSON_AddStringToObject(err, "type", "execution_failed");
  cJSON_AddStringToObject(err, "message", *msg ? msg : "the tool failed");
  cJSON_AddItemToObject(d, "error", err);
  cJSON_DeleteItemFromObjectCaseSensitive(d, "result");
  ock__mut_set_str(x->body, "event", OCK_EV_TOOL_ERROR);
}

void ock__mut_endpoint_failure_mislabelled(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (is(x, OCK_EV_TOOL_ERROR) &&
      (!strcmp(error_type(x), "execution_failed") || !strcmp(error_type(x), "timeout")))
    set_error_type(x, "not_found");
}

void ock__mut_timeout_as_failure(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (is(x, OCK_EV_TOOL_ERROR) && !strcmp(error_type(x), "timeout"))
    set_error_type(x, "execution_failed");
}

void ock__mut_invalid_arguments_mislabelled(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (is(x, OCK_EV_TOOL_ERROR) && !strcmp(error_type(x), "invalid_arguments"))
    set_error_type(x, "execution_failed");
}

void ock__mut_denied_type_renamed(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (is(x, OCK_EV_TOOL_ERROR) && !strcmp(error_type(x), "denied"))
    set_error_type(x, "rejected");
}

void ock__mut_tool_name_changed(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (!is(x, OCK_EV_TOOL_PRE))
    return;
  char name[512];
  snprintf(name, sizeof name, "%s_renamed", data_str(x, "tool_name"));
  ock__mut_set_str(ock__mut_event_data(x), "tool_name", name);
}

void ock__mut_tool_id_dropped(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  cJSON *d = ock__mut_event_data(x);
  if (d && ock_event_is_tool(ock_event_parse(ock__mut_event_name(x))))
    cJSON_DeleteItemFromObjectCaseSensitive(d, "tool_call_id");
}

/* ---- HOOK ---------------------------------------------------------------------------------- */

/* ignore_reply: the SUT gets "continue" where the mock replied action to event name (NULL:
 * any event). */
static void ignore_reply(struct mutant_exchange *x, const char *name, const char *action) {
  if ((!name || is(x, name)) && !strcmp(reply_action(x), action))
    neutralise(x);
}

void ock__mut_deny_submit_ignored(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  ignore_reply(x, OCK_EV_PROMPT_SUBMIT, "deny");
}

void ock__mut_deny_request_ignored(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  ignore_reply(x, OCK_EV_PROVIDER_REQUEST, "deny");
}

void ock__mut_deny_tool_pre_ignored(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  ignore_reply(x, OCK_EV_TOOL_PRE, "deny");
}

/* A tool:pre whose tool_input is a string that parses to an object: a call of a reply cut at
 * the output token limit (any other call with an object input goes out as that object). The SUT
 * gets a modify with that object, so it runs the call as a loop that reads only the arguments
 * would; the mock journals its own reply, continue. */
void ock__mut_token_limit_call_run(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  const cJSON *in = cJSON_GetObjectItemCaseSensitive(ock__mut_event_data(x), "tool_input");
  if (!is(x, OCK_EV_TOOL_PRE) || strcmp(reply_action(x), "continue") || !cJSON_IsString(in))
    return;
  cJSON *parsed = cJSON_Parse(in->valuestring);
  if (!cJSON_IsObject(parsed)) {
    cJSON_Delete(parsed);
    return;
  }
  cJSON_Delete(x->reply);
  x->reply = cJSON_CreateObject();
  cJSON_AddStringToObject(x->reply, "action", "modify");
  cJSON *d = cJSON_AddObjectToObject(x->reply, "data");
  cJSON_AddItemToObject(d, "tool_input", parsed);
}

void ock__mut_kept_injection_ignored(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(x->reply, "ephemeral")))
    ignore_reply(x, NULL, "inject_context");
}

void ock__mut_ephemeral_injection_ignored(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(x->reply, "ephemeral")))
    ignore_reply(x, NULL, "inject_context");
}

void ock__mut_modify_tool_pre_ignored(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  ignore_reply(x, OCK_EV_TOOL_PRE, "modify");
}

void ock__mut_ask_user_ignored(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  ignore_reply(x, NULL, "ask_user");
}

void ock__mut_ask_user_tool_runs(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  ignore_reply(x, OCK_EV_TOOL_PRE, "ask_user");
  ignore_reply(x, OCK_EV_TOOL_SELECTING, "ask_user");
}

void ock__mut_tool_selected_dropped(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (is(x, OCK_EV_TOOL_SELECTED))
    ock__mut_answer_continue(x);
}

void ock__mut_deny_selecting_ignored(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  ignore_reply(x, OCK_EV_TOOL_SELECTING, "deny");
}

void ock__mut_modify_selecting_ignored(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  ignore_reply(x, OCK_EV_TOOL_SELECTING, "modify");
}

/* ---- ITER, STREAM, PARALLEL ---------------------------------------------------------------- */

void ock__mut_limit_status_success(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (!is(x, OCK_EV_ORCHESTRATOR_COMPLETE) || strcmp(data_str(x, "reason"), "max_iterations"))
    return;
  ock__mut_set_str(ock__mut_event_data(x), "status", "success");
  cJSON_DeleteItemFromObjectCaseSensitive(ock__mut_event_data(x), "reason");
}

void ock__mut_stream_delta_altered(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (!is(x, OCK_EV_PROVIDER_STREAM) || !*data_str(x, "delta"))
    return;
  char delta[4096];
  snprintf(delta, sizeof delta, "%s~", data_str(x, "delta"));
  ock__mut_set_str(ock__mut_event_data(x), "delta", delta);
}

void ock__mut_stream_error_as_response(struct mutant_state *s, struct mutant_exchange *x) {
  if (!is(x, OCK_EV_PROVIDER_ERROR) || !s->streaming)
    return;
  cJSON *d = ock__mut_event_data(x);
  ock__mut_set_str(x->body, "event", OCK_EV_PROVIDER_RESPONSE);
  static const char *const gone[] = {"error", "retryable", "status_code", "attempt"};
  for (size_t i = 0; i < sizeof gone / sizeof gone[0]; i++)
    cJSON_DeleteItemFromObjectCaseSensitive(d, gone[i]);
  ock__mut_set_str(d, "content", "");
  cJSON_AddItemToObject(d, "tool_calls", cJSON_CreateArray());
  ock__mut_set_str(d, "finish_reason", "stop");
}

void ock__mut_stream_events_dropped(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (is(x, OCK_EV_PROVIDER_STREAM))
    ock__mut_answer_continue(x);
}

void ock__mut_group_id_per_call(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (!is(x, OCK_EV_TOOL_PRE) && !is(x, OCK_EV_TOOL_POST) && !is(x, OCK_EV_TOOL_ERROR))
    return;
  char id[1024];
  snprintf(id, sizeof id, "%s:%s", data_str(x, "parallel_group_id"), data_str(x, "tool_call_id"));
  ock__mut_set_str(ock__mut_event_data(x), "parallel_group_id", id);
}

/* ---- LIFECYCLE, TRACE ---------------------------------------------------------------------- */

void ock__mut_execution_end_dropped(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (is(x, OCK_EV_EXECUTION_END))
    ock__mut_answer_continue(x);
}

void ock__mut_first_request_stage_route(struct mutant_state *s, struct mutant_exchange *x) {
  if (is(x, OCK_EV_PROVIDER_REQUEST) && s->requests_in_execute == 0 && *data_str(x, "stage"))
    ock__mut_set_str(ock__mut_event_data(x), "stage", "route");
}

void ock__mut_resolve_repeated(struct mutant_state *s, struct mutant_exchange *x) {
  if (is(x, OCK_EV_PROVIDER_RESPONSE) && s->responses_in_execute == 0 && s->resolve)
    ock__mut_post_after(x, cJSON_Duplicate(s->resolve, 1));
}

void ock__mut_terminal_stage_wrong(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (!is(x, OCK_EV_ORCHESTRATOR_COMPLETE) || !*data_str(x, "stage"))
    return;
  const char *status = data_str(x, "status");
  int returns = !strcmp(status, "success") || !strcmp(status, "incomplete");
  ock__mut_set_str(ock__mut_event_data(x), "stage", returns ? "failed" : "complete");
}

void ock__mut_resolve_reason_empty(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (is(x, OCK_EV_PROVIDER_RESOLVE))
    ock__mut_set_str(ock__mut_event_data(x), "reason", "");
}

void ock__mut_routing_varies(struct mutant_state *s, struct mutant_exchange *x) {
  if (!is(x, OCK_EV_PROVIDER_RESOLVE))
    return;
  char reason[2048];
  snprintf(reason, sizeof reason, "%s (execute %d)", data_str(x, "reason"), s->executes);
  ock__mut_set_str(ock__mut_event_data(x), "reason", reason);
}

void ock__mut_fallback_wrong(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  cJSON *d = ock__mut_event_data(x);
  if (!is(x, OCK_EV_PROVIDER_RESOLVE) || !d)
    return;
  cJSON *fb = cJSON_GetObjectItemCaseSensitive(d, "fallback");
  if (cJSON_IsString(fb))
    cJSON_ReplaceItemInObjectCaseSensitive(d, "fallback", cJSON_CreateNull());
  else
    ock__mut_set_str(d, "fallback", data_str(x, "provider"));
}

void ock__mut_trace_id_dropped(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  cJSON_DeleteItemFromObjectCaseSensitive(ock__mut_event_data(x), "trace_id");
}

/* ---- ERROR, CANCEL, VALID, PROC ------------------------------------------------------------ */

void ock__mut_provider_error_fields_dropped(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (!is(x, OCK_EV_PROVIDER_ERROR))
    return;
  cJSON_DeleteItemFromObjectCaseSensitive(ock__mut_event_data(x), "retryable");
  cJSON_DeleteItemFromObjectCaseSensitive(ock__mut_event_data(x), "status_code");
}

/* provider:error carries the error as its message string, not as {type, message}: the exception
 * text put where the object belongs. */
void ock__mut_provider_error_as_string(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  cJSON *d = ock__mut_event_data(x);
  const cJSON *err = cJSON_GetObjectItemCaseSensitive(d, "error");
  if (!is(x, OCK_EV_PROVIDER_ERROR) || !cJSON_IsObject(err))
    return;
  const cJSON *msg = cJSON_GetObjectItemCaseSensitive(err, "message");
  cJSON *text = cJSON_CreateString(cJSON_IsString(msg) ? msg->valuestring : "provider failed");
  cJSON_ReplaceItemInObjectCaseSensitive(d, "error", text);
}

/* cancel:requested and cancel:completed carry turn_count as text ("1"), not as a number: the
 * cancel path formats the count it reports, where orchestrator:complete sends it as it is. */
void ock__mut_cancel_turn_count_as_string(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  cJSON *d = ock__mut_event_data(x);
  const cJSON *tc = cJSON_GetObjectItemCaseSensitive(d, "turn_count");
  if ((!is(x, OCK_EV_CANCEL_REQUESTED) && !is(x, OCK_EV_CANCEL_COMPLETED)) || !cJSON_IsNumber(tc))
    return;
  char text[32];
  snprintf(text, sizeof text, "%d", tc->valueint);
  ock__mut_set_str(d, "turn_count", text);
}

void ock__mut_retry_unannounced(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (is(x, OCK_EV_PROVIDER_RETRY))
    ock__mut_answer_continue(x);
}

void ock__mut_cancelled_as_error(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  cJSON *d = ock__mut_event_data(x);
  if (!is(x, OCK_EV_ORCHESTRATOR_COMPLETE) || strcmp(data_str(x, "status"), "cancelled"))
    return;
  ock__mut_set_str(d, "status", "error");
  cJSON *err = cJSON_CreateObject();
  cJSON_AddStringToObject(err, "type", "cancelled");
  cJSON_AddStringToObject(err, "message", "interrupted");
  cJSON_DeleteItemFromObjectCaseSensitive(d, "error");
  cJSON_AddItemToObject(d, "error", err);
}

/* The first execute reports status cancelled, as a SUT does that honours a SIGINT after
 * prompt:complete, or while a denied or empty prompt is announced. */
void ock__mut_ignored_sigint_cancels(struct mutant_state *s, struct mutant_exchange *x) {
  if (s->done_once || !is(x, OCK_EV_ORCHESTRATOR_COMPLETE) ||
      !strcmp(data_str(x, "status"), "cancelled"))
    return;
  s->done_once = 1;
  ock__mut_set_str(ock__mut_event_data(x), "status", "cancelled");
}

void ock__mut_cancel_requested_dropped(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (is(x, OCK_EV_CANCEL_REQUESTED))
    ock__mut_answer_continue(x);
}

void ock__mut_cancel_requested_twice(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (is(x, OCK_EV_CANCEL_REQUESTED))
    ock__mut_post_after(x, cJSON_Duplicate(x->body, 1));
}

void ock__mut_cancel_completed_twice(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (is(x, OCK_EV_CANCEL_COMPLETED))
    ock__mut_post_after(x, cJSON_Duplicate(x->body, 1));
}

/* aggregate_too_early: a custom event with stage aggregate before each request after the
 * first of an execute, and before execution:end of an error execute: results aggregated before
 * the next plan, or before a failure, which the transition table refuses. */
void ock__mut_aggregate_too_early(struct mutant_state *s, struct mutant_exchange *x) {
  int again = is(x, OCK_EV_PROVIDER_REQUEST) && s->requests_in_execute > 0;
  int failing = is(x, OCK_EV_EXECUTION_END) && !strcmp(data_str(x, "status"), "error");
  if (!again && !failing)
    return;
  cJSON *step = event_named("ock-mutant:aggregated", NULL);
  cJSON *d = cJSON_GetObjectItemCaseSensitive(step, "data");
  if (*data_str(x, "trace_id"))
    cJSON_AddStringToObject(d, "trace_id", data_str(x, "trace_id"));
  cJSON_AddStringToObject(d, "stage", "aggregate");
  ock__mut_post_before(x, step);
}

/* cancelled_step_failed: the step the cancel aborted is reported failed: a custom event with
 * stage failed just before cancel:completed, so the execute reaches two terminal stages. */
void ock__mut_cancelled_step_failed(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (!is(x, OCK_EV_CANCEL_COMPLETED))
    return;
  cJSON *step = event_named("ock-mutant:step-aborted", ock__mut_event_data(x));
  ock__mut_set_str(cJSON_GetObjectItemCaseSensitive(step, "data"), "stage", "failed");
  ock__mut_post_before(x, step);
}

/* A SIGINT the SUT must ignore (after prompt:complete or execution:end) is announced with
 * cancel:requested just before orchestrator:complete, though the execute ends as if none came
 * (the SUT itself never gets the signal: defers_sigint). */
void ock__mut_ignored_sigint_announced(struct mutant_state *s, struct mutant_exchange *x) {
  if (!s->sigint_pending || !is(x, OCK_EV_ORCHESTRATOR_COMPLETE))
    return;
  s->sigint_pending = 0;
  cJSON *d = cJSON_CreateObject(), *from = ock__mut_event_data(x);
  static const char *const keep[] = {"orchestrator", "turn_count", "trace_id", "stage"};
  for (size_t i = 0; d && i < sizeof keep / sizeof keep[0]; i++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(from, keep[i]);
    if (v)
      cJSON_AddItemToObject(d, keep[i], cJSON_Duplicate(v, 1));
  }
  ock__mut_post_before(x, event_named(OCK_EV_CANCEL_REQUESTED, d));
  cJSON_Delete(d);
}

void ock__mut_work_after_cancel(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (is(x, OCK_EV_CANCEL_REQUESTED))
    x->replay_after = 1;
}

/* request_after_cancel: the LLM request abandoned on the cancel is sent once more, with its
 * provider:request, after cancel:requested: a retry path that does not look at the cancel
 * flag. */
void ock__mut_request_after_cancel(struct mutant_state *s, struct mutant_exchange *x) {
  if (is(x, OCK_EV_PROVIDER_REQUEST)) {
    free(s->kept);
    s->kept = cJSON_PrintUnformatted(x->body);
  } else if (is(x, OCK_EV_CANCEL_REQUESTED) && s->kept && !s->done_once) {
    cJSON *again = cJSON_Parse(s->kept);
    if (!again)
      return;
    s->done_once = 1;
    cJSON *data = cJSON_GetObjectItemCaseSensitive(again, "data");
    const cJSON *attempt = cJSON_GetObjectItemCaseSensitive(data, "attempt");
    if (cJSON_IsNumber(attempt)) /* the request sent again is the turn's next attempt */
      cJSON_ReplaceItemInObjectCaseSensitive(data, "attempt",
                                             cJSON_CreateNumber(attempt->valuedouble + 1));
    ock__mut_post_after(x, again);
    x->replay_after = 1;
  }
}

/* failure_reported: the tool:post of the call whose failure ock__mut_failure_hidden kept from
 * the SUT reaches the mock as the tool:error the SUT would have sent, so the SUT learns of a
 * failure only when the next call of its round has started (when that one fails too). */
void ock__mut_failure_reported(struct mutant_state *s, struct mutant_exchange *x) {
  cJSON *d = ock__mut_event_data(x);
  if (s->done_once != 1 || !s->kept || !d || !is(x, OCK_EV_TOOL_POST))
    return;
  s->done_once = 2;
  ock__mut_set_str(x->body, "event", OCK_EV_TOOL_ERROR);
  cJSON_DeleteItemFromObjectCaseSensitive(d, "result");
  cJSON *err = cJSON_AddObjectToObject(d, "error");
  cJSON_AddStringToObject(err, "type", "execution_failed");
  cJSON_AddStringToObject(err, "message", s->kept);
}

/* sigint_at_next_turn: a deferred SIGINT reaches the SUT only when it starts its next turn or
 * ends the execute: a loop that looks at its cancel flag between turns only, so the running tool
 * finishes and the rest of the round runs. */
void ock__mut_sigint_at_next_turn(struct mutant_state *s, struct mutant_exchange *x) {
  if (s->sigint_pending && (is(x, OCK_EV_PROVIDER_REQUEST) || is(x, OCK_EV_PROMPT_COMPLETE) ||
                            is(x, OCK_EV_ORCHESTRATOR_COMPLETE))) {
    s->sigint_pending = 0;
    s->sigint_now = 1;
  }
}

void ock__mut_invalid_input_mislabelled(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (is(x, OCK_EV_ORCHESTRATOR_COMPLETE) && !strcmp(error_type(x), "invalid_input"))
    set_error_type(x, "bad_input");
}

void ock__mut_no_provider_mislabelled(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (is(x, OCK_EV_ORCHESTRATOR_COMPLETE) && !strcmp(error_type(x), "no_provider"))
    set_error_type(x, "invalid_input");
}

void ock__mut_stop_after_invalid(struct mutant_state *s, struct mutant_exchange *x) {
  if (is(x, OCK_EV_ORCHESTRATOR_COMPLETE) &&
      (!strcmp(error_type(x), "invalid_input") || !strcmp(error_type(x), "no_provider")))
    s->stop = 1;
}

void ock__mut_stop_after_first_execute(struct mutant_state *s, struct mutant_exchange *x) {
  if (is(x, OCK_EV_ORCHESTRATOR_COMPLETE))
    s->stop = 1;
}

void ock__mut_prompt_altered(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (!is(x, OCK_EV_PROMPT_SUBMIT))
    return;
  size_t n = strlen(data_str(x, "prompt")) + 16;
  char *p = malloc(n);
  if (!p)
    return;
  snprintf(p, n, "%s (mutant)", data_str(x, "prompt"));
  ock__mut_set_str(ock__mut_event_data(x), "prompt", p);
  free(p);
}

void ock__mut_malformed_event(struct mutant_state *s, struct mutant_exchange *x) {
  if (!is(x, OCK_EV_PROMPT_SUBMIT) || s->executes > 0)
    return;
  cJSON *bad = cJSON_CreateObject(); /* an event without its data object */
  cJSON_AddStringToObject(bad, "event", "ock-mutant:no-data");
  ock__mut_post_after(x, bad);
}

/* ---- expectations alone ------------------------------------------------------------------ */

/* A retry announced before the error's kind is looked at: every provider:error is followed by a
 * provider:retry, and only then does the loop see that the error is not retryable and give up.
 * No request follows it, so the retry and error checks, which read the requests, find nothing;
 * the scenario's events_absent does. */
void ock__mut_retry_announced_not_made(struct mutant_state *s, struct mutant_exchange *x) {
  const cJSON *d = ock__mut_event_data(x);
  if (!is(x, OCK_EV_PROVIDER_ERROR) ||
      !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(d, "retryable")))
    return;
  (void)s;
  cJSON *retry = event_named(OCK_EV_PROVIDER_RETRY, NULL);
  cJSON *rd = cJSON_GetObjectItemCaseSensitive(retry, "data");
  cJSON_AddStringToObject(rd, "provider", data_str(x, "provider"));
  const cJSON *it = cJSON_GetObjectItemCaseSensitive(d, "iteration");
  cJSON_AddNumberToObject(rd, "iteration", cJSON_IsNumber(it) ? it->valuedouble : 1);
  const cJSON *at = cJSON_GetObjectItemCaseSensitive(d, "attempt");
  cJSON_AddNumberToObject(rd, "attempt", (cJSON_IsNumber(at) ? at->valuedouble : 1) + 1);
  cJSON_AddNumberToObject(rd, "delay_ms", 0);
  const cJSON *err = cJSON_GetObjectItemCaseSensitive(d, "error");
  cJSON_AddItemToObject(rd, "error", err ? cJSON_Duplicate(err, 1) : cJSON_CreateObject());
  if (*data_str(x, "trace_id"))
    cJSON_AddStringToObject(rd, "trace_id", data_str(x, "trace_id"));
  if (*data_str(x, "stage"))
    cJSON_AddStringToObject(rd, "stage", data_str(x, "stage"));
  ock__mut_post_after(x, retry);
}

/* Every tool failure that ends an execute under fail_fast reported as execution_failed, the type
 * of the commonest failure, instead of the type its tool:error carried (SPEC.md 5.2): the status
 * is right and the error object whole, so only the scenario's error_type tells. */
void ock__mut_fail_fast_type_generic(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (!is(x, OCK_EV_ORCHESTRATOR_COMPLETE) || strcmp(data_str(x, "status"), "error"))
    return;
  if (!strcmp(error_type(x), "invalid_arguments") || !strcmp(error_type(x), "timeout"))
    set_error_type(x, "execution_failed");
}
