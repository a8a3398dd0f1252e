/*
 * validate.h: the history validator, as strict as the real APIs (SPEC 6.7).
 *
 * OpenAI and Anthropic answer HTTP 400 when a request's history pairs tool calls and tool
 * results wrongly; an orchestrator that leaves an orphan after an error path only learns it
 * in production. The mock runs this check on every LLM request, over the neutral history
 * (core/message.h) so both wire formats get the same rules, and reports the first problem as
 * one of eight shapes. A finding names the message SPEC 6.7 names for its shape, by its index
 * in the wire "messages" array, and the ids involved; the wire modules turn it into the
 * provider's own error text. Pure: no I/O, no globals.
 */
#ifndef OCK_MOCK_VALIDATE_H
#define OCK_MOCK_VALIDATE_H

#include <stddef.h>

#include "ock/message.h"

enum mock_shape {
  MOCK_SHAPE_NONE = 0,
  MOCK_A01_UNMATCHED_TOOL_USE,      /* a call never gets a result */
  MOCK_A02_UNMATCHED_TOOL_RESULT,   /* a result with no call before it */
  MOCK_A03_INTERLEAVED_USER_MSG,    /* a user (or system) message, or text, between calls and
                                       their results */
  MOCK_A04_INTERLEAVED_ASST_MSG,    /* an assistant message between calls and their results */
  MOCK_A05_DUPLICATE_TOOL_CALL_ID,  /* an id answered twice, or issued twice */
  MOCK_A06_WRONG_TOOL_CALL_ID,      /* a result whose id the call message did not issue */
  MOCK_A07_PARALLEL_MISSING_RESULT, /* one of several calls gets no result */
  MOCK_A08_PARALLEL_WRONG_ORDER     /* results out of call order */
};

/* The first problem of a history. Strings are owned; free with ock__finding_clear. */
struct mock_finding {
  enum mock_shape shape; /* MOCK_SHAPE_NONE: the history is fine */
  int message_index;     /* wire index of the message SPEC 6.7 names for the shape */
  char *tool_call_id;    /* the first id the provider's text names */
  char *id;              /* the offending id: the result's (A02, A05, A06, A08) or the
                            repeated call's (A05) */
  char *ids;             /* A01, A03, A04, A07: the open calls still unanswered, in call
                            order, ", " joined */
  char *expected;        /* A08: the call whose result was due */
  int on_result;         /* the named message is a tool result (else an assistant message) */
};

/* ock__shape_name gives "A01_UNMATCHED_TOOL_USE" etc. ("" for MOCK_SHAPE_NONE). */
const char *ock__shape_name(enum mock_shape shape);

/* ock__validate_first finds the first problem of h (SPEC 6.7 rules 1 to 4; anthropic turns
 * on rule 4: results must sit in the user message right after their calls). *out is
 * overwritten; its shape is MOCK_SHAPE_NONE when there is none. OCK_OK or OCK_ENOMEM. */
int ock__validate_first(const struct ock_history *h, int anthropic, struct mock_finding *out);

/* ock__finding_clear frees the strings; the finding is then empty (MOCK_SHAPE_NONE). */
void ock__finding_clear(struct mock_finding *f);

/* The list form, as fuzz/fuzz_validate.c calls it: OpenAI rules, the first problem as the
 * only item (len 0 or 1); out starts zeroed, ock__findings_free empties it. */
struct mock_findings {
  struct mock_finding *items;
  size_t len;
  size_t cap;
};
int ock__validate_history(const struct ock_history *h, struct mock_findings *out);
const struct mock_finding *ock__findings_first_blocking(const struct mock_findings *f);
void ock__findings_free(struct mock_findings *f);

#endif
