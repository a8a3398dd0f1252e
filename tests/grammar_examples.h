/*
 * grammar_examples.h: event sequences written as SPEC.md 3.4 writes them, for the tests of the
 * event automaton (test-core) and of the checks that use it (test-conformance).
 *
 * Notation: symbols separated by white space; `prompt:submit/deny` is a denied event;
 * `pre(a)`, `post(a)`, `error(a)`, `selecting(a)`, `selected(a)` (or the full names, as in
 * `tool:post(a)`) are tool events with tool_call_id a; `custom:x` is any unknown name; `[sym]`
 * marks the symbol the automaton must reject (`[end]`: the end of the input); `...` after it
 * stands for anything. The first
 * token that is none of these (a word of a comment, or `(`) ends the example.
 */
#ifndef OCK_TESTS_GRAMMAR_EXAMPLES_H
#define OCK_TESTS_GRAMMAR_EXAMPLES_H

#include <stddef.h>

#include "ock/events.h"

#define GRAMMAR_EXAMPLE_MAX 64

struct grammar_symbol {
  enum ock_event ev;
  char name[48]; /* the wire name (a custom event's own) */
  int denied;
  char id[16]; /* "" when the symbol has no tool_call_id */
};

struct grammar_example {
  struct grammar_symbol sym[GRAMMAR_EXAMPLE_MAX];
  int n;
  int rejected_at; /* 0-based index of the bracketed symbol (n for [end]), or -1 */
  char text[600];  /* the example as written, for messages */
};

/* grammar_example_parse reads one example. Returns 0, or -1 with a message in err. */
int grammar_example_parse(const char *text, struct grammar_example *out, char *err, size_t en);

/* grammar_spec_examples reads the two code blocks of Section 3.4 from spec (the whole text of
 * docs/grammar.md, where SPEC.md keeps its examples):
 * the accepted examples (each must have no bracket) and the rejected ones (each must have
 * one). Returns how many it stored into out (at most max), or -1 with a message in err. */
int grammar_spec_examples(const char *spec, struct grammar_example *out, int max, char *err,
                          size_t en);

/* grammar_read_spec_examples: grammar_spec_examples over the project's docs/grammar.md (found
 * through OCK_ROOT, as every test finds its files). */
int grammar_read_spec_examples(struct grammar_example *out, int max, char *err, size_t en);

/* grammar_feed runs ex through a fresh automaton; returns the 0-based index of the first
 * rejected symbol, n when only the end of input was rejected, or -1 when all was accepted. */
int grammar_feed(const struct grammar_example *ex);

#endif
