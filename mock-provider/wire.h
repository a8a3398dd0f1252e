/*
 * wire.h: what the mock adds to core's provider wires (ock/wire.h).
 *
 * Core encodes a neutral reply as either wire's bytes; the mock decides what the reply is.
 * A scripted answer (struct mock_answer) is that decision with everything the bytes depend on
 * resolved; ock__answer_body and ock__answer_events hand it to the wire's encoders. The
 * provider's texts for a broken history (SPEC 6.7) are keyed on the validator's findings, so
 * they stay here too.
 */
#ifndef OCK_MOCK_WIRE_H
#define OCK_MOCK_WIRE_H

#include <stddef.h>

#include <cJSON.h>

#include "ock/fixture.h"
#include "ock/buf.h"
#include "ock/wire.h"
#include "ock/wire_responses.h"
#include "validate.h"

struct mock_answer_call {
  const char *id; /* call_... / toolu_... */
  const char *name;
  const char *arguments; /* the wire's arguments text (may not be JSON when raw) */
  int raw;
};

/* One scripted answer, in neutral terms, with everything the bytes depend on decided. */
struct mock_answer {
  const char *id;    /* chatcmpl-... / msg_... */
  const char *model; /* echoed from the request, else the provider's */
  long long created; /* OpenAI "created" */
  const char *text;  /* NULL or "": no text */
  const struct mock_answer_call *calls;
  size_t n_calls;
  const char *finish;        /* finish_reason / stop_reason, resolved */
  const char *stop_sequence; /* Anthropic "stop_sequence": the sequence it stopped on, or NULL */
  long long input_tokens;
  long long output_tokens;
  long long chunk_size; /* characters per streamed delta */
  int include_usage;    /* OpenAI stream_options.include_usage */
};

/* ock__wire_for gives the wire of an api. */
const struct ock_wire_ops *ock__wire_for(enum ock_wire api);

/* ock__answer_body appends the non-streaming reply body of a; ock__answer_events the SSE
 * events of it streamed, one piece per event. OCK_OK, OCK_ENOMEM, OCK_ETOOBIG. */
int ock__answer_body(const struct ock_wire_ops *w, const struct mock_answer *a,
                     struct ock_buf *out);
int ock__answer_events(const struct ock_wire_ops *w, const struct mock_answer *a,
                       struct ock_chunks *out);

/* The Responses API output items of a (what its reply carries), for the store of referenceable
 * items: ock__answer_items says how many; ock__answer_item writes item k's id (id_n of 160
 * holds any) and appends its compact JSON to json. OCK_OK or OCK_ENOMEM. */
size_t ock__answer_items(const struct mock_answer *a);
int ock__answer_item(const struct mock_answer *a, size_t k, char *id, size_t id_n,
                     struct ock_buf *json);

/* ock__history_error: the provider's 400 message for a finding (SPEC 6.7); raw is the
 * request's "messages". Appends OpenAI's param and code to param and code (nothing for
 * Anthropic) and the message to out. */
int ock__history_error(enum ock_wire api, const struct mock_finding *f, const cJSON *raw,
                       struct ock_buf *param, struct ock_buf *code, struct ock_buf *out);

#endif
