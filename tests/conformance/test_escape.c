/*
 * test_escape.c: the escaping every report writer relies on (conformance/escape.h), fed with
 * injection payloads: markup, quotes, a CDATA end, control bytes, invalid UTF-8, Markdown
 * table breakers. The last tests push every byte value and a pseudo-random byte soup through
 * both escapers and check what must hold for any input: valid UTF-8 out, no markup through.
 */
#include <stdlib.h>
#include <string.h>

#include "report/escape.h"
#include "ock/status.h"
#include "runner.h"

#define R OCK_ESCAPE_REPLACEMENT
#define ELL OCK_ESCAPE_ELLIPSIS

/* xml returns the escaped form in a static buffer (tests only). */
static const char *xml(const char *s, size_t limit, unsigned flags) {
  static char out[4096];
  struct ock_buf b;
  ock_buf_init(&b, sizeof out - 1);
  int rc = ock_escape_xml(&b, s, limit, flags);
  snprintf(out, sizeof out, "%s", rc ? "(error)" : b.data ? b.data : "");
  ock_buf_free(&b);
  return out;
}

static const char *md(const char *s, size_t limit) {
  static char out[4096];
  struct ock_buf b;
  ock_buf_init(&b, sizeof out - 1);
  int rc = ock_escape_markdown(&b, s, limit);
  snprintf(out, sizeof out, "%s", rc ? "(error)" : b.data ? b.data : "");
  ock_buf_free(&b);
  return out;
}

static void test_xml_script_tag(void) {
  OCK_ASSERT_STR_EQ(xml("<script>alert(1)</script>", 0, OCK_ESC_TEXT),
                    "&lt;script&gt;alert(1)&lt;/script&gt;");
  OCK_ASSERT_STR_EQ(xml("<img src=x onerror=alert(1)>", 0, OCK_ESC_ATTR),
                    "&lt;img src=x onerror=alert(1)&gt;");
}

static void test_xml_quotes_and_amp(void) {
  OCK_ASSERT_STR_EQ(xml("a\"b'c&d", 0, OCK_ESC_ATTR), "a&quot;b&#39;c&amp;d");
  OCK_ASSERT_STR_EQ(xml("\" onmouseover=\"alert(1)", 0, OCK_ESC_ATTR),
                    "&quot; onmouseover=&quot;alert(1)");
  /* An entity in the input is text, not an entity. */
  OCK_ASSERT_STR_EQ(xml("&lt;", 0, OCK_ESC_TEXT), "&amp;lt;");
}

static void test_xml_cdata_end(void) {
  OCK_ASSERT_STR_EQ(xml("]]>", 0, OCK_ESC_TEXT), "]]&gt;");
  OCK_ASSERT_STR_EQ(xml("<![CDATA[x]]>", 0, OCK_ESC_TEXT), "&lt;![CDATA[x]]&gt;");
}

static void test_xml_control_bytes(void) {
  OCK_ASSERT_STR_EQ(xml("a\x01"
                        "b\x1b[31m\x7f"
                        "c",
                        0, OCK_ESC_TEXT),
                    "a" R "b" R "[31m" R "c");
  OCK_ASSERT_STR_EQ(xml("l1\nl2\tx\r", 0, OCK_ESC_TEXT), "l1\nl2\tx\r");
  OCK_ASSERT_STR_EQ(xml("l1\nl2\tx\r", 0, OCK_ESC_ATTR), "l1&#10;l2&#9;x&#13;");
  OCK_ASSERT_STR_EQ(xml("l1\nl2\tx\r", 0, OCK_ESC_ONELINE), "l1 l2 x ");
  /* U+FFFE and U+FFFF are not XML characters. */
  OCK_ASSERT_STR_EQ(xml("a\xEF\xBF\xBE"
                        "b\xEF\xBF\xBF",
                        0, OCK_ESC_TEXT),
                    "a" R "b" R);
}

static void test_xml_invalid_utf8(void) {
  OCK_ASSERT_STR_EQ(xml("a\xff"
                        "b",
                        0, OCK_ESC_TEXT),
                    "a" R "b");
  OCK_ASSERT_STR_EQ(xml("\xc3\x28", 0, OCK_ESC_TEXT), R "(");           /* bad continuation */
  OCK_ASSERT_STR_EQ(xml("\xc0\xaf", 0, OCK_ESC_TEXT), R R);             /* overlong '/' */
  OCK_ASSERT_STR_EQ(xml("\xe0\x80\xaf", 0, OCK_ESC_TEXT), R R R);       /* overlong */
  OCK_ASSERT_STR_EQ(xml("\xed\xa0\x80", 0, OCK_ESC_TEXT), R R R);       /* surrogate */
  OCK_ASSERT_STR_EQ(xml("\xf4\x90\x80\x80", 0, OCK_ESC_TEXT), R R R R); /* > U+10FFFF */
  OCK_ASSERT_STR_EQ(xml("x\xe2\x82", 0, OCK_ESC_TEXT), "x" R R);        /* cut short */
  /* Valid multi-byte text passes unchanged: é € 😀 */
  OCK_ASSERT_STR_EQ(xml("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 0, OCK_ESC_TEXT),
                    "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
}

static void test_limit_counts_characters(void) {
  OCK_ASSERT_STR_EQ(xml("abcdef", 3, OCK_ESC_TEXT), "abc" ELL);
  OCK_ASSERT_STR_EQ(xml("abc", 3, OCK_ESC_TEXT), "abc");
  OCK_ASSERT_STR_EQ(xml("\xc3\xa9\xc3\xa9\xc3\xa9", 2, OCK_ESC_TEXT), "\xc3\xa9\xc3\xa9" ELL);
  /* An escaped character counts once, and is never cut in the middle of its entity. */
  OCK_ASSERT_STR_EQ(xml("<<<<", 2, OCK_ESC_TEXT), "&lt;&lt;" ELL);
  OCK_ASSERT_STR_EQ(md("||||", 2), "\\|\\|" ELL);
}

static void test_null_and_empty(void) {
  OCK_ASSERT_STR_EQ(xml(NULL, 0, OCK_ESC_TEXT), "");
  OCK_ASSERT_STR_EQ(xml("", 0, OCK_ESC_TEXT), "");
  OCK_ASSERT_STR_EQ(md(NULL, 0), "");
}

static void test_markdown_table_breakers(void) {
  OCK_ASSERT_STR_EQ(md("a | b", 0), "a \\| b");
  OCK_ASSERT_STR_EQ(md("`code` ``x``", 0), "\\`code\\` \\`\\`x\\`\\`");
  OCK_ASSERT_STR_EQ(md("*b* _i_ ~s~ $m$", 0), "\\*b\\* \\_i\\_ \\~s\\~ \\$m\\$");
  OCK_ASSERT_STR_EQ(md("[x](javascript:alert(1))", 0), "\\[x\\](javascript:alert(1))");
  OCK_ASSERT_STR_EQ(md("back\\slash", 0), "back\\\\slash");
  OCK_ASSERT_STR_EQ(md("line1\nline2\r\n| row |", 0), "line1 line2  \\| row \\|");
}

static void test_markdown_no_html(void) {
  OCK_ASSERT_STR_EQ(md("<script>alert(1)</script>", 0), "&lt;script&gt;alert(1)&lt;/script&gt;");
  OCK_ASSERT_STR_EQ(md("a & b", 0), "a &amp; b");
  OCK_ASSERT_STR_EQ(md("bell\x07"
                       "\xff",
                       0),
                    "bell" R R);
}

/* A failed escape fails closed, as every ock_buf append: no half-escaped text is left. */
static void test_failure_fails_closed(void) {
  struct ock_buf b;
  ock_buf_init(&b, 16);
  OCK_ASSERT_OK(ock_buf_puts(&b, "keep"));
  OCK_ASSERT_INT_EQ(ock_escape_xml(&b, "<<<<<<<<<<", 0, OCK_ESC_TEXT), OCK_ETOOBIG);
  OCK_ASSERT_NULL(b.data);
  OCK_ASSERT_INT_EQ(b.len, 0);
  OCK_ASSERT_INT_EQ(ock_escape_markdown(&b, "|", 0), OCK_ETOOBIG);
  ock_buf_reset(&b);
  OCK_ASSERT_INT_EQ(ock_escape_markdown(&b, "||||||||||||", 0), OCK_ETOOBIG);
  OCK_ASSERT_NULL(b.data);
  ock_buf_free(&b);
}

static void test_utf8_valid(void) {
  OCK_ASSERT_TRUE(ock_utf8_valid("plain", 5));
  OCK_ASSERT_TRUE(ock_utf8_valid("\xf0\x9f\x98\x80", 4));
  OCK_ASSERT_INT_EQ(ock_utf8_valid("\xf0\x9f\x98", 3), 0);
  OCK_ASSERT_INT_EQ(ock_utf8_valid("\xed\xbf\xbf", 3), 0);
  OCK_ASSERT_TRUE(ock_utf8_valid("\x01", 1)); /* a control character is still UTF-8 */
}

/* assert_safe: what must hold for any escaped output. */
static void assert_safe(const char *out, size_t len, int markdown) {
  int bad = !ock_utf8_valid(out, len);
  for (size_t i = 0; i < len && !bad; i++) {
    unsigned char c = (unsigned char)out[i];
    bad = c == '<' || c == '>' || (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f;
    if (!markdown)
      bad |= c == '"' || c == '\'';
    else
      bad |= c == '\n' || c == '\r' || (c == '|' && (i == 0 || out[i - 1] != '\\'));
  }
  if (bad)
    ock_test_fail(__LINE__, __FILE__, "unsafe output (%s): \"%.200s\"",
                  markdown ? "markdown" : "xml", out);
  else
    CU_PASS("safe");
}

static void test_every_byte_value(void) {
  for (int c = 1; c < 256; c++) {
    char in[4] = {'a', (char)c, 'b', 0};
    struct ock_buf b;
    ock_buf_init(&b, 64);
    OCK_ASSERT_OK(ock_escape_xml(&b, in, 0, OCK_ESC_ATTR));
    assert_safe(b.data, b.len, 0);
    ock_buf_reset(&b);
    OCK_ASSERT_OK(ock_escape_markdown(&b, in, 0));
    assert_safe(b.data, b.len, 1);
    ock_buf_free(&b);
  }
}

static void test_random_byte_soup(void) {
  enum { N = 20000 };
  char *in = malloc(N + 1);
  unsigned x = 12345;
  for (int i = 0; i < N; i++) {
    x = x * 1103515245u + 12345u;
    in[i] = (char)((x >> 16) & 0xff);
    if (!in[i])
      in[i] = '<';
  }
  in[N] = '\0';
  struct ock_buf b;
  ock_buf_init(&b, (size_t)N * 8);
  OCK_ASSERT_OK(ock_escape_xml(&b, in, 0, OCK_ESC_TEXT));
  assert_safe(b.data, b.len, 0);
  ock_buf_reset(&b);
  OCK_ASSERT_OK(ock_escape_markdown(&b, in, 0));
  assert_safe(b.data, b.len, 1);
  ock_buf_free(&b);
  free(in);
}

/* Terminal text: escape sequences (C0 and C1), DEL and bad bytes become visible \x / \u
 * escapes; ordinary UTF-8 is kept; a cut ends with "...". */
static void test_terminal_escapes_controls(void) {
  char out[64];
  OCK_ASSERT_STR_EQ(ock_escape_terminal(out, sizeof out, "a\033]0;t\007\033[2Jz"),
                    "a\\x1b]0;t\\x07\\x1b[2Jz");
  OCK_ASSERT_STR_EQ(ock_escape_terminal(out, sizeof out,
                                        "\xc2\x9b"
                                        "31m\x7f\xff"),
                    "\\u009b31m\\x7f\\xff");
  OCK_ASSERT_STR_EQ(ock_escape_terminal(out, sizeof out, "caf\xc3\xa9\n"), "caf\xc3\xa9\\x0a");
  OCK_ASSERT_STR_EQ(ock_escape_terminal(out, 10, "abcdefghijkl"), "abcdef...");
  OCK_ASSERT_STR_EQ(ock_escape_terminal(out, sizeof out, NULL), "");
}

static const struct ock_test tests[] = {
    {"terminal_escapes_controls", test_terminal_escapes_controls},
    {"xml_script_tag", test_xml_script_tag},
    {"xml_quotes_and_amp", test_xml_quotes_and_amp},
    {"xml_cdata_end", test_xml_cdata_end},
    {"xml_control_bytes", test_xml_control_bytes},
    {"xml_invalid_utf8", test_xml_invalid_utf8},
    {"limit_counts_characters", test_limit_counts_characters},
    {"null_and_empty", test_null_and_empty},
    {"markdown_table_breakers", test_markdown_table_breakers},
    {"markdown_no_html", test_markdown_no_html},
    {"failure_fails_closed", test_failure_fails_closed},
    {"utf8_valid", test_utf8_valid},
    {"every_byte_value", test_every_byte_value},
    {"random_byte_soup", test_random_byte_soup},
    {NULL, NULL}};

const struct ock_suite suite_escape = {"escape", tests, NULL, NULL};
