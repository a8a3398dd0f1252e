/*
 * stored.c: the Responses API's stored conversations (see stored.h). A scenario stores a few,
 * but a load (make bench), or any client that sends many requests, stores one per reply: what
 * is kept lives in blocks (blocks.h), and ids are found through hash maps whose keys are the
 * kept ids themselves.
 */
#include "stored.h"

#include <stdlib.h>
#include <string.h>

#include "journal.h" /* ock__lock_init */
#include "ock/status.h"

int ock__store_init(struct mock_store *s) {
  memset(s, 0, sizeof *s);
  return ock__lock_init(&s->lock);
}

void ock__store_free(struct mock_store *s) {
  free(s->items);
  free(s->refs);
  ock__idmap_free(&s->by_id);
  ock__idmap_free(&s->ref_by_id);
  ock__blocks_free(&s->kept);
  pthread_mutex_destroy(&s->lock);
  memset(s, 0, sizeof *s);
}

/* grow doubles *items (of n used and *cap room, each of size bytes) when it is full; caller
 * holds the lock. */
static int grow(void **items, size_t n, size_t *cap, size_t size) {
  if (n < *cap)
    return OCK_OK;
  size_t more = *cap ? 2 * *cap : 16;
  void *bigger = realloc(*items, more * size);
  if (!bigger)
    return OCK_ENOMEM;
  *items = bigger;
  *cap = more;
  return OCK_OK;
}

/* keep_text: s kept in the store's blocks (NULL stays NULL); sets *rc on out of memory. */
static char *keep_text(struct mock_store *s, const char *str, int *rc) {
  if (!str || *rc)
    return NULL;
  char *kept = ock__blocks_copy(&s->kept, str, strlen(str));
  if (!kept)
    *rc = OCK_ENOMEM;
  return kept;
}

/* keep_message copies m into the blocks, at *out; caller holds the lock. */
static int keep_message(struct mock_store *s, const struct ock_message *m,
                        struct ock_message *out) {
  int rc = OCK_OK;
  *out = *m;
  out->content = keep_text(s, m->content, &rc);
  out->tool_call_id = keep_text(s, m->tool_call_id, &rc);
  out->calls = NULL;
  if (!rc && m->n_calls &&
      !(out->calls = ock__blocks_room(&s->kept, m->n_calls * sizeof *m->calls)))
    rc = OCK_ENOMEM;
  for (size_t i = 0; !rc && i < m->n_calls; i++) {
    out->calls[i].id = keep_text(s, m->calls[i].id, &rc);
    out->calls[i].name = keep_text(s, m->calls[i].name, &rc);
    out->calls[i].arguments = keep_text(s, m->calls[i].arguments, &rc);
  }
  return rc;
}

int ock__store_put(struct mock_store *s, const char *id, const struct ock_history *conversation) {
  int rc = OCK_OK;
  pthread_mutex_lock(&s->lock);
  if (ock__idmap_find(&s->by_id, id)) {
    pthread_mutex_unlock(&s->lock);
    return OCK_OK; /* an id keeps its first conversation */
  }
  struct mock_stored e = {keep_text(s, id, &rc), NULL, conversation->len};
  if (!rc && !(e.messages = ock__blocks_room(&s->kept, (e.len ? e.len : 1) * sizeof *e.messages)))
    rc = OCK_ENOMEM;
  for (size_t k = 0; !rc && k < e.len; k++)
    rc = keep_message(s, &conversation->items[k], &e.messages[k]);
  if (!rc)
    rc = grow((void **)&s->items, s->n, &s->cap, sizeof *s->items);
  if (!rc)
    rc = ock__idmap_put(&s->by_id, e.id, s->n, 0);
  if (!rc)
    s->items[s->n++] = e;
  pthread_mutex_unlock(&s->lock);
  return rc; /* on error, what was copied stays in the blocks until the store is freed */
}

int ock__store_chain(struct mock_store *s, const char *id, struct ock_history *out) {
  int rc = OCK_ENOTFOUND;
  size_t first = out->len;
  pthread_mutex_lock(&s->lock);
  const struct idmap_slot *found = ock__idmap_find(&s->by_id, id);
  if (found) {
    const struct mock_stored *e = &s->items[found->index];
    rc = OCK_OK;
    for (size_t k = 0; !rc && k < e->len; k++)
      rc = ock_history_append_message(out, &e->messages[k]);
  }
  pthread_mutex_unlock(&s->lock);
  for (size_t k = first; k < out->len; k++)
    out->items[k].wire_index = -1;
  return rc;
}

/* find_item: the index of id among the first seen items, or seen when it is not there (an id
 * is kept once, so its index is where it was first kept); caller holds the lock. */
static size_t find_item(const struct mock_store *s, const char *id, size_t seen) {
  const struct idmap_slot *found = ock__idmap_find(&s->ref_by_id, id);
  return found && found->index < seen ? found->index : seen;
}

int ock__store_put_item(struct mock_store *s, const char *id, const char *json) {
  int rc = OCK_OK;
  pthread_mutex_lock(&s->lock);
  if (find_item(s, id, s->n_refs) == s->n_refs) {
    struct mock_stored_item e = {keep_text(s, id, &rc), keep_text(s, json, &rc)};
    if (!rc)
      rc = grow((void **)&s->refs, s->n_refs, &s->cap_refs, sizeof *s->refs);
    if (!rc)
      rc = ock__idmap_put(&s->ref_by_id, e.id, s->n_refs, 0);
    if (!rc)
      s->refs[s->n_refs++] = e;
  }
  pthread_mutex_unlock(&s->lock);
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
    rc = (*out = cJSON_Parse(s->refs[i].json)) ? OCK_OK : OCK_ENOMEM;
  pthread_mutex_unlock(&s->lock);
  return rc;
}
