/*
 * test_responses.c: the mock's OpenAI Responses API (POST /v1/responses): replies, the stored
 * conversation behind previous_response_id, item references to stored items, both orphan texts
 * and their findings, and the wire's fault shapes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ock/fixture.h"
#include "helpers.h"
#include "ock/json.h"
#include "runner.h"

/* Two tool rounds and a text; the second turn only answers a request whose last message is the
 * first call's result. */
static const char *FIXTURE =
    "{\"ock_fixture\":1,\"id\":\"mock-responses\",\"session\":{\"prompts\":[\"hi\"],"
    "\"providers\":[{\"name\":\"gpt\",\"api\":\"responses\",\"model\":\"gpt-test\"}],"
    "\"tools\":[{\"name\":\"get_weather\"}]},\"script\":{\"gpt\":["
    "{\"text\":\"Let me check.\",\"tool_calls\":[{\"name\":\"get_weather\",\"arguments\":"
    "{\"city\":\"Paris\"}}]},{\"text\":\"15 degrees.\"},{\"text\":\"again\"},"
    "{\"text\":\"more\"}]}}";

/* call_id: the deterministic id of call I of turn T of this fixture. */
static void call_id(char *out, size_t n, int turn, int i) {
  snprintf(out, n, "call_%08x_%d_%d", (unsigned)ock_fnv1a("mock-responses"), turn, i);
}

static cJSON *post(ock_mock *m, const char *body, long want_status) {
  struct http_reply r;
  http_post(m, "/v1/responses", body, NULL, &r);
  if (r.status != want_status)
    ock_test_fail(__LINE__, __FILE__, "HTTP %ld, want %ld: %s", r.status, want_status,
                  r.body.data ? r.body.data : "");
  cJSON *j = cJSON_Parse(r.body.data ? r.body.data : "");
  http_reply_free(&r);
  return j;
}

static void expect_error(const cJSON *body, const char *message, const char *param,
                         const char *code) {
  const cJSON *e = cJSON_GetObjectItem(body, "error");
  OCK_ASSERT_STR_EQ(ock_json_str(e, "message"), message);
  OCK_ASSERT_STR_EQ(ock_json_str(e, "type"), "invalid_request_error");
  OCK_ASSERT_STR_EQ(ock_json_str(e, "param"), param);
  if (code)
    OCK_ASSERT_STR_EQ(ock_json_str(e, "code"), code);
  else
    OCK_ASSERT_TRUE(cJSON_IsNull(cJSON_GetObjectItem(e, "code")));
}

/* previous_response_id continues the stored conversation: the second request sends only the
 * output, and the mock validates (and journals) the chained history. */
static void test_chained_conversation(void) {
  ock_mock *m = mock_from(FIXTURE, NULL);
  if (!m)
    return;
  cJSON *first =
      post(m, "{\"model\":\"gpt-test\",\"instructions\":\"Be brief.\",\"input\":\"hi\"}", 200);
  char id[64], want_id[64];
  call_id(id, sizeof id, 1, 0);
  snprintf(want_id, sizeof want_id, "resp_%08x_1", (unsigned)ock_fnv1a("mock-responses"));
  OCK_ASSERT_STR_EQ(ock_json_str(first, "id"), want_id);
  const cJSON *call = cJSON_GetArrayItem(cJSON_GetObjectItem(first, "output"), 1);
  OCK_ASSERT_STR_EQ(ock_json_str(call, "type"), "function_call");
  OCK_ASSERT_STR_EQ(ock_json_str(call, "call_id"), id);
  OCK_ASSERT_STR_EQ(ock_json_str(call, "arguments"), "{\"city\":\"Paris\"}");
  char body[512];
  snprintf(body, sizeof body,
           "{\"model\":\"gpt-test\",\"previous_response_id\":\"%s\",\"input\":[{\"type\":"
           "\"function_call_output\",\"call_id\":\"%s\",\"output\":\"15 degrees\"}]}",
           want_id, id);
  cJSON *second = post(m, body, 200);
  const cJSON *msg = cJSON_GetArrayItem(cJSON_GetObjectItem(second, "output"), 0);
  OCK_ASSERT_STR_EQ(
      ock_json_str(cJSON_GetArrayItem(cJSON_GetObjectItem(msg, "content"), 0), "text"),
      "15 degrees.");
  /* the journal's neutral history of the second request holds the chain */
  cJSON *req = journal_nth(m, "llm_request", 1);
  const cJSON *neutral = cJSON_GetObjectItem(req, "neutral");
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(neutral), 3);
  OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetArrayItem(neutral, 0), "content"), "hi");
  const cJSON *stored = cJSON_GetArrayItem(neutral, 1);
  OCK_ASSERT_STR_EQ(ock_json_str(stored, "content"), "Let me check.");
  OCK_ASSERT_INT_EQ(ock_json_int(stored, "wire_index", 0), -1);
  OCK_ASSERT_STR_EQ(
      ock_json_str(cJSON_GetArrayItem(cJSON_GetObjectItem(stored, "tool_calls"), 0), "id"), id);
  OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetArrayItem(neutral, 2), "tool_call_id"), id);
  OCK_ASSERT_INT_EQ(journal_count(m, "finding"), 0);
  cJSON_Delete(req);
  cJSON_Delete(second);
  cJSON_Delete(first);
  ock_mock_free(m);
}

/* Both orphan directions get the API's own 400 (param input, code null) and a finding, also
 * when the call is only in the stored conversation. The turn is not used up. */
static void test_orphans_get_the_real_texts(void) {
  ock_mock *m = mock_from(FIXTURE, NULL);
  if (!m)
    return;
  cJSON *first = post(m, "{\"model\":\"gpt-test\",\"input\":\"hi\"}", 200);
  char id[64], body[512], want[160];
  call_id(id, sizeof id, 1, 0);
  snprintf(body, sizeof body,
           "{\"model\":\"gpt-test\",\"previous_response_id\":\"%s\",\"input\":[{\"role\":"
           "\"user\",\"content\":\"never mind\"}]}",
           ock_json_str(first, "id"));
  cJSON *e = post(m, body, 400);
  snprintf(want, sizeof want, "No tool output found for function call %s.", id);
  expect_error(e, want, "input", NULL);
  cJSON *f = journal_nth(m, "finding", 0);
  OCK_ASSERT_STR_EQ(ock_json_str(f, "shape"), "A01_UNMATCHED_TOOL_USE");
  OCK_ASSERT_STR_EQ(ock_json_str(f, "message"), want);
  OCK_ASSERT_INT_EQ(ock_json_bool(f, "rejected", -1), 1);
  cJSON_Delete(f);
  cJSON_Delete(e);
  e = post(m,
           "{\"model\":\"gpt-test\",\"input\":[{\"role\":\"user\",\"content\":\"q\"},{\"type\":"
           "\"function_call_output\",\"call_id\":\"call_gone\",\"output\":\"x\"}]}",
           400);
  expect_error(e, "No tool call found for function call output with call_id call_gone.", "input",
               NULL);
  f = journal_nth(m, "finding", 1);
  OCK_ASSERT_STR_EQ(ock_json_str(f, "shape"), "A02_UNMATCHED_TOOL_RESULT");
  OCK_ASSERT_INT_EQ(ock_json_int(f, "message_index", -2), 1);
  cJSON_Delete(f);
  cJSON_Delete(e);
  /* a message between a call and its output: the API pairs by call_id and answers; the
   * contract's finding is journaled, not rejected; the next scripted turn plays */
  snprintf(body, sizeof body,
           "{\"model\":\"gpt-test\",\"input\":[{\"type\":\"function_call\",\"call_id\":\"c9\","
           "\"name\":\"get_weather\",\"arguments\":\"{}\"},{\"role\":\"user\",\"content\":\"u\"},"
           "{\"type\":\"function_call_output\",\"call_id\":\"c9\",\"output\":\"x\"}]}");
  e = post(m, body, 200);
  f = journal_nth(m, "finding", 2);
  OCK_ASSERT_STR_EQ(ock_json_str(f, "shape"), "A03_INTERLEAVED_USER_MSG");
  OCK_ASSERT_INT_EQ(ock_json_bool(f, "rejected", -1), 0);
  OCK_ASSERT_STR_EQ(ock_json_str(e, "status"), "completed");
  cJSON_Delete(f);
  cJSON_Delete(e);
  cJSON_Delete(first);
  ock_mock_free(m);
}

/* An unknown previous_response_id, and one whose response was not stored, get the API's 400. */
static void test_unknown_previous_response(void) {
  ock_mock *m = mock_from(FIXTURE, NULL);
  if (!m)
    return;
  cJSON *e =
      post(m, "{\"model\":\"m\",\"previous_response_id\":\"resp_nope\",\"input\":\"x\"}", 400);
  expect_error(e, "Previous response with id 'resp_nope' not found.", "previous_response_id",
               "previous_response_not_found");
  cJSON_Delete(e);
  cJSON *first = post(m, "{\"model\":\"m\",\"store\":false,\"input\":\"x\"}", 200);
  char body[256], want[160];
  snprintf(body, sizeof body, "{\"model\":\"m\",\"previous_response_id\":\"%s\",\"input\":\"y\"}",
           ock_json_str(first, "id"));
  snprintf(want, sizeof want, "Previous response with id '%s' not found.",
           ock_json_str(first, "id"));
  e = post(m, body, 400);
  expect_error(e, want, "previous_response_id", "previous_response_not_found");
  cJSON_Delete(e);
  cJSON_Delete(first);
  ock_mock_free(m);
}

/* second_neutral plays the first turn, then sends second (a printf format given the first
 * reply's message item id, its function_call item id, and the call's call_id twice, in that
 * order) and returns the journal's neutral history of the second request (a copy). */
static cJSON *second_neutral(const char *second, long want_status) {
  ock_mock *m = mock_from(FIXTURE, NULL);
  if (!m)
    return NULL;
  cJSON *first = post(m, "{\"model\":\"gpt-test\",\"input\":\"hi\"}", 200);
  const cJSON *output = cJSON_GetObjectItem(first, "output");
  const cJSON *call = cJSON_GetArrayItem(output, 1);
  const char *call_id = ock_json_str(call, "call_id");
  char body[1024];
  snprintf(body, sizeof body, second, ock_json_str(cJSON_GetArrayItem(output, 0), "id"),
           ock_json_str(call, "id"), call_id, call_id);
  cJSON *reply = post(m, body, want_status);
  cJSON *req = journal_nth(m, "llm_request", 1);
  cJSON *neutral = cJSON_DetachItemFromObject(req, "neutral");
  cJSON_Delete(req);
  cJSON_Delete(reply);
  cJSON_Delete(first);
  ock_mock_free(m);
  return neutral;
}

/* A history sent with item references (as @ai-sdk/openai sends its earlier output items when
 * store is true) is validated as the same history sent in full: the neutral histories are
 * equal, value for value, and both are answered. */
static void test_item_references_resolve(void) {
  cJSON *full = second_neutral(
      "{\"model\":\"gpt-test\",\"input\":[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":"
      "\"assistant\",\"content\":\"Let me check.\"%.0s%.0s},{\"type\":\"function_call\","
      "\"call_id\":\"%s\",\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\"},"
      "{\"type\":\"function_call_output\",\"call_id\":\"%s\",\"output\":\"15 degrees\"}]}",
      200);
  cJSON *refs = second_neutral(
      "{\"model\":\"gpt-test\",\"input\":[{\"role\":\"user\",\"content\":\"hi\"},{\"type\":"
      "\"item_reference\",\"id\":\"%s\"},{\"type\":\"item_reference\",\"id\":\"%s\"},{\"type\":"
      "\"function_call_output\",\"call_id\":\"%s\",\"output\":\"15 degrees\"%.0s}]}",
      200);
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(full), 3);
  OCK_ASSERT_TRUE(full && refs && cJSON_Compare(full, refs, 1));
  const cJSON *assistant = cJSON_GetArrayItem(refs, 1);
  OCK_ASSERT_STR_EQ(ock_json_str(assistant, "content"), "Let me check.");
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(assistant, "tool_calls")), 1);
  cJSON_Delete(full);
  cJSON_Delete(refs);
}

/* ref_body: a request whose input is one reference to id, with "store": false when unstored. */
static void ref_body(char *out, size_t n, const char *id, int unstored) {
  snprintf(out, n, "{\"model\":\"m\",%s\"input\":[{\"type\":\"item_reference\",\"id\":\"%s\"}]}",
           unstored ? "\"store\":false," : "", id ? id : "");
}

/* A reference to an id the mock never stored, or to an item of a response made with store
 * false (never stored), is the API's 404 in its envelope; the request's journal entry carries
 * the text. A request that itself says store false gets the API's second sentence. */
static void test_unknown_item_reference(void) {
  ock_mock *m = mock_from(FIXTURE, NULL);
  if (!m)
    return;
  struct http_reply r;
  http_post(m, "/v1/responses",
            "{\"model\":\"m\",\"input\":[{\"role\":\"user\",\"content\":\"q\"},{\"type\":"
            "\"item_reference\",\"id\":\"fc_nope\"}]}",
            NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 404);
  OCK_ASSERT_STR_EQ(r.body.data, "{\"error\":{\"message\":\"Item with id 'fc_nope' not found.\","
                                 "\"type\":\"invalid_request_error\",\"param\":\"input\","
                                 "\"code\":null}}");
  http_reply_free(&r);
  cJSON *req = journal_nth(m, "llm_request", 0);
  OCK_ASSERT_STR_EQ(ock_json_str(req, "error"), "Item with id 'fc_nope' not found.");
  cJSON_Delete(req);
  cJSON *first = post(m, "{\"model\":\"m\",\"store\":false,\"input\":\"x\"}", 200);
  const char *msg = ock_json_str(cJSON_GetArrayItem(cJSON_GetObjectItem(first, "output"), 0), "id");
  char body[256], want[512];
  ref_body(body, sizeof body, msg, 0);
  cJSON *e = post(m, body, 404);
  snprintf(want, sizeof want, "Item with id '%s' not found.", msg ? msg : "");
  expect_error(e, want, "input", NULL);
  cJSON_Delete(e);
  ref_body(body, sizeof body, msg, 1);
  e = post(m, body, 404);
  snprintf(want, sizeof want,
           "Item with id '%s' not found. Items are not persisted when `store` is set to false. "
           "Try again with `store` set to true, or remove this item from your input.",
           msg ? msg : "");
  expect_error(e, want, "input", NULL);
  OCK_ASSERT_INT_EQ(journal_count(m, "finding"), 0);
  cJSON_Delete(e);
  cJSON_Delete(first);
  ock_mock_free(m);
}

/* An orphan behind references is still one: the function_call is sent as a reference and its
 * output is missing, so the API's A01 text and a rejected finding. */
static void test_orphan_behind_reference(void) {
  ock_mock *m = mock_from(FIXTURE, NULL);
  if (!m)
    return;
  cJSON *first = post(m, "{\"model\":\"gpt-test\",\"input\":\"hi\"}", 200);
  const cJSON *output = cJSON_GetObjectItem(first, "output");
  const cJSON *call = cJSON_GetArrayItem(output, 1);
  char body[512], want[160];
  snprintf(body, sizeof body,
           "{\"model\":\"gpt-test\",\"input\":[{\"role\":\"user\",\"content\":\"hi\"},{\"type\":"
           "\"item_reference\",\"id\":\"%s\"},{\"type\":\"item_reference\",\"id\":\"%s\"},"
           "{\"role\":\"user\",\"content\":\"never mind\"}]}",
           ock_json_str(cJSON_GetArrayItem(output, 0), "id"), ock_json_str(call, "id"));
  cJSON *e = post(m, body, 400);
  snprintf(want, sizeof want, "No tool output found for function call %s.",
           ock_json_str(call, "call_id"));
  expect_error(e, want, "input", NULL);
  cJSON *f = journal_nth(m, "finding", 0);
  OCK_ASSERT_STR_EQ(ock_json_str(f, "shape"), "A01_UNMATCHED_TOOL_USE");
  OCK_ASSERT_INT_EQ(ock_json_bool(f, "rejected", -1), 1);
  cJSON_Delete(f);
  /* the journal keeps input as sent, and the neutral history as resolved */
  cJSON *req = journal_nth(m, "llm_request", 1);
  OCK_ASSERT_STR_EQ(
      ock_json_str(cJSON_GetArrayItem(cJSON_GetObjectItem(req, "messages"), 2), "type"),
      "item_reference");
  const cJSON *asst = cJSON_GetArrayItem(cJSON_GetObjectItem(req, "neutral"), 1);
  OCK_ASSERT_STR_EQ(ock_json_str(asst, "content"), "Let me check.");
  OCK_ASSERT_INT_EQ(ock_json_int(asst, "wire_index", -2), 1);
  cJSON_Delete(req);
  cJSON_Delete(e);
  cJSON_Delete(first);
  ock_mock_free(m);
}

/* fault_fixture: one streamed turn with a tool call and the given fault. */
static void fault_fixture(char *out, size_t n, const char *fault) {
  snprintf(out, n,
           "{\"ock_fixture\":1,\"id\":\"mock-responses-fault\",\"session\":{\"prompts\":[\"hi\"],"
           "\"providers\":[{\"name\":\"gpt\",\"api\":\"responses\",\"model\":\"g\"}]},"
           "\"script\":{\"gpt\":[{\"text\":\"Let me check.\",\"chunk_size\":4,\"tool_calls\":"
           "[{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\"}}],\"fault\":%s}]}}",
           fault);
}

/* stream: the events of one streamed request. */
static cJSON *stream(ock_mock *m, struct http_reply *r) {
  http_post(m, "/p/gpt/v1/responses", "{\"model\":\"g\",\"input\":\"hi\",\"stream\":true}", NULL,
            r);
  return sse_split(r->body.data ? r->body.data : "");
}

/* The stream faults take this wire's shapes: a cut inside function_call_arguments leaves out
 * response.completed; the error event is numbered where it stands. */
static void test_stream_faults(void) {
  char fx[1024];
  fault_fixture(fx, sizeof fx, "{\"kind\":\"cut_stream\",\"after_chunks\":13}");
  ock_mock *m = mock_from(fx, NULL);
  if (!m)
    return;
  struct http_reply r;
  cJSON *events = stream(m, &r);
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(events), 13);
  const cJSON *last = cJSON_GetArrayItem(events, 12);
  OCK_ASSERT_STR_EQ(ock_json_str(last, "event"), "response.function_call_arguments.delta");
  OCK_ASSERT_FALSE(strstr(r.body.data, "response.completed") != NULL);
  cJSON_Delete(events);
  http_reply_free(&r);
  ock_mock_free(m);
  fault_fixture(fx, sizeof fx, "{\"kind\":\"error_mid_stream\",\"after_chunks\":6}");
  if (!(m = mock_from(fx, NULL)))
    return;
  events = stream(m, &r);
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(events), 7);
  last = cJSON_GetArrayItem(events, 6);
  OCK_ASSERT_STR_EQ(ock_json_str(last, "event"), "error");
  cJSON *data = cJSON_Parse(ock_json_str(last, "data"));
  OCK_ASSERT_INT_EQ(ock_json_int(data, "sequence_number", -1), 6);
  OCK_ASSERT_STR_EQ(ock_json_str(data, "code"), "server_error");
  cJSON_Delete(data);
  cJSON_Delete(events);
  http_reply_free(&r);
  ock_mock_free(m);
  fault_fixture(fx, sizeof fx, "{\"status\":429,\"retry_after\":2}");
  if (!(m = mock_from(fx, NULL)))
    return;
  http_post(m, "/v1/responses", "{\"model\":\"g\",\"input\":\"hi\"}", NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 429);
  char v[32];
  OCK_ASSERT_STR_EQ(reply_header(&r, "retry-after", v, sizeof v), "2");
  OCK_ASSERT_CONTAINS(r.body.data, "\"code\":\"rate_limit_exceeded\"");
  http_reply_free(&r);
  ock_mock_free(m);
}

/* The store is bounded (stored.h): with stored_responses 2, the fifth response drops the first
 * two. A request chained on the first, or naming its output item, was answered from them when
 * it arrived; its journal entry, read after the drop, says context_dropped and holds its own
 * input, not an error it never got. The same id sent after the drop gets the API's 400. */
static void test_store_drops_the_oldest(void) {
  static const char *const TEXTS =
      "{\"ock_fixture\":1,\"id\":\"mock-responses-drop\",\"session\":{\"prompts\":[\"hi\"],"
      "\"providers\":[{\"name\":\"gpt\",\"api\":\"responses\",\"model\":\"m\"}]},"
      "\"script\":{\"gpt\":[{\"text\":\"1\"},{\"text\":\"2\"},{\"text\":\"3\"},{\"text\":\"4\"},"
      "{\"text\":\"5\"},{\"text\":\"6\"}]}}";
  struct ock_mock_options o = {.stored_responses = 2};
  ock_mock *m = mock_from(TEXTS, &o);
  if (!m)
    return;
  cJSON *first = post(m, "{\"model\":\"m\",\"input\":\"a\"}", 200);
  const char *first_id = ock_json_str(first, "id");
  const char *item_id =
      ock_json_str(cJSON_GetArrayItem(cJSON_GetObjectItem(first, "output"), 0), "id");
  char body[512];
  snprintf(body, sizeof body, "{\"model\":\"m\",\"previous_response_id\":\"%s\",\"input\":\"b\"}",
           first_id);
  cJSON_Delete(post(m, body, 200));
  snprintf(body, sizeof body,
           "{\"model\":\"m\",\"input\":[{\"type\":\"item_reference\",\"id\":\"%s\"},"
           "{\"role\":\"user\",\"content\":\"c\"}]}",
           item_id);
  cJSON_Delete(post(m, body, 200)); /* the third response: a generation of its own */
  cJSON_Delete(post(m, "{\"model\":\"m\",\"input\":\"d\"}", 200));
  cJSON_Delete(post(m, "{\"model\":\"m\",\"input\":\"e\"}", 200)); /* drops the first two */
  snprintf(body, sizeof body, "{\"model\":\"m\",\"previous_response_id\":\"%s\",\"input\":\"f\"}",
           first_id);
  cJSON_Delete(post(m, body, 400));
  for (int k = 1; k <= 2; k++) {
    cJSON *req = journal_nth(m, "llm_request", k);
    OCK_ASSERT_TRUE(cJSON_IsTrue(cJSON_GetObjectItem(req, "context_dropped")));
    OCK_ASSERT_TRUE(cJSON_GetObjectItem(req, "error") == NULL);
    const cJSON *neutral = cJSON_GetObjectItem(req, "neutral");
    OCK_ASSERT_INT_EQ(cJSON_GetArraySize(neutral), 1);
    OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetArrayItem(neutral, 0), "content"), k == 1 ? "b" : "c");
    cJSON_Delete(req);
  }
  cJSON *late = journal_nth(m, "llm_request", 5);
  OCK_ASSERT_TRUE(cJSON_GetObjectItem(late, "context_dropped") == NULL);
  OCK_ASSERT_TRUE(ock_json_str(late, "error") != NULL);
  cJSON_Delete(late);
  cJSON *kept = journal_nth(m, "llm_request", 0);
  OCK_ASSERT_TRUE(cJSON_GetObjectItem(kept, "context_dropped") == NULL);
  cJSON_Delete(kept);
  OCK_ASSERT_INT_EQ(journal_count(m, "finding"), 0);
  cJSON_Delete(first);
  ock_mock_free(m);
}

static const struct ock_test tests[] = {
    {"chained_conversation", test_chained_conversation},
    {"orphans_get_the_real_texts", test_orphans_get_the_real_texts},
    {"unknown_previous_response", test_unknown_previous_response},
    {"item_references_resolve", test_item_references_resolve},
    {"unknown_item_reference", test_unknown_item_reference},
    {"orphan_behind_reference", test_orphan_behind_reference},
    {"stream_faults", test_stream_faults},
    {"store_drops_the_oldest", test_store_drops_the_oldest},
    {NULL, NULL}};

const struct ock_suite mock_responses_suite = {"responses", tests, NULL, NULL};
