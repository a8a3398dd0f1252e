/*
 * test_other_texts.c: safety is MUST, wording is SHOULD (SPEC.md 2.15).
 *
 * The mutant other-texts is the reference orchestrator with every text of the TEXT group worded
 * otherwise (each result text, the wrap-up reminder, the closing message after a cancel, the
 * response after a deny) and every safety property kept: what a real framework with its own
 * wording does. Over the whole catalog it must pass every MUST, and fail exactly the TEXT
 * requirements the catalog exercises: each a WARN, and under --strict a FAIL that fails the run.
 */
#include "runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ock/json.h"

#ifndef OCK_BUILD_DIR
#define OCK_BUILD_DIR "build"
#endif

#define ALL_CAPABILITIES "core,streaming,parallel,scheduling,lifecycle,resilience,cancellation"
#define REPORT_MAX (64 << 20)

static char tmp[64];

static int setup(void) {
  return ock_test_tmpdir(tmp, "other-texts");
}

static int teardown(void) {
  return ock_test_rmdir(tmp);
}

/* run_catalog runs the whole catalog through "ock-mutant other-texts" into tmp/<out>, with
 * extra options; returns the report (caller frees) and the exit code in *code. */
static cJSON *run_catalog(const char *out, const char *extra, int *code) {
  char build[1024], cmd[4096], path[1200];
  snprintf(build, sizeof build, "%s", OCK_BUILD_DIR);
  if (build[0] != '/')
    snprintf(build, sizeof build, "%s/%s", ock_test_path(""), OCK_BUILD_DIR);
  snprintf(cmd, sizeof cmd,
           "cd '%s' && '%s/bin/ock' run --orchestrator \"'%s/bin/ock-mutant' other-texts -- "
           "'%s/bin/ock-orchestrator'\" --capabilities " ALL_CAPABILITIES
           " --fixtures fixtures --jobs 2 --format jsonl %s -o '%s/%s' > '%s/%s.out' 2>&1",
           ock_test_path(""), build, build, build, extra, tmp, out, tmp, out);
  *code = ock_test_sh(cmd);
  snprintf(path, sizeof path, "%s/%s/report.json", tmp, out);
  cJSON *report = NULL;
  struct ock_jerr err;
  if (ock_json_parse_file(path, REPORT_MAX, &report, &err))
    ock_test_fail(__LINE__, __FILE__, "%s: %s: %s", path, err.where, err.what);
  return report;
}

static int is_text(const char *id) {
  return id && !strncmp(id, "OCK-TEXT-", 9);
}

/* must_failures counts the checks of MUST requirements that FAIL or ERROR in any scenario, and
 * names the first few in the test's output. */
static int must_failures(const cJSON *report) {
  int n = 0;
  const cJSON *s, *c;
  cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(report, "scenarios")) {
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(s, "checks")) {
      const char *level = ock_json_str(c, "level"), *verdict = ock_json_str(c, "verdict");
      if (!level || strcmp(level, "MUST") || !verdict ||
          (strcmp(verdict, "FAIL") && strcmp(verdict, "ERROR")))
        continue;
      if (n++ < 5)
        ock_test_fail(__LINE__, __FILE__, "%s: %s (%s) %s: %.200s", ock_json_str(s, "id"),
                      ock_json_str(c, "id"), ock_json_str(c, "requirement"), verdict,
                      ock_json_str(c, "actual"));
    }
  }
  return n;
}

/* text_verdicts checks every TEXT requirement of the report: exercised (the catalog has a
 * scenario for each) and with verdict want. Returns how many TEXT requirements it saw. (The
 * other requirements are judged by must_failures: a SHOULD outside the group may WARN on a
 * loaded machine, as parallel overlap does, for the reference as well.) */
static int text_verdicts(const cJSON *report, const char *want) {
  int seen = 0;
  const cJSON *r;
  cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(report, "requirements")) {
    const char *id = ock_json_str(r, "id"), *verdict = ock_json_str(r, "verdict");
    if (!is_text(id) || !verdict)
      continue;
    seen++;
    if (strcmp(verdict, want))
      ock_test_fail(__LINE__, __FILE__,
                    "%s: verdict %s, expected %s: its text was worded otherwise in every "
                    "scenario that exercises it",
                    id, verdict, want);
  }
  return seen;
}

/* Without --strict: every MUST passes, every TEXT requirement WARNs, and the run passes. */
static void other_words_fail_only_the_texts(void) {
  int code = -1;
  cJSON *report = run_catalog("plain", "", &code);
  OCK_ASSERT_NOT_NULL_FATAL(report);
  OCK_ASSERT_INT_EQ(code, 0);
  OCK_ASSERT_STR_EQ(ock_json_str(report, "verdict"), "PASS");
  OCK_ASSERT_INT_EQ(must_failures(report), 0);
  OCK_ASSERT_INT_EQ(text_verdicts(report, "WARN"), 10);
  cJSON_Delete(report);
}

/* With --strict the texts are binding: each TEXT requirement FAILs and so does the run, while
 * every MUST still passes. */
static void strict_makes_the_texts_binding(void) {
  int code = -1;
  cJSON *report = run_catalog("strict", "--strict", &code);
  OCK_ASSERT_NOT_NULL_FATAL(report);
  OCK_ASSERT_INT_EQ(code, 1);
  OCK_ASSERT_STR_EQ(ock_json_str(report, "verdict"), "FAIL");
  OCK_ASSERT_INT_EQ(must_failures(report), 0);
  OCK_ASSERT_INT_EQ(text_verdicts(report, "FAIL"), 10);
  cJSON_Delete(report);
}

static const struct ock_test tests[] = {
    {"other_words_fail_only_the_texts", other_words_fail_only_the_texts},
    {"strict_makes_the_texts_binding", strict_makes_the_texts_binding},
    {NULL, NULL}};

const struct ock_suite suite_other_texts = {"other_texts", tests, setup, teardown};
