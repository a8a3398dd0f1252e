/*
 * wire_anthropic.c: Anthropic Messages, byte for byte (research: conformance_kits.md §3.2).
 *
 * A request is {model, max_tokens, system?, messages, tools?, stream}: system prompts go to
 * the top-level "system", consecutive tool results become one user message of tool_result
 * blocks. A streamed reply is message_start (empty content, usage so far), one ping (SPEC 6.5
 * puts it right after message_start; the real API sends pings anywhere), then per content
 * block content_block_start / content_block_delta... / content_block_stop (text_delta for
 * text; for tool_use an empty first input_json_delta, then the arguments in fragments),
 * message_delta with the stop_reason and cumulative usage, and message_stop. Every event has
 * a named `event:` line whose name equals the data's "type". Errors use
 * {"type":"error","error":{type,message},"request_id"}.
 */
#include "wire_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ock/caps.h"
#include "ock/status.h"
#include "ock/wire_request.h"

/* ---- requests ------------------------------------------------------------------------------ */

/* The builders below return 1, or 0 when out of memory (a cJSON* builder: NULL). */

/* request_input: a call's arguments as tool_use.input; text that is not a JSON object is sent
 * as an empty input {}, which the API accepts. */
static cJSON *request_input(const char *arguments) {
  cJSON *v = arguments ? cJSON_Parse(arguments) : NULL;
  if (cJSON_IsObject(v))
    return v;
  cJSON_Delete(v);
  return cJSON_CreateObject();
}

/* add_result adds a tool result as a tool_result block to *open (the content array of the
 * user message collecting results, made on the first one). Returns 0 when out of memory. */
static int add_result(cJSON *arr, cJSON **open, const struct ock_message *m) {
  if (!*open) {
    cJSON *u = cJSON_CreateObject();
    int ok = ock__wire_add(arr, NULL, u) && ock__wire_add_str(u, "role", "user");
    *open = ok ? cJSON_AddArrayToObject(u, "content") : NULL;
    if (!*open)
      return 0;
  }
  cJSON *b = cJSON_CreateObject();
  int ok = ock__wire_add(*open, NULL, b) && ock__wire_add_str(b, "type", "tool_result") &&
           ock__wire_add_str(b, "tool_use_id", m->tool_call_id) &&
           ock__wire_add_str(b, "content", m->content ? m->content : "");
  return ok && (!m->is_error || cJSON_AddTrueToObject(b, "is_error"));
}

/* add_blocks: an assistant message with calls as text and tool_use blocks. */
static int add_blocks(cJSON *o, const struct ock_message *m) {
  cJSON *content = cJSON_AddArrayToObject(o, "content");
  int ok = content != NULL;
  if (ok && m->content && *m->content) {
    cJSON *t = cJSON_CreateObject();
    ok = ock__wire_add(content, NULL, t) && ock__wire_add_str(t, "type", "text") &&
         ock__wire_add_str(t, "text", m->content);
  }
  for (size_t c = 0; ok && c < m->n_calls; c++) {
    cJSON *b = cJSON_CreateObject();
    ok = ock__wire_add(content, NULL, b) && ock__wire_add_str(b, "type", "tool_use") &&
         ock__wire_add_str(b, "id", m->calls[c].id) &&
         ock__wire_add_str(b, "name", m->calls[c].name) &&
         ock__wire_add(b, "input", request_input(m->calls[c].arguments));
  }
  return ok;
}

static int add_message(cJSON *arr, const struct ock_message *m) {
  cJSON *o = cJSON_CreateObject();
  if (!ock__wire_add(arr, NULL, o) || !ock__wire_add_str(o, "role", ock_role_name(m->role)))
    return 0;
  if (m->role == OCK_ROLE_ASSISTANT && m->n_calls)
    return add_blocks(o, m);
  return ock__wire_add_str(o, "content", m->content ? m->content : "");
}

int ock_history_to_anthropic(const struct ock_history *h, cJSON **out, char **out_system) {
  cJSON *arr = cJSON_CreateArray();
  struct ock_buf sys;
  ock_buf_init(&sys, OCK_MAX_DERIVED_TEXT);
  int ok = arr != NULL;
  cJSON *open_results = NULL; /* content array of the user message collecting tool results */
  for (size_t i = 0; ok && i < h->len; i++) {
    const struct ock_message *m = &h->items[i];
    if (m->role == OCK_ROLE_SYSTEM) {
      ok = !(sys.len && ock_buf_puts(&sys, "\n\n")) &&
           !ock_buf_puts(&sys, m->content ? m->content : "");
    } else if (m->role == OCK_ROLE_TOOL) {
      ok = add_result(arr, &open_results, m);
    } else {
      open_results = NULL;
      ok = add_message(arr, m);
    }
  }
  if (!ok) {
    cJSON_Delete(arr);
    ock_buf_free(&sys);
    return OCK_ENOMEM;
  }
  *out = arr;
  *out_system = sys.len ? ock_buf_take(&sys) : NULL;
  ock_buf_free(&sys);
  return OCK_OK;
}

static cJSON *tools_json(const struct ock_wire_request *req) {
  cJSON *arr = cJSON_CreateArray();
  int ok = arr != NULL;
  for (size_t i = 0; ok && i < req->n_tools; i++) {
    const struct ock_tool_spec *t = &req->tools[i];
    cJSON *o = cJSON_CreateObject();
    ok = ock__wire_add(arr, NULL, o) && cJSON_AddStringToObject(o, "name", t->name) &&
         (!t->description || cJSON_AddStringToObject(o, "description", t->description)) &&
         ock__wire_add(o, "input_schema", ock__wire_schema(t));
  }
  return ock__wire_built(arr, ok);
}

static int anthropic_request(const struct ock_wire_request *req, struct ock_buf *out) {
  cJSON *msgs = NULL;
  char *system = NULL;
  int rc = ock_history_to_anthropic(req->messages, &msgs, &system);
  cJSON *body = rc ? NULL : cJSON_CreateObject();
  int ok = body && cJSON_AddStringToObject(body, "model", req->model) &&
           cJSON_AddNumberToObject(body, "max_tokens", req->max_tokens) &&
           (!system || cJSON_AddStringToObject(body, "system", system));
  ok = ock__wire_add(ok ? body : NULL, "messages", msgs) &&
       (!req->n_tools || ock__wire_add(body, "tools", tools_json(req))) &&
       cJSON_AddBoolToObject(body, "stream", req->stream);
  free(system);
  return ock__wire_print_to(out, ock__wire_built(body, ok));
}

/* ---- replies ------------------------------------------------------------------------------- */

static long long tokens(long long n) {
  return n < 0 ? 0 : n;
}

static const char *stop_of(const struct ock_reply *r) {
  return r->finish_reason ? r->finish_reason : r->msg.n_calls ? "tool_use" : "end_turn";
}

static int has_text(const struct ock_reply *r) {
  return r->msg.content && *r->msg.content;
}

/* reply_input: the "input" object of a non-streaming tool_use block. Arguments that are not a
 * JSON object go out as the raw string: exactly the malformed reply a fixture asks for. */
static cJSON *reply_input(const char *arguments) {
  cJSON *v = cJSON_Parse(arguments ? arguments : "{}");
  if (cJSON_IsObject(v))
    return v;
  cJSON_Delete(v);
  return cJSON_CreateString(arguments);
}

/* add_header: id, type, role, model of a message object. */
static int add_header(cJSON *o, const struct ock_reply *r, const struct ock_wire_frame *f) {
  return ock__wire_add_str(o, "id", r->id) && cJSON_AddStringToObject(o, "type", "message") &&
         cJSON_AddStringToObject(o, "role", "assistant") && ock__wire_add_str(o, "model", f->model);
}

static int add_usage(cJSON *o, long long in, long long out) {
  cJSON *u = cJSON_AddObjectToObject(o, "usage");
  return u && cJSON_AddNumberToObject(u, "input_tokens", (double)in) &&
         cJSON_AddNumberToObject(u, "output_tokens", (double)out);
}

/* The non-streaming reply is written as text, member by member in the API's order: it is the
 * mock's hot path, and a tree of it cost most of a reply's instructions. */

/* write_input writes a tool_use block's "input" as reply_input makes it: an object in the bytes
 * cJSON prints for it, anything else as the string it is. */
static int write_input(const char *arguments, struct ock_buf *out) {
  const char *args = arguments ? arguments : "{}";
  int rc = ock_wire_object_text(out, args, strlen(args));
  if (rc != OCK_EJSON)
    return rc != OCK_OK;
  cJSON *input = reply_input(args);
  rc = input ? ock_json_write(out, input) : OCK_ENOMEM;
  cJSON_Delete(input);
  return rc != OCK_OK;
}

static int write_content(const struct ock_reply *r, struct ock_buf *out) {
  int rc = ock_buf_puts(out, ",\"content\":["), first = 1;
  if (!rc && has_text(r)) {
    rc = ock_buf_puts(out, "{\"type\":\"text\",\"text\":") ||
         ock_json_write_string(out, r->msg.content) || ock_buf_puts(out, "}");
    first = 0;
  }
  for (size_t i = 0; !rc && i < r->msg.n_calls; i++, first = 0)
    rc = (!first && ock_buf_puts(out, ",")) ||
         ock_buf_puts(out, "{\"type\":\"tool_use\",\"id\":") ||
         ock_json_write_string(out, r->msg.calls[i].id) || ock_buf_puts(out, ",\"name\":") ||
         ock_json_write_string(out, r->msg.calls[i].name) || ock_buf_puts(out, ",\"input\":") ||
         write_input(r->msg.calls[i].arguments, out) || ock_buf_puts(out, "}");
  return rc || ock_buf_puts(out, "]");
}

static int anthropic_reply(const struct ock_reply *r, const struct ock_wire_frame *f,
                           struct ock_buf *out) {
  int failed = ock_buf_puts(out, "{\"id\":") || ock_json_write_string(out, r->id) ||
               ock_buf_puts(out, ",\"type\":\"message\",\"role\":\"assistant\",\"model\":") ||
               ock_json_write_string(out, f->model) || write_content(r, out) ||
               ock_buf_puts(out, ",\"stop_reason\":") || ock_json_write_string(out, stop_of(r)) ||
               ock_buf_puts(out, ",\"stop_sequence\":") ||
               ock_json_write_string(out, f->stop_sequence) ||
               ock_buf_puts(out, ",\"usage\":{\"input_tokens\":") ||
               ock_json_write_int(out, tokens(r->input_tokens)) ||
               ock_buf_puts(out, ",\"output_tokens\":") ||
               ock_json_write_int(out, tokens(r->output_tokens)) || ock_buf_puts(out, "}}");
  return ock__wire_status(out, failed);
}

/* event: an object {"type": type} to fill, sent as the event of that name (NULL when out of
 * memory). */
static cJSON *event(const char *type) {
  cJSON *o = cJSON_CreateObject();
  return ock__wire_built(o, cJSON_AddStringToObject(o, "type", type) != NULL);
}

/* One content block being streamed. */
struct block {
  struct ock_chunks *out;
  int index;
  const char *type, *key; /* the delta's type and member: text_delta/text, ... */
};

static int block_delta(void *ctx, const char *frag, size_t len) {
  struct block *b = ctx;
  cJSON *o = event("content_block_delta");
  cJSON *d = o && cJSON_AddNumberToObject(o, "index", b->index)
                 ? cJSON_AddObjectToObject(o, "delta")
                 : NULL;
  int ok = d && cJSON_AddStringToObject(d, "type", b->type);
  ok = ock__wire_add(ok ? d : NULL, b->key, ock__wire_strn(frag, len));
  return ock__wire_event(b->out, "content_block_delta", ock__wire_built(o, ok));
}

/* stream_block sends one block: start with content_block (taken), the first delta when
 * `first` (Anthropic's empty input_json_delta), s in fragments, stop. */
static int stream_block(struct block *b, cJSON *content_block, int first, const char *s,
                        long long chunk_size) {
  cJSON *o = event("content_block_start");
  int ok = o && cJSON_AddNumberToObject(o, "index", b->index);
  ok = ock__wire_add(ok ? o : NULL, "content_block", content_block);
  int rc = ock__wire_event(b->out, "content_block_start", ock__wire_built(o, ok));
  if (!rc && first)
    rc = block_delta(b, "", 0);
  if (!rc)
    rc = ock__wire_fragments(s, chunk_size, block_delta, b);
  if (!rc) {
    cJSON *stop = event("content_block_stop");
    ok = cJSON_AddNumberToObject(stop, "index", b->index) != NULL;
    rc = ock__wire_event(b->out, "content_block_stop", ock__wire_built(stop, ok));
  }
  b->index++;
  return rc;
}

static int message_start(const struct ock_reply *r, const struct ock_wire_frame *f,
                         struct ock_chunks *out) {
  cJSON *start = event("message_start");
  cJSON *m = start ? cJSON_AddObjectToObject(start, "message") : NULL;
  int ok = m && add_header(m, r, f) && cJSON_AddArrayToObject(m, "content") &&
           cJSON_AddNullToObject(m, "stop_reason") && cJSON_AddNullToObject(m, "stop_sequence") &&
           add_usage(m, tokens(r->input_tokens), 1);
  int rc = ock__wire_event(out, "message_start", ock__wire_built(start, ok));
  return rc ? rc : ock__wire_event(out, "ping", event("ping"));
}

static int message_end(const struct ock_reply *r, const struct ock_wire_frame *f,
                       struct ock_chunks *out) {
  cJSON *d = event("message_delta");
  cJSON *delta = d ? cJSON_AddObjectToObject(d, "delta") : NULL;
  int ok = delta && cJSON_AddStringToObject(delta, "stop_reason", stop_of(r)) &&
           ock__wire_add_str(delta, "stop_sequence", f->stop_sequence) &&
           add_usage(d, tokens(r->input_tokens), tokens(r->output_tokens));
  int rc = ock__wire_event(out, "message_delta", ock__wire_built(d, ok));
  return rc ? rc : ock__wire_event(out, "message_stop", event("message_stop"));
}

static int anthropic_events(const struct ock_reply *r, const struct ock_wire_frame *f,
                            struct ock_chunks *out) {
  int rc = message_start(r, f, out);
  struct block b = {out, 0, "text_delta", "text"};
  if (!rc && has_text(r)) {
    cJSON *cb = event("text");
    int ok = cJSON_AddStringToObject(cb, "text", "") != NULL;
    rc = stream_block(&b, ock__wire_built(cb, ok), 0, r->msg.content, f->chunk_size);
  }
  b.type = "input_json_delta";
  b.key = "partial_json";
  for (size_t i = 0; i < r->msg.n_calls && !rc; i++) {
    const struct ock_tool_call *c = &r->msg.calls[i];
    cJSON *cb = event("tool_use");
    int ok = cJSON_AddStringToObject(cb, "id", c->id) &&
             cJSON_AddStringToObject(cb, "name", c->name) && cJSON_AddObjectToObject(cb, "input");
    rc = stream_block(&b, ock__wire_built(cb, ok), 1, c->arguments ? c->arguments : "{}",
                      f->chunk_size);
  }
  return rc ? rc : message_end(r, f, out);
}

/* ---- decoding replies ---------------------------------------------------------------------- */

/* reply_message reads the body's content as the one assistant message of a history, so the
 * reply and the request share one reader. */
static int reply_message(const cJSON *content, struct ock_message *out, struct ock_jerr *err) {
  cJSON *msgs = cJSON_CreateArray();
  cJSON *msg = cJSON_CreateObject();
  int ok = ock__wire_add(msgs, NULL, msg) && cJSON_AddStringToObject(msg, "role", "assistant") &&
           ock__wire_add(msg, "content", cJSON_Duplicate(content, 1));
  if (!ok) {
    cJSON_Delete(msgs);
    return OCK_ENOMEM;
  }
  struct ock_history h;
  ock_history_init(&h);
  int rc = ock_history_from_anthropic(NULL, msgs, &h, err);
  cJSON_Delete(msgs);
  if (rc && err && rc != OCK_ENOMEM) {
    /* Paths in err refer to the synthetic wrapper; point at the body's content instead. */
    char where[sizeof err->where];
    const char *tail = strstr(err->where, ".content");
    snprintf(where, sizeof where, "$%s", tail ? tail : "");
    memcpy(err->where, where, sizeof where);
  }
  if (!rc && h.len == 1) {
    *out = h.items[0];
    h.len = 0;
  }
  out->wire_index = -1;
  ock_history_free(&h);
  return rc;
}

int ock_reply_from_anthropic(const cJSON *body, struct ock_reply *out, struct ock_jerr *err) {
  const char *id = NULL, *type = NULL;
  const cJSON *content = NULL;
  int rc = ock_jcheck_object(body, "$", err);
  if (!rc)
    rc = ock_jget_string(body, "$", "type", OCK_OPTIONAL, &type, err);
  if (!rc && type && strcmp(type, "message"))
    rc = ock_jerr_set(err, OCK_ETYPE, "$.type", "expected \"message\", got \"%.40s\"", type);
  if (!rc)
    rc = ock_jget_array(body, "$", "content", OCK_REQUIRED, &content, err);
  if (!rc)
    rc = ock_jget_string(body, "$", "id", OCK_OPTIONAL, &id, err);
  struct ock_reply r;
  ock_reply_init(&r);
  if (!rc)
    rc = reply_message(content, &r.msg, err);
  if (rc)
    return rc == OCK_ENOMEM ? rc : OCK_EPROTO;
  const char *stop = ock_json_str(body, "stop_reason");
  if (ock__wire_reply_names(&r, id, stop))
    return OCK_ENOMEM;
  const cJSON *usage = cJSON_GetObjectItemCaseSensitive(body, "usage");
  r.input_tokens = ock_json_int(usage, "input_tokens", -1);
  r.output_tokens = ock_json_int(usage, "output_tokens", -1);
  *out = r;
  return OCK_OK;
}

/* ---- decoding streams ---------------------------------------------------------------------- */

static int block_add(ock_wire_stream *s, int index, int slot, struct ock_wire_error *err) {
  struct ock__wire_block *b = realloc(s->blocks, (s->n_blocks + 1) * sizeof *b);
  if (!b)
    return ock__wire_fail(s, err, OCK_ENOMEM, "out of memory");
  s->blocks = b;
  s->blocks[s->n_blocks].index = index;
  s->blocks[s->n_blocks].slot = slot;
  s->n_blocks++;
  return OCK_OK;
}

static const struct ock__wire_block *block_find(const ock_wire_stream *s, int index) {
  for (size_t i = 0; i < s->n_blocks; i++)
    if (s->blocks[i].index == index)
      return &s->blocks[i];
  return NULL;
}

/* tool_block_start: a tool_use block opens a call slot; a non-empty input given whole is
 * kept for a call whose arguments never stream. */
static int tool_block_start(ock_wire_stream *s, int index, const cJSON *cb,
                            struct ock_wire_error *err) {
  size_t ord = 0;
  int rc = ock__wire_slot(s, index, 1, err, &ord);
  if (!rc)
    rc = block_add(s, index, (int)ord, err);
  const cJSON *input = cJSON_GetObjectItemCaseSensitive(cb, "input");
  if (!rc && cJSON_IsObject(input) && input->child) {
    s->slots[ord].initial = ock_json_print(input);
    if (!s->slots[ord].initial)
      return ock__wire_fail(s, err, OCK_ENOMEM, "out of memory");
  }
  const char *id = ock_json_str(cb, "id"), *name = ock_json_str(cb, "name");
  return rc ? rc : ock__wire_call(s, ord, id ? id : "", name ? name : "", "", err);
}

static int block_start(ock_wire_stream *s, int index, const cJSON *j, struct ock_wire_error *err) {
  if (block_find(s, index))
    return ock__wire_fail(s, err, OCK_EPROTO, "malformed chunk: content block %d started twice",
                          index);
  const cJSON *cb = cJSON_GetObjectItemCaseSensitive(j, "content_block");
  const char *btype = ock_json_str(cb, "type");
  if (btype && !strcmp(btype, "text")) {
    int rc = block_add(s, index, OCK__BLOCK_TEXT, err);
    const char *t = ock_json_str(cb, "text");
    return rc ? rc : ock__wire_text(s, t ? t : "", err);
  }
  if (btype && !strcmp(btype, "tool_use"))
    return tool_block_start(s, index, cb, err);
  return block_add(s, index, OCK__BLOCK_OTHER, err); /* thinking and other blocks carry no text */
}

static int block_delta_in(ock_wire_stream *s, int index, const cJSON *j,
                          struct ock_wire_error *err) {
  const struct ock__wire_block *b = block_find(s, index);
  if (!b)
    return ock__wire_fail(s, err, OCK_EPROTO,
                          "malformed chunk: delta for content block %d, which never started",
                          index);
  const cJSON *delta = cJSON_GetObjectItemCaseSensitive(j, "delta");
  const char *dtype = ock_json_str(delta, "type");
  int is_text = dtype && !strcmp(dtype, "text_delta");
  int is_json = dtype && !strcmp(dtype, "input_json_delta");
  if (is_text && b->slot == OCK__BLOCK_TEXT) {
    const char *t = ock_json_str(delta, "text");
    return ock__wire_text(s, t ? t : "", err);
  }
  if (is_json && b->slot >= 0) {
    const char *pj = ock_json_str(delta, "partial_json");
    return ock__wire_call(s, (size_t)b->slot, NULL, NULL, pj ? pj : "", err);
  }
  if (is_text || is_json)
    return ock__wire_fail(s, err, OCK_EPROTO, "malformed chunk: %s for a block of another type",
                          dtype);
  return OCK_OK; /* thinking_delta, signature_delta, ... */
}

static int message_event(ock_wire_stream *s, const char *type, const cJSON *j,
                         struct ock_wire_error *err) {
  if (!strcmp(type, "message_start")) {
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(j, "message");
    if (ock__wire_set(&s->id, ock_json_str(msg, "id")))
      return ock__wire_fail(s, err, OCK_ENOMEM, "out of memory");
    s->in_tokens = ock_json_int(cJSON_GetObjectItemCaseSensitive(msg, "usage"), "input_tokens", -1);
    return OCK_OK;
  }
  if (!strcmp(type, "message_stop")) {
    s->done = 1;
    return OCK_OK;
  }
  const char *stop = ock_json_str(cJSON_GetObjectItemCaseSensitive(j, "delta"), "stop_reason");
  if (stop && ock__wire_replace(&s->finish, stop))
    return ock__wire_fail(s, err, OCK_ENOMEM, "out of memory");
  const cJSON *usage = cJSON_GetObjectItemCaseSensitive(j, "usage");
  s->out_tokens = ock_json_int(usage, "output_tokens", s->out_tokens);
  return OCK_OK;
}

static int anthropic_event(ock_wire_stream *s, const char *name, const cJSON *j,
                           struct ock_wire_error *err) {
  const char *type = ock_json_str(j, "type");
  if (!type)
    type = name ? name : "";
  if (!strcmp(type, "error"))
    return ock__wire_error_event(s, cJSON_GetObjectItemCaseSensitive(j, "error"), err);
  if (!strcmp(type, "message_start") || !strcmp(type, "message_stop") ||
      !strcmp(type, "message_delta"))
    return message_event(s, type, j, err);
  int start = !strcmp(type, "content_block_start"), delta = !strcmp(type, "content_block_delta");
  if (!start && !delta)
    return OCK_OK; /* content_block_stop, ping, and event types added later */
  int index = ock__wire_index(j, -1);
  if (index < 0)
    return ock__wire_fail(s, err, OCK_EPROTO,
                          "malformed chunk: %s without an index that is a small whole number",
                          type);
  return start ? block_start(s, index, j, err) : block_delta_in(s, index, j, err);
}

/* ---- errors -------------------------------------------------------------------------------- */

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
  cJSON *o = event("error");
  cJSON *e = o ? cJSON_AddObjectToObject(o, "error") : NULL;
  int ok = e && cJSON_AddStringToObject(e, "type", type) &&
           cJSON_AddStringToObject(e, "message", message ? message : dflt);
  return ock__wire_built(o, ok);
}

static int anthropic_error(int status, const char *message, const char *param, const char *code,
                           const char *request_id, struct ock_buf *out) {
  (void)param; /* OpenAI's */
  (void)code;
  cJSON *o = error_envelope(status, message);
  int ok = o && ock__wire_add_str(o, "request_id", request_id);
  return ock__wire_print_to(out, ock__wire_built(o, ok));
}

static int anthropic_error_event(int status, const char *message, struct ock_buf *out) {
  int rc = ock_buf_puts(out, "event: error\ndata: ");
  if (!rc)
    rc = ock__wire_print_to(out, error_envelope(status ? status : 529,
                                                message ? message : "ock: scripted stream error"));
  if (!rc)
    rc = ock_buf_puts(out, "\n\n");
  return rc;
}

static int anthropic_malformed_event(struct ock_buf *out) {
  return ock_buf_puts(out, "event: content_block_delta\ndata: {\"ock\":\n\n");
}

/* ---- where things sit, for the history edits ------------------------------------------------ */

/* A tool result is a tool_result block in a user message's content. */
static int anthropic_results(const cJSON *body, struct ock_wire_result *out, int max) {
  int n = 0, i = 0;
  cJSON *m;
  cJSON_ArrayForEach(m, ock__wire_messages(body)) {
    cJSON *content = cJSON_GetObjectItemCaseSensitive(m, "content");
    int j = 0;
    cJSON *b;
    if (!strcmp(ock__wire_str(m, "role"), "user") && cJSON_IsArray(content)) {
      cJSON_ArrayForEach(b, content) {
        if (!strcmp(ock__wire_str(b, "type"), "tool_result") && n < max)
          out[n++] = (struct ock_wire_result){m, i, content, j, b};
        j++;
      }
    }
    i++;
  }
  return n;
}

static int anthropic_is_call(const cJSON *item) {
  return !strcmp(ock__wire_str(item, "type"), "tool_use");
}

/* The calls of an assistant message are the tool_use blocks of its content, among text. */
static cJSON *anthropic_calls(cJSON *msg) {
  if (strcmp(ock__wire_str(msg, "role"), "assistant"))
    return NULL;
  cJSON *a = cJSON_GetObjectItemCaseSensitive(msg, "content");
  if (!cJSON_IsArray(a))
    return NULL;
  cJSON *c;
  cJSON_ArrayForEach(c, a) {
    if (anthropic_is_call(c))
      return a;
  }
  return NULL;
}

const struct ock_wire_ops ock_wire_anthropic = {
    .name = "anthropic",
    .wire = OCK_WIRE_ANTHROPIC,
    .path = "/v1/messages",
    .call_prefix = "toolu_",
    .finish_text = "end_turn",
    .finish_tools = "tool_use",
    .request_id_header = "request-id",
    .end_marker = "message_stop",
    .terminators = 1,
    .encode_request = anthropic_request,
    .encode_reply = anthropic_reply,
    .encode_events = anthropic_events,
    .decode_reply = ock_reply_from_anthropic,
    .decode_event = anthropic_event,
    .encode_error = anthropic_error,
    .encode_error_event = anthropic_error_event,
    .encode_malformed_event = anthropic_malformed_event,
    .find_results = anthropic_results,
    .find_calls = anthropic_calls,
    .is_call = anthropic_is_call,
    .result_id_key = "tool_use_id",
};
