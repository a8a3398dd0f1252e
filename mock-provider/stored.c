/*
 * stored.c: the Responses API's stored conversations (see stored.h). A response id names one
 * played turn, so a scenario stores a few; a linear search is enough.
 */
#include "stored.h"

#include <stdlib.h>
#include <string.h>

#include "ock/status.h"

int ock__store_init(struct mock_store *s) {
  memset(s, 0, sizeof *s);
  return pthread_mutex_init(&s->lock, NULL) ? OCK_ENOMEM : OCK_OK;
}

void ock__store_free(struct mock_store *s) {
  for (size_t i = 0; i < s->n; i++) {
    free(s->items[i].id);
    ock_history_free(&s->items[i].conversation);
  }
  free(s->items);
  pthread_mutex_destroy(&s->lock);
  memset(s, 0, sizeof *s);
}

int ock__store_put(struct mock_store *s, const char *id, const struct ock_history *conversation) {
  struct mock_stored e = {strdup(id), {0}};
  ock_history_init(&e.conversation);
  int rc = e.id ? ock_history_copy(conversation, &e.conversation) : OCK_ENOMEM;
  pthread_mutex_lock(&s->lock);
  if (!rc && s->n == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 8;
    struct mock_stored *items = realloc(s->items, cap * sizeof *items);
    if (items) {
      s->items = items;
      s->cap = cap;
    } else {
      rc = OCK_ENOMEM;
    }
  }
  if (!rc)
    s->items[s->n++] = e;
  pthread_mutex_unlock(&s->lock);
  if (rc) {
    free(e.id);
    ock_history_free(&e.conversation);
  }
  return rc;
}

int ock__store_chain(struct mock_store *s, const char *id, struct ock_history *out) {
  int rc = OCK_ENOTFOUND;
  size_t first = out->len;
  pthread_mutex_lock(&s->lock);
  for (size_t i = 0; i < s->n && rc == OCK_ENOTFOUND; i++) {
    if (strcmp(s->items[i].id, id))
      continue;
    const struct ock_history *h = &s->items[i].conversation;
    rc = OCK_OK;
    for (size_t k = 0; !rc && k < h->len; k++)
      rc = ock_history_append_message(out, &h->items[k]);
  }
  pthread_mutex_unlock(&s->lock);
  for (size_t k = first; k < out->len; k++)
    out->items[k].wire_index = -1;
  return rc;
}
