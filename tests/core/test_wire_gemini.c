/* test_wire_gemini.c: Gemini API bytes (core/wire_gemini.c) and contents both ways
 * (core/gemini_history.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ock/gemini.h"
#include "ock/status.h"
#include "ock/wire.h"
#include "runner.h"
#include "wire_helpers.h"

static struct ock_tool_call CALLS[] = {
    {"fc_1", "get_weather", "{\"city\":\"Paris\"}"},
    {"fc_2", "get_time", "{\"tz\":\"CET\"}"},
    {"fc_3", "broken", "{not json"}, /* raw arguments that are not JSON */
};

static struct answer answer(const char *text, size_t n_calls) {
  struct answer a = {.f = {.model = "gemini-x", .chunk_size = 3}};
  ock_reply_init(&a.r);
  a.r.id = "resp_1";
  a.r.msg.content = (char *)text;
  a.r.msg.calls = CALLS;
  a.r.msg.n_calls = n_calls;
  a.r.input_tokens = 10;
  a.r.output_tokens = 3;
  return a;
}

static void test_text_stream_exact_bytes(void) {
  struct answer a = answer("Hello", 0);
  struct ock_chunks c;
  ock_chunks_init(&c);
  OCK_ASSERT_OK(ock_wire_gemini.encode_events(&a.r, &a.f, &c));
  OCK_ASSERT_INT_EQ(c.n, 3);
  char *all = joined(&c);
  static const char tail[] = "\"modelVersion\":\"gemini-x\",\"responseId\":\"resp_1\"}\n\n";
  char want[2048];
  snprintf(
      want, sizeof want,
      "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Hel\"}],\"role\":\"model\"},"
      "\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":10,\"totalTokenCount\":10},%s"
      "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"lo\"}],\"role\":\"model\"},"
      "\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":10,\"totalTokenCount\":10},%s"
      "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"\"}],\"role\":\"model\"},"
      "\"finishReason\":\"STOP\",\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":10,"
      "\"candidatesTokenCount\":3,\"totalTokenCount\":13},%s",
      tail, tail, tail);
  OCK_ASSERT_STR_EQ(all, want);
  free(all);
  ock_chunks_free(&c);
}

static void test_body_calls_and_raw_args(void) {
  struct answer a = answer("Let me look.", 3);
  a.r.finish_reason = "MAX_TOKENS";
  struct ock_buf b;
  ock_buf_init(&b, 1 << 16);
  OCK_ASSERT_OK(ock_wire_gemini.encode_reply(&a.r, &a.f, &b));
  OCK_ASSERT_STR_EQ(
      b.data,
      "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Let me look.\"},{\"functionCall\":"
      "{\"name\":\"get_weather\",\"args\":{\"city\":\"Paris\"},\"id\":\"fc_1\"}},{\"functionCall\":"
      "{\"name\":\"get_time\",\"args\":{\"tz\":\"CET\"},\"id\":\"fc_2\"}},{\"functionCall\":{"
      "\"name\":"
      "\"broken\",\"args\":\"{not json\",\"id\":\"fc_3\"}}],\"role\":\"model\"},\"finishReason\":"
      "\"MAX_TOKENS\",\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":10,"
      "\"candidatesTokenCount\":3,\"totalTokenCount\":13},\"modelVersion\":\"gemini-x\","
      "\"responseId\":\"resp_1\"}");
  /* and back */
  cJSON *j = cJSON_Parse(b.data);
  struct ock_reply r;
  ock_reply_init(&r);
  struct ock_jerr err;
  OCK_ASSERT_OK(ock_wire_gemini.decode_reply(j, &r, &err));
  OCK_ASSERT_STR_EQ(r.msg.content, "Let me look.");
  OCK_ASSERT_INT_EQ(r.msg.n_calls, 3);
  OCK_ASSERT_STR_EQ(r.msg.calls[1].id, "fc_2");
  OCK_ASSERT_STR_EQ(r.msg.calls[1].name, "get_time");
  OCK_ASSERT_STR_EQ(r.msg.calls[1].arguments, "{\"tz\":\"CET\"}");
  OCK_ASSERT_STR_EQ(r.msg.calls[2].arguments, "{not json");
  OCK_ASSERT_STR_EQ(r.finish_reason, "MAX_TOKENS");
  OCK_ASSERT_STR_EQ(r.id, "resp_1");
  OCK_ASSERT_INT_EQ(r.input_tokens, 10);
  OCK_ASSERT_INT_EQ(r.output_tokens, 3);
  ock_reply_clear(&r);
  cJSON_Delete(j);
  ock_buf_free(&b);
}

/* A reply without ids (models before Gemini 3) gets ids made from responseId; thoughts are not
 * text; no candidates is a malformed reply. */
static void test_decode_without_ids_and_thoughts(void) {
  cJSON *j = cJSON_Parse(
      "{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"hmm\","
      "\"thought\":true},{\"text\":\"Hi\"},{\"functionCall\":{\"name\":\"f\"}},{\"functionCall\":"
      "{\"name\":\"g\",\"args\":{\"a\":1}}}]},\"finishReason\":\"STOP\"}],\"responseId\":\"R\"}");
  struct ock_reply r;
  ock_reply_init(&r);
  struct ock_jerr err;
  OCK_ASSERT_OK(ock_wire_gemini.decode_reply(j, &r, &err));
  OCK_ASSERT_STR_EQ(r.msg.content, "Hi");
  OCK_ASSERT_INT_EQ(r.msg.n_calls, 2);
  OCK_ASSERT_STR_EQ(r.msg.calls[0].id, "R-fc0");
  OCK_ASSERT_STR_EQ(r.msg.calls[0].arguments, "{}");
  OCK_ASSERT_STR_EQ(r.msg.calls[1].id, "R-fc1");
  OCK_ASSERT_INT_EQ(r.input_tokens, -1);
  ock_reply_clear(&r);
  cJSON_Delete(j);
  j = cJSON_Parse("{\"promptFeedback\":{\"blockReason\":\"SAFETY\"}}");
  ock_reply_init(&r);
  OCK_ASSERT_INT_EQ(ock_wire_gemini.decode_reply(j, &r, &err), OCK_EPROTO);
  OCK_ASSERT_STR_EQ(err.where, "$.candidates");
  cJSON_Delete(j);
}

/* feed sends every piece of c but the last `drop` through a decoder; returns the finish rc. */
static int feed(const struct ock_chunks *c, size_t drop, struct ock_reply *out,
                struct ock_wire_error *we) {
  ock_wire_stream *s = NULL;
  OCK_ASSERT_OK(ock_wire_stream_new(OCK_WIRE_GEMINI, 1 << 20, &s));
  char *all = NULL;
  struct ock_chunks part = {c->items, c->lens, c->n - drop, c->cap};
  all = joined(&part);
  cJSON *events = sse_split(all);
  cJSON *e;
  cJSON_ArrayForEach(e, events) {
    OCK_ASSERT_NULL(ock_json_str(e, "event"));
    OCK_ASSERT_OK(ock_wire_stream_event(s, NULL, ock_json_str(e, "data"), NULL, NULL, we));
  }
  int rc = ock_wire_stream_finish(s, out, we);
  cJSON_Delete(events);
  free(all);
  ock_wire_stream_free(s);
  return rc;
}

static void test_stream_round_trip_and_cut(void) {
  struct answer a = answer("Looking it up", 2);
  struct ock_chunks c;
  ock_chunks_init(&c);
  OCK_ASSERT_OK(ock_wire_gemini.encode_events(&a.r, &a.f, &c));
  OCK_ASSERT_INT_EQ(c.n, 5 + 2 + 1); /* 13 characters by 3, a call each, the end */
  struct ock_reply r;
  struct ock_wire_error we;
  ock_reply_init(&r);
  OCK_ASSERT_OK(feed(&c, 0, &r, &we));
  OCK_ASSERT_STR_EQ(r.msg.content, "Looking it up");
  OCK_ASSERT_INT_EQ(r.msg.n_calls, 2);
  OCK_ASSERT_STR_EQ(r.msg.calls[0].id, "fc_1");
  OCK_ASSERT_STR_EQ(r.msg.calls[1].arguments, "{\"tz\":\"CET\"}");
  OCK_ASSERT_STR_EQ(r.finish_reason, "STOP");
  OCK_ASSERT_INT_EQ(r.output_tokens, 3);
  ock_reply_clear(&r);
  /* without the chunk that carries finishReason it was cut */
  ock_reply_init(&r);
  OCK_ASSERT_INT_EQ(feed(&c, 1, &r, &we), OCK_EPROTO);
  OCK_ASSERT_STR_EQ(we.message, "the stream ended before finishReason");
  ock_chunks_free(&c);
}

static void test_stream_error_and_malformed_events(void) {
  struct ock_buf b;
  ock_buf_init(&b, 1 << 16);
  OCK_ASSERT_OK(ock_wire_gemini.encode_error_event(0, NULL, &b));
  OCK_ASSERT_STR_EQ(b.data, "data: {\"error\":{\"code\":503,\"message\":\"ock: scripted stream "
                            "error\",\"status\":\"UNAVAILABLE\"}}\n\n");
  ock_wire_stream *s = NULL;
  struct ock_wire_error we;
  OCK_ASSERT_OK(ock_wire_stream_new(OCK_WIRE_GEMINI, 1 << 20, &s));
  OCK_ASSERT_INT_EQ(ock_wire_stream_event(s, NULL, b.data + 6, NULL, NULL, &we), OCK_EPROTO);
  OCK_ASSERT_STR_EQ(we.message, "error event mid-stream: UNAVAILABLE: ock: scripted stream error");
  ock_wire_stream_free(s);
  b.len = 0;
  OCK_ASSERT_OK(ock_wire_gemini.encode_malformed_event(&b));
  OCK_ASSERT_STR_EQ(b.data, "data: {\"ock\":\n\n");
  ock_buf_free(&b);
}

static void test_error_envelopes(void) {
  static const struct {
    int status;
    const char *name;
  } rows[] = {{400, "INVALID_ARGUMENT"}, {404, "NOT_FOUND"},   {429, "RESOURCE_EXHAUSTED"},
              {500, "INTERNAL"},         {503, "UNAVAILABLE"}, {418, "INVALID_ARGUMENT"},
              {502, "INTERNAL"}};
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    struct ock_buf b;
    ock_buf_init(&b, 1 << 16);
    OCK_ASSERT_OK(ock_wire_gemini.encode_error(rows[i].status, "why", NULL, NULL, "req_1", &b));
    char want[200];
    snprintf(want, sizeof want, "{\"error\":{\"code\":%d,\"message\":\"why\",\"status\":\"%s\"}}",
             rows[i].status, rows[i].name);
    OCK_ASSERT_STR_EQ(b.data, want);
    struct ock_wire_error we;
    OCK_ASSERT_OK(ock_wire_decode_error(b.data, b.len, &we));
    OCK_ASSERT_STR_EQ(we.type, rows[i].name);
    OCK_ASSERT_STR_EQ(we.message, "why");
    ock_buf_free(&b);
  }
}

static void test_request_contents(void) {
  struct ock_history h;
  ock_history_init(&h);
  OCK_ASSERT_OK(ock_history_add_text(&h, OCK_ROLE_SYSTEM, "Be brief."));
  OCK_ASSERT_OK(ock_history_add_text(&h, OCK_ROLE_USER, "Weather?"));
  OCK_ASSERT_OK(ock_history_add_assistant(&h, NULL, CALLS, 3));
  OCK_ASSERT_OK(ock_history_add_tool_result(&h, "fc_1", "15 degrees", 0));
  OCK_ASSERT_OK(ock_history_add_tool_result(&h, "fc_2", "Error: timeout", 1));
  OCK_ASSERT_OK(ock_history_add_tool_result(&h, "fc_3", "Error: invalid arguments", 1));
  OCK_ASSERT_OK(ock_history_add_text(&h, OCK_ROLE_ASSISTANT, "Done."));
  struct ock_tool_spec tool = {"get_weather", "Weather", NULL};
  struct ock_wire_request req = {.model = "m", .messages = &h, .tools = &tool, .n_tools = 1};
  struct ock_buf b;
  ock_buf_init(&b, 1 << 16);
  OCK_ASSERT_OK(ock_wire_gemini.encode_request(&req, &b));
  OCK_ASSERT_STR_EQ(
      b.data,
      "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"Weather?\"}]},{\"role\":\"model\","
      "\"parts\":[{\"functionCall\":{\"id\":\"fc_1\",\"name\":\"get_weather\",\"args\":{\"city\":"
      "\"Paris\"}}},{\"functionCall\":{\"id\":\"fc_2\",\"name\":\"get_time\",\"args\":{\"tz\":"
      "\"CET\"}}},{\"functionCall\":{\"id\":\"fc_3\",\"name\":\"broken\",\"args\":{}}}]},{\"role\":"
      "\"user\",\"parts\":[{\"functionResponse\":{\"id\":\"fc_1\",\"name\":\"get_weather\","
      "\"response\":{\"output\":\"15 degrees\"}}},{\"functionResponse\":{\"id\":\"fc_2\",\"name\":"
      "\"get_time\",\"response\":{\"error\":\"Error: timeout\"}}},{\"functionResponse\":{\"id\":"
      "\"fc_3\",\"name\":\"broken\",\"response\":{\"error\":\"Error: invalid arguments\"}}}]},"
      "{\"role\":\"model\",\"parts\":[{\"text\":\"Done.\"}]}],\"systemInstruction\":{\"parts\":"
      "[{\"text\":\"Be brief.\"}]},\"tools\":[{\"functionDeclarations\":[{\"name\":\"get_weather\","
      "\"description\":\"Weather\",\"parametersJsonSchema\":{\"type\":\"object\"}}]}]}");
  /* read back: the same neutral history */
  cJSON *j = cJSON_Parse(b.data);
  struct ock_history back;
  ock_history_init(&back);
  struct ock_jerr err;
  OCK_ASSERT_OK(ock_history_from_gemini(cJSON_GetObjectItem(j, "systemInstruction"),
                                        cJSON_GetObjectItem(j, "contents"), &back, &err));
  OCK_ASSERT_INT_EQ(back.len, h.len);
  OCK_ASSERT_STR_EQ(back.items[0].content, "Be brief.");
  OCK_ASSERT_STR_EQ(back.items[2].calls[2].arguments, "{}");
  OCK_ASSERT_STR_EQ(back.items[4].tool_call_id, "fc_2");
  OCK_ASSERT_STR_EQ(back.items[4].content, "Error: timeout");
  OCK_ASSERT_INT_EQ(back.items[4].is_error, 1);
  OCK_ASSERT_INT_EQ(back.items[4].wire_index, 2);
  OCK_ASSERT_STR_EQ(back.items[6].content, "Done.");
  ock_history_free(&back);
  cJSON_Delete(j);
  ock_buf_free(&b);
  ock_history_free(&h);
}

/* read: contents text into a history (err filled on failure). */
static int read(const char *contents, struct ock_history *h, struct ock_jerr *err) {
  cJSON *j = cJSON_Parse(contents);
  OCK_ASSERT_NOT_NULL(j);
  ock_history_init(h);
  int rc = ock_history_from_gemini(NULL, j, h, err);
  cJSON_Delete(j);
  return rc;
}

/* Without ids, a response answers the first untaken call of the turn before with its name;
 * one that answers none gets an id no call has. */
static void test_pairing_without_ids(void) {
  struct ock_history h;
  struct ock_jerr err;
  OCK_ASSERT_OK(
      read("[{\"role\":\"user\",\"parts\":[{\"text\":\"q\"}]},"
           "{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":\"f\"}},"
           "{\"functionCall\":{\"name\":\"g\"}},{\"functionCall\":{\"name\":\"f\"}}]},"
           "{\"role\":\"user\",\"parts\":[{\"functionResponse\":{\"name\":\"g\","
           "\"response\":{\"output\":1}}},{\"functionResponse\":{\"name\":\"f\"}},"
           "{\"functionResponse\":{\"name\":\"f\"}},{\"functionResponse\":{\"name\":\"h\"}},"
           "{\"text\":\"and\"}]}]",
           &h, &err));
  OCK_ASSERT_INT_EQ(h.len, 7);
  OCK_ASSERT_STR_EQ(h.items[1].calls[0].id, "ock-fc:1.0");
  OCK_ASSERT_STR_EQ(h.items[1].calls[2].id, "ock-fc:1.2");
  OCK_ASSERT_STR_EQ(h.items[2].tool_call_id, "ock-fc:1.1");
  OCK_ASSERT_STR_EQ(h.items[2].content, "{\"output\":1}");
  OCK_ASSERT_STR_EQ(h.items[3].tool_call_id, "ock-fc:1.0");
  OCK_ASSERT_STR_EQ(h.items[4].tool_call_id, "ock-fc:1.2");
  OCK_ASSERT_STR_EQ(h.items[5].tool_call_id, "ock-fr:2.3");
  OCK_ASSERT_INT_EQ(h.items[6].role, OCK_ROLE_USER);
  OCK_ASSERT_STR_EQ(h.items[6].content, "and");
  ock_history_free(&h);
}

static void test_bad_contents_name_the_path(void) {
  struct ock_history h;
  struct ock_jerr err;
  OCK_ASSERT_INT_EQ(read("[{\"role\":\"user\",\"parts\":[]}]", &h, &err), OCK_EINVAL);
  OCK_ASSERT_STR_EQ(err.where, "$.contents[0].parts");
  OCK_ASSERT_STR_EQ(err.what, "contents.parts must not be empty.");
  ock_history_free(&h);
  OCK_ASSERT_INT_NE(read("[{\"role\":\"tool\",\"parts\":[{\"text\":\"x\"}]}]", &h, &err), OCK_OK);
  OCK_ASSERT_STR_EQ(err.where, "$.contents[0].role");
  ock_history_free(&h);
  OCK_ASSERT_INT_NE(
      read("[{\"role\":\"model\",\"parts\":[{\"text\":\"a\"},{\"functionCall\":{\"args\":{}}}]}]",
           &h, &err),
      OCK_OK);
  OCK_ASSERT_STR_EQ(err.where, "$.contents[0].parts[1].functionCall.name");
  ock_history_free(&h);
}

/* The non-streamed body is written as text and the stream's chunks as trees. A reply with
 * no text and no call is all in the stream's last chunk, so the two must be the same bytes,
 * also with a model name to escape and no response id; and a body with text and calls is the
 * bytes cJSON prints for the tree of it, written out by hand. */
static void test_text_writer_equals_tree(void) {
  struct answer a = answer(NULL, 0);
  a.f.model = "gem\"ini\n\u00e9";
  a.r.id = NULL;
  a.r.finish_reason = "SAFETY";
  struct ock_chunks c;
  ock_chunks_init(&c);
  OCK_ASSERT_OK(ock_wire_gemini.encode_events(&a.r, &a.f, &c));
  struct ock_buf b;
  ock_buf_init(&b, 1 << 20);
  OCK_ASSERT_OK(ock_wire_gemini.encode_reply(&a.r, &a.f, &b));
  char want[4096];
  snprintf(want, sizeof want, "data: %s\n\n", b.data);
  OCK_ASSERT_STR_EQ(c.items[c.n - 1], want);
  ock_chunks_free(&c);
  ock_buf_reset(&b);
  struct answer t = answer("a \"b\"\t\x01", 1);
  OCK_ASSERT_OK(ock_wire_gemini.encode_reply(&t.r, &t.f, &b));
  cJSON *hand =
      cJSON_Parse("{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"a \\\"b\\\"\\t\\u0001\"},"
                  "{\"functionCall\":{\"name\":\"get_weather\",\"args\":{\"city\":\"Paris\"},"
                  "\"id\":\"fc_1\"}}],"
                  "\"role\":\"model\"},\"finishReason\":\"STOP\",\"index\":0}],\"usageMetadata\":{"
                  "\"promptTokenCount\":10,\"candidatesTokenCount\":3,\"totalTokenCount\":13},"
                  "\"modelVersion\":\"gemini-x\",\"responseId\":\"resp_1\"}");
  OCK_ASSERT_TRUE(hand != NULL);
  char *printed = cJSON_PrintUnformatted(hand);
  OCK_ASSERT_STR_EQ(b.data, printed);
  free(printed);
  cJSON_Delete(hand);
  ock_buf_free(&b);
}

static const struct ock_test tests[] = {
    {"text_stream_exact_bytes", test_text_stream_exact_bytes},
    {"body_calls_and_raw_args", test_body_calls_and_raw_args},
    {"text_writer_equals_tree", test_text_writer_equals_tree},
    {"decode_without_ids_and_thoughts", test_decode_without_ids_and_thoughts},
    {"stream_round_trip_and_cut", test_stream_round_trip_and_cut},
    {"stream_error_and_malformed_events", test_stream_error_and_malformed_events},
    {"error_envelopes", test_error_envelopes},
    {"request_contents", test_request_contents},
    {"pairing_without_ids", test_pairing_without_ids},
    {"bad_contents_name_the_path", test_bad_contents_name_the_path},
    {NULL, NULL}};

const struct ock_suite suite_wire_gemini = {"wire_gemini", tests, NULL, NULL};
