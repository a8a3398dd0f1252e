/*
 * anthropic_wire.c: Anthropic Messages, byte for byte (research: conformance_kits.md §3.2).
 *
 * A stream is message_start (empty content, usage so far), one ping (SPEC 6.5 puts it right
 * after message_start; the real API sends pings anywhere), then per content block
 * content_block_start / content_block_delta... / content_block_stop
 * (text_delta for text; for tool_use an empty first input_json_delta, then the arguments in
 * fragments), message_delta with the stop_reason and cumulative usage, and message_stop. Every
 * event has a named `event:` line whose name equals the data's "type". Errors use
 * {"type":"error","error":{type,message},"request_id"} and, for broken histories, the API's own
 * texts (ERR3, ERR4).
 */
#include "wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ock/status.h"

static int push_event(struct mock_chunks *out, const char *name, cJSON *data) {
  struct ock_buf b;
  ock_buf_init(&b, (size_t)1 << 30);
  int rc = ock__print_to(&b, data);
  if (!rc)
    rc = ock__sse_event(out, name, b.data, b.len);
  ock_buf_free(&b);
  return rc;
}

/* tool_input: the "input" object for a non-streaming tool_use block. Scripted arguments are
 * an object; raw arguments that are not one go out as the raw string, which is exactly the
 * malformed reply the fixture asked for. */
static cJSON *tool_input(const struct mock_answer_call *c) {
  cJSON *v = cJSON_Parse(c->arguments);
  if (cJSON_IsObject(v))
    return v;
  cJSON_Delete(v);
  return cJSON_CreateString(c->arguments);
}

/* add_stop_sequence: the sequence the reply stopped on, or null as the API sends it. */
static void add_stop_sequence(cJSON *o, const struct mock_answer *a) {
  if (a->stop_sequence)
    cJSON_AddStringToObject(o, "stop_sequence", a->stop_sequence);
  else
    cJSON_AddNullToObject(o, "stop_sequence");
}

static int has_text(const struct mock_answer *a) {
  return a->text && *a->text;
}

static int anthropic_body(const struct mock_answer *a, struct ock_buf *out) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "id", a->id);
  cJSON_AddStringToObject(o, "type", "message");
  cJSON_AddStringToObject(o, "role", "assistant");
  cJSON_AddStringToObject(o, "model", a->model);
  cJSON *content = cJSON_AddArrayToObject(o, "content");
  if (has_text(a)) {
    cJSON *b = cJSON_CreateObject();
    cJSON_AddItemToArray(content, b);
    cJSON_AddStringToObject(b, "type", "text");
    cJSON_AddStringToObject(b, "text", a->text);
  }
  for (size_t i = 0; i < a->n_calls; i++) {
    cJSON *b = cJSON_CreateObject();
    cJSON_AddItemToArray(content, b);
    cJSON_AddStringToObject(b, "type", "tool_use");
    cJSON_AddStringToObject(b, "id", a->calls[i].id);
    cJSON_AddStringToObject(b, "name", a->calls[i].name);
    cJSON_AddItemToObject(b, "input", tool_input(&a->calls[i]));
  }
  cJSON_AddStringToObject(o, "stop_reason", a->finish);
  add_stop_sequence(o, a);
  cJSON *u = cJSON_AddObjectToObject(o, "usage");
  cJSON_AddNumberToObject(u, "input_tokens", (double)a->input_tokens);
  cJSON_AddNumberToObject(u, "output_tokens", (double)a->output_tokens);
  return ock__print_to(out, o);
}

static int block_start(struct mock_chunks *out, int index, cJSON *block) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "type", "content_block_start");
  cJSON_AddNumberToObject(o, "index", index);
  cJSON_AddItemToObject(o, "content_block", block);
  return push_event(out, "content_block_start", o);
}

static int block_delta(struct mock_chunks *out, int index, const char *type, const char *key,
                       const char *frag, size_t len) {
  char *copy = strndup(frag, len);
  if (!copy)
    return OCK_ENOMEM;
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "type", "content_block_delta");
  cJSON_AddNumberToObject(o, "index", index);
  cJSON *d = cJSON_AddObjectToObject(o, "delta");
  cJSON_AddStringToObject(d, "type", type);
  cJSON_AddStringToObject(d, key, copy);
  free(copy);
  return push_event(out, "content_block_delta", o);
}

static int block_stop(struct mock_chunks *out, int index) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "type", "content_block_stop");
  cJSON_AddNumberToObject(o, "index", index);
  return push_event(out, "content_block_stop", o);
}

static int ping(struct mock_chunks *out) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "type", "ping");
  return push_event(out, "ping", o);
}

/* fragments streams s in chunk_size pieces as deltas of one block. */
static int fragments(const struct mock_answer *a, struct mock_chunks *out, int index,
                     const char *type, const char *key, const char *s) {
  size_t len = strlen(s), off = 0;
  int rc = OCK_OK;
  while (!rc && off < len) {
    size_t n = ock__utf8_prefix(s + off, len - off, a->chunk_size);
    rc = block_delta(out, index, type, key, s + off, n);
    off += n;
  }
  return rc;
}

static int anthropic_events(const struct mock_answer *a, struct mock_chunks *out) {
  cJSON *start = cJSON_CreateObject();
  cJSON_AddStringToObject(start, "type", "message_start");
  cJSON *m = cJSON_AddObjectToObject(start, "message");
  cJSON_AddStringToObject(m, "id", a->id);
  cJSON_AddStringToObject(m, "type", "message");
  cJSON_AddStringToObject(m, "role", "assistant");
  cJSON_AddStringToObject(m, "model", a->model);
  cJSON_AddArrayToObject(m, "content");
  cJSON_AddNullToObject(m, "stop_reason");
  cJSON_AddNullToObject(m, "stop_sequence");
  cJSON *u = cJSON_AddObjectToObject(m, "usage");
  cJSON_AddNumberToObject(u, "input_tokens", (double)a->input_tokens);
  cJSON_AddNumberToObject(u, "output_tokens", 1);
  int rc = push_event(out, "message_start", start);
  if (!rc)
    rc = ping(out);
  int index = 0;
  if (!rc && has_text(a)) {
    cJSON *b = cJSON_CreateObject();
    cJSON_AddStringToObject(b, "type", "text");
    cJSON_AddStringToObject(b, "text", "");
    rc = block_start(out, index, b);
    if (!rc)
      rc = fragments(a, out, index, "text_delta", "text", a->text);
    if (!rc)
      rc = block_stop(out, index);
    index++;
  }
  for (size_t i = 0; i < a->n_calls && !rc; i++) {
    cJSON *b = cJSON_CreateObject();
    cJSON_AddStringToObject(b, "type", "tool_use");
    cJSON_AddStringToObject(b, "id", a->calls[i].id);
    cJSON_AddStringToObject(b, "name", a->calls[i].name);
    cJSON_AddObjectToObject(b, "input");
    rc = block_start(out, index, b);
    if (!rc)
      rc = block_delta(out, index, "input_json_delta", "partial_json", "", 0);
    if (!rc)
      rc = fragments(a, out, index, "input_json_delta", "partial_json", a->calls[i].arguments);
    if (!rc)
      rc = block_stop(out, index);
    index++;
  }
  if (!rc) {
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "type", "message_delta");
    cJSON *delta = cJSON_AddObjectToObject(d, "delta");
    cJSON_AddStringToObject(delta, "stop_reason", a->finish);
    add_stop_sequence(delta, a);
    cJSON *du = cJSON_AddObjectToObject(d, "usage");
    cJSON_AddNumberToObject(du, "input_tokens", (double)a->input_tokens);
    cJSON_AddNumberToObject(du, "output_tokens", (double)a->output_tokens);
    rc = push_event(out, "message_delta", d);
  }
  if (!rc) {
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "type", "message_stop");
    rc = push_event(out, "message_stop", s);
  }
  return rc;
}

struct status_text {
  int status;
  const char *type;
};

/* SPEC 6.6 "Error types by status", the Messages API's documented table (402 billing_error,
 * 504 timeout_error); other 4xx are invalid_request_error, other 5xx api_error. */
static const struct status_text STATUS_TEXTS[] = {
    {401, "authentication_error"}, {402, "billing_error"},     {403, "permission_error"},
    {404, "not_found_error"},      {413, "request_too_large"}, {429, "rate_limit_error"},
    {504, "timeout_error"},        {529, "overloaded_error"},  {0, NULL}};

static cJSON *error_envelope(int status, const char *message) {
  const char *type = status >= 500 ? "api_error" : "invalid_request_error";
  for (int i = 0; STATUS_TEXTS[i].status; i++)
    if (STATUS_TEXTS[i].status == status)
      type = STATUS_TEXTS[i].type;
  char dflt[64];
  snprintf(dflt, sizeof dflt, "ock: scripted HTTP %d", status);
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "type", "error");
  cJSON *e = cJSON_AddObjectToObject(o, "error");
  cJSON_AddStringToObject(e, "type", type);
  cJSON_AddStringToObject(e, "message", message ? message : dflt);
  return o;
}

static int anthropic_error_body(int status, const char *message, const char *param,
                                const char *code, const char *request_id, struct ock_buf *out) {
  (void)param;
  (void)code;
  cJSON *o = error_envelope(status, message);
  if (request_id)
    cJSON_AddStringToObject(o, "request_id", request_id);
  else
    cJSON_AddNullToObject(o, "request_id");
  return ock__print_to(out, o);
}

static int anthropic_error_event(int status, const char *message, struct ock_buf *out) {
  int rc = ock_buf_puts(out, "event: error\ndata: ");
  if (!rc)
    rc = ock__print_to(out, error_envelope(status ? status : 529,
                                           message ? message : "ock: scripted stream error"));
  if (!rc)
    rc = ock_buf_puts(out, "\n\n");
  return rc;
}

static int anthropic_malformed_event(struct ock_buf *out) {
  return ock_buf_puts(out, "event: content_block_delta\ndata: {\"ock\":\n\n");
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
                                   struct ock_buf *param, struct ock_buf *code,
                                   struct ock_buf *out) {
  (void)param;
  (void)code;
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

const struct mock_wire ock__anthropic_wire = {
    .name = "anthropic",
    .call_prefix = "toolu_",
    .finish_text = "end_turn",
    .finish_tools = "tool_use",
    .request_id_header = "request-id",
    .body = anthropic_body,
    .events = anthropic_events,
    .terminators = 1,
    .error_body = anthropic_error_body,
    .error_event = anthropic_error_event,
    .malformed_event = anthropic_malformed_event,
    .history_error = anthropic_history_error,
};
