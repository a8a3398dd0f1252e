/* test_wire_responses.c: the OpenAI Responses API bytes (core/wire_responses.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire_helpers.h"
#include "runner.h"
#include "ock/status.h"
#include "ock/wire_responses.h"

static struct ock_tool_call CALLS[] = {
    {"call_1", "get_weather", "{\"city\":\"Paris\"}"},
    {"call_2", "get_time", "{\"tz\":\"CET\"}"},
};

static struct answer answer(const char *text, size_t n_calls, const char *finish) {
  struct answer a = {.f = {.model = "gpt", .created = 1700000001, .chunk_size = 4}};
  ock_reply_init(&a.r);
  a.r.id = "resp_ab_1";
  a.r.msg.content = (char *)text;
  a.r.msg.calls = CALLS;
  a.r.msg.n_calls = n_calls;
  a.r.finish_reason = (char *)finish;
  a.r.input_tokens = 10;
  a.r.output_tokens = 3;
  return a;
}

static void test_body_exact_bytes(void) {
  struct answer a = answer("Hi", 1, NULL);
  struct ock_buf b;
  ock_buf_init(&b, 1 << 20);
  OCK_ASSERT_OK(ock_wire_responses.encode_reply(&a.r, &a.f, &b));
  OCK_ASSERT_STR_EQ(
      b.data,
      "{\"id\":\"resp_ab_1\",\"object\":\"response\",\"created_at\":1700000001,\"status\":"
      "\"completed\",\"background\":false,\"error\":null,\"incomplete_details\":null,\"model\":"
      "\"gpt\",\"output\":[{\"id\":\"msg_ab_1\",\"type\":\"message\",\"status\":\"completed\","
      "\"content\":[{\"type\":\"output_text\",\"annotations\":[],\"logprobs\":[],\"text\":\"Hi\"}],"
      "\"role\":\"assistant\"},{\"id\":\"fc_ab_1_0\",\"type\":\"function_call\",\"status\":"
      "\"completed\",\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\",\"call_id\":\"call_1\","
      "\"name\":\"get_weather\"}],\"usage\":{\"input_tokens\":10,\"input_tokens_details\":{"
      "\"cached_tokens\":0},\"output_tokens\":3,\"output_tokens_details\":{\"reasoning_tokens\":0},"
      "\"total_tokens\":13}}");
  ock_buf_free(&b);
}

/* An incomplete reply says why, and reads back as that reason. */
static void test_incomplete_round_trip(void) {
  struct answer a = answer("Cut sh", 0, "max_output_tokens");
  struct ock_buf b;
  ock_buf_init(&b, 1 << 20);
  OCK_ASSERT_OK(ock_wire_responses.encode_reply(&a.r, &a.f, &b));
  OCK_ASSERT_CONTAINS(b.data, "\"status\":\"incomplete\"");
  OCK_ASSERT_CONTAINS(b.data, "\"incomplete_details\":{\"reason\":\"max_output_tokens\"}");
  cJSON *j = cJSON_Parse(b.data);
  struct ock_reply r;
  struct ock_jerr err;
  ock_reply_init(&r);
  OCK_ASSERT_OK(ock_reply_from_responses(j, &r, &err));
  OCK_ASSERT_STR_EQ(r.finish_reason, "max_output_tokens");
  OCK_ASSERT_STR_EQ(r.msg.content, "Cut sh");
  OCK_ASSERT_INT_EQ(r.msg.n_calls, 0);
  ock_reply_clear(&r);
  cJSON_Delete(j);
  ock_buf_free(&b);
}

/* feed: every piece of c through a decoder; returns the last status. */
static int feed(const struct ock_chunks *c, size_t n, struct ock_reply *out,
                struct ock_wire_error *we) {
  ock_wire_stream *s = NULL;
  OCK_ASSERT_OK(ock_wire_stream_new(OCK_WIRE_RESPONSES, 1 << 20, &s));
  int rc = OCK_OK;
  for (size_t i = 0; i < n && !rc; i++) {
    cJSON *events = sse_split(c->items[i]);
    const cJSON *ev = cJSON_GetArrayItem(events, 0);
    rc = ock_wire_stream_event(s, ock_json_str(ev, "event"), ock_json_str(ev, "data"), NULL, NULL,
                               we);
    cJSON_Delete(events);
  }
  if (!rc)
    rc = ock_wire_stream_finish(s, out, we);
  ock_wire_stream_free(s);
  return rc;
}

/* The events are numbered from 0 in order, each named as its type, and decode to the reply. */
static void test_stream_sequence_and_round_trip(void) {
  struct answer a = answer("Let me check.", 2, NULL);
  struct ock_chunks c;
  ock_chunks_init(&c);
  OCK_ASSERT_OK(ock_wire_responses.encode_events(&a.r, &a.f, &c));
  static const char *const head[] = {"response.created", "response.in_progress",
                                     "response.output_item.added", "response.content_part.added",
                                     "response.output_text.delta"};
  for (size_t i = 0; i < c.n; i++) {
    cJSON *events = sse_split(c.items[i]);
    const cJSON *ev = cJSON_GetArrayItem(events, 0);
    cJSON *data = cJSON_Parse(ock_json_str(ev, "data"));
    OCK_ASSERT_INT_EQ(ock_json_int(data, "sequence_number", -1), (long long)i);
    OCK_ASSERT_STR_EQ(ock_json_str(ev, "event"), ock_json_str(data, "type"));
    if (i < 5)
      OCK_ASSERT_STR_EQ(ock_json_str(data, "type"), head[i]);
    cJSON_Delete(data);
    cJSON_Delete(events);
  }
  OCK_ASSERT_CONTAINS(c.items[c.n - 1], "event: response.completed\n");
  char *all = joined(&c);
  OCK_ASSERT_CONTAINS(all, "\"type\":\"response.function_call_arguments.done\","
                           "\"sequence_number\":");
  OCK_ASSERT_CONTAINS(all, "\"name\":\"get_time\",\"arguments\":\"{\\\"tz\\\":\\\"CET\\\"}\"");
  free(all);
  struct ock_reply r;
  struct ock_wire_error we;
  ock_reply_init(&r);
  OCK_ASSERT_OK(feed(&c, c.n, &r, &we));
  OCK_ASSERT_STR_EQ(r.msg.content, "Let me check.");
  OCK_ASSERT_INT_EQ(r.msg.n_calls, 2);
  OCK_ASSERT_STR_EQ(r.msg.calls[1].id, "call_2");
  OCK_ASSERT_STR_EQ(r.msg.calls[1].name, "get_time");
  OCK_ASSERT_STR_EQ(r.msg.calls[0].arguments, "{\"city\":\"Paris\"}");
  OCK_ASSERT_STR_EQ(r.id, "resp_ab_1");
  OCK_ASSERT_STR_EQ(r.finish_reason, "completed");
  OCK_ASSERT_INT_EQ(r.input_tokens, 10);
  ock_reply_clear(&r);
  /* without response.completed the stream is not a reply, even with every item done */
  ock_reply_init(&r);
  OCK_ASSERT_INT_EQ(feed(&c, c.n - 1, &r, &we), OCK_EPROTO);
  OCK_ASSERT_CONTAINS(we.message, "response.completed");
  ock_chunks_free(&c);
}

/* The error event carries the position it takes in the stream; it fails the stream. */
static void test_error_event(void) {
  struct ock_buf b;
  ock_buf_init(&b, 1 << 20);
  OCK_ASSERT_OK(ock_wire_responses.encode_error_event_at(6, 0, NULL, &b));
  OCK_ASSERT_STR_EQ(b.data, "event: error\ndata: {\"type\":\"error\",\"sequence_number\":6,"
                            "\"code\":\"server_error\",\"message\":\"ock: scripted stream error\","
                            "\"param\":null}\n\n");
  ock_wire_stream *s = NULL;
  struct ock_wire_error we;
  OCK_ASSERT_OK(ock_wire_stream_new(OCK_WIRE_RESPONSES, 1 << 20, &s));
  OCK_ASSERT_INT_EQ(ock_wire_stream_event(s, "error",
                                          "{\"type\":\"error\",\"code\":\"server_error\","
                                          "\"message\":\"boom\",\"sequence_number\":3}",
                                          NULL, NULL, &we),
                    OCK_EPROTO);
  OCK_ASSERT_CONTAINS(we.message, "server_error: boom");
  ock_wire_stream_free(s);
  /* response.failed too */
  OCK_ASSERT_OK(ock_wire_stream_new(OCK_WIRE_RESPONSES, 1 << 20, &s));
  OCK_ASSERT_INT_EQ(ock_wire_stream_event(s, "response.failed",
                                          "{\"type\":\"response.failed\",\"response\":{\"status\":"
                                          "\"failed\",\"error\":{\"code\":\"server_error\","
                                          "\"message\":\"down\"}}}",
                                          NULL, NULL, &we),
                    OCK_EPROTO);
  OCK_ASSERT_CONTAINS(we.message, "down");
  ock_wire_stream_free(s);
  ock_buf_free(&b);
  ock_buf_init(&b, 1 << 20);
  OCK_ASSERT_OK(ock_wire_responses.encode_error(400, "No tool output found for function call c.",
                                                "input", NULL, NULL, &b));
  OCK_ASSERT_STR_EQ(b.data,
                    "{\"error\":{\"message\":\"No tool output found for function call c.\","
                    "\"type\":\"invalid_request_error\",\"param\":\"input\",\"code\":null}}");
  ock_buf_free(&b);
}

/* A history goes out as input items and comes back the same; an assistant text and the calls
 * right after it are one message. */
static void test_history_round_trip(void) {
  struct ock_history h, back;
  ock_history_init(&h);
  ock_history_init(&back);
  OCK_ASSERT_OK(ock_history_add_text(&h, OCK_ROLE_SYSTEM, "Be brief."));
  OCK_ASSERT_OK(ock_history_add_text(&h, OCK_ROLE_USER, "Weather?"));
  OCK_ASSERT_OK(ock_history_add_assistant(&h, "Checking.", CALLS, 2));
  OCK_ASSERT_OK(ock_history_add_tool_result(&h, "call_1", "15 degrees", 0));
  OCK_ASSERT_OK(ock_history_add_tool_result(&h, "call_2", "noon", 0));
  OCK_ASSERT_OK(ock_history_add_assistant(&h, NULL, CALLS, 1));
  cJSON *input = NULL;
  OCK_ASSERT_OK(ock_history_to_responses(&h, &input));
  char *text = cJSON_PrintUnformatted(input);
  OCK_ASSERT_CONTAINS(text, "{\"role\":\"assistant\",\"content\":\"Checking.\"},{\"type\":"
                            "\"function_call\",\"call_id\":\"call_1\",\"name\":\"get_weather\","
                            "\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\"}");
  OCK_ASSERT_CONTAINS(text, "{\"type\":\"function_call_output\",\"call_id\":\"call_2\","
                            "\"output\":\"noon\"}");
  free(text);
  struct ock_jerr err;
  OCK_ASSERT_OK(ock_history_from_responses(input, &back, &err));
  OCK_ASSERT_INT_EQ(back.len, h.len);
  OCK_ASSERT_INT_EQ(back.items[2].n_calls, 2);
  OCK_ASSERT_STR_EQ(back.items[2].content, "Checking.");
  OCK_ASSERT_INT_EQ(back.items[2].wire_index, 2);
  OCK_ASSERT_STR_EQ(back.items[4].tool_call_id, "call_2");
  OCK_ASSERT_INT_EQ(back.items[4].wire_index, 6);
  OCK_ASSERT_INT_EQ(back.items[5].n_calls, 1);
  OCK_ASSERT_NULL(back.items[5].content);
  cJSON_Delete(input);
  ock_history_free(&back);
  ock_history_free(&h);
}

/* Input read as the API reads it: a string is one user message, parts are joined, reasoning
 * items are skipped without breaking a call group, bad items name their path. */
static void test_input_shapes(void) {
  struct ock_history h;
  struct ock_jerr err;
  ock_history_init(&h);
  cJSON *s = cJSON_CreateString("hi");
  OCK_ASSERT_OK(ock_history_from_responses(s, &h, &err));
  OCK_ASSERT_INT_EQ(h.len, 1);
  OCK_ASSERT_INT_EQ(h.items[0].role, OCK_ROLE_USER);
  cJSON_Delete(s);
  ock_history_free(&h);
  cJSON *in = cJSON_Parse(
      "[{\"type\":\"message\",\"role\":\"developer\",\"content\":[{\"type\":\"input_text\","
      "\"text\":\"a\"},{\"type\":\"input_text\",\"text\":\"b\"}]},"
      "{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\","
      "\"text\":\"x\"}]},{\"type\":\"reasoning\",\"id\":\"rs_1\",\"summary\":[]},"
      "{\"type\":\"function_call\",\"call_id\":\"c1\",\"name\":\"f\",\"arguments\":\"{}\"}]");
  OCK_ASSERT_OK(ock_history_from_responses(in, &h, &err));
  OCK_ASSERT_INT_EQ(h.len, 2);
  OCK_ASSERT_INT_EQ(h.items[0].role, OCK_ROLE_SYSTEM);
  OCK_ASSERT_STR_EQ(h.items[0].content, "ab");
  OCK_ASSERT_INT_EQ(h.items[1].n_calls, 1);
  cJSON_Delete(in);
  ock_history_free(&h);
  in = cJSON_Parse("[{\"type\":\"function_call_output\",\"output\":\"x\"}]");
  OCK_ASSERT_INT_EQ(ock_history_from_responses(in, &h, &err), OCK_EMISSING);
  OCK_ASSERT_STR_EQ(err.where, "$.input[0].call_id");
  cJSON_Delete(in);
  ock_history_free(&h);
}

/* The request: model, input, flat tools with strict false, stream, store false. */
static void test_request_bytes(void) {
  struct ock_history h;
  ock_history_init(&h);
  OCK_ASSERT_OK(ock_history_add_text(&h, OCK_ROLE_USER, "hi"));
  struct ock_tool_spec t = {"get_weather", "Weather", NULL};
  struct ock_wire_request req = {.model = "gpt", .messages = &h, .tools = &t, .n_tools = 1};
  struct ock_buf b;
  ock_buf_init(&b, 1 << 20);
  OCK_ASSERT_OK(ock_wire_responses.encode_request(&req, &b));
  OCK_ASSERT_STR_EQ(b.data, "{\"model\":\"gpt\",\"input\":[{\"role\":\"user\",\"content\":\"hi\"}],"
                            "\"tools\":[{\"type\":\"function\",\"name\":\"get_weather\","
                            "\"description\":\"Weather\",\"parameters\":{\"type\":\"object\"},"
                            "\"strict\":false}],\"stream\":false,\"store\":false}");
  ock_buf_free(&b);
  ock_history_free(&h);
}

/* The history edits reach function_call_output items: dropping one leaves an orphan call. */
static void test_edits_reach_outputs(void) {
  cJSON *body = cJSON_Parse(
      "{\"input\":[{\"role\":\"user\",\"content\":\"q\"},{\"type\":\"function_call\",\"call_id\":"
      "\"c1\",\"name\":\"f\",\"arguments\":\"{}\"},{\"type\":\"function_call_output\","
      "\"call_id\":\"c1\",\"output\":\"Error: no\"}]}");
  OCK_ASSERT_INT_EQ(ock_wire_result_count(body, &ock_wire_responses), 1);
  OCK_ASSERT_INT_EQ(ock_wire_suffix_error_results(body, &ock_wire_responses, "!"), 1);
  const cJSON *out = cJSON_GetArrayItem(cJSON_GetObjectItem(body, "input"), 2);
  OCK_ASSERT_STR_EQ(ock_json_str(out, "output"), "Error: no!");
  OCK_ASSERT_FALSE(cJSON_HasObjectItem(out, "content"));
  OCK_ASSERT_INT_EQ(ock_wire_drop_last_result(body, &ock_wire_responses), 1);
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(body, "input")), 2);
  OCK_ASSERT_INT_EQ(ock_wire_result_count(body, &ock_wire_responses), 0);
  cJSON_Delete(body);
}

/* completed_response: the response member of the last event (response.completed) of r
 * streamed, printed compact: what the tree encoder makes of the finished reply. */
static char *completed_response(const struct answer *a) {
  struct ock_chunks c;
  ock_chunks_init(&c);
  OCK_ASSERT_OK(ock_wire_responses.encode_events(&a->r, &a->f, &c));
  cJSON *events = sse_split(c.items[c.n - 1]);
  cJSON *data = cJSON_Parse(ock_json_str(cJSON_GetArrayItem(events, 0), "data"));
  char *text = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(data, "response"));
  cJSON_Delete(data);
  cJSON_Delete(events);
  ock_chunks_free(&c);
  return text;
}

/* The non-streamed body and the stored items are written as text; the streamed
 * response.completed is a tree. Both give the same bytes, on every shape and on strings that
 * need escaping; and the items written one by one are the body's output, ids included. */
static void test_text_writer_equals_tree(void) {
  static struct ock_tool_call odd[] = {{"call_\"q\"", "t\u00e9st", "{\"s\":\"a\\nb\x01\"}"},
                                       {"call_2", "x", NULL}};
  struct answer cases[] = {answer("Hi", 0, NULL),
                           answer("Let me check.", 2, NULL),
                           answer(NULL, 2, NULL),
                           answer("", 1, NULL),
                           answer("Cut sh", 0, "max_output_tokens"),
                           answer("line\n\"quoted\" \u00e9 \t\x02 </x>", 2, "content_filter")};
  cases[5].r.msg.calls = odd;
  cases[5].r.id = NULL;
  cases[5].f.model = "m\"odel";
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    struct ock_buf b, item;
    ock_buf_init(&b, 1 << 20);
    ock_buf_init(&item, 1 << 20);
    OCK_ASSERT_OK(ock_wire_responses.encode_reply(&cases[i].r, &cases[i].f, &b));
    char *tree = completed_response(&cases[i]);
    OCK_ASSERT_STR_EQ(b.data, tree);
    cJSON *body = cJSON_Parse(b.data);
    const cJSON *output = cJSON_GetObjectItemCaseSensitive(body, "output");
    OCK_ASSERT_INT_EQ((long long)ock_responses_output_len(&cases[i].r), cJSON_GetArraySize(output));
    for (size_t k = 0; k < ock_responses_output_len(&cases[i].r); k++) {
      char id[160];
      ock_buf_reset(&item);
      OCK_ASSERT_OK(ock_responses_write_item(&cases[i].r, k, &item));
      ock_responses_item_id(&cases[i].r, k, id, sizeof id);
      char *want = cJSON_PrintUnformatted(cJSON_GetArrayItem(output, (int)k));
      OCK_ASSERT_STR_EQ(item.data, want);
      OCK_ASSERT_STR_EQ(id, ock_json_str(cJSON_GetArrayItem(output, (int)k), "id"));
      free(want);
    }
    cJSON_Delete(body);
    free(tree);
    ock_buf_free(&item);
    ock_buf_free(&b);
  }
}

static const struct ock_test tests[] = {
    {"body_exact_bytes", test_body_exact_bytes},
    {"text_writer_equals_tree", test_text_writer_equals_tree},
    {"incomplete_round_trip", test_incomplete_round_trip},
    {"stream_sequence_and_round_trip", test_stream_sequence_and_round_trip},
    {"error_event", test_error_event},
    {"history_round_trip", test_history_round_trip},
    {"input_shapes", test_input_shapes},
    {"request_bytes", test_request_bytes},
    {"edits_reach_outputs", test_edits_reach_outputs},
    {NULL, NULL}};

const struct ock_suite suite_wire_responses = {"wire_responses", tests, NULL, NULL};
