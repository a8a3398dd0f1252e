/* test_buf.c: the capped buffer keeps its cap and its NUL. */
#include "runner.h"

#include <stdlib.h>

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

static void refuses_past_cap_and_keeps_content(void) {
  struct ock_buf b;
  ock_buf_init(&b, 8);
  OCK_ASSERT_OK(ock_buf_puts(&b, "12345678"));
  OCK_ASSERT_INT_EQ(ock_buf_puts(&b, "9"), OCK_ETOOBIG);
  OCK_ASSERT_INT_EQ(ock_buf_printf(&b, "%s", "x"), OCK_ETOOBIG);
  OCK_ASSERT_STR_EQ(b.data, "12345678");
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
    {"refuses_past_cap_and_keeps_content", refuses_past_cap_and_keeps_content},
    {"take_detaches", take_detaches},
    {"grows_across_many_appends", grows_across_many_appends},
    {NULL, NULL}};
const struct ock_suite suite_buf = {"buf", tests, NULL, NULL};
