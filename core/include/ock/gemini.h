/*
 * gemini.h: what only the Gemini API wire needs beyond the table of ock/wire.h.
 *
 * The Gemini API (generateContent) spells a conversation as `contents`: user and model turns of
 * `parts`. A model turn's tool calls are `functionCall` parts ({id?, name, args}); their
 * results come back in the next user turn as `functionResponse` parts ({id?, name, response}).
 * The system prompt is the top-level `systemInstruction`. The model and the streaming choice
 * are in the URL, not the body. Pure: no I/O.
 */
#ifndef OCK_GEMINI_H
#define OCK_GEMINI_H

#include <stddef.h>

#include <cJSON.h>

#include "ock/buf.h"
#include "ock/json.h"
#include "ock/message.h"

/* ock_gemini_route reads a request path: when it ends in /v1/models/M:generateContent or
 * :streamGenerateContent (or /v1beta/...), returns the length of what comes before "/v1" (""
 * or a prefix such as "/p/NAME"), with *model and *model_len naming M in path and *stream set
 * for streamGenerateContent; -1 for any other path (outputs untouched). The mock routes with it
 * and `ock record` tells a Gemini request by it. */
long ock_gemini_route(const char *path, const char **model, size_t *model_len, int *stream);

/* ock_history_to_gemini: the history as `contents` (*out, a new array the caller deletes)
 * and the system messages joined by a blank line as a `systemInstruction` object
 * (*out_system, caller deletes; NULL when there are none). Consecutive tool results become
 * one user turn of functionResponse parts, each named after the call it answers (found by id
 * earlier in the history) and carrying {"output": text}, or {"error": text} for a failure.
 * Call arguments that are not a JSON object are sent as an empty args {}. OCK_OK or
 * OCK_ENOMEM. */
int ock_history_to_gemini(const struct ock_history *h, cJSON **out, cJSON **out_system);

/* ock_history_from_gemini reads a request's `contents` (and `systemInstruction`, may be NULL)
 * into the neutral history (appends to out). A model turn becomes an assistant message; a
 * user turn becomes its text as a user message and each functionResponse part as a tool
 * message, in the turn's part order; every message has the turn's index as wire_index.
 * Parts marked "thought" are not text. Ids: a functionCall without an id is given
 * "ock-fc:<turn>.<k>" (k counts its turn's calls); a functionResponse without an id answers
 * the first call of the turn right before it with the same name that no earlier response of
 * its turn took (Gemini pairs by name, then order), and gets "ock-fr:<turn>.<k>", matching no
 * call, when there is none. OCK_OK; OCK_ENOMEM; OCK_ETYPE / OCK_EMISSING / OCK_EINVAL with
 * err naming the path ($.contents[2].parts[0].functionCall.name) for a body that is not the
 * documented shape. */
int ock_history_from_gemini(const cJSON *system, const cJSON *contents, struct ock_history *out,
                            struct ock_jerr *err);

/* ock_gemini_response_text renders a functionResponse's `response` as a tool message's text:
 * the string "output" or "error" member as it is (*is_error set for "error"), anything else as
 * compact JSON. Caller frees; NULL when out of memory. */
char *ock_gemini_response_text(const cJSON *response, int *is_error);

#endif
