/* test_validate.c: the history validator (mock-provider/validate.c, SPEC 6.7) and the
 * providers' texts for its findings (wire.c). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>

#include "broken_histories.h"
#include "ock/message.h"
#include "runner.h"
#include "validate.h"
#include "wire.h"

/* finding_of converts wire messages to the neutral history and validates it. */
static int finding_of(int anthropic, const char *messages, struct mock_finding *out) {
  cJSON *arr = cJSON_Parse(messages);
  struct ock_history h;
  ock_history_init(&h);
  struct ock_jerr err;
  int rc = anthropic ? ock_history_from_anthropic(NULL, arr, &h, &err)
                     : ock_history_from_openai(arr, &h, &err);
  if (rc)
    ock_test_fail(__LINE__, __FILE__, "%s: %s (in %s)", err.where, err.what, messages);
  memset(out, 0, sizeof *out);
  if (!rc)
    rc = ock__validate_first(&h, anthropic, out);
  ock_history_free(&h);
  cJSON_Delete(arr);
  return rc;
}

static void test_eight_shapes_both_wires(void) {
  for (int i = 0; BROKEN_HISTORIES[i].shape; i++) {
    const struct broken_history *b = &BROKEN_HISTORIES[i];
    struct mock_finding f;
    OCK_ASSERT_OK(finding_of(b->anthropic, b->messages, &f));
    OCK_ASSERT_STR_EQ(ock__shape_name(f.shape), b->shape);
    OCK_ASSERT_INT_EQ(f.message_index, b->message_index);
    OCK_ASSERT_STR_EQ(f.tool_call_id, b->tool_call_id);
    struct ock_buf text, param, code;
    ock_buf_init(&text, 1 << 16);
    ock_buf_init(&param, 256);
    ock_buf_init(&code, 256);
    cJSON *raw = cJSON_Parse(b->messages);
    OCK_ASSERT_OK(ock__history_error(b->anthropic ? OCK_WIRE_ANTHROPIC : OCK_WIRE_OPENAI, &f, raw,
                                     &param, &code, &text));
    OCK_ASSERT_STR_EQ(text.data, b->text);
    if (b->param)
      OCK_ASSERT_STR_EQ(param.data, b->param);
    if (b->code)
      OCK_ASSERT_STR_EQ(code.data, b->code);
    else
      OCK_ASSERT_INT_EQ(code.len, 0);
    cJSON_Delete(raw);
    ock_buf_free(&text);
    ock_buf_free(&param);
    ock_buf_free(&code);
    ock__finding_clear(&f);
  }
}

static void expect_clean(int anthropic, const char *messages) {
  struct mock_finding f;
  OCK_ASSERT_OK(finding_of(anthropic, messages, &f));
  if (f.shape != MOCK_SHAPE_NONE)
    ock_test_fail(__LINE__, __FILE__, "%s: found %s at %d, expected nothing", messages,
                  ock__shape_name(f.shape), f.message_index);
  else
    CU_PASS("clean");
  ock__finding_clear(&f);
}

static void test_valid_histories_have_no_finding(void) {
  expect_clean(0, "[]");
  expect_clean(0, "[{\"role\":\"system\",\"content\":\"s\"},{\"role\":\"user\",\"content\":\"hi\"},"
                  "{\"role\":\"assistant\",\"content\":\"hello\"}]");
  expect_clean(
      0, "[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":\"t\","
         "\"tool_calls\":[{\"id\":\"a\",\"type\":\"function\",\"function\":{\"name\":\"f\","
         "\"arguments\":\"{}\"}},{\"id\":\"b\",\"type\":\"function\",\"function\":{\"name\":"
         "\"f\",\"arguments\":\"{}\"}}]},{\"role\":\"tool\",\"tool_call_id\":\"a\",\"content\":"
         "\"1\"},{\"role\":\"tool\",\"tool_call_id\":\"b\",\"content\":\"2\"},{\"role\":"
         "\"user\",\"content\":\"more\"},{\"role\":\"assistant\",\"content\":null,\"tool_calls\":"
         "[{\"id\":\"c\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":"
         "\"{}\"}}]},{\"role\":\"tool\",\"tool_call_id\":\"c\",\"content\":\"3\"}]");
  /* Anthropic: text after the results in the same user message is fine. */
  expect_clean(1, "[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":["
                  "{\"type\":\"text\",\"text\":\"let me\"},{\"type\":\"tool_use\",\"id\":\"t1\","
                  "\"name\":\"f\",\"input\":{}}]},{\"role\":\"user\",\"content\":[{\"type\":"
                  "\"tool_result\",\"tool_use_id\":\"t1\",\"content\":\"ok\"},{\"type\":\"text\","
                  "\"text\":\"and also\"}]}]");
}

static void expect_shape(int anthropic, const char *messages, const char *shape, int index,
                         const char *id) {
  struct mock_finding f;
  OCK_ASSERT_OK(finding_of(anthropic, messages, &f));
  OCK_ASSERT_STR_EQ(ock__shape_name(f.shape), shape);
  OCK_ASSERT_INT_EQ(f.message_index, index);
  OCK_ASSERT_STR_EQ(f.tool_call_id, id);
  ock__finding_clear(&f);
}

#define AN_ASK "{\"role\":\"user\",\"content\":\"hi\"}"
#define AN_T1T2                                                                                    \
  "{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"f\","      \
  "\"input\":{}},{\"type\":\"tool_use\",\"id\":\"t2\",\"name\":\"f\",\"input\":{}}]}"
#define AN_RESULT(id)                                                                              \
  "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"" id "\","          \
  "\"content\":\"ok\"}]}"

static void test_anthropic_rule_4(void) {
  /* A separate user message before the results. */
  expect_shape(
      1, "[" AN_ASK "," AN_T1T2 ",{\"role\":\"user\",\"content\":\"wait\"}," AN_RESULT("t1") "]",
      "A03_INTERLEAVED_USER_MSG", 1, "t1");
  /* Results split over two user messages: the second is not right after the calls. */
  expect_shape(1, "[" AN_ASK "," AN_T1T2 "," AN_RESULT("t1") "," AN_RESULT("t2") "]",
               "A03_INTERLEAVED_USER_MSG", 1, "t2");
  /* On the OpenAI wire, results are separate messages anyway. */
  expect_clean(0, "[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"tool_calls\":"
                  "[{\"id\":\"a\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":"
                  "\"{}\"}}]},{\"role\":\"tool\",\"tool_call_id\":\"a\",\"content\":\"1\"}]");
}

static void test_duplicate_ids_issued_twice(void) {
  const char *twice = "[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\","
                      "\"tool_calls\":[{\"id\":\"x\",\"type\":\"function\",\"function\":{"
                      "\"name\":\"f\",\"arguments\":\"{}\"}}]},{\"role\":\"tool\","
                      "\"tool_call_id\":\"x\",\"content\":\"1\"},{\"role\":\"assistant\","
                      "\"tool_calls\":[{\"id\":\"x\",\"type\":\"function\",\"function\":{"
                      "\"name\":\"f\",\"arguments\":\"{}\"}}]},{\"role\":\"tool\","
                      "\"tool_call_id\":\"x\",\"content\":\"2\"}]";
  struct mock_finding f;
  OCK_ASSERT_OK(finding_of(0, twice, &f));
  OCK_ASSERT_STR_EQ(ock__shape_name(f.shape), "A05_DUPLICATE_TOOL_CALL_ID");
  OCK_ASSERT_INT_EQ(f.message_index, 3);
  OCK_ASSERT_INT_EQ(f.on_result, 0);
  struct ock_buf text, param, code;
  ock_buf_init(&text, 4096);
  ock_buf_init(&param, 256);
  ock_buf_init(&code, 256);
  ock__history_error(OCK_WIRE_OPENAI, &f, NULL, &param, &code, &text);
  OCK_ASSERT_STR_EQ(text.data,
                    "ock: tool_call_id 'x' is issued more than once in this conversation.");
  OCK_ASSERT_STR_EQ(param.data, "messages.[3].tool_calls");
  OCK_ASSERT_STR_EQ(code.data, "ock_duplicate_tool_call_id");
  ock_buf_free(&text);
  ock_buf_free(&param);
  ock_buf_free(&code);
  ock__finding_clear(&f);
  /* Repeated inside one Anthropic message: the block of the repeat is named. */
  const char *inside = "[" AN_ASK ",{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\","
                       "\"id\":\"t1\",\"name\":\"f\",\"input\":{}},{\"type\":\"tool_use\",\"id\":"
                       "\"t1\",\"name\":\"f\",\"input\":{}}]}]";
  OCK_ASSERT_OK(finding_of(1, inside, &f));
  OCK_ASSERT_STR_EQ(ock__shape_name(f.shape), "A05_DUPLICATE_TOOL_CALL_ID");
  ock_buf_init(&text, 4096);
  cJSON *raw = cJSON_Parse(inside);
  ock__history_error(OCK_WIRE_ANTHROPIC, &f, raw, &param, &code, &text);
  OCK_ASSERT_STR_EQ(text.data, "messages.1.content.1: `tool_use` ids must be unique");
  cJSON_Delete(raw);
  ock_buf_free(&text);
  ock__finding_clear(&f);
}

static void test_only_the_first_problem_counts(void) {
  /* A result with no call first (index 1), then calls left open at the end: A02 wins. */
  expect_shape(0,
               "[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"tool\",\"tool_call_id\":"
               "\"z\",\"content\":\"?\"},{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"a\","
               "\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}]",
               "A02_UNMATCHED_TOOL_RESULT", 1, "z");
  /* Two calls open at the end, none answered: A01 naming both. */
  struct mock_finding f;
  OCK_ASSERT_OK(finding_of(0,
                           "[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\","
                           "\"tool_calls\":[{\"id\":\"a\",\"type\":\"function\",\"function\":{"
                           "\"name\":\"f\",\"arguments\":\"{}\"}},{\"id\":\"b\",\"type\":"
                           "\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}]",
                           &f));
  OCK_ASSERT_STR_EQ(ock__shape_name(f.shape), "A01_UNMATCHED_TOOL_USE");
  OCK_ASSERT_STR_EQ(f.ids, "a, b");
  OCK_ASSERT_STR_EQ(f.tool_call_id, "a");
  ock__finding_clear(&f);
}

static void test_list_form(void) {
  cJSON *arr = cJSON_Parse(BROKEN_HISTORIES[0].messages);
  struct ock_history h;
  ock_history_init(&h);
  OCK_ASSERT_OK(ock_history_from_openai(arr, &h, NULL));
  struct mock_findings f = {0};
  OCK_ASSERT_OK(ock__validate_history(&h, &f));
  OCK_ASSERT_INT_EQ(f.len, 1);
  OCK_ASSERT_STR_EQ(ock__shape_name(ock__findings_first_blocking(&f)->shape),
                    "A01_UNMATCHED_TOOL_USE");
  ock__findings_free(&f);
  OCK_ASSERT_NULL(ock__findings_first_blocking(&f));
  ock_history_free(&h);
  cJSON_Delete(arr);
}

static void test_long_histories_are_linear(void) {
  /* 30000 rounds of call and result, then one orphan: found, and fast. */
  enum { ROUNDS = 30000 };
  struct ock_history h;
  ock_history_init(&h);
  ock_history_add_text(&h, OCK_ROLE_USER, "go");
  char id[32];
  for (int i = 0; i < ROUNDS; i++) {
    snprintf(id, sizeof id, "call_%d", i);
    struct ock_tool_call call = {id, "f", "{}"};
    ock_history_add_assistant(&h, NULL, &call, 1);
    ock_history_add_tool_result(&h, id, "ok", 0);
  }
  struct ock_tool_call orphan = {"call_last", "f", "{}"};
  ock_history_add_assistant(&h, NULL, &orphan, 1);
  for (size_t i = 0; i < h.len; i++)
    h.items[i].wire_index = (int)i;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  struct mock_finding f;
  OCK_ASSERT_OK(ock__validate_first(&h, 0, &f));
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  OCK_ASSERT_STR_EQ(ock__shape_name(f.shape), "A01_UNMATCHED_TOOL_USE");
  OCK_ASSERT_INT_EQ(f.message_index, 2 * ROUNDS + 1);
  OCK_ASSERT_DOUBLE_LT(secs, 0.5);
  ock__finding_clear(&f);
  ock_history_free(&h);
}

static const struct ock_test tests[] = {
    {"long_histories_are_linear", test_long_histories_are_linear},
    {"list_form", test_list_form},
    {"eight_shapes_both_wires", test_eight_shapes_both_wires},
    {"valid_histories_have_no_finding", test_valid_histories_have_no_finding},
    {"anthropic_rule_4", test_anthropic_rule_4},
    {"duplicate_ids_issued_twice", test_duplicate_ids_issued_twice},
    {"only_the_first_problem_counts", test_only_the_first_problem_counts},
    {NULL, NULL}};

const struct ock_suite mock_validate_suite = {"mock_validate", tests, NULL, NULL};
