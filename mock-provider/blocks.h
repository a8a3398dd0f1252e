/*
 * blocks.h: memory kept until the end, handed out from blocks of 4 MiB. What the mock keeps for
 * the rest of its life (journal lines, the Responses API's stored conversations) is many small
 * pieces, about 2 KB a request. Kept as allocations of their own among each request's
 * short-lived ones, they kept every connection thread's malloc arena growing: a heap extension
 * (an mprotect) and a page fault per request, a sixth of the mock's time under load. From a
 * block, they cost a pointer bump, and one allocation in 4 MiB.
 *
 * Blocks are mapped (mmap), not taken from malloc: freed into the serving threads' arenas they
 * would stay resident, so reading the journal (ock__journal_take, which frees each block once its
 * lines are parsed) would hold its lines and its trees at once. Unmapped, a block's memory goes
 * back at once. Not huge pages: the first touch of a 2 MiB page clears it at once, and under a
 * lock that stalled every request for milliseconds. Not thread-safe: the owner holds its own
 * lock.
 */
#ifndef OCK_MOCK_BLOCKS_H
#define OCK_MOCK_BLOCKS_H

#include <stddef.h>

#define OCK_BLOCKS_ALIGN 16 /* of everything handed out: a piece may hold any type */

/* A block: pieces one after the other in data, in the order they were handed out. */
struct block {
  struct block *next; /* newer to older in struct blocks; older to newer after ock__blocks_take */
  size_t used;
  size_t size;
  char data[];
};

struct blocks {
  struct block *newest; /* pieces are cut from its end; its chain holds every block */
  struct block *spare;  /* emptied blocks (ock__blocks_clear), taken before a new one is mapped */
};

/* ock__blocks_room: n bytes aligned to OCK_BLOCKS_ALIGN, kept until ock__blocks_free; a piece
 * larger than a block gets a block of its own. NULL when out of memory. */
void *ock__blocks_room(struct blocks *b, size_t n);

/* ock__blocks_copy: the n bytes of s and a NUL, kept; NULL for a NULL s or out of memory. */
char *ock__blocks_copy(struct blocks *b, const char *s, size_t n);

/* ock__blocks_free frees every block; b is then empty and reusable. */
void ock__blocks_free(struct blocks *b);

/* ock__blocks_clear forgets every piece but keeps the blocks of the usual size as spares, so the
 * next pieces fill memory already touched, without a page fault (a piece's own larger block is
 * freed). For an owner that drops all it kept over and over (stored.c). */
void ock__blocks_clear(struct blocks *b);

/* ock__blocks_take hands over every block, oldest first (the pieces in the order they were cut),
 * and sets *bytes to what they take; b is then empty. The caller frees each with
 * ock__block_free, which returns the next one. */
struct block *ock__blocks_take(struct blocks *b, size_t *bytes);
struct block *ock__block_free(struct block *b);

/* ock__block_bytes: the memory block b takes. ock__block_holds: p lies in b's data. */
size_t ock__block_bytes(const struct block *b);
int ock__block_holds(const struct block *b, const void *p);

#endif
