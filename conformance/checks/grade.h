/*
 * grade.h: turning one scenario's evidence into verdicts per check.
 *
 * A check looks at the view (view.h) and reports each outcome with ock__grade_emit: which check
 * (a name of checklist.h, whose row says the requirement), passed or not, the journal sequence
 * number that proves it, what was expected and what was seen. grade.c turns that into a verdict:
 * PASS, or for a failure FAIL (MUST) or WARN (SHOULD, MAY; FAIL under --strict); SKIP when the
 * requirement's capability was not declared or its level is not graded. Repeated outcomes of one
 * check in one scenario collapse to the most severe, so a real failure is never masked. A check
 * that finds nothing to look at in a scenario emits nothing: the requirement was not exercised
 * there.
 */
#ifndef OCK_GRADE_H
#define OCK_GRADE_H

#include <cJSON.h>

#include "ock/contract.h"
#include "ock/registry.h"
#include "checks/checklist.h"
#include "model/view.h"

/* The verdicts are enum ock_verdict (ock/contract.h), in order of severity: a PASS outranks a
 * SKIP (SKIP only when nothing applied). */

/* One rejection of the event grammar (ock/grammar.h), kept for the row that owns it. */
struct grade_violation {
  char *requirement; /* the requirement the broken rule belongs to */
  char *message;
  long seq;
  int execute;
};

/* The event grammar's findings in one scenario, read once by ock__grade_scenario. */
struct grade_grammar {
  struct grade_violation *v;
  size_t n, cap;
  int failed; /* out of memory: every grammar row is an ERROR */
};

struct grade_ctx {
  const struct view *v;
  const ock_registry *reg;
  const char *const *declared; /* the SUT's capabilities, NULL-terminated */
  enum ock_level level;        /* the highest level graded (MUST < SHOULD < MAY) */
  int strict;                  /* SHOULD failures FAIL */
  double time_scale;           /* --time-scale: widens the late tolerance of timing checks */
  cJSON *checks;               /* the scenario's checks array (owned by the caller) */
  int blackbox; /* a black-box run: checks the traffic cannot decide are SKIP (blackbox.h) */
  /* Set by ock__grade_scenario: */
  check_run *running;           /* the check running now; a row another check emits is an ERROR */
  struct grade_grammar grammar; /* the event grammar's findings */
};

/* The timing tolerances of SPEC.md 9.4: a measured delay may come this much early (clock and
 * scheduling noise) and GRADE_TIMING_LATE_MS x --time-scale late. */
#define GRADE_TIMING_EARLY_MS 50.0
#define GRADE_TIMING_LATE_MS 500.0

/* ock__grade_late_ms: the late tolerance of timing checks under this run's --time-scale. */
double ock__grade_late_ms(const struct grade_ctx *g);

/* ock__grade_declared: the SUT declared capability cap. */
int ock__grade_declared(const struct grade_ctx *g, const char *cap);

/* ock__grade_applies: 1 when the capability of check's requirement (its row in checks.def) is
 * declared and its level graded; otherwise it records a SKIP for check (once) and returns 0.
 * ock__grade_applies_to charges check to requirement req (an id of the registry) instead: the
 * expect.* checks, whose requirement the scenario's expectation decides. A req that differs from
 * a requirement the row names is an ERROR, as is a row without one graded without _to. */
int ock__grade_applies(struct grade_ctx *g, enum check_name check);
int ock__grade_applies_to(struct grade_ctx *g, enum check_name check, const char *req);

/* ock__grade_emit records one outcome of check, under its row's requirement. seq: the journal
 * entry that proves it (-1 if none). actual_fmt describes what was seen (printf).
 * ock__grade_emit_to records it under requirement req, as ock__grade_applies_to. */
void ock__grade_emit(struct grade_ctx *g, enum check_name check, int ok, long seq,
                     const char *expected, const char *actual_fmt, ...)
    __attribute__((format(printf, 6, 7)));
void ock__grade_emit_to(struct grade_ctx *g, enum check_name check, const char *req, int ok,
                        long seq, const char *expected, const char *actual_fmt, ...)
    __attribute__((format(printf, 7, 8)));

/* ock__grade_error records that a check could not be run (harness or mock failure): ERROR,
 * under its row's requirement; ock__grade_error_to under requirement req (any id, as found). */
void ock__grade_error(struct grade_ctx *g, enum check_name check, const char *why);
void ock__grade_error_to(struct grade_ctx *g, enum check_name check, const char *req,
                         const char *why);

/* ock__grade_scenario runs every check on the view, each in turn (ock__grade_runs). */
void ock__grade_scenario(struct grade_ctx *g);

/* ock__grade_runs: the checks ock__grade_scenario runs, in order, NULL-terminated. Each row of
 * checks.def names one of them as its run. */
check_run *const *ock__grade_runs(void);

/* The event grammar (grammar_rows.c). ock__grammar_read runs it over the view's events into
 * g->grammar (ock__grammar_free frees that). ock__grade_grammar grades one of the rows it can
 * fail: a FAIL per rejection charged to the row's requirement (every rejection for
 * order.grammar), else, when pass_when_clean and the scenario has an execute, a PASS. Each row's
 * own check calls it. ock__grade_grammar_uncharged reports rejections no row names (ERROR). */
void ock__grammar_read(struct grade_ctx *g);
void ock__grammar_free(struct grade_ctx *g);
void ock__grade_grammar(struct grade_ctx *g, enum check_name check, int pass_when_clean);
void ock__grade_grammar_uncharged(struct grade_ctx *g);

/* The checks, one function per requirement group (check_<group>.c): the runs of checks.def. */
void ock__check_complete(struct grade_ctx *g);
void ock__check_order(struct grade_ctx *g);
void ock__check_orphan(struct grade_ctx *g);
void ock__check_tool(struct grade_ctx *g);
void ock__check_hook(struct grade_ctx *g);
void ock__check_iter(struct grade_ctx *g);
void ock__check_stream(struct grade_ctx *g);
void ock__check_parallel(struct grade_ctx *g);
void ock__check_lifecycle(struct grade_ctx *g);
void ock__check_error(struct grade_ctx *g);
void ock__check_cancel(struct grade_ctx *g);
void ock__check_valid(struct grade_ctx *g);
void ock__check_proc(struct grade_ctx *g);
void ock__check_expect(struct grade_ctx *g);
void ock__check_capability(struct grade_ctx *g);

struct call_fate;
/* ock__text_of_result grades the tool result text of call f, as the first LLM request after its
 * reply carries it, against want: equal, or when prefix_only, starting with it (check_text.c,
 * a TEXT requirement of SPEC.md 2.15). Emits nothing when no such request carries a result for
 * the call: whether one is owed is the MUST checks' to judge. */
void ock__text_of_result(struct grade_ctx *g, enum check_name check, const struct call_fate *f,
                         const char *want, int prefix_only);

#endif
