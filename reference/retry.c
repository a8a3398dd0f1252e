/*
 * retry.c: retryable classification, exponential backoff with jitter, Retry-After.
 *
 * SPEC.md fixes the numbers: retry 408, 409, 429, 500, 502, 503, 504, 529, connection errors,
 * timeouts and broken streams; never 400, 401, 403, 404, 413, 422 or a malformed reply. The
 * delay doubles from the base, gets +-jitter, and is clamped to the cap after the jitter
 * (upstream CUGAR clamped before, so its delays could pass the cap by 10%).
 *
 * ock__next_after_error is the engine's decision after an error, kept here without I/O: the
 * engine (orchestrator.c, after_error) only carries it out.
 */
#include "retry.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "ock/orchestrator.h"

/* round_ms rounds a non-negative delay to whole milliseconds. lround would do, but it is the
 * reference's only use of libm, and mapping libm costs the CLI ~0.3 MB of resident memory. */
static long round_ms(double d) {
  return (long)(d + 0.5);
}

int ock_llm_error_retryable(const struct ock_llm_error *e) {
  if (!e)
    return 0;
  switch (e->kind) {
  case OCK_LLM_CONNECTION:
  case OCK_LLM_TIMEOUT:
  case OCK_LLM_STREAM:
    return 1;
  case OCK_LLM_HTTP:
    switch (e->status) {
    case 408:
    case 409:
    case 429:
    case 500:
    case 502:
    case 503:
    case 504:
    case 529:
      return 1;
    default:
      return 0;
    }
  case OCK_LLM_MALFORMED:
  case OCK_LLM_CANCELLED:
  default:
    return 0;
  }
}

struct ock__after_error ock__next_after_error(const struct ock_llm_error *err, int cancel_requested,
                                              int retries,
                                              const struct ock_orchestrator_config *cfg) {
  struct ock__after_error a = {.next = OCK__AFTER_FAILED, .retryable = 0, .retry = 0};
  if (err->kind == OCK_LLM_CANCELLED || cancel_requested) {
    a.next = OCK__AFTER_CANCELLED;
    return a;
  }
  a.retryable = ock_llm_error_retryable(err);
  if (cfg->error_strategy != OCK_ERROR_STRATEGY_RETRY &&
      cfg->error_strategy != OCK_ERROR_STRATEGY_FALLBACK)
    return a;
  if (a.retryable && retries < cfg->max_retries) {
    a.next = OCK__AFTER_RETRY;
    a.retry = retries + 1;
  } else if (cfg->error_strategy == OCK_ERROR_STRATEGY_FALLBACK) {
    a.next = OCK__AFTER_FALLBACK;
  }
  return a;
}

long ock__backoff_delay_ms(int n, long base_ms, long cap_ms, double jitter, double u) {
  if (n < 1)
    n = 1;
  if (base_ms < 0)
    base_ms = 0;
  if (cap_ms < 0)
    cap_ms = 0;
  double d = (double)base_ms;
  for (int i = 1; i < n && d < (double)cap_ms; i++)
    d *= 2.0;
  if (d > (double)cap_ms)
    d = (double)cap_ms;
  if (jitter < 0)
    jitter = 0;
  d *= 1.0 + jitter * (2.0 * u - 1.0);
  if (d < 0)
    d = 0;
  if (d > (double)cap_ms)
    d = (double)cap_ms;
  return round_ms(d);
}

/* number parses a whole header value as a non-negative decimal number; -1 if it is not. */
static double number(const char *s) {
  if (!s)
    return -1;
  while (isspace((unsigned char)*s))
    s++;
  if (!isdigit((unsigned char)*s) && *s != '.')
    return -1;
  char *end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || !isfinite(v) || v < 0)
    return -1;
  while (isspace((unsigned char)*end))
    end++;
  return *end ? -1 : v;
}

long ock__retry_after_ms(const char *retry_after_ms, const char *retry_after) {
  double ms = number(retry_after_ms);
  if (ms >= 0)
    return ms > 1e12 ? (long)1e12 : round_ms(ms);
  double s = number(retry_after);
  if (s >= 0)
    return s > 1e9 ? (long)1e12 : round_ms(s * 1000.0);
  return -1;
}

long ock__retry_delay_ms(long retry_after_ms, int n, long base_ms, long cap_ms, double jitter,
                         double u) {
  if (retry_after_ms >= 0)
    return retry_after_ms > cap_ms ? (cap_ms < 0 ? 0 : cap_ms) : retry_after_ms;
  return ock__backoff_delay_ms(n, base_ms, cap_ms, jitter, u);
}
