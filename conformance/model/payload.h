/*
 * payload.h: the fields of an event's payload (its data), read by the registry's shape.
 *
 * The registry says which fields each event requires and which it may carry, and
 * core/contract-shapes.json gives each field's JSON types; core/gen/contract_map.c writes both
 * into ock/contract_map.h (OCK_EVENT_FIELD_MAP, OCK_LIFECYCLE_FIELD_MAP), and the field names as
 * OCK_PF_<FIELD> constants. A check names a field by its enum, OCK_FIELD_<FIELD>, and gets what
 * the SUT sent, or an explicit absent result it must handle, never a "" that looks like a value:
 *
 *   const char *status = ock__pf_str(x->complete_entry, OCK_FIELD_STATUS);  NULL: not a string
 *   if (ock__pf_is(e, OCK_FIELD_SOURCE, "scheduler")) ...                  0 when absent
 *   ock__grade_emit(..., "status %s", ock__pf_show(e, OCK_FIELD_STATUS));  "(missing)" ...
 *
 * Every function takes the journal entry of the event (kind "event"), not its data, so it knows
 * which event's shape applies. A missing required field is the SUT's fault that proc.event-fields
 * (OCK-PROC-005) reports; a check that reads one gets OCK_PAYLOAD_MISSING, so that it fails or
 * says why, instead of comparing "" with what it expected. A check that judges the value as sent,
 * whatever its type (complete.turn-count), or code that reads data not yet in a journal (the
 * pairing of id-less tool events, ock check, ock diff), names the member OCK_PF_<FIELD>.
 * No function allocates.
 */
#ifndef OCK_PAYLOAD_H
#define OCK_PAYLOAD_H

#include <cJSON.h>

#include "ock/contract.h"
#include "ock/events.h"

/* The payload fields the registry knows, in its order (OCK_PAYLOAD_FIELD_MAP). */
enum ock_field {
#define OCK_FIELD_ENUM(ident, name) OCK_FIELD_##ident,
  OCK_PAYLOAD_FIELD_MAP(OCK_FIELD_ENUM)
#undef OCK_FIELD_ENUM
      OCK_FIELD_COUNT
};

/* What a read of field f of one event found. */
enum ock_payload_state {
  OCK_PAYLOAD_OK,       /* sent, with a JSON type the contract allows for that event */
  OCK_PAYLOAD_ABSENT,   /* not sent, and the event may leave it out (optional, or lifecycle) */
  OCK_PAYLOAD_MISSING,  /* not sent, and the event requires it: a fault of the SUT */
  OCK_PAYLOAD_MISTYPED, /* sent with a JSON type the contract does not allow there (an integer
                           field is any JSON number here: whether it is whole, and in range, is
                           the check's to judge, as complete.turn-count does) */
  OCK_PAYLOAD_NO_FIELD  /* no event (NULL, or not an event entry), or an event the registry
                           gives no such field (a custom event's own fields, or a check asking
                           the wrong event) */
};

struct ock_payload {
  enum ock_payload_state state;
  const cJSON *json; /* the member when state is OCK_PAYLOAD_OK, else NULL */
};

/* ock__field_name: the field's wire name (OCK_PF_<FIELD>); "" out of range. Static. */
const char *ock__field_name(enum ock_field f);

/* ock__field_rule: 1 when event ev requires field f, 0 when it may carry it (optional, or one of
 * the lifecycle fields every event carries with lifecycle declared, a custom event too), -1
 * when it has no such field. types, when not NULL, gets the OCK_JT_* bits the field may have (0 for
 * -1). */
int ock__field_rule(enum ock_event ev, enum ock_field f, int *types);

/* ock__payload: field f of event entry e, with its state. */
struct ock_payload ock__payload(const cJSON *e, enum ock_field f);

/* ock__pf: the member when its state is OK, else NULL. */
const cJSON *ock__pf(const cJSON *e, enum ock_field f);

/* ock__pf_str: the string when the field is OK and a string; NULL otherwise (absent, missing,
 * mistyped, or a JSON null where the contract allows one: fallback, original_tool). */
const char *ock__pf_str(const cJSON *e, enum ock_field f);

/* ock__pf_is: 1 when ock__pf_str is a string equal to want (want NULL: never). */
int ock__pf_is(const cJSON *e, enum ock_field f, const char *want);

/* ock__pf_sent: the event carries field f, of whatever JSON type (OK or MISTYPED). */
int ock__pf_sent(const cJSON *e, enum ock_field f);

/* ock__pf_same: events a and b sent field f alike: the same state, and equal JSON values when
 * both are OK (two that both lack it are alike too). */
int ock__pf_same(const cJSON *a, const cJSON *b, enum ock_field f);

/* ock__pf_num: the number when the field is OK and a number, else absent. */
double ock__pf_num(const cJSON *e, enum ock_field f, double absent);

/* ock__pf_int: ock__pf_num cast to an integer, or absent also for a number out of the range
 * of long long (as ock_json_int). */
long long ock__pf_int(const cJSON *e, enum ock_field f, long long absent);

/* ock__pf_show: the field as a finding's detail shows it: the string, "null", or what was wrong:
 * "(missing)", "(absent)", "(mistyped)", "(not a string)" (an object, array, number or boolean
 * the contract allows there), "(no such field)". Static storage or e's. */
const char *ock__pf_show(const cJSON *e, enum ock_field f);

#endif
