/*
 * wire.c: what both wire formats share: the piece list, UTF-8-safe splitting, SSE framing.
 */
#include "wire.h"

#include <stdlib.h>
#include <string.h>

#include "ock/json.h"
#include "ock/status.h"

void ock__chunks_init(struct mock_chunks *c) {
  memset(c, 0, sizeof *c);
}

void ock__chunks_free(struct mock_chunks *c) {
  for (size_t i = 0; i < c->n; i++)
    free(c->items[i]);
  free(c->items);
  free(c->lens);
  ock__chunks_init(c);
}

int ock__chunks_insert(struct mock_chunks *c, size_t at, const char *p, size_t n) {
  if (at > c->n)
    at = c->n;
  if (c->n == c->cap) {
    size_t cap = c->cap ? c->cap * 2 : 16;
    char **items = realloc(c->items, cap * sizeof *items);
    if (!items)
      return OCK_ENOMEM;
    c->items = items;
    size_t *lens = realloc(c->lens, cap * sizeof *lens);
    if (!lens)
      return OCK_ENOMEM;
    c->lens = lens;
    c->cap = cap;
  }
  char *copy = malloc(n + 1);
  if (!copy)
    return OCK_ENOMEM;
  if (n)
    memcpy(copy, p, n);
  copy[n] = '\0';
  memmove(c->items + at + 1, c->items + at, (c->n - at) * sizeof *c->items);
  memmove(c->lens + at + 1, c->lens + at, (c->n - at) * sizeof *c->lens);
  c->items[at] = copy;
  c->lens[at] = n;
  c->n++;
  return OCK_OK;
}

int ock__chunks_push(struct mock_chunks *c, const char *p, size_t n) {
  return ock__chunks_insert(c, c->n, p, n);
}

void ock__chunks_truncate(struct mock_chunks *c, size_t n) {
  while (c->n > n)
    free(c->items[--c->n]);
}

size_t ock__chunks_total(const struct mock_chunks *c) {
  size_t t = 0;
  for (size_t i = 0; i < c->n; i++)
    t += c->lens[i];
  return t;
}

const struct mock_wire *ock__wire_for(enum mock_api api) {
  return api == MOCK_API_ANTHROPIC ? &ock__anthropic_wire : &ock__openai_wire;
}

size_t ock__utf8_prefix(const char *s, size_t len, long long chars) {
  size_t i = 0;
  long long seen = 0;
  while (i < len) {
    if (((unsigned char)s[i] & 0xC0) != 0x80) {
      if (seen == chars)
        break;
      seen++;
    }
    i++;
  }
  return i;
}

int ock__print_to(struct ock_buf *out, cJSON *v) {
  if (!v)
    return OCK_ENOMEM;
  int rc = ock_json_write(out, v);
  cJSON_Delete(v);
  return rc;
}

int ock__sse_event(struct mock_chunks *out, const char *name, const char *data, size_t len) {
  struct ock_buf b;
  ock_buf_init(&b, (size_t)1 << 30);
  int rc = name ? ock_buf_printf(&b, "event: %s\n", name) : OCK_OK;
  if (!rc)
    rc = ock_buf_puts(&b, "data: ");
  if (!rc)
    rc = ock_buf_append(&b, data, len);
  if (!rc)
    rc = ock_buf_puts(&b, "\n\n");
  if (!rc)
    rc = ock__chunks_push(out, b.data, b.len);
  ock_buf_free(&b);
  return rc;
}

int ock__is_ping(const char *piece) {
  return !strncmp(piece, "event: ping\n", 12);
}
