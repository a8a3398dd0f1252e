/*
 * recording.c: the exchanges of a recording, and the files written from them (see
 * recording.h).
 */
#include "recording.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fixture.h"
#include "ock/caps.h"
#include "ock/json.h"
#include "ock/status.h"

void ock__recording_init(struct recording *r) {
  memset(r, 0, sizeof *r);
  pthread_mutex_init(&r->lock, NULL);
}

void ock__recording_free(struct recording *r) {
  for (size_t i = 0; i < r->n; i++)
    ock__rec_exchange_free(r->items[i]);
  free(r->items);
  pthread_mutex_destroy(&r->lock);
}

void ock__recording_sink(void *user, struct rec_exchange *x) {
  struct recording *r = user;
  pthread_mutex_lock(&r->lock);
  if (r->n == r->cap) {
    size_t cap = r->cap ? r->cap * 2 : 64;
    struct rec_exchange **items = realloc(r->items, cap * sizeof *items);
    if (items) {
      r->items = items;
      r->cap = cap;
    }
  }
  if (r->n < r->cap)
    r->items[r->n++] = x;
  else
    ock__rec_exchange_free(x);
  pthread_mutex_unlock(&r->lock);
}

/* body_json: a body as JSON (redacted at the user's paths) when it is JSON, else as text. */
static cJSON *body_json(const struct ock_buf *b, const struct recording *r) {
  if (!b->len)
    return cJSON_CreateNull();
  cJSON *j = cJSON_ParseWithLength(b->data, b->len);
  if (!j)
    return cJSON_CreateString(b->data);
  for (size_t i = 0; i < r->n_redact; i++)
    ock__rec_redact_path(j, r->redact[i], NULL);
  return j;
}

/* redact_bodies applies the user's paths to the request bodies in place, so the fixture is
 * built from redacted text too. */
static void redact_bodies(struct recording *r, struct rec_secrets *s) {
  for (size_t i = 0; i < r->n && r->n_redact; i++) {
    struct rec_exchange *x = r->items[i];
    cJSON *j = x->req.len ? cJSON_ParseWithLength(x->req.data, x->req.len) : NULL;
    int hits = 0;
    for (size_t k = 0; j && k < r->n_redact; k++)
      hits += ock__rec_redact_path(j, r->redact[k], s) > 0;
    char *text = hits ? cJSON_PrintUnformatted(j) : NULL;
    if (text) {
      ock_buf_reset(&x->req);
      if (ock_buf_puts(&x->req, text))
        ock_buf_reset(&x->req);
    }
    free(text);
    cJSON_Delete(j);
  }
}

static cJSON *traffic_line(const struct rec_exchange *x, const struct recording *r,
                           struct rec_secrets *s) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "t_ms", (double)x->t_ms);
  cJSON_AddStringToObject(o, "method", x->method);
  cJSON_AddStringToObject(o, "path", x->path);
  char *q = ock__rec_redact_query(x->query, s);
  if (q)
    cJSON_AddStringToObject(o, "query", q);
  free(q);
  cJSON_AddItemToObject(o, "request_headers", cJSON_Duplicate(x->req_headers, 1));
  cJSON_AddItemToObject(o, "request", body_json(&x->req, r));
  cJSON_AddNumberToObject(o, "status", (double)x->status);
  cJSON_AddItemToObject(o, "response_headers", cJSON_Duplicate(x->resp_headers, 1));
  cJSON_AddItemToObject(o, "response", body_json(&x->resp, r));
  cJSON_AddBoolToObject(o, "complete", x->complete);
  cJSON_AddBoolToObject(o, "answered_by_recorder", x->local);
  return o;
}

/* write_file scrubs text of every secret and writes it to dir/name. */
static int write_file(const char *dir, const char *name, struct ock_buf *text,
                      const struct rec_secrets *s, char *err, size_t n) {
  char path[4096], tmp[4200];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = ock__rec_scrub(text, s) ? NULL : fopen(tmp, "wb");
  int ok = f && fwrite(text->data ? text->data : "", 1, text->len, f) == text->len;
  ok = f && !fclose(f) && ok && !rename(tmp, path);
  if (!ok) {
    snprintf(err, n, "%s: cannot write: %s", path, strerror(errno));
    remove(tmp);
    return OCK_EIO;
  }
  return OCK_OK;
}

static int append_line(struct ock_buf *b, const cJSON *j) {
  char *t = cJSON_PrintUnformatted(j);
  int rc = !t || ock_buf_puts(b, t) || ock_buf_puts(b, "\n");
  free(t);
  return rc ? OCK_ENOMEM : OCK_OK;
}

/* write_logs writes traffic.jsonl and, when events were posted, events.jsonl. */
static int write_logs(struct recording *r, const char *dir, struct rec_secrets *s, char *err,
                      size_t n) {
  struct ock_buf traffic, events;
  ock_buf_init(&traffic, OCK_MAX_DERIVED_TEXT);
  ock_buf_init(&events, OCK_MAX_DERIVED_TEXT);
  int rc = ock_buf_puts(&traffic, "");
  size_t n_events = 0;
  for (size_t i = 0; i < r->n && !rc; i++) {
    struct rec_exchange *x = r->items[i];
    cJSON *line = traffic_line(x, r, s);
    rc = append_line(&traffic, line);
    cJSON_Delete(line);
    if (!rc && x->local && !strcmp(x->path, "/ock/v1/events")) {
      cJSON *ev = body_json(&x->req, r);
      rc = append_line(&events, ev);
      cJSON_Delete(ev);
      n_events++;
    }
  }
  rc = rc ? rc : write_file(dir, "traffic.jsonl", &traffic, s, err, n);
  if (!rc && n_events)
    rc = write_file(dir, "events.jsonl", &events, s, err, n);
  ock_buf_free(&traffic);
  ock_buf_free(&events);
  return rc;
}

int ock__recording_write(struct recording *r, const char *dir, char *err, size_t n) {
  pthread_mutex_lock(&r->lock);
  struct rec_secrets s = {0};
  for (size_t i = 0; i < r->n; i++) { /* every secret is known before anything is written */
    ock__rec_redact_headers(r->items[i]->req_headers, &s);
    ock__rec_redact_headers(r->items[i]->resp_headers, &s);
    free(ock__rec_redact_query(r->items[i]->query, &s));
  }
  redact_bodies(r, &s);
  mkdir(dir, 0755);
  int rc = write_logs(r, dir, &s, err, n);
  cJSON *doc = NULL;
  char why[256];
  if (!rc && !ock__rec_fixture(r->items, r->n, r->wire, &doc, why, sizeof why)) {
    char *text = cJSON_Print(doc);
    struct ock_buf b;
    ock_buf_init(&b, OCK_MAX_DERIVED_TEXT);
    rc = !text || ock_buf_puts(&b, text) || ock_buf_puts(&b, "\n")
             ? OCK_ENOMEM
             : write_file(dir, "fixture.json", &b, &s, err, n);
    ock_buf_free(&b);
    free(text);
  } else if (!rc) {
    fprintf(stderr, "ock record: %s/fixture.json not written: %s\n", dir, why);
  }
  cJSON_Delete(doc);
  ock__rec_secrets_free(&s);
  pthread_mutex_unlock(&r->lock);
  return rc;
}
