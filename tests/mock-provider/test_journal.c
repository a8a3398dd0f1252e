/* test_journal.c: order, cap and JSONL of the journal (mock-provider/journal.c). */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "journal.h"
#include "ock/json.h"
#include "runner.h"

static void test_entries_are_framed_in_order(void) {
  struct mock_journal *j = NULL;
  OCK_ASSERT_OK(ock__journal_new(10, 1 << 20, &j));
  cJSON *e = cJSON_CreateObject();
  cJSON_AddStringToObject(e, "path", "/ock/v1/session");
  OCK_ASSERT_INT_EQ(ock__journal_append(j, "session", e), 1);
  OCK_ASSERT_INT_EQ(ock__journal_append(j, "cancel", NULL), 2);
  cJSON *snap = ock__journal_snapshot(j);
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(snap), 2);
  cJSON *first = cJSON_GetArrayItem(snap, 0);
  OCK_ASSERT_STR_EQ(first->child->string, "seq");
  OCK_ASSERT_STR_EQ(first->child->next->string, "t_ms");
  OCK_ASSERT_STR_EQ(first->child->next->next->string, "kind");
  OCK_ASSERT_STR_EQ(ock_json_str(first, "kind"), "session");
  OCK_ASSERT_STR_EQ(ock_json_str(first, "path"), "/ock/v1/session");
  double t0 = ock_json_num(first, "t_ms", -1);
  double t1 = ock_json_num(cJSON_GetArrayItem(snap, 1), "t_ms", -1);
  OCK_ASSERT_TRUE(t0 >= 0 && t1 >= t0);
  cJSON_Delete(snap);
  ock__journal_free(j);
}

static void test_cap_counts_what_it_drops(void) {
  struct mock_journal *j = NULL;
  OCK_ASSERT_OK(ock__journal_new(3, 1 << 20, &j));
  for (int i = 0; i < 5; i++)
    ock__journal_append(j, "event", NULL);
  cJSON *snap = ock__journal_snapshot(j);
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(snap), 3);
  OCK_ASSERT_INT_EQ(ock__journal_dropped(j), 2);
  cJSON_Delete(snap);
  ock__journal_free(j);
}

static void test_jsonl_one_entry_per_line(void) {
  struct mock_journal *j = NULL;
  OCK_ASSERT_OK(ock__journal_new(10, 1 << 20, &j));
  cJSON *e = cJSON_CreateObject();
  cJSON_AddStringToObject(e, "text", "two\nlines");
  ock__journal_append(j, "event", e);
  ock__journal_append(j, "event", NULL);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  OCK_ASSERT_OK(ock__journal_write(j, f));
  fclose(f);
  int lines = 0;
  for (size_t i = 0; i < len; i++)
    lines += buf[i] == '\n';
  OCK_ASSERT_INT_EQ(lines, 2);
  OCK_ASSERT_CONTAINS(buf, "\"kind\":\"event\",\"text\":\"two\\nlines\"}\n");
  free(buf);
  ock__journal_free(j);
}

static void test_byte_cap(void) {
  struct mock_journal *j = NULL;
  OCK_ASSERT_OK(ock__journal_new(1000, 4096, &j));
  char big[3000];
  memset(big, 'x', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  for (int i = 0; i < 3; i++) {
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "body", big);
    OCK_ASSERT_INT_EQ(ock__journal_append(j, "llm_request", e), i + 1);
  }
  cJSON *snap = ock__journal_snapshot(j);
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(snap), 1);
  OCK_ASSERT_INT_EQ(ock__journal_dropped(j), 2);
  cJSON_Delete(snap);
  ock__journal_free(j);
}

/* select parses only the kinds asked for, exactly: not a kind that starts with the same text,
 * nor one a member's value spells. */
static void test_select_by_kind(void) {
  struct mock_journal *j = NULL;
  OCK_ASSERT_OK(ock__journal_new(10, 1 << 20, &j));
  cJSON *e = cJSON_CreateObject();
  cJSON_AddStringToObject(e, "note", ",\"kind\":\"tool_start\"");
  ock__journal_append(j, "event", e);
  ock__journal_append(j, "tool_start", NULL);
  ock__journal_append(j, "tool_starts", NULL);
  ock__journal_append(j, "llm_reply", NULL);
  ock__journal_append(j, "tool_start", NULL);
  static const char *const kinds[] = {"tool_start", "llm_reply", NULL};
  cJSON *got = ock__journal_select(j, kinds);
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(got), 3);
  static const long long seqs[] = {2, 4, 5};
  for (int i = 0; i < 3; i++)
    OCK_ASSERT_INT_EQ(ock_json_int(cJSON_GetArrayItem(got, i), "seq", 0), seqs[i]);
  cJSON_Delete(got);
  ock__journal_free(j);
}

/* A later entry: its blob is a number n, printed as {"n":n}; prints counts the printing. */
static int prints;

static int print_n(const void *blob, struct ock_buf *out) {
  prints++;
  return ock_buf_printf(out, "{\"n\":%d}", *(const int *)blob);
}

static void test_later_entries_print_when_read(void) {
  struct mock_journal *j = NULL;
  OCK_ASSERT_OK(ock__journal_new(10, 1 << 20, &j));
  prints = 0;
  int n = 41;
  OCK_ASSERT_INT_EQ(ock__journal_append(j, "session", NULL), 1);
  OCK_ASSERT_INT_EQ(
      ock__journal_append_later(j, "llm_request", print_n, &n, sizeof n, "\"turn\":0"), 2);
  n = 42; /* the journal printed from its own copy */
  OCK_ASSERT_INT_EQ(ock__journal_append_later(j, "llm_request", print_n, &n, sizeof n, NULL), 3);
  OCK_ASSERT_INT_EQ(ock__journal_append_text(j, "llm_reply", "{\"status\":200}", NULL), 4);
  OCK_ASSERT_INT_EQ(prints, 0); /* nothing printed on the request's path */
  cJSON *snap = ock__journal_snapshot(j);
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(snap), 4);
  const cJSON *second = cJSON_GetArrayItem(snap, 1);
  OCK_ASSERT_STR_EQ(ock_json_str(second, "kind"), "llm_request");
  OCK_ASSERT_INT_EQ((long long)ock_json_num(second, "seq", -1), 2);
  OCK_ASSERT_INT_EQ((long long)ock_json_num(second, "n", -1), 41);
  OCK_ASSERT_INT_EQ((long long)ock_json_num(second, "turn", -1), 0);
  OCK_ASSERT_STR_EQ(second->child->next->next->next->string, "n"); /* after the frame */
  OCK_ASSERT_INT_EQ((long long)ock_json_num(cJSON_GetArrayItem(snap, 2), "n", -1), 42);
  OCK_ASSERT_INT_EQ(prints, 2);
  cJSON_Delete(snap);
  static const char *const replies[] = {"llm_reply", NULL};
  cJSON *sel = ock__journal_select(j, replies);
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(sel), 1);
  OCK_ASSERT_INT_EQ(prints, 2); /* selecting other kinds prints no later entry */
  cJSON_Delete(sel);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  OCK_ASSERT_OK(ock__journal_write(j, f));
  fclose(f);
  OCK_ASSERT_CONTAINS(buf, "\"kind\":\"llm_request\",\"n\":41,\"turn\":0}\n");
  OCK_ASSERT_CONTAINS(buf, "\"kind\":\"llm_request\",\"n\":42}\n");
  free(buf);
  struct ock_buf text;
  ock_buf_init(&text, 1 << 20);
  OCK_ASSERT_OK(ock__journal_array_text(j, &text));
  OCK_ASSERT_CONTAINS(text.data, "\"n\":41,\"turn\":0},{");
  ock_buf_free(&text);
  ock__journal_free(j);
}

/* A later entry counts against the caps like any other: its copy is what it keeps. */
static void test_later_entries_count_against_the_caps(void) {
  struct mock_journal *j = NULL;
  OCK_ASSERT_OK(ock__journal_new(1000, 4096, &j));
  char big[3000] = {0};
  for (int i = 0; i < 3; i++)
    OCK_ASSERT_INT_EQ(ock__journal_append_later(j, "llm_request", print_n, big, sizeof big, NULL),
                      i + 1);
  cJSON *snap = ock__journal_snapshot(j);
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(snap), 1);
  OCK_ASSERT_INT_EQ(ock__journal_dropped(j), 2);
  cJSON_Delete(snap);
  ock__journal_free(j);
}

/* The heap cJSON holds, counted by its hooks while a test installs them. */
static size_t cjson_live;

static void *counting_malloc(size_t n) {
  void *p = malloc(n);
  cjson_live += p ? malloc_usable_size(p) : 0;
  return p;
}

static void counting_free(void *p) {
  cjson_live -= p ? malloc_usable_size(p) : 0;
  free(p);
}

/* many_zeros: an event whose data is an array of n zeros, its tree some forty times its line. */
static cJSON *many_zeros(int n) {
  cJSON *e = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(e, "data");
  for (int i = 0; i < n; i++)
    cJSON_AddItemToArray(a, cJSON_CreateNumber(0));
  return e;
}

/* Taking the journal counts the trees against the byte cap: of entries whose trees are forty
 * times their lines, only those whose trees fit are parsed, the rest are dropped and counted,
 * and the trees' real heap stays under the cap. The journal is empty afterwards. */
static void test_take_counts_trees_against_the_cap(void) {
  struct mock_journal *j = NULL;
  size_t cap = 1 << 20;
  OCK_ASSERT_OK(ock__journal_new(100000, cap, &j));
  int n = 0;
  while (ock__journal_dropped(j) == 0) { /* fill the lines to the cap */
    OCK_ASSERT_INT_EQ(ock__journal_append(j, "event", many_zeros(2000)), n + 1);
    n++;
  }
  size_t dropped_running = ock__journal_dropped(j);
  cJSON_Hooks hooks = {counting_malloc, counting_free};
  cjson_live = 0;
  cJSON_InitHooks(&hooks);
  cJSON *taken = ock__journal_take(j);
  size_t live = cjson_live;
  int kept = cJSON_GetArraySize(taken);
  OCK_ASSERT_TRUE(taken != NULL);
  cJSON_Delete(taken);
  cJSON_InitHooks(NULL);
  OCK_ASSERT_INT_GT(kept, 0);
  OCK_ASSERT_INT_LT(kept, n - (int)dropped_running); /* some were dropped at the take */
  OCK_ASSERT_INT_EQ(ock__journal_dropped(j), (size_t)n - (size_t)kept);
  OCK_ASSERT_INT_LE(live, cap);
  cJSON *again = ock__journal_snapshot(j);
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(again), 0);
  cJSON_Delete(again);
  ock__journal_free(j);
}

/* Entries whose trees are about their lines' size (long strings) are all taken, in order, the
 * same trees a snapshot gives. */
static void test_take_keeps_what_fits(void) {
  struct mock_journal *j = NULL;
  OCK_ASSERT_OK(ock__journal_new(1000, (size_t)64 << 20, &j));
  char *big = malloc((size_t)1 << 20);
  memset(big, 'x', ((size_t)1 << 20) - 1);
  big[((size_t)1 << 20) - 1] = '\0';
  for (int i = 0; i < 10; i++) {
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "text", i % 2 ? big : "short, {with} [brackets]: \"quoted\"");
    OCK_ASSERT_INT_EQ(ock__journal_append(j, "event", e), i + 1);
  }
  free(big);
  cJSON *snap = ock__journal_snapshot(j), *taken = ock__journal_take(j);
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(taken), 10);
  OCK_ASSERT_INT_EQ(ock__journal_dropped(j), 0);
  OCK_ASSERT_TRUE(cJSON_Compare(snap, taken, 1));
  cJSON_Delete(snap);
  cJSON_Delete(taken);
  ock__journal_free(j);
}

static const struct ock_test tests[] = {
    {"later_entries_print_when_read", test_later_entries_print_when_read},
    {"later_entries_count_against_the_caps", test_later_entries_count_against_the_caps},
    {"byte_cap", test_byte_cap},
    {"entries_are_framed_in_order", test_entries_are_framed_in_order},
    {"cap_counts_what_it_drops", test_cap_counts_what_it_drops},
    {"jsonl_one_entry_per_line", test_jsonl_one_entry_per_line},
    {"select_by_kind", test_select_by_kind},
    {"take_counts_trees_against_the_cap", test_take_counts_trees_against_the_cap},
    {"take_keeps_what_fits", test_take_keeps_what_fits},
    {NULL, NULL}};

const struct ock_suite mock_journal_suite = {"mock_journal", tests, NULL, NULL};
