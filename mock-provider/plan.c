/* plan.c: building reply plans (see plan.h). */
#include "plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ock/contract.h"
#include "ock/json.h"
#include "ock/status.h"

void ock__plan_init(struct mock_plan *p) {
  memset(p, 0, sizeof *p);
  p->status = 200;
  p->content_type = "application/json";
  p->drop_after = -1;
  ock_chunks_init(&p->body);
}

void ock__plan_free(struct mock_plan *p) {
  ock_chunks_free(&p->body);
  free(p->deferred);
  p->deferred = NULL;
  p->deferred_gone = NULL;
}

/* copy_text copies s into out[n], cut to fit, as snprintf "%s" would. */
static void copy_text(char *out, size_t n, const char *s) {
  size_t len = strnlen(s, n - 1);
  memcpy(out, s, len);
  out[len] = '\0';
}

int ock__plan_header(struct mock_plan *p, const char *name, const char *value) {
  if (p->n_headers >= MOCK_PLAN_HEADERS)
    return OCK_ETOOBIG;
  struct mock_header *h = &p->headers[p->n_headers++];
  copy_text(h->name, sizeof h->name, name);
  copy_text(h->value, sizeof h->value, value);
  return OCK_OK;
}

int ock__plan_bytes(struct mock_plan *p, int status, const char *content_type, const char *data,
                    size_t len) {
  p->status = status;
  p->content_type = content_type;
  p->body_json = 0;
  ock_chunks_truncate(&p->body, 0);
  return ock_chunks_push(&p->body, data, len);
}

int ock__plan_json(struct mock_plan *p, int status, cJSON *v) {
  if (!v)
    return OCK_ENOMEM;
  char *s = ock_json_print(v);
  cJSON_Delete(v);
  if (!s)
    return OCK_ENOMEM;
  int rc = ock__plan_bytes(p, status, "application/json", s, strlen(s));
  p->body_json = 1;
  free(s);
  return rc;
}

void ock__plan_defer_text(struct mock_plan *p, const char *kind, char *text,
                          cJSON *(*gone)(const cJSON *sent)) {
  free(p->deferred);
  p->deferred = text;
  p->deferred_gone = gone;
  p->deferred_kind = kind;
}

int ock__plan_defer(struct mock_plan *p, const char *kind, cJSON *entry,
                    cJSON *(*gone)(const cJSON *sent)) {
  char *text = entry ? ock_json_print(entry) : NULL;
  cJSON_Delete(entry);
  ock__plan_defer_text(p, kind, text, gone);
  return text ? OCK_OK : OCK_ENOMEM;
}
