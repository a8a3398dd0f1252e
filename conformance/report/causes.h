/*
 * causes.h: the first causes of a run: one entry per distinct deviation, not one row per
 * failing check.
 *
 * One defect fails many checks: an execute without orchestrator:complete fails complete.once,
 * and with it the event grammar, every expectation on the status and the turn count, and each
 * check that reads the outcome. ock_report_causes finds, in each scenario, the failing check
 * that explains each other failing check (its cause), following a rule table (causes.c) to
 * the first cause, and groups those first causes across the scenarios. A cause's id is
 * "<requirement>/<check id>" (OCK-COMPLETE-001/complete.once): the requirement broken and the
 * kind of deviation, which the check id names together with the place it looks at
 * (complete.once: the orchestrator:complete of each execute). It is stable across runs and
 * scenarios, so `ock explain` takes it and a CI history can follow it.
 */
#ifndef OCK_REPORT_CAUSES_H
#define OCK_REPORT_CAUSES_H

#include <stddef.h>

#include <cJSON.h>

#include "ock/buf.h"

/* ock_cause_explains: a failure of check `cause` in a scenario explains a failure of check
 * `consequence` in the same scenario, by the rule table of causes.c. Never for a check and
 * itself. */
int ock_cause_explains(const char *cause, const char *consequence);

/* ock_cause_groups_known: 1 when every group of checks the rule table names (a prefix such as
 * "order.tool-") holds at least one check of the table; else 0, with *unknown the first prefix
 * that holds none, which would explain nothing. */
int ock_cause_groups_known(const char **unknown);

/* ock_cause_id writes "<requirement>/<check>" into out (n bytes, NUL-terminated, cut to fit). */
void ock_cause_id(char *out, size_t n, const char *requirement, const char *check);

/* ock_cause_parse splits a cause id into its requirement and check id (each copied into a
 * buffer of n bytes). Returns 0, or -1 when id is not "<OCK-...>/<check>" or a part does not
 * fit. */
int ock_cause_parse(const char *id, char *requirement, char *check, size_t n);

/* ock_scenario_first_cause: of one scenario's failing checks (scenario borrowed), the first
 * cause to show: nothing in the scenario explains it; the most severe such check, then the
 * lowest layer, then the earliest evidence. NULL when no check fails (or out of memory).
 * Borrowed from scenario. */
const cJSON *ock_scenario_first_cause(const cJSON *scenario);

/* ock_report_causes (re)computes the causes of report (its scenarios' checks):
 *   - each WARN, FAIL or ERROR check, and each failure the expected-failures baseline excused
 *     (verdict PASS, expected_failure), gets "cause": the id of its first cause in its scenario
 *     (its own id when nothing else there explains it);
 *   - report.causes: one entry per distinct first cause, most severe first, then by the number
 *     of scenarios: id, requirement, check, level, verdict (the most severe of its own check's
 *     and of the checks it explains that the baseline did not excuse; PASS when it excused
 *     them all), expected_failure (it did), message (of the simplest scenario), scenarios
 *     (every scenario it is the first cause of a failure in), consequences (each check it
 *     explains: check, requirement, verdict, count of scenarios), simplest (the scenario with
 *     the fewest timeline events: scenario, events) and command (how to rerun it).
 * Called by ock_report_summarize. Returns OCK_OK, OCK_EINVAL (no scenarios array) or
 * OCK_ENOMEM. */
int ock_report_causes(cJSON *report);

/* ock_report_rerun_command appends the `ock run` command that reruns scenario of report
 * (borrowed) alone with the run's orchestrator, capabilities, level and options, each value
 * quoted for a POSIX shell where needed. Returns ock_buf's codes. */
int ock_report_rerun_command(struct ock_buf *b, const cJSON *report, const char *scenario);

#endif
