/* test_message.c: the neutral model survives a trip through either wire, and bad wire JSON is
 * reported with its path. */
#include "runner.h"

#include <stdlib.h>

#include "ock/buf.h"
#include "ock/message.h"
#include "ock/status.h"
#include "ock/wire.h"

/* sample builds: system, user, assistant(text + 2 calls), 2 tool results, assistant text. */
static void sample(struct ock_history *h) {
  struct ock_tool_call calls[2] = {{"call_1", "get_weather", "{\"city\":\"Paris\"}"},
                                   {"call_2", "get_time", "{\"tz\":\"CET\"}"}};
  ock_history_init(h);
  ock_history_add_text(h, OCK_ROLE_SYSTEM, "be brief");
  ock_history_add_text(h, OCK_ROLE_USER, "weather and time?");
  ock_history_add_assistant(h, "checking", calls, 2);
  ock_history_add_tool_result(h, "call_1", "15 C", 0);
  ock_history_add_tool_result(h, "call_2", "Error: no clock", 1);
  ock_history_add_text(h, OCK_ROLE_ASSISTANT, "15 C, time unknown");
}

static void assert_same(const struct ock_history *a, const struct ock_history *b,
                        int ock__check_error) {
  OCK_ASSERT_INT_EQ(b->len, a->len);
  for (size_t i = 0; i < a->len && i < b->len; i++) {
    const struct ock_message *x = &a->items[i], *y = &b->items[i];
    OCK_ASSERT_INT_EQ(y->role, x->role);
    OCK_ASSERT_STR_EQ(y->content ? y->content : "", x->content ? x->content : "");
    OCK_ASSERT_INT_EQ(y->n_calls, x->n_calls);
    for (size_t c = 0; c < x->n_calls && c < y->n_calls; c++) {
      OCK_ASSERT_STR_EQ(y->calls[c].id, x->calls[c].id);
      OCK_ASSERT_STR_EQ(y->calls[c].name, x->calls[c].name);
      OCK_ASSERT_STR_EQ(y->calls[c].arguments, x->calls[c].arguments);
    }
    if (x->tool_call_id)
      OCK_ASSERT_STR_EQ(y->tool_call_id, x->tool_call_id);
    if (ock__check_error)
      OCK_ASSERT_INT_EQ(y->is_error, x->is_error);
  }
}

static void openai_round_trip(void) {
  struct ock_history h, back;
  sample(&h);
  ock_history_init(&back);
  cJSON *wire = NULL;
  struct ock_jerr err;
  OCK_ASSERT_OK(ock_history_to_openai(&h, &wire));
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(wire), 6);
  char *text = ock_json_print(wire);
  OCK_ASSERT_CONTAINS(text, "\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\","
                            "\"function\":{\"name\":\"get_weather\",\"arguments\":"
                            "\"{\\\"city\\\":\\\"Paris\\\"}\"}}");
  OCK_ASSERT_CONTAINS(text, "{\"role\":\"tool\",\"content\":\"15 C\",\"tool_call_id\":\"call_1\"}");
  free(text);
  OCK_ASSERT_OK(ock_history_from_openai(wire, &back, &err));
  assert_same(&h, &back, 0);
  OCK_ASSERT_INT_EQ(back.items[4].wire_index, 4);
  cJSON_Delete(wire);
  ock_history_free(&h);
  ock_history_free(&back);
}

static void anthropic_round_trip_groups_results(void) {
  struct ock_history h, back;
  sample(&h);
  ock_history_init(&back);
  cJSON *wire = NULL;
  char *system = NULL;
  struct ock_jerr err;
  OCK_ASSERT_OK(ock_history_to_anthropic(&h, &wire, &system));
  OCK_ASSERT_STR_EQ(system, "be brief");
  /* user, assistant(text+2 tool_use), user(2 tool_result), assistant */
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(wire), 4);
  char *text = ock_json_print(wire);
  OCK_ASSERT_CONTAINS(text, "{\"type\":\"tool_use\",\"id\":\"call_1\",\"name\":\"get_weather\","
                            "\"input\":{\"city\":\"Paris\"}}");
  OCK_ASSERT_CONTAINS(text, "{\"type\":\"tool_result\",\"tool_use_id\":\"call_2\","
                            "\"content\":\"Error: no clock\",\"is_error\":true}");
  free(text);
  cJSON *sys = cJSON_CreateString(system);
  OCK_ASSERT_OK(ock_history_from_anthropic(sys, wire, &back, &err));
  assert_same(&h, &back, 1);
  OCK_ASSERT_INT_EQ(back.items[3].wire_index, 2);
  OCK_ASSERT_INT_EQ(back.items[4].wire_index, 2);
  cJSON_Delete(sys);
  cJSON_Delete(wire);
  free(system);
  ock_history_free(&h);
  ock_history_free(&back);
}

static void anthropic_text_before_results_stays_first(void) {
  const char *wire_text =
      "[{\"role\":\"user\",\"content\":\"q\"},"
      "{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_1\","
      "\"name\":\"t\",\"input\":{}}]},"
      "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"note\"},"
      "{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_1\",\"content\":[{\"type\":\"text\","
      "\"text\":\"ok\"}]}]}]";
  cJSON *wire = cJSON_Parse(wire_text);
  struct ock_history h;
  struct ock_jerr err;
  ock_history_init(&h);
  OCK_ASSERT_OK(ock_history_from_anthropic(NULL, wire, &h, &err));
  OCK_ASSERT_INT_EQ(h.len, 4);
  OCK_ASSERT_INT_EQ(h.items[2].role, OCK_ROLE_USER);
  OCK_ASSERT_STR_EQ(h.items[2].content, "note");
  OCK_ASSERT_INT_EQ(h.items[3].role, OCK_ROLE_TOOL);
  OCK_ASSERT_STR_EQ(h.items[3].content, "ok");
  OCK_ASSERT_STR_EQ(h.items[1].calls[0].arguments, "{}");
  cJSON_Delete(wire);
  ock_history_free(&h);
}

static void anthropic_raw_string_input_is_the_arguments(void) {
  cJSON *wire = cJSON_Parse("[{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\","
                            "\"id\":\"toolu_1\",\"name\":\"t\",\"input\":\"{not json\"}]}]");
  struct ock_history h;
  struct ock_jerr err;
  ock_history_init(&h);
  OCK_ASSERT_OK(ock_history_from_anthropic(NULL, wire, &h, &err));
  OCK_ASSERT_STR_EQ(h.items[0].calls[0].arguments, "{not json");
  cJSON_Delete(wire);
  ock_history_free(&h);
}

static void bad_wire_names_the_path(void) {
  struct ock_history h;
  struct ock_jerr err;
  ock_history_init(&h);
  cJSON *wire = cJSON_Parse("[{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"wizard\"}]");
  OCK_ASSERT_INT_EQ(ock_history_from_openai(wire, &h, &err), OCK_ETYPE);
  OCK_ASSERT_STR_EQ(err.where, "$.messages[1].role");
  OCK_ASSERT_CONTAINS(err.what, "\"wizard\"");
  cJSON_Delete(wire);
  ock_history_free(&h);
  wire = cJSON_Parse("[{\"role\":\"tool\",\"content\":\"x\"}]");
  OCK_ASSERT_INT_EQ(ock_history_from_openai(wire, &h, &err), OCK_EMISSING);
  OCK_ASSERT_STR_EQ(err.where, "$.messages[0].tool_call_id");
  cJSON_Delete(wire);
  ock_history_free(&h);
  wire = cJSON_Parse("[{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t\","
                     "\"name\":\"n\",\"input\":[1]}]}]");
  OCK_ASSERT_INT_EQ(ock_history_from_anthropic(NULL, wire, &h, &err), OCK_ETYPE);
  OCK_ASSERT_STR_EQ(err.where, "$.messages[0].content[0].input");
  cJSON_Delete(wire);
  ock_history_free(&h);
}

/* encoded: r as w's reply body, parsed back into a tree (caller deletes). */
static cJSON *encoded(const struct ock_wire_ops *w, const struct ock_reply *r) {
  struct ock_wire_frame f = {.model = "m", .created = 1700000001, .chunk_size = 4};
  struct ock_buf b;
  ock_buf_init(&b, 1 << 20);
  OCK_ASSERT_OK(w->encode_reply(r, &f, &b));
  cJSON *j = cJSON_ParseWithLength(b.data, b.len);
  ock_buf_free(&b);
  OCK_ASSERT_NOT_NULL_FATAL(j);
  return j;
}

static void replies_round_trip_on_both_wires(void) {
  struct ock_reply r, back;
  struct ock_jerr err;
  struct ock_tool_call call = {"toolu_9", "lookup", "{\"q\":1}"};
  ock_reply_init(&r);
  ock_reply_init(&back);
  r.id = strdup("msg_1");
  r.msg.content = strdup("let me look");
  r.msg.calls = &call;
  r.msg.n_calls = 1;
  cJSON *body = encoded(&ock_wire_openai, &r);
  OCK_ASSERT_OK(ock_reply_from_openai(body, &back, &err));
  OCK_ASSERT_STR_EQ(back.msg.content, "let me look");
  OCK_ASSERT_STR_EQ(back.finish_reason, "tool_calls");
  OCK_ASSERT_STR_EQ(back.msg.calls[0].arguments, "{\"q\":1}");
  OCK_ASSERT_STR_EQ(back.id, "msg_1");
  cJSON_Delete(body);
  ock_reply_clear(&back);
  body = encoded(&ock_wire_anthropic, &r);
  OCK_ASSERT_OK(ock_reply_from_anthropic(body, &back, &err));
  OCK_ASSERT_STR_EQ(back.finish_reason, "tool_use");
  OCK_ASSERT_STR_EQ(back.msg.calls[0].id, "toolu_9");
  OCK_ASSERT_STR_EQ(back.msg.calls[0].arguments, "{\"q\":1}");
  OCK_ASSERT_STR_EQ(back.msg.content, "let me look");
  cJSON_Delete(body);
  ock_reply_clear(&back);
  r.msg.calls = NULL;
  r.msg.n_calls = 0;
  ock_reply_clear(&r);
}

static void reply_shape_errors(void) {
  struct ock_reply r;
  struct ock_jerr err;
  ock_reply_init(&r);
  cJSON *body = cJSON_Parse("{\"choices\":[]}");
  OCK_ASSERT_INT_EQ(ock_reply_from_openai(body, &r, &err), OCK_EPROTO);
  OCK_ASSERT_STR_EQ(err.where, "$.choices");
  cJSON_Delete(body);
  body = cJSON_Parse("{\"type\":\"message\",\"content\":[{\"type\":\"text\"}]}");
  OCK_ASSERT_INT_EQ(ock_reply_from_anthropic(body, &r, &err), OCK_EPROTO);
  OCK_ASSERT_STR_EQ(err.where, "$.content[0].text");
  cJSON_Delete(body);
}

static void tool_result_texts(void) {
  const char *cases[][2] = {
      {"{\"success\":true,\"output\":\"15 C\"}", "15 C"},
      {"{\"success\":true,\"output\":{\"t\":15}}", "{\"t\":15}"},
      {"{\"success\":false,\"output\":null,\"error\":{\"type\":\"x\",\"message\":\"boom\"}}",
       "Error: boom"},
      {"{\"success\":true,\"output\":null}", "null"},
      {"{\"success\":true}", "null"},
      {"{\"success\":false,\"error\":null}", "Error: unknown error"},
      {"{\"success\":true,\"output\":[1,\"a\",true]}", "[1,\"a\",true]"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cJSON *tr = cJSON_Parse(cases[i][0]);
    char *t = ock_tool_result_text(tr);
    OCK_ASSERT_STR_EQ(t, cases[i][1]);
    free(t);
    cJSON_Delete(tr);
  }
}

/* The text the reference sends is what the former cJSON tree of the history printed, byte for
 * byte (the expected string was printed by that tree): escapes, a null content beside tool
 * calls, missing arguments sent as {}. */
static void openai_text_is_the_tree_text(void) {
  struct ock_tool_call calls[2] = {{"call_1", "get_weather", "{\"city\":\"Paris\"}"},
                                   {"call_2", "get_time", NULL}};
  struct ock_history h;
  ock_history_init(&h);
  ock_history_add_text(&h, OCK_ROLE_SYSTEM, "be brief\n\"quoted\"\t\x01");
  ock_history_add_text(&h, OCK_ROLE_USER, "weather and time? \xc3\xa9");
  ock_history_add_assistant(&h, NULL, calls, 2);
  ock_history_add_tool_result(&h, "call_1", "15 C", 0);
  ock_history_add_tool_result(&h, "call_2", "Error: no clock", 1);
  ock_history_add_text(&h, OCK_ROLE_ASSISTANT, "15 C, time unknown");
  struct ock_buf text;
  ock_buf_init(&text, 1 << 20);
  OCK_ASSERT_OK(ock_history_write_openai(&h, &text));
  OCK_ASSERT_STR_EQ(
      text.data,
      "[{\"role\":\"system\",\"content\":\"be "
      "brief\\n\\\"quoted\\\"\\t\\u0001\"},{\"role\":\"user\",\"content\":\"weather and time? "
      "é\"},{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"call_1\",\"type\":"
      "\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\":"
      "\\\"Paris\\\"}\"}},{\"id\":\"call_2\",\"type\":\"function\",\"function\":{\"name\":\"get_"
      "time\",\"arguments\":\"{}\"}}]},{\"role\":\"tool\",\"content\":\"15 "
      "C\",\"tool_call_id\":\"call_1\"},{\"role\":\"tool\",\"content\":\"Error: no "
      "clock\",\"tool_call_id\":\"call_2\"},{\"role\":\"assistant\",\"content\":\"15 C, time "
      "unknown\"}]");
  cJSON *tree = NULL;
  OCK_ASSERT_OK(ock_history_to_openai(&h, &tree));
  char *printed = ock_json_print(tree);
  OCK_ASSERT_STR_EQ(printed, text.data);
  free(printed);
  cJSON_Delete(tree);
  ock_buf_free(&text);
  ock_history_free(&h);
}

static const struct ock_test tests[] = {
    {"openai_text_is_the_tree_text", openai_text_is_the_tree_text},
    {"openai_round_trip", openai_round_trip},
    {"anthropic_round_trip_groups_results", anthropic_round_trip_groups_results},
    {"anthropic_text_before_results_stays_first", anthropic_text_before_results_stays_first},
    {"anthropic_raw_string_input_is_the_arguments", anthropic_raw_string_input_is_the_arguments},
    {"bad_wire_names_the_path", bad_wire_names_the_path},
    {"replies_round_trip_on_both_wires", replies_round_trip_on_both_wires},
    {"reply_shape_errors", reply_shape_errors},
    {"tool_result_texts", tool_result_texts},
    {NULL, NULL}};
const struct ock_suite suite_message = {"message", tests, NULL, NULL};
