/*
 * gemini.c: the mock's side of the Gemini API wire (see gemini.h): its paths, its turn rule,
 * and its texts for a broken tool-call history.
 *
 * The texts are the API's own, as users quote them in public issue threads
 * (google-gemini/gemini-cli #4217, #11814, #17208; langchain-ai/langchain #27799):
 * a function call turn whose next turn does not hold one function response part per call
 * gets the count text, a function response turn after anything but a function call turn the
 * response-turn text, a function call turn after anything but a user or function response turn
 * the call-turn text. Shapes the API has no text for are worded "ock: ...".
 */
#include "gemini.h"

#include <stdio.h>
#include <string.h>

#include "ock/gemini.h"
#include "ock/json.h"
#include "ock/status.h"

static const char *const COUNT_TEXT =
    "Please ensure that the number of function response parts is equal to the number of "
    "function call parts of the function call turn.";
static const char *const CALL_TURN_TEXT =
    "Please ensure that function call turn comes immediately after a user turn or after a "
    "function response turn.";
static const char *const RESPONSE_TURN_TEXT =
    "Please ensure that function response turn comes immediately after a function call turn.";

long ock__gemini_route(const char *path, const char **model, size_t *model_len, int *stream) {
  return ock_gemini_route(path, model, model_len, stream);
}

int ock__gemini_sse(const struct mock_request *rq) {
  const char *alt = rq->query ? rq->query(rq->conn, "alt") : "sse";
  return alt && !strcmp(alt, "sse");
}

/* call_turn_misplaced: the wire index of the first model turn with calls that does not come
 * right after a user turn (text or function responses), or -1. */
static int call_turn_misplaced(const struct ock_history *h) {
  const struct ock_message *prev = NULL;
  for (size_t i = 0; i < h->len; i++) {
    const struct ock_message *m = &h->items[i];
    if (m->wire_index < 0)
      continue; /* systemInstruction */
    if (m->role == OCK_ROLE_ASSISTANT && m->n_calls && (!prev || prev->role == OCK_ROLE_ASSISTANT))
      return m->wire_index;
    prev = m;
  }
  return -1;
}

int ock__validate_gemini(const struct ock_history *h, struct mock_finding *out) {
  int rc = ock__validate_first(h, 1, out);
  int at = rc ? -1 : call_turn_misplaced(h);
  if (at < 0 || (out->shape != MOCK_SHAPE_NONE && out->message_index < at))
    return rc;
  ock__finding_clear(out);
  const char *id = "";
  for (size_t i = 0; i < h->len; i++)
    if (h->items[i].wire_index == at && h->items[i].n_calls && h->items[i].calls[0].id)
      id = h->items[i].calls[0].id;
  out->shape = MOCK_A04_INTERLEAVED_ASST_MSG;
  out->message_index = at;
  out->tool_call_id = strdup(id);
  out->id = strdup(id);
  out->ids = strdup(id);
  if (!out->tool_call_id || !out->id || !out->ids) {
    ock__finding_clear(out);
    return OCK_ENOMEM;
  }
  return OCK_OK;
}

/* after_user: the turn before contents[n] is a user turn. */
static int after_user(const cJSON *raw, int n) {
  const char *role = n > 0 ? ock_json_str(cJSON_GetArrayItem(raw, n - 1), "role") : NULL;
  return role && strcmp(role, "model");
}

int ock__gemini_history_error(const struct mock_finding *f, const cJSON *raw, struct ock_buf *out) {
  switch (f->shape) {
  case MOCK_A01_UNMATCHED_TOOL_USE:
  case MOCK_A03_INTERLEAVED_USER_MSG:
  case MOCK_A07_PARALLEL_MISSING_RESULT:
    return ock_buf_puts(out, COUNT_TEXT);
  case MOCK_A04_INTERLEAVED_ASST_MSG:
    return ock_buf_puts(out, after_user(raw, f->message_index) ? COUNT_TEXT : CALL_TURN_TEXT);
  case MOCK_A05_DUPLICATE_TOOL_CALL_ID:
    if (f->on_result)
      return ock_buf_puts(out, COUNT_TEXT);
    return ock_buf_printf(out,
                          "ock: contents[%d]: function call id '%s' is issued more than once "
                          "in this conversation.",
                          f->message_index, f->id);
  case MOCK_A06_WRONG_TOOL_CALL_ID:
    return ock_buf_printf(out,
                          "ock: contents[%d]: the function response '%s' answers no function "
                          "call part of the function call turn.",
                          f->message_index, f->id);
  case MOCK_A08_PARALLEL_WRONG_ORDER:
    return ock_buf_printf(out,
                          "ock: contents[%d]: function response parts must follow the order of "
                          "the function call parts. Expected '%s', found '%s'.",
                          f->message_index, f->expected ? f->expected : "", f->id);
  case MOCK_A02_UNMATCHED_TOOL_RESULT:
  case MOCK_SHAPE_NONE:
    break;
  }
  return ock_buf_puts(out, RESPONSE_TURN_TEXT);
}
