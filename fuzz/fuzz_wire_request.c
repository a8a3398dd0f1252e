/* fuzz_wire_request.c: any bytes as an LLM request body, the first byte picking the API (its
 * low two bits, an enum ock_request_api: 0 Chat Completions, 1 Anthropic Messages, 2 the
 * Responses API, 3 Gemini). The
 * tree-less reader (core/wire_request.c) must not crash, and whatever it takes the tree reader
 * must take too, with the same history, model and flags: a difference aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ock/gemini.h"
#include "ock/json.h"
#include "ock/message.h"
#include "ock/wire_request.h"
#include "ock/wire_responses.h"

static int same_str(const char *a, const char *b) {
  return (!a && !b) || (a && b && !strcmp(a, b));
}

static int same_message(const struct ock_message *x, const struct ock_message *y) {
  int same = x->role == y->role && x->wire_index == y->wire_index && x->is_error == y->is_error &&
             same_str(x->content, y->content) && same_str(x->tool_call_id, y->tool_call_id) &&
             x->n_calls == y->n_calls;
  for (size_t c = 0; same && c < x->n_calls; c++)
    same = same_str(x->calls[c].id, y->calls[c].id) &&
           same_str(x->calls[c].name, y->calls[c].name) &&
           same_str(x->calls[c].arguments, y->calls[c].arguments);
  return same;
}

static const cJSON *member(const cJSON *doc, const char *name) {
  return cJSON_GetObjectItemCaseSensitive(doc, name);
}

/* tree_read: the history the mock's tree path reads from doc. */
static int tree_read(const cJSON *doc, enum ock_request_api api, struct ock_history *h) {
  const cJSON *instructions = member(doc, "instructions");
  switch (api) {
  case OCK_REQUEST_RESPONSES:
    if (cJSON_IsString(instructions) &&
        ock_history_add_text(h, OCK_ROLE_SYSTEM, instructions->valuestring))
      return 1;
    return ock_history_from_responses(member(doc, "input"), h, NULL);
  case OCK_REQUEST_GEMINI:
    return ock_history_from_gemini(member(doc, "systemInstruction"), member(doc, "contents"), h,
                                   NULL);
  case OCK_REQUEST_ANTHROPIC:
    return ock_history_from_anthropic(member(doc, "system"), member(doc, "messages"), h, NULL);
  default:
    return ock_history_from_openai(member(doc, "messages"), h, NULL);
  }
}

/* check_tree: the tree reader's view of a body the fast reader took. */
static void check_tree(const char *body, size_t len, enum ock_request_api api,
                       const struct ock_request_read *r) {
  cJSON *doc = cJSON_ParseWithLength(body, len);
  const cJSON *model = member(doc, "model"), *stream = member(doc, "stream");
  struct ock_history h;
  ock_history_init(&h);
  int rc = tree_read(doc, api, &h);
  int same = doc && !rc && h.len == r->history.len;
  if (api == OCK_REQUEST_GEMINI)
    same = same && !r->model && !r->stream;
  else
    same = same && cJSON_IsString(model) && !strcmp(model->valuestring, r->model) &&
           cJSON_IsTrue(stream) == r->stream;
  if (api == OCK_REQUEST_RESPONSES) {
    const cJSON *prev = member(doc, "previous_response_id"), *store = member(doc, "store");
    same = same && r->store == !cJSON_IsFalse(store) &&
           same_str(cJSON_IsString(prev) ? prev->valuestring : NULL, r->previous_id) &&
           r->n_instructions == (cJSON_IsString(member(doc, "instructions")) ? 1u : 0u);
  }
  for (size_t i = 0; same && i < h.len; i++)
    same = same_message(&h.items[i], &r->history.items[i]);
  ock_history_free(&h);
  cJSON_Delete(doc);
  if (!same)
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!size)
    return 0;
  enum ock_request_api api = (enum ock_request_api)(data[0] & 3);
  char *body = malloc(size); /* exactly the bytes: the reader must not read past them */
  if (!body)
    return 0;
  memcpy(body, data + 1, size - 1);
  struct ock_request_read r;
  if (!ock_wire_request_read(body, size - 1, api, &r)) {
    struct ock_buf b;
    ock_buf_init(&b, (size_t)1 << 30);
    for (size_t i = 0; i < r.n_params; i++)
      ock_wire_compact(&b, body + r.params[i].value.at, r.params[i].value.len);
    ock_wire_compact(&b, body + r.messages.at, r.messages.len);
    if (r.system.len)
      ock_wire_compact(&b, body + r.system.at, r.system.len);
    ock_buf_free(&b);
    check_tree(body, size - 1, api, &r);
    ock_wire_request_free(&r);
  }
  free(body);
  return 0;
}
