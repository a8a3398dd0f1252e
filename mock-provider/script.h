/*
 * script.h: which scripted turn answers an LLM request.
 *
 * A provider's script is an ordered list of turns (SPEC 8.3). A turn with a "match" answers
 * the first request it matches (by the provider's request position, the last message's text,
 * or the call the last message, a tool result, answers); the others answer, in order, the
 * requests no match claims. Each turn answers once: a faulted turn is used up too, so a retry gets
 * the next. When nothing fits, the caller gets a sentence that says which turn was expected and
 * what the request had instead. Pure: the used-flags live with the caller.
 */
#ifndef OCK_MOCK_SCRIPT_H
#define OCK_MOCK_SCRIPT_H

#include "ock/buf.h"
#include "ock/message.h"
#include "fixture.h"

/* What a turn can match on, read from one request. Strings are borrowed. */
struct mock_match_input {
  long long position;            /* this provider's request number, 1-based */
  const char *last_text;         /* the last message's text; NULL when it has none */
  const char *last_role;         /* the last message's role name; NULL for an empty history */
  const char *last_tool_call_id; /* the last message's call id when it is a tool result */
};

/* ock__match_input_from reads the fields above from a neutral history (borrowed from h). */
void ock__match_input_from(const struct ock_history *h, long long position,
                           struct mock_match_input *in);

/* ock__script_pick chooses the turn for a request and marks it in used[] (one flag per turn
 * of p). Returns the turn's index, or -1 with the reason appended to why. */
int ock__script_pick(const struct mock_provider *p, unsigned char *used,
                     const struct mock_match_input *in, struct ock_buf *why);

#endif
