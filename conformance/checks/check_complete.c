/*
 * check_complete.c: COMPLETE, the orchestrator:complete event: once per execute, last, with
 * its fields, a turn_count equal to the turns the mock served, and a status that matches what
 * the journal shows happened; the response prompt:complete and execution:end carry is the text
 * the mock really sent last, or after a deny a non-empty text (its wording is OCK-TEXT-009's).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checks/grade.h"
#include "ock/contract.h"
#include "ock/json.h"

/* The values of orchestrator:complete data.status, from the contract's shapes. */
static const char *const statuses[] = {
#define STATUS(ident, value) value,
    OCK_PV_STATUS_MAP(STATUS)
#undef STATUS
        NULL};

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
    if (ock__is_kind(v->e[i], OCK_ENTRY_LLM_REQUEST) && ock__view_is_wrap_up(v, i)) {
      h->wrapped_up = 1;
      continue;
    }
    const cJSON *e = v->e[i];
    if (ock__is_kind(e, OCK_ENTRY_CANCEL) &&
        (x->complete_seq < 0 || ock__entry_seq(e) < x->complete_seq))
      h->cancelled = 1;
    if ((ock__is_event(e, OCK_EV_PROMPT_SUBMIT) || ock__is_event(e, OCK_EV_PROVIDER_REQUEST)) &&
        ock__event_denied(e))
      h->denied = 1;
    if (!ock__is_kind(e, OCK_ENTRY_LLM_REQUEST))
      continue;
    h->requests++;
    e = ock__view_reply_of(v, i); /* the reply to this request, wherever it was journaled */
    if (e) {
      int failed = ock__reply_failed(e);
      h->failed_reply |= failed;
      h->last_reply_ok = !failed;
      h->last_reply_final =
          !failed &&
          cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(e, OCK_F_LLM_REPLY_TOOL_CALLS)) == 0;
    }
  }
}

/* expected_response: the execute's response as SPEC.md 5.4/5.6 define it, from what the mock
 * saw: the text of the last LLM reply the mock sent (the final answer or the wrap-up text),
 * borrowed from the journal. After a denied prompt:submit or provider:request it sets *denied
 * and returns NULL: any non-empty text reports the denial (its wording, "Denied: <reason>", is
 * OCK-TEXT-009's, judged with the deny). NULL too when the journal shows no response (no reply
 * reached the SUT). */
static const char *expected_response(const struct view *v, const struct view_exec *x, int *denied) {
  const cJSON *last = NULL;
  *denied = 0;
  for (size_t i = x->first; i < x->end; i++) {
    const cJSON *e = v->e[i];
    if ((ock__is_event(e, OCK_EV_PROMPT_SUBMIT) || ock__is_event(e, OCK_EV_PROVIDER_REQUEST)) &&
        ock__event_denied(e)) {
      *denied = 1;
      return NULL;
    }
    if (ock__is_kind(e, OCK_ENTRY_LLM_REQUEST))
      last = ock__view_reply_of(v, i);
  }
  const cJSON *text = cJSON_GetObjectItemCaseSensitive(last, "text");
  return last && !ock__reply_failed(last) && cJSON_IsString(text) ? text->valuestring : NULL;
}

/* The response carried by prompt:complete and execution:end against what the mock sent. */
static void check_response(struct grade_ctx *g, const struct view_exec *x) {
  const struct view *v = g->v;
  const cJSON *pc = NULL, *end = NULL;
  for (size_t i = x->first; i < x->end; i++) {
    if (ock__is_event(v->e[i], OCK_EV_PROMPT_COMPLETE) && !pc)
      pc = v->e[i];
    if (ock__is_event(v->e[i], OCK_EV_EXECUTION_END) && !end)
      end = v->e[i];
  }
  int denied;
  const char *expect = expected_response(v, x, &denied);
  const char *said = ock__pf_str(pc, OCK_FIELD_RESPONSE);
  if (pc && denied)
    ock__grade_emit(g, CK_COMPLETE_RESPONSE, said && *said, ock__entry_seq(pc),
                    "after a deny, prompt:complete data.response is a non-empty text",
                    "execute %d: response %s%.60s%s after a deny", x->index, said ? "\"" : "",
                    said ? said : "(not a string)", said ? "\"" : "");
  else if (pc && expect && ock__payload(pc, OCK_FIELD_RESPONSE).state != OCK_PAYLOAD_MISSING)
    /* A prompt:complete without response (Amplifier's loop-basic sends a preview) says nothing
     * wrong: the missing field is OCK-PROC-005's (SPEC.md 4.6). */
    ock__grade_emit(g, CK_COMPLETE_RESPONSE, said && !strcmp(said, expect), ock__entry_seq(pc),
                    "prompt:complete data.response is the text the mock sent last",
                    "execute %d: response \"%.60s\"%s, expected \"%.60s\"", x->index,
                    said ? said : "(not a string)", said && strlen(said) > 60 ? "..." : "", expect);
  if (!end)
    return;
  const cJSON *c = x->complete_entry;
  const cJSON *r = ock__pf(end, OCK_FIELD_RESPONSE);
  int ok;
  const char *what;
  if (ock__pf_is(c, OCK_FIELD_STATUS, OCK_PV_STATUS_CANCELLED) ||
      ock__pf_is(c, OCK_FIELD_STATUS, OCK_PV_STATUS_ERROR)) {
    ok = cJSON_IsNull(r);
    what = "null";
  } else if (said) {
    ok = cJSON_IsString(r) && !strcmp(r->valuestring, said);
    what = said;
  } else
    return; /* no prompt:complete to compare with: ORDER-004 reports it */
  ock__grade_emit(g, CK_COMPLETE_END_RESPONSE, ok, ock__entry_seq(end),
                  "execution:end data.response is prompt:complete's response (null on cancelled or "
                  "error)",
                  "execute %d (status %s): execution:end response %.60s%s%s, expected %.60s",
                  x->index, ock__pf_show(c, OCK_FIELD_STATUS), cJSON_IsString(r) ? "\"" : "",
                  cJSON_IsString(r) ? r->valuestring
                  : cJSON_IsNull(r) ? "null"
                                    : "(missing or not a string)",
                  cJSON_IsString(r) ? "\"" : "", what);
}

/* One orchestrator name per run: every event that carries data.orchestrator (cancel:*,
 * orchestrator:complete) carries the name the first of them did (SPEC.md 4.3.18). */
static void check_same_name(struct grade_ctx *g) {
  const struct view *v = g->v;
  const char *first = NULL;
  long first_seq = -1;
  for (size_t i = 0; i < v->n; i++) {
    const char *name = ock__pf_str(v->e[i], OCK_FIELD_ORCHESTRATOR);
    if (!ock__is_kind(v->e[i], OCK_ENTRY_EVENT) || !name || !*name)
      continue; /* a missing or empty name is complete.orchestrator's to report */
    if (!first) {
      first = name;
      first_seq = ock__entry_seq(v->e[i]);
      continue;
    }
    ock__grade_emit(g, CK_COMPLETE_SAME_ORCHESTRATOR, !strcmp(name, first), ock__entry_seq(v->e[i]),
                    "the same orchestrator name in every event of the run",
                    "%s carries \"%.40s\", seq %ld carried \"%.40s\"", ock__event_name(v->e[i]),
                    name, first_seq, first);
  }
}

static void complete_orchestrator(struct grade_ctx *g, const struct view_exec *x) {
  long seq = x->complete_seq;
  const char *orch = ock__pf_str(x->complete_entry, OCK_FIELD_ORCHESTRATOR);
  ock__grade_emit(g, CK_COMPLETE_ORCHESTRATOR, orch && *orch, seq,
                  "orchestrator: a non-empty string", "%s",
                  orch ? (*orch ? orch : "\"\"") : "missing or not a string");
}

static void complete_status(struct grade_ctx *g, const struct view_exec *x) {
  long seq = x->complete_seq;
  const char *status = ock__pf_str(x->complete_entry, OCK_FIELD_STATUS);
  ock__grade_emit(g, CK_COMPLETE_STATUS, status_known(status), seq,
                  "status: success, incomplete, cancelled or error", "status %s",
                  status ? status : "missing or not a string");
}

/* complete_turn_count: turn_count is the LLM turns the mock served (OCK-COMPLETE-005). */
static void complete_turn_count(struct grade_ctx *g, const struct view_exec *x) {
  const struct view *v = g->v;
  const cJSON *c = x->complete;
  long seq = x->complete_seq;
  /* read as sent, whatever its type: this check judges the value and says what came */
  const cJSON *tc = cJSON_GetObjectItemCaseSensitive(c, OCK_PF_TURN_COUNT);
  int turns = ock__view_turns(v, x);
  int is_int = cJSON_IsNumber(tc) && tc->valuedouble >= 0 && tc->valuedouble <= OCK_JSON_INT_MAX &&
               tc->valuedouble == floor(tc->valuedouble);
  char shown[64]; /* what was sent: never a placeholder number for an absent value */
  if (cJSON_IsNumber(tc))
    snprintf(shown, sizeof shown, "%g%s", tc->valuedouble,
             is_int ? "" : " (not a non-negative integer)");
  else
    snprintf(shown, sizeof shown, "%s", tc ? ock_json_type_name(tc) : "missing");
  ock__grade_emit(g, CK_COMPLETE_TURN_COUNT, is_int && tc->valuedouble == (double)turns, seq,
                  "turn_count equals the LLM turns the mock served",
                  "execute %d: turn_count %s, the mock served %d turn(s)", x->index, shown, turns);
}

/* complete_status_matches: a known status says what happened in the execute (OCK-COMPLETE-006). */
static void complete_status_matches(struct grade_ctx *g, const struct view_exec *x) {
  const struct view *v = g->v;
  long seq = x->complete_seq;
  const char *status = ock__pf_str(x->complete_entry, OCK_FIELD_STATUS);
  struct happened h;
  what_happened(v, x, &h);
  if (status_known(status)) {
    const char *why = NULL;
    if (!strcmp(status, OCK_PV_STATUS_CANCELLED) && !h.cancelled)
      why = "status cancelled, but no SIGINT was sent during this execute";
    else if (!strcmp(status, OCK_PV_STATUS_SUCCESS) && h.wrapped_up)
      why = "status success, but the loop hit max_iterations (a wrap-up request was made)";
    else if (!strcmp(status, OCK_PV_STATUS_SUCCESS) && !(h.last_reply_ok && h.last_reply_final))
      why = "status success, but the last LLM reply was not a final answer";
    else if (!strcmp(status, OCK_PV_STATUS_SUCCESS) && h.denied)
      why = "status success, but a hook denied the prompt or a request";
    else if (!strcmp(status, OCK_PV_STATUS_ERROR) && h.last_reply_final && !h.failed_reply &&
             !h.cancelled && h.requests)
      why = "status error, but the execute ended with a final answer and no failure";
    else if (strcmp(status, OCK_PV_STATUS_CANCELLED) && h.last_reply_final && !h.failed_reply &&
             !h.denied && !h.cancelled && !h.wrapped_up && strcmp(status, OCK_PV_STATUS_SUCCESS))
      why = "the execute ended with a final answer, no limit and no deny, so status should be "
            "success";
    ock__grade_emit(g, CK_COMPLETE_STATUS_MATCHES, why == NULL, seq, "status matches what happened",
                    "execute %d: %s", x->index, why ? why : status);
  }
}

static void complete_error_object(struct grade_ctx *g, const struct view_exec *x) {
  const cJSON *c = x->complete_entry;
  long seq = x->complete_seq;
  if (ock__pf_is(c, OCK_FIELD_STATUS, OCK_PV_STATUS_ERROR)) {
    const cJSON *err = ock__pf(c, OCK_FIELD_ERROR);
    int ok = cJSON_IsObject(err) && ock_json_str(err, "type") && ock_json_str(err, "message");
    ock__grade_emit(g, CK_COMPLETE_ERROR_OBJECT, ok, seq, "error: {type, message} on status error",
                    "%s", ok ? "present" : "missing or incomplete");
  }
}

void ock__check_complete(struct grade_ctx *g) {
  ock__grade_grammar(g, CK_COMPLETE_ONCE, 1); /* the grammar's rows of this group */
  ock__grade_grammar(g, CK_COMPLETE_LAST, 1);
  check_same_name(g);
  const struct view *v = g->v;
  for (size_t k = 0; k < v->nx; k++) {
    const struct view_exec *x = &v->x[k];
    if (!x->complete)
      continue; /* complete.once (the grammar's, above) reports the absence */
    complete_orchestrator(g, x);
    complete_status(g, x);
    complete_turn_count(g, x);
    check_response(g, x);
    complete_status_matches(g, x);
    complete_error_object(g, x);
  }
}
