/* fuzz_message.c: any JSON as provider messages and replies on every wire; what reads must
 * convert back without loss of validity. And ock_json_print must print exactly what cJSON
 * prints, for any value (a difference aborts, so the fuzzer reports it). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ock/gemini.h"
#include "ock/json.h"
#include "ock/message.h"
#include "ock/wire.h"

static void same_print(const cJSON *v) {
  char *ours = ock_json_print(v);
  char *theirs = cJSON_PrintUnformatted(v);
  if ((ours == NULL) != (theirs == NULL) || (ours && strcmp(ours, theirs)))
    abort();
  free(ours);
  cJSON_free(theirs);
}

/* reencode writes a decoded reply on the other wire, as a body and as events. */
static void reencode(const struct ock_wire_ops *w, const struct ock_reply *r) {
  struct ock_wire_frame f = {.model = "m", .chunk_size = 3, .include_usage = 1};
  struct ock_buf b;
  ock_buf_init(&b, (size_t)1 << 24);
  w->encode_reply(r, &f, &b);
  ock_buf_free(&b);
  struct ock_chunks c;
  ock_chunks_init(&c);
  w->encode_events(r, &f, &c);
  ock_chunks_free(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  cJSON *v = cJSON_ParseWithLength((const char *)data, size);
  if (!v)
    return 0;
  same_print(v);
  struct ock_history h;
  struct ock_jerr err;
  ock_history_init(&h);
  if (!ock_history_from_openai(v, &h, &err)) {
    cJSON *back = NULL;
    char *sys = NULL;
    if (!ock_history_to_openai(&h, &back)) {
      same_print(back);
      cJSON_Delete(back);
    }
    if (!ock_history_to_anthropic(&h, &back, &sys)) {
      cJSON_Delete(back);
      free(sys);
    }
  }
  ock_history_free(&h);
  ock_history_from_anthropic(cJSON_GetObjectItem(v, "system"), cJSON_GetObjectItem(v, "messages"),
                             &h, &err);
  ock_history_free(&h);
  if (!ock_history_from_gemini(cJSON_GetObjectItem(v, "systemInstruction"),
                               cJSON_GetObjectItem(v, "contents"), &h, &err)) {
    cJSON *back = NULL, *sys = NULL;
    if (!ock_history_to_gemini(&h, &back, &sys)) {
      cJSON_Delete(back);
      cJSON_Delete(sys);
    }
  }
  ock_history_free(&h);
  struct ock_reply r;
  ock_reply_init(&r);
  if (!ock_reply_from_openai(v, &r, &err))
    reencode(&ock_wire_anthropic, &r);
  ock_reply_clear(&r);
  if (!ock_reply_from_anthropic(v, &r, &err))
    reencode(&ock_wire_gemini, &r);
  ock_reply_clear(&r);
  if (!ock_wire_gemini.decode_reply(v, &r, &err))
    reencode(&ock_wire_openai, &r);
  ock_reply_clear(&r);
  free(ock_tool_result_text(v));
  cJSON_Delete(v);
  return 0;
}
