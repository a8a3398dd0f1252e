/*
 * wire_openai.c: OpenAI Chat Completions, byte for byte (research: conformance_kits.md §3.1).
 *
 * A request is {model, messages, tools?, stream}. A streamed reply is what the real API sends:
 * a role chunk ({"role":"assistant","content":""}, or content null when only tool calls
 * follow), content deltas, per tool call a header chunk (index, id, type, name, arguments "")
 * and then argument fragments by index only, a finish chunk with an empty delta, the usage
 * chunk with empty choices when stream_options.include_usage asked for it (other chunks then
 * carry "usage": null), and `data: [DONE]`. Errors use the {"error":{message,type,param,code}}
 * envelope.
 */
#include "wire_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ock/caps.h"
#include "ock/status.h"

/* ---- requests ------------------------------------------------------------------------------ */

/* put appends a fixed piece of JSON text; str a JSON string (NULL: null). Both return 0 on
 * success, so a message is written as one chain of ||. */
static int put(struct ock_buf *b, const char *text) {
  return ock_buf_puts(b, text);
}

static int str(struct ock_buf *b, const char *s) {
  return ock_json_write_string(b, s);
}

static int write_calls(const struct ock_message *m, struct ock_buf *out) {
  int rc = str(out, m->content) || put(out, ",\"tool_calls\":[");
  for (size_t c = 0; !rc && c < m->n_calls; c++) {
    const struct ock_tool_call *tc = &m->calls[c];
    rc = (c && put(out, ",")) || put(out, "{\"id\":") || str(out, tc->id) ||
         put(out, ",\"type\":\"function\",\"function\":{\"name\":") || str(out, tc->name) ||
         put(out, ",\"arguments\":") || str(out, tc->arguments ? tc->arguments : "{}") ||
         put(out, "}}");
  }
  return rc || put(out, "]");
}

int ock_history_write_openai(const struct ock_history *h, struct ock_buf *out) {
  int rc = put(out, "[");
  for (size_t i = 0; !rc && i < h->len; i++) {
    const struct ock_message *m = &h->items[i];
    rc = (i && put(out, ",")) || put(out, "{\"role\":") || str(out, ock_role_name(m->role)) ||
         put(out, ",\"content\":");
    if (!rc && m->role == OCK_ROLE_ASSISTANT && m->n_calls)
      rc = write_calls(m, out);
    else if (!rc)
      rc = str(out, m->content ? m->content : "") ||
           (m->role == OCK_ROLE_TOOL &&
            (put(out, ",\"tool_call_id\":") || str(out, m->tool_call_id)));
    rc = rc || put(out, "}");
  }
  rc = rc || put(out, "]");
  return rc ? OCK_ENOMEM : OCK_OK;
}

int ock_history_to_openai(const struct ock_history *h, cJSON **out) {
  struct ock_buf text;
  ock_buf_init(&text, OCK_MAX_OWN_TEXT);
  int rc = ock_history_write_openai(h, &text);
  cJSON *arr = rc ? NULL : cJSON_ParseWithLength(text.data, text.len);
  ock_buf_free(&text);
  if (!arr)
    return OCK_ENOMEM;
  *out = arr;
  return OCK_OK;
}

/* tools_json: the tools array, or NULL when out of memory. */
static cJSON *tools_json(const struct ock_wire_request *req) {
  cJSON *arr = cJSON_CreateArray();
  int ok = arr != NULL;
  for (size_t i = 0; ok && i < req->n_tools; i++) {
    const struct ock_tool_spec *t = &req->tools[i];
    cJSON *o = cJSON_CreateObject();
    ok = ock__wire_add(arr, NULL, o) && cJSON_AddStringToObject(o, "type", "function");
    cJSON *fn = ok ? cJSON_AddObjectToObject(o, "function") : NULL;
    ok = fn && cJSON_AddStringToObject(fn, "name", t->name) &&
         (!t->description || cJSON_AddStringToObject(fn, "description", t->description)) &&
         ock__wire_add(fn, "parameters", ock__wire_schema(t));
  }
  return ock__wire_built(arr, ok);
}

/* The history goes in as raw JSON text written straight from the messages: the whole history
 * goes out on every turn, and a tree of it per turn was most of the reference's cost. */
static int openai_request(const struct ock_wire_request *req, struct ock_buf *out) {
  struct ock_buf text;
  ock_buf_init(&text, OCK_MAX_OWN_TEXT);
  int rc = ock_history_write_openai(req->messages, &text);
  cJSON *msgs = rc ? NULL : cJSON_CreateRaw(text.data);
  ock_buf_free(&text);
  cJSON *body = cJSON_CreateObject();
  int ok = body && cJSON_AddStringToObject(body, "model", req->model);
  ok = ock__wire_add(ok ? body : NULL, "messages", msgs) &&
       (!req->n_tools || ock__wire_add(body, "tools", tools_json(req))) &&
       cJSON_AddBoolToObject(body, "stream", req->stream);
  return ock__wire_print_to(out, ock__wire_built(body, ok));
}

/* ---- replies ------------------------------------------------------------------------------- */

static long long tokens(long long n) {
  return n < 0 ? 0 : n;
}

static const char *finish_of(const struct ock_reply *r) {
  return r->finish_reason ? r->finish_reason : r->msg.n_calls ? "tool_calls" : "stop";
}

/* The builders below return 1, or 0 when out of memory (a cJSON* builder: NULL). */

static cJSON *usage_json(const struct ock_reply *r) {
  long long in = tokens(r->input_tokens), out = tokens(r->output_tokens);
  cJSON *u = cJSON_CreateObject();
  int ok = cJSON_AddNumberToObject(u, "prompt_tokens", (double)in) &&
           cJSON_AddNumberToObject(u, "completion_tokens", (double)out) &&
           cJSON_AddNumberToObject(u, "total_tokens", (double)(in + out));
  return ock__wire_built(u, ok);
}

/* The non-streaming reply is written as text, member by member in the API's order: it is the
 * mock's hot path, and a tree of it cost most of a reply's instructions. */
static int write_reply_calls(const struct ock_message *m, struct ock_buf *out) {
  int rc = put(out, ",\"tool_calls\":[");
  for (size_t i = 0; !rc && i < m->n_calls; i++) {
    const char *args = m->calls[i].arguments;
    rc = (i && put(out, ",")) || put(out, "{\"id\":") || str(out, m->calls[i].id) ||
         put(out, ",\"type\":\"function\",\"function\":{\"name\":") || str(out, m->calls[i].name) ||
         put(out, ",\"arguments\":") || str(out, args ? args : "{}") || put(out, "}}");
  }
  return rc || put(out, "]");
}

static int write_reply_message(const struct ock_message *m, struct ock_buf *out) {
  int rc = put(out, "{\"role\":\"assistant\",\"content\":");
  if (m->content && (*m->content || !m->n_calls))
    rc = rc || str(out, m->content);
  else
    rc = rc || put(out, m->n_calls ? "null" : "\"\"");
  return rc || put(out, ",\"refusal\":null") || (m->n_calls && write_reply_calls(m, out)) ||
         put(out, "}");
}

static int write_usage(const struct ock_reply *r, struct ock_buf *out) {
  long long in = tokens(r->input_tokens), o = tokens(r->output_tokens);
  return put(out, "{\"prompt_tokens\":") || ock_json_write_int(out, in) ||
         put(out, ",\"completion_tokens\":") || ock_json_write_int(out, o) ||
         put(out, ",\"total_tokens\":") || ock_json_write_int(out, in + o) || put(out, "}");
}

static int openai_reply(const struct ock_reply *r, const struct ock_wire_frame *f,
                        struct ock_buf *out) {
  int failed =
      put(out, "{\"id\":") || str(out, r->id) ||
      put(out, ",\"object\":\"chat.completion\",\"created\":") ||
      ock_json_write_int(out, f->created) || put(out, ",\"model\":") || str(out, f->model) ||
      put(out, ",\"choices\":[{\"index\":0,\"message\":") || write_reply_message(&r->msg, out) ||
      put(out, ",\"logprobs\":null,\"finish_reason\":") || str(out, finish_of(r)) ||
      put(out, "}],\"usage\":") || write_usage(r, out) || put(out, ",\"system_fingerprint\":null}");
  return ock__wire_status(out, failed);
}

/* One streamed reply being encoded. */
struct events {
  const struct ock_reply *r;
  const struct ock_wire_frame *f;
  struct ock_chunks *out;
  size_t call; /* the call whose fragments are being sent */
};

/* chunk_head starts a chat.completion.chunk object (without choices). */
static cJSON *chunk_head(const struct events *e) {
  cJSON *o = cJSON_CreateObject();
  int ok = ock__wire_add_str(o, "id", e->r->id) &&
           cJSON_AddStringToObject(o, "object", "chat.completion.chunk") &&
           cJSON_AddNumberToObject(o, "created", (double)e->f->created) &&
           ock__wire_add_str(o, "model", e->f->model) &&
           cJSON_AddNullToObject(o, "system_fingerprint");
  return ock__wire_built(o, ok);
}

/* push_chunk frames one chunk with delta (taken; NULL: out of memory) and finish (NULL: null)
 * as an SSE event. */
static int push_chunk(const struct events *e, cJSON *delta, const char *finish) {
  cJSON *o = chunk_head(e);
  cJSON *choices = o ? cJSON_AddArrayToObject(o, "choices") : NULL;
  cJSON *choice = choices ? cJSON_CreateObject() : NULL;
  int ok = ock__wire_add(choices, NULL, choice) && cJSON_AddNumberToObject(choice, "index", 0);
  ok = ock__wire_add(ok ? choice : NULL, "delta", delta) &&
       cJSON_AddNullToObject(choice, "logprobs") &&
       ock__wire_add_str(choice, "finish_reason", finish) &&
       (!e->f->include_usage || cJSON_AddNullToObject(o, "usage"));
  return ock__wire_event(e->out, NULL, ock__wire_built(o, ok));
}

/* call_delta: a delta with one tool_calls entry for call i (id and name on its header), with
 * arguments (taken); NULL when out of memory. */
static cJSON *call_delta(const struct events *e, size_t i, int header, cJSON *arguments) {
  cJSON *delta = cJSON_CreateObject();
  cJSON *calls = delta ? cJSON_AddArrayToObject(delta, "tool_calls") : NULL;
  cJSON *c = calls ? cJSON_CreateObject() : NULL;
  int ok = ock__wire_add(calls, NULL, c) && cJSON_AddNumberToObject(c, "index", (double)i) &&
           (!header || (cJSON_AddStringToObject(c, "id", e->r->msg.calls[i].id) &&
                        cJSON_AddStringToObject(c, "type", "function")));
  cJSON *fn = ok ? cJSON_AddObjectToObject(c, "function") : NULL;
  ok = fn && (!header || cJSON_AddStringToObject(fn, "name", e->r->msg.calls[i].name));
  ok = ock__wire_add(ok ? fn : NULL, "arguments", arguments);
  return ock__wire_built(delta, ok);
}

static int call_fragment(void *ctx, const char *frag, size_t len) {
  struct events *e = ctx;
  return push_chunk(e, call_delta(e, e->call, 0, ock__wire_strn(frag, len)), NULL);
}

static int text_fragment(void *ctx, const char *frag, size_t len) {
  struct events *e = ctx;
  cJSON *delta = cJSON_CreateObject();
  int ok = ock__wire_add(delta, "content", ock__wire_strn(frag, len));
  return push_chunk(e, ock__wire_built(delta, ok), NULL);
}

static int usage_chunk(const struct events *e) {
  cJSON *o = chunk_head(e);
  int ok = o && cJSON_AddArrayToObject(o, "choices") && ock__wire_add(o, "usage", usage_json(e->r));
  return ock__wire_event(e->out, NULL, ock__wire_built(o, ok));
}

/* role_delta: the first chunk's delta (content "" before text, null before calls only). */
static cJSON *role_delta(const struct ock_reply *r, int has_text) {
  cJSON *role = cJSON_CreateObject();
  int ok = cJSON_AddStringToObject(role, "role", "assistant") &&
           (has_text || !r->msg.n_calls ? cJSON_AddStringToObject(role, "content", "")
                                        : cJSON_AddNullToObject(role, "content"));
  return ock__wire_built(role, ok);
}

static int openai_events(const struct ock_reply *r, const struct ock_wire_frame *f,
                         struct ock_chunks *out) {
  struct events e = {r, f, out, 0};
  const char *text = r->msg.content;
  int has_text = text && *text;
  int rc = push_chunk(&e, role_delta(r, has_text), NULL);
  if (!rc && has_text)
    rc = ock__wire_fragments(text, f->chunk_size, text_fragment, &e);
  for (e.call = 0; e.call < r->msg.n_calls && !rc; e.call++) {
    const char *args = r->msg.calls[e.call].arguments;
    rc = push_chunk(&e, call_delta(&e, e.call, 1, cJSON_CreateString("")), NULL);
    if (!rc)
      rc = ock__wire_fragments(args ? args : "{}", f->chunk_size, call_fragment, &e);
  }
  if (!rc)
    rc = push_chunk(&e, cJSON_CreateObject(), finish_of(r));
  if (!rc && f->include_usage)
    rc = usage_chunk(&e);
  if (!rc)
    rc = ock_sse_frame(out, NULL, "[DONE]", 6);
  return rc;
}

/* ---- decoding replies ---------------------------------------------------------------------- */

/* reply_message reads choices[0].message as a one-element history, so the reply and the
 * request share one reader. */
static int reply_message(const cJSON *message, struct ock_message *out, struct ock_jerr *err) {
  cJSON *arr = cJSON_CreateArray();
  cJSON *copy = cJSON_Duplicate(message, 1);
  if (!arr || !copy || !cJSON_AddItemToArray(arr, copy)) {
    cJSON_Delete(arr);
    cJSON_Delete(copy);
    return OCK_ENOMEM;
  }
  if (!cJSON_GetObjectItemCaseSensitive(copy, "role") &&
      !cJSON_AddStringToObject(copy, "role", "assistant")) {
    cJSON_Delete(arr);
    return OCK_ENOMEM;
  }
  struct ock_history h;
  ock_history_init(&h);
  int rc = ock_history_from_openai(arr, &h, err);
  cJSON_Delete(arr);
  if (!rc && (h.len != 1 || h.items[0].role != OCK_ROLE_ASSISTANT))
    rc = ock_jerr_set(err, OCK_ETYPE, "$.choices[0].message.role", "expected \"assistant\"");
  if (!rc) {
    *out = h.items[0];
    out->wire_index = -1;
    h.len = 0;
  }
  ock_history_free(&h);
  return rc;
}

int ock_reply_from_openai(const cJSON *body, struct ock_reply *out, struct ock_jerr *err) {
  const cJSON *choices = NULL, *choice = NULL, *message = NULL;
  const char *id = NULL;
  int rc = ock_jcheck_object(body, "$", err);
  if (!rc)
    rc = ock_jget_array(body, "$", "choices", OCK_REQUIRED, &choices, err);
  if (!rc && cJSON_GetArraySize(choices) < 1)
    rc = ock_jerr_set(err, OCK_ETYPE, "$.choices", "expected at least one choice, got none");
  if (!rc)
    rc = ock_jcheck_object(choice = cJSON_GetArrayItem(choices, 0), "$.choices[0]", err);
  if (!rc)
    rc = ock_jget_object(choice, "$.choices[0]", "message", OCK_REQUIRED, &message, err);
  if (!rc)
    rc = ock_jget_string(body, "$", "id", OCK_OPTIONAL, &id, err);
  struct ock_reply r;
  ock_reply_init(&r);
  if (!rc)
    rc = reply_message(message, &r.msg, err);
  if (rc)
    return rc == OCK_ENOMEM ? rc : OCK_EPROTO;
  const char *finish = ock_json_str(choice, "finish_reason");
  if (ock__wire_reply_names(&r, id, finish))
    return OCK_ENOMEM;
  const cJSON *usage = cJSON_GetObjectItemCaseSensitive(body, "usage");
  r.input_tokens = ock_json_int(usage, "prompt_tokens", -1);
  r.output_tokens = ock_json_int(usage, "completion_tokens", -1);
  *out = r;
  return OCK_OK;
}

/* ---- decoding streams ---------------------------------------------------------------------- */

static int delta_calls(ock_wire_stream *s, const cJSON *calls, struct ock_wire_error *err) {
  const cJSON *tc;
  int pos = 0, rc = OCK_OK;
  if (!cJSON_IsArray(calls))
    return OCK_OK;
  cJSON_ArrayForEach(tc, calls) {
    const cJSON *fn = cJSON_GetObjectItemCaseSensitive(tc, "function");
    int key = ock__wire_index(tc, pos++);
    size_t ord = 0;
    rc = key < 0 ? ock__wire_fail(s, err, OCK_EPROTO,
                                  "malformed chunk: tool_calls[].index is not a small whole number")
                 : ock__wire_slot(s, key, 1, err, &ord);
    if (!rc)
      rc = ock__wire_call(s, ord, ock_json_str(tc, "id"), ock_json_str(fn, "name"),
                          ock_json_str(fn, "arguments"), err);
    if (rc)
      return rc;
  }
  return OCK_OK;
}

static int choice_delta(ock_wire_stream *s, const cJSON *choice, struct ock_wire_error *err) {
  const cJSON *delta = cJSON_GetObjectItemCaseSensitive(choice, "delta");
  int rc = OCK_OK;
  if (cJSON_IsObject(delta)) {
    const cJSON *content = cJSON_GetObjectItemCaseSensitive(delta, "content");
    if (cJSON_IsString(content))
      rc = ock__wire_text(s, content->valuestring, err);
    if (!rc)
      rc = delta_calls(s, cJSON_GetObjectItemCaseSensitive(delta, "tool_calls"), err);
  } else if (delta && !cJSON_IsNull(delta)) {
    return ock__wire_fail(s, err, OCK_EPROTO, "malformed chunk: delta is %s, expected an object",
                          ock_json_type_name(delta));
  }
  const char *finish = ock_json_str(choice, "finish_reason");
  if (!rc && finish && ock__wire_replace(&s->finish, finish))
    return ock__wire_fail(s, err, OCK_ENOMEM, "out of memory");
  return rc;
}

static int openai_event(ock_wire_stream *s, const char *name, const cJSON *j,
                        struct ock_wire_error *err) {
  (void)name; /* OpenAI's events have no names */
  const cJSON *error = cJSON_GetObjectItemCaseSensitive(j, "error");
  if (cJSON_IsObject(error))
    return ock__wire_error_event(s, error, err);
  if (ock__wire_set(&s->id, ock_json_str(j, "id")))
    return ock__wire_fail(s, err, OCK_ENOMEM, "out of memory");
  const cJSON *usage = cJSON_GetObjectItemCaseSensitive(j, "usage");
  if (cJSON_IsObject(usage)) {
    s->in_tokens = ock_json_int(usage, "prompt_tokens", s->in_tokens);
    s->out_tokens = ock_json_int(usage, "completion_tokens", s->out_tokens);
  }
  const cJSON *choices = cJSON_GetObjectItemCaseSensitive(j, "choices");
  if (!choices || cJSON_IsNull(choices))
    return OCK_OK;
  if (!cJSON_IsArray(choices))
    return ock__wire_fail(s, err, OCK_EPROTO, "malformed chunk: choices is %s, expected an array",
                          ock_json_type_name(choices));
  const cJSON *choice = cJSON_GetArrayItem(choices, 0);
  return choice ? choice_delta(s, choice, err) : OCK_OK; /* the usage chunk has no choices */
}

/* ---- errors -------------------------------------------------------------------------------- */

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
  const char *type = t ? t->type : status >= 500 ? "server_error" : "invalid_request_error";
  cJSON *e = cJSON_CreateObject();
  int ok = cJSON_AddStringToObject(e, "message", message ? message : dflt) &&
           cJSON_AddStringToObject(e, "type", type) && ock__wire_add_str(e, "param", param) &&
           ock__wire_add_str(e, "code", !code && t ? t->code : code);
  return ock__wire_built(e, ok);
}

static int openai_error(int status, const char *message, const char *param, const char *code,
                        const char *request_id, struct ock_buf *out) {
  (void)request_id; /* OpenAI sends it as a header only */
  cJSON *o = cJSON_CreateObject();
  int ok = ock__wire_add(o, "error", error_object(status, message, param, code));
  return ock__wire_print_to(out, ock__wire_built(o, ok));
}

static int openai_error_event(int status, const char *message, struct ock_buf *out) {
  cJSON *o = cJSON_CreateObject();
  /* status 0 is the stream error of SPEC 6.6: a 500, whose code is null */
  int ok =
      ock__wire_add(o, "error",
                    error_object(status ? status : 500,
                                 message ? message : "ock: scripted stream error", NULL, NULL));
  int rc = ock_buf_puts(out, "data: ");
  if (!rc)
    rc = ock__wire_print_to(out, ock__wire_built(o, ok));
  else
    cJSON_Delete(o);
  if (!rc)
    rc = ock_buf_puts(out, "\n\n");
  return rc;
}

static int openai_malformed_event(struct ock_buf *out) {
  return ock_buf_puts(out, "data: {\"ock\":\n\n");
}

/* ---- where things sit, for the history edits ------------------------------------------------ */

/* A tool result is a role "tool" message of messages. */
static int openai_results(const cJSON *body, struct ock_wire_result *out, int max) {
  cJSON *msgs = ock__wire_messages(body);
  int n = 0, i = 0;
  cJSON *m;
  cJSON_ArrayForEach(m, msgs) {
    if (!strcmp(ock__wire_str(m, "role"), "tool") && n < max)
      out[n++] = (struct ock_wire_result){m, i, msgs, i, m};
    i++;
  }
  return n;
}

/* The calls of an assistant message are its tool_calls. */
static cJSON *openai_calls(cJSON *msg) {
  if (strcmp(ock__wire_str(msg, "role"), "assistant"))
    return NULL;
  cJSON *a = cJSON_GetObjectItemCaseSensitive(msg, "tool_calls");
  return cJSON_IsArray(a) && a->child ? a : NULL;
}

static int openai_is_call(const cJSON *item) {
  (void)item; /* tool_calls holds nothing else */
  return 1;
}

const struct ock_wire_ops ock_wire_openai = {
    .name = "openai",
    .wire = OCK_WIRE_OPENAI,
    .path = "/chat/completions",
    .call_prefix = "call_",
    .finish_text = "stop",
    .finish_tools = "tool_calls",
    .request_id_header = "x-request-id",
    .end_marker = "data: [DONE]",
    .terminators = 1,
    .encode_request = openai_request,
    .encode_reply = openai_reply,
    .encode_events = openai_events,
    .decode_reply = ock_reply_from_openai,
    .decode_event = openai_event,
    .encode_error = openai_error,
    .encode_error_event = openai_error_event,
    .encode_malformed_event = openai_malformed_event,
    .find_results = openai_results,
    .find_calls = openai_calls,
    .is_call = openai_is_call,
    .result_id_key = "tool_call_id",
};
