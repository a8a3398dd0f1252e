/*
 * buf.h: a growable byte buffer with a hard cap.
 *
 * Every buffer that holds bytes from outside (an HTTP body, a SUT's stdout, an SSE stream)
 * is an ock_buf with a cap set at init: a peer can send a gigabyte, and the append that would
 * pass the cap fails with OCK_ETOOBIG and leaves the buffer as it was. The data is always
 * NUL-terminated (the NUL is not counted in len).
 */
#ifndef OCK_BUF_H
#define OCK_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct ock_buf {
  char *data; /* NULL until the first append; NUL-terminated after it */
  size_t len; /* bytes held, without the terminating NUL */
  size_t cap; /* bytes allocated */
  size_t max; /* the cap: len never exceeds it */
};

/* ock_buf_init sets an empty buffer that may hold at most max bytes. Allocates nothing. */
void ock_buf_init(struct ock_buf *b, size_t max);

/* ock_buf_reserve makes room for n more bytes and the NUL after them, so a writer may fill
 * data[len .. len+n), then set len and the NUL itself. Same returns as ock_buf_append. */
int ock_buf_reserve(struct ock_buf *b, size_t n);

/* ock_buf_append copies n bytes. Returns OCK_OK, OCK_ETOOBIG past the cap, or OCK_ENOMEM. */
int ock_buf_append(struct ock_buf *b, const void *p, size_t n);

/* ock_buf_puts appends a NUL-terminated string; same returns as ock_buf_append. */
int ock_buf_puts(struct ock_buf *b, const char *s);

/* ock_buf_printf appends formatted text; same returns as ock_buf_append. */
int ock_buf_printf(struct ock_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int ock_buf_vprintf(struct ock_buf *b, const char *fmt, va_list ap);

/* ock_buf_take detaches the data (caller frees with free(); never NULL on success: an empty
 * buffer gives ""), and leaves the buffer empty. Returns NULL only when out of memory. */
char *ock_buf_take(struct ock_buf *b);

/* ock_buf_reset empties the buffer and keeps its memory and cap. */
void ock_buf_reset(struct ock_buf *b);

/* ock_buf_free releases the memory; the buffer is then empty and may be reused. */
void ock_buf_free(struct ock_buf *b);

#endif
