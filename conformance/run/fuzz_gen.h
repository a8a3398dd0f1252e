/*
 * fuzz_gen.h: random scripted sessions for `ock fuzz`, and their shrinking.
 *
 * A session is a fixture (SPEC.md section 8) drawn from a seed: several prompts; text turns,
 * tool calls (parallel, unknown tools, arguments that are not JSON), provider faults; tools
 * that fail or are slow; hook denials and injections; a cancellation. Only features of the
 * declared capabilities are drawn. The same seed always gives the same fixture. No I/O.
 */
#ifndef OCK_FUZZ_GEN_H
#define OCK_FUZZ_GEN_H

#include <cJSON.h>

/* ock__fuzz_generate returns a new fixture (caller cJSON_Deletes) for seed; declared is the
 * NULL-terminated capability list of the SUT, wires the provider wires it speaks (NULL-terminated;
 * NULL: openai and anthropic), of which the session's provider takes one. */
cJSON *ock__fuzz_generate(unsigned long long seed, const char *const *declared,
                          const char *const *wires);

/* ock__fuzz_shrink_step writes into *out (caller deletes) the candidate number k smaller than fx,
 * or returns 0 when there is no candidate k (k counts from 0). */
int ock__fuzz_shrink_step(const cJSON *fx, int k, cJSON **out);

/* The requirements every session must meet, whatever was scripted. NULL-terminated. */
extern const char *const ock__fuzz_universal_requirements[];

#endif
