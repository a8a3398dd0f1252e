/*
 * utf8.h: making text valid UTF-8 before it goes into a report.
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

#endif
