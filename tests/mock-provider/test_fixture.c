/* test_fixture.c: loading and checking fixtures (mock-provider/fixture.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ock/fixture.h"
#include "ock/status.h"
#include "runner.h"

#define BASE_SESSION                                                                               \
  "\"session\":{\"prompts\":[\"hi\"],\"providers\":[{\"name\":\"main\",\"api\":\"openai\","        \
  "\"model\":\"m\"},{\"name\":\"alt\",\"api\":\"anthropic\",\"model\":\"c\",\"priority\":5}],"     \
  "\"tools\":[{\"name\":\"get_weather\",\"description\":\"d\",\"input_schema\":{}}]}"

/* load_error loads text and returns the formatted error ("" when it loaded). */
static const char *load_error(const char *text) {
  static char msg[1200];
  cJSON *j = cJSON_Parse(text);
  if (!j) {
    ock_test_fail(__LINE__, __FILE__, "test JSON does not parse: %s", text);
    return "";
  }
  struct ock_fixture *f = NULL;
  struct ock_jerr err;
  msg[0] = '\0';
  if (ock_fixture_load(j, NULL, &f, &err))
    ock_jerr_format(&err, msg, sizeof msg);
  ock_fixture_free(f);
  cJSON_Delete(j);
  return msg;
}

static void test_full_fixture_loads(void) {
  cJSON *j = cJSON_Parse(
      "{\"ock_fixture\":1,\"id\":\"s1\",\"title\":\"t\",\"proves\":\"p\",\"requirements\":[],"
      "\"capabilities\":[\"core\"]," BASE_SESSION ",\"script\":{\"main\":[{\"tool_calls\":[{"
      "\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\"}},{\"name\":\"x\","
      "\"arguments_raw\":\"{oops\"}]},{\"match\":{\"last_tool_call_id\":\"call_1\"},\"text\":"
      "\"done\",\"finish_reason\":\"length\",\"chunk_size\":3,\"delay_ms\":5,\"fault\":{"
      "\"status\":429,\"retry_after\":1.5}}],\"alt\":[{\"text\":\"x\",\"stop_reason\":"
      "\"refusal\",\"fault\":{\"kind\":\"drop_connection\",\"after_bytes\":10}}]},\"tools\":{"
      "\"get_weather\":{\"result\":{\"success\":true,\"output\":\"15\"},\"calls\":[{\"status\":"
      "500}]}},\"hooks\":[{\"event\":\"tool:pre\",\"occurrence\":2,\"match\":{\"tool_name\":"
      "\"get_weather\"},\"reply\":{\"action\":\"deny\",\"reason\":\"no\"}}],\"cancel\":{\"at\":"
      "\"tool\",\"tool\":\"get_weather\"},\"random_faults\":[{\"on\":\"llm\",\"probability\":0.5,"
      "\"fault\":{\"status\":503}},{\"on\":\"tool\",\"tool\":\"get_weather\",\"probability\":1}],"
      "\"seed\":42,\"observe_only\":true,\"expect\":{"
      "\"executes\":[{\"status\":\"success\",\"turn_count\":2}],\"events_absent\":["
      "\"tool:error\",{\"event\":\"x:y\",\"requirement\":\"R-1\"}],\"tool_calls\":{"
      "\"get_weather\":1,\"requirement\":\"R-2\"},\"timing\":{\"between_requests_ms\":"
      "[{\"min\":10},{\"max\":20}]}}}");
  struct ock_fixture *f = NULL;
  struct ock_jerr err;
  int rc = ock_fixture_load(j, NULL, &f, &err);
  cJSON_Delete(j); /* the fixture keeps its own copy */
  if (rc) {
    ock_test_fail(__LINE__, __FILE__, "%s: %s", err.where, err.what);
    return;
  }
  OCK_ASSERT_STR_EQ(f->id, "s1");
  OCK_ASSERT_INT_EQ(f->n_providers, 2);
  OCK_ASSERT_INT_EQ(f->providers[0].priority, 100);
  OCK_ASSERT_INT_EQ(f->providers[1].priority, 5);
  OCK_ASSERT_INT_EQ(f->hash, ock_fnv1a("s1"));
  /* the hashes of SPEC 6.6's and 8.9's examples */
  OCK_ASSERT_INT_EQ(ock_fnv1a("tool-single-call"), 0xc273e4a5u);
  OCK_ASSERT_INT_EQ(ock_fnv1a("tool-unknown-continue"), 0xf8396522u);
  const struct ock_fx_turn *t0 = &f->providers[0].turns[0], *t1 = &f->providers[0].turns[1];
  OCK_ASSERT_INT_EQ(t0->n_calls, 2);
  OCK_ASSERT_STR_EQ(t0->calls[0].arguments, "{\"city\":\"Paris\"}");
  OCK_ASSERT_STR_EQ(t0->calls[1].arguments, "{oops");
  OCK_ASSERT_TRUE(t0->calls[1].raw);
  OCK_ASSERT_INT_EQ(t0->chunk_size, 8);
  OCK_ASSERT_INT_EQ(t1->match, OCK_FX_MATCH_LAST_TOOL_CALL_ID);
  OCK_ASSERT_STR_EQ(t1->finish, "length");
  OCK_ASSERT_INT_EQ(t1->fault.kind, OCK_FX_FAULT_STATUS);
  OCK_ASSERT_INT_EQ(t1->fault.status, 429);
  OCK_ASSERT_INT_EQ(t1->fault.retry_after_ms, -1);
  OCK_ASSERT_INT_EQ(f->providers[1].turns[0].fault.kind, OCK_FX_FAULT_DROP_CONNECTION);
  OCK_ASSERT_INT_EQ(f->providers[1].turns[0].fault.after, 10);
  OCK_ASSERT_TRUE(f->tools[0].scripted);
  OCK_ASSERT_INT_EQ(f->tools[0].calls[0].status, 500);
  OCK_ASSERT_NOT_NULL(f->tools[0].calls[0].result); /* inherited from the tool */
  OCK_ASSERT_INT_EQ(f->hooks[0].occurrence, 2);
  OCK_ASSERT_INT_EQ(f->n_cancels, 1);
  OCK_ASSERT_INT_EQ(f->cancels[0].at, OCK_FX_CANCEL_TOOL);
  OCK_ASSERT_INT_EQ(f->cancels[0].n, 1);
  OCK_ASSERT_INT_EQ(f->randoms[1].status, 500);
  OCK_ASSERT_INT_EQ(f->seed, 42);
  OCK_ASSERT_TRUE(f->observe_only);
  char trace[32];
  snprintf(trace, sizeof trace, "ock-%08x", (unsigned)ock_fnv1a("s1"));
  OCK_ASSERT_STR_EQ(f->trace_id, trace);
  /* the harness's members, typed in the same model; without a registry any ID is taken */
  OCK_ASSERT_INT_EQ(f->capabilities, 1u << OCK_CAPABILITY_CORE);
  const struct ock_fx_expect *e = &f->expect;
  OCK_ASSERT_TRUE(e->present);
  OCK_ASSERT_INT_EQ(e->exit_code, -1);
  OCK_ASSERT_INT_EQ(e->n_executes, 1);
  OCK_ASSERT_STR_EQ(e->executes[0].status, "success");
  OCK_ASSERT_INT_EQ(e->executes[0].turn_count, 2);
  OCK_ASSERT_NULL(e->executes[0].reason);
  OCK_ASSERT_INT_EQ(e->events_absent.n, 2);
  OCK_ASSERT_STR_EQ(e->events_absent.items[0].name, "tool:error");
  OCK_ASSERT_NULL(e->events_absent.items[0].requirement);
  OCK_ASSERT_STR_EQ(e->events_absent.items[1].requirement, "R-1");
  OCK_ASSERT_INT_EQ(e->tool_calls.n, 1);
  OCK_ASSERT_STR_EQ(e->tool_calls.items[0].name, "get_weather");
  OCK_ASSERT_INT_EQ(e->tool_calls.items[0].count, 1);
  OCK_ASSERT_STR_EQ(e->tool_calls.requirement, "R-2");
  OCK_ASSERT_TRUE(e->has_timing);
  OCK_ASSERT_INT_EQ(e->timing_each, 0);
  OCK_ASSERT_INT_EQ(e->n_ranges, 2);
  OCK_ASSERT_INT_EQ((long long)e->ranges[0].max_ms, 1000000000000LL); /* unsaid: no bound */
  OCK_ASSERT_INT_EQ((long long)e->ranges[1].min_ms, 0);
  OCK_ASSERT_INT_EQ((long long)e->ranges[1].max_ms, 20);
  ock_fixture_free(f);
}

/* token_limit: one neutral field, each wire's own reason (SPEC.md 8.3). */
static void test_token_limit_names_each_wires_reason(void) {
  cJSON *j = cJSON_Parse("{\"ock_fixture\":1,\"id\":\"s\"," BASE_SESSION
                         ",\"script\":{\"main\":[{\"token_limit\":true},{\"token_limit\":false}],"
                         "\"alt\":[{\"token_limit\":true}]}}");
  struct ock_fixture *f = NULL;
  struct ock_jerr err;
  int rc = ock_fixture_load(j, NULL, &f, &err);
  cJSON_Delete(j);
  if (rc) {
    ock_test_fail(__LINE__, __FILE__, "%s: %s", err.where, err.what);
    return;
  }
  OCK_ASSERT_STR_EQ(f->providers[0].turns[0].finish, "length");
  OCK_ASSERT_NULL(f->providers[0].turns[1].finish);
  OCK_ASSERT_STR_EQ(f->providers[1].turns[0].finish, "max_tokens");
  ock_fixture_free(f);
  j = cJSON_Parse("{\"ock_fixture\":1,\"id\":\"s\",\"session\":{\"prompts\":[\"hi\"],"
                  "\"providers\":[{\"name\":\"r\",\"api\":\"responses\",\"model\":\"m\"}]},"
                  "\"script\":{\"r\":[{\"token_limit\":true}]}}");
  f = NULL;
  rc = ock_fixture_load(j, NULL, &f, &err);
  cJSON_Delete(j);
  OCK_ASSERT_INT_EQ(rc, 0);
  if (!rc)
    OCK_ASSERT_STR_EQ(f->providers[0].turns[0].finish, "max_output_tokens");
  ock_fixture_free(f);
  j = cJSON_Parse("{\"ock_fixture\":1,\"id\":\"s\",\"session\":{\"prompts\":[\"hi\"],"
                  "\"providers\":[{\"name\":\"g\",\"api\":\"gemini\",\"model\":\"m\"}]},"
                  "\"script\":{\"g\":[{\"token_limit\":true}]}}");
  f = NULL;
  rc = ock_fixture_load(j, NULL, &f, &err);
  cJSON_Delete(j);
  OCK_ASSERT_INT_EQ(rc, 0);
  if (!rc)
    OCK_ASSERT_STR_EQ(f->providers[0].turns[0].finish, "MAX_TOKENS");
  ock_fixture_free(f);
}

struct bad_case {
  const char *json;
  const char *error;
};

static const struct bad_case BAD[] = {
    {"{\"ock_fixture\":1,\"id\":\"s\"," BASE_SESSION
     ",\"script\":{\"alt\":[{\"stop_reason\":\"stop_sequence\"}]}}",
     "$.script.alt[0].stop_reason: stop_reason \"stop_sequence\" needs \"stop_sequence\""},
    {"{\"ock_fixture\":1,\"id\":\"s\"," BASE_SESSION
     ",\"script\":{\"main\":[{\"stop_sequence\":\"END\"}]}}",
     "$.script.main[0].stop_sequence: stop_sequence is an Anthropic field; this provider speaks "
     "openai"},
    {"{\"ock_fixture\":1,\"id\":\"s\"," BASE_SESSION
     ",\"script\":{\"main\":[{\"token_limit\":true,\"finish_reason\":\"stop\"}]}}",
     "$.script.main[0].token_limit: token_limit names the finish itself; give it or "
     "\"finish_reason\", not both"},
    {"{\"ock_fixture\":1,\"id\":\"s\"," BASE_SESSION
     ",\"script\":{\"main\":[{\"token_limit\":1}]}}",
     "$.script.main[0].token_limit: expected true or false, got number"},
    {"{\"ock_fixture\":1,\"id\":\"s\"}", "$.session: required; expected an object"},
    {"{\"ock_fixture\":2,\"id\":\"s\"," BASE_SESSION "}",
     "$.ock_fixture: expected an integer from 1 to 1, got 2"},
    {"{\"ock_fixture\":1,\"id\":\"s\"," BASE_SESSION ",\"scirpt\":{}}",
     "$.scirpt: unknown member (a typo?); allowed here: ock_fixture, id,"},
    {"{\"ock_fixture\":1,\"id\":\"s\"," BASE_SESSION ",\"script\":{\"nope\":[]}}",
     "$.script.nope: no provider of that name in $.session.providers"},
    {"{\"ock_fixture\":1,\"id\":\"s\"," BASE_SESSION
     ",\"script\":{\"main\":[{\"text\":\"a\"},{\"text\":\"b\"},{\"fault\":{\"status\":200}}]}}",
     "$.script.main[2].fault.status: expected an integer from 400 to 599, got 200"},
    {"{\"ock_fixture\":1,\"id\":\"s\"," BASE_SESSION
     ",\"script\":{\"main\":[{\"stop_reason\":\"end_turn\"}]}}",
     "$.script.main[0].stop_reason: this provider speaks openai; use \"finish_reason\""},
    {"{\"ock_fixture\":1,\"id\":\"s\"," BASE_SESSION
     ",\"script\":{\"alt\":[{\"stop_reason\":\"done\"}]}}",
     "$.script.alt[0].stop_reason: expected one of \"end_turn\""},
    {"{\"ock_fixture\":1,\"id\":\"s\"," BASE_SESSION
     ",\"script\":{\"main\":[{\"match\":{\"position\":1,\"last_tool_call_id\":\"x\"}}]}}",
     "$.script.main[0].match: expected exactly one of"},
    {"{\"ock_fixture\":1,\"id\":\"s\"," BASE_SESSION
     ",\"script\":{\"main\":[{\"tool_calls\":[{\"name\":\"f\",\"arguments\":[1]}]}]}}",
     "$.script.main[0].tool_calls[0].arguments: expected an object, got array"},
    {"{\"ock_fixture\":1,\"id\":\"s\"," BASE_SESSION
     ",\"script\":{\"main\":[{\"fault\":{\"kind\":\"cut_stream\"}}]}}",
     "$.script.main[0].fault.after_chunks: required; expected an integer"},
    {"{\"ock_fixture\":1,\"id\":\"s\"," BASE_SESSION ",\"tools\":{\"rm\":{}}}",
     "$.tools.rm: no tool of that name in $.session.tools"},
    {"{\"ock_fixture\":1,\"id\":\"s\"," BASE_SESSION
     ",\"hooks\":[{\"event\":\"tool:pre\",\"reply\":{\"action\":\"allow\"}}]}",
     "$.hooks[0].reply.action: expected one of \"continue\", \"deny\""},
    {"{\"ock_fixture\":1,\"id\":\"s\"," BASE_SESSION ",\"cancel\":{\"at\":\"llm_request\"}}",
     "$.cancel.index: required; expected an integer"},
    {"{\"ock_fixture\":1,\"id\":\"s\",\"session\":{\"prompts\":[],\"providers\":[{\"name\":"
     "\"a b\",\"api\":\"openai\",\"model\":\"m\"}]}}",
     "$.session.providers[0].name: expected 1 to 64 letters, digits, '_' or '-'"},
    {"{\"ock_fixture\":1,\"id\":\"Bad_Id\"," BASE_SESSION "}", "$.id: expected 1 to 64 lower-case"},
    {"{\"ock_fixture\":1,\"id\":\"s\"," BASE_SESSION ",\"cancel\":[{\"at\":\"event\"}]}",
     "$.cancel[0].event: required"},
    {"{\"ock_fixture\":1,\"id\":\"s\"," BASE_SESSION ",\"requirements\":[1]}",
     "$.requirements[0]: expected a string, got number"},
    {"{\"ock_fixture\":1,\"id\":\"s\",\"session\":{\"prompts\":[],\"config\":{\"max_iteration\":"
     "3}}}",
     "$.session.config.max_iteration: unknown member (a typo?)"},
    {"{\"ock_fixture\":1,\"id\":\"s\",\"session\":{\"prompts\":[],\"config\":{\"max_iterations\":"
     "0}}}",
     "$.session.config.max_iterations: expected an integer from 1 to 1000000, got 0"},
    {"{\"ock_fixture\":1,\"id\":\"s\",\"session\":{\"prompts\":[],\"config\":{\"mode\":"
     "\"streaming\",\"streaming\":false}}}",
     "$.session.config.mode: mode \"streaming\" needs \"streaming\": true in $.session.config, got "
     "false"},
    {"{\"ock_fixture\":1,\"id\":\"s\"," BASE_SESSION
     ",\"random_faults\":[{\"on\":\"llm\",\"probability\":1.5,\"fault\":{\"status\":500}}]}",
     "$.random_faults[0].probability: expected a number from 0 to 1, got 1.5"},
    {NULL, NULL}};

static void test_errors_name_the_json_path(void) {
  for (int i = 0; BAD[i].json; i++) {
    const char *msg = load_error(BAD[i].json);
    if (strncmp(msg, BAD[i].error, strlen(BAD[i].error)))
      ock_test_fail(__LINE__, __FILE__, "case %d: error \"%s\", expected it to start with \"%s\"",
                    i, msg, BAD[i].error);
    else
      CU_PASS("error text");
  }
}

static void test_cancel_triggers_object_or_array(void) {
  cJSON *j = cJSON_Parse("{\"ock_fixture\":1,\"id\":\"c\"," BASE_SESSION ",\"cancel\":[{\"at\":"
                         "\"llm_request\",\"index\":2},{\"at\":\"event\",\"event\":"
                         "\"tool:pre\",\"occurrence\":3},{\"at\":\"after_execute\",\"index\":1}]}");
  struct ock_fixture *f = NULL;
  struct ock_jerr err;
  OCK_ASSERT_OK(ock_fixture_load(j, NULL, &f, &err));
  cJSON_Delete(j);
  if (!f)
    return;
  OCK_ASSERT_INT_EQ(f->n_cancels, 3);
  OCK_ASSERT_INT_EQ(f->cancels[0].at, OCK_FX_CANCEL_LLM_REQUEST);
  OCK_ASSERT_INT_EQ(f->cancels[0].n, 2);
  OCK_ASSERT_STR_EQ(f->cancels[1].name, "tool:pre");
  OCK_ASSERT_INT_EQ(f->cancels[1].n, 3);
  OCK_ASSERT_STR_EQ(f->cancels[2].name, "orchestrator:complete");
  ock_fixture_free(f);
}

static const struct ock_test tests[] = {
    {"cancel_triggers_object_or_array", test_cancel_triggers_object_or_array},
    {"full_fixture_loads", test_full_fixture_loads},
    {"token_limit_names_each_wires_reason", test_token_limit_names_each_wires_reason},
    {"errors_name_the_json_path", test_errors_name_the_json_path},
    {NULL, NULL}};

const struct ock_suite mock_fixture_suite = {"mock_fixture", tests, NULL, NULL};
