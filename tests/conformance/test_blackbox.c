/*
 * test_blackbox.c: the black-box tier (`ock run --blackbox`, SPEC.md 9.7). A plain agent with
 * no events (blackbox_sut.c) PASSes; its variant that drops a failing tool's result FAILs on
 * OCK-ORPHAN-001; event checks are SKIP with the reason black-box; the check list and the
 * registry's "blackbox" field agree; the prompts reach stdin escaped as SPEC.md says.
 */
#include "runner.h"

#include <stdlib.h>

#include "checks/blackbox.h"
#include "checks/checklist.h"
#include "conformance/fixture_text.h"
#include "ock/json.h"
#include "ock/registry.h"
#include "model/view.h"

#ifndef OCK_BIN_DIR
#define OCK_BIN_DIR "build"
#endif

static char out_dir[64];

static int setup(void) {
  return ock_test_tmpdir(out_dir, "blackbox");
}

static int teardown(void) {
  return ock_test_rmdir(out_dir);
}

/* Every row flagged CHECK_BLACKBOX is charged (when its row names one) to a requirement marked
 * "blackbox": true, and graded under it; every such requirement has a flagged row. */
static void flags_and_registry_agree(void) {
  ock_registry *reg = NULL;
  struct ock_jerr err;
  OCK_ASSERT_OK(ock_registry_load_builtin(&reg, &err));
  size_t flagged = 0;
  for (size_t i = 0; i < ock__checklist_count(); i++) {
    const struct check_entry *c = ock__checklist_at(i);
    if (!(c->flags & CHECK_BLACKBOX))
      continue;
    flagged++;
    const struct ock_requirement *r =
        c->requirement ? ock_registry_find(reg, c->requirement) : NULL;
    if (c->requirement && (!r || !r->blackbox))
      ock_test_fail(__LINE__, __FILE__, "%s is graded black-box, but %s is not \"blackbox\": true",
                    c->id, c->requirement);
    else if (r && !ock__blackbox_graded(c, r))
      ock_test_fail(__LINE__, __FILE__, "%s is flagged CHECK_BLACKBOX, but not graded under %s",
                    c->id, r->id);
  }
  OCK_ASSERT_INT_GT(flagged, 0);
  for (size_t k = 0; k < ock_registry_count(reg); k++) {
    const struct ock_requirement *r = ock_registry_at(reg, k);
    int graded = 0;
    for (size_t i = 0; i < ock__checklist_count() && r->blackbox && !graded; i++) {
      const struct check_entry *c = ock__checklist_at(i);
      graded = c->requirement && !strcmp(c->requirement, r->id) && ock__blackbox_graded(c, r);
    }
    if (r->blackbox && !graded)
      ock_test_fail(__LINE__, __FILE__, "%s is \"blackbox\": true, but no flagged check grades it",
                    r->id);
  }
  cJSON *cov = ock__blackbox_coverage(reg);
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(cov, "graded")) +
                        cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(cov, "not_graded")),
                    ock_registry_count(reg));
  cJSON_Delete(cov);
  ock_registry_free(reg);
}

/* A black-box run grades a row only with both its flag and its requirement's "blackbox": proc.exit
 * under OCK-PROC-002; not proc.session (no flag: the session read is the SUT's own story) under
 * OCK-PROC-001, black-box as it is; not the flagged proc.exit charged to OCK-COMPLETE-001. */
static void graded_needs_flag_and_requirement(void) {
  ock_registry *reg = NULL;
  struct ock_jerr err;
  OCK_ASSERT_OK(ock_registry_load_builtin(&reg, &err));
  const struct ock_requirement *proc1 = ock_registry_find(reg, OCK_PROC_001);
  const struct ock_requirement *proc2 = ock_registry_find(reg, OCK_PROC_002);
  const struct ock_requirement *complete1 = ock_registry_find(reg, OCK_COMPLETE_001);
  if (!proc1 || !proc2 || !complete1) {
    ock_test_fail(__LINE__, __FILE__, "the registry lacks OCK-PROC-001, -002 or OCK-COMPLETE-001");
    ock_registry_free(reg);
    return;
  }
  OCK_ASSERT_TRUE(proc1->blackbox && proc2->blackbox && !complete1->blackbox);
  OCK_ASSERT_INT_EQ(ock__blackbox_graded(ock__check_row(CK_PROC_EXIT), proc2), 1);
  OCK_ASSERT_INT_EQ(ock__blackbox_graded(ock__check_row(CK_PROC_SESSION), proc1), 0);
  OCK_ASSERT_INT_EQ(ock__blackbox_graded(ock__check_row(CK_PROC_EXIT), complete1), 0);
  OCK_ASSERT_INT_EQ(ock__blackbox_graded(ock__check_row(CK_PROC_EXIT), NULL), 0);
  OCK_ASSERT_INT_EQ(ock__blackbox_graded(NULL, proc2), 0);
  ock_registry_free(reg);
}

static void prompts_are_escaped_one_a_line(void) {
  cJSON *prompts = cJSON_Parse("[\"two\\nlines\", \"a \\\\ and \\\\n\", \"\"]");
  char *in = ock__blackbox_input(prompts);
  OCK_ASSERT_STR_EQ(in, "two\\nlines\na \\\\ and \\\\n\n\n");
  free(in);
  cJSON_Delete(prompts);
}

/* The request whose last user message is the next prompt opens its execute: the first
 * prompt's second request does not, a blank prompt is passed over, and a rewritten prompt opens
 * nothing. */
static void executes_are_found_in_the_traffic(void) {
  struct ock_fixture *fx =
      ock_test_fixture("{\"session\": {\"prompts\": [\"a\", \" \", \"b\", \"c\"]}}");
  cJSON *journal = cJSON_Parse(
      "[{\"kind\":\"llm_request\",\"seq\":1,\"neutral\":[{\"role\":\"user\",\"content\":\"a\"}]},"
      " {\"kind\":\"llm_reply\",\"seq\":2},"
      " {\"kind\":\"llm_request\",\"seq\":3,\"neutral\":[{\"role\":\"user\",\"content\":\"a\"},"
      "   {\"role\":\"assistant\",\"content\":\"\"},{\"role\":\"tool\",\"content\":\"b\"}]},"
      " {\"kind\":\"llm_request\",\"seq\":4,\"neutral\":[{\"role\":\"user\",\"content\":\"b\"}]},"
      " {\"kind\":\"llm_request\",\"seq\":5,\"neutral\":[{\"role\":\"user\",\"content\":\"Q: "
      "c\"}]}]");
  struct sut_result proc = {.exit_code = 0};
  struct view v;
  OCK_ASSERT_OK(ock__view_build_traffic(&v, fx, journal, &proc));
  OCK_ASSERT_TRUE(v.traffic);
  OCK_ASSERT_INT_EQ(v.nx, 2);
  OCK_ASSERT_INT_EQ(v.x[0].index, 1);
  OCK_ASSERT_INT_EQ(v.x[0].first, 0);
  OCK_ASSERT_INT_EQ(v.x[0].end, 3);
  OCK_ASSERT_STR_EQ(v.x[0].prompt, "a");
  OCK_ASSERT_INT_EQ(v.x[1].index, 3);
  OCK_ASSERT_INT_EQ(v.x[1].first, 3);
  OCK_ASSERT_INT_EQ(v.x[1].end, 5);
  OCK_ASSERT_NULL(v.x[1].complete);
  ock__view_free(&v);
  cJSON_Delete(journal);
  ock_fixture_free(fx);
}

/* Scenarios that script hook replies or time their SIGINT by an event are SKIP as a whole; one
 * that only expects events besides its traffic (tool-single-call) is graded. */
static void event_scenarios_are_skipped(void) {
  static const char *const files[] = {"fixtures/anthropic-deny-tool-pre.json",
                                      "fixtures/cancel-between-turns.json", NULL};
  char why[120];
  for (int i = 0; files[i]; i++) {
    struct ock_fixture *fx = ock_test_fixture_file(files[i]);
    OCK_ASSERT_TRUE(ock__blackbox_scenario_skip(fx, why, sizeof why));
    OCK_ASSERT_CONTAINS(why, BLACKBOX_REASON ": ");
    ock_fixture_free(fx);
  }
  struct ock_fixture *fx =
      ock_test_fixture_file("tests/conformance/blackbox/blackbox-tool-failure.json");
  OCK_ASSERT_INT_EQ(ock__blackbox_scenario_skip(fx, why, sizeof why), 0);
  ock_fixture_free(fx);
  fx = ock_test_fixture_file("fixtures/tool-single-call.json");
  OCK_ASSERT_INT_EQ(ock__blackbox_scenario_skip(fx, why, sizeof why), 0);
  ock_fixture_free(fx);
}

/* The catalog's scenarios that need no hook reply, no lifecycle event and no event-timed SIGINT
 * are all driven black-box: more than 110 of them. */
static void most_of_the_catalog_is_graded(void) {
  cJSON *catalog = NULL;
  struct ock_jerr err;
  char cmd[600], why[120];
  snprintf(cmd, sizeof cmd, "ls %s/*.json >%s/catalog.txt", ock_test_path("fixtures"), out_dir);
  OCK_ASSERT_INT_EQ(ock_test_sh(cmd), 0);
  snprintf(cmd, sizeof cmd, "%s/catalog.txt", out_dir);
  FILE *f = fopen(cmd, "r");
  OCK_ASSERT_NOT_NULL_FATAL(f);
  int total = 0, driven = 0;
  char line[1024];
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = '\0';
    OCK_ASSERT_OK(ock_json_parse_file(line, 1 << 20, &catalog, &err));
    struct ock_fixture *fx = ock_test_fixture_json(catalog, line);
    total++;
    driven += !ock__blackbox_scenario_skip(fx, why, sizeof why);
    ock_fixture_free(fx);
  }
  fclose(f);
  OCK_ASSERT_INT_GE(total, 150);
  OCK_ASSERT_INT_GE(driven, 110);
}

/* scenario_check_verdict: the verdict of check id in scenario sid (NULL: the first), or ""
 * when absent. */
static const char *scenario_check_verdict(const cJSON *report, const char *sid, const char *id,
                                          const char **message) {
  const cJSON *sc, *c, *checks = NULL;
  cJSON_ArrayForEach(sc, cJSON_GetObjectItemCaseSensitive(report, "scenarios")) {
    if (!checks && (!sid || !strcmp(ock_json_str(sc, "id") ? ock_json_str(sc, "id") : "", sid)))
      checks = cJSON_GetObjectItemCaseSensitive(sc, "checks");
  }
  cJSON_ArrayForEach(c, checks) {
    if (!strcmp(ock_json_str(c, "id") ? ock_json_str(c, "id") : "", id)) {
      *message = ock_json_str(c, "message");
      return ock_json_str(c, "verdict");
    }
  }
  *message = "";
  return "";
}

static const char *check_verdict(const cJSON *report, const char *id, const char **message) {
  return scenario_check_verdict(report, NULL, id, message);
}

/* run_agent_on grades blackbox_sut MODE with --blackbox on the scenarios args selects and
 * returns report.json (caller frees). */
static cJSON *run_agent_on(const char *mode, const char *args, int want_exit) {
  char cmd[2048], path[256];
  snprintf(cmd, sizeof cmd,
           "%s/bin/ock run --blackbox --orchestrator '%s/tests/blackbox_sut %s %s' %s "
           "-o %s/%s --format jsonl >%s/%s.out 2>&1",
           OCK_BIN_DIR, OCK_BIN_DIR, mode, out_dir, args, out_dir, mode, out_dir, mode);
  OCK_ASSERT_INT_EQ(ock_test_sh(cmd), want_exit);
  snprintf(path, sizeof path, "%s/%s/report.json", out_dir, mode);
  cJSON *report = NULL;
  struct ock_jerr err;
  if (ock_json_parse_file(path, 16 << 20, &report, &err))
    ock_test_fail(__LINE__, __FILE__, "%s: report.json unreadable: %s", mode, err.what);
  return report;
}

static cJSON *run_agent(const char *mode, int want_exit) {
  char args[600];
  snprintf(args, sizeof args, "--fixtures %s", ock_test_path("tests/conformance/blackbox"));
  return run_agent_on(mode, args, want_exit);
}

/* Retries are graded from the requests themselves: waiting as Retry-After and the backoff say
 * passes, retrying at once fails both. */
static void retry_timing_from_the_traffic(void) {
  static const char *const modes[] = {"plain", "no-wait"};
  char args[700];
  snprintf(args, sizeof args,
           "--fixtures %s --capabilities core,resilience --case retry-backoff "
           "--case retry-429-retry-after-seconds",
           ock_test_path("fixtures"));
  for (int i = 0; i < 2; i++) {
    const char *want = i ? "FAIL" : "PASS", *msg;
    cJSON *report = run_agent_on(modes[i], args, i ? 1 : 0);
    OCK_ASSERT_NOT_NULL_FATAL(report);
    OCK_ASSERT_STR_EQ(scenario_check_verdict(report, "retry-backoff", "error.retry", &msg), "PASS");
    OCK_ASSERT_STR_EQ(scenario_check_verdict(report, "retry-backoff", "error.backoff", &msg), want);
    OCK_ASSERT_STR_EQ(
        scenario_check_verdict(report, "retry-429-retry-after-seconds", "error.retry-after", &msg),
        want);
    cJSON_Delete(report);
  }
}

static void plain_agent_passes(void) {
  cJSON *report = run_agent("plain", 0);
  OCK_ASSERT_NOT_NULL_FATAL(report);
  OCK_ASSERT_STR_EQ(ock_json_str(report, "tier"), "blackbox");
  OCK_ASSERT_STR_EQ(ock_json_str(report, "verdict"), "PASS");
  const char *msg;
  /* Both executes were found in the traffic, so the escaped prompts reached the agent whole. */
  OCK_ASSERT_STR_EQ(check_verdict(report, "orphan.context-valid", &msg), "PASS");
  OCK_ASSERT_STR_EQ(check_verdict(report, "orphan.final-stored", &msg), "PASS");
  OCK_ASSERT_STR_EQ(check_verdict(report, "orphan.result-for-every-call", &msg), "PASS");
  OCK_ASSERT_STR_EQ(check_verdict(report, "tool.input", &msg), "PASS");
  /* Event checks are not guessed: SKIP, with the reason. */
  OCK_ASSERT_STR_EQ(check_verdict(report, "complete.once", &msg), "SKIP");
  OCK_ASSERT_CONTAINS(msg, BLACKBOX_REASON ": ");
  OCK_ASSERT_STR_EQ(check_verdict(report, "proc.session", &msg), "SKIP");
  OCK_ASSERT_CONTAINS(msg, BLACKBOX_REASON ": ");
  cJSON_Delete(report);
}

/* scenario_count: how many scenarios of report have verdict v; with failing_check, how many of
 * those have that check FAIL. */
static int scenario_count(const cJSON *report, const char *v, const char *failing_check) {
  int n = 0;
  const cJSON *sc;
  cJSON_ArrayForEach(sc, cJSON_GetObjectItemCaseSensitive(report, "scenarios")) {
    const char *msg, *id = ock_json_str(sc, "id");
    if (strcmp(ock_json_str(sc, "verdict"), v))
      continue;
    n += !failing_check ||
         !strcmp(scenario_check_verdict(report, id ? id : "", failing_check, &msg), "FAIL");
  }
  return n;
}

/* run_catalog grades CMD black-box on the catalog's core scenarios on the OpenAI wire. */
static cJSON *run_catalog(const char *name, const char *command, int want_exit) {
  char cmd[2048], path[256];
  snprintf(cmd, sizeof cmd,
           "%s/bin/ock run --blackbox --orchestrator '%s' --fixtures %s --capabilities core "
           "--wires openai --jobs 2 -o %s/%s --format jsonl >%s/%s.out 2>&1",
           OCK_BIN_DIR, command, ock_test_path("fixtures"), out_dir, name, out_dir, name);
  OCK_ASSERT_INT_EQ(ock_test_sh(cmd), want_exit);
  snprintf(path, sizeof path, "%s/%s/report.json", out_dir, name);
  cJSON *report = NULL;
  struct ock_jerr err;
  if (ock_json_parse_file(path, 64 << 20, &report, &err))
    ock_test_fail(__LINE__, __FILE__, "%s: report.json unreadable: %s", name, err.what);
  return report;
}

/* An agent that does nothing FAILs every scenario it is graded on, OCK-PROC-001 first: a prompt
 * that never reaches the LLM is no execute. The one exception sends nothing either way: a
 * session without a provider. */
static void idle_agent_fails(void) {
  cJSON *report = run_catalog("idle", "true", 1);
  OCK_ASSERT_NOT_NULL_FATAL(report);
  OCK_ASSERT_STR_EQ(ock_json_str(report, "verdict"), "FAIL");
  int fail = scenario_count(report, "FAIL", NULL);
  OCK_ASSERT_INT_GE(fail, 35);
  OCK_ASSERT_INT_EQ(scenario_count(report, "FAIL", "proc.executes"), fail);
  OCK_ASSERT_INT_EQ(scenario_count(report, "PASS", NULL), 1);
  const char *msg;
  OCK_ASSERT_STR_EQ(scenario_check_verdict(report, "valid-no-provider", "proc.executes", &msg),
                    "PASS");
  OCK_ASSERT_STR_EQ(scenario_check_verdict(report, "tool-single-call", "proc.executes", &msg),
                    "FAIL");
  OCK_ASSERT_CONTAINS(msg, "1 such prompts, 0 seen");
  cJSON_Delete(report);
}

/* The plain agent PASSes every core scenario on its wire that the tier drives, those that also
 * expect events among them (their event clauses SKIP, black-box). */
static void plain_agent_passes_the_catalog(void) {
  char command[600];
  snprintf(command, sizeof command, "%s/tests/blackbox_sut plain %s", OCK_BIN_DIR, out_dir);
  cJSON *report = run_catalog("catalog", command, 0);
  OCK_ASSERT_NOT_NULL_FATAL(report);
  OCK_ASSERT_STR_EQ(ock_json_str(report, "verdict"), "PASS");
  OCK_ASSERT_INT_GE(scenario_count(report, "PASS", NULL), 36);
  OCK_ASSERT_INT_EQ(scenario_count(report, "PASS", "proc.executes"), 0);
  const char *msg;
  OCK_ASSERT_STR_EQ(scenario_check_verdict(report, "tool-single-call", "proc.executes", &msg),
                    "PASS");
  OCK_ASSERT_STR_EQ(
      scenario_check_verdict(report, "tool-single-call", "expect.events-present", &msg), "SKIP");
  OCK_ASSERT_CONTAINS(msg, BLACKBOX_REASON ": ");
  OCK_ASSERT_STR_EQ(
      scenario_check_verdict(report, "tool-single-call", "orphan.result-for-every-call", &msg),
      "PASS");
  OCK_ASSERT_STR_EQ(scenario_check_verdict(report, "valid-empty-prompt", "proc.executes", &msg),
                    "PASS");
  cJSON_Delete(report);
}

static void dropped_result_is_an_orphan(void) {
  cJSON *report = run_agent("drop-failed", 1);
  OCK_ASSERT_NOT_NULL_FATAL(report);
  OCK_ASSERT_STR_EQ(ock_json_str(report, "verdict"), "FAIL");
  const char *msg;
  OCK_ASSERT_STR_EQ(check_verdict(report, "orphan.result-for-every-call", &msg), "FAIL");
  OCK_ASSERT_CONTAINS(msg, "OCK-ORPHAN-001");
  OCK_ASSERT_STR_EQ(check_verdict(report, "orphan.context-valid", &msg), "FAIL");
  OCK_ASSERT_STR_EQ(check_verdict(report, "complete.once", &msg), "SKIP");
  cJSON_Delete(report);
}

static void forgotten_answer_is_seen(void) {
  cJSON *report = run_agent("forget-answer", 1);
  OCK_ASSERT_NOT_NULL_FATAL(report);
  const char *msg;
  OCK_ASSERT_STR_EQ(check_verdict(report, "orphan.final-stored", &msg), "FAIL");
  OCK_ASSERT_CONTAINS(msg, "OCK-ORPHAN-009");
  OCK_ASSERT_STR_EQ(check_verdict(report, "orphan.result-for-every-call", &msg), "PASS");
  cJSON_Delete(report);
}

static const struct ock_test tests[] = {
    {"flags_and_registry_agree", flags_and_registry_agree},
    {"graded_needs_flag_and_requirement", graded_needs_flag_and_requirement},
    {"prompts_are_escaped_one_a_line", prompts_are_escaped_one_a_line},
    {"executes_are_found_in_the_traffic", executes_are_found_in_the_traffic},
    {"event_scenarios_are_skipped", event_scenarios_are_skipped},
    {"most_of_the_catalog_is_graded", most_of_the_catalog_is_graded},
    {"idle_agent_fails", idle_agent_fails},
    {"plain_agent_passes_the_catalog", plain_agent_passes_the_catalog},
    {"plain_agent_passes", plain_agent_passes},
    {"dropped_result_is_an_orphan", dropped_result_is_an_orphan},
    {"forgotten_answer_is_seen", forgotten_answer_is_seen},
    {"retry_timing_from_the_traffic", retry_timing_from_the_traffic},
    {NULL, NULL}};
const struct ock_suite suite_blackbox = {"blackbox", tests, setup, teardown};
