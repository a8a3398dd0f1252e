/*
 * sse.c: the Server-Sent Events decoder of sse.h.
 *
 * State between calls: the unfinished line, the event being built (name and data), and
 * whether the previous chunk ended in \r (so a \n that starts the next chunk is the rest of a
 * CRLF, not an empty line that would dispatch early).
 */
#include "ock/sse.h"

#include <stdlib.h>
#include <string.h>

#include "ock/caps.h"
#include "ock/buf.h"
#include "ock/status.h"

struct ock_sse {
  struct ock_buf line;               /* the current line without its terminator */
  struct ock_buf data;               /* data of the event being built, each line followed by \n */
  struct ock_buf name;               /* "event:" of the event being built */
  struct ock_buf out_data, out_name; /* the event last returned */
  int has_data;                      /* a data: line was seen for the event being built */
  int skip_lf;                       /* the previous byte was \r */
  int broken;                        /* a cap was passed */
};

int ock_sse_new(size_t max, ock_sse **out) {
  ock_sse *d = calloc(1, sizeof *d);
  if (!d)
    return OCK_ENOMEM;
  ock_buf_init(&d->line, max);
  ock_buf_init(&d->data, max);
  ock_buf_init(&d->name, OCK_MAX_SSE_EVENT_NAME);
  ock_buf_init(&d->out_data, max);
  ock_buf_init(&d->out_name, OCK_MAX_SSE_EVENT_NAME);
  *out = d;
  return OCK_OK;
}

void ock_sse_free(ock_sse *d) {
  if (!d)
    return;
  ock_buf_free(&d->line);
  ock_buf_free(&d->data);
  ock_buf_free(&d->name);
  ock_buf_free(&d->out_data);
  ock_buf_free(&d->out_name);
  free(d);
}

int ock_sse_pending(const ock_sse *d) {
  return d->line.len > 0 || d->has_data || d->name.len > 0;
}

/* field applies one non-empty line. Returns OCK_OK or OCK_ETOOBIG. */
static int field(ock_sse *d, const char *line, size_t len) {
  if (line[0] == ':')
    return OCK_OK; /* a comment (keep-alives look like this) */
  const char *colon = memchr(line, ':', len);
  size_t nlen = colon ? (size_t)(colon - line) : len;
  const char *value = colon ? colon + 1 : line + len;
  size_t vlen = len - (size_t)(value - line);
  if (vlen && *value == ' ') {
    value++;
    vlen--;
  }
  if (nlen == 5 && !memcmp(line, "event", 5)) {
    ock_buf_reset(&d->name);
    return ock_buf_append(&d->name, value, vlen);
  }
  if (nlen == 4 && !memcmp(line, "data", 4)) {
    d->has_data = 1;
    int rc = ock_buf_append(&d->data, value, vlen);
    return rc ? rc : ock_buf_append(&d->data, "\n", 1);
  }
  return OCK_OK; /* id, retry and unknown fields do not matter to an LLM client */
}

/* dispatch ends the event being built; returns 1 when it had data (an event to return). */
static int dispatch(ock_sse *d) {
  int have = d->has_data;
  if (have) {
    struct ock_buf t = d->out_data;
    d->out_data = d->data;
    d->data = t;
    if (d->out_data.len)
      d->out_data.len--; /* the \n after the last data line */
    t = d->out_name;
    d->out_name = d->name;
    d->name = t;
  }
  ock_buf_reset(&d->data);
  ock_buf_reset(&d->name);
  d->has_data = 0;
  return have;
}

int ock_sse_feed(ock_sse *d, const char *p, size_t n, size_t *consumed, struct ock_sse_event *ev,
                 int *have) {
  *have = 0;
  *consumed = 0;
  if (d->broken)
    return OCK_ETOOBIG;
  size_t i = 0;
  while (i < n) {
    if (d->skip_lf) {
      d->skip_lf = 0;
      if (p[i] == '\n') {
        i++;
        continue;
      }
    }
    size_t j = i;
    while (j < n && p[j] != '\n' && p[j] != '\r')
      j++;
    if (ock_buf_append(&d->line, p + i, j - i)) {
      d->broken = 1;
      return OCK_ETOOBIG;
    }
    if (j == n) {
      i = n; /* an unfinished line: wait for more bytes */
      break;
    }
    d->skip_lf = p[j] == '\r';
    i = j + 1;
    int rc = OCK_OK;
    if (d->line.len == 0) {
      if (dispatch(d)) {
        ev->event = d->out_name.data ? d->out_name.data : "";
        ev->data = d->out_data.data ? d->out_data.data : "";
        if (d->out_data.data)
          d->out_data.data[d->out_data.len] = '\0';
        ev->data_len = d->out_data.len;
        *have = 1;
        *consumed = i;
        return OCK_OK;
      }
    } else {
      rc = field(d, d->line.data, d->line.len);
    }
    ock_buf_reset(&d->line);
    if (rc) {
      d->broken = 1;
      return rc;
    }
  }
  *consumed = i;
  return OCK_OK;
}
