/*
 * wire_gemini.c: the Gemini API's generateContent, byte for byte (SPEC.md 6.5).
 *
 * A request is {contents, systemInstruction?, tools?: [{functionDeclarations}]}; the model
 * and the choice of streaming are in the URL (POST {base}/v1beta/models/{model}:generateContent,
 * or :streamGenerateContent?alt=sse), not in the body. A reply is a GenerateContentResponse:
 * {candidates: [{content: {role: "model", parts}, finishReason, index}], usageMetadata,
 * modelVersion, responseId}, where a tool call is a functionCall part {name, args, id} with
 * args an object. A streamed reply is a series of `data:` events, each a whole
 * GenerateContentResponse holding the next parts: one per text fragment, one per call (Gemini
 * never splits a call's args), and a last one with an empty text part, the finishReason and the
 * full usage. There is no end marker beyond the finishReason: a stream that ends without one
 * was cut. Errors are {"error": {code, message, status}}, also inside a stream.
 */
#include "wire_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ock/caps.h"
#include "ock/gemini.h"
#include "ock/status.h"

/* ---- the path ----------------------------------------------------------------------------- */

static int path_ends_with(const char *s, size_t n, const char *tail) {
  size_t t = strlen(tail);
  return n >= t && !memcmp(s + n - t, tail, t);
}

long ock_gemini_route(const char *path, const char **model, size_t *model_len, int *stream) {
  const char *m = strstr(path, "/models/");
  if (!m)
    return -1;
  size_t before = (size_t)(m - path);
  long prefix = path_ends_with(path, before, "/v1beta") ? (long)before - 7
                : path_ends_with(path, before, "/v1")   ? (long)before - 3
                                                        : -1;
  const char *name = m + 8, *colon = strchr(name, ':');
  if (prefix < 0 || !colon || colon == name || memchr(name, '/', (size_t)(colon - name)))
    return -1;
  int is_stream = !strcmp(colon, ":streamGenerateContent");
  if (!is_stream && strcmp(colon, ":generateContent"))
    return -1;
  *model = name;
  *model_len = (size_t)(colon - name);
  *stream = is_stream;
  return prefix;
}

/* ---- requests ------------------------------------------------------------------------------ */

static cJSON *declarations(const struct ock_wire_request *req) {
  cJSON *tools = cJSON_CreateArray();
  cJSON *tool = cJSON_CreateObject();
  cJSON *decls = tool ? cJSON_AddArrayToObject(tool, "functionDeclarations") : NULL;
  int ok = ock__wire_add(tools, NULL, tool) && decls;
  for (size_t i = 0; ok && i < req->n_tools; i++) {
    const struct ock_tool_spec *t = &req->tools[i];
    cJSON *d = cJSON_CreateObject();
    ok = ock__wire_add(decls, NULL, d) && cJSON_AddStringToObject(d, "name", t->name) &&
         (!t->description || cJSON_AddStringToObject(d, "description", t->description)) &&
         ock__wire_add(d, "parametersJsonSchema", ock__wire_schema(t));
  }
  return ock__wire_built(tools, ok);
}

static int gemini_request(const struct ock_wire_request *req, struct ock_buf *out) {
  cJSON *contents = NULL, *system = NULL;
  int rc = ock_history_to_gemini(req->messages, &contents, &system);
  cJSON *body = rc ? NULL : cJSON_CreateObject();
  int ok = ock__wire_add(body, "contents", contents); /* takes contents, also when it fails */
  if (system)
    ok = ock__wire_add(ok ? body : NULL, "systemInstruction", system);
  ok = ok && (!req->n_tools || ock__wire_add(body, "tools", declarations(req)));
  return ock__wire_print_to(out, ock__wire_built(body, ok));
}

/* ---- replies ------------------------------------------------------------------------------- */

static long long tokens(long long n) {
  return n < 0 ? 0 : n;
}

static const char *finish_of(const struct ock_reply *r) {
  return r->finish_reason ? r->finish_reason : "STOP";
}

/* args_value: a call's args: the object its arguments are, or the raw text as a string (the
 * malformed reply a fixture asks for). */
static cJSON *args_value(const char *arguments) {
  cJSON *v = cJSON_Parse(arguments ? arguments : "{}");
  if (cJSON_IsObject(v))
    return v;
  cJSON_Delete(v);
  return cJSON_CreateString(arguments);
}

static cJSON *call_part(const struct ock_tool_call *c) {
  cJSON *part = cJSON_CreateObject();
  cJSON *fc = part ? cJSON_AddObjectToObject(part, "functionCall") : NULL;
  int ok = fc && cJSON_AddStringToObject(fc, "name", c->name ? c->name : "") &&
           ock__wire_add(fc, "args", args_value(c->arguments)) &&
           (!c->id || cJSON_AddStringToObject(fc, "id", c->id));
  return ock__wire_built(part, ok);
}

static cJSON *text_part(const char *text, size_t len) {
  cJSON *part = cJSON_CreateObject();
  return ock__wire_built(part, ock__wire_add(part, "text", ock__wire_strn(text, len)));
}

static int add_usage(cJSON *o, long long in, long long out, int final) {
  cJSON *u = cJSON_AddObjectToObject(o, "usageMetadata");
  return u && cJSON_AddNumberToObject(u, "promptTokenCount", (double)in) &&
         (!final || cJSON_AddNumberToObject(u, "candidatesTokenCount", (double)out)) &&
         cJSON_AddNumberToObject(u, "totalTokenCount", (double)(final ? in + out : in));
}

/* response: a GenerateContentResponse holding parts (taken), with finishReason and the full
 * usage when final. */
static cJSON *response(const struct ock_reply *r, const struct ock_wire_frame *f, cJSON *parts,
                       int final) {
  cJSON *o = cJSON_CreateObject();
  cJSON *cands = o ? cJSON_AddArrayToObject(o, "candidates") : NULL;
  cJSON *cand = cJSON_CreateObject();
  int ok = ock__wire_add(cands, NULL, cand);
  cJSON *content = ok ? cJSON_AddObjectToObject(cand, "content") : NULL;
  ok = ock__wire_add(content, "parts", parts) &&
       cJSON_AddStringToObject(content, "role", "model") &&
       (!final || cJSON_AddStringToObject(cand, "finishReason", finish_of(r))) &&
       cJSON_AddNumberToObject(cand, "index", 0) &&
       add_usage(o, tokens(r->input_tokens), tokens(r->output_tokens), final) &&
       ock__wire_add_str(o, "modelVersion", f->model) && ock__wire_add_str(o, "responseId", r->id);
  return ock__wire_built(o, ok); /* parts were taken by ock__wire_add, attached or not */
}

static int has_text(const struct ock_reply *r) {
  return r->msg.content && *r->msg.content;
}

/* The non-streamed reply is written as text, member by member in the order response() gives
 * them: it is the mock's hot path on this wire, and a tree of it was most of a reply's work.
 * put appends a fixed piece, str a JSON string; both return 0 on success. */
static int put(struct ock_buf *b, const char *text) {
  return ock_buf_puts(b, text);
}

static int str(struct ock_buf *b, const char *s) {
  return ock_json_write_string(b, s);
}

/* write_args: a call's args as call_part gives them (the object, printed compact; else the
 * raw text as a string). */
static int write_args(const char *arguments, struct ock_buf *out) {
  cJSON *v = args_value(arguments);
  int rc = v ? ock_json_write(out, v) : OCK_ENOMEM;
  cJSON_Delete(v);
  return rc;
}

static int write_call_part(const struct ock_tool_call *c, struct ock_buf *out) {
  return put(out, "{\"functionCall\":{\"name\":") || str(out, c->name ? c->name : "") ||
         put(out, ",\"args\":") || write_args(c->arguments, out) ||
         (c->id && (put(out, ",\"id\":") || str(out, c->id))) || put(out, "}}");
}

static int gemini_reply(const struct ock_reply *r, const struct ock_wire_frame *f,
                        struct ock_buf *out) {
  long long in = tokens(r->input_tokens), o = tokens(r->output_tokens);
  int text = has_text(r) || !r->msg.n_calls;
  int failed = put(out, "{\"candidates\":[{\"content\":{\"parts\":[") ||
               (text && (put(out, "{\"text\":") || str(out, r->msg.content ? r->msg.content : "") ||
                         put(out, "}")));
  for (size_t i = 0; !failed && i < r->msg.n_calls; i++)
    failed = ((text || i) && put(out, ",")) || write_call_part(&r->msg.calls[i], out);
  failed = failed || put(out, "],\"role\":\"model\"},\"finishReason\":") ||
           str(out, finish_of(r)) ||
           put(out, ",\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":") ||
           ock_json_write_int(out, in) || put(out, ",\"candidatesTokenCount\":") ||
           ock_json_write_int(out, o) || put(out, ",\"totalTokenCount\":") ||
           ock_json_write_int(out, in + o) || put(out, "},\"modelVersion\":") ||
           str(out, f->model) || put(out, ",\"responseId\":") || str(out, r->id) || put(out, "}");
  return ock__wire_status(out, failed);
}

/* The chunks of a streamed reply. */
struct streamer {
  const struct ock_reply *r;
  const struct ock_wire_frame *f;
  struct ock_chunks *out;
};

/* send_parts sends one chunk of the given parts (taken). */
static int send_parts(struct streamer *s, cJSON *parts, int final) {
  return ock__wire_event(s->out, NULL, parts ? response(s->r, s->f, parts, final) : NULL);
}

static int one_part(struct streamer *s, cJSON *part, int final) {
  cJSON *parts = cJSON_CreateArray();
  if (!ock__wire_add(parts, NULL, part)) {
    cJSON_Delete(parts);
    return OCK_ENOMEM;
  }
  return send_parts(s, parts, final);
}

static int text_chunk(void *ctx, const char *frag, size_t len) {
  return one_part(ctx, text_part(frag, len), 0);
}

static int gemini_events(const struct ock_reply *r, const struct ock_wire_frame *f,
                         struct ock_chunks *out) {
  struct streamer s = {r, f, out};
  int rc = has_text(r) ? ock__wire_fragments(r->msg.content, f->chunk_size, text_chunk, &s) : 0;
  for (size_t i = 0; !rc && i < r->msg.n_calls; i++)
    rc = one_part(&s, call_part(&r->msg.calls[i]), 0);
  return rc ? rc : one_part(&s, text_part("", 0), 1);
}

/* ---- decoding replies ---------------------------------------------------------------------- */

/* call_id: the call's id, or one made from the response id and k when the model sent none. */
static const char *call_id(const cJSON *fc, const char *response_id, size_t k, char *buf,
                           size_t n) {
  const char *id = ock_json_str(fc, "id");
  if (id && *id)
    return id;
  snprintf(buf, n, "%s-fc%zu", response_id ? response_id : "gemini", k);
  return buf;
}

/* args_text: a functionCall's args as arguments text (caller frees). */
static char *args_text(const cJSON *fc) {
  const cJSON *args = cJSON_GetObjectItemCaseSensitive(fc, "args");
  if (cJSON_IsString(args))
    return strdup(args->valuestring);
  return args ? ock_json_print(args) : strdup("{}");
}

/* first_parts: the parts of the first candidate of a response, or NULL. */
static const cJSON *first_parts(const cJSON *body, const cJSON **cand) {
  *cand = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(body, "candidates"), 0);
  const cJSON *content = cJSON_GetObjectItemCaseSensitive(*cand, "content");
  const cJSON *parts = cJSON_GetObjectItemCaseSensitive(content, "parts");
  return cJSON_IsArray(parts) ? parts : NULL;
}

static int is_thought(const cJSON *part) {
  return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(part, "thought"));
}

/* reply_parts reads the parts into the reply's message. */
static int reply_parts(const cJSON *parts, const char *response_id, struct ock_message *m) {
  struct ock_buf text;
  ock_buf_init(&text, OCK_MAX_DERIVED_TEXT);
  int n = cJSON_GetArraySize(parts), has = 0, rc = OCK_OK;
  m->calls = calloc((size_t)(n ? n : 1), sizeof *m->calls);
  const cJSON *part;
  cJSON_ArrayForEach(part, parts) {
    const cJSON *fc = cJSON_GetObjectItemCaseSensitive(part, "functionCall");
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(part, "text");
    if (!m->calls || rc)
      break;
    if (cJSON_IsObject(fc)) {
      char buf[160];
      struct ock_tool_call *c = &m->calls[m->n_calls++];
      const char *name = ock_json_str(fc, "name");
      c->id = strdup(call_id(fc, response_id, m->n_calls - 1, buf, sizeof buf));
      c->name = strdup(name ? name : "");
      c->arguments = args_text(fc);
      rc = c->id && c->name && c->arguments ? OCK_OK : OCK_ENOMEM;
    } else if (cJSON_IsString(t) && !is_thought(part)) {
      has = 1;
      rc = ock_buf_puts(&text, t->valuestring);
    }
  }
  if (!m->calls || (!rc && has && !(m->content = ock_buf_take(&text))))
    rc = OCK_ENOMEM;
  ock_buf_free(&text);
  return rc;
}

static int gemini_decode_reply(const cJSON *body, struct ock_reply *out, struct ock_jerr *err) {
  const cJSON *cands = NULL, *cand = NULL;
  int rc = ock_jcheck_object(body, "$", err);
  if (!rc)
    rc = ock_jget_array(body, "$", "candidates", OCK_REQUIRED, &cands, err);
  if (!rc && !cJSON_GetArraySize(cands))
    rc = ock_jerr_set(err, OCK_EINVAL, "$.candidates", "expected at least one candidate");
  if (rc)
    return OCK_EPROTO;
  const cJSON *parts = first_parts(body, &cand);
  const char *rid = ock_json_str(body, "responseId");
  struct ock_reply r;
  ock_reply_init(&r);
  r.msg.role = OCK_ROLE_ASSISTANT;
  r.msg.wire_index = -1;
  rc = parts ? reply_parts(parts, rid, &r.msg) : OCK_OK;
  if (!rc)
    rc = ock__wire_reply_names(&r, rid, ock_json_str(cand, "finishReason"));
  if (rc) {
    ock_reply_clear(&r);
    return rc;
  }
  const cJSON *usage = cJSON_GetObjectItemCaseSensitive(body, "usageMetadata");
  r.input_tokens = ock_json_int(usage, "promptTokenCount", -1);
  r.output_tokens = ock_json_int(usage, "candidatesTokenCount", -1);
  *out = r;
  return OCK_OK;
}

/* ---- decoding streams ---------------------------------------------------------------------- */

static int stream_error_event(ock_wire_stream *s, const cJSON *e, struct ock_wire_error *err) {
  const char *status = ock_json_str(e, "status"), *msg = ock_json_str(e, "message");
  return ock__wire_fail(s, err, OCK_EPROTO, "error event mid-stream: %s: %s",
                        status ? status : "error", msg ? msg : "(no message)");
}

static int stream_call(ock_wire_stream *s, const cJSON *fc, struct ock_wire_error *err) {
  size_t ord = 0;
  int rc = ock__wire_slot(s, (int)s->n_slots, 1, err, &ord);
  if (rc)
    return rc;
  char buf[160], *args = args_text(fc);
  const char *name = ock_json_str(fc, "name");
  if (!args)
    return ock__wire_fail(s, err, OCK_ENOMEM, "out of memory");
  rc =
      ock__wire_call(s, ord, call_id(fc, s->id, ord, buf, sizeof buf), name ? name : "", args, err);
  free(args);
  return rc;
}

static int gemini_event(ock_wire_stream *s, const char *name, const cJSON *j,
                        struct ock_wire_error *err) {
  (void)name; /* Gemini's events have no names */
  const cJSON *e = cJSON_GetObjectItemCaseSensitive(j, "error");
  if (e)
    return stream_error_event(s, e, err);
  if (ock__wire_set(&s->id, ock_json_str(j, "responseId")))
    return ock__wire_fail(s, err, OCK_ENOMEM, "out of memory");
  const cJSON *cand = NULL, *part;
  const cJSON *parts = first_parts(j, &cand);
  cJSON_ArrayForEach(part, parts) {
    const cJSON *fc = cJSON_GetObjectItemCaseSensitive(part, "functionCall");
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(part, "text");
    int rc = OCK_OK;
    if (cJSON_IsObject(fc))
      rc = stream_call(s, fc, err);
    else if (cJSON_IsString(t) && !is_thought(part))
      rc = ock__wire_text(s, t->valuestring, err);
    if (rc)
      return rc;
  }
  const cJSON *usage = cJSON_GetObjectItemCaseSensitive(j, "usageMetadata");
  s->in_tokens = ock_json_int(usage, "promptTokenCount", s->in_tokens);
  s->out_tokens = ock_json_int(usage, "candidatesTokenCount", s->out_tokens);
  const char *finish = ock_json_str(cand, "finishReason");
  if (finish && ock__wire_replace(&s->finish, finish))
    return ock__wire_fail(s, err, OCK_ENOMEM, "out of memory");
  s->done = finish != NULL;
  return OCK_OK;
}

/* ---- errors -------------------------------------------------------------------------------- */

struct status_text {
  int status;
  const char *name;
};

/* google.rpc.Code names by HTTP status, as the Gemini API sends them; other 4xx are
 * INVALID_ARGUMENT, other 5xx INTERNAL. */
static const struct status_text STATUS_NAMES[] = {
    {400, "INVALID_ARGUMENT"}, {401, "UNAUTHENTICATED"},   {403, "PERMISSION_DENIED"},
    {404, "NOT_FOUND"},        {409, "ABORTED"},           {429, "RESOURCE_EXHAUSTED"},
    {499, "CANCELLED"},        {500, "INTERNAL"},          {501, "UNIMPLEMENTED"},
    {503, "UNAVAILABLE"},      {504, "DEADLINE_EXCEEDED"}, {0, NULL}};

static cJSON *error_envelope(int status, const char *message) {
  const char *name = status >= 500 ? "INTERNAL" : "INVALID_ARGUMENT";
  for (int i = 0; STATUS_NAMES[i].status; i++)
    if (STATUS_NAMES[i].status == status)
      name = STATUS_NAMES[i].name;
  char dflt[64];
  snprintf(dflt, sizeof dflt, "ock: scripted HTTP %d", status);
  cJSON *o = cJSON_CreateObject();
  cJSON *e = o ? cJSON_AddObjectToObject(o, "error") : NULL;
  int ok = e && cJSON_AddNumberToObject(e, "code", status) &&
           cJSON_AddStringToObject(e, "message", message ? message : dflt) &&
           cJSON_AddStringToObject(e, "status", name);
  return ock__wire_built(o, ok);
}

static int gemini_error(int status, const char *message, const char *param, const char *code,
                        const char *request_id, struct ock_buf *out) {
  (void)param; /* OpenAI's */
  (void)code;
  (void)request_id; /* Anthropic's */
  return ock__wire_print_to(out, error_envelope(status, message));
}

static int gemini_error_event(int status, const char *message, struct ock_buf *out) {
  int rc = ock_buf_puts(out, "data: ");
  if (!rc)
    rc = ock__wire_print_to(out, error_envelope(status ? status : 503,
                                                message ? message : "ock: scripted stream error"));
  return rc ? rc : ock_buf_puts(out, "\n\n");
}

static int gemini_malformed_event(struct ock_buf *out) {
  return ock_buf_puts(out, "data: {\"ock\":\n\n");
}

/* ---- where things sit, for the history edits ------------------------------------------------ */

static const char *role_of(const cJSON *content) {
  return ock__wire_str(content, "role");
}

/* A tool result is a functionResponse part of a user turn; item is the part's functionResponse
 * (which holds the id), container the turn's parts. */
static int gemini_results(const cJSON *body, struct ock_wire_result *out, int max) {
  int n = 0, i = 0;
  cJSON *c;
  cJSON_ArrayForEach(c, ock__wire_messages(body)) {
    cJSON *parts = cJSON_GetObjectItemCaseSensitive(c, "parts");
    int j = 0;
    cJSON *p;
    if (strcmp(role_of(c), "model") && cJSON_IsArray(parts)) {
      cJSON_ArrayForEach(p, parts) {
        cJSON *fr = cJSON_GetObjectItemCaseSensitive(p, "functionResponse");
        if (cJSON_IsObject(fr) && n < max)
          out[n++] = (struct ock_wire_result){c, i, parts, j, fr};
        j++;
      }
    }
    i++;
  }
  return n;
}

static int gemini_is_call(const cJSON *item) {
  return cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(item, "functionCall"));
}

static cJSON *gemini_calls(cJSON *content) {
  if (strcmp(role_of(content), "model"))
    return NULL;
  cJSON *parts = cJSON_GetObjectItemCaseSensitive(content, "parts"), *p;
  if (!cJSON_IsArray(parts))
    return NULL;
  cJSON_ArrayForEach(p, parts) {
    if (gemini_is_call(p))
      return parts;
  }
  return NULL;
}

const struct ock_wire_ops ock_wire_gemini = {
    .name = "gemini",
    .wire = OCK_WIRE_GEMINI,
    .path = "/v1beta/models/",
    .call_prefix = "fc_",
    .finish_text = "STOP",
    .finish_tools = "STOP",
    .request_id_header = "x-request-id",
    .end_marker = "finishReason",
    .terminators = 1,
    .encode_request = gemini_request,
    .encode_reply = gemini_reply,
    .encode_events = gemini_events,
    .decode_reply = gemini_decode_reply,
    .decode_event = gemini_event,
    .encode_error = gemini_error,
    .encode_error_event = gemini_error_event,
    .encode_malformed_event = gemini_malformed_event,
    .find_results = gemini_results,
    .find_calls = gemini_calls,
    .is_call = gemini_is_call,
    .result_id_key = "id",
};
