/*
 * grammar_rows.c: the event grammar (core's ock/grammar.h) run once over a scenario's events,
 * and its findings graded by the check that owns each row (see grade.h): ORDER's rows by
 * check_order.c, the others by their own group's check, so that every row of checks.def is
 * graded by the one function its "run" column names.
 */
#include <stdlib.h>
#include <string.h>

#include "checks/grade.h"
#include "ock/contract.h"
#include "ock/grammar.h"

/* The rows the grammar can fail, each charged to its row's requirement, with what was expected. */
static const struct {
  enum check_name check;
  const char *expected;
} rows[] = {
    {CK_ORDER_SUBMIT_FIRST, "prompt:submit first in each execute"},
    {CK_ORDER_REQUEST_CLOSED,
     "each provider:request closed by one provider:response or provider:error"},
    {CK_ORDER_TOOL_PAIRING, "tool:pre then exactly one tool:post or tool:error per tool_call_id"},
    {CK_ORDER_PROMPT_COMPLETE, "prompt:complete once, after all provider and tool events"},
    {CK_ORDER_GRAMMAR, "the event sequence follows SPEC.md's grammar"},
    {CK_COMPLETE_ONCE, "exactly one orchestrator:complete per execute"},
    {CK_COMPLETE_LAST, "nothing after orchestrator:complete"},
    {CK_LIFECYCLE_EXECUTION_EVENTS, "execution:start/end placed as SPEC.md says"},
    {CK_CANCEL_EVENTS, "cancel:requested then cancel:completed, once each"},
    {CK_HOOK_SELECTING_ORDER, "tool:selecting, tool:selected, tool:pre per call"},
    {CK_TOOL_EVENT_FIELDS, "tool events carry tool_call_id and tool_name"},
};
#define N_ROWS (sizeof rows / sizeof rows[0])

static const char *requirement_of(enum check_name check) {
  return ock__check_row(check)->requirement;
}

static void on_violation(void *user, const struct ock_grammar_violation *viol) {
  struct grade_grammar *gr = user;
  if (gr->failed)
    return;
  if (gr->n == gr->cap) {
    size_t cap = gr->cap ? gr->cap * 2 : 8;
    struct grade_violation *p = realloc(gr->v, cap * sizeof *p);
    if (!p) {
      gr->failed = 1;
      return;
    }
    gr->v = p;
    gr->cap = cap;
  }
  struct grade_violation *v = &gr->v[gr->n];
  v->requirement = strdup(viol->requirement);
  v->message = strdup(viol->message);
  v->seq = viol->seq;
  v->execute = viol->execute;
  if (!v->requirement || !v->message) {
    free(v->requirement);
    free(v->message);
    gr->failed = 1;
    return;
  }
  gr->n++;
}

void ock__grammar_read(struct grade_ctx *g) {
  const struct view *v = g->v;
  struct grade_grammar *gr = &g->grammar;
  ock_grammar *a = NULL;
  memset(gr, 0, sizeof *gr);
  if (ock_grammar_new(on_violation, gr, &a)) {
    gr->failed = 1;
    return;
  }
  long last = 0;
  for (size_t i = 0; i < v->n; i++) {
    if (!ock__is_kind(v->e[i], OCK_ENTRY_EVENT))
      continue;
    last = ock__entry_seq(v->e[i]);
    ock_grammar_event(a, last, ock__event_name(v->e[i]), ock__event_data(v->e[i]),
                      ock__event_action(v->e[i]));
  }
  ock_grammar_end(a, last);
  ock_grammar_free(a);
}

void ock__grammar_free(struct grade_ctx *g) {
  for (size_t i = 0; i < g->grammar.n; i++) {
    free(g->grammar.v[i].requirement);
    free(g->grammar.v[i].message);
  }
  free(g->grammar.v);
  memset(&g->grammar, 0, sizeof g->grammar);
}

void ock__grade_grammar(struct grade_ctx *g, enum check_name check, int pass_when_clean) {
  const char *expected = NULL;
  for (size_t i = 0; i < N_ROWS && !expected; i++)
    if (rows[i].check == check)
      expected = rows[i].expected;
  if (!expected) {
    ock__grade_error(g, check, "not a row the event grammar grades");
    return;
  }
  if (g->grammar.failed) {
    ock__grade_error(g, check, "out of memory while running the event grammar");
    return;
  }
  /* Every rejection fails OCK-ORDER-007, the grammar as a whole (its evidence is the rejected
   * entry), and also the requirement whose own sentence names the broken rule. */
  int violated = 0;
  for (size_t i = 0; i < g->grammar.n; i++) {
    const struct grade_violation *v = &g->grammar.v[i];
    if (check != CK_ORDER_GRAMMAR && strcmp(v->requirement, requirement_of(check)))
      continue;
    violated = 1;
    ock__grade_emit(g, check, 0, v->seq, expected, "execute %d: %s", v->execute, v->message);
  }
  if (!violated && pass_when_clean && g->v->nx)
    ock__grade_emit(g, check, 1, -1, expected, "as expected");
}

void ock__grade_grammar_uncharged(struct grade_ctx *g) {
  for (size_t i = 0; i < g->grammar.n; i++) {
    const struct grade_violation *v = &g->grammar.v[i];
    int charged = 0;
    for (size_t k = 0; k < N_ROWS && !charged; k++)
      charged = !strcmp(v->requirement, requirement_of(rows[k].check));
    if (!charged)
      ock__grade_error_to(g, CK_ORDER_GRAMMAR, v->requirement, v->message);
  }
}
