/*
 * proves.h: which check ids back each fixture's "proves" sentence.
 *
 * A fixture's `proves` line is a claim; a claim nobody checks proves nothing. Each row names a
 * fixture and the checks (check names, so a check missing from the table is a compile error) that
 * judge what its sentence claims; the gate (test_gate.c, every_fixture_claim_is_proven) requires
 * that every fixture has a row and that every check id of a row FAILs under some mutation in that
 * very scenario, where the reference passes it.
 */
#ifndef OCK_TESTS_MUTANTS_PROVES_H
#define OCK_TESTS_MUTANTS_PROVES_H

#include <stddef.h>

#include "checks/checklist.h"

struct proves_row {
  const char *fixture;           /* the fixture id */
  const enum check_name *checks; /* the checks of the checklist, ended by CK_COUNT */
};

size_t proves_count(void);
/* proves_at: row i (i < proves_count()); proves_find: the row of a fixture, or NULL. */
const struct proves_row *proves_at(size_t i);
const struct proves_row *proves_find(const char *fixture);

#endif
