/*
 * escape.h: how strings from a system under test become safe text in OCK's reports.
 *
 * Every string a report shows (an event detail, a SUT's stdout, a tool's output, a check's
 * "actual") may come from the orchestrator under test or from the mock, and may contain
 * anything: markup such as `<script>`, quotes that close an attribute, a CDATA end `]]>`,
 * terminal escape codes, bytes that are not UTF-8. The report writers (JUnit XML, HTML with
 * inline SVG, Markdown) never copy such a string directly: they append it through one of these
 * functions into an ock_buf, and what comes out is well-formed, renders as the literal text,
 * and is valid UTF-8.
 *
 * Shared rules: bytes that are not valid UTF-8 (including overlong forms, surrogates and code
 * points past U+10FFFF) become U+FFFD, one per bad byte; so do control characters other than
 * tab, LF and CR, DEL, and the noncharacters U+FFFE/U+FFFF (which XML forbids). `limit` > 0
 * shows at most that many characters (code points) and then appends "…"; 0 shows all. A NULL
 * string appends nothing. Each function returns OCK_OK, OCK_ETOOBIG past the buffer's cap or
 * OCK_ENOMEM; a failed call leaves the buffer dead, as any failed append does (buf.h).
 */
#ifndef OCK_ESCAPE_H
#define OCK_ESCAPE_H

#include <stddef.h>

#include "ock/buf.h"

/* What replaces a byte or character that cannot be shown. */
#define OCK_ESCAPE_REPLACEMENT "\xEF\xBF\xBD" /* U+FFFD */
/* What marks text cut at `limit`. */
#define OCK_ESCAPE_ELLIPSIS "\xE2\x80\xA6" /* U+2026 */

enum ock_escape_flags {
  OCK_ESC_TEXT = 0,   /* element content: tab, LF and CR are kept as they are */
  OCK_ESC_ATTR = 1,   /* attribute value: tab, LF and CR become &#9; &#10; &#13; so a parser
                         keeps them instead of normalising them to spaces */
  OCK_ESC_ONELINE = 2 /* tab, LF and CR become one space each (labels, one-line messages) */
};

/* ock_escape_xml appends s as XML 1.0 / HTML text that is safe both as element content and
 * inside a single- or double-quoted attribute value (also in inline SVG): & < > " ' become
 * &amp; &lt; &gt; &quot; &#39;. flags is one of enum ock_escape_flags. */
int ock_escape_xml(struct ock_buf *out, const char *s, size_t limit, unsigned flags);

/* ock_escape_markdown appends s as one line of GitHub-flavoured Markdown that renders as the
 * literal text, also inside a table cell: \ ` * _ [ ] | ~ $ get a backslash, & < > become
 * &amp; &lt; &gt; (so no HTML gets through), and tab, LF and CR become spaces. */
int ock_escape_markdown(struct ock_buf *out, const char *s, size_t limit);

/* ock_escape_terminal writes s into out (n bytes, always NUL-terminated) as text safe to print
 * on a terminal or in a CI log: control characters (C0 but none kept, DEL, and C1 U+0080 to
 * U+009F, which start escape sequences such as clear-screen or a window title) become \xNN or
 * \u00NN, and bytes that are not UTF-8 become \xNN, so the bytes stay readable. Text that does
 * not fit ends with "...". Returns out. */
char *ock_escape_terminal(char *out, size_t n, const char *s);

/* ock_utf8_valid: 1 when the n bytes at s are valid UTF-8 by the rules above (no replacement
 * would be needed for bad encoding), else 0. Control characters do not make it invalid. */
int ock_utf8_valid(const char *s, size_t n);

#endif
