/*
 * wire.c: the mock's side of the provider wires (see wire.h): a scripted answer as core's
 * neutral reply, and each API's own texts for a broken history (OpenAI: ERR1, ERR2 and its
 * duplicate tool_call_id text; Anthropic: its tool_use / tool_result texts).
 */
#include "wire.h"

#include "gemini.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ock/json.h"
#include "ock/status.h"

const struct ock_wire_ops *ock__wire_for(enum ock_wire api) {
  return ock_wire_get(api == OCK_WIRE_ANTHROPIC   ? OCK_WIRE_ANTHROPIC
                      : api == OCK_WIRE_RESPONSES ? OCK_WIRE_RESPONSES
                      : api == OCK_WIRE_GEMINI    ? OCK_WIRE_GEMINI
                                                  : OCK_WIRE_OPENAI);
}

/* as_reply views a as a neutral reply: the strings are borrowed (the reply is never cleared),
 * calls is the caller's array of a->n_calls entries. */
static void as_reply(const struct mock_answer *a, struct ock_tool_call *calls, struct ock_reply *r,
                     struct ock_wire_frame *f) {
  ock_reply_init(r);
  for (size_t i = 0; i < a->n_calls; i++)
    calls[i] = (struct ock_tool_call){(char *)a->calls[i].id, (char *)a->calls[i].name,
                                      (char *)a->calls[i].arguments};
  r->msg.content = (char *)a->text;
  r->msg.calls = calls;
  r->msg.n_calls = a->n_calls;
  r->id = (char *)a->id;
  r->finish_reason = (char *)a->finish;
  r->input_tokens = a->input_tokens;
  r->output_tokens = a->output_tokens;
  *f = (struct ock_wire_frame){.model = a->model,
                               .created = a->created,
                               .stop_sequence = a->stop_sequence,
                               .chunk_size = a->chunk_size,
                               .include_usage = a->include_usage};
}

/* encode writes the answer with the wire's reply encoder into body, or with its event encoder
 * into events (the other is NULL). */
static int encode(const struct ock_wire_ops *w, const struct mock_answer *a, struct ock_buf *body,
                  struct ock_chunks *events) {
  struct ock_tool_call *calls = calloc(a->n_calls ? a->n_calls : 1, sizeof *calls);
  if (!calls)
    return OCK_ENOMEM;
  struct ock_reply r;
  struct ock_wire_frame f;
  as_reply(a, calls, &r, &f);
  int rc = body ? w->encode_reply(&r, &f, body) : w->encode_events(&r, &f, events);
  free(calls);
  return rc;
}

int ock__answer_body(const struct ock_wire_ops *w, const struct mock_answer *a,
                     struct ock_buf *out) {
  return encode(w, a, out, NULL);
}

int ock__answer_events(const struct ock_wire_ops *w, const struct mock_answer *a,
                       struct ock_chunks *out) {
  return encode(w, a, NULL, out);
}

size_t ock__answer_items(const struct mock_answer *a) {
  return (a->text && *a->text ? 1 : 0) + a->n_calls;
}

int ock__answer_item(const struct mock_answer *a, size_t k, char *id, size_t id_n,
                     struct ock_buf *json) {
  struct ock_tool_call *calls = calloc(a->n_calls ? a->n_calls : 1, sizeof *calls);
  if (!calls)
    return OCK_ENOMEM;
  struct ock_reply r;
  struct ock_wire_frame f;
  as_reply(a, calls, &r, &f);
  ock_responses_item_id(&r, k, id, id_n);
  int rc = ock_responses_write_item(&r, k, json);
  free(calls);
  return rc;
}

static const char *const ERR1 =
    "An assistant message with 'tool_calls' must be followed by tool messages responding to "
    "each 'tool_call_id'. The following tool_call_ids did not have response messages: ";
static const char *const ERR2 = "Invalid parameter: messages with role 'tool' must be a response "
                                "to a preceeding message with 'tool_calls'.";

/* first_result: the index of the first tool message in raw answering id before message
 * before; before itself when there is none. */
static int first_result(const cJSON *raw, const char *id, int before) {
  int i = 0;
  const cJSON *m;
  cJSON_ArrayForEach(m, raw) {
    if (i >= before)
      break;
    const char *role = ock_json_str(m, "role"), *answers = ock_json_str(m, "tool_call_id");
    if (role && !strcmp(role, "tool") && answers && id && !strcmp(answers, id))
      return i;
    i++;
  }
  return before;
}

static int openai_history_error(const struct mock_finding *f, const cJSON *raw,
                                struct ock_buf *param, struct ock_buf *code, struct ock_buf *out) {
  int rc = OCK_OK;
  switch (f->shape) {
  case MOCK_A01_UNMATCHED_TOOL_USE:
  case MOCK_A03_INTERLEAVED_USER_MSG:
  case MOCK_A04_INTERLEAVED_ASST_MSG:
  case MOCK_A07_PARALLEL_MISSING_RESULT:
    rc = ock_buf_printf(param, "messages.[%d].role", f->message_index);
    if (!rc)
      rc = ock_buf_printf(out, "%s%s", ERR1, f->ids ? f->ids : "");
    return rc;
  case MOCK_A05_DUPLICATE_TOOL_CALL_ID:
    if (f->on_result) {
      /* the API's own text for a second tool message with one id: it names both messages */
      rc = ock_buf_printf(param, "messages.[%d].tool_call_id", f->message_index);
      if (!rc)
        rc = ock_buf_printf(out,
                            "Invalid parameter: Duplicate value for 'tool_call_id' of '%s', in "
                            "messages[%d] and messages[%d].",
                            f->id, first_result(raw, f->id, f->message_index), f->message_index);
      return rc;
    }
    rc = ock_buf_printf(param, "messages.[%d].tool_calls", f->message_index);
    if (!rc)
      rc = ock_buf_puts(code, "ock_duplicate_tool_call_id");
    if (!rc)
      rc = ock_buf_printf(out,
                          "ock: tool_call_id '%s' is issued more than once in this "
                          "conversation.",
                          f->id);
    return rc;
  case MOCK_A08_PARALLEL_WRONG_ORDER:
    rc = ock_buf_printf(param, "messages.[%d].tool_call_id", f->message_index);
    if (!rc)
      rc = ock_buf_puts(code, "ock_tool_result_order");
    if (!rc)
      rc = ock_buf_printf(out,
                          "ock: tool messages must answer 'tool_calls' in order. Expected a "
                          "response to '%s' at messages.[%d], found '%s'.",
                          f->expected ? f->expected : "", f->message_index, f->id);
    return rc;
  case MOCK_A02_UNMATCHED_TOOL_RESULT:
  case MOCK_A06_WRONG_TOOL_CALL_ID:
  case MOCK_SHAPE_NONE:
    break;
  }
  rc = ock_buf_printf(param, "messages.[%d].role", f->message_index);
  return rc ? rc : ock_buf_puts(out, ERR2);
}

/* block_index: where the last block of `type` whose `key` is id sits in raw[message].content;
 * 0 when it cannot be told. The last one is the offending one for a repeat. */
static int block_index(const cJSON *raw, int message, const char *type, const char *key,
                       const char *id) {
  const cJSON *msg = cJSON_GetArrayItem(raw, message);
  const cJSON *content = cJSON_GetObjectItemCaseSensitive(msg, "content");
  int found = 0, k = 0;
  const cJSON *b;
  cJSON_ArrayForEach(b, content) {
    const char *t = ock_json_str(b, "type");
    const char *v = ock_json_str(b, key);
    if (t && !strcmp(t, type) && v && id && !strcmp(v, id))
      found = k;
    k++;
  }
  return found;
}

static int anthropic_history_error(const struct mock_finding *f, const cJSON *raw,
                                   struct ock_buf *out) {
  int n = f->message_index;
  switch (f->shape) {
  case MOCK_A01_UNMATCHED_TOOL_USE:
  case MOCK_A03_INTERLEAVED_USER_MSG:
  case MOCK_A04_INTERLEAVED_ASST_MSG:
  case MOCK_A07_PARALLEL_MISSING_RESULT:
    return ock_buf_printf(out,
                          "messages.%d: `tool_use` ids were found without `tool_result` blocks "
                          "immediately after: %s. Each `tool_use` block must have a "
                          "corresponding `tool_result` block in the next message.",
                          n, f->ids ? f->ids : "");
  case MOCK_A05_DUPLICATE_TOOL_CALL_ID:
    if (f->on_result) /* the Messages API's own text for a second result to one call */
      return ock_buf_printf(out,
                            "messages.%d.content.%d: each tool_use must have a single result. "
                            "Found multiple `tool_result` blocks with id: %s",
                            n, block_index(raw, n, "tool_result", "tool_use_id", f->id), f->id);
    /* the Messages API's own text; it names the block, not the id */
    return ock_buf_printf(out, "messages.%d.content.%d: `tool_use` ids must be unique", n,
                          block_index(raw, n, "tool_use", "id", f->id));
  case MOCK_A08_PARALLEL_WRONG_ORDER:
    return ock_buf_printf(out,
                          "messages.%d.content.%d: ock: `tool_result` blocks must follow the "
                          "order of the `tool_use` blocks. Expected `%s`, found `%s`.",
                          n, block_index(raw, n, "tool_result", "tool_use_id", f->id),
                          f->expected ? f->expected : "", f->id);
  case MOCK_A02_UNMATCHED_TOOL_RESULT:
  case MOCK_A06_WRONG_TOOL_CALL_ID:
  case MOCK_SHAPE_NONE:
    break;
  }
  return ock_buf_printf(out,
                        "messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` "
                        "blocks: %s. Each `tool_result` block must have a corresponding "
                        "`tool_use` block in the previous message.",
                        n, block_index(raw, n, "tool_result", "tool_use_id", f->id), f->id);
}

/* The Responses API pairs a function_call_output with its function_call by call_id wherever
 * both sit in input (a message between them is accepted), and has a text for each orphan
 * direction, both with param "input" and code null. */
static int responses_history_error(const struct mock_finding *f, struct ock_buf *param,
                                   struct ock_buf *out) {
  switch (f->shape) {
  case MOCK_A01_UNMATCHED_TOOL_USE:
  case MOCK_A07_PARALLEL_MISSING_RESULT:
    return ock_buf_puts(param, "input") ||
           ock_buf_printf(out, "No tool output found for function call %s.", f->tool_call_id);
  case MOCK_A02_UNMATCHED_TOOL_RESULT:
  case MOCK_A06_WRONG_TOOL_CALL_ID:
    return ock_buf_puts(param, "input") ||
           ock_buf_printf(out, "No tool call found for function call output with call_id %s.",
                          f->id);
  case MOCK_A03_INTERLEAVED_USER_MSG:
  case MOCK_A04_INTERLEAVED_ASST_MSG:
    return ock_buf_puts(param, "input") ||
           ock_buf_printf(out,
                          "ock: an item sits between function call %s and its "
                          "function_call_output (the Responses API accepts this; the contract "
                          "does not).",
                          f->tool_call_id);
  case MOCK_A05_DUPLICATE_TOOL_CALL_ID:
    return ock_buf_puts(param, "input") ||
           ock_buf_printf(out,
                          f->on_result ? "ock: more than one function_call_output answers call_id "
                                         "%s."
                                       : "ock: call_id %s is issued more than once in this "
                                         "conversation.",
                          f->id);
  case MOCK_A08_PARALLEL_WRONG_ORDER:
    return ock_buf_puts(param, "input") ||
           ock_buf_printf(out,
                          "ock: function_call_output items must answer function calls in order. "
                          "Expected call_id %s, found %s.",
                          f->expected ? f->expected : "", f->id);
  case MOCK_SHAPE_NONE:
    break;
  }
  return OCK_OK;
}

int ock__history_error(enum ock_wire api, const struct mock_finding *f, const cJSON *raw,
                       struct ock_buf *param, struct ock_buf *code, struct ock_buf *out) {
  if (api == OCK_WIRE_RESPONSES)
    return responses_history_error(f, param, out) ? OCK_ENOMEM : OCK_OK;
  if (api == OCK_WIRE_ANTHROPIC)
    return anthropic_history_error(f, raw, out);
  if (api == OCK_WIRE_GEMINI)
    return ock__gemini_history_error(f, raw, out);
  return openai_history_error(f, raw, param, code, out);
}
