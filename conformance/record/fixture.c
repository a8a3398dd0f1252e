/*
 * fixture.c: a recorded session as a scenario (see fixture.h).
 */
#include "fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ock/caps.h"
#include "ock/contract_map.h"
#include "ock/gemini.h"
#include "ock/json.h"
#include "ock/message.h"
#include "ock/sse.h"
#include "ock/status.h"
#include "ock/wire.h"
#include "ock/wire_list.h"
#include "ock/wire_responses.h"

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && !strcmp(s + n - k, suffix);
}

/* Every wire of the table (ock_wire_list.h), so a new wire is recognised by its path. */
const struct ock_wire_ops *ock__rec_wire_of(const char *path, const char *wire) {
  for (int i = 0; i < ock_wire_count(); i++) {
    const struct ock_wire_ops *w = ock_wire_get((enum ock_wire)i);
    const char *model; /* Gemini: the model and the streaming choice are in the path */
    size_t model_len;
    int stream;
    int hit = w->wire == OCK_WIRE_GEMINI ? ock_gemini_route(path, &model, &model_len, &stream) >= 0
                                         : ends_with(path, w->path);
    if (hit && (!wire || !strcmp(wire, w->name)))
      return w;
  }
  for (int i = 0; wire && i < ock_wire_count(); i++) { /* --wire: a path of the user's own */
    const struct ock_wire_ops *w = ock_wire_get((enum ock_wire)i);
    if (!strcmp(wire, w->name) && strstr(path, "/ock/") != path && strcmp(path, "/mcp"))
      return w;
  }
  return NULL;
}

/* A Responses API conversation the provider keeps (previous_response_id): what led to the
 * response with that id (the chain before it, the request's input items, not its
 * instructions) and the reply itself, as SPEC.md 6.10 says the API stores it. */
struct chain {
  char *id;
  struct ock_history conv;
  struct chain *next;
};

/* An LLM request as the provider read it: the body, the whole conversation it judged, and
 * what the wire keeps outside the body (Gemini's model and streaming are in the path). */
struct llm_req {
  cJSON *body;
  struct ock_history h;    /* the whole conversation, chained part included */
  struct ock_history conv; /* Responses: the same without its instructions, to store */
  char model[128];
  int stream;
};

static const struct chain *find_chain(const struct chain *c, const char *id) {
  for (; c && id; c = c->next)
    if (!strcmp(c->id, id))
      return c;
  return NULL;
}

/* read_responses: instructions (a system message), the stored conversation the request
 * continues, then its input items: what the provider validates (SPEC.md 6.10). */
static int read_responses(const struct chain *chains, struct llm_req *q) {
  struct ock_jerr e;
  const char *instructions = ock_json_str(q->body, "instructions");
  const struct chain *prev = find_chain(chains, ock_json_str(q->body, "previous_response_id"));
  int rc = prev ? ock_history_copy(&prev->conv, &q->conv) : OCK_OK;
  rc = rc ? rc
          : ock_history_from_responses(cJSON_GetObjectItemCaseSensitive(q->body, "input"), &q->conv,
                                       &e);
  if (!rc && instructions)
    rc = ock_history_add_text(&q->h, OCK_ROLE_SYSTEM, instructions);
  for (size_t i = 0; !rc && i < q->conv.len; i++)
    rc = ock_history_append_message(&q->h, &q->conv.items[i]);
  return rc;
}

/* read_request reads an LLM request body with the wire's own readers (message.h,
 * wire_responses.h, gemini.h). OCK_OK, or an error for a body that is not the wire's shape. */
static int read_request(const struct ock_wire_ops *w, const struct rec_exchange *x,
                        const struct chain *chains, struct llm_req *q) {
  struct ock_jerr e;
  q->body = cJSON_ParseWithLength(x->req.data ? x->req.data : "", x->req.len);
  if (!cJSON_IsObject(q->body))
    return OCK_EPROTO;
  const char *model = ock_json_str(q->body, "model");
  snprintf(q->model, sizeof q->model, "%s", model ? model : "recorded");
  q->stream = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(q->body, "stream"));
  const cJSON *messages = cJSON_GetObjectItemCaseSensitive(q->body, "messages");
  switch (w->wire) {
  case OCK_WIRE_ANTHROPIC:
    return ock_history_from_anthropic(cJSON_GetObjectItemCaseSensitive(q->body, "system"), messages,
                                      &q->h, &e);
  case OCK_WIRE_RESPONSES:
    return read_responses(chains, q);
  case OCK_WIRE_GEMINI: {
    const char *m = NULL;
    size_t n = 0;
    if (ock_gemini_route(x->path, &m, &n, &q->stream) >= 0)
      snprintf(q->model, sizeof q->model, "%.*s", (int)n, m); /* cut to fit */
    return ock_history_from_gemini(cJSON_GetObjectItemCaseSensitive(q->body, "systemInstruction"),
                                   cJSON_GetObjectItemCaseSensitive(q->body, "contents"), &q->h,
                                   &e);
  }
  default:
    return ock_history_from_openai(messages, &q->h, &e);
  }
}

static void llm_req_free(struct llm_req *q) {
  cJSON_Delete(q->body);
  ock_history_free(&q->h);
  ock_history_free(&q->conv);
}

/* add_tool appends one declared tool (name, description, JSON Schema) as a session.tools
 * entry. */
static void add_tool(cJSON *out, const cJSON *f, const char *schema_key) {
  const char *name = ock_json_str(f, "name");
  if (!name)
    return;
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "name", name);
  const char *desc = ock_json_str(f, "description");
  cJSON_AddStringToObject(o, "description", desc ? desc : "");
  const cJSON *schema = cJSON_GetObjectItemCaseSensitive(f, schema_key);
  if (!schema && !strcmp(schema_key, "parametersJsonSchema")) /* Gemini's OpenAPI subset */
    schema = cJSON_GetObjectItemCaseSensitive(f, "parameters");
  if (cJSON_IsObject(schema))
    cJSON_AddItemToObject(o, "input_schema", cJSON_Duplicate(schema, 1));
  cJSON_AddItemToArray(out, o);
}

/* offered_tools: the tools of a request body as session.tools entries: OpenAI's
 * {function: {name, parameters}}, Anthropic's {name, input_schema}, the Responses API's flat
 * {name, parameters}, Gemini's [{functionDeclarations: [{name, parametersJsonSchema}]}]. */
static cJSON *offered_tools(const struct ock_wire_ops *w, const cJSON *body) {
  cJSON *out = cJSON_CreateArray();
  const cJSON *t, *d;
  cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(body, "tools")) {
    if (w->wire == OCK_WIRE_OPENAI)
      add_tool(out, cJSON_GetObjectItemCaseSensitive(t, "function"), "parameters");
    else if (w->wire == OCK_WIRE_ANTHROPIC)
      add_tool(out, t, "input_schema");
    else if (w->wire == OCK_WIRE_RESPONSES)
      add_tool(out, t, "parameters");
    else
      cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(t, "functionDeclarations"))
        add_tool(out, d, "parametersJsonSchema");
  }
  return out;
}

/* decode_stream reads a recorded SSE body; OCK_OK with the reply, else *events says after how
 * many events it stopped. */
static int decode_stream(const struct ock_wire_ops *w, const struct ock_buf *body,
                         struct ock_reply *out, long *events) {
  ock_sse *sse = NULL;
  ock_wire_stream *s = NULL;
  struct ock_wire_error err;
  int rc = ock_sse_new(OCK_MAX_PROVIDER_REPLY, &sse);
  rc = rc ? rc : ock_wire_stream_new(w->wire, OCK_MAX_PROVIDER_REPLY, &s);
  const char *p = body->data ? body->data : "";
  size_t left = body->len;
  *events = 0;
  while (!rc && left) {
    size_t used = 0;
    int have = 0;
    struct ock_sse_event ev;
    rc = ock_sse_feed(sse, p, left, &used, &ev, &have);
    p += used;
    left -= used;
    if (!rc && have) {
      rc = ock_wire_stream_event(s, ev.event, ev.data, NULL, NULL, &err);
      *events += !rc;
    }
    if (!used && !have)
      break;
  }
  rc = rc ? rc : ock_wire_stream_finish(s, out, &err);
  ock_wire_stream_free(s);
  ock_sse_free(sse);
  return rc;
}

static int is_stream(const struct rec_exchange *x) {
  const char *type = ock_json_str(x->resp_headers, "content-type");
  return type && strstr(type, "text/event-stream");
}

/* The turn that stands for a request the provider refused as invalid (400, 422): in a replay
 * the kit's own validator judges each request, so a broken history still gets its 400 there,
 * while a fixed build, whose request is valid, needs an answer to go on. */
#define REFUSED_TEXT                                                                               \
  "ock record: the provider refused this request as invalid when it was recorded."

static int refused(const struct rec_exchange *x) {
  return x->status == 400 || x->status == 422;
}

/* number: a header value that is a plain non-negative number (an HTTP date is not kept). */
static int number(const char *s, double *out) {
  char *end;
  *out = strtod(s, &end);
  return end != s && !*end && *out >= 0 && strspn(s, "0123456789.") == strlen(s);
}

/* fault_of: the fault a failed reply is replayed as, or NULL for a good reply. */
static cJSON *fault_of(const struct rec_exchange *x, int cut, long events) {
  cJSON *f = cJSON_CreateObject();
  if (x->status >= 400) {
    cJSON_AddNumberToObject(f, "status", (double)x->status);
    const char *ra = ock_json_str(x->resp_headers, "retry-after");
    const char *ra_ms = ock_json_str(x->resp_headers, "retry-after-ms");
    double v;
    if (ra && number(ra, &v))
      cJSON_AddNumberToObject(f, "retry_after", v);
    if (ra_ms && number(ra_ms, &v))
      cJSON_AddNumberToObject(f, "retry_after_ms", v);
    struct ock_wire_error e;
    if (x->resp.data && !ock_wire_decode_error(x->resp.data, x->resp.len, &e) && e.message[0])
      cJSON_AddStringToObject(f, "message", e.message);
    return f;
  }
  if (cut && is_stream(x)) {
    cJSON_AddStringToObject(f, "kind", "cut_stream");
    cJSON_AddNumberToObject(f, "after_chunks", (double)events);
    return f;
  }
  if (cut) { /* a body that did not arrive whole, or not in the wire's shape */
    cJSON_AddStringToObject(f, "kind", "drop_connection");
    cJSON_AddNumberToObject(f, "after_bytes", (double)x->resp.len);
    return f;
  }
  cJSON_Delete(f);
  return NULL;
}

/* turn_of: the neutral reply as a script turn. */
static cJSON *turn_of(const struct ock_wire_ops *w, const struct ock_reply *r) {
  cJSON *t = cJSON_CreateObject();
  if (r->msg.content && r->msg.content[0])
    cJSON_AddStringToObject(t, "text", r->msg.content);
  if (r->msg.n_calls) {
    cJSON *calls = cJSON_AddArrayToObject(t, "tool_calls");
    for (size_t i = 0; i < r->msg.n_calls; i++) {
      const struct ock_tool_call *c = &r->msg.calls[i];
      cJSON *o = cJSON_CreateObject();
      cJSON_AddStringToObject(o, "name", c->name);
      cJSON *args = cJSON_Parse(c->arguments && c->arguments[0] ? c->arguments : "{}");
      if (cJSON_IsObject(args))
        cJSON_AddItemToObject(o, "arguments", args);
      else {
        cJSON_Delete(args);
        cJSON_AddStringToObject(o, "arguments_raw", c->arguments ? c->arguments : "");
      }
      cJSON_AddItemToArray(calls, o);
    }
  }
  const char *fin = r->finish_reason;
  if (fin && strcmp(fin, w->finish_text) && strcmp(fin, w->finish_tools))
    cJSON_AddStringToObject(t, w->wire == OCK_WIRE_ANTHROPIC ? "stop_reason" : "finish_reason",
                            fin);
  return t;
}

/* What the builder carries from one exchange to the next. */
struct build {
  cJSON *doc, *prompts, *script, *tools, *calls; /* calls: call id -> tool name, unanswered */
  cJSON *taken;                                  /* call ids of the history already answered */
  cJSON *kit_results;                            /* tool name -> [ToolResult] from the kit */
  struct chain *chains;                          /* Responses API: the stored conversations */
  size_t prev_len;
  int prev_fault;     /* the previous LLM reply was a fault */
  long retries, most; /* retries of the current turn; the most of any turn */
  long llm_requests;
  int streaming;
  int have_session;
};

static cJSON *result_of(const struct ock_message *m) {
  cJSON *r = cJSON_CreateObject();
  const char *text = m->content ? m->content : "";
  cJSON_AddBoolToObject(r, "success", !m->is_error);
  if (!m->is_error) {
    cJSON_AddStringToObject(r, "output", text);
    cJSON_AddNullToObject(r, "error");
    return r;
  }
  cJSON_AddNullToObject(r, "output");
  cJSON *e = cJSON_AddObjectToObject(r, "error");
  cJSON_AddStringToObject(e, "type", "tool_error");
  cJSON_AddStringToObject(e, "message", strncmp(text, "Error: ", 7) ? text : text + 7);
  return r;
}

/* add_result appends a ToolResult to tools[name].calls. */
static void add_result(cJSON *tools, const char *name, cJSON *result) {
  cJSON *t = cJSON_GetObjectItemCaseSensitive(tools, name);
  if (!t)
    t = cJSON_AddObjectToObject(tools, name);
  cJSON *calls = cJSON_GetObjectItemCaseSensitive(t, "calls");
  if (!calls)
    calls = cJSON_AddArrayToObject(t, "calls");
  cJSON *c = cJSON_CreateObject();
  cJSON_AddItemToObject(c, "result", result);
  cJSON_AddItemToArray(calls, c);
}

/* history_call_name: the tool name of the call with that id in the history, or NULL. */
static const char *history_call_name(const struct ock_history *h, const char *id) {
  for (size_t i = 0; i < h->len; i++)
    for (size_t k = 0; k < h->items[i].n_calls; k++)
      if (h->items[i].calls[k].id && !strcmp(h->items[i].calls[k].id, id))
        return h->items[i].calls[k].name;
  return NULL;
}

/* pending_call: the id of the result's call among the recorded replies' unanswered calls. By
 * id; a Gemini call the model sent without an id was given one by each reader (gemini.h:
 * "ock-fc:<turn>.<k>" in a request, another in the reply), so it is the first unanswered call
 * of the same tool name, the API's own pairing. */
static const char *pending_call(struct build *b, const struct ock_history *h,
                                const struct ock_message *m) {
  if (ock_json_str(b->calls, m->tool_call_id))
    return m->tool_call_id;
  const char *name =
      strncmp(m->tool_call_id, "ock-fc:", 7) ? NULL : history_call_name(h, m->tool_call_id);
  const cJSON *c;
  cJSON_ArrayForEach(c, b->calls) {
    if (name && cJSON_IsString(c) && !strcmp(c->valuestring, name))
      return c->string;
  }
  return NULL;
}

/* take_results: the results this request carries for calls of earlier replies. Each call of
 * the history is answered once: the next requests carry the same result again. */
static void take_results(struct build *b, const struct ock_history *h) {
  for (size_t i = 0; i < h->len; i++) {
    const struct ock_message *m = &h->items[i];
    if (m->role != OCK_ROLE_TOOL || !m->tool_call_id ||
        cJSON_GetObjectItemCaseSensitive(b->taken, m->tool_call_id))
      continue;
    const char *id = pending_call(b, h, m);
    if (!id)
      continue;
    add_result(b->tools, ock_json_str(b->calls, id), result_of(m));
    cJSON_AddTrueToObject(b->taken, m->tool_call_id);
    cJSON_DeleteItemFromObjectCaseSensitive(b->calls, id);
  }
}

static void open_session(struct build *b, const struct ock_wire_ops *w, const struct llm_req *q) {
  cJSON *session = cJSON_GetObjectItemCaseSensitive(b->doc, "session");
  cJSON *prov = cJSON_AddArrayToObject(session, "providers");
  cJSON *p = cJSON_CreateObject();
  cJSON_AddStringToObject(p, "name", "primary");
  cJSON_AddStringToObject(p, "api", w->name);
  cJSON_AddStringToObject(p, "model", q->model);
  cJSON_AddNumberToObject(p, "priority", 1);
  cJSON_AddItemToArray(prov, p);
  cJSON_AddItemToObject(session, "tools", offered_tools(w, q->body));
  b->have_session = 1;
}

/* keep_chain stores a Responses API reply with the conversation that led to it, so a request
 * that names it in previous_response_id is read whole (unless the request said store: false,
 * as the API does). */
static void keep_chain(struct build *b, struct llm_req *q, const struct ock_reply *r) {
  if (!r->id || cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(q->body, "store")))
    return;
  struct chain *c = calloc(1, sizeof *c);
  if (!c || !(c->id = strdup(r->id)) || ock_history_append_message(&q->conv, &r->msg)) {
    if (c)
      free(c->id);
    free(c);
    return;
  }
  c->conv = q->conv; /* moved */
  ock_history_init(&q->conv);
  c->next = b->chains;
  b->chains = c;
}

/* decode: the reply of an exchange, streamed or not; 0 when it is whole and the wire's shape. */
static int decode(const struct ock_wire_ops *w, const struct rec_exchange *x, struct ock_reply *r,
                  long *events) {
  *events = 0;
  if (x->status < 200 || x->status >= 300)
    return 1;
  if (is_stream(x))
    return decode_stream(w, &x->resp, r, events) != OCK_OK;
  if (!x->complete)
    return 1;
  cJSON *reply = cJSON_ParseWithLength(x->resp.data ? x->resp.data : "", x->resp.len);
  struct ock_jerr e;
  int bad = !reply || w->decode_reply(reply, r, &e);
  cJSON_Delete(reply);
  return bad;
}

/* one_llm adds an LLM exchange: maybe a prompt, then its turn. */
static void one_llm(struct build *b, const struct ock_wire_ops *w, const struct rec_exchange *x) {
  struct llm_req q = {0};
  ock_history_init(&q.h);
  ock_history_init(&q.conv);
  if (read_request(w, x, b->chains, &q) || !q.h.len) {
    llm_req_free(&q);
    return;
  }
  const struct ock_history *h = &q.h;
  if (!b->have_session)
    open_session(b, w, &q);
  b->streaming |= q.stream;
  const struct ock_message *last = &h->items[h->len - 1];
  int retry = b->prev_fault && h->len == b->prev_len;
  b->retries = retry ? b->retries + 1 : 0;
  b->most = b->retries > b->most ? b->retries : b->most;
  if (last->role == OCK_ROLE_USER && h->len != b->prev_len)
    cJSON_AddItemToArray(b->prompts, cJSON_CreateString(last->content ? last->content : ""));
  b->prev_len = h->len;
  take_results(b, h);
  b->llm_requests++;
  struct ock_reply r;
  ock_reply_init(&r);
  long events = 0;
  int bad = decode(w, x, &r, &events);
  cJSON *fault = refused(x) ? NULL : fault_of(x, bad, events);
  b->prev_fault = fault != NULL;
  cJSON *turn = fault ? cJSON_CreateObject() : turn_of(w, &r);
  if (refused(x))
    cJSON_AddStringToObject(turn, "text", REFUSED_TEXT);
  if (fault)
    cJSON_AddItemToObject(turn, "fault", fault);
  for (size_t i = 0; !fault && i < r.msg.n_calls; i++)
    cJSON_AddStringToObject(b->calls, r.msg.calls[i].id, r.msg.calls[i].name);
  if (!fault && !bad && w->wire == OCK_WIRE_RESPONSES)
    keep_chain(b, &q, &r);
  cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(b->script, "primary"), turn);
  ock_reply_clear(&r);
  llm_req_free(&q);
}

/* one_tool adds a call of the kit's tool endpoint: its answer is the tool's result. */
static void one_tool(struct build *b, const struct rec_exchange *x) {
  const char *name = x->path + strlen("/ock/v1/tools/");
  cJSON *result = cJSON_ParseWithLength(x->resp.data ? x->resp.data : "", x->resp.len);
  if (!*name || !cJSON_IsObject(result) || x->status != 200) {
    cJSON_Delete(result);
    return;
  }
  add_result(b->kit_results, name, result);
}

/* mcp_reply: the JSON-RPC reply of an MCP exchange, sent as a JSON body or as the data of an
 * SSE event. */
static cJSON *mcp_reply(const struct rec_exchange *x) {
  const char *p = x->resp.data ? x->resp.data : "";
  const char *data = strstr(p, "data: ");
  if (data && (data == p || data[-1] == '\n')) {
    size_t len = strcspn(data + 6, "\r\n");
    return cJSON_ParseWithLength(data + 6, len);
  }
  return cJSON_ParseWithLength(p, x->resp.len);
}

/* one_mcp adds an MCP tools/call: its CallToolResult's text is the tool's result. */
static void one_mcp(struct build *b, const struct rec_exchange *x) {
  cJSON *req = cJSON_ParseWithLength(x->req.data ? x->req.data : "", x->req.len);
  const char *method = ock_json_str(req, "method");
  const char *name = ock_json_str(cJSON_GetObjectItemCaseSensitive(req, "params"), "name");
  cJSON *reply = method && !strcmp(method, "tools/call") && name ? mcp_reply(x) : NULL;
  const cJSON *result = cJSON_GetObjectItemCaseSensitive(reply, "result");
  if (cJSON_IsObject(result)) {
    struct ock_message m = {.role = OCK_ROLE_TOOL,
                            .is_error =
                                cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(result, "isError"))};
    struct ock_buf text;
    ock_buf_init(&text, OCK_MAX_TOOL_REPLY);
    int rc = ock_buf_puts(&text, "");
    const cJSON *block;
    cJSON_ArrayForEach(block, cJSON_GetObjectItemCaseSensitive(result, "content")) {
      const char *t = ock_json_str(block, "text");
      if (t && !rc)
        rc = (text.len && ock_buf_puts(&text, "\n")) || ock_buf_puts(&text, t);
    }
    m.content = text.data;
    if (!rc)
      add_result(b->kit_results, name, result_of(&m));
    ock_buf_free(&text);
  }
  cJSON_Delete(reply);
  cJSON_Delete(req);
}

static void finish(struct build *b) {
  cJSON *doc = b->doc;
  cJSON *session = cJSON_GetObjectItemCaseSensitive(doc, "session");
  cJSON *config = cJSON_AddObjectToObject(session, "config");
  if (b->streaming)
    cJSON_AddTrueToObject(config, OCK_CFG_STREAMING);
  if (b->most) { /* the agent retried: grade its retries against what it did */
    cJSON_AddStringToObject(config, OCK_CFG_ERROR_STRATEGY, OCK_CFG_ERROR_STRATEGY_RETRY);
    cJSON_AddNumberToObject(config, OCK_CFG_MAX_RETRIES, (double)b->most);
    cJSON *caps = cJSON_AddArrayToObject(doc, "capabilities");
    cJSON_AddItemToArray(caps, cJSON_CreateString("core"));
    cJSON_AddItemToArray(caps, cJSON_CreateString("resilience"));
  }
  int kit = cJSON_GetArraySize(b->kit_results) > 0;
  cJSON_AddItemToObject(doc, "script", b->script);
  cJSON_AddItemToObject(doc, "tools", kit ? b->kit_results : b->tools);
  cJSON_Delete(kit ? b->tools : b->kit_results);
  cJSON *expect = cJSON_AddObjectToObject(doc, "expect");
  cJSON_AddNumberToObject(expect, "exit_code", 0);
  cJSON_AddNumberToObject(expect, "llm_requests", (double)b->llm_requests);
  if (kit) { /* the tools ran through the kit: each is called as often as recorded */
    cJSON *counts = cJSON_AddObjectToObject(expect, "tool_calls");
    const cJSON *t;
    cJSON_ArrayForEach(t, b->kit_results)
      cJSON_AddNumberToObject(counts, t->string,
                              cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(t, "calls")));
  }
  cJSON_Delete(b->calls);
  cJSON_Delete(b->taken);
  while (b->chains) {
    struct chain *next = b->chains->next;
    free(b->chains->id);
    ock_history_free(&b->chains->conv);
    free(b->chains);
    b->chains = next;
  }
}

int ock__rec_fixture(struct rec_exchange *const *xs, size_t n, const char *wire, cJSON **out,
                     char *err, size_t errn) {
  cJSON *doc = cJSON_CreateObject();
  cJSON_AddNumberToObject(doc, "ock_fixture", 1);
  cJSON_AddStringToObject(doc, "id", "fixture");
  cJSON_AddStringToObject(doc, "title", "A recorded session, replayed");
  cJSON_AddStringToObject(doc, "proves",
                          "the agent keeps the recorded conversation valid: every call answered "
                          "in the next request, no orphan");
  cJSON *reqs = cJSON_AddArrayToObject(doc, "requirements");
  cJSON_AddItemToArray(reqs, cJSON_CreateString("OCK-ORPHAN-001"));
  cJSON *session = cJSON_AddObjectToObject(doc, "session");
  struct build b = {.doc = doc,
                    .prompts = cJSON_AddArrayToObject(session, "prompts"),
                    .script = cJSON_CreateObject(),
                    .tools = cJSON_CreateObject(),
                    .calls = cJSON_CreateObject(),
                    .taken = cJSON_CreateObject(),
                    .kit_results = cJSON_CreateObject()};
  cJSON_AddArrayToObject(b.script, "primary");
  for (size_t i = 0; i < n; i++) {
    const struct ock_wire_ops *w = ock__rec_wire_of(xs[i]->path, wire);
    if (w && !strcmp(xs[i]->method, "POST"))
      one_llm(&b, w, xs[i]);
    else if (!strcmp(xs[i]->method, "POST") && !strncmp(xs[i]->path, "/ock/v1/tools/", 14))
      one_tool(&b, xs[i]);
    else if (!strcmp(xs[i]->method, "POST") && !strcmp(xs[i]->path, "/mcp"))
      one_mcp(&b, xs[i]);
  }
  int empty = !b.have_session;
  finish(&b);
  if (empty) {
    snprintf(err, errn, "no LLM request was recorded, so there is no scenario to write");
    cJSON_Delete(doc);
    return OCK_EINVAL;
  }
  *out = doc;
  return OCK_OK;
}
