/* test_validate.c: the history validator (mock-provider/validate.c) and the providers' texts
 * for its findings (openai_wire.c, anthropic_wire.c). */
#include <stdlib.h>
#include <string.h>

#include "broken_histories.h"
#include "ock/message.h"
#include "runner.h"
#include "validate.h"
#include "wire.h"

/* findings_of converts wire messages to the neutral history and validates it. */
static int findings_of(int anthropic, const char *messages, struct mock_findings *out) {
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
    rc = ock__validate_history(&h, out);
  ock_history_free(&h);
  cJSON_Delete(arr);
  return rc;
}

static void test_eight_shapes_both_wires(void) {
  for (int i = 0; BROKEN_HISTORIES[i].shape; i++) {
    const struct broken_history *b = &BROKEN_HISTORIES[i];
    struct mock_findings f;
    OCK_ASSERT_OK(findings_of(b->anthropic, b->messages, &f));
    if (f.len != 1) {
      ock_test_fail(__LINE__, __FILE__, "%s (%s): %zu findings, expected 1", b->shape,
                    b->anthropic ? "anthropic" : "openai", f.len);
      ock__findings_free(&f);
      continue;
    }
    const struct mock_finding *x = &f.items[0];
    OCK_ASSERT_STR_EQ(ock__shape_name(x->shape), b->shape);
    OCK_ASSERT_INT_EQ(x->message_index, b->message_index);
    OCK_ASSERT_STR_EQ(x->tool_call_id, b->tool_call_id);
    OCK_ASSERT_INT_EQ(x->blocking, b->blocking);
    OCK_ASSERT_INT_EQ(ock__findings_first_blocking(&f) != NULL, b->blocking);
    if (b->blocking) {
      const struct mock_wire *w = b->anthropic ? &ock__anthropic_wire : &ock__openai_wire;
      struct ock_buf text, param;
      ock_buf_init(&text, 1 << 16);
      ock_buf_init(&param, 256);
      cJSON *raw = cJSON_Parse(b->messages);
      OCK_ASSERT_OK(w->history_error(x, raw, &param, &text));
      OCK_ASSERT_STR_EQ(text.data, b->text);
      if (b->param)
        OCK_ASSERT_STR_EQ(param.data, b->param);
      cJSON_Delete(raw);
      ock_buf_free(&text);
      ock_buf_free(&param);
    }
    ock__findings_free(&f);
  }
}

static void expect_clean(int anthropic, const char *messages) {
  struct mock_findings f;
  OCK_ASSERT_OK(findings_of(anthropic, messages, &f));
  if (f.len)
    ock_test_fail(__LINE__, __FILE__, "%s: found %s at %d, expected nothing", messages,
                  ock__shape_name(f.items[0].shape), f.items[0].message_index);
  else
    CU_PASS("clean");
  ock__findings_free(&f);
}

static void test_valid_histories_have_no_findings(void) {
  expect_clean(0, "[]");
  expect_clean(0, "[{\"role\":\"system\",\"content\":\"s\"},{\"role\":\"user\",\"content\":\"hi\"},"
                  "{\"role\":\"assistant\",\"content\":\"hello\"}]");
  expect_clean(0, "[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":\"t\","
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

static void test_interleaved_user_message_anthropic_separate_message(void) {
  struct mock_findings f;
  OCK_ASSERT_OK(findings_of(1,
                            "[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\","
                            "\"content\":[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"f\","
                            "\"input\":{}}]},{\"role\":\"user\",\"content\":\"wait\"},{\"role\":"
                            "\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\","
                            "\"content\":\"ok\"}]}]",
                            &f));
  OCK_ASSERT_INT_EQ(f.len, 1);
  if (f.len) {
    OCK_ASSERT_STR_EQ(ock__shape_name(f.items[0].shape), "A03_INTERLEAVED_USER_MSG");
    OCK_ASSERT_INT_EQ(f.items[0].message_index, 2);
    OCK_ASSERT_INT_EQ(f.items[0].call_index, 1);
  }
  ock__findings_free(&f);
}

static void test_duplicate_call_ids_across_messages(void) {
  struct mock_findings f;
  OCK_ASSERT_OK(findings_of(0,
                            "[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\","
                            "\"tool_calls\":[{\"id\":\"x\",\"type\":\"function\",\"function\":{"
                            "\"name\":\"f\",\"arguments\":\"{}\"}}]},{\"role\":\"tool\","
                            "\"tool_call_id\":\"x\",\"content\":\"1\"},{\"role\":\"assistant\","
                            "\"tool_calls\":[{\"id\":\"x\",\"type\":\"function\",\"function\":{"
                            "\"name\":\"f\",\"arguments\":\"{}\"}}]},{\"role\":\"tool\","
                            "\"tool_call_id\":\"x\",\"content\":\"2\"}]",
                            &f));
  OCK_ASSERT_INT_EQ(f.len, 1);
  if (f.len) {
    OCK_ASSERT_STR_EQ(ock__shape_name(f.items[0].shape), "A05_DUPLICATE_TOOL_CALL_ID");
    OCK_ASSERT_INT_EQ(f.items[0].message_index, 3);
    OCK_ASSERT_INT_EQ(f.items[0].on_result, 0);
  }
  ock__findings_free(&f);
}

static void test_unanswered_call_at_the_end_and_several_findings(void) {
  /* A result with no call first (index 1), then a call left open at the end (index 2). */
  struct mock_findings f;
  OCK_ASSERT_OK(findings_of(0,
                            "[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"tool\","
                            "\"tool_call_id\":\"z\",\"content\":\"?\"},{\"role\":\"assistant\","
                            "\"tool_calls\":[{\"id\":\"a\",\"type\":\"function\",\"function\":{"
                            "\"name\":\"f\",\"arguments\":\"{}\"}},{\"id\":\"b\",\"type\":"
                            "\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}]",
                            &f));
  OCK_ASSERT_INT_EQ(f.len, 3);
  if (f.len == 3) {
    OCK_ASSERT_STR_EQ(ock__shape_name(f.items[0].shape), "A02_UNMATCHED_TOOL_RESULT");
    OCK_ASSERT_STR_EQ(ock__shape_name(f.items[1].shape), "A01_UNMATCHED_TOOL_USE");
    OCK_ASSERT_STR_EQ(f.items[1].tool_call_id, "a");
    OCK_ASSERT_STR_EQ(f.items[2].tool_call_id, "b");
    OCK_ASSERT_STR_EQ(f.items[2].missing, "a, b");
    OCK_ASSERT_INT_EQ(ock__findings_first_blocking(&f)->message_index, 1);
  }
  ock__findings_free(&f);
}

static const struct ock_test tests[] = {
    {"eight_shapes_both_wires", test_eight_shapes_both_wires},
    {"valid_histories_have_no_findings", test_valid_histories_have_no_findings},
    {"interleaved_user_message_anthropic_separate_message",
     test_interleaved_user_message_anthropic_separate_message},
    {"duplicate_call_ids_across_messages", test_duplicate_call_ids_across_messages},
    {"unanswered_call_at_the_end_and_several_findings",
     test_unanswered_call_at_the_end_and_several_findings},
    {NULL, NULL}};

const struct ock_suite mock_validate_suite = {"mock_validate", tests, NULL, NULL};
