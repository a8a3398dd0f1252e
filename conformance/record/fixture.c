/*
 * fixture.c: a recorded session as a scenario (see fixture.h).
 */
#include "fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ock/caps.h"
#include "ock/contract_map.h"
#include "ock/json.h"
#include "ock/message.h"
#include "ock/sse.h"
#include "ock/status.h"
#include "ock/wire.h"
#include "ock/wire_list.h"

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && !strcmp(s + n - k, suffix);
}

/* Every wire of the table (ock_wire_list.h), so a new wire is recognised by its path. */
const struct ock_wire_ops *ock__rec_wire_of(const char *path, const char *wire) {
  for (int i = 0; i < ock_wire_count(); i++) {
    const struct ock_wire_ops *w = ock_wire_get((enum ock_wire)i);
    size_t k = strlen(w->path); /* a path ending in '/' is a prefix: Gemini's model is in it */
    int hit = w->path[k - 1] == '/' ? strstr(path, w->path) != NULL : ends_with(path, w->path);
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

/* read_history: the neutral history of a request body on that wire. */
static int read_history(const struct ock_wire_ops *w, const cJSON *body, struct ock_history *h) {
  struct ock_jerr e;
  const cJSON *messages = cJSON_GetObjectItemCaseSensitive(body, "messages");
  if (w->wire == OCK_WIRE_ANTHROPIC)
    return ock_history_from_anthropic(cJSON_GetObjectItemCaseSensitive(body, "system"), messages, h,
                                      &e);
  return ock_history_from_openai(messages, h, &e);
}

/* offered_tools: the tools of a request body as session.tools entries. */
static cJSON *offered_tools(const struct ock_wire_ops *w, const cJSON *body) {
  cJSON *out = cJSON_CreateArray();
  const cJSON *t;
  cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(body, "tools")) {
    const cJSON *f =
        w->wire == OCK_WIRE_OPENAI ? cJSON_GetObjectItemCaseSensitive(t, "function") : t;
    const char *name = ock_json_str(f, "name");
    if (!name)
      continue;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", name);
    const char *desc = ock_json_str(f, "description");
    cJSON_AddStringToObject(o, "description", desc ? desc : "");
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(
        f, w->wire == OCK_WIRE_OPENAI ? "parameters" : "input_schema");
    if (cJSON_IsObject(schema))
      cJSON_AddItemToObject(o, "input_schema", cJSON_Duplicate(schema, 1));
    cJSON_AddItemToArray(out, o);
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
    cJSON_AddStringToObject(t, w->wire == OCK_WIRE_OPENAI ? "finish_reason" : "stop_reason", fin);
  return t;
}

/* What the builder carries from one exchange to the next. */
struct build {
  cJSON *doc, *prompts, *script, *tools, *calls; /* calls: call id -> tool name, unanswered */
  cJSON *kit_results;                            /* tool name -> [ToolResult] from the kit */
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

/* take_results: the results this request carries for calls of earlier replies. */
static void take_results(struct build *b, const struct ock_history *h) {
  for (size_t i = 0; i < h->len; i++) {
    const struct ock_message *m = &h->items[i];
    if (m->role != OCK_ROLE_TOOL || !m->tool_call_id)
      continue;
    const char *name = ock_json_str(b->calls, m->tool_call_id);
    if (!name)
      continue;
    add_result(b->tools, name, result_of(m));
    cJSON_DeleteItemFromObjectCaseSensitive(b->calls, m->tool_call_id);
  }
}

static void open_session(struct build *b, const struct ock_wire_ops *w, const cJSON *body) {
  cJSON *session = cJSON_GetObjectItemCaseSensitive(b->doc, "session");
  cJSON *prov = cJSON_AddArrayToObject(session, "providers");
  cJSON *p = cJSON_CreateObject();
  cJSON_AddStringToObject(p, "name", "primary");
  cJSON_AddStringToObject(p, "api", w->name);
  const char *model = ock_json_str(body, "model");
  cJSON_AddStringToObject(p, "model", model ? model : "recorded");
  cJSON_AddNumberToObject(p, "priority", 1);
  cJSON_AddItemToArray(prov, p);
  cJSON_AddItemToObject(session, "tools", offered_tools(w, body));
  b->have_session = 1;
}

/* one_llm adds an LLM exchange: maybe a prompt, then its turn. */
static void one_llm(struct build *b, const struct ock_wire_ops *w, const struct rec_exchange *x) {
  cJSON *body = cJSON_ParseWithLength(x->req.data ? x->req.data : "", x->req.len);
  struct ock_history h;
  ock_history_init(&h);
  if (!cJSON_IsObject(body) || read_history(w, body, &h) || !h.len) {
    cJSON_Delete(body);
    ock_history_free(&h);
    return;
  }
  if (!b->have_session)
    open_session(b, w, body);
  b->streaming |= cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(body, "stream"));
  const struct ock_message *last = &h.items[h.len - 1];
  int retry = b->prev_fault && h.len == b->prev_len;
  b->retries = retry ? b->retries + 1 : 0;
  b->most = b->retries > b->most ? b->retries : b->most;
  if (last->role == OCK_ROLE_USER && h.len != b->prev_len)
    cJSON_AddItemToArray(b->prompts, cJSON_CreateString(last->content ? last->content : ""));
  b->prev_len = h.len;
  take_results(b, &h);
  b->llm_requests++;
  struct ock_reply r;
  ock_reply_init(&r);
  long events = 0;
  int bad = 1;
  if (x->status >= 200 && x->status < 300 && is_stream(x)) {
    bad = decode_stream(w, &x->resp, &r, &events);
  } else if (x->status >= 200 && x->status < 300 && x->complete) {
    cJSON *reply = cJSON_ParseWithLength(x->resp.data ? x->resp.data : "", x->resp.len);
    struct ock_jerr e;
    bad = !reply || w->decode_reply(reply, &r, &e);
    cJSON_Delete(reply);
  }
  cJSON *fault = refused(x) ? NULL : fault_of(x, bad, events);
  b->prev_fault = fault != NULL;
  cJSON *turn = fault ? cJSON_CreateObject() : turn_of(w, &r);
  if (refused(x))
    cJSON_AddStringToObject(turn, "text", REFUSED_TEXT);
  if (fault)
    cJSON_AddItemToObject(turn, "fault", fault);
  for (size_t i = 0; !fault && i < r.msg.n_calls; i++)
    cJSON_AddStringToObject(b->calls, r.msg.calls[i].id, r.msg.calls[i].name);
  cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(b->script, "primary"), turn);
  ock_reply_clear(&r);
  ock_history_free(&h);
  cJSON_Delete(body);
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
