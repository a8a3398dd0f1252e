/* test_retry.c: retryable classification, backoff with jitter clamped to the cap, Retry-After. */
#include "ock/orchestrator.h"
#include "retry.h"
#include "runner.h"

static void test_retryable(void) {
  struct ock_llm_error e = {.kind = OCK_LLM_HTTP};
  const int yes[] = {408, 409, 429, 500, 502, 503, 504, 529};
  const int no[] = {400, 401, 403, 404, 413, 422};
  for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) {
    e.status = yes[i];
    OCK_ASSERT_TRUE(ock_llm_error_retryable(&e));
  }
  for (size_t i = 0; i < sizeof no / sizeof *no; i++) {
    e.status = no[i];
    OCK_ASSERT_INT_EQ(ock_llm_error_retryable(&e), 0);
  }
  enum ock_llm_fault kinds[] = {OCK_LLM_CONNECTION, OCK_LLM_TIMEOUT, OCK_LLM_STREAM,
                                OCK_LLM_MALFORMED, OCK_LLM_CANCELLED};
  int expect[] = {1, 1, 1, 0, 0};
  for (int i = 0; i < 5; i++) {
    e.kind = kinds[i];
    OCK_ASSERT_INT_EQ(ock_llm_error_retryable(&e), expect[i]);
  }
  OCK_ASSERT_INT_EQ(ock_llm_error_retryable(NULL), 0);
}

static void test_backoff(void) {
  /* no jitter at u = 0.5: 1000, 2000, 4000, ... capped at 60000 */
  long expect[] = {1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000};
  for (int n = 1; n <= 8; n++)
    OCK_ASSERT_INT_EQ(ock__backoff_delay_ms(n, 1000, 60000, 0.1, 0.5), expect[n - 1]);
  /* jitter of +-10% at the extremes */
  OCK_ASSERT_INT_EQ(ock__backoff_delay_ms(1, 1000, 60000, 0.1, 0.0), 900);
  OCK_ASSERT_INT_EQ(ock__backoff_delay_ms(2, 1000, 60000, 0.1, 0.999999), 2200);
  /* clamped to the cap after jitter: never above it */
  OCK_ASSERT_INT_EQ(ock__backoff_delay_ms(7, 1000, 60000, 0.1, 0.999999), 60000);
  OCK_ASSERT_INT_EQ(ock__backoff_delay_ms(7, 1000, 60000, 0.1, 0.0), 54000);
  OCK_ASSERT_INT_EQ(ock__backoff_delay_ms(40, 1000, 60000, 0.5, 0.99), 60000);
  OCK_ASSERT_INT_EQ(ock__backoff_delay_ms(0, 10, 100, 0, 0.3), 10);
}

static void test_retry_after(void) {
  OCK_ASSERT_INT_EQ(ock__retry_after_ms(NULL, NULL), -1);
  OCK_ASSERT_INT_EQ(ock__retry_after_ms(NULL, "2"), 2000);
  OCK_ASSERT_INT_EQ(ock__retry_after_ms(NULL, " 1.5 "), 1500);
  OCK_ASSERT_INT_EQ(ock__retry_after_ms("250", "2"), 250); /* -ms wins */
  OCK_ASSERT_INT_EQ(ock__retry_after_ms("junk", "3"), 3000);
  OCK_ASSERT_INT_EQ(ock__retry_after_ms(NULL, "Wed, 21 Oct 2015 07:28:00 GMT"), -1);
  OCK_ASSERT_INT_EQ(ock__retry_after_ms("-5", NULL), -1);
  OCK_ASSERT_INT_EQ(ock__retry_delay_ms(250, 3, 1000, 60000, 0.1, 0.0), 250);
  OCK_ASSERT_INT_EQ(ock__retry_delay_ms(120000, 1, 1000, 60000, 0.1, 0.0), 60000);
  OCK_ASSERT_INT_EQ(ock__retry_delay_ms(-1, 2, 1000, 60000, 0.0, 0.0), 2000);
}

static const struct ock_test tests[] = {{"retryable", test_retryable},
                                        {"backoff", test_backoff},
                                        {"retry_after", test_retry_after},
                                        {NULL, NULL}};

const struct ock_suite retry_suite = {"retry", tests, NULL, NULL};
