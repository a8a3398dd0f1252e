/* test_session.c: reading the ock/1 session document, and its errors. */
#include <string.h>

#include "ock/status.h"
#include "runner.h"
#include "session.h"

static int parse(const char *text, const struct ock_orchestrator_config *defaults,
                 struct ock__session **out, struct ock_jerr *err) {
  cJSON *j = cJSON_Parse(text);
  int rc = ock__session_parse(j, defaults, out, err);
  cJSON_Delete(j);
  return rc;
}

static void test_full(void) {
  struct ock__session *s = NULL;
  struct ock_jerr err;
  OCK_ASSERT_OK(parse(
      "{\"protocol\":\"ock/1\",\"scenario\":\"tool-single-call\",\"trace_id\":\"tr-9\","
      "\"prompts\":[\"a\",\"\"],\"config\":{\"max_iterations\":3,\"parallel_tools\":false,"
      "\"streaming\":true,\"error_strategy\":\"fallback\",\"max_retries\":4,"
      "\"retry_base_delay_ms\":10,\"retry_max_delay_ms\":100,\"retry_jitter\":0.2,"
      "\"tool_timeout_ms\":500,\"request_timeout_ms\":700,\"mode\":\"events\",\"future\":1},"
      "\"providers\":[{\"name\":\"p\",\"api\":\"anthropic\",\"base_url\":\"http://x/p/p\","
      "\"model\":\"m\",\"priority\":2}],"
      "\"tools\":[{\"name\":\"t\",\"description\":\"d\",\"input_schema\":{\"type\":\"object\"}}]}",
      NULL, &s, &err));
  OCK_ASSERT_STR_EQ(s->scenario, "tool-single-call");
  OCK_ASSERT_STR_EQ(s->trace_id, "tr-9");
  OCK_ASSERT_INT_EQ(s->n_prompts, 2);
  OCK_ASSERT_STR_EQ(s->prompts[1], "");
  OCK_ASSERT_INT_EQ(s->config.max_iterations, 3);
  OCK_ASSERT_INT_EQ(s->config.parallel_tools, 0);
  OCK_ASSERT_TRUE(s->config.streaming);
  OCK_ASSERT_INT_EQ(s->config.error_strategy, OCK_ERROR_STRATEGY_FALLBACK);
  OCK_ASSERT_INT_EQ(s->config.max_retries, 4);
  OCK_ASSERT_INT_EQ(s->config.retry_base_delay_ms, 10);
  OCK_ASSERT_INT_EQ(s->config.retry_max_delay_ms, 100);
  OCK_ASSERT_INT_EQ(s->config.tool_timeout_ms, 500);
  OCK_ASSERT_INT_EQ(s->config.request_timeout_ms, 700);
  OCK_ASSERT_INT_EQ(s->config.mode, OCK_MODE_EVENTS);
  OCK_ASSERT_INT_EQ(s->providers[0].api, OCK_WIRE_ANTHROPIC);
  OCK_ASSERT_INT_EQ(s->providers[0].priority, 2);
  OCK_ASSERT_STR_EQ(s->tools[0].name, "t");
  OCK_ASSERT_TRUE(cJSON_IsObject(s->tools[0].input_schema));
  ock__session_free(s);
}

static void test_defaults_and_precedence(void) {
  struct ock_orchestrator_config d;
  ock_orchestrator_config_default(&d);
  d.mode = OCK_MODE_STREAMING; /* as from --mode streaming */
  d.streaming = 1;
  d.max_iterations = 7;
  struct ock__session *s = NULL;
  struct ock_jerr err;
  /* The session reader is the registry's (ock/config.h): below its minimum is an error. */
  OCK_ASSERT_INT_EQ(
      parse("{\"protocol\":\"ock/1\",\"prompts\":[],\"config\":{\"max_iterations\":0}}", &d, &s,
            &err),
      OCK_ETYPE);
  OCK_ASSERT_STR_EQ(err.where, "$.config.max_iterations");
  OCK_ASSERT_OK(parse("{\"protocol\":\"ock/1\",\"prompts\":[],\"config\":{}}", &d, &s, &err));
  OCK_ASSERT_INT_EQ(s->config.max_iterations, 7); /* what the command line gave */
  OCK_ASSERT_INT_EQ(s->config.mode, OCK_MODE_STREAMING);
  OCK_ASSERT_INT_EQ(s->n_providers, 0);
  OCK_ASSERT_NULL(s->trace_id);
  ock__session_free(s);
  OCK_ASSERT_OK(parse("{\"protocol\":\"ock/1\",\"prompts\":[],\"config\":{\"streaming\":false}}",
                      &d, &s, &err));
  OCK_ASSERT_INT_EQ(s->config.mode, OCK_MODE_BASIC); /* the session's config wins */
  OCK_ASSERT_INT_EQ(s->config.streaming, 0);
  OCK_ASSERT_INT_EQ(s->config.max_iterations, 7);
  ock__session_free(s);
}

/* The reference's defaults are the registry's: the same options, the same values. */
static void test_defaults_are_the_registry_s(void) {
  struct ock_orchestrator_config d;
  struct ock_config k;
  ock_orchestrator_config_default(&d);
  ock_config_default(&k);
  k.max_iterations = -1; /* every member below is copied from d */
#define FROM_REFERENCE(ident, member, type, dflt, lo, hi) k.member = d.member;
  OCK_CONFIG_MAP(FROM_REFERENCE)
#undef FROM_REFERENCE
  cJSON *j = ock_config_to_json(&k);
  OCK_ASSERT_REGISTRY_DEFAULTS(j, "ock_orchestrator_config_default");
  cJSON_Delete(j);
}

static void test_errors_name_the_path(void) {
  struct {
    const char *doc, *where;
  } cases[] = {
      {"{\"protocol\":\"ock/2\",\"prompts\":[]}", "$.protocol"},
      {"{\"protocol\":\"ock/1\"}", "$.prompts"},
      {"{\"protocol\":\"ock/1\",\"prompts\":[1]}", "$.prompts[0]"},
      {"{\"protocol\":\"ock/1\",\"prompts\":[],\"providers\":[{\"name\":\"p\",\"api\":\"gpt\","
       "\"base_url\":\"u\"}]}",
       "$.providers[0].api"},
      {"{\"protocol\":\"ock/1\",\"prompts\":[],\"config\":{\"error_strategy\":\"yolo\"}}",
       "$.config.error_strategy"},
      {"{\"protocol\":\"ock/1\",\"prompts\":[],\"config\":{\"retry_jitter\":3}}",
       "$.config.retry_jitter"},
      {"{\"protocol\":\"ock/1\",\"prompts\":[],\"tools\":[{\"description\":\"x\"}]}",
       "$.tools[0].name"},
      {"[]", "$"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    struct ock__session *s = NULL;
    struct ock_jerr err;
    memset(&err, 0, sizeof err);
    OCK_ASSERT_INT_NE(parse(cases[i].doc, NULL, &s, &err), OCK_OK);
    OCK_ASSERT_STR_EQ(err.where, cases[i].where);
    OCK_ASSERT_NULL(s);
  }
}

static const struct ock_test tests[] = {
    {"full", test_full},
    {"defaults_and_precedence", test_defaults_and_precedence},
    {"defaults_are_the_registry_s", test_defaults_are_the_registry_s},
    {"errors_name_the_path", test_errors_name_the_path},
    {NULL, NULL}};

const struct ock_suite session_suite = {"session", tests, NULL, NULL};
