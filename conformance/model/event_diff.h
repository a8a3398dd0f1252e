/*
 * event_diff.h: two runs' event contracts compared, execute by execute (`ock diff`).
 *
 * An event log is cut into executes at each prompt:submit. Two executes are compared by the
 * contract a consumer of the events relies on, never by values that change from run to run:
 * - the sequence of event names, aligned by their longest common subsequence: an event of OLD
 *   left out is removed, one of NEW left out is added, a name both removed and added is moved;
 * - the shape of each aligned event's data: every field path ("data.usage.input_tokens",
 *   "data.tool_calls[].id") with its JSON types; a path gone or a type changed is a change;
 * - the tool-call pairing: for each call, in order of its first event, which of tool:post and
 *   tool:error it got (ids are mapped to ordinals, so fresh ids compare equal);
 * - orchestrator:complete's status, reason and turn_count, by value.
 * Ids, trace ids and timestamps are values, so they never differ.
 *
 * Each difference is one change object:
 *   {"scope": SCENARIO or "", "execute": N (1-based), "kind": KIND, "key": KEY,
 *    "old": ..., "new": ..., "breaking": BOOL}
 * KEY is what an allow list matches ("event-removed orchestrator:complete",
 * "field-type tool:post data.output", "status"). Added fields and added scenarios are not
 * breaking; every other change is.
 */
#ifndef OCK_EVENT_DIFF_H
#define OCK_EVENT_DIFF_H

#include <stddef.h>

#include <cJSON.h>

/* ock__diff_split cuts a list of events ({"event": NAME, "data": {...}}, in order) into
 * executes: a new array of arrays of borrowed references (cJSON_Delete it; the events stay the
 * caller's). Events before the first prompt:submit form an execute of their own. NULL when
 * out of memory. */
cJSON *ock__diff_split(const cJSON *events);

/* ock__diff_executes appends to changes (an array) every difference between two lists of
 * executes (ock__diff_split's form), labelled with scope. Returns 0, or -1 out of memory. */
int ock__diff_executes(const cJSON *old_log, const cJSON *new_log, const char *scope,
                       cJSON *changes);

#endif
