/*
 * test_grammar_check.c: every example of SPEC.md 3.4 through the two graders a user meets:
 * `ock check` on a recorded log, and the grammar check (order.grammar, OCK-ORDER-007) of
 * `ock run` on a mock journal. Both must give the verdict SPEC.md shows, at the symbol it
 * brackets.
 */
#include "runner.h"

#include <stdlib.h>

#include "cli/cli.h"
#include "checks/grade.h"
#include "grammar_examples.h"
#include "ock/json.h"
#include "model/view.h"
#include "conformance/fixture_text.h"

static ock_registry *reg;
static struct grammar_example examples[96];
static int n_examples;

static int setup(void) {
  struct ock_jerr err;
  if (ock_registry_load_builtin(&reg, &err))
    return 1;
  char msg[300];
  n_examples = grammar_read_spec_examples(examples, 96, msg, sizeof msg);
  if (n_examples < 0)
    fprintf(stderr, "grammar_check: %s\n", msg);
  return n_examples < 25;
}

static int teardown(void) {
  ock_registry_free(reg);
  return 0;
}

/* The seq (1-based line or journal position) where the example must be rejected: the
 * bracketed symbol, or the last event when the end of the input is what is rejected. */
static long expected_seq(const struct grammar_example *ex) {
  if (ex->rejected_at < 0)
    return -1;
  return ex->rejected_at < ex->n ? ex->rejected_at + 1 : ex->n;
}

/* event_json: the example's symbol i as an event object; orchestrator:complete carries valid
 * fields, with the status its execute implies (success when it answered, else error). */
static cJSON *event_json(const struct grammar_example *ex, int i) {
  const struct grammar_symbol *s = &ex->sym[i];
  cJSON *e = cJSON_CreateObject();
  cJSON_AddStringToObject(e, "event", s->name);
  cJSON *data = cJSON_AddObjectToObject(e, "data");
  if (s->id[0])
    cJSON_AddStringToObject(data, "tool_call_id", s->id);
  if (s->ev == OCK_EVENT_ORCHESTRATOR_COMPLETE) {
    int answered = 0;
    for (int k = i - 1; k >= 0 && ex->sym[k].ev != OCK_EVENT_PROMPT_SUBMIT; k--)
      answered |= ex->sym[k].ev == OCK_EVENT_PROMPT_COMPLETE;
    cJSON_AddStringToObject(data, "orchestrator", "t");
    cJSON_AddStringToObject(data, "status", answered ? "success" : "error");
    cJSON_AddNumberToObject(data, "turn_count", 0);
  }
  cJSON_AddItemToObject(
      e, "reply", cJSON_Parse(s->denied ? "{\"action\":\"deny\"}" : "{\"action\":\"continue\"}"));
  return e;
}

static void ock_check_agrees(void) {
  for (int k = 0; k < n_examples; k++) {
    const struct grammar_example *ex = &examples[k];
    char *log = NULL, *out = NULL;
    size_t log_len = 0, out_len = 0;
    FILE *w = open_memstream(&log, &log_len);
    for (int i = 0; i < ex->n; i++) {
      cJSON *e = event_json(ex, i);
      char *line = cJSON_PrintUnformatted(e);
      fprintf(w, "%s\n", line);
      free(line);
      cJSON_Delete(e);
    }
    fclose(w);
    FILE *in = fmemopen(log, log_len, "r");
    FILE *o = open_memstream(&out, &out_len);
    int code = ock__check_event_log(in, "example", o);
    fclose(in);
    fclose(o);
    long first = -1;
    if (!strncmp(out, "line ", 5))
      first = strtol(out + 5, NULL, 10);
    if (code != (ex->rejected_at < 0 ? 0 : 1) || first != expected_seq(ex))
      ock_test_fail(__LINE__, __FILE__,
                    "%s: ock check exit %d, first violation at line %ld; "
                    "SPEC.md 3.4 wants exit %d at line %ld\n%s",
                    ex->text, code, first, ex->rejected_at < 0 ? 0 : 1, expected_seq(ex), out);
    else
      CU_PASS(ex->text);
    free(log);
    free(out);
  }
}

/* check_text runs ock check on log and returns its exit code; *out (caller frees) the output. */
static int check_text(const char *log, char **out) {
  size_t out_len = 0;
  FILE *in = fmemopen((void *)log, strlen(log), "r");
  FILE *o = open_memstream(out, &out_len);
  int code = ock__check_event_log(in, "amplifier", o);
  fclose(in);
  fclose(o);
  return code;
}

/* clang-format off */
#define AMP_LOG(PRE_A, PRE_B, POST_A, POST_B)                                                     \
  "{\"event\":\"prompt:submit\",\"data\":{\"prompt\":\"w\"}}\n"                                   \
  "{\"event\":\"provider:request\",\"data\":{}}\n"                                                \
  "{\"event\":\"provider:response\",\"data\":{\"content\":\"\",\"tool_calls\":["                   \
  "{\"id\":\"c1\",\"name\":\"get\",\"arguments\":{\"q\":1}},"                                      \
  "{\"id\":\"c2\",\"name\":\"get\",\"arguments\":{\"q\":2}}]}}\n"                                  \
  "{\"event\":\"tool:pre\",\"data\":" PRE_B "}\n"                                                 \
  "{\"event\":\"tool:pre\",\"data\":" PRE_A "}\n"                                                 \
  "{\"event\":\"tool:post\",\"data\":" POST_A "}\n"                                               \
  "{\"event\":\"tool:post\",\"data\":" POST_B "}\n"                                               \
  "{\"event\":\"provider:request\",\"data\":{}}\n"                                                \
  "{\"event\":\"provider:response\",\"data\":{\"content\":\"ok\",\"tool_calls\":[]}}\n"            \
  "{\"event\":\"prompt:complete\",\"data\":{\"response\":\"ok\"}}\n"                               \
  "{\"event\":\"orchestrator:complete\",\"data\":{\"orchestrator\":\"x\",\"turn_count\":2,"        \
  "\"status\":\"success\"}}\n"
#define AMP(q) "{\"tool_name\":\"get\",\"tool_input\":{\"q\":" q "}}"
/* clang-format on */

/* ock check pairs id-less tool events with the calls of provider:response as ock run does
 * (SPEC.md 4.6): Amplifier's payload costs one OCK-TOOL-008 line, not a grammar rejection; events
 * that name no input cannot be told apart between calls with other arguments, and are refused. */
static void ock_check_pairs_tool_events(void) {
  char *out = NULL;
  OCK_ASSERT_INT_EQ(check_text(AMP_LOG(AMP("1"), AMP("2"), AMP("1"), AMP("2")), &out), 1);
  OCK_ASSERT_CONTAINS(out, "OCK-TOOL-008       1");
  OCK_ASSERT_CONTAINS(out, "1 violation(s)");
  free(out);
  out = NULL;
#define BARE "{\"tool_name\":\"get\"}"
  OCK_ASSERT_INT_EQ(check_text(AMP_LOG(AMP("1"), AMP("2"), BARE, BARE), &out), 1);
#undef BARE
  OCK_ASSERT_CONTAINS(out, "OCK-TOOL-007");
  free(out);
}

/* ock_check_without_replies: a plain {event, data} log (no "reply" member) of every example the
 * grammar accepts draws no violation either: a denial is read from what follows it. */
static void ock_check_without_replies(void) {
  for (int k = 0; k < n_examples; k++) {
    const struct grammar_example *ex = &examples[k];
    if (ex->rejected_at >= 0)
      continue;
    char *log = NULL, *out = NULL;
    size_t log_len = 0, out_len = 0;
    FILE *w = open_memstream(&log, &log_len);
    for (int i = 0; i < ex->n; i++) {
      cJSON *e = event_json(ex, i);
      cJSON_DeleteItemFromObjectCaseSensitive(e, "reply");
      char *line = cJSON_PrintUnformatted(e);
      fprintf(w, "%s\n", line);
      free(line);
      cJSON_Delete(e);
    }
    fclose(w);
    FILE *in = fmemopen(log, log_len, "r");
    FILE *o = open_memstream(&out, &out_len);
    int code = ock__check_event_log(in, "example", o);
    fclose(in);
    fclose(o);
    if (code != 0)
      ock_test_fail(__LINE__, __FILE__, "%s, logged without replies: ock check exit %d\n%s",
                    ex->text, code, out);
    else
      CU_PASS(ex->text);
    free(log);
    free(out);
  }
}

static const char *fixture_text =
    "{\"id\":\"t\",\"requirements\":[\"OCK-ORDER-007\"],\"session\":{\"prompts\":[\"hi\"],"
    "\"config\":{},\"providers\":[{\"name\":\"main\",\"api\":\"openai\",\"model\":\"m\"}],"
    "\"tools\":[]},\"script\":{\"main\":[]}}";

static void ock_run_agrees(void) {
  static const char *const caps[] = {"streaming",  "parallel",     "scheduling", "lifecycle",
                                     "resilience", "cancellation", NULL};
  struct ock_fixture *fx = ock_test_fixture(fixture_text);
  for (int k = 0; k < n_examples; k++) {
    const struct grammar_example *ex = &examples[k];
    cJSON *journal = cJSON_CreateArray();
    for (int i = 0; i < ex->n; i++) {
      cJSON *e = event_json(ex, i);
      cJSON_AddNumberToObject(e, "seq", i + 1);
      cJSON_AddNumberToObject(e, "t_ms", i + 1);
      cJSON_AddStringToObject(e, "kind", "event");
      cJSON_AddItemToArray(journal, e);
    }
    struct sut_result proc = {.exit_code = 0};
    struct view v;
    ock__view_build(&v, fx, journal, &proc);
    struct grade_ctx g = {.v = &v,
                          .reg = reg,
                          .declared = caps,
                          .level = OCK_LEVEL_SHOULD,
                          .checks = cJSON_CreateArray()};
    ock__grade_scenario(&g);
    const cJSON *c, *found = NULL;
    cJSON_ArrayForEach(c, g.checks)
      if (!strcmp(ock_json_str(c, "id"), "order.grammar"))
        found = c;
    const char *verdict = found ? ock_json_str(found, "verdict") : "none";
    const cJSON *evidence = found ? cJSON_GetObjectItemCaseSensitive(found, "evidence") : NULL;
    const cJSON *first = cJSON_GetArrayItem(evidence, 0);
    long at = cJSON_IsNumber(first) ? (long)first->valuedouble : -1;
    int want_fail = ex->rejected_at >= 0;
    if (strcmp(verdict, want_fail ? "FAIL" : "PASS") || (want_fail && at != expected_seq(ex)))
      ock_test_fail(__LINE__, __FILE__,
                    "%s: order.grammar is %s (evidence %ld); SPEC.md 3.4 wants %s at %ld", ex->text,
                    verdict, at, want_fail ? "FAIL" : "PASS", expected_seq(ex));
    else
      CU_PASS(ex->text);
    cJSON_Delete(g.checks);
    ock__view_free(&v);
    cJSON_Delete(journal);
  }
  ock_fixture_free(fx);
}

static const struct ock_test tests[] = {
    {"ock_check_without_replies", ock_check_without_replies},
    {"ock_check_agrees", ock_check_agrees},
    {"ock_run_agrees", ock_run_agrees},
    {"ock_check_pairs_tool_events", ock_check_pairs_tool_events},
    {NULL, NULL}};
const struct ock_suite suite_grammar_check = {"grammar_check", tests, setup, teardown};
