/* test_events.c: the lifecycle transition table, the per-event field check, and the name
 * tables of the contract (events, journal kinds, verdicts, capabilities). */
#include "runner.h"

#include <string.h>

#include "ock/contract.h"
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
      {OCK_STAGE_INITIALIZE, OCK_STAGE_AGGREGATE, 1}, {OCK_STAGE_INITIALIZE, OCK_STAGE_PLAN, 1},
      {OCK_STAGE_ROUTE, OCK_STAGE_EXECUTE, 1},        {OCK_STAGE_EXECUTE, OCK_STAGE_AGGREGATE, 1},
      {OCK_STAGE_EXECUTE, OCK_STAGE_ROUTE, 1},        {OCK_STAGE_ROUTE, OCK_STAGE_AGGREGATE, 0},
      {OCK_STAGE_INITIALIZE, OCK_STAGE_EXECUTE, 0},   {OCK_STAGE_AGGREGATE, OCK_STAGE_PLAN, 0},
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

/* walk: 1 when the stages, in order, are one execute SPEC.md 4.4 accepts. */
static int walk(const char *const *stages) {
  struct ock_stage_walk w;
  ock_stage_walk_start(&w);
  int ok = 1;
  for (size_t i = 0; stages[i]; i++) {
    enum ock_stage s = OCK_STAGE_COUNT;
    if (ock_stage_parse(stages[i], &s))
      return -1;
    ok &= ock_stage_walk_next(&w, s);
  }
  return ok;
}

/* Both orders of SPEC.md 4.4 are accepted whole, and the pairs one order adds open no hole in the
 * other: each refused walk below breaks exactly one rule. */
static void both_orders_and_no_mix(void) {
#define S(...) ((const char *const[]){__VA_ARGS__, NULL})
  const struct {
    const char *const *stages;
    int ok;
    const char *what;
  } cases[] = {
      /* the provider-routing order of an LLM loop: route, plan, a tool round, plan, answer */
      {S("initialize", "route", "plan", "execute", "plan", "aggregate", "complete"), 1, "provider"},
      {S("initialize", "route", "plan", "route", "plan", "failed"), 1, "fallback, then failure"},
      /* CUGAR's ReferenceOrchestrator: PLAN, then ROUTE and EXECUTE per step, AGGREGATE */
      {S("initialize", "plan", "route", "execute", "aggregate", "complete"), 1, "CUGAR one step"},
      {S("initialize", "plan", "route", "execute", "route", "execute", "aggregate", "complete"), 1,
       "CUGAR two steps"},
      {S("initialize", "plan", "route", "execute", "failed"), 1, "CUGAR step fails"},
      {S("initialize", "plan", "aggregate", "complete"), 1, "CUGAR zero steps"},
      /* CUGAR's order over an LLM loop, beside provider routing: each tool call is a routed step */
      {S("initialize", "route", "plan", "route", "execute", "route", "execute", "plan", "aggregate",
         "complete"),
       1, "provider routing, then routed steps"},
      /* refused */
      {S("initialize", "route", "execute", "aggregate", "complete"), 0, "route before any plan"},
      {S("initialize", "plan", "execute", "aggregate", "complete"), 0, "unrouted step aggregated"},
      {S("initialize", "route", "plan", "execute", "route", "plan", "aggregate", "complete"), 0,
       "execute -> route in the provider order"},
      {S("initialize", "plan", "route", "execute", "plan", "execute", "plan", "aggregate",
         "complete"),
       0, "an unrouted step after routed ones"},
      {S("initialize", "route", "plan", "execute", "plan", "route", "execute", "plan", "aggregate",
         "complete"),
       0, "a routed step after unrouted ones"},
      {S("initialize", "plan", "route", "aggregate", "complete"), 0, "route -> aggregate"},
      {S("initialize", "plan", "route", "execute", "aggregate", "failed"), 0,
       "aggregate -> failed"},
      {S("initialize", "plan", "route", "execute", "complete", "execute"), 0,
       "complete -> execute"},
  };
#undef S
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int got = walk(cases[i].stages);
    if (got != cases[i].ok)
      ock_test_fail(__LINE__, __FILE__, "%s: accepted=%d, expected %d", cases[i].what, got,
                    cases[i].ok);
    else
      CU_PASS("walk");
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

/* ock_event_bad_field against the shapes of core/contract-shapes.json: each case is an event,
 * its data, and the finding wanted (NULL: every field sent fits). */
static void bad_fields_are_worded(void) {
  static const struct {
    const char *event, *data, *want;
  } cases[] = {
      /* each JSON type in a field that wants another */
      {"provider:request", "{\"provider\":\"p\",\"model\":\"m\",\"iteration\":\"1\",\"attempt\":1}",
       "data.iteration is a string, expected an integer >= 1"},
      {"provider:error", "{\"retryable\":\"false\"}",
       "data.retryable is a string, expected a boolean"},
      {"provider:error", "{\"status_code\":\"429\"}",
       "data.status_code is a string, expected an integer or null"},
      {"tool:pre", "{\"tool_call_id\":17}",
       "data.tool_call_id is the number 17, expected a string"},
      {"prompt:submit", "{\"prompt\":null}", "data.prompt is null, expected a string"},
      {"prompt:complete", "{\"response\":true}", "data.response is a boolean, expected a string"},
      {"provider:response", "{\"tool_calls\":{}}",
       "data.tool_calls is an object, expected an array"},
      {"tool:post", "{\"result\":[]}", "data.result is an array, expected an object"},
      /* null where the contract allows it, and where it does not */
      {"provider:error", "{\"status_code\":null}", NULL},
      {"provider:resolve", "{\"fallback\":null}", NULL},
      {"execution:end", "{\"response\":null}", NULL},
      {"provider:resolve", "{\"fallback\":3}",
       "data.fallback is the number 3, expected a string or null"},
      {"tool:selected", "{\"original_tool\":null}", NULL},
      /* integer against number, and the minimum */
      {"cancel:completed", "{\"turn_count\":2.5}",
       "data.turn_count is the number 2.5, expected an integer >= 0"},
      {"provider:request", "{\"iteration\":1.0}", NULL},
      {"provider:request", "{\"iteration\":0}",
       "data.iteration is the number 0, expected an integer >= 1"},
      {"cancel:requested", "{\"turn_count\":0}", NULL},
      {"cancel:requested", "{\"turn_count\":-1}",
       "data.turn_count is the number -1, expected an integer >= 0"},
      {"provider:retry", "{\"attempt\":1}",
       "data.attempt is the number 1, expected an integer >= 2"},
      {"provider:retry", "{\"attempt\":2,\"delay_ms\":0}", NULL},
      {"provider:retry", "{\"delay_ms\":1e300}", NULL},
      /* an event's own type of a field: tool:post's tool_input is an object only */
      {"tool:pre", "{\"tool_input\":\"{not json\"}", NULL},
      {"tool:post", "{\"tool_input\":\"{not json\"}",
       "data.tool_input is a string, expected an object"},
      /* items and members, one level deep */
      {"tool:selecting", "{\"available_tools\":[\"a\",3]}",
       "data.available_tools[1] is the number 3, expected a string"},
      {"provider:response", "{\"tool_calls\":[{\"id\":\"c\",\"name\":\"n\"}]}",
       "data.tool_calls[0].arguments is missing, expected a string or an object"},
      {"provider:response", "{\"tool_calls\":[{\"id\":\"c\",\"name\":\"n\",\"arguments\":{}},1]}",
       "data.tool_calls[1] is the number 1, expected an object"},
      {"provider:error", "{\"error\":{\"type\":\"x\",\"message\":5}}",
       "data.error.message is the number 5, expected a string"},
      {"tool:error", "{\"error\":{\"message\":\"m\"}}",
       "data.error.type is missing, expected a string"},
      {"tool:post", "{\"result\":{\"success\":\"yes\"}}",
       "data.result.success is a string, expected a boolean"},
      {"tool:post", "{\"result\":{\"success\":false,\"output\":[1],\"error\":null}}", NULL},
      {"tool:post", "{\"result\":{\"success\":false,\"error\":\"boom\"}}",
       "data.result.error is a string, expected an object or null"},
      {"provider:stream", "{\"tool_call_delta\":{\"index\":-1,\"arguments\":\"\"}}",
       "data.tool_call_delta.index is the number -1, expected an integer >= 0"},
      {"provider:stream", "{\"tool_call_delta\":{\"index\":0,\"arguments\":\"\",\"id\":7}}",
       "data.tool_call_delta.id is the number 7, expected a string"},
      /* the first field in registry order; optional fields when sent; what is left to others */
      {"provider:request", "{\"attempt\":\"1\",\"iteration\":\"1\"}",
       "data.iteration is a string, expected an integer >= 1"},
      {"orchestrator:complete", "{\"reason\":7}", "data.reason is the number 7, expected a string"},
      {"orchestrator:complete", "{\"orchestrator\":\"o\",\"turn_count\":1,\"status\":\"done\"}",
       NULL},
      {"provider:response", "{}", NULL},
      {"custom:event", "{\"iteration\":\"1\"}", NULL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cJSON *data = cJSON_Parse(cases[i].data);
    char got[256] = "unset";
    int bad = ock_event_bad_field(cases[i].event, data, 0, NULL, got, sizeof got);
    if (bad != (cases[i].want != NULL) || strcmp(got, cases[i].want ? cases[i].want : ""))
      ock_test_fail(__LINE__, __FILE__, "%s %s: got %d \"%s\", expected \"%s\"", cases[i].event,
                    cases[i].data, bad, got, cases[i].want ? cases[i].want : "");
    cJSON_Delete(data);
  }
}

/* The lifecycle fields are checked only when asked, and skip leaves fields out. */
static void bad_fields_lifecycle_and_skip(void) {
  cJSON *data = cJSON_Parse("{\"orchestrator\":\"o\",\"turn_count\":\"2\",\"status\":\"success\","
                            "\"trace_id\":\"t\",\"stage\":5}");
  char got[256];
  static const char *const skip[] = {"turn_count", NULL};
  OCK_ASSERT_INT_EQ(ock_event_bad_field("orchestrator:complete", data, 0, NULL, got, sizeof got),
                    1);
  OCK_ASSERT_STR_EQ(got, "data.turn_count is a string, expected an integer >= 0");
  OCK_ASSERT_INT_EQ(ock_event_bad_field("orchestrator:complete", data, 0, skip, got, sizeof got),
                    0);
  OCK_ASSERT_STR_EQ(got, "");
  OCK_ASSERT_INT_EQ(ock_event_bad_field("orchestrator:complete", data, 1, skip, got, sizeof got),
                    1);
  OCK_ASSERT_STR_EQ(got, "data.stage is the number 5, expected a string");
  /* a short buffer is cut, never overrun; no buffer at all still gives the answer */
  char small[12];
  OCK_ASSERT_INT_EQ(
      ock_event_bad_field("orchestrator:complete", data, 1, skip, small, sizeof small), 1);
  OCK_ASSERT_STR_EQ(small, "data.stage ");
  OCK_ASSERT_INT_EQ(ock_event_bad_field("orchestrator:complete", data, 1, skip, NULL, 0), 1);
  /* data that is not an object is not this function's to judge */
  cJSON *arr = cJSON_Parse("[1]");
  OCK_ASSERT_INT_EQ(ock_event_bad_field("prompt:submit", arr, 1, NULL, got, sizeof got), 0);
  OCK_ASSERT_INT_EQ(ock_event_bad_field("prompt:submit", NULL, 1, NULL, got, sizeof got), 0);
  cJSON_Delete(arr);
  cJSON_Delete(data);
}

/* The generated tables spell each name as the wire and the journal must: these literals are
 * what SPEC.md says, so a registry edit that renames one fails here as well as at compile time. */
static void contract_names_round_trip(void) {
  OCK_ASSERT_STR_EQ(ock_event_name(OCK_EVENT_ORCHESTRATOR_COMPLETE), "orchestrator:complete");
  OCK_ASSERT_INT_EQ(ock_event_parse(OCK_EV_TOOL_PRE), OCK_EVENT_TOOL_PRE);
  OCK_ASSERT_STR_EQ(ock_journal_kind_name(OCK_ENTRY_LLM_REQUEST), "llm_request");
  OCK_ASSERT_STR_EQ(OCK_F_LLM_REPLY_REQUEST_SEQ, "request_seq");
  OCK_ASSERT_STR_EQ(OCK_F_KIND, "kind");
  for (int i = 0; i < OCK_ENTRY_KNOWN; i++)
    OCK_ASSERT_INT_EQ(ock_journal_kind_parse(ock_journal_kind_name((enum ock_journal_kind)i)), i);
  OCK_ASSERT_INT_EQ(ock_journal_kind_parse("llm_answer"), OCK_ENTRY_OTHER);
  OCK_ASSERT_INT_EQ(ock_journal_kind_parse(NULL), OCK_ENTRY_OTHER);
  OCK_ASSERT_STR_EQ(ock_journal_kind_name(OCK_ENTRY_OTHER), "");
  enum ock_verdict v = OCK_VERDICT_COUNT;
  for (int i = 0; i < OCK_VERDICT_COUNT; i++) {
    OCK_ASSERT_OK(ock_verdict_parse(ock_verdict_name((enum ock_verdict)i), &v));
    OCK_ASSERT_INT_EQ(v, i);
  }
  OCK_ASSERT_INT_EQ(ock_verdict_parse("pass", &v), OCK_EINVAL);
  OCK_ASSERT_STR_EQ(ock_verdict_name(OCK_VERDICT_COUNT), "ERROR");
  enum ock_capability c = OCK_CAPABILITY_COUNT;
  OCK_ASSERT_OK(ock_capability_parse("cancellation", &c));
  OCK_ASSERT_INT_EQ(c, OCK_CAPABILITY_CANCELLATION);
  OCK_ASSERT_STR_EQ(ock_capability_name(OCK_CAPABILITY_CORE), "core");
  OCK_ASSERT_INT_EQ(ock_capability_parse("Core", &c), OCK_EINVAL);
  OCK_ASSERT_STR_EQ(ock_capability_name(OCK_CAPABILITY_COUNT), "");
}

/* A scenario's verdict is its most severe check's: the enum order is that severity. */
static void verdicts_in_order_of_severity(void) {
  static const char *const worse[] = {"SKIP", "PASS", "WARN", "FAIL", "ERROR"};
  OCK_ASSERT_INT_EQ(OCK_VERDICT_COUNT, 5);
  for (int i = 0; i < OCK_VERDICT_COUNT; i++)
    OCK_ASSERT_STR_EQ(ock_verdict_name((enum ock_verdict)i), worse[i]);
}

static const struct ock_test tests[] = {
    {"transitions_follow_the_table", transitions_follow_the_table},
    {"both_orders_and_no_mix", both_orders_and_no_mix},
    {"names_and_statuses", names_and_statuses},
    {"missing_fields_are_listed", missing_fields_are_listed},
    {"bad_fields_are_worded", bad_fields_are_worded},
    {"bad_fields_lifecycle_and_skip", bad_fields_lifecycle_and_skip},
    {"contract_names_round_trip", contract_names_round_trip},
    {"verdicts_in_order_of_severity", verdicts_in_order_of_severity},
    {NULL, NULL}};
const struct ock_suite suite_events = {"events", tests, NULL, NULL};
