/* test_gemini.c: the mock on the Gemini API wire (mock-provider/gemini.c and the Gemini paths
 * of routes.c and llm.c): its endpoints, its 400s for broken histories with their findings,
 * and its faults. */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "ock/json.h"
#include "runner.h"

static const char *const COUNT =
    "Please ensure that the number of function response parts is equal to the number of "
    "function call parts of the function call turn.";
static const char *const CALL_TURN = "Please ensure that function call turn comes immediately "
                                     "after a user turn or after a function response turn.";
static const char *const RESPONSE_TURN =
    "Please ensure that function response turn comes immediately after a function call turn.";

/* fixture: one Gemini provider "gm" playing turns (a JSON array's items). Static buffer. */
static const char *fixture(const char *turns) {
  static char buf[4096];
  snprintf(buf, sizeof buf,
           "{\"ock_fixture\":1,\"id\":\"mock-gemini\",\"session\":{\"prompts\":[\"hi\"],"
           "\"providers\":[{\"name\":\"gm\",\"api\":\"gemini\",\"model\":\"gemini-test\"}]},"
           "\"script\":{\"gm\":[%s]}}",
           turns);
  return buf;
}

static const char *const HI = "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"hi\"}]}]}";

/* error_of: the error object of a reply body (a copy; caller deletes). */
static cJSON *error_of(const struct http_reply *r) {
  cJSON *j = cJSON_Parse(r->body.data ? r->body.data : "");
  cJSON *e = cJSON_DetachItemFromObject(j, "error");
  cJSON_Delete(j);
  return e;
}

/* Both API versions, at the root and under the provider's base_url, plain and streamed. */
static void test_endpoints_and_reply_shape(void) {
  ock_mock *m = mock_from(fixture("{\"text\":\"a\"},{\"text\":\"b\"},{\"text\":\"c\"},"
                                  "{\"text\":\"hello\",\"chunk_size\":2,\"tool_calls\":[{\"name\":"
                                  "\"f\",\"arguments\":{\"x\":1}}]}"),
                          NULL);
  if (!m)
    return;
  static const char *const paths[] = {"/v1/models/gemini-test:generateContent",
                                      "/v1beta/models/gemini-test:generateContent",
                                      "/p/gm/v1beta/models/other-model:generateContent"};
  static const char *const texts[] = {"a", "b", "c"};
  for (int i = 0; i < 3; i++) {
    struct http_reply r;
    http_post(m, paths[i], HI, "x-goog-api-key: k", &r);
    OCK_ASSERT_INT_EQ(r.status, 200);
    cJSON *j = cJSON_Parse(r.body.data);
    cJSON *cand = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "candidates"), 0);
    cJSON *part =
        cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(cand, "content"), "parts"), 0);
    OCK_ASSERT_STR_EQ(ock_json_str(part, "text"), texts[i]);
    OCK_ASSERT_STR_EQ(ock_json_str(cand, "finishReason"), "STOP");
    OCK_ASSERT_STR_EQ(ock_json_str(j, "modelVersion"), i == 2 ? "other-model" : "gemini-test");
    OCK_ASSERT_NOT_NULL(cJSON_GetObjectItem(j, "usageMetadata"));
    cJSON_Delete(j);
    http_reply_free(&r);
  }
  struct http_reply r;
  http_post(m, "/p/gm/v1/models/gemini-test:streamGenerateContent?alt=sse", HI, NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 200);
  cJSON *events = sse_split(r.body.data);
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(events), 5); /* he, ll, o, the call, the end */
  cJSON *call = cJSON_Parse(ock_json_str(cJSON_GetArrayItem(events, 3), "data"));
  OCK_ASSERT_CONTAINS(r.body.data, "{\"functionCall\":{\"name\":\"f\",\"args\":{\"x\":1},\"id\":");
  cJSON *last = cJSON_Parse(ock_json_str(cJSON_GetArrayItem(events, 4), "data"));
  OCK_ASSERT_CONTAINS(ock_json_str(cJSON_GetArrayItem(events, 4), "data"),
                      "\"finishReason\":\"STOP\"");
  OCK_ASSERT_NULL(strstr(ock_json_str(cJSON_GetArrayItem(events, 3), "data"), "finishReason"));
  cJSON_Delete(call);
  cJSON_Delete(last);
  cJSON_Delete(events);
  cJSON *req = journal_nth(m, "llm_request", 3);
  OCK_ASSERT_STR_EQ(ock_json_str(req, "api"), "gemini");
  OCK_ASSERT_INT_EQ(cJSON_IsTrue(cJSON_GetObjectItem(req, "stream")), 1);
  cJSON_Delete(req);
  http_reply_free(&r);
  ock_mock_free(m);
}

/* What the API refuses about the request itself, in its envelope; no turn is used. */
static void test_request_refusals(void) {
  ock_mock *m = mock_from(fixture("{\"text\":\"a\"}"), NULL);
  if (!m)
    return;
  struct http_reply r;
  http_post(m, "/v1beta/models/gemini-test:generateContent", "{\"contents\":[]}", NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 400);
  cJSON *e = error_of(&r);
  OCK_ASSERT_STR_EQ(ock_json_str(e, "message"),
                    "* GenerateContentRequest.contents: contents is not specified\n");
  OCK_ASSERT_STR_EQ(ock_json_str(e, "status"), "INVALID_ARGUMENT");
  OCK_ASSERT_INT_EQ(ock_json_int(e, "code", 0), 400);
  cJSON_Delete(e);
  http_reply_free(&r);
  http_post(m, "/v1beta/models/gemini-test:generateContent",
            "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"a\"}]},{\"role\":\"model\","
            "\"parts\":[]}]}",
            NULL, &r);
  e = error_of(&r);
  OCK_ASSERT_STR_EQ(ock_json_str(e, "message"),
                    "* GenerateContentRequest.contents[1].parts: contents.parts must not be "
                    "empty.\n");
  cJSON_Delete(e);
  http_reply_free(&r);
  http_post(m, "/v1beta/models/gemini-test:streamGenerateContent", HI, NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 400);
  OCK_ASSERT_CONTAINS(r.body.data, "?alt=sse");
  http_reply_free(&r);
  http_post(m, "/p/nobody/v1beta/models/gemini-test:generateContent", HI, NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 404);
  e = error_of(&r);
  OCK_ASSERT_STR_EQ(ock_json_str(e, "status"), "NOT_FOUND");
  cJSON_Delete(e);
  http_reply_free(&r);
  http_post(m, "/v1beta/models/gemini-test:countTokens", HI, NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 404);
  http_reply_free(&r);
  OCK_ASSERT_INT_EQ(journal_count(m, "finding"), 0);
  http_post(m, "/v1beta/models/gemini-test:generateContent", HI, NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 200); /* the turn was not used */
  http_reply_free(&r);
  ock_mock_free(m);
}

struct broken {
  const char *contents; /* after the first user turn */
  const char *message;  /* the 400's message */
  const char *shape;
  int index; /* the finding's message_index */
};

#define U "{\"role\":\"user\",\"parts\":[{\"text\":\"q\"}]}"
#define CALL(id, name) "{\"functionCall\":{\"id\":\"" id "\",\"name\":\"" name "\",\"args\":{}}}"
#define RESP(id, name)                                                                             \
  "{\"functionResponse\":{\"id\":\"" id "\",\"name\":\"" name "\",\"response\":{\"output\":1}}}"
#define MODEL(parts) "{\"role\":\"model\",\"parts\":[" parts "]}"
#define USER(parts) "{\"role\":\"user\",\"parts\":[" parts "]}"

static const struct broken BROKEN[] = {
    /* a call answered by a plain user turn: the orphan the issue threads report */
    {U "," MODEL(CALL("c1", "f")) "," U, NULL, "A01_UNMATCHED_TOOL_USE", 1},
    /* two calls, one response */
    {U "," MODEL(CALL("c1", "f") "," CALL("c2", "g")) "," USER(RESP("c1", "f")), NULL,
     "A07_PARALLEL_MISSING_RESULT", 1},
    /* the last turn is a call nobody answered */
    {U "," MODEL(CALL("c1", "f")), NULL, "A01_UNMATCHED_TOOL_USE", 1},
    /* a response with no call before it: the other direction */
    {U "," MODEL("{\"text\":\"ok\"}") "," USER(RESP("c9", "f")), NULL, "A02_UNMATCHED_TOOL_RESULT",
     2},
    /* a history that starts with a call turn (gemini-cli #11814) */
    {MODEL(CALL("c1", "f")) "," USER(RESP("c1", "f")), NULL, "A04_INTERLEAVED_ASST_MSG", 0},
    /* a call turn right after a model turn */
    {U "," MODEL("{\"text\":\"hm\"}") "," MODEL(CALL("c1", "f")) "," USER(RESP("c1", "f")), NULL,
     "A04_INTERLEAVED_ASST_MSG", 2},
    /* two responses for one call */
    {U "," MODEL(CALL("c1", "f")) "," USER(RESP("c1", "f") "," RESP("c1", "f")), NULL,
     "A05_DUPLICATE_TOOL_CALL_ID", 2},
    /* without ids, responses pair by name: a name no call has is an orphan */
    {U "," MODEL("{\"functionCall\":{\"name\":\"f\"}}") "," USER(
         "{\"functionResponse\":{\"name\":\"g\",\"response\":{}}}"),
     "ock: contents[2]: the function response 'ock-fr:2.0' answers no function call part of the "
     "function call turn.",
     "A06_WRONG_TOOL_CALL_ID", 2},
};

static void test_broken_histories(void) {
  for (size_t i = 0; i < sizeof BROKEN / sizeof BROKEN[0]; i++) {
    const struct broken *b = &BROKEN[i];
    const char *want = b->message           ? b->message
                       : b->shape[2] == '2' ? RESPONSE_TURN
                       : b->shape[2] == '4' ? CALL_TURN
                                            : COUNT;
    ock_mock *m = mock_from(fixture("{\"text\":\"a\"}"), NULL);
    if (!m)
      return;
    char body[4096];
    snprintf(body, sizeof body, "{\"contents\":[%s]}", b->contents);
    struct http_reply r;
    http_post(m, "/v1beta/models/gemini-test:generateContent", body, NULL, &r);
    OCK_ASSERT_INT_EQ(r.status, 400);
    cJSON *e = error_of(&r);
    OCK_ASSERT_STR_EQ(ock_json_str(e, "message"), want);
    OCK_ASSERT_STR_EQ(ock_json_str(e, "status"), "INVALID_ARGUMENT");
    cJSON *f = journal_nth(m, "finding", 0);
    OCK_ASSERT_STR_EQ(ock_json_str(f, "shape"), b->shape);
    OCK_ASSERT_INT_EQ(ock_json_int(f, "message_index", -1), b->index);
    OCK_ASSERT_STR_EQ(ock_json_str(f, "message"), want);
    cJSON_Delete(f);
    cJSON_Delete(e);
    http_reply_free(&r);
    ock_mock_free(m);
  }
}

/* Good histories pass: with ids, and without (paired by name and order), two calls of one
 * name, and responses in another order than the calls (journaled as A08, answered). */
static void test_good_histories(void) {
  static const char *const good[] = {
      U "," MODEL(CALL("c1", "f") "," CALL("c2", "g")) "," USER(
          RESP("c1", "f") "," RESP("c2", "g")) "," MODEL("{\"text\":\"done\"}") "," U,
      U
      "," MODEL("{\"functionCall\":{\"name\":\"f\"}},{\"functionCall\":{\"name\":\"f\"}}") "," USER(
          "{\"functionResponse\":{\"name\":\"f\",\"response\":{}}},{\"functionResponse\":{"
          "\"name\":\"f\",\"response\":{}}}"),
      U
      "," MODEL(CALL("c1", "f") "," CALL("c2", "g")) "," USER(RESP("c2", "g") "," RESP("c1", "f"))};
  for (size_t i = 0; i < 3; i++) {
    ock_mock *m = mock_from(fixture("{\"text\":\"a\"}"), NULL);
    if (!m)
      return;
    char body[4096];
    snprintf(body, sizeof body,
             "{\"contents\":[%s],\"systemInstruction\":{\"parts\":[{\"text\":\"s\"}]}}", good[i]);
    struct http_reply r;
    http_post(m, "/v1beta/models/gemini-test:generateContent", body, NULL, &r);
    OCK_ASSERT_INT_EQ(r.status, 200);
    cJSON *f = journal_nth(m, "finding", 0);
    if (i == 2)
      OCK_ASSERT_STR_EQ(ock_json_str(f, "shape"), "A08_PARALLEL_WRONG_ORDER");
    else
      OCK_ASSERT_NULL(f);
    cJSON_Delete(f);
    http_reply_free(&r);
    ock_mock_free(m);
  }
}

/* 429 RESOURCE_EXHAUSTED with Retry-After, a stream that ends without finishReason, an error
 * event, a malformed event. */
static void test_faults(void) {
  ock_mock *m = mock_from(
      fixture("{\"fault\":{\"status\":429,\"retry_after\":3}},"
              "{\"text\":\"abcdef\",\"chunk_size\":2,\"fault\":{\"kind\":\"cut_stream\","
              "\"after_chunks\":9}},"
              "{\"text\":\"abcdef\",\"chunk_size\":2,\"fault\":{\"kind\":\"error_mid_stream\","
              "\"after_chunks\":1}},"
              "{\"text\":\"abcdef\",\"chunk_size\":2,\"fault\":{\"kind\":\"malformed_chunk\","
              "\"after_chunks\":2}}"),
      NULL);
  if (!m)
    return;
  const char *path = "/v1beta/models/gemini-test:streamGenerateContent?alt=sse";
  struct http_reply r;
  char h[64];
  http_post(m, path, HI, NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 429);
  OCK_ASSERT_STR_EQ(reply_header(&r, "retry-after", h, sizeof h), "3");
  cJSON *e = error_of(&r);
  OCK_ASSERT_STR_EQ(ock_json_str(e, "status"), "RESOURCE_EXHAUSTED");
  cJSON_Delete(e);
  http_reply_free(&r);
  http_post(m, path, HI, NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 200);
  cJSON *events = sse_split(r.body.data);
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(events), 3); /* every text chunk, never the end */
  OCK_ASSERT_NULL(strstr(r.body.data, "finishReason"));
  cJSON_Delete(events);
  http_reply_free(&r);
  http_post(m, path, HI, NULL, &r);
  OCK_ASSERT_CONTAINS(r.body.data, "data: {\"error\":{\"code\":503,\"message\":\"ock: scripted "
                                   "stream error\",\"status\":\"UNAVAILABLE\"}}\n\n");
  http_reply_free(&r);
  http_post(m, path, HI, NULL, &r);
  const char *tail = r.body.data + (r.body.len > 15 ? r.body.len - 15 : 0);
  OCK_ASSERT_STR_EQ(tail, "data: {\"ock\":\n\n");
  http_reply_free(&r);
  ock_mock_free(m);
}

static const struct ock_test tests[] = {
    {"endpoints_and_reply_shape", test_endpoints_and_reply_shape},
    {"request_refusals", test_request_refusals},
    {"broken_histories", test_broken_histories},
    {"good_histories", test_good_histories},
    {"faults", test_faults},
    {NULL, NULL}};

const struct ock_suite mock_gemini_suite = {"gemini", tests, NULL, NULL};
