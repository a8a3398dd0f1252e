/* test_retry.c: the decision after an error, retryable classification, backoff with jitter
 * clamped to the cap, Retry-After. */
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

/* One row: a failure, whether cancellation was requested meanwhile, the retries so far, the
 * strategy; and the decision. max_retries is 2 throughout. */
struct after_case {
  enum ock_llm_fault kind;
  int status;
  int cancel_requested;
  int retries;
  enum ock_error_strategy strategy;
  enum ock__after next;
  int retryable;
  int retry;
};

#define H OCK_LLM_HTTP
#define CONN OCK_LLM_CONNECTION
#define BAD OCK_LLM_MALFORMED
#define FF OCK_ERROR_STRATEGY_FAIL_FAST
#define CONT OCK_ERROR_STRATEGY_CONTINUE
#define RETRY OCK_ERROR_STRATEGY_RETRY
#define FALLBACK OCK_ERROR_STRATEGY_FALLBACK

static void test_next_after_error(void) {
  static const struct after_case cases[] = {
      /* fail_fast and continue give up at the first error, retryable or not */
      {H, 503, 0, 0, FF, OCK__AFTER_FAILED, 1, 0},
      {H, 503, 0, 0, CONT, OCK__AFTER_FAILED, 1, 0},
      {H, 400, 0, 0, CONT, OCK__AFTER_FAILED, 0, 0},
      /* retry: retryable errors up to max_retries, then give up */
      {H, 429, 0, 0, RETRY, OCK__AFTER_RETRY, 1, 1},
      {CONN, 0, 0, 1, RETRY, OCK__AFTER_RETRY, 1, 2},
      {H, 503, 0, 2, RETRY, OCK__AFTER_FAILED, 1, 0},
      {H, 401, 0, 0, RETRY, OCK__AFTER_FAILED, 0, 0},
      {BAD, 200, 0, 0, RETRY, OCK__AFTER_FAILED, 0, 0},
      /* fallback: retries first, then the next provider; a non-retryable error at once */
      {H, 500, 0, 0, FALLBACK, OCK__AFTER_RETRY, 1, 1},
      {H, 500, 0, 2, FALLBACK, OCK__AFTER_FALLBACK, 1, 0},
      {H, 404, 0, 0, FALLBACK, OCK__AFTER_FALLBACK, 0, 0},
      /* cancellation wins over every strategy, and reports no class */
      {OCK_LLM_CANCELLED, 0, 0, 0, RETRY, OCK__AFTER_CANCELLED, 0, 0},
      {H, 503, 1, 0, FALLBACK, OCK__AFTER_CANCELLED, 0, 0},
      {H, 503, 1, 0, CONT, OCK__AFTER_CANCELLED, 0, 0},
  };
  struct ock_orchestrator_config cfg;
  ock_orchestrator_config_default(&cfg);
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const struct after_case *c = &cases[i];
    struct ock_llm_error e = {.kind = c->kind, .status = c->status, .retry_after_ms = -1};
    cfg.error_strategy = c->strategy;
    struct ock__after_error a = ock__next_after_error(&e, c->cancel_requested, c->retries, &cfg);
    if (a.next != c->next || a.retryable != c->retryable || a.retry != c->retry)
      ock_test_fail(__LINE__, __FILE__,
                    "case %zu: next %d retryable %d retry %d, expected %d %d %d", i, (int)a.next,
                    a.retryable, a.retry, (int)c->next, c->retryable, c->retry);
    else
      CU_PASS("next_after_error");
  }
  /* max_retries 0: retry gives up, fallback moves on, at the first error */
  cfg.max_retries = 0;
  struct ock_llm_error e = {.kind = OCK_LLM_HTTP, .status = 503, .retry_after_ms = -1};
  cfg.error_strategy = OCK_ERROR_STRATEGY_RETRY;
  OCK_ASSERT_INT_EQ(ock__next_after_error(&e, 0, 0, &cfg).next, OCK__AFTER_FAILED);
  cfg.error_strategy = OCK_ERROR_STRATEGY_FALLBACK;
  OCK_ASSERT_INT_EQ(ock__next_after_error(&e, 0, 0, &cfg).next, OCK__AFTER_FALLBACK);
}

static const struct ock_test tests[] = {{"next_after_error", test_next_after_error},
                                        {"retryable", test_retryable},
                                        {"backoff", test_backoff},
                                        {"retry_after", test_retry_after},
                                        {NULL, NULL}};

const struct ock_suite retry_suite = {"retry", tests, NULL, NULL};
