/*
 * wire.h: the two provider wire formats the mock speaks, as one table of functions.
 *
 * A wire turns a scripted answer (struct mock_answer, neutral) into the bytes the real API
 * would send: the non-streaming JSON body, or the exact sequence of SSE events, plus the
 * provider's error envelopes and error texts. openai_wire.c and anthropic_wire.c each define
 * one `const struct mock_wire`; the server picks one by the provider's api. Everything here
 * builds byte strings and does no I/O, so tests compare bytes.
 */
#ifndef OCK_MOCK_WIRE_H
#define OCK_MOCK_WIRE_H

#include <stddef.h>

#include <cJSON.h>

#include "ock/buf.h"
#include "fixture.h"
#include "validate.h"

/* A list of byte strings: SSE events in order, or one body. Each piece is owned. */
struct mock_chunks {
  char **items;
  size_t *lens;
  size_t n;
  size_t cap;
};

void ock__chunks_init(struct mock_chunks *c);
void ock__chunks_free(struct mock_chunks *c);
/* ock__chunks_push appends a copy of n bytes; OCK_OK or OCK_ENOMEM. */
int ock__chunks_push(struct mock_chunks *c, const char *p, size_t n);
/* ock__chunks_insert inserts a copy at position at (<= n). */
int ock__chunks_insert(struct mock_chunks *c, size_t at, const char *p, size_t n);
/* ock__chunks_truncate keeps the first n pieces. */
void ock__chunks_truncate(struct mock_chunks *c, size_t n);
/* ock__chunks_total: the sum of the pieces' lengths. */
size_t ock__chunks_total(const struct mock_chunks *c);

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

struct mock_wire {
  const char *name;              /* "openai" / "anthropic" */
  const char *call_prefix;       /* "call_" / "toolu_" */
  const char *finish_text;       /* the finish reason of a text answer: "stop" / "end_turn" */
  const char *finish_tools;      /* ... of an answer with tool calls: "tool_calls" / "tool_use" */
  const char *request_id_header; /* "x-request-id" / "request-id" */

  /* body: the non-streaming reply body. Appends to out. OCK_OK, OCK_ENOMEM, OCK_ETOOBIG. */
  int (*body)(const struct mock_answer *a, struct ock_buf *out);
  /* events: the SSE events of a streamed reply, one piece per event, the stream's
   * terminator ([DONE] / message_stop) last. */
  int (*events)(const struct mock_answer *a, struct mock_chunks *out);
  /* terminators: how many pieces at the end of events() are the terminator sequence a
   * faulted stream leaves out (OpenAI: the final [DONE]; Anthropic: message_stop). */
  size_t terminators;
  /* error_body: the provider's error envelope for an HTTP status (SPEC 6.6). message NULL:
   * "ock: scripted HTTP <status>"; param, code: OpenAI's "param" and "code" (NULL: the
   * status's usual code, else null); request_id: Anthropic's "request_id". */
  int (*error_body)(int status, const char *message, const char *param, const char *code,
                    const char *request_id, struct ock_buf *out);
  /* error_event: an in-stream error event (status picks the error type; 0: OpenAI's
   * server_error, Anthropic's overloaded_error). message NULL: "ock: scripted stream error". */
  int (*error_event)(int status, const char *message, struct ock_buf *out);
  /* malformed_event: an event whose data is not JSON (`data: {"ock":`). */
  int (*malformed_event)(struct ock_buf *out);
  /* history_error: the provider's 400 message for a finding (SPEC 6.7); raw is the request's
   * "messages". Appends OpenAI's param and code to param and code (nothing for Anthropic) and
   * the message to out. */
  int (*history_error)(const struct mock_finding *f, const cJSON *raw, struct ock_buf *param,
                       struct ock_buf *code, struct ock_buf *out);
};

/* ock__is_ping: the piece is an Anthropic ping event (faults do not count pings). */
int ock__is_ping(const char *piece);

extern const struct mock_wire ock__openai_wire;
extern const struct mock_wire ock__anthropic_wire;

/* ock__wire_for gives the wire of an api. */
const struct mock_wire *ock__wire_for(enum mock_api api);

/* ock__utf8_prefix: how many bytes of s (of length len) hold its first `chars` characters;
 * never splits a UTF-8 sequence, so a streamed delta is always valid text. */
size_t ock__utf8_prefix(const char *s, size_t len, long long chars);

/* ock__print_to prints v compactly, appends it to out, and deletes v (ownership taken,
 * NULL allowed: then OCK_ENOMEM, for the caller's failed cJSON_Create*). */
int ock__print_to(struct ock_buf *out, cJSON *v);

/* ock__sse_event appends "event: NAME\n" (when name is not NULL) and "data: DATA\n\n" as one
 * piece to out; data is taken as it is. */
int ock__sse_event(struct mock_chunks *out, const char *name, const char *data, size_t len);

#endif
