/*
 * gemini.h: what the mock adds for the Gemini API wire (core: ock/gemini.h, wire_gemini.c).
 *
 * The Gemini API names the model and the streaming choice in the path
 * ({version}/models/{model}:generateContent or :streamGenerateContent), refuses a function
 * call turn that does not follow a user turn or a function response turn, and words its
 * refusals of a broken tool-call history in its own texts (SPEC.md 6.7).
 */
#ifndef OCK_MOCK_GEMINI_H
#define OCK_MOCK_GEMINI_H

#include <stddef.h>

#include <cJSON.h>

#include "ock/buf.h"
#include "ock/message.h"
#include "state.h"
#include "validate.h"

/* ock__gemini_route: core's ock_gemini_route (ock/gemini.h), which `ock record` reads paths
 * with too: when path ends in /v1/models/M:generateContent or
 * :streamGenerateContent (or /v1beta/...), the length of what comes before "/v1" ("" or
 * "/p/NAME"), with *model and *model_len naming M in path and *stream set for
 * streamGenerateContent; -1 for any other path (outputs untouched). */
long ock__gemini_route(const char *path, const char **model, size_t *model_len, int *stream);

/* ock__gemini_sse: the request asks for SSE (?alt=sse). */
int ock__gemini_sse(const struct mock_request *rq);

/* ock__validate_gemini: ock__validate_first's rules with results in the turn right after
 * their calls, then Gemini's own: a model turn with function calls must come right after a
 * user turn or a function response turn (reported as A04_INTERLEAVED_ASST_MSG naming that
 * turn, when it comes before any other problem). OCK_OK or OCK_ENOMEM. */
int ock__validate_gemini(const struct ock_history *h, struct mock_finding *out);

/* ock__gemini_history_error appends the API's 400 text for a finding; raw is the request's
 * "contents". */
int ock__gemini_history_error(const struct mock_finding *f, const cJSON *raw, struct ock_buf *out);

#endif
