/*
 * test_orchestrator.c: the engine on every exit path, with in-process fakes.
 *
 * Each test scripts the providers, tools and hooks, runs one or more prompts, and ends with
 * check_contract: exactly one orchestrator:complete, last, with the right status and
 * turn_count; a grammatical event sequence with valid stages and trace IDs; and a well-formed
 * history in the context and in every request. The asserts before it pin what is special
 * about the path.
 */
#include <stdlib.h>
#include <string.h>

#include "fakes.h"
#include "ock/buf.h"
#include "ock/status.h"
#include "runner.h"

#define TEXT(t)                                                                                    \
  { .text = (t) }
#define CALL(id, name, args)                                                                       \
  { .calls = {{(id), (name), (args)}}, .n_calls = 1 }
#define CALL2(id1, n1, a1, id2, n2, a2)                                                            \
  { .calls = {{(id1), (n1), (a1)}, {(id2), (n2), (a2)}}, .n_calls = 2 }
#define FAIL(st)                                                                                   \
  { .fail = 1, .fault = OCK_LLM_HTTP, .status = (st), .retry_after_ms = RA_NONE }
#define N(a) (sizeof(a) / sizeof((a)[0]))

#define REMINDER                                                                                   \
  "<system-reminder source=\"orchestrator-loop-limit\">\nYou have reached the maximum number "     \
  "of iterations for this turn. Please provide a response to the user now, summarizing your "      \
  "progress and noting what remains to be done.\n</system-reminder>"

static const char *msg_text(const struct ock_history *h, size_t i) {
  return i < h->len && h->items[i].content ? h->items[i].content : "(none)";
}

/* contains: 1 when some message of h has exactly this text. */
static int contains(const struct ock_history *h, const char *text) {
  for (size_t i = 0; i < h->len; i++)
    if (h->items[i].content && !strcmp(h->items[i].content, text))
      return 1;
  return 0;
}

/* ---- success --------------------------------------------------------------------------------- */

static void test_direct_answer(void) {
  static const struct fake_turn turns[] = {TEXT("Hello there.")};
  struct world w;
  world_init(&w);
  world_provider(&w, "main", 1, turns, N(turns));
  world_run(&w, "Say hello");
  check_contract(&w, OCK_EXEC_SUCCESS, 1);
  OCK_ASSERT_STR_EQ(event_names(&w),
                    "prompt:submit,execution:start,provider:resolve,provider:request,"
                    "provider:response,prompt:complete,execution:end,orchestrator:complete");
  OCK_ASSERT_STR_EQ(ock_json_str(ock__event_data(&w, "prompt:complete", 0), "response"),
                    "Hello there.");
  OCK_ASSERT_STR_EQ(w.res.response, "Hello there.");
  const struct ock_history *h = world_history(&w);
  OCK_ASSERT_INT_EQ(h->len, 2);
  OCK_ASSERT_STR_EQ(msg_text(h, 0), "Say hello");
  OCK_ASSERT_STR_EQ(msg_text(h, 1), "Hello there.");
  /* provider:request carries provider, model, 1-based iteration and attempt */
  const cJSON *rq = ock__event_data(&w, "provider:request", 0);
  OCK_ASSERT_STR_EQ(ock_json_str(rq, "provider"), "main");
  OCK_ASSERT_STR_EQ(ock_json_str(rq, "model"), "fake-model");
  OCK_ASSERT_INT_EQ(ock_json_int(rq, "iteration", 0), 1);
  OCK_ASSERT_INT_EQ(ock_json_int(rq, "attempt", 0), 1);
  OCK_ASSERT_STR_EQ(w.providers[0].trace_ids[0], "trace-test-1");
  world_free(&w);
}

static void test_tools_parallel_in_call_order(void) {
  static const struct fake_turn turns[] = {
      CALL2("c1", "slow", "{\"n\":1}", "c2", "fast", "{\"n\":2}"), TEXT("done")};
  struct world w;
  world_init(&w);
  world_provider(&w, "main", 1, turns, N(turns));
  struct fake_tool *slow = world_tool(&w, "slow", "{\"success\":true,\"output\":\"slow out\"}");
  struct fake_tool *fast = world_tool(&w, "fast", "{\"success\":true,\"output\":{\"k\":[1,2]}}");
  slow->delay_ms = 150;
  fast->delay_ms = 50;
  world_run(&w, "go");
  check_contract(&w, OCK_EXEC_SUCCESS, 2);
  /* both started before either ended: they overlapped */
  OCK_ASSERT_TRUE(fast->started_ms[0] < slow->ended_ms[0] &&
                  slow->started_ms[0] < fast->ended_ms[0]);
  OCK_ASSERT_STR_EQ(slow->inputs[0], "{\"n\":1}");
  OCK_ASSERT_STR_EQ(slow->ids[0], "c1");
  OCK_ASSERT_STR_EQ(slow->trace_ids[0], "trace-test-1");
  const struct ock_history *h = world_history(&w);
  OCK_ASSERT_INT_EQ(h->len, 5);
  OCK_ASSERT_STR_EQ(h->items[2].tool_call_id, "c1"); /* call order, though c2 ended first */
  OCK_ASSERT_STR_EQ(msg_text(h, 2), "slow out");
  OCK_ASSERT_STR_EQ(msg_text(h, 3), "{\"k\":[1,2]}");
  /* one parallel_group_id for the response, on pre/post of both calls */
  const char *g = ock_json_str(ock__event_data(&w, "tool:pre", 0), "parallel_group_id");
  OCK_ASSERT_TRUE(g && strlen(g) == 36);
  OCK_ASSERT_STR_EQ(ock_json_str(ock__event_data(&w, "tool:pre", 1), "parallel_group_id"), g);
  OCK_ASSERT_STR_EQ(ock_json_str(ock__event_data(&w, "tool:post", 0), "parallel_group_id"), g);
  OCK_ASSERT_STR_EQ(ock_json_str(ock__event_data(&w, "tool:post", 1), "parallel_group_id"), g);
  /* the second request keeps the assistant message with the calls the provider sent */
  const struct ock_history *req2 = &w.providers[0].seen[1];
  OCK_ASSERT_INT_EQ(req2->len, 4);
  OCK_ASSERT_INT_EQ(req2->items[1].n_calls, 2);
  OCK_ASSERT_STR_EQ(req2->items[1].calls[1].id, "c2");
  /* provider:response shows the calls as the model sent them */
  const cJSON *calls =
      cJSON_GetObjectItemCaseSensitive(ock__event_data(&w, "provider:response", 0), "tool_calls");
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(calls), 2);
  OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetArrayItem(calls, 1), "name"), "fast");
  OCK_ASSERT_INT_EQ(
      ock_json_int(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(calls, 0), "arguments"), "n",
                   0),
      1);
  world_free(&w);
}

static void test_group_ids_differ_per_response(void) {
  static const struct fake_turn turns[] = {CALL("a", "t", "{}"), CALL("b", "t", "{}"), TEXT("ok")};
  struct world w;
  world_init(&w);
  world_provider(&w, "main", 1, turns, N(turns));
  world_tool(&w, "t", NULL);
  world_run(&w, "go");
  check_contract(&w, OCK_EXEC_SUCCESS, 3);
  const char *g1 = ock_json_str(ock__event_data(&w, "tool:pre", 0), "parallel_group_id");
  const char *g2 = ock_json_str(ock__event_data(&w, "tool:pre", 1), "parallel_group_id");
  OCK_ASSERT_TRUE(g1 && g2 && strcmp(g1, g2) != 0);
  world_free(&w);
}

static void test_sequential_when_not_parallel(void) {
  static const struct fake_turn turns[] = {CALL2("c1", "t", "{}", "c2", "t", "{}"), TEXT("ok")};
  struct world w;
  world_init(&w);
  w.cfg.parallel_tools = 0;
  world_provider(&w, "main", 1, turns, N(turns));
  world_tool(&w, "t", NULL);
  world_run(&w, "go");
  check_contract(&w, OCK_EXEC_SUCCESS, 2);
  OCK_ASSERT_CONTAINS(event_names(&w), "tool:pre,tool:post,tool:pre,tool:post");
  world_free(&w);
}

/* ---- max iterations -------------------------------------------------------------------------- */

static void test_max_iterations_wrap_up(void) {
  static const struct fake_turn turns[] = {
      CALL("c1", "t", "{}"),
      CALL("c2", "t", "{}"),
      {.text = "Summary so far.", .calls = {{"c3", "t", "{}"}}, .n_calls = 1},
      TEXT("next answer")};
  struct world w;
  world_init(&w);
  w.cfg.max_iterations = 2;
  struct fake_provider *p = world_provider(&w, "main", 1, turns, N(turns));
  struct fake_tool *t = world_tool(&w, "t", NULL);
  world_run(&w, "loop forever");
  check_contract(&w, OCK_EXEC_INCOMPLETE, 3);
  OCK_ASSERT_STR_EQ(w.res.reason, "max_iterations");
  OCK_ASSERT_STR_EQ(ock_json_str(ock__event_data(&w, "orchestrator:complete", 0), "reason"),
                    "max_iterations");
  OCK_ASSERT_STR_EQ(ock_json_str(ock__event_data(&w, "prompt:complete", 0), "response"),
                    "Summary so far.");
  OCK_ASSERT_INT_EQ(t->calls, 2); /* the wrap-up reply's call is neither run... */
  /* the wrap-up request: reminder last, role user, no tools offered */
  const struct ock_history *wrap = &p->seen[2];
  OCK_ASSERT_INT_EQ(wrap->items[wrap->len - 1].role, OCK_ROLE_USER);
  OCK_ASSERT_STR_EQ(msg_text(wrap, wrap->len - 1), REMINDER);
  OCK_ASSERT_INT_EQ(p->tools_offered[2], 0);
  OCK_ASSERT_INT_EQ(p->tools_offered[1], 1);
  OCK_ASSERT_INT_EQ(ock_json_int(ock__event_data(&w, "provider:request", 2), "iteration", 0), 3);
  /* ...nor stored; the reminder is never stored */
  const struct ock_history *h = world_history(&w);
  OCK_ASSERT_STR_EQ(msg_text(h, h->len - 1), "Summary so far.");
  OCK_ASSERT_INT_EQ(h->items[h->len - 1].n_calls, 0);
  OCK_ASSERT_FALSE(contains(h, REMINDER));
  world_run(&w, "and now?");
  check_contract(&w, OCK_EXEC_SUCCESS, 1);
  OCK_ASSERT_FALSE(contains(&p->seen[3], REMINDER));
  world_free(&w);
}

/* ---- hooks ----------------------------------------------------------------------------------- */

static void test_deny_prompt_submit(void) {
  static const struct fake_turn turns[] = {TEXT("never")};
  static const struct hook_rule rules[] = {
      {"prompt:submit", 0, NULL, "{\"action\":\"deny\",\"reason\":\"policy\"}", 0}};
  struct world w;
  world_init(&w);
  struct fake_provider *p = world_provider(&w, "main", 1, turns, N(turns));
  world_rules(&w, rules, N(rules));
  world_run(&w, "forbidden");
  check_contract(&w, OCK_EXEC_INCOMPLETE, 0);
  OCK_ASSERT_STR_EQ(w.res.reason, "denied");
  OCK_ASSERT_STR_EQ(ock_json_str(ock__event_data(&w, "prompt:complete", 0), "response"),
                    "Denied: policy");
  OCK_ASSERT_INT_EQ(p->requests, 0);
  OCK_ASSERT_INT_EQ(count_events(&w, "provider:request"), 0);
  OCK_ASSERT_INT_EQ(world_history(&w)->len, 0);
  world_free(&w);
}

static void test_deny_provider_request(void) {
  static const struct fake_turn turns[] = {TEXT("never")};
  static const struct hook_rule rules[] = {
      {"provider:request", 0, NULL, "{\"action\":\"deny\",\"reason\":\"budget\"}", 0}};
  struct world w;
  world_init(&w);
  struct fake_provider *p = world_provider(&w, "main", 1, turns, N(turns));
  world_rules(&w, rules, N(rules));
  world_run(&w, "hi");
  check_contract(&w, OCK_EXEC_INCOMPLETE, 0);
  OCK_ASSERT_STR_EQ(w.res.reason, "denied");
  OCK_ASSERT_INT_EQ(p->requests, 0);
  const struct ock_history *h = world_history(&w);
  OCK_ASSERT_INT_EQ(h->len, 1); /* the context keeps what it holds; nothing for the denial */
  OCK_ASSERT_STR_EQ(ock_json_str(ock__event_data(&w, "prompt:complete", 0), "response"),
                    "Denied: budget");
  world_free(&w);
}

static void test_deny_provider_request_later_turn(void) {
  static const struct fake_turn turns[] = {CALL("c1", "t", "{}"), TEXT("never")};
  static const struct hook_rule rules[] = {
      {"provider:request", 2, NULL, "{\"action\":\"deny\",\"reason\":\"enough\"}", 0}};
  struct world w;
  world_init(&w);
  struct fake_provider *p = world_provider(&w, "main", 1, turns, N(turns));
  world_tool(&w, "t", NULL);
  world_rules(&w, rules, N(rules));
  world_run(&w, "hi");
  check_contract(&w, OCK_EXEC_INCOMPLETE, 1);
  OCK_ASSERT_INT_EQ(p->requests, 1);
  world_free(&w);
}

static void test_deny_tool_pre(void) {
  static const struct fake_turn turns[] = {CALL2("c1", "rm", "{}", "c2", "ls", "{}"), TEXT("ok")};
  static const struct hook_rule rules[] = {
      {"tool:pre", 0, "rm", "{\"action\":\"deny\",\"reason\":\"dangerous\"}", 0}};
  struct world w;
  world_init(&w);
  world_provider(&w, "main", 1, turns, N(turns));
  struct fake_tool *rm = world_tool(&w, "rm", NULL);
  struct fake_tool *ls = world_tool(&w, "ls", NULL);
  world_rules(&w, rules, N(rules));
  world_run(&w, "clean up");
  check_contract(&w, OCK_EXEC_SUCCESS, 2);
  OCK_ASSERT_INT_EQ(rm->calls, 0);
  OCK_ASSERT_INT_EQ(ls->calls, 1);
  const cJSON *e = ock__event_data(&w, "tool:error", 0);
  OCK_ASSERT_STR_EQ(ock_json_str(e, "tool_call_id"), "c1");
  OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetObjectItemCaseSensitive(e, "error"), "type"), "denied");
  OCK_ASSERT_STR_EQ(msg_text(world_history(&w), 2), "Error: denied: dangerous");
  OCK_ASSERT_TRUE(world_history(&w)->items[2].is_error);
  world_free(&w);
}

static void test_ask_user_is_deny(void) {
  static const struct fake_turn turns[] = {CALL("c1", "t", "{}"), TEXT("ok")};
  static const struct hook_rule rules[] = {{"tool:pre", 0, NULL, "{\"action\":\"ask_user\"}", 0}};
  struct world w;
  world_init(&w);
  world_provider(&w, "main", 1, turns, N(turns));
  struct fake_tool *t = world_tool(&w, "t", NULL);
  world_rules(&w, rules, N(rules));
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_SUCCESS, 2);
  OCK_ASSERT_INT_EQ(t->calls, 0);
  OCK_ASSERT_STR_EQ(msg_text(world_history(&w), 2), "Error: denied: No approval system available");
  world_free(&w);
}

static void test_modify_tool_pre(void) {
  static const struct fake_turn turns[] = {CALL("c1", "t", "{\"path\":\"/etc\"}"), TEXT("ok")};
  static const struct hook_rule rules[] = {
      {"tool:pre", 0, NULL, "{\"action\":\"modify\",\"data\":{\"tool_input\":{\"path\":\"/tmp\"}}}",
       0}};
  struct world w;
  world_init(&w);
  world_provider(&w, "main", 1, turns, N(turns));
  struct fake_tool *t = world_tool(&w, "t", NULL);
  world_rules(&w, rules, N(rules));
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_SUCCESS, 2);
  OCK_ASSERT_STR_EQ(t->inputs[0], "{\"path\":\"/tmp\"}");
  /* the assistant message keeps the model's call */
  OCK_ASSERT_STR_EQ(world_history(&w)->items[1].calls[0].arguments, "{\"path\":\"/etc\"}");
  world_free(&w);
}

static void test_inject_kept_after_results(void) {
  static const struct fake_turn turns[] = {CALL2("c1", "t", "{}", "c2", "t", "{}"), TEXT("ok"),
                                           TEXT("later")};
  static const struct hook_rule rules[] = {
      {"tool:pre", 1, NULL,
       "{\"action\":\"inject_context\",\"context_injection\":\"NOTE\",\"context_injection_role\":"
       "\"user\"}",
       0}};
  struct world w;
  world_init(&w);
  struct fake_provider *p = world_provider(&w, "main", 1, turns, N(turns));
  world_tool(&w, "t", NULL);
  world_rules(&w, rules, N(rules));
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_SUCCESS, 2);
  const struct ock_history *h = world_history(&w);
  /* user, assistant(c1,c2), result c1, result c2, NOTE, answer */
  OCK_ASSERT_STR_EQ(msg_text(h, 4), "NOTE");
  OCK_ASSERT_INT_EQ(h->items[4].role, OCK_ROLE_USER);
  OCK_ASSERT_TRUE(contains(&p->seen[1], "NOTE"));
  world_run(&w, "y");
  check_contract(&w, OCK_EXEC_SUCCESS, 1);
  OCK_ASSERT_TRUE(contains(&p->seen[2], "NOTE")); /* kept: in later requests too */
  world_free(&w);
}

static void test_inject_ephemeral_next_request_only(void) {
  static const struct fake_turn turns[] = {CALL("c1", "t", "{}"), TEXT("ok")};
  static const struct hook_rule rules[] = {
      {"prompt:submit", 0, NULL,
       "{\"action\":\"inject_context\",\"context_injection\":\"EPHEMERAL\",\"ephemeral\":true}",
       0}};
  struct world w;
  world_init(&w);
  struct fake_provider *p = world_provider(&w, "main", 1, turns, N(turns));
  world_tool(&w, "t", NULL);
  world_rules(&w, rules, N(rules));
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_SUCCESS, 2);
  OCK_ASSERT_TRUE(contains(&p->seen[0], "EPHEMERAL"));
  OCK_ASSERT_INT_EQ(p->seen[0].items[p->seen[0].len - 1].role, OCK_ROLE_SYSTEM);
  OCK_ASSERT_FALSE(contains(&p->seen[1], "EPHEMERAL"));
  OCK_ASSERT_FALSE(contains(world_history(&w), "EPHEMERAL"));
  world_free(&w);
}

static void test_inject_kept_placement(void) {
  static const struct fake_turn turns[] = {TEXT("answer"), TEXT("second")};
  static const struct hook_rule rules[] = {
      {"prompt:submit", 1, NULL,
       "{\"action\":\"inject_context\",\"context_injection\":\"AFTER-PROMPT\"}", 0},
      {"provider:response", 1, NULL,
       "{\"action\":\"inject_context\",\"context_injection\":\"AT-END\"}", 0},
      {"prompt:complete", 0, NULL,
       "{\"action\":\"inject_context\",\"context_injection\":\"IGNORED\"}", 0}};
  struct world w;
  world_init(&w);
  struct fake_provider *p = world_provider(&w, "main", 1, turns, N(turns));
  world_rules(&w, rules, N(rules));
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_SUCCESS, 1);
  const struct ock_history *h = world_history(&w);
  /* user prompt, its injection, the provider:response injection (stored at once), the answer */
  OCK_ASSERT_INT_EQ(h->len, 4);
  OCK_ASSERT_STR_EQ(msg_text(h, 0), "x");
  OCK_ASSERT_STR_EQ(msg_text(h, 1), "AFTER-PROMPT");
  OCK_ASSERT_INT_EQ(h->items[1].role, OCK_ROLE_SYSTEM);
  OCK_ASSERT_STR_EQ(msg_text(h, 2), "AT-END");
  OCK_ASSERT_STR_EQ(msg_text(h, 3), "answer");
  OCK_ASSERT_TRUE(contains(&p->seen[0], "AFTER-PROMPT"));
  world_run(&w, "y");
  OCK_ASSERT_TRUE(contains(&p->seen[1], "AT-END"));
  OCK_ASSERT_FALSE(contains(world_history(&w), "IGNORED"));
  world_free(&w);
}

static void test_inject_ephemeral_dropped_at_end(void) {
  static const struct fake_turn turns[] = {TEXT("answer"), TEXT("second")};
  static const struct hook_rule rules[] = {
      {"provider:response", 1, NULL,
       "{\"action\":\"inject_context\",\"context_injection\":\"LATE\",\"ephemeral\":true}", 0}};
  struct world w;
  world_init(&w);
  struct fake_provider *p = world_provider(&w, "main", 1, turns, N(turns));
  world_rules(&w, rules, N(rules));
  world_run(&w, "x");
  world_run(&w, "y");
  check_contract(&w, OCK_EXEC_SUCCESS, 1);
  OCK_ASSERT_FALSE(contains(&p->seen[1], "LATE")); /* not carried into the next execute */
  world_free(&w);
}

static void test_inject_on_provider_request_is_in_that_request(void) {
  static const struct fake_turn turns[] = {TEXT("ok")};
  static const struct hook_rule rules[] = {
      {"provider:request", 0, NULL,
       "{\"action\":\"inject_context\",\"context_injection\":\"KEPT\"}", 0}};
  struct world w;
  world_init(&w);
  struct fake_provider *p = world_provider(&w, "main", 1, turns, N(turns));
  world_rules(&w, rules, N(rules));
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_SUCCESS, 1);
  OCK_ASSERT_TRUE(contains(&p->seen[0], "KEPT"));
  OCK_ASSERT_TRUE(contains(world_history(&w), "KEPT"));
  world_free(&w);
}

/* ---- tools ----------------------------------------------------------------------------------- */

static void test_tool_not_found(void) {
  static const struct fake_turn turns[] = {CALL("c1", "nope", "{}"), TEXT("sorry")};
  struct world w;
  world_init(&w);
  world_provider(&w, "main", 1, turns, N(turns));
  world_tool(&w, "t", NULL);
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_SUCCESS, 2);
  OCK_ASSERT_CONTAINS(event_names(&w), "tool:pre,tool:error");
  const cJSON *e = ock__event_data(&w, "tool:error", 0);
  OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetObjectItemCaseSensitive(e, "error"), "type"),
                    "not_found");
  OCK_ASSERT_STR_EQ(msg_text(world_history(&w), 2), "Error: tool 'nope' not found");
  world_free(&w);
}

static void test_tool_success_false(void) {
  static const struct fake_turn turns[] = {CALL("c1", "t", "{}"), TEXT("ok")};
  struct world w;
  world_init(&w);
  world_provider(&w, "main", 1, turns, N(turns));
  world_tool(
      &w, "t",
      "{\"success\":false,\"output\":null,\"error\":{\"type\":\"x\",\"message\":\"disk full\"}}");
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_SUCCESS, 2);
  const cJSON *post = ock__event_data(&w, "tool:post", 0);
  OCK_ASSERT_TRUE(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(post, "result"), "success")));
  OCK_ASSERT_INT_EQ(count_events(&w, "tool:error"), 0);
  OCK_ASSERT_STR_EQ(msg_text(world_history(&w), 2), "Error: disk full");
  world_free(&w);
}

static void test_tool_endpoint_failure_continue(void) {
  static const struct fake_turn turns[] = {CALL("c1", "t", "{}"), TEXT("ok")};
  struct world w;
  world_init(&w);
  world_provider(&w, "main", 1, turns, N(turns));
  world_tool(&w, "t", NULL)->fail_rc = OCK_EHTTP;
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_SUCCESS, 2);
  const cJSON *e = ock__event_data(&w, "tool:error", 0);
  OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetObjectItemCaseSensitive(e, "error"), "type"),
                    "execution_failed");
  OCK_ASSERT_STR_EQ(msg_text(world_history(&w), 2), "Error: fake tool t failed");
  world_free(&w);
}

static void test_tool_timeout(void) {
  static const struct fake_turn turns[] = {CALL("c1", "t", "{}"), TEXT("ok")};
  struct world w;
  world_init(&w);
  world_provider(&w, "main", 1, turns, N(turns));
  world_tool(&w, "t", NULL)->fail_rc = OCK_ETIMEDOUT;
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_SUCCESS, 2);
  const cJSON *e = ock__event_data(&w, "tool:error", 0);
  OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetObjectItemCaseSensitive(e, "error"), "type"), "timeout");
  world_free(&w);
}

static void test_tool_result_without_success(void) {
  static const struct fake_turn turns[] = {CALL("c1", "t", "{}"), TEXT("ok")};
  struct world w;
  world_init(&w);
  world_provider(&w, "main", 1, turns, N(turns));
  world_tool(&w, "t", "{\"output\":\"no success member\"}");
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_SUCCESS, 2);
  const cJSON *e = ock__event_data(&w, "tool:error", 0);
  OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetObjectItemCaseSensitive(e, "error"), "type"),
                    "execution_failed");
  OCK_ASSERT_CONTAINS(msg_text(world_history(&w), 2), "Error: ");
  world_free(&w);
}

static void test_tool_invalid_arguments(void) {
  static const struct fake_turn turns[] = {CALL2("c1", "t", "{\"a\":", "c2", "t", "[1]"),
                                           TEXT("ok")};
  struct world w;
  world_init(&w);
  world_provider(&w, "main", 1, turns, N(turns));
  struct fake_tool *t = world_tool(&w, "t", NULL);
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_SUCCESS, 2);
  OCK_ASSERT_INT_EQ(t->calls, 0);
  OCK_ASSERT_INT_EQ(count_events(&w, "tool:error"), 2);
  const cJSON *e = ock__event_data(&w, "tool:error", 0);
  OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetObjectItemCaseSensitive(e, "error"), "type"),
                    "invalid_arguments");
  OCK_ASSERT_CONTAINS(msg_text(world_history(&w), 2), "Error: invalid arguments: ");
  /* tool:pre shows the raw text when it is not JSON */
  OCK_ASSERT_STR_EQ(
      cJSON_GetObjectItemCaseSensitive(ock__event_data(&w, "tool:pre", 0), "tool_input")
          ->valuestring,
      "{\"a\":");
  world_free(&w);
}

static void test_fail_fast_tool_failure(void) {
  static const struct fake_turn turns[] = {CALL2("c1", "bad", "{}", "c2", "good", "{}"), TEXT("x")};
  struct world w;
  world_init(&w);
  w.cfg.error_strategy = OCK_ERROR_STRATEGY_FAIL_FAST;
  w.cfg.parallel_tools = 0;
  struct fake_provider *p = world_provider(&w, "main", 1, turns, N(turns));
  world_tool(&w, "bad", NULL)->fail_rc = OCK_EIO;
  struct fake_tool *good = world_tool(&w, "good", NULL);
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_ERROR, 1);
  OCK_ASSERT_STR_EQ(w.res.error_type, "execution_failed");
  OCK_ASSERT_INT_EQ(good->calls, 0); /* not started after the failure... */
  const struct ock_history *h = world_history(&w);
  OCK_ASSERT_INT_EQ(h->len, 4); /* ...but answered */
  OCK_ASSERT_STR_EQ(msg_text(h, 3), "Error: skipped: an earlier tool call failed (fail_fast)");
  OCK_ASSERT_INT_EQ(p->requests, 1);
  world_free(&w);
}

static void test_fail_fast_parallel_answers_all(void) {
  static const struct fake_turn turns[] = {CALL2("c1", "bad", "{}", "c2", "good", "{}"), TEXT("x")};
  struct world w;
  world_init(&w);
  w.cfg.error_strategy = OCK_ERROR_STRATEGY_FAIL_FAST;
  world_provider(&w, "main", 1, turns, N(turns));
  world_tool(&w, "bad", NULL)->fail_rc = OCK_EIO;
  world_tool(&w, "good", NULL);
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_ERROR, 1);
  OCK_ASSERT_INT_EQ(world_history(&w)->len, 4);
  OCK_ASSERT_STR_EQ(msg_text(world_history(&w), 3), "ok");
  world_free(&w);
}

/* ---- provider errors under each strategy ------------------------------------------------------
 */

static void provider_error_ends(enum ock_error_strategy s) {
  static const struct fake_turn turns[] = {FAIL(503), TEXT("never")};
  struct world w;
  world_init(&w);
  w.cfg.error_strategy = s;
  struct fake_provider *p = world_provider(&w, "main", 1, turns, N(turns));
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_ERROR, 1);
  OCK_ASSERT_INT_EQ(p->requests, 1);
  OCK_ASSERT_INT_EQ(count_events(&w, "provider:retry"), 0);
  const cJSON *e = ock__event_data(&w, "provider:error", 0);
  OCK_ASSERT_INT_EQ(ock_json_int(e, "status_code", 0), 503);
  OCK_ASSERT_TRUE(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "retryable")));
  OCK_ASSERT_INT_EQ(ock_json_int(e, "attempt", 0), 1);
  OCK_ASSERT_STR_EQ(w.res.error_type, "fake_error");
  OCK_ASSERT_CONTAINS(w.res.error_message, "scripted failure");
  /* the context stays valid: the next prompt runs */
  world_run(&w, "again");
  check_contract(&w, OCK_EXEC_SUCCESS, 1);
  world_free(&w);
}

static void test_provider_error_continue(void) {
  provider_error_ends(OCK_ERROR_STRATEGY_CONTINUE);
}

static void test_provider_error_fail_fast(void) {
  provider_error_ends(OCK_ERROR_STRATEGY_FAIL_FAST);
}

static void test_retry_then_success(void) {
  static const struct fake_turn turns[] = {FAIL(429), FAIL(500), TEXT("finally")};
  struct world w;
  world_init(&w);
  w.cfg.error_strategy = OCK_ERROR_STRATEGY_RETRY;
  w.cfg.retry_base_delay_ms = 1000;
  struct fake_provider *p = world_provider(&w, "main", 1, turns, N(turns));
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_SUCCESS, 1);
  OCK_ASSERT_INT_EQ(p->requests, 3);
  OCK_ASSERT_INT_EQ(count_events(&w, "provider:retry"), 2);
  OCK_ASSERT_INT_EQ(ock_json_int(ock__event_data(&w, "provider:retry", 0), "attempt", 0), 2);
  OCK_ASSERT_INT_EQ(ock_json_int(ock__event_data(&w, "provider:retry", 0), "delay_ms", 0), 1000);
  OCK_ASSERT_INT_EQ(ock_json_int(ock__event_data(&w, "provider:retry", 1), "delay_ms", 0), 2000);
  OCK_ASSERT_INT_EQ(ock_json_int(ock__event_data(&w, "provider:request", 2), "attempt", 0), 3);
  OCK_ASSERT_INT_EQ(ock_json_int(ock__event_data(&w, "provider:request", 2), "iteration", 0), 1);
  OCK_ASSERT_INT_EQ(w.n_sleeps, 2);
  OCK_ASSERT_INT_EQ(w.sleeps[1], 2000);
  world_free(&w);
}

static void test_retry_exhausted(void) {
  static const struct fake_turn turns[] = {FAIL(503), FAIL(503), FAIL(503), TEXT("never")};
  struct world w;
  world_init(&w);
  w.cfg.error_strategy = OCK_ERROR_STRATEGY_RETRY;
  w.cfg.max_retries = 2;
  struct fake_provider *p = world_provider(&w, "main", 1, turns, N(turns));
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_ERROR, 1);
  OCK_ASSERT_INT_EQ(p->requests, 3);
  OCK_ASSERT_INT_EQ(count_events(&w, "provider:retry"), 2);
  OCK_ASSERT_INT_EQ(count_events(&w, "provider:error"), 3);
  world_free(&w);
}

static void test_retry_not_retryable(void) {
  static const struct fake_turn turns[] = {FAIL(401), TEXT("never")};
  struct world w;
  world_init(&w);
  w.cfg.error_strategy = OCK_ERROR_STRATEGY_RETRY;
  world_provider(&w, "main", 1, turns, N(turns));
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_ERROR, 1);
  OCK_ASSERT_INT_EQ(count_events(&w, "provider:retry"), 0);
  OCK_ASSERT_TRUE(cJSON_IsFalse(
      cJSON_GetObjectItemCaseSensitive(ock__event_data(&w, "provider:error", 0), "retryable")));
  world_free(&w);
}

static void test_retry_after_and_cap(void) {
  static const struct fake_turn turns[] = {
      {.fail = 1, .fault = OCK_LLM_HTTP, .status = 429, .retry_after_ms = 1500},
      {.fail = 1, .fault = OCK_LLM_HTTP, .status = 429, .retry_after_ms = 999999},
      {.fail = 1, .fault = OCK_LLM_CONNECTION, .retry_after_ms = RA_NONE},
      TEXT("ok")};
  struct world w;
  world_init(&w);
  w.cfg.error_strategy = OCK_ERROR_STRATEGY_RETRY;
  w.cfg.max_retries = 3;
  w.cfg.retry_base_delay_ms = 4000;
  w.cfg.retry_max_delay_ms = 5000;
  world_provider(&w, "main", 1, turns, N(turns));
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_SUCCESS, 1);
  OCK_ASSERT_INT_EQ(w.sleeps[0], 1500); /* retry-after replaces the backoff */
  OCK_ASSERT_INT_EQ(w.sleeps[1], 5000); /* and is capped */
  OCK_ASSERT_INT_EQ(w.sleeps[2], 5000); /* backoff 4000*2^2 capped */
  OCK_ASSERT_TRUE(cJSON_IsNull(
      cJSON_GetObjectItemCaseSensitive(ock__event_data(&w, "provider:error", 2), "status_code")));
  world_free(&w);
}

static void test_fallback_next_provider(void) {
  static const struct fake_turn bad[] = {FAIL(503), FAIL(503), FAIL(503)};
  static const struct fake_turn good[] = {CALL("c1", "t", "{}"), TEXT("from backup")};
  struct world w;
  world_init(&w);
  w.cfg.error_strategy = OCK_ERROR_STRATEGY_FALLBACK;
  w.cfg.max_retries = 2;
  struct fake_provider *b = world_provider(&w, "backup", 5, good, N(good));
  struct fake_provider *a = world_provider(&w, "primary", 1, bad, N(bad));
  world_tool(&w, "t", NULL);
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_SUCCESS, 2);
  OCK_ASSERT_INT_EQ(a->requests, 3);
  OCK_ASSERT_INT_EQ(b->requests, 2);
  OCK_ASSERT_INT_EQ(count_events(&w, "provider:resolve"), 2);
  const cJSON *r0 = ock__event_data(&w, "provider:resolve", 0),
              *r1 = ock__event_data(&w, "provider:resolve", 1);
  OCK_ASSERT_STR_EQ(ock_json_str(r0, "provider"), "primary");
  OCK_ASSERT_STR_EQ(ock_json_str(r0, "fallback"), "backup");
  OCK_ASSERT_STR_EQ(ock_json_str(r1, "provider"), "backup");
  OCK_ASSERT_TRUE(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(r1, "fallback")));
  OCK_ASSERT_CONTAINS(ock_json_str(r1, "reason"), "fallback after \"primary\" failed");
  OCK_ASSERT_INT_EQ(ock_json_int(ock__event_data(&w, "provider:request", 3), "attempt", 0), 4);
  OCK_ASSERT_STR_EQ(ock_json_str(ock__event_data(&w, "provider:request", 3), "provider"), "backup");
  world_free(&w);
}

static void test_fallback_budget_per_provider(void) {
  static const struct fake_turn bad[] = {FAIL(503), FAIL(503), FAIL(503)};
  static const struct fake_turn flaky[] = {FAIL(503), FAIL(503), TEXT("third time lucky")};
  struct world w;
  world_init(&w);
  w.cfg.error_strategy = OCK_ERROR_STRATEGY_FALLBACK;
  w.cfg.max_retries = 2;
  world_provider(&w, "a", 1, bad, N(bad));
  struct fake_provider *b = world_provider(&w, "b", 2, flaky, N(flaky));
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_SUCCESS, 1);
  OCK_ASSERT_INT_EQ(b->requests, 3); /* the retry budget starts again on the fallback */
  OCK_ASSERT_INT_EQ(count_events(&w, "provider:retry"), 4);
  OCK_ASSERT_INT_EQ(ock_json_int(ock__event_data(&w, "provider:request", 5), "attempt", 0), 6);
  world_free(&w);
}

static void test_fallback_non_retryable_and_exhausted(void) {
  static const struct fake_turn bad[] = {FAIL(401)};
  static const struct fake_turn worse[] = {FAIL(400)};
  struct world w;
  world_init(&w);
  w.cfg.error_strategy = OCK_ERROR_STRATEGY_FALLBACK;
  world_provider(&w, "a", 1, bad, N(bad));
  world_provider(&w, "b", 2, worse, N(worse));
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_ERROR, 1);
  OCK_ASSERT_INT_EQ(count_events(&w, "provider:retry"), 0);
  OCK_ASSERT_INT_EQ(count_events(&w, "provider:resolve"), 2);
  OCK_ASSERT_INT_EQ(count_events(&w, "provider:error"), 2);
  world_free(&w);
}

static void test_routing_deterministic_across_executes(void) {
  static const struct fake_turn t1[] = {TEXT("a"), TEXT("b")};
  static const struct fake_turn t2[] = {TEXT("never")};
  struct world w;
  world_init(&w);
  world_provider(&w, "second", 2, t2, N(t2));
  world_provider(&w, "first", 1, t1, N(t1));
  world_run(&w, "x");
  char reason[256];
  snprintf(reason, sizeof reason, "%s",
           ock_json_str(ock__event_data(&w, "provider:resolve", 0), "reason"));
  world_run(&w, "y");
  check_contract(&w, OCK_EXEC_SUCCESS, 1);
  OCK_ASSERT_STR_EQ(ock_json_str(ock__event_data(&w, "provider:resolve", 0), "provider"), "first");
  OCK_ASSERT_STR_EQ(ock_json_str(ock__event_data(&w, "provider:resolve", 0), "reason"), reason);
  world_free(&w);
}

/* ---- streaming ------------------------------------------------------------------------------- */

static void test_streaming_deltas_add_up(void) {
  static const struct fake_turn turns[] = {
      {.text = "Let me look.", .calls = {{"c1", "t", "{\"q\":\"abc\"}"}}, .n_calls = 1},
      TEXT("The answer is 42.")};
  struct world w;
  world_init(&w);
  w.cfg.mode = OCK_MODE_STREAMING;
  struct fake_provider *p = world_provider(&w, "main", 1, turns, N(turns));
  struct fake_tool *t = world_tool(&w, "t", NULL);
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_SUCCESS, 2);
  OCK_ASSERT_TRUE(p->streamed[0]);
  OCK_ASSERT_STR_EQ(t->inputs[0], "{\"q\":\"abc\"}");
  /* the text deltas of the second reply add up to its content */
  struct ock_buf joined;
  ock_buf_init(&joined, 1024);
  int n = count_events(&w, "provider:stream");
  OCK_ASSERT_INT_GT(n, 4);
  for (int i = 0; i < n; i++) {
    const cJSON *d = ock__event_data(&w, "provider:stream", i);
    if (ock_json_int(d, "iteration", 0) == 2)
      OCK_ASSERT_OK(ock_buf_puts(&joined, ock_json_str(d, "delta")));
  }
  OCK_ASSERT_STR_EQ(joined.data,
                    ock_json_str(ock__event_data(&w, "provider:response", 1), "content"));
  ock_buf_free(&joined);
  const cJSON *tcd = cJSON_GetObjectItemCaseSensitive(ock__event_data(&w, "provider:stream", 4),
                                                      "tool_call_delta");
  OCK_ASSERT_STR_EQ(ock_json_str(tcd, "id"), "c1");
  world_free(&w);
}

static void test_streaming_cut_is_error_then_retry(void) {
  static const struct fake_turn turns[] = {
      {.text = "partial text", .calls = {{"c1", "t", "{}"}}, .n_calls = 1, .stream_cut_after = 5},
      TEXT("whole")};
  struct world w;
  world_init(&w);
  w.cfg.mode = OCK_MODE_STREAMING;
  w.cfg.error_strategy = OCK_ERROR_STRATEGY_RETRY;
  world_provider(&w, "main", 1, turns, N(turns));
  struct fake_tool *t = world_tool(&w, "t", NULL);
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_SUCCESS, 1);
  OCK_ASSERT_INT_EQ(t->calls, 0); /* no partial tool call runs */
  OCK_ASSERT_INT_EQ(count_events(&w, "provider:retry"), 1);
  const cJSON *e = ock__event_data(&w, "provider:error", 0);
  OCK_ASSERT_TRUE(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "retryable")));
  OCK_ASSERT_STR_EQ(msg_text(world_history(&w), 1), "whole");
  world_free(&w);
}

/* ---- events mode (scheduling) ------------------------------------------------------------------
 */

static void test_events_mode_selection(void) {
  static const struct fake_turn turns[] = {CALL("c1", "t", "{}"), TEXT("ok")};
  struct world w;
  world_init(&w);
  w.cfg.mode = OCK_MODE_EVENTS;
  world_provider(&w, "main", 1, turns, N(turns));
  world_tool(&w, "t", NULL);
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_SUCCESS, 2);
  OCK_ASSERT_CONTAINS(event_names(&w), "tool:selecting,tool:selected,tool:pre,tool:post");
  const cJSON *sel = ock__event_data(&w, "tool:selected", 0);
  OCK_ASSERT_STR_EQ(ock_json_str(sel, "source"), "llm");
  OCK_ASSERT_TRUE(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(sel, "original_tool")));
  const cJSON *av =
      cJSON_GetObjectItemCaseSensitive(ock__event_data(&w, "tool:selecting", 0), "available_tools");
  OCK_ASSERT_STR_EQ(cJSON_GetArrayItem(av, 0)->valuestring, "t");
  world_free(&w);
}

static void test_events_mode_veto(void) {
  static const struct fake_turn turns[] = {CALL("c1", "expensive", "{}"), TEXT("ok")};
  static const struct hook_rule rules[] = {
      {"tool:selecting", 0, NULL, "{\"action\":\"deny\",\"reason\":\"Cost limit exceeded\"}", 0}};
  struct world w;
  world_init(&w);
  w.cfg.mode = OCK_MODE_EVENTS;
  world_provider(&w, "main", 1, turns, N(turns));
  struct fake_tool *t = world_tool(&w, "expensive", NULL);
  world_rules(&w, rules, N(rules));
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_SUCCESS, 2);
  OCK_ASSERT_INT_EQ(t->calls, 0);
  OCK_ASSERT_CONTAINS(event_names(&w), "tool:selecting,tool:error,provider:request");
  OCK_ASSERT_INT_EQ(count_events(&w, "tool:pre"), 0);
  OCK_ASSERT_STR_EQ(msg_text(world_history(&w), 2), "Error: denied: Cost limit exceeded");
  world_free(&w);
}

static void test_events_mode_modify(void) {
  static const struct fake_turn turns[] = {CALL("c1", "slow_tool", "{\"q\":1}"), TEXT("ok")};
  static const struct hook_rule rules[] = {
      {"tool:selecting", 0, NULL,
       "{\"action\":\"modify\",\"data\":{\"tool\":\"fast_tool\",\"tool_input\":{\"q\":2}}}", 0}};
  struct world w;
  world_init(&w);
  w.cfg.mode = OCK_MODE_EVENTS;
  world_provider(&w, "main", 1, turns, N(turns));
  struct fake_tool *slow = world_tool(&w, "slow_tool", NULL);
  struct fake_tool *fast = world_tool(&w, "fast_tool", NULL);
  world_rules(&w, rules, N(rules));
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_SUCCESS, 2);
  OCK_ASSERT_INT_EQ(slow->calls, 0);
  OCK_ASSERT_INT_EQ(fast->calls, 1);
  OCK_ASSERT_STR_EQ(fast->inputs[0], "{\"q\":2}");
  const cJSON *sel = ock__event_data(&w, "tool:selected", 0);
  OCK_ASSERT_STR_EQ(ock_json_str(sel, "source"), "scheduler");
  OCK_ASSERT_STR_EQ(ock_json_str(sel, "original_tool"), "slow_tool");
  OCK_ASSERT_STR_EQ(ock_json_str(sel, "tool_name"), "fast_tool");
  OCK_ASSERT_STR_EQ(world_history(&w)->items[1].calls[0].name, "slow_tool");
  world_free(&w);
}

/* ---- cancellation -----------------------------------------------------------------------------
 */

static void test_cancel_before_llm(void) {
  static const struct fake_turn turns[] = {TEXT("never"), TEXT("next")};
  static const struct hook_rule rules[] = {{"prompt:submit", 1, NULL, NULL, 1}};
  struct world w;
  world_init(&w);
  struct fake_provider *p = world_provider(&w, "main", 1, turns, N(turns));
  world_rules(&w, rules, N(rules));
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_CANCELLED, 0);
  OCK_ASSERT_INT_EQ(p->requests, 0);
  const struct ock_history *h = world_history(&w);
  OCK_ASSERT_STR_EQ(msg_text(h, h->len - 1), "The previous operation was cancelled.");
  OCK_ASSERT_INT_EQ(h->items[h->len - 1].role, OCK_ROLE_ASSISTANT);
  world_rules(&w, NULL, 0);
  world_run(&w, "y");
  check_contract(&w, OCK_EXEC_SUCCESS, 1);
  world_free(&w);
}

static void test_cancel_in_flight_request(void) {
  static const struct fake_turn turns[] = {{.cancel_in_flight = 1}, TEXT("next")};
  struct world w;
  world_init(&w);
  world_provider(&w, "main", 1, turns, N(turns));
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_CANCELLED, 1);
  const cJSON *e = ock__event_data(&w, "provider:error", 0);
  OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetObjectItemCaseSensitive(e, "error"), "type"),
                    "cancelled");
  OCK_ASSERT_CONTAINS(event_names(&w), "provider:error,cancel:requested,cancel:completed,"
                                       "execution:end,orchestrator:complete");
  OCK_ASSERT_INT_EQ(world_history(&w)->len, 2);
  world_run(&w, "y");
  check_contract(&w, OCK_EXEC_SUCCESS, 1);
  world_free(&w);
}

static void test_cancel_during_tools(void) {
  static const struct fake_turn turns[] = {
      {.calls = {{"c1", "quick", "{}"}, {"c2", "slow", "{}"}, {"c3", "trigger", "{}"}},
       .n_calls = 3},
      TEXT("next")};
  struct world w;
  world_init(&w);
  struct fake_provider *p = world_provider(&w, "main", 1, turns, N(turns));
  world_tool(&w, "quick", "{\"success\":true,\"output\":\"quick done\"}");
  world_tool(&w, "slow", NULL)->wait_for_cancel = 1;
  struct fake_tool *trig = world_tool(&w, "trigger", "{\"success\":true,\"output\":\"t done\"}");
  trig->cancel_on_call = 1;
  trig->delay_ms = 20;
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_CANCELLED, 1);
  OCK_ASSERT_INT_EQ(p->requests, 1); /* no new LLM request after the cancel */
  const struct ock_history *h = world_history(&w);
  OCK_ASSERT_STR_EQ(msg_text(h, 2), "quick done"); /* finished results kept */
  OCK_ASSERT_STR_EQ(msg_text(h, 3), "Error: cancelled");
  OCK_ASSERT_STR_EQ(msg_text(h, 4), "t done");
  OCK_ASSERT_STR_EQ(msg_text(h, 5), "The previous operation was cancelled.");
  OCK_ASSERT_INT_EQ(count_events(&w, "tool:error"), 1);
  world_run(&w, "y");
  check_contract(&w, OCK_EXEC_SUCCESS, 1);
  world_free(&w);
}

static void test_cancel_sequential_unstarted(void) {
  static const struct fake_turn turns[] = {CALL2("c1", "trigger", "{}", "c2", "never", "{}"),
                                           TEXT("next")};
  struct world w;
  world_init(&w);
  w.cfg.parallel_tools = 0;
  world_provider(&w, "main", 1, turns, N(turns));
  world_tool(&w, "trigger", NULL)->cancel_on_call = 1;
  struct fake_tool *never = world_tool(&w, "never", NULL);
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_CANCELLED, 1);
  OCK_ASSERT_INT_EQ(never->calls, 0);
  OCK_ASSERT_INT_EQ(count_events(&w, "tool:pre"), 1); /* no tool start after cancel:requested */
  OCK_ASSERT_STR_EQ(msg_text(world_history(&w), 3), "Error: cancelled");
  world_free(&w);
}

static void test_cancel_after_tools(void) {
  static const struct fake_turn turns[] = {CALL("c1", "t", "{}"), TEXT("next")};
  static const struct hook_rule rules[] = {{"tool:post", 1, NULL, NULL, 1}};
  struct world w;
  world_init(&w);
  struct fake_provider *p = world_provider(&w, "main", 1, turns, N(turns));
  world_tool(&w, "t", NULL);
  world_rules(&w, rules, N(rules));
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_CANCELLED, 1);
  OCK_ASSERT_INT_EQ(p->requests, 1);
  OCK_ASSERT_STR_EQ(msg_text(world_history(&w), 2), "ok");
  world_free(&w);
}

static void test_cancel_after_response_with_calls(void) {
  static const struct fake_turn turns[] = {CALL("c1", "t", "{}"), TEXT("next")};
  static const struct hook_rule rules[] = {{"provider:response", 1, NULL, NULL, 1}};
  struct world w;
  world_init(&w);
  world_provider(&w, "main", 1, turns, N(turns));
  struct fake_tool *t = world_tool(&w, "t", NULL);
  world_rules(&w, rules, N(rules));
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_CANCELLED, 1);
  OCK_ASSERT_INT_EQ(t->calls, 0);
  OCK_ASSERT_INT_EQ(count_events(&w, "tool:pre"), 0);
  OCK_ASSERT_STR_EQ(msg_text(world_history(&w), 2), "Error: cancelled");
  world_free(&w);
}

static void test_cancel_after_final_answer(void) {
  static const struct fake_turn turns[] = {TEXT("the answer"), TEXT("next")};
  static const struct hook_rule rules[] = {{"provider:response", 1, NULL, NULL, 1}};
  struct world w;
  world_init(&w);
  world_provider(&w, "main", 1, turns, N(turns));
  world_rules(&w, rules, N(rules));
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_CANCELLED, 1);
  const struct ock_history *h = world_history(&w);
  OCK_ASSERT_INT_EQ(h->len, 2); /* the undelivered answer is not stored; the closing message is */
  OCK_ASSERT_STR_EQ(msg_text(h, 1), "The previous operation was cancelled.");
  world_free(&w);
}

static void test_cancel_between_selection_and_start(void) {
  static const struct fake_turn turns[] = {CALL2("c1", "t", "{}", "c2", "t", "{}"), TEXT("next")};
  static const struct hook_rule rules[] = {{"tool:selected", 1, NULL, NULL, 1}};
  struct world w;
  world_init(&w);
  w.cfg.mode = OCK_MODE_EVENTS;
  world_provider(&w, "main", 1, turns, N(turns));
  struct fake_tool *t = world_tool(&w, "t", NULL);
  world_rules(&w, rules, N(rules));
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_CANCELLED, 1);
  OCK_ASSERT_INT_EQ(t->calls, 0);
  OCK_ASSERT_INT_EQ(count_events(&w, "tool:selecting"), 1); /* c2 never selected */
  const cJSON *e = ock__event_data(&w, "tool:error", 0);
  OCK_ASSERT_STR_EQ(ock_json_str(e, "tool_call_id"), "c1");
  OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetObjectItemCaseSensitive(e, "error"), "type"),
                    "cancelled");
  OCK_ASSERT_STR_EQ(msg_text(world_history(&w), 3), "Error: cancelled");
  world_free(&w);
}

static void test_cancel_during_provider_request_event(void) {
  static const struct fake_turn turns[] = {TEXT("never"), TEXT("next")};
  static const struct hook_rule rules[] = {{"provider:request", 1, NULL, NULL, 1}};
  struct world w;
  world_init(&w);
  struct fake_provider *p = world_provider(&w, "main", 1, turns, N(turns));
  world_rules(&w, rules, N(rules));
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_CANCELLED, 0); /* never sent: not a turn */
  OCK_ASSERT_INT_EQ(p->requests, 0);
  OCK_ASSERT_CONTAINS(event_names(&w), "provider:request,cancel:requested,provider:error");
  world_free(&w);
}

static void test_cancel_during_tool_pre_event(void) {
  static const struct fake_turn turns[] = {CALL2("c1", "t", "{}", "c2", "t", "{}"), TEXT("next")};
  static const struct hook_rule rules[] = {{"tool:pre", 1, NULL, NULL, 1}};
  struct world w;
  world_init(&w);
  world_provider(&w, "main", 1, turns, N(turns));
  struct fake_tool *t = world_tool(&w, "t", NULL);
  world_rules(&w, rules, N(rules));
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_CANCELLED, 1);
  OCK_ASSERT_INT_EQ(t->calls, 0);
  OCK_ASSERT_INT_EQ(count_events(&w, "tool:pre"), 1);
  const struct ock_history *h = world_history(&w);
  OCK_ASSERT_STR_EQ(msg_text(h, 2), "Error: cancelled");
  OCK_ASSERT_STR_EQ(msg_text(h, 3), "Error: cancelled");
  world_free(&w);
}

static void test_cancel_during_retry_wait(void) {
  static const struct fake_turn turns[] = {FAIL(503), TEXT("never")};
  static const struct hook_rule rules[] = {{"provider:retry", 1, NULL, NULL, 1}};
  struct world w;
  world_init(&w);
  w.cfg.error_strategy = OCK_ERROR_STRATEGY_RETRY;
  struct fake_provider *p = world_provider(&w, "main", 1, turns, N(turns));
  world_rules(&w, rules, N(rules));
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_CANCELLED, 1);
  OCK_ASSERT_INT_EQ(p->requests, 1);
  world_free(&w);
}

static void test_cancel_streaming(void) {
  static const struct fake_turn turns[] = {TEXT("a long streamed answer"), TEXT("next")};
  static const struct hook_rule rules[] = {{"provider:stream", 2, NULL, NULL, 1}};
  struct world w;
  world_init(&w);
  w.cfg.mode = OCK_MODE_STREAMING;
  world_provider(&w, "main", 1, turns, N(turns));
  world_rules(&w, rules, N(rules));
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_CANCELLED, 1);
  OCK_ASSERT_INT_EQ(count_events(&w, "provider:stream"), 2);
  OCK_ASSERT_INT_EQ(count_events(&w, "provider:response"), 0); /* the reply is discarded */
  OCK_ASSERT_INT_EQ(world_history(&w)->len, 2);
  world_free(&w);
}

static void test_cancel_outside_execute_is_ignored(void) {
  static const struct fake_turn turns[] = {TEXT("fine")};
  struct world w;
  world_init(&w);
  world_provider(&w, "main", 1, turns, N(turns));
  world_start(&w);
  ock_orchestrator_cancel(w.o);
  world_run(&w, "x");
  check_contract(&w, OCK_EXEC_SUCCESS, 1);
  world_free(&w);
}

/* ---- invalid input ----------------------------------------------------------------------------
 */

static void test_empty_prompt(void) {
  static const struct fake_turn turns[] = {TEXT("fine")};
  const char *bad[] = {"", "  \n\t ", NULL};
  struct world w;
  world_init(&w);
  struct fake_provider *p = world_provider(&w, "main", 1, turns, N(turns));
  for (int i = 0; i < 3; i++) {
    world_run(&w, bad[i]);
    check_contract(&w, OCK_EXEC_ERROR, 0);
    OCK_ASSERT_STR_EQ(w.res.error_type, "invalid_input");
    OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetObjectItemCaseSensitive(
                                       ock__event_data(&w, "orchestrator:complete", 0), "error"),
                                   "type"),
                      "invalid_input");
    OCK_ASSERT_STR_EQ(event_names(&w), "prompt:submit,execution:start,execution:end,"
                                       "orchestrator:complete");
  }
  OCK_ASSERT_INT_EQ(p->requests, 0);
  OCK_ASSERT_INT_EQ(world_history(&w)->len, 0);
  world_run(&w, "real");
  check_contract(&w, OCK_EXEC_SUCCESS, 1);
  world_free(&w);
}

static void test_no_provider(void) {
  struct world w;
  world_init(&w);
  world_run(&w, "hello");
  check_contract(&w, OCK_EXEC_ERROR, 0);
  OCK_ASSERT_STR_EQ(w.res.error_type, "no_provider");
  OCK_ASSERT_INT_EQ(world_history(&w)->len, 0);
  world_free(&w);
}

static void test_api_misuse(void) {
  ock_orchestrator *o = NULL;
  OCK_ASSERT_OK(ock_orchestrator_new(NULL, &o));
  struct ock_exec_result res;
  OCK_ASSERT_INT_EQ(ock_orchestrator_execute(o, "x", NULL, NULL, NULL, 0, NULL, 0, NULL, &res),
                    OCK_EINVAL);
  /* no hooks and no exec context: a trace ID is made up, the contract still holds */
  ock_memctx *m = NULL;
  OCK_ASSERT_OK(ock_memctx_new(&m));
  OCK_ASSERT_OK(
      ock_orchestrator_execute(o, "x", NULL, ock_memctx_context(m), NULL, 0, NULL, 0, NULL, &res));
  OCK_ASSERT_STR_EQ(res.error_type, "no_provider");
  ock_exec_result_clear(&res);
  ock_memctx_free(m);
  ock_orchestrator_free(o);
  ock_orchestrator_free(NULL);
  ock_orchestrator_cancel(NULL);
}

static void test_names(void) {
  enum ock_mode m;
  enum ock_error_strategy s;
  OCK_ASSERT_OK(ock_mode_parse("events", &m));
  OCK_ASSERT_INT_EQ(m, OCK_MODE_EVENTS);
  OCK_ASSERT_INT_EQ(ock_mode_parse("turbo", &m), OCK_EINVAL);
  OCK_ASSERT_OK(ock_error_strategy_parse("fallback", &s));
  OCK_ASSERT_STR_EQ(ock_error_strategy_name(s), "fallback");
  OCK_ASSERT_STR_EQ(ock_mode_name(OCK_MODE_STREAMING), "streaming");
  OCK_ASSERT_STR_EQ(ock_exec_status_name(OCK_EXEC_CANCELLED), "cancelled");
}

static const struct ock_test tests[] = {
    {"direct_answer", test_direct_answer},
    {"tools_parallel_in_call_order", test_tools_parallel_in_call_order},
    {"group_ids_differ_per_response", test_group_ids_differ_per_response},
    {"sequential_when_not_parallel", test_sequential_when_not_parallel},
    {"max_iterations_wrap_up", test_max_iterations_wrap_up},
    {"deny_prompt_submit", test_deny_prompt_submit},
    {"deny_provider_request", test_deny_provider_request},
    {"deny_provider_request_later_turn", test_deny_provider_request_later_turn},
    {"deny_tool_pre", test_deny_tool_pre},
    {"ask_user_is_deny", test_ask_user_is_deny},
    {"modify_tool_pre", test_modify_tool_pre},
    {"inject_kept_after_results", test_inject_kept_after_results},
    {"inject_ephemeral_next_request_only", test_inject_ephemeral_next_request_only},
    {"inject_kept_placement", test_inject_kept_placement},
    {"inject_ephemeral_dropped_at_end", test_inject_ephemeral_dropped_at_end},
    {"inject_on_provider_request", test_inject_on_provider_request_is_in_that_request},
    {"tool_not_found", test_tool_not_found},
    {"tool_success_false", test_tool_success_false},
    {"tool_endpoint_failure_continue", test_tool_endpoint_failure_continue},
    {"tool_timeout", test_tool_timeout},
    {"tool_result_without_success", test_tool_result_without_success},
    {"tool_invalid_arguments", test_tool_invalid_arguments},
    {"fail_fast_tool_failure", test_fail_fast_tool_failure},
    {"fail_fast_parallel_answers_all", test_fail_fast_parallel_answers_all},
    {"provider_error_continue", test_provider_error_continue},
    {"provider_error_fail_fast", test_provider_error_fail_fast},
    {"retry_then_success", test_retry_then_success},
    {"retry_exhausted", test_retry_exhausted},
    {"retry_not_retryable", test_retry_not_retryable},
    {"retry_after_and_cap", test_retry_after_and_cap},
    {"fallback_next_provider", test_fallback_next_provider},
    {"fallback_budget_per_provider", test_fallback_budget_per_provider},
    {"fallback_non_retryable_and_exhausted", test_fallback_non_retryable_and_exhausted},
    {"routing_deterministic_across_executes", test_routing_deterministic_across_executes},
    {"streaming_deltas_add_up", test_streaming_deltas_add_up},
    {"streaming_cut_is_error_then_retry", test_streaming_cut_is_error_then_retry},
    {"events_mode_selection", test_events_mode_selection},
    {"events_mode_veto", test_events_mode_veto},
    {"events_mode_modify", test_events_mode_modify},
    {"cancel_before_llm", test_cancel_before_llm},
    {"cancel_in_flight_request", test_cancel_in_flight_request},
    {"cancel_during_tools", test_cancel_during_tools},
    {"cancel_sequential_unstarted", test_cancel_sequential_unstarted},
    {"cancel_after_tools", test_cancel_after_tools},
    {"cancel_after_response_with_calls", test_cancel_after_response_with_calls},
    {"cancel_after_final_answer", test_cancel_after_final_answer},
    {"cancel_between_selection_and_start", test_cancel_between_selection_and_start},
    {"cancel_during_provider_request_event", test_cancel_during_provider_request_event},
    {"cancel_during_tool_pre_event", test_cancel_during_tool_pre_event},
    {"cancel_during_retry_wait", test_cancel_during_retry_wait},
    {"cancel_streaming", test_cancel_streaming},
    {"cancel_outside_execute_is_ignored", test_cancel_outside_execute_is_ignored},
    {"empty_prompt", test_empty_prompt},
    {"no_provider", test_no_provider},
    {"api_misuse", test_api_misuse},
    {"names", test_names},
    {NULL, NULL}};

const struct ock_suite orchestrator_suite = {"orchestrator", tests, NULL, NULL};
