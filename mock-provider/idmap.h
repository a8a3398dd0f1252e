/*
 * idmap.h: a hash map from id strings to a pair of indices. The mock looks ids up by it where
 * their number is the client's to choose: the call ids of a request's history (validate.c)
 * and the ids of the Responses API's stored responses and items (stored.c). A lookup costs
 * O(1), so a history or a store of 100k ids costs linear time, not quadratic.
 *
 * Keys are borrowed: each must stay alive and unchanged while the map holds it. The table
 * starts at 16 slots and doubles, so it is at most half full.
 */
#ifndef OCK_MOCK_IDMAP_H
#define OCK_MOCK_IDMAP_H

#include <stddef.h>

struct idmap_slot {
  const char *key; /* NULL: free */
  size_t hash;     /* of key: most probes of another key end without reading it */
  size_t index;    /* where the caller keeps what the id names */
  size_t pos;      /* a second coordinate when the caller needs one (else 0) */
};

struct idmap {
  struct idmap_slot *slots;
  size_t cap; /* a power of two, or 0 */
  size_t len;
};

/* ock__idmap_find: the slot that maps key, or NULL. */
const struct idmap_slot *ock__idmap_find(const struct idmap *m, const char *key);

/* ock__idmap_put maps key to (index, pos), in place of any earlier mapping of key. OCK_OK or
 * OCK_ENOMEM (then the map is unchanged). */
int ock__idmap_put(struct idmap *m, const char *key, size_t index, size_t pos);

/* ock__idmap_free frees the table (not the keys) and leaves an empty map. */
void ock__idmap_free(struct idmap *m);

/* ock__idmap_clear forgets every mapping but keeps the table's room. */
void ock__idmap_clear(struct idmap *m);

#endif
