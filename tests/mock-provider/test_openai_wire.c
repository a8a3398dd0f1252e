/* test_openai_wire.c: OpenAI Chat Completions bytes (mock-provider/openai_wire.c). */
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "runner.h"
#include "wire.h"

static const struct mock_answer_call CALLS[] = {
    {"call_1", "get_weather", "{\"city\":\"Paris\"}", 0},
    {"call_2", "get_time", "{\"tz\":\"CET\"}", 0},
};

static struct mock_answer answer(const char *text, size_t n_calls, const char *finish) {
  struct mock_answer a = {.id = "chatcmpl-x-0",
                          .model = "m",
                          .created = 1700000000,
                          .text = text,
                          .calls = CALLS,
                          .n_calls = n_calls,
                          .finish = finish,
                          .input_tokens = 10,
                          .output_tokens = 3,
                          .chunk_size = 4};
  return a;
}

/* joined: every piece, concatenated. */
static char *joined(const struct mock_chunks *c) {
  struct ock_buf b;
  ock_buf_init(&b, 1 << 20);
  for (size_t i = 0; i < c->n; i++)
    OCK_ASSERT_OK(ock_buf_append(&b, c->items[i], c->lens[i]));
  return ock_buf_take(&b);
}

static void test_text_stream_exact_bytes(void) {
  struct mock_answer a = answer("Hi there", 0, "stop");
  struct mock_chunks c;
  ock__chunks_init(&c);
  OCK_ASSERT_OK(ock__openai_wire.events(&a, &c));
  char *all = joined(&c);
#define HEAD                                                                                       \
  "data: {\"id\":\"chatcmpl-x-0\",\"object\":\"chat.completion.chunk\",\"created\":"               \
  "1700000000,\"model\":\"m\",\"system_fingerprint\":null,\"choices\":[{\"index\":0,"
  OCK_ASSERT_STR_EQ(
      all,
      HEAD "\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"logprobs\":null,"
           "\"finish_reason\":null}]}\n\n" HEAD
           "\"delta\":{\"content\":\"Hi t\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n" HEAD
           "\"delta\":{\"content\":\"here\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n" HEAD
           "\"delta\":{},\"logprobs\":null,\"finish_reason\":\"stop\"}]}\n\n"
           "data: [DONE]\n\n");
#undef HEAD
  OCK_ASSERT_INT_EQ(c.n, 5);
  free(all);
  ock__chunks_free(&c);
}

static void test_parallel_tool_calls_stream_by_index(void) {
  struct mock_answer a = answer("ok", 2, "tool_calls");
  a.include_usage = 1;
  struct mock_chunks c;
  ock__chunks_init(&c);
  OCK_ASSERT_OK(ock__openai_wire.events(&a, &c));
  char *all = joined(&c);
  cJSON *events = sse_split(all);
  char args[2][128] = {"", ""};
  char ids[2][32] = {"", ""};
  char text[64] = "";
  char finish[32] = "";
  int usage_chunks = 0, done = 0, first_role_null = -1;
  cJSON *e;
  cJSON_ArrayForEach(e, events) {
    const char *data = ock_json_str(e, "data");
    if (!strcmp(data, "[DONE]")) {
      done++;
      continue;
    }
    cJSON *chunk = cJSON_Parse(data);
    cJSON *choices = cJSON_GetObjectItem(chunk, "choices");
    /* with include_usage every chunk carries usage: null, the last one the totals */
    OCK_ASSERT_INT_EQ(cJSON_GetObjectItem(chunk, "usage") != NULL, 1);
    if (cJSON_GetArraySize(choices) == 0) {
      usage_chunks++;
      OCK_ASSERT_INT_EQ(ock_json_int(cJSON_GetObjectItem(chunk, "usage"), "total_tokens", 0), 13);
    }
    cJSON *choice = cJSON_GetArrayItem(choices, 0);
    cJSON *delta = cJSON_GetObjectItem(choice, "delta");
    if (first_role_null < 0 && ock_json_str(delta, "role"))
      first_role_null = cJSON_IsNull(cJSON_GetObjectItem(delta, "content"));
    const char *content = ock_json_str(delta, "content");
    if (content)
      strncat(text, content, sizeof text - strlen(text) - 1);
    cJSON *tc;
    cJSON_ArrayForEach(tc, cJSON_GetObjectItem(delta, "tool_calls")) {
      int idx = (int)ock_json_int(tc, "index", -1);
      OCK_ASSERT_INT_EQ(idx >= 0 && idx < 2, 1);
      if (idx < 0 || idx > 1)
        continue;
      if (ock_json_str(tc, "id"))
        snprintf(ids[idx], sizeof ids[idx], "%s", ock_json_str(tc, "id"));
      const char *frag = ock_json_str(cJSON_GetObjectItem(tc, "function"), "arguments");
      if (frag)
        strncat(args[idx], frag, sizeof args[idx] - strlen(args[idx]) - 1);
    }
    if (ock_json_str(choice, "finish_reason"))
      snprintf(finish, sizeof finish, "%s", ock_json_str(choice, "finish_reason"));
    cJSON_Delete(chunk);
  }
  OCK_ASSERT_INT_EQ(first_role_null, 0); /* text follows: content "" */
  OCK_ASSERT_STR_EQ(text, "ok");
  OCK_ASSERT_STR_EQ(ids[0], "call_1");
  OCK_ASSERT_STR_EQ(ids[1], "call_2");
  OCK_ASSERT_STR_EQ(args[0], "{\"city\":\"Paris\"}");
  OCK_ASSERT_STR_EQ(args[1], "{\"tz\":\"CET\"}");
  OCK_ASSERT_STR_EQ(finish, "tool_calls");
  OCK_ASSERT_INT_EQ(usage_chunks, 1);
  OCK_ASSERT_INT_EQ(done, 1);
  /* the arguments really are split: more than one fragment per call */
  OCK_ASSERT_CONTAINS(all, "\"function\":{\"arguments\":\"{\\\"ci\"}");
  cJSON_Delete(events);
  free(all);
  ock__chunks_free(&c);
}

static void test_tool_calls_only_role_chunk_has_null_content(void) {
  struct mock_answer a = answer(NULL, 1, "tool_calls");
  struct mock_chunks c;
  ock__chunks_init(&c);
  OCK_ASSERT_OK(ock__openai_wire.events(&a, &c));
  OCK_ASSERT_CONTAINS(c.items[0], "\"delta\":{\"role\":\"assistant\",\"content\":null}");
  OCK_ASSERT_CONTAINS(c.items[1], "\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":"
                                  "\"function\",\"function\":{\"name\":\"get_weather\","
                                  "\"arguments\":\"\"}}]");
  ock__chunks_free(&c);
}

static void test_body_text_and_calls_and_empty(void) {
  struct ock_buf b;
  ock_buf_init(&b, 1 << 20);
  struct mock_answer a = answer("Hi", 1, "tool_calls");
  OCK_ASSERT_OK(ock__openai_wire.body(&a, &b));
  OCK_ASSERT_STR_EQ(
      b.data, "{\"id\":\"chatcmpl-x-0\",\"object\":\"chat.completion\",\"created\":1700000000,"
              "\"model\":\"m\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
              "\"content\":\"Hi\",\"refusal\":null,\"tool_calls\":[{\"id\":\"call_1\",\"type\":"
              "\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":"
              "\"{\\\"city\\\":\\\"Paris\\\"}\"}}]},\"logprobs\":null,\"finish_reason\":"
              "\"tool_calls\"}],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":3,"
              "\"total_tokens\":13},\"system_fingerprint\":null}");
  ock_buf_reset(&b);
  a = answer(NULL, 0, "content_filter");
  OCK_ASSERT_OK(ock__openai_wire.body(&a, &b));
  OCK_ASSERT_CONTAINS(b.data, "\"content\":\"\",");
  OCK_ASSERT_CONTAINS(b.data, "\"finish_reason\":\"content_filter\"");
  ock_buf_free(&b);
}

static void test_error_envelopes(void) {
  struct ock_buf b;
  ock_buf_init(&b, 1 << 20);
  OCK_ASSERT_OK(ock__openai_wire.error_body(429, NULL, NULL, NULL, "req_1", &b));
  OCK_ASSERT_STR_EQ(b.data, "{\"error\":{\"message\":\"ock: scripted HTTP 429\",\"type\":"
                            "\"requests\",\"param\":null,\"code\":\"rate_limit_exceeded\"}}");
  ock_buf_reset(&b);
  OCK_ASSERT_OK(ock__openai_wire.error_body(400, "bad", "messages.[1].role", NULL, NULL, &b));
  OCK_ASSERT_STR_EQ(b.data, "{\"error\":{\"message\":\"bad\",\"type\":\"invalid_request_error\","
                            "\"param\":\"messages.[1].role\",\"code\":null}}");
  /* SPEC 6.6's table, status by status */
  static const struct {
    int status;
    const char *type_and_code;
  } table[] = {
      {401, "\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"invalid_api_key\""},
      {403, "\"type\":\"invalid_request_error\",\"param\":null,\"code\":null"},
      {404, "\"type\":\"invalid_request_error\",\"param\":null,\"code\":null"},
      {408, "\"type\":\"timeout\",\"param\":null,\"code\":null"},
      {500, "\"type\":\"server_error\",\"param\":null,\"code\":null"},
      {503, "\"type\":\"server_error\",\"param\":null,\"code\":null"},
      {529, "\"type\":\"server_error\",\"param\":null,\"code\":\"overloaded\""}};
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
    ock_buf_reset(&b);
    OCK_ASSERT_OK(ock__openai_wire.error_body(table[i].status, NULL, NULL, NULL, NULL, &b));
    OCK_ASSERT_CONTAINS(b.data, table[i].type_and_code);
  }
  ock_buf_reset(&b);
  OCK_ASSERT_OK(ock__openai_wire.error_event(0, NULL, &b));
  OCK_ASSERT_STR_EQ(b.data, "data: {\"error\":{\"message\":\"ock: scripted stream error\",\"type\":"
                            "\"server_error\",\"param\":null,\"code\":null}}\n\n");
  ock_buf_free(&b);
}

static void test_utf8_never_split(void) {
  /* "héé" is 5 bytes, 3 characters: a 2-character chunk holds "hé" (3 bytes). */
  OCK_ASSERT_INT_EQ(ock__utf8_prefix("h\xc3\xa9\xc3\xa9", 5, 2), 3);
  OCK_ASSERT_INT_EQ(ock__utf8_prefix("h\xc3\xa9\xc3\xa9", 5, 10), 5);
  struct mock_answer a = answer("\xc3\xa9\xc3\xa9\xc3\xa9", 0, "stop");
  a.chunk_size = 1;
  struct mock_chunks c;
  ock__chunks_init(&c);
  OCK_ASSERT_OK(ock__openai_wire.events(&a, &c));
  OCK_ASSERT_INT_EQ(c.n, 6); /* role, 3 deltas, finish, [DONE] */
  OCK_ASSERT_CONTAINS(c.items[1], "\"content\":\"\xc3\xa9\"}");
  ock__chunks_free(&c);
}

static const struct ock_test tests[] = {
    {"text_stream_exact_bytes", test_text_stream_exact_bytes},
    {"parallel_tool_calls_stream_by_index", test_parallel_tool_calls_stream_by_index},
    {"tool_calls_only_role_chunk_has_null_content",
     test_tool_calls_only_role_chunk_has_null_content},
    {"body_text_and_calls_and_empty", test_body_text_and_calls_and_empty},
    {"error_envelopes", test_error_envelopes},
    {"utf8_never_split", test_utf8_never_split},
    {NULL, NULL}};

const struct ock_suite mock_openai_wire_suite = {"mock_openai_wire", tests, NULL, NULL};
