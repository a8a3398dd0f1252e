/*
 * test_examples.c: the worked example of what OCK catches. The seed contract's own
 * BasicOrchestrator, ported faithfully to Python and run under the adapter, must fail where it
 * really is wrong: an unknown tool name leaves its call without a result (OCK-TOOL-001), and a
 * provider error escapes execute() with no orchestrator:complete (OCK-COMPLETE-001). The
 * corrected port must pass every scenario it declares. The adapter's own unit tests run too.
 */
#include "runner.h"

#include <stdlib.h>
#include <unistd.h>

#include "ock/json.h"

#ifndef OCK_BIN_DIR
#define OCK_BIN_DIR "build"
#endif

static char tmp[64];

static int setup(void) {
  return ock_test_tmpdir(tmp, "examples");
}

static int teardown(void) {
  return ock_test_rmdir(tmp);
}

static const char *verdict_of(const cJSON *report, const char *req) {
  const cJSON *r;
  cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(report, "requirements")) {
    const char *id = ock_json_str(r, "id");
    if (id && !strcmp(id, req))
      return ock_json_str(r, "verdict");
  }
  return "(absent)";
}

static cJSON *run_example(const char *file, const char *caps, const char *cases, const char *out,
                          int *code) {
  char cmd[2048], path[256];
  snprintf(cmd, sizeof cmd,
           "cd %s && %s/bin/ock run --orchestrator 'python3 adapters/python/ock_adapter.py "
           "examples/%s' --capabilities %s %s --jobs 2 --fixtures fixtures -o %s/%s "
           "--format jsonl >%s/%s.out 2>&1",
           ock_test_path(""), OCK_ROOT_BIN, file, caps, cases, tmp, out, tmp, out);
  *code = ock_test_sh(cmd);
  snprintf(path, sizeof path, "%s/%s/report.json", tmp, out);
  cJSON *report = NULL;
  struct ock_jerr err;
  if (ock_json_parse_file(path, 64 << 20, &report, &err))
    ock_test_fail(__LINE__, __FILE__, "%s: %s", path, err.what);
  return report;
}

static void faithful_port_fails_where_the_example_is_wrong(void) {
  int code = -1;
  cJSON *r = run_example("basic_orchestrator_faithful.py", "core",
                         "--case tool-unknown --case error-500-fail-fast", "faithful", &code);
  OCK_ASSERT_INT_EQ(code, 1);
  /* The unknown tool name is skipped: its call never gets a result. */
  OCK_ASSERT_STR_EQ(verdict_of(r, "OCK-TOOL-001"), "FAIL");
  /* The provider error escapes execute(): no orchestrator:complete. */
  OCK_ASSERT_STR_EQ(verdict_of(r, "OCK-COMPLETE-001"), "FAIL");
  cJSON_Delete(r);
  /* And what ock explain says of them names the defect. */
  char cmd[512], path[256];
  snprintf(cmd, sizeof cmd, "%s/bin/ock explain OCK-TOOL-001 > %s/explain.txt 2>&1", OCK_ROOT_BIN,
           tmp);
  OCK_ASSERT_INT_EQ(ock_test_sh(cmd), 0);
  snprintf(path, sizeof path, "%s/explain.txt", tmp);
  FILE *f = fopen(path, "r");
  char text[8192] = "";
  if (f) {
    text[fread(text, 1, sizeof text - 1, f)] = '\0';
    fclose(f);
  }
  OCK_ASSERT_CONTAINS(text, "not_found");
  OCK_ASSERT_CONTAINS(text, "tool-unknown");
}

static void corrected_port_passes(void) {
  int code = -1;
  cJSON *r =
      run_example("basic_orchestrator_corrected.py", "core,cancellation", "", "corrected", &code);
  OCK_ASSERT_INT_EQ(code, 0);
  OCK_ASSERT_STR_EQ(ock_json_str(r, "verdict"), "PASS");
  OCK_ASSERT_STR_EQ(verdict_of(r, "OCK-TOOL-001"), "PASS");
  OCK_ASSERT_STR_EQ(verdict_of(r, "OCK-COMPLETE-001"), "PASS");
  cJSON_Delete(r);
}

static void adapter_unit_tests(void) {
  char cmd[512];
  snprintf(cmd, sizeof cmd,
           "cd %s && python3 -m unittest discover -s tests/adapters >%s/ut.out 2>&1",
           ock_test_path(""), tmp);
  int code = ock_test_sh(cmd);
  if (code) {
    snprintf(cmd, sizeof cmd, "tail -20 %s/ut.out", tmp);
    ock_test_sh(cmd);
  }
  OCK_ASSERT_INT_EQ(code, 0);
}

static const struct ock_test tests[] = {{"faithful_port_fails_where_the_example_is_wrong",
                                         faithful_port_fails_where_the_example_is_wrong},
                                        {"corrected_port_passes", corrected_port_passes},
                                        {"adapter_unit_tests", adapter_unit_tests},
                                        {NULL, NULL}};
const struct ock_suite suite_examples = {"examples", tests, setup, teardown};
