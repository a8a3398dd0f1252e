/*
 * wire_responses.h: the OpenAI Responses API as a third provider wire (its table is
 * ock_wire_responses, reached with ock_wire_get(OCK_WIRE_RESPONSES)).
 *
 * A Responses conversation is a flat list of input items, not messages: a message item
 * ({role, content} with a string or input_text/output_text parts), a function_call item per
 * tool call ({type, call_id, name, arguments}) and a function_call_output item per result
 * ({type, call_id, output}); reasoning items ride along and carry nothing a conversation needs.
 * The neutral form (message.h) joins an assistant text and the function_call items right after
 * it into one assistant message with calls, so the validator judges all wires alike.
 */
#ifndef OCK_WIRE_RESPONSES_H
#define OCK_WIRE_RESPONSES_H

#include <cJSON.h>

#include "ock/buf.h"
#include "ock/json.h"
#include "ock/message.h"
#include "ock/wire.h"

extern const struct ock_wire_ops ock_wire_responses;

/* ock_history_to_responses: the history as an input array (system and user messages as
 * {role, content}, an assistant text as {role: "assistant", content}, each call as a
 * function_call item, each result as a function_call_output item). *out is owned by the
 * caller. OCK_OK or OCK_ENOMEM. */
int ock_history_to_responses(const struct ock_history *h, cJSON **out);

/* ock_history_from_responses appends the input items to out: input may be a string (one user
 * message) or an array of items. Each message's wire_index is its item's index in input
 * (the first item of a joined assistant message). Item types other than message,
 * function_call and function_call_output (reasoning, ...) are skipped. On failure err names
 * the JSON path under "$.input". */
int ock_history_from_responses(const cJSON *input, struct ock_history *out, struct ock_jerr *err);

/* The output items of a finished reply, as its Response object carries them: the text as a
 * message item msg_..., then one function_call item fc_..._I per call, each with its id. The
 * Responses API stores them under those ids, for a later item_reference.
 * ock_responses_output_len: how many there are. ock_responses_item_id writes item k's id
 * (k < that; n of 160 holds any). ock_responses_write_item appends item k to out as compact
 * JSON: OCK_OK or OCK_ENOMEM. */
size_t ock_responses_output_len(const struct ock_reply *r);
void ock_responses_item_id(const struct ock_reply *r, size_t k, char *out, size_t n);
int ock_responses_write_item(const struct ock_reply *r, size_t k, struct ock_buf *out);

/* ock_reply_from_responses reads a Response object (output items, status, usage). The finish
 * reason is the status ("completed"), or for status "incomplete" incomplete_details.reason
 * ("max_output_tokens", "content_filter"). */
int ock_reply_from_responses(const cJSON *body, struct ock_reply *out, struct ock_jerr *err);

#endif
