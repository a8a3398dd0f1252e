/*
 * wire_request.h: an LLM request body (OpenAI Chat Completions, Anthropic Messages, the OpenAI
 * Responses API or the Gemini API) read straight from its bytes, without a JSON tree.
 *
 * The mock reads every request it serves: the model, stream, stream_options.include_usage,
 * the offered tools' names, the system prompt and the messages as the neutral history
 * (message.h), and it journals the request. A cJSON tree of the body, then the history built
 * from the tree, then a journal tree printed back to text allocated per node and was most of
 * the mock's work per request. This reader scans the bytes, fills the history directly, and
 * keeps spans (offsets into the body) of the members the journal line copies.
 *
 * It takes a strict subset: a well-formed request in the shape both APIs accept, in plain JSON
 * (member names without escapes, no control characters, \u0000 or surrogate escapes in
 * strings, numbers without exponent and of at most 15 digits, no member name given twice in
 * an object and at most 32 members in one, nesting at most 64 deep, nothing but white space
 * after the body). Anything
 * else, malformed or only unusual, is declined with OCK_EJSON: the caller then reads it with
 * the tree reader (cJSON and ock_history_from_openai / _anthropic / _responses / _gemini),
 * which is the reference for what is accepted and words every error with its JSON path. Inside
 * the subset the results are the tree reader's, string for string. Each API's own shapes that
 * the tree reader refuses are declined too: an empty messages array or Gemini contents, a
 * Gemini turn without parts; and so is a Responses input item of type item_reference, which
 * the tree path resolves.
 */
#ifndef OCK_WIRE_REQUEST_H
#define OCK_WIRE_REQUEST_H

#include <stddef.h>

#include "ock/buf.h"
#include "ock/message.h"

/* Bytes [at, at + len) of the body; len 0: absent. */
struct ock_wire_span {
  size_t at;
  size_t len;
};

/* One top-level member of the body: its name and value as they are in the body. */
struct ock_wire_member {
  struct ock_wire_span key; /* the name's JSON string, quotes included */
  struct ock_wire_span value;
};

/* The request's API (the values of the mock's OCK_WIRE_ names). */
enum ock_request_api {
  OCK_REQUEST_OPENAI = 0,
  OCK_REQUEST_ANTHROPIC = 1,
  OCK_REQUEST_RESPONSES = 2,
  OCK_REQUEST_GEMINI = 3
};

struct ock_request_read {
  char *model;                   /* owned; never empty. Gemini: NULL (the model is in the URL) */
  int stream;                    /* Gemini: 0 (the method in the URL says it) */
  int include_usage;             /* OpenAI stream_options.include_usage */
  struct ock_wire_span messages; /* the "messages" array; Responses: "input" (an array or a
                                    string); Gemini: "contents" */
  struct ock_wire_span system;   /* the "system" member's value (Gemini: "systemInstruction"),
                                    or absent */
  /* every other member, in body order (owned); none named messages, system, input, contents
   * or systemInstruction */
  struct ock_wire_member *params;
  size_t n_params;
  struct ock_wire_span *tool_names; /* owned: per offered tool, its name as a JSON string
                                       (quotes included), or absent when it has none */
  size_t n_tools;
  struct ock_history history; /* owned: the messages (and Anthropic's system, the Responses
                                 instructions, Gemini's systemInstruction), neutral */
  /* Responses API: the history's first n_instructions (0 or 1) items are the instructions;
   * previous_response_id (owned, NULL when absent); store (the API's default: 1) */
  size_t n_instructions;
  char *previous_id;
  int store;
  int *result_blocks; /* owned; Anthropic only (else NULL): per history item, for a tool result
                         the index, in the content of its wire message, of the first
                         tool_result block answering the same id; -1 for other items */
};

/* ock_wire_request_read reads body[0..len) as a request of the given API. Returns OCK_OK (*out
 * filled; free with ock_wire_request_free), OCK_EJSON when the body is outside the subset above
 * (read it with the tree reader), or OCK_ENOMEM. On failure *out holds nothing to free. */
int ock_wire_request_read(const char *body, size_t len, enum ock_request_api api,
                          struct ock_request_read *out);

/* ock_wire_request_free frees what a successful read filled; the struct is then zeroed. */
void ock_wire_request_free(struct ock_request_read *r);

/* ock_wire_compact appends the JSON value text[0..len) without its white space (strings are
 * copied as they are). text must be valid JSON, as a span of a successful read is. Returns
 * OCK_OK or ock_buf_append's error. */
int ock_wire_compact(struct ock_buf *out, const char *text, size_t len);

/* ock_wire_object_text: when text[0..len) is one JSON object, white space around it allowed,
 * in the subset above and in the bytes cJSON prints for it once its white space is removed
 * (escapes only \" \\ \b \f \n \r \t, whole numbers only), appends that compact text and
 * returns OCK_OK. Otherwise appends nothing and returns OCK_EJSON (or ock_buf_append's error):
 * the caller parses it with cJSON. */
int ock_wire_object_text(struct ock_buf *out, const char *text, size_t len);

#endif
