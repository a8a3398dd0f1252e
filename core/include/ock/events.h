/*
 * events.h: the event model: lifecycle stages, the stage of each event, allowed stage
 * transitions, and the field check of one event against the registry.
 *
 * Stages follow the CUGAR lifecycle (initialize, plan, route, execute, aggregate, and the three
 * terminal stages complete, failed, cancelled). SPEC.md §4 maps every event to a stage; the
 * registry records the mapping ("terminal" for events that carry the execute's terminal stage,
 * "current" for cancel:requested, which carries whatever stage the execute was in).
 */
#ifndef OCK_EVENTS_H
#define OCK_EVENTS_H

#include <stddef.h>

#include <cJSON.h>

#include "ock/contract_map.h"
#include "ock/registry.h"

/* The events of the contract, typed once: OCK_EVENT_MAP is generated from the registry's
 * "events" array (core/gen/contract_map.c, see contract.h), so OCK_EVENT_TOOL_PRE and the name
 * constant OCK_EV_TOOL_PRE exist exactly while the registry has that event. Any other name is
 * OCK_EVENT_CUSTOM (SPEC.md 3.1). */
enum ock_event {
#define OCK_EVENT_ENUM(ident, name) OCK_EVENT_##ident,
  OCK_EVENT_MAP(OCK_EVENT_ENUM)
#undef OCK_EVENT_ENUM
      OCK_EVENT_CUSTOM,
  OCK_EVENT_KNOWN = OCK_EVENT_CUSTOM /* how many known events there are */
};

/* ock_event_parse: the known event with this wire name, or OCK_EVENT_CUSTOM (also for NULL). */
enum ock_event ock_event_parse(const char *name);

/* ock_event_name: the wire name of a known event; "custom" for OCK_EVENT_CUSTOM or a value out
 * of range. Static storage. */
const char *ock_event_name(enum ock_event e);

/* ock_event_is_tool: one of tool:selecting, tool:selected, tool:pre, tool:post, tool:error
 * (the events read together with their tool_call_id). */
int ock_event_is_tool(enum ock_event e);

enum ock_stage {
  OCK_STAGE_INITIALIZE,
  OCK_STAGE_PLAN,
  OCK_STAGE_ROUTE,
  OCK_STAGE_EXECUTE,
  OCK_STAGE_AGGREGATE,
  OCK_STAGE_COMPLETE,
  OCK_STAGE_FAILED,
  OCK_STAGE_CANCELLED,
  OCK_STAGE_COUNT
};

/* ock_stage_name gives the wire name ("initialize", ...); ock_stage_parse the reverse
 * (OCK_OK or OCK_EINVAL). */
const char *ock_stage_name(enum ock_stage s);
int ock_stage_parse(const char *name, enum ock_stage *out);
int ock_stage_is_terminal(enum ock_stage s);

/* ock_stage_for_status: the terminal stage an execute that ended with this
 * orchestrator:complete status must carry: complete (success, incomplete), failed (error),
 * cancelled (cancelled). OCK_EINVAL for an unknown status. */
int ock_stage_for_status(const char *status, enum ock_stage *out);

/* ock_stage_transition_allowed: 1 when an event of stage `to` may ever follow one of stage
 * `from` within one execute (the pairs of SPEC.md 4.4's table, of both orders; a stage may always
 * repeat). Some pairs hold only in one order: ock_stage_walk_next judges them with the history. */
int ock_stage_transition_allowed(enum ock_stage from, enum ock_stage to);

/* The stage walk of one execute (SPEC.md 4.4). An execute follows the provider-routing order
 * (route, plan, its tool rounds in execute, plan again) or CUGAR's (plan, then a route before
 * each step's execute); the walk remembers which, so that neither order's pairs open a hole in
 * the other. Start it zeroed-but-for prev with ock_stage_walk_start. */
struct ock_stage_walk {
  enum ock_stage prev; /* the previous stage; OCK_STAGE_COUNT before the first event */
  int planned;         /* a plan stage was seen */
  int routed_steps;    /* a route was followed by an execute: CUGAR's order */
  int unrouted_steps;  /* a plan was followed by an execute: the provider-routing order */
};

void ock_stage_walk_start(struct ock_stage_walk *w);

/* ock_stage_walk_next: 1 when stage `to` may follow the walk's history, 0 when SPEC.md 4.4
 * refuses it. Either way the walk moves on to `to`, so one bad step is reported once. */
int ock_stage_walk_next(struct ock_stage_walk *w, enum ock_stage to);

/* ock_event_missing_fields writes into out (comma-separated, NUL-terminated) the registry's
 * required fields of event `name` that data lacks, plus "trace_id" and "stage" when
 * with_lifecycle is set. Returns the number missing; 0 for an event the registry does not know. */
int ock_event_missing_fields(const ock_registry *r, const char *name, const cJSON *data,
                             int with_lifecycle, char *out, size_t n);

/* ock_event_bad_field writes into out (NUL-terminated) the first field of data that event `name`
 * carries with a JSON type core/contract-shapes.json does not allow it, worded as
 * "data.iteration is a string, expected an integer >= 1"; and returns 1. It checks, for each
 * required or optional field sent, in registry order: the field's types (an integer is a number
 * without a fraction, at least the schema's "minimum" when it gives one); for an array, each
 * item's type; for an object, or each object item of an array, the members the schema requires
 * (present) and types (one level deep: "data.tool_calls[0].id is missing, expected a string").
 * Enums, string lengths and anything deeper are not checked. With with_lifecycle set, trace_id
 * and stage are checked too. Fields named in skip (NULL-terminated; NULL for none) are left
 * out. A field not sent is ock_event_missing_fields's to report. Returns 0 (and out "") when
 * every field sent fits, for a custom event, and when data is not an object. */
int ock_event_bad_field(const char *name, const cJSON *data, int with_lifecycle,
                        const char *const *skip, char *out, size_t n);

#endif
