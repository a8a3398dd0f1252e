/*
 * utf8.h: making text valid UTF-8 before it goes into a report, and telling white space.
 *
 * A SUT's output may be any bytes, and a truncation ("%.60s") may cut a character in two;
 * JSON, XML and HTML readers reject either. Scrubbing replaces every byte that does not
 * belong to a well-formed UTF-8 sequence (overlong forms, surrogates and code points past
 * U+10FFFF included) with '?', in place, so lengths never grow.
 */
#ifndef OCK_UTF8_H
#define OCK_UTF8_H

#include <stddef.h>

/* ock_utf8_scrub rewrites the NUL-terminated s in place; returns the bytes replaced. */
size_t ock_utf8_scrub(char *s);

/* ock_utf8_check: the offset of the first byte of s[0..len) that is not part of a well-formed
 * UTF-8 sequence (a NUL byte is well-formed), or len when there is none. */
size_t ock_utf8_check(const char *s, size_t len);

/* ock_utf8_is_blank: the NUL-terminated UTF-8 s is empty or holds only white space as SPEC.md
 * 5.12 defines it: the Unicode White_Space characters (ASCII space, tab, LF, VT, FF, CR, and
 * U+0085, U+00A0, U+1680, U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000). A byte
 * that is not well-formed UTF-8 is not white space. NULL counts as empty. */
int ock_utf8_is_blank(const char *s);

#endif
