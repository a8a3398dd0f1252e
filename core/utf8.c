/* utf8.c: the UTF-8 scrubber and the white-space test of utf8.h. */
#include "ock/utf8.h"

/* seq_len: the length of the well-formed sequence starting at p, or 0. */
static size_t seq_len(const unsigned char *p) {
  unsigned char c = p[0];
  if (c < 0x80)
    return 1;
  size_t n;
  unsigned lo = 0x80, hi = 0xBF; /* the allowed range of the second byte */
  if (c >= 0xC2 && c <= 0xDF)
    n = 2;
  else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0)
      lo = 0xA0; /* no overlong forms */
    if (c == 0xED)
      hi = 0x9F; /* no surrogates */
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0)
      lo = 0x90;
    if (c == 0xF4)
      hi = 0x8F; /* nothing past U+10FFFF */
  } else {
    return 0;
  }
  if (p[1] < lo || p[1] > hi)
    return 0;
  for (size_t i = 2; i < n; i++)
    if (p[i] < 0x80 || p[i] > 0xBF)
      return 0;
  return n;
}

size_t ock_utf8_scrub(char *s) {
  size_t replaced = 0;
  unsigned char *p = (unsigned char *)s;
  while (p && *p) {
    size_t n = seq_len(p);
    if (n) {
      p += n;
    } else {
      *p++ = '?';
      replaced++;
    }
  }
  return replaced;
}

size_t ock_utf8_check(const char *s, size_t len) {
  const unsigned char *p = (const unsigned char *)s;
  size_t i = 0;
  while (i < len) {
    if (p[i] < 0x80) {
      i++;
      continue;
    }
    /* seq_len reads up to four bytes and stops at a NUL: give it a padded copy at the end. */
    unsigned char seq[5] = {0};
    for (size_t k = 0; k < 4 && i + k < len; k++)
      seq[k] = p[i + k];
    size_t n = seq_len(seq);
    if (!n)
      return i;
    i += n;
  }
  return len;
}

/* is_space_code: the code point has the Unicode White_Space property. */
static int is_space_code(unsigned long c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
         c == 0x3000;
}

int ock_utf8_is_blank(const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  while (p && *p) {
    size_t n = seq_len(p);
    if (n == 0)
      return 0;
    unsigned long c = n == 1 ? p[0] : (unsigned long)(p[0] & (0x7F >> n));
    for (size_t i = 1; i < n; i++)
      c = (c << 6) | (p[i] & 0x3F);
    if (!is_space_code(c))
      return 0;
    p += n;
  }
  return 1;
}
