/*
 * grammar.h: the per-execute event automaton of SPEC.md 3.3, exactly, over typed events.
 *
 * Feed it a SUT's events in order (from the mock's journal, a recorded JSON Lines log, or a
 * test); it reports each rejected symbol with the requirement it breaks and the sequence number
 * of the event where it was seen. One automaton serves every user: the checks of `ock run`,
 * `ock check`, and the reference's own tests. It keeps the state of one execute at a time, so
 * memory does not grow with the length of a log. No I/O.
 *
 * Rejection and recovery. SPEC.md 3.3 defines the language by the first rejected symbol; that
 * one is always reported. To go on grading the rest of a run, an execute in which a symbol was
 * rejected ignores its later symbols, except that its orchestrator:complete still closes it
 * and a prompt:submit still opens the next execute. Outside an execute, each stray event is
 * reported on its own.
 */
#ifndef OCK_GRAMMAR_H
#define OCK_GRAMMAR_H

#include <cJSON.h>

#include "ock/events.h"

struct ock_grammar_violation {
  const char *requirement; /* the requirement the rejected symbol breaks: "OCK-ORDER-002" */
  long seq;                /* the event where it was seen (the caller's numbering) */
  int execute;             /* 1-based execute number; 0 before the first prompt:submit */
  int first;               /* 1 for the first rejection of the run (SPEC.md 3.3's evidence) */
  char message[300];       /* one line: what came, and what the automaton expected */
};

/* Called once per rejected symbol; v is borrowed for the call. */
typedef void (*ock_grammar_violation_fn)(void *user, const struct ock_grammar_violation *v);

typedef struct ock_grammar ock_grammar;

/* ock_grammar_new: on_violation may be NULL (then only ock_grammar_first_rejected tells).
 * Returns OCK_OK or OCK_ENOMEM; *out is set only on success. Free with ock_grammar_free. */
int ock_grammar_new(ock_grammar_violation_fn on_violation, void *user, ock_grammar **out);
void ock_grammar_free(ock_grammar *g); /* NULL is a no-op */

/* ock_grammar_symbol feeds one preprocessed symbol (SPEC.md 3.1): ev with denied set for a
 * reply of deny or ask_user (it matters for prompt:submit, provider:request and
 * tool:selecting only), tool_call_id the event's data.tool_call_id when it is a string, else
 * NULL (borrowed for the call). name is only quoted in messages for a custom event (may be
 * NULL). */
void ock_grammar_symbol(ock_grammar *g, long seq, enum ock_event ev, const char *name, int denied,
                        const char *tool_call_id);

/* ock_grammar_event does the preprocessing of SPEC.md 3.1 for one event and feeds it: name is
 * the event's name (NULL counts as custom), data its data object (may be NULL), reply_action
 * the action of the hook reply (NULL for continue). */
void ock_grammar_event(ock_grammar *g, long seq, const char *name, const cJSON *data,
                       const char *reply_action);

/* ock_grammar_end closes the input: an execute still open is rejected at seq. */
void ock_grammar_end(ock_grammar *g, long seq);

/* ock_grammar_executes: how many executes (prompt:submit symbols) were seen. */
int ock_grammar_executes(const ock_grammar *g);

/* ock_grammar_first_rejected: the seq of the first rejected symbol (or of the end, when only
 * the end was rejected), or -1 when everything so far was accepted. */
long ock_grammar_first_rejected(const ock_grammar *g);

#endif
