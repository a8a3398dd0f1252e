/*
 * checklist.c: the table of check ids (see checklist.h), one row per row of checks.def, in its
 * order: row i is check name i.
 */
#include "checks/checklist.h"

#include <string.h>

#include "checks/grade.h" /* the runs */

static const struct check_entry table[] = {
#define CHECK(name, id, requirement, kind, flags, run, mutation)                                   \
  {CK_##name, id, requirement, kind, flags, run, mutation},
#include "checks/checks.def"
#undef CHECK
};

_Static_assert(sizeof table / sizeof table[0] == CK_COUNT, "one row per check name");

const struct check_entry *ock__check_row(enum check_name check) {
  return (size_t)check < CK_COUNT ? &table[check] : NULL;
}

size_t ock__checklist_count(void) {
  return sizeof table / sizeof table[0];
}

const struct check_entry *ock__checklist_at(size_t i) {
  return i < ock__checklist_count() ? &table[i] : NULL;
}

const struct check_entry *ock__checklist_find(const char *id) {
  for (size_t i = 0; id && i < ock__checklist_count(); i++)
    if (!strcmp(table[i].id, id))
      return &table[i];
  return NULL;
}
