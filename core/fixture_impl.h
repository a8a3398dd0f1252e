/*
 * fixture_impl.h: what fixture.c shares with fixture_expect.c (private to core/fixture*.c).
 *
 * fixture.c loads what the mock plays (session, script, tools, hooks, cancel, faults);
 * fixture_expect.c loads what the harness reads (title, proves, requirements, capabilities,
 * aliases, expect) into the same struct ock_fixture.
 */
#ifndef OCK_FIXTURE_IMPL_H
#define OCK_FIXTURE_IMPL_H

#include "ock/fixture.h"

/* TRY returns the status of expr when it is not OCK_OK: the loaders stop at the first error. */
#define TRY(expr)                                                                                  \
  do {                                                                                             \
    int rc_ = (expr);                                                                              \
    if (rc_)                                                                                       \
      return rc_;                                                                                  \
  } while (0)

/* ock__fixture_load_scenario fills the harness's members of f from f->json (reg as in
 * ock_fixture_load). OCK_OK, OCK_ENOMEM, or an error with err set. */
int ock__fixture_load_scenario(struct ock_fixture *f, const ock_registry *reg,
                               struct ock_jerr *err);

/* ock__fixture_free_scenario frees what ock__fixture_load_scenario allocated. */
void ock__fixture_free_scenario(struct ock_fixture *f);

#endif
