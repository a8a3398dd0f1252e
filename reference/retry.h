/*
 * retry.h: when and how long to wait before retrying an LLM request (no I/O).
 *
 * The retryable classification itself is public (ock_llm_error_retryable in orchestrator.h);
 * this header holds the arithmetic the engine and the HTTP provider share.
 */
#ifndef OCK_REF_RETRY_H
#define OCK_REF_RETRY_H

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
