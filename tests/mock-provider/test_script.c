/* test_script.c: which turn answers a request (mock-provider/script.c). */
#include <stdlib.h>
#include <string.h>

#include "ock/fixture.h"
#include "runner.h"
#include "script.h"

static struct ock_fixture *load(const char *script) {
  char text[2048];
  snprintf(text, sizeof text,
           "{\"ock_fixture\":1,\"id\":\"s\",\"session\":{\"prompts\":[],\"providers\":[{\"name\":"
           "\"main\",\"api\":\"openai\",\"model\":\"m\"}]},\"script\":{\"main\":%s}}",
           script);
  cJSON *j = cJSON_Parse(text);
  struct ock_fixture *f = NULL;
  struct ock_jerr err;
  if (ock_fixture_load(j, NULL, &f, &err))
    ock_test_fail(__LINE__, __FILE__, "%s: %s", err.where, err.what);
  cJSON_Delete(j);
  return f;
}

static void test_order_and_explicit_matches(void) {
  struct ock_fixture *f = load(
      "[{\"text\":\"first\"},{\"match\":{\"last_tool_call_id\":\"call_9\"},\"text\":\"after 9\"},"
      "{\"text\":\"second\"},{\"match\":{\"position\":4},\"text\":\"fourth\"},"
      "{\"match\":{\"last_message_contains\":\"weather\"},\"text\":\"w\"}]");
  if (!f)
    return;
  const struct ock_fx_provider *p = &f->providers[0];
  struct mock_play used;
  OCK_ASSERT_OK(ock__play_init(&used, p));
  struct ock_buf why;
  ock_buf_init(&why, 4096);
  struct mock_match_input in = {.position = 1, .last_text = "hi", .last_role = "user"};
  OCK_ASSERT_INT_EQ(ock__script_pick(p, &used, &in, &why), 0);
  in.position = 2;
  in.last_tool_call_id = "call_9";
  OCK_ASSERT_INT_EQ(ock__script_pick(p, &used, &in, &why), 1); /* the match wins over order */
  in.position = 3;
  OCK_ASSERT_INT_EQ(ock__script_pick(p, &used, &in, &why), 2); /* turn 1 is used up */
  in.position = 4;
  OCK_ASSERT_INT_EQ(ock__script_pick(p, &used, &in, &why), 3);
  in.position = 5;
  OCK_ASSERT_INT_EQ(ock__script_pick(p, &used, &in, &why), -1);
  OCK_ASSERT_STR_EQ(why.data,
                    "request 5 to provider \"main\" matches no scripted turn: expected "
                    "$.script.main[4] (match last_message_contains \"weather\"); the request's "
                    "last message is user \"hi\", the result for \"call_9\"");
  ock_buf_reset(&why);
  in.last_text = "what is the weather?";
  OCK_ASSERT_INT_EQ(ock__script_pick(p, &used, &in, &why), 4);
  OCK_ASSERT_INT_EQ(ock__script_pick(p, &used, &in, &why), -1);
  OCK_ASSERT_CONTAINS(why.data, "all 5 turns of $.script.main are used");
  ock_buf_free(&why);
  ock__play_free(&used);
  ock_fixture_free(f);
}

static void test_match_input_from_history(void) {
  struct ock_history h;
  ock_history_init(&h);
  struct ock_tool_call call = {"call_1", "f", "{}"};
  ock_history_add_text(&h, OCK_ROLE_USER, "hi");
  ock_history_add_assistant(&h, NULL, &call, 1);
  ock_history_add_tool_result(&h, "call_1", "15 degrees", 0);
  ock_history_add_text(&h, OCK_ROLE_SYSTEM, "injected");
  struct mock_match_input in;
  ock__match_input_from(&h, 7, &in);
  OCK_ASSERT_INT_EQ(in.position, 7);
  OCK_ASSERT_STR_EQ(in.last_text, "injected");
  OCK_ASSERT_STR_EQ(in.last_role, "system");
  OCK_ASSERT_NULL(in.last_tool_call_id); /* the last message is not a result */
  ock_history_free(&h);
  ock_history_init(&h);
  ock_history_add_text(&h, OCK_ROLE_USER, "hi");
  ock_history_add_assistant(&h, NULL, &call, 1);
  ock_history_add_tool_result(&h, "call_1", "15 degrees", 0);
  ock__match_input_from(&h, 2, &in);
  OCK_ASSERT_STR_EQ(in.last_tool_call_id, "call_1");
  OCK_ASSERT_STR_EQ(in.last_text, "15 degrees");
  ock_history_free(&h);
}

static void test_long_scripts_pick_in_constant_time(void) {
  enum { N = 100000 };
  struct ock_buf script;
  ock_buf_init(&script, 1 << 24);
  int rc = ock_buf_puts(&script, "[");
  for (int i = 0; i < N; i++)
    rc |= ock_buf_printf(&script, "%s{\"text\":\"t%d\"}", i ? "," : "", i);
  OCK_ASSERT_OK(rc | ock_buf_puts(&script, "]"));
  struct ock_fixture *f = NULL;
  struct ock_buf fx;
  ock_buf_init(&fx, 1 << 24);
  OCK_ASSERT_OK(ock_buf_printf(
      &fx,
      "{\"ock_fixture\":1,\"id\":\"s\",\"session\":{\"prompts\":[],\"providers\":[{"
      "\"name\":\"main\",\"api\":\"openai\",\"model\":\"m\"}]},\"script\":{\"main\":%s}}",
      script.data));
  cJSON *j = cJSON_Parse(fx.data);
  struct ock_jerr err;
  OCK_ASSERT_OK(ock_fixture_load(j, NULL, &f, &err));
  cJSON_Delete(j);
  ock_buf_free(&fx);
  ock_buf_free(&script);
  if (!f)
    return;
  struct mock_play pl;
  OCK_ASSERT_OK(ock__play_init(&pl, &f->providers[0]));
  struct ock_buf why;
  ock_buf_init(&why, 4096);
  struct mock_match_input in = {.last_role = "user"};
  int in_order = 1;
  for (int i = 0; i < N; i++) {
    in.position = i + 1;
    in_order &= ock__script_pick(&f->providers[0], &pl, &in, &why) == i;
  }
  OCK_ASSERT_TRUE(in_order);
  OCK_ASSERT_INT_EQ(ock__script_pick(&f->providers[0], &pl, &in, &why), -1);
  ock_buf_free(&why);
  ock__play_free(&pl);
  ock_fixture_free(f);
}

static const struct ock_test tests[] = {
    {"long_scripts_pick_in_constant_time", test_long_scripts_pick_in_constant_time},
    {"order_and_explicit_matches", test_order_and_explicit_matches},
    {"match_input_from_history", test_match_input_from_history},
    {NULL, NULL}};

const struct ock_suite mock_script_suite = {"mock_script", tests, NULL, NULL};
