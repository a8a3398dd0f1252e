/*
 * test_server.c: the mock over real HTTP, driven with libcurl, on both wire formats,
 * streaming and not: the Done-when list of the issue, plus bad input and determinism.
 * Every test starts its own mock on 127.0.0.1 port 0 and frees it.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "broken_histories.h"
#include "ock/fixture.h"
#include "helpers.h"
#include "ock/json.h"
#include "runner.h"
#include "state.h"

/* ---- reading replies -------------------------------------------------------------------- */

/* What a client makes of one reply, either wire, streamed or not. */
struct parsed {
  char text[512];
  char id[64]; /* the first tool call's id */
  char name[64];
  char args[256];
  int n_calls;
  char finish[32];
  int terminated; /* [DONE] / message_stop seen (streams), or a body that parsed */
  int n_events;
};

static void cat(char *dst, size_t n, const char *s) {
  if (s)
    strncat(dst, s, n - strlen(dst) - 1);
}

static void parse_openai_chunk(const cJSON *chunk, struct parsed *p) {
  const cJSON *choice = cJSON_GetArrayItem(cJSON_GetObjectItem(chunk, "choices"), 0);
  const cJSON *delta = cJSON_GetObjectItem(choice, "delta");
  cat(p->text, sizeof p->text, ock_json_str(delta, "content"));
  const cJSON *tc;
  cJSON_ArrayForEach(tc, cJSON_GetObjectItem(delta, "tool_calls")) {
    if (ock_json_int(tc, "index", -1) != 0)
      continue;
    if (ock_json_str(tc, "id")) {
      snprintf(p->id, sizeof p->id, "%s", ock_json_str(tc, "id"));
      p->n_calls++;
    }
    const cJSON *fn = cJSON_GetObjectItem(tc, "function");
    if (ock_json_str(fn, "name"))
      snprintf(p->name, sizeof p->name, "%s", ock_json_str(fn, "name"));
    cat(p->args, sizeof p->args, ock_json_str(fn, "arguments"));
  }
  if (ock_json_str(choice, "finish_reason"))
    snprintf(p->finish, sizeof p->finish, "%s", ock_json_str(choice, "finish_reason"));
}

static void parse_anthropic_event(const cJSON *d, struct parsed *p) {
  const char *type = ock_json_str(d, "type");
  if (!type)
    return;
  if (!strcmp(type, "content_block_start")) {
    const cJSON *b = cJSON_GetObjectItem(d, "content_block");
    const char *bt = ock_json_str(b, "type");
    if (bt && !strcmp(bt, "tool_use")) {
      p->n_calls++;
      snprintf(p->id, sizeof p->id, "%s", ock_json_str(b, "id"));
      snprintf(p->name, sizeof p->name, "%s", ock_json_str(b, "name"));
    }
  } else if (!strcmp(type, "content_block_delta")) {
    const cJSON *delta = cJSON_GetObjectItem(d, "delta");
    cat(p->text, sizeof p->text, ock_json_str(delta, "text"));
    cat(p->args, sizeof p->args, ock_json_str(delta, "partial_json"));
  } else if (!strcmp(type, "message_delta")) {
    snprintf(p->finish, sizeof p->finish, "%s",
             ock_json_str(cJSON_GetObjectItem(d, "delta"), "stop_reason"));
  } else if (!strcmp(type, "message_stop")) {
    p->terminated = 1;
  }
}

static void parse_reply(int anthropic, int stream, const char *body, struct parsed *p) {
  memset(p, 0, sizeof *p);
  if (stream) {
    cJSON *events = sse_split(body);
    const cJSON *e;
    cJSON_ArrayForEach(e, events) {
      const char *data = ock_json_str(e, "data");
      p->n_events++;
      if (!strcmp(data, "[DONE]")) {
        p->terminated = 1;
        continue;
      }
      cJSON *d = cJSON_Parse(data);
      if (anthropic)
        parse_anthropic_event(d, p);
      else
        parse_openai_chunk(d, p);
      cJSON_Delete(d);
    }
    cJSON_Delete(events);
    return;
  }
  cJSON *b = cJSON_Parse(body);
  p->terminated = b != NULL;
  if (anthropic) {
    const cJSON *blk;
    cJSON_ArrayForEach(blk, cJSON_GetObjectItem(b, "content")) {
      const char *t = ock_json_str(blk, "type");
      if (t && !strcmp(t, "text"))
        cat(p->text, sizeof p->text, ock_json_str(blk, "text"));
      if (t && !strcmp(t, "tool_use")) {
        p->n_calls++;
        snprintf(p->id, sizeof p->id, "%s", ock_json_str(blk, "id"));
        snprintf(p->name, sizeof p->name, "%s", ock_json_str(blk, "name"));
        char *in = cJSON_PrintUnformatted(cJSON_GetObjectItem(blk, "input"));
        cat(p->args, sizeof p->args, in);
        free(in);
      }
    }
    snprintf(p->finish, sizeof p->finish, "%s", ock_json_str(b, "stop_reason"));
  } else {
    const cJSON *choice = cJSON_GetArrayItem(cJSON_GetObjectItem(b, "choices"), 0);
    const cJSON *msg = cJSON_GetObjectItem(choice, "message");
    cat(p->text, sizeof p->text, ock_json_str(msg, "content"));
    const cJSON *tc;
    cJSON_ArrayForEach(tc, cJSON_GetObjectItem(msg, "tool_calls")) {
      if (!p->n_calls++) {
        const cJSON *fn = cJSON_GetObjectItem(tc, "function");
        snprintf(p->id, sizeof p->id, "%s", ock_json_str(tc, "id"));
        snprintf(p->name, sizeof p->name, "%s", ock_json_str(fn, "name"));
        cat(p->args, sizeof p->args, ock_json_str(fn, "arguments"));
      }
    }
    snprintf(p->finish, sizeof p->finish, "%s", ock_json_str(choice, "finish_reason"));
  }
  cJSON_Delete(b);
}

/* ---- building requests ------------------------------------------------------------------ */

static const char *llm_path(int anthropic) {
  return anthropic ? "/p/an/v1/messages" : "/p/oa/v1/chat/completions";
}

/* request_body: {"model", ["max_tokens"], "stream", "messages": messages}. Static buffer. */
static const char *request_body(int anthropic, int stream, const char *messages) {
  static char buf[16384];
  snprintf(buf, sizeof buf, "{\"model\":\"%s\",%s\"stream\":%s,\"messages\":%s}",
           anthropic ? "claude-test" : "gpt-test", anthropic ? "\"max_tokens\":256," : "",
           stream ? "true" : "false", messages);
  return buf;
}

static char *second_turn_messages(int anthropic, const struct parsed *first) {
  char *s = malloc(4096);
  if (anthropic)
    snprintf(
        s, 4096,
        "[{\"role\":\"user\",\"content\":\"What is the weather in Paris?\"},{\"role\":"
        "\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"%s\"},{\"type\":\"tool_use\","
        "\"id\":\"%s\",\"name\":\"%s\",\"input\":%s}]},{\"role\":\"user\",\"content\":[{"
        "\"type\":\"tool_result\",\"tool_use_id\":\"%s\",\"content\":\"15 degrees\"}]}]",
        first->text, first->id, first->name, first->args, first->id);
  else {
    cJSON *args = cJSON_CreateString(first->args);
    char *quoted = cJSON_PrintUnformatted(args);
    snprintf(s, 4096,
             "[{\"role\":\"user\",\"content\":\"What is the weather in Paris?\"},{\"role\":"
             "\"assistant\",\"content\":\"%s\",\"tool_calls\":[{\"id\":\"%s\",\"type\":"
             "\"function\",\"function\":{\"name\":\"%s\",\"arguments\":%s}}]},{\"role\":\"tool\","
             "\"tool_call_id\":\"%s\",\"content\":\"15 degrees\"}]",
             first->text, first->id, first->name, quoted, first->id);
    free(quoted);
    cJSON_Delete(args);
  }
  return s;
}

/* ---- the tests -------------------------------------------------------------------------- */

static void two_turn_tool_conversation(int anthropic, int stream) {
  ock_mock *m = mock_from("tool_conversation.json", NULL);
  if (!m)
    return;
  struct http_reply r;
  struct parsed first, second;
  const char *user = "[{\"role\":\"user\",\"content\":\"What is the weather in Paris?\"}]";
  http_post(m, llm_path(anthropic), request_body(anthropic, stream, user),
            "X-OCK-Trace-Id: trace-1", &r);
  OCK_ASSERT_INT_EQ(r.curl_rc, 0);
  OCK_ASSERT_INT_EQ(r.status, 200);
  parse_reply(anthropic, stream, r.body.data, &first);
  http_reply_free(&r);
  char want_id[64];
  snprintf(want_id, sizeof want_id, "%s%08x_1_0", anthropic ? "toolu_" : "call_",
           (unsigned)ock_fnv1a("mock-tool-conversation"));
  OCK_ASSERT_STR_EQ(first.text, "Let me check.");
  OCK_ASSERT_STR_EQ(first.id, want_id);
  OCK_ASSERT_STR_EQ(first.name, "get_weather");
  OCK_ASSERT_STR_EQ(first.args, "{\"city\":\"Paris\"}");
  OCK_ASSERT_INT_EQ(first.n_calls, 1);
  OCK_ASSERT_STR_EQ(first.finish, anthropic ? "tool_use" : "tool_calls");
  OCK_ASSERT_TRUE(first.terminated);

  char tool_body[256];
  snprintf(tool_body, sizeof tool_body, "{\"tool_call_id\":\"%s\",\"input\":%s}", first.id,
           first.args);
  http_post(m, "/ock/v1/tools/get_weather", tool_body, NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 200);
  OCK_ASSERT_STR_EQ(r.body.data, "{\"success\":true,\"output\":\"15 degrees\",\"error\":null}");
  http_reply_free(&r);

  char *messages = second_turn_messages(anthropic, &first);
  http_post(m, llm_path(anthropic), request_body(anthropic, stream, messages), NULL, &r);
  free(messages);
  OCK_ASSERT_INT_EQ(r.status, 200);
  parse_reply(anthropic, stream, r.body.data, &second);
  OCK_ASSERT_STR_EQ(second.text, "It is 15 degrees in Paris.");
  OCK_ASSERT_INT_EQ(second.n_calls, 0);
  OCK_ASSERT_STR_EQ(second.finish, anthropic ? "end_turn" : "stop");
  OCK_ASSERT_TRUE(second.terminated);
  if (stream)
    OCK_ASSERT_INT_GT(second.n_events, 5); /* really streamed in pieces */
  http_reply_free(&r);

  /* The journal, in order: request, reply, tool start and end, request, reply; no finding. */
  cJSON *j = ock_mock_journal(m);
  struct ock_buf kinds;
  ock_buf_init(&kinds, 4096);
  const cJSON *e;
  cJSON_ArrayForEach(e, j) {
    OCK_ASSERT_OK(ock_buf_printf(&kinds, "%s%s", kinds.len ? "," : "", ock_json_str(e, "kind")));
  }
  OCK_ASSERT_STR_EQ(kinds.data, "llm_request,llm_reply,tool_start,tool_end,llm_request,llm_reply");
  const cJSON *req1 = cJSON_GetArrayItem(j, 0), *rep1 = cJSON_GetArrayItem(j, 1);
  const cJSON *start = cJSON_GetArrayItem(j, 2), *req2 = cJSON_GetArrayItem(j, 4);
  OCK_ASSERT_INT_EQ(ock_json_int(req1, "seq", 0), 1);
  OCK_ASSERT_STR_EQ(ock_json_str(req1, "provider"), anthropic ? "an" : "oa");
  OCK_ASSERT_STR_EQ(ock_json_str(req1, "api"), anthropic ? "anthropic" : "openai");
  OCK_ASSERT_INT_EQ(ock_json_bool(req1, "stream", -1), stream);
  OCK_ASSERT_INT_EQ(ock_json_int(req1, "turn", -2), 0);
  OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetObjectItem(req1, "headers"), "x-ock-trace-id"),
                    "trace-1");
  OCK_ASSERT_STR_EQ(ock_json_str(rep1, "text"), "Let me check.");
  OCK_ASSERT_STR_EQ(
      ock_json_str(cJSON_GetArrayItem(cJSON_GetObjectItem(rep1, "tool_calls"), 0), "id"), want_id);
  OCK_ASSERT_NULL(cJSON_GetObjectItem(rep1, "fault"));
  OCK_ASSERT_INT_EQ(ock_json_int(rep1, "request_seq", 0), 1);
  OCK_ASSERT_NOT_NULL(cJSON_GetObjectItem(rep1, stream ? "sse" : "body"));
  OCK_ASSERT_INT_EQ(ock_json_bool(start, "known", 0), 1);
  OCK_ASSERT_STR_EQ(ock_json_str(start, "tool_call_id"), want_id);
  OCK_ASSERT_INT_EQ(ock_json_int(req2, "turn", -2), 1);
  const cJSON *neutral = cJSON_GetObjectItem(req2, "neutral");
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(neutral), 3);
  OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetArrayItem(neutral, 2), "tool_call_id"), want_id);
  OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetArrayItem(neutral, 2), "role"), "tool");
  ock_buf_free(&kinds);
  cJSON_Delete(j);
  ock_mock_free(m);
}

static void test_two_turn_tool_conversation_openai(void) {
  two_turn_tool_conversation(0, 0);
  two_turn_tool_conversation(0, 1);
}

static void test_two_turn_tool_conversation_anthropic(void) {
  two_turn_tool_conversation(1, 0);
  two_turn_tool_conversation(1, 1);
}

static const char *BROKEN_FIXTURE =
    "{\"ock_fixture\":1,\"id\":\"mock-broken\",\"session\":{\"prompts\":[\"hi\"],\"providers\":["
    "{\"name\":\"oa\",\"api\":\"openai\",\"model\":\"gpt-test\"},{\"name\":\"an\",\"api\":"
    "\"anthropic\",\"model\":\"claude-test\"}]},\"script\":{\"oa\":[{\"text\":\"fine\"}],"
    "\"an\":[{\"text\":\"fine\"}]}}";

static void broken_histories(int observe_only, int stream) {
  struct ock_mock_options opt = {.observe_only = observe_only};
  for (int i = 0; BROKEN_HISTORIES[i].shape; i++) {
    const struct broken_history *b = &BROKEN_HISTORIES[i];
    ock_mock *m = mock_from(BROKEN_FIXTURE, &opt);
    if (!m)
      return;
    struct http_reply r;
    http_post(m, llm_path(b->anthropic), request_body(b->anthropic, stream, b->messages), NULL, &r);
    /* results out of call order are accepted by both real APIs: journaled, never a 400 */
    int rejected = !observe_only && strcmp(b->shape, "A08_PARALLEL_WRONG_ORDER");
    if (r.status != (rejected ? 400 : 200))
      ock_test_fail(__LINE__, __FILE__, "%s on %s (observe_only %d, stream %d): HTTP %ld, body %s",
                    b->shape, b->anthropic ? "anthropic" : "openai", observe_only, stream, r.status,
                    r.body.data);
    cJSON *body = cJSON_Parse(r.body.data);
    if (rejected) {
      /* The provider's own envelope and text. */
      const cJSON *err = cJSON_GetObjectItem(body, "error");
      OCK_ASSERT_STR_EQ(ock_json_str(err, "message"), b->text);
      OCK_ASSERT_STR_EQ(ock_json_str(err, "type"), "invalid_request_error");
      if (b->anthropic) {
        char want[64];
        snprintf(want, sizeof want, "req_ock_%08x_1", (unsigned)ock_fnv1a("mock-broken"));
        OCK_ASSERT_STR_EQ(ock_json_str(body, "type"), "error");
        OCK_ASSERT_STR_EQ(ock_json_str(body, "request_id"), want);
      } else {
        OCK_ASSERT_STR_EQ(ock_json_str(err, "param"), b->param);
        if (b->code)
          OCK_ASSERT_STR_EQ(ock_json_str(err, "code"), b->code);
        else
          OCK_ASSERT_TRUE(cJSON_IsNull(cJSON_GetObjectItem(err, "code")));
      }
    } else if (!stream) {
      OCK_ASSERT_STR_EQ(ock_json_str(body, "model"), b->anthropic ? "claude-test" : "gpt-test");
    }
    cJSON_Delete(body);
    http_reply_free(&r);
    /* Either way the journal names the shape, the message index and the offending id. */
    cJSON *f = journal_nth(m, "finding", 0);
    OCK_ASSERT_STR_EQ(ock_json_str(f, "shape"), b->shape);
    OCK_ASSERT_INT_EQ(ock_json_int(f, "message_index", -1), b->message_index);
    OCK_ASSERT_STR_EQ(ock_json_str(f, "tool_call_id"), b->tool_call_id);
    OCK_ASSERT_INT_EQ(ock_json_bool(f, "rejected", -1), rejected);
    OCK_ASSERT_STR_EQ(ock_json_str(f, "message"), b->text);
    OCK_ASSERT_INT_EQ(ock_json_int(f, "request_seq", 0), 1);
    OCK_ASSERT_INT_EQ(journal_count(m, "finding"), 1);
    cJSON *reply = journal_nth(m, "llm_reply", 0);
    OCK_ASSERT_INT_EQ(ock_json_int(reply, "status", 0), rejected ? 400 : 200);
    OCK_ASSERT_INT_EQ(ock_json_int(reply, "turn", -2), rejected ? -1 : 0);
    cJSON_Delete(reply);
    cJSON_Delete(f);
    ock_mock_free(m);
  }
}

/* A tool_use whose input is not an object is a 400 on the real Messages API, with this text;
 * the mock accepts nothing the real API rejects. */
static void test_anthropic_tool_use_input_must_be_an_object(void) {
  static const char *const inputs[] = {"\"{\\\"city\\\": \\\"Par\"", "[]", "null", NULL};
  for (int i = 0; inputs[i]; i++) {
    ock_mock *m = mock_from(BROKEN_FIXTURE, NULL);
    if (!m)
      return;
    char messages[512];
    snprintf(messages, sizeof messages,
             "[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":["
             "{\"type\":\"text\",\"text\":\"x\"},{\"type\":\"tool_use\",\"id\":\"toolu_1\","
             "\"name\":\"f\",\"input\":%s}]},{\"role\":\"user\",\"content\":[{\"type\":"
             "\"tool_result\",\"tool_use_id\":\"toolu_1\",\"content\":\"ok\"}]}]",
             inputs[i]);
    struct http_reply r;
    http_post(m, llm_path(1), request_body(1, 0, messages), NULL, &r);
    OCK_ASSERT_INT_EQ(r.status, 400);
    cJSON *body = cJSON_Parse(r.body.data);
    const cJSON *err = cJSON_GetObjectItem(body, "error");
    OCK_ASSERT_STR_EQ(ock_json_str(err, "type"), "invalid_request_error");
    OCK_ASSERT_STR_EQ(ock_json_str(err, "message"),
                      "messages.1.content.1.tool_use.input: Input should be a valid dictionary");
    cJSON_Delete(body);
    http_reply_free(&r);
    ock_mock_free(m);
  }
}

static void test_broken_histories_get_400_with_the_provider_text(void) {
  broken_histories(0, 0);
  broken_histories(0, 1);
}

static void test_broken_histories_observe_only_answer_and_journal(void) {
  broken_histories(1, 0);
  broken_histories(1, 1);
}

static void test_fixture_observe_only_flag(void) {
  ock_mock *m = mock_from("{\"ock_fixture\":1,\"id\":\"o\",\"observe_only\":true,\"session\":{"
                          "\"prompts\":[],\"providers\":[{\"name\":\"oa\",\"api\":\"openai\","
                          "\"model\":\"m\"}]},\"script\":{\"oa\":[{\"text\":\"x\"}]}}",
                          NULL);
  if (!m)
    return;
  struct http_reply r;
  http_post(m, "/v1/chat/completions", request_body(0, 0, BROKEN_HISTORIES[0].messages), NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 200);
  OCK_ASSERT_INT_EQ(journal_count(m, "finding"), 1);
  http_reply_free(&r);
  ock_mock_free(m);
}

static void rate_limited(int anthropic, int stream) {
  ock_mock *m = mock_from("faults.json", NULL);
  if (!m)
    return;
  struct http_reply r;
  char h[64];
  const char *user = "[{\"role\":\"user\",\"content\":\"hi\"}]";
  http_post(m, llm_path(anthropic), request_body(anthropic, stream, user), NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 429);
  OCK_ASSERT_STR_EQ(reply_header(&r, "retry-after", h, sizeof h), "2");
  OCK_ASSERT_STR_EQ(reply_header(&r, "retry-after-ms", h, sizeof h), "1500");
  OCK_ASSERT_STR_EQ(reply_header(&r, "content-type", h, sizeof h), "application/json");
  OCK_ASSERT_CONTAINS(r.body.data, anthropic ? "{\"type\":\"error\",\"error\":{\"type\":"
                                               "\"rate_limit_error\""
                                             : "\"type\":\"requests\",\"param\":null,\"code\":"
                                               "\"rate_limit_exceeded\"");
  http_reply_free(&r);
  /* The faulted turn is used up: the retry gets the next one. */
  http_post(m, llm_path(anthropic), request_body(anthropic, stream, user), NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 200);
  struct parsed p;
  parse_reply(anthropic, stream, r.body.data, &p);
  OCK_ASSERT_STR_EQ(p.text, "recovered");
  http_reply_free(&r);
  cJSON *f = journal_nth(m, "fault", 0);
  const cJSON *fo = cJSON_GetObjectItem(f, "fault");
  OCK_ASSERT_STR_EQ(ock_json_str(fo, "kind"), "status");
  OCK_ASSERT_INT_EQ(ock_json_int(fo, "status", 0), 429);
  OCK_ASSERT_INT_EQ(ock_json_int(fo, "retry_after", 0), 2);
  OCK_ASSERT_INT_EQ(ock_json_int(fo, "retry_after_ms", 0), 1500);
  OCK_ASSERT_STR_EQ(ock_json_str(f, "provider"), anthropic ? "an" : "oa");
  OCK_ASSERT_INT_EQ(ock_json_int(f, "request_seq", 0), 1);
  cJSON *rep = journal_nth(m, "llm_reply", 0);
  OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetObjectItem(rep, "fault"), "kind"), "status");
  OCK_ASSERT_INT_EQ(ock_json_int(rep, "status", 0), 429);
  OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetObjectItem(rep, "headers"), "retry-after"), "2");
  cJSON_Delete(rep);
  cJSON_Delete(f);
  ock_mock_free(m);
}

static void test_429_with_retry_after(void) {
  rate_limited(0, 0);
  rate_limited(0, 1);
  rate_limited(1, 0);
  rate_limited(1, 1);
}

/* one_turn_fixture: a fixture whose two providers play the same single turn. */
static const char *one_turn_fixture(const char *turn) {
  static char buf[4096];
  snprintf(buf, sizeof buf,
           "{\"ock_fixture\":1,\"id\":\"mock-one-turn\",\"session\":{\"prompts\":[\"hi\"],"
           "\"providers\":[{\"name\":\"oa\",\"api\":\"openai\",\"model\":\"gpt-test\"},{\"name\":"
           "\"an\",\"api\":\"anthropic\",\"model\":\"claude-test\"}]},\"script\":{\"oa\":[%s],"
           "\"an\":[%s]}}",
           turn, turn);
  return buf;
}

static void test_stream_cut_short(void) {
  for (int anthropic = 0; anthropic < 2; anthropic++) {
    ock_mock *m = mock_from(one_turn_fixture("{\"text\":\"abcdefghijklmnop\",\"chunk_size\":4,"
                                             "\"fault\":{\"kind\":\"cut_stream\",\"after_chunks\":"
                                             "3}}"),
                            NULL);
    if (!m)
      return;
    struct http_reply r;
    http_post(m, llm_path(anthropic),
              request_body(anthropic, 1, "[{\"role\":\"user\",\"content\":\"hi\"}]"), NULL, &r);
    OCK_ASSERT_INT_EQ(r.curl_rc, 0); /* the HTTP exchange ends cleanly... */
    OCK_ASSERT_INT_EQ(r.status, 200);
    struct parsed p;
    parse_reply(anthropic, 1, r.body.data, &p);
    OCK_ASSERT_INT_EQ(p.n_events, anthropic ? 4 : 3); /* three events, and Anthropic's ping */
    OCK_ASSERT_INT_EQ(p.terminated, 0);               /* ...but without [DONE] / message_stop */
    char h[64];
    OCK_ASSERT_STR_EQ(reply_header(&r, "connection", h, sizeof h), "close");
    cJSON *rep = journal_nth(m, "llm_reply", 0);
    OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetObjectItem(rep, "fault"), "kind"), "cut_stream");
    OCK_ASSERT_INT_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(rep, "sse")), anthropic ? 4 : 3);
    cJSON_Delete(rep);
    http_reply_free(&r);
    /* Not streaming, the same fault cuts the body halfway through. */
    ock_mock_free(m);
    m = mock_from(one_turn_fixture("{\"text\":\"abcdefghijklmnop\",\"fault\":{\"kind\":"
                                   "\"cut_stream\",\"after_chunks\":3}}"),
                  NULL);
    http_post(m, llm_path(anthropic),
              request_body(anthropic, 0, "[{\"role\":\"user\",\"content\":\"hi\"}]"), NULL, &r);
    OCK_ASSERT_INT_EQ(r.curl_rc, CURLE_PARTIAL_FILE);
    OCK_ASSERT_NULL(cJSON_Parse(r.body.data));
    http_reply_free(&r);
    ock_mock_free(m);
  }
}

static void test_dropped_connection(void) {
  for (int anthropic = 0; anthropic < 2; anthropic++) {
    for (int stream = 0; stream < 2; stream++) {
      ock_mock *m = mock_from(one_turn_fixture("{\"text\":\"abcdefghijklmnopqrstuvwxyz\","
                                               "\"fault\":{\"kind\":\"drop_connection\","
                                               "\"after_bytes\":60}}"),
                              NULL);
      if (!m)
        return;
      struct http_reply r;
      http_post(m, llm_path(anthropic),
                request_body(anthropic, stream, "[{\"role\":\"user\",\"content\":\"hi\"}]"), NULL,
                &r);
      if (r.curl_rc != CURLE_PARTIAL_FILE && r.curl_rc != CURLE_RECV_ERROR)
        ock_test_fail(__LINE__, __FILE__, "curl %d (%s), expected a cut transfer", r.curl_rc,
                      curl_easy_strerror((CURLcode)r.curl_rc));
      OCK_ASSERT_INT_EQ(r.status, 200);
      OCK_ASSERT_INT_EQ(r.body.len, 60);
      cJSON *rep = journal_nth(m, "llm_reply", 0);
      OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetObjectItem(rep, "fault"), "kind"), "drop_connection");
      OCK_ASSERT_INT_EQ(ock_json_int(rep, "drop_after_bytes", 0), 60);
      cJSON_Delete(rep);
      http_reply_free(&r);
      ock_mock_free(m);
    }
  }
  /* after_bytes 0: closed before any response byte */
  ock_mock *m = mock_from(one_turn_fixture("{\"text\":\"x\",\"fault\":{\"kind\":"
                                           "\"drop_connection\",\"after_bytes\":0}}"),
                          NULL);
  if (!m)
    return;
  struct http_reply r;
  http_post(m, llm_path(0), request_body(0, 0, "[{\"role\":\"user\",\"content\":\"hi\"}]"), NULL,
            &r);
  OCK_ASSERT_INT_EQ(r.curl_rc, CURLE_GOT_NOTHING);
  OCK_ASSERT_INT_EQ(r.status, 0);
  http_reply_free(&r);
  OCK_ASSERT_INT_EQ(journal_count(m, "llm_reply"), 1);
  ock_mock_free(m);
}

static void test_error_mid_stream_and_malformed_chunk(void) {
  for (int anthropic = 0; anthropic < 2; anthropic++) {
    ock_mock *m = mock_from(one_turn_fixture("{\"text\":\"abcdefghijklmnop\",\"chunk_size\":4,"
                                             "\"fault\":{\"kind\":\"error_mid_stream\","
                                             "\"after_chunks\":2}}"),
                            NULL);
    if (!m)
      return;
    struct http_reply r;
    http_post(m, llm_path(anthropic),
              request_body(anthropic, 1, "[{\"role\":\"user\",\"content\":\"hi\"}]"), NULL, &r);
    OCK_ASSERT_INT_EQ(r.status, 200);
    OCK_ASSERT_CONTAINS(r.body.data, anthropic
                                         ? "event: error\ndata: {\"type\":\"error\",\"error\":"
                                           "{\"type\":\"overloaded_error\",\"message\":"
                                           "\"ock: scripted stream error\"}}\n\n"
                                         : "data: {\"error\":{\"message\":\"ock: scripted "
                                           "stream error\",\"type\":\"server_error\",\"param\":"
                                           "null,\"code\":null}}\n\n");
    OCK_ASSERT_NULL(strstr(r.body.data, anthropic ? "message_stop" : "[DONE]"));
    http_reply_free(&r);
    ock_mock_free(m);

    m = mock_from(one_turn_fixture("{\"text\":\"abcdefghijklmnop\",\"chunk_size\":4,\"fault\":{"
                                   "\"kind\":\"malformed_chunk\",\"after_chunks\":2}}"),
                  NULL);
    http_post(m, llm_path(anthropic),
              request_body(anthropic, 1, "[{\"role\":\"user\",\"content\":\"hi\"}]"), NULL, &r);
    cJSON *events = sse_split(r.body.data);
    int n = cJSON_GetArraySize(events);
    OCK_ASSERT_INT_EQ(n, anthropic ? 4 : 3); /* two events (and a ping), then the bad one */
    OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetArrayItem(events, n - 1), "data"), "{\"ock\":");
    cJSON_Delete(events);
    http_reply_free(&r);
    ock_mock_free(m);

    /* not streamed: an error_mid_stream is HTTP 500 with the error body */
    m = mock_from(one_turn_fixture("{\"text\":\"abc\",\"fault\":{\"kind\":\"error_mid_stream\","
                                   "\"after_chunks\":1}}"),
                  NULL);
    http_post(m, llm_path(anthropic),
              request_body(anthropic, 0, "[{\"role\":\"user\",\"content\":\"hi\"}]"), NULL, &r);
    OCK_ASSERT_INT_EQ(r.status, 500);
    OCK_ASSERT_CONTAINS(r.body.data,
                        anthropic ? "\"type\":\"api_error\"" : "\"type\":\"server_error\"");
    http_reply_free(&r);
    ock_mock_free(m);
  }
}

static void test_tool_arguments_that_are_not_json(void) {
  ock_mock *m = mock_from(one_turn_fixture("{\"tool_calls\":[{\"name\":\"f\",\"arguments_raw\":"
                                           "\"{\\\"a\\\": 1,\"}],\"chunk_size\":3}"),
                          NULL);
  if (!m)
    return;
  struct http_reply r;
  struct parsed p;
  http_post(m, llm_path(0), request_body(0, 1, "[{\"role\":\"user\",\"content\":\"hi\"}]"), NULL,
            &r);
  parse_reply(0, 1, r.body.data, &p);
  OCK_ASSERT_STR_EQ(p.args, "{\"a\": 1,");
  http_reply_free(&r);
  http_post(m, llm_path(1), request_body(1, 1, "[{\"role\":\"user\",\"content\":\"hi\"}]"), NULL,
            &r);
  parse_reply(1, 1, r.body.data, &p);
  OCK_ASSERT_STR_EQ(p.args, "{\"a\": 1,");
  http_reply_free(&r);
  ock_mock_free(m);
}

static void test_events_deny_and_continue(void) {
  ock_mock *m = mock_from("hooks.json", NULL);
  if (!m)
    return;
  struct http_reply r;
  http_post(m, "/ock/v1/events",
            "{\"event\":\"tool:pre\",\"data\":{\"tool_name\":\"rm\",\"tool_call_id\":\"c1\"}}",
            NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 200);
  OCK_ASSERT_STR_EQ(r.body.data, "{\"action\":\"deny\",\"reason\":\"rm is not allowed\"}");
  http_reply_free(&r);
  http_post(m, "/ock/v1/events",
            "{\"event\":\"tool:pre\",\"data\":{\"tool_name\":\"ls\",\"tool_call_id\":\"c2\"}}",
            NULL, &r);
  OCK_ASSERT_STR_EQ(r.body.data, "{\"action\":\"continue\"}");
  http_reply_free(&r);
  /* occurrence 2 of provider:request only */
  const char *ev = "{\"event\":\"provider:request\",\"data\":{\"provider\":\"main\"}}";
  http_post(m, "/ock/v1/events", ev, NULL, &r);
  OCK_ASSERT_STR_EQ(r.body.data, "{\"action\":\"continue\"}");
  http_reply_free(&r);
  http_post(m, "/ock/v1/events", ev, NULL, &r);
  OCK_ASSERT_CONTAINS(r.body.data, "\"action\":\"inject_context\"");
  http_reply_free(&r);
  http_post(m, "/ock/v1/events", ev, NULL, &r);
  OCK_ASSERT_STR_EQ(r.body.data, "{\"action\":\"continue\"}");
  http_reply_free(&r);
  cJSON *e = journal_nth(m, "event", 0);
  OCK_ASSERT_STR_EQ(ock_json_str(e, "event"), "tool:pre");
  OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetObjectItem(e, "data"), "tool_call_id"), "c1");
  OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetObjectItem(e, "reply"), "action"), "deny");
  cJSON_Delete(e);
  /* a malformed event is a 400 that says what an event looks like */
  http_post(m, "/ock/v1/events", "{\"name\":\"x\"}", NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 400);
  OCK_ASSERT_CONTAINS(r.body.data, "$.event: required");
  http_reply_free(&r);
  ock_mock_free(m);
}

static void test_tools_by_call_unknown_and_slow(void) {
  ock_mock *m = mock_from("hooks.json", NULL);
  if (!m)
    return;
  struct http_reply r;
  http_post(m, "/ock/v1/tools/flaky", "{\"tool_call_id\":\"c1\",\"input\":{}}", NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 500);
  OCK_ASSERT_CONTAINS(r.body.data, "\"success\":true"); /* calls[0] inherits the result */
  http_reply_free(&r);
  http_post(m, "/ock/v1/tools/flaky", "{\"tool_call_id\":\"c2\",\"input\":{}}", NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 200);
  OCK_ASSERT_CONTAINS(r.body.data, "\"message\":\"disk full\"");
  http_reply_free(&r);
  http_post(m, "/ock/v1/tools/flaky", "{\"tool_call_id\":\"c3\",\"input\":{}}", NULL, &r);
  OCK_ASSERT_STR_EQ(r.body.data, "{\"success\":true,\"output\":\"fine\"}");
  http_reply_free(&r);
  http_post(m, "/ock/v1/tools/ls", "{\"tool_call_id\":\"c4\",\"input\":{\"dir\":\".\"}}", NULL, &r);
  OCK_ASSERT_DOUBLE_GE(r.seconds, 0.14);
  OCK_ASSERT_STR_EQ(r.body.data, "{\"success\":true,\"output\":[\"a\",\"b\"]}");
  http_reply_free(&r);
  http_post(m, "/ock/v1/tools/nope", "{\"tool_call_id\":\"c5\",\"input\":{}}", NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 404);
  OCK_ASSERT_STR_EQ(r.body.data, "{\"success\":false,\"output\":null,\"error\":{\"type\":"
                                 "\"not_found\",\"message\":\"tool 'nope' is not in this "
                                 "scenario\"}}");
  http_reply_free(&r);
  /* the slow tool's start and end are 150 ms apart */
  cJSON *s = journal_nth(m, "tool_start", 3), *e = journal_nth(m, "tool_end", 3);
  OCK_ASSERT_DOUBLE_GE(ock_json_num(e, "t_ms", 0) - ock_json_num(s, "t_ms", 0), 140);
  OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetObjectItem(s, "input"), "dir"), ".");
  cJSON_Delete(s);
  cJSON_Delete(e);
  s = journal_nth(m, "tool_start", 4);
  e = journal_nth(m, "tool_end", 4);
  OCK_ASSERT_INT_EQ(ock_json_bool(s, "known", -1), 0);
  OCK_ASSERT_INT_EQ(ock_json_int(e, "status", 0), 404);
  cJSON_Delete(s);
  cJSON_Delete(e);
  http_post(m, "/ock/v1/tools/ls", "{\"input\":{}}", NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 400);
  OCK_ASSERT_CONTAINS(r.body.data, "$.tool_call_id: required");
  http_reply_free(&r);
  ock_mock_free(m);
}

static void test_unmatched_request(void) {
  for (int run = 0; run < 4; run++) {
    int anthropic = run & 1, stream = run >> 1;
    ock_mock *m = mock_from(one_turn_fixture("{\"match\":{\"last_tool_call_id\":\"call_x\"},"
                                             "\"text\":\"after x\"}"),
                            NULL);
    if (!m)
      return;
    struct http_reply r;
    http_post(m, llm_path(anthropic),
              request_body(anthropic, stream, "[{\"role\":\"user\",\"content\":\"hello\"}]"), NULL,
              &r);
    OCK_ASSERT_INT_EQ(r.status, 400);
    OCK_ASSERT_CONTAINS(r.body.data, anthropic ? "ock: no scripted turn matches this request "
                                                 "(provider an, request 1)"
                                               : "ock: no scripted turn matches this request "
                                                 "(provider oa, request 1)");
    OCK_ASSERT_CONTAINS(r.body.data, "\"type\":\"invalid_request_error\"");
    http_reply_free(&r);
    /* the journal says which turn was expected, and what the request had */
    cJSON *u = journal_nth(m, "unmatched", 0);
    OCK_ASSERT_STR_EQ(ock_json_str(u, "provider"), anthropic ? "an" : "oa");
    OCK_ASSERT_CONTAINS(ock_json_str(u, "expected"),
                        anthropic ? "expected $.script.an[0] (match last_tool_call_id \"call_x\")"
                                  : "expected $.script.oa[0] (match last_tool_call_id \"call_x\")");
    OCK_ASSERT_CONTAINS(ock_json_str(u, "expected"),
                        "the request's last message is user \"hello\"");
    cJSON_Delete(u);
    cJSON *req = journal_nth(m, "llm_request", 0);
    OCK_ASSERT_INT_EQ(ock_json_int(req, "turn", 0), -1);
    cJSON_Delete(req);
    ock_mock_free(m);
  }
}

/* A fixed sequence touching every endpoint, streaming and not, faults and errors. */
static void play_sequence(ock_mock *m, struct ock_buf *replies) {
  static const struct {
    const char *path;
    const char *body;
  } steps[] = {
      {"/ock/v1/events", "{\"event\":\"prompt:submit\",\"data\":{\"prompt\":\"x\"}}"},
      {"/p/oa/v1/chat/completions",
       "{\"model\":\"gpt-test\",\"stream\":true,\"stream_options\":{\"include_usage\":true},"
       "\"messages\":[{\"role\":\"user\",\"content\":\"What is the weather in Paris?\"}]}"},
      {"/ock/v1/tools/get_weather", "{\"tool_call_id\":\"call_1\",\"input\":{\"city\":\"Paris\"}}"},
      {"/p/an/v1/messages",
       "{\"model\":\"claude-test\",\"max_tokens\":9,\"messages\":[{\"role\":\"user\",\"content\":"
       "\"hi\"}]}"},
      {"/p/an/v1/messages",
       "{\"model\":\"claude-test\",\"max_tokens\":9,\"stream\":true,\"messages\":[{\"role\":"
       "\"user\",\"content\":\"hi\"}]}"},
      {"/p/an/v1/messages", "{\"model\":\"claude-test\",\"max_tokens\":9,\"messages\":[]}"},
      {"/p/oa/v1/chat/completions", NULL}, /* a broken history (A07) */
      {"/nowhere", "{}"},
  };
  for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
    struct http_reply r;
    const char *body =
        steps[i].body ? steps[i].body : request_body(0, 1, BROKEN_HISTORIES[6].messages);
    http_post(m, steps[i].path, body, "X-OCK-Trace-Id: t-1", &r);
    OCK_ASSERT_OK(
        ock_buf_printf(replies, "== %s\n%s%s\n", steps[i].path, r.head.data, r.body.data));
    http_reply_free(&r);
  }
}

static void test_same_requests_same_bytes_and_journal(void) {
  struct ock_buf a, b;
  ock_buf_init(&a, 1 << 22);
  ock_buf_init(&b, 1 << 22);
  char *ja = NULL, *jb = NULL;
  for (int run = 0; run < 2; run++) {
    ock_mock *m = mock_from("tool_conversation.json", NULL);
    if (!m)
      return;
    play_sequence(m, run ? &b : &a);
    char *j = journal_without_time(m);
    if (run)
      jb = j;
    else
      ja = j;
    ock_mock_free(m);
  }
  OCK_ASSERT_INT_GT(a.len, 2000);
  OCK_ASSERT_INT_EQ(a.len, b.len);
  OCK_ASSERT_INT_EQ(memcmp(a.data, b.data, a.len), 0);
  OCK_ASSERT_INT_GT(strlen(ja), 2000);
  OCK_ASSERT_STR_EQ(ja, jb);
  OCK_ASSERT_NULL(strstr(a.data, "Date:"));
  free(ja);
  free(jb);
  ock_buf_free(&a);
  ock_buf_free(&b);
}

static void test_session_document(void) {
  ock_mock *m = mock_from("tool_conversation.json", NULL);
  if (!m)
    return;
  struct http_reply r;
  http_get(m, "/ock/v1/session", &r);
  OCK_ASSERT_INT_EQ(r.status, 200);
  cJSON *doc = cJSON_Parse(r.body.data);
  OCK_ASSERT_STR_EQ(ock_json_str(doc, "protocol"), "ock/1");
  OCK_ASSERT_STR_EQ(ock_json_str(doc, "scenario"), "mock-tool-conversation");
  /* The fixture sets no config: every option is served with the registry's default, and the
   * journal's session entry keeps what was served, for the checks. */
  const cJSON *cfg = cJSON_GetObjectItem(doc, "config");
  OCK_ASSERT_REGISTRY_DEFAULTS(cfg, "the mock's session document");
  cJSON *entry = journal_nth(m, "session", 0);
  OCK_ASSERT_TRUE(cJSON_Compare(cJSON_GetObjectItem(entry, "config"), cfg, 1));
  cJSON_Delete(entry);
  const cJSON *p0 = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "providers"), 0);
  const cJSON *p1 = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "providers"), 1);
  char want[160];
  snprintf(want, sizeof want, "%s/p/oa/v1", ock_mock_url(m));
  OCK_ASSERT_STR_EQ(ock_json_str(p0, "base_url"), want);
  snprintf(want, sizeof want, "%s/p/an", ock_mock_url(m));
  OCK_ASSERT_STR_EQ(ock_json_str(p1, "base_url"), want);
  OCK_ASSERT_INT_EQ(ock_json_int(p1, "priority", 0), 2);
  OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "tools"), 0), "name"),
                    "get_weather");
  cJSON_Delete(doc);
  http_reply_free(&r);
  OCK_ASSERT_INT_EQ(journal_count(m, "session"), 1);
  OCK_ASSERT_CONTAINS(ock_mock_url(m), "http://127.0.0.1:");
  ock_mock_free(m);
}

static void test_bad_input_gets_a_clear_4xx(void) {
  ock_mock *m = mock_from("tool_conversation.json", NULL);
  if (!m)
    return;
  struct http_reply r;
  http_post(m, "/p/oa/v1/chat/completions", "{\"model\":", NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 400);
  OCK_ASSERT_CONTAINS(r.body.data, "not valid JSON");
  http_reply_free(&r);
  http_post(m, "/p/oa/v1/chat/completions", "{\"messages\":[]}", NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 400);
  OCK_ASSERT_CONTAINS(r.body.data, "$.model: required");
  http_reply_free(&r);
  http_post(m, "/p/an/v1/messages", "{\"model\":\"c\",\"messages\":{}}", NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 400);
  OCK_ASSERT_CONTAINS(r.body.data, "$.messages: expected an array, got object");
  OCK_ASSERT_CONTAINS(r.body.data, "\"request_id\":\"req_ock_");
  http_reply_free(&r);
  http_post(m, "/p/oa/v1/chat/completions",
            "{\"model\":\"m\",\"messages\":[{\"role\":\"robot\",\"content\":\"x\"}]}", NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 400);
  OCK_ASSERT_CONTAINS(r.body.data, "$.messages[0].role");
  http_reply_free(&r);
  http_post(m, "/p/an/v1/chat/completions", "{}", NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 404);
  OCK_ASSERT_CONTAINS(r.body.data, "provider \\\"an\\\" speaks anthropic");
  http_reply_free(&r);
  http_post(m, "/ock/v1/session", "{}", NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 405);
  http_reply_free(&r);
  http_get(m, "/ock/v1/nothing", &r);
  OCK_ASSERT_INT_EQ(r.status, 404);
  OCK_ASSERT_CONTAINS(r.body.data, "no endpoint at /ock/v1/nothing");
  http_reply_free(&r);
  /* 9 MiB of body: 413, the connection is not kept reading */
  size_t big = (size_t)9 << 20;
  char *body = malloc(big + 1);
  memset(body, 'x', big);
  body[big] = '\0';
  http_post(m, "/p/oa/v1/chat/completions", body, NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 413);
  OCK_ASSERT_CONTAINS(r.body.data, "request body larger than");
  http_reply_free(&r);
  free(body);
  OCK_ASSERT_INT_EQ(journal_count(m, "http_error"), 4);
  /* still serving */
  http_get(m, "/ock/v1/session", &r);
  OCK_ASSERT_INT_EQ(r.status, 200);
  http_reply_free(&r);
  ock_mock_free(m);
}

static void on_cancel(void *user) {
  atomic_fetch_add((atomic_int *)user, 1);
}

struct stopper {
  ock_mock *m;
  atomic_int *cancels; /* the request is held in its delay once its cancel trigger fired */
};

/* stop_later stops the mock once the request is inside its delay (or after 5 s). */
static void *stop_later(void *arg) {
  struct stopper *s = arg;
  for (int i = 0; i < 500 && atomic_load(s->cancels) == 0; i++)
    usleep(10000);
  ock_mock_stop(s->m);
  return NULL;
}

static void test_cancel_trigger_and_prompt_stop(void) {
  atomic_int cancels = 0;
  struct ock_mock_options opt = {.on_cancel = on_cancel, .user = &cancels};
  ock_mock *m = mock_from("{\"ock_fixture\":1,\"id\":\"c\",\"session\":{\"prompts\":[],"
                          "\"providers\":[{\"name\":\"oa\",\"api\":\"openai\",\"model\":\"m\"}]},"
                          "\"script\":{\"oa\":[{\"text\":\"slow\",\"delay_ms\":20000}]},"
                          "\"cancel\":{\"at\":\"llm_request\",\"index\":1}}",
                          &opt);
  if (!m)
    return;
  struct stopper s = {m, &cancels};
  pthread_t t;
  pthread_create(&t, NULL, stop_later, &s);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  struct http_reply r;
  http_post(m, "/v1/chat/completions",
            request_body(0, 0, "[{\"role\":\"user\",\"content\":\"x\"}]"), NULL, &r);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  pthread_join(t, NULL);
  double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  OCK_ASSERT_DOUBLE_LT(secs, 2.0); /* the 20 s delay did not hold the stop */
  OCK_ASSERT_INT_NE(r.curl_rc, 0);
  OCK_ASSERT_INT_EQ(cancels, 1);
  http_reply_free(&r);
  cJSON *c = journal_nth(m, "cancel", 0);
  OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetObjectItem(c, "trigger"), "at"), "llm_request");
  cJSON_Delete(c);
  cJSON *first = journal_nth(m, NULL, 0), *second = journal_nth(m, NULL, 1);
  OCK_ASSERT_STR_EQ(ock_json_str(first, "kind"), "llm_request");
  OCK_ASSERT_STR_EQ(ock_json_str(second, "kind"), "cancel");
  cJSON_Delete(first);
  cJSON_Delete(second);
  cJSON *rep = journal_nth(m, "llm_reply", 0);
  OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetObjectItem(rep, "fault"), "kind"), "client_gone");
  cJSON_Delete(rep);
  ock_mock_stop(m); /* idempotent */
  ock_mock_free(m);
}

static void test_random_faults_are_seeded(void) {
  const char *fx =
      "{\"ock_fixture\":1,\"id\":\"r\",\"session\":{\"prompts\":[],\"providers\":["
      "{\"name\":\"oa\",\"api\":\"openai\",\"model\":\"m\"}],\"tools\":[{\"name\":"
      "\"t\"}]},\"script\":{\"oa\":[{\"text\":\"a\"},{\"text\":\"b\"},{\"text\":\"c\"},"
      "{\"text\":\"d\"},{\"text\":\"e\"},{\"text\":\"f\"},{\"text\":\"g\"},{\"text\":"
      "\"h\"},{\"text\":\"i\"},{\"text\":\"j\"},{\"text\":\"k\"},{\"text\":\"l\"}]},"
      "\"random_faults\":[{\"on\":\"llm\",\"probability\":0.5,\"fault\":{\"status\":"
      "503}},{\"on\":\"tool\",\"probability\":0.5}]}";
  char pattern[3][64];
  unsigned long long seeds[3] = {11, 11, 12};
  for (int run = 0; run < 3; run++) {
    struct ock_mock_options opt = {.seed = seeds[run]};
    ock_mock *m = mock_from(fx, &opt);
    if (!m)
      return;
    int k = 0;
    for (int i = 0; i < 12; i++) {
      struct http_reply r;
      http_post(m, "/v1/chat/completions",
                request_body(0, 0, "[{\"role\":\"user\",\"content\":\"x\"}]"), NULL, &r);
      pattern[run][k++] = r.status == 503 ? 'F' : r.status == 200 ? '.' : '?';
      http_reply_free(&r);
      http_post(m, "/ock/v1/tools/t", "{\"tool_call_id\":\"c\",\"input\":{}}", NULL, &r);
      pattern[run][k++] = r.status == 500 ? 'f' : r.status == 200 ? ',' : '?';
      http_reply_free(&r);
    }
    pattern[run][k] = '\0';
    /* a random fault does not use up a turn: the answers still come a, b, c, ... */
    cJSON *j = ock_mock_journal(m);
    const cJSON *e;
    char next = 'a';
    cJSON_ArrayForEach(e, j) {
      const char *kind = ock_json_str(e, "kind"), *text = ock_json_str(e, "text");
      if (!strcmp(kind, "llm_reply") && ock_json_int(e, "status", 0) == 200) {
        char want[2] = {next++, '\0'};
        OCK_ASSERT_STR_EQ(text, want);
      }
    }
    cJSON_Delete(j);
    ock_mock_free(m);
  }
  OCK_ASSERT_STR_EQ(pattern[0], pattern[1]);
  OCK_ASSERT_INT_NE(strcmp(pattern[0], pattern[2]), 0);
  OCK_ASSERT_TRUE(strchr(pattern[0], 'F') != NULL && strchr(pattern[0], '.') != NULL);
  OCK_ASSERT_NULL(strchr(pattern[0], '?'));
}

static void test_default_endpoints_reach_the_first_provider_of_each_api(void) {
  ock_mock *m = mock_from("tool_conversation.json", NULL);
  if (!m)
    return;
  struct http_reply r;
  http_post(m, "/v1/messages", request_body(1, 0, "[{\"role\":\"user\",\"content\":\"x\"}]"), NULL,
            &r);
  OCK_ASSERT_INT_EQ(r.status, 200);
  char h[64];
  OCK_ASSERT_NOT_NULL(reply_header(&r, "request-id", h, sizeof h));
  http_reply_free(&r);
  cJSON *req = journal_nth(m, "llm_request", 0);
  OCK_ASSERT_STR_EQ(ock_json_str(req, "provider"), "an");
  cJSON_Delete(req);
  /* the tools a request offers are journaled by name, in either wire's shape */
  http_post(m, "/v1/chat/completions",
            "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"tools\":"
            "[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\"}}]}",
            NULL, &r);
  http_reply_free(&r);
  http_post(m, "/v1/messages",
            "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"tools\":"
            "[{\"name\":\"get_time\",\"input_schema\":{}}]}",
            NULL, &r);
  http_reply_free(&r);
  req = journal_nth(m, "llm_request", 1);
  char *tools = cJSON_PrintUnformatted(cJSON_GetObjectItem(req, "tools"));
  OCK_ASSERT_STR_EQ(tools, "[\"get_weather\"]");
  free(tools);
  cJSON_Delete(req);
  req = journal_nth(m, "llm_request", 2);
  tools = cJSON_PrintUnformatted(cJSON_GetObjectItem(req, "tools"));
  OCK_ASSERT_STR_EQ(tools, "[\"get_time\"]");
  free(tools);
  cJSON_Delete(req);
  ock_mock_free(m);
}

/* A client that gives up during a delay leaves a reply journaled as client_gone. */
static void test_client_gone(void) {
  ock_mock *m = mock_from(one_turn_fixture("{\"text\":\"late\",\"delay_ms\":600}"), NULL);
  if (!m)
    return;
  CURL *c = curl_easy_init();
  char url[256];
  snprintf(url, sizeof url, "%s/v1/chat/completions", ock_mock_url(m));
  struct curl_slist *hs = curl_slist_append(NULL, "Content-Type: application/json");
  curl_easy_setopt(c, CURLOPT_URL, url);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, hs);
  curl_easy_setopt(c, CURLOPT_POSTFIELDS,
                   request_body(0, 0, "[{\"role\":\"user\",\"content\":\"x\"}]"));
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 150L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  OCK_ASSERT_INT_EQ(curl_easy_perform(c), CURLE_OPERATION_TIMEDOUT);
  curl_slist_free_all(hs);
  curl_easy_cleanup(c);
  /* the mock notices when it tries to write, after the delay */
  cJSON *rep = NULL;
  for (int i = 0; i < 200 && !rep; i++) {
    rep = journal_nth(m, "llm_reply", 0);
    if (!rep)
      usleep(10000);
  }
  OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetObjectItem(rep, "fault"), "kind"), "client_gone");
  cJSON_Delete(rep);
  ock_mock_free(m);
}

static void test_cancel_triggers_on_events_and_after_execute(void) {
  atomic_int cancels = 0;
  struct ock_mock_options opt = {.on_cancel = on_cancel, .user = &cancels};
  ock_mock *m = mock_from("{\"ock_fixture\":1,\"id\":\"c\",\"session\":{\"prompts\":[],"
                          "\"providers\":[]},\"cancel\":[{\"at\":\"event\",\"event\":"
                          "\"tool:pre\",\"occurrence\":2},{\"at\":\"after_execute\",\"index\":1}]}",
                          &opt);
  if (!m)
    return;
  struct http_reply r;
  const char *pre = "{\"event\":\"tool:pre\",\"data\":{}}";
  http_post(m, "/ock/v1/events", pre, NULL, &r);
  OCK_ASSERT_INT_EQ(cancels, 0);
  OCK_ASSERT_DOUBLE_LT(r.seconds, 0.15);
  http_reply_free(&r);
  http_post(m, "/ock/v1/events", pre, NULL, &r);
  OCK_ASSERT_INT_EQ(cancels, 1);
  OCK_ASSERT_DOUBLE_GE(r.seconds, 0.19); /* held 200 ms after the trigger fired */
  http_reply_free(&r);
  http_post(m, "/ock/v1/events", pre, NULL, &r);
  OCK_ASSERT_INT_EQ(cancels, 1); /* each trigger fires once */
  http_reply_free(&r);
  http_post(m, "/ock/v1/events", "{\"event\":\"orchestrator:complete\",\"data\":{}}", NULL, &r);
  http_reply_free(&r);
  for (int i = 0; i < 100 && atomic_load(&cancels) < 2; i++)
    usleep(10000);
  OCK_ASSERT_INT_EQ(cancels, 2);
  cJSON *last = journal_nth(m, NULL, journal_count(m, NULL) - 1);
  OCK_ASSERT_STR_EQ(ock_json_str(last, "kind"), "cancel");
  OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetObjectItem(last, "trigger"), "at"), "after_execute");
  cJSON_Delete(last);
  ock_mock_free(m);
}

static void test_delays_before_and_between_chunks(void) {
  ock_mock *m =
      mock_from(one_turn_fixture("{\"text\":\"abcdefgh\",\"chunk_size\":2,\"delay_ms\":100,"
                                 "\"chunk_delay_ms\":40}"),
                NULL);
  if (!m)
    return;
  struct http_reply r;
  http_post(m, llm_path(0), request_body(0, 1, "[{\"role\":\"user\",\"content\":\"hi\"}]"), NULL,
            &r);
  /* role, 4 deltas, finish, [DONE]: 100 ms first, then 6 gaps of 40 ms */
  OCK_ASSERT_DOUBLE_GE(r.seconds, 0.33);
  OCK_ASSERT_CONTAINS(r.body.data, "data: [DONE]");
  http_reply_free(&r);
  cJSON *req = journal_nth(m, "llm_request", 0), *rep = journal_nth(m, "llm_reply", 0);
  OCK_ASSERT_DOUBLE_GE(ock_json_num(rep, "t_ms", 0) - ock_json_num(req, "t_ms", 0), 320);
  cJSON_Delete(req);
  cJSON_Delete(rep);
  ock_mock_free(m);
}

struct caller {
  ock_mock *m;
  int index;
  long status;
};

static void *call_tool(void *arg) {
  struct caller *c = arg;
  char body[96];
  snprintf(body, sizeof body, "{\"tool_call_id\":\"c%d\",\"input\":{}}", c->index);
  struct http_reply r;
  http_post(c->m, "/ock/v1/tools/get_weather", body, NULL, &r);
  c->status = r.status;
  http_reply_free(&r);
  return NULL;
}

static void test_parallel_tool_calls_keep_one_order(void) {
  ock_mock *m = mock_from("tool_conversation.json", NULL);
  if (!m)
    return;
  enum { N = 16 };
  pthread_t t[N];
  struct caller c[N];
  for (int i = 0; i < N; i++) {
    c[i] = (struct caller){m, i, 0};
    pthread_create(&t[i], NULL, call_tool, &c[i]);
  }
  for (int i = 0; i < N; i++)
    pthread_join(t[i], NULL);
  for (int i = 0; i < N; i++)
    OCK_ASSERT_INT_EQ(c[i].status, 200);
  cJSON *j = ock_mock_journal(m);
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(j), 2 * N);
  long long seq = 0;
  double t_ms = 0;
  int ok = 1;
  const cJSON *e;
  cJSON_ArrayForEach(e, j) {
    ok &= ock_json_int(e, "seq", 0) == seq + 1 && ock_json_num(e, "t_ms", -1) >= t_ms;
    seq = ock_json_int(e, "seq", 0);
    t_ms = ock_json_num(e, "t_ms", 0);
  }
  OCK_ASSERT_TRUE(ok); /* seq counts up by one, time never goes back */
  cJSON_Delete(j);
  ock_mock_free(m);
}

struct delayed {
  ock_mock *m;
  long status;
  atomic_int done;
};

static void *post_delayed(void *arg) {
  struct delayed *d = arg;
  struct http_reply r;
  http_post(d->m, llm_path(0), request_body(0, 0, "[{\"role\":\"user\",\"content\":\"x\"}]"), NULL,
            &r);
  d->status = r.status;
  http_reply_free(&r);
  atomic_store(&d->done, 1);
  return NULL;
}

/* A delay suspends its connection instead of holding a serving thread: with one thread, a
 * request made during another's delay is answered before it; and a mock stopped while a
 * connection is suspended resumes it (libmicrohttpd aborts on a suspended connection at stop)
 * and journals the reply as abandoned. */
static void test_a_delay_holds_no_thread(void) {
  struct ock_mock_options o = {.threads = 1};
  ock_mock *m = mock_from(one_turn_fixture("{\"text\":\"late\",\"delay_ms\":1500}"), &o);
  if (!m)
    return;
  struct delayed d = {.m = m};
  atomic_init(&d.done, 0);
  pthread_t t;
  pthread_create(&t, NULL, post_delayed, &d);
  cJSON *req = NULL; /* the request is journaled before its delay starts */
  for (int i = 0; i < 500 && !req; i++) {
    req = journal_nth(m, "llm_request", 0);
    if (!req)
      usleep(10000);
  }
  OCK_ASSERT_NOT_NULL_FATAL(req);
  cJSON_Delete(req);
  struct http_reply r;
  http_get(m, "/ock/v1/session", &r);
  OCK_ASSERT_INT_EQ((int)r.status, 200);
  OCK_ASSERT_INT_EQ(atomic_load(&d.done), 0); /* the delayed one still waits */
  http_reply_free(&r);
  ock_mock_stop(m);
  pthread_join(t, NULL);
  OCK_ASSERT_INT_NE((int)d.status, 200);
  cJSON *rep = journal_nth(m, "llm_reply", 0);
  OCK_ASSERT_NOT_NULL_FATAL(rep);
  OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetObjectItem(rep, "fault"), "kind"), "client_gone");
  cJSON_Delete(rep);
  ock_mock_free(m);
}

static int suite_init(void) {
  return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : 1;
}

static int suite_cleanup(void) {
  curl_global_cleanup();
  return 0;
}

/* Both real APIs refuse a request without messages, each with its own text; so does the mock,
 * and the script turn is not used up. */
static void test_empty_messages_refused_with_the_real_text(void) {
  ock_mock *m = mock_from("tool_conversation.json", NULL);
  if (!m)
    return;
  struct http_reply r;
  http_post(m, "/p/oa/v1/chat/completions", "{\"model\":\"m\",\"messages\":[]}", NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 400);
  cJSON *body = cJSON_Parse(r.body.data);
  const cJSON *err = cJSON_GetObjectItem(body, "error");
  OCK_ASSERT_STR_EQ(ock_json_str(err, "message"),
                    "Invalid 'messages': empty array. Expected an array with minimum length 1, "
                    "but got an empty array instead.");
  OCK_ASSERT_STR_EQ(ock_json_str(err, "type"), "invalid_request_error");
  OCK_ASSERT_STR_EQ(ock_json_str(err, "param"), "messages");
  OCK_ASSERT_STR_EQ(ock_json_str(err, "code"), "empty_array");
  cJSON_Delete(body);
  http_reply_free(&r);
  http_post(m, "/p/an/v1/messages", "{\"model\":\"c\",\"max_tokens\":9,\"messages\":[]}", NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 400);
  body = cJSON_Parse(r.body.data);
  err = cJSON_GetObjectItem(body, "error");
  OCK_ASSERT_STR_EQ(ock_json_str(err, "message"), "messages: at least one message is required");
  OCK_ASSERT_STR_EQ(ock_json_str(err, "type"), "invalid_request_error");
  cJSON_Delete(body);
  http_reply_free(&r);
  cJSON *reply = journal_nth(m, "llm_reply", 0);
  OCK_ASSERT_INT_EQ(ock_json_int(reply, "turn", -2), -1);
  cJSON_Delete(reply);
  ock_mock_free(m);
}

/* A string with U+0000 in it, or a member name given twice, would be graded as what cJSON
 * reads (the prefix; the first value) while other readers see the rest: the events endpoint
 * and the LLM endpoints refuse both with a 400 naming the path, and journal no cut string. */
static void test_nul_strings_and_repeated_names_are_refused(void) {
  static const struct {
    const char *body, *where;
  } events[] = {
      {"{\"event\":\"orchestrator:complete\",\"data\":{\"status\":\"success\\u0000-but-really-"
       "failed\"}}",
       "$.data.status: a string holds U+0000"},
      {"{\"event\":\"orchestrator:complete\\u0000x\",\"data\":{}}", "$.event: a string holds"},
      {"{\"event\":\"orchestrator:complete\",\"data\":{\"status\":\"success\",\"status\":"
       "\"cancelled\"}}",
       "$.data.status: duplicate key"},
      {"{\"event\":\"prompt:submit\",\"data\":{}} {\"event\":\"orchestrator:complete\"}",
       "content after the JSON value"},
  };
  ock_mock *m = mock_from(BROKEN_FIXTURE, NULL);
  if (!m)
    return;
  struct http_reply r;
  for (size_t i = 0; i < sizeof events / sizeof events[0]; i++) {
    http_post(m, "/ock/v1/events", events[i].body, NULL, &r);
    OCK_ASSERT_INT_EQ(r.status, 400);
    OCK_ASSERT_CONTAINS(r.body.data, events[i].where);
    http_reply_free(&r);
  }
  OCK_ASSERT_INT_EQ(journal_count(m, "event"), 0);
  OCK_ASSERT_INT_EQ(journal_count(m, "http_error"), 4);
  /* A result for "c1" + U+0000 + "junk" is no result for "c1"; neither is one whose id is
   * given twice (Python reads "junk"). Plain "junk" is the broken history it always was. */
  static const char *const ids[] = {"\"c1\\u0000junk\"", "\"c1\",\"tool_call_id\":\"junk\"",
                                    "\"junk\""};
  static const char *const why[] = {"U+0000", "duplicate key",
                                    "a preceeding message with 'tool_calls'"};
  for (int i = 0; i < 3; i++) {
    char messages[600];
    snprintf(messages, sizeof messages,
             "[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":null,"
             "\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"f\","
             "\"arguments\":\"{}\"}}]},{\"role\":\"tool\",\"tool_call_id\":%s,\"content\":\"ok\"}]",
             ids[i]);
    http_post(m, llm_path(0), request_body(0, 0, messages), NULL, &r);
    OCK_ASSERT_INT_EQ(r.status, 400);
    OCK_ASSERT_CONTAINS(r.body.data, why[i]);
    http_reply_free(&r);
  }
  cJSON *req = journal_nth(m, "llm_request", 0);
  OCK_ASSERT_CONTAINS(ock_json_str(req, "error"), "$.messages[2].tool_call_id: a string holds");
  OCK_ASSERT_TRUE(cJSON_IsNull(cJSON_GetObjectItem(req, "neutral")));
  cJSON_Delete(req);
  ock_mock_free(m);
  /* Arguments whose JSON text holds U+0000 or a name twice are valid strings of the request;
   * the neutral history keeps them as the text they are, never as cJSON's cut tree. */
  static const char *const args[] = {"{\\\"city\\\":\\\"Paris\\\\u0000x\\\"}",
                                     "{\\\"city\\\":\\\"Paris\\\",\\\"city\\\":\\\"Rome\\\"}"};
  static const char *const kept[] = {"{\"city\":\"Paris\\u0000x\"}",
                                     "{\"city\":\"Paris\",\"city\":\"Rome\"}"};
  for (int i = 0; i < 2; i++) {
    m = mock_from(BROKEN_FIXTURE, NULL);
    if (!m)
      return;
    char messages[600];
    snprintf(messages, sizeof messages,
             "[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":null,"
             "\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"f\","
             "\"arguments\":\"%s\"}}]},{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":"
             "\"ok\"}]",
             args[i]);
    http_post(m, llm_path(0), request_body(0, 0, messages), NULL, &r);
    OCK_ASSERT_INT_EQ(r.status, 200);
    http_reply_free(&r);
    req = journal_nth(m, "llm_request", 0);
    const cJSON *call = cJSON_GetArrayItem(
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(req, "neutral"), 1),
                            "tool_calls"),
        0);
    OCK_ASSERT_STR_EQ(ock_json_str(call, "arguments"), kept[i]);
    cJSON_Delete(req);
    ock_mock_free(m);
  }
}

/* An assistant message with thousands of unanswered calls gets the real API's 400 and a
 * finding whose text names the first ids and counts the rest: not a 500, not an empty text. */
static void test_many_open_calls_get_the_real_400(void) {
  static const int counts[] = {100, 20000};
  for (int k = 0; k < 2; k++) {
    ock_mock *m = mock_from(BROKEN_FIXTURE, NULL);
    if (!m)
      return;
    struct ock_buf b;
    ock_buf_init(&b, (size_t)8 << 20);
    int rc =
        ock_buf_puts(&b, "{\"model\":\"gpt-test\",\"messages\":[{\"role\":\"user\",\"content\":"
                         "\"hi\"},{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[");
    for (int i = 0; i < counts[k] && !rc; i++)
      rc = ock_buf_printf(
          &b,
          "%s{\"id\":\"call_%06d_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\","
          "\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}",
          i ? "," : "", i);
    rc = rc || ock_buf_puts(&b, "]}]}");
    OCK_ASSERT_OK(rc);
    struct http_reply r;
    http_post(m, llm_path(0), b.data, NULL, &r);
    OCK_ASSERT_INT_EQ(r.status, 400);
    cJSON *body = cJSON_Parse(r.body.data);
    const char *msg = ock_json_str(cJSON_GetObjectItem(body, "error"), "message");
    OCK_ASSERT_CONTAINS(msg, "did not have response messages: call_000000_");
    char more[64];
    snprintf(more, sizeof more, "... and %d more", counts[k] - 16);
    OCK_ASSERT_CONTAINS(msg, more);
    cJSON_Delete(body);
    http_reply_free(&r);
    cJSON *f = journal_nth(m, "finding", 0);
    OCK_ASSERT_STR_EQ(ock_json_str(f, "shape"), "A01_UNMATCHED_TOOL_USE");
    OCK_ASSERT_CONTAINS(ock_json_str(f, "message"), more);
    cJSON_Delete(f);
    ock_buf_free(&b);
    ock_mock_free(m);
  }
}

/* An HTTP-level refusal on an LLM endpoint comes in that API's own error envelope, as the real
 * service's 404, 405 or 413 does: an SDK reads error.type and error.message from it. */
static void test_llm_endpoint_refusals_in_the_wire_envelope(void) {
  ock_mock *m = mock_from("tool_conversation.json", NULL);
  if (!m)
    return;
  struct http_reply r;
  /* an Anthropic provider asked on the OpenAI path: OpenAI's envelope */
  http_post(m, "/p/an/v1/chat/completions", "{}", NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 404);
  cJSON *body = cJSON_Parse(r.body.data);
  const cJSON *err = cJSON_GetObjectItem(body, "error");
  OCK_ASSERT_STR_EQ(ock_json_str(err, "type"), "invalid_request_error");
  OCK_ASSERT_CONTAINS(ock_json_str(err, "message"), "provider \"an\" speaks anthropic");
  OCK_ASSERT_TRUE(cJSON_IsNull(cJSON_GetObjectItem(err, "param")));
  OCK_ASSERT_TRUE(cJSON_IsNull(cJSON_GetObjectItem(err, "code")));
  cJSON_Delete(body);
  http_reply_free(&r);
  /* the reverse, an unknown provider, a wrong method: Anthropic's, with its request id */
  static const struct {
    const char *method, *path;
    int status;
    const char *type;
  } anthropic[] = {{"POST", "/p/oa/v1/messages", 404, "not_found_error"},
                   {"POST", "/p/zz/v1/messages", 404, "not_found_error"},
                   {"GET", "/v1/messages", 405, "invalid_request_error"}};
  for (size_t i = 0; i < sizeof anthropic / sizeof anthropic[0]; i++) {
    if (!strcmp(anthropic[i].method, "GET"))
      http_get(m, anthropic[i].path, &r);
    else
      http_post(m, anthropic[i].path, "{}", NULL, &r);
    OCK_ASSERT_INT_EQ(r.status, anthropic[i].status);
    body = cJSON_Parse(r.body.data);
    OCK_ASSERT_STR_EQ(ock_json_str(body, "type"), "error");
    err = cJSON_GetObjectItem(body, "error");
    OCK_ASSERT_STR_EQ(ock_json_str(err, "type"), anthropic[i].type);
    const char *rid = ock_json_str(body, "request_id");
    OCK_ASSERT_CONTAINS(rid ? rid : "(none)", "req_ock_");
    char header[96];
    snprintf(header, sizeof header, "request-id: %s", rid ? rid : "(none)");
    OCK_ASSERT_CONTAINS(r.head.data, header);
    cJSON_Delete(body);
    http_reply_free(&r);
  }
  /* a body that is not UTF-8 on the OpenAI path */
  http_post(m, "/p/oa/v1/chat/completions", "{\"model\":\"\xff\"}", NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 400);
  body = cJSON_Parse(r.body.data);
  err = cJSON_GetObjectItem(body, "error");
  OCK_ASSERT_STR_EQ(ock_json_str(err, "type"), "invalid_request_error");
  OCK_ASSERT_TRUE(cJSON_IsNull(cJSON_GetObjectItem(err, "code")));
  cJSON_Delete(body);
  http_reply_free(&r);
  /* the ock/1 endpoints keep the mock's own envelope */
  http_get(m, "/ock/v1/nothing", &r);
  OCK_ASSERT_CONTAINS(r.body.data, "{\"error\":{\"type\":\"not_found\",");
  http_reply_free(&r);
  OCK_ASSERT_INT_EQ(journal_count(m, "http_error"), 6);
  ock_mock_free(m);
}

/* The deterministic ids (SPEC.md 6.6) are written without printf: the same text as
 * "%s%08x" then "_%llu" per number, for a hash with leading zeros, 0 and the largest n. */
static void test_ids_are_printf_text(void) {
  static const unsigned hashes[] = {0, 0x00ab0c0du, 0xffffffffu};
  static const unsigned long long ns[] = {0, 7, 10, 1700000000ULL, 18446744073709551615ULL};
  for (size_t h = 0; h < sizeof hashes / sizeof *hashes; h++)
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
      char got[96], want[96];
      unsigned long long two[2] = {ns[i], ns[(i + 1) % 5]};
      ock__id_text(got, "chatcmpl-", hashes[h], '-', two, 1);
      snprintf(want, sizeof want, "chatcmpl-%08x-%llu", hashes[h], two[0]);
      OCK_ASSERT_STR_EQ(got, want);
      ock__id_text(got, "call_", hashes[h], '_', two, 2);
      snprintf(want, sizeof want, "call_%08x_%llu_%llu", hashes[h], two[0], two[1]);
      OCK_ASSERT_STR_EQ(got, want);
    }
}

static const struct ock_test tests[] = {
    {"ids_are_printf_text", test_ids_are_printf_text},
    {"two_turn_tool_conversation_openai", test_two_turn_tool_conversation_openai},
    {"two_turn_tool_conversation_anthropic", test_two_turn_tool_conversation_anthropic},
    {"anthropic_tool_use_input_must_be_an_object", test_anthropic_tool_use_input_must_be_an_object},
    {"broken_histories_get_400_with_the_provider_text",
     test_broken_histories_get_400_with_the_provider_text},
    {"broken_histories_observe_only_answer_and_journal",
     test_broken_histories_observe_only_answer_and_journal},
    {"fixture_observe_only_flag", test_fixture_observe_only_flag},
    {"429_with_retry_after", test_429_with_retry_after},
    {"stream_cut_short", test_stream_cut_short},
    {"dropped_connection", test_dropped_connection},
    {"error_mid_stream_and_malformed_chunk", test_error_mid_stream_and_malformed_chunk},
    {"tool_arguments_that_are_not_json", test_tool_arguments_that_are_not_json},
    {"events_deny_and_continue", test_events_deny_and_continue},
    {"tools_by_call_unknown_and_slow", test_tools_by_call_unknown_and_slow},
    {"unmatched_request", test_unmatched_request},
    {"same_requests_same_bytes_and_journal", test_same_requests_same_bytes_and_journal},
    {"session_document", test_session_document},
    {"bad_input_gets_a_clear_4xx", test_bad_input_gets_a_clear_4xx},
    {"empty_messages_refused_with_the_real_text", test_empty_messages_refused_with_the_real_text},
    {"many_open_calls_get_the_real_400", test_many_open_calls_get_the_real_400},
    {"nul_strings_and_repeated_names_are_refused", test_nul_strings_and_repeated_names_are_refused},
    {"llm_endpoint_refusals_in_the_wire_envelope", test_llm_endpoint_refusals_in_the_wire_envelope},
    {"cancel_trigger_and_prompt_stop", test_cancel_trigger_and_prompt_stop},
    {"random_faults_are_seeded", test_random_faults_are_seeded},
    {"default_endpoints_reach_the_first_provider_of_each_api",
     test_default_endpoints_reach_the_first_provider_of_each_api},
    {"client_gone", test_client_gone},
    {"delays_before_and_between_chunks", test_delays_before_and_between_chunks},
    {"a_delay_holds_no_thread", test_a_delay_holds_no_thread},
    {"parallel_tool_calls_keep_one_order", test_parallel_tool_calls_keep_one_order},
    {"cancel_triggers_on_events_and_after_execute",
     test_cancel_triggers_on_events_and_after_execute},
    {NULL, NULL}};

const struct ock_suite mock_server_suite = {"mock_server", tests, suite_init, suite_cleanup};
