/* test_events.c: the lifecycle transition table and the per-event field check. */
#include "runner.h"

#include "ock/events.h"
#include "ock/status.h"

static void transitions_follow_the_table(void) {
  static const struct {
    enum ock_stage from, to;
    int ok;
  } cases[] = {
      {OCK_STAGE_INITIALIZE, OCK_STAGE_ROUTE, 1},     {OCK_STAGE_ROUTE, OCK_STAGE_PLAN, 1},
      {OCK_STAGE_PLAN, OCK_STAGE_EXECUTE, 1},         {OCK_STAGE_EXECUTE, OCK_STAGE_PLAN, 1},
      {OCK_STAGE_PLAN, OCK_STAGE_AGGREGATE, 1},       {OCK_STAGE_AGGREGATE, OCK_STAGE_COMPLETE, 1},
      {OCK_STAGE_PLAN, OCK_STAGE_ROUTE, 1},           {OCK_STAGE_INITIALIZE, OCK_STAGE_FAILED, 1},
      {OCK_STAGE_EXECUTE, OCK_STAGE_CANCELLED, 1},    {OCK_STAGE_PLAN, OCK_STAGE_PLAN, 1},
      {OCK_STAGE_INITIALIZE, OCK_STAGE_AGGREGATE, 1}, {OCK_STAGE_INITIALIZE, OCK_STAGE_PLAN, 0},
      {OCK_STAGE_ROUTE, OCK_STAGE_EXECUTE, 0},        {OCK_STAGE_EXECUTE, OCK_STAGE_AGGREGATE, 0},
      {OCK_STAGE_COMPLETE, OCK_STAGE_EXECUTE, 0},     {OCK_STAGE_FAILED, OCK_STAGE_ROUTE, 0},
      {OCK_STAGE_COMPLETE, OCK_STAGE_CANCELLED, 0},   {OCK_STAGE_AGGREGATE, OCK_STAGE_FAILED, 0},
      {OCK_STAGE_PLAN, OCK_STAGE_COMPLETE, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int got = ock_stage_transition_allowed(cases[i].from, cases[i].to);
    if (got != cases[i].ok)
      ock_test_fail(__LINE__, __FILE__, "%s -> %s allowed=%d, expected %d",
                    ock_stage_name(cases[i].from), ock_stage_name(cases[i].to), got, cases[i].ok);
    else
      CU_PASS("transition");
  }
}

static void names_and_statuses(void) {
  enum ock_stage s = OCK_STAGE_COUNT;
  for (int i = 0; i < OCK_STAGE_COUNT; i++) {
    OCK_ASSERT_OK(ock_stage_parse(ock_stage_name((enum ock_stage)i), &s));
    OCK_ASSERT_INT_EQ(s, i);
  }
  OCK_ASSERT_INT_EQ(ock_stage_parse("done", &s), OCK_EINVAL);
  OCK_ASSERT_OK(ock_stage_for_status("incomplete", &s));
  OCK_ASSERT_INT_EQ(s, OCK_STAGE_COMPLETE);
  OCK_ASSERT_OK(ock_stage_for_status("error", &s));
  OCK_ASSERT_INT_EQ(s, OCK_STAGE_FAILED);
  OCK_ASSERT_OK(ock_stage_for_status("cancelled", &s));
  OCK_ASSERT_INT_EQ(s, OCK_STAGE_CANCELLED);
  OCK_ASSERT_INT_EQ(ock_stage_for_status("completed", &s), OCK_EINVAL);
  OCK_ASSERT_TRUE(ock_stage_is_terminal(OCK_STAGE_FAILED));
  OCK_ASSERT_FALSE(ock_stage_is_terminal(OCK_STAGE_AGGREGATE));
}

static void missing_fields_are_listed(void) {
  ock_registry *r = NULL;
  struct ock_jerr err;
  OCK_ASSERT_OK(ock_registry_load_builtin(&r, &err));
  cJSON *data = cJSON_Parse("{\"orchestrator\":\"x\",\"trace_id\":\"t\"}");
  char missing[256];
  int n = ock_event_missing_fields(r, "orchestrator:complete", data, 1, missing, sizeof missing);
  OCK_ASSERT_INT_EQ(n, 3);
  OCK_ASSERT_CONTAINS(missing, "turn_count");
  OCK_ASSERT_CONTAINS(missing, "status");
  OCK_ASSERT_CONTAINS(missing, "stage");
  OCK_ASSERT_INT_EQ(ock_event_missing_fields(r, "custom:event", data, 1, missing, sizeof missing),
                    0);
  cJSON_Delete(data);
  ock_registry_free(r);
}

static const struct ock_test tests[] = {
    {"transitions_follow_the_table", transitions_follow_the_table},
    {"names_and_statuses", names_and_statuses},
    {"missing_fields_are_listed", missing_fields_are_listed},
    {NULL, NULL}};
const struct ock_suite suite_events = {"events", tests, NULL, NULL};
