/* test_buf.c: the capped buffer keeps its cap and its NUL, and fails closed: a failed append
 * frees it and every later append fails the same way until reset or free. */
#include "runner.h"

#include <stdint.h>
#include <stdlib.h>
#include <wchar.h>

#include "ock/buf.h"
#include "ock/status.h"

static void appends_and_terminates(void) {
  struct ock_buf b;
  ock_buf_init(&b, 100);
  OCK_ASSERT_OK(ock_buf_puts(&b, "abc"));
  OCK_ASSERT_OK(ock_buf_printf(&b, "-%d-", 42));
  OCK_ASSERT_STR_EQ(b.data, "abc-42-");
  OCK_ASSERT_INT_EQ(b.len, 7);
  ock_buf_free(&b);
}

static void refuses_past_cap_and_frees(void) {
  struct ock_buf b;
  ock_buf_init(&b, 8);
  OCK_ASSERT_OK(ock_buf_puts(&b, "12345678"));
  OCK_ASSERT_INT_EQ(ock_buf_puts(&b, "9"), OCK_ETOOBIG);
  OCK_ASSERT_NULL(b.data); /* no half-written text is left to be mistaken for a whole one */
  OCK_ASSERT_INT_EQ(b.len, 0);
  OCK_ASSERT_INT_EQ(b.err, OCK_ETOOBIG);
  ock_buf_free(&b);
}

/* Once dead, every append fails with the first failure's status, even one that would fit. */
static void dead_fails_every_append_the_same_way(void) {
  struct ock_buf b;
  ock_buf_init(&b, 8);
  OCK_ASSERT_INT_EQ(ock_buf_puts(&b, "123456789"), OCK_ETOOBIG);
  OCK_ASSERT_INT_EQ(ock_buf_append(&b, "x", 1), OCK_ETOOBIG);
  OCK_ASSERT_INT_EQ(ock_buf_append(&b, "", 0), OCK_ETOOBIG);
  OCK_ASSERT_INT_EQ(ock_buf_puts(&b, "x"), OCK_ETOOBIG);
  OCK_ASSERT_INT_EQ(ock_buf_printf(&b, "%d", 1), OCK_ETOOBIG);
  OCK_ASSERT_INT_EQ(ock_buf_reserve(&b, 1), OCK_ETOOBIG);
  OCK_ASSERT_NULL(b.data);
  OCK_ASSERT_INT_EQ(b.len, 0);
  ock_buf_free(&b);
}

/* The writer's idiom: append every piece, check once; |= gives exactly the first failure. */
static void check_once_gives_the_first_failure(void) {
  struct ock_buf b;
  ock_buf_init(&b, 10);
  int rc = ock_buf_puts(&b, "abc");
  rc |= ock_buf_puts(&b, "defgh");
  OCK_ASSERT_OK(rc);
  rc |= ock_buf_puts(&b, "ijk"); /* past the cap */
  rc |= ock_buf_puts(&b, "l");
  rc |= ock_buf_printf(&b, "%s", "m");
  OCK_ASSERT_INT_EQ(rc, OCK_ETOOBIG);
  ock_buf_free(&b);
}

/* Out of memory fails closed too, with its own status. */
static void out_of_memory_frees_and_stays_dead(void) {
  struct ock_buf b;
  ock_buf_init(&b, SIZE_MAX);
  OCK_ASSERT_OK(ock_buf_puts(&b, "kept until the failure"));
  OCK_ASSERT_INT_EQ(ock_buf_reserve(&b, SIZE_MAX / 2), OCK_ENOMEM); /* no allocator has that */
  OCK_ASSERT_NULL(b.data);
  OCK_ASSERT_INT_EQ(ock_buf_puts(&b, "x"), OCK_ENOMEM);
  ock_buf_free(&b);
}

/* A format that cannot be rendered (a wide character the C locale cannot encode) kills the
 * buffer as well. */
static void unrenderable_format_fails_closed(void) {
  struct ock_buf b;
  ock_buf_init(&b, 100);
  OCK_ASSERT_OK(ock_buf_puts(&b, "before"));
  static const wchar_t wide[] = {0x20ac, 0};
  OCK_ASSERT_INT_EQ(ock_buf_printf(&b, "%ls", wide), OCK_EINVAL);
  OCK_ASSERT_NULL(b.data);
  OCK_ASSERT_INT_EQ(ock_buf_puts(&b, "x"), OCK_EINVAL);
  ock_buf_free(&b);
}

/* take hands out no text from a dead buffer, and leaves it live and empty. */
static void take_refuses_a_dead_buffer(void) {
  struct ock_buf b;
  ock_buf_init(&b, 4);
  OCK_ASSERT_INT_EQ(ock_buf_puts(&b, "12345"), OCK_ETOOBIG);
  OCK_ASSERT_NULL(ock_buf_take(&b));
  OCK_ASSERT_OK(ock_buf_puts(&b, "ok"));
  char *s = ock_buf_take(&b);
  OCK_ASSERT_STR_EQ(s, "ok");
  free(s);
}

/* reset and free start a new text: the buffer is live again, with the same cap. */
static void reset_and_free_revive(void) {
  struct ock_buf b;
  ock_buf_init(&b, 4);
  OCK_ASSERT_INT_EQ(ock_buf_puts(&b, "12345"), OCK_ETOOBIG);
  ock_buf_reset(&b);
  OCK_ASSERT_OK(ock_buf_puts(&b, "1234"));
  OCK_ASSERT_STR_EQ(b.data, "1234");
  OCK_ASSERT_INT_EQ(ock_buf_puts(&b, "5"), OCK_ETOOBIG);
  ock_buf_free(&b);
  OCK_ASSERT_OK(ock_buf_puts(&b, "abcd"));
  OCK_ASSERT_STR_EQ(b.data, "abcd");
  OCK_ASSERT_INT_EQ(ock_buf_puts(&b, "e"), OCK_ETOOBIG);
  ock_buf_free(&b);
}

static void take_detaches(void) {
  struct ock_buf b;
  ock_buf_init(&b, 100);
  char *empty = ock_buf_take(&b);
  OCK_ASSERT_STR_EQ(empty, "");
  free(empty);
  OCK_ASSERT_OK(ock_buf_puts(&b, "hello"));
  char *s = ock_buf_take(&b);
  OCK_ASSERT_STR_EQ(s, "hello");
  OCK_ASSERT_INT_EQ(b.len, 0);
  OCK_ASSERT_NULL(b.data);
  free(s);
}

static void grows_across_many_appends(void) {
  struct ock_buf b;
  ock_buf_init(&b, 1 << 20);
  for (int i = 0; i < 10000; i++)
    OCK_ASSERT_OK(ock_buf_append(&b, "0123456789", 10));
  OCK_ASSERT_INT_EQ(b.len, 100000);
  OCK_ASSERT_INT_EQ(b.data[99999], '9');
  ock_buf_reset(&b);
  OCK_ASSERT_INT_EQ(b.len, 0);
  OCK_ASSERT_STR_EQ(b.data, "");
  ock_buf_free(&b);
}

static const struct ock_test tests[] = {
    {"appends_and_terminates", appends_and_terminates},
    {"refuses_past_cap_and_frees", refuses_past_cap_and_frees},
    {"dead_fails_every_append_the_same_way", dead_fails_every_append_the_same_way},
    {"check_once_gives_the_first_failure", check_once_gives_the_first_failure},
    {"out_of_memory_frees_and_stays_dead", out_of_memory_frees_and_stays_dead},
    {"unrenderable_format_fails_closed", unrenderable_format_fails_closed},
    {"take_refuses_a_dead_buffer", take_refuses_a_dead_buffer},
    {"reset_and_free_revive", reset_and_free_revive},
    {"take_detaches", take_detaches},
    {"grows_across_many_appends", grows_across_many_appends},
    {NULL, NULL}};
const struct ock_suite suite_buf = {"buf", tests, NULL, NULL};
