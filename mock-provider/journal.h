/*
 * journal.h: the mock's record of everything, in one total order.
 *
 * Each entry is a JSON object {"seq": N, "t_ms": T, "kind": K, ...}: seq counts from 1 in
 * append order, t_ms is monotonic milliseconds since the journal's epoch. Appends are
 * serialised by a mutex, so seq order is the order the mock decided things in. Past either
 * cap (entries, bytes kept), entries still take a seq but are counted instead of kept. An entry
 * is kept as its text, or as bytes it is printed from when read (ock__journal_append_later). No
 * I/O except ock__journal_write, which prints to a FILE the caller owns.
 */
#ifndef OCK_MOCK_JOURNAL_H
#define OCK_MOCK_JOURNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

#include <cJSON.h>

#include "ock/buf.h"

struct mock_journal;

/* ock__lock_init makes a lock for the locks every request takes, the journal's and the state's
 * (state.h), and on the Responses API the store's (stored.h): each is held for a few
 * microseconds by the mock's two serving threads, so a waiter spins a little before it sleeps
 * (PTHREAD_MUTEX_ADAPTIVE_NP); sleeping and waking cost more than the wait, and a fifth of the
 * requests met the other thread's hold (make bench item 1). Returns OCK_OK or OCK_ENOMEM. */
int ock__lock_init(pthread_mutex_t *lock);

/* ock__journal_new makes an empty journal that keeps at most max entries and about
 * max_bytes of them; its epoch is now. Returns OCK_OK or OCK_ENOMEM. Free with
 * ock__journal_free (NULL is a no-op). */
int ock__journal_new(size_t max, size_t max_bytes, struct mock_journal **out);
void ock__journal_free(struct mock_journal *j);

/* ock__journal_reset_epoch makes t_ms count from now. */
void ock__journal_reset_epoch(struct mock_journal *j);

/* ock__journal_append takes ownership of entry (an object; its members follow seq, t_ms and
 * kind, in their order) and returns the seq it got, or 0 when out of memory (the entry is
 * then freed). NULL entry stands for an empty object. */
long long ock__journal_append(struct mock_journal *j, const char *kind, cJSON *entry);

/* ock__journal_append_text is ock__journal_append of an entry already printed: object is a
 * compact JSON object ("{...}", or NULL for {}), and tail, when not NULL, more members
 * ("\"a\":1,\"b\":2") to put after its own. Both are copied. Printing before the caller takes
 * its own locks keeps them short. */
long long ock__journal_append_text(struct mock_journal *j, const char *kind, const char *object,
                                   const char *tail);

/* ock_journal_print_fn appends the JSON object text ("{...}") of an entry kept as the bytes
 * ock__journal_append_later was given (blob, a copy, aligned for any type). Returns OCK_OK,
 * or ock_buf_append's error. It runs when the journal is read, under the journal's lock. */
typedef int (*ock_journal_print_fn)(const void *blob, struct ock_buf *out);

/* ock__journal_append_later is ock__journal_append_text of an entry printed only when the
 * journal is read: the journal keeps a copy of blob (blob_len bytes) and tail, and print makes
 * the object from the copy each time (the same text every time: print must depend on nothing
 * else that changes). A busy mock then keeps what arrived, not its larger printed form, and
 * does not print on the request's path what is read once per scenario. Same returns. */
long long ock__journal_append_later(struct mock_journal *j, const char *kind,
                                    ock_journal_print_fn print, const void *blob, size_t blob_len,
                                    const char *tail);

/* ock__journal_snapshot: a deep copy of the kept entries as an array (caller cJSON_Deletes);
 * NULL when out of memory. */
cJSON *ock__journal_snapshot(struct mock_journal *j);

/* ock__journal_take: the kept entries as trees, as ock__journal_snapshot gives them, for a
 * reader done with the journal, which it empties: each block of lines is freed once its
 * entries are parsed, and the trees count against max_bytes together with the lines still held.
 * An entry whose tree would pass it is not parsed, nor any after it; they are counted as
 * dropped. So the lines and the trees together stay within max_bytes plus the block being read
 * (at most one entry, a request body and its frame, or 4 MiB) and one printed entry. NULL when
 * out of memory (the journal is emptied all the same). */
cJSON *ock__journal_take(struct mock_journal *j);

/* ock__journal_select: deep copies of the kept entries whose kind is one of kinds (a
 * NULL-terminated list), in seq order; NULL when out of memory. Only those entries are parsed,
 * so a handler can look back at a few kinds without the cost of a whole snapshot. */
cJSON *ock__journal_select(struct mock_journal *j, const char *const *kinds);

/* ock__journal_array_text appends the kept entries to out as one JSON array (the text the
 * snapshot would print). Returns OCK_OK, or ock_buf_append's error. */
int ock__journal_array_text(struct mock_journal *j, struct ock_buf *out);

/* ock__journal_dropped counts the entries not kept because of a cap. */
size_t ock__journal_dropped(struct mock_journal *j);

/* ock__journal_write prints the kept entries as JSONL. Returns OCK_OK, OCK_EIO, OCK_ENOMEM. */
int ock__journal_write(struct mock_journal *j, FILE *f);

#endif
