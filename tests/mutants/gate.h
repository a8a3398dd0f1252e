/*
 * gate.h: the mutant gate's machinery, for test_gate.c.
 *
 * The gate proves that every conformance check can fail. For each mutation of the table
 * (mutants/mutations.c) it runs
 *
 *   ock run --orchestrator "ock-mutant NAME -- ock-orchestrator" --capabilities <all seven>
 *           --case <its scenarios> --strict -o <tmp>/NAME --jobs 2 --format jsonl
 *
 * and reads <tmp>/NAME/report.json: the mutation is caught when its requirement's verdict is
 * FAIL and a check of a scenario names it. It is proven when, in one of those scenarios, the
 * reference orchestrator alone (one run over every scenario the mutations use) does not fail
 * that requirement: then the failure is the lie's doing. The catalog of scenarios comes from
 * `ock list scenarios --format json`.
 *
 * The same runs prove each check id of the check table (conformance/checks/checks.def): a check id
 * is proven when some mutation's report has it FAIL in a scenario where the reference's report does
 * not fail it (the target requirement's checks and the collateral ones alike).
 */
#ifndef OCK_TESTS_MUTANTS_GATE_H
#define OCK_TESTS_MUTANTS_GATE_H

#include <stddef.h>

#include <cJSON.h>

#include "mutant.h"
#include "ock/registry.h"

#define GATE_MAX_CASES 256

struct gate_mutant {
  const struct mutation *m;
  const char *cases[GATE_MAX_CASES]; /* scenario ids, borrowed from the catalog or owned */
  cJSON *owned;                      /* the "<id>@<wire>" strings of cases, or NULL */
  int n_cases;
  int exit_code;         /* of its ock run; -1 when it did not run */
  char verdict[16];      /* the requirement's verdict in its report, "" when absent */
  char failed_in[512];   /* the scenarios whose checks FAIL the requirement */
  char evidence[512];    /* the first such check: "<check id>: <actual>" */
  char collateral[1024]; /* other requirements its report fails */
  int caught;            /* verdict FAIL, named by a check */
  int proven;            /* caught in a scenario where the reference passes the requirement */
  char proven_also[512]; /* the requirements of m->proves_too proven alike, ", "-separated */
  cJSON *fails; /* {check id: [scenario, ...]}: the grading check ids it makes FAIL where the
                   reference does not fail them, and where */
  double seconds;
};

/* One check id of the checklist and the first mutation that proves it can FAIL. */
struct gate_check {
  const char *id;       /* borrowed from the checklist */
  int harness;          /* reports only harness failures (ERROR): nothing to prove */
  char by[64];          /* the mutation that proves it (the first in table order), "" when none */
  size_t by_at;         /* that mutation's place in the table, plus one; 0 when none */
  char scenario[128];   /* where */
  char alone[64];       /* the first mutation (table order) that alone catches it, "" when none */
  char strictly[64];    /* the first that catches it with nothing else failing, "" when none */
  const char *restates; /* an expectation caught alone by restatement: the specific check
                           its mutation catches alone, whose finding it restates; else NULL */
  char shared[256];     /* when none does: the mutations that make it FAIL, space-separated */
  int n_shared;         /* how many those are (shared may list only the first ones) */
};

struct gate {
  char ock[1024], mutant[1024], reference[1024], fixtures[1024]; /* absolute paths */
  char tmp[256];                                                 /* the run's scratch directory */
  int reused;  /* tmp is a kept run's directory (gate_reuse): graded again, never removed */
  int partial; /* only a part of the table runs (only, share): it proves only a part */
  ock_registry *reg;
  cJSON *catalog; /* {"scenarios": [{id, requirements, ...}]} */
  struct gate_mutant *mut;
  size_t n;
  cJSON *reference_report; /* the reference's report.json, or NULL */
  int reference_exit;
  double reference_seconds;
  cJSON *transparent_report; /* the same scenarios through "ock-mutant none", or NULL */
  int transparent_exit;
  struct gate_check *checks; /* one per row of the checklist */
  size_t n_checks;
  cJSON *proofs; /* {scenario: {check id: the first mutation (table order) proving it there}} */
};

/* gate_prepare finds the programs under root/build, loads the registry and the catalog, and
 * expands every mutation's scenarios. only: comma-separated mutation names, or NULL for all.
 * share: "K/N" keeps, of those, the mutations at table places K-1, K-1+N, K-1+2N, ... (one N-th
 * of the table), or NULL for all. Either makes the run partial. Returns 0, or -1 with err saying
 * what is missing or malformed. */
int gate_prepare(struct gate *g, const char *root, const char *build, const char *only,
                 const char *share, char *err, size_t n);

/* gate_reuse makes the gate grade the reports of a run kept in dir (OCK_GATE_KEEP) instead of
 * running anything: the same verdicts, read again (for work on the grading itself). Returns 0,
 * or -1 with err when dir holds no reference report. */
int gate_reuse(struct gate *g, const char *dir, char *err, size_t n);

/* gate_scenarios_of: how many catalog scenarios name requirement id. */
int gate_scenarios_of(const struct gate *g, const char *id);

/* gate_scenarios_known: the catalog holds a scenario with that id. */
int gate_scenarios_known(const struct gate *g, const char *id);

/* gate_run_reference runs the reference alone over the union of the mutations' scenarios, and
 * at the same time the reference behind the proxy that tells no lie ("ock-mutant none"). */
void gate_run_reference(struct gate *g);

/* gate_proxy_differences writes "scenario: reference VERDICT, through the proxy VERDICT" for
 * every scenario the reference passes and the lie-free proxy does not; returns how many. */
int gate_proxy_differences(const struct gate *g, char *out, size_t n);

/* gate_run_mutants runs every mutation, jobs at a time, and grades each. */
void gate_run_mutants(struct gate *g, int jobs);

/* gate_reference_failures writes "scenario: requirement, ..." for every FAIL or ERROR of the
 * reference's report into out; returns how many scenarios failed. */
int gate_reference_failures(const struct gate *g, char *out, size_t n);

/* gate_measure_alone fills each check's alone, strictly and shared (after gate_run_mutants).
 * Over all the scenarios a mutation runs, take the grading check ids it makes FAIL in a scenario
 * where the reference does not fail them. The mutation catches check id X strictly alone when
 * those are exactly {X}; it catches X alone when each other one fails only in scenarios where X
 * fails too and is there a consequence of X by the first-cause rules (report/causes.h: a
 * scenario's expectations restating what X found, or a check that reads what X took away):
 * then X is the one first cause the lie leaves. An expectation that can never fail without a
 * specific check seeing the same (the restatements of gate.c: expect.exit-code and proc.exit,
 * which both want exit 0) is caught alone by restatement when a mutation catches alone a check
 * it restates and makes it FAIL too. Returns how many grading check ids one catches alone, by
 * restatement included; *strict (when not NULL) how many strictly. */
size_t gate_measure_alone(struct gate *g, size_t *strict);

/* gate_alone_set writes the check ids gm makes FAIL where the reference does not,
 * space-separated in checklist order, into out; returns how many. */
int gate_alone_set(const struct gate *g, const struct gate_mutant *gm, char *out, size_t n);

/* gate_checks_unproven writes the ids of the checklist that no mutation proves, space-separated,
 * into out; returns how many (harness rows excepted). */
int gate_checks_unproven(const struct gate *g, char *out, size_t n);

/* gate_proven_in: the mutation that made check id FAIL in scenario sid where the reference
 * passes it, or NULL when none did. Borrowed from g. */
const char *gate_proven_in(const struct gate *g, const char *sid, const char *id);

/* gate_lists: id is a word of list (words separated by spaces or ", "); list may be NULL. */
int gate_lists(const char *list, const char *id);

/* gate_free removes the scratch directory unless keep, and frees everything. */
void gate_free(struct gate *g, int keep);

#endif
