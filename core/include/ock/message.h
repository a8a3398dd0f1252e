/*
 * message.h: the neutral conversation model and its two wire forms.
 *
 * An orchestrator's context is a list of messages: system, user, assistant (text and/or tool
 * calls), and tool results. OpenAI Chat Completions and Anthropic Messages spell that list
 * differently (tool results are role "tool" messages in one, "tool_result" blocks inside a
 * user message in the other; the system prompt is a message in one and a top-level field in
 * the other). The neutral form here is what the reference orchestrator keeps and what the mock
 * validates; the readers of a request's messages are pure (JSON in, structs out) and do no
 * I/O. Writing a history, and reading and writing replies, is wire.h's.
 *
 * Ownership: every string in these structs is owned by the struct and freed by its clear/free
 * function. Functions that add to a history copy their arguments.
 */
#ifndef OCK_MESSAGE_H
#define OCK_MESSAGE_H

#include <stddef.h>

#include <cJSON.h>

#include "ock/json.h"

enum ock_role { OCK_ROLE_SYSTEM, OCK_ROLE_USER, OCK_ROLE_ASSISTANT, OCK_ROLE_TOOL };

/* ock_role_name gives "system", "user", "assistant" or "tool". */
const char *ock_role_name(enum ock_role role);
/* ock_role_parse maps a name to a role; returns OCK_OK or OCK_EINVAL. */
int ock_role_parse(const char *name, enum ock_role *out);

struct ock_tool_call {
  char *id;        /* the provider's id: call_... (OpenAI) or toolu_... (Anthropic) */
  char *name;      /* the tool's name as the model wrote it */
  char *arguments; /* JSON text as the model wrote it; may be invalid JSON ("{}" if none) */
};

struct ock_message {
  enum ock_role role;
  char *content;               /* text; NULL when the message has none */
  struct ock_tool_call *calls; /* assistant only; NULL when n_calls is 0 */
  size_t n_calls;
  char *tool_call_id; /* tool results only: the call this answers */
  int is_error;       /* tool results only: the result reports a failure */
  int wire_index;     /* position in the wire "messages" array it was read from; -1 if built */
};

struct ock_history {
  struct ock_message *items;
  size_t len;
  size_t cap;
};

void ock_history_init(struct ock_history *h);
/* ock_history_free frees every message; the history is then empty and reusable. */
void ock_history_free(struct ock_history *h);
/* ock_history_copy replaces dst (which must be initialised) by a deep copy of src. */
int ock_history_copy(const struct ock_history *src, struct ock_history *dst);

/* Appending copies. text may be NULL for an assistant message with tool calls only. */
int ock_history_add_text(struct ock_history *h, enum ock_role role, const char *text);
int ock_history_add_assistant(struct ock_history *h, const char *text,
                              const struct ock_tool_call *calls, size_t n_calls);
int ock_history_add_tool_result(struct ock_history *h, const char *tool_call_id, const char *text,
                                int is_error);
/* ock_history_append_message appends a deep copy of m. */
int ock_history_append_message(struct ock_history *h, const struct ock_message *m);

void ock_message_clear(struct ock_message *m);
int ock_message_copy(const struct ock_message *src, struct ock_message *dst);

/* From the wire (what a provider, or the mock, receives). Appends to out; on failure out may
 * hold the messages read so far and err names the JSON path (e.g. "$.messages[3].content").
 * Anthropic: `system` may be NULL, a string, or an array of text blocks; a user message with
 * tool_result blocks becomes one tool message per block and a user message for text blocks, in
 * the wire's order (text before a tool_result stays before it: the validator judges that
 * order), all with the wire index of that user message. A tool_use input may be an object or,
 * for arguments that were not a JSON object, the raw text as a string. */
int ock_history_from_openai(const cJSON *messages, struct ock_history *out, struct ock_jerr *err);
int ock_history_from_anthropic(const cJSON *system, const cJSON *messages, struct ock_history *out,
                               struct ock_jerr *err);

/* One non-streaming provider reply, neutral. */
struct ock_reply {
  struct ock_message msg; /* role assistant: text and/or tool calls */
  char *id;               /* chatcmpl-... or msg_...; NULL if absent */
  char *finish_reason; /* as the wire says it: "stop", "tool_calls", "end_turn", "tool_use", ... */
  long long input_tokens; /* usage; -1 when absent */
  long long output_tokens;
};

void ock_reply_init(struct ock_reply *r);
void ock_reply_clear(struct ock_reply *r);

/* ock_finish_is_token_limit: 1 when a reply's finish reason, as the wire says it, means the
 * reply stopped at the output token limit: OpenAI "length", Anthropic "max_tokens", Responses
 * "max_output_tokens", Gemini "MAX_TOKENS" (SPEC.md 5.8); 0 otherwise and for NULL. */
int ock_finish_is_token_limit(const char *finish_reason);

/* ock_tool_result_text renders a ToolResult {success, output, error} as the text a tool
 * message carries (SPEC.md 5.11): a string output as is, any other output (absent = null) as
 * compact JSON, a failure as "Error: <error.message>" ("Error: unknown error" without one).
 * Caller frees. NULL when out of memory. */
char *ock_tool_result_text(const cJSON *tool_result);

#endif
