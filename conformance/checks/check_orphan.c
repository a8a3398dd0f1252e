/*
 * check_orphan.c: ORPHAN, no tool call without its result. The mock's validator judges every
 * request's history as the real APIs do (findings A01..A08 in the journal); on top of that the
 * harness checks what only it can see: the assistant message the mock sent is still there in
 * the next request, with the model's own calls (names, order, arguments), and the history an
 * execute leaves behind is valid for the next prompt.
 */
#include <stdio.h>
#include <string.h>

#include "checks/grade.h"
#include "ock/contract.h"
#include "ock/json.h"

/* Each shape of a finding and the check it fails (its row names the requirement). */
static const struct {
  const char *shape;
  enum check_name check;
} shapes[] = {
    {"A01_UNMATCHED_TOOL_USE", CK_ORPHAN_RESULT_FOR_EVERY_CALL},
    {"A07_PARALLEL_MISSING_RESULT", CK_ORPHAN_RESULT_FOR_EVERY_CALL},
    {"A02_UNMATCHED_TOOL_RESULT", CK_ORPHAN_NO_RESULT_WITHOUT_CALL},
    {"A06_WRONG_TOOL_CALL_ID", CK_ORPHAN_NO_RESULT_WITHOUT_CALL},
    {"A03_INTERLEAVED_USER_MSG", CK_ORPHAN_RESULTS_ADJACENT},
    {"A04_INTERLEAVED_ASST_MSG", CK_ORPHAN_RESULTS_ADJACENT},
    {"A05_DUPLICATE_TOOL_CALL_ID", CK_ORPHAN_NO_DUPLICATES},
    {"A08_PARALLEL_WRONG_ORDER", CK_ORPHAN_CALL_ORDER},
};
#define N_SHAPES (sizeof shapes / sizeof shapes[0])

/* history_has_calls: the request's neutral history holds an assistant message with calls. */
static int history_has_calls(const cJSON *request) {
  const cJSON *m;
  cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(request, OCK_F_LLM_REQUEST_NEUTRAL))
    if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(m, "tool_calls")) > 0)
      return 1;
  return 0;
}

static int history_has_call_id(const cJSON *request, const char *id) {
  const cJSON *m, *c;
  cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(request, OCK_F_LLM_REQUEST_NEUTRAL))
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(m, "tool_calls"))
      if (!strcmp(ock__str_field(c, "id"), id))
        return 1;
  return 0;
}

static int history_has_result_id(const cJSON *request, const char *id) {
  const cJSON *m;
  cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(request, OCK_F_LLM_REQUEST_NEUTRAL))
    if (!strcmp(ock__str_field(m, "role"), "tool") &&
        !strcmp(ock__str_field(m, "tool_call_id"), id))
      return 1;
  return 0;
}

/* rejected_by_providers: a finding whose shape the real APIs answer with HTTP 400; results out
 * of call order (A08) are accepted there, so they are OCK-ORPHAN-005's alone (SPEC.md 6.7). */
static int rejected_by_providers(const cJSON *finding) {
  return strcmp(ock__str_field(finding, OCK_F_FINDING_SHAPE), "A08_PARALLEL_WRONG_ORDER") != 0;
}

static void validator_findings(struct grade_ctx *g) {
  const struct view *v = g->v;
  int seen[N_SHAPES] = {0};
  int exercised = 0;
  for (size_t i = 0; i < v->n; i++) {
    const cJSON *e = v->e[i];
    if (ock__is_kind(e, OCK_ENTRY_LLM_REQUEST) && history_has_calls(e))
      exercised = 1;
    if (!ock__is_kind(e, OCK_ENTRY_FINDING))
      continue;
    const char *shape = ock__str_field(e, OCK_F_FINDING_SHAPE);
    for (size_t s = 0; s < N_SHAPES; s++) {
      if (strcmp(shape, shapes[s].shape))
        continue;
      seen[s] = 1;
      ock__grade_emit(g, shapes[s].check, 0, ock__entry_seq(e), "the provider accepts the history",
                      "%s at messages[%lld] (%s): %.200s", shape,
                      ock_json_int(e, OCK_F_FINDING_MESSAGE_INDEX, -1),
                      ock__str_field(e, OCK_F_FINDING_TOOL_CALL_ID),
                      ock__str_field(e, OCK_F_FINDING_MESSAGE));
    }
  }
  if (!exercised)
    return;
  for (size_t s = 0; s < N_SHAPES; s++) {
    int any = 0;
    for (size_t t = 0; t < N_SHAPES; t++)
      any |= seen[t] && shapes[t].check == shapes[s].check;
    if (!any)
      ock__grade_emit(g, shapes[s].check, 1, -1, "the provider accepts the history",
                      "no %s finding", shapes[s].shape);
  }
}

/* next_request: the first llm_request after entry i, or (size_t)-1. */
static size_t next_request(const struct view *v, size_t i) {
  for (size_t j = i + 1; j < v->n; j++)
    if (ock__is_kind(v->e[j], OCK_ENTRY_LLM_REQUEST))
      return j;
  return (size_t)-1;
}

/* arguments_value: a call's arguments as a JSON value: a text is parsed ("" is {}, SPEC.md 5),
 * an object or other value is copied. NULL when the text is not JSON, or is JSON that readers
 * read differently (U+0000 in a string, a member name twice: SPEC.md 4.1), so that it is
 * compared as text. Caller frees. */
static cJSON *arguments_value(const cJSON *args) {
  if (!cJSON_IsString(args))
    return args ? cJSON_Duplicate(args, 1) : NULL;
  cJSON *v = NULL;
  if (!*args->valuestring)
    return cJSON_CreateObject();
  return ock_json_parse(args->valuestring, strlen(args->valuestring), &v, NULL) ? NULL : v;
}

/* stored_call: the tool call with that id in the request's neutral history, and its position
 * among its message's calls; NULL when absent. */
static const cJSON *stored_call(const cJSON *request, const char *id, int *position) {
  const cJSON *m, *c;
  cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(request, OCK_F_LLM_REQUEST_NEUTRAL)) {
    int k = 0;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(m, "tool_calls")) {
      if (!strcmp(ock__str_field(c, "id"), id)) {
        *position = k;
        return c;
      }
      k++;
    }
  }
  return NULL;
}

/* same_place: the stored call has the model's name at the model's position among its
 * message's calls. Writes what differs into why. */
static int same_place(const cJSON *sent, int sent_pos, const cJSON *kept, int kept_pos, char *why,
                      size_t n) {
  if (strcmp(ock__str_field(sent, "name"), ock__str_field(kept, "name"))) {
    snprintf(why, n, "name \"%.40s\" stored as \"%.40s\"", ock__str_field(sent, "name"),
             ock__str_field(kept, "name"));
    return 0;
  }
  if (sent_pos != kept_pos) {
    snprintf(why, n, "call %d of the reply stored as call %d", sent_pos + 1, kept_pos + 1);
    return 0;
  }
  return 1;
}

/* same_arguments: the stored call's arguments equal the model's by JSON value; arguments that
 * are not JSON: the same text, or not compared when the wire stores an object (Anthropic's
 * tool_use input must be one). Writes what differs into why. */
static int same_arguments(const cJSON *sent, const cJSON *kept, char *why, size_t n) {
  const cJSON *sa = cJSON_GetObjectItemCaseSensitive(sent, "arguments");
  const cJSON *ka = cJSON_GetObjectItemCaseSensitive(kept, "arguments");
  cJSON *want = arguments_value(sa), *got = arguments_value(ka);
  int ok = want ? got && cJSON_Compare(want, got, 1)
                : !cJSON_IsString(ka) ||
                      (cJSON_IsString(sa) && !strcmp(sa->valuestring, ka->valuestring));
  if (!ok) {
    char *g = cJSON_PrintUnformatted(ka);
    snprintf(why, n, "arguments %.80s stored as %.80s", cJSON_IsString(sa) ? sa->valuestring : "?",
             g ? g : "(missing)");
    cJSON_free(g);
  }
  cJSON_Delete(want);
  cJSON_Delete(got);
  return ok;
}

/* The assistant message with the tool calls the mock sent is kept in the next request. */
static void calls_kept(struct grade_ctx *g) {
  const struct view *v = g->v;
  for (size_t i = 0; i < v->n; i++) {
    const cJSON *reply = v->e[i];
    const cJSON *calls = cJSON_GetObjectItemCaseSensitive(reply, OCK_F_LLM_REPLY_TOOL_CALLS);
    if (!ock__is_kind(reply, OCK_ENTRY_LLM_REPLY) || ock__reply_failed(reply) ||
        !cJSON_GetArraySize(calls) || ock__view_is_wrap_up(v, i))
      continue;
    size_t j = next_request(v, i);
    if (j == (size_t)-1)
      continue;
    /* Without events, whether a reply that came after the SIGINT was abandoned is not seen:
     * both fates are allowed, and orphan.context-valid still judges the next history. */
    if (v->traffic && ock__view_after_cancel(v, i))
      continue;
    const cJSON *c;
    if (ock__reply_abandoned(v, i)) {
      /* A reply abandoned on cancellation is discarded: none of its calls is stored. */
      cJSON_ArrayForEach(c, calls) {
        const char *id = ock__str_field(c, "id");
        int stored = history_has_call_id(v->e[j], id);
        ock__grade_emit(g, CK_ORPHAN_CALL_KEPT, !stored, ock__entry_seq(v->e[j]),
                        "the calls of a reply abandoned on cancellation are not stored",
                        "call %s from abandoned reply %ld is %s in request %ld", id,
                        ock__entry_seq(reply), stored ? "stored" : "absent",
                        ock__entry_seq(v->e[j]));
      }
      continue;
    }
    int pos = 0;
    cJSON_ArrayForEach(c, calls) {
      const char *id = ock__str_field(c, "id");
      int kept = history_has_call_id(v->e[j], id) && history_has_result_id(v->e[j], id);
      ock__grade_emit(g, CK_ORPHAN_CALL_KEPT, kept, ock__entry_seq(v->e[j]),
                      "the next request carries the call the mock sent and its result",
                      "call %s from reply %ld is %s in request %ld", id, ock__entry_seq(reply),
                      kept ? "answered" : "missing (with its result)", ock__entry_seq(v->e[j]));
      int kept_pos = -1;
      const cJSON *stored = kept ? stored_call(v->e[j], id, &kept_pos) : NULL;
      char why[240] = "the same";
      if (stored) {
        ock__grade_emit(g, CK_ORPHAN_CALL_UNCHANGED,
                        same_place(c, pos, stored, kept_pos, why, sizeof why),
                        ock__entry_seq(v->e[j]),
                        "the stored call has the model's name, at the model's position",
                        "call %s in request %ld: %s", id, ock__entry_seq(v->e[j]), why);
        snprintf(why, sizeof why, "the same");
        ock__grade_emit(g, CK_ORPHAN_CALL_ARGUMENTS, same_arguments(c, stored, why, sizeof why),
                        ock__entry_seq(v->e[j]),
                        "the stored call has the model's arguments, equal by JSON value",
                        "call %s in request %ld: %s", id, ock__entry_seq(v->e[j]), why);
      }
      pos++;
    }
  }
}

/* The history an execute leaves is valid for the next prompt: every call of the execute is
 * answered in the next execute's first request, and that request draws no finding. */
static void context_left_valid(struct grade_ctx *g) {
  const struct view *v = g->v;
  for (size_t k = 0; k + 1 < v->nx; k++) {
    const struct view_exec *x = &v->x[k];
    size_t j = (size_t)-1;
    for (size_t i = v->x[k + 1].first; i < v->n && j == (size_t)-1; i++)
      if (ock__is_kind(v->e[i], OCK_ENTRY_LLM_REQUEST))
        j = i;
    if (j == (size_t)-1)
      continue;
    int bad = 0;
    char what[200] = "valid";
    for (size_t i = x->first; i < x->end; i++) {
      const cJSON *reply = v->e[i];
      if (!ock__is_kind(reply, OCK_ENTRY_LLM_REPLY) || ock__reply_failed(reply) ||
          ock__view_is_wrap_up(v, i))
        continue;
      const cJSON *c;
      cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(reply, OCK_F_LLM_REPLY_TOOL_CALLS)) {
        const char *id = ock__str_field(c, "id");
        if (history_has_call_id(v->e[j], id) && !history_has_result_id(v->e[j], id) && !bad) {
          bad = 1;
          snprintf(what, sizeof what, "call %s of execute %d has no result", id, x->index);
        }
      }
    }
    for (size_t i = j + 1; i < v->n && !ock__is_kind(v->e[i], OCK_ENTRY_LLM_REQUEST) && !bad; i++)
      if (ock__is_kind(v->e[i], OCK_ENTRY_FINDING) && rejected_by_providers(v->e[i])) {
        bad = 1;
        snprintf(what, sizeof what, "%s", ock__str_field(v->e[i], OCK_F_FINDING_SHAPE));
      }
    ock__grade_emit(g, CK_ORPHAN_CONTEXT_VALID, !bad, ock__entry_seq(v->e[j]),
                    "the next prompt's first request has a valid history",
                    "after execute %d (status %s): %s", x->index,
                    x->complete  ? ock__pf_show(x->complete_entry, OCK_FIELD_STATUS)
                    : v->traffic ? "not posted: black-box"
                                 : "none",
                    what);
  }
}

/* The final answer is stored as the model said it: after an execute that ended with a final
 * answer (status success, or the wrap-up reply under incomplete max_iterations), the assistant
 * message nearest before the next prompt in the next execute's first request has exactly the
 * reply's text; an empty reply stores no assistant message (SPEC.md 5.5, 5.14). */
static void final_stored(struct grade_ctx *g) {
  const struct view *v = g->v;
  for (size_t k = 0; k + 1 < v->nx; k++) {
    const struct view_exec *x = &v->x[k];
    const cJSON *c = x->complete_entry;
    int success = ock__pf_is(c, OCK_FIELD_STATUS, OCK_PV_STATUS_SUCCESS);
    const cJSON *last = NULL;
    size_t last_at = 0;
    for (size_t i = x->first; i < x->end; i++)
      if (ock__is_kind(v->e[i], OCK_ENTRY_LLM_REQUEST)) {
        last = ock__view_reply_of(v, i);
        last_at = i;
      }
    /* Without events (a black-box run) the traffic shows a final answer: the execute's last
     * reply succeeded with no tool calls, and no SIGINT came before it. */
    if (v->traffic && last && !ock__reply_failed(last) &&
        !cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(last, OCK_F_LLM_REPLY_TOOL_CALLS)) &&
        !ock__view_after_cancel(v, last_at))
      success = 1;
    if (!success &&
        !(ock__pf_is(c, OCK_FIELD_STATUS, OCK_PV_STATUS_INCOMPLETE) &&
          ock__pf_is(c, OCK_FIELD_REASON, OCK_PV_ORCHESTRATOR_COMPLETE_REASON_MAX_ITERATIONS)))
      continue;
    const cJSON *next = ock__next_first_request(v, x);
    const char *prompt = v->x[k + 1].prompt;
    if (!last || ock__reply_failed(last) || !next || !prompt)
      continue;
    const char *text = ock__str_field(last, "text");
    const cJSON *hist = cJSON_GetObjectItemCaseSensitive(next, OCK_F_LLM_REQUEST_NEUTRAL);
    int user = -1, i = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, hist) {
      if (!strcmp(ock__str_field(m, "role"), "user") &&
          !strcmp(ock__str_field(m, "content"), prompt))
        user = i;
      i++;
    }
    if (user < 0)
      continue; /* the prompt itself is missing: PROC and HOOK checks report it */
    const cJSON *assistant = NULL;
    for (int j = user - 1; j >= 0 && !assistant; j--)
      if (!strcmp(ock__str_field(cJSON_GetArrayItem(hist, j), "role"), "assistant"))
        assistant = cJSON_GetArrayItem(hist, j);
    int calls = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(assistant, "tool_calls"));
    int ok;
    if (*text)
      ok = assistant && !calls && !strcmp(ock__str_field(assistant, "content"), text);
    else
      ok = !assistant || calls || *ock__str_field(assistant, "content");
    ock__grade_emit(
        g, CK_ORPHAN_FINAL_STORED, ok, ock__entry_seq(next),
        *text ? "the final answer is stored as an assistant message with its exact text"
              : "an empty final reply stores no assistant message",
        "execute %d answered \"%.60s\"; the assistant message before the next prompt: %s%.60s%s",
        x->index, text,
        !assistant ? "none"
        : calls    ? "one with tool calls"
                   : "\"",
        assistant && !calls ? ock__str_field(assistant, "content") : "",
        assistant && !calls ? "\"" : "");
  }
}

void ock__check_orphan(struct grade_ctx *g) {
  final_stored(g);
  validator_findings(g);
  calls_kept(g);
  context_left_valid(g);
}
