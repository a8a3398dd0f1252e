/*
 * sse.h: a Server-Sent Events decoder (no I/O): bytes in, events out.
 *
 * Feed it the bytes of a response body as they arrive, split anywhere (inside a line, between
 * the \r and \n of a CRLF); it returns one event at a time and says how many bytes it took, so
 * the caller feeds the rest again. It follows the WHATWG parsing rules the two LLM wires rely
 * on: lines end with \n, \r\n or \r; "event:" names the event, "data:" lines are joined with
 * \n, one space after the colon is dropped, ":" starts a comment, a blank line dispatches, an
 * event without data is not dispatched. Every line and event is capped.
 */
#ifndef OCK_SSE_H
#define OCK_SSE_H

#include <stddef.h>

typedef struct ock_sse ock_sse;

struct ock_sse_event {
  const char *event; /* the "event:" name, "" when the event had none */
  const char *data;  /* the joined data, NUL-terminated */
  size_t data_len;
};

/* ock_sse_new makes a decoder whose events (and lines) hold at most max bytes. */
int ock_sse_new(size_t max, ock_sse **out);
void ock_sse_free(ock_sse *d); /* NULL is a no-op */

/* ock_sse_feed takes bytes from p[0..n) until it completes an event or runs out of bytes.
 * *consumed is set to the bytes taken; *have to 1 when *ev holds an event (valid until the
 * next call), else 0 (the bytes are buffered: feed more). Returns OCK_OK, or OCK_ETOOBIG when
 * a line or an event passes the cap (the decoder is then unusable). */
int ock_sse_feed(ock_sse *d, const char *p, size_t n, size_t *consumed, struct ock_sse_event *ev,
                 int *have);

/* ock_sse_pending: 1 when bytes of an unfinished event are buffered (a stream that ends now
 * was cut inside an event). */
int ock_sse_pending(const ock_sse *d);

#endif
