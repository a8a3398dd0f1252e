/*
 * test_checks.c: the checks on hand-made journals. Each case is the smallest journal that
 * shows one behaviour; the test asserts the verdict of the check that must judge it, so a
 * check that cannot fail (or fails the contract's own example) is caught here first.
 */
#include "runner.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>

#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "checks/checklist.h"
#include "checks/grade.h"
#include "ock/json.h"
#include "model/pair.h"
#include "model/view.h"
#include "conformance/fixture_text.h"

static ock_registry *reg;

static int setup(void) {
  struct ock_jerr err;
  return ock_registry_load_builtin(&reg, &err) ? 1 : 0;
}

static int teardown(void) {
  ock_registry_free(reg);
  return 0;
}

static const char *fixture_text =
    "{\"id\":\"t\",\"requirements\":[\"OCK-COMPLETE-001\"],\"session\":{\"prompts\":[\"hi\"],"
    "\"config\":{\"max_iterations\":2,\"error_strategy\":\"retry\",\"max_retries\":2,"
    "\"retry_base_delay_ms\":100,\"retry_jitter\":0.1,\"retry_max_delay_ms\":1000},"
    "\"providers\":[{\"name\":\"main\",\"api\":\"openai\",\"model\":\"m\"}],"
    "\"tools\":[{\"name\":\"get\"}]},\"script\":{\"main\":[]}}";

/* number gives entries seq = position and, unless set, t_ms = 10 * position. */
static cJSON *number(const char *journal_text) {
  cJSON *j = cJSON_Parse(journal_text);
  if (!j)
    ock_test_fail(__LINE__, __FILE__, "bad journal text in test: %.80s", journal_text);
  int i = 0;
  cJSON *e;
  cJSON_ArrayForEach(e, j) {
    i++;
    cJSON_AddNumberToObject(e, "seq", i);
    if (!cJSON_HasObjectItem(e, "t_ms"))
      cJSON_AddNumberToObject(e, "t_ms", i * 10);
  }
  return j;
}

struct graded {
  cJSON *checks;
};

/* grade runs every check on the journal with the given capabilities and strictness. */
/* grade_with runs every check on the journal of a scenario of the given fixture text. */
static cJSON *grade_scaled(const char *fixture, const char *journal_text, const char *const *caps,
                           int strict, double time_scale) {
  struct ock_fixture *fx = ock_test_fixture(fixture);
  cJSON *journal = number(journal_text);
  struct sut_result proc = {.exit_code = 0};
  struct view v;
  cJSON *checks = cJSON_CreateArray();
  ock__pair_tool_events(journal); /* as ock run does (SPEC.md 4.6) */
  ock__view_build(&v, fx, journal, &proc);
  struct grade_ctx g = {.v = &v,
                        .reg = reg,
                        .declared = caps,
                        .level = OCK_LEVEL_SHOULD,
                        .strict = strict,
                        .time_scale = time_scale,
                        .checks = checks};
  ock__grade_scenario(&g);
  ock__view_free(&v);
  cJSON_Delete(journal);
  ock_fixture_free(fx);
  return checks;
}

static cJSON *grade_with(const char *fixture, const char *journal_text, const char *const *caps,
                         int strict) {
  return grade_scaled(fixture, journal_text, caps, strict, 1);
}

static cJSON *grade(const char *journal_text, const char *const *caps, int strict) {
  return grade_with(fixture_text, journal_text, caps, strict);
}

static const char *verdict_of(const cJSON *checks, const char *id) {
  const cJSON *c;
  cJSON_ArrayForEach(c, checks)
    if (!strcmp(ock_json_str(c, "id"), id))
      return ock_json_str(c, "verdict");
  return "(not run)";
}

#define EXPECT(checks, id, verdict) OCK_ASSERT_STR_EQ(verdict_of(checks, id), verdict)

static const char *verdict_for(const cJSON *checks, const char *id, const char *req);

/* Journal fragments. */
#define SESSION "{\"kind\":\"session\"}"
#define EV(name, data) "{\"kind\":\"event\",\"event\":\"" name "\",\"data\":" data "}"
#define EVR(name, data, reply)                                                                     \
  "{\"kind\":\"event\",\"event\":\"" name "\",\"data\":" data ",\"reply\":" reply "}"
#define REQ(hist)                                                                                  \
  "{\"kind\":\"llm_request\",\"provider\":\"main\",\"stream\":false,\"neutral\":" hist "}"
#define REPLY_TEXT(t)                                                                              \
  "{\"kind\":\"llm_reply\",\"provider\":\"main\",\"status\":200,\"text\":\"" t                     \
  "\",\"tool_calls\":[],\"fault\":null}"
#define REPLY_CALL(id, name, args)                                                                 \
  "{\"kind\":\"llm_reply\",\"provider\":\"main\",\"status\":200,\"text\":\"\",\"tool_calls\":[{"   \
  "\"id\":\"" id "\",\"name\":\"" name "\",\"arguments\":\"" args "\"}],\"fault\":null}"
#define REPLY_ERR(status)                                                                          \
  "{\"kind\":\"llm_reply\",\"provider\":\"main\",\"status\":" status                               \
  ",\"turn\":0,\"tool_calls\":[],\"fault\":null}"
#define USER "[{\"role\":\"user\",\"content\":\"hi\"}]"
#define COMPLETE(turns, status)                                                                    \
  EV("orchestrator:complete",                                                                      \
     "{\"orchestrator\":\"x\",\"turn_count\":" turns ",\"status\":\"" status "\"}")

/* The journals below are laid out by hand, one entry per line; clang-format would reflow
 * the string pieces differently on every pass. */
/* clang-format off */
static const char *const no_caps[] = {NULL};

static void a_correct_text_turn_passes(void) {
  cJSON *c = grade(
      "[" SESSION
      "," EV("prompt:submit", "{\"prompt\":\"hi\"}") "," EV("provider:request", "{}") "," REQ(
          USER) "," REPLY_TEXT("Hello") "," EV("provider:response",
                                               "{\"content\":\"Hello\",\"tool_calls\":"
                                               "[]}") "," EV("prompt:complete",
                                                             "{\"response\":"
                                                             "\"Hello\"}") "," COMPLETE("1",
                                                                                        "succes"
                                                                                        "s") "]",
      no_caps, 0);
  EXPECT(c, "complete.once", "PASS");
  EXPECT(c, "complete.turn-count", "PASS");
  EXPECT(c, "complete.status-matches", "PASS");
  EXPECT(c, "order.grammar", "PASS");
  EXPECT(c, "order.request-before-llm", "PASS");
  EXPECT(c, "order.response-matches", "PASS");
  EXPECT(c, "proc.executes", "PASS");
  EXPECT(c, "lifecycle.execution-events", "SKIP");
  cJSON_Delete(c);
}

/* The checks grade against the config the mock served (the journal's session entry), not
 * the fixture's with defaults of their own. */
static void view_reads_the_served_config(void) {
  struct sut_result proc = {.exit_code = 0};
  struct view v;
  struct ock_fixture *fx = ock_test_fixture(fixture_text); /* max_iterations 2, error_strategy retry */
  cJSON *j = number("[{\"kind\":\"session\",\"config\":{\"max_iterations\":5,\"streaming\":true}}]");
  OCK_ASSERT_OK(ock__view_build(&v, fx, j, &proc));
  OCK_ASSERT_INT_EQ(v.cfg_served, 1);
  OCK_ASSERT_INT_EQ(v.cfg.max_iterations, 5);
  OCK_ASSERT_INT_EQ(v.cfg.streaming, 1);
  /* What the mock served wins whole: an option it left out is the registry's default. */
  OCK_ASSERT_INT_EQ(v.cfg.error_strategy, OCK_ERROR_STRATEGY_CONTINUE);
  ock__view_free(&v);
  cJSON_Delete(j);
  /* A journal without the served config (an older one): the fixture's over the defaults. */
  j = number("[" SESSION "]");
  OCK_ASSERT_OK(ock__view_build(&v, fx, j, &proc));
  OCK_ASSERT_INT_EQ(v.cfg_served, 0);
  OCK_ASSERT_INT_EQ(v.cfg.max_iterations, 2);
  OCK_ASSERT_INT_EQ(v.cfg.error_strategy, OCK_ERROR_STRATEGY_RETRY);
  ock__view_free(&v);
  ock_fixture_free(fx);
  /* Neither sets anything: the checks' defaults are the registry's. */
  fx = ock_test_fixture("{\"id\":\"t\",\"session\":{\"prompts\":[]}}");
  OCK_ASSERT_OK(ock__view_build(&v, fx, j, &proc));
  cJSON *cfg = ock_config_to_json(&v.cfg);
  OCK_ASSERT_REGISTRY_DEFAULTS(cfg, "the checks' view");
  cJSON_Delete(cfg);
  ock__view_free(&v);
  cJSON_Delete(j);
  ock_fixture_free(fx);
}

#define TEXT_TURN_AFTER(session)                                                                   \
  "[" session "," EV("prompt:submit", "{\"prompt\":\"hi\"}") "," EV("provider:request", "{}")     \
  "," REQ(USER) "," REPLY_TEXT("Hello") "," EV("provider:response",                                \
                                               "{\"content\":\"Hello\",\"tool_calls\":[]}")        \
  "," EV("prompt:complete", "{\"response\":\"Hello\"}") "," COMPLETE("1", "success") "]"

static void checks_grade_the_served_config(void) {
  static const char *const streaming[] = {"streaming", NULL};
  /* The fixture leaves streaming off; the mock served it on: a request without "stream": true
   * fails OCK-STREAM-001. */
  cJSON *c = grade(TEXT_TURN_AFTER("{\"kind\":\"session\",\"config\":{\"streaming\":true}}"),
                   streaming, 0);
  EXPECT(c, "stream.requested", "FAIL");
  cJSON_Delete(c);
  c = grade(TEXT_TURN_AFTER("{\"kind\":\"session\",\"config\":{\"streaming\":false}}"), streaming,
            0);
  EXPECT(c, "stream.requested", "(not run)");
  cJSON_Delete(c);
}

static void missing_complete_fails(void) {
  cJSON *c = grade(
      "[" SESSION
      "," EV("prompt:submit", "{\"prompt\":\"hi\"}") "," EV("provider:request", "{}") "," REQ(
          USER) "," REPLY_TEXT("Hello") "," EV("provider:response",
                                               "{\"content\":\"Hello\",\"tool_calls\":[]}") "]",
      no_caps, 0);
  EXPECT(c, "complete.once", "FAIL");
  cJSON_Delete(c);
}

static void wrong_turn_count_fails(void) {
  cJSON *c = grade(
      "[" SESSION
      "," EV("prompt:submit", "{\"prompt\":\"hi\"}") "," EV("provider:request", "{}") "," REQ(
          USER) "," REPLY_TEXT("Hello") "," EV("provider:response",
                                               "{\"content\":\"Hello\",\"tool_calls\":"
                                               "[]}") "," EV("prompt:complete",
                                                             "{\"response\":"
                                                             "\"Hello\"}") "," COMPLETE("0",
                                                                                        "succes"
                                                                                        "s") "]",
      no_caps, 0);
  EXPECT(c, "complete.turn-count", "FAIL");
  cJSON_Delete(c);
}

static void unannounced_request_fails(void) {
  cJSON *c =
      grade("[" SESSION "," EV("prompt:submit", "{\"prompt\":\"hi\"}") "," REQ(USER) "," REPLY_TEXT(
                "Hello") "," EV("prompt:complete",
                                "{\"response\":\"Hello\"}") "," COMPLETE("1", "success") "]",
            no_caps, 0);
  EXPECT(c, "order.request-before-llm", "FAIL");
  cJSON_Delete(c);
}

/* A tool round whose result is dropped: the mock's validator finding and the harness's own
 * cross-check both fail. */
static void dropped_result_fails(void) {
  cJSON *c = grade(
      "[" SESSION
      "," EV("prompt:submit", "{\"prompt\":\"hi\"}") "," EV("provider:request", "{}") "," REQ(USER) "," REPLY_CALL(
          "call_1", "get",
          "{}") "," EV("provider:response",
                       "{\"content\":\"\",\"tool_calls\":[{\"id\":\"call_1\"}]"
                       "}") "," EV("tool:pre",
                                   "{\"tool_call_id\":\"call_1\",\"tool_"
                                   "name\":\"get\"}") ","
                                                      "{\"kind\":\"tool_"
                                                      "start\",\"name\":"
                                                      "\"get\",\"tool_call_"
                                                      "id\":\"call_1\","
                                                      "\"input\":{}},"
                                                      "{\"kind\":\"tool_end\","
                                                      "\"name\":\"get\","
                                                      "\"tool_call_id\":"
                                                      "\"call_1\",\"status\":"
                                                      "200,"
                                                      "\"reply\":{\"success\":"
                                                      "true,\"output\":\"v\"}}"
                                                      "," EV(
                                                          "tool:post",
                                                          "{\""
                                                          "too"
                                                          "l_"
                                                          "cal"
                                                          "l_"
                                                          "id"
                                                          "\":"
                                                          "\"c"
                                                          "all"
                                                          "_1"
                                                          "\","
                                                          "\"t"
                                                          "ool"
                                                          "_na"
                                                          "me"
                                                          "\":"
                                                          "\"g"
                                                          "et"
                                                          "\""
                                                          "}") "," EV("provider:request",
                                                                      "{}") "," REQ("[{\"role\":"
                                                                                    "\"user\","
                                                                                    "\"content\""
                                                                                    ":\"hi\"}"
                                                                                    ",{\"role\":"
                                                                                    "\"assistant"
                                                                                    "\","
                                                                                    "\"tool_"
                                                                                    "calls\":"
                                                                                    "[{\"id\":"
                                                                                    "\"call_"
                                                                                    "1\","
                                                                                    "\"name\":"
                                                                                    "\"get\"}]}"
                                                                                    "]") ","
                                                                                         "{\"k"
                                                                                         "ind"
                                                                                         "\":"
                                                                                         "\"fi"
                                                                                         "ndin"
                                                                                         "g\","
                                                                                         "\"sh"
                                                                                         "ape"
                                                                                         "\":"
                                                                                         "\"A0"
                                                                                         "1_"
                                                                                         "UNMA"
                                                                                         "TCHE"
                                                                                         "D_"
                                                                                         "TOOL"
                                                                                         "_USE"
                                                                                         "\","
                                                                                         "\"me"
                                                                                         "ssag"
                                                                                         "e_"
                                                                                         "inde"
                                                                                         "x\":"
                                                                                         "1,"
                                                                                         "\"to"
                                                                                         "ol_"
                                                                                         "call"
                                                                                         "_id"
                                                                                         "\":"
                                                                                         "\"ca"
                                                                                         "ll_"
                                                                                         "1\","
                                                                                         "\"me"
                                                                                         "ssag"
                                                                                         "e\":"
                                                                                         "\"no"
                                                                                         " res"
                                                                                         "ult"
                                                                                         "\"}"
                                                                                         "," REPLY_ERR("400") "," EV(
                                                                                             "pr"
                                                                                             "ov"
                                                                                             "id"
                                                                                             "er"
                                                                                             ":e"
                                                                                             "rr"
                                                                                             "o"
                                                                                             "r",
                                                                                             "{"
                                                                                             "}") "," COMPLETE("2",
                                                                                                               "error") "]",
      no_caps, 0);
  EXPECT(c, "orphan.result-for-every-call", "FAIL");
  EXPECT(c, "orphan.call-kept", "FAIL");
  EXPECT(c, "orphan.no-duplicates", "PASS");
  EXPECT(c, "order.tool-pre-before-run", "PASS");
  cJSON_Delete(c);
}

static void unknown_tool_run_fails(void) {
  cJSON *c = grade(
      "[" SESSION
      "," EV("prompt:submit", "{\"prompt\":\"hi\"}") "," EV("provider:request", "{}") "," REQ(USER) "," REPLY_CALL(
          "call_1", "nope",
          "{}") "," EV("provider:response",
                       "{\"content\":\"\",\"tool_calls\":[{\"id\":\"call_1\"}]"
                       "}") "," EV("tool:pre",
                                   "{\"tool_call_id\":\"call_1\",\"tool_name\":"
                                   "\"nope\"}") ","
                                                "{\"kind\":\"tool_start\","
                                                "\"name\":\"nope\",\"tool_call_"
                                                "id\":\"call_1\",\"input\":{},"
                                                "\"known\":false}," EV(
                                                    "tool:post",
                                                    "{\"tool_call_id\":\"call_"
                                                    "1\",\"tool_name\":"
                                                    "\"nope\"}") "," COMPLETE("1",
                                                                              "incomplete") "]",
      no_caps, 0);
  EXPECT(c, "tool.unknown", "FAIL");
  cJSON_Delete(c);
}

/* An unknown tool "nope": tool:pre, tool:error not_found, then NEXT (the rest of the journal). */
#define UNKNOWN_CALL(NEXT)                                                                      \
  "[" SESSION "," EV("prompt:submit", "{\"prompt\":\"hi\"}") ","                                 \
  EV("provider:request", "{}") "," REQ(USER) "," REPLY_CALL("call_1", "nope", "{}") ","          \
  EV("provider:response", "{\"content\":\"\",\"tool_calls\":[{\"id\":\"call_1\"}]}") ","         \
  EV("tool:pre", "{\"tool_call_id\":\"call_1\",\"tool_name\":\"nope\"}") ","                     \
  EV("tool:error", "{\"tool_call_id\":\"call_1\",\"tool_name\":\"nope\","                        \
                   "\"error\":{\"type\":\"not_found\",\"message\":\"m\"}}") "," NEXT "]"
#define ANSWERED(TEXT)                                                                          \
  EV("provider:request", "{}") ","                                                              \
  REQ("[{\"role\":\"user\",\"content\":\"hi\"},"                                                 \
      "{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"id\":\"call_1\","             \
      "\"name\":\"nope\",\"arguments\":\"{}\"}]},"                                               \
      "{\"role\":\"tool\",\"tool_call_id\":\"call_1\",\"content\":\"" TEXT "\"}]") ","           \
  REPLY_TEXT("ok") "," EV("provider:response", "{\"content\":\"ok\",\"tool_calls\":[]}") ","     \
  EV("prompt:complete", "{\"response\":\"ok\"}") "," COMPLETE("2", "success")

/* The unknown tool's safety (a result, the loop goes on) is MUST; its words are OCK-TEXT-001, a
 * SHOULD (SPEC.md 2.15): other words WARN, and FAIL only under --strict. */
static void unknown_tool_text_is_a_should(void) {
  cJSON *c = grade(UNKNOWN_CALL(ANSWERED("Error: tool 'nope' not found")), no_caps, 0);
  EXPECT(c, "tool.unknown", "PASS");
  EXPECT(c, "text.unknown-tool", "PASS");
  cJSON_Delete(c);
  c = grade(UNKNOWN_CALL(ANSWERED("There is no tool called nope.")), no_caps, 0);
  EXPECT(c, "tool.unknown", "PASS");
  EXPECT(c, "text.unknown-tool", "WARN");
  cJSON_Delete(c);
  c = grade(UNKNOWN_CALL(ANSWERED("There is no tool called nope.")), no_caps, 1);
  EXPECT(c, "tool.unknown", "PASS");
  EXPECT(c, "text.unknown-tool", "FAIL");
  cJSON_Delete(c);
  /* The loop stops after the unknown call: the MUST fails, whatever the words. */
  c = grade(UNKNOWN_CALL(EV("prompt:complete", "{\"response\":\"\"}") "," COMPLETE("1", "success")),
            no_caps, 0);
  EXPECT(c, "tool.unknown", "FAIL");
  OCK_ASSERT_STR_EQ(verdict_for(c, "text.unknown-tool", "OCK-TEXT-001"), "(not run)");
  cJSON_Delete(c);
}

static void ignored_deny_fails(void) {
  cJSON *c = grade(
      "[" SESSION
      "," EV("prompt:submit", "{\"prompt\":\"hi\"}") "," EV("provider:request", "{}") "," REQ(USER) "," REPLY_CALL(
          "call_1", "get",
          "{}") "," EV("provider:response",
                       "{\"content\":\"\",\"tool_calls\":[{\"id\":\"call_"
                       "1\"}]}") "," EVR("tool:pre",
                                         "{\"tool_call_id\":\"call_1\","
                                         "\"tool_name\":\"get\"}",
                                         "{\"action\":\"deny\",\"reason\":"
                                         "\"no\"}") ","
                                                    "{\"kind\":\"tool_"
                                                    "start\",\"name\":"
                                                    "\"get\",\"tool_call_"
                                                    "id\":\"call_1\","
                                                    "\"input\":{}}," EV(
                                                        "tool:post",
                                                        "{\"tool_call_"
                                                        "id\":\"call_1\","
                                                        "\"tool_name\":"
                                                        "\"get\"}") "," COMPLETE("1",
                                                                                 "incomplete") "]",
      no_caps, 0);
  EXPECT(c, "hook.deny-tool-pre", "FAIL");
  cJSON_Delete(c);
}

static void retry_without_backoff_fails(void) {
  /* 429 at t=20, retried at t=21 (1 ms later; the backoff asks ~100 ms). */
  cJSON *c = grade(
      "[" SESSION
      "," EV("prompt:submit", "{\"prompt\":\"hi\"}") "," EV("provider:request", "{}") "," REQ(
          USER) ",{\"kind\":\"llm_reply\",\"provider\":\"main\",\"status\":429,\"turn\":0,"
                "\"tool_calls\":[],\"fault\":null,\"t_ms\":20}," EV(
                    "provider:error",
                    "{\"provider\":\"main\",\"error\":{\"type\":\"rate_limit\",\"message\":\"m\"},"
                    "\"retryable\":true,\"status_code\":429}") ","
                                                               "{\"kind\":\"event\",\"event\":"
                                                               "\"provider:retry\",\"data\":{"
                                                               "\"delay_ms\":0},\"t_ms\":20.5},"
                                                               "{\"kind\":\"event\",\"event\":"
                                                               "\"provider:request\",\"data\":{},"
                                                               "\"t_ms\":20.7},"
                                                               "{\"kind\":\"llm_request\","
                                                               "\"provider\":\"main\","
                                                               "\"neutral\":" USER
                                                               ",\"t_ms\":21}," REPLY_TEXT("ok") "," EV(
                                                                   "provider:response",
                                                                   "{\"content\":\"ok\",\"tool_"
                                                                   "calls\":[]}") "," EV("prompt:"
                                                                                         "complete",
                                                                                         "{\"respon"
                                                                                         "se\":"
                                                                                         "\"ok\"}") "," COMPLETE("1",
                                                                                                                 "success") "]",
      (const char *const[]){"resilience", NULL}, 0);
  EXPECT(c, "error.retry", "PASS");
  EXPECT(c, "error.backoff", "FAIL");
  EXPECT(c, "error.provider-error", "PASS");
  EXPECT(c, "complete.turn-count", "PASS");
  cJSON_Delete(c);
  /* Without the capability the same journal is not graded for it. */
  c = grade(
      "[" SESSION
      "," EV("prompt:submit", "{\"prompt\":\"hi\"}") "," EV("provider:request", "{}") "," REQ(USER) "," REPLY_ERR(
          "429") "," EV("provider:request",
                        "{}") "," REQ(USER) "," REPLY_TEXT("ok") "," COMPLETE("1", "success") "]",
      no_caps, 0);
  EXPECT(c, "error.retry", "SKIP");
  cJSON_Delete(c);
}

/* Results out of call order are accepted by the real APIs: the A08 finding is a WARN of
 * OCK-ORPHAN-005 only, and the next execute's history still counts as valid (OCK-ORPHAN-007). */
static void results_out_of_order_are_a_should(void) {
  const char *j = "[" SESSION
      "," EV("prompt:submit", "{\"prompt\":\"hi\"}") "," EV("provider:request", "{}")
      "," REQ(USER) "," REPLY_TEXT("a") "," EV("provider:response", "{\"content\":\"a\",\"tool_calls\":[]}")
      "," EV("prompt:complete", "{\"response\":\"a\"}") "," COMPLETE("1", "success")
      "," EV("prompt:submit", "{\"prompt\":\"hi\"}") "," EV("provider:request", "{}")
      "," REQ(USER)
      ",{\"kind\":\"finding\",\"shape\":\"A08_PARALLEL_WRONG_ORDER\",\"message_index\":2,"
      "\"tool_call_id\":\"call_2\",\"message\":\"out of order\"}"
      "," REPLY_TEXT("b") "," EV("provider:response", "{\"content\":\"b\",\"tool_calls\":[]}")
      "," EV("prompt:complete", "{\"response\":\"b\"}") "," COMPLETE("1", "success") "]";
  cJSON *c = grade(j, no_caps, 0);
  EXPECT(c, "orphan.call-order", "WARN");
  EXPECT(c, "orphan.context-valid", "PASS");
  cJSON_Delete(c);
  c = grade(j, no_caps, 1);
  EXPECT(c, "orphan.call-order", "FAIL");
  cJSON_Delete(c);
}

static void should_is_warn_unless_strict(void) {
  const char *j = "[" SESSION "," EV(
      "prompt:submit",
      "{\"prompt\":\"hi\"}") ","
                             "{\"kind\":\"http_error\",\"path\":\"/ock/v1/"
                             "events\"}," EV("provider:request", "{}") "," REQ(USER) "," REPLY_TEXT(
                                 "Hello") "," EV("provider:response",
                                                 "{\"content\":\"Hello\",\"tool_"
                                                 "calls\":[]}") "," EV("prompt:"
                                                                       "complete",
                                                                       "{\"respons"
                                                                       "e\":"
                                                                       "\"Hello\""
                                                                       "}") "," COMPLETE("1",
                                                                                         "success") "]";
  cJSON *c = grade(j, no_caps, 0);
  EXPECT(c, "proc.events-well-formed", "WARN");
  cJSON_Delete(c);
  c = grade(j, no_caps, 1);
  EXPECT(c, "proc.events-well-formed", "FAIL");
  cJSON_Delete(c);
}

static void lifecycle_stages_are_checked(void) {
  const char *const caps[] = {"lifecycle", NULL};
#define T "\"trace_id\":\"tr\""
  cJSON
      *c = grade("[{\"kind\":\"session\",\"trace_id\":\"tr\"}," EV(
                     "prompt:submit",
                     "{\"prompt\":"
                     "\"hi\"," T ",\""
                     "sta"
                     "ge"
                     "\":"
                     "\"i"
                     "nit"
                     "ial"
                     "ize"
                     "\""
                     "}") "," EV("execution:start",
                                 "{\"prompt\":\"hi\"," T
                                 ",\"stage\":\"initialize\"}") "," EV("provider:resolve",
                                                                      "{\"provider\":\"main\","
                                                                      "\"reason\":"
                                                                      "\"lowest "
                                                                      "priority\",\"fallback\":"
                                                                      "null," T
                                                                      ",\"stage\":\"route\"}") "," EV("provide"
                                                                                                      "r:"
                                                                                                      "reques"
                                                                                                      "t",
                                                                                                      "{" T
                                                                                                      ",\"stag"
                                                                                                      "e\":"
                                                                                                      "\"plan"
                                                                                                      "\"}") "," REQ(USER) "," REPLY_TEXT("Hello") "," EV("provider:"
                                                                                                                                                          "response",
                                                                                                                                                          "{\"conten"
                                                                                                                                                          "t\":"
                                                                                                                                                          "\"Hello\""
                                                                                                                                                          ",\"tool_"
                                                                                                                                                          "calls\":["
                                                                                                                                                          "]," T
                                                                                                                                                          ",\"stage"
                                                                                                                                                          "\":"
                                                                                                                                                          "\"plan\""
                                                                                                                                                          "}") "," EV("prompt:complete", "{\"response\":\"Hello\"," T ",\"stage\":\"aggregate\"}") "," EV("execution:end", "{\"response\":\"Hello\",\"status\":\"completed\"," T ",\"stage\":\"complete\"}") "," EV("orchestrator:complete",
                                                                                                                                                                                                                                                                                                                                                                    "{\"orchestrator\":\"x\",\"turn_count\":1,\"status\":\"success\"," T
                                                                                                                                                                                                                                                                                                                                                                    ",\"stage\":\"execute\"}") "]",
                 caps, 0);
  EXPECT(c, "lifecycle.execution-events", "PASS");
  EXPECT(c, "lifecycle.resolve", "PASS");
  EXPECT(c, "lifecycle.stage", "FAIL"); /* orchestrator:complete must carry "complete" */
  EXPECT(c, "trace.id", "PASS");
  cJSON_Delete(c);
#undef T
}

static void undeclared_capability_is_a_warning(void) {
  const char *j =
      "[" SESSION
      "," EV("prompt:submit", "{\"prompt\":\"hi\"}") "," EV("provider:request", "{}") "," REQ(USER) "," EV(
          "provider:stream",
          "{\"delta\":\"He\"}") "," REPLY_TEXT("Hello") "," EV("provider:response",
                                                               "{\"content\":\"Hello\",\"tool_"
                                                               "calls\":[]}") "," EV("prompt:"
                                                                                     "complete",
                                                                                     "{\"respon"
                                                                                     "se\":"
                                                                                     "\"Hello\""
                                                                                     "}") "," COMPLETE("1",
                                                                                                       "success") "]";
  cJSON *c = grade(j, no_caps, 0);
  EXPECT(c, "capability.streaming", "WARN");
  cJSON_Delete(c);
  c = grade(j, no_caps, 1);
  EXPECT(c, "capability.streaming", "FAIL");
  cJSON_Delete(c);
  c = grade(j, (const char *const[]){"streaming", NULL}, 0);
  EXPECT(c, "capability.streaming", "(not run)");
  cJSON_Delete(c);
}

/* Two prompts, a short tool timeout: what a denied or blank prompt leaves, and timeouts. */
static const char *two_prompts =
    "{\"id\":\"t\",\"requirements\":[\"OCK-HOOK-001\"],\"session\":{\"prompts\":[\"secret\",\"hi\"]"
    ","
    "\"config\":{\"tool_timeout_ms\":200},\"providers\":[{\"name\":\"main\",\"api\":\"openai\","
    "\"model\":\"m\"}],\"tools\":[{\"name\":\"get\"}]},\"script\":{\"main\":[]}}";

static void denied_prompt_left_in_context_fails(void) {
  cJSON *c =
      grade_with(
          two_prompts,
          "[" SESSION "," EVR("prompt:submit", "{\"prompt\":\"secret\"}", "{\"action\":\"deny\"}") "," EV("prompt:complete", "{\"response\":\"Denied: no reason given\"}") "," EV("orchestrator:complete", "{\"orchestrator\":\"x\",\"turn_count\":0,\"status\":\"incomplete\",\"reason\":\"denied\"}") "," EV("prompt:submit",
                                   "{\"prompt\":\"hi\"}") "," EV("provider:request",
                                                                 "{}") "," REQ("[{\"role\":"
                                                                               "\"user\","
                                                                               "\"content\":"
                                                                               "\"secret\"},{"
                                                                               "\"role\":\"user\","
                                                                               "\"content\":\"hi\"}"
                                                                               "]") "," REPLY_TEXT("Hello") "," EV("provider:"
                                                                                                                   "response",
                                                                                                                   "{\"content"
                                                                                                                   "\":"
                                                                                                                   "\"Hello\","
                                                                                                                   "\"tool_"
                                                                                                                   "calls\":[]"
                                                                                                                   "}") "," EV("prompt:complete",
                                                                                                                               "{\"response\":\"Hello\"}") "," COMPLETE("1",
                                                                                                                                                                        "success") "]",
          no_caps, 0);
  EXPECT(c, "hook.deny-submit", "PASS");
  EXPECT(c, "hook.deny-submit-not-stored", "FAIL");
  cJSON_Delete(c);
}

/* A deny the SUT ignored: the status test fails first, and the FAIL message still says how the
 * execute ended (it once printed a buffer nothing had written). */
static void ignored_prompt_deny_says_how_it_ended(void) {
  cJSON *c = grade(
      "[" SESSION
      "," EVR("prompt:submit", "{\"prompt\":\"hi\"}", "{\"action\":\"deny\"}")
      "," EV("prompt:complete", "{\"response\":\"Hello\"}")
      "," COMPLETE("0", "success") "]",
      no_caps, 0);
  EXPECT(c, "hook.deny-submit", "FAIL");
  const cJSON *e;
  const char *actual = "(not run)";
  cJSON_ArrayForEach(e, c) if (!strcmp(ock_json_str(e, "id"), "hook.deny-submit")) actual =
      ock_json_str(e, "actual");
  OCK_ASSERT_STR_EQ(actual, "execute 1: 0 LLM request(s), status success, reason (absent), "
                            "prompt:complete \"Hello\"");
  cJSON_Delete(c);
}

static void tool_timeout_not_reported_fails(void) {
  /* The tool never answered within tool_timeout_ms (200), and the SUT called it a success. */
  const char *j =
      "[" SESSION
      "," EV("prompt:submit", "{\"prompt\":\"secret\"}") "," EV("provider:request", "{}") "," REQ(USER) "," REPLY_CALL(
          "call_1", "get",
          "{}") "," EV("provider:response",
                       "{\"content\":\"\",\"tool_calls\":[{\"id\":\"call_1\"}]"
                       "}") "," EV("tool:pre",
                                   "{\"tool_call_id\":\"call_1\",\"tool_"
                                   "name\":\"get\"}") ","
                                                      "{\"kind\":\"tool_"
                                                      "start\",\"name\":"
                                                      "\"get\",\"tool_call_"
                                                      "id\":\"call_1\","
                                                      "\"input\":{},\"t_ms\":"
                                                      "100},"
                                                      "{\"kind\":\"tool_end\","
                                                      "\"name\":\"get\","
                                                      "\"tool_call_id\":"
                                                      "\"call_1\",\"status\":"
                                                      "200,"
                                                      "\"reply\":{\"success\":"
                                                      "true,\"output\":\"v\"},"
                                                      "\"t_ms\":900}," EV(
                                                          "tool:post",
                                                          "{\"tool_call_id\":"
                                                          "\"call_1\",\"tool_"
                                                          "name\":\"get\"}") "," COMPLETE("1",
                                                                                          "incomple"
                                                                                          "te") "]";
  cJSON *c = grade_with(two_prompts, j, no_caps, 0);
  EXPECT(c, "tool.timeout", "FAIL");
  cJSON_Delete(c);
}

/* The response prompt:complete and execution:end carry is the reply text the mock sent. */
static void response_value_compared(void) {
  const char *const lifecycle[] = {"lifecycle", NULL};
  cJSON *c = grade(
      "[" SESSION
      "," EV("prompt:submit", "{\"prompt\":\"hi\"}")
      "," EV("provider:request", "{\"iteration\":1,\"attempt\":1}")
      "," REQ(USER)
      "," REPLY_TEXT("Hello")
      "," EV("provider:response", "{\"content\":\"Hello\",\"tool_calls\":[]}")
      "," EV("prompt:complete", "{\"response\":\"Hell\"}")
      "," EV("execution:end", "{\"response\":\"Hello\",\"status\":\"completed\"}")
      "," COMPLETE("1", "success") "]",
      lifecycle, 0);
  EXPECT(c, "complete.response", "FAIL");     /* "Hell" is not what the mock sent */
  EXPECT(c, "complete.end-response", "FAIL"); /* and execution:end disagrees with it */
  EXPECT(c, "error.numbering", "PASS");
  cJSON_Delete(c);
  c = grade(
      "[" SESSION
      "," EV("prompt:submit", "{\"prompt\":\"hi\"}")
      "," EV("provider:request", "{\"iteration\":0,\"attempt\":1}")
      "," REQ(USER)
      "," REPLY_TEXT("Hello")
      "," EV("provider:response", "{\"content\":\"Hello\",\"tool_calls\":[]}")
      "," EV("prompt:complete", "{\"response\":\"Hello\"}")
      "," COMPLETE("1", "success") "]",
      no_caps, 0);
  EXPECT(c, "complete.response", "PASS");
  EXPECT(c, "error.numbering", "WARN"); /* iterations count from 1; naming, SHOULD (4.6) */
  cJSON_Delete(c);
}

/* clang-format on */

/* A check id outside the table does not compile (checks.def); one graded under another
 * requirement than its row's, or a row without a requirement graded without one, is an ERROR:
 * the table the gate proves cannot fall out of step with what the checks report. */
/* Every row names the one check that grades it, among the checks ock__grade_scenario runs (the
 * HARNESS rows none), and a row graded while another check runs is an ERROR: no row is decided
 * in two places. */
static void every_row_has_its_run(void) {
  check_run *const *runs = ock__grade_runs();
  for (size_t i = 0; i < ock__checklist_count(); i++) {
    const struct check_entry *c = ock__checklist_at(i);
    int listed = 0;
    for (size_t k = 0; runs[k] && !listed; k++)
      listed = runs[k] == c->run;
    if (c->kind == CHECK_HARNESS ? c->run != NULL : !listed)
      ock_test_fail(__LINE__, __FILE__, "checks.def: %s names no run of ock__grade_runs", c->id);
  }
  cJSON *checks = cJSON_CreateArray();
  struct grade_ctx g = {
      .reg = reg, .level = OCK_LEVEL_SHOULD, .checks = checks, .running = ock__check_order};
  ock__grade_emit(&g, CK_ORDER_GRAMMAR, 1, -1, "x", "fine"); /* its row's run */
  ock__grade_emit(&g, CK_CANCEL_EVENTS, 1, -1, "x", "fine"); /* ock__check_cancel's */
  OCK_ASSERT_STR_EQ(verdict_of(checks, "order.grammar"), "PASS");
  OCK_ASSERT_STR_EQ(verdict_of(checks, "cancel.events"), "ERROR");
  cJSON_Delete(checks);
}

static void unlisted_check_id_is_an_error(void) {
  cJSON *checks = cJSON_CreateArray();
  struct grade_ctx g = {.reg = reg, .level = OCK_LEVEL_SHOULD, .checks = checks};
  ock__grade_emit_to(&g, CK_PROC_SESSION, "OCK-PROC-002", 1, -1, "x", "fine");
  ock__grade_emit(&g, CK_EXPECT_TIMING, 1, -1, "x", "fine");
  ock__grade_emit(&g, CK_PROC_EXIT, 1, -1, "x", "fine");
  ock__grade_emit_to(&g, CK_EXPECT_TOOL_CALLS, "OCK-TOOL-001", 1, -1, "x", "fine");
  OCK_ASSERT_STR_EQ(verdict_of(checks, "proc.session"), "ERROR");
  OCK_ASSERT_STR_EQ(verdict_of(checks, "expect.timing"), "ERROR");
  OCK_ASSERT_STR_EQ(verdict_of(checks, "proc.exit"), "PASS");
  OCK_ASSERT_STR_EQ(verdict_of(checks, "expect.tool-calls"), "PASS");
  cJSON_Delete(checks);
}

/* Every row of the table is unique, sits at the place of its name, names a requirement of the
 * registry, and (unless it reports only the harness's failures) the mutation that proves it. */
static void checklist_rows_are_sound(void) {
  OCK_ASSERT_INT_GT(ock__checklist_count(), 90);
  OCK_ASSERT_INT_EQ(ock__checklist_count(), CK_COUNT);
  for (size_t i = 0; i < ock__checklist_count(); i++) {
    const struct check_entry *c = ock__checklist_at(i);
    if (c->requirement && !ock_registry_find(reg, c->requirement))
      ock_test_fail(__LINE__, __FILE__, "checklist row %s names %s, not in the registry", c->id,
                    c->requirement);
    if (ock__checklist_find(c->id) != c)
      ock_test_fail(__LINE__, __FILE__, "checklist row %s appears twice", c->id);
    if (ock__check_row(c->name) != c || (size_t)c->name != i)
      ock_test_fail(__LINE__, __FILE__, "checklist row %s is not at the place of its name", c->id);
    if ((c->kind == CHECK_GRADES) != (*c->mutation != '\0'))
      ock_test_fail(__LINE__, __FILE__, "checks.def: %s %s", c->id,
                    c->kind == CHECK_GRADES ? "names no mutation that makes it FAIL"
                                            : "reports only harness failures but names a mutation");
  }
}

/* A retry 690 ms after the failed reply, in a scenario that expects 100..300 ms. */
static const char *const resilience[] = {"resilience", NULL};
static const char *timing_fixture =
    "{\"id\":\"t\",\"requirements\":[\"OCK-ERROR-004\"],\"session\":{\"prompts\":[\"hi\"],"
    "\"config\":{\"error_strategy\":\"retry\",\"retry_base_delay_ms\":200},"
    "\"providers\":[{\"name\":\"main\",\"api\":\"openai\",\"model\":\"m\"}]},"
    "\"script\":{\"main\":[]},"
    "\"expect\":{\"timing\":{\"between_requests_ms\":{\"min\":100,\"max\":300}}}}";
static const char *timing_journal = "[{\"kind\":\"session\",\"t_ms\":0}," EV(
    "prompt:submit", "{\"prompt\":\"hi\"}") ","
                                            "{\"kind\":\"llm_request\",\"provider\":\"main\","
                                            "\"neutral\":[],\"t_ms\":0},"
                                            "{\"kind\":\"llm_reply\",\"provider\":\"main\","
                                            "\"status\":503,\"turn\":0,\"t_ms\":10},"
                                            "{\"kind\":\"llm_request\",\"provider\":\"main\","
                                            "\"neutral\":[],\"t_ms\":700},"
                                            "{\"kind\":\"llm_reply\",\"provider\":\"main\","
                                            "\"status\":200,\"text\":\"ok\","
                                            "\"t_ms\":710}," COMPLETE("1", "success") "]";

static void expect_timing_widens_with_time_scale(void) {
  cJSON *c = grade_scaled(timing_fixture, timing_journal, resilience, 0, 1);
  EXPECT(c, "expect.timing", "FAIL"); /* 690 ms against a max of 300 ms */
  cJSON_Delete(c);
  c = grade_scaled(timing_fixture, timing_journal, resilience, 0, 2);
  EXPECT(c, "expect.timing", "PASS"); /* the late bound grows by 500 ms x (2 - 1) */
  cJSON_Delete(c);
  c = grade_scaled(
      timing_fixture,
      "[{\"kind\":\"session\",\"t_ms\":0}," EV(
          "prompt:submit",
          "{\"prompt\":\"hi\"}") ","
                                 "{\"kind\":\"llm_request\",\"provider\":\"main\",\"neutral\":[],"
                                 "\"t_ms\":0},"
                                 "{\"kind\":\"llm_reply\",\"provider\":\"main\",\"status\":503,"
                                 "\"turn\":0,"
                                 "\"t_ms\":10},"
                                 "{\"kind\":\"llm_request\",\"provider\":\"main\",\"neutral\":[],"
                                 "\"t_ms\":50}," COMPLETE("1", "error") "]",
      resilience, 0, 10);
  EXPECT(c, "expect.timing", "FAIL"); /* 40 ms: early is early at any scale */
  cJSON_Delete(c);
}

/* clang-format off */
/* An execute with custom events around execution:start and execution:end; START is spliced in
 * where execution:start belongs. */
#define CUSTOM_JOURNAL(START)                                                          \
  "[" SESSION ","                                                                      \
  EV("prompt:submit", "{\"prompt\":\"hi\"}") ","                                       \
  EV("custom:audit", "{\"who\":\"me\"}") ","                                           \
  START                                                                                \
  EV("provider:request", "{}") ","                                                     \
  REQ(USER) "," REPLY_TEXT("Hello") ","                                                \
  EV("provider:response", "{\"content\":\"Hello\",\"tool_calls\":[]}") ","            \
  EV("prompt:complete", "{\"response\":\"Hello\"}") ","                                \
  EV("execution:end", "{\"response\":\"Hello\",\"status\":\"completed\"}") ","        \
  EV("custom:metrics", "{}") ","                                                       \
  COMPLETE("1", "success") "]"
/* clang-format on */

/* OCK-LIFECYCLE-001 looks at known events only (SPEC.md 3.1): custom events may stand between
 * prompt:submit and execution:start, and between execution:end and orchestrator:complete. */
/* lifecycle_verdict runs ock__check_lifecycle alone on the journal: the grammar (ock__check_order)
 * reports misplacement under the same check id, and this test is about ock__check_lifecycle's own
 * reading. */
static const char *lifecycle_check(const char *journal_text, const char *id, char *out, size_t n) {
  static const char *const caps[] = {"lifecycle", NULL};
  struct ock_fixture *fx = ock_test_fixture(fixture_text);
  cJSON *journal = number(journal_text);
  struct sut_result proc = {.exit_code = 0};
  struct view v;
  cJSON *checks = cJSON_CreateArray();
  ock__view_build(&v, fx, journal, &proc);
  struct grade_ctx g = {
      .v = &v, .reg = reg, .declared = caps, .level = OCK_LEVEL_SHOULD, .checks = checks};
  ock__check_lifecycle(&g);
  snprintf(out, n, "%s", verdict_of(checks, id));
  ock__view_free(&v);
  cJSON_Delete(journal);
  ock_fixture_free(fx);
  cJSON_Delete(checks);
  return out;
}

static const char *lifecycle_verdict(const char *journal_text, char *out, size_t n) {
  return lifecycle_check(journal_text, "lifecycle.execution-events", out, n);
}

/* clang-format off */
/* CUGAR's ReferenceOrchestrator as a host forwards it: its stages, which no known event names,
 * as custom events with their stage; STEPS is spliced in after PLAN (SPEC.md 4.4). */
#define S_(stage) ",\"trace_id\":\"tr\",\"stage\":\"" stage "\"}"
#define CUGAR_JOURNAL(PLAN, STEPS)                                                     \
  "[{\"kind\":\"session\",\"trace_id\":\"tr\"},"                                     \
  EV("prompt:submit", "{\"prompt\":\"hi\"" S_("initialize")) ","                     \
  EV("execution:start", "{\"prompt\":\"hi\"" S_("initialize")) ","                   \
  PLAN STEPS                                                                           \
  EV("cugar:aggregate", "{\"count\":2" S_("aggregate")) ","                            \
  EV("execution:end", "{\"response\":\"done\",\"status\":\"completed\"" S_("complete")) "," \
  EV("orchestrator:complete",                                                          \
     "{\"orchestrator\":\"x\",\"turn_count\":0,\"status\":\"success\"" S_("complete")) "]"
#define CUGAR_PLAN EV("cugar:plan", "{\"num_steps\":2" S_("plan")) ","
#define CUGAR_STEP                                                                     \
  EV("cugar:route", "{\"step\":1" S_("route")) ","                                    \
  EV("cugar:execute", "{\"step\":1" S_("execute")) ","
/* clang-format on */

/* SPEC.md 4.4 accepts CUGAR's canonical order, PLAN before ROUTE and a ROUTE per step, read from
 * the stages of custom events; the same events in an order CUGAR refuses fail OCK-LIFECYCLE-003. */
/* clang-format off */
static void cugar_stage_order_is_accepted(void) {
  char got[16];
  OCK_ASSERT_STR_EQ(lifecycle_check(CUGAR_JOURNAL(CUGAR_PLAN, CUGAR_STEP CUGAR_STEP),
                                    "lifecycle.transitions", got, sizeof got),
                    "PASS");
  OCK_ASSERT_STR_EQ(lifecycle_check(CUGAR_JOURNAL(CUGAR_PLAN, CUGAR_STEP CUGAR_STEP),
                                    "lifecycle.stage", got, sizeof got),
                    "PASS");
  OCK_ASSERT_STR_EQ(lifecycle_check(CUGAR_JOURNAL(CUGAR_PLAN, CUGAR_STEP CUGAR_STEP),
                                    "lifecycle.terminal", got, sizeof got),
                    "PASS");
  /* ROUTE before any PLAN */
  OCK_ASSERT_STR_EQ(lifecycle_check(CUGAR_JOURNAL("", CUGAR_STEP CUGAR_PLAN), "lifecycle.transitions",
                                    got, sizeof got),
                    "FAIL");
  /* PLAN -> EXECUTE: the step's ROUTE is missing */
  OCK_ASSERT_STR_EQ(
      lifecycle_check(CUGAR_JOURNAL(CUGAR_PLAN, EV("cugar:execute", "{\"step\":1" S_("execute")) ","),
                      "lifecycle.transitions", got, sizeof got),
      "FAIL");
  /* ROUTE -> AGGREGATE: the step's EXECUTE is missing */
  OCK_ASSERT_STR_EQ(
      lifecycle_check(CUGAR_JOURNAL(CUGAR_PLAN, EV("cugar:route", "{\"step\":1" S_("route")) ","),
                      "lifecycle.transitions", got, sizeof got),
      "FAIL");
  /* a step after the terminal stage */
  OCK_ASSERT_STR_EQ(
      lifecycle_check(CUGAR_JOURNAL(CUGAR_PLAN, CUGAR_STEP EV("cugar:done", "{\"ok\":1" S_("complete")) ","
                                                           CUGAR_STEP),
                      "lifecycle.transitions", got, sizeof got),
      "FAIL");
}
/* clang-format on */

/* A move from one terminal stage into another (a step reported failed, then the cancel) is a
 * second terminal stage: OCK-LIFECYCLE-004's finding, not a transition OCK-LIFECYCLE-003 refuses.
 */
/* clang-format off */
static void second_terminal_stage_is_lifecycle_terminal(void) {
  static const char journal[] =
      "[{\"kind\":\"session\",\"trace_id\":\"tr\"},"
      EV("prompt:submit", "{\"prompt\":\"hi\"" S_("initialize")) ","
      EV("execution:start", "{\"prompt\":\"hi\"" S_("initialize")) ","
      EV("step:aborted", "{\"step\":1" S_("failed")) ","
      EV("cancel:completed", "{\"orchestrator\":\"x\",\"turn_count\":0" S_("cancelled")) ","
      EV("execution:end", "{\"response\":null,\"status\":\"cancelled\"" S_("cancelled")) ","
      EV("orchestrator:complete",
         "{\"orchestrator\":\"x\",\"turn_count\":0,\"status\":\"cancelled\"" S_("cancelled")) "]";
  char got[16];
  OCK_ASSERT_STR_EQ(lifecycle_check(journal, "lifecycle.terminal", got, sizeof got), "FAIL");
  OCK_ASSERT_STR_EQ(lifecycle_check(journal, "lifecycle.transitions", got, sizeof got), "PASS");
  OCK_ASSERT_STR_EQ(lifecycle_check(journal, "lifecycle.stage", got, sizeof got), "PASS");
}
/* clang-format on */
#undef S_

static void custom_events_do_not_displace_execution_events(void) {
  char got[16];
  OCK_ASSERT_STR_EQ(
      lifecycle_verdict(CUSTOM_JOURNAL(EV("execution:start", "{\"prompt\":\"hi\"}") ","), got,
                        sizeof got),
      "PASS");
  /* Graded whole (the grammar drops custom events too, SPEC.md 3.1): nothing fails. */
  const char *const caps[] = {"lifecycle", NULL};
  cJSON *c = grade(CUSTOM_JOURNAL(EV("execution:start", "{\"prompt\":\"hi\"}") ","), caps, 0);
  const cJSON *check;
  cJSON_ArrayForEach(check, c) {
    if (!strcmp(ock_json_str(check, "requirement"), "OCK-LIFECYCLE-001"))
      OCK_ASSERT_STR_EQ(ock_json_str(check, "verdict"), "PASS");
  }
  cJSON_Delete(c);
  /* No execution:start: the custom event is no stand-in for it. */
  OCK_ASSERT_STR_EQ(lifecycle_verdict(CUSTOM_JOURNAL(""), got, sizeof got), "FAIL");
}

/* verdict_for: the verdict of check id charged to requirement req. */
static const char *verdict_for(const cJSON *checks, const char *id, const char *req) {
  const cJSON *c;
  cJSON_ArrayForEach(c, checks) {
    if (!strcmp(ock_json_str(c, "id"), id) && !strcmp(ock_json_str(c, "requirement"), req))
      return ock_json_str(c, "verdict");
  }
  return "(not run)";
}

/* Each expect clause is charged to the requirement it proves (SPEC.md 8.8), not to the
 * fixture's first requirement: a tool's output text to OCK-TOOL-006, the fail_fast skipped text
 * to OCK-TEXT-008, a count that names its requirement to that one. */
static void expect_clauses_are_charged_to_what_they_prove(void) {
  const char *fixture =
      "{\"id\":\"t\",\"requirements\":[\"OCK-ORPHAN-005\"],\"session\":{\"prompts\":[\"hi\"],"
      "\"providers\":[{\"name\":\"main\",\"api\":\"openai\",\"model\":\"m\"}],"
      "\"tools\":[{\"name\":\"get\"}]},\"script\":{\"main\":[]},"
      "\"tools\":{\"get\":{\"result\":{\"success\":true,\"output\":\"Paris: 15 degrees\"}}},"
      "\"expect\":{\"last_request_contains\":[\"Paris: 15 degrees\","
      "\"Error: skipped: an earlier tool call failed (fail_fast)\",\"hi\"],"
      "\"tool_calls\":{\"get\":{\"count\":1,\"requirement\":\"OCK-TOOL-004\"}}}}";
  const char *journal =
      "[" SESSION
      "," EV("prompt:submit", "{\"prompt\":\"hi\"}") "," EV("provider:request", "{}") "," REQ(
          USER) "," REPLY_TEXT("ok") "," EV("provider:response",
                                            "{\"content\":\"ok\",\"tool_"
                                            "calls\":[]}") "," EV("prompt:"
                                                                  "complet"
                                                                  "e",
                                                                  "{\"resp"
                                                                  "onse\":"
                                                                  "\"ok\""
                                                                  "}") "," COMPLETE("1",
                                                                                    "success") "]";
  cJSON *c = grade_with(fixture, journal, no_caps, 1);
  OCK_ASSERT_STR_EQ(verdict_for(c, "expect.last-request", "OCK-TOOL-006"), "FAIL");
  /* The skipped text is a SHOULD of its own (SPEC.md 2.15): graded with 1 (strict), a FAIL. */
  OCK_ASSERT_STR_EQ(verdict_for(c, "expect.last-request", "OCK-TEXT-008"), "FAIL");
  OCK_ASSERT_STR_EQ(verdict_for(c, "expect.last-request", "OCK-ERROR-009"), "(not run)");
  OCK_ASSERT_STR_EQ(verdict_for(c, "expect.last-request", "OCK-ORPHAN-005"), "PASS"); /* "hi" */
  OCK_ASSERT_STR_EQ(verdict_for(c, "expect.tool-calls", "OCK-TOOL-004"), "FAIL");
  OCK_ASSERT_STR_EQ(verdict_for(c, "expect.tool-calls", "OCK-ORPHAN-005"), "(not run)");
  cJSON_Delete(c);
}

/* clang-format off */
/* A tool round of two calls; START_B and END_A are spliced in to order the endpoint calls. */
#define TWO_CALLS(ORDER)                                                                        \
  "[" SESSION "," EV("prompt:submit", "{\"prompt\":\"hi\"}") ","                                 \
  EV("provider:request", "{}") "," REQ(USER) ","                                               \
  "{\"kind\":\"llm_reply\",\"provider\":\"main\",\"status\":200,\"text\":\"\",\"fault\":null,"     \
  "\"tool_calls\":[{\"id\":\"a\",\"name\":\"get\",\"arguments\":\"{}\"},"                        \
  "{\"id\":\"b\",\"name\":\"get\",\"arguments\":\"{}\"}]},"                                     \
  EV("tool:pre", "{\"tool_call_id\":\"a\",\"tool_name\":\"get\"}") ","                           \
  EV("tool:pre", "{\"tool_call_id\":\"b\",\"tool_name\":\"get\"}") "," ORDER ","                 \
  EV("tool:post", "{\"tool_call_id\":\"a\",\"tool_name\":\"get\"}") ","                          \
  EV("tool:post", "{\"tool_call_id\":\"b\",\"tool_name\":\"get\"}") "," COMPLETE("1", "error") "]"
#define START(id) "{\"kind\":\"tool_start\",\"name\":\"get\",\"tool_call_id\":\"" id "\",\"input\":{}}"
#define END(id, gone)                                                                          \
  "{\"kind\":\"tool_end\",\"name\":\"get\",\"tool_call_id\":\"" id "\",\"status\":200,"           \
  "\"client_gone\":" gone ",\"reply\":{\"success\":true,\"output\":\"v\"}}"
/* clang-format on */

/* clang-format off */
/* A call closed on a SIGINT in execute 1 (CLOSE), whose reply reaches the mock only after the
 * next execute ended. */
#define CLOSED_LATE(CLOSE)                                                                      \
  "[" SESSION "," EV("prompt:submit", "{\"prompt\":\"hi\"}") ","                                 \
  EV("provider:request", "{}") "," REQ(USER) "," REPLY_CALL("a", "get", "{}") ","              \
  EV("tool:pre", "{\"tool_call_id\":\"a\",\"tool_name\":\"get\"}") "," START("a") ","          \
  "{\"kind\":\"cancel\"}," CLOSE "," COMPLETE("1", "cancelled") ","                           \
  EV("prompt:submit", "{\"prompt\":\"hi\"}") "," EV("provider:request", "{}") "," REQ(USER) ","  \
  REPLY_TEXT("ok") "," COMPLETE("1", "success") "," END("a", "true") "]"
/* clang-format on */

/* OCK-ORDER-006: a tool:post sent before the tool replied fails, also when that reply reaches the
 * mock only after the execute (a running call closed on a SIGINT must get tool:error cancelled,
 * SPEC.md 5.10); tool:error cancelled is exempt. */
static void tool_post_before_a_late_reply(void) {
  cJSON *c = grade(CLOSED_LATE(EV("tool:post", "{\"tool_call_id\":\"a\",\"tool_name\":\"get\","
                                               "\"result\":{\"success\":false,\"output\":null}}")),
                   no_caps, 0);
  EXPECT(c, "order.tool-post-after-run", "FAIL");
  cJSON_Delete(c);
  c = grade(CLOSED_LATE(EV("tool:error", "{\"tool_call_id\":\"a\",\"tool_name\":\"get\","
                                         "\"error\":{\"type\":\"cancelled\",\"message\":\"m\"}}")),
            no_caps, 0);
  EXPECT(c, "order.tool-post-after-run", "(not run)");
  cJSON_Delete(c);
}

/* SPEC.md 1.3: undeclared capabilities are recognised by behaviour, not only by event names. */
static void undeclared_capability_by_behaviour(void) {
  cJSON *c = grade(TWO_CALLS(START("a") "," START("b") "," END("a", "false") "," END("b", "false")),
                   no_caps, 0);
  EXPECT(c, "capability.parallel", "WARN"); /* b started before a ended */
  cJSON_Delete(c);
  c = grade(TWO_CALLS(START("a") "," END("a", "false") "," START("b") "," END("b", "false")),
            no_caps, 0);
  EXPECT(c, "capability.parallel", "(not run)"); /* one after the other */
  cJSON_Delete(c);
  c = grade(TWO_CALLS(START("a") "," START("b") "," END("a", "true") "," END("b", "false")),
            no_caps, 0);
  EXPECT(c, "capability.parallel", "(not run)"); /* a was given up (timeout) before b started */
  cJSON_Delete(c);

  /* A stage or trace_id field shows lifecycle. */
  c = grade("[" SESSION
            "," EV("prompt:submit",
                   "{\"prompt\":\"hi\",\"stage\":\"initialize\"}") "," COMPLETE("0", "error") "]",
            no_caps, 0);
  EXPECT(c, "capability.lifecycle", "WARN");
  cJSON_Delete(c);

  /* A tool:selecting event shows scheduling; declared, the check is not run. */
  const char *selecting = "[" SESSION "," EV("prompt:submit", "{\"prompt\":\"hi\"}") "," EV(
      "tool:selecting", "{\"tool_calls\":[]}") "," COMPLETE("0", "error") "]";
  c = grade(selecting, no_caps, 0);
  EXPECT(c, "capability.scheduling", "WARN");
  cJSON_Delete(c);
  c = grade(selecting, (const char *const[]){"scheduling", NULL}, 0);
  EXPECT(c, "capability.scheduling", "(not run)");
  cJSON_Delete(c);

  /* A request after a faulted reply in one execute is a retry; a cancelled status shows
   * cancellation. */
  const char *retried =
      "[" SESSION
      "," EV("prompt:submit", "{\"prompt\":\"hi\"}") "," EV("provider:request", "{}") "," REQ(USER) "," REPLY_ERR(
          "503") "," EV("provider:error",
                        "{}") "," EV("provider:request",
                                     "{}") "," REQ(USER) "," REPLY_TEXT("ok") "," COMPLETE("1",
                                                                                           "cancell"
                                                                                           "ed") "]";
  c = grade(retried, no_caps, 0);
  EXPECT(c, "capability.resilience", "WARN");
  EXPECT(c, "capability.cancellation", "WARN");
  cJSON_Delete(c);
  c = grade(retried, (const char *const[]){"resilience", "cancellation", NULL}, 0);
  EXPECT(c, "capability.resilience", "(not run)");
  EXPECT(c, "capability.cancellation", "(not run)");
  cJSON_Delete(c);
  /* A provider error that ends the execute is no retry. */
  c = grade(
      "[" SESSION
      "," EV("prompt:submit", "{\"prompt\":\"hi\"}") "," EV("provider:request", "{}") "," REQ(
          USER) "," REPLY_ERR("503") "," EV("provider:error", "{}") "," COMPLETE("1", "error") "]",
      no_caps, 0);
  EXPECT(c, "capability.resilience", "(not run)");
  cJSON_Delete(c);
}

/* An absent value is named in a failure's message ("turn_count missing"), never shown as an
 * internal placeholder such as -1 or (null). */
static void absent_values_are_named(void) {
  /* clang-format off */
  cJSON *c = grade(
      "[" SESSION
      "," EV("prompt:submit", "{\"prompt\":\"hi\"}")
      "," EV("provider:request", "{}")
      "," REQ(USER)
      "," REPLY_TEXT("Hello")
      "," EV("provider:response", "{\"content\":\"Hello\",\"tool_calls\":[]}")
      "," EV("prompt:complete", "{\"response\":\"Hello\"}")
      "," EV("orchestrator:complete", "{\"orchestrator\":\"x\",\"status\":\"success\"}") "]",
      no_caps, 0);
  /* clang-format on */
  EXPECT(c, "complete.turn-count", "FAIL");
  EXPECT(c, "error.numbering", "WARN"); /* SHOULD (SPEC.md 4.6) */
  const cJSON *k;
  int named = 0;
  cJSON_ArrayForEach(k, c) {
    const char *id = ock_json_str(k, "id"), *msg = ock_json_str(k, "message");
    if (!strcmp(id, "complete.turn-count")) {
      OCK_ASSERT_CONTAINS(msg, "turn_count missing, the mock served 1 turn(s)");
      named++;
    }
    if (!strcmp(id, "error.numbering")) {
      OCK_ASSERT_CONTAINS(msg, "iteration missing attempt missing");
      named++;
    }
    if (strstr(msg, " -1") || strstr(msg, "(null)") || strstr(msg, "[-1]"))
      ock_test_fail(__LINE__, __FILE__, "check %s says \"%s\": a placeholder reached it", id, msg);
  }
  OCK_ASSERT_INT_EQ(named, 2);
  cJSON_Delete(c);
}

/* A process ended by a signal has no exit code: expect.exit-code says how it ended. */
static void signalled_exit_is_named(void) {
  struct ock_fixture *fx = ock_test_fixture(
      "{\"ock_fixture\":1,\"id\":\"t\",\"title\":\"t\",\"proves\":\"p\",\"requirements\":"
      "[\"OCK-PROC-002\"],\"session\":{\"prompts\":[\"hi\"],\"providers\":[{\"name\":\"main\","
      "\"api\":\"openai\",\"model\":\"m\"}]},\"script\":{\"main\":[]},"
      "\"expect\":{\"exit_code\":0}}");
  cJSON *journal = number("[" SESSION "]");
  struct sut_result proc = {.exit_code = -1, .signal = SIGSEGV};
  struct view v;
  cJSON *checks = cJSON_CreateArray();
  ock__view_build(&v, fx, journal, &proc);
  struct grade_ctx g = {
      .v = &v, .reg = reg, .declared = no_caps, .level = OCK_LEVEL_SHOULD, .checks = checks};
  ock__grade_scenario(&g);
  const cJSON *k;
  int seen = 0;
  cJSON_ArrayForEach(k, checks) {
    if (strcmp(ock_json_str(k, "id"), "expect.exit-code"))
      continue;
    seen++;
    OCK_ASSERT_STR_EQ(ock_json_str(k, "verdict"), "FAIL");
    OCK_ASSERT_STR_EQ(ock_json_str(k, "message"),
                      "OCK-PROC-002: ended by SIGSEGV, expected exit code 0");
  }
  OCK_ASSERT_INT_EQ(seen, 1);
  ock__view_free(&v);
  cJSON_Delete(journal);
  ock_fixture_free(fx);
  cJSON_Delete(checks);
}

/* ---- ock__event_data from concurrent graders ----------------------------------------------------
 */

#define EVENT_DATA_CHILD "OCK_TEST_EVENT_DATA_CHILD"

static atomic_int slow_allocs;

/* slow_malloc counts cJSON's allocations and holds each one, so that a thread which allocates
 * in ock__event_data is still inside it when the other thread arrives. */
static void *slow_malloc(size_t n) {
  atomic_fetch_add(&slow_allocs, 1);
  struct timespec t = {0, 100 * 1000000L}; /* the race window under test, not a wait */
  nanosleep(&t, NULL);
  return malloc(n);
}

struct data_asker {
  pthread_barrier_t *start;
  const cJSON *entry;
  const cJSON *data;
};

static void *ask_data(void *arg) {
  struct data_asker *a = arg;
  pthread_barrier_wait(a->start);
  a->data = ock__event_data(a->entry);
  return NULL;
}

/* event_data_shared_check: two threads released together ask for the data of events without
 * an object one; run in a process that has not called ock__event_data before. */
static void event_data_shared_check(void) {
  cJSON *none = cJSON_Parse("{\"kind\":\"event\",\"event\":\"x\"}");
  cJSON *number = cJSON_Parse("{\"kind\":\"event\",\"event\":\"x\",\"data\":3}");
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, 2);
  struct data_asker a = {&start, none, NULL}, b = {&start, number, NULL};
  cJSON_Hooks hooks = {slow_malloc, free};
  cJSON_InitHooks(&hooks);
  pthread_t ta, tb;
  pthread_create(&ta, NULL, ask_data, &a);
  pthread_create(&tb, NULL, ask_data, &b);
  pthread_join(ta, NULL);
  pthread_join(tb, NULL);
  cJSON_InitHooks(NULL);
  pthread_barrier_destroy(&start);
  OCK_ASSERT_INT_EQ(atomic_load(&slow_allocs), 0);
  OCK_ASSERT_TRUE(a.data == b.data);
  OCK_ASSERT_TRUE(cJSON_IsObject(a.data));
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(a.data), 0);
  OCK_ASSERT_TRUE(cJSON_IsObject(ock__event_data(NULL)));
  cJSON_Delete(none);
  cJSON_Delete(number);
}

/* Scenarios are graded on --jobs worker threads at once, and every check asks ock__event_data for
 * the data of events that may have none. The empty object it then returns must be one both
 * threads share and nothing may be allocated for it: a default created on first use raced
 * (two threads each created one, and the one overwritten leaked, which LeakSanitizer reported
 * at exit of ock run now and then). Earlier tests of this binary have called ock__event_data
 * already, so the check runs in a fresh process: this binary, running only this test. */
static void event_data_is_shared_by_concurrent_graders(void) {
  if (getenv(EVENT_DATA_CHILD)) {
    event_data_shared_check();
    return;
  }
  char exe[1024], dir[64], out[128], cmd[2400];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0 || ock_test_tmpdir(dir, "event-data")) {
    ock_test_fail(__LINE__, __FILE__, "cannot read /proc/self/exe or make a directory");
    return;
  }
  exe[n] = '\0';
  snprintf(out, sizeof out, "%s/child.out", dir);
  snprintf(cmd, sizeof cmd, "%s=1 '%s' checks:event_data_is_shared_by_concurrent_graders >%s 2>&1",
           EVENT_DATA_CHILD, exe, out);
  int code = ock_test_sh(cmd);
  if (code != 0) {
    char *text = ock_test_read_file(out);
    size_t len = text ? strlen(text) : 0;
    ock_test_fail(__LINE__, __FILE__, "the test in a fresh process exited %d; its output ends: %s",
                  code, text ? text + (len > 1500 ? len - 1500 : 0) : "");
    free(text);
  } else {
    CU_PASS("event_data in a fresh process");
  }
  ock_test_rmdir(dir);
}

/* A stored call whose arguments text holds U+0000 (escaped in the text) or a member name twice
 * is not the model's call, though cJSON would read its prefix or first member as equal. */
/* clang-format off */
static void stored_arguments_read_whole(void) {
  static const char *const stored[] = {
      "{\\\"city\\\":\\\"Paris\\\\u0000x\\\"}",
      "{\\\"city\\\":\\\"Paris\\\",\\\"city\\\":\\\"Rome\\\"}",
      "{\\\"city\\\":\\\"Paris\\\"}"};
  static const char *const want[] = {"FAIL", "FAIL", "PASS"};
  for (int i = 0; i < 3; i++) {
    char journal[4096];
    snprintf(journal, sizeof journal,
             "[" SESSION "," EV("prompt:submit", "{\"prompt\":\"hi\"}")
             "," EV("provider:request", "{}") "," REQ(USER)
             "," REPLY_CALL("call_1", "get", "{\\\"city\\\":\\\"Paris\\\"}")
             "," EV("provider:request", "{}")
             "," REQ("[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":\"\","
                     "\"tool_calls\":[{\"id\":\"call_1\",\"name\":\"get\",\"arguments\":\"%s\"}]},"
                     "{\"role\":\"tool\",\"content\":\"v\",\"tool_call_id\":\"call_1\"}]")
             "," REPLY_TEXT("done") "," COMPLETE("2", "success") "]",
             stored[i]);
    cJSON *c = grade(journal, no_caps, 0);
    EXPECT(c, "orphan.call-arguments", want[i]);
    cJSON_Delete(c);
  }
}
/* clang-format on */

/* turn_count is compared as the number sent: 1.5 is not 1, 1e400 (infinity) no integer. */
/* clang-format off */
static void turn_count_is_compared_whole(void) {
  static const char *const sent[] = {"1.5", "1e400", "1"};
  static const char *const want[] = {"FAIL", "FAIL", "PASS"};
  static const char *fixture =
      "{\"id\":\"t\",\"requirements\":[\"OCK-COMPLETE-001\"],\"session\":{\"prompts\":[\"hi\"],"
      "\"providers\":[{\"name\":\"main\",\"api\":\"openai\",\"model\":\"m\"}]},"
      "\"script\":{\"main\":[]},\"expect\":{\"executes\":[{\"turn_count\":1}]}}";
  for (int i = 0; i < 3; i++) {
    char journal[2048];
    snprintf(journal, sizeof journal,
             "[" SESSION "," EV("prompt:submit", "{\"prompt\":\"hi\"}")
             "," EV("provider:request", "{}") "," REQ(USER) "," REPLY_TEXT("Hello")
             "," EV("orchestrator:complete",
                    "{\"orchestrator\":\"x\",\"turn_count\":%s,\"status\":\"success\"}") "]",
             sent[i]);
    cJSON *c = grade_with(fixture, journal, no_caps, 0);
    EXPECT(c, "expect.turn-count", want[i]);
    EXPECT(c, "complete.turn-count", want[i]);
    cJSON_Delete(c);
  }
}
/* clang-format off */
/* Amplifier's tool events: {tool_name, tool_input} and a result, no tool_call_id (SPEC.md 4.6).
 * Two calls of one reply; ARGS_B is the second call's arguments text, PRE_B_INPUT the tool_input
 * its tool:pre carries; TRAFFIC is spliced between the reply and the closing events. */
#define AMP_PRE(input) EV("tool:pre", "{\"tool_name\":\"get\",\"tool_input\":" input "}")
#define AMP_POST(input, out)                                                                   \
  EV("tool:post", "{\"tool_name\":\"get\",\"tool_input\":" input                               \
     ",\"result\":{\"success\":true,\"output\":\"" out "\"}}")
#define AMP_START(id, input)                                                                   \
  "{\"kind\":\"tool_start\",\"name\":\"get\",\"tool_call_id\":\"" id "\",\"input\":" input "}"
#define AMP_END(id, out)                                                                       \
  "{\"kind\":\"tool_end\",\"name\":\"get\",\"tool_call_id\":\"" id "\",\"status\":200,"       \
  "\"client_gone\":false,\"reply\":{\"success\":true,\"output\":\"" out "\"}}"
#define AMP_JOURNAL(ARGS_B, TRAFFIC)                                                           \
  "[" SESSION "," EV("prompt:submit", "{\"prompt\":\"hi\"}") ","                               \
  EV("provider:request", "{}") "," REQ(USER) ","                                               \
  "{\"kind\":\"llm_reply\",\"provider\":\"main\",\"status\":200,\"text\":\"\",\"fault\":null,"   \
  "\"tool_calls\":[{\"id\":\"a\",\"name\":\"get\",\"arguments\":\"{\\\"q\\\":1}\"},"           \
  "{\"id\":\"b\",\"name\":\"get\",\"arguments\":\"" ARGS_B "\"}]},"                            \
  EV("provider:response", "{\"content\":\"\",\"tool_calls\":[{\"id\":\"a\",\"name\":\"get\","  \
     "\"arguments\":{\"q\":1}},{\"id\":\"b\",\"name\":\"get\",\"arguments\":{}}]}") ","        \
  TRAFFIC ","                                                                                  \
  COMPLETE("1", "error") "]"
#define Q1 "{\"q\":1}"
#define Q2 "{\"q\":2}"
/* clang-format on */

/* assert_verdicts: each check id of ids (NULL-terminated) has the verdict at the same place of
 * want; every mismatch is reported. */
static void assert_verdicts(const cJSON *c, const char *const *ids, const char *const *want) {
  for (size_t i = 0; ids[i]; i++) {
    const char *got = verdict_of(c, ids[i]);
    if (strcmp(got, want[i]))
      ock_test_fail(__LINE__, __FILE__, "%s: %s, expected %s", ids[i], got, want[i]);
    else
      CU_PASS("verdict");
  }
}

/* Tool events without tool_call_id cost OCK-TOOL-008 alone: the harness pairs them with the
 * model's calls by name, arguments and the traffic, and ORDER-006/007 and TOOL-007 are graded on
 * that pairing. Equal calls run out of order are paired by the traffic, so a correct run passes
 * and a run that starts a call before any tool:pre fails; calls that nothing tells apart are not
 * paired at all, and that fails. */
/* clang-format off */
static void tool_events_without_ids_cost_one_finding(void) {
  static const char *const ids[] = {"tool.id-carried", "order.grammar", "order.tool-pre-before-run",
                                    "order.tool-post-after-run", "tool.event-fields", NULL};
  /* different arguments: paired by tool_input; b runs first */
  cJSON *c = grade(AMP_JOURNAL("{\\\"q\\\":2}",
                               AMP_PRE(Q2) "," AMP_START("b", Q2) "," AMP_PRE(Q1) ","
                               AMP_START("a", Q1) "," AMP_END("a", "one") "," AMP_END("b", "two") ","
                               AMP_POST(Q2, "two") "," AMP_POST(Q1, "one")),
                   no_caps, 1);
  assert_verdicts(c, ids, (const char *const[]){"FAIL", "PASS", "PASS", "PASS", "PASS"});
  cJSON_Delete(c);
  /* the same call twice, run out of order: the traffic pairs them, and a correct run passes */
  c = grade(AMP_JOURNAL("{\\\"q\\\":1}",
                        AMP_PRE(Q1) "," AMP_START("b", Q1) "," AMP_PRE(Q1) "," AMP_START("a", Q1) ","
                        AMP_END("a", "one") "," AMP_POST(Q1, "one") "," AMP_END("b", "one") ","
                        AMP_POST(Q1, "one")),
            no_caps, 1);
  assert_verdicts(c, ids, (const char *const[]){"FAIL", "PASS", "PASS", "PASS", "PASS"});
  cJSON_Delete(c);
  /* the same call twice, one started before any tool:pre: no pairing excuses it */
  c = grade(AMP_JOURNAL("{\\\"q\\\":1}",
                        AMP_START("b", Q1) "," AMP_PRE(Q1) "," AMP_PRE(Q1) "," AMP_START("a", Q1) ","
                        AMP_END("a", "one") "," AMP_END("b", "one") "," AMP_POST(Q1, "one") ","
                        AMP_POST(Q1, "one")),
            no_caps, 1);
  OCK_ASSERT_STR_EQ(verdict_of(c, "order.tool-pre-before-run"), "FAIL");
  cJSON_Delete(c);
  /* the same call twice, a tool:post before either ended */
  c = grade(AMP_JOURNAL("{\\\"q\\\":1}",
                        AMP_PRE(Q1) "," AMP_PRE(Q1) "," AMP_START("a", Q1) "," AMP_START("b", Q1) ","
                        AMP_POST(Q1, "one") "," AMP_END("a", "one") "," AMP_END("b", "one") ","
                        AMP_POST(Q1, "one")),
            no_caps, 1);
  OCK_ASSERT_STR_EQ(verdict_of(c, "order.tool-post-after-run"), "FAIL");
  cJSON_Delete(c);
  /* different arguments, and events that carry neither input nor result: nothing tells the calls
   * apart, the events stay without an id, and the grammar refuses them */
  c = grade(AMP_JOURNAL("{\\\"q\\\":2}",
                        EV("tool:pre", "{\"tool_name\":\"get\"}") "," AMP_START("a", Q1) ","
                        EV("tool:pre", "{\"tool_name\":\"get\"}") "," AMP_START("b", Q2) ","
                        AMP_END("a", "one") "," AMP_END("b", "two") ","
                        EV("tool:post", "{\"tool_name\":\"get\"}") ","
                        EV("tool:post", "{\"tool_name\":\"get\"}")),
            no_caps, 1);
  static const char *const refused[] = {"tool.id-carried", "order.grammar",
                                        "order.tool-pre-before-run", "tool.event-fields", NULL};
  assert_verdicts(c, refused, (const char *const[]){"FAIL", "FAIL", "FAIL", "FAIL"});
  cJSON_Delete(c);
}
/* clang-format on */

static const struct ock_test tests[] = {
    {"view_reads_the_served_config", view_reads_the_served_config},
    {"checks_grade_the_served_config", checks_grade_the_served_config},
    {"absent_values_are_named", absent_values_are_named},
    {"stored_arguments_read_whole", stored_arguments_read_whole},
    {"turn_count_is_compared_whole", turn_count_is_compared_whole},
    {"signalled_exit_is_named", signalled_exit_is_named},
    {"response_value_compared", response_value_compared},
    {"a_correct_text_turn_passes", a_correct_text_turn_passes},
    {"unknown_tool_text_is_a_should", unknown_tool_text_is_a_should},
    {"missing_complete_fails", missing_complete_fails},
    {"wrong_turn_count_fails", wrong_turn_count_fails},
    {"unannounced_request_fails", unannounced_request_fails},
    {"dropped_result_fails", dropped_result_fails},
    {"unknown_tool_run_fails", unknown_tool_run_fails},
    {"ignored_deny_fails", ignored_deny_fails},
    {"ignored_prompt_deny_says_how_it_ended", ignored_prompt_deny_says_how_it_ended},
    {"retry_without_backoff_fails", retry_without_backoff_fails},
    {"should_is_warn_unless_strict", should_is_warn_unless_strict},
    {"results_out_of_order_are_a_should", results_out_of_order_are_a_should},
    {"lifecycle_stages_are_checked", lifecycle_stages_are_checked},
    {"undeclared_capability_is_a_warning", undeclared_capability_is_a_warning},
    {"denied_prompt_left_in_context_fails", denied_prompt_left_in_context_fails},
    {"tool_timeout_not_reported_fails", tool_timeout_not_reported_fails},
    {"unlisted_check_id_is_an_error", unlisted_check_id_is_an_error},
    {"every_row_has_its_run", every_row_has_its_run},
    {"checklist_rows_are_sound", checklist_rows_are_sound},
    {"expect_timing_widens_with_time_scale", expect_timing_widens_with_time_scale},
    {"expect_clauses_are_charged_to_what_they_prove",
     expect_clauses_are_charged_to_what_they_prove},
    {"undeclared_capability_by_behaviour", undeclared_capability_by_behaviour},
    {"tool_post_before_a_late_reply", tool_post_before_a_late_reply},
    {"custom_events_do_not_displace_execution_events",
     custom_events_do_not_displace_execution_events},
    {"cugar_stage_order_is_accepted", cugar_stage_order_is_accepted},
    {"second_terminal_stage_is_lifecycle_terminal", second_terminal_stage_is_lifecycle_terminal},
    {"tool_events_without_ids_cost_one_finding", tool_events_without_ids_cost_one_finding},
    {"event_data_is_shared_by_concurrent_graders", event_data_is_shared_by_concurrent_graders},
    {NULL, NULL}};
const struct ock_suite suite_checks = {"checks", tests, setup, teardown};
