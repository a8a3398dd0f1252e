/*
 * blocks.c: a chain of blocks, each cut from its end (see blocks.h).
 */
#include "blocks.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define BLOCK_SIZE ((size_t)4 << 20)

/* block_new maps a block of size data bytes; NULL when out of memory. */
static struct block *block_new(size_t size) {
  void *p = mmap(NULL, sizeof(struct block) + size, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return NULL;
  struct block *b = p;
  b->size = size;
  return b;
}

size_t ock__block_bytes(const struct block *b) {
  return sizeof *b + b->size;
}

struct block *ock__block_free(struct block *b) {
  struct block *next = b->next;
  munmap(b, ock__block_bytes(b));
  return next;
}

int ock__block_holds(const struct block *b, const void *p) {
  const char *c = p;
  return c >= b->data && c < b->data + b->size;
}

void *ock__blocks_room(struct blocks *bs, size_t n) {
  struct block *b = bs->newest;
  size_t at =
      b ? (size_t)((-(uintptr_t)(b->data + b->used)) & (OCK_BLOCKS_ALIGN - 1)) + b->used : 0;
  if (!b || b->size - b->used < n + OCK_BLOCKS_ALIGN) {
    size_t size = n + OCK_BLOCKS_ALIGN > BLOCK_SIZE ? n + OCK_BLOCKS_ALIGN : BLOCK_SIZE;
    if (size == BLOCK_SIZE && bs->spare) {
      b = bs->spare;
      bs->spare = b->next;
    } else if (!(b = block_new(size))) {
      return NULL;
    }
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
  ock__blocks_clear(bs);
  while (bs->spare)
    bs->spare = ock__block_free(bs->spare);
}

void ock__blocks_clear(struct blocks *bs) {
  while (bs->newest) {
    struct block *b = bs->newest;
    bs->newest = b->next;
    if (b->size != BLOCK_SIZE) {
      ock__block_free(b);
      continue;
    }
    b->next = bs->spare;
    bs->spare = b;
  }
}

struct block *ock__blocks_take(struct blocks *bs, size_t *bytes) {
  struct block *oldest = NULL;
  *bytes = 0;
  while (bs->newest) {
    struct block *b = bs->newest;
    bs->newest = b->next;
    b->next = oldest;
    oldest = b;
    *bytes += ock__block_bytes(b);
  }
  return oldest;
}
