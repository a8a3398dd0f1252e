/*
 * blackbox.h: the black-box tier of `ock run --blackbox` (SPEC.md 9.7).
 *
 * A black-box SUT posts no events and never reads the session document: it gets the prompts on
 * standard input, calls the LLM through the provider base URLs and the tools over MCP. The
 * harness then grades what the traffic shows (ock__view_build_traffic finds the executes): the
 * rows of checks.def flagged CHECK_BLACKBOX, each charged to a requirement whose registry entry
 * says "blackbox": true. Every other check is SKIP with the reason black-box, and a scenario that
 * scripts hook replies, needs lifecycle events or times its SIGINT by an event is SKIP as a whole;
 * in any other scenario the clauses that expect events are SKIP, the rest graded.
 */
#ifndef OCK_BLACKBOX_H
#define OCK_BLACKBOX_H

#include <stddef.h>

#include <cJSON.h>

#include "checks/checklist.h"
#include "ock/fixture.h"
#include "ock/registry.h"

/* The reason every black-box SKIP starts with. */
#define BLACKBOX_REASON "black-box"

/* ock__blackbox_graded: check c (its row, checklist.h), charged to r, is graded in a black-box
 * run: its row is flagged CHECK_BLACKBOX and r says "blackbox": true. 0 for a NULL c or r. */
int ock__blackbox_graded(const struct check_entry *c, const struct ock_requirement *r);

/* ock__blackbox_scenario_skip: why fixture cannot be graded black-box (it scripts hook replies,
 * needs the lifecycle capability, or times its SIGINT by an event), written to
 * why; 0 when it can. */
int ock__blackbox_scenario_skip(const struct ock_fixture *fx, char *why, size_t n);

/* ock__blackbox_input: the session's prompts as the SUT's standard input, one line each, a
 * backslash as "\\" and a line break as "\n" (SPEC.md 9.7). Caller frees; NULL when out of
 * memory. */
char *ock__blackbox_input(const cJSON *prompts);

/* ock__blackbox_coverage: {"graded": [ids], "not_graded": [ids]}, the registry's requirements a
 * black-box PASS does and does not cover. */
cJSON *ock__blackbox_coverage(const ock_registry *reg);

#endif
