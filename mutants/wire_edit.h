/*
 * wire_edit.h: small, precise edits of an LLM request's conversation, on both wires.
 *
 * The history mutations (a result removed, duplicated, reordered, a message slipped between a
 * call and its results, a reminder stored) must produce the same broken shape whether the SUT
 * speaks OpenAI Chat Completions (tool results are `role: "tool"` messages) or Anthropic
 * Messages (tool results are `tool_result` blocks in a user message). This module hides that
 * difference. It only edits the parsed request body it is given; every function returns 1 when
 * it changed something and 0 when the request has nothing to edit, and never fails otherwise.
 */
#ifndef OCK_MUTANTS_WIRE_EDIT_H
#define OCK_MUTANTS_WIRE_EDIT_H

#include <cJSON.h>

#include "mutant.h"

/* wire_result_count: the tool results in the request. */
int wire_result_count(const cJSON *body, enum mutant_wire w);

/* wire_drop_last_result removes the last tool result (and an Anthropic user message it leaves
 * empty). */
int wire_drop_last_result(cJSON *body, enum mutant_wire w);

/* wire_rename_last_result gives the last tool result the id "<id><suffix>". */
int wire_rename_last_result(cJSON *body, enum mutant_wire w, const char *suffix);

/* wire_duplicate_last_result adds a copy of the last tool result right after it. */
int wire_duplicate_last_result(cJSON *body, enum mutant_wire w);

/* wire_reverse_results reverses the order of the last group of two or more results that
 * answer one assistant message. */
int wire_reverse_results(cJSON *body, enum mutant_wire w);

/* wire_rename_call appends suffix to the id of the first call of the last assistant message
 * with calls, and to the id of its result, so the history stays consistent. */
int wire_rename_call(cJSON *body, enum mutant_wire w, const char *suffix);

/* wire_alter_call_arguments adds the member "ock_mutant": true to the arguments of the first
 * call of the last assistant message with calls (OpenAI: the arguments text, re-printed; a text
 * that is not a JSON object is left alone). */
int wire_alter_call_arguments(cJSON *body, enum mutant_wire w);

/* wire_rename_call_tool appends suffix to the tool name of the first call of the last
 * assistant message with calls (its result is left alone). */
int wire_rename_call_tool(cJSON *body, enum mutant_wire w, const char *suffix);

/* wire_split_call puts a user message with text between the last assistant message with calls
 * and its results (Anthropic: a text block before the results in their user message). */
int wire_split_call(cJSON *body, enum mutant_wire w, const char *text);

/* wire_set_result_texts replaces the text of every tool result with text; when only_success,
 * results whose text starts with "Error:" are kept. */
int wire_set_result_texts(cJSON *body, enum mutant_wire w, const char *text, int only_success);

/* wire_suffix_error_results appends suffix to the text of every tool result whose text starts
 * with "Error: " (texts longer than 4 KiB are cut there first). */
int wire_suffix_error_results(cJSON *body, enum mutant_wire w, const char *suffix);

/* wire_find_message: the index in messages of the first message whose text contains needle,
 * or -1. */
int wire_find_message(const cJSON *body, const char *needle);

/* wire_move_into_call moves the message at index i (see wire_find_message) to directly after
 * the last assistant message with calls that comes before it, so it lands between that call
 * and its results. Anthropic: when the text is a block of the results' user message, it is
 * moved in front of the tool_result blocks instead. */
int wire_move_into_call(cJSON *body, enum mutant_wire w, const char *needle);

/* wire_drop_message removes every assistant message whose whole text equals text. */
int wire_drop_message(cJSON *body, const char *role, const char *text);

/* wire_insert_user_first inserts a user message with text as the first message after any
 * leading system messages. */
int wire_insert_user_first(cJSON *body, const char *text);

/* wire_insert_assistant_before_prompt inserts an assistant message with text directly before
 * the last user message, unless an assistant message is already there or that user message is
 * the first message. */
int wire_insert_assistant_before_prompt(cJSON *body, const char *text);

/* wire_move_to_system moves the text that contains needle out of the messages: OpenAI turns
 * its message's role into "system"; Anthropic moves it to the top-level "system" field. */
int wire_move_to_system(cJSON *body, enum mutant_wire w, const char *needle);

/* Where a text of the conversation sits, for wire_map_texts. */
enum wire_text_kind {
  WIRE_TEXT_RESULT,   /* a tool result (OpenAI role "tool", Anthropic tool_result block) */
  WIRE_TEXT_USER,     /* a user message, or a text block of one */
  WIRE_TEXT_ASSISTANT /* an assistant message, or a text block of one */
};

/* wire_text_fn: the new text for text, written into buf (n bytes) or a string that outlives
 * the call, or NULL to leave it. */
typedef const char *(*wire_text_fn)(enum wire_text_kind kind, const char *text, char *buf,
                                    size_t n);

/* wire_map_texts gives every text of the messages (a string content, a text part, a tool
 * result's string content or its text parts; system messages and the top-level system field
 * are left alone) to fn, and puts what it returns in its place. */
int wire_map_texts(cJSON *body, enum mutant_wire w, wire_text_fn fn);

/* wire_text_of: the text of a message (a string content, or its text parts joined), into buf;
 * returns buf. */
const char *wire_text_of(const cJSON *message, char *buf, size_t n);

#endif
