/*
 * scenario_run.h: one scenario, end to end: a mock on 127.0.0.1 and a free port, the SUT
 * spawned against it, SIGINT when the fixture's cancel trigger fires, the SUT's group killed
 * at the timeout, then the journal graded. The result is the scenario's object of report.json
 * (reports/report.schema.json): verdict, checks, process outcome, timeline.
 */
#ifndef OCK_SCENARIO_RUN_H
#define OCK_SCENARIO_RUN_H

#include <signal.h>

#include <cJSON.h>

#include "ock/contract.h"
#include "ock/registry.h"
#include "run/scenarios.h"

struct run_config {
  const char *command;         /* the SUT, run by /bin/sh -c */
  const char *const *declared; /* the SUT's capabilities, NULL-terminated */
  const char *const *wires;    /* the provider wires it speaks, NULL-terminated; NULL: both */
  double timeout_s;            /* per scenario, before --time-scale */
  double time_scale;           /* multiplies every time budget */
  size_t output_cap;           /* bytes of stdout/stderr kept */
  unsigned long long seed;
  enum ock_level level;
  int strict;
  int observe_only;
  int blackbox;            /* the SUT posts no events: prompts on stdin, graded from the traffic */
  const char *journal_dir; /* when set, each scenario's journal is written there as JSONL */
  volatile sig_atomic_t *abort_flag; /* set by ock's own SIGINT: stop waiting, kill the SUT */
};

/* ock__scenario_run runs sc and returns its result object (*out, caller frees). A scenario that
 * needs a capability the SUT did not declare, or a provider on a wire it did not declare, is not
 * run: verdict SKIP. A harness failure
 * (the mock would not start) is verdict ERROR, never a pass. Returns OCK_OK or OCK_ENOMEM. */
int ock__scenario_run(const struct scenario *sc, const struct run_config *cfg,
                      const ock_registry *reg, cJSON **out);

/* ock__scenario_verdict: the most severe verdict among a result's checks (OCK_V_ERROR if it has
 * none).
 */
const char *ock__scenario_verdict(const cJSON *checks);

#endif
