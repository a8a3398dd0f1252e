/*
 * test_examples.c: the worked example of what OCK catches. The seed contract's own
 * BasicOrchestrator, ported faithfully to Python and run under the adapter, must fail where it
 * really is wrong: an unknown tool name leaves its call without a result (OCK-TOOL-001), and a
 * provider error escapes execute() with no orchestrator:complete (OCK-COMPLETE-001). The
 * corrected port must pass every scenario it declares. The adapter's own unit tests run too.
 * README's first orchestrators (examples/first/) are shown there verbatim and pass text-answer.
 */
#include "runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* run_example runs examples/FILE under the Python adapter with its manifest,
 * examples/manifests/<FILE without .py>.json. */
static cJSON *run_example(const char *file, const char *cases, const char *out, int *code) {
  char cmd[2048], path[256];
  snprintf(cmd, sizeof cmd,
           "cd %s && %s/bin/ock run --orchestrator 'python3 adapters/python/ock_adapter.py "
           "examples/%s.py' --manifest examples/manifests/%s.json %s --jobs 2 --fixtures fixtures "
           "-o %s/%s --format jsonl >%s/%s.out 2>&1",
           ock_test_path(""), OCK_ROOT_BIN, file, file, cases, tmp, out, tmp, out);
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
  cJSON *r = run_example("basic_orchestrator_faithful",
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
  cJSON *r = run_example("basic_orchestrator_corrected", "", "corrected", &code);
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

/* readme_block returns the fenced block README.md shows after the marker naming rel (caller
 * frees), or NULL when the marker or its block is missing. */
static char *readme_block(const char *readme, const char *rel) {
  char marker[256];
  snprintf(marker, sizeof marker, "<!-- %s:", rel);
  const char *at = strstr(readme, marker);
  const char *open = at ? strstr(at, "```") : NULL;
  const char *body = open ? strchr(open, '\n') : NULL;
  const char *close = body ? strstr(body + 1, "\n```") : NULL;
  if (!close)
    return NULL;
  size_t n = (size_t)(close - body); /* from the first line through its final newline */
  char *out = malloc(n + 1);
  memcpy(out, body + 1, n);
  out[n] = '\0';
  return out;
}

static void readme_shows_the_first_orchestrators_verbatim(void) {
  char *readme = ock_test_read_file(ock_test_path("README.md"));
  if (!readme)
    ock_test_fail(__LINE__, __FILE__, "README.md: cannot read it");
  static const char *const files[] = {"examples/first/orchestrator.mjs",
                                      "examples/first/orchestrator.py"};
  for (size_t i = 0; readme && i < sizeof files / sizeof *files; i++) {
    char *file = ock_test_read_file(ock_test_path(files[i]));
    char *shown = readme_block(readme, files[i]);
    if (!file)
      ock_test_fail(__LINE__, __FILE__, "%s: cannot read it", files[i]);
    if (!shown)
      ock_test_fail(__LINE__, __FILE__, "README.md shows no block after <!-- %s: -->", files[i]);
    if (file && shown)
      OCK_ASSERT_STR_EQ(shown, file);
    free(file);
    free(shown);
  }
  free(readme);
}

/* run_first runs one of README's first orchestrators on text-answer, strict. */
static void run_first(const char *command, const char *out) {
  char cmd[1024], path[256];
  snprintf(cmd, sizeof cmd,
           "cd %s && %s/bin/ock run --orchestrator '%s' --capabilities core --case text-answer "
           "--strict --fixtures fixtures -o %s/%s --format jsonl >%s/%s.out 2>&1",
           ock_test_path(""), OCK_ROOT_BIN, command, tmp, out, tmp, out);
  int code = ock_test_sh(cmd);
  if (code) {
    snprintf(cmd, sizeof cmd, "tail -20 %s/%s.out", tmp, out);
    ock_test_sh(cmd);
  }
  OCK_ASSERT_INT_EQ(code, 0);
  snprintf(path, sizeof path, "%s/%s/report.json", tmp, out);
  cJSON *report = NULL;
  struct ock_jerr err;
  if (ock_json_parse_file(path, 64 << 20, &report, &err)) {
    ock_test_fail(__LINE__, __FILE__, "%s: %s", path, err.what);
    return;
  }
  OCK_ASSERT_STR_EQ(ock_json_str(report, "verdict"), "PASS");
  OCK_ASSERT_STR_EQ(verdict_of(report, "OCK-COMPLETE-001"), "PASS");
  OCK_ASSERT_STR_EQ(verdict_of(report, "OCK-ORDER-007"), "PASS");
  cJSON_Delete(report);
}

static void first_python_orchestrator_passes_text_answer(void) {
  run_first("python3 examples/first/orchestrator.py", "first-py");
}

static void first_js_orchestrator_passes_text_answer(void) {
  if (ock_test_sh("command -v node >/dev/null 2>&1"))
    OCK_SKIP("node is not on PATH, README's JavaScript orchestrator was not run");
  run_first("node examples/first/orchestrator.mjs", "first-js");
}

static const struct ock_test tests[] = {
    {"faithful_port_fails_where_the_example_is_wrong",
     faithful_port_fails_where_the_example_is_wrong},
    {"corrected_port_passes", corrected_port_passes},
    {"adapter_unit_tests", adapter_unit_tests},
    {"readme_shows_the_first_orchestrators_verbatim",
     readme_shows_the_first_orchestrators_verbatim},
    {"first_python_orchestrator_passes_text_answer", first_python_orchestrator_passes_text_answer},
    {"first_js_orchestrator_passes_text_answer", first_js_orchestrator_passes_text_answer},
    {NULL, NULL}};
const struct ock_suite suite_examples = {"examples", tests, setup, teardown};
