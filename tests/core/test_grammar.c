/*
 * test_grammar.c: the event automaton of SPEC.md 3.3 (core/grammar.c): every example of SPEC.md
 * 3.4 gets the verdict the contract shows, and each broken sequence is charged to the
 * requirement whose rule it breaks.
 */
#include "runner.h"

#include <stdlib.h>

#include "grammar_examples.h"
#include "ock/grammar.h"

static void spec_examples(void) {
  static struct grammar_example ex[96];
  char err[300];
  int n = grammar_read_spec_examples(ex, 96, err, sizeof err);
  if (n < 0) {
    ock_test_fail(__LINE__, __FILE__, "%s", err);
    return;
  }
  int accepted = 0, rejected = 0;
  for (int i = 0; i < n; i++) {
    int got = grammar_feed(&ex[i]);
    if (got != ex[i].rejected_at)
      ock_test_fail(__LINE__, __FILE__, "%s: the automaton %s%d, SPEC.md 3.4 says %s%d", ex[i].text,
                    got < 0 ? "accepts " : "rejects at symbol ", got,
                    ex[i].rejected_at < 0 ? "accepted " : "rejected at symbol ", ex[i].rejected_at);
    else
      CU_PASS(ex[i].text);
    accepted += ex[i].rejected_at < 0;
    rejected += ex[i].rejected_at >= 0;
  }
  /* the examples are read from docs/grammar.md: an emptied section must not pass */
  OCK_ASSERT_INT_GE(accepted, 10);
  OCK_ASSERT_INT_GE(rejected, 15);
}

struct seen {
  char reqs[32][24];
  long seqs[32];
  int n;
};

static void on_violation(void *user, const struct ock_grammar_violation *v) {
  struct seen *s = user;
  if (s->n < 32) {
    snprintf(s->reqs[s->n], sizeof s->reqs[0], "%s", v->requirement);
    s->seqs[s->n++] = v->seq;
  }
}

/* feed runs an example (SPEC.md 3.4 notation) through a fresh automaton, numbering events 1.. */
static struct seen feed(const char *events, int *executes) {
  struct seen s = {0};
  struct grammar_example ex;
  char err[300];
  if (grammar_example_parse(events, &ex, err, sizeof err)) {
    ock_test_fail(__LINE__, __FILE__, "%s", err);
    return s;
  }
  ock_grammar *g = NULL;
  if (ock_grammar_new(on_violation, &s, &g))
    return s;
  for (int i = 0; i < ex.n; i++)
    ock_grammar_symbol(g, i + 1, ex.sym[i].ev, ex.sym[i].name, ex.sym[i].denied,
                       ex.sym[i].id[0] ? ex.sym[i].id : NULL);
  ock_grammar_end(g, ex.n + 1);
  if (executes)
    *executes = ock_grammar_executes(g);
  ock_grammar_free(g);
  return s;
}

/* expect_charged: the first violation is req at seq. */
static void expect_charged(const char *events, const char *req, long seq) {
  struct seen s = feed(events, NULL);
  if (!s.n || strcmp(s.reqs[0], req) || s.seqs[0] != seq)
    ock_test_fail(__LINE__, __FILE__, "%s: expected %s at %ld first, got %s at %ld", events, req,
                  seq, s.n ? s.reqs[0] : "nothing", s.n ? s.seqs[0] : -1L);
  else
    CU_PASS(events);
}

static void charges_the_rule_broken(void) {
  expect_charged("provider:request", "OCK-ORDER-001", 1);
  expect_charged("custom:x prompt:submit orchestrator:complete", "OCK-ORDER-001", 1);
  expect_charged("prompt:submit provider:request provider:response", "OCK-COMPLETE-001", 4);
  expect_charged("prompt:submit provider:request prompt:submit orchestrator:complete",
                 "OCK-COMPLETE-001", 3);
  expect_charged("prompt:submit orchestrator:complete orchestrator:complete", "OCK-COMPLETE-001",
                 3);
  expect_charged("prompt:submit orchestrator:complete custom:x", "OCK-COMPLETE-002", 3);
  expect_charged("prompt:submit provider:request provider:request", "OCK-ORDER-002", 3);
  expect_charged("prompt:submit provider:stream", "OCK-ORDER-002", 2);
  expect_charged("prompt:submit provider:request pre(a)", "OCK-ORDER-002", 3);
  expect_charged("prompt:submit provider:request orchestrator:complete", "OCK-ORDER-002", 3);
  expect_charged("prompt:submit provider:request provider:response post(a)", "OCK-ORDER-003", 4);
  expect_charged("prompt:submit provider:request provider:response pre(a) post(a) post(a)",
                 "OCK-ORDER-003", 6);
  expect_charged("prompt:submit provider:request provider:response pre(a) pre(a)", "OCK-ORDER-003",
                 5);
  expect_charged("prompt:submit provider:request provider:response pre(a) orchestrator:complete",
                 "OCK-ORDER-003", 5);
  expect_charged("prompt:submit provider:request provider:response pre(a) provider:request",
                 "OCK-ORDER-003", 5);
  expect_charged("prompt:submit provider:request provider:response prompt:complete "
                 "prompt:complete",
                 "OCK-ORDER-004", 5);
  expect_charged("prompt:submit provider:request provider:error prompt:complete", "OCK-ORDER-004",
                 4);
  expect_charged("prompt:submit provider:request cancel:requested provider:error "
                 "cancel:completed prompt:complete",
                 "OCK-ORDER-004", 6);
  expect_charged("prompt:submit provider:request provider:response prompt:complete "
                 "provider:request",
                 "OCK-ORDER-004", 5);
  expect_charged("prompt:submit provider:request provider:error provider:request", "OCK-ORDER-007",
                 4);
  expect_charged("prompt:submit provider:retry", "OCK-ORDER-007", 2);
  expect_charged("prompt:submit pre(a)", "OCK-ORDER-007", 2);
  expect_charged("prompt:submit/deny provider:request", "OCK-ORDER-007", 2);
  expect_charged("prompt:submit provider:request provider:response prompt:complete "
                 "cancel:requested",
                 "OCK-ORDER-007", 5);
  expect_charged("prompt:submit cancel:completed", "OCK-CANCEL-002", 2);
  expect_charged("prompt:submit cancel:requested cancel:requested", "OCK-CANCEL-002", 3);
  expect_charged("prompt:submit cancel:requested orchestrator:complete", "OCK-CANCEL-002", 3);
  expect_charged("prompt:submit provider:request provider:response pre(a) selected(a)",
                 "OCK-HOOK-010", 5);
  expect_charged("prompt:submit provider:request provider:response execution:start",
                 "OCK-LIFECYCLE-001", 4);
  expect_charged("prompt:submit execution:end execution:end", "OCK-LIFECYCLE-001", 3);
}

/* A tool event without a string tool_call_id is rejected before anything else (SPEC.md 3.1). */
static void tool_event_needs_an_id(void) {
  struct seen s = {0};
  ock_grammar *g = NULL;
  ock_grammar_new(on_violation, &s, &g);
  ock_grammar_event(g, 1, "prompt:submit", NULL, NULL);
  ock_grammar_event(g, 2, "provider:request", NULL, NULL);
  ock_grammar_event(g, 3, "provider:response", NULL, NULL);
  cJSON *data = cJSON_Parse("{\"tool_call_id\": 7}");
  ock_grammar_event(g, 4, "tool:pre", data, NULL);
  cJSON_Delete(data);
  ock_grammar_free(g);
  OCK_ASSERT_INT_EQ(s.n, 1);
  OCK_ASSERT_STR_EQ(s.reqs[0], "OCK-TOOL-007");
  OCK_ASSERT_INT_EQ(s.seqs[0], 4);
}

/* ask_user is a deny (SPEC.md 3.1); a deny reply on other events changes nothing. */
static void deny_and_ask_user(void) {
  struct seen s = {0};
  ock_grammar *g = NULL;
  ock_grammar_new(on_violation, &s, &g);
  ock_grammar_event(g, 1, "prompt:submit", NULL, "ask_user");
  ock_grammar_event(g, 2, "prompt:complete", NULL, "deny");
  ock_grammar_event(g, 3, "orchestrator:complete", NULL, "deny");
  ock_grammar_event(g, 4, "prompt:submit", NULL, "continue");
  ock_grammar_event(g, 5, "prompt:complete", NULL, NULL);
  ock_grammar_end(g, 6);
  ock_grammar_free(g);
  OCK_ASSERT_INT_EQ(s.n, 1);
  OCK_ASSERT_STR_EQ(s.reqs[0], "OCK-ORDER-004");
  OCK_ASSERT_INT_EQ(s.seqs[0], 5);
}

/* After a rejection the execute is skipped to its end, and the next one is graded afresh. */
static void recovers_at_the_next_execute(void) {
  int executes = 0;
  struct seen s = feed("prompt:submit provider:stream provider:stream orchestrator:complete "
                       "prompt:submit provider:request provider:response prompt:complete "
                       "orchestrator:complete prompt:submit provider:retry orchestrator:complete",
                       &executes);
  OCK_ASSERT_INT_EQ(executes, 3);
  OCK_ASSERT_INT_EQ(s.n, 2);
  OCK_ASSERT_INT_EQ(s.seqs[0], 2);
  OCK_ASSERT_INT_EQ(s.seqs[1], 11);
}

static void event_names_are_typed(void) {
  OCK_ASSERT_INT_EQ(ock_event_parse("tool:pre"), OCK_EVENT_TOOL_PRE);
  OCK_ASSERT_STR_EQ(ock_event_name(OCK_EVENT_ORCHESTRATOR_COMPLETE), "orchestrator:complete");
  OCK_ASSERT_INT_EQ(ock_event_parse("orchestrator:completed"), OCK_EVENT_CUSTOM);
  OCK_ASSERT_INT_EQ(ock_event_parse(NULL), OCK_EVENT_CUSTOM);
  OCK_ASSERT_INT_EQ(OCK_EVENT_KNOWN, 18);
  for (int i = 0; i < OCK_EVENT_KNOWN; i++)
    OCK_ASSERT_INT_EQ(ock_event_parse(ock_event_name((enum ock_event)i)), i);
}

static const struct ock_test tests[] = {
    {"spec_examples", spec_examples},
    {"charges_the_rule_broken", charges_the_rule_broken},
    {"tool_event_needs_an_id", tool_event_needs_an_id},
    {"deny_and_ask_user", deny_and_ask_user},
    {"recovers_at_the_next_execute", recovers_at_the_next_execute},
    {"event_names_are_typed", event_names_are_typed},
    {NULL, NULL}};
const struct ock_suite suite_grammar = {"grammar", tests, NULL, NULL};
