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
  for (size_t i = 0; i < s->n_refs; i++) {
    free(s->refs[i].id);
    cJSON_Delete(s->refs[i].item);
  }
  free(s->refs);
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

/* find_item: the index of id among the first seen items, or seen when it is not there; caller
 * holds the lock. */
static size_t find_item(const struct mock_store *s, const char *id, size_t seen) {
  size_t i = 0;
  while (i < seen && strcmp(s->refs[i].id, id))
    i++;
  return i;
}

/* grow_refs makes room for one more item; caller holds the lock. */
static int grow_refs(struct mock_store *s) {
  if (s->n_refs < s->cap_refs)
    return OCK_OK;
  size_t cap = s->cap_refs ? 2 * s->cap_refs : 16;
  struct mock_stored_item *refs = realloc(s->refs, cap * sizeof *refs);
  if (!refs)
    return OCK_ENOMEM;
  s->refs = refs;
  s->cap_refs = cap;
  return OCK_OK;
}

int ock__store_put_item(struct mock_store *s, const char *id, const cJSON *item) {
  struct mock_stored_item e = {strdup(id), cJSON_Duplicate(item, 1)};
  int rc = e.id && e.item ? OCK_OK : OCK_ENOMEM;
  int kept = 0;
  pthread_mutex_lock(&s->lock);
  if (!rc && find_item(s, id, s->n_refs) == s->n_refs && !(rc = grow_refs(s))) {
    s->refs[s->n_refs++] = e;
    kept = 1;
  }
  pthread_mutex_unlock(&s->lock);
  if (!kept) {
    free(e.id);
    cJSON_Delete(e.item);
  }
  return rc;
}

size_t ock__store_items(struct mock_store *s) {
  pthread_mutex_lock(&s->lock);
  size_t n = s->n_refs;
  pthread_mutex_unlock(&s->lock);
  return n;
}

int ock__store_item(struct mock_store *s, const char *id, size_t seen, cJSON **out) {
  int rc = OCK_ENOTFOUND;
  pthread_mutex_lock(&s->lock);
  if (seen > s->n_refs)
    seen = s->n_refs;
  size_t i = find_item(s, id, seen);
  if (i < seen)
    rc = (*out = cJSON_Duplicate(s->refs[i].item, 1)) ? OCK_OK : OCK_ENOMEM;
  pthread_mutex_unlock(&s->lock);
  return rc;
}
