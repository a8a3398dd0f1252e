/* test_faults.c: seeded rolls and fault rewriting (mock-provider/faults.c). */
#include <string.h>

#include "faults.h"
#include "runner.h"

static void test_roll_is_a_function_of_seed_rule_and_n(void) {
  int fired = 0, same = 1, differs = 0;
  for (unsigned long long n = 1; n <= 2000; n++) {
    int a = ock__fault_roll(7, 0, n, 0.25);
    same &= a == ock__fault_roll(7, 0, n, 0.25);
    differs |= a != ock__fault_roll(8, 0, n, 0.25);
    fired += a;
  }
  OCK_ASSERT_TRUE(same);
  OCK_ASSERT_TRUE(differs);
  OCK_ASSERT_TRUE(fired > 400 && fired < 600); /* about a quarter */
  OCK_ASSERT_INT_EQ(ock__fault_roll(1, 0, 1, 0), 0);
  OCK_ASSERT_TRUE(ock__fault_roll(1, 0, 1, 1));
}

static struct mock_answer text_answer(void) {
  struct mock_answer a = {.id = "chatcmpl-x-0",
                          .model = "m",
                          .text = "abcdefgh",
                          .finish = "stop",
                          .chunk_size = 2,
                          .input_tokens = 1,
                          .output_tokens = 1};
  return a;
}

static void test_stream_faults(void) {
  struct mock_answer a = text_answer();
  struct ock_chunks c;
  /* role, 4 deltas, finish, [DONE] = 7 pieces */
  ock_chunks_init(&c);
  ock__answer_events(&ock_wire_openai, &a, &c);
  OCK_ASSERT_INT_EQ(c.n, 7);
  struct ock_fx_fault cut = {.kind = OCK_FX_FAULT_CUT_STREAM, .after = 3};
  OCK_ASSERT_OK(ock__fault_apply_stream(&cut, &ock_wire_openai, &c));
  OCK_ASSERT_INT_EQ(c.n, 3);
  ock_chunks_free(&c);

  /* a cut past the end still leaves the terminator out */
  ock_chunks_init(&c);
  ock__answer_events(&ock_wire_openai, &a, &c);
  cut.after = 100;
  OCK_ASSERT_OK(ock__fault_apply_stream(&cut, &ock_wire_openai, &c));
  OCK_ASSERT_INT_EQ(c.n, 6);
  OCK_ASSERT_NULL(strstr(c.items[5], "[DONE]"));
  ock_chunks_free(&c);

  /* Anthropic: message_start, ping, block start, ...; the ping is not counted */
  ock_chunks_init(&c);
  ock__answer_events(&ock_wire_anthropic, &a, &c);
  struct ock_fx_fault err = {.kind = OCK_FX_FAULT_ERROR_MID_STREAM, .after = 2};
  OCK_ASSERT_OK(ock__fault_apply_stream(&err, &ock_wire_anthropic, &c));
  OCK_ASSERT_INT_EQ(c.n, 4);
  OCK_ASSERT_CONTAINS(c.items[0], "event: message_start");
  OCK_ASSERT_CONTAINS(c.items[1], "event: ping");
  OCK_ASSERT_CONTAINS(c.items[2], "event: content_block_start");
  OCK_ASSERT_STR_EQ(c.items[3], "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":"
                                "\"overloaded_error\",\"message\":\"ock: scripted stream error\"}}"
                                "\n\n");
  ock_chunks_free(&c);

  /* one event that is not JSON, then nothing */
  ock_chunks_init(&c);
  ock__answer_events(&ock_wire_openai, &a, &c);
  struct ock_fx_fault bad = {.kind = OCK_FX_FAULT_MALFORMED_CHUNK, .after = 1};
  OCK_ASSERT_OK(ock__fault_apply_stream(&bad, &ock_wire_openai, &c));
  OCK_ASSERT_INT_EQ(c.n, 2);
  OCK_ASSERT_STR_EQ(c.items[1], "data: {\"ock\":\n\n");
  ock_chunks_free(&c);

  /* other faults leave the events alone */
  ock_chunks_init(&c);
  ock__answer_events(&ock_wire_openai, &a, &c);
  struct ock_fx_fault drop = {.kind = OCK_FX_FAULT_DROP_CONNECTION, .after = 5};
  OCK_ASSERT_OK(ock__fault_apply_stream(&drop, &ock_wire_openai, &c));
  OCK_ASSERT_INT_EQ(c.n, 7);
  ock_chunks_free(&c);
}

static void test_body_faults(void) {
  struct mock_body_fault bf;
  struct ock_fx_fault f = {.kind = OCK_FX_FAULT_CUT_STREAM};
  ock__fault_for_body(&f, 100, &bf);
  OCK_ASSERT_INT_EQ(bf.drop_after, 50);
  f.kind = OCK_FX_FAULT_ERROR_MID_STREAM;
  ock__fault_for_body(&f, 100, &bf);
  OCK_ASSERT_INT_EQ(bf.status, 500);
  f.kind = OCK_FX_FAULT_MALFORMED_CHUNK;
  ock__fault_for_body(&f, 100, &bf);
  OCK_ASSERT_TRUE(bf.truncate);
  f.kind = OCK_FX_FAULT_DROP_CONNECTION;
  f.after = 7;
  ock__fault_for_body(&f, 100, &bf);
  OCK_ASSERT_INT_EQ(bf.drop_after, 7);
}

static const struct ock_test tests[] = {
    {"roll_is_a_function_of_seed_rule_and_n", test_roll_is_a_function_of_seed_rule_and_n},
    {"stream_faults", test_stream_faults},
    {"body_faults", test_body_faults},
    {NULL, NULL}};

const struct ock_suite mock_faults_suite = {"mock_faults", tests, NULL, NULL};
