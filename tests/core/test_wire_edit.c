/* test_wire_edit.c: each history edit gives the same broken shape on the OpenAI and the
 * Anthropic wire, and leaves a request without tool results alone. */
#include "runner.h"

#include <stdio.h>
#include <stdlib.h>

#include "ock/wire.h"

/* A conversation with one assistant message that calls a and b, both answered, then a kept
 * injection; on each wire. */
static const char openai_body[] =
    "{\"model\":\"m\",\"messages\":["
    "{\"role\":\"system\",\"content\":\"be brief\"},"
    "{\"role\":\"user\",\"content\":\"q\"},"
    "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":["
    "{\"id\":\"a\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}},"
    "{\"id\":\"b\",\"type\":\"function\",\"function\":{\"name\":\"g\",\"arguments\":\"{}\"}}]},"
    "{\"role\":\"tool\",\"content\":\"A\",\"tool_call_id\":\"a\"},"
    "{\"role\":\"tool\",\"content\":\"Error: B failed\",\"tool_call_id\":\"b\"},"
    "{\"role\":\"system\",\"content\":\"NOTE\"}]}";

static const char anthropic_body[] =
    "{\"model\":\"m\",\"system\":\"be brief\\n\\nNOTE\",\"messages\":["
    "{\"role\":\"user\",\"content\":\"q\"},"
    "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"t\"},"
    "{\"type\":\"tool_use\",\"id\":\"a\",\"name\":\"f\",\"input\":{}},"
    "{\"type\":\"tool_use\",\"id\":\"b\",\"name\":\"g\",\"input\":{}}]},"
    "{\"role\":\"user\",\"content\":["
    "{\"type\":\"tool_result\",\"tool_use_id\":\"a\",\"content\":\"A\"},"
    "{\"type\":\"tool_result\",\"tool_use_id\":\"b\",\"content\":\"Error: B failed\"}]}]}";

static cJSON *parse(const char *text) {
  cJSON *b = cJSON_Parse(text);
  OCK_ASSERT_NOT_NULL_FATAL(b);
  return b;
}

/* messages_of prints the messages array compactly (caller frees). */
static char *messages_of(const cJSON *body) {
  return cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(body, "messages"));
}

static void expect_contains(const cJSON *body, const char *want) {
  char *got = messages_of(body);
  OCK_ASSERT_CONTAINS(got, want);
  free(got);
}

static void expect_messages(const cJSON *body, const char *want) {
  char *got = messages_of(body);
  OCK_ASSERT_STR_EQ(got, want);
  free(got);
}

static void drop_last_result(void) {
  cJSON *o = parse(openai_body), *a = parse(anthropic_body);
  OCK_ASSERT_INT_EQ(ock_wire_result_count(o, &ock_wire_openai), 2);
  OCK_ASSERT_TRUE(ock_wire_drop_last_result(o, &ock_wire_openai));
  OCK_ASSERT_INT_EQ(ock_wire_result_count(o, &ock_wire_openai), 1);
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(o, "messages")), 5);
  OCK_ASSERT_TRUE(ock_wire_drop_last_result(a, &ock_wire_anthropic));
  OCK_ASSERT_TRUE(ock_wire_drop_last_result(a, &ock_wire_anthropic));
  /* The results' user message became empty, so it went too. */
  expect_messages(a, "[{\"role\":\"user\",\"content\":\"q\"},{\"role\":\"assistant\",\"content\":["
                     "{\"type\":\"text\",\"text\":\"t\"},{\"type\":\"tool_use\",\"id\":\"a\","
                     "\"name\":\"f\",\"input\":{}},{\"type\":\"tool_use\",\"id\":\"b\",\"name\":"
                     "\"g\",\"input\":{}}]}]");
  OCK_ASSERT_INT_EQ(ock_wire_drop_last_result(a, &ock_wire_anthropic), 0);
  cJSON_Delete(o);
  cJSON_Delete(a);
}

static void rename_and_duplicate(void) {
  cJSON *o = parse(openai_body), *a = parse(anthropic_body);
  OCK_ASSERT_TRUE(ock_wire_rename_last_result(o, &ock_wire_openai, "_x"));
  expect_contains(o, "\"tool_call_id\":\"b_x\"");
  OCK_ASSERT_TRUE(ock_wire_rename_last_result(a, &ock_wire_anthropic, "_x"));
  expect_contains(a, "\"tool_use_id\":\"b_x\"");
  cJSON_Delete(o);
  cJSON_Delete(a);

  o = parse(openai_body);
  a = parse(anthropic_body);
  OCK_ASSERT_TRUE(ock_wire_duplicate_last_result(o, &ock_wire_openai));
  OCK_ASSERT_INT_EQ(ock_wire_result_count(o, &ock_wire_openai), 3);
  /* The copy sits right after the original, before the injection. */
  OCK_ASSERT_STR_EQ(
      cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(o, "messages"), 5), "tool_call_id")
          ->valuestring,
      "b");
  OCK_ASSERT_TRUE(ock_wire_duplicate_last_result(a, &ock_wire_anthropic));
  OCK_ASSERT_INT_EQ(ock_wire_result_count(a, &ock_wire_anthropic), 3);
  cJSON_Delete(o);
  cJSON_Delete(a);
}

static void reverse_results(void) {
  cJSON *o = parse(openai_body), *a = parse(anthropic_body);
  OCK_ASSERT_TRUE(ock_wire_reverse_results(o, &ock_wire_openai));
  cJSON *m = cJSON_GetObjectItem(o, "messages");
  OCK_ASSERT_STR_EQ(cJSON_GetObjectItem(cJSON_GetArrayItem(m, 3), "tool_call_id")->valuestring,
                    "b");
  OCK_ASSERT_STR_EQ(cJSON_GetObjectItem(cJSON_GetArrayItem(m, 4), "tool_call_id")->valuestring,
                    "a");
  OCK_ASSERT_TRUE(ock_wire_reverse_results(a, &ock_wire_anthropic));
  cJSON *blocks =
      cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(a, "messages"), 2), "content");
  OCK_ASSERT_STR_EQ(cJSON_GetObjectItem(cJSON_GetArrayItem(blocks, 0), "tool_use_id")->valuestring,
                    "b");
  /* One result alone has no order to break. */
  OCK_ASSERT_TRUE(ock_wire_drop_last_result(o, &ock_wire_openai));
  OCK_ASSERT_INT_EQ(ock_wire_reverse_results(o, &ock_wire_openai), 0);
  cJSON_Delete(o);
  cJSON_Delete(a);
}

static void rename_call_consistently(void) {
  cJSON *o = parse(openai_body), *a = parse(anthropic_body);
  OCK_ASSERT_TRUE(ock_wire_rename_call(o, &ock_wire_openai, "_m"));
  char *text = messages_of(o);
  OCK_ASSERT_CONTAINS(text, "{\"id\":\"a_m\",\"type\":\"function\"");
  OCK_ASSERT_CONTAINS(text, "\"tool_call_id\":\"a_m\"");
  free(text);
  OCK_ASSERT_TRUE(ock_wire_rename_call(a, &ock_wire_anthropic, "_m"));
  text = messages_of(a);
  OCK_ASSERT_CONTAINS(text, "\"type\":\"tool_use\",\"id\":\"a_m\"");
  OCK_ASSERT_CONTAINS(text, "\"tool_use_id\":\"a_m\"");
  free(text);
  cJSON_Delete(o);
  cJSON_Delete(a);
}

/* copy_call_turn: a copy of the first call, and of its result, renamed, stands before the
 * last assistant message; the other call is not copied. Nothing without such a message. */
static void copy_call_turn(void) {
  cJSON *o = parse(
      "{\"messages\":[{\"role\":\"user\",\"content\":\"q\"},"
      "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":["
      "{\"id\":\"a\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}},"
      "{\"id\":\"b\",\"type\":\"function\",\"function\":{\"name\":\"g\",\"arguments\":\"{}\"}}]},"
      "{\"role\":\"tool\",\"content\":\"A\",\"tool_call_id\":\"a\"},"
      "{\"role\":\"tool\",\"content\":\"B\",\"tool_call_id\":\"b\"},"
      "{\"role\":\"assistant\",\"content\":\"done\"},{\"role\":\"user\",\"content\":\"r\"}]}");
  OCK_ASSERT_TRUE(ock_wire_copy_call_turn(o, &ock_wire_openai, "w"));
  expect_messages(
      o,
      "[{\"role\":\"user\",\"content\":\"q\"},"
      "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":["
      "{\"id\":\"a\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}},"
      "{\"id\":\"b\",\"type\":\"function\",\"function\":{\"name\":\"g\",\"arguments\":\"{}\"}}]},"
      "{\"role\":\"tool\",\"content\":\"A\",\"tool_call_id\":\"a\"},"
      "{\"role\":\"tool\",\"content\":\"B\",\"tool_call_id\":\"b\"},"
      "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":["
      "{\"id\":\"w\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]},"
      "{\"role\":\"tool\",\"content\":\"A\",\"tool_call_id\":\"w\"},"
      "{\"role\":\"assistant\",\"content\":\"done\"},{\"role\":\"user\",\"content\":\"r\"}]");
  cJSON *a = parse("{\"messages\":[{\"role\":\"user\",\"content\":\"q\"},"
                   "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"t\"},"
                   "{\"type\":\"tool_use\",\"id\":\"a\",\"name\":\"f\",\"input\":{}},"
                   "{\"type\":\"tool_use\",\"id\":\"b\",\"name\":\"g\",\"input\":{}}]},"
                   "{\"role\":\"user\",\"content\":["
                   "{\"type\":\"tool_result\",\"tool_use_id\":\"a\",\"content\":\"A\"},"
                   "{\"type\":\"tool_result\",\"tool_use_id\":\"b\",\"content\":\"B\"}]},"
                   "{\"role\":\"assistant\",\"content\":\"done\"},"
                   "{\"role\":\"user\",\"content\":\"r\"}]}");
  OCK_ASSERT_TRUE(ock_wire_copy_call_turn(a, &ock_wire_anthropic, "w"));
  expect_contains(a, "{\"role\":\"assistant\",\"content\":["
                     "{\"type\":\"tool_use\",\"id\":\"w\",\"name\":\"f\",\"input\":{}}]},"
                     "{\"role\":\"user\",\"content\":["
                     "{\"type\":\"tool_result\",\"tool_use_id\":\"w\",\"content\":\"A\"}]},"
                     "{\"role\":\"assistant\",\"content\":\"done\"}");
  cJSON *none = parse(openai_body); /* no assistant message after the results */
  OCK_ASSERT_INT_EQ(ock_wire_copy_call_turn(none, &ock_wire_openai, "w"), 0);
  cJSON_Delete(none);
  cJSON_Delete(o);
  cJSON_Delete(a);
}

static void split_call(void) {
  cJSON *o = parse(openai_body), *a = parse(anthropic_body);
  OCK_ASSERT_TRUE(ock_wire_split_call(o, &ock_wire_openai, "between"));
  cJSON *m = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "messages"), 3);
  OCK_ASSERT_STR_EQ(cJSON_GetObjectItem(m, "role")->valuestring, "user");
  OCK_ASSERT_STR_EQ(cJSON_GetObjectItem(m, "content")->valuestring, "between");
  OCK_ASSERT_TRUE(ock_wire_split_call(a, &ock_wire_anthropic, "between"));
  cJSON *first = cJSON_GetArrayItem(
      cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(a, "messages"), 2), "content"), 0);
  OCK_ASSERT_STR_EQ(cJSON_GetObjectItem(first, "type")->valuestring, "text");
  cJSON_Delete(o);
  cJSON_Delete(a);
}

static void result_texts(void) {
  cJSON *o = parse(openai_body), *a = parse(anthropic_body);
  OCK_ASSERT_TRUE(ock_wire_set_result_texts(o, &ock_wire_openai, "gone", 1));
  char *text = messages_of(o);
  OCK_ASSERT_CONTAINS(text, "{\"role\":\"tool\",\"content\":\"gone\",\"tool_call_id\":\"a\"}");
  OCK_ASSERT_CONTAINS(text, "\"Error: B failed\""); /* failures keep their text */
  free(text);
  OCK_ASSERT_TRUE(ock_wire_set_result_texts(a, &ock_wire_anthropic, "Error: cancelled", 0));
  text = messages_of(a);
  OCK_ASSERT_CONTAINS(text, "\"tool_use_id\":\"b\",\"content\":\"Error: cancelled\"");
  free(text);
  cJSON_Delete(o);
  cJSON_Delete(a);
}

static void error_results_suffixed(void) {
  cJSON *o = parse(openai_body), *a = parse(anthropic_body);
  OCK_ASSERT_TRUE(ock_wire_suffix_error_results(o, &ock_wire_openai, " (m)"));
  char *text = messages_of(o);
  OCK_ASSERT_CONTAINS(text, "\"Error: B failed (m)\"");
  OCK_ASSERT_CONTAINS(text, "{\"role\":\"tool\",\"content\":\"A\",\"tool_call_id\":\"a\"}");
  free(text);
  OCK_ASSERT_TRUE(ock_wire_suffix_error_results(a, &ock_wire_anthropic, " (m)"));
  text = messages_of(a);
  OCK_ASSERT_CONTAINS(text, "\"tool_use_id\":\"b\",\"content\":\"Error: B failed (m)\"");
  free(text);
  cJSON_Delete(o);
  cJSON_Delete(a);
}

static void call_name_and_arguments_altered(void) {
  cJSON *o = parse(openai_body), *a = parse(anthropic_body);
  OCK_ASSERT_TRUE(ock_wire_rename_call_tool(o, &ock_wire_openai, "_m"));
  OCK_ASSERT_TRUE(ock_wire_alter_call_arguments(o, &ock_wire_openai, "ock_mutant"));
  char *text = messages_of(o);
  OCK_ASSERT_CONTAINS(text, "\"name\":\"f_m\",\"arguments\":\"{\\\"ock_mutant\\\":true}\"");
  OCK_ASSERT_CONTAINS(text, "\"name\":\"g\",\"arguments\":\"{}\""); /* the second call stays */
  free(text);
  OCK_ASSERT_TRUE(ock_wire_rename_call_tool(a, &ock_wire_anthropic, "_m"));
  OCK_ASSERT_TRUE(ock_wire_alter_call_arguments(a, &ock_wire_anthropic, "ock_mutant"));
  text = messages_of(a);
  OCK_ASSERT_CONTAINS(text, "\"id\":\"a\",\"name\":\"f_m\",\"input\":{\"ock_mutant\":true}");
  OCK_ASSERT_CONTAINS(text, "\"id\":\"b\",\"name\":\"g\",\"input\":{}");
  free(text);
  cJSON_Delete(o);
  cJSON_Delete(a);
}

static void assistant_before_prompt(void) {
  cJSON *o = parse("{\"messages\":[{\"role\":\"user\",\"content\":\"a\"},"
                   "{\"role\":\"user\",\"content\":\"b\"}]}");
  OCK_ASSERT_TRUE(ock_wire_insert_assistant_before_prompt(o, ""));
  expect_messages(o, "[{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"assistant\","
                     "\"content\":\"\"},{\"role\":\"user\",\"content\":\"b\"}]");
  OCK_ASSERT_INT_EQ(ock_wire_insert_assistant_before_prompt(o, ""), 0); /* one is there already */
  cJSON_Delete(o);
}

static void injection_moved_into_call(void) {
  cJSON *o = parse(openai_body), *a = parse(anthropic_body);
  OCK_ASSERT_INT_EQ(ock_wire_find_message(o, "NOTE"), 5);
  OCK_ASSERT_TRUE(ock_wire_move_into_call(o, &ock_wire_openai, "NOTE"));
  OCK_ASSERT_INT_EQ(ock_wire_find_message(o, "NOTE"), 3); /* right after the call message */
  OCK_ASSERT_INT_EQ(ock_wire_move_into_call(o, &ock_wire_openai, "NOTE"), 0);
  /* Anthropic keeps system text in "system": it is taken out and put between. */
  OCK_ASSERT_TRUE(ock_wire_move_into_call(a, &ock_wire_anthropic, "NOTE"));
  OCK_ASSERT_STR_EQ(cJSON_GetObjectItem(a, "system")->valuestring, "be brief\n\n");
  char *text = messages_of(a);
  OCK_ASSERT_CONTAINS(text, "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"NOTE\"},"
                            "{\"type\":\"tool_result\"");
  free(text);
  OCK_ASSERT_INT_EQ(ock_wire_move_into_call(a, &ock_wire_anthropic, "no such text"), 0);
  cJSON_Delete(o);
  cJSON_Delete(a);
}

static void messages_dropped_and_inserted(void) {
  cJSON *o = parse("{\"messages\":[{\"role\":\"system\",\"content\":\"s\"},"
                   "{\"role\":\"user\",\"content\":\"q\"},"
                   "{\"role\":\"assistant\",\"content\":\"The previous operation was cancelled.\"},"
                   "{\"role\":\"user\",\"content\":\"next\"}]}");
  OCK_ASSERT_INT_EQ(ock_wire_drop_message(o, "assistant", "The previous operation was cancelled."),
                    1);
  OCK_ASSERT_INT_EQ(ock_wire_drop_message(o, "assistant", "The previous operation was cancelled."),
                    0);
  OCK_ASSERT_TRUE(ock_wire_insert_user_first(o, "R"));
  expect_messages(
      o, "[{\"role\":\"system\",\"content\":\"s\"},{\"role\":\"user\",\"content\":\"R\"},"
         "{\"role\":\"user\",\"content\":\"q\"},{\"role\":\"user\",\"content\":\"next\"}]");
  cJSON_Delete(o);
}

static void reminder_to_system(void) {
  cJSON *o = parse("{\"messages\":[{\"role\":\"user\",\"content\":\"q\"},"
                   "{\"role\":\"user\",\"content\":\"<system-reminder source=\\\"orchestrator-loop-"
                   "limit\\\">x</system-reminder>\"}]}");
  OCK_ASSERT_TRUE(ock_wire_move_to_system(o, &ock_wire_openai, "orchestrator-loop-limit"));
  OCK_ASSERT_STR_EQ(
      cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(o, "messages"), 1), "role")
          ->valuestring,
      "system");
  cJSON *a = parse("{\"system\":\"s\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":"
                   "\"tool_result\",\"tool_use_id\":\"a\",\"content\":\"A\"},{\"type\":\"text\","
                   "\"text\":\"loop-limit reminder\"}]}]}");
  OCK_ASSERT_TRUE(ock_wire_move_to_system(a, &ock_wire_anthropic, "loop-limit"));
  OCK_ASSERT_STR_EQ(cJSON_GetObjectItem(a, "system")->valuestring, "s\n\nloop-limit reminder");
  expect_messages(a, "[{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":"
                     "\"a\",\"content\":\"A\"}]}]");
  cJSON_Delete(o);
  cJSON_Delete(a);
}

static void nothing_to_edit(void) {
  cJSON *o = parse("{\"messages\":[{\"role\":\"user\",\"content\":\"q\"}]}");
  OCK_ASSERT_INT_EQ(ock_wire_drop_last_result(o, &ock_wire_openai), 0);
  OCK_ASSERT_INT_EQ(ock_wire_rename_last_result(o, &ock_wire_openai, "_x"), 0);
  OCK_ASSERT_INT_EQ(ock_wire_duplicate_last_result(o, &ock_wire_openai), 0);
  OCK_ASSERT_INT_EQ(ock_wire_reverse_results(o, &ock_wire_openai), 0);
  OCK_ASSERT_INT_EQ(ock_wire_rename_call(o, &ock_wire_anthropic, "_m"), 0);
  OCK_ASSERT_INT_EQ(ock_wire_split_call(o, &ock_wire_openai, "x"), 0);
  OCK_ASSERT_INT_EQ(ock_wire_set_result_texts(o, &ock_wire_openai, "x", 0), 0);
  OCK_ASSERT_INT_EQ(ock_wire_move_to_system(o, &ock_wire_openai, "absent"), 0);
  expect_messages(o, "[{\"role\":\"user\",\"content\":\"q\"}]");
  cJSON *none = parse("{\"model\":\"m\"}");
  OCK_ASSERT_INT_EQ(ock_wire_insert_user_first(none, "x"), 0);
  OCK_ASSERT_INT_EQ(ock_wire_find_message(none, "x"), -1);
  cJSON_Delete(none);
  cJSON_Delete(o);
}

/* shout: results and user texts upper-cased by a marker, assistant texts left alone. */
static const char *shout(enum ock_wire_text_kind kind, const char *text, char *buf, size_t n) {
  if (kind == OCK_WIRE_TEXT_ASSISTANT)
    return NULL;
  snprintf(buf, n, "%s<%s>", kind == OCK_WIRE_TEXT_RESULT ? "R" : "U", text);
  return buf;
}

/* wire_map_texts reaches every result and user text on both wires, and no system text. */
static void texts_mapped(void) {
  cJSON *o = parse(openai_body), *a = parse(anthropic_body);
  OCK_ASSERT_TRUE(ock_wire_map_texts(o, &ock_wire_openai, shout));
  expect_contains(o, "\"content\":\"U<q>\"");
  expect_contains(o, "\"content\":\"R<Error: B failed>\"");
  expect_contains(o, "\"content\":\"be brief\"");
  expect_contains(o, "\"content\":\"NOTE\"");
  OCK_ASSERT_TRUE(ock_wire_map_texts(a, &ock_wire_anthropic, shout));
  expect_contains(a, "\"content\":\"R<A>\"");
  expect_contains(a, "\"content\":\"U<q>\"");
  expect_contains(a, "\"text\":\"t\"");
  cJSON_Delete(o);
  cJSON_Delete(a);
}

static const struct ock_test tests[] = {
    {"drop_last_result", drop_last_result},
    {"rename_and_duplicate", rename_and_duplicate},
    {"reverse_results", reverse_results},
    {"rename_call_consistently", rename_call_consistently},
    {"copy_call_turn", copy_call_turn},
    {"split_call", split_call},
    {"result_texts", result_texts},
    {"error_results_suffixed", error_results_suffixed},
    {"call_name_and_arguments_altered", call_name_and_arguments_altered},
    {"assistant_before_prompt", assistant_before_prompt},
    {"injection_moved_into_call", injection_moved_into_call},
    {"messages_dropped_and_inserted", messages_dropped_and_inserted},
    {"reminder_to_system", reminder_to_system},
    {"texts_mapped", texts_mapped},
    {"nothing_to_edit", nothing_to_edit},
    {NULL, NULL}};

const struct ock_suite suite_wire_edit = {"wire_edit", tests, NULL, NULL};
