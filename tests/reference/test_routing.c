/* test_routing.c: deterministic routing decisions with a reason and a fallback. */
#include <string.h>

#include "ock/orchestrator.h"
#include "ock/status.h"
#include "runner.h"

static void test_lowest_priority_then_list_order(void) {
  struct ock_provider a = {.name = "a", .priority = 2}, b = {.name = "b", .priority = 1},
                      c = {.name = "c", .priority = 1};
  const struct ock_provider *ps[] = {&a, &b, &c};
  struct ock_route r, again;
  ock_route_decide(ps, 3, NULL, NULL, &r);
  OCK_ASSERT_INT_EQ(r.target, 1);   /* b: priority 1, listed before c */
  OCK_ASSERT_INT_EQ(r.fallback, 2); /* c: the next by the same order */
  OCK_ASSERT_CONTAINS(r.reason, "lowest priority number (1)");
  ock_route_decide(ps, 3, NULL, NULL, &again); /* a pure function: same in, same out */
  OCK_ASSERT_INT_EQ(again.target, r.target);
  OCK_ASSERT_STR_EQ(again.reason, r.reason);
  unsigned char failed[3] = {0, 1, 0};
  ock_route_decide(ps, 3, failed, "b", &r);
  OCK_ASSERT_INT_EQ(r.target, 2);
  OCK_ASSERT_INT_EQ(r.fallback, 0);
  OCK_ASSERT_CONTAINS(r.reason, "fallback after \"b\" failed");
  failed[2] = 1;
  ock_route_decide(ps, 3, failed, "c", &r);
  OCK_ASSERT_INT_EQ(r.target, 0);
  OCK_ASSERT_INT_EQ(r.fallback, -1);
  failed[0] = 1;
  ock_route_decide(ps, 3, failed, "a", &r);
  OCK_ASSERT_INT_EQ(r.target, -1);
  OCK_ASSERT_CONTAINS(r.reason, "no provider left");
  ock_route_decide(ps, 0, NULL, NULL, &r);
  OCK_ASSERT_INT_EQ(r.target, -1);
}

static void test_exec_context(void) {
  ock_exec_context *root = NULL, *meta = NULL, *child = NULL, *bad = NULL;
  OCK_ASSERT_INT_EQ(ock_exec_context_new("", &bad), OCK_EINVAL);
  OCK_ASSERT_INT_EQ(ock_exec_context_new(NULL, &bad), OCK_EINVAL);
  OCK_ASSERT_INT_EQ(ock_exec_context_new("has space", &bad), OCK_EINVAL);
  OCK_ASSERT_OK(ock_exec_context_new("trace-1", &root));
  cJSON *v = cJSON_CreateString("alice");
  OCK_ASSERT_OK(ock_exec_context_with_metadata(root, "user", v, &meta));
  cJSON_SetValuestring(v, "mallory"); /* the context kept its own copy */
  cJSON_Delete(v);
  OCK_ASSERT_STR_EQ(ock_json_str(ock_exec_context_metadata(meta), "user"), "alice");
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(ock_exec_context_metadata(root)), 0); /* root unchanged */
  OCK_ASSERT_STR_EQ(ock_exec_context_trace_id(meta), "trace-1");
  OCK_ASSERT_NULL(ock_exec_context_parent(meta));
  OCK_ASSERT_OK(ock_exec_context_child(meta, &child));
  OCK_ASSERT_TRUE(ock_exec_context_parent(child) == meta);
  OCK_ASSERT_INT_EQ(ock_exec_context_depth(child), 1);
  OCK_ASSERT_STR_EQ(ock_exec_context_trace_id(child), "trace-1");
  OCK_ASSERT_STR_EQ(ock_json_str(ock_exec_context_metadata(child), "user"), "alice");
  ock_exec_context_free(root);
  ock_exec_context_free(meta); /* the child still holds its parent */
  OCK_ASSERT_STR_EQ(ock_exec_context_trace_id(ock_exec_context_parent(child)), "trace-1");
  ock_exec_context *grand = NULL, *grand_meta = NULL;
  cJSON *n = cJSON_CreateNumber(2);
  OCK_ASSERT_OK(ock_exec_context_child(child, &grand));
  OCK_ASSERT_OK(ock_exec_context_with_metadata(grand, "step", n, &grand_meta));
  cJSON_Delete(n);
  OCK_ASSERT_INT_EQ(ock_exec_context_depth(grand_meta), 2);
  OCK_ASSERT_TRUE(ock_exec_context_parent(grand_meta) == child);
  ock_exec_context_free(grand);
  ock_exec_context_free(grand_meta);
  ock_exec_context_free(child);
  ock_exec_context_free(NULL);
}

static void test_memctx(void) {
  ock_memctx *m = NULL;
  OCK_ASSERT_OK(ock_memctx_new(&m));
  const struct ock_context *c = ock_memctx_context(m);
  struct ock_message u = {.role = OCK_ROLE_USER, .content = "hi", .wire_index = -1};
  OCK_ASSERT_OK(c->add_message(c->self, &u));
  struct ock_history out;
  ock_history_init(&out);
  OCK_ASSERT_OK(c->messages_for_request(c->self, NULL, &out));
  OCK_ASSERT_INT_EQ(out.len, 1);
  OCK_ASSERT_STR_EQ(out.items[0].content, "hi");
  ock_history_free(&out);
  OCK_ASSERT_INT_EQ(ock_memctx_history(m)->len, 1);
  ock_memctx_free(m);
  ock_memctx_free(NULL);
}

static void test_hook_result(void) {
  struct ock_hook_result r;
  struct ock_jerr err;
  ock_hook_result_init(&r);
  cJSON *j = cJSON_Parse("{\"action\":\"inject_context\",\"context_injection\":\"x\","
                         "\"context_injection_role\":\"user\",\"ephemeral\":true,\"extra\":1}");
  OCK_ASSERT_OK(ock_hook_result_from_json(j, &r, &err));
  OCK_ASSERT_INT_EQ(r.action, OCK_HOOK_INJECT_CONTEXT);
  OCK_ASSERT_INT_EQ(r.injection_role, OCK_ROLE_USER);
  OCK_ASSERT_TRUE(r.ephemeral);
  OCK_ASSERT_STR_EQ(r.context_injection, "x");
  ock_hook_result_clear(&r);
  cJSON_Delete(j);
  j = cJSON_Parse("{\"action\":\"modify\",\"data\":{\"tool_input\":{}},\"reason\":\"r\"}");
  OCK_ASSERT_OK(ock_hook_result_from_json(j, &r, &err));
  OCK_ASSERT_INT_EQ(r.action, OCK_HOOK_MODIFY);
  OCK_ASSERT_TRUE(cJSON_IsObject(r.data));
  OCK_ASSERT_STR_EQ(r.reason, "r");
  ock_hook_result_clear(&r);
  cJSON_Delete(j);
  j = cJSON_Parse("{\"action\":\"allow\"}");
  OCK_ASSERT_INT_EQ(ock_hook_result_from_json(j, &r, &err), OCK_ETYPE);
  OCK_ASSERT_STR_EQ(err.where, "$.action");
  cJSON_Delete(j);
  j = cJSON_Parse("{}");
  OCK_ASSERT_OK(ock_hook_result_from_json(j, &r, &err));
  OCK_ASSERT_INT_EQ(r.action, OCK_HOOK_CONTINUE);
  cJSON_Delete(j);
}

static const struct ock_test tests[] = {
    {"lowest_priority_then_list_order", test_lowest_priority_then_list_order},
    {"exec_context", test_exec_context},
    {"memctx", test_memctx},
    {"hook_result", test_hook_result},
    {NULL, NULL}};

const struct ock_suite routing_suite = {"routing", tests, NULL, NULL};
