/*
 * checklist.h: every check id the harness can report, in one table.
 *
 * A check (check_*.c) reports under an id such as "proc.session" (grade.h). The table below is
 * the one list of those ids: ock__grade_emit, ock__grade_applies and ock__grade_error refuse an id
 * it does not hold (the outcome becomes an ERROR that names the table), and the mutant gate
 * (tests/mutants/) reads it to prove that every id can FAIL. A check id added without its row
 * fails the reference's own run; a row without a mutation that makes it FAIL fails the gate.
 */
#ifndef OCK_CONFORMANCE_CHECKLIST_H
#define OCK_CONFORMANCE_CHECKLIST_H

#include <stddef.h>

enum check_kind {
  CHECK_GRADES,  /* judges the SUT: PASS, FAIL or WARN; the gate must see it FAIL */
  CHECK_HARNESS, /* reports only that the harness or the mock failed (ERROR): not the SUT's */
};

struct check_entry {
  const char *id;          /* "proc.session" */
  const char *requirement; /* the requirement it reports under; NULL when the scenario's
                              expectation names it (the expect.* checks) */
  enum check_kind kind;
};

size_t ock__checklist_count(void);
/* ock__checklist_at: row i (i < ock__checklist_count()), borrowed for the program's life. */
const struct check_entry *ock__checklist_at(size_t i);
/* ock__checklist_find: the row of check id, or NULL when the table has none. */
const struct check_entry *ock__checklist_find(const char *id);

#endif
