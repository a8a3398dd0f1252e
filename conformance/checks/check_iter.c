/*
 * check_iter.c: ITER, max_iterations: at most that many tool-loop turns, then one wrap-up
 * request that carries the reminder (role user, no tools) and is never stored; status
 * incomplete; the wrap-up reply's tool calls discarded (not run, no tool events, not stored).
 * The reminder's exact text (OCK-TEXT-006, SHOULD) is judged apart from the request's shape
 * (OCK-ITER-002): a reminder in other words fails only the text.
 */
#include <stdio.h>
#include <string.h>

#include "checks/grade.h"
#include "ock/contract.h"
#include "ock/json.h"

#define REMINDER_MARK "orchestrator-loop-limit"
/* The reminder of SPEC.md 5.5, exactly. */
#define REMINDER_TEXT                                                                              \
  "<system-reminder source=\"orchestrator-loop-limit\">\nYou have reached the maximum number "     \
  "of iterations for this turn. Please provide a response to the user now, summarizing your "      \
  "progress and noting what remains to be done.\n</system-reminder>"

/* ends_with_reminder: text is the reminder, or ends with it (merged into the user message that
 * carries the tool results, as SPEC.md 5.5 allows on the Anthropic wire). */
static int ends_with_reminder(const char *text) {
  size_t n = strlen(text), k = strlen(REMINDER_TEXT);
  return n >= k && !strcmp(text + n - k, REMINDER_TEXT);
}

static int carries_reminder(const cJSON *request) {
  const cJSON *m;
  cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(request, OCK_F_LLM_REQUEST_NEUTRAL))
    if (strstr(ock__str_field(m, "content"), REMINDER_MARK))
      return 1;
  return 0;
}

/* carries_text: some message of the request's neutral history contains text. */
static int carries_text(const cJSON *request, const char *text) {
  const cJSON *m;
  cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(request, OCK_F_LLM_REQUEST_NEUTRAL)) {
    if (strstr(ock__str_field(m, "content"), text))
      return 1;
  }
  return 0;
}

/* own_reminder: the reminder in the SUT's own words, so that OCK-ITER-004 holds whatever the
 * wording (OCK-TEXT-006 judges the wording apart): the text of the wrap-up request's last user
 * message when it is new there. NULL when it is empty, carries the mark of SPEC.md 5.5
 * (carries_reminder finds it), was sent before the wrap-up request (a prompt), or was injected
 * by a hook (a kept injection may be stored). */
static const char *own_reminder(const struct view *v, size_t wrap, const char *content) {
  if (!*content || strstr(content, REMINDER_MARK))
    return NULL;
  for (size_t i = 0; i < v->n; i++) {
    const cJSON *e = v->e[i];
    if (i < wrap && ock__is_kind(e, OCK_ENTRY_LLM_REQUEST) && carries_text(e, content))
      return NULL;
    const char *injected =
        ock__is_kind(e, OCK_ENTRY_EVENT) &&
                !strcmp(ock__event_action(e), OCK_PV_HOOK_RESULT_ACTION_INJECT_CONTEXT)
            ? ock_json_str(ock__event_reply(e), "context_injection")
            : NULL;
    if (injected && *injected && strstr(content, injected))
      return NULL;
  }
  return content;
}

/* history_holds_call: request's neutral history has an assistant tool call with that id. */
static int history_holds_call(const cJSON *request, const char *id) {
  const cJSON *m, *c;
  cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(request, OCK_F_LLM_REQUEST_NEUTRAL))
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(m, "tool_calls"))
      if (!strcmp(ock__str_field(c, "id"), id))
        return 1;
  return 0;
}

/* wrap_up_calls_discarded: no entry after the wrap-up request at index w runs, announces or
 * stores a tool call of its reply (SPEC.md 5.5, OCK-ITER-005). */
static void wrap_up_calls_discarded(struct grade_ctx *g, const struct view_exec *x, size_t w) {
  const struct view *v = g->v;
  const cJSON *calls =
      cJSON_GetObjectItemCaseSensitive(ock__view_reply_of(v, w), OCK_F_LLM_REPLY_TOOL_CALLS);
  if (cJSON_GetArraySize(calls) == 0)
    return;
  const cJSON *call;
  cJSON_ArrayForEach(call, calls) {
    const char *id = ock__str_field(call, "id");
    if (!*id)
      continue;
    for (size_t i = w + 1; i < v->n; i++) {
      const cJSON *e = v->e[i];
      const char *what = NULL;
      if (ock__is_kind(e, OCK_ENTRY_EVENT) && !strncmp(ock__event_name(e), "tool:", 5) &&
          ock__pf_is(e, OCK_FIELD_TOOL_CALL_ID, id))
        what = ock__event_name(e);
      else if (ock__is_kind(e, OCK_ENTRY_TOOL_START) &&
               !strcmp(ock__str_field(e, OCK_F_TOOL_START_TOOL_CALL_ID), id))
        what = "the tool run";
      else if (ock__is_kind(e, OCK_ENTRY_LLM_REQUEST) && history_holds_call(e, id))
        what = "a later request's history";
      if (what) {
        ock__grade_emit(g, CK_ITER_WRAP_UP_CALLS_DISCARDED, 0, ock__entry_seq(e),
                        "the wrap-up reply's tool calls are not run, announced or stored",
                        "execute %d: wrap-up call %.60s (%.60s) appears in %s", x->index, id,
                        ock__str_field(call, "name"), what);
        return;
      }
    }
  }
  ock__grade_emit(g, CK_ITER_WRAP_UP_CALLS_DISCARDED, 1, ock__entry_seq(v->e[w]),
                  "the wrap-up reply's tool calls are not run, announced or stored", "as expected");
}

/* The most LLM turns of an execute the checks keep apart (max_iterations above 60 is not
 * judged). */
#define MAX_TURNS 64

/* find_turns: the entry indexes of execute x's turns, each the first request of a turn (a
 * request after a failed one is a retry of the same turn), at most MAX_TURNS of them. Returns
 * the number of turns. */
static int find_turns(const struct view *v, const struct view_exec *x, size_t *turn_req) {
  int turns = 0;
  const cJSON *prev = NULL;
  int have_prev = 0;
  for (size_t i = x->first; i < x->end; i++) {
    if (!ock__is_kind(v->e[i], OCK_ENTRY_LLM_REQUEST))
      continue;
    if (!have_prev || !ock__reply_failed(prev)) {
      if (turns < MAX_TURNS)
        turn_req[turns] = i;
      turns++;
    }
    have_prev = 1;
    prev = ock__view_reply_of(v, i);
  }
  return turns;
}

/* iter_status: status incomplete, reason max_iterations, turn_count max_iterations + 1 when the
 * limit ended the loop, status error if the wrap-up failed (SPEC.md 5.5, OCK-ITER-003). */
static void iter_status(struct grade_ctx *g, const struct view_exec *x, const size_t *turn_req,
                        int turns, long long max) {
  const struct view *v = g->v;
  const cJSON *c = x->complete_entry;
  /* A wrap-up request that fails ends the execute with error (SPEC.md 5). */
  const cJSON *wrap_reply = turns == max + 1 ? ock__view_reply_of(v, turn_req[max]) : NULL;
  const char *want =
      wrap_reply && ock__reply_failed(wrap_reply) ? OCK_PV_STATUS_ERROR : OCK_PV_STATUS_INCOMPLETE;
  /* Reason max_iterations with incomplete, and turn_count max_iterations + 1 (SPEC.md 5.5). */
  const char *reason = ock__pf_str(c, OCK_FIELD_REASON);
  long long counted = ock__pf_int(c, OCK_FIELD_TURN_COUNT, -1);
  char shown[48]; /* an absent turn_count says so, not -1 */
  if (ock__pf(c, OCK_FIELD_TURN_COUNT))
    snprintf(shown, sizeof shown, "%g", ock__pf_num(c, OCK_FIELD_TURN_COUNT, 0));
  else
    snprintf(shown, sizeof shown, "%s", ock__pf_show(c, OCK_FIELD_TURN_COUNT));
  int status_ok =
      ock__pf_is(c, OCK_FIELD_STATUS, want) &&
      (strcmp(want, OCK_PV_STATUS_INCOMPLETE) ||
       ock__pf_is(c, OCK_FIELD_REASON, OCK_PV_ORCHESTRATOR_COMPLETE_REASON_MAX_ITERATIONS)) &&
      (turns != max + 1 || counted == max + 1);
  ock__grade_emit(
      g, CK_ITER_STATUS, status_ok, x->complete_seq,
      "status incomplete, reason max_iterations, turn_count max_iterations + 1 when the "
      "limit ended the loop (status error if the wrap-up failed)",
      "execute %d: status %s (expected %s), reason %s%.40s%s, turn_count %s", x->index,
      ock__pf_show(c, OCK_FIELD_STATUS), want, reason ? "\"" : "",
      reason ? reason : ock__pf_show(c, OCK_FIELD_REASON), reason ? "\"" : "", shown);
}

/* text_reminder: the wrap-up request wrap's last message, last, carries the reminder of
 * SPEC.md 5.5 verbatim (OCK-TEXT-006). */
static void text_reminder(struct grade_ctx *g, const cJSON *wrap, const cJSON *last) {
  const char *content = ock__str_field(last, "content");
  ock__grade_emit(g, CK_TEXT_REMINDER, ends_with_reminder(content), ock__entry_seq(wrap),
                  "the wrap-up request's last message carries the reminder of SPEC.md 5.5 verbatim",
                  "last message (role %s) %s: \"%s%.80s\"", ock__str_field(last, "role"),
                  ends_with_reminder(content)      ? "ends with the reminder"
                  : strstr(content, REMINDER_MARK) ? "carries an altered reminder"
                                                   : "does not carry the reminder",
                  strlen(content) > 80 ? "..." : "",
                  strlen(content) > 80 ? content + strlen(content) - 80 : content);
}

/* iter_reminder_not_stored: no request after the wrap-up request at index w of x carries the
 * reminder, in the words of SPEC.md 5.5 or in own, the SUT's own (OCK-ITER-004), but the retries
 * and fallbacks of the wrap-up request itself. */
static void iter_reminder_not_stored(struct grade_ctx *g, const struct view_exec *x, size_t w,
                                     const char *own) {
  const struct view *v = g->v;
  size_t prev = w;
  int in_wrap_up = 1; /* a retry or a fallback of the wrap-up request repeats it, reminder too */
  for (size_t i = w + 1; i < v->n; i++)
    if (ock__is_kind(v->e[i], OCK_ENTRY_LLM_REQUEST)) {
      in_wrap_up = in_wrap_up && i < x->end && ock__reply_failed(ock__view_reply_of(v, prev));
      prev = i;
      if (in_wrap_up)
        continue;
      int stored = carries_reminder(v->e[i]) || (own && carries_text(v->e[i], own));
      ock__grade_emit(
          g, CK_ITER_REMINDER_NOT_STORED, !stored, ock__entry_seq(v->e[i]),
          "the reminder (in any words: the wrap-up request's last user message) is never "
          "stored in the context",
          "request %ld %s the reminder", ock__entry_seq(v->e[i]),
          stored ? "still carries" : "does not carry");
    }
}

/* wrap_up judges the wrap-up request at entry index w of execute x: one user message last, no
 * tools (OCK-ITER-002), the reminder's words, its reply's calls discarded, the reminder never
 * stored. */
static void wrap_up(struct grade_ctx *g, const struct view_exec *x, size_t w) {
  const struct view *v = g->v;
  const cJSON *wrap = v->e[w];
  const cJSON *hist = cJSON_GetObjectItemCaseSensitive(wrap, OCK_F_LLM_REQUEST_NEUTRAL);
  const cJSON *last = cJSON_GetArrayItem(hist, cJSON_GetArraySize(hist) - 1);
  int ok = !strcmp(ock__str_field(last, "role"), "user") &&
           ock_json_int(wrap, OCK_F_LLM_REQUEST_TOOLS_OFFERED, 0) == 0;
  ock__grade_emit(g, CK_ITER_WRAP_UP, ok, ock__entry_seq(wrap),
                  "one wrap-up request: a user message last; no tools",
                  "last message role %s; %lld tools offered", ock__str_field(last, "role"),
                  ock_json_int(wrap, OCK_F_LLM_REQUEST_TOOLS_OFFERED, 0));
  text_reminder(g, wrap, last);
  wrap_up_calls_discarded(g, x, w);
  const char *content = ock__str_field(last, "content");
  const char *own =
      strcmp(ock__str_field(last, "role"), "user") ? NULL : own_reminder(v, w, content);
  iter_reminder_not_stored(g, x, w, own);
}

static void one_execute(struct grade_ctx *g, const struct view_exec *x, long long max) {
  const struct view *v = g->v;
  size_t turn_req[MAX_TURNS];
  int turns = find_turns(v, x, turn_req);
  if (max > 60 || turns == 0)
    return;
  const cJSON *last_loop_reply = ock__view_reply_of(v, turn_req[(turns < max ? turns : max) - 1]);
  int pending = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(
                    last_loop_reply, OCK_F_LLM_REPLY_TOOL_CALLS)) > 0;
  int reached = turns > max || (turns == max && pending);
  if (!reached && ock__pf_is(x->complete_entry, OCK_FIELD_REASON,
                             OCK_PV_ORCHESTRATOR_COMPLETE_REASON_MAX_ITERATIONS)) {
    /* The execute says the limit ended it, but it never made the limit's turns: a limit off
     * by one, which wrapped up early (SPEC.md 5.5). */
    ock__grade_emit(g, CK_ITER_STATUS, 0, x->complete_seq,
                    "reason max_iterations only when the limit ended the loop: max_iterations "
                    "turns with tools, then the wrap-up",
                    "execute %d: reason max_iterations after %d turn(s) with max_iterations %lld "
                    "(the limit ends the loop at turn %lld)",
                    x->index, turns, max, max + 1);
    return;
  }
  if (!reached)
    return; /* the limit was not reached in this execute, or the model answered on its last turn */
  ock__grade_emit(g, CK_ITER_LIMIT, turns <= max + 1, x->complete_seq,
                  "at most max_iterations turns, plus one wrap-up",
                  "execute %d: %d turns with max_iterations %lld", x->index, turns, max);
  iter_status(g, x, turn_req, turns, max);
  if (turns == max + 1)
    wrap_up(g, x, turn_req[max]);
  else
    ock__grade_emit(g, CK_ITER_WRAP_UP, 0, x->complete_seq,
                    "one wrap-up request after the last allowed turn",
                    "execute %d: no wrap-up request", x->index);
}

void ock__check_iter(struct grade_ctx *g) {
  long long max = g->v->cfg.max_iterations;
  if (max <= 0)
    return;
  for (size_t k = 0; k < g->v->nx; k++)
    one_execute(g, &g->v->x[k], max);
}
