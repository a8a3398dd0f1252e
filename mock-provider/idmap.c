/*
 * idmap.c: open addressing with linear probing over an FNV-1a hash (see idmap.h).
 */
#include "idmap.h"

#include <stdlib.h>
#include <string.h>

#include "ock/status.h"

static size_t id_hash(const char *s) {
  size_t h = 14695981039346656037ULL & (size_t)-1;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * (size_t)1099511628211ULL;
  return h;
}

/* slot_of: the slot holding key (whose hash is h), or the free slot where it would go;
 * m->cap > 0. */
static size_t slot_of(const struct idmap *m, const char *key, size_t h) {
  size_t i = h & (m->cap - 1);
  while (m->slots[i].key && (m->slots[i].hash != h || strcmp(m->slots[i].key, key)))
    i = (i + 1) & (m->cap - 1);
  return i;
}

const struct idmap_slot *ock__idmap_find(const struct idmap *m, const char *key) {
  if (!m->cap)
    return NULL;
  const struct idmap_slot *s = &m->slots[slot_of(m, key, id_hash(key))];
  return s->key ? s : NULL;
}

/* grow doubles the table, moving every mapping. */
static int grow(struct idmap *m) {
  struct idmap bigger = {.cap = m->cap ? m->cap * 2 : 16};
  if (!(bigger.slots = calloc(bigger.cap, sizeof *bigger.slots)))
    return OCK_ENOMEM;
  for (size_t i = 0; i < m->cap; i++)
    if (m->slots[i].key)
      bigger.slots[slot_of(&bigger, m->slots[i].key, m->slots[i].hash)] = m->slots[i];
  bigger.len = m->len;
  free(m->slots);
  *m = bigger;
  return OCK_OK;
}

int ock__idmap_put(struct idmap *m, const char *key, size_t index, size_t pos) {
  if ((m->len + 1) * 2 > m->cap && grow(m))
    return OCK_ENOMEM;
  size_t h = id_hash(key), i = slot_of(m, key, h);
  if (!m->slots[i].key)
    m->len++;
  m->slots[i] = (struct idmap_slot){key, h, index, pos};
  return OCK_OK;
}

void ock__idmap_free(struct idmap *m) {
  free(m->slots);
  memset(m, 0, sizeof *m);
}

void ock__idmap_clear(struct idmap *m) {
  if (m->cap)
    memset(m->slots, 0, m->cap * sizeof *m->slots);
  m->len = 0;
}
