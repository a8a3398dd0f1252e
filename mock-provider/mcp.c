/*
 * mcp.c: $OCK_URL/mcp, the scenario's tools over the Model Context Protocol.
 *
 * The Streamable HTTP transport, with one JSON-RPC 2.0 message per POST and JSON replies (no
 * SSE stream: GET is 405, as the transport allows). initialize negotiates the protocol version
 * (the client's when supported, else the latest) and issues an Mcp-Session-Id that every later
 * request must carry (400 without it, 404 for an id this mock did not issue or that DELETE
 * ended); an MCP-Protocol-Version header naming a version this mock does not support is a 400,
 * and an Origin header other than the local machine's a 403.
 * Methods: initialize, ping, tools/list (the session's tools), tools/call; notifications and
 * responses are accepted with 202.
 *
 * tools/call runs the same scripted tool as POST /ock/v1/tools/{name} (ock__tool_call in
 * tools.c): same result, status, delay, random fault, and tool_start / tool_end entries, which
 * here also carry "via": "mcp", the session id, and whether the tool_call_id was inferred. MCP
 * has no tool_call_id: a client may send one as params._meta["ock/tool_call_id"]; otherwise it
 * is the first call of the latest LLM reply with the same name and equal arguments that no
 * tool_start has taken yet. A call that matches none is journaled with a null id and an
 * unrequested_tool_call entry (SPEC.md 7.10).
 */
#include "state.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ock/caps.h"
#include "ock/contract.h"
#include "ock/json.h"
#include "ock/status.h"
#include "ock/utf8.h"

/* The versions of the transport and of the official TypeScript SDK 1.32.2
 * (SUPPORTED_PROTOCOL_VERSIONS), latest first. */
static const char *const versions[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05",
                                       "2024-10-07"};
#define N_VERSIONS (sizeof versions / sizeof versions[0])

enum {
  RPC_PARSE_ERROR = -32700,
  RPC_INVALID_REQUEST = -32600,
  RPC_METHOD_NOT_FOUND = -32601,
  RPC_INVALID_PARAMS = -32602,
  RPC_INTERNAL = -32603,
};

static const char *header(const struct mock_request *rq, const char *name) {
  return rq->header ? rq->header(rq->conn, name) : NULL;
}

static int supported(const char *v) {
  for (size_t i = 0; v && i < N_VERSIONS; i++)
    if (!strcmp(v, versions[i]))
      return 1;
  return 0;
}

/* rpc_error: {"jsonrpc":"2.0","id":id,"error":{"code","message"}}; id NULL means null. */
static cJSON *rpc_error(const cJSON *id, int code, const char *message) {
  cJSON *r = cJSON_CreateObject();
  cJSON_AddStringToObject(r, "jsonrpc", "2.0");
  cJSON_AddItemToObject(r, "id", id ? cJSON_Duplicate(id, 1) : cJSON_CreateNull());
  cJSON *e = cJSON_AddObjectToObject(r, "error");
  cJSON_AddNumberToObject(e, "code", code);
  cJSON_AddStringToObject(e, "message", message);
  return r;
}

static cJSON *rpc_result(const cJSON *id, cJSON *result) {
  cJSON *r = cJSON_CreateObject();
  cJSON_AddStringToObject(r, "jsonrpc", "2.0");
  cJSON_AddItemToObject(r, "id", cJSON_Duplicate(id, 1));
  cJSON_AddItemToObject(r, "result", result);
  return r;
}

/* http_fail answers a request refused at the transport level: the HTTP status, a JSON-RPC
 * error as the body, and an http_error journal entry like every other refused request. */
static int http_fail(struct mock_state *st, const struct mock_request *rq, int status,
                     const cJSON *id, int code, const char *text, struct mock_plan *plan) {
  /* A message may quote a header (a session id, an Origin): '?' for bytes that are not UTF-8,
   * so the journal stays valid JSON text. */
  char message[700];
  snprintf(message, sizeof message, "%s", text);
  ock_utf8_scrub(message);
  cJSON *e = cJSON_CreateObject();
  cJSON_AddStringToObject(e, OCK_F_HTTP_ERROR_METHOD, rq->method);
  cJSON_AddStringToObject(e, OCK_F_HTTP_ERROR_PATH, rq->path);
  cJSON_AddNumberToObject(e, OCK_F_HTTP_ERROR_STATUS, status);
  cJSON_AddStringToObject(e, OCK_F_HTTP_ERROR_MESSAGE, message);
  ock__journal_append(st->journal, OCK_KIND_HTTP_ERROR, e);
  return ock__plan_json(plan, status, rpc_error(id, code, message));
}

/* new_session_id: "ock-" and 32 hex digits from /dev/urandom (the transport asks for ids that
 * cannot be guessed), or from the clock and a counter when it cannot be read. */
static void new_session_id(char *out, size_t n, unsigned long long serial) {
  unsigned char b[16] = {0};
  FILE *f = fopen("/dev/urandom", "rb");
  size_t got = f ? fread(b, 1, sizeof b, f) : 0;
  if (f)
    fclose(f);
  if (got != sizeof b) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    unsigned long long x = (unsigned long long)ts.tv_nsec ^ ((unsigned long long)ts.tv_sec << 20);
    for (size_t i = 0; i < sizeof b; i++) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL + serial;
      b[i] = (unsigned char)(x >> 56);
    }
  }
  size_t off = (size_t)snprintf(out, n, "ock-");
  for (size_t i = 0; i < sizeof b && off + 2 < n; i++)
    off += (size_t)snprintf(out + off, n - off, "%02x", b[i]);
}

/* find_session: the session with this id (closed or not), or NULL. Call with st->lock held. */
static struct mock_mcp_session *find_session(struct mock_state *st, const char *id) {
  for (size_t i = 0; i < st->n_mcp; i++)
    if (!strcmp(st->mcp[i].id, id))
      return &st->mcp[i];
  return NULL;
}

static int initialize(struct mock_state *st, const cJSON *id, const cJSON *params,
                      struct mock_plan *plan) {
  const char *asked = ock_json_str(params, "protocolVersion");
  if (!cJSON_IsObject(params) || !asked)
    return ock__plan_json(
        plan, 200,
        rpc_error(
            id, RPC_INVALID_PARAMS,
            "initialize: params.protocolVersion is required (a string such as \"2025-11-25\")"));
  const char *version = supported(asked) ? asked : versions[0];
  char sid[sizeof st->mcp[0].id];
  new_session_id(sid, sizeof sid, (unsigned long long)(uintptr_t)plan);
  pthread_mutex_lock(&st->lock);
  int full = st->n_mcp >= OCK_MAX_MCP_SESSIONS;
  if (!full) {
    struct mock_mcp_session *s = &st->mcp[st->n_mcp++];
    snprintf(s->id, sizeof s->id, "%s", sid);
    snprintf(s->version, sizeof s->version, "%s", version);
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, OCK_F_MCP_SESSION_SESSION_ID, sid);
    cJSON_AddStringToObject(e, OCK_F_MCP_SESSION_PROTOCOL_VERSION, version);
    cJSON_AddStringToObject(e, OCK_F_MCP_SESSION_ASKED, asked);
    const cJSON *info = cJSON_GetObjectItemCaseSensitive(params, "clientInfo");
    if (info)
      cJSON_AddItemToObject(e, OCK_F_MCP_SESSION_CLIENT_INFO, cJSON_Duplicate(info, 1));
    ock__journal_append(st->journal, OCK_KIND_MCP_SESSION, e);
  }
  pthread_mutex_unlock(&st->lock);
  if (full) {
    char msg[120];
    snprintf(msg, sizeof msg, "initialize: this mock serves at most %d MCP sessions per run",
             OCK_MAX_MCP_SESSIONS);
    return ock__plan_json(plan, 200, rpc_error(id, RPC_INTERNAL, msg));
  }
  cJSON *r = cJSON_CreateObject();
  cJSON_AddStringToObject(r, "protocolVersion", version);
  cJSON *caps = cJSON_AddObjectToObject(r, "capabilities");
  cJSON_AddObjectToObject(caps, "tools");
  cJSON *si = cJSON_AddObjectToObject(r, "serverInfo");
  cJSON_AddStringToObject(si, "name", "ock-mock-provider");
  cJSON_AddStringToObject(si, "version", "1");
  int rc = ock__plan_json(plan, 200, rpc_result(id, r));
  if (!rc)
    rc = ock__plan_header(plan, "Mcp-Session-Id", sid);
  return rc;
}

/* tools_list: the session's tools as MCP Tool objects (inputSchema as in the session
 * document, SPEC.md 7.3). */
static cJSON *tools_list(const struct ock_fixture *fx) {
  cJSON *r = cJSON_CreateObject();
  cJSON *tools = cJSON_AddArrayToObject(r, "tools");
  const cJSON *t;
  cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(fx->session, "tools")) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToArray(tools, o);
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(t, "input_schema");
    const char *d = ock_json_str(t, "description");
    cJSON_AddStringToObject(o, "name", ock_json_str(t, "name"));
    cJSON_AddStringToObject(o, "description", d ? d : "");
    cJSON_AddItemToObject(o, "inputSchema",
                          schema ? cJSON_Duplicate(schema, 1)
                                 : cJSON_Parse("{\"type\":\"object\",\"properties\":{}}"));
  }
  return r;
}

/* args_equal: does a reply's arguments text (empty means {}) parse to args? */
static int args_equal(const char *text, const cJSON *args) {
  while (text && (*text == ' ' || *text == '\t' || *text == '\n' || *text == '\r'))
    text++;
  if (!text || !*text)
    return cJSON_IsObject(args) && !args->child;
  cJSON *v = cJSON_Parse(text);
  int same = v && cJSON_Compare(v, args, 1);
  cJSON_Delete(v);
  return same;
}

/* taken: does a tool_start of the journal carry this tool_call_id? */
static int taken(const cJSON *entries, const char *id) {
  const cJSON *e;
  cJSON_ArrayForEach(e, entries) {
    const char *k = ock_json_str(e, OCK_F_KIND),
               *tid = ock_json_str(e, OCK_F_TOOL_START_TOOL_CALL_ID);
    if (k && !strcmp(k, OCK_KIND_TOOL_START) && tid && !strcmp(tid, id))
      return 1;
  }
  return 0;
}

/* infer_id (under st->lock): the tool_call_id of this call, when the client sent none: the
 * first call of the latest llm_reply with the same name and equal arguments that no tool_start
 * has taken. No match leaves the id NULL and journals unrequested_tool_call. */
static void infer_id(struct mock_state *st, struct mock_tool_call *c) {
  cJSON_AddBoolToObject(c->extra, OCK_F_TOOL_START_TOOL_CALL_ID_INFERRED, 1);
  static const char *const kinds[] = {OCK_KIND_LLM_REPLY, OCK_KIND_TOOL_START, NULL};
  cJSON *all = ock__journal_select(st->journal, kinds);
  const cJSON *latest = NULL, *e;
  cJSON_ArrayForEach(e, all) {
    const char *k = ock_json_str(e, OCK_F_KIND);
    if (k && !strcmp(k, OCK_KIND_LLM_REPLY))
      latest = e;
  }
  const cJSON *call, *calls = cJSON_GetObjectItemCaseSensitive(latest, OCK_F_LLM_REPLY_TOOL_CALLS);
  cJSON_ArrayForEach(call, calls) {
    const char *id = ock_json_str(call, "id"), *name = ock_json_str(call, "name");
    if (!id || !name || strcmp(name, c->name) || strlen(id) > OCK_MAX_MCP_ID ||
        !args_equal(ock_json_str(call, "arguments"), c->input) || taken(all, id))
      continue;
    snprintf(c->id_buf, sizeof c->id_buf, "%s", id);
    c->id = c->id_buf;
    break;
  }
  if (!c->id) {
    cJSON *u = cJSON_CreateObject();
    cJSON_AddStringToObject(u, OCK_F_UNREQUESTED_TOOL_CALL_NAME, c->name);
    cJSON_AddItemToObject(u, OCK_F_UNREQUESTED_TOOL_CALL_INPUT, cJSON_Duplicate(c->input, 1));
    cJSON_AddStringToObject(u, OCK_F_UNREQUESTED_TOOL_CALL_VIA, "mcp");
    if (latest)
      cJSON_AddNumberToObject(u, OCK_F_UNREQUESTED_TOOL_CALL_REPLY_SEQ,
                              (double)ock_json_int(latest, OCK_F_SEQ, 0));
    else
      cJSON_AddNullToObject(u, OCK_F_UNREQUESTED_TOOL_CALL_REPLY_SEQ);
    cJSON_AddStringToObject(u, OCK_F_UNREQUESTED_TOOL_CALL_MESSAGE,
                            latest ? "no unanswered call of the latest LLM reply has this name "
                                     "and these arguments"
                                   : "no LLM reply has been sent yet");
    ock__journal_append(st->journal, OCK_KIND_UNREQUESTED_TOOL_CALL, u);
  }
  cJSON_Delete(all);
}

/* call_result: the CallToolResult of a scripted reply: the texts of SPEC.md 5.11, the output
 * (a string as is, other JSON compact) on success; isError with "Error: <error.message>" for a
 * ToolResult with success false, or "Error: tool endpoint returned HTTP <status>" when the
 * scripted status (not 2xx) failed the call and the body carries no failure of its own. */
static cJSON *call_result(const cJSON *tr, int status) {
  cJSON *r = cJSON_CreateObject();
  cJSON *content = cJSON_AddArrayToObject(r, "content");
  cJSON *block = cJSON_CreateObject();
  cJSON_AddItemToArray(content, block);
  cJSON_AddStringToObject(block, "type", "text");
  int success = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(tr, "success"));
  int ok = success && status >= 200 && status < 300;
  if (ok) {
    const cJSON *out = cJSON_GetObjectItemCaseSensitive(tr, "output");
    if (cJSON_IsString(out)) {
      cJSON_AddStringToObject(block, "text", out->valuestring);
    } else {
      char *s = out ? ock_json_print(out) : NULL;
      cJSON_AddStringToObject(block, "text", s ? s : "null");
      free(s);
    }
  } else {
    const char *msg = ock_json_str(cJSON_GetObjectItemCaseSensitive(tr, "error"), "message");
    char detail[64];
    if (success || !msg || !*msg) {
      if (success)
        snprintf(detail, sizeof detail, "tool endpoint returned HTTP %d", status);
      else
        snprintf(detail, sizeof detail, "unknown error");
      msg = detail;
    }
    size_t len = strlen(msg) + 8;
    char *text = malloc(len);
    if (text)
      snprintf(text, len, "Error: %s", msg);
    cJSON_AddStringToObject(block, "text", text ? text : "Error: unknown error");
    free(text);
  }
  cJSON_AddBoolToObject(r, "isError", !ok);
  return r;
}

static int tools_call(struct mock_state *st, const struct mock_request *rq, const char *sid,
                      const cJSON *id, const cJSON *params, struct mock_plan *plan) {
  const char *name = ock_json_str(params, "name");
  const cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
  const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
  const cJSON *given = cJSON_GetObjectItemCaseSensitive(meta, "ock/tool_call_id");
  const char *why = !cJSON_IsObject(params) || !name ? "params.name is required (a string)"
                    : args && !cJSON_IsObject(args)  ? "params.arguments must be an object"
                    : meta && !cJSON_IsObject(meta)  ? "params._meta must be an object"
                    : given && (!cJSON_IsString(given) || !*given->valuestring ||
                                strlen(given->valuestring) > OCK_MAX_MCP_ID)
                        ? "params._meta[\"ock/tool_call_id\"] must be a string of 1 to 255 bytes"
                        : NULL;
  if (why) {
    char msg[200];
    snprintf(msg, sizeof msg, "tools/call: %s", why);
    return ock__plan_json(plan, 200, rpc_error(id, RPC_INVALID_PARAMS, msg));
  }
  cJSON *empty = args ? NULL : cJSON_CreateObject();
  struct mock_tool_call c = {.name = name, .input = args ? args : empty};
  c.extra = cJSON_CreateObject();
  cJSON_AddStringToObject(c.extra, OCK_F_TOOL_START_VIA, "mcp");
  cJSON_AddStringToObject(c.extra, OCK_F_TOOL_START_MCP_SESSION_ID, sid);
  if (given) {
    c.id = given->valuestring;
    cJSON_AddBoolToObject(c.extra, OCK_F_TOOL_START_TOOL_CALL_ID_INFERRED, 0);
  } else {
    c.resolve = infer_id;
  }
  int rc = ock__tool_call(st, rq, &c, plan);
  if (!rc && !c.known) {
    char msg[200];
    snprintf(msg, sizeof msg, "Unknown tool: %.100s", name);
    rc = ock__plan_json(plan, 200, rpc_error(id, RPC_INVALID_PARAMS, msg));
  } else if (!rc) {
    rc = ock__plan_json(plan, 200, rpc_result(id, call_result(c.reply, c.status)));
  }
  cJSON_Delete(c.reply);
  cJSON_Delete(c.extra);
  cJSON_Delete(empty);
  return rc;
}

/* session_of: checks the Mcp-Session-Id and MCP-Protocol-Version headers of a message after
 * initialize. Returns 0 and copies the id to sid, or answers the request and returns 1
 * (*rc set). */
static int session_of(struct mock_state *st, const struct mock_request *rq, const cJSON *id,
                      char *sid, size_t n, int *rc, struct mock_plan *plan) {
  const char *given = header(rq, "Mcp-Session-Id");
  const char *version = header(rq, "MCP-Protocol-Version");
  char msg[300];
  if (!given) {
    *rc = http_fail(st, rq, 400, id, RPC_INVALID_REQUEST,
                    "Bad Request: the Mcp-Session-Id header is required after initialize", plan);
    return 1;
  }
  pthread_mutex_lock(&st->lock);
  struct mock_mcp_session *s = find_session(st, given);
  int known = s && !s->closed;
  pthread_mutex_unlock(&st->lock);
  if (!known) {
    snprintf(msg, sizeof msg, "Not Found: no MCP session \"%.60s\"%s; send initialize again", given,
             s ? " (ended by DELETE)" : "");
    *rc = http_fail(st, rq, 404, id, RPC_INVALID_REQUEST, msg, plan);
    return 1;
  }
  if (version && !supported(version)) {
    snprintf(msg, sizeof msg,
             "Bad Request: unsupported MCP-Protocol-Version \"%.40s\" (supported: 2025-11-25, "
             "2025-06-18, 2025-03-26, 2024-11-05, 2024-10-07)",
             version);
    *rc = http_fail(st, rq, 400, id, RPC_INVALID_REQUEST, msg, plan);
    return 1;
  }
  snprintf(sid, n, "%s", given);
  return 0;
}

static int end_session(struct mock_state *st, const struct mock_request *rq,
                       struct mock_plan *plan) {
  char sid[40];
  int rc = OCK_OK;
  if (session_of(st, rq, NULL, sid, sizeof sid, &rc, plan))
    return rc;
  pthread_mutex_lock(&st->lock);
  struct mock_mcp_session *s = find_session(st, sid);
  if (s)
    s->closed = 1;
  cJSON *e = cJSON_CreateObject();
  cJSON_AddStringToObject(e, OCK_F_MCP_SESSION_SESSION_ID, sid);
  cJSON_AddBoolToObject(e, OCK_F_MCP_SESSION_CLOSED, 1);
  ock__journal_append(st->journal, OCK_KIND_MCP_SESSION, e);
  pthread_mutex_unlock(&st->lock);
  return ock__plan_bytes(plan, 200, "application/json", "", 0);
}

/* message answers one JSON-RPC message that passed the transport's checks. */
static int message(struct mock_state *st, const struct mock_request *rq, const cJSON *msg,
                   struct mock_plan *plan) {
  const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
  const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
  const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
  int valid_id = cJSON_IsString(id) || cJSON_IsNumber(id);
  int is_response = !method && valid_id &&
                    (cJSON_GetObjectItemCaseSensitive(msg, "result") ||
                     cJSON_GetObjectItemCaseSensitive(msg, "error"));
  if (strcmp(ock_json_str(msg, "jsonrpc") ? ock_json_str(msg, "jsonrpc") : "", "2.0") ||
      (!is_response && !cJSON_IsString(method)) || (id && !valid_id && !is_response) ||
      (params && !cJSON_IsObject(params)))
    return http_fail(st, rq, 400, valid_id ? id : NULL, RPC_INVALID_REQUEST,
                     "Invalid Request: expected a JSON-RPC 2.0 request, notification or "
                     "response (\"jsonrpc\": \"2.0\", a string method, an object params)",
                     plan);
  const char *m = method ? method->valuestring : "";
  if (!strcmp(m, "initialize")) {
    if (!id)
      return http_fail(st, rq, 400, NULL, RPC_INVALID_REQUEST,
                       "Invalid Request: initialize is a request and needs an id", plan);
    return initialize(st, id, params, plan);
  }
  char sid[40];
  int rc = OCK_OK;
  if (session_of(st, rq, valid_id ? id : NULL, sid, sizeof sid, &rc, plan))
    return rc;
  if (!id || is_response) { /* a notification or a response: accepted, no body */
    if (!strcmp(m, "notifications/initialized")) {
      pthread_mutex_lock(&st->lock);
      struct mock_mcp_session *s = find_session(st, sid);
      if (s)
        s->initialized = 1;
      pthread_mutex_unlock(&st->lock);
    }
    rc = ock__plan_bytes(plan, 202, "application/json", "", 0);
    return rc;
  }
  if (!strcmp(m, "ping"))
    return ock__plan_json(plan, 200, rpc_result(id, cJSON_CreateObject()));
  if (!strcmp(m, "tools/list"))
    return ock__plan_json(plan, 200, rpc_result(id, tools_list(st->fx)));
  if (!strcmp(m, "tools/call"))
    return tools_call(st, rq, sid, id, params, plan);
  char text[160];
  snprintf(text, sizeof text, "Method not found: %.80s", m);
  return ock__plan_json(plan, 200, rpc_error(id, RPC_METHOD_NOT_FOUND, text));
}

/* local_origin: is an Origin header this machine's own page (http or https on localhost,
 * 127.0.0.1 or [::1], any port)? The transport asks servers to refuse other origins (403), so
 * that a web page cannot reach a local server through DNS rebinding. */
static int local_origin(const char *origin) {
  static const char *const hosts[] = {"localhost", "127.0.0.1", "[::1]"};
  const char *h = strstr(origin, "://");
  if (!h || (strncmp(origin, "http://", 7) && strncmp(origin, "https://", 8)))
    return 0;
  h += 3;
  for (size_t i = 0; i < sizeof hosts / sizeof hosts[0]; i++) {
    size_t n = strlen(hosts[i]);
    if (!strncmp(h, hosts[i], n) && (h[n] == 0 || h[n] == ':' || h[n] == '/'))
      return 1;
  }
  return 0;
}

int ock__serve_mcp(struct mock_state *st, const struct mock_request *rq, struct mock_plan *plan) {
  const char *origin = header(rq, "Origin");
  if (origin && !local_origin(origin)) {
    char msg[200];
    snprintf(msg, sizeof msg, "Forbidden: Origin \"%.80s\" is not this machine", origin);
    return http_fail(st, rq, 403, NULL, RPC_INVALID_REQUEST, msg, plan);
  }
  if (!strcmp(rq->method, "DELETE"))
    return end_session(st, rq, plan);
  if (strcmp(rq->method, "POST")) {
    char msg[160];
    snprintf(msg, sizeof msg,
             "%.20s is not allowed on /mcp: this server offers no SSE stream; use POST "
             "(or DELETE to end a session)",
             rq->method);
    int rc = http_fail(st, rq, 405, NULL, RPC_INVALID_REQUEST, msg, plan);
    if (!rc)
      rc = ock__plan_header(plan, "Allow", "POST, DELETE");
    return rc;
  }
  cJSON *msg = NULL;
  struct ock_jerr jerr;
  if (ock_json_parse(rq->body, rq->body_len, &msg, &jerr)) {
    char text[600];
    snprintf(text, sizeof text, "Parse error: %s: %s", jerr.where, jerr.what);
    return http_fail(st, rq, 400, NULL, RPC_PARSE_ERROR, text, plan);
  }
  int rc;
  if (cJSON_IsArray(msg))
    rc = http_fail(st, rq, 400, NULL, RPC_INVALID_REQUEST,
                   "Invalid Request: JSON-RPC batches are not supported; send one message per "
                   "POST",
                   plan);
  else if (!cJSON_IsObject(msg))
    rc = http_fail(st, rq, 400, NULL, RPC_INVALID_REQUEST,
                   "Invalid Request: expected a JSON-RPC 2.0 message (a JSON object)", plan);
  else
    rc = message(st, rq, msg, plan);
  cJSON_Delete(msg);
  return rc;
}
