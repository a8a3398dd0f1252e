/*
 * blocks.c: a chain of blocks, each cut from its end (see blocks.h).
 */
#include "blocks.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK_SIZE ((size_t)4 << 20)

struct block {
  struct block *next; /* the block before it */
  size_t used;
  size_t size;
  char data[];
};

void *ock__blocks_room(struct blocks *bs, size_t n) {
  struct block *b = bs->newest;
  size_t at =
      b ? (size_t)((-(uintptr_t)(b->data + b->used)) & (OCK_BLOCKS_ALIGN - 1)) + b->used : 0;
  if (!b || b->size - b->used < n + OCK_BLOCKS_ALIGN) {
    size_t size = n + OCK_BLOCKS_ALIGN > BLOCK_SIZE ? n + OCK_BLOCKS_ALIGN : BLOCK_SIZE;
    b = malloc(sizeof *b + size);
    if (!b)
      return NULL;
    b->next = bs->newest;
    b->used = 0;
    b->size = size;
    bs->newest = b;
    at = (size_t)((-(uintptr_t)b->data) & (OCK_BLOCKS_ALIGN - 1));
  }
  b->used = at + n;
  return b->data + at;
}

char *ock__blocks_copy(struct blocks *b, const char *s, size_t n) {
  char *c = s ? ock__blocks_room(b, n + 1) : NULL;
  if (c) {
    memcpy(c, s, n);
    c[n] = '\0';
  }
  return c;
}

void ock__blocks_free(struct blocks *bs) {
  while (bs->newest) {
    struct block *b = bs->newest;
    bs->newest = b->next;
    free(b);
  }
}
