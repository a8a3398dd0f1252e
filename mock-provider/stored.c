/*
 * stored.c: the Responses API's stored conversations (see stored.h). A scenario stores a few,
 * but a load (make bench), or any client that sends many requests, stores one per reply: what
 * is kept lives in blocks (blocks.h), ids are found through hash maps whose keys are the kept
 * ids themselves, and the older of two generations is dropped whole when the newer is full.
 */
#include "stored.h"

#include <stdlib.h>
#include <string.h>

#include "journal.h" /* ock__lock_init */
#include "ock/status.h"

int ock__store_init(struct mock_store *s, size_t keep) {
  memset(s, 0, sizeof *s);
  s->keep = keep ? keep : 1;
  return ock__lock_init(&s->lock);
}

/* generation_free frees g, which is then empty. */
static void generation_free(struct store_generation *g) {
  free(g->items);
  free(g->refs);
  ock__idmap_free(&g->by_id);
  ock__idmap_free(&g->ref_by_id);
  ock__blocks_free(&g->kept);
  memset(g, 0, sizeof *g);
}

/* generation_clear empties g for reuse, keeping its memory: its blocks, as spares, and its
 * tables, cleared. first_ref is where its items will be numbered from. */
static void generation_clear(struct store_generation *g, size_t first_ref) {
  ock__blocks_clear(&g->kept);
  ock__idmap_clear(&g->by_id);
  ock__idmap_clear(&g->ref_by_id);
  g->n = g->n_refs = 0;
  g->first_ref = first_ref;
}

void ock__store_free(struct mock_store *s) {
  generation_free(&s->gen[0]);
  generation_free(&s->gen[1]);
  pthread_mutex_destroy(&s->lock);
  memset(s, 0, sizeof *s);
}

/* room_for: the generation that takes the next response (response 1) or item (0), after
 * dropping the older one when the newer is full; caller holds the lock. Only a response or a
 * full item table starts a generation: llm.c keeps a reply's items before its response, so they
 * land in the generation before it at most, which is dropped after the response's own. */
static struct store_generation *room_for(struct mock_store *s, int response) {
  struct store_generation *g = &s->gen[s->newer];
  if ((!response || g->n < s->keep) && g->n_refs < s->keep * OCK_STORE_ITEMS_PER_RESPONSE)
    return g;
  s->newer = !s->newer;
  g = &s->gen[s->newer];
  if (g->n || g->n_refs)
    s->drops++;
  generation_clear(g, s->n_refs);
  return g;
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

/* keep_text: str kept in g's blocks (NULL stays NULL); sets *rc on out of memory. */
static char *keep_text(struct store_generation *g, const char *str, int *rc) {
  if (!str || *rc)
    return NULL;
  char *kept = ock__blocks_copy(&g->kept, str, strlen(str));
  if (!kept)
    *rc = OCK_ENOMEM;
  return kept;
}

/* keep_message copies m into g's blocks, at *out; caller holds the lock. */
static int keep_message(struct store_generation *g, const struct ock_message *m,
                        struct ock_message *out) {
  int rc = OCK_OK;
  *out = *m;
  out->content = keep_text(g, m->content, &rc);
  out->tool_call_id = keep_text(g, m->tool_call_id, &rc);
  out->calls = NULL;
  if (!rc && m->n_calls &&
      !(out->calls = ock__blocks_room(&g->kept, m->n_calls * sizeof *m->calls)))
    rc = OCK_ENOMEM;
  for (size_t i = 0; !rc && i < m->n_calls; i++) {
    out->calls[i].id = keep_text(g, m->calls[i].id, &rc);
    out->calls[i].name = keep_text(g, m->calls[i].name, &rc);
    out->calls[i].arguments = keep_text(g, m->calls[i].arguments, &rc);
  }
  return rc;
}

/* find_response: the response kept under id in either generation, or NULL; caller holds the
 * lock. */
static const struct mock_stored *find_response(const struct mock_store *s, const char *id) {
  for (int k = 0; k < 2; k++) {
    const struct store_generation *g = &s->gen[k];
    const struct idmap_slot *found = ock__idmap_find(&g->by_id, id);
    if (found)
      return &g->items[found->index];
  }
  return NULL;
}

int ock__store_put(struct mock_store *s, const char *id, const struct ock_history *conversation) {
  int rc = OCK_OK;
  pthread_mutex_lock(&s->lock);
  if (find_response(s, id)) {
    pthread_mutex_unlock(&s->lock);
    return OCK_OK; /* an id keeps its first conversation */
  }
  struct store_generation *g = room_for(s, 1);
  struct mock_stored e = {keep_text(g, id, &rc), NULL, conversation->len};
  if (!rc && !(e.messages = ock__blocks_room(&g->kept, (e.len ? e.len : 1) * sizeof *e.messages)))
    rc = OCK_ENOMEM;
  for (size_t k = 0; !rc && k < e.len; k++)
    rc = keep_message(g, &conversation->items[k], &e.messages[k]);
  if (!rc)
    rc = grow((void **)&g->items, g->n, &g->cap, sizeof *g->items);
  if (!rc)
    rc = ock__idmap_put(&g->by_id, e.id, g->n, 0);
  if (!rc)
    g->items[g->n++] = e;
  pthread_mutex_unlock(&s->lock);
  return rc; /* on error, what was copied stays in the blocks until they are dropped */
}

int ock__store_chain(struct mock_store *s, const char *id, struct ock_history *out) {
  int rc = OCK_ENOTFOUND;
  size_t first = out->len;
  pthread_mutex_lock(&s->lock);
  const struct mock_stored *e = find_response(s, id);
  if (e) {
    rc = OCK_OK;
    for (size_t k = 0; !rc && k < e->len; k++)
      rc = ock_history_append_message(out, &e->messages[k]);
  }
  pthread_mutex_unlock(&s->lock);
  for (size_t k = first; k < out->len; k++)
    out->items[k].wire_index = -1;
  return rc;
}

/* find_item: the item kept under id among the first seen items (store-wide numbers), or NULL
 * (an id is kept once, so its number is where it was first kept); caller holds the lock. */
static const struct mock_stored_item *find_item(const struct mock_store *s, const char *id,
                                                size_t seen) {
  for (int k = 0; k < 2; k++) {
    const struct store_generation *g = &s->gen[k];
    const struct idmap_slot *found = ock__idmap_find(&g->ref_by_id, id);
    if (found && g->first_ref + found->index < seen)
      return &g->refs[found->index];
  }
  return NULL;
}

int ock__store_put_item(struct mock_store *s, const char *id, const char *json) {
  int rc = OCK_OK;
  pthread_mutex_lock(&s->lock);
  if (!find_item(s, id, s->n_refs)) {
    struct store_generation *g = room_for(s, 0);
    struct mock_stored_item e = {keep_text(g, id, &rc), keep_text(g, json, &rc)};
    if (!rc)
      rc = grow((void **)&g->refs, g->n_refs, &g->cap_refs, sizeof *g->refs);
    if (!rc)
      rc = ock__idmap_put(&g->ref_by_id, e.id, g->n_refs, 0);
    if (!rc) {
      g->refs[g->n_refs++] = e;
      s->n_refs++;
    }
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
  const struct mock_stored_item *e = find_item(s, id, seen);
  if (e)
    rc = (*out = cJSON_Parse(e->json)) ? OCK_OK : OCK_ENOMEM;
  pthread_mutex_unlock(&s->lock);
  return rc;
}

size_t ock__store_drops(struct mock_store *s) {
  pthread_mutex_lock(&s->lock);
  size_t n = s->drops;
  pthread_mutex_unlock(&s->lock);
  return n;
}
