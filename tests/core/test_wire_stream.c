/*
 * test_wire_stream.c: streamed chunks -> deltas -> reply, for both wires, fed through the SSE
 * decoder in pieces of every size (so every split point is exercised), plus the failures.
 */
#include <stdlib.h>
#include <string.h>

#include "ock/buf.h"
#include "ock/status.h"
#include "runner.h"
#include "ock/sse.h"
#include "ock/wire.h"

struct collected {
  struct ock_buf text; /* the text deltas joined */
  struct ock_buf log;  /* "t<i>:<id>/<name>/<args>;" per tool delta */
  int stop_after;      /* return non-zero at this delta (0 = never) */
  int n;
};

static int collect(void *user, const struct ock_delta *d) {
  struct collected *c = user;
  c->n++;
  OCK_ASSERT_OK(ock_buf_puts(&c->text, d->text));
  if (d->tool_index >= 0)
    OCK_ASSERT_OK(ock_buf_printf(&c->log, "t%d:%s/%s/%s;", d->tool_index,
                                 d->tool_id ? d->tool_id : "", d->tool_name ? d->tool_name : "",
                                 d->tool_args));
  return c->stop_after && c->n == c->stop_after;
}

/* run feeds sse text in pieces of step bytes; returns the first failure or finish's result. */
static int run(enum ock_wire wire, const char *sse, size_t step, struct collected *c,
               struct ock_reply *reply, struct ock_wire_error *err) {
  ock_sse *d = NULL;
  ock_wire_stream *m = NULL;
  OCK_ASSERT_OK(ock_sse_new(1 << 16, &d));
  OCK_ASSERT_OK(ock_wire_stream_new(wire, 1 << 16, &m));
  ock_buf_init(&c->text, 1 << 16);
  ock_buf_init(&c->log, 1 << 16);
  c->n = 0;
  int rc = OCK_OK;
  size_t n = strlen(sse);
  for (size_t off = 0; off < n && !rc; off += step) {
    const char *p = sse + off;
    size_t left = n - off < step ? n - off : step;
    while (left && !rc) {
      size_t used = 0;
      int have = 0;
      struct ock_sse_event ev;
      rc = ock_sse_feed(d, p, left, &used, &ev, &have);
      if (!rc && have)
        rc = ock_wire_stream_event(m, ev.event, ev.data, collect, c, err);
      p += used;
      left -= used;
    }
  }
  if (!rc)
    rc = ock_wire_stream_finish(m, reply, err);
  ock_sse_free(d);
  ock_wire_stream_free(m);
  return rc;
}

static void done(struct collected *c, struct ock_reply *r) {
  ock_buf_free(&c->text);
  ock_buf_free(&c->log);
  ock_reply_clear(r);
}

static const char openai_tools[] =
    "data: {\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\","
    "\"content\":null},\"finish_reason\":null}]}\n\n"
    "data: {\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Chec\"}}]}\n\n"
    "data: "
    "{\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"king.\"}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_a\","
    "\"type\":\"function\",\"function\":{\"name\":\"get\",\"arguments\":\"\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"call_b\","
    "\"type\":\"function\",\"function\":{\"name\":\"put\",\"arguments\":\"{\\\"k\\\"\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":"
    "{\"arguments\":\"{\\\"city\\\": \"}}]}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":"
    "{\"arguments\":\"\\\"Paris\\\"}\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"function\":"
    "{\"arguments\":\":1}\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n"
    "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":9}}\n\n"
    "data: [DONE]\n\n";

static void test_openai_tool_fragments(void) {
  size_t n = strlen(openai_tools);
  for (size_t step = 1; step <= n; step += (step < 40 ? 1 : 97)) {
    struct collected c = {0};
    struct ock_reply r;
    struct ock_wire_error err;
    ock_reply_init(&r);
    OCK_ASSERT_OK(run(OCK_WIRE_OPENAI, openai_tools, step, &c, &r, &err));
    OCK_ASSERT_STR_EQ(r.msg.content, "Checking.");
    OCK_ASSERT_STR_EQ(c.text.data, "Checking.");
    OCK_ASSERT_INT_EQ(r.msg.n_calls, 2);
    OCK_ASSERT_STR_EQ(r.msg.calls[0].id, "call_a");
    OCK_ASSERT_STR_EQ(r.msg.calls[0].name, "get");
    OCK_ASSERT_STR_EQ(r.msg.calls[0].arguments, "{\"city\": \"Paris\"}");
    OCK_ASSERT_STR_EQ(r.msg.calls[1].arguments, "{\"k\":1}");
    OCK_ASSERT_STR_EQ(r.finish_reason, "tool_calls");
    OCK_ASSERT_STR_EQ(r.id, "chatcmpl-1");
    OCK_ASSERT_INT_EQ(r.input_tokens, 7);
    OCK_ASSERT_INT_EQ(r.output_tokens, 9);
    OCK_ASSERT_STR_EQ(c.log.data, "t0:call_a/get/;t1:call_b/put/{\"k\";t0://{\"city\": ;"
                                  "t0://\"Paris\"};t1://:1};");
    done(&c, &r);
  }
}

static void test_openai_failures(void) {
  struct {
    const char *sse;
    const char *type;
    const char *message;
  } cases[] = {
      {"data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n", "stream_error",
       "the stream ended before data: [DONE]"},
      {"data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: {\"error\":{\"type\":"
       "\"server_error\",\"message\":\"boom\"}}\n\n",
       "stream_error", "error event mid-stream: server_error: boom"},
      {"data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: {not json\n\n",
       "stream_error", "malformed chunk: not a JSON object: {not json"},
      {"data: {\"choices\":{}}\n\n", "stream_error", "malformed chunk: choices is object"},
      {"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":-1}]}}]}\n\n", "stream_error",
       "tool_calls[].index is not a small whole number"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    struct collected c = {0};
    struct ock_reply r;
    struct ock_wire_error err = {0};
    ock_reply_init(&r);
    OCK_ASSERT_INT_EQ(run(OCK_WIRE_OPENAI, cases[i].sse, 5, &c, &r, &err), OCK_EPROTO);
    OCK_ASSERT_STR_EQ(err.type, "stream_error"); /* a failed stream, not a cancelled one */
    OCK_ASSERT_STR_EQ(err.type, cases[i].type);
    OCK_ASSERT_CONTAINS(err.message, cases[i].message);
    OCK_ASSERT_NULL(r.msg.content); /* never a partial reply */
    done(&c, &r);
  }
}

static const char anthropic_tools[] =
    "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\","
    "\"content\":[],\"usage\":{\"input_tokens\":11}}}\n\n"
    "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
    "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
    "event: ping\ndata: {\"type\":\"ping\"}\n\n"
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
    "\"delta\":{\"type\":\"text_delta\",\"text\":\"Let me \"}}\n\n"
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
    "\"delta\":{\"type\":\"text_delta\",\"text\":\"check.\"}}\n\n"
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
    "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,"
    "\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"json\",\"input\":{}}}"
    "\n\n"
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,"
    "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\"}}\n\n"
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,"
    "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"a\\\": [1,\"}}\n\n"
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,"
    "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"2]}\"}}\n\n"
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n"
    "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
    "\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":47}}\n\n"
    "event: some_future_event\ndata: {\"type\":\"some_future_event\"}\n\n"
    "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";

static void test_anthropic_blocks(void) {
  size_t n = strlen(anthropic_tools);
  for (size_t step = 1; step <= n; step += (step < 40 ? 1 : 89)) {
    struct collected c = {0};
    struct ock_reply r;
    struct ock_wire_error err;
    ock_reply_init(&r);
    OCK_ASSERT_OK(run(OCK_WIRE_ANTHROPIC, anthropic_tools, step, &c, &r, &err));
    OCK_ASSERT_STR_EQ(r.msg.content, "Let me check.");
    OCK_ASSERT_STR_EQ(c.text.data, "Let me check.");
    OCK_ASSERT_INT_EQ(r.msg.n_calls, 1);
    OCK_ASSERT_STR_EQ(r.msg.calls[0].id, "toolu_1");
    OCK_ASSERT_STR_EQ(r.msg.calls[0].name, "json");
    OCK_ASSERT_STR_EQ(r.msg.calls[0].arguments, "{\"a\": [1,2]}");
    OCK_ASSERT_STR_EQ(r.finish_reason, "tool_use");
    OCK_ASSERT_STR_EQ(r.id, "msg_1");
    OCK_ASSERT_INT_EQ(r.input_tokens, 11);
    OCK_ASSERT_INT_EQ(r.output_tokens, 47);
    OCK_ASSERT_STR_EQ(c.log.data, "t0:toolu_1/json/;t0://;t0://{\"a\": [1,;t0://2]};");
    done(&c, &r);
  }
}

static void test_anthropic_no_args_and_text_only(void) {
  const char *sse =
      "data: {\"type\":\"message_start\",\"message\":{\"id\":\"m\"}}\n\n"
      "data: "
      "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\","
      "\"id\":\"t\",\"name\":\"now\",\"input\":{}}}\n\n"
      "data: {\"type\":\"message_stop\"}\n\n";
  struct collected c = {0};
  struct ock_reply r;
  struct ock_wire_error err;
  ock_reply_init(&r);
  OCK_ASSERT_OK(run(OCK_WIRE_ANTHROPIC, sse, 7, &c, &r, &err));
  OCK_ASSERT_NULL(r.msg.content);
  OCK_ASSERT_STR_EQ(r.msg.calls[0].arguments, "{}");
  done(&c, &r);
}

static void test_anthropic_failures(void) {
  const char *start = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n";
  struct {
    const char *rest;
    const char *type;
    const char *message;
  } cases[] = {
      {"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\","
       "\"message\":\"Overloaded\"}}\n\n",
       "stream_error", "error event mid-stream: overloaded_error: Overloaded"},
      {"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":3,"
       "\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}\n\n",
       "stream_error", "content block 3, which never started"},
      {"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
       "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
       "stream_error", "the stream ended before message_stop"},
      {"event: content_block_start\ndata: [1,2]\n\n", "stream_error", "not a JSON object"},
      {"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":7.7e112,"
       "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
       "stream_error", "without an index that is a small whole number"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char sse[1024];
    snprintf(sse, sizeof sse, "%s%s", start, cases[i].rest);
    struct collected c = {0};
    struct ock_reply r;
    struct ock_wire_error err = {0};
    ock_reply_init(&r);
    OCK_ASSERT_INT_EQ(run(OCK_WIRE_ANTHROPIC, sse, 4, &c, &r, &err), OCK_EPROTO);
    OCK_ASSERT_STR_EQ(err.type, "stream_error"); /* a failed stream, not a cancelled one */
    OCK_ASSERT_STR_EQ(err.type, cases[i].type);
    OCK_ASSERT_CONTAINS(err.message, cases[i].message);
    done(&c, &r);
  }
}

static void test_abandon_from_delta(void) {
  struct collected c = {.stop_after = 2};
  struct ock_reply r;
  struct ock_wire_error err;
  ock_reply_init(&r);
  OCK_ASSERT_INT_EQ(run(OCK_WIRE_OPENAI, openai_tools, 16, &c, &r, &err), OCK_ECANCELLED);
  OCK_ASSERT_STR_EQ(err.type, "cancelled");
  OCK_ASSERT_INT_EQ(c.n, 2);
  done(&c, &r);
}

static void test_cap(void) {
  ock_wire_stream *m = NULL;
  struct ock_wire_error err;
  OCK_ASSERT_OK(ock_wire_stream_new(OCK_WIRE_OPENAI, 4, &m));
  OCK_ASSERT_INT_EQ(ock_wire_stream_event(m, "",
                                          "{\"choices\":[{\"delta\":{\"content\":\"12345\"}}]}",
                                          NULL, NULL, &err),
                    OCK_ETOOBIG);
  OCK_ASSERT_INT_EQ(ock_wire_stream_event(m, "", "[DONE]", NULL, NULL, &err), OCK_EPROTO);
  ock_wire_stream_free(m);
  ock_wire_stream_free(NULL);
}

static const struct ock_test tests[] = {
    {"openai_tool_fragments", test_openai_tool_fragments},
    {"openai_failures", test_openai_failures},
    {"anthropic_blocks", test_anthropic_blocks},
    {"anthropic_no_args_and_text_only", test_anthropic_no_args_and_text_only},
    {"anthropic_failures", test_anthropic_failures},
    {"abandon_from_delta", test_abandon_from_delta},
    {"cap", test_cap},
    {NULL, NULL}};

const struct ock_suite suite_wire_stream = {"wire_stream", tests, NULL, NULL};
