/*
 * check_tool.c: TOOL, what the SUT does with each tool call: unknown names, arguments that are
 * not JSON, failing tools and failing tool endpoints all become results and the loop goes on;
 * the tool receives exactly the model's arguments; the result text carries the tool's output.
 * The exact wording of those results (OCK-TEXT-001 to -004, SHOULD) is judged here too, under
 * its own requirement, so a result in other words fails no MUST.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/grade.h"
#include "ock/caps.h"
#include "ock/contract.h"
#include "ock/events.h"
#include "ock/json.h"
#include "ock/message.h"
#include "model/view_calls.h"

static int denied_or_modified(const cJSON *event) {
  if (!event)
    return 0;
  const char *a = ock__event_action(event);
  return !strcmp(a, OCK_PV_HOOK_RESULT_ACTION_DENY) ||
         !strcmp(a, OCK_PV_HOOK_RESULT_ACTION_MODIFY) ||
         !strcmp(a, OCK_PV_HOOK_RESULT_ACTION_ASK_USER);
}

static int cancel_in(const struct view *v, const struct view_exec *x) {
  for (size_t i = x ? x->first : 0; x && i < x->end; i++)
    if (ock__is_kind(v->e[i], OCK_ENTRY_CANCEL))
      return 1;
  return 0;
}

/* modified: the data.<key> a modify reply to event carried, or NULL. */
static const cJSON *modified(const cJSON *event, const char *key) {
  if (!event || strcmp(ock__event_action(event), OCK_PV_HOOK_RESULT_ACTION_MODIFY))
    return NULL;
  return cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(ock__event_reply(event), "data"), key);
}

/* The cap of a result text compared; a longer error.message or tool name is not judged. */

/* failure_text: the result text fed back for a ToolResult with success false is exactly
 * "Error: <error.message>", or "Error: unknown error" without a message (SPEC.md 5.11,
 * OCK-TEXT-002). */
static void failure_text(struct grade_ctx *g, const struct call_fate *f, const cJSON *result) {
  const char *msg = ock_json_str(cJSON_GetObjectItemCaseSensitive(result, "error"), "message");
  char want[OCK_MAX_RESULT_TEXT];
  int len = snprintf(want, sizeof want, "Error: %s", msg && *msg ? msg : "unknown error");
  if (len >= 0 && (size_t)len < sizeof want)
    ock__text_of_result(g, CK_TEXT_TOOL_FAILURE, f, want, 0);
}

/* unknown_text: "Error: tool '<name>' not found" (SPEC.md 5.11, OCK-TEXT-001), <name> the
 * model's name for the call, or the one a tool:selecting modify gave it. */
static void unknown_text(struct grade_ctx *g, const struct call_fate *f, const char *name) {
  char want[OCK_MAX_RESULT_TEXT];
  size_t j;
  const cJSON *next = ock__next_request_after(g->v, f->reply_index, &j);
  const char *text = next ? ock__request_result_text(next, ock__call_id(f)) : NULL;
  int len = snprintf(want, sizeof want, "Error: tool '%s' not found", name);
  if (text && strcmp(name, ock__call_name(f)) && strcmp(text, want))
    len = snprintf(want, sizeof want, "Error: tool '%s' not found", ock__call_name(f));
  if (len >= 0 && (size_t)len < sizeof want)
    ock__text_of_result(g, CK_TEXT_UNKNOWN_TOOL, f, want, 0);
}

/* tool_unknown: a call to a tool the session does not have (OCK-TOOL-001). */
static void tool_unknown(struct grade_ctx *g, const struct call_fate *f, const char *name) {
  const struct view *v = g->v;
  const char *id = ock__call_id(f);
  long rseq = ock__entry_seq(f->reply);
  /* The loop goes on: not_found is no fail_fast failure (SPEC.md 5.7). */
  const char *owed = ock__call_not_fed_back(v, f, 1);
  int typed = f->error && !strcmp(ock__fate_error_type(f), OCK_PV_TOOL_ERROR_ERROR_TYPE_NOT_FOUND);
  ock__grade_emit(g, CK_TOOL_UNKNOWN, !f->start && typed && !owed,
                  f->error   ? ock__entry_seq(f->error)
                  : f->start ? ock__entry_seq(f->start)
                             : rseq,
                  "unknown tool: tool:error not_found, the endpoint never called, a result, the "
                  "loop goes on",
                  "call %s to unknown tool \"%.40s\": %s", id, name,
                  f->start    ? "the tool endpoint was called"
                  : !f->error ? "no tool:error"
                  : !typed    ? ock__fate_error_type(f)
                  : owed      ? owed
                              : "not_found, answered");
  unknown_text(g, f, name);
}

/* tool_invalid_arguments: a call whose input, sent, is no JSON object (OCK-TOOL-005). args:
 * the model's arguments, parsed. */
static void tool_invalid_arguments(struct grade_ctx *g, const struct call_fate *f,
                                   const cJSON *args, const cJSON *sent) {
  const struct view *v = g->v;
  const char *id = ock__call_id(f);
  long rseq = ock__entry_seq(f->reply);
  const char *owed = ock__call_not_fed_back(v, f, 0);
  int typed =
      f->error && !strcmp(ock__fate_error_type(f), OCK_PV_TOOL_ERROR_ERROR_TYPE_INVALID_ARGUMENTS);
  ock__grade_emit(g, CK_TOOL_INVALID_ARGUMENTS, !f->start && typed && !owed,
                  f->error ? ock__entry_seq(f->error) : rseq,
                  "arguments that are not a JSON object: not run, tool:error invalid_arguments, a "
                  "result",
                  "call %s with %s \"%.40s\": %s", id,
                  sent == args ? "arguments" : "an sent after a modify of", ock__call_args(f),
                  f->start    ? "the tool was run"
                  : !f->error ? "no tool:error"
                  : !typed    ? ock__fate_error_type(f)
                  : owed      ? owed
                              : "invalid_arguments, answered");
  ock__text_of_result(g, CK_TEXT_INVALID_ARGUMENTS, f, "Error: invalid arguments: ", 1);
}

/* tool_token_limit: a call of a reply that stopped at the output token limit, its arguments
 * maybe cut short even when they parse, is not run unless a modify replaced them (SPEC.md 5.8
 * step 1, OCK-TOOL-005). */
static void tool_token_limit(struct grade_ctx *g, const struct call_fate *f) {
  const char *id = ock__call_id(f);
  const char *owed = ock__call_not_fed_back(g->v, f, 0);
  int typed =
      f->error && !strcmp(ock__fate_error_type(f), OCK_PV_TOOL_ERROR_ERROR_TYPE_INVALID_ARGUMENTS);
  ock__grade_emit(g, CK_TOOL_TOKEN_LIMIT, !f->start && typed && !owed,
                  f->start   ? ock__entry_seq(f->start)
                  : f->error ? ock__entry_seq(f->error)
                             : ock__entry_seq(f->reply),
                  "a call of a reply cut at the output token limit: not run, tool:error "
                  "invalid_arguments, a result",
                  "call %s of a reply that stopped on \"%.20s\", arguments \"%.40s\": %s", id,
                  ock_json_str(f->reply, OCK_F_LLM_REPLY_FINISH_REASON), ock__call_args(f),
                  f->start    ? "the tool was run"
                  : !f->error ? "no tool:error"
                  : !typed    ? ock__fate_error_type(f)
                  : owed      ? owed
                              : "invalid_arguments, answered");
  ock__text_of_result(g, CK_TEXT_INVALID_ARGUMENTS, f, "Error: invalid arguments: ", 1);
}

/* tool_invalid_arguments_replaced: a modify replaced arguments that were not an object with an
 * object, sent: step 5 finds an object, so the tool runs with it (SPEC.md 5.8, OCK-TOOL-005). */
static void tool_invalid_arguments_replaced(struct grade_ctx *g, const struct call_fate *f,
                                            const cJSON *sent) {
  const char *id = ock__call_id(f);
  long rseq = ock__entry_seq(f->reply);
  const cJSON *got = f->start ? cJSON_GetObjectItemCaseSensitive(f->start, "input") : NULL;
  int ok = got && cJSON_Compare(got, sent, 1);
  ock__grade_emit(g, CK_TOOL_INVALID_ARGUMENTS, ok,
                  f->start   ? ock__entry_seq(f->start)
                  : f->error ? ock__entry_seq(f->error)
                             : rseq,
                  "arguments a modify replaced with an object: the tool runs with that object",
                  "call %s with arguments \"%.40s\": %s", id, ock__call_args(f),
                  got        ? (ok ? "run with the modified input" : "run with another input")
                  : f->error ? ock__fate_error_type(f)
                             : "not run");
}

/* tool_input: the tool receives the model's arguments, args, as its input (OCK-TOOL-004). */
static void tool_input(struct grade_ctx *g, const struct call_fate *f, const cJSON *args) {
  const char *id = ock__call_id(f);
  const cJSON *input = cJSON_GetObjectItemCaseSensitive(f->start, "input");
  int same = cJSON_Compare(input, args, 1);
  ock__grade_emit(g, CK_TOOL_INPUT, same, ock__entry_seq(f->start),
                  "the tool receives the model's arguments as its input",
                  "call %s: arguments %.80s, tool input %.80s", id, ock__call_args(f),
                  cJSON_IsObject(input) ? "(different object)" : "(not an object)");
}

/* name_and_input judges the call's name and input after the hooks changed them (SPEC.md 5.8
 * steps 2 and 3 come before the checks of steps 4 and 5). name: the name after a modify. */
static void name_and_input(struct grade_ctx *g, const struct call_fate *f, const char *name,
                           int cancelled) {
  const struct view *v = g->v;
  int known = ock__session_has_tool(v, name);
  /* Empty arguments mean {} (SPEC.md 5). */
  cJSON *args = *ock__call_args(f) ? cJSON_Parse(ock__call_args(f)) : cJSON_CreateObject();
  const cJSON *sent = args, *m;
  if ((m = modified(f->selecting, "tool_input")) != NULL)
    sent = m;
  if ((m = modified(f->pre, "tool_input")) != NULL)
    sent = m;
  int args_ok = cJSON_IsObject(sent);
  int cut = ock_finish_is_token_limit(ock_json_str(f->reply, OCK_F_LLM_REPLY_FINISH_REASON));
  int steered = denied_or_modified(f->pre) || denied_or_modified(f->selecting);
  /* A veto (steps 2 and 3) comes before the name and input are looked at. */
  int vetoed =
      (f->selecting && ock__event_denied(f->selecting)) || (f->pre && ock__event_denied(f->pre));

  if (vetoed) {
    /* judged by the HOOK checks */
  } else if (!known) {
    tool_unknown(g, f, name);
  } else if (cut && sent == args) {
    tool_token_limit(g, f);
  } else if (!args_ok) {
    tool_invalid_arguments(g, f, args, sent);
  } else if (sent != args && (!cJSON_IsObject(args) || cut) && !cancelled) {
    tool_invalid_arguments_replaced(g, f, sent);
  } else if (f->start && !steered) {
    tool_input(g, f, args);
  }
  cJSON_Delete(args);
}

/* abandoned_at_sigint: the harness's SIGINT came while call f ran, and the SUT did not wait for
 * the reply (none came, or it had hung up): the call was abandoned on cancellation. */
static int abandoned_at_sigint(const struct view *v, const struct call_fate *f) {
  if (!f->start || (f->end && !ock_json_bool(f->end, OCK_F_TOOL_END_CLIENT_GONE, 0)))
    return 0;
  long start = ock__entry_seq(f->start), end = f->end ? ock__entry_seq(f->end) : -1;
  for (size_t i = f->start_index; i < v->n; i++) {
    long seq = ock__entry_seq(v->e[i]);
    if (end >= 0 && seq > end)
      break;
    if (seq > start && ock__is_kind(v->e[i], OCK_ENTRY_CANCEL))
      return 1;
  }
  return 0;
}

/* tool_timeout: a tool that did not answer within tool_timeout_ms is a timeout; one that did is
 * not (OCK-TOOL-003). A call abandoned on cancellation (tool:error cancelled, or a call the SUT
 * stopped waiting for once the SIGINT came) is the CANCEL checks' to judge. */
static void tool_timeout(struct grade_ctx *g, const struct call_fate *f, int cancelled) {
  const struct view *v = g->v;
  const char *id = ock__call_id(f);
  if (cancelled && abandoned_at_sigint(v, f))
    return;
  if (f->start &&
      !(f->error && !strcmp(ock__fate_error_type(f), OCK_PV_TOOL_ERROR_ERROR_TYPE_CANCELLED))) {
    double limit = (double)v->cfg.tool_timeout_ms;
    /* A reply the SUT no longer waited for (client_gone) was never received: no answer. */
    int answered = f->end && !ock_json_bool(f->end, OCK_F_TOOL_END_CLIENT_GONE, 0);
    double took = answered ? ock__entry_time(f->end) - ock__entry_time(f->start) : -1;
    int said_timeout =
        f->error && !strcmp(ock__fate_error_type(f), OCK_PV_TOOL_ERROR_ERROR_TYPE_TIMEOUT);
    if (took < 0 || took > limit + 200) {
      const char *owed = ock__call_not_fed_back(v, f, 0);
      ock__grade_emit(g, CK_TOOL_TIMEOUT, said_timeout && !owed,
                      f->error ? ock__entry_seq(f->error) : ock__entry_seq(f->start),
                      "a tool that does not answer within tool_timeout_ms: tool:error timeout, a "
                      "result",
                      "tool %s %s (tool_timeout_ms %.0f): %s", id,
                      took < 0 ? "never answered" : "answered late", limit,
                      !said_timeout ? "not reported as timeout"
                      : owed        ? owed
                                    : "reported as timeout, answered");
      if (!cancelled)
        ock__text_of_result(g, CK_TEXT_ENDPOINT_FAILURE, f, "Error: ", 1);
    } else if (said_timeout && took < limit - 50)
      ock__grade_emit(
          g, CK_TOOL_TIMEOUT, 0, ock__entry_seq(f->error),
          "timeout only when the tool took longer than tool_timeout_ms",
          "tool %s answered in %.0f ms, under tool_timeout_ms %.0f, yet reported timeout", id, took,
          limit);
  }
}

/* tool_endpoint_failure: any non-2xx reply of the endpoint (SPEC.md 7) is a tool:error
 * execution_failed or timeout (OCK-TOOL-003). */
static void tool_endpoint_failure(struct grade_ctx *g, const struct call_fate *f, long status,
                                  int cancelled) {
  const struct view *v = g->v;
  const char *id = ock__call_id(f);
  const char *t = ock__fate_error_type(f);
  const char *owed = ock__call_not_fed_back(v, f, 0);
  int typed = f->error && (!strcmp(t, OCK_PV_TOOL_ERROR_ERROR_TYPE_EXECUTION_FAILED) ||
                           !strcmp(t, OCK_PV_TOOL_ERROR_ERROR_TYPE_TIMEOUT));
  /* Over MCP the status never reaches the client: the failure arrives as a CallToolResult with
   * isError true, the same as a ToolResult with success false, so a tool:post reporting the
   * failure is as right there (SPEC.md 7.10). */
  int via_mcp = !strcmp(ock__str_field(f->end, "via"), "mcp");
  int mcp_post = via_mcp && f->post && !f->error &&
                 !ock_json_bool(ock__pf(f->post, OCK_FIELD_RESULT), "success", 1);
  ock__grade_emit(g, CK_TOOL_ENDPOINT_FAILURE, (mcp_post || (typed && !f->post)) && !owed,
                  f->error ? ock__entry_seq(f->error) : ock__entry_seq(f->end),
                  "a failing tool endpoint (non-2xx): tool:error execution_failed or timeout, a "
                  "result",
                  "tool %s answered HTTP %ld: %s", id, status,
                  f->post     ? "reported with tool:post"
                  : !f->error ? "no tool:error"
                  : !typed    ? t
                  : owed      ? owed
                              : t);
  if (!cancelled)
    ock__text_of_result(g, CK_TEXT_ENDPOINT_FAILURE, f, "Error: ", 1);
}

/* failure_reported: the result fed back for a ToolResult with success false reports the failure:
 * it carries error.message, whatever else it says, not the output alone (OCK-TOOL-002; the exact
 * words are OCK-TEXT-002's). A failure without a message is judged by its words only. */
static void failure_reported(struct grade_ctx *g, const struct call_fate *f, const cJSON *result) {
  const char *msg = ock_json_str(cJSON_GetObjectItemCaseSensitive(result, "error"), "message");
  size_t j;
  const cJSON *next = ock__next_request_after(g->v, f->reply_index, &j);
  const char *text = next ? ock__request_result_text(next, ock__call_id(f)) : NULL;
  if (!msg || !*msg || !text)
    return;
  ock__grade_emit(g, CK_TOOL_FAILURE_REPORTED, strstr(text, msg) != NULL, ock__entry_seq(next),
                  "the result of a failed tool carries its error message",
                  "call %s: error.message \"%.60s\", result text \"%.80s\"", ock__call_id(f), msg,
                  text);
}

/* tool_failure_result: a result with success false is a tool:post and goes back to the model
 * (OCK-TOOL-002). */
static void tool_failure_result(struct grade_ctx *g, const struct call_fate *f,
                                const cJSON *result) {
  const struct view *v = g->v;
  const char *id = ock__call_id(f);
  /* Under fail_fast another call of the response may fail and end the execute. */
  int goes_on = v->cfg.error_strategy != OCK_ERROR_STRATEGY_FAIL_FAST;
  const char *owed = ock__call_not_fed_back(v, f, goes_on);
  int ok = f->post && !f->error && !owed;
  ock__grade_emit(g, CK_TOOL_FAILURE_RESULT, ok,
                  f->post ? ock__entry_seq(f->post) : ock__entry_seq(f->end),
                  "success:false: tool:post with the result, a result fed back, and the loop goes "
                  "on",
                  "tool %s returned success:false: %s%s%s", id,
                  f->post    ? OCK_EV_TOOL_POST
                  : f->error ? OCK_EV_TOOL_ERROR
                             : "no event",
                  owed ? "; " : "", owed ? owed : "");
  failure_reported(g, f, result);
  failure_text(g, f, result);
}

/* tool_result_content: the result text sent back carries the tool's output (OCK-TOOL-006). */
static void tool_result_content(struct grade_ctx *g, const struct call_fate *f,
                                const cJSON *result) {
  const struct view *v = g->v;
  const char *id = ock__call_id(f);
  const cJSON *out = cJSON_GetObjectItemCaseSensitive(result, "output");
  size_t j;
  const cJSON *req = ock__next_request_after(v, f->start_index, &j);
  const char *text = req ? ock__request_result_text(req, id) : NULL;
  if (cJSON_IsString(out) && *out->valuestring && text)
    ock__grade_emit(g, CK_TOOL_RESULT_CONTENT, strstr(text, out->valuestring) != NULL,
                    ock__entry_seq(req), "the tool result sent back contains the tool's output",
                    "call %s: output \"%.60s\", result text \"%.60s\"", id, out->valuestring, text);
}

/* endpoint_reply judges what the tool endpoint answered a call it ran. */
static void endpoint_reply(struct grade_ctx *g, const struct call_fate *f, int cancelled) {
  if (f->end && f->start) {
    long status = (long)ock_json_int(f->end, OCK_F_TOOL_END_STATUS, 200);
    const cJSON *result = cJSON_GetObjectItemCaseSensitive(f->end, "reply");
    int success = ock_json_bool(result, "success", 1);
    if (status < 200 || status >= 300) /* any non-2xx reply of the endpoint (SPEC.md 7) */
      tool_endpoint_failure(g, f, status, cancelled);
    else if (!success)
      tool_failure_result(g, f, result);
    else
      tool_result_content(g, f, result);
  }
}

/* tool_event_fields: the call's tool events carry its tool_name (OCK-TOOL-007), the name after
 * a modify. */
static void tool_event_fields(struct grade_ctx *g, const struct call_fate *f, const char *name) {
  const char *id = ock__call_id(f);
  const cJSON *named = f->pre ? f->pre : f->error;
  if (named && !denied_or_modified(f->selecting)) {
    const char *tn = ock__pf_str(named, OCK_FIELD_TOOL_NAME);
    ock__grade_emit(g, CK_TOOL_EVENT_FIELDS, tn && !strcmp(tn, name), ock__entry_seq(named),
                    "tool events carry the call's tool_name",
                    "call %s to \"%.40s\": %s has \"%.40s\"", id, name, ock__event_name(named),
                    tn ? tn : "(no tool_name)");
  }
}

static void one_call(struct grade_ctx *g, const struct call_fate *f) {
  const char *name = ock__call_name(f);
  /* The name is judged after a tool:selecting modify changed it (SPEC.md 5.8 step 2). */
  const cJSON *new_name = modified(f->selecting, "tool");
  if (cJSON_IsString(new_name))
    name = new_name->valuestring;
  int cancelled = cancel_in(g->v, f->x);
  name_and_input(g, f, name, cancelled);
  tool_timeout(g, f, cancelled);
  endpoint_reply(g, f, cancelled);
  tool_event_fields(g, f, name);
}

/* ids_carried: every tool event carries its tool_call_id as the SUT sent it (OCK-TOOL-008). One
 * finding per scenario, whatever the number of events: the harness paired the id-less ones
 * (SPEC.md 4.6), and the requirements of safety are graded on that pairing. */
static void ids_carried(struct grade_ctx *g) {
  const struct view *v = g->v;
  size_t tool_events = 0, without = 0;
  long first = -1;
  for (size_t i = 0; i < v->n; i++) {
    const cJSON *e = v->e[i];
    if (!ock__is_kind(e, OCK_ENTRY_EVENT) ||
        !ock_event_is_tool(ock_event_parse(ock__event_name(e))))
      continue;
    tool_events++;
    if (ock_json_bool(e, OCK_F_EVENT_TOOL_CALL_ID_INFERRED, 0) ||
        !ock__pf_str(e, OCK_FIELD_TOOL_CALL_ID)) {
      if (!without++)
        first = ock__entry_seq(e);
    }
  }
  if (tool_events)
    ock__grade_emit(g, CK_TOOL_ID_CARRIED, without == 0, first,
                    "every tool event carries data.tool_call_id",
                    "%zu of %zu tool events without tool_call_id", without, tool_events);
}

void ock__check_tool(struct grade_ctx *g) {
  /* The grammar's tool event fields, graded where a scenario ran or failed a tool. */
  ock__grade_grammar(g, CK_TOOL_EVENT_FIELDS,
                     ock__view_saw_event(g->v, OCK_EV_TOOL_PRE) ||
                         ock__view_saw_event(g->v, OCK_EV_TOOL_ERROR));
  struct call_fate *fates = NULL;
  size_t n = ock__call_fates(g->v, &fates);
  for (size_t i = 0; i < n; i++)
    one_call(g, &fates[i]);
  free(fates);
  ids_carried(g);
}
