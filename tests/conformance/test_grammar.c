/* test_grammar.c: the event automaton accepts the contract's sequences and names the
 * requirement each broken one violates. */
#include "runner.h"

#include <stdlib.h>

#include "grammar.h"

struct seen {
  char reqs[32][24];
  long seqs[32];
  int n;
  int executes;
};

static void on_violation(void *user, const struct ock_violation *v) {
  struct seen *s = user;
  if (s->n < 32) {
    snprintf(s->reqs[s->n], sizeof s->reqs[0], "%s", v->requirement);
    s->seqs[s->n++] = v->seq;
  }
}

static void on_execute(void *user, const struct ock_execute_summary *x) {
  ((struct seen *)user)->executes = x->index;
}

/* feed runs a whitespace-separated list of events ("name" or "name@id" for tool events,
 * "name!" for a denied one) through a fresh automaton. */
static struct seen feed(const char *events) {
  struct seen s = {0};
  ock_grammar *g = NULL;
  ock_grammar_new(on_violation, on_execute, &s, &g);
  char *copy = strdup(events);
  long seq = 0;
  for (char *tok = strtok(copy, " "); tok; tok = strtok(NULL, " ")) {
    char *at = strchr(tok, '@');
    int denied = tok[strlen(tok) - 1] == '!';
    if (denied)
      tok[strlen(tok) - 1] = '\0';
    cJSON *data = cJSON_CreateObject();
    if (at) {
      *at = '\0';
      cJSON_AddStringToObject(data, "tool_call_id", at + 1);
    }
    ock_grammar_event(g, ++seq, tok, data, denied);
    cJSON_Delete(data);
  }
  ock_grammar_end(g, seq);
  ock_grammar_free(g);
  free(copy);
  return s;
}

static void expect_clean(const char *events) {
  struct seen s = feed(events);
  if (s.n)
    ock_test_fail(__LINE__, __FILE__, "%s: unexpected %s at event %ld", events, s.reqs[0],
                  s.seqs[0]);
  else
    CU_PASS(events);
}

static void expect_violation(const char *events, const char *req, long seq) {
  struct seen s = feed(events);
  int found = 0;
  for (int i = 0; i < s.n; i++)
    found |= !strcmp(s.reqs[i], req) && (seq < 0 || s.seqs[i] == seq);
  if (!found)
    ock_test_fail(__LINE__, __FILE__, "%s: expected %s at %ld, got %d violation(s)%s%s", events,
                  req, seq, s.n, s.n ? ", first " : "", s.n ? s.reqs[0] : "");
  else
    CU_PASS(events);
}

static void accepts_the_contract(void) {
  expect_clean("prompt:submit provider:request provider:response prompt:complete "
               "orchestrator:complete");
  expect_clean("prompt:submit execution:start provider:resolve provider:request provider:stream "
               "provider:stream provider:response tool:pre@a tool:pre@b tool:post@b tool:error@a "
               "provider:request provider:response prompt:complete execution:end "
               "orchestrator:complete");
  expect_clean("prompt:submit provider:request provider:error provider:retry provider:request "
               "provider:response prompt:complete orchestrator:complete");
  expect_clean("prompt:submit provider:request provider:response tool:selecting@a "
               "tool:selected@a tool:pre@a tool:post@a tool:selecting@b tool:error@b "
               "provider:request provider:response prompt:complete orchestrator:complete");
  expect_clean("prompt:submit provider:request! prompt:complete orchestrator:complete "
               "prompt:submit custom:thing orchestrator:complete");
  expect_clean("prompt:submit provider:request provider:response tool:pre@a cancel:requested "
               "tool:error@a cancel:completed orchestrator:complete");
  expect_clean("prompt:submit provider:request provider:response tool:selecting@a "
               "tool:selected@a cancel:requested tool:error@a cancel:completed "
               "orchestrator:complete");
}

static void names_what_breaks(void) {
  expect_violation("provider:request", "OCK-ORDER-001", 1);
  expect_violation("prompt:submit provider:request provider:response", "OCK-COMPLETE-001", -1);
  expect_violation("prompt:submit orchestrator:complete orchestrator:complete", "OCK-COMPLETE-001",
                   3);
  expect_violation("prompt:submit orchestrator:complete tool:pre@a", "OCK-COMPLETE-002", 3);
  expect_violation("prompt:submit provider:request provider:request", "OCK-ORDER-002", 3);
  expect_violation("prompt:submit provider:stream", "OCK-ORDER-002", 2);
  expect_violation("prompt:submit provider:request tool:pre@a", "OCK-ORDER-002", 3);
  expect_violation("prompt:submit tool:post@a orchestrator:complete", "OCK-ORDER-003", 2);
  expect_violation("prompt:submit tool:pre@a tool:post@a tool:post@a orchestrator:complete",
                   "OCK-ORDER-003", 4);
  expect_violation("prompt:submit tool:pre@a provider:request", "OCK-ORDER-003", 3);
  expect_violation("prompt:submit tool:pre@a orchestrator:complete", "OCK-ORDER-003", 3);
  expect_violation("prompt:submit prompt:complete prompt:complete orchestrator:complete",
                   "OCK-ORDER-004", 3);
  expect_violation("prompt:submit prompt:complete provider:request", "OCK-ORDER-004", 3);
  expect_violation("prompt:submit provider:retry", "OCK-ORDER-007", 2);
  expect_violation("prompt:submit cancel:completed orchestrator:complete", "OCK-CANCEL-002", 2);
  expect_violation("prompt:submit cancel:requested orchestrator:complete", "OCK-CANCEL-002", 3);
  expect_violation("prompt:submit tool:selecting@a tool:pre@a", "OCK-HOOK-010", 3);
  expect_violation("prompt:submit tool:selecting@a tool:selected@a tool:post@a", "OCK-ORDER-003",
                   4);
  expect_violation("prompt:submit provider:request provider:response execution:start",
                   "OCK-LIFECYCLE-001", 4);
  expect_violation("prompt:submit tool:pre orchestrator:complete", "OCK-TOOL-007", 2);
}

static void counts_executes(void) {
  struct seen s = feed("prompt:submit orchestrator:complete prompt:submit orchestrator:complete "
                       "prompt:submit orchestrator:complete");
  OCK_ASSERT_INT_EQ(s.executes, 3);
  OCK_ASSERT_INT_EQ(s.n, 0);
}

static const struct ock_test tests[] = {{"accepts_the_contract", accepts_the_contract},
                                        {"names_what_breaks", names_what_breaks},
                                        {"counts_executes", counts_executes},
                                        {NULL, NULL}};
const struct ock_suite suite_grammar = {"grammar", tests, NULL, NULL};
