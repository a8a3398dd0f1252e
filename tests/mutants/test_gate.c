/*
 * test_gate.c: the mutant gate: every conformance check can fail.
 *
 * For every requirement of the registry there is a mutation (mutants/mutations.c) that must
 * make it FAIL on the scenarios that exercise it, while the reference orchestrator alone passes
 * them. The gate runs all of them (OCK_GATE_JOBS at a time, default 2) and prints one line per
 * mutation, then the requirements nobody catches, then one line per check id of the table
 * (conformance/checks/checks.def) with the mutation that proves it can FAIL, then whether each
 * row's own mutation (the last field of its row) makes it FAIL.
 * OCK_GATE_ONLY=name,name runs only those mutations (and does not require every check id proven);
 * OCK_GATE_SHARE=K/N runs one N-th of the table, the K-th (partial alike: make test sets it in a
 * gcov or sanitizer build, where the plain build's run has already proven the whole table);
 * OCK_GATE_KEEP=1 keeps the scratch directory with every report.
 */
#include "runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/checklist.h"
#include "gate.h"
#include "ock/json.h"
#include "proves.h"

#ifndef OCK_BUILD_DIR
#define OCK_BUILD_DIR "build"
#endif

static struct gate g;
static int prepared, ran;
static char prepare_error[1024];

static int env_int(const char *name, int dflt) {
  const char *v = getenv(name);
  char *end;
  long n = v ? strtol(v, &end, 10) : 0;
  return v && *v && !*end && n > 0 && n < 64 ? (int)n : dflt;
}

static int gate_init(void) {
  const char *root = getenv("OCK_ROOT");
  if (gate_prepare(&g, root && *root ? root : ".", OCK_BUILD_DIR, getenv("OCK_GATE_ONLY"),
                   getenv("OCK_GATE_SHARE"), prepare_error, sizeof prepare_error) == 0)
    prepared = 1;
  const char *reuse = getenv("OCK_GATE_REUSE");
  if (prepared && reuse && *reuse && gate_reuse(&g, reuse, prepare_error, sizeof prepare_error)) {
    gate_free(&g, 0);
    prepared = 0;
  }
  return 0;
}

static int gate_cleanup(void) {
  if (prepared) {
    int keep = env_int("OCK_GATE_KEEP", 0);
    if (keep)
      printf("\ngate: reports kept in %s\n", g.tmp);
    gate_free(&g, keep);
  }
  prepared = ran = 0;
  return 0;
}

/* run_all runs the reference and the mutations once, for the tests below. */
static int run_all(void) {
  if (!prepared) {
    ock_test_fail(__LINE__, __FILE__, "the gate cannot run: %s", prepare_error);
    return 0;
  }
  if (ran)
    return 1;
  ran = 1;
  gate_run_reference(&g);
  gate_run_mutants(&g, env_int("OCK_GATE_JOBS", 2));
  printf("\n\ngate: the reference alone: exit %d in %.1f s; through the proxy without a lie: exit "
         "%d\n",
         g.reference_exit, g.reference_seconds, g.transparent_exit);
  for (size_t i = 0; i < g.n; i++) {
    const struct gate_mutant *m = &g.mut[i];
    const char *what = !m->n_cases ? "NO-SCENARIO"
                       : m->proven ? "CAUGHT"
                       : m->caught ? "UNPROVEN"
                                   : "MISSED";
    printf("  %-11s %-34s %-17s %2d scenario(s) %5.1f s", what, m->m->name, m->m->requirement,
           m->n_cases, m->seconds);
    if (m->proven && *m->proven_also)
      printf("  proves too: %.300s", m->proven_also);
    if (m->proven && *m->collateral)
      printf("  also: %.200s", m->collateral);
    if (!m->proven && m->n_cases)
      printf("  verdict %s%s%.300s", *m->verdict ? m->verdict : "(none)", *m->evidence ? "; " : "",
             m->evidence);
    printf("\n");
  }
  return 1;
}

/* Every requirement of the registry has a mutation, and every mutation names one. */
static void table_covers_registry(void) {
  ock_registry *reg = NULL;
  struct ock_jerr je;
  OCK_ASSERT_OK(ock_registry_load_builtin(&reg, &je));
  for (size_t i = 0; reg && i < ock_registry_count(reg); i++) {
    const char *id = ock_registry_at(reg, i)->id;
    int n = 0;
    for (size_t k = 0; k < ock__mutant_count(); k++)
      n += !strcmp(ock__mutant_at(k)->requirement, id) ||
           gate_lists(ock__mutant_at(k)->proves_too, id);
    if (!n)
      ock_test_fail(__LINE__, __FILE__, "%s has no mutation in mutants/mutations.c", id);
  }
  for (size_t k = 0; reg && k < ock__mutant_count(); k++) {
    const struct mutation *m = ock__mutant_at(k);
    if (!ock_registry_find(reg, m->requirement))
      ock_test_fail(__LINE__, __FILE__, "mutation %s names %s, which is not in the registry",
                    m->name, m->requirement);
    char words[512];
    snprintf(words, sizeof words, "%s", m->proves_too ? m->proves_too : "");
    char *save = NULL;
    for (char *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save))
      if (!ock_registry_find(reg, w))
        ock_test_fail(__LINE__, __FILE__,
                      "mutation %s names %s in proves_too, which is not in the registry", m->name,
                      w);
    for (size_t j = 0; j < k; j++)
      if (!strcmp(ock__mutant_at(j)->name, m->name))
        ock_test_fail(__LINE__, __FILE__, "two mutations are named %s", m->name);
  }
  ock_registry_free(reg);
}

/* Every requirement has a scenario, and every mutation finds scenarios to run on. */
static void every_requirement_has_a_scenario(void) {
  if (!prepared) {
    ock_test_fail(__LINE__, __FILE__, "the gate cannot run: %s", prepare_error);
    return;
  }
  for (size_t i = 0; i < ock_registry_count(g.reg); i++) {
    const char *id = ock_registry_at(g.reg, i)->id;
    if (!gate_scenarios_of(&g, id))
      ock_test_fail(__LINE__, __FILE__, "%s: no scenario in fixtures/ names it", id);
  }
  for (size_t i = 0; i < g.n; i++)
    if (!g.mut[i].n_cases) {
      char buf[64];
      ock_test_fail(__LINE__, __FILE__, "mutation %s (%s): no scenario matches \"%s\"",
                    g.mut[i].m->name, g.mut[i].m->requirement,
                    ock__mutant_cases(g.mut[i].m, buf, sizeof buf));
    }
}

/* The reference alone passes every scenario the mutations use. */
static void reference_passes(void) {
  if (!run_all())
    return;
  if (!g.reference_report) {
    ock_test_fail(__LINE__, __FILE__, "the reference run wrote no report (exit %d); see %s",
                  g.reference_exit, g.tmp);
    return;
  }
  char failures[8192];
  int n = gate_reference_failures(&g, failures, sizeof failures);
  if (n)
    ock_test_fail(__LINE__, __FILE__, "the reference alone fails %d scenario(s):\n%s", n, failures);
  OCK_ASSERT_INT_EQ(g.reference_exit, 0);
}

/* The proxy that tells no lie changes no verdict: what the mutants fail is their lie's doing. */
static void proxy_is_transparent(void) {
  if (!run_all())
    return;
  if (!g.transparent_report) {
    ock_test_fail(__LINE__, __FILE__,
                  "the run through \"ock-mutant none\" wrote no report (exit %d)",
                  g.transparent_exit);
    return;
  }
  char diff[8192];
  int n = gate_proxy_differences(&g, diff, sizeof diff);
  if (n)
    ock_test_fail(__LINE__, __FILE__,
                  "%d scenario(s) pass with the reference alone but not through the proxy:\n%s", n,
                  diff);
}

/* Each mutation makes its requirement FAIL, in a scenario the reference passes. */
static void every_mutation_is_caught(void) {
  if (!run_all())
    return;
  for (size_t i = 0; i < g.n; i++) {
    const struct gate_mutant *m = &g.mut[i];
    char words[512];
    snprintf(words, sizeof words, "%s", m->m->proves_too && m->n_cases ? m->m->proves_too : "");
    char *save = NULL;
    for (char *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save))
      if (!gate_lists(m->proven_also, w))
        ock_test_fail(
            __LINE__, __FILE__,
            "mutation %s does not prove %s (of its proves_too): no FAIL of it in a scenario "
            "the reference passes",
            m->m->name, w);
    if (!m->n_cases || m->proven)
      continue;
    if (m->caught)
      ock_test_fail(__LINE__, __FILE__,
                    "mutation %s: %s fails, but the reference fails it too in %s: not proven",
                    m->m->name, m->m->requirement, m->failed_in);
    else
      ock_test_fail(__LINE__, __FILE__,
                    "mutation %s is not caught: %s verdict %s (ock run exit %d)%s%s", m->m->name,
                    m->m->requirement, *m->verdict ? m->verdict : "(absent)", m->exit_code,
                    *m->evidence ? ": " : "", m->evidence);
  }
}

/* Each requirement of the registry is caught by at least one of its mutations. */
static void every_requirement_is_caught(void) {
  if (!run_all())
    return;
  char missed[4096] = "";
  int n = 0;
  for (size_t i = 0; i < ock_registry_count(g.reg); i++) {
    const char *id = ock_registry_at(g.reg, i)->id;
    int tried = 0, caught = 0;
    for (size_t k = 0; k < g.n; k++)
      if (!strcmp(g.mut[k].m->requirement, id)) {
        tried = 1;
        caught |= g.mut[k].proven;
      } else if (gate_lists(g.mut[k].m->proves_too, id)) {
        tried = 1;
        caught |= gate_lists(g.mut[k].proven_also, id);
      }
    if (tried && !caught) {
      size_t len = strlen(missed);
      snprintf(missed + len, sizeof missed - len, "%s%s", n++ ? " " : "", id);
    }
  }
  printf("gate: %zu mutations; requirements not caught: %d%s%s\n", g.n, n, n ? ": " : "", missed);
  if (n)
    ock_test_fail(__LINE__, __FILE__, "%d requirement(s) no mutation proves can fail: %s", n,
                  missed);
}

/* Each check id of the checklist FAILs under some mutation, in a scenario where the reference
 * alone does not fail it: no check id that cannot fail. */
static void every_check_is_proven(void) {
  if (!run_all())
    return;
  int partial = g.partial; /* a part of the gate proves a part: list only what it proved */
  printf("gate: check ids\n");
  for (size_t i = 0; i < g.n_checks; i++) {
    const struct gate_check *c = &g.checks[i];
    if (partial && !*c->by)
      continue;
    printf("  %-8s %-32s %s%s%s\n",
           c->harness ? "HARNESS"
           : *c->by   ? "CAUGHT"
                      : "MISSED",
           c->id, c->harness ? "(reports harness failures only)" : c->by, *c->by ? " in " : "",
           c->scenario);
  }
  char missed[4096];
  int n = gate_checks_unproven(&g, missed, sizeof missed);
  size_t proven = 0;
  for (size_t i = 0; i < g.n_checks; i++)
    proven += *g.checks[i].by != '\0';
  if (partial)
    printf("gate: %zu check ids; proven by the mutations run: %zu (a partial run: the rest not "
           "required)\n",
           g.n_checks, proven);
  else
    printf("gate: %zu check ids; not proven: %d%s%s\n", g.n_checks, n, n ? ": " : "", missed);
  if (n && !partial)
    ock_test_fail(__LINE__, __FILE__,
                  "%d check id(s) no mutation makes FAIL (add a mutation to mutants/mutations.c, "
                  "or fix the check): %s",
                  n, missed);
}

/* Each row of checks.def names a mutation of the table, and that mutation makes the row FAIL
 * in one of its scenarios where the reference does not fail it: the row's own proof, kept next
 * to the row. A row whose mutation a partial run (OCK_GATE_ONLY, OCK_GATE_SHARE) did not run is
 * skipped; HARNESS rows name none. */
static void every_row_names_its_mutation(void) {
  int unknown = 0;
  for (size_t i = 0; i < ock__checklist_count(); i++) {
    const struct check_entry *c = ock__checklist_at(i);
    if (*c->mutation && !ock__mutant_find(c->mutation)) {
      unknown++;
      ock_test_fail(__LINE__, __FILE__,
                    "checks.def: %s names mutation %s, which is not in mutants/mutations.c", c->id,
                    c->mutation);
    }
  }
  if (!run_all())
    return;
  int checked = 0, skipped = 0, failed = 0;
  for (size_t i = 0; i < ock__checklist_count(); i++) {
    const struct check_entry *c = ock__checklist_at(i);
    if (c->kind == CHECK_HARNESS || !*c->mutation)
      continue;
    const struct gate_mutant *gm = NULL;
    for (size_t k = 0; k < g.n && !gm; k++)
      if (!strcmp(g.mut[k].m->name, c->mutation))
        gm = &g.mut[k];
    if (!gm) {
      skipped++; /* a partial run: its mutation did not run */
      continue;
    }
    checked++;
    if (!cJSON_GetObjectItemCaseSensitive(gm->fails, c->id)) {
      failed++;
      printf("  %-32s NOT FAILED by %s\n", c->id, c->mutation);
      ock_test_fail(__LINE__, __FILE__,
                    "checks.def: %s names mutation %s, which does not make it FAIL where the "
                    "reference passes it (name one that does: see \"check ids caught alone\")",
                    c->id, c->mutation);
    }
  }
  printf("gate: check rows with their mutation: %d checked, %d failed, %d skipped (mutation not "
         "run), %d naming an unknown mutation\n",
         checked, failed, skipped, unknown);
}

/* The ratchet: how many grading check ids a mutation catches alone may rise, never fall. Raise
 * it when a new mutation (or a narrower one) catches one more check id alone. Each floor sits a
 * little under the count measured (135 and 50), because on a loaded machine a timing check (a
 * backoff, a cancel's grace) can fail beside a mutant's own check in one run. A check caught
 * alone by restatement (gate.c) counts in the first, never in the second. */
#define GATE_ALONE_FLOOR 132
#define GATE_STRICT_FLOOR 47

/* Each grading check id should have a mutation that it alone catches: the one check id that
 * FAILs under the mutation where the reference does not fail it, over every scenario the
 * mutation runs. A check caught only beside others might be one that never fails by itself. */
static void checks_caught_alone(void) {
  if (!run_all())
    return;
  int partial = g.partial;
  size_t strict = 0, alone = gate_measure_alone(&g, &strict), grading = 0;
  printf("gate: check ids caught alone\n");
  for (size_t i = 0; i < g.n_checks; i++) {
    const struct gate_check *c = &g.checks[i];
    if (c->harness)
      continue;
    grading++;
    if (partial && !*c->alone && !c->n_shared)
      continue;
    if (*c->alone && *c->strictly)
      printf("  %-32s ALONE  %s%s%s\n", c->id, c->alone,
             strcmp(c->alone, c->strictly) ? "; strictly: " : " (strictly)",
             strcmp(c->alone, c->strictly) ? c->strictly : "");
    else if (*c->alone && c->restates)
      printf("  %-32s ALONE  %s (restates %.*s)\n", c->id, c->alone, (int)strcspn(c->restates, " "),
             c->restates);
    else if (*c->alone)
      printf("  %-32s ALONE  %s\n", c->id, c->alone);
    else
      printf("  %-32s SHARED %s%s\n", c->id, c->n_shared ? c->shared : "(no mutation)",
             c->n_shared > 6 ? " ..." : "");
  }
  printf("gate: what each mutation makes FAIL where the reference does not, when more than one\n");
  for (size_t i = 0; i < g.n; i++) {
    char set[4096];
    if (gate_alone_set(&g, &g.mut[i], set, sizeof set) > 1)
      printf("  %-34s %.600s\n", g.mut[i].m->name, set);
  }
  printf("gate: %zu of %zu grading check ids caught alone (floor %d), %zu of them strictly "
         "(floor %d)%s\n",
         alone, grading, GATE_ALONE_FLOOR, strict, GATE_STRICT_FLOOR,
         partial ? "; a partial run: the floors apply to a whole run" : "");
  if (!partial && alone < GATE_ALONE_FLOOR)
    ock_test_fail(__LINE__, __FILE__,
                  "only %zu grading check ids are caught alone, below the floor of %d: a change "
                  "made a mutation fail more than its check (see the SHARED rows above)",
                  alone, GATE_ALONE_FLOOR);
  if (!partial && strict < GATE_STRICT_FLOOR)
    ock_test_fail(__LINE__, __FILE__,
                  "only %zu grading check ids are caught strictly alone, below the floor of %d",
                  strict, GATE_STRICT_FLOOR);
}

/* Every fixture has a row in proves.c, and every check id of the row FAILs under some mutation
 * in that scenario, where the reference passes it: the fixture's claim is backed by a check
 * that can fail there. */
static void every_fixture_claim_is_proven(void) {
  if (!run_all())
    return;
  int partial = g.partial;
  int rows = 0, unbacked = 0;
  const cJSON *s;
  cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(g.catalog, "scenarios")) {
    const char *sid = ock_json_str(s, "id");
    const struct proves_row *row = sid ? proves_find(sid) : NULL;
    if (!row) {
      ock_test_fail(__LINE__, __FILE__,
                    "fixture %s has no row in tests/mutants/proves.c: name the check ids that "
                    "back its proves sentence",
                    sid ? sid : "(no id)");
      continue;
    }
    rows++;
    for (const enum check_name *c = row->checks; *c != CK_COUNT; c++) {
      const char *id = ock__check_row(*c)->id;
      if (!partial && !gate_proven_in(&g, sid, id)) {
        unbacked++;
        ock_test_fail(__LINE__, __FILE__,
                      "fixture %s: no mutation makes %s FAIL there (add one to "
                      "mutants/mutations.c, or widen one's scenarios)",
                      sid, id);
      }
    }
  }
  for (size_t i = 0; i < proves_count(); i++)
    if (!gate_scenarios_known(&g, proves_at(i)->fixture))
      ock_test_fail(__LINE__, __FILE__, "proves.c names %s, which is not a fixture",
                    proves_at(i)->fixture);
  printf("gate: fixtures with their claims' check ids: %d; check ids no mutation proves there: "
         "%d%s\n",
         rows, unbacked, partial ? " (a partial run: not required)" : "");
}

static const struct ock_test tests[] = {
    {"table_covers_registry", table_covers_registry},
    {"every_requirement_has_a_scenario", every_requirement_has_a_scenario},
    {"reference_passes", reference_passes},
    {"proxy_is_transparent", proxy_is_transparent},
    {"every_mutation_is_caught", every_mutation_is_caught},
    {"every_requirement_is_caught", every_requirement_is_caught},
    {"every_check_is_proven", every_check_is_proven},
    {"every_row_names_its_mutation", every_row_names_its_mutation},
    {"every_fixture_claim_is_proven", every_fixture_claim_is_proven},
    {"checks_caught_alone", checks_caught_alone},
    {NULL, NULL}};

/* Some ninety runs of ock: over five minutes on a loaded machine. */
const struct ock_suite suite_gate = {"gate", tests, gate_init, gate_cleanup, 1800};
