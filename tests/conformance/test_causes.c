/*
 * test_causes.c: first causes (conformance/report/causes.h): the rule table over every check id
 * has no cycle, a failure is charged to the failure that explains it, causes group across
 * scenarios with their simplest scenario and a command that reruns it, and a cause id is what
 * `ock explain` takes.
 */
#include <stdlib.h>
#include <string.h>

#include "checks/checklist.h"
#include "ock/buf.h"
#include "ock/json.h"
#include "ock/status.h"
#include "report/causes.h"
#include "runner.h"

/* ---- the rule table ---- */

static void explains_follows_the_layers(void) {
  /* A scenario expectation restates a specific failure; the grammar restates an order check. */
  OCK_ASSERT_TRUE(ock_cause_explains("complete.once", "expect.status"));
  OCK_ASSERT_FALSE(ock_cause_explains("expect.status", "complete.once"));
  OCK_ASSERT_TRUE(ock_cause_explains("order.request-closed", "order.grammar"));
  OCK_ASSERT_FALSE(ock_cause_explains("order.grammar", "order.request-closed"));
  OCK_ASSERT_TRUE(ock_cause_explains("trace.id", "proc.event-fields"));
  /* Rules within a layer. */
  OCK_ASSERT_TRUE(ock_cause_explains("complete.once", "error.fail-fast"));
  OCK_ASSERT_TRUE(ock_cause_explains("orphan.result-for-every-call", "orphan.call-kept"));
  OCK_ASSERT_TRUE(ock_cause_explains("stream.fault-is-error", "error.retry"));
  OCK_ASSERT_TRUE(ock_cause_explains("proc.signal", "complete.once"));
  /* Independent deviations of one layer explain nothing of each other. */
  OCK_ASSERT_FALSE(ock_cause_explains("trace.id", "hook.deny-tool-pre"));
  OCK_ASSERT_FALSE(ock_cause_explains("hook.deny-tool-pre", "trace.id"));
  OCK_ASSERT_FALSE(ock_cause_explains("error.fail-fast", "complete.once"));
  /* A check never explains itself; the capability checks stand alone. */
  OCK_ASSERT_FALSE(ock_cause_explains("complete.once", "complete.once"));
  OCK_ASSERT_FALSE(ock_cause_explains("capability.lifecycle", "expect.status"));
  OCK_ASSERT_FALSE(ock_cause_explains("proc.signal", "capability.lifecycle"));
  OCK_ASSERT_FALSE(ock_cause_explains(NULL, "expect.status"));
}

/* Over every check id of the checklist, "explains" has no cycle (a transitive closure with the
 * diagonal empty), so following causes always ends at a first cause. */
static void rules_have_no_cycle(void) {
  size_t n = ock__checklist_count();
  unsigned char *reach = calloc(n * n, 1);
  OCK_ASSERT_NOT_NULL_FATAL(reach);
  int edges = 0;
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++) {
      reach[i * n + j] =
          (unsigned char)ock_cause_explains(ock__checklist_at(i)->id, ock__checklist_at(j)->id);
      edges += reach[i * n + j];
    }
  OCK_ASSERT_INT_GT(edges, 0);
  for (size_t k = 0; k < n; k++)
    for (size_t i = 0; i < n; i++)
      if (reach[i * n + k])
        for (size_t j = 0; j < n; j++)
          reach[i * n + j] |= reach[k * n + j];
  int cycles = 0;
  for (size_t i = 0; i < n; i++)
    if (reach[i * n + i] && cycles++ < 3)
      ock_test_fail(__LINE__, __FILE__, "check %s explains itself through other checks",
                    ock__checklist_at(i)->id);
  OCK_ASSERT_INT_EQ(cycles, 0);
  free(reach);
}

/* A group the rules name by a prefix that no check id starts with explains nothing: a typo
 * there would not compile as a check name does, so the table is held to the checklist here. */
static void rule_groups_name_checks(void) {
  const char *unknown = "(unset)";
  int known = ock_cause_groups_known(&unknown);
  if (!known)
    ock_test_fail(__LINE__, __FILE__, "causes.c names the group \"%s*\", which holds no check id",
                  unknown ? unknown : "(null)");
  OCK_ASSERT_TRUE(unknown == NULL);
}

static void cause_ids_parse(void) {
  char req[64], check[64], id[128];
  ock_cause_id(id, sizeof id, "OCK-COMPLETE-001", "complete.once");
  OCK_ASSERT_STR_EQ(id, "OCK-COMPLETE-001/complete.once");
  OCK_ASSERT_INT_EQ(ock_cause_parse(id, req, check, sizeof req), 0);
  OCK_ASSERT_STR_EQ(req, "OCK-COMPLETE-001");
  OCK_ASSERT_STR_EQ(check, "complete.once");
  static const char *const bad[] = {"OCK-COMPLETE-001",
                                    "complete.once",
                                    "/complete.once",
                                    "OCK-COMPLETE-001/",
                                    "OCK-A/b/c",
                                    "X-1/complete.once",
                                    ""};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    if (ock_cause_parse(bad[i], req, check, sizeof req) != -1)
      ock_test_fail(__LINE__, __FILE__, "\"%s\" parsed as a cause id", bad[i]);
  OCK_ASSERT_INT_EQ(ock_cause_parse(NULL, req, check, sizeof req), -1);
  OCK_ASSERT_INT_EQ(ock_cause_parse("OCK-COMPLETE-001/complete.once", req, check, 8), -1);
}

/* ---- a report ---- */

static cJSON *check(const char *id, const char *req, const char *level, const char *verdict,
                    int seq, const char *message) {
  cJSON *c = cJSON_CreateObject();
  cJSON_AddStringToObject(c, "id", id);
  cJSON_AddStringToObject(c, "requirement", req);
  cJSON_AddStringToObject(c, "level", level);
  cJSON_AddStringToObject(c, "verdict", verdict);
  cJSON *ev = cJSON_AddArrayToObject(c, "evidence");
  if (seq >= 0)
    cJSON_AddItemToArray(ev, cJSON_CreateNumber(seq));
  cJSON_AddStringToObject(c, "message", message);
  return c;
}

static cJSON *scenario(cJSON *report, const char *id, int events) {
  cJSON *s = cJSON_CreateObject();
  cJSON_AddStringToObject(s, "id", id);
  cJSON_AddArrayToObject(s, "checks");
  cJSON *t = cJSON_AddArrayToObject(s, "timeline");
  for (int i = 0; i < events; i++)
    cJSON_AddItemToArray(t, cJSON_CreateObject());
  cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(report, "scenarios"), s);
  return cJSON_GetObjectItemCaseSensitive(s, "checks");
}

static cJSON *report_new(void) {
  cJSON *r = cJSON_CreateObject();
  cJSON *o = cJSON_AddObjectToObject(r, "orchestrator");
  cJSON_AddStringToObject(o, "command", "python3 my agent.py --say 'hi'");
  cJSON *caps = cJSON_AddArrayToObject(o, "capabilities");
  cJSON_AddItemToArray(caps, cJSON_CreateString("core"));
  cJSON_AddItemToArray(caps, cJSON_CreateString("streaming"));
  cJSON *w = cJSON_AddArrayToObject(o, "wires");
  cJSON_AddItemToArray(w, cJSON_CreateString("openai"));
  cJSON_AddItemToArray(w, cJSON_CreateString("anthropic"));
  cJSON *opt = cJSON_AddObjectToObject(r, "options");
  cJSON_AddStringToObject(opt, "level", "should");
  cJSON_AddBoolToObject(opt, "strict", 0);
  cJSON_AddStringToObject(opt, "fixtures", "/home/me/my cases");
  cJSON_AddArrayToObject(r, "scenarios");
  return r;
}

/* Two scenarios lose orchestrator:complete; the second, shorter one also drops trace_id, an
 * independent fault; a third passes. */
static cJSON *sample(void) {
  cJSON *r = report_new();
  cJSON *a = scenario(r, "tool-single-call", 20);
  cJSON_AddItemToArray(a, check("order.grammar", "OCK-ORDER-007", "MUST", "FAIL", 18, "g"));
  cJSON_AddItemToArray(a, check("complete.once", "OCK-COMPLETE-001", "MUST", "FAIL", 18,
                                "no complete in tool-single-call"));
  cJSON_AddItemToArray(a, check("error.fail-fast", "OCK-ERROR-007", "MUST", "FAIL", 12, "ff"));
  cJSON_AddItemToArray(a, check("expect.status", "OCK-COMPLETE-006", "MUST", "FAIL", -1, "st"));
  cJSON_AddItemToArray(a, check("tool.input", "OCK-TOOL-004", "MUST", "PASS", 5, "ok"));
  cJSON *b = scenario(r, "text-answer", 9);
  cJSON_AddItemToArray(b, check("trace.id", "OCK-TRACE-001", "SHOULD", "WARN", 2, "no trace"));
  cJSON_AddItemToArray(b, check("proc.event-fields", "OCK-PROC-005", "MUST", "FAIL", 2, "f"));
  cJSON_AddItemToArray(b, check("complete.once", "OCK-COMPLETE-001", "MUST", "FAIL", 8,
                                "no complete in text-answer"));
  cJSON_AddItemToArray(b, check("expect.status", "OCK-COMPLETE-006", "MUST", "FAIL", -1, "st"));
  cJSON *c = scenario(r, "parallel-two", 30);
  cJSON_AddItemToArray(c, check("complete.once", "OCK-COMPLETE-001", "MUST", "PASS", 29, "ok"));
  return r;
}

static const char *cause_of(const cJSON *report, int scenario, const char *check_id) {
  const cJSON *s = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(report, "scenarios"),
                                      scenario),
              *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(s, "checks")) {
    if (!strcmp(ock_json_str(c, "id"), check_id))
      return ock_json_str(c, "cause");
  }
  return "(no such check)";
}

static long long consequence_count(const cJSON *cause, const char *check_id) {
  const cJSON *k;
  cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(cause, "consequences")) {
    if (!strcmp(ock_json_str(k, "check"), check_id))
      return ock_json_int(k, "scenarios", -1);
  }
  return 0;
}

static void failures_charged_to_their_first_cause(void) {
  cJSON *r = sample();
  OCK_ASSERT_OK(ock_report_causes(r));
  /* Scenario 1: the missing complete explains the grammar, the fail-fast check (earlier
   * evidence, but it reads the outcome) and the expectation. */
  OCK_ASSERT_STR_EQ(cause_of(r, 0, "complete.once"), "OCK-COMPLETE-001/complete.once");
  OCK_ASSERT_STR_EQ(cause_of(r, 0, "order.grammar"), "OCK-COMPLETE-001/complete.once");
  OCK_ASSERT_STR_EQ(cause_of(r, 0, "error.fail-fast"), "OCK-COMPLETE-001/complete.once");
  OCK_ASSERT_STR_EQ(cause_of(r, 0, "expect.status"), "OCK-COMPLETE-001/complete.once");
  OCK_ASSERT_NULL(cause_of(r, 0, "tool.input")); /* a PASS has no cause */
  /* Scenario 2: two independent first causes; each generic failure goes to the nearest
   * deviation before it: the event fields (seq 2) to trace.id (seq 2), the expectation (about
   * the end) to the missing complete (seq 8). */
  OCK_ASSERT_STR_EQ(cause_of(r, 1, "trace.id"), "OCK-TRACE-001/trace.id");
  OCK_ASSERT_STR_EQ(cause_of(r, 1, "complete.once"), "OCK-COMPLETE-001/complete.once");
  OCK_ASSERT_STR_EQ(cause_of(r, 1, "proc.event-fields"), "OCK-TRACE-001/trace.id");
  OCK_ASSERT_STR_EQ(cause_of(r, 1, "expect.status"), "OCK-COMPLETE-001/complete.once");
  cJSON_Delete(r);
}

/* The check a scenario's console line names: its most severe first cause. */
static void scenario_line_names_the_first_cause(void) {
  cJSON *r = sample();
  const cJSON *scenarios = cJSON_GetObjectItemCaseSensitive(r, "scenarios");
  OCK_ASSERT_STR_EQ(ock_json_str(ock_scenario_first_cause(cJSON_GetArrayItem(scenarios, 0)), "id"),
                    "complete.once");
  /* trace.id comes first but WARNs; the missing complete FAILs. */
  OCK_ASSERT_STR_EQ(ock_json_str(ock_scenario_first_cause(cJSON_GetArrayItem(scenarios, 1)), "id"),
                    "complete.once");
  OCK_ASSERT_NULL(ock_scenario_first_cause(cJSON_GetArrayItem(scenarios, 2)));
  cJSON_Delete(r);
}

static void causes_group_across_scenarios(void) {
  cJSON *r = sample();
  OCK_ASSERT_OK(ock_report_causes(r));
  const cJSON *causes = cJSON_GetObjectItemCaseSensitive(r, "causes");
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(causes), 2);
  /* The most severe first: the missing complete (FAIL, 2 scenarios). */
  const cJSON *first = cJSON_GetArrayItem(causes, 0), *second = cJSON_GetArrayItem(causes, 1);
  OCK_ASSERT_STR_EQ(ock_json_str(first, "id"), "OCK-COMPLETE-001/complete.once");
  OCK_ASSERT_STR_EQ(ock_json_str(first, "requirement"), "OCK-COMPLETE-001");
  OCK_ASSERT_STR_EQ(ock_json_str(first, "check"), "complete.once");
  OCK_ASSERT_STR_EQ(ock_json_str(first, "level"), "MUST");
  OCK_ASSERT_STR_EQ(ock_json_str(first, "verdict"), "FAIL");
  const cJSON *in = cJSON_GetObjectItemCaseSensitive(first, "scenarios");
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(in), 2);
  OCK_ASSERT_STR_EQ(cJSON_GetArrayItem(in, 0)->valuestring, "tool-single-call");
  OCK_ASSERT_STR_EQ(cJSON_GetArrayItem(in, 1)->valuestring, "text-answer");
  const cJSON *simplest = cJSON_GetObjectItemCaseSensitive(first, "simplest");
  OCK_ASSERT_STR_EQ(ock_json_str(simplest, "scenario"), "text-answer");
  OCK_ASSERT_INT_EQ(ock_json_int(simplest, "events", -1), 9);
  OCK_ASSERT_STR_EQ(ock_json_str(first, "message"), "no complete in text-answer");
  OCK_ASSERT_INT_EQ(consequence_count(first, "order.grammar"), 1);
  OCK_ASSERT_INT_EQ(consequence_count(first, "error.fail-fast"), 1);
  OCK_ASSERT_INT_EQ(consequence_count(first, "expect.status"), 2);
  OCK_ASSERT_INT_EQ(consequence_count(first, "proc.event-fields"), 0);
  OCK_ASSERT_STR_EQ(ock_json_str(first, "command"),
                    "ock run --orchestrator 'python3 my agent.py --say '\\''hi'\\''' "
                    "--capabilities core,streaming --fixtures '/home/me/my cases' "
                    "--case text-answer");
  /* trace.id is a SHOULD that WARNs, but it explains a FAIL: the cause is a FAIL. */
  OCK_ASSERT_STR_EQ(ock_json_str(second, "id"), "OCK-TRACE-001/trace.id");
  OCK_ASSERT_STR_EQ(ock_json_str(second, "level"), "SHOULD");
  OCK_ASSERT_STR_EQ(ock_json_str(second, "verdict"), "FAIL");
  OCK_ASSERT_INT_EQ(consequence_count(second, "proc.event-fields"), 1);
  OCK_ASSERT_INT_EQ(consequence_count(second, "expect.status"), 0);
  /* Again on its own output (as merge re-summarizes): the same document. */
  cJSON *again = cJSON_Duplicate(r, 1);
  OCK_ASSERT_OK(ock_report_causes(again));
  OCK_ASSERT_TRUE(cJSON_Compare(again, r, 1));
  cJSON_Delete(again);
  cJSON_Delete(r);
}

/* A failure the expected-failures baseline excused (PASS, expected_failure) still has a cause
 * and still explains what follows from it; a cause is excused only when all it explains is. */
static void excused_failures_keep_their_causes(void) {
  cJSON *r = report_new();
  cJSON *a = scenario(r, "iter-max-iterations", 12);
  cJSON *wrap = check("iter.wrap-up", "OCK-ITER-002", "MUST", "PASS", 9, "no wrap-up turn");
  cJSON_AddBoolToObject(wrap, "expected_failure", 1);
  cJSON_AddItemToArray(a, wrap);
  cJSON *st = check("expect.status", "OCK-ITER-003", "MUST", "PASS", -1, "st");
  cJSON_AddBoolToObject(st, "expected_failure", 1);
  cJSON_AddItemToArray(a, st);
  cJSON *b = scenario(r, "iter-wrapup-error", 14);
  cJSON *wrap2 = check("iter.wrap-up", "OCK-ITER-002", "MUST", "FAIL", 9, "no wrap-up turn");
  cJSON_AddItemToArray(b, wrap2);
  cJSON_AddItemToArray(b, check("expect.turn-count", "OCK-COMPLETE-005", "MUST", "FAIL", -1, "t"));
  OCK_ASSERT_OK(ock_report_causes(r));
  OCK_ASSERT_STR_EQ(cause_of(r, 0, "expect.status"), "OCK-ITER-002/iter.wrap-up");
  const cJSON *causes = cJSON_GetObjectItemCaseSensitive(r, "causes");
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(causes), 1);
  const cJSON *c = cJSON_GetArrayItem(causes, 0);
  /* The FAIL it explains in the second scenario was not excused: neither is the cause. */
  OCK_ASSERT_STR_EQ(ock_json_str(c, "verdict"), "FAIL");
  OCK_ASSERT_FALSE(ock_json_bool(c, "expected_failure", 1));
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(c, "scenarios")), 2);
  /* The scenario to rerun is one where it is not excused, though it has more events. */
  OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetObjectItemCaseSensitive(c, "simplest"), "scenario"),
                    "iter-wrapup-error");
  OCK_ASSERT_FALSE(cJSON_HasObjectItem(cJSON_GetObjectItemCaseSensitive(c, "simplest"), "excused"));
  /* With those excused too, the cause is an expected failure, PASS, and the simplest
   * scenario the one with the fewest events. */
  cJSON_ReplaceItemInObjectCaseSensitive(wrap2, "verdict", cJSON_CreateString("PASS"));
  cJSON_AddBoolToObject(wrap2, "expected_failure", 1);
  cJSON *tc = cJSON_GetArrayItem(
      cJSON_GetObjectItemCaseSensitive(
          cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, "scenarios"), 1), "checks"),
      1);
  cJSON_ReplaceItemInObjectCaseSensitive(tc, "verdict", cJSON_CreateString("PASS"));
  cJSON_AddBoolToObject(tc, "expected_failure", 1);
  OCK_ASSERT_OK(ock_report_causes(r));
  c = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, "causes"), 0);
  OCK_ASSERT_STR_EQ(ock_json_str(c, "verdict"), "PASS");
  OCK_ASSERT_TRUE(ock_json_bool(c, "expected_failure", 0));
  OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetObjectItemCaseSensitive(c, "simplest"), "scenario"),
                    "iter-max-iterations");
  cJSON_Delete(r);
}

static void nothing_failing_no_cause(void) {
  cJSON *r = report_new();
  cJSON *a = scenario(r, "text-answer", 5);
  cJSON_AddItemToArray(a, check("complete.once", "OCK-COMPLETE-001", "MUST", "PASS", 4, "ok"));
  cJSON_AddItemToArray(a, check("stream.events", "OCK-STREAM-005", "MUST", "SKIP", -1, "n/a"));
  OCK_ASSERT_OK(ock_report_causes(r));
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "causes")), 0);
  OCK_ASSERT_TRUE(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(r, "causes")));
  cJSON_Delete(r);
  OCK_ASSERT_INT_EQ(ock_report_causes(NULL), OCK_EINVAL);
}

static void rerun_command_carries_the_options(void) {
  cJSON *r = report_new();
  cJSON *opt = cJSON_GetObjectItemCaseSensitive(r, "options");
  cJSON_ReplaceItemInObjectCaseSensitive(opt, "level", cJSON_CreateString("must"));
  cJSON_ReplaceItemInObjectCaseSensitive(opt, "strict", cJSON_CreateTrue());
  cJSON_ReplaceItemInObjectCaseSensitive(opt, "fixtures", cJSON_CreateString("fixtures/"));
  cJSON *w = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "orchestrator"),
                                              "wires");
  cJSON_DeleteItemFromArray(w, 1);
  struct ock_buf b;
  ock_buf_init(&b, 4096);
  OCK_ASSERT_OK(ock_report_rerun_command(&b, r, "a b"));
  OCK_ASSERT_STR_EQ(b.data, "ock run --orchestrator 'python3 my agent.py --say '\\''hi'\\''' "
                            "--capabilities core,streaming --wires openai --level must --strict "
                            "--case 'a b'");
  ock_buf_free(&b);
  cJSON_Delete(r);
}

static const struct ock_test tests[] = {
    {"explains_follows_the_layers", explains_follows_the_layers},
    {"rules_have_no_cycle", rules_have_no_cycle},
    {"rule_groups_name_checks", rule_groups_name_checks},
    {"cause_ids_parse", cause_ids_parse},
    {"failures_charged_to_their_first_cause", failures_charged_to_their_first_cause},
    {"scenario_line_names_the_first_cause", scenario_line_names_the_first_cause},
    {"causes_group_across_scenarios", causes_group_across_scenarios},
    {"excused_failures_keep_their_causes", excused_failures_keep_their_causes},
    {"nothing_failing_no_cause", nothing_failing_no_cause},
    {"rerun_command_carries_the_options", rerun_command_carries_the_options},
    {NULL, NULL}};

const struct ock_suite suite_causes = {"causes", tests, NULL, NULL};
