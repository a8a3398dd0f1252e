/*
 * stored.h: the Responses API's stored conversations, for previous_response_id.
 *
 * The Responses API keeps each response it gave (unless the request said "store": false), and
 * a request with previous_response_id continues that conversation: its input is appended to
 * the stored one. The mock keeps, per response id, the whole neutral conversation that ended
 * in it (the chain before it, the request's input items, and the reply), so validation and
 * the journal see the chained history, as the real API judges it. Entries are only added,
 * never changed, so a request read again later (the journal prints llm_request entries when
 * it is read) finds the same chain. Thread-safe.
 */
#ifndef OCK_MOCK_STORED_H
#define OCK_MOCK_STORED_H

#include <pthread.h>
#include <stddef.h>

#include "ock/message.h"

struct mock_stored {
  char *id;
  struct ock_history conversation;
};

struct mock_store {
  pthread_mutex_t lock;
  struct mock_stored *items;
  size_t n, cap;
};

/* ock__store_init: OCK_OK or OCK_ENOMEM. ock__store_free frees every entry. */
int ock__store_init(struct mock_store *s);
void ock__store_free(struct mock_store *s);

/* ock__store_put keeps a copy of conversation under id. OCK_OK or OCK_ENOMEM. */
int ock__store_put(struct mock_store *s, const char *id, const struct ock_history *conversation);

/* ock__store_chain appends a copy of id's conversation to out, every message with wire_index
 * -1 (none of them is in the request). OCK_OK, OCK_ENOTFOUND, OCK_ENOMEM. */
int ock__store_chain(struct mock_store *s, const char *id, struct ock_history *out);

#endif
