/* test_json.c: getters report the JSON path and what was expected. */
#include "runner.h"

#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
  OCK_ASSERT_DOUBLE_EQ(d, 1.5, 1e-9);
  int b = 0;
  OCK_ASSERT_OK(ock_jget_bool(doc, "$", "b", OCK_REQUIRED, &b, &err));
  OCK_ASSERT_TRUE(b);
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
  OCK_ASSERT_NULL(v);
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
  OCK_ASSERT_OK(ock_json_parse_file(ock_test_path("core/requirements.json"), 1 << 22, &v, &err));
  OCK_ASSERT_TRUE(cJSON_IsObject(v));
  cJSON_Delete(v);
  OCK_ASSERT_INT_EQ(ock_json_parse_file(ock_test_path("core/requirements.json"), 10, &v, &err),
                    OCK_ETOOBIG);
}

/* A key given twice in one object is found at any depth, named by its path; the same key in
 * two different objects is not a duplicate. */
static void duplicate_keys_are_found(void) {
  static const struct {
    const char *text, *where;
  } cases[] = {
      {"{\"a\":1,\"b\":2,\"a\":3}", "$.a"},
      {"{\"s\":{\"c\":{\"x\":1,\"y\":2,\"x\":1}}}", "$.s.c.x"},
      {"{\"l\":[{\"k\":1},{\"k\":1,\"k\":2}]}", "$.l[1].k"},
      {"[[{\"\":1,\"\":2}]]", "$[0][0]."},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cJSON *v = cJSON_Parse(cases[i].text);
    struct ock_jerr err;
    OCK_ASSERT_INT_EQ(ock_json_check_unique_keys(v, "$", &err), OCK_ETYPE);
    OCK_ASSERT_STR_EQ(err.where, cases[i].where);
    OCK_ASSERT_CONTAINS(err.what, "duplicate key");
    cJSON_Delete(v);
  }
  cJSON *v = cJSON_Parse("{\"a\":{\"k\":1},\"b\":{\"k\":1},\"l\":[{\"k\":1},{\"k\":2}],"
                         "\"A\":1}");
  OCK_ASSERT_OK(ock_json_check_unique_keys(v, "$", NULL));
  cJSON_Delete(v);
  /* Many members: sorted, not compared pairwise; the repeated one is still found. */
  cJSON *big = cJSON_CreateObject();
  for (int i = 0; i < 100000; i++) {
    char key[16];
    snprintf(key, sizeof key, "k%d", i);
    cJSON_AddNumberToObject(big, key, i);
  }
  OCK_ASSERT_OK(ock_json_check_unique_keys(big, "$", NULL));
  cJSON_AddNumberToObject(big, "k77777", 0);
  struct ock_jerr err;
  OCK_ASSERT_INT_EQ(ock_json_check_unique_keys(big, "$", &err), OCK_ETYPE);
  OCK_ASSERT_STR_EQ(err.where, "$.k77777");
  cJSON_Delete(big);
}

/* A string that holds U+0000 is refused with its path, wherever it is: cJSON would read it
 * as its prefix. An escaped backslash before "u0000" is no U+0000. */
static void strings_with_nul_are_refused(void) {
  static const struct {
    const char *text;
    size_t len;
    const char *where;
  } cases[] = {
      {"{\"status\":\"success\\u0000-but-really-failed\"}", 0, "$.status"},
      {"{\"event\":\"orchestrator:complete\\u0000x\",\"data\":{}}", 0, "$.event"},
      {"{\"a\":[1,{\"b\":[\"x\",\"\\u0000\"]}]}", 0, "$.a[1].b[1]"},
      {"{\"status\\u0000x\":\"success\"}", 0, "$.status\\u0000x"},
      {"\"\\u0000\"", 0, "$"},
      {"{\"k\":\"a\0b\"}", 11, "$.k"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cJSON *v = NULL;
    struct ock_jerr err;
    size_t len = cases[i].len ? cases[i].len : strlen(cases[i].text);
    OCK_ASSERT_INT_EQ(ock_json_parse(cases[i].text, len, &v, &err), OCK_EJSON);
    OCK_ASSERT_NULL(v);
    OCK_ASSERT_STR_EQ(err.where, cases[i].where);
    OCK_ASSERT_CONTAINS(err.what, "U+0000");
  }
  cJSON *v = NULL;
  const char *fine = "{\"s\":\"\\\\u0000\",\"t\":\"\\u0001\"}";
  OCK_ASSERT_OK(ock_json_parse(fine, strlen(fine), &v, NULL));
  OCK_ASSERT_STR_EQ(ock_json_str(v, "s"), "\\u0000");
  cJSON_Delete(v);
}

/* The parser refuses a repeated member name, so first-wins and last-wins readers never
 * disagree on what a body said. */
static void parse_refuses_content_after_the_value(void) {
  cJSON *v = NULL;
  struct ock_jerr err;
  const char *text = "{\"event\":\"x\",\"data\":{}} {\"event\":\"y\"}";
  OCK_ASSERT_INT_EQ(ock_json_parse(text, strlen(text), &v, &err), OCK_EJSON);
  OCK_ASSERT_NULL(v);
  OCK_ASSERT_CONTAINS(err.what, "content after the JSON value, at byte 24");
  text = "{\"a\":1} \r\n\t";
  OCK_ASSERT_OK(ock_json_parse(text, strlen(text), &v, &err));
  cJSON_Delete(v);
}

static void parse_refuses_duplicate_keys(void) {
  const char *text = "{\"event\":\"x\",\"data\":{\"status\":\"success\",\"status\":\"cancelled\"}}";
  cJSON *v = NULL;
  struct ock_jerr err;
  OCK_ASSERT_INT_EQ(ock_json_parse(text, strlen(text), &v, &err), OCK_EJSON);
  OCK_ASSERT_NULL(v);
  OCK_ASSERT_STR_EQ(err.where, "$.data.status");
  OCK_ASSERT_CONTAINS(err.what, "duplicate key");
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

/* same_as_cjson: ock_json_print must print exactly what cJSON_PrintUnformatted prints. */
static void same_as_cjson(const cJSON *v, const char *what) {
  char *ours = ock_json_print(v);
  char *theirs = cJSON_PrintUnformatted(v);
  if (!ours || !theirs || strcmp(ours, theirs))
    ock_test_fail(__LINE__, __FILE__, "%s: ock_json_print gave \"%.200s\", cJSON \"%.200s\"", what,
                  ours ? ours : "(null)", theirs ? theirs : "(null)");
  else
    CU_PASS(what);
  free(ours);
  cJSON_free(theirs);
}

/* The writer skips plain bytes a word at a time: a byte to escape at every offset of the first
 * and second word, in strings of every length around them, with bytes from 0x80 up on either side,
 * must still come out as cJSON prints it. */
static void escapes_at_every_offset_of_a_word(void) {
  static const char specials[] = {'"', '\\', '\n', '\x01', '\x1f'};
  cJSON *a = cJSON_CreateArray();
  for (size_t len = 1; len <= 20; len++)
    for (size_t at = 0; at < len; at++)
      for (size_t k = 0; k < sizeof specials; k++) {
        char s[24];
        memset(s, at % 2 ? 'x' : '\xc3', len);
        s[at] = specials[k];
        s[len] = '\0';
        cJSON_AddItemToArray(a, cJSON_CreateString(s));
      }
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(a), 20 * 21 / 2 * 5);
  same_as_cjson(a, "one escape at each offset");
  cJSON_Delete(a);
}

static void print_matches_cjson_byte_for_byte(void) {
  static const double numbers[] = {0,
                                   -0.0,
                                   1,
                                   -1,
                                   1.5,
                                   0.1,
                                   1e300,
                                   -1e-300,
                                   3e9,
                                   -3e9,
                                   2147483647.0,
                                   1.0 / 3,
                                   12.345,
                                   1700000001,
                                   9007199254740993.0,
                                   -2147483648.0};
  cJSON *a = cJSON_CreateArray();
  for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++)
    cJSON_AddItemToArray(a, cJSON_CreateNumber(numbers[i]));
  cJSON_AddItemToArray(a, cJSON_CreateNumber(NAN));
  cJSON_AddItemToArray(a, cJSON_CreateNumber(INFINITY));
  char all[160];
  size_t n = 0;
  for (int c = 1; c < 128; c++)
    all[n++] = (char)c;
  memcpy(all + n, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xff", 10); /* UTF-8, and a stray byte */
  all[n + 10] = '\0';
  cJSON_AddItemToArray(a, cJSON_CreateString(all));
  cJSON_AddItemToArray(a, cJSON_CreateString(""));
  cJSON_AddItemToArray(a, cJSON_CreateRaw("{\"raw\": [1, 2]}"));
  cJSON_AddItemToArray(a, cJSON_CreateBool(1));
  cJSON_AddItemToArray(a, cJSON_CreateBool(0));
  cJSON_AddItemToArray(a, cJSON_CreateNull());
  cJSON_AddItemToArray(a, cJSON_CreateObject());
  cJSON_AddItemToArray(a, cJSON_CreateArray());
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, all, "a key with every byte");
  cJSON_AddItemReferenceToObject(o, "ref", a);
  same_as_cjson(a, "scalars, strings and containers");
  same_as_cjson(o, "escaped keys and a reference");
  cJSON_Delete(o);
  cJSON_Delete(a);
  /* Every fixture of the catalog, as parsed: real nesting, real text. */
  const char *dir = ock_test_path("fixtures");
  DIR *d = opendir(dir);
  OCK_ASSERT_NOT_NULL(d);
  int files = 0;
  for (struct dirent *e; d && (e = readdir(d));) {
    size_t len = strlen(e->d_name);
    if (len < 6 || strcmp(e->d_name + len - 5, ".json"))
      continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    char *text = ock_test_read_file(path);
    cJSON *v = text ? cJSON_Parse(text) : NULL;
    OCK_ASSERT_NOT_NULL(v);
    same_as_cjson(v, e->d_name);
    cJSON_Delete(v);
    free(text);
    files++;
  }
  if (d)
    closedir(d);
  OCK_ASSERT_INT_GE(files, 100);
}

static void print_of_nothing_is_null(void) {
  OCK_ASSERT_NULL(ock_json_print(NULL));
  cJSON *raw = cJSON_CreateRaw("1");
  cJSON_free(raw->valuestring);
  raw->valuestring = NULL; /* cJSON refuses to print a raw value without text; so do we */
  OCK_ASSERT_NULL(ock_json_print(raw));
  OCK_ASSERT_NULL(cJSON_PrintUnformatted(raw));
  cJSON_Delete(raw);
}

static void write_int_prints_decimal(void) {
  struct ock_buf b;
  ock_buf_init(&b, 1024);
  const long long v[] = {0, -1, 7, 1234567890123LL, LLONG_MIN, LLONG_MAX};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
    OCK_ASSERT_OK(ock_buf_puts(&b, i ? "," : "") || ock_json_write_int(&b, v[i]));
  OCK_ASSERT_STR_EQ(b.data, "0,-1,7,1234567890123,-9223372036854775808,9223372036854775807");
  ock_buf_free(&b);
}

/* The paths are built without printf; they must read, and be cut, exactly as snprintf would. */
static void paths_read_and_cut_like_snprintf(void) {
  char got[32], want[32];
  for (size_t n = 1; n <= sizeof got; n++) {
    ock_jpath_key(got, n, "$.messages[12]", "tool_calls");
    snprintf(want, n, "%s.%s", "$.messages[12]", "tool_calls");
    OCK_ASSERT_STR_EQ(got, want);
    ock_jpath_index(got, n, "$.messages", -2147483647 - 1);
    snprintf(want, n, "%s[%d]", "$.messages", -2147483647 - 1);
    OCK_ASSERT_STR_EQ(got, want);
  }
  ock_jpath_index(got, sizeof got, NULL, 0);
  OCK_ASSERT_STR_EQ(got, "$[0]");
  ock_jpath_key(got, sizeof got, NULL, "a");
  OCK_ASSERT_STR_EQ(got, "$.a");
}

static const struct ock_test tests[] = {
    {"duplicate_keys_are_found", duplicate_keys_are_found},
    {"strings_with_nul_are_refused", strings_with_nul_are_refused},
    {"parse_refuses_duplicate_keys", parse_refuses_duplicate_keys},
    {"parse_refuses_content_after_the_value", parse_refuses_content_after_the_value},
    {"paths_read_and_cut_like_snprintf", paths_read_and_cut_like_snprintf},
    {"write_int_prints_decimal", write_int_prints_decimal},
    {"print_matches_cjson_byte_for_byte", print_matches_cjson_byte_for_byte},
    {"escapes_at_every_offset_of_a_word", escapes_at_every_offset_of_a_word},
    {"print_of_nothing_is_null", print_of_nothing_is_null},
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
