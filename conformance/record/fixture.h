/*
 * fixture.h: a recorded session as a scenario (SPEC.md 8) that replays the model's side.
 *
 * The LLM exchanges of every wire are read through core's wire layer: the request's history
 * with the request readers of message.h (Chat Completions, Messages), wire_responses.h and
 * gemini.h, the reply, streamed or not, with the wire table's reply or stream decoder (wire.h).
 * A Responses API request that names previous_response_id is read whole: the conversation the
 * provider kept for that response (what led to it and the reply, as recorded) and then its own
 * input. A Gemini request's model and streaming choice come from its path. Each execute's prompt is
 * the last user message of the request that opened it; each reply becomes a turn in the neutral
 * form, matched by position; a 4xx/5xx is a status fault (with its Retry-After), a stream that
 * stopped before its end marker a cut_stream fault; a 400 or 422 (a request the provider refused as
 * invalid) is a text turn that says so, since in a replay the kit's validator judges each request
 * itself (a broken history still gets its 400, a fixed one an answer). The tools' results are what
 * the kit's tool endpoint answered or, for an agent that runs its tools itself, the result the next
 * request carried for each call id.
 */
#ifndef OCK_RECORD_FIXTURE_H
#define OCK_RECORD_FIXTURE_H

#include <stddef.h>

#include <cJSON.h>

#include "exchange.h"

/* ock__rec_fixture builds the fixture document of the exchanges (in arrival order). wire: the
 * --wire name, or NULL to take each request's wire from its path. *out is a new document;
 * OCK_OK, OCK_ENOMEM, or OCK_EINVAL with err when no LLM exchange was recorded. */
int ock__rec_fixture(struct rec_exchange *const *xs, size_t n, const char *wire, cJSON **out,
                     char *err, size_t errn);

/* ock__rec_wire_of: the wire table of an LLM request's path (or of the --wire name), or NULL
 * when the path is not an LLM endpoint. */
const struct ock_wire_ops *ock__rec_wire_of(const char *path, const char *wire);

#endif
