/* test_utf8.c: the scrubber keeps valid text and replaces exactly the bytes that are not. */
#include "runner.h"

#include "ock/utf8.h"

static void keeps_valid_text(void) {
  char s[] = "plain, Zürich, 日本語, emoji \xF0\x9F\x98\x80";
  OCK_ASSERT_INT_EQ(ock_utf8_scrub(s), 0);
  OCK_ASSERT_STR_EQ(s, "plain, Zürich, 日本語, emoji \xF0\x9F\x98\x80");
}

static void replaces_broken_bytes(void) {
  static const struct {
    const char *in, *out;
    int replaced;
  } cases[] = {
      {"cut \xE6\x97", "cut ??", 2},   /* a character cut in two at the end */
      {"a\xC3(b", "a?(b", 1},          /* a lead byte without its continuation */
      {"\xC0\xAF", "??", 2},           /* an overlong '/' */
      {"\xED\xA0\x80", "???", 3},      /* a surrogate */
      {"\xF4\x90\x80\x80", "????", 4}, /* past U+10FFFF */
      {"\xFF\xFE ok", "?? ok", 2},     /* bytes that never start a character */
      {"\x80 lone continuation", "? lone continuation", 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char s[64];
    snprintf(s, sizeof s, "%s", cases[i].in);
    OCK_ASSERT_INT_EQ(ock_utf8_scrub(s), cases[i].replaced);
    OCK_ASSERT_STR_EQ(s, cases[i].out);
  }
}

static void tells_white_space(void) {
  OCK_ASSERT_TRUE(ock_utf8_is_blank(""));
  OCK_ASSERT_TRUE(ock_utf8_is_blank(NULL));
  OCK_ASSERT_TRUE(ock_utf8_is_blank(" \t\r\n\v\f"));
  OCK_ASSERT_TRUE(ock_utf8_is_blank("\xC2\xA0\xE3\x80\x80")); /* U+00A0, U+3000 */
  OCK_ASSERT_TRUE(ock_utf8_is_blank("\xE2\x80\x80\xE2\x80\x8A\xE2\x80\xAF\xC2\x85"));
  OCK_ASSERT_INT_EQ(ock_utf8_is_blank("\xE2\x80\x8B"), 0); /* U+200B is not White_Space */
  OCK_ASSERT_INT_EQ(ock_utf8_is_blank(" \xC2\xA0x"), 0);
  OCK_ASSERT_INT_EQ(ock_utf8_is_blank("\xA0"), 0); /* a lone byte, not U+00A0 */
}

static void finds_the_first_bad_byte(void) {
  OCK_ASSERT_INT_EQ((int)ock_utf8_check("caf\xC3\xA9", 5), 5);
  OCK_ASSERT_INT_EQ((int)ock_utf8_check("caf\xE9!", 5), 3);
  OCK_ASSERT_INT_EQ((int)ock_utf8_check("a\0b", 3), 3);         /* NUL is text */
  OCK_ASSERT_INT_EQ((int)ock_utf8_check("ab\xE6\x97", 4), 2);   /* cut at the end */
  OCK_ASSERT_INT_EQ((int)ock_utf8_check("\xED\xA0\x80", 3), 0); /* a surrogate */
  OCK_ASSERT_INT_EQ((int)ock_utf8_check("\xE6\x97\xA5", 2), 0); /* the length is the end */
}

static const struct ock_test tests[] = {{"finds_the_first_bad_byte", finds_the_first_bad_byte},
                                        {"keeps_valid_text", keeps_valid_text},
                                        {"replaces_broken_bytes", replaces_broken_bytes},
                                        {"tells_white_space", tells_white_space},
                                        {NULL, NULL}};
const struct ock_suite suite_utf8 = {"utf8", tests, NULL, NULL};
