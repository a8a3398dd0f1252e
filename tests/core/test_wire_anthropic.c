/* test_wire_anthropic.c: Anthropic Messages bytes (core/wire_anthropic.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire_helpers.h"
#include "runner.h"
#include "ock/wire.h"

static struct ock_tool_call CALLS[] = {
    {"toolu_1", "get_weather", "{\"city\":\"Paris\"}"},
    {"toolu_2", "get_time", "{\"tz\":\"CET\"}"},
    {"toolu_3", "broken", "{not json"}, /* raw arguments that are not JSON */
};

static struct answer answer(const char *text, size_t n_calls, const char *finish) {
  struct answer a = {.f = {.model = "claude", .chunk_size = 5}};
  ock_reply_init(&a.r);
  a.r.id = "msg_x_0";
  a.r.msg.content = (char *)text;
  a.r.msg.calls = CALLS;
  a.r.msg.n_calls = n_calls;
  a.r.finish_reason = (char *)finish;
  a.r.input_tokens = 10;
  a.r.output_tokens = 3;
  return a;
}

static void test_text_stream_exact_bytes(void) {
  struct answer a = answer("Hello", 0, "end_turn");
  struct ock_chunks c;
  ock_chunks_init(&c);
  OCK_ASSERT_OK(ock_wire_anthropic.encode_events(&a.r, &a.f, &c));
  char *all = joined(&c);
  OCK_ASSERT_STR_EQ(
      all,
      "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_x_0\","
      "\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude\",\"content\":[],"
      "\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":10,"
      "\"output_tokens\":1}}}\n\n"
      "event: ping\ndata: {\"type\":\"ping\"}\n\n"
      "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
      "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
      "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
      "{\"type\":\"text_delta\",\"text\":\"Hello\"}}\n\n"
      "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
      "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
      "\"end_turn\",\"stop_sequence\":null},\"usage\":{\"input_tokens\":10,\"output_tokens\":3}}"
      "\n\n"
      "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
  free(all);
  ock_chunks_free(&c);
}

static void test_text_and_parallel_tools_stream(void) {
  struct answer a = answer("Let me look.", 2, "tool_use");
  struct ock_chunks c;
  ock_chunks_init(&c);
  OCK_ASSERT_OK(ock_wire_anthropic.encode_events(&a.r, &a.f, &c));
  char *all = joined(&c);
  cJSON *events = sse_split(all);
  struct ock_buf seq, text, json0, json1;
  ock_buf_init(&seq, 1 << 16);
  ock_buf_init(&text, 1 << 16);
  ock_buf_init(&json0, 1 << 16);
  ock_buf_init(&json1, 1 << 16);
  int empty_first_partial = 0;
  cJSON *e;
  cJSON_ArrayForEach(e, events) {
    const char *name = ock_json_str(e, "event");
    cJSON *d = cJSON_Parse(ock_json_str(e, "data"));
    OCK_ASSERT_STR_EQ(ock_json_str(d, "type"), name); /* event name equals data.type */
    OCK_ASSERT_OK(ock_buf_printf(&seq, "%s%s", seq.len ? "," : "", name));
    cJSON *delta = cJSON_GetObjectItem(d, "delta");
    const char *dt = ock_json_str(delta, "type");
    long long idx = ock_json_int(d, "index", -1);
    if (dt && !strcmp(dt, "text_delta"))
      OCK_ASSERT_OK(ock_buf_puts(&text, ock_json_str(delta, "text")));
    if (dt && !strcmp(dt, "input_json_delta")) {
      const char *pj = ock_json_str(delta, "partial_json");
      if (!*pj && (idx == 1 ? json0.len == 0 : json1.len == 0))
        empty_first_partial++;
      OCK_ASSERT_OK(ock_buf_puts(idx == 1 ? &json0 : &json1, pj));
    }
    cJSON_Delete(d);
  }
  OCK_ASSERT_STR_EQ(seq.data, "message_start,ping,content_block_start,content_block_delta,"
                              "content_block_delta,content_block_delta,content_block_stop,"
                              "content_block_start,content_block_delta,content_block_delta,"
                              "content_block_delta,content_block_delta,content_block_delta,"
                              "content_block_stop,content_block_start,content_block_delta,"
                              "content_block_delta,content_block_delta,content_block_delta,"
                              "content_block_stop,message_delta,message_stop");
  OCK_ASSERT_STR_EQ(text.data, "Let me look.");
  OCK_ASSERT_STR_EQ(json0.data, "{\"city\":\"Paris\"}");
  OCK_ASSERT_STR_EQ(json1.data, "{\"tz\":\"CET\"}");
  OCK_ASSERT_INT_EQ(empty_first_partial, 2);
  OCK_ASSERT_CONTAINS(all, "\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_2\",\"name\":"
                           "\"get_time\",\"input\":{}}");
  OCK_ASSERT_CONTAINS(all, "\"stop_reason\":\"tool_use\"");
  ock_buf_free(&seq);
  ock_buf_free(&text);
  ock_buf_free(&json0);
  ock_buf_free(&json1);
  cJSON_Delete(events);
  free(all);
  ock_chunks_free(&c);
}

static void test_empty_content_stream_and_body(void) {
  struct answer a = answer(NULL, 0, "max_tokens");
  struct ock_chunks c;
  ock_chunks_init(&c);
  OCK_ASSERT_OK(ock_wire_anthropic.encode_events(&a.r, &a.f, &c));
  OCK_ASSERT_INT_EQ(c.n, 4); /* message_start, ping, message_delta, message_stop */
  OCK_ASSERT_CONTAINS(c.items[2], "\"stop_reason\":\"max_tokens\"");
  ock_chunks_free(&c);
  struct ock_buf b;
  ock_buf_init(&b, 1 << 20);
  OCK_ASSERT_OK(ock_wire_anthropic.encode_reply(&a.r, &a.f, &b));
  OCK_ASSERT_STR_EQ(b.data, "{\"id\":\"msg_x_0\",\"type\":\"message\",\"role\":\"assistant\","
                            "\"model\":\"claude\",\"content\":[],\"stop_reason\":\"max_tokens\","
                            "\"stop_sequence\":null,\"usage\":{\"input_tokens\":10,"
                            "\"output_tokens\":3}}");
  ock_buf_free(&b);
}

static void test_body_tool_use_and_raw_arguments(void) {
  struct ock_buf b;
  ock_buf_init(&b, 1 << 20);
  struct answer a = answer("t", 3, "tool_use");
  OCK_ASSERT_OK(ock_wire_anthropic.encode_reply(&a.r, &a.f, &b));
  OCK_ASSERT_CONTAINS(b.data, "\"content\":[{\"type\":\"text\",\"text\":\"t\"},{\"type\":"
                              "\"tool_use\",\"id\":\"toolu_1\",\"name\":\"get_weather\",\"input\":"
                              "{\"city\":\"Paris\"}}");
  /* arguments that are not JSON cannot be an object: the malformed reply carries a string */
  OCK_ASSERT_CONTAINS(b.data, "\"name\":\"broken\",\"input\":\"{not json\"}");
  ock_buf_free(&b);
}

/* Arguments outside the text writer's plain subset (a fraction written long, a \u escape,
 * white space, an array) go out as cJSON reads and prints them, the bytes of the tree encoder
 * this replaced: the same object whichever path wrote it. */
static void test_body_input_printed_as_cjson_prints_it(void) {
  static struct ock_tool_call odd[] = {
      {"toolu_a", "f", "{ \"n\": 1.50, \"s\": \"\\u0041\", \"l\": [1, 2] }"},
      {"toolu_b", "g", "[1,2]"},
      {"toolu_c", "h", "{\"k\":true} trailing"},
  };
  struct answer a = answer(NULL, 3, "tool_use");
  a.r.msg.calls = odd;
  struct ock_buf b;
  ock_buf_init(&b, 1 << 20);
  OCK_ASSERT_OK(ock_wire_anthropic.encode_reply(&a.r, &a.f, &b));
  OCK_ASSERT_CONTAINS(b.data, "\"id\":\"toolu_a\",\"name\":\"f\",\"input\":"
                              "{\"n\":1.5,\"s\":\"A\",\"l\":[1,2]}}");
  /* not an object: the string it is */
  OCK_ASSERT_CONTAINS(b.data, "\"name\":\"g\",\"input\":\"[1,2]\"}");
  /* cJSON_Parse stops after the object, so the object it read is sent */
  OCK_ASSERT_CONTAINS(b.data, "\"name\":\"h\",\"input\":{\"k\":true}}");
  ock_buf_free(&b);
}

static void test_error_envelopes(void) {
  struct ock_buf b;
  ock_buf_init(&b, 1 << 20);
  OCK_ASSERT_OK(ock_wire_anthropic.encode_error(529, NULL, NULL, NULL, "req_9", &b));
  OCK_ASSERT_STR_EQ(b.data, "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\","
                            "\"message\":\"ock: scripted HTTP 529\"},\"request_id\":\"req_9\"}");
  static const struct {
    int status;
    const char *type;
  } table[] = {/* the Messages API's documented table (errors page); other 4xx are
                * invalid_request_error, so 408 is one too */
               {400, "invalid_request_error"},
               {401, "authentication_error"},
               {402, "billing_error"},
               {403, "permission_error"},
               {404, "not_found_error"},
               {408, "invalid_request_error"},
               {413, "request_too_large"},
               {422, "invalid_request_error"},
               {429, "rate_limit_error"},
               {500, "api_error"},
               {503, "api_error"},
               {504, "timeout_error"}};
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
    char want[64];
    snprintf(want, sizeof want, "\"error\":{\"type\":\"%s\"", table[i].type);
    ock_buf_reset(&b);
    OCK_ASSERT_OK(ock_wire_anthropic.encode_error(table[i].status, NULL, NULL, NULL, "r", &b));
    OCK_ASSERT_CONTAINS(b.data, want);
  }
  ock_buf_reset(&b);
  OCK_ASSERT_OK(ock_wire_anthropic.encode_error_event(0, NULL, &b));
  OCK_ASSERT_STR_EQ(b.data,
                    "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":"
                    "\"overloaded_error\",\"message\":\"ock: scripted stream error\"}}\n\n");
  ock_buf_free(&b);
}

/* A reply that stopped on a sequence names it, as the Messages API does; otherwise null. */
static void test_stop_sequence_named(void) {
  struct answer a = answer("Hello", 0, "stop_sequence");
  a.f.stop_sequence = "###";
  struct ock_buf b;
  ock_buf_init(&b, 1 << 20);
  OCK_ASSERT_OK(ock_wire_anthropic.encode_reply(&a.r, &a.f, &b));
  OCK_ASSERT_CONTAINS(b.data, "\"stop_reason\":\"stop_sequence\",\"stop_sequence\":\"###\"");
  ock_buf_free(&b);
  struct ock_chunks c;
  ock_chunks_init(&c);
  OCK_ASSERT_OK(ock_wire_anthropic.encode_events(&a.r, &a.f, &c));
  int named = 0;
  for (size_t i = 0; i < c.n; i++)
    named |=
        strstr(c.items[i], "\"stop_reason\":\"stop_sequence\",\"stop_sequence\":\"###\"") != NULL;
  OCK_ASSERT_TRUE(named);
  ock_chunks_free(&c);
}

static const struct ock_test tests[] = {
    {"stop_sequence_named", test_stop_sequence_named},
    {"text_stream_exact_bytes", test_text_stream_exact_bytes},
    {"text_and_parallel_tools_stream", test_text_and_parallel_tools_stream},
    {"empty_content_stream_and_body", test_empty_content_stream_and_body},
    {"body_tool_use_and_raw_arguments", test_body_tool_use_and_raw_arguments},
    {"body_input_printed_as_cjson_prints_it", test_body_input_printed_as_cjson_prints_it},
    {"error_envelopes", test_error_envelopes},
    {NULL, NULL}};

const struct ock_suite suite_wire_anthropic = {"wire_anthropic", tests, NULL, NULL};
