/*
 * wire.h: the two provider wires, OpenAI Chat Completions and Anthropic Messages, as one table
 * of functions per wire.
 *
 * Everything that knows how a provider spells a conversation lives behind this header: the
 * request body built from the neutral history, the reply as a JSON body or as the exact
 * sequence of SSE events, the reading of both back into a neutral reply (struct ock_reply,
 * message.h), the error envelopes, and edits of a request's history. The mock encodes replies
 * with it, the reference encodes requests and decodes replies with it, ock-mutant edits
 * histories with it; none of them knows a wire's field names. Request decoding (what a
 * provider receives) is in message.h. Nothing here does I/O: bytes in, bytes or structs out,
 * so the tests compare bytes.
 */
#ifndef OCK_WIRE_H
#define OCK_WIRE_H

#include <stddef.h>

#include <cJSON.h>

#include "ock/buf.h"
#include "ock/json.h"
#include "ock/message.h"

enum ock_wire {
  OCK_WIRE_OPENAI,
  OCK_WIRE_ANTHROPIC,
  OCK_WIRE_RESPONSES, /* the OpenAI Responses API: ock/wire_responses.h */
  OCK_WIRE_GEMINI     /* the Gemini API */
};

/* ---- byte pieces ----------------------------------------------------------------------------
 * A list of byte strings: SSE events in order, one piece per event, or one body. Each piece is
 * owned by the list and NUL-terminated (lens[i] does not count the NUL). */
struct ock_chunks {
  char **items;
  size_t *lens;
  size_t n;
  size_t cap;
};

void ock_chunks_init(struct ock_chunks *c);
/* ock_chunks_free frees every piece; the list is then empty and reusable. */
void ock_chunks_free(struct ock_chunks *c);
/* ock_chunks_push appends a copy of n bytes; OCK_OK or OCK_ENOMEM. */
int ock_chunks_push(struct ock_chunks *c, const char *p, size_t n);
/* ock_chunks_insert inserts a copy at position at (past the end: appends). */
int ock_chunks_insert(struct ock_chunks *c, size_t at, const char *p, size_t n);
/* ock_chunks_truncate keeps the first n pieces. */
void ock_chunks_truncate(struct ock_chunks *c, size_t n);
/* ock_chunks_total: the sum of the pieces' lengths. */
size_t ock_chunks_total(const struct ock_chunks *c);

/* ock_sse_frame appends "event: NAME\n" (when name is not NULL) and "data: DATA\n\n" as one
 * piece to out; data is taken as it is (one line). */
int ock_sse_frame(struct ock_chunks *out, const char *name, const char *data, size_t len);

/* ock_sse_is_ping: the piece is an Anthropic ping event. */
int ock_sse_is_ping(const char *piece);

/* ock_utf8_prefix: how many bytes of s (of length len) hold its first `chars` characters;
 * never splits a UTF-8 sequence, so a streamed delta is always valid text. */
size_t ock_utf8_prefix(const char *s, size_t len, long long chars);

/* ---- requests ------------------------------------------------------------------------------ */

/* A tool offered to the model. Borrowed. */
struct ock_tool_spec {
  const char *name;
  const char *description;   /* may be NULL */
  const cJSON *input_schema; /* a JSON Schema object; NULL offers {"type":"object"} */
};

/* What a request body is made of. Everything is borrowed for the call. */
struct ock_wire_request {
  const char *model;
  const struct ock_history *messages;
  const struct ock_tool_spec *tools;
  size_t n_tools;
  int stream;     /* "stream": true */
  int max_tokens; /* Anthropic's required max_tokens (OpenAI: not sent) */
};

/* The history as a request's messages. *out is a new JSON array owned by the caller
 * (cJSON_Delete). Anthropic: system messages are joined (blank line between) into *out_system
 * (caller frees; NULL when there is none); consecutive tool results become one user message of
 * tool_result blocks; tool-call arguments that are not a JSON object are sent as an empty
 * input {}. */
int ock_history_to_openai(const struct ock_history *h, cJSON **out);
int ock_history_to_anthropic(const struct ock_history *h, cJSON **out, char **out_system);
/* ock_history_write_openai appends the same messages array as JSON text (what
 * ock_history_to_openai's tree prints as), without building the tree: the reference sends the
 * whole history on every turn. Returns OCK_OK or OCK_ENOMEM. */
int ock_history_write_openai(const struct ock_history *h, struct ock_buf *out);

/* ---- replies ------------------------------------------------------------------------------- */

/* How a reply is framed beyond its content (struct ock_reply): what the encoders need and
 * the decoders do not give back. Borrowed for the call. */
struct ock_wire_frame {
  const char *model;
  long long created;         /* OpenAI "created" */
  const char *stop_sequence; /* Anthropic "stop_sequence": the one it stopped on, or NULL */
  long long chunk_size;      /* characters per streamed delta (at least 1) */
  int include_usage;         /* OpenAI stream_options.include_usage: a usage chunk at the end */
};

/* One piece of a streamed reply. text is a fragment of the reply's text (may be ""); when
 * tool_index >= 0 the delta also carries a fragment of tool call number tool_index (0-based,
 * in reply order): tool_id and tool_name on its first fragment (else NULL), tool_args a piece
 * of its arguments JSON text. All borrowed for the callback. */
struct ock_delta {
  const char *text;
  int tool_index;
  const char *tool_id;
  const char *tool_name;
  const char *tool_args;
};

/* Called once per delta, in order. A non-zero return abandons the stream. */
typedef int (*ock_delta_fn)(void *user, const struct ock_delta *d);

/* What a decoder found wrong with a stream or an error body. */
struct ock_wire_error {
  char type[64];     /* "stream_error", "cancelled", or the provider's error type */
  char message[512]; /* for a person */
};

/* A streamed reply being decoded, event by event (see ock_wire_stream_event). */
typedef struct ock_wire_stream ock_wire_stream;

/* Parse a provider's non-streaming reply body (the tables' decode_reply). Returns OCK_OK, or
 * OCK_EPROTO with err naming the path when the body is not the documented shape. */
int ock_reply_from_openai(const cJSON *body, struct ock_reply *out, struct ock_jerr *err);
int ock_reply_from_anthropic(const cJSON *body, struct ock_reply *out, struct ock_jerr *err);

/* Where one tool result sits in a parsed request body (for the history edits). Borrowed from
 * the body. */
struct ock_wire_result {
  cJSON *msg;       /* the message that holds the result */
  int msg_index;    /* its index in messages */
  cJSON *container; /* the array the result is an item of */
  int index;        /* its index there */
  cJSON *item;      /* the result: a message (OpenAI) or a block (Anthropic) */
};

/* ---- the table ----------------------------------------------------------------------------- */

struct ock_wire_ops {
  const char *name; /* "openai" / "anthropic" */
  enum ock_wire wire;
  const char *path;              /* the endpoint under the base URL: "/chat/completions", ... */
  const char *call_prefix;       /* tool call ids: "call_" / "toolu_" */
  const char *finish_text;       /* the finish reason of a text reply: "stop" / "end_turn" */
  const char *finish_tools;      /* ... of a reply with tool calls: "tool_calls" / "tool_use" */
  const char *request_id_header; /* "x-request-id" / "request-id" */
  const char *end_marker;        /* what ends a stream: "data: [DONE]" / "message_stop" */
  /* terminators: how many pieces at the end of encode_events are the end marker (a cut
   * stream leaves them out). */
  size_t terminators;

  /* encode_request appends the request body as JSON text. OCK_OK or OCK_ENOMEM. */
  int (*encode_request)(const struct ock_wire_request *req, struct ock_buf *out);

  /* encode_reply appends the non-streaming reply body. A NULL finish_reason is the wire's
   * finish_text or finish_tools; negative token counts are sent as 0. OCK_OK, OCK_ENOMEM,
   * OCK_ETOOBIG (out's cap). */
  int (*encode_reply)(const struct ock_reply *r, const struct ock_wire_frame *f,
                      struct ock_buf *out);
  /* encode_events appends the SSE events of the same reply streamed, one piece per event, the
   * end marker last. */
  int (*encode_events)(const struct ock_reply *r, const struct ock_wire_frame *f,
                       struct ock_chunks *out);
  /* decode_reply reads a non-streaming reply body into *out (initialised by the caller, moved
   * in on success). OCK_OK, OCK_ENOMEM, or OCK_EPROTO with err naming the JSON path. */
  int (*decode_reply)(const cJSON *body, struct ock_reply *out, struct ock_jerr *err);
  /* decode_event maps one parsed SSE event of a stream (private to wire*.c). */
  int (*decode_event)(ock_wire_stream *s, const char *name, const cJSON *data,
                      struct ock_wire_error *err);

  /* encode_error appends the provider's error envelope for an HTTP status. message NULL:
   * "ock: scripted HTTP <status>"; param, code: OpenAI's "param" and "code" (code NULL: the
   * status's usual code, else null); request_id: Anthropic's "request_id". */
  int (*encode_error)(int status, const char *message, const char *param, const char *code,
                      const char *request_id, struct ock_buf *out);
  /* encode_error_event appends an in-stream error event (status 0: OpenAI's server_error with
   * code null, Anthropic's overloaded_error). message NULL: "ock: scripted stream error". */
  int (*encode_error_event)(int status, const char *message, struct ock_buf *out);
  /* encode_error_event_at, when not NULL, is encode_error_event for an event that becomes piece
   * number seq of its stream: the Responses API numbers its events (sequence_number). */
  int (*encode_error_event_at)(size_t seq, int status, const char *message, struct ock_buf *out);
  /* encode_malformed_event appends an event whose data is not JSON (`data: {"ock":`). */
  int (*encode_malformed_event)(struct ock_buf *out);

  /* Where a conversation's parts sit in a parsed request body, for the history edits:
   * find_results lists the tool results in order (at most max; returns how many), find_calls
   * gives the array holding an assistant message's calls (NULL when it has none), is_call
   * tells a call among that array's items, result_id_key names a result's call id. */
  int (*find_results)(const cJSON *body, struct ock_wire_result *out, int max);
  cJSON *(*find_calls)(cJSON *message);
  int (*is_call)(const cJSON *item);
  const char *result_id_key; /* "tool_call_id" / "tool_use_id" */
};

extern const struct ock_wire_ops ock_wire_openai;
extern const struct ock_wire_ops ock_wire_anthropic;
extern const struct ock_wire_ops ock_wire_gemini; /* wire_gemini.c; more in ock/gemini.h */

/* ock_wire_get: the table of a wire (OpenAI for an unknown value). */
const struct ock_wire_ops *ock_wire_get(enum ock_wire wire);

/* ock_wire_decode_error reads an error body of any wire ({"error": {"type", "message"}}, or
 * Gemini's {"error": {"code", "message", "status"}}, whose status is then the type). OCK_OK
 * with out filled (type "" when absent), OCK_EPROTO when the body is not that shape. */
int ock_wire_decode_error(const char *body, size_t len, struct ock_wire_error *out);

/* ---- stream decoding ------------------------------------------------------------------------
 * Feed the SSE events of one streamed reply (sse.h gives them). OpenAI: chat.completion.chunk
 * objects ending with "[DONE]", tool calls as fragments by index. Anthropic: message_start,
 * content_block_start/delta/stop (text_delta, input_json_delta), message_delta, message_stop;
 * ping and unknown events ignored. Every text or tool-call fragment is reported as an
 * ock_delta, in order; the reply at the end holds the concatenated text (exactly the text
 * deltas), the tool calls with their reassembled arguments, the finish reason and usage. A
 * chunk that is not JSON, an error event, or a stream that stops before its end marker is an
 * error, never a partial reply. */

/* ock_wire_stream_new: a decoder for one reply on that wire, holding at most max bytes of text
 * and arguments in all. Free with ock_wire_stream_free (NULL is a no-op). */
int ock_wire_stream_new(enum ock_wire wire, size_t max, ock_wire_stream **out);
void ock_wire_stream_free(ock_wire_stream *s);

/* ock_wire_stream_event maps one SSE event (name may be "" or NULL; data as sent) and calls
 * on_delta (may be NULL) for each delta it yields. Returns OCK_OK; OCK_EPROTO for a malformed
 * chunk or an error event, OCK_ETOOBIG past the cap, OCK_ENOMEM, OCK_ECANCELLED when on_delta
 * returned non-zero; then *err says what happened ("stream_error", or "cancelled") and the
 * decoder is unusable. Events after the end marker are ignored. */
int ock_wire_stream_event(ock_wire_stream *s, const char *name, const char *data,
                          ock_delta_fn on_delta, void *user, struct ock_wire_error *err);

/* ock_wire_stream_done: 1 once the end marker was seen. */
int ock_wire_stream_done(const ock_wire_stream *s);

/* ock_wire_stream_finish gives the reply (*out initialised by the caller; moved in on
 * success). OCK_EPROTO with *err when the end marker never came (a cut stream). */
int ock_wire_stream_finish(ock_wire_stream *s, struct ock_reply *out, struct ock_wire_error *err);

/* ---- history edits --------------------------------------------------------------------------
 * Small, precise edits of the conversation in a parsed request body, the same broken shape on
 * both wires (a result removed, duplicated, reordered, a message slipped between a call and
 * its results, a text moved): ock-mutant's lies are made of these. They only edit the body
 * they are given; each returns 1 when it changed something and 0 when the request has nothing
 * to edit (or w is NULL), and never fails otherwise. On the Responses API (input items) the
 * results, the message items and their texts are edited; the edits of a call message find none
 * there. */

/* ock_wire_result_count: the tool results in the request. */
int ock_wire_result_count(const cJSON *body, const struct ock_wire_ops *w);

/* ock_wire_drop_last_result removes the last tool result (and a message it leaves empty). */
int ock_wire_drop_last_result(cJSON *body, const struct ock_wire_ops *w);

/* ock_wire_rename_last_result gives the last tool result the id "<id><suffix>". */
int ock_wire_rename_last_result(cJSON *body, const struct ock_wire_ops *w, const char *suffix);

/* ock_wire_duplicate_last_result adds a copy of the last tool result right after it. */
int ock_wire_duplicate_last_result(cJSON *body, const struct ock_wire_ops *w);

/* ock_wire_reverse_results reverses the order of the last group of two or more results that
 * answer one assistant message. */
int ock_wire_reverse_results(cJSON *body, const struct ock_wire_ops *w);

/* ock_wire_rename_call appends suffix to the id of the first call of the last assistant
 * message with calls, and to the id of its result, so the history stays consistent. */
int ock_wire_rename_call(cJSON *body, const struct ock_wire_ops *w, const char *suffix);

/* ock_wire_alter_call_arguments adds the member `member`: true to the arguments of the first
 * call of the last assistant message with calls (OpenAI: the arguments text, re-printed; a
 * text that is not a JSON object is left alone). */
int ock_wire_alter_call_arguments(cJSON *body, const struct ock_wire_ops *w, const char *member);

/* ock_wire_rename_call_tool appends suffix to the tool name of the first call of the last
 * assistant message with calls (its result is left alone). */
int ock_wire_rename_call_tool(cJSON *body, const struct ock_wire_ops *w, const char *suffix);

/* ock_wire_copy_call_turn inserts, directly before the last assistant message, a copy of the
 * last assistant message with calls holding its first call only, and a copy of that call's
 * result (Anthropic: of the user message that holds it, with that result block only), the
 * copied call and result given the id `id`: a call stored with a result that the history did
 * not have. Nothing when that call has no result before the last assistant message. On the
 * OpenAI and Anthropic wires; on the Responses API and Gemini it finds no call to copy. */
int ock_wire_copy_call_turn(cJSON *body, const struct ock_wire_ops *w, const char *id);

/* ock_wire_split_call puts a user message with text between the last assistant message with
 * calls and its results (Anthropic: a text block before the results in their user message). */
int ock_wire_split_call(cJSON *body, const struct ock_wire_ops *w, const char *text);

/* ock_wire_set_result_texts replaces the text of every tool result with text; when
 * only_success, results whose text starts with "Error:" are kept. */
int ock_wire_set_result_texts(cJSON *body, const struct ock_wire_ops *w, const char *text,
                              int only_success);

/* ock_wire_suffix_error_results appends suffix to the text of every tool result whose text
 * starts with "Error: " (texts longer than 4 KiB are cut there first). */
int ock_wire_suffix_error_results(cJSON *body, const struct ock_wire_ops *w, const char *suffix);

/* ock_wire_find_message: the index in messages of the first message whose text contains
 * needle, or -1. */
int ock_wire_find_message(const cJSON *body, const char *needle);

/* ock_wire_move_into_call moves the message whose text contains needle to directly after the
 * last assistant message with calls that comes before it, so it lands between that call and
 * its results. Anthropic: when the text is a block of the results' user message, it is moved
 * in front of the tool_result blocks instead; when it is in the top-level system field, it is
 * cut from there and put between the call and its results. */
int ock_wire_move_into_call(cJSON *body, const struct ock_wire_ops *w, const char *needle);

/* ock_wire_drop_message removes every message of role whose whole text equals text. */
int ock_wire_drop_message(cJSON *body, const char *role, const char *text);

/* ock_wire_insert_user_first inserts a user message with text as the first message after any
 * leading system messages. */
int ock_wire_insert_user_first(cJSON *body, const char *text);

/* ock_wire_insert_assistant_before_prompt inserts an assistant message with text directly
 * before the last user message, unless an assistant message is already there or that user
 * message is the first message. */
int ock_wire_insert_assistant_before_prompt(cJSON *body, const char *text);

/* ock_wire_move_to_system moves the text that contains needle out of the messages: OpenAI
 * turns its message's role into "system"; Anthropic moves it to the top-level "system". */
int ock_wire_move_to_system(cJSON *body, const struct ock_wire_ops *w, const char *needle);

/* Where a text of the conversation sits, for ock_wire_map_texts. */
enum ock_wire_text_kind {
  OCK_WIRE_TEXT_RESULT,   /* a tool result (OpenAI role "tool", Anthropic tool_result block) */
  OCK_WIRE_TEXT_USER,     /* a user message, or a text block of one */
  OCK_WIRE_TEXT_ASSISTANT /* an assistant message, or a text block of one */
};

/* ock_wire_text_fn: the new text for text, written into buf (n bytes) or a string that
 * outlives the call, or NULL to leave it. */
typedef const char *(*ock_wire_text_fn)(enum ock_wire_text_kind kind, const char *text, char *buf,
                                        size_t n);

/* ock_wire_map_texts gives every text of the messages (a string content, a text part, a tool
 * result's string content or its text parts; system messages and the top-level system field
 * are left alone) to fn, and puts what it returns in its place. Both wires keep them in the
 * same places, so w may be NULL. */
int ock_wire_map_texts(cJSON *body, const struct ock_wire_ops *w, ock_wire_text_fn fn);

/* ock_wire_text_of: the text of a message (a string content, or its text parts joined), into
 * buf; returns buf. */
const char *ock_wire_text_of(const cJSON *message, char *buf, size_t n);

#endif
