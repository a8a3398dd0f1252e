/* test_sse.c: the SSE decoder on whole, split and odd input. */
#include <stdlib.h>
#include <string.h>

#include "ock/buf.h"
#include "ock/status.h"
#include "runner.h"
#include "ock/sse.h"

/* decode feeds text in pieces of `step` bytes and writes "name|data;" per event into out. */
static int decode(const char *text, size_t step, char *out, size_t out_len) {
  ock_sse *d = NULL;
  OCK_ASSERT_OK(ock_sse_new(1024, &d));
  struct ock_buf b;
  ock_buf_init(&b, out_len - 1);
  size_t n = strlen(text);
  int rc = OCK_OK;
  for (size_t off = 0; off < n && !rc; off += step) {
    const char *p = text + off;
    size_t left = n - off < step ? n - off : step;
    while (left > 0 && !rc) {
      size_t used = 0;
      int have = 0;
      struct ock_sse_event ev;
      rc = ock_sse_feed(d, p, left, &used, &ev, &have);
      if (have)
        OCK_ASSERT_OK(ock_buf_printf(&b, "%s|%s;", ev.event, ev.data));
      p += used;
      left -= used;
    }
  }
  snprintf(out, out_len, "%s%s", b.data ? b.data : "", ock_sse_pending(d) ? "+pending" : "");
  ock_buf_free(&b);
  ock_sse_free(d);
  return rc;
}

static void test_openai_style(void) {
  char out[512];
  const char *s = "data: {\"a\":1}\n\ndata: {\"b\":2}\n\ndata: [DONE]\n\n";
  for (size_t step = 1; step <= strlen(s); step++) {
    OCK_ASSERT_OK(decode(s, step, out, sizeof out));
    OCK_ASSERT_STR_EQ(out, "|{\"a\":1};|{\"b\":2};|[DONE];");
  }
}

static void test_anthropic_style_crlf(void) {
  char out[512];
  const char *s = "event: message_start\r\ndata: {\"x\":1}\r\n\r\n: keep-alive\r\n\r\n"
                  "event: ping\r\ndata: {}\r\n\r\n";
  for (size_t step = 1; step <= strlen(s); step++) {
    OCK_ASSERT_OK(decode(s, step, out, sizeof out));
    OCK_ASSERT_STR_EQ(out, "message_start|{\"x\":1};ping|{};");
  }
}

static void test_multiline_and_cr_only(void) {
  char out[512];
  OCK_ASSERT_OK(decode("data:a\rdata:  b\r\revent:e\ndata\n\n", 1, out, sizeof out));
  OCK_ASSERT_STR_EQ(out, "|a\n b;e|;");
}

static void test_no_data_no_event(void) {
  char out[512];
  OCK_ASSERT_OK(decode("event: lonely\n\nid: 3\nretry: 10\n\n", 2, out, sizeof out));
  OCK_ASSERT_STR_EQ(out, "");
}

static void test_cut_inside_event(void) {
  char out[512];
  OCK_ASSERT_OK(decode("data: {\"a\":1}\n\ndata: {\"b\"", 3, out, sizeof out));
  OCK_ASSERT_STR_EQ(out, "|{\"a\":1};+pending");
}

static void test_cap(void) {
  ock_sse *d = NULL;
  OCK_ASSERT_OK(ock_sse_new(8, &d));
  size_t used;
  int have;
  struct ock_sse_event ev;
  OCK_ASSERT_INT_EQ(ock_sse_feed(d, "data: 0123456789\n\n", 18, &used, &ev, &have), OCK_ETOOBIG);
  OCK_ASSERT_INT_EQ(ock_sse_feed(d, "\n", 1, &used, &ev, &have), OCK_ETOOBIG);
  ock_sse_free(d);
  ock_sse_free(NULL);
}

static const struct ock_test tests[] = {{"openai_style", test_openai_style},
                                        {"anthropic_style_crlf", test_anthropic_style_crlf},
                                        {"multiline_and_cr_only", test_multiline_and_cr_only},
                                        {"no_data_no_event", test_no_data_no_event},
                                        {"cut_inside_event", test_cut_inside_event},
                                        {"cap", test_cap},
                                        {NULL, NULL}};

const struct ock_suite suite_sse = {"sse", tests, NULL, NULL};
