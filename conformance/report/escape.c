/*
 * escape.c: the escaping of escape.h, used by every report writer.
 *
 * Both escapers walk the string one UTF-8 character at a time with a strict decoder, so a bad
 * byte is replaced on its own and the text after it survives. Each appends into the caller's
 * capped buffer and, on failure, truncates it back to where it started.
 */
#include "report/escape.h"

#include <stdio.h>
#include <string.h>

#include "ock/status.h"

/* utf8_next decodes the character at s (n > 0 bytes left). Returns its length in bytes and
 * sets *cp, or returns 0 when the bytes at s are not a valid UTF-8 sequence. */
static size_t utf8_next(const unsigned char *s, size_t n, unsigned *cp) {
  unsigned c = s[0];
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  size_t len;
  unsigned lo = 0x80, hi = 0xBF, v;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
    v = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    v = c & 0x0F;
    if (c == 0xE0)
      lo = 0xA0; /* overlong */
    if (c == 0xED)
      hi = 0x9F; /* surrogates */
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    v = c & 0x07;
    if (c == 0xF0)
      lo = 0x90; /* overlong */
    if (c == 0xF4)
      hi = 0x8F; /* past U+10FFFF */
  } else {
    return 0;
  }
  if (n < len)
    return 0;
  for (size_t i = 1; i < len; i++) {
    unsigned b = s[i];
    if (b < (i == 1 ? lo : 0x80) || b > (i == 1 ? hi : 0xBF))
      return 0;
    v = (v << 6) | (b & 0x3F);
  }
  *cp = v;
  return len;
}

int ock_utf8_valid(const char *s, size_t n) {
  const unsigned char *p = (const unsigned char *)s;
  while (n) {
    unsigned cp;
    size_t k = utf8_next(p, n, &cp);
    if (!k)
      return 0;
    p += k;
    n -= k;
  }
  return 1;
}

/* shown: 1 when the character may appear as it is (before markup escaping). */
static int shown(unsigned cp) {
  if (cp == '\t' || cp == '\n' || cp == '\r')
    return 1;
  if (cp < 0x20 || cp == 0x7F || cp == 0xFFFE || cp == 0xFFFF)
    return 0;
  return 1;
}

enum syntax { XML, MARKDOWN };

/* escape_one appends the escaped form of one valid character (bytes p[0..k)). */
static int escape_one(struct ock_buf *out, enum syntax syn, unsigned flags, unsigned cp,
                      const char *p, size_t k) {
  if (!shown(cp))
    return ock_buf_puts(out, OCK_ESCAPE_REPLACEMENT);
  if (cp == '\t' || cp == '\n' || cp == '\r') {
    if (syn == MARKDOWN || (flags & OCK_ESC_ONELINE))
      return ock_buf_puts(out, " ");
    if (flags & OCK_ESC_ATTR)
      return ock_buf_puts(out, cp == '\t' ? "&#9;" : cp == '\n' ? "&#10;" : "&#13;");
    return ock_buf_append(out, p, k);
  }
  switch (cp) {
  case '&':
    return ock_buf_puts(out, "&amp;");
  case '<':
    return ock_buf_puts(out, "&lt;");
  case '>':
    return ock_buf_puts(out, "&gt;");
  default:
    break;
  }
  if (syn == XML) {
    if (cp == '"')
      return ock_buf_puts(out, "&quot;");
    if (cp == '\'')
      return ock_buf_puts(out, "&#39;");
  } else if (cp < 0x80 && strchr("\\`*_[]|~$", (int)cp)) {
    char pair[2] = {'\\', (char)cp};
    return ock_buf_append(out, pair, 2);
  }
  return ock_buf_append(out, p, k);
}

/* verbatim: 1 when the byte c is a character that goes out as it is in this syntax (the
 * common case, copied in runs; everything else goes through escape_one). */
static int verbatim(unsigned char c, enum syntax syn) {
  if (c < 0x20 || c >= 0x7F || c == '&' || c == '<' || c == '>')
    return 0;
  if (syn == XML)
    return c != '"' && c != '\'';
  return !strchr("\\`*_[]|~$", c);
}

static int escape(struct ock_buf *out, const char *s, size_t limit, enum syntax syn,
                  unsigned flags) {
  if (!s)
    return OCK_OK;
  size_t n = strlen(s), chars = 0;
  const unsigned char *p = (const unsigned char *)s;
  int rc = OCK_OK;
  while (n && !rc) {
    size_t run = 0;
    while (run < n && (!limit || chars + run < limit) && verbatim(p[run], syn))
      run++;
    if (run) {
      rc = ock_buf_append(out, p, run);
      p += run;
      n -= run;
      chars += run;
      continue;
    }
    if (limit && chars == limit) {
      rc = ock_buf_puts(out, OCK_ESCAPE_ELLIPSIS);
      break;
    }
    unsigned cp = 0;
    size_t k = utf8_next(p, n, &cp);
    if (k)
      rc = escape_one(out, syn, flags, cp, (const char *)p, k);
    else
      rc = ock_buf_puts(out, OCK_ESCAPE_REPLACEMENT);
    k = k ? k : 1;
    p += k;
    n -= k;
    chars++;
  }
  return rc;
}

int ock_escape_xml(struct ock_buf *out, const char *s, size_t limit, unsigned flags) {
  return escape(out, s, limit, XML, flags);
}

int ock_escape_markdown(struct ock_buf *out, const char *s, size_t limit) {
  return escape(out, s, limit, MARKDOWN, OCK_ESC_ONELINE);
}

char *ock_escape_terminal(char *out, size_t n, const char *s) {
  const unsigned char *p = (const unsigned char *)(s ? s : "");
  size_t used = 0, left = strlen((const char *)p);
  if (n < 4) {
    if (n)
      out[0] = '\0';
    return out;
  }
  while (left) {
    unsigned cp = 0;
    size_t k = utf8_next(p, left, &cp);
    char piece[8];
    size_t len;
    if (!k) {
      snprintf(piece, sizeof piece, "\\x%02x", *p);
      len = 4, k = 1;
    } else if (cp < 0x20 || cp == 0x7F) {
      snprintf(piece, sizeof piece, "\\x%02x", cp);
      len = 4;
    } else if (cp >= 0x80 && cp <= 0x9F) {
      snprintf(piece, sizeof piece, "\\u%04x", cp);
      len = 6;
    } else {
      memcpy(piece, p, k);
      len = k;
    }
    if (used + len + 4 > n) { /* room for "..." and the NUL */
      memcpy(out + used, "...", 3);
      used += 3;
      break;
    }
    memcpy(out + used, piece, len);
    used += len;
    p += k;
    left -= k;
  }
  out[used] = '\0';
  return out;
}
