/* test_config.c: the session config typed from the registry (ock/config.h): its defaults are
 * the registry's, its reader checks each option's type and range, its writer serves them all. */
#include "ock/config.h"

#include <stdlib.h>

#include "ock/status.h"
#include "runner.h"

static int read_text(const char *text, enum ock_config_read_flags flags, struct ock_config *c,
                     struct ock_jerr *err) {
  cJSON *j = cJSON_Parse(text);
  int rc = ock_config_read(j, "$.config", flags, c, err);
  cJSON_Delete(j);
  return rc;
}

static void defaults_are_the_registry_s(void) {
  struct ock_config c;
  ock_config_default(&c);
  OCK_ASSERT_INT_EQ(c.present, 0);
  cJSON *j = ock_config_to_json(&c);
  OCK_ASSERT_REGISTRY_DEFAULTS(j, "ock_config_default");
  cJSON_Delete(j);
}

static void reads_over_and_marks_present(void) {
  struct ock_config c;
  struct ock_jerr err;
  ock_config_default(&c);
  OCK_ASSERT_OK(read_text("{\"max_iterations\":3,\"error_strategy\":\"fallback\",\"mode\":"
                          "\"events\",\"retry_jitter\":0.5,\"parallel_tools\":false}",
                          OCK_CONFIG_FIXTURE, &c, &err));
  OCK_ASSERT_INT_EQ(c.max_iterations, 3);
  OCK_ASSERT_INT_EQ(c.error_strategy, OCK_ERROR_STRATEGY_FALLBACK);
  OCK_ASSERT_INT_EQ(c.mode, OCK_MODE_EVENTS);
  OCK_ASSERT_DOUBLE_EQ(c.retry_jitter, 0.5, 0);
  OCK_ASSERT_INT_EQ(c.parallel_tools, 0);
  OCK_ASSERT_TRUE(c.present & (1UL << OCK_CONFIG_MAX_ITERATIONS));
  OCK_ASSERT_INT_EQ(c.present & (1UL << OCK_CONFIG_MAX_RETRIES), 0);
  /* A second read keeps what it does not name. */
  OCK_ASSERT_OK(read_text("{\"max_retries\":0}", OCK_CONFIG_LENIENT, &c, &err));
  OCK_ASSERT_INT_EQ(c.max_iterations, 3);
  OCK_ASSERT_INT_EQ(c.max_retries, 0);
  OCK_ASSERT_OK(ock_config_read(NULL, "$.config", OCK_CONFIG_FIXTURE, &c, &err));
  OCK_ASSERT_INT_EQ(c.max_retries, 0);
}

static void errors_name_the_member_and_leave_c(void) {
  static const struct {
    const char *text, *where, *what;
    enum ock_config_read_flags flags;
  } cases[] = {
      {"{\"max_iterations\":0}", "$.config.max_iterations", "from 1 to", OCK_CONFIG_LENIENT},
      {"{\"max_iterations\":1.5}", "$.config.max_iterations", "fraction", OCK_CONFIG_LENIENT},
      {"{\"retry_jitter\":2}", "$.config.retry_jitter", "", OCK_CONFIG_LENIENT},
      {"{\"streaming\":1}", "$.config.streaming", "true or false", OCK_CONFIG_LENIENT},
      {"{\"error_strategy\":\"panic\"}", "$.config.error_strategy", "\"fail_fast\"",
       OCK_CONFIG_LENIENT},
      {"{\"promts\":1}", "$.config.promts", "max_iterations", OCK_CONFIG_FIXTURE},
      {"{\"mode\":\"streaming\"}", "$.config.mode", "needs \"streaming\": true",
       OCK_CONFIG_FIXTURE},
      {"[]", "$.config", "object", OCK_CONFIG_LENIENT},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    struct ock_config c, before;
    struct ock_jerr err = {{0}};
    ock_config_default(&c);
    before = c;
    OCK_ASSERT_INT_NE(read_text(cases[i].text, cases[i].flags, &c, &err), OCK_OK);
    OCK_ASSERT_STR_EQ(err.where, cases[i].where);
    OCK_ASSERT_CONTAINS(err.what, cases[i].what);
    OCK_ASSERT_INT_EQ(memcmp(&c, &before, sizeof c), 0);
  }
  /* A session document may carry members of a later version (SPEC.md 7.3). */
  struct ock_config c;
  struct ock_jerr err;
  ock_config_default(&c);
  OCK_ASSERT_OK(read_text("{\"future\":1,\"mode\":\"streaming\"}", OCK_CONFIG_LENIENT, &c, &err));
  OCK_ASSERT_INT_EQ(c.mode, OCK_MODE_STREAMING);
}

static void writes_every_option_back(void) {
  struct ock_config c, back;
  struct ock_jerr err;
  ock_config_default(&c);
  OCK_ASSERT_OK(read_text("{\"max_iterations\":4,\"error_strategy\":\"retry\",\"streaming\":true,"
                          "\"mode\":\"streaming\",\"tool_timeout_ms\":9}",
                          OCK_CONFIG_FIXTURE, &c, &err));
  cJSON *j = ock_config_to_json(&c);
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(j), OCK_CONFIG_COUNT);
  OCK_ASSERT_STR_EQ(ock_json_str(j, OCK_CFG_ERROR_STRATEGY), OCK_CFG_ERROR_STRATEGY_RETRY);
  ock_config_default(&back);
  OCK_ASSERT_OK(ock_config_read(j, "$", OCK_CONFIG_FIXTURE, &back, &err));
  back.present = c.present;
  OCK_ASSERT_INT_EQ(memcmp(&back, &c, sizeof c), 0);
  cJSON_Delete(j);
}

static void names_both_ways(void) {
  enum ock_error_strategy s = OCK_ERROR_STRATEGY_CONTINUE;
  enum ock_mode m = OCK_MODE_BASIC;
  OCK_ASSERT_STR_EQ(ock_error_strategy_name(OCK_ERROR_STRATEGY_FAIL_FAST), "fail_fast");
  OCK_ASSERT_STR_EQ(ock_error_strategy_name(OCK_ERROR_STRATEGY_COUNT), "");
  OCK_ASSERT_OK(ock_error_strategy_parse("fallback", &s));
  OCK_ASSERT_INT_EQ(s, OCK_ERROR_STRATEGY_FALLBACK);
  OCK_ASSERT_INT_EQ(ock_error_strategy_parse("panic", &s), OCK_EINVAL);
  OCK_ASSERT_INT_EQ(ock_error_strategy_parse(NULL, &s), OCK_EINVAL);
  OCK_ASSERT_INT_EQ(s, OCK_ERROR_STRATEGY_FALLBACK);
  OCK_ASSERT_STR_EQ(ock_mode_name(OCK_MODE_EVENTS), "events");
  OCK_ASSERT_OK(ock_mode_parse("streaming", &m));
  OCK_ASSERT_INT_EQ(m, OCK_MODE_STREAMING);
  OCK_ASSERT_INT_EQ(ock_mode_parse("fast", &m), OCK_EINVAL);
}

static const struct ock_test tests[] = {
    {"defaults_are_the_registry_s", defaults_are_the_registry_s},
    {"errors_name_the_member_and_leave_c", errors_name_the_member_and_leave_c},
    {"names_both_ways", names_both_ways},
    {"reads_over_and_marks_present", reads_over_and_marks_present},
    {"writes_every_option_back", writes_every_option_back},
    {NULL, NULL}};
const struct ock_suite suite_config = {"config", tests, NULL, NULL};
