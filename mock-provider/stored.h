/*
 * stored.h: the Responses API's stored conversations, for previous_response_id.
 *
 * The Responses API keeps each response it gave (unless the request said "store": false), and
 * a request with previous_response_id continues that conversation: its input is appended to
 * the stored one. The mock keeps, per response id, the whole neutral conversation that ended
 * in it (the chain before it, the request's input items, and the reply), so validation and
 * the journal see the chained history, as the real API judges it. Thread-safe.
 *
 * It also keeps each item of a stored response by its item id: the output items (msg_...,
 * fc_..._I) and the input items that carried an id. A request's input may name one with
 * {"type": "item_reference", "id"}, as @ai-sdk/openai does for its earlier output items when
 * store is true; the mock puts the stored item in its place before validating (llm.c).
 * A lookup sees only the items kept before a given count, so a request read again for the
 * journal resolves as it did when it arrived.
 *
 * The store is bounded, as the real API's is (it expires responses): it keeps at least the last
 * `keep` responses given to ock__store_init, and the items kept with them, and at most twice as
 * many. Entries are kept in two generations; when the newer one holds `keep` responses (or
 * OCK_STORE_ITEMS_PER_RESPONSE times as many items), the older one is dropped whole and the
 * newer one becomes the older. A reply's items are kept before its response (llm.c), so they
 * are dropped with it or, for the first response of a generation, one generation sooner. A dropped
 * id is not found, as the API does not find an expired one. A scenario stores a few dozen
 * responses, far below OCK_MAX_MOCK_STORED_RESPONSES; a load (make bench) stores one per request,
 * and without the bound its maps and blocks grew for the whole run, with the mock's rate falling
 * and its p99 rising round by round.
 */
#ifndef OCK_MOCK_STORED_H
#define OCK_MOCK_STORED_H

#include <pthread.h>
#include <stddef.h>

#include <cJSON.h>

#include "blocks.h"
#include "idmap.h"
#include "ock/message.h"

/* Items a generation may hold per response it may hold: a reply's output items and the input
 * items that carried an id, which a load or a long tool round can make several of. */
#define OCK_STORE_ITEMS_PER_RESPONSE 8

/* A stored response: its id and conversation, all kept in its generation's blocks (never freed
 * one by one: not an ock_history). */
struct mock_stored {
  const char *id;
  struct ock_message *messages;
  size_t len;
};

struct mock_stored_item {
  const char *id;
  const char *json; /* the item, printed */
};

/* One generation: what was kept between two drops. */
struct store_generation {
  struct blocks kept; /* every id, conversation and item below */
  struct mock_stored *items;
  size_t n, cap;
  struct idmap by_id;            /* response id -> its index in items */
  struct mock_stored_item *refs; /* the referenceable items, in the order they were kept */
  size_t n_refs, cap_refs;
  size_t first_ref; /* the store-wide number of refs[0] (what ock__store_item's seen counts) */
  struct idmap ref_by_id; /* item id -> its index in refs */
};

struct mock_store {
  pthread_mutex_t lock;
  size_t keep;                    /* responses a generation holds before the older is dropped */
  struct store_generation gen[2]; /* gen[newer] takes what is put; the other is older */
  int newer;
  size_t drops;  /* generations dropped so far (that held anything) */
  size_t n_refs; /* items kept so far, dropped ones included */
};

/* ock__store_init: an empty store that keeps at least the last keep responses (keep >= 1).
 * OCK_OK or OCK_ENOMEM. ock__store_free frees every entry. */
int ock__store_init(struct mock_store *s, size_t keep);
void ock__store_free(struct mock_store *s);

/* ock__store_put keeps a copy of conversation under id; an id already kept keeps its first
 * conversation. OCK_OK or OCK_ENOMEM. */
int ock__store_put(struct mock_store *s, const char *id, const struct ock_history *conversation);

/* ock__store_chain appends a copy of id's conversation to out, every message with wire_index
 * -1 (none of them is in the request). OCK_OK, OCK_ENOTFOUND (never kept, or dropped),
 * OCK_ENOMEM. */
int ock__store_chain(struct mock_store *s, const char *id, struct ock_history *out);

/* ock__store_put_item keeps a copy of json (an item, as compact JSON text) under id; an id
 * already kept keeps its first item. OCK_OK or OCK_ENOMEM. */
int ock__store_put_item(struct mock_store *s, const char *id, const char *json);

/* ock__store_items: how many items were kept so far, dropped ones included (what
 * ock__store_item's seen bounds). */
size_t ock__store_items(struct mock_store *s);

/* ock__store_item sets *out to a copy of the item kept under id among the first seen items
 * (caller deletes it). OCK_OK, OCK_ENOTFOUND (not among them, or dropped), OCK_ENOMEM. */
int ock__store_item(struct mock_store *s, const char *id, size_t seen, cJSON **out);

/* ock__store_drops: how many generations were dropped so far. A lookup that succeeded when a
 * request arrived can fail later only if this grew in between. */
size_t ock__store_drops(struct mock_store *s);

#endif
