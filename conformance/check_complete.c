/*
 * check_complete.c: COMPLETE, the orchestrator:complete event: once per execute, last, with
 * its fields, a turn_count equal to the turns the mock served, and a status that matches what
 * the journal shows happened.
 */
#include <math.h>
#include <string.h>

#include "grade.h"
#include "ock/json.h"

static const char *const statuses[] = {"success", "incomplete", "cancelled", "error", NULL};

static int status_known(const char *s) {
  for (int i = 0; s && statuses[i]; i++)
    if (!strcmp(s, statuses[i]))
      return 1;
  return 0;
}

/* What the journal shows about one execute. */
struct happened {
  int cancelled;        /* the harness sent SIGINT during it */
  int denied;           /* a hook denied prompt:submit or provider:request */
  int failed_reply;     /* some LLM reply failed */
  int last_reply_ok;    /* the last LLM reply succeeded */
  int last_reply_final; /* ... and carried no tool calls */
  int requests;
  int wrapped_up; /* a max-iterations wrap-up request was made: status incomplete */
};

static void what_happened(const struct view *v, const struct view_exec *x, struct happened *h) {
  memset(h, 0, sizeof *h);
  for (size_t i = x->first; i < x->end; i++) {
    if (is_kind(v->e[i], "llm_request") && view_is_wrap_up(v, i)) {
      h->wrapped_up = 1;
      continue;
    }
    const cJSON *e = v->e[i];
    if (is_kind(e, "cancel") && (x->complete_seq < 0 || entry_seq(e) < x->complete_seq))
      h->cancelled = 1;
    if ((is_event(e, "prompt:submit") || is_event(e, "provider:request")) && event_denied(e))
      h->denied = 1;
    if (!is_kind(e, "llm_request"))
      continue;
    h->requests++;
    e = view_reply_of(v, i); /* the reply to this request, wherever it was journaled */
    if (e) {
      int failed = reply_failed(e);
      h->failed_reply |= failed;
      h->last_reply_ok = !failed;
      h->last_reply_final =
          !failed && cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(e, "tool_calls")) == 0;
    }
  }
}

void check_complete(struct grade_ctx *g) {
  const struct view *v = g->v;
  for (size_t k = 0; k < v->nx; k++) {
    const struct view_exec *x = &v->x[k];
    const cJSON *c = x->complete;
    if (!c)
      continue; /* complete.once (check_order) reports the absence */
    long seq = x->complete_seq;
    const char *orch = ock_json_str(c, "orchestrator");
    grade_emit(g, "complete.orchestrator", "OCK-COMPLETE-003", orch && *orch, seq,
               "orchestrator: a non-empty string", "%s",
               orch ? (*orch ? orch : "\"\"") : "missing or not a string");
    const char *status = ock_json_str(c, "status");
    grade_emit(g, "complete.status", "OCK-COMPLETE-004", status_known(status), seq,
               "status: success, incomplete, cancelled or error", "status %s",
               status ? status : "missing or not a string");

    const cJSON *tc = cJSON_GetObjectItemCaseSensitive(c, "turn_count");
    int turns = view_turns(v, x);
    int is_int =
        cJSON_IsNumber(tc) && tc->valuedouble >= 0 && tc->valuedouble == floor(tc->valuedouble);
    grade_emit(g, "complete.turn-count", "OCK-COMPLETE-005",
               is_int && (int)tc->valuedouble == turns, seq,
               "turn_count equals the LLM turns the mock served",
               "execute %d: turn_count %s%.0f, the mock served %d turn(s)", x->index,
               is_int ? "" : "(not a non-negative integer) ",
               cJSON_IsNumber(tc) ? tc->valuedouble : -1.0, turns);

    struct happened h;
    what_happened(v, x, &h);
    if (status_known(status)) {
      const char *why = NULL;
      if (!strcmp(status, "cancelled") && !h.cancelled)
        why = "status cancelled, but no SIGINT was sent during this execute";
      else if (!strcmp(status, "success") && h.wrapped_up)
        why = "status success, but the loop hit max_iterations (a wrap-up request was made)";
      else if (!strcmp(status, "success") && !(h.last_reply_ok && h.last_reply_final))
        why = "status success, but the last LLM reply was not a final answer";
      else if (!strcmp(status, "success") && h.denied)
        why = "status success, but a hook denied the prompt or a request";
      else if (!strcmp(status, "error") && h.last_reply_final && !h.failed_reply && !h.cancelled &&
               h.requests)
        why = "status error, but the execute ended with a final answer and no failure";
      else if (strcmp(status, "cancelled") && strcmp(status, "incomplete") && h.last_reply_final &&
               !h.failed_reply && !h.denied && !h.cancelled && !h.wrapped_up &&
               strcmp(status, "success"))
        why = "the execute ended with a final answer, so status should be success";
      grade_emit(g, "complete.status-matches", "OCK-COMPLETE-006", why == NULL, seq,
                 "status matches what happened", "execute %d: %s", x->index, why ? why : status);
    }
    if (status && !strcmp(status, "error")) {
      const cJSON *err = cJSON_GetObjectItemCaseSensitive(c, "error");
      int ok = cJSON_IsObject(err) && ock_json_str(err, "type") && ock_json_str(err, "message");
      grade_emit(g, "complete.error-object", "OCK-COMPLETE-007", ok, seq,
                 "error: {type, message} on status error", "%s",
                 ok ? "present" : "missing or incomplete");
    }
  }
}
