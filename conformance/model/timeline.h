/*
 * timeline.h: the rows of a scenario's sequence diagram (the report's "timeline", drawn by
 * report.html): one row per journal entry, in the journal's order, each in the lane of the
 * party that acted (sut, llm, tool, harness, fault), with a label, a detail and whether a
 * failing check cites it. Built from the journal's fields by their generated names.
 */
#ifndef OCK_MODEL_TIMELINE_H
#define OCK_MODEL_TIMELINE_H

#include <stddef.h>

#include <cJSON.h>

/* ock__timeline_build: the rows for journal (a JSON array, borrowed), at most max of them;
 * failed is set for the seqs in the evidence of a check in checks (borrowed; NULL: none) whose
 * verdict is FAIL, WARN or ERROR. NULL when out of memory; the caller frees with cJSON_Delete. */
cJSON *ock__timeline_build(const cJSON *journal, const cJSON *checks, size_t max);

#endif
