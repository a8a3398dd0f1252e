/*
 * json_scan.h: the plain runs of JSON string bytes, found eight bytes at a time (private to
 * core: the request reader and the JSON writer).
 *
 * A plain byte goes in and out of a JSON string as it is: anything but '"', '\\' and the
 * control characters below 0x20 (bytes from 0x80 up are UTF-8, also plain). Requests and
 * journal lines are mostly such bytes, so both the reader and the writer skip them a word at a
 * time instead of a byte at a time.
 */
#ifndef OCK_JSON_SCAN_H
#define OCK_JSON_SCAN_H

#include <stdint.h>
#include <string.h>

/* ock__special8: a mask with the high bit of each byte of v that ends a plain run set. Bytes
 * after the first such byte may be marked wrongly (a borrow runs on), the first never is, so
 * the lowest set bit finds it exactly. */
static inline uint64_t ock__special8(uint64_t v) {
  const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
  uint64_t quote = v ^ (ones * '"'), backslash = v ^ (ones * '\\');
  return ((quote - ones) & ~quote & highs) | ((backslash - ones) & ~backslash & highs) |
         ((v - ones * 0x20) & ~v & highs);
}

/* ock__plain_run: the first byte in [p, end) that is not plain, or end when there is none. */
static inline const char *ock__plain_run(const char *p, const char *end) {
  uint64_t v;
  while (end - p >= 8) {
    memcpy(&v, p, 8);
    uint64_t mask = ock__special8(v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (mask)
      return p + (__builtin_ctzll(mask) >> 3); /* the first byte in memory is the lowest */
#else
    if (mask)
      break;
#endif
    p += 8;
  }
  while (p < end && (unsigned char)*p >= 0x20 && *p != '"' && *p != '\\')
    p++;
  return p;
}

#endif
