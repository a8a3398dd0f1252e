/*
 * openai_wire.c: OpenAI Chat Completions, byte for byte (research: conformance_kits.md §3.1).
 *
 * Streaming follows what the real API sends: a role chunk ({"role":"assistant","content":""}
 * or content null when only tool calls follow), content deltas, per tool call a header chunk
 * (index, id, type, name, arguments "") and then argument fragments by index only, a finish
 * chunk with an empty delta, the usage chunk with empty choices when
 * stream_options.include_usage asked for it (other chunks then carry "usage": null), and
 * `data: [DONE]`. Errors use the {"error":{message,type,param,code}} envelope and, for
 * broken histories, the API's own texts (ERR1, ERR2, and its duplicate tool_call_id text).
 */
#include "wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ock/status.h"

static const char *const ERR1 =
    "An assistant message with 'tool_calls' must be followed by tool messages responding to "
    "each 'tool_call_id'. The following tool_call_ids did not have response messages: ";
static const char *const ERR2 = "Invalid parameter: messages with role 'tool' must be a response "
                                "to a preceeding message with 'tool_calls'.";

static cJSON *usage_json(const struct mock_answer *a) {
  cJSON *u = cJSON_CreateObject();
  cJSON_AddNumberToObject(u, "prompt_tokens", (double)a->input_tokens);
  cJSON_AddNumberToObject(u, "completion_tokens", (double)a->output_tokens);
  cJSON_AddNumberToObject(u, "total_tokens", (double)(a->input_tokens + a->output_tokens));
  return u;
}

static int openai_body(const struct mock_answer *a, struct ock_buf *out) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "id", a->id);
  cJSON_AddStringToObject(o, "object", "chat.completion");
  cJSON_AddNumberToObject(o, "created", (double)a->created);
  cJSON_AddStringToObject(o, "model", a->model);
  cJSON *choices = cJSON_AddArrayToObject(o, "choices");
  cJSON *choice = cJSON_CreateObject();
  cJSON_AddItemToArray(choices, choice);
  cJSON_AddNumberToObject(choice, "index", 0);
  cJSON *msg = cJSON_AddObjectToObject(choice, "message");
  cJSON_AddStringToObject(msg, "role", "assistant");
  if (a->text && (*a->text || !a->n_calls))
    cJSON_AddStringToObject(msg, "content", a->text);
  else if (a->n_calls)
    cJSON_AddNullToObject(msg, "content");
  else
    cJSON_AddStringToObject(msg, "content", "");
  cJSON_AddNullToObject(msg, "refusal");
  if (a->n_calls) {
    cJSON *calls = cJSON_AddArrayToObject(msg, "tool_calls");
    for (size_t i = 0; i < a->n_calls; i++) {
      cJSON *c = cJSON_CreateObject();
      cJSON_AddItemToArray(calls, c);
      cJSON_AddStringToObject(c, "id", a->calls[i].id);
      cJSON_AddStringToObject(c, "type", "function");
      cJSON *fn = cJSON_AddObjectToObject(c, "function");
      cJSON_AddStringToObject(fn, "name", a->calls[i].name);
      cJSON_AddStringToObject(fn, "arguments", a->calls[i].arguments);
    }
  }
  cJSON_AddNullToObject(choice, "logprobs");
  cJSON_AddStringToObject(choice, "finish_reason", a->finish);
  cJSON_AddItemToObject(o, "usage", usage_json(a));
  cJSON_AddNullToObject(o, "system_fingerprint");
  return ock__print_to(out, o);
}

/* chunk_head starts a chat.completion.chunk object (without choices). */
static cJSON *chunk_head(const struct mock_answer *a) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "id", a->id);
  cJSON_AddStringToObject(o, "object", "chat.completion.chunk");
  cJSON_AddNumberToObject(o, "created", (double)a->created);
  cJSON_AddStringToObject(o, "model", a->model);
  cJSON_AddNullToObject(o, "system_fingerprint");
  return o;
}

/* push_chunk frames one chunk with delta (taken) and finish (NULL: null) as an SSE event. */
static int push_chunk(const struct mock_answer *a, cJSON *delta, const char *finish,
                      struct mock_chunks *out) {
  cJSON *o = chunk_head(a);
  cJSON *choices = cJSON_AddArrayToObject(o, "choices");
  cJSON *choice = cJSON_CreateObject();
  cJSON_AddItemToArray(choices, choice);
  cJSON_AddNumberToObject(choice, "index", 0);
  cJSON_AddItemToObject(choice, "delta", delta);
  cJSON_AddNullToObject(choice, "logprobs");
  if (finish)
    cJSON_AddStringToObject(choice, "finish_reason", finish);
  else
    cJSON_AddNullToObject(choice, "finish_reason");
  if (a->include_usage)
    cJSON_AddNullToObject(o, "usage");
  struct ock_buf b;
  ock_buf_init(&b, (size_t)1 << 30);
  int rc = ock__print_to(&b, o);
  if (!rc)
    rc = ock__sse_event(out, NULL, b.data, b.len);
  ock_buf_free(&b);
  return rc;
}

static int call_header(const struct mock_answer *a, size_t i, struct mock_chunks *out) {
  cJSON *delta = cJSON_CreateObject();
  cJSON *calls = cJSON_AddArrayToObject(delta, "tool_calls");
  cJSON *c = cJSON_CreateObject();
  cJSON_AddItemToArray(calls, c);
  cJSON_AddNumberToObject(c, "index", (double)i);
  cJSON_AddStringToObject(c, "id", a->calls[i].id);
  cJSON_AddStringToObject(c, "type", "function");
  cJSON *fn = cJSON_AddObjectToObject(c, "function");
  cJSON_AddStringToObject(fn, "name", a->calls[i].name);
  cJSON_AddStringToObject(fn, "arguments", "");
  return push_chunk(a, delta, NULL, out);
}

static int call_fragment(const struct mock_answer *a, size_t i, const char *frag, size_t len,
                         struct mock_chunks *out) {
  char *copy = strndup(frag, len);
  if (!copy)
    return OCK_ENOMEM;
  cJSON *delta = cJSON_CreateObject();
  cJSON *calls = cJSON_AddArrayToObject(delta, "tool_calls");
  cJSON *c = cJSON_CreateObject();
  cJSON_AddItemToArray(calls, c);
  cJSON_AddNumberToObject(c, "index", (double)i);
  cJSON *fn = cJSON_AddObjectToObject(c, "function");
  cJSON_AddStringToObject(fn, "arguments", copy);
  free(copy);
  return push_chunk(a, delta, NULL, out);
}

static int text_delta(const struct mock_answer *a, const char *frag, size_t len,
                      struct mock_chunks *out) {
  char *copy = strndup(frag, len);
  if (!copy)
    return OCK_ENOMEM;
  cJSON *delta = cJSON_CreateObject();
  cJSON_AddStringToObject(delta, "content", copy);
  free(copy);
  return push_chunk(a, delta, NULL, out);
}

static int openai_events(const struct mock_answer *a, struct mock_chunks *out) {
  int has_text = a->text && *a->text;
  cJSON *role = cJSON_CreateObject();
  cJSON_AddStringToObject(role, "role", "assistant");
  if (has_text || !a->n_calls)
    cJSON_AddStringToObject(role, "content", "");
  else
    cJSON_AddNullToObject(role, "content");
  int rc = push_chunk(a, role, NULL, out);
  if (has_text) {
    size_t len = strlen(a->text), off = 0;
    while (!rc && off < len) {
      size_t n = ock__utf8_prefix(a->text + off, len - off, a->chunk_size);
      rc = text_delta(a, a->text + off, n, out);
      off += n;
    }
  }
  for (size_t i = 0; i < a->n_calls && !rc; i++) {
    rc = call_header(a, i, out);
    const char *args = a->calls[i].arguments;
    size_t len = strlen(args), off = 0;
    while (!rc && off < len) {
      size_t n = ock__utf8_prefix(args + off, len - off, a->chunk_size);
      rc = call_fragment(a, i, args + off, n, out);
      off += n;
    }
  }
  if (!rc)
    rc = push_chunk(a, cJSON_CreateObject(), a->finish, out);
  if (!rc && a->include_usage) {
    cJSON *o = chunk_head(a);
    cJSON_AddArrayToObject(o, "choices");
    cJSON_AddItemToObject(o, "usage", usage_json(a));
    struct ock_buf b;
    ock_buf_init(&b, (size_t)1 << 30);
    rc = ock__print_to(&b, o);
    if (!rc)
      rc = ock__sse_event(out, NULL, b.data, b.len);
    ock_buf_free(&b);
  }
  if (!rc)
    rc = ock__sse_event(out, NULL, "[DONE]", 6);
  return rc;
}

struct status_text {
  int status;
  const char *type;
  const char *code;
};

/* SPEC 6.6 "Error types by status"; other 4xx are invalid_request_error, other 5xx
 * server_error, both with code null. */
static const struct status_text STATUS_TEXTS[] = {{401, "invalid_request_error", "invalid_api_key"},
                                                  {408, "timeout", NULL},
                                                  {429, "requests", "rate_limit_exceeded"},
                                                  {529, "server_error", "overloaded"},
                                                  {0, NULL, NULL}};

static cJSON *error_object(int status, const char *message, const char *param, const char *code) {
  const struct status_text *t = NULL;
  for (int i = 0; STATUS_TEXTS[i].status && !t; i++)
    if (STATUS_TEXTS[i].status == status)
      t = &STATUS_TEXTS[i];
  char dflt[64];
  snprintf(dflt, sizeof dflt, "ock: scripted HTTP %d", status);
  cJSON *e = cJSON_CreateObject();
  cJSON_AddStringToObject(e, "message", message ? message : dflt);
  cJSON_AddStringToObject(e, "type",
                          t               ? t->type
                          : status >= 500 ? "server_error"
                                          : "invalid_request_error");
  if (param)
    cJSON_AddStringToObject(e, "param", param);
  else
    cJSON_AddNullToObject(e, "param");
  if (!code && t)
    code = t->code;
  if (code)
    cJSON_AddStringToObject(e, "code", code);
  else
    cJSON_AddNullToObject(e, "code");
  return e;
}

static int openai_error_body(int status, const char *message, const char *param, const char *code,
                             const char *request_id, struct ock_buf *out) {
  (void)request_id; /* OpenAI sends it as a header only */
  cJSON *o = cJSON_CreateObject();
  cJSON_AddItemToObject(o, "error", error_object(status, message, param, code));
  return ock__print_to(out, o);
}

static int openai_error_event(int status, const char *message, struct ock_buf *out) {
  cJSON *o = cJSON_CreateObject();
  cJSON *e = error_object(status ? status : 500, message ? message : "ock: scripted stream error",
                          NULL, NULL);
  if (!status) /* the stream error of SPEC 6.6 has code null */
    cJSON_ReplaceItemInObjectCaseSensitive(e, "code", cJSON_CreateNull());
  cJSON_AddItemToObject(o, "error", e);
  int rc = ock_buf_puts(out, "data: ");
  if (!rc)
    rc = ock__print_to(out, o);
  else
    cJSON_Delete(o);
  if (!rc)
    rc = ock_buf_puts(out, "\n\n");
  return rc;
}

static int openai_malformed_event(struct ock_buf *out) {
  return ock_buf_puts(out, "data: {\"ock\":\n\n");
}

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

const struct mock_wire ock__openai_wire = {
    .name = "openai",
    .call_prefix = "call_",
    .finish_text = "stop",
    .finish_tools = "tool_calls",
    .request_id_header = "x-request-id",
    .body = openai_body,
    .events = openai_events,
    .terminators = 1,
    .error_body = openai_error_body,
    .error_event = openai_error_event,
    .malformed_event = openai_malformed_event,
    .history_error = openai_history_error,
};
