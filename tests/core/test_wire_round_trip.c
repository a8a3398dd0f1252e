/*
 * test_wire_round_trip.c: what a wire encodes, it decodes to the same thing: a reply as a JSON
 * body and as SSE events, an error envelope, a request's history; for both wires.
 */
#include <stdlib.h>
#include <string.h>

#include "ock/buf.h"
#include "ock/sse.h"
#include "ock/status.h"
#include "ock/wire.h"
#include "runner.h"

static struct ock_tool_call CALLS[] = {
    {"call_1", "get_weather", "{\"city\":\"Paris\",\"note\":\"h\xc3\xa9\"}"},
    {"call_2", "get_time", "{}"},
};

/* reply: text (NULL: none) and the first n_calls of CALLS; strings borrowed. */
static struct ock_reply reply(const char *text, size_t n_calls, const char *finish) {
  struct ock_reply r;
  ock_reply_init(&r);
  r.id = "id_1";
  r.msg.content = (char *)text;
  r.msg.calls = CALLS;
  r.msg.n_calls = n_calls;
  r.finish_reason = (char *)finish;
  r.input_tokens = 21;
  r.output_tokens = 8;
  return r;
}

static void same_reply(const struct ock_reply *got, const struct ock_reply *want) {
  OCK_ASSERT_STR_EQ(got->id, want->id);
  OCK_ASSERT_STR_EQ(got->finish_reason, want->finish_reason);
  OCK_ASSERT_STR_EQ(got->msg.content ? got->msg.content : "",
                    want->msg.content ? want->msg.content : "");
  OCK_ASSERT_INT_EQ(got->msg.n_calls, want->msg.n_calls);
  for (size_t i = 0; i < got->msg.n_calls && i < want->msg.n_calls; i++) {
    OCK_ASSERT_STR_EQ(got->msg.calls[i].id, want->msg.calls[i].id);
    OCK_ASSERT_STR_EQ(got->msg.calls[i].name, want->msg.calls[i].name);
    OCK_ASSERT_STR_EQ(got->msg.calls[i].arguments, want->msg.calls[i].arguments);
  }
  OCK_ASSERT_INT_EQ(got->input_tokens, want->input_tokens);
  OCK_ASSERT_INT_EQ(got->output_tokens, want->output_tokens);
}

static const struct ock_wire_frame FRAME = {
    .model = "m", .created = 1700000000, .chunk_size = 3, .include_usage = 1};

static void json_trip(const struct ock_wire_ops *w, const struct ock_reply *want) {
  struct ock_buf b;
  ock_buf_init(&b, 1 << 20);
  OCK_ASSERT_OK(w->encode_reply(want, &FRAME, &b));
  cJSON *body = cJSON_ParseWithLength(b.data, b.len);
  struct ock_reply got;
  struct ock_jerr err;
  ock_reply_init(&got);
  OCK_ASSERT_OK(w->decode_reply(body, &got, &err));
  same_reply(&got, want);
  ock_reply_clear(&got);
  cJSON_Delete(body);
  ock_buf_free(&b);
}

static int join_text(void *user, const struct ock_delta *d) {
  return ock_buf_puts(user, d->text);
}

/* sse_trip feeds every encoded event through the SSE decoder and the stream decoder. */
static void sse_trip(const struct ock_wire_ops *w, const struct ock_reply *want) {
  struct ock_chunks c;
  ock_chunks_init(&c);
  OCK_ASSERT_OK(w->encode_events(want, &FRAME, &c));
  ock_sse *d = NULL;
  ock_wire_stream *s = NULL;
  struct ock_wire_error err = {{0}};
  struct ock_buf deltas;
  ock_buf_init(&deltas, 1 << 20);
  OCK_ASSERT_OK(ock_sse_new(1 << 20, &d));
  OCK_ASSERT_OK(ock_wire_stream_new(w->wire, 1 << 20, &s));
  for (size_t i = 0; i < c.n; i++) {
    size_t used = 0;
    int have = 0;
    struct ock_sse_event ev;
    OCK_ASSERT_OK(ock_sse_feed(d, c.items[i], c.lens[i], &used, &ev, &have));
    OCK_ASSERT_INT_EQ(used, c.lens[i]); /* one piece is one event */
    OCK_ASSERT_TRUE(have);
    if (have)
      OCK_ASSERT_OK(ock_wire_stream_event(s, ev.event, ev.data, join_text, &deltas, &err));
  }
  OCK_ASSERT_TRUE(ock_wire_stream_done(s));
  struct ock_reply got;
  ock_reply_init(&got);
  OCK_ASSERT_OK(ock_wire_stream_finish(s, &got, &err));
  same_reply(&got, want);
  OCK_ASSERT_STR_EQ(deltas.data ? deltas.data : "", want->msg.content ? want->msg.content : "");
  ock_reply_clear(&got);
  ock_buf_free(&deltas);
  ock_wire_stream_free(s);
  ock_sse_free(d);
  ock_chunks_free(&c);
}

static void test_replies(void) {
  const struct ock_wire_ops *wires[] = {&ock_wire_openai, &ock_wire_anthropic};
  for (size_t i = 0; i < 2; i++) {
    const struct ock_wire_ops *w = wires[i];
    struct ock_reply both = reply("Let me look that up \xc3\xa9.", 2, w->finish_tools);
    struct ock_reply text = reply("Just text.", 0, w->finish_text);
    struct ock_reply calls = reply(NULL, 1, w->finish_tools);
    json_trip(w, &both);
    json_trip(w, &text);
    json_trip(w, &calls);
    sse_trip(w, &both);
    sse_trip(w, &text);
    sse_trip(w, &calls);
  }
}

static void test_error_envelopes(void) {
  const struct ock_wire_ops *wires[] = {&ock_wire_openai, &ock_wire_anthropic};
  const char *types[] = {"requests", "rate_limit_error"};
  for (size_t i = 0; i < 2; i++) {
    struct ock_buf b;
    ock_buf_init(&b, 1 << 16);
    OCK_ASSERT_OK(wires[i]->encode_error(429, "slow down", NULL, NULL, "req_1", &b));
    struct ock_wire_error e;
    OCK_ASSERT_OK(ock_wire_decode_error(b.data, b.len, &e));
    OCK_ASSERT_STR_EQ(e.type, types[i]);
    OCK_ASSERT_STR_EQ(e.message, "slow down");
    ock_buf_free(&b);
  }
  struct ock_wire_error e;
  OCK_ASSERT_INT_EQ(ock_wire_decode_error("{\"ok\":1}", 8, &e), OCK_EPROTO);
  OCK_ASSERT_INT_EQ(ock_wire_decode_error("", 0, &e), OCK_EPROTO);
}

/* history: user, assistant with a call, its result, assistant text. */
static void history(struct ock_history *h) {
  ock_history_init(h);
  ock_history_add_text(h, OCK_ROLE_USER, "weather?");
  ock_history_add_assistant(h, "checking", CALLS, 1);
  ock_history_add_tool_result(h, "call_1", "15 C", 0);
  ock_history_add_text(h, OCK_ROLE_ASSISTANT, "15 C");
}

static void test_requests(void) {
  struct ock_history h, back;
  history(&h);
  struct ock_tool_spec tool = {"get_weather", "the weather", NULL};
  const struct ock_wire_ops *wires[] = {&ock_wire_openai, &ock_wire_anthropic};
  for (size_t i = 0; i < 2; i++) {
    struct ock_wire_request req = {"m", &h, &tool, 1, 1, 99};
    struct ock_buf b;
    ock_buf_init(&b, 1 << 20);
    OCK_ASSERT_OK(wires[i]->encode_request(&req, &b));
    cJSON *body = cJSON_ParseWithLength(b.data, b.len);
    OCK_ASSERT_STR_EQ(ock_json_str(body, "model"), "m");
    OCK_ASSERT_INT_EQ(ock_json_bool(body, "stream", 0), 1);
    OCK_ASSERT_INT_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(body, "tools")), 1);
    struct ock_jerr err;
    ock_history_init(&back);
    const cJSON *msgs = cJSON_GetObjectItem(body, "messages");
    OCK_ASSERT_OK(i ? ock_history_from_anthropic(NULL, msgs, &back, &err)
                    : ock_history_from_openai(msgs, &back, &err));
    OCK_ASSERT_INT_EQ(back.len, h.len);
    for (size_t m = 0; m < back.len && m < h.len; m++) {
      OCK_ASSERT_INT_EQ(back.items[m].role, h.items[m].role);
      OCK_ASSERT_STR_EQ(back.items[m].content, h.items[m].content);
      OCK_ASSERT_INT_EQ(back.items[m].n_calls, h.items[m].n_calls);
    }
    OCK_ASSERT_STR_EQ(back.items[1].calls[0].arguments, h.items[1].calls[0].arguments);
    OCK_ASSERT_STR_EQ(back.items[2].tool_call_id, "call_1");
    ock_history_free(&back);
    cJSON_Delete(body);
    ock_buf_free(&b);
  }
  ock_history_free(&h);
}

static const struct ock_test tests[] = {{"replies", test_replies},
                                        {"error_envelopes", test_error_envelopes},
                                        {"requests", test_requests},
                                        {NULL, NULL}};

const struct ock_suite suite_wire_round_trip = {"wire_round_trip", tests, NULL, NULL};
