/*
 * test_report.c: the report model (conformance/report.h) apart from rendering: aggregation
 * (ock_report_summarize) on crafted runs, reading and validating report.json, merging shards
 * back into the unsharded sample, writing a report directory safely, and the JSON Schema
 * reports/report.schema.json checked against real reports by a small validator written here
 * (the subset of draft 2020-12 the schema uses; a test keeps the schema inside that subset).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ock/status.h"
#include "report/render.h"
#include "report/report.h"
#include "runner.h"
#include "model/timeline.h"
#include "run/scenario_run.h"

#define SAMPLE "tests/conformance/golden/sample-report.json"

#ifndef OCK_BIN_DIR
#define OCK_BIN_DIR "build"
#endif

static cJSON *load_json(const char *rel) {
  cJSON *j = NULL;
  struct ock_jerr err;
  if (ock_json_parse_file(ock_test_path(rel), 1 << 24, &j, &err)) {
    char msg[1024];
    ock_jerr_format(&err, msg, sizeof msg);
    ock_test_fail(__LINE__, __FILE__, "cannot load %s: %s", rel, msg);
  }
  return j;
}

static char *print(const cJSON *j) {
  return j ? cJSON_Print(j) : NULL;
}

/* assert_same_json compares two trees including member order, printing both on failure. */
static void assert_same_json(const cJSON *actual, const cJSON *expected, int line) {
  char *a = print(actual), *e = print(expected);
  if (!a || !e || strcmp(a, e)) {
    size_t i = 0;
    while (a && e && a[i] && a[i] == e[i])
      i++;
    ock_test_fail(line, __FILE__, "JSON differs at byte %zu: got \"%.120s\", expected \"%.120s\"",
                  i, a ? a + (i > 40 ? i - 40 : 0) : "(null)",
                  e ? e + (i > 40 ? i - 40 : 0) : "(null)");
  } else {
    CU_PASS("same json");
  }
  free(a);
  free(e);
}

/* registry_from builds a registry whose requirements are the report's requirement list. */
static ock_registry *registry_from(const cJSON *report) {
  cJSON *root = cJSON_CreateObject(), *reqs = cJSON_AddArrayToObject(root, "requirements"), *r;
  cJSON_AddStringToObject(root, "contract_version", "ock/1");
  cJSON_AddArrayToObject(root, "events");
  cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(report, "requirements")) {
    cJSON *o = cJSON_CreateObject();
    static const char *const keys[] = {"id", "group", "level", "capability", "text"};
    for (int i = 0; i < 5; i++)
      cJSON_AddStringToObject(o, keys[i], ock_json_str(r, keys[i]));
    cJSON_AddStringToObject(o, "checked_by", "test");
    cJSON_AddItemToArray(reqs, o);
  }
  char *text = cJSON_PrintUnformatted(root);
  ock_registry *reg = NULL;
  struct ock_jerr err;
  if (ock_registry_load(text, strlen(text), &reg, &err))
    ock_test_fail(__LINE__, __FILE__, "registry: %s: %s", err.where, err.what);
  free(text);
  cJSON_Delete(root);
  return reg;
}

/* A small registry for crafted runs: two MUST, one SHOULD, one MAY. */
static const char crafted_registry[] =
    "{\"contract_version\":\"ock/1\",\"events\":[],\"requirements\":["
    "{\"id\":\"OCK-COMPLETE-001\",\"group\":\"COMPLETE\",\"level\":\"MUST\",\"capability\":"
    "\"core\",\"text\":\"complete once\",\"checked_by\":\"t\"},"
    "{\"id\":\"OCK-ORDER-001\",\"group\":\"ORDER\",\"level\":\"MUST\",\"capability\":\"core\","
    "\"text\":\"submit first\",\"checked_by\":\"t\"},"
    "{\"id\":\"OCK-TOOL-006\",\"group\":\"TOOL\",\"level\":\"SHOULD\",\"capability\":\"core\","
    "\"text\":\"output fed back\",\"checked_by\":\"t\"},"
    "{\"id\":\"OCK-HOOK-012\",\"group\":\"HOOK\",\"level\":\"MAY\",\"capability\":"
    "\"scheduling\",\"text\":\"modify on selecting\",\"checked_by\":\"t\"}]}";

static ock_registry *crafted_reg(void) {
  ock_registry *reg = NULL;
  struct ock_jerr err;
  OCK_ASSERT_OK(ock_registry_load(crafted_registry, strlen(crafted_registry), &reg, &err));
  return reg;
}

/* crafted builds a run from "scenario:VERDICT=REQ/CHECKVERDICT,..." specs, e.g.
 * "s1:WARN=OCK-COMPLETE-001/PASS,OCK-TOOL-006/WARN". */
static cJSON *crafted(const char *const *specs, int strict) {
  cJSON *r = cJSON_CreateObject();
  cJSON_AddNumberToObject(r, "schema_version", 1);
  cJSON *opts = cJSON_AddObjectToObject(r, "options");
  cJSON_AddBoolToObject(opts, "strict", strict);
  cJSON *scen = cJSON_AddArrayToObject(r, "scenarios");
  for (int i = 0; specs && specs[i]; i++) {
    char buf[256], *save = NULL;
    snprintf(buf, sizeof buf, "%s", specs[i]);
    char *id = strtok_r(buf, ":", &save), *verdict = strtok_r(NULL, "=", &save);
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "id", id);
    cJSON_AddStringToObject(s, "verdict", verdict);
    cJSON *checks = cJSON_AddArrayToObject(s, "checks");
    for (char *c = strtok_r(NULL, ",", &save); c; c = strtok_r(NULL, ",", &save)) {
      char *slash = strchr(c, '/');
      *slash = '\0';
      cJSON *k = cJSON_CreateObject();
      char cid[64];
      snprintf(cid, sizeof cid, "check.%s", c + 4);
      cJSON_AddStringToObject(k, "id", cid);
      cJSON_AddStringToObject(k, "requirement", c);
      cJSON_AddStringToObject(k, "verdict", slash + 1);
      snprintf(cid, sizeof cid, "%s says %s", id, slash + 1);
      cJSON_AddStringToObject(k, "message", cid);
      cJSON_AddItemToArray(checks, k);
    }
    cJSON_AddItemToArray(scen, s);
  }
  return r;
}

static const cJSON *req_of(const cJSON *report, const char *id) {
  const cJSON *r;
  cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(report, "requirements")) {
    if (!strcmp(ock_json_str(r, "id"), id))
      return r;
  }
  return NULL;
}

static long long level_count(const cJSON *report, const char *level, const char *key) {
  const cJSON *s = cJSON_GetObjectItemCaseSensitive(report, "summary");
  const cJSON *l =
      cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(s, "levels"), level);
  return ock_json_int(l, key, -1);
}

static long long scenario_count(const cJSON *report, const char *key) {
  const cJSON *s = cJSON_GetObjectItemCaseSensitive(report, "summary");
  return ock_json_int(cJSON_GetObjectItemCaseSensitive(s, "scenarios"), key, -1);
}

/* ---- summarize ---- */

static void test_summarize_sample_is_consistent(void) {
  cJSON *sample = load_json(SAMPLE);
  ock_registry *reg = registry_from(sample);
  cJSON *copy = cJSON_Duplicate(sample, 1);
  static const char *const derived[] = {"verdict",      "exit_code",    "summary",
                                        "requirements", "traceability", "causes"};
  for (int i = 0; i < 6; i++)
    cJSON_ReplaceItemInObjectCaseSensitive(copy, derived[i], cJSON_CreateNull());
  OCK_ASSERT_OK(ock_report_summarize(copy, reg));
  assert_same_json(copy, sample, __LINE__);
  /* With the report's own requirement list as catalogue, the same. */
  cJSON *again = cJSON_Duplicate(sample, 1);
  OCK_ASSERT_OK(ock_report_summarize(again, NULL));
  assert_same_json(again, sample, __LINE__);
  cJSON_Delete(again);
  cJSON_Delete(copy);
  cJSON_Delete(sample);
  ock_registry_free(reg);
}

static void test_summarize_fail_in_must_warn_in_should(void) {
  ock_registry *reg = crafted_reg();
  const char *const specs[] = {"s1:WARN=OCK-COMPLETE-001/PASS,OCK-TOOL-006/WARN",
                               "s2:FAIL=OCK-COMPLETE-001/FAIL,OCK-ORDER-001/PASS", NULL};
  cJSON *r = crafted(specs, 0);
  OCK_ASSERT_OK(ock_report_summarize(r, reg));
  OCK_ASSERT_STR_EQ(ock_json_str(r, "verdict"), "FAIL");
  OCK_ASSERT_INT_EQ(ock_json_int(r, "exit_code", -1), 1);
  OCK_ASSERT_STR_EQ(ock_json_str(req_of(r, "OCK-COMPLETE-001"), "verdict"), "FAIL");
  OCK_ASSERT_STR_EQ(ock_json_str(req_of(r, "OCK-COMPLETE-001"), "message"), "s2: s2 says FAIL");
  OCK_ASSERT_STR_EQ(ock_json_str(req_of(r, "OCK-ORDER-001"), "verdict"), "PASS");
  OCK_ASSERT_STR_EQ(ock_json_str(req_of(r, "OCK-TOOL-006"), "verdict"), "WARN");
  OCK_ASSERT_STR_EQ(ock_json_str(req_of(r, "OCK-HOOK-012"), "verdict"), "UNTESTED");
  OCK_ASSERT_TRUE(
      cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(req_of(r, "OCK-HOOK-012"), "message")));
  OCK_ASSERT_INT_EQ(level_count(r, "MUST", "passed"), 1);
  OCK_ASSERT_INT_EQ(level_count(r, "MUST", "total"), 2);
  OCK_ASSERT_INT_EQ(level_count(r, "SHOULD", "passed"), 0);
  OCK_ASSERT_INT_EQ(level_count(r, "SHOULD", "total"), 1);
  OCK_ASSERT_INT_EQ(level_count(r, "MAY", "total"), 0); /* its one MAY requirement is untested */
  OCK_ASSERT_INT_EQ(scenario_count(r, "total"), 2);
  OCK_ASSERT_INT_EQ(scenario_count(r, "FAIL"), 1);
  OCK_ASSERT_INT_EQ(scenario_count(r, "WARN"), 1);
  /* Every requirement of the registry is listed, in registry order, with traceability. */
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "requirements")), 4);
  const cJSON *t0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, "traceability"), 0);
  OCK_ASSERT_STR_EQ(ock_json_str(t0, "requirement"), "OCK-COMPLETE-001");
  char *scen = ock_json_print(cJSON_GetObjectItemCaseSensitive(t0, "scenarios"));
  char *checks = ock_json_print(cJSON_GetObjectItemCaseSensitive(t0, "checks"));
  OCK_ASSERT_STR_EQ(scen, "[\"s1\",\"s2\"]");
  OCK_ASSERT_STR_EQ(checks, "[\"check.COMPLETE-001\"]");
  free(scen);
  free(checks);
  cJSON_Delete(r);
  ock_registry_free(reg);
}

static void test_summarize_strict_decides_warn(void) {
  ock_registry *reg = crafted_reg();
  const char *const specs[] = {"s1:WARN=OCK-COMPLETE-001/PASS,OCK-TOOL-006/WARN", NULL};
  cJSON *lax = crafted(specs, 0), *strict = crafted(specs, 1);
  OCK_ASSERT_OK(ock_report_summarize(lax, reg));
  OCK_ASSERT_OK(ock_report_summarize(strict, reg));
  OCK_ASSERT_STR_EQ(ock_json_str(lax, "verdict"), "PASS");
  OCK_ASSERT_INT_EQ(ock_json_int(lax, "exit_code", -1), 0);
  OCK_ASSERT_STR_EQ(ock_json_str(strict, "verdict"), "FAIL");
  OCK_ASSERT_INT_EQ(ock_json_int(strict, "exit_code", -1), 1);
  /* strict changes the run verdict only: the requirement stays WARN. */
  OCK_ASSERT_STR_EQ(ock_json_str(req_of(strict, "OCK-TOOL-006"), "verdict"), "WARN");
  cJSON_Delete(lax);
  cJSON_Delete(strict);
  ock_registry_free(reg);
}

static void test_summarize_error_is_incomplete(void) {
  ock_registry *reg = crafted_reg();
  const char *const err_only[] = {"s1:PASS=OCK-COMPLETE-001/PASS", "s2:ERROR=OCK-ORDER-001/ERROR",
                                  NULL};
  cJSON *r = crafted(err_only, 0);
  OCK_ASSERT_OK(ock_report_summarize(r, reg));
  OCK_ASSERT_STR_EQ(ock_json_str(r, "verdict"), "INCOMPLETE");
  OCK_ASSERT_INT_EQ(ock_json_int(r, "exit_code", -1), 3);
  OCK_ASSERT_STR_EQ(ock_json_str(req_of(r, "OCK-ORDER-001"), "verdict"), "ERROR");
  cJSON_Delete(r);
  /* A FAIL wins over an ERROR: the run did prove a failure. */
  const char *const both[] = {"s1:FAIL=OCK-COMPLETE-001/FAIL", "s2:ERROR=OCK-ORDER-001/ERROR",
                              NULL};
  r = crafted(both, 0);
  OCK_ASSERT_OK(ock_report_summarize(r, reg));
  OCK_ASSERT_STR_EQ(ock_json_str(r, "verdict"), "FAIL");
  OCK_ASSERT_INT_EQ(ock_json_int(r, "exit_code", -1), 1);
  cJSON_Delete(r);
  ock_registry_free(reg);
}

static void test_summarize_empty_run_is_incomplete(void) {
  ock_registry *reg = crafted_reg();
  cJSON *r = crafted(NULL, 0);
  OCK_ASSERT_OK(ock_report_summarize(r, reg));
  OCK_ASSERT_STR_EQ(ock_json_str(r, "verdict"), "INCOMPLETE");
  OCK_ASSERT_INT_EQ(ock_json_int(r, "exit_code", -1), 3);
  OCK_ASSERT_INT_EQ(scenario_count(r, "total"), 0);
  OCK_ASSERT_INT_EQ(level_count(r, "MUST", "passed"), 0);
  OCK_ASSERT_INT_EQ(level_count(r, "MUST", "total"), 0); /* nothing was graded */
  OCK_ASSERT_STR_EQ(ock_json_str(req_of(r, "OCK-COMPLETE-001"), "verdict"), "UNTESTED");
  cJSON_Delete(r);
  /* Only skipped scenarios: nothing ran either. */
  const char *const skipped[] = {"s1:SKIP=OCK-COMPLETE-001/SKIP", NULL};
  r = crafted(skipped, 0);
  OCK_ASSERT_OK(ock_report_summarize(r, reg));
  OCK_ASSERT_STR_EQ(ock_json_str(r, "verdict"), "INCOMPLETE");
  OCK_ASSERT_INT_EQ(ock_json_int(r, "exit_code", -1), 3);
  OCK_ASSERT_STR_EQ(ock_json_str(req_of(r, "OCK-COMPLETE-001"), "verdict"), "SKIP");
  cJSON_Delete(r);
  ock_registry_free(reg);
}

static void test_summarize_severity_order(void) {
  OCK_ASSERT_INT_EQ(ock_verdict_severity("SKIP"), 0);
  OCK_ASSERT_INT_EQ(ock_verdict_severity("PASS"), 1); /* what applied and held outranks a skip */
  OCK_ASSERT_INT_EQ(ock_verdict_severity("WARN"), 2);
  OCK_ASSERT_INT_EQ(ock_verdict_severity("FAIL"), 3);
  OCK_ASSERT_INT_EQ(ock_verdict_severity("ERROR"), 4);
  OCK_ASSERT_INT_EQ(ock_verdict_severity("UNTESTED"), -1);
  OCK_ASSERT_INT_EQ(ock_verdict_severity("pass"), 4); /* unknown is never a pass */
  ock_registry *reg = crafted_reg();
  const char *const specs[] = {"a:PASS=OCK-COMPLETE-001/PASS", "b:SKIP=OCK-COMPLETE-001/SKIP",
                               "c:WARN=OCK-COMPLETE-001/WARN", "d:ERROR=OCK-COMPLETE-001/ERROR",
                               "e:FAIL=OCK-COMPLETE-001/FAIL", "f:PASS=OCK-ORDER-001/PASS",
                               "g:SKIP=OCK-ORDER-001/SKIP",    NULL};
  cJSON *r = crafted(specs, 0);
  OCK_ASSERT_OK(ock_report_summarize(r, reg));
  /* ERROR beats a later FAIL; the message is the first check with the worst verdict. */
  OCK_ASSERT_STR_EQ(ock_json_str(req_of(r, "OCK-COMPLETE-001"), "verdict"), "ERROR");
  OCK_ASSERT_STR_EQ(ock_json_str(req_of(r, "OCK-COMPLETE-001"), "message"), "d: d says ERROR");
  OCK_ASSERT_STR_EQ(ock_json_str(req_of(r, "OCK-ORDER-001"), "verdict"), "PASS");
  cJSON_Delete(r);
  ock_registry_free(reg);
}

static void test_summarize_unknown_requirement_is_listed(void) {
  ock_registry *reg = crafted_reg();
  const char *const specs[] = {"s1:FAIL=OCK-GHOST-007/FAIL", NULL};
  cJSON *r = crafted(specs, 0);
  OCK_ASSERT_OK(ock_report_summarize(r, reg));
  const cJSON *ghost = req_of(r, "OCK-GHOST-007");
  OCK_ASSERT_STR_EQ(ock_json_str(ghost, "verdict"), "FAIL");
  OCK_ASSERT_STR_EQ(ock_json_str(ghost, "group"), "GHOST");
  OCK_ASSERT_CONTAINS(ock_json_str(ghost, "text"), "not in the requirement registry");
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "requirements")), 5);
  cJSON_Delete(r);
  ock_registry_free(reg);
}

static void test_summarize_rejects_non_report(void) {
  cJSON *r = cJSON_CreateObject();
  OCK_ASSERT_INT_EQ(ock_report_summarize(r, NULL), OCK_EINVAL);
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(r), 0); /* untouched */
  cJSON_Delete(r);
  OCK_ASSERT_INT_EQ(ock_report_summarize(NULL, NULL), OCK_EINVAL);
}

/* ---- read and validate ---- */

static const char *scratch_dir(void) {
  static char dir[64];
  snprintf(dir, sizeof dir, "/tmp/ock-test-report-XXXXXX");
  if (!mkdtemp(dir))
    ock_test_fail(__LINE__, __FILE__, "mkdtemp failed");
  return dir;
}

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (f) {
    fputs(text, f);
    fclose(f);
  }
}

static void test_read_sample(void) {
  cJSON *r = NULL;
  struct ock_jerr err;
  OCK_ASSERT_OK(ock_report_read(ock_test_path(SAMPLE), &r, &err));
  OCK_ASSERT_STR_EQ(ock_json_str(r, "verdict"), "FAIL");
  cJSON_Delete(r);
}

/* read_error writes the sample with one change (done by edit) and returns the error. */
static int read_error(void (*edit)(cJSON *), struct ock_jerr *err) {
  cJSON *s = load_json(SAMPLE), *r = NULL;
  edit(s);
  char *text = cJSON_Print(s);
  char path[128];
  snprintf(path, sizeof path, "%s/report.json", scratch_dir());
  write_text(path, text);
  int rc = ock_report_read(path, &r, err);
  cJSON_Delete(r);
  cJSON_Delete(s);
  free(text);
  unlink(path);
  *strrchr(path, '/') = '\0';
  rmdir(path);
  return rc;
}

static void edit_version(cJSON *s) {
  cJSON_ReplaceItemInObjectCaseSensitive(s, "schema_version", cJSON_CreateNumber(2));
}

static void edit_check_verdict(cJSON *s) {
  cJSON *sc = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(s, "scenarios"), 1);
  cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(sc, "checks"), 0);
  cJSON_ReplaceItemInObjectCaseSensitive(c, "verdict", cJSON_CreateString("MAYBE"));
}

static void edit_drop_scenarios(cJSON *s) {
  cJSON_DeleteItemFromObjectCaseSensitive(s, "scenarios");
}

static void edit_bad_time(cJSON *s) {
  cJSON_ReplaceItemInObjectCaseSensitive(s, "finished_at", cJSON_CreateString("yesterday"));
}

static void test_read_errors_name_the_path(void) {
  struct ock_jerr err;
  OCK_ASSERT_INT_EQ(read_error(edit_version, &err), OCK_ETYPE);
  OCK_ASSERT_CONTAINS(err.where, "report.json: $.schema_version");
  OCK_ASSERT_CONTAINS(err.what, "got 2");
  OCK_ASSERT_INT_EQ(read_error(edit_check_verdict, &err), OCK_ETYPE);
  OCK_ASSERT_CONTAINS(err.where, "$.scenarios[1].checks[0].verdict");
  OCK_ASSERT_CONTAINS(err.what, "MAYBE");
  OCK_ASSERT_INT_EQ(read_error(edit_drop_scenarios, &err), OCK_EMISSING);
  OCK_ASSERT_CONTAINS(err.where, "$.scenarios");
  OCK_ASSERT_INT_EQ(read_error(edit_bad_time, &err), OCK_ETYPE);
  OCK_ASSERT_CONTAINS(err.where, "$.finished_at");
  OCK_ASSERT_CONTAINS(err.what, "yesterday");
}

static void test_read_not_json(void) {
  char path[128];
  cJSON *r = NULL;
  struct ock_jerr err;
  snprintf(path, sizeof path, "%s/report.json", scratch_dir());
  write_text(path, "{\"schema_version\": 1,");
  OCK_ASSERT_INT_EQ(ock_report_read(path, &r, &err), OCK_EJSON);
  OCK_ASSERT_NULL(r);
  unlink(path);
  OCK_ASSERT_INT_EQ(ock_report_read(path, &r, &err), OCK_EIO);
  *strrchr(path, '/') = '\0';
  rmdir(path);
}

static void test_time_parse(void) {
  long long ms = 0;
  OCK_ASSERT_OK(ock_report_time_ms("1970-01-01T00:00:00Z", &ms));
  OCK_ASSERT_INT_EQ(ms, 0);
  OCK_ASSERT_OK(ock_report_time_ms("2026-11-21T10:00:09Z", &ms));
  OCK_ASSERT_INT_EQ(ms, 1795255209000LL);
  OCK_ASSERT_OK(ock_report_time_ms("2026-11-21T10:00:09.25Z", &ms));
  OCK_ASSERT_INT_EQ(ms, 1795255209250LL);
  OCK_ASSERT_OK(ock_report_time_ms("2026-11-21T12:00:09+02:00", &ms));
  OCK_ASSERT_INT_EQ(ms, 1795255209000LL);
  OCK_ASSERT_OK(ock_report_time_ms("2000-02-29T00:00:00Z", &ms));
  OCK_ASSERT_INT_EQ(ms, 951782400000LL);
  OCK_ASSERT_INT_EQ(ock_report_time_ms("2026-11-21 10:00:09Z", &ms), OCK_EINVAL);
  OCK_ASSERT_INT_EQ(ock_report_time_ms("2026-11-21T10:00:09", &ms), OCK_EINVAL);
  OCK_ASSERT_INT_EQ(ock_report_time_ms("2026-13-21T10:00:09Z", &ms), OCK_EINVAL);
  OCK_ASSERT_INT_EQ(ock_report_time_ms("2026-11-21T10:00:09Zjunk", &ms), OCK_EINVAL);
  OCK_ASSERT_INT_EQ(ock_report_time_ms(NULL, &ms), OCK_EINVAL);
}

/* ---- merge ---- */

/* shard keeps the sample's scenarios at positions i with i % n == k, with its own times. */
static cJSON *shard(const cJSON *sample, const ock_registry *reg, int k, int n, const char *started,
                    const char *finished, long long duration) {
  cJSON *s = cJSON_Duplicate(sample, 1);
  cJSON *scen = cJSON_GetObjectItemCaseSensitive(s, "scenarios");
  for (int i = cJSON_GetArraySize(scen) - 1; i >= 0; i--)
    if (i % n != k)
      cJSON_DeleteItemFromArray(scen, i);
  char label[16];
  snprintf(label, sizeof label, "%d/%d", k + 1, n);
  cJSON *opts = cJSON_GetObjectItemCaseSensitive(s, "options");
  cJSON_ReplaceItemInObjectCaseSensitive(opts, "shard", cJSON_CreateString(label));
  cJSON_ReplaceItemInObjectCaseSensitive(s, "started_at", cJSON_CreateString(started));
  cJSON_ReplaceItemInObjectCaseSensitive(s, "finished_at", cJSON_CreateString(finished));
  cJSON_ReplaceItemInObjectCaseSensitive(s, "duration_ms", cJSON_CreateNumber((double)duration));
  OCK_ASSERT_OK(ock_report_summarize(s, reg));
  return s;
}

static void test_merge_two_shards_equals_unsharded(void) {
  cJSON *sample = load_json(SAMPLE);
  ock_registry *reg = registry_from(sample);
  cJSON *a = shard(sample, reg, 0, 2, "2026-11-21T10:00:00Z", "2026-11-21T10:00:05Z", 5000);
  cJSON *b = shard(sample, reg, 1, 2, "2026-11-21T10:00:01.500Z", "2026-11-21T10:00:09Z", 7500);
  /* Each shard alone is a different run: shard b has a FAIL, shard a an ERROR. */
  OCK_ASSERT_STR_EQ(ock_json_str(a, "verdict"), "INCOMPLETE");
  OCK_ASSERT_STR_EQ(ock_json_str(b, "verdict"), "FAIL");
  const cJSON *shards[] = {b, a}; /* out of order on purpose */
  cJSON *merged = NULL;
  struct ock_jerr err;
  int rc = ock_report_merge(shards, 2, &merged, &err);
  if (rc)
    ock_test_fail(__LINE__, __FILE__, "merge: %s: %s", err.where, err.what);
  cJSON *expected = cJSON_Duplicate(sample, 1);
  cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(expected, "options"),
                                         "shard", cJSON_CreateString("merged"));
  assert_same_json(merged, expected, __LINE__);
  cJSON_Delete(expected);
  cJSON_Delete(merged);
  cJSON_Delete(a);
  cJSON_Delete(b);
  cJSON_Delete(sample);
  ock_registry_free(reg);
}

static void test_merge_duplicate_scenario(void) {
  cJSON *sample = load_json(SAMPLE), *merged = NULL;
  const cJSON *shards[] = {sample, sample};
  struct ock_jerr err;
  OCK_ASSERT_INT_EQ(ock_report_merge(shards, 2, &merged, &err), OCK_EINVAL);
  OCK_ASSERT_NULL(merged);
  OCK_ASSERT_CONTAINS(err.where, "shard 2: $.scenarios[0].id");
  OCK_ASSERT_CONTAINS(err.what, "\"cancel-during-tool\" is also in shard 1");
  cJSON_Delete(sample);
}

static void test_merge_rejects_other_runs(void) {
  cJSON *sample = load_json(SAMPLE), *other = cJSON_CreateObject(), *merged = NULL;
  cJSON *b = cJSON_Duplicate(sample, 1);
  cJSON_ReplaceItemInObjectCaseSensitive(b, "scenarios", cJSON_CreateArray());
  cJSON_ReplaceItemInObjectCaseSensitive(b, "contract_version", cJSON_CreateString("ock/2"));
  const cJSON *shards[] = {sample, b};
  struct ock_jerr err;
  OCK_ASSERT_INT_EQ(ock_report_merge(shards, 2, &merged, &err), OCK_EINVAL);
  OCK_ASSERT_STR_EQ(err.where, "$.contract_version");
  OCK_ASSERT_CONTAINS(err.what, "shard 2 has \"ock/2\" where shard 1 has");
  /* An invalid shard is named with its path. */
  const cJSON *bad[] = {sample, other};
  OCK_ASSERT_INT_EQ(ock_report_merge(bad, 2, &merged, &err), OCK_EMISSING);
  OCK_ASSERT_CONTAINS(err.where, "shard 2: $.schema_version");
  OCK_ASSERT_INT_EQ(ock_report_merge(bad, 0, &merged, &err), OCK_EINVAL);
  cJSON_Delete(b);
  cJSON_Delete(other);
  cJSON_Delete(sample);
}

/* A shard of another orchestrator, capability set, wire set or fixture set is another run: the
 * merge is refused with the member's path, both shards and both values, never credited to the
 * first shard's orchestrator. */
static void test_merge_rejects_other_orchestrators(void) {
  static const char *const members[][3] = {
      {"orchestrator", "command", "\"other-agent\""},
      {"orchestrator", "name", "\"other\""},
      {"orchestrator", "capabilities", "[\"core\",\"streaming\"]"},
      {"orchestrator", "wires", "[\"anthropic\"]"},
      {"options", "fixtures", "\"elsewhere/fixtures\""},
      {"options", "case", "[\"tool-*\"]"},
      {"options", "exclude", "[\"stream-*\"]"}};
  cJSON *sample = load_json(SAMPLE), *merged = NULL;
  for (size_t i = 0; i < sizeof members / sizeof members[0]; i++) {
    cJSON *b = cJSON_Duplicate(sample, 1);
    cJSON_ReplaceItemInObjectCaseSensitive(b, "scenarios", cJSON_CreateArray());
    cJSON *o = cJSON_GetObjectItemCaseSensitive(b, members[i][0]);
    cJSON_DeleteItemFromObjectCaseSensitive(o, members[i][1]);
    cJSON_AddItemToObject(o, members[i][1], cJSON_Parse(members[i][2]));
    const cJSON *shards[] = {sample, b};
    const char *names[] = {"a/report.json", "b/report.json"};
    struct ock_jerr err;
    char where[100];
    snprintf(where, sizeof where, "$.%s.%s", members[i][0], members[i][1]);
    OCK_ASSERT_INT_EQ(ock_report_merge_named(shards, names, 2, &merged, &err), OCK_EINVAL);
    OCK_ASSERT_NULL(merged);
    OCK_ASSERT_STR_EQ(err.where, where);
    OCK_ASSERT_CONTAINS(err.what, "b/report.json has ");
    OCK_ASSERT_CONTAINS(err.what, members[i][2]);
    OCK_ASSERT_CONTAINS(err.what, " where a/report.json has ");
    cJSON_Delete(b);
  }
  cJSON_Delete(sample);
}

static void test_merge_one_shard(void) {
  cJSON *sample = load_json(SAMPLE), *merged = NULL;
  const cJSON *shards[] = {sample};
  struct ock_jerr err;
  OCK_ASSERT_OK(ock_report_merge(shards, 1, &merged, &err));
  OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetObjectItemCaseSensitive(merged, "options"), "shard"),
                    "merged");
  OCK_ASSERT_INT_EQ(ock_json_int(merged, "duration_ms", -1), 9000);
  OCK_ASSERT_STR_EQ(ock_json_str(merged, "verdict"), "FAIL");
  cJSON_Delete(merged);
  cJSON_Delete(sample);
}

/* ---- write_all ---- */

static int exists(const char *dir, const char *name) {
  char p[512];
  struct stat st;
  snprintf(p, sizeof p, "%s/%s", dir, name);
  return lstat(p, &st) == 0;
}

static void remove_tree(const char *dir) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0)
    ock_test_fail(__LINE__, __FILE__, "cannot remove %s", dir);
}

static void test_write_all_creates_every_file(void) {
  cJSON *sample = load_json(SAMPLE), *back = NULL;
  char root[64], dir[128], errbuf[256] = "";
  snprintf(root, sizeof root, "%s", scratch_dir());
  snprintf(dir, sizeof dir, "%s/a/b/latest", root);
  OCK_ASSERT_OK(ock_report_write_all(sample, dir, errbuf, sizeof errbuf));
  for (int i = 0; ock_report_writers[i]; i++)
    OCK_ASSERT_TRUE(exists(dir, ock_report_writers[i]->filename));
  char path[256];
  struct ock_jerr err;
  snprintf(path, sizeof path, "%s/report.json", dir);
  OCK_ASSERT_OK(ock_report_read(path, &back, &err));
  OCK_ASSERT_TRUE(cJSON_Compare(back, sample, 1));
  /* Writing again replaces the files and leaves no temporary file. */
  OCK_ASSERT_OK(ock_report_write_all(sample, dir, errbuf, sizeof errbuf));
  char cmd[300];
  snprintf(cmd, sizeof cmd, "test $(ls -A '%s' | wc -l) -eq 4", dir);
  OCK_ASSERT_INT_EQ(system(cmd), 0);
  cJSON_Delete(back);
  cJSON_Delete(sample);
  remove_tree(root);
}

static void test_write_all_refuses_symlinked_dir(void) {
  cJSON *sample = load_json(SAMPLE);
  char root[64], target[128], link[128], errbuf[256] = "";
  snprintf(root, sizeof root, "%s", scratch_dir());
  snprintf(target, sizeof target, "%s/elsewhere", root);
  snprintf(link, sizeof link, "%s/latest", root);
  OCK_ASSERT_OK(mkdir(target, 0755));
  OCK_ASSERT_OK(symlink(target, link));
  OCK_ASSERT_INT_EQ(ock_report_write_all(sample, link, errbuf, sizeof errbuf), OCK_EINVAL);
  OCK_ASSERT_CONTAINS(errbuf, "is a symbolic link");
  OCK_ASSERT_INT_EQ(exists(target, "report.json"), 0);
  /* A trailing slash does not get past the check either. */
  char slash[140];
  snprintf(slash, sizeof slash, "%s/", link);
  OCK_ASSERT_INT_NE(ock_report_write_all(sample, slash, errbuf, sizeof errbuf), OCK_OK);
  OCK_ASSERT_INT_EQ(exists(target, "report.json"), 0);
  cJSON_Delete(sample);
  remove_tree(root);
}

/* A symbolic link or a forged report planted in the directory is replaced by this run's file,
 * the link not followed; the victim it pointed to is untouched and no temporary is left. */
static void test_write_all_replaces_planted_files(void) {
  cJSON *sample = load_json(SAMPLE);
  char root[64], dir[128], victim[128], link[160], forged[160], errbuf[256] = "";
  snprintf(root, sizeof root, "%s", scratch_dir());
  snprintf(dir, sizeof dir, "%s/latest", root);
  snprintf(victim, sizeof victim, "%s/victim.txt", root);
  snprintf(link, sizeof link, "%s/junit.xml", dir);
  snprintf(forged, sizeof forged, "%s/summary.md", dir);
  OCK_ASSERT_OK(mkdir(dir, 0755));
  write_text(victim, "precious\n");
  write_text(forged, "# verdict PASS (forged)\n");
  OCK_ASSERT_OK(symlink(victim, link));
  OCK_ASSERT_OK(ock_report_write_all(sample, dir, errbuf, sizeof errbuf));
  struct stat st;
  OCK_ASSERT_OK(lstat(link, &st));
  OCK_ASSERT_TRUE(S_ISREG(st.st_mode));
  char cmd[600];
  snprintf(cmd, sizeof cmd, "grep -qx precious '%s' && grep -q '<testsuites' '%s'", victim, link);
  OCK_ASSERT_INT_EQ(system(cmd), 0);
  snprintf(cmd, sizeof cmd, "grep -q forged '%s'", forged);
  OCK_ASSERT_INT_NE(system(cmd), 0);
  snprintf(cmd, sizeof cmd, "test $(ls -A '%s' | wc -l) -eq 4 && test $(ls -A '%s' | wc -l) -eq 2",
           dir, root);
  OCK_ASSERT_INT_EQ(system(cmd), 0);
  cJSON_Delete(sample);
  remove_tree(root);
}

/* A directory planted under a report's name cannot be replaced: the write fails naming it, and
 * the old reports are removed rather than left looking like this run's. */
static void test_write_all_planted_directory_fails_clean(void) {
  cJSON *sample = load_json(SAMPLE);
  char root[64], dir[128], blocker[160], old[160], errbuf[256] = "";
  snprintf(root, sizeof root, "%s", scratch_dir());
  snprintf(dir, sizeof dir, "%s/latest", root);
  snprintf(blocker, sizeof blocker, "%s/report.html/x", dir);
  snprintf(old, sizeof old, "%s/report.json", dir);
  OCK_ASSERT_OK(ock_report_write_all(sample, dir, errbuf, sizeof errbuf));
  snprintf(blocker, sizeof blocker, "%s/report.html", dir);
  OCK_ASSERT_OK(unlink(blocker));
  OCK_ASSERT_OK(mkdir(blocker, 0755));
  snprintf(blocker, sizeof blocker, "%s/report.html/x", dir);
  write_text(blocker, "x");
  write_text(old, "{\"verdict\": \"PASS\"}");
  OCK_ASSERT_INT_NE(ock_report_write_all(sample, dir, errbuf, sizeof errbuf), OCK_OK);
  OCK_ASSERT_CONTAINS(errbuf, "report.html");
  OCK_ASSERT_CONTAINS(errbuf, "a directory");
  char cmd[600];
  snprintf(cmd, sizeof cmd, "grep -q '\"verdict\": \"PASS\"}' '%s'", old);
  OCK_ASSERT_INT_NE(system(cmd), 0); /* the planted one is gone or replaced */
  snprintf(cmd, sizeof cmd, "test $(ls -A '%s' | wc -l) -eq 1", root); /* no staging left */
  OCK_ASSERT_INT_EQ(system(cmd), 0);
  cJSON_Delete(sample);
  remove_tree(root);
}

static void test_write_all_not_a_directory(void) {
  cJSON *sample = load_json(SAMPLE);
  char root[64], file[128], errbuf[256] = "";
  snprintf(root, sizeof root, "%s", scratch_dir());
  snprintf(file, sizeof file, "%s/plain", root);
  write_text(file, "x");
  OCK_ASSERT_INT_EQ(ock_report_write_all(sample, file, errbuf, sizeof errbuf), OCK_EINVAL);
  OCK_ASSERT_CONTAINS(errbuf, "not a directory");
  OCK_ASSERT_INT_EQ(ock_report_write_all(sample, "", errbuf, sizeof errbuf), OCK_EINVAL);
  cJSON_Delete(sample);
  remove_tree(root);
}

static void test_writer_table(void) {
  static const char *const names[][2] = {{"json", "report.json"},
                                         {"junit", "junit.xml"},
                                         {"markdown", "summary.md"},
                                         {"html", "report.html"}};
  for (int i = 0; i < 4; i++) {
    OCK_ASSERT_STR_EQ(ock_report_writers[i]->name, names[i][0]);
    OCK_ASSERT_STR_EQ(ock_report_writers[i]->filename, names[i][1]);
    OCK_ASSERT_TRUE(ock_report_writer_find(names[i][0]) == ock_report_writers[i]);
  }
  OCK_ASSERT_NULL(ock_report_writers[4]);
  OCK_ASSERT_NULL(ock_report_writer_find("pdf"));
}

/* ---- the JSON Schema ---- */

struct schema_ctx {
  const cJSON *root;
  char error[512];
};

static int type_matches(const cJSON *v, const char *t) {
  if (!strcmp(t, "object"))
    return cJSON_IsObject(v);
  if (!strcmp(t, "array"))
    return cJSON_IsArray(v);
  if (!strcmp(t, "string"))
    return cJSON_IsString(v);
  if (!strcmp(t, "boolean"))
    return cJSON_IsBool(v);
  if (!strcmp(t, "null"))
    return cJSON_IsNull(v);
  if (!strcmp(t, "number"))
    return cJSON_IsNumber(v);
  if (!strcmp(t, "integer"))
    return cJSON_IsNumber(v) && v->valuedouble == (double)(long long)v->valuedouble;
  return 0;
}

/* schema_check validates v against schema s (the keywords the OCK schema uses). */
static int schema_check(struct schema_ctx *c, const cJSON *s, const cJSON *v, const char *path) {
  const cJSON *k, *e;
  if ((k = cJSON_GetObjectItemCaseSensitive(s, "$ref"))) {
    const char *ref = k->valuestring;
    if (strncmp(ref, "#/$defs/", 8)) {
      snprintf(c->error, sizeof c->error, "%s: unsupported $ref %s", path, ref);
      return 0;
    }
    const cJSON *defs = cJSON_GetObjectItemCaseSensitive(c->root, "$defs");
    return schema_check(c, cJSON_GetObjectItemCaseSensitive(defs, ref + 8), v, path);
  }
  if ((k = cJSON_GetObjectItemCaseSensitive(s, "type"))) {
    int ok = cJSON_IsString(k) && type_matches(v, k->valuestring);
    const cJSON *types = cJSON_IsArray(k) ? k : NULL;
    cJSON_ArrayForEach(e, types) {
      ok |= type_matches(v, e->valuestring);
    }
    if (!ok) {
      snprintf(c->error, sizeof c->error, "%s: wrong type %s", path, ock_json_type_name(v));
      return 0;
    }
  }
  if ((k = cJSON_GetObjectItemCaseSensitive(s, "const")) && !cJSON_Compare(k, v, 1)) {
    snprintf(c->error, sizeof c->error, "%s: not the constant", path);
    return 0;
  }
  if ((k = cJSON_GetObjectItemCaseSensitive(s, "enum"))) {
    int ok = 0;
    cJSON_ArrayForEach(e, k) {
      ok |= cJSON_Compare(e, v, 1);
    }
    if (!ok) {
      snprintf(c->error, sizeof c->error, "%s: not one of the enum values", path);
      return 0;
    }
  }
  if ((k = cJSON_GetObjectItemCaseSensitive(s, "minimum")) && cJSON_IsNumber(v) &&
      v->valuedouble < k->valuedouble) {
    snprintf(c->error, sizeof c->error, "%s: below the minimum", path);
    return 0;
  }
  if (cJSON_IsObject(v)) {
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(s, "required")) {
      if (!cJSON_GetObjectItemCaseSensitive(v, e->valuestring)) {
        snprintf(c->error, sizeof c->error, "%s: missing required %s", path, e->valuestring);
        return 0;
      }
    }
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(s, "properties")) {
      const cJSON *m = cJSON_GetObjectItemCaseSensitive(v, e->string);
      char mp[512];
      snprintf(mp, sizeof mp, "%s.%s", path, e->string);
      if (m && !schema_check(c, e, m, mp))
        return 0;
    }
  }
  if (cJSON_IsArray(v) && (k = cJSON_GetObjectItemCaseSensitive(s, "items"))) {
    int i = 0;
    cJSON_ArrayForEach(e, v) {
      char ip[512];
      snprintf(ip, sizeof ip, "%s[%d]", path, i++);
      if (!schema_check(c, k, e, ip))
        return 0;
    }
  }
  return 1;
}

/* keywords_known: every keyword the schema uses is one schema_check implements or ignores
 * on purpose, so the validator cannot silently skip a rule. */
static int keywords_known(const cJSON *s, int in_properties, char *bad, size_t n) {
  static const char *const known[] = {"$schema",  "$id",        "title", "description", "type",
                                      "required", "properties", "items", "enum",        "const",
                                      "minimum",  "$ref",       "$defs", NULL};
  const cJSON *e;
  if (!cJSON_IsObject(s))
    return 1;
  cJSON_ArrayForEach(e, s) {
    int ok = in_properties;
    for (int i = 0; !ok && known[i]; i++)
      ok = !strcmp(e->string, known[i]);
    if (!ok) {
      snprintf(bad, n, "%s", e->string);
      return 0;
    }
    int children_are_names =
        !in_properties && (!strcmp(e->string, "properties") || !strcmp(e->string, "$defs"));
    if (!in_properties && (!strcmp(e->string, "enum") || !strcmp(e->string, "const") ||
                           !strcmp(e->string, "required")))
      continue;
    if (cJSON_IsObject(e) && !keywords_known(e, children_are_names, bad, n))
      return 0;
  }
  return 1;
}

static void assert_schema_valid(const cJSON *schema, const cJSON *report, int line) {
  struct schema_ctx c = {schema, ""};
  if (!schema_check(&c, schema, report, "$"))
    ock_test_fail(line, __FILE__, "report does not match report.schema.json: %s", c.error);
  else
    CU_PASS("schema");
}

static void test_schema_matches_reports(void) {
  cJSON *schema = load_json("reports/report.schema.json");
  cJSON *sample = load_json(SAMPLE), *merged = NULL;
  char bad[64] = "";
  if (!keywords_known(schema, 0, bad, sizeof bad))
    ock_test_fail(__LINE__, __FILE__,
                  "the schema uses \"%s\", which the test validator does not "
                  "implement; extend schema_check",
                  bad);
  OCK_ASSERT_STR_EQ(ock_json_str(schema, "$schema"),
                    "https://json-schema.org/draft/2020-12/schema");
  assert_schema_valid(schema, sample, __LINE__);
  /* A merged report and a summarized crafted report are generated, not hand-written. */
  const cJSON *shards[] = {sample};
  struct ock_jerr err;
  OCK_ASSERT_OK(ock_report_merge(shards, 1, &merged, &err));
  assert_schema_valid(schema, merged, __LINE__);
  /* The validator does reject: a report without a verdict, a scenario with a bad lane. */
  cJSON_DeleteItemFromObjectCaseSensitive(merged, "verdict");
  struct schema_ctx c = {schema, ""};
  OCK_ASSERT_INT_EQ(schema_check(&c, schema, merged, "$"), 0);
  OCK_ASSERT_CONTAINS(c.error, "missing required verdict");
  cJSON *sc = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(sample, "scenarios"), 1);
  cJSON *tl = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(sc, "timeline"), 0);
  cJSON_ReplaceItemInObjectCaseSensitive(tl, "lane", cJSON_CreateString("moon"));
  OCK_ASSERT_INT_EQ(schema_check(&c, schema, sample, "$"), 0);
  OCK_ASSERT_CONTAINS(c.error, "$.scenarios[1].timeline[0].lane");
  cJSON *wrong = load_json(SAMPLE);
  cJSON_AddNumberToObject(wrong, "error", 2);
  OCK_ASSERT_INT_EQ(schema_check(&c, schema, wrong, "$"), 0);
  OCK_ASSERT_CONTAINS(c.error, "$.error: wrong type");
  struct ock_jerr werr;
  OCK_ASSERT_INT_EQ(ock_report_validate(wrong, &werr), OCK_ETYPE);
  OCK_ASSERT_STR_EQ(werr.where, "$.error");
  cJSON_Delete(wrong);
  cJSON_Delete(merged);
  cJSON_Delete(sample);
  cJSON_Delete(schema);
}

static void test_schema_and_validator_agree_on_required(void) {
  /* Every top-level member the schema requires is one ock_report_validate requires. */
  cJSON *schema = load_json("reports/report.schema.json");
  cJSON *sample = load_json(SAMPLE);
  const cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(schema, "required")) {
    cJSON *copy = cJSON_Duplicate(sample, 1);
    cJSON_DeleteItemFromObjectCaseSensitive(copy, e->valuestring);
    struct ock_jerr err;
    int rc = ock_report_validate(copy, &err);
    if (rc != OCK_EMISSING)
      ock_test_fail(__LINE__, __FILE__, "without \"%s\" ock_report_validate returned %d",
                    e->valuestring, rc);
    else
      CU_PASS("required");
    cJSON_Delete(copy);
  }
  cJSON_Delete(sample);
  cJSON_Delete(schema);
}

/* A real `ock run` that stops at a fixture error (exit 2) says so in all four files: the
 * reason, not an empty green run. */
static void test_exit2_run_writes_every_format(void) {
  char dir[64];
  if (ock_test_tmpdir(dir, "exit2")) {
    ock_test_fail(__LINE__, __FILE__, "cannot create a temporary directory");
    return;
  }
  char cmd[1024];
  snprintf(cmd, sizeof cmd,
           "mkdir -p %s/fx && printf '{\"ock_fixture\": 1,' > %s/fx/broken.json && "
           "%s/bin/ock run --orchestrator true --fixtures %s/fx -o %s/out 2>/dev/null",
           dir, dir, OCK_BIN_DIR, dir, dir);
  OCK_ASSERT_INT_EQ(ock_test_sh(cmd), 2);
  static const char *const files[] = {"report.json", "junit.xml", "summary.md", "report.html"};
  char *text[4];
  for (int i = 0; i < 4; i++) {
    char path[128];
    snprintf(path, sizeof path, "%s/out/%s", dir, files[i]);
    text[i] = ock_test_read_file(path);
    if (!text[i])
      ock_test_fail(__LINE__, __FILE__, "ock run wrote no %s", path);
  }
  if (text[0] && text[1] && text[2] && text[3]) {
    cJSON *report = cJSON_Parse(text[0]);
    OCK_ASSERT_INT_EQ(ock_json_int(report, "exit_code", -1), 2);
    OCK_ASSERT_CONTAINS(ock_json_str(report, "error"), "fx/broken.json");
    cJSON *schema = load_json("reports/report.schema.json");
    assert_schema_valid(schema, report, __LINE__);
    cJSON_Delete(schema);
    cJSON_Delete(report);
    OCK_ASSERT_CONTAINS(text[1], "errors=\"1\"");
    OCK_ASSERT_CONTAINS(text[1], "<testcase classname=\"ock\" name=\"run\"");
    OCK_ASSERT_CONTAINS(text[1], "fx/broken.json");
    OCK_ASSERT_CONTAINS(text[2], "**The run did not grade the orchestrator** (exit code 2");
    OCK_ASSERT_CONTAINS(text[2], "fx/broken.json");
    OCK_ASSERT_CONTAINS(text[3], "<div class=\"runerr\" id=\"run-error\">");
    OCK_ASSERT_CONTAINS(text[3], "fx/broken.json");
  }
  for (int i = 0; i < 4; i++)
    free(text[i]);
  /* A usage error once -o is known: the same, with the option's message. */
  snprintf(cmd, sizeof cmd,
           "%s/bin/ock run --orchestrator true --timeout nan -o %s/usage 2>/dev/null", OCK_BIN_DIR,
           dir);
  OCK_ASSERT_INT_EQ(ock_test_sh(cmd), 2);
  char path[128];
  snprintf(path, sizeof path, "%s/usage/junit.xml", dir);
  char *xml = ock_test_read_file(path);
  OCK_ASSERT_CONTAINS(xml, "errors=\"1\"");
  OCK_ASSERT_CONTAINS(xml, "--timeout: expected seconds");
  free(xml);
  snprintf(path, sizeof path, "%s/usage/summary.md", dir);
  char *md = ock_test_read_file(path);
  OCK_ASSERT_CONTAINS(md, "**The run did not grade the orchestrator** (exit code 2");
  free(md);
  ock_test_rmdir(dir);
}

/* MCP sessions are the SUT's doing, shown in its lane; a call no reply asked for is a fault. */
static void timeline_lanes_of_mcp_entries(void) {
  cJSON *journal =
      cJSON_Parse("[{\"seq\":1,\"kind\":\"mcp_session\",\"session_id\":\"ock-1\","
                  "\"protocol_version\":\"2025-11-25\"},"
                  "{\"seq\":2,\"kind\":\"unrequested_tool_call\",\"name\":\"t\"},"
                  "{\"seq\":3,\"kind\":\"mcp_session\",\"session_id\":\"ock-1\",\"closed\":true}]");
  cJSON *rows = ock__timeline_build(journal, NULL, 10);
  static const char *const want[][3] = {{"sut", "MCP session", "2025-11-25"},
                                        {"fault", "unrequested_tool_call ", NULL},
                                        {"sut", "MCP session ended", ""}};
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(rows), 3);
  for (int i = 0; i < 3; i++) {
    const cJSON *r = cJSON_GetArrayItem(rows, i);
    OCK_ASSERT_STR_EQ(ock_json_str(r, "lane"), want[i][0]);
    OCK_ASSERT_STR_EQ(ock_json_str(r, "label"), want[i][1]);
    if (want[i][2])
      OCK_ASSERT_STR_EQ(ock_json_str(r, "detail"), want[i][2]);
  }
  cJSON_Delete(rows);
  cJSON_Delete(journal);
}

/* The renderers' id lookup: the first item with the id, whatever the order, as a linear
 * search would find it; a missing id, an item without one, or NULL give -1. */
static void test_index_of_finds_the_first(void) {
  cJSON *report = cJSON_Parse("{\"scenarios\": [{\"id\": \"b\"}, {\"id\": \"a\"}, {}, "
                              "{\"id\": \"b\"}, {\"id\": \"c\"}], \"requirements\": []}");
  OCK_ASSERT_NOT_NULL_FATAL(report);
  struct ock_report_model m;
  ock_report_model_read(&m, report);
  OCK_ASSERT_NOT_NULL(m.scenario_ids.ids);
  OCK_ASSERT_INT_EQ(ock_report_index_of(&m.scenario_ids, "b"), 0);
  OCK_ASSERT_INT_EQ(ock_report_index_of(&m.scenario_ids, "a"), 1);
  OCK_ASSERT_INT_EQ(ock_report_index_of(&m.scenario_ids, "c"), 4);
  OCK_ASSERT_INT_EQ(ock_report_index_of(&m.scenario_ids, "d"), -1);
  OCK_ASSERT_INT_EQ(ock_report_index_of(&m.scenario_ids, ""), -1);
  OCK_ASSERT_INT_EQ(ock_report_index_of(&m.scenario_ids, NULL), -1);
  OCK_ASSERT_INT_EQ(ock_report_index_of(&m.requirement_ids, "a"), -1);
  /* Without the index (out of memory), the linear search gives the same answers. */
  struct ock_report_ids linear = {.array = m.scenarios};
  OCK_ASSERT_INT_EQ(ock_report_index_of(&linear, "b"), 0);
  OCK_ASSERT_INT_EQ(ock_report_index_of(&linear, "c"), 4);
  OCK_ASSERT_INT_EQ(ock_report_index_of(&linear, "d"), -1);
  ock_report_model_free(&m);
  cJSON_Delete(report);
}

static const struct ock_test tests[] = {
    {"summarize_sample_is_consistent", test_summarize_sample_is_consistent},
    {"summarize_fail_in_must_warn_in_should", test_summarize_fail_in_must_warn_in_should},
    {"summarize_strict_decides_warn", test_summarize_strict_decides_warn},
    {"summarize_error_is_incomplete", test_summarize_error_is_incomplete},
    {"summarize_empty_run_is_incomplete", test_summarize_empty_run_is_incomplete},
    {"summarize_severity_order", test_summarize_severity_order},
    {"summarize_unknown_requirement_is_listed", test_summarize_unknown_requirement_is_listed},
    {"summarize_rejects_non_report", test_summarize_rejects_non_report},
    {"read_sample", test_read_sample},
    {"read_errors_name_the_path", test_read_errors_name_the_path},
    {"read_not_json", test_read_not_json},
    {"time_parse", test_time_parse},
    {"merge_two_shards_equals_unsharded", test_merge_two_shards_equals_unsharded},
    {"merge_duplicate_scenario", test_merge_duplicate_scenario},
    {"merge_rejects_other_runs", test_merge_rejects_other_runs},
    {"merge_rejects_other_orchestrators", test_merge_rejects_other_orchestrators},
    {"merge_one_shard", test_merge_one_shard},
    {"write_all_creates_every_file", test_write_all_creates_every_file},
    {"write_all_refuses_symlinked_dir", test_write_all_refuses_symlinked_dir},
    {"write_all_replaces_planted_files", test_write_all_replaces_planted_files},
    {"write_all_planted_directory_fails_clean", test_write_all_planted_directory_fails_clean},
    {"write_all_not_a_directory", test_write_all_not_a_directory},
    {"writer_table", test_writer_table},
    {"schema_matches_reports", test_schema_matches_reports},
    {"schema_and_validator_agree_on_required", test_schema_and_validator_agree_on_required},
    {"exit2_run_writes_every_format", test_exit2_run_writes_every_format},
    {"timeline_lanes_of_mcp_entries", timeline_lanes_of_mcp_entries},
    {"index_of_finds_the_first", test_index_of_finds_the_first},
    {NULL, NULL}};

const struct ock_suite suite_report = {"report", tests, NULL, NULL};
