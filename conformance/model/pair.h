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

#endif
