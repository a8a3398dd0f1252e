/*
 * test_stored.c: the store behind previous_response_id and item_reference (stored.h), with as
 * many entries as a load stores: each id finds what was kept under it first, a lookup bounded
 * by a count sees only the items kept before it, and an unknown id is not found. Past its bound
 * the store drops its older generation whole: the last `keep` responses and their items are
 * always found, older ones not.
 */
#include <stdio.h>
#include <string.h>

#include "ock/status.h"
#include "runner.h"
#include "stored.h"

enum { MANY = 20000 };

static void items_by_id(void) {
  struct mock_store s;
  OCK_ASSERT_INT_EQ(ock__store_init(&s, MANY), OCK_OK);
  char id[32];
  for (int i = 0; i < MANY; i++) {
    snprintf(id, sizeof id, "msg_%d", i);
    char json[32];
    snprintf(json, sizeof json, "%d", i);
    OCK_ASSERT_INT_EQ(ock__store_put_item(&s, id, json), OCK_OK);
  }
  OCK_ASSERT_INT_EQ(ock__store_put_item(&s, "msg_5", "\"second\""), OCK_OK); /* kept: the first */
  OCK_ASSERT_INT_EQ((long long)ock__store_items(&s), MANY);
  for (int i = 0; i < MANY; i += 997) {
    snprintf(id, sizeof id, "msg_%d", i);
    cJSON *got = NULL;
    OCK_ASSERT_INT_EQ(ock__store_item(&s, id, MANY, &got), OCK_OK);
    OCK_ASSERT_INT_EQ((long long)cJSON_GetNumberValue(got), i);
    cJSON_Delete(got);
    OCK_ASSERT_INT_EQ(ock__store_item(&s, id, (size_t)i, &got), OCK_ENOTFOUND); /* kept later */
  }
  cJSON *got = NULL;
  OCK_ASSERT_INT_EQ(ock__store_item(&s, "msg_5", MANY, &got), OCK_OK);
  OCK_ASSERT_INT_EQ((long long)cJSON_GetNumberValue(got), 5);
  cJSON_Delete(got);
  OCK_ASSERT_INT_EQ(ock__store_item(&s, "msg_x", MANY, &got), OCK_ENOTFOUND);
  ock__store_free(&s);
}

static void conversations_by_id(void) {
  struct mock_store s;
  OCK_ASSERT_INT_EQ(ock__store_init(&s, MANY), OCK_OK);
  struct ock_history h;
  ock_history_init(&h);
  char id[32], text[32];
  for (int i = 0; i < MANY; i++) { /* conversation i holds i % 4 + 1 messages */
    ock_history_free(&h);
    for (int k = 0; k <= i % 4; k++) {
      snprintf(text, sizeof text, "%d.%d", i, k);
      OCK_ASSERT_INT_EQ(ock_history_add_text(&h, OCK_ROLE_USER, text), OCK_OK);
    }
    snprintf(id, sizeof id, "resp_%d", i);
    OCK_ASSERT_INT_EQ(ock__store_put(&s, id, &h), OCK_OK);
  }
  OCK_ASSERT_INT_EQ(ock_history_add_text(&h, OCK_ROLE_USER, "not this one"), OCK_OK);
  OCK_ASSERT_INT_EQ(ock__store_put(&s, "resp_7", &h), OCK_OK); /* kept once: the first */

  for (int i = 3; i < MANY; i += 1009) {
    struct ock_history out;
    ock_history_init(&out);
    snprintf(id, sizeof id, "resp_%d", i);
    OCK_ASSERT_INT_EQ(ock__store_chain(&s, id, &out), OCK_OK);
    OCK_ASSERT_INT_EQ((long long)out.len, i % 4 + 1);
    snprintf(text, sizeof text, "%d.%d", i, i % 4);
    OCK_ASSERT_STR_EQ(out.items[out.len - 1].content, text);
    OCK_ASSERT_INT_EQ(out.items[0].wire_index, -1);
    ock_history_free(&out);
  }
  struct ock_history out;
  ock_history_init(&out);
  OCK_ASSERT_INT_EQ(ock__store_chain(&s, "resp_7", &out), OCK_OK);
  OCK_ASSERT_STR_EQ(out.items[0].content, "7.0");
  OCK_ASSERT_INT_EQ(ock__store_chain(&s, "resp_none", &out), OCK_ENOTFOUND);
  ock_history_free(&out);
  ock_history_free(&h);
  ock__store_free(&s);
}

/* put_response keeps an item under msg_<i>, then a one-message conversation under resp_<i>. */
static void put_response(struct mock_store *s, int i) {
  char id[32];
  struct ock_history h;
  ock_history_init(&h);
  snprintf(id, sizeof id, "%d", i);
  OCK_ASSERT_INT_EQ(ock_history_add_text(&h, OCK_ROLE_USER, id), OCK_OK);
  snprintf(id, sizeof id, "msg_%d", i); /* a reply's items first, as llm.c keeps them */
  OCK_ASSERT_INT_EQ(ock__store_put_item(s, id, "{}"), OCK_OK);
  snprintf(id, sizeof id, "resp_%d", i);
  OCK_ASSERT_INT_EQ(ock__store_put(s, id, &h), OCK_OK);
  ock_history_free(&h);
}

/* found: whether resp_<i> and msg_<i> are both found (1), both not (0), or only one (-1). */
static int found(struct mock_store *s, int i) {
  char id[32];
  struct ock_history out;
  ock_history_init(&out);
  snprintf(id, sizeof id, "resp_%d", i);
  int chain = ock__store_chain(s, id, &out) == OCK_OK;
  if (chain)
    OCK_ASSERT_INT_EQ((long long)out.len, 1);
  ock_history_free(&out);
  cJSON *item = NULL;
  snprintf(id, sizeof id, "msg_%d", i);
  int kept = ock__store_item(s, id, ock__store_items(s), &item) == OCK_OK;
  cJSON_Delete(item);
  return chain == kept ? chain : -1;
}

/* With keep 100: the first 100 fill a generation, the next 100 another, and the 201st drops the
 * first; what is found is always the last 100 at least and the last 200 at most. The item of
 * the first response of a generation sits in the one before (so 100's is dropped with 0-99). */
static void bounded_by_generations(void) {
  enum { KEEP = 100 };
  struct mock_store s;
  OCK_ASSERT_INT_EQ(ock__store_init(&s, KEEP), OCK_OK);
  for (int i = 0; i < 2 * KEEP; i++)
    put_response(&s, i);
  OCK_ASSERT_INT_EQ((long long)ock__store_drops(&s), 0);
  OCK_ASSERT_INT_EQ(found(&s, 0), 1);
  put_response(&s, 2 * KEEP);
  OCK_ASSERT_INT_EQ((long long)ock__store_drops(&s), 1);
  for (int i = 0; i < KEEP; i++)
    OCK_ASSERT_INT_EQ(found(&s, i), 0);
  OCK_ASSERT_INT_EQ(found(&s, KEEP), -1);
  for (int i = KEEP + 1; i <= 2 * KEEP; i++)
    OCK_ASSERT_INT_EQ(found(&s, i), 1);
  for (int i = 2 * KEEP + 1; i < 5 * KEEP + 50; i++)
    put_response(&s, i);
  OCK_ASSERT_INT_EQ((long long)ock__store_drops(&s), 4);
  OCK_ASSERT_INT_EQ(found(&s, 4 * KEEP - 1), 0);
  for (int i = 4 * KEEP + 1; i < 5 * KEEP + 50; i++)
    OCK_ASSERT_INT_EQ(found(&s, i), 1);
  /* an item still kept is not seen by a lookup bounded before it was kept */
  cJSON *item = NULL;
  OCK_ASSERT_INT_EQ(ock__store_item(&s, "msg_450", 450, &item), OCK_ENOTFOUND);
  OCK_ASSERT_INT_EQ(ock__store_item(&s, "msg_450", 451, &item), OCK_OK);
  cJSON_Delete(item);
  /* a dropped id can be kept again */
  put_response(&s, 0);
  OCK_ASSERT_INT_EQ(found(&s, 0), 1);
  OCK_ASSERT_INT_EQ((long long)ock__store_items(&s), 5 * KEEP + 51);
  ock__store_free(&s);
}

/* The store drops a generation with ock__blocks_clear (blocks.h): its blocks of the usual size
 * are reused by the next pieces, in memory already touched; a larger piece's own block is not
 * kept. */
static void blocks_reused_after_clear(void) {
  struct blocks b = {0};
  char piece[1024] = {0};
  for (int i = 0; i < 9 * 1024; i++) /* 9 MiB: three blocks of 4 MiB */
    OCK_ASSERT_TRUE(ock__blocks_copy(&b, piece, sizeof piece - 1) != NULL);
  OCK_ASSERT_TRUE(ock__blocks_room(&b, (size_t)5 << 20) != NULL); /* a block of its own */
  int blocks = 0;
  for (const struct block *k = b.newest; k; k = k->next)
    blocks++;
  OCK_ASSERT_INT_EQ(blocks, 4);
  ock__blocks_clear(&b);
  OCK_ASSERT_TRUE(b.newest == NULL);
  int spares = 0;
  for (const struct block *k = b.spare; k; k = k->next)
    spares++;
  OCK_ASSERT_INT_EQ(spares, 3);
  const struct block *first_spare = b.spare;
  char *again = ock__blocks_copy(&b, "x", 1);
  OCK_ASSERT_TRUE(again != NULL && ock__block_holds(first_spare, again));
  OCK_ASSERT_STR_EQ(again, "x");
  ock__blocks_free(&b);
  OCK_ASSERT_TRUE(b.newest == NULL && b.spare == NULL);
}

static const struct ock_test tests[] = {{"items_by_id", items_by_id},
                                        {"conversations_by_id", conversations_by_id},
                                        {"bounded_by_generations", bounded_by_generations},
                                        {"blocks_reused_after_clear", blocks_reused_after_clear},
                                        {NULL, NULL}};

const struct ock_suite mock_stored_suite = {"stored", tests, NULL, NULL};
