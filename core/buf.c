/* buf.c: the capped growable buffer of buf.h, which fails closed. */
#include "ock/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ock/status.h"

void ock_buf_init(struct ock_buf *b, size_t max) {
  b->data = NULL;
  b->len = 0;
  b->cap = 0;
  b->max = max;
  b->err = OCK_OK;
}

/* die frees the buffer and makes it dead with status rc; returns rc. */
static int die(struct ock_buf *b, int rc) {
  free(b->data);
  b->data = NULL;
  b->len = 0;
  b->cap = 0;
  b->err = rc;
  return rc;
}

/* reserve makes room for n more bytes plus the NUL. */
static int reserve(struct ock_buf *b, size_t n) {
  if (b->err)
    return b->err;
  if (n > b->max || b->len > b->max - n)
    return die(b, OCK_ETOOBIG);
  size_t need = b->len + n + 1;
  if (need <= b->cap)
    return OCK_OK;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < need)
    cap = cap > ((size_t)-1) / 2 ? need : cap * 2;
  char *p = realloc(b->data, cap);
  if (!p)
    return die(b, OCK_ENOMEM);
  b->data = p;
  b->cap = cap;
  return OCK_OK;
}

int ock_buf_reserve(struct ock_buf *b, size_t n) {
  return reserve(b, n);
}

int ock_buf_append(struct ock_buf *b, const void *p, size_t n) {
  int rc = reserve(b, n);
  if (rc)
    return rc;
  if (n)
    memcpy(b->data + b->len, p, n);
  b->len += n;
  b->data[b->len] = '\0';
  return OCK_OK;
}

int ock_buf_puts(struct ock_buf *b, const char *s) {
  return ock_buf_append(b, s, strlen(s));
}

int ock_buf_vprintf(struct ock_buf *b, const char *fmt, va_list ap) {
  if (b->err)
    return b->err;
  va_list copy;
  va_copy(copy, ap);
  int n = vsnprintf(NULL, 0, fmt, copy);
  va_end(copy);
  if (n < 0)
    return die(b, OCK_EINVAL);
  int rc = reserve(b, (size_t)n);
  if (rc)
    return rc;
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  b->len += (size_t)n;
  return OCK_OK;
}

int ock_buf_printf(struct ock_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = ock_buf_vprintf(b, fmt, ap);
  va_end(ap);
  return rc;
}

char *ock_buf_take(struct ock_buf *b) {
  char *p = b->data;
  if (!p && !b->err)
    p = calloc(1, 1);
  b->data = NULL;
  b->len = 0;
  b->cap = 0;
  b->err = OCK_OK;
  return p;
}

void ock_buf_reset(struct ock_buf *b) {
  b->err = OCK_OK;
  b->len = 0;
  if (b->data)
    b->data[0] = '\0';
}

void ock_buf_free(struct ock_buf *b) {
  free(b->data);
  b->data = NULL;
  b->len = 0;
  b->cap = 0;
  b->err = OCK_OK;
}
