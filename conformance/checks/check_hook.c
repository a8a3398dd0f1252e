/*
 * check_hook.c: HOOK, what the SUT does with the HookResult the mock replied to an event:
 * deny stops the prompt, the request or the tool; inject_context shows up in the next request
 * (and later ones when kept) and never between a tool call and its results; modify is applied
 * by value; ask_user, with no approval system, is a deny. The texts a deny leaves, the response
 * "Denied: <reason>" and the result "Error: denied: <reason>" (OCK-TEXT-009, OCK-TEXT-005,
 * SHOULD), are judged here under their own requirements, so other words fail no MUST.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/grade.h"
#include "ock/caps.h"
#include "ock/contract.h"
#include "ock/json.h"
#include "model/view_calls.h"

/* message_index_containing: the index in the request's neutral history of the first message
 * whose content contains text, or -1. */
static int message_index_containing(const cJSON *request, const char *text) {
  int i = 0;
  const cJSON *m;
  cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(request, OCK_F_LLM_REQUEST_NEUTRAL)) {
    if (strstr(ock__str_field(m, "content"), text))
      return i;
    i++;
  }
  return -1;
}

/* splits_a_call: message m sits between an assistant tool-call message and one of its results. */
static int splits_a_call(const cJSON *request, int m) {
  const cJSON *hist = cJSON_GetObjectItemCaseSensitive(request, OCK_F_LLM_REQUEST_NEUTRAL);
  int n = cJSON_GetArraySize(hist);
  for (int a = 0; a < m; a++) {
    const cJSON *c;
    cJSON_ArrayForEach(
        c, cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(hist, a), "tool_calls")) {
      for (int r = m + 1; r < n; r++) {
        const cJSON *res = cJSON_GetArrayItem(hist, r);
        if (!strcmp(ock__str_field(res, "role"), "tool") &&
            !strcmp(ock__str_field(res, "tool_call_id"), ock__str_field(c, "id")))
          return 1;
      }
    }
  }
  return 0;
}

static int requests_between(const struct view *v, size_t from, size_t to) {
  int n = 0;
  for (size_t i = from; i < to && i < v->n; i++)
    n += ock__is_kind(v->e[i], OCK_ENTRY_LLM_REQUEST);
  return n;
}

/* deny_reason: the <reason> of SPEC.md 5.6 for the deny (or ask_user) reply to event e. */
static const char *deny_reason(const cJSON *e) {
  const char *why = ock__str_field(ock__event_reply(e), "reason");
  if (!strcmp(ock__event_action(e), OCK_PV_HOOK_RESULT_ACTION_ASK_USER))
    return "No approval system available";
  return *why ? why : "no reason given";
}

/* denial_seen writes into seen how the execute x ended after a deny: its reason and the
 * response of its prompt:complete. Returns that prompt:complete, or NULL. */
static const cJSON *denial_seen(const struct view *v, const struct view_exec *x, char *seen,
                                size_t n) {
  const cJSON *pc = NULL;
  for (size_t i = x->first; i < x->end && !pc; i++)
    if (ock__is_event(v->e[i], OCK_EV_PROMPT_COMPLETE))
      pc = v->e[i];
  const char *response = ock__pf_str(pc, OCK_FIELD_RESPONSE);
  const char *reason = ock__pf_str(x->complete_entry, OCK_FIELD_REASON);
  snprintf(seen, n, "reason %s%.40s%s, prompt:complete %s%.80s%s", reason ? "\"" : "",
           reason ? reason : ock__pf_show(x->complete_entry, OCK_FIELD_REASON), reason ? "\"" : "",
           response ? "\"" : "",
           response ? response
           : pc     ? "without a string response"
                    : "(none)",
           response ? "\"" : "");
  return pc;
}

/* denied_as_spec: the execute x, denied at event e, ends as SPEC.md 5.6 says: reason denied and
 * a prompt:complete (pc, found by denial_seen) whose response, a non-empty string, reports the
 * denial; the exact text "Denied: <reason>" is OCK-TEXT-009's, judged here too. */
static int denied_as_spec(struct grade_ctx *g, const struct view_exec *x, const cJSON *e,
                          const cJSON *pc) {
  char want[OCK_MAX_DENY_TEXT];
  int len = snprintf(want, sizeof want, "Denied: %s", deny_reason(e));
  const char *response = ock__pf_str(pc, OCK_FIELD_RESPONSE);
  if (response && len >= 0 && (size_t)len < sizeof want) /* a longer reason is not judged */
    ock__grade_emit(g, CK_TEXT_DENIED_RESPONSE, !strcmp(response, want), ock__entry_seq(pc),
                    "the response after a deny is \"Denied: <reason>\" (SPEC.md 5.6)",
                    "execute %d: response \"%.80s\", expected \"%.80s\"", x->index, response, want);
  return ock__pf_is(x->complete_entry, OCK_FIELD_REASON,
                    OCK_PV_ORCHESTRATOR_COMPLETE_REASON_DENIED) &&
         response && *response;
}

/* hook_deny_submit: a deny (or ask_user) of the prompt:submit at entry index i of execute x
 * ends it before any LLM request, and the prompt is never stored (OCK-HOOK-001, -008). */
static void hook_deny_submit(struct grade_ctx *g, const struct view_exec *x, size_t i) {
  const struct view *v = g->v;
  const cJSON *e = v->e[i];
  const cJSON *c = x->complete_entry;
  int sent = requests_between(v, i, x->end);
  char seen[400];
  const cJSON *pc = denial_seen(v, x, seen, sizeof seen);
  int ok = !sent && ock__pf_is(c, OCK_FIELD_STATUS, OCK_PV_STATUS_INCOMPLETE) &&
           denied_as_spec(g, x, e, pc);
  ock__grade_emit(g, CK_HOOK_DENY_SUBMIT, ok, ock__entry_seq(e),
                  "deny on prompt:submit: no LLM request, status incomplete, reason denied, "
                  "prompt:complete with a response",
                  "execute %d: %d LLM request(s), status %s, %s", x->index, sent,
                  ock__pf_show(c, OCK_FIELD_STATUS), seen);
  if (!strcmp(ock__event_action(e), OCK_PV_HOOK_RESULT_ACTION_ASK_USER))
    ock__grade_emit(g, CK_HOOK_ASK_USER, ok, ock__entry_seq(e),
                    "ask_user, with no approval system, is a deny",
                    "ask_user on prompt:submit: %d LLM request(s), status %s", sent,
                    ock__pf_show(c, OCK_FIELD_STATUS));
  /* The denied prompt never entered the conversation: the next prompt's request shows it. */
  const cJSON *next = ock__next_first_request(v, x);
  const char *prompt = ock__pf_str(e, OCK_FIELD_PROMPT);
  if (next && prompt && *prompt)
    ock__grade_emit(g, CK_HOOK_DENY_SUBMIT_NOT_STORED, !ock__history_has_user_text(next, prompt),
                    ock__entry_seq(next), "a denied prompt is not stored in the context",
                    "the denied prompt of execute %d %s in the next request", x->index,
                    ock__history_has_user_text(next, prompt) ? "is" : "is not");
}

/* hook_deny_request: a deny (or ask_user) of the provider:request at entry index i of execute x
 * keeps that request from being sent and ends the execute (OCK-HOOK-002, -008). */
static void hook_deny_request(struct grade_ctx *g, const struct view_exec *x, size_t i) {
  const struct view *v = g->v;
  const cJSON *e = v->e[i];
  const cJSON *c = x->complete_entry;
  size_t stop = x->end;
  for (size_t j = i + 1; j < x->end; j++)
    if (ock__is_event(v->e[j], OCK_EV_PROVIDER_REQUEST) ||
        ock__is_event(v->e[j], OCK_EV_ORCHESTRATOR_COMPLETE)) {
      stop = j;
      break;
    }
  int sent = requests_between(v, i, stop);
  char seen[400];
  const cJSON *pc = denial_seen(v, x, seen, sizeof seen);
  int ok = !sent && ock__pf_is(c, OCK_FIELD_STATUS, OCK_PV_STATUS_INCOMPLETE) &&
           denied_as_spec(g, x, e, pc);
  ock__grade_emit(g, CK_HOOK_DENY_REQUEST, ok, ock__entry_seq(e),
                  "deny on provider:request: that request is not sent, status incomplete, reason "
                  "denied, prompt:complete with a response",
                  "execute %d: %d request(s) sent after the deny, status %s, %s", x->index, sent,
                  ock__pf_show(c, OCK_FIELD_STATUS), seen);
  if (!strcmp(ock__event_action(e), OCK_PV_HOOK_RESULT_ACTION_ASK_USER))
    ock__grade_emit(g, CK_HOOK_ASK_USER, ok, ock__entry_seq(e),
                    "ask_user, with no approval system, is a deny",
                    "ask_user on provider:request: %d request(s) sent, status %s", sent,
                    ock__pf_show(c, OCK_FIELD_STATUS));
}

/* deny_prompt_or_request judges a deny (or an ask_user, which is one) of prompt:submit or
 * provider:request; an ask_user is also reported under OCK-HOOK-008. */
static void deny_prompt_or_request(struct grade_ctx *g, size_t i) {
  const struct view_exec *x = ock__view_exec_of(g->v, i);
  if (!x)
    return;
  if (ock__is_event(g->v->e[i], OCK_EV_PROMPT_SUBMIT))
    hook_deny_submit(g, x, i);
  else
    hook_deny_request(g, x, i);
}

/* deny_tool: a call denied (or vetoed) at denied_at is not run, gets tool:error denied and a
 * result, and the loop goes on (SPEC.md 5.6); its text is OCK-TEXT-005's. */
static void deny_tool(struct grade_ctx *g, const struct call_fate *f, const cJSON *denied_at,
                      enum check_name check) {
  const char *owed = ock__call_not_fed_back(g->v, f, 1);
  int typed = f->error && !strcmp(ock__fate_error_type(f), OCK_PV_TOOL_ERROR_ERROR_TYPE_DENIED);
  ock__grade_emit(
      g, check, !f->start && typed && !owed, ock__entry_seq(denied_at),
      "a denied call is not run, gets tool:error denied and a result, and the loop goes on",
      "call %s (%s) denied at %s: %s", ock__call_id(f), ock__call_name(f),
      ock__event_name(denied_at),
      f->start    ? "the tool ran anyway"
      : !f->error ? "no tool:error"
      : !typed    ? ock__fate_error_type(f)
      : owed      ? owed
                  : "denied, answered");
  char want[OCK_MAX_DENY_TEXT];
  int len = snprintf(want, sizeof want, "Error: denied: %s", deny_reason(denied_at));
  if (len >= 0 && (size_t)len < sizeof want) /* a longer reason is not judged */
    ock__text_of_result(g, CK_TEXT_DENIED, f, want, 0);
}

/* ask_user_tool_not_run: an ask_user reply to tool:selecting or tool:pre (at) keeps the call
 * from running: nobody can approve it (OCK-HOOK-013, MUST). How the call is then reported and
 * answered is OCK-HOOK-008's, judged as for a deny. */
static void ask_user_tool_not_run(struct grade_ctx *g, const struct call_fate *f, const cJSON *at) {
  ock__grade_emit(g, CK_HOOK_ASK_USER_TOOL_NOT_RUN, !f->start,
                  f->start ? ock__entry_seq(f->start) : ock__entry_seq(at),
                  "a call whose tool hook replied ask_user is never run",
                  "call %s (%s), ask_user on %s: %s", ock__call_id(f), ock__call_name(f),
                  ock__event_name(at), f->start ? "the tool ran anyway" : "not run");
}

static void injections(struct grade_ctx *g) {
  const struct view *v = g->v;
  for (size_t i = 0; i < v->n; i++) {
    const cJSON *e = v->e[i];
    if (!ock__is_kind(e, OCK_ENTRY_EVENT) ||
        strcmp(ock__event_action(e), OCK_PV_HOOK_RESULT_ACTION_INJECT_CONTEXT))
      continue;
    const cJSON *reply = ock__event_reply(e);
    const char *text = ock_json_str(reply, "context_injection");
    if (!text || !*text)
      continue;
    int ephemeral = ock_json_bool(reply, "ephemeral", 0);
    enum check_name check = ephemeral ? CK_HOOK_INJECT_EPHEMERAL : CK_HOOK_INJECT_KEPT;
    size_t j;
    const cJSON *next = ock__next_request_after(v, i, &j);
    if (!next)
      continue;
    int at = message_index_containing(next, text);
    ock__grade_emit(g, check, at >= 0, ock__entry_seq(next), "the injection is in the next request",
                    "injection from %s (seq %ld) %s request %ld", ock__event_name(e),
                    ock__entry_seq(e), at >= 0 ? "is in" : "is missing from", ock__entry_seq(next));
    if (at >= 0)
      ock__grade_emit(
          g, CK_HOOK_INJECT_PLACEMENT, !splits_a_call(next, at), ock__entry_seq(next),
          "never between a tool call and its results", "injected message at messages[%d] %s", at,
          splits_a_call(next, at) ? "splits a tool call from its results" : "is placed well");
    for (size_t k = j + 1; k < v->n; k++) {
      if (!ock__is_kind(v->e[k], OCK_ENTRY_LLM_REQUEST))
        continue;
      int present = message_index_containing(v->e[k], text) >= 0;
      if (ephemeral ? present : !present) {
        ock__grade_emit(g, check, 0, ock__entry_seq(v->e[k]),
                        ephemeral ? "an ephemeral injection appears in the next request only"
                                  : "a kept injection appears in every later request",
                        "request %ld %s the injection from seq %ld", ock__entry_seq(v->e[k]),
                        present ? "still carries" : "lost", ock__entry_seq(e));
        break;
      }
    }
  }
}

static void modifications(struct grade_ctx *g, const struct call_fate *f) {
  if (f->pre && !strcmp(ock__event_action(f->pre), OCK_PV_HOOK_RESULT_ACTION_MODIFY) && f->start) {
    const cJSON *want = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(ock__event_reply(f->pre), "data"), "tool_input");
    if (want) {
      int same = cJSON_Compare(want, cJSON_GetObjectItemCaseSensitive(f->start, "input"), 1);
      ock__grade_emit(g, CK_HOOK_MODIFY_TOOL_PRE, same, ock__entry_seq(f->start),
                      "modify on tool:pre: the tool receives data.tool_input",
                      "call %s: the tool input %s the modified input", ock__call_id(f),
                      same ? "equals" : "differs from");
    }
  }
  if (f->selecting && !strcmp(ock__event_action(f->selecting), OCK_PV_HOOK_RESULT_ACTION_MODIFY)) {
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(ock__event_reply(f->selecting), "data");
    const char *tool = ock_json_str(data, "tool");
    if (tool) {
      const char *ran = f->start ? ock__str_field(f->start, "name") : "";
      const cJSON *sel = f->selected;
      /* A tool the session lacks is not run: step 4 of SPEC.md 5.8 makes it not_found. */
      int exists = ock__session_has_tool(g->v, tool);
      int ok = (exists ? f->start && !strcmp(ran, tool)
                       : !f->start && !strcmp(ock__fate_error_type(f),
                                              OCK_PV_TOOL_ERROR_ERROR_TYPE_NOT_FOUND)) &&
               ock__pf_is(sel, OCK_FIELD_SOURCE, OCK_PV_SOURCE_SCHEDULER) &&
               ock__pf_is(sel, OCK_FIELD_ORIGINAL_TOOL, ock__call_name(f));
      ock__grade_emit(
          g, CK_HOOK_SELECTING_MODIFY, ok,
          f->start ? ock__entry_seq(f->start) : ock__entry_seq(f->selecting),
          "modify on tool:selecting runs data.tool (not_found when the session lacks it); "
          "tool:selected names the scheduler",
          "call %s: asked for %s%s, ran \"%s\"%s%s, tool:selected source \"%s\"", ock__call_id(f),
          tool, exists ? "" : " (not in the session)", f->start ? ran : "(nothing)",
          f->error ? ", tool:error " : "", f->error ? ock__fate_error_type(f) : "",
          ock__pf_show(sel, OCK_FIELD_SOURCE));
    }
  }
}

/* selection_steps: in scenarios with config.mode events, a call that ran (tool:pre) went
 * through tool:selecting and tool:selected first (OCK-HOOK-010). The grammar accepts a
 * tool:pre straight after tool:selecting, so the missing step is this check's to see. */
static void selection_steps(struct grade_ctx *g, const struct call_fate *f) {
  if (!f->pre || g->v->cfg.mode != OCK_MODE_EVENTS)
    return;
  long pre = ock__entry_seq(f->pre);
  long selecting = f->selecting ? ock__entry_seq(f->selecting) : -1;
  long selected = f->selected ? ock__entry_seq(f->selected) : -1;
  int ok = selecting >= 0 && selecting < selected && selected < pre;
  ock__grade_emit(
      g, CK_HOOK_SELECTING_ORDER, ok, pre, "tool:selecting, then tool:selected, then tool:pre",
      "call %s: tool:selecting at %ld, tool:selected at %ld, tool:pre at %ld (-1: none)",
      ock__call_id(f), selecting, selected, pre);
}

void ock__check_hook(struct grade_ctx *g) {
  const struct view *v = g->v;
  /* The grammar's order of the selection events, graded where a scenario saw one. */
  ock__grade_grammar(g, CK_HOOK_SELECTING_ORDER, ock__view_saw_event(v, OCK_EV_TOOL_SELECTING));
  for (size_t i = 0; i < v->n; i++) {
    const cJSON *e = v->e[i];
    if ((ock__is_event(e, OCK_EV_PROMPT_SUBMIT) || ock__is_event(e, OCK_EV_PROVIDER_REQUEST)) &&
        ock__event_denied(e))
      deny_prompt_or_request(g, i);
  }
  struct call_fate *fates = NULL;
  size_t n = ock__call_fates(v, &fates);
  for (size_t i = 0; i < n; i++) {
    const struct call_fate *f = &fates[i];
    if (f->selecting &&
        !strcmp(ock__event_action(f->selecting), OCK_PV_HOOK_RESULT_ACTION_ASK_USER))
      ask_user_tool_not_run(g, f, f->selecting);
    else if (f->pre && !strcmp(ock__event_action(f->pre), OCK_PV_HOOK_RESULT_ACTION_ASK_USER))
      ask_user_tool_not_run(g, f, f->pre);
    if (f->selecting && ock__event_denied(f->selecting))
      deny_tool(g, f, f->selecting, CK_HOOK_SELECTING_DENY);
    else if (f->pre && !strcmp(ock__event_action(f->pre), OCK_PV_HOOK_RESULT_ACTION_DENY))
      deny_tool(g, f, f->pre, CK_HOOK_DENY_TOOL_PRE);
    else if (f->pre && !strcmp(ock__event_action(f->pre), OCK_PV_HOOK_RESULT_ACTION_ASK_USER))
      deny_tool(g, f, f->pre, CK_HOOK_ASK_USER);
    modifications(g, f);
    selection_steps(g, f);
  }
  free(fates);
  injections(g);
}
