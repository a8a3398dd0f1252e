/*
 * checklist.h: every check id the harness can report, in one table.
 *
 * The rows are written once, in checks.def; this header expands them into enum check_name, and
 * checklist.c into the table. A check (check_*.c) reports under a name such as
 * CK_PROC_SESSION (grade.h), never under a string, so a check id or a requirement missing from
 * the table is a compile error; the report still says "proc.session". The mutant gate
 * (tests/mutants/) reads the table to prove that every row can FAIL, under the mutation the row
 * names.
 */
#ifndef OCK_CONFORMANCE_CHECKLIST_H
#define OCK_CONFORMANCE_CHECKLIST_H

#include <stddef.h>

#include "ock/contract_map.h"

enum check_kind {
  CHECK_GRADES,  /* judges the SUT: PASS, FAIL or WARN; the gate must see it FAIL */
  CHECK_HARNESS, /* reports only that the harness or the mock failed (ERROR): not the SUT's */
};

/* The FLAGS of a row, or-ed together. */
enum check_flag {
  CHECK_BLACKBOX = 1 << 0, /* the traffic alone decides it: graded in a black-box run */
};

/* The checks of SPEC.md 1.3, "capability.<name>" (check_capability.c): one per capability
 * seen in use but not declared. They judge the SUT's manifest, not the contract's requirements,
 * and are made per capability rather than rows of this table. */
#define CHECK_CAPABILITY_PREFIX "capability."

/* A check: one function of checks/ that grades a group of rows (grade.h). */
struct grade_ctx;
typedef void check_run(struct grade_ctx *g);

/* CK_CANCEL_STATUS, ...: one per row of checks.def, in its order (sorted by id). */
enum check_name {
#define CHECK(name, id, requirement, kind, flags, run, mutation) CK_##name,
#include "checks/checks.def"
#undef CHECK
  CK_COUNT
};

struct check_entry {
  enum check_name name;
  const char *id;          /* "proc.session" */
  const char *requirement; /* the requirement it reports under; NULL when the scenario's
                              expectation names it (the expect.* checks) */
  enum check_kind kind;
  unsigned flags;       /* enum check_flag, or-ed */
  check_run *run;       /* the check that grades it (grade.h); NULL for the HARNESS rows */
  const char *mutation; /* the mutation (mutants/mutations.c) that makes it FAIL; "" for none */
};

/* ock__check_row: the row of check (check < CK_COUNT), borrowed for the program's life. */
const struct check_entry *ock__check_row(enum check_name check);

size_t ock__checklist_count(void);
/* ock__checklist_at: row i (i < ock__checklist_count()), borrowed for the program's life. */
const struct check_entry *ock__checklist_at(size_t i);
/* ock__checklist_find: the row of check id, or NULL when the table has none. */
const struct check_entry *ock__checklist_find(const char *id);

#endif
