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
#include "ock/fixture.h"

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

/* What a provider's script has played so far. A pick costs the number of turns with a
 * "match", not the length of the script: long scripts (100k turns) stay fast. */
struct mock_play {
  unsigned char *used; /* per turn */
  size_t n_used;
  size_t next;     /* every turn without "match" before this index is used */
  size_t *matched; /* the indices of the turns with a "match", in script order */
  size_t n_matched;
};

/* ock__play_init sets up pl for p (pl's memory is the caller's; free with ock__play_free).
 * Returns OCK_OK or OCK_ENOMEM. */
int ock__play_init(struct mock_play *pl, const struct ock_fx_provider *p);
void ock__play_free(struct mock_play *pl);

/* ock__script_pick chooses the turn for a request and marks it used. Returns the turn's
 * index, or a negative value with the reason appended to why: -1, or why's failed append
 * status when the reason did not fit (why is then dead, see buf.h). */
int ock__script_pick(const struct ock_fx_provider *p, struct mock_play *pl,
                     const struct mock_match_input *in, struct ock_buf *why);

#endif
