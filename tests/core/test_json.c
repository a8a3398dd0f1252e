/* test_json.c: getters report the JSON path and what was expected. */
#include "runner.h"

#include <stdlib.h>

#include "ock/json.h"
#include "ock/status.h"

static cJSON *doc;

static int setup(void) {
  doc = cJSON_Parse("{\"name\":\"x\",\"n\":3,\"f\":1.5,\"b\":true,\"o\":{\"api\":\"gpt\"},"
                    "\"a\":[1,2],\"empty\":\"\"}");
  return doc ? 0 : 1;
}

static int teardown(void) {
  cJSON_Delete(doc);
  return 0;
}

static void string_ok_and_missing(void) {
  const char *s = NULL;
  struct ock_jerr err;
  OCK_ASSERT_OK(ock_jget_string(doc, "$", "name", OCK_REQUIRED, &s, &err));
  OCK_ASSERT_STR_EQ(s, "x");
  s = "untouched";
  OCK_ASSERT_OK(ock_jget_string(doc, "$", "nope", OCK_OPTIONAL, &s, &err));
  OCK_ASSERT_STR_EQ(s, "untouched");
  OCK_ASSERT_INT_EQ(ock_jget_string(doc, "$.session", "nope", OCK_REQUIRED, &s, &err),
                    OCK_EMISSING);
  OCK_ASSERT_STR_EQ(err.where, "$.session.nope");
  OCK_ASSERT_CONTAINS(err.what, "required");
}

static void wrong_type_names_both(void) {
  const char *s = NULL;
  struct ock_jerr err;
  OCK_ASSERT_INT_EQ(ock_jget_string(doc, "$", "n", OCK_REQUIRED, &s, &err), OCK_ETYPE);
  OCK_ASSERT_STR_EQ(err.where, "$.n");
  OCK_ASSERT_STR_EQ(err.what, "expected a string, got number");
  OCK_ASSERT_INT_EQ(ock_jget_nonempty(doc, "$", "empty", OCK_REQUIRED, &s, &err), OCK_ETYPE);
  OCK_ASSERT_CONTAINS(err.what, "non-empty");
}

static void integers_and_ranges(void) {
  long long v = -1;
  struct ock_jerr err;
  OCK_ASSERT_OK(ock_jget_int(doc, "$", "n", OCK_REQUIRED, 0, 10, &v, &err));
  OCK_ASSERT_INT_EQ(v, 3);
  OCK_ASSERT_INT_EQ(ock_jget_int(doc, "$", "n", OCK_REQUIRED, 5, 10, &v, &err), OCK_ETYPE);
  OCK_ASSERT_CONTAINS(err.what, "from 5 to 10, got 3");
  OCK_ASSERT_INT_EQ(ock_jget_int(doc, "$", "f", OCK_REQUIRED, 0, 10, &v, &err), OCK_ETYPE);
  OCK_ASSERT_CONTAINS(err.what, "fraction");
  double d = 0;
  OCK_ASSERT_OK(ock_jget_number(doc, "$", "f", OCK_REQUIRED, 0, 2, &d, &err));
  CU_ASSERT_DOUBLE_EQUAL(d, 1.5, 1e-9);
  int b = 0;
  OCK_ASSERT_OK(ock_jget_bool(doc, "$", "b", OCK_REQUIRED, &b, &err));
  OCK_ASSERT_INT_EQ(b, 1);
}

static void enum_lists_choices(void) {
  static const char *const apis[] = {"openai", "anthropic", NULL};
  const cJSON *o = NULL;
  struct ock_jerr err;
  int which = -1;
  OCK_ASSERT_OK(ock_jget_object(doc, "$", "o", OCK_REQUIRED, &o, &err));
  OCK_ASSERT_INT_EQ(ock_jget_enum(o, "$.o", "api", OCK_REQUIRED, apis, &which, &err), OCK_ETYPE);
  OCK_ASSERT_STR_EQ(err.where, "$.o.api");
  OCK_ASSERT_STR_EQ(err.what, "expected one of \"openai\", \"anthropic\", got \"gpt\"");
  OCK_ASSERT_INT_EQ(which, -1);
}

static void unknown_keys_are_named(void) {
  static const char *const allowed[] = {"name", "n", "f", "b", "o", "a", NULL};
  struct ock_jerr err;
  OCK_ASSERT_INT_EQ(ock_jcheck_keys(doc, "$", allowed, &err), OCK_ETYPE);
  OCK_ASSERT_STR_EQ(err.where, "$.empty");
}

static void parse_reports_line_and_column(void) {
  cJSON *v = NULL;
  struct ock_jerr err;
  const char *text = "{\n  \"a\": 1,\n  \"b\": ]\n}";
  OCK_ASSERT_INT_EQ(ock_json_parse(text, strlen(text), &v, &err), OCK_EJSON);
  CU_ASSERT_PTR_NULL(v);
  OCK_ASSERT_CONTAINS(err.what, "line 3");
  char msg[1024];
  ock_jerr_format(&err, msg, sizeof msg);
  OCK_ASSERT_CONTAINS(msg, "$: not valid JSON");
}

static void parse_file_names_the_file(void) {
  cJSON *v = NULL;
  struct ock_jerr err;
  OCK_ASSERT_INT_EQ(ock_json_parse_file("/nonexistent/x.json", 1024, &v, &err), OCK_EIO);
  OCK_ASSERT_STR_EQ(err.where, "/nonexistent/x.json");
  OCK_ASSERT_OK(
      ock_json_parse_file(ock_test_path("conformance/requirements.json"), 1 << 22, &v, &err));
  CU_ASSERT_TRUE(cJSON_IsObject(v));
  cJSON_Delete(v);
  OCK_ASSERT_INT_EQ(
      ock_json_parse_file(ock_test_path("conformance/requirements.json"), 10, &v, &err),
      OCK_ETOOBIG);
}

static void deep_nesting_is_an_error_not_a_crash(void) {
  size_t depth = 10000;
  char *text = malloc(depth * 2 + 1);
  memset(text, '[', depth);
  memset(text + depth, ']', depth);
  text[depth * 2] = '\0';
  cJSON *v = NULL;
  struct ock_jerr err;
  OCK_ASSERT_INT_EQ(ock_json_parse(text, depth * 2, &v, &err), OCK_EJSON);
  OCK_ASSERT_CONTAINS(err.what, "nested deeper");
  free(text);
}

static void huge_numbers_are_absent(void) {
  cJSON *o = cJSON_Parse("{\"big\":1e300,\"neg\":-1e300,\"ok\":42}");
  OCK_ASSERT_INT_EQ(ock_json_int(o, "big", -7), -7);
  OCK_ASSERT_INT_EQ(ock_json_int(o, "neg", -7), -7);
  OCK_ASSERT_INT_EQ(ock_json_int(o, "ok", -7), 42);
  long long v = 0;
  struct ock_jerr err;
  OCK_ASSERT_INT_EQ(ock_jget_int(o, "$", "big", OCK_REQUIRED, 0, 10, &v, &err), OCK_ETYPE);
  cJSON_Delete(o);
}

static const struct ock_test tests[] = {
    {"huge_numbers_are_absent", huge_numbers_are_absent},
    {"string_ok_and_missing", string_ok_and_missing},
    {"wrong_type_names_both", wrong_type_names_both},
    {"integers_and_ranges", integers_and_ranges},
    {"enum_lists_choices", enum_lists_choices},
    {"unknown_keys_are_named", unknown_keys_are_named},
    {"parse_reports_line_and_column", parse_reports_line_and_column},
    {"parse_file_names_the_file", parse_file_names_the_file},
    {"deep_nesting_is_an_error_not_a_crash", deep_nesting_is_an_error_not_a_crash},
    {NULL, NULL}};
const struct ock_suite suite_json = {"json", tests, setup, teardown};
