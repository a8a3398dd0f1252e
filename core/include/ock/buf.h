/*
 * buf.h: a growable byte buffer with a hard cap, that fails closed.
 *
 * Every buffer that holds bytes from outside (an HTTP body, a SUT's stdout, an SSE stream)
 * is an ock_buf with a cap set at init: a peer can send a gigabyte. An append that fails
 * (past the cap, out of memory) frees the buffer and leaves it dead: every later append fails
 * with the same status until ock_buf_reset or ock_buf_free (curl's dynbuf frees the same way).
 * A half-written text is never mistaken for a whole one. The data, when there is any, is
 * NUL-terminated (the NUL is not counted in len).
 *
 * The appends are warn_unused_result: a caller returns the status, or accumulates it and
 * checks once. Since every append after the failed one repeats its status and every one
 * before it returned OCK_OK, `rc |= ock_buf_puts(b, s)` over one buffer yields exactly the
 * first failure's status.
 */
#ifndef OCK_BUF_H
#define OCK_BUF_H

#include <stdarg.h>
#include <stddef.h>

#define OCK_BUF_MUST_CHECK __attribute__((warn_unused_result))

struct ock_buf {
  char *data; /* NULL until the first append, and once dead; NUL-terminated otherwise */
  size_t len; /* bytes held, without the terminating NUL */
  size_t cap; /* bytes allocated */
  size_t max; /* the cap: len never exceeds it */
  int err;    /* OCK_OK, or the status of the append that failed: the buffer is dead */
};

/* ock_buf_init sets an empty, live buffer that may hold at most max bytes. Allocates
 * nothing. */
void ock_buf_init(struct ock_buf *b, size_t max);

/* ock_buf_reserve makes room for n more bytes and the NUL after them, so a writer may fill
 * data[len .. len+n), then set len and the NUL itself. Same returns, and same failure, as
 * ock_buf_append. */
int ock_buf_reserve(struct ock_buf *b, size_t n) OCK_BUF_MUST_CHECK;

/* ock_buf_append copies n bytes. Returns OCK_OK; or OCK_ETOOBIG past the cap, OCK_ENOMEM out
 * of memory, and then the buffer is freed and dead; or, on a dead buffer, the status of the
 * append that killed it (nothing is copied). */
int ock_buf_append(struct ock_buf *b, const void *p, size_t n) OCK_BUF_MUST_CHECK;

/* ock_buf_puts appends a NUL-terminated string; same returns as ock_buf_append. */
int ock_buf_puts(struct ock_buf *b, const char *s) OCK_BUF_MUST_CHECK;

/* ock_buf_printf appends formatted text; same returns as ock_buf_append, and OCK_EINVAL (the
 * buffer then dead too) when the format cannot be rendered. */
int ock_buf_printf(struct ock_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3))) OCK_BUF_MUST_CHECK;
int ock_buf_vprintf(struct ock_buf *b, const char *fmt, va_list ap) OCK_BUF_MUST_CHECK;

/* ock_buf_take detaches the data (caller frees with free(); an empty buffer gives ""), and
 * leaves the buffer empty and live. Returns NULL when out of memory, or when the buffer was
 * dead (a text that lost a piece is never handed out). */
char *ock_buf_take(struct ock_buf *b);

/* ock_buf_reset empties the buffer and keeps its memory and cap. A dead buffer comes back
 * live and empty: the text that failed is gone either way, and a new one starts. */
void ock_buf_reset(struct ock_buf *b);

/* ock_buf_free releases the memory; the buffer is then empty and live, and may be reused. */
void ock_buf_free(struct ock_buf *b);

#endif
