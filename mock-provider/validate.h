/*
 * validate.h: the history validator, as strict as the real APIs.
 *
 * OpenAI and Anthropic answer HTTP 400 when a request's history pairs tool calls and tool
 * results wrongly; an orchestrator that leaves an orphan after an error path only learns it
 * in production. The mock runs this check on every LLM request, over the neutral history
 * (core/message.h) so both wire formats get the same rules. A finding names the shape, the
 * offending message's index in the wire "messages" array and the offending id; the wire
 * modules turn it into the provider's own error text. Pure: no I/O, no globals.
 *
 * Anthropic's own trap, a text block before the tool_result blocks of the answering user
 * message, needs no special case: the neutral form keeps that text as a user message before
 * the results (core/message.c), which is A03 here, as it is a 400 there.
 */
#ifndef OCK_MOCK_VALIDATE_H
#define OCK_MOCK_VALIDATE_H

#include <stddef.h>

#include <cJSON.h>

#include "ock/message.h"

enum mock_shape {
  MOCK_A01_UNMATCHED_TOOL_USE = 1, /* a call never gets a result */
  MOCK_A02_UNMATCHED_TOOL_RESULT,  /* a result answers no call */
  MOCK_A03_INTERLEAVED_USER_MSG,   /* a user (or system) message between a call and its result */
  MOCK_A04_INTERLEAVED_ASST_MSG,   /* an assistant message between a call and its result */
  MOCK_A05_DUPLICATE_TOOL_CALL_ID, /* two calls, or two results, with one id */
  MOCK_A06_WRONG_TOOL_CALL_ID,     /* a result right after the calls, with an id none has */
  MOCK_A07_PARALLEL_MISSING_RESULT, /* parallel calls, some answered, one not */
  MOCK_A08_PARALLEL_WRONG_ORDER    /* every call answered, not in call order (APIs accept it) */
};

struct mock_finding {
  enum mock_shape shape;
  int message_index;  /* wire index of the offending message */
  char *tool_call_id; /* the offending id (owned) */
  int on_result;      /* 1: the offending message is a tool result */
  int call_index;     /* wire index of the assistant message whose calls are concerned; -1 */
  char *missing;      /* ids of that message's calls without an immediate result, ", "
                         joined (owned); NULL when none */
  int blocking;       /* the real API rejects this history (all shapes but A08) */
};

struct mock_findings {
  struct mock_finding *items;
  size_t len;
  size_t cap;
};

/* The validator keeps at most this many findings per request. */
#define MOCK_MAX_FINDINGS 64

/* ock__shape_name gives "A01_UNMATCHED_TOOL_USE" etc. */
const char *ock__shape_name(enum mock_shape shape);

/* ock__validate_history appends h's findings to out (initialised to zeros), in message
 * order. Returns OCK_OK or OCK_ENOMEM. */
int ock__validate_history(const struct ock_history *h, struct mock_findings *out);

/* ock__findings_first_blocking: the first finding the real API would reject; NULL if none. */
const struct mock_finding *ock__findings_first_blocking(const struct mock_findings *f);

/* ock__findings_free frees the items; f is then empty. */
void ock__findings_free(struct mock_findings *f);

#endif
