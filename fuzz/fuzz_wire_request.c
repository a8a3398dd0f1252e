/* fuzz_wire_request.c: any bytes as an LLM request body, the first byte picking the API. The
 * tree-less reader (core/wire_request.c) must not crash, and whatever it takes the tree reader
 * must take too, with the same history, model and flags: a difference aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ock/json.h"
#include "ock/message.h"
#include "ock/wire_request.h"

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

/* check_tree: the tree reader's view of a body the fast reader took. */
static void check_tree(const char *body, size_t len, int anthropic,
                       const struct ock_request_read *r) {
  cJSON *doc = cJSON_ParseWithLength(body, len);
  const cJSON *model = cJSON_GetObjectItemCaseSensitive(doc, "model");
  const cJSON *messages = cJSON_GetObjectItemCaseSensitive(doc, "messages");
  const cJSON *stream = cJSON_GetObjectItemCaseSensitive(doc, "stream");
  struct ock_history h;
  ock_history_init(&h);
  int rc = anthropic ? ock_history_from_anthropic(cJSON_GetObjectItemCaseSensitive(doc, "system"),
                                                  messages, &h, NULL)
                     : ock_history_from_openai(messages, &h, NULL);
  int same = doc && !rc && cJSON_IsString(model) && !strcmp(model->valuestring, r->model) &&
             cJSON_IsTrue(stream) == r->stream && h.len == r->history.len;
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
  int anthropic = data[0] & 1;
  char *body = malloc(size); /* exactly the bytes: the reader must not read past them */
  if (!body)
    return 0;
  memcpy(body, data + 1, size - 1);
  struct ock_request_read r;
  if (!ock_wire_request_read(body, size - 1, anthropic, &r)) {
    struct ock_buf b;
    ock_buf_init(&b, (size_t)1 << 30);
    for (size_t i = 0; i < r.n_params; i++)
      ock_wire_compact(&b, body + r.params[i].value.at, r.params[i].value.len);
    ock_buf_free(&b);
    check_tree(body, size - 1, anthropic, &r);
    ock_wire_request_free(&r);
  }
  free(body);
  return 0;
}
