/*
 * pair.h: tool events without a tool_call_id, paired with the model's calls (SPEC.md 4.6).
 */
#ifndef OCK_PAIR_H
#define OCK_PAIR_H

#include <stddef.h>

#include <cJSON.h>

/* ock__pair_tool_events gives each tool event of journal (a JSON array of journal entries, in
 * seq order) that carries no tool_call_id the id of the call it reports, when SPEC.md 4.6 finds
 * one: it adds data.tool_call_id and marks the entry with "tool_call_id_inferred": true. Events
 * that carry an id, and those that cannot be paired, are left as they are. Modifies journal in
 * place; returns the number of events paired. */
size_t ock__pair_tool_events(cJSON *journal);

/* The same pairing one event at a time, for a log read line by line (`ock check`), where the
 * model's calls come from provider:response events and there is no endpoint traffic. Free with
 * ock__pairer_free (NULL is fine). */
typedef struct ock_pairer ock_pairer;
ock_pairer *ock__pairer_new(void);
void ock__pairer_free(ock_pairer *p);

/* ock__pairer_calls: tool_calls (borrowed; copied) are the model's latest calls: [{id, name,
 * arguments}], arguments a JSON text or a value. ock__pairer_reset: a new execute begins. */
void ock__pairer_calls(ock_pairer *p, const cJSON *tool_calls);
void ock__pairer_reset(ock_pairer *p);

/* ock__pairer_event reads tool event `name` with data (modified): when it has no tool_call_id
 * and SPEC.md 4.6 pairs it, adds data.tool_call_id and returns 1; else 0. ents (n entries, or
 * NULL: no traffic) is the journal, at the event's index in it. */
int ock__pairer_event(ock_pairer *p, const char *name, cJSON *data, const cJSON *const *ents,
                      size_t n, size_t at);

#endif
