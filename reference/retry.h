/*
 * retry.h: what follows a failed LLM request, and how long to wait before a retry (no I/O).
 *
 * The retryable classification itself is public (ock_llm_error_retryable in orchestrator.h);
 * this header holds the decision the engine takes after an error and the arithmetic the
 * engine and the HTTP provider share, all pure functions so they are unit-tested from tables.
 */
#ifndef OCK_REF_RETRY_H
#define OCK_REF_RETRY_H

struct ock_llm_error;
struct ock_orchestrator_config;

/* What the engine does after a failed LLM request. */
enum ock__after {
  OCK__AFTER_CANCELLED, /* cancellation: the request is closed as cancelled; execute cancelled */
  OCK__AFTER_FAILED,    /* give up: the turn fails and the execute ends with status error */
  OCK__AFTER_RETRY,     /* the same provider again, after the backoff of retry number `retry` */
  OCK__AFTER_FALLBACK   /* the provider is out for this execute; route to the next one (when
                           none is left, the turn fails as with OCK__AFTER_FAILED) */
};

struct ock__after_error {
  enum ock__after next;
  int retryable; /* the error's class, as provider:error reports it */
  int retry;     /* OCK__AFTER_RETRY: the retry's number for this turn and provider, 1-based */
};

/* ock__next_after_error decides what follows a failed request: err is the failure (borrowed),
 * cancel_requested says cancellation was requested while the request was out (0 when it never
 * went out), retries counts the retries this turn already made with this provider, and cfg
 * gives the strategy and max_retries (borrowed). A cancelled request always ends the execute
 * as cancelled; fail_fast and continue give up at the first error; retry and fallback retry a
 * retryable error up to max_retries times, then fallback moves to the next provider. */
struct ock__after_error ock__next_after_error(const struct ock_llm_error *err, int cancel_requested,
                                              int retries,
                                              const struct ock_orchestrator_config *cfg);

/* ock__backoff_delay_ms: the delay before retry number n (1-based):
 * d = min(base * 2^(n-1), cap), then jitter: d * (1 + jitter * (2u - 1)) with u uniform in
 * [0, 1), then clamped to [0, cap] (so jitter never pushes a delay above the cap). */
long ock__backoff_delay_ms(int n, long base_ms, long cap_ms, double jitter, double u);

/* ock__retry_after_ms reads the two response headers (values without the name; NULL when
 * absent): retry-after-ms (milliseconds) wins over retry-after (seconds, fractions allowed).
 * Returns the delay in ms, or -1 when neither holds a non-negative number (an HTTP-date
 * retry-after is not supported and counts as absent). */
long ock__retry_after_ms(const char *retry_after_ms, const char *retry_after);

/* ock__retry_delay_ms: the delay the engine waits: the server's retry-after (when >= 0)
 * replaces the backoff; either is capped at cap_ms. */
long ock__retry_delay_ms(long retry_after_ms, int n, long base_ms, long cap_ms, double jitter,
                         double u);

#endif
