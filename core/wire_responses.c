/*
 * wire_responses.c: the OpenAI Responses API (POST /v1/responses), byte for byte as the
 * official SDKs read it (SPEC.md 6.9 lists where the mock's replies are smaller).
 *
 * A request is {model, input, tools?, stream, store}: input items as wire_responses.h says,
 * tools flat ({type: "function", name, description, parameters, strict}). A reply is a
 * Response object {id, object: "response", created_at, status, error, incomplete_details,
 * model, output, usage}: the text as one message item with an output_text part, then one
 * function_call item per call. A streamed reply is typed SSE events, each `event: TYPE` with
 * data {type, sequence_number, ...}, numbered from 0: response.created, response.in_progress,
 * per output item output_item.added, its content (content_part.added, output_text.delta...,
 * output_text.done, content_part.done; or function_call_arguments.delta..., .done) and
 * output_item.done, then response.completed (response.incomplete when the reply stopped
 * short). Errors are the OpenAI envelope; an error inside a stream is an `error` event.
 */
#include "wire_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ock/caps.h"
#include "ock/status.h"
#include "ock/wire_responses.h"

/* ---- history -> input ----------------------------------------------------------------------- */

static int add_message(cJSON *arr, const char *role, const char *text) {
  cJSON *o = cJSON_CreateObject();
  return ock__wire_add(arr, NULL, o) && cJSON_AddStringToObject(o, "role", role) &&
         cJSON_AddStringToObject(o, "content", text ? text : "");
}

static int add_call(cJSON *arr, const struct ock_tool_call *c) {
  cJSON *o = cJSON_CreateObject();
  return ock__wire_add(arr, NULL, o) && cJSON_AddStringToObject(o, "type", "function_call") &&
         cJSON_AddStringToObject(o, "call_id", c->id ? c->id : "") &&
         cJSON_AddStringToObject(o, "name", c->name ? c->name : "") &&
         cJSON_AddStringToObject(o, "arguments", c->arguments ? c->arguments : "{}");
}

static int add_output(cJSON *arr, const struct ock_message *m) {
  cJSON *o = cJSON_CreateObject();
  return ock__wire_add(arr, NULL, o) &&
         cJSON_AddStringToObject(o, "type", "function_call_output") &&
         cJSON_AddStringToObject(o, "call_id", m->tool_call_id ? m->tool_call_id : "") &&
         cJSON_AddStringToObject(o, "output", m->content ? m->content : "");
}

int ock_history_to_responses(const struct ock_history *h, cJSON **out) {
  cJSON *arr = cJSON_CreateArray();
  int ok = arr != NULL;
  for (size_t i = 0; ok && i < h->len; i++) {
    const struct ock_message *m = &h->items[i];
    switch (m->role) {
    case OCK_ROLE_SYSTEM:
    case OCK_ROLE_USER:
      ok = add_message(arr, ock_role_name(m->role), m->content);
      break;
    case OCK_ROLE_ASSISTANT:
      if ((m->content && *m->content) || !m->n_calls)
        ok = add_message(arr, "assistant", m->content);
      for (size_t c = 0; ok && c < m->n_calls; c++)
        ok = add_call(arr, &m->calls[c]);
      break;
    case OCK_ROLE_TOOL:
      ok = add_output(arr, m);
      break;
    }
  }
  if (!(arr = ock__wire_built(arr, ok)))
    return OCK_ENOMEM;
  *out = arr;
  return OCK_OK;
}

/* ---- input -> history ----------------------------------------------------------------------- */

/* content_text: a message's content (a string, or parts whose text is joined; parts without
 * text, such as input_image, add nothing) as a new string in *out. */
static int content_text(const cJSON *content, const char *path, char **out, struct ock_jerr *err) {
  if (cJSON_IsString(content))
    return (*out = strdup(content->valuestring)) ? OCK_OK : OCK_ENOMEM;
  if (!cJSON_IsArray(content))
    return ock_jerr_set(err, OCK_ETYPE, path,
                        "expected a string or an array of content parts, got %s",
                        ock_json_type_name(content));
  struct ock_buf b;
  ock_buf_init(&b, OCK_MAX_DERIVED_TEXT);
  const cJSON *part;
  int i = 0, rc = OCK_OK;
  cJSON_ArrayForEach(part, content) {
    char pp[OCK_JSON_PATH_MAX];
    const char *t = NULL;
    ock_jpath_index(pp, sizeof pp, path, i++);
    rc = ock_jcheck_object(part, pp, err);
    if (!rc)
      rc = ock_jget_string(part, pp, "text", OCK_OPTIONAL, &t, err);
    if (!rc && t)
      rc = ock_buf_puts(&b, t);
    if (rc)
      break;
  }
  *out = rc ? NULL : ock_buf_take(&b);
  ock_buf_free(&b);
  return rc ? rc : *out ? OCK_OK : OCK_ENOMEM;
}

/* One input array being read: the assistant message that function_call items join (-1: the
 * next call starts a new one). */
struct input_read {
  struct ock_history *out;
  long long join;
  struct ock_jerr *err;
};

static int set_last_index(struct ock_history *h, int index) {
  h->items[h->len - 1].wire_index = index;
  return OCK_OK;
}

static int read_message(struct input_read *r, const cJSON *item, const char *path, int index) {
  static const char *const roles[] = {"user", "system", "developer", "assistant", NULL};
  static const enum ock_role as[] = {OCK_ROLE_USER, OCK_ROLE_SYSTEM, OCK_ROLE_SYSTEM,
                                     OCK_ROLE_ASSISTANT};
  int role = 0;
  char cp[OCK_JSON_PATH_MAX], *text = NULL;
  int rc = ock_jget_enum(item, path, "role", OCK_REQUIRED, roles, &role, r->err);
  ock_jpath_key(cp, sizeof cp, path, "content");
  if (!rc && !cJSON_HasObjectItem(item, "content"))
    rc = ock_jerr_set(r->err, OCK_EMISSING, cp, "required member is missing");
  if (!rc)
    rc = content_text(cJSON_GetObjectItemCaseSensitive(item, "content"), cp, &text, r->err);
  if (!rc)
    rc = as[role] == OCK_ROLE_ASSISTANT ? ock_history_add_assistant(r->out, text, NULL, 0)
                                        : ock_history_add_text(r->out, as[role], text);
  free(text);
  if (rc)
    return rc;
  r->join = as[role] == OCK_ROLE_ASSISTANT ? (long long)r->out->len - 1 : -1;
  return set_last_index(r->out, index);
}

/* join_call appends a copy of c to the calls of message m. */
static int join_call(struct ock_message *m, const struct ock_tool_call *c) {
  struct ock_tool_call *calls = realloc(m->calls, (m->n_calls + 1) * sizeof *calls);
  if (!calls)
    return OCK_ENOMEM;
  m->calls = calls;
  struct ock_tool_call *n = &calls[m->n_calls];
  n->id = strdup(c->id);
  n->name = strdup(c->name);
  n->arguments = strdup(c->arguments);
  if (!n->id || !n->name || !n->arguments) {
    free(n->id);
    free(n->name);
    free(n->arguments);
    return OCK_ENOMEM;
  }
  m->n_calls++;
  return OCK_OK;
}

static int read_call(struct input_read *r, const cJSON *item, const char *path, int index) {
  const char *id = NULL, *name = NULL, *args = NULL;
  int rc = ock_jget_string(item, path, "call_id", OCK_REQUIRED, &id, r->err);
  if (!rc)
    rc = ock_jget_string(item, path, "name", OCK_REQUIRED, &name, r->err);
  if (!rc)
    rc = ock_jget_string(item, path, "arguments", OCK_REQUIRED, &args, r->err);
  if (rc)
    return rc;
  struct ock_tool_call c = {(char *)id, (char *)name, (char *)args};
  if (r->join >= 0)
    return join_call(&r->out->items[r->join], &c);
  rc = ock_history_add_assistant(r->out, NULL, &c, 1);
  if (!rc)
    r->join = (long long)r->out->len - 1;
  return rc ? rc : set_last_index(r->out, index);
}

static int read_output(struct input_read *r, const cJSON *item, const char *path, int index) {
  const char *id = NULL;
  char op[OCK_JSON_PATH_MAX], *text = NULL;
  int rc = ock_jget_string(item, path, "call_id", OCK_REQUIRED, &id, r->err);
  ock_jpath_key(op, sizeof op, path, "output");
  if (!rc && !cJSON_HasObjectItem(item, "output"))
    rc = ock_jerr_set(r->err, OCK_EMISSING, op, "required member is missing");
  if (!rc)
    rc = content_text(cJSON_GetObjectItemCaseSensitive(item, "output"), op, &text, r->err);
  if (!rc)
    rc = ock_history_add_tool_result(r->out, id, text, 0);
  free(text);
  r->join = -1;
  return rc ? rc : set_last_index(r->out, index);
}

int ock_history_from_responses(const cJSON *input, struct ock_history *out, struct ock_jerr *err) {
  if (cJSON_IsString(input)) {
    int rc = ock_history_add_text(out, OCK_ROLE_USER, input->valuestring);
    return rc ? rc : set_last_index(out, 0);
  }
  if (!cJSON_IsArray(input))
    return ock_jerr_set(err, OCK_ETYPE, "$.input", "expected a string or an array of items, got %s",
                        ock_json_type_name(input));
  struct input_read r = {out, -1, err};
  const cJSON *item;
  int i = 0, rc = OCK_OK;
  cJSON_ArrayForEach(item, input) {
    char path[OCK_JSON_PATH_MAX];
    ock_jpath_index(path, sizeof path, "$.input", i);
    const char *type = NULL;
    rc = ock_jcheck_object(item, path, err);
    if (!rc)
      rc = ock_jget_string(item, path, "type", OCK_OPTIONAL, &type, err);
    if (!rc && (!type || !strcmp(type, "message")))
      rc = read_message(&r, item, path, i);
    else if (!rc && !strcmp(type, "function_call"))
      rc = read_call(&r, item, path, i);
    else if (!rc && !strcmp(type, "function_call_output"))
      rc = read_output(&r, item, path, i);
    if (rc)
      return rc;
    i++; /* reasoning and other items pass through, and keep a pending join */
  }
  return OCK_OK;
}

/* ---- requests ------------------------------------------------------------------------------ */

static cJSON *tools_json(const struct ock_wire_request *req) {
  cJSON *arr = cJSON_CreateArray();
  int ok = arr != NULL;
  for (size_t i = 0; ok && i < req->n_tools; i++) {
    const struct ock_tool_spec *t = &req->tools[i];
    cJSON *o = cJSON_CreateObject();
    ok = ock__wire_add(arr, NULL, o) && cJSON_AddStringToObject(o, "type", "function") &&
         cJSON_AddStringToObject(o, "name", t->name) &&
         (!t->description || cJSON_AddStringToObject(o, "description", t->description)) &&
         ock__wire_add(o, "parameters", ock__wire_schema(t)) &&
         cJSON_AddBoolToObject(o, "strict", 0);
  }
  return ock__wire_built(arr, ok);
}

/* The whole history goes out on every turn (store: false): the conversation is the request's,
 * as on the other wires; previous_response_id is the mock's to serve, not the reference's. */
static int responses_request(const struct ock_wire_request *req, struct ock_buf *out) {
  cJSON *input = NULL;
  if (ock_history_to_responses(req->messages, &input))
    return OCK_ENOMEM;
  cJSON *body = cJSON_CreateObject();
  int ok = body && cJSON_AddStringToObject(body, "model", req->model);
  ok = ock__wire_add(ok ? body : NULL, "input", input) &&
       (!req->n_tools || ock__wire_add(body, "tools", tools_json(req))) &&
       cJSON_AddBoolToObject(body, "stream", req->stream) &&
       cJSON_AddBoolToObject(body, "store", 0);
  return ock__wire_print_to(out, ock__wire_built(body, ok));
}

/* ---- replies ------------------------------------------------------------------------------- */

static long long tokens(long long n) {
  return n < 0 ? 0 : n;
}

/* incomplete_reason: the reason a reply stopped short, or NULL when it completed. */
static const char *incomplete_reason(const struct ock_reply *r) {
  const char *f = r->finish_reason;
  return f && strcmp(f, "completed") ? f : NULL;
}

/* item_id writes "<prefix>_<suffix of the reply id>" (and "_<call>" when call >= 0): the
 * reply's items are named after it, so the same reply gives the same bytes. */
static void item_id(char *out, size_t n, const char *prefix, const struct ock_reply *r,
                    long long call) {
  const char *id = r->id ? r->id : "resp_ock";
  const char *u = strchr(id, '_');
  const char *base = u ? u + 1 : id;
  if (call < 0)
    snprintf(out, n, "%s_%s", prefix, base);
  else
    snprintf(out, n, "%s_%s_%lld", prefix, base, call);
}

static cJSON *text_part(const char *text) {
  cJSON *p = cJSON_CreateObject();
  int ok = cJSON_AddStringToObject(p, "type", "output_text") &&
           cJSON_AddArrayToObject(p, "annotations") && cJSON_AddArrayToObject(p, "logprobs") &&
           cJSON_AddStringToObject(p, "text", text);
  return ock__wire_built(p, ok);
}

/* message_item: the text's output item; done: with its text and status, else as it starts. */
static cJSON *message_item(const struct ock_reply *r, int done) {
  char id[160];
  item_id(id, sizeof id, "msg", r, -1);
  const char *status = !done ? "in_progress" : incomplete_reason(r) ? "incomplete" : "completed";
  cJSON *o = cJSON_CreateObject();
  int ok = cJSON_AddStringToObject(o, "id", id) && cJSON_AddStringToObject(o, "type", "message") &&
           cJSON_AddStringToObject(o, "status", status);
  cJSON *content = ok ? cJSON_AddArrayToObject(o, "content") : NULL;
  ok = content && (!done || ock__wire_add(content, NULL, text_part(r->msg.content))) &&
       cJSON_AddStringToObject(o, "role", "assistant");
  return ock__wire_built(o, ok);
}

static cJSON *call_item(const struct ock_reply *r, size_t i, int done) {
  const struct ock_tool_call *c = &r->msg.calls[i];
  char id[160];
  item_id(id, sizeof id, "fc", r, (long long)i);
  cJSON *o = cJSON_CreateObject();
  int ok = cJSON_AddStringToObject(o, "id", id) &&
           cJSON_AddStringToObject(o, "type", "function_call") &&
           cJSON_AddStringToObject(o, "status", done ? "completed" : "in_progress") &&
           cJSON_AddStringToObject(o, "arguments",
                                   !done          ? ""
                                   : c->arguments ? c->arguments
                                                  : "{}") &&
           cJSON_AddStringToObject(o, "call_id", c->id ? c->id : "") &&
           cJSON_AddStringToObject(o, "name", c->name ? c->name : "");
  return ock__wire_built(o, ok);
}

static int has_text(const struct ock_reply *r) {
  return r->msg.content && *r->msg.content;
}

static cJSON *usage_json(const struct ock_reply *r) {
  long long in = tokens(r->input_tokens), out = tokens(r->output_tokens);
  cJSON *u = cJSON_CreateObject();
  int ok = u && cJSON_AddNumberToObject(u, "input_tokens", (double)in);
  cJSON *id = ok ? cJSON_AddObjectToObject(u, "input_tokens_details") : NULL;
  ok = id && cJSON_AddNumberToObject(id, "cached_tokens", 0) &&
       cJSON_AddNumberToObject(u, "output_tokens", (double)out);
  cJSON *od = ok ? cJSON_AddObjectToObject(u, "output_tokens_details") : NULL;
  ok = od && cJSON_AddNumberToObject(od, "reasoning_tokens", 0) &&
       cJSON_AddNumberToObject(u, "total_tokens", (double)(in + out));
  return ock__wire_built(u, ok);
}

/* output_json: the output items of a finished reply (as ock_responses_write_item writes them). */
static int output_json(const struct ock_reply *r, cJSON **out) {
  cJSON *output = cJSON_CreateArray();
  int ok = output != NULL;
  if (ok && has_text(r))
    ok = ock__wire_add(output, NULL, message_item(r, 1));
  for (size_t i = 0; ok && i < r->msg.n_calls; i++)
    ok = ock__wire_add(output, NULL, call_item(r, i, 1));
  if (!(output = ock__wire_built(output, ok)))
    return OCK_ENOMEM;
  *out = output;
  return OCK_OK;
}

/* response_json: the Response object; done: the final one (output, status, usage), else the
 * one response.created and response.in_progress carry. */
static cJSON *response_json(const struct ock_reply *r, const struct ock_wire_frame *f, int done) {
  const char *reason = incomplete_reason(r);
  cJSON *o = cJSON_CreateObject();
  int ok = ock__wire_add_str(o, "id", r->id) && cJSON_AddStringToObject(o, "object", "response") &&
           cJSON_AddNumberToObject(o, "created_at", (double)f->created) &&
           cJSON_AddStringToObject(o, "status",
                                   !done    ? "in_progress"
                                   : reason ? "incomplete"
                                            : "completed") &&
           cJSON_AddFalseToObject(o, "background") && cJSON_AddNullToObject(o, "error");
  cJSON *details = ok && done && reason ? cJSON_AddObjectToObject(o, "incomplete_details") : NULL;
  ok = ok && (details            ? cJSON_AddStringToObject(details, "reason", reason) != NULL
              : !done || !reason ? cJSON_AddNullToObject(o, "incomplete_details") != NULL
                                 : 0);
  ok = ok && ock__wire_add_str(o, "model", f->model);
  cJSON *output = NULL;
  ok = ok && (done ? output_json(r, &output) == OCK_OK : (output = cJSON_CreateArray()) != NULL);
  ok = ok && ock__wire_add(o, "output", output);
  ok = ok && (done ? ock__wire_add(o, "usage", usage_json(r))
                   : cJSON_AddNullToObject(o, "usage") != NULL);
  return ock__wire_built(o, ok);
}

/* The non-streamed reply, and the items the mock stores, are written as text, member by member
 * in the order the trees above give them (a test holds the two to the same bytes): it is the
 * mock's hot path on this wire, and the tree of it was most of a reply's work. put appends a
 * fixed piece, str a JSON string; both return 0 on success. */
static int put(struct ock_buf *b, const char *text) {
  return ock_buf_puts(b, text);
}

static int str(struct ock_buf *b, const char *s) {
  return ock_json_write_string(b, s);
}

static int write_message_item(const struct ock_reply *r, struct ock_buf *out) {
  char id[160];
  item_id(id, sizeof id, "msg", r, -1);
  return put(out, "{\"id\":") || str(out, id) || put(out, ",\"type\":\"message\",\"status\":") ||
         str(out, incomplete_reason(r) ? "incomplete" : "completed") ||
         put(out, ",\"content\":[{\"type\":\"output_text\",\"annotations\":[],\"logprobs\":[],"
                  "\"text\":") ||
         str(out, r->msg.content) || put(out, "}],\"role\":\"assistant\"}");
}

static int write_call_item(const struct ock_reply *r, size_t i, struct ock_buf *out) {
  const struct ock_tool_call *c = &r->msg.calls[i];
  char id[160];
  item_id(id, sizeof id, "fc", r, (long long)i);
  return put(out, "{\"id\":") || str(out, id) ||
         put(out, ",\"type\":\"function_call\",\"status\":\"completed\",\"arguments\":") ||
         str(out, c->arguments ? c->arguments : "{}") || put(out, ",\"call_id\":") ||
         str(out, c->id ? c->id : "") || put(out, ",\"name\":") ||
         str(out, c->name ? c->name : "") || put(out, "}");
}

size_t ock_responses_output_len(const struct ock_reply *r) {
  return (has_text(r) ? 1 : 0) + r->msg.n_calls;
}

void ock_responses_item_id(const struct ock_reply *r, size_t k, char *out, size_t n) {
  if (has_text(r) && k == 0)
    item_id(out, n, "msg", r, -1);
  else
    item_id(out, n, "fc", r, (long long)(k - (has_text(r) ? 1 : 0)));
}

int ock_responses_write_item(const struct ock_reply *r, size_t k, struct ock_buf *out) {
  if (has_text(r) && k == 0)
    return write_message_item(r, out);
  return write_call_item(r, k - (has_text(r) ? 1 : 0), out);
}

static int write_usage(const struct ock_reply *r, struct ock_buf *out) {
  long long in = tokens(r->input_tokens), o = tokens(r->output_tokens);
  return put(out, "{\"input_tokens\":") || ock_json_write_int(out, in) ||
         put(out, ",\"input_tokens_details\":{\"cached_tokens\":0},\"output_tokens\":") ||
         ock_json_write_int(out, o) ||
         put(out, ",\"output_tokens_details\":{\"reasoning_tokens\":0},\"total_tokens\":") ||
         ock_json_write_int(out, in + o) || put(out, "}");
}

static int responses_reply(const struct ock_reply *r, const struct ock_wire_frame *f,
                           struct ock_buf *out) {
  const char *reason = incomplete_reason(r);
  int failed =
      put(out, "{\"id\":") || str(out, r->id) ||
      put(out, ",\"object\":\"response\",\"created_at\":") || ock_json_write_int(out, f->created) ||
      put(out, ",\"status\":") || str(out, reason ? "incomplete" : "completed") ||
      put(out, ",\"background\":false,\"error\":null,\"incomplete_details\":") ||
      (reason ? put(out, "{\"reason\":") || str(out, reason) || put(out, "}") : put(out, "null")) ||
      put(out, ",\"model\":") || str(out, f->model) || put(out, ",\"output\":[");
  for (size_t k = 0; !failed && k < ock_responses_output_len(r); k++)
    failed = (k && put(out, ",")) || ock_responses_write_item(r, k, out);
  failed = failed || put(out, "],\"usage\":") || write_usage(r, out) || put(out, "}");
  return ock__wire_status(out, failed);
}

/* One streamed reply being encoded: events are numbered from 0 in the order they go out. */
struct events {
  const struct ock_reply *r;
  const struct ock_wire_frame *f;
  struct ock_chunks *out;
  long long seq;
  int output_index; /* of the item being sent */
  char item[160];   /* its id */
};

/* event_start: a new event {type, sequence_number} (NULL when out of memory). */
static cJSON *event_start(struct events *e, const char *type) {
  cJSON *o = cJSON_CreateObject();
  int ok = cJSON_AddStringToObject(o, "type", type) &&
           cJSON_AddNumberToObject(o, "sequence_number", (double)e->seq);
  return ock__wire_built(o, ok);
}

/* event_send frames o (taken; ok 0: it lost a member) as the next event. */
static int event_send(struct events *e, const char *type, cJSON *o, int ok) {
  e->seq++;
  return ock__wire_event(e->out, type, ock__wire_built(o, ok));
}

static int send_response(struct events *e, const char *type, int done) {
  cJSON *o = event_start(e, type);
  return event_send(e, type, o, ock__wire_add(o, "response", response_json(e->r, e->f, done)));
}

/* send_item: output_item.added or .done with item (taken). */
static int send_item(struct events *e, const char *type, cJSON *item) {
  cJSON *o = event_start(e, type);
  int ok = o && cJSON_AddNumberToObject(o, "output_index", e->output_index);
  return event_send(e, type, o, ok && ock__wire_add(o, "item", item));
}

/* item_event: an event about the current item: {item_id, output_index} and content_index
 * when content >= 0. */
static cJSON *item_event(struct events *e, const char *type, int content) {
  cJSON *o = event_start(e, type);
  int ok = o && cJSON_AddStringToObject(o, "item_id", e->item) &&
           cJSON_AddNumberToObject(o, "output_index", e->output_index) &&
           (content < 0 || cJSON_AddNumberToObject(o, "content_index", content));
  return ock__wire_built(o, ok);
}

static int send_part(struct events *e, const char *type, const char *text) {
  cJSON *o = item_event(e, type, 0);
  return event_send(e, type, o, ock__wire_add(o, "part", text_part(text)));
}

static int text_fragment(void *ctx, const char *frag, size_t len) {
  struct events *e = ctx;
  const char *type = "response.output_text.delta";
  cJSON *o = item_event(e, type, 0);
  int ok =
      ock__wire_add(o, "delta", ock__wire_strn(frag, len)) && cJSON_AddArrayToObject(o, "logprobs");
  return event_send(e, type, o, ok);
}

static int args_fragment(void *ctx, const char *frag, size_t len) {
  struct events *e = ctx;
  const char *type = "response.function_call_arguments.delta";
  cJSON *o = item_event(e, type, -1);
  return event_send(e, type, o, ock__wire_add(o, "delta", ock__wire_strn(frag, len)));
}

static int text_events(struct events *e) {
  const char *text = e->r->msg.content;
  item_id(e->item, sizeof e->item, "msg", e->r, -1);
  int rc = send_item(e, "response.output_item.added", message_item(e->r, 0));
  if (!rc)
    rc = send_part(e, "response.content_part.added", "");
  if (!rc)
    rc = ock__wire_fragments(text, e->f->chunk_size, text_fragment, e);
  if (!rc) {
    const char *type = "response.output_text.done";
    cJSON *o = item_event(e, type, 0);
    int ok = o && cJSON_AddStringToObject(o, "text", text) && cJSON_AddArrayToObject(o, "logprobs");
    rc = event_send(e, type, o, ok);
  }
  if (!rc)
    rc = send_part(e, "response.content_part.done", text);
  if (!rc)
    rc = send_item(e, "response.output_item.done", message_item(e->r, 1));
  return rc;
}

static int call_events(struct events *e, size_t i) {
  const struct ock_tool_call *c = &e->r->msg.calls[i];
  const char *args = c->arguments ? c->arguments : "{}";
  item_id(e->item, sizeof e->item, "fc", e->r, (long long)i);
  int rc = send_item(e, "response.output_item.added", call_item(e->r, i, 0));
  if (!rc)
    rc = ock__wire_fragments(args, e->f->chunk_size, args_fragment, e);
  if (!rc) {
    const char *type = "response.function_call_arguments.done";
    cJSON *o = item_event(e, type, -1);
    int ok = o && cJSON_AddStringToObject(o, "name", c->name ? c->name : "") &&
             cJSON_AddStringToObject(o, "arguments", args);
    rc = event_send(e, type, o, ok);
  }
  if (!rc)
    rc = send_item(e, "response.output_item.done", call_item(e->r, i, 1));
  return rc;
}

static int responses_events(const struct ock_reply *r, const struct ock_wire_frame *f,
                            struct ock_chunks *out) {
  struct events e = {.r = r, .f = f, .out = out};
  int rc = send_response(&e, "response.created", 0);
  if (!rc)
    rc = send_response(&e, "response.in_progress", 0);
  if (!rc && has_text(r)) {
    rc = text_events(&e);
    e.output_index++;
  }
  for (size_t i = 0; !rc && i < r->msg.n_calls; i++, e.output_index++)
    rc = call_events(&e, i);
  if (!rc)
    rc = send_response(&e, incomplete_reason(r) ? "response.incomplete" : "response.completed", 1);
  return rc;
}

/* ---- decoding replies ---------------------------------------------------------------------- */

/* One reply being read: its text and calls. */
struct reply_read {
  struct ock_buf text;
  int has_text;
  struct ock_message *msg;
  struct ock_jerr *err;
};

static int read_out_message(struct reply_read *r, const cJSON *item, const char *path) {
  char cp[OCK_JSON_PATH_MAX], *text = NULL;
  ock_jpath_key(cp, sizeof cp, path, "content");
  int rc = content_text(cJSON_GetObjectItemCaseSensitive(item, "content"), cp, &text, r->err);
  if (!rc && (rc = ock_buf_puts(&r->text, text)) == OCK_OK)
    r->has_text = 1;
  free(text);
  return rc;
}

static int read_out_call(struct reply_read *r, const cJSON *item, const char *path) {
  const char *id = NULL, *name = NULL, *args = NULL;
  int rc = ock_jget_string(item, path, "call_id", OCK_REQUIRED, &id, r->err);
  if (!rc)
    rc = ock_jget_string(item, path, "name", OCK_REQUIRED, &name, r->err);
  if (!rc)
    rc = ock_jget_string(item, path, "arguments", OCK_OPTIONAL, &args, r->err);
  if (rc)
    return rc;
  struct ock_tool_call c = {(char *)id, (char *)name, (char *)(args && *args ? args : "{}")};
  return join_call(r->msg, &c);
}

static int read_output_items(const cJSON *output, struct reply_read *r) {
  const cJSON *item;
  int i = 0, rc = OCK_OK;
  cJSON_ArrayForEach(item, output) {
    char path[OCK_JSON_PATH_MAX];
    ock_jpath_index(path, sizeof path, "$.output", i++);
    const char *type = NULL;
    rc = ock_jcheck_object(item, path, r->err);
    if (!rc)
      rc = ock_jget_string(item, path, "type", OCK_REQUIRED, &type, r->err);
    if (!rc && !strcmp(type, "message"))
      rc = read_out_message(r, item, path);
    else if (!rc && !strcmp(type, "function_call"))
      rc = read_out_call(r, item, path);
    if (rc)
      return rc;
  }
  return OCK_OK;
}

/* finish_of_status: "completed", or the reason of an incomplete reply. */
static const char *finish_of_status(const cJSON *body) {
  const char *status = ock_json_str(body, "status");
  if (status && !strcmp(status, "incomplete")) {
    const char *reason =
        ock_json_str(cJSON_GetObjectItemCaseSensitive(body, "incomplete_details"), "reason");
    return reason ? reason : status;
  }
  return status;
}

int ock_reply_from_responses(const cJSON *body, struct ock_reply *out, struct ock_jerr *err) {
  const cJSON *output = NULL;
  const char *id = NULL;
  int rc = ock_jcheck_object(body, "$", err);
  if (!rc)
    rc = ock_jget_array(body, "$", "output", OCK_REQUIRED, &output, err);
  if (!rc)
    rc = ock_jget_string(body, "$", "id", OCK_OPTIONAL, &id, err);
  if (rc)
    return OCK_EPROTO;
  struct ock_reply reply;
  ock_reply_init(&reply);
  reply.msg.role = OCK_ROLE_ASSISTANT;
  reply.msg.wire_index = -1;
  struct reply_read r = {.msg = &reply.msg, .err = err};
  ock_buf_init(&r.text, OCK_MAX_DERIVED_TEXT);
  rc = read_output_items(output, &r);
  if (!rc && r.has_text && !(reply.msg.content = ock_buf_take(&r.text)))
    rc = OCK_ENOMEM;
  ock_buf_free(&r.text);
  if (!rc)
    rc = ock__wire_reply_names(&reply, id, finish_of_status(body));
  if (rc) {
    ock_reply_clear(&reply);
    return rc == OCK_ENOMEM ? rc : OCK_EPROTO;
  }
  const cJSON *usage = cJSON_GetObjectItemCaseSensitive(body, "usage");
  reply.input_tokens = ock_json_int(usage, "input_tokens", -1);
  reply.output_tokens = ock_json_int(usage, "output_tokens", -1);
  *out = reply;
  return OCK_OK;
}

/* ---- decoding streams ---------------------------------------------------------------------- */

/* output_index: the event's output_index as a small whole number, or -1. */
static int output_index(const cJSON *j) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "output_index");
  if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > OCK__WIRE_MAX_INDEX ||
      v->valuedouble != (double)(int)v->valuedouble)
    return -1;
  return (int)v->valuedouble;
}

static int bad_index(ock_wire_stream *s, struct ock_wire_error *err, const char *type) {
  return ock__wire_fail(s, err, OCK_EPROTO,
                        "malformed chunk: %s without a small whole output_index", type);
}

/* item_added opens a function_call item's slot (other items carry nothing yet). */
static int item_added(ock_wire_stream *s, const cJSON *j, struct ock_wire_error *err) {
  const cJSON *item = cJSON_GetObjectItemCaseSensitive(j, "item");
  if (strcmp(ock__wire_str(item, "type"), "function_call"))
    return OCK_OK;
  int key = output_index(j);
  size_t ord = 0;
  int rc = key < 0 ? bad_index(s, err, "response.output_item.added")
                   : ock__wire_slot(s, key, 1, err, &ord);
  return rc ? rc
            : ock__wire_call(s, ord, ock_json_str(item, "call_id"), ock_json_str(item, "name"),
                             ock__wire_str(item, "arguments"), err);
}

/* item_done: a function_call whose arguments came only whole, in the done item. */
static int item_done(ock_wire_stream *s, const cJSON *j, struct ock_wire_error *err) {
  const cJSON *item = cJSON_GetObjectItemCaseSensitive(j, "item");
  if (strcmp(ock__wire_str(item, "type"), "function_call"))
    return OCK_OK;
  int key = output_index(j);
  size_t ord = 0;
  int rc = key < 0 ? bad_index(s, err, "response.output_item.done")
                   : ock__wire_slot(s, key, 0, err, &ord);
  if (rc || s->slots[ord].args.len)
    return rc;
  return ock__wire_call(s, ord, NULL, NULL, ock__wire_str(item, "arguments"), err);
}

static int args_delta(ock_wire_stream *s, const cJSON *j, struct ock_wire_error *err) {
  int key = output_index(j);
  size_t ord = 0;
  int rc = key < 0 ? bad_index(s, err, "response.function_call_arguments.delta")
                   : ock__wire_slot(s, key, 0, err, &ord);
  return rc ? rc : ock__wire_call(s, ord, NULL, NULL, ock__wire_str(j, "delta"), err);
}

/* response_end: response.completed or response.incomplete ends the stream. */
static int response_end(ock_wire_stream *s, const cJSON *j, struct ock_wire_error *err) {
  const cJSON *resp = cJSON_GetObjectItemCaseSensitive(j, "response");
  const char *id = ock_json_str(resp, "id"), *finish = finish_of_status(resp);
  if ((id && ock__wire_replace(&s->id, id)) || (finish && ock__wire_replace(&s->finish, finish)))
    return ock__wire_fail(s, err, OCK_ENOMEM, "out of memory");
  const cJSON *usage = cJSON_GetObjectItemCaseSensitive(resp, "usage");
  s->in_tokens = ock_json_int(usage, "input_tokens", s->in_tokens);
  s->out_tokens = ock_json_int(usage, "output_tokens", s->out_tokens);
  s->done = 1;
  return OCK_OK;
}

static int responses_event(ock_wire_stream *s, const char *name, const cJSON *j,
                           struct ock_wire_error *err) {
  const char *type = ock_json_str(j, "type");
  if (!type)
    type = name ? name : "";
  if (!strcmp(type, "error"))
    return ock__wire_fail(s, err, OCK_EPROTO, "error event mid-stream: %s: %s",
                          ock_json_str(j, "code") ? ock_json_str(j, "code") : "error",
                          ock_json_str(j, "message") ? ock_json_str(j, "message") : "(no message)");
  const cJSON *resp = cJSON_GetObjectItemCaseSensitive(j, "response");
  if (!strcmp(type, "response.failed"))
    return ock__wire_error_event(s, cJSON_GetObjectItemCaseSensitive(resp, "error"), err);
  if (ock__wire_set(&s->id, ock_json_str(resp, "id")))
    return ock__wire_fail(s, err, OCK_ENOMEM, "out of memory");
  if (!strcmp(type, "response.output_text.delta"))
    return ock__wire_text(s, ock__wire_str(j, "delta"), err);
  if (!strcmp(type, "response.output_item.added"))
    return item_added(s, j, err);
  if (!strcmp(type, "response.function_call_arguments.delta"))
    return args_delta(s, j, err);
  if (!strcmp(type, "response.output_item.done"))
    return item_done(s, j, err);
  if (!strcmp(type, "response.completed") || !strcmp(type, "response.incomplete"))
    return response_end(s, j, err);
  return OCK_OK; /* response.created, in_progress, content_part.*, *.done: nothing new */
}

/* ---- errors -------------------------------------------------------------------------------- */

/* The error body is Chat Completions' envelope, {"error": {message, type, param, code}}. */
static int responses_error(int status, const char *message, const char *param, const char *code,
                           const char *request_id, struct ock_buf *out) {
  return ock_wire_openai.encode_error(status, message, param, code, request_id, out);
}

/* The `error` event: {type, sequence_number, code, message, param}; its code is the one the
 * status's error body has (server_error for a stream error, status 0). */
static int error_event_at(size_t seq, int status, const char *message, struct ock_buf *out) {
  const char *code = status == 429                  ? "rate_limit_exceeded"
                     : status == 401                ? "invalid_api_key"
                     : status == 0 || status >= 500 ? "server_error"
                                                    : "invalid_request_error";
  cJSON *o = cJSON_CreateObject();
  int ok =
      cJSON_AddStringToObject(o, "type", "error") &&
      cJSON_AddNumberToObject(o, "sequence_number", (double)seq) &&
      cJSON_AddStringToObject(o, "code", code) &&
      cJSON_AddStringToObject(o, "message", message ? message : "ock: scripted stream error") &&
      cJSON_AddNullToObject(o, "param");
  int rc = ock_buf_puts(out, "event: error\ndata: ");
  if (!rc)
    rc = ock__wire_print_to(out, ock__wire_built(o, ok));
  else
    cJSON_Delete(o);
  return rc ? rc : ock_buf_puts(out, "\n\n");
}

static int responses_error_event(int status, const char *message, struct ock_buf *out) {
  return error_event_at(0, status, message, out);
}

static int responses_malformed_event(struct ock_buf *out) {
  return ock_buf_puts(out, "event: response.output_text.delta\ndata: {\"ock\":\n\n");
}

/* ---- where things sit, for the history edits ------------------------------------------------ */

static cJSON *input_items(const cJSON *body) {
  cJSON *in = cJSON_GetObjectItemCaseSensitive(body, "input");
  return cJSON_IsArray(in) ? in : NULL;
}

/* A tool result is a function_call_output item of input. */
static int responses_results(const cJSON *body, struct ock_wire_result *out, int max) {
  cJSON *items = input_items(body);
  int n = 0, i = 0;
  cJSON *it;
  cJSON_ArrayForEach(it, items) {
    if (!strcmp(ock__wire_str(it, "type"), "function_call_output") && n < max)
      out[n++] = (struct ock_wire_result){it, i, items, i, it};
    i++;
  }
  return n;
}

/* Calls are items of their own, not members of a message. */
static cJSON *responses_calls(cJSON *msg) {
  (void)msg;
  return NULL;
}

static int responses_is_call(const cJSON *item) {
  return !strcmp(ock__wire_str(item, "type"), "function_call");
}

const struct ock_wire_ops ock_wire_responses = {
    .name = "responses",
    .wire = OCK_WIRE_RESPONSES,
    .path = "/responses",
    .call_prefix = "call_",
    .finish_text = "completed",
    .finish_tools = "completed",
    .request_id_header = "x-request-id",
    .end_marker = "response.completed",
    .terminators = 1,
    .encode_request = responses_request,
    .encode_reply = responses_reply,
    .encode_events = responses_events,
    .decode_reply = ock_reply_from_responses,
    .decode_event = responses_event,
    .encode_error = responses_error,
    .encode_error_event = responses_error_event,
    .encode_error_event_at = error_event_at,
    .encode_malformed_event = responses_malformed_event,
    .find_results = responses_results,
    .find_calls = responses_calls,
    .is_call = responses_is_call,
    .result_id_key = "call_id",
};
