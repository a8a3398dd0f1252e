/*
 * grammar.h: the per-execute() event grammar of SPEC.md §3 as an automaton.
 *
 * Feed it a SUT's events in order (from the mock's journal, or a recorded JSONL log); it
 * reports each violation with the requirement it breaks and the sequence number of the event
 * where it was seen. It keeps state for one execute at a time (open request, open tool calls),
 * so memory does not grow with the length of the log. No I/O.
 */
#ifndef OCK_GRAMMAR_H
#define OCK_GRAMMAR_H

#include <cJSON.h>

struct ock_violation {
  const char *requirement; /* "OCK-ORDER-002" */
  long seq;                /* the event where it was seen (the caller's numbering) */
  int execute;             /* 1-based execute number */
  char message[300];
};

typedef void (*ock_violation_fn)(void *user, const struct ock_violation *v);

/* Facts about one finished execute, passed to the on_execute callback. */
struct ock_execute_summary {
  int index;             /* 1-based */
  long first_seq;        /* its prompt:submit */
  long complete_seq;     /* its orchestrator:complete, or -1 */
  int n_complete;        /* orchestrator:complete events seen in it */
  int n_requests;        /* provider:request events */
  int n_denied_requests; /* provider:request events the caller marked denied */
  int saw_prompt_complete;
  int saw_cancel_requested;
  int saw_cancel_completed;
};

typedef void (*ock_execute_fn)(void *user, const struct ock_execute_summary *s);

typedef struct ock_grammar ock_grammar;

/* ock_grammar_new: on_violation is called once per violation, on_execute once per execute
 * when it ends (at the next prompt:submit or at ock_grammar_end); either may be NULL.
 * Returns OCK_OK or OCK_ENOMEM. */
int ock_grammar_new(ock_violation_fn on_violation, ock_execute_fn on_execute, void *user,
                    ock_grammar **out);
void ock_grammar_free(ock_grammar *g); /* NULL is a no-op */

/* ock_grammar_event feeds one event. data may be NULL (treated as {}). denied says the hook
 * reply to this event was a deny (the grammar then expects what SPEC.md says follows a deny). */
void ock_grammar_event(ock_grammar *g, long seq, const char *name, const cJSON *data, int denied);

/* ock_grammar_end closes the log: an execute still open is missing its orchestrator:complete. */
void ock_grammar_end(ock_grammar *g, long seq);

/* ock_grammar_executes: how many executes (prompt:submit) were seen. */
int ock_grammar_executes(const ock_grammar *g);

#endif
