/*
 * test_mcp.c: $OCK_URL/mcp over real HTTP: every method, the transport's errors, session ids,
 * protocol-version negotiation, and tools/call journaled as POST /ock/v1/tools/{name} is.
 * Every test starts its own mock on 127.0.0.1 port 0 and frees it.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "helpers.h"
#include "ock/json.h"
#include "runner.h"

static size_t on_data(char *p, size_t size, size_t n, void *user) {
  struct ock_buf *b = user;
  return ock_buf_append(b, p, size * n) ? 0 : size * n;
}

/* mcp_send: method on /mcp with body (NULL: none), the session and version headers and one
 * more header line (extra) when not NULL. */
static void mcp_send_h(ock_mock *m, const char *method, const char *body, const char *session,
                       const char *version, const char *extra, struct http_reply *out) {
  memset(out, 0, sizeof *out);
  ock_buf_init(&out->head, 1 << 20);
  ock_buf_init(&out->body, 1 << 20);
  char url[512], h1[300], h2[100];
  snprintf(url, sizeof url, "%s/mcp", ock_mock_url(m));
  CURL *c = curl_easy_init();
  struct curl_slist *hs = NULL;
  hs = curl_slist_append(hs, "Content-Type: application/json");
  hs = curl_slist_append(hs, "Accept: application/json, text/event-stream");
  hs = curl_slist_append(hs, "Expect:");
  if (session) {
    snprintf(h1, sizeof h1, "Mcp-Session-Id: %s", session);
    hs = curl_slist_append(hs, h1);
  }
  if (version) {
    snprintf(h2, sizeof h2, "MCP-Protocol-Version: %s", version);
    hs = curl_slist_append(hs, h2);
  }
  if (extra)
    hs = curl_slist_append(hs, extra);
  curl_easy_setopt(c, CURLOPT_URL, url);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, hs);
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &out->body);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_data);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &out->head);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  if (body) {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
  }
  out->curl_rc = (int)curl_easy_perform(c);
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &out->status);
  curl_easy_getinfo(c, CURLINFO_TOTAL_TIME, &out->seconds);
  curl_slist_free_all(hs);
  curl_easy_cleanup(c);
  if (!out->body.data)
    OCK_ASSERT_OK(ock_buf_puts(&out->body, ""));
  if (!out->head.data)
    OCK_ASSERT_OK(ock_buf_puts(&out->head, ""));
}

static void mcp_send(ock_mock *m, const char *method, const char *body, const char *session,
                     const char *version, struct http_reply *out) {
  mcp_send_h(m, method, body, session, version, NULL, out);
}

/* open_session: initialize with version; copies the Mcp-Session-Id to sid (empty if none) and
 * returns the negotiated version (static), or "" on failure. */
static const char *open_session(ock_mock *m, const char *version, char *sid, size_t n) {
  static char got[32];
  char body[300];
  snprintf(body, sizeof body,
           "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
           "\"protocolVersion\":\"%s\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\","
           "\"version\":\"1\"}}}",
           version);
  struct http_reply r;
  mcp_send(m, "POST", body, NULL, NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 200);
  if (!reply_header(&r, "Mcp-Session-Id", sid, n))
    sid[0] = 0;
  cJSON *j = cJSON_Parse(r.body.data);
  const cJSON *res = cJSON_GetObjectItem(j, "result");
  snprintf(got, sizeof got, "%s",
           ock_json_str(res, "protocolVersion") ? ock_json_str(res, "protocolVersion") : "");
  cJSON_Delete(j);
  http_reply_free(&r);
  return got;
}

/* rpc_code: the error code of a JSON-RPC reply body, or 0. */
static long long rpc_code(const char *body) {
  cJSON *j = cJSON_Parse(body);
  long long code = ock_json_int(cJSON_GetObjectItem(j, "error"), "code", 0);
  cJSON_Delete(j);
  return code;
}

static void test_initialize_negotiates_the_version(void) {
  ock_mock *m = mock_from("hooks.json", NULL);
  if (!m)
    return;
  struct http_reply r;
  mcp_send(m, "POST",
           "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"initialize\",\"params\":{"
           "\"protocolVersion\":\"2025-06-18\",\"capabilities\":{}}}",
           NULL, NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 200);
  char ct[100], sid[100];
  OCK_ASSERT_STR_EQ(reply_header(&r, "Content-Type", ct, sizeof ct), "application/json");
  OCK_ASSERT_STR_EQ(r.body.data,
                    "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"result\":{\"protocolVersion\":"
                    "\"2025-06-18\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":"
                    "\"ock-mock-provider\",\"version\":\"1\"}}}");
  regex_t re;
  regcomp(&re, "^ock-[0-9a-f]{32}$", REG_EXTENDED | REG_NOSUB);
  const char *id = reply_header(&r, "Mcp-Session-Id", sid, sizeof sid);
  OCK_ASSERT_TRUE(id && !regexec(&re, id, 0, NULL, 0));
  regfree(&re);
  http_reply_free(&r);
  /* every version of the TypeScript SDK 1.32.2 is answered as asked; others get the latest */
  static const char *const asked[][2] = {{"2025-11-25", "2025-11-25"}, {"2025-06-18", "2025-06-18"},
                                         {"2025-03-26", "2025-03-26"}, {"2024-11-05", "2024-11-05"},
                                         {"2024-10-07", "2024-10-07"}, {"1999-01-01", "2025-11-25"},
                                         {"2099-12-31", "2025-11-25"}};
  char prev[100] = "";
  for (size_t i = 0; i < sizeof asked / sizeof asked[0]; i++) {
    char s[100];
    OCK_ASSERT_STR_EQ(open_session(m, asked[i][0], s, sizeof s), asked[i][1]);
    OCK_ASSERT_INT_EQ(strlen(s), 36);
    OCK_ASSERT_INT_NE(strcmp(s, prev), 0); /* a new id per session */
    snprintf(prev, sizeof prev, "%s", s);
  }
  cJSON *e = journal_nth(m, "mcp_session", 6);
  OCK_ASSERT_STR_EQ(ock_json_str(e, "asked"), "1999-01-01");
  OCK_ASSERT_STR_EQ(ock_json_str(e, "protocol_version"), "2025-11-25");
  cJSON_Delete(e);
  /* without a protocolVersion: invalid params, and no session */
  mcp_send(m, "POST", "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"initialize\",\"params\":{}}",
           NULL, NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 200);
  OCK_ASSERT_INT_EQ(rpc_code(r.body.data), -32602);
  OCK_ASSERT_NULL(reply_header(&r, "Mcp-Session-Id", sid, sizeof sid));
  http_reply_free(&r);
  OCK_ASSERT_INT_EQ(journal_count(m, "mcp_session"), 8);
  /* the session document names the endpoint */
  http_get(m, "/ock/v1/session", &r);
  cJSON *doc = cJSON_Parse(r.body.data);
  char want[200];
  snprintf(want, sizeof want, "%s/mcp", ock_mock_url(m));
  OCK_ASSERT_STR_EQ(ock_json_str(doc, "mcp_url"), want);
  cJSON_Delete(doc);
  http_reply_free(&r);
  ock_mock_free(m);
}

static void test_session_ids_and_version_header(void) {
  ock_mock *m = mock_from("hooks.json", NULL);
  if (!m)
    return;
  char sid[100];
  open_session(m, "2025-11-25", sid, sizeof sid);
  static const char ping[] = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}";
  struct http_reply r;
  mcp_send(m, "POST", ping, sid, "2025-11-25", &r);
  OCK_ASSERT_INT_EQ(r.status, 200);
  OCK_ASSERT_STR_EQ(r.body.data, "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}");
  http_reply_free(&r);
  mcp_send(m, "POST", ping, sid, NULL, &r); /* no version header: 2025-03-26 assumed, accepted */
  OCK_ASSERT_INT_EQ(r.status, 200);
  http_reply_free(&r);
  mcp_send(m, "POST", ping, NULL, "2025-11-25", &r);
  OCK_ASSERT_INT_EQ(r.status, 400);
  OCK_ASSERT_CONTAINS(r.body.data, "Mcp-Session-Id header is required");
  http_reply_free(&r);
  mcp_send(m, "POST", ping, "ock-00000000000000000000000000000000", NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 404);
  http_reply_free(&r);
  mcp_send(m, "POST", ping, sid, "2030-01-01", &r);
  OCK_ASSERT_INT_EQ(r.status, 400);
  OCK_ASSERT_CONTAINS(r.body.data, "unsupported MCP-Protocol-Version \\\"2030-01-01\\\"");
  http_reply_free(&r);
  mcp_send(m, "GET", NULL, sid, NULL, &r);
  char allow[100];
  OCK_ASSERT_INT_EQ(r.status, 405);
  OCK_ASSERT_STR_EQ(reply_header(&r, "Allow", allow, sizeof allow), "POST, DELETE");
  http_reply_free(&r);
  mcp_send(m, "DELETE", NULL, NULL, NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 400);
  http_reply_free(&r);
  mcp_send(m, "DELETE", NULL, sid, NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 200);
  http_reply_free(&r);
  mcp_send(m, "POST", ping, sid, NULL, &r); /* ended: 404, the client must initialize again */
  OCK_ASSERT_INT_EQ(r.status, 404);
  OCK_ASSERT_CONTAINS(r.body.data, "ended by DELETE");
  http_reply_free(&r);
  /* a header that is not UTF-8 is quoted with '?': the journal stays JSON text */
  mcp_send(m, "POST", ping, "ock-\xff\xfe", NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 404);
  http_reply_free(&r);
  cJSON *err = journal_nth(m, "http_error", 6);
  OCK_ASSERT_CONTAINS(ock_json_str(err, "message"), "no MCP session \"ock-??\"");
  cJSON_Delete(err);
  /* a page of another origin is refused; the local machine's is not */
  mcp_send_h(m, "POST", ping, NULL, NULL, "Origin: http://evil.example", &r);
  OCK_ASSERT_INT_EQ(r.status, 403);
  http_reply_free(&r);
  mcp_send_h(m, "POST", ping, "x", NULL, "Origin: http://localhost.evil.example", &r);
  OCK_ASSERT_INT_EQ(r.status, 403);
  http_reply_free(&r);
  mcp_send_h(m, "POST", ping, "x", NULL, "Origin: http://localhost:8080", &r);
  OCK_ASSERT_INT_EQ(r.status, 404); /* past the origin check: the session is unknown */
  http_reply_free(&r);
  OCK_ASSERT_INT_EQ(journal_count(m, "http_error"), 10);
  ock_mock_free(m);
}

/* Sessions are kept for the run (an ended one is still answered 404): past the cap,
 * initialize is refused with a JSON-RPC error and no session id, and the others still work. */
static void test_session_cap(void) {
  ock_mock *m = mock_from("hooks.json", NULL);
  if (!m)
    return;
  char first[100], sid[100];
  open_session(m, "2025-11-25", first, sizeof first);
  for (int i = 1; i < 64; i++)
    open_session(m, "2025-11-25", sid, sizeof sid);
  OCK_ASSERT_INT_EQ(strlen(sid), 36);
  struct http_reply r;
  mcp_send(m, "POST",
           "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
           "\"protocolVersion\":\"2025-11-25\"}}",
           NULL, NULL, &r);
  OCK_ASSERT_INT_EQ(rpc_code(r.body.data), -32603);
  OCK_ASSERT_CONTAINS(r.body.data, "at most 64 MCP sessions");
  OCK_ASSERT_NULL(reply_header(&r, "Mcp-Session-Id", sid, sizeof sid));
  http_reply_free(&r);
  mcp_send(m, "POST", "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}", first, NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 200);
  http_reply_free(&r);
  OCK_ASSERT_INT_EQ(journal_count(m, "mcp_session"), 64);
  ock_mock_free(m);
}

static void test_notifications_and_responses_get_202(void) {
  ock_mock *m = mock_from("hooks.json", NULL);
  if (!m)
    return;
  char sid[100];
  open_session(m, "2025-11-25", sid, sizeof sid);
  static const char *const bodies[] = {
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":3}}",
      "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}",
      "{\"jsonrpc\":\"2.0\",\"id\":6,\"error\":{\"code\":-1,\"message\":\"no\"}}"};
  for (size_t i = 0; i < 4; i++) {
    struct http_reply r;
    mcp_send(m, "POST", bodies[i], sid, "2025-11-25", &r);
    OCK_ASSERT_INT_EQ(r.status, 202);
    OCK_ASSERT_STR_EQ(r.body.data, "");
    http_reply_free(&r);
  }
  ock_mock_free(m);
}

static void test_json_rpc_errors(void) {
  ock_mock *m = mock_from("hooks.json", NULL);
  if (!m)
    return;
  char sid[100];
  open_session(m, "2025-11-25", sid, sizeof sid);
  static const struct {
    const char *body;
    long status;
    long long code;
    const char *contains;
  } cases[] = {
      {"{\"jsonrpc\":\"2.0\",\"id\":1,", 400, -32700, "\"id\":null"},
      {"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", 400, -32600, "batches"},
      {"{\"id\":1,\"method\":\"ping\"}", 400, -32600, "\"id\":1"},
      {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":[]}", 400, -32600, "params"},
      {"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"resources/list\"}", 200, -32601,
       "Method not found: resources/list"},
      {"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{}}", 200, -32602,
       "params.name"},
      {"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"ls\","
       "\"arguments\":[1]}}",
       200, -32602, "arguments must be an object"},
      {"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"ls\","
       "\"_meta\":{\"ock/tool_call_id\":3}}}",
       200, -32602, "ock/tool_call_id"},
      {"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"nope\","
       "\"arguments\":{}}}",
       200, -32602, "Unknown tool: nope"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    struct http_reply r;
    mcp_send(m, "POST", cases[i].body, sid, "2025-11-25", &r);
    OCK_ASSERT_INT_EQ(r.status, cases[i].status);
    OCK_ASSERT_INT_EQ(rpc_code(r.body.data), cases[i].code);
    OCK_ASSERT_CONTAINS(r.body.data, cases[i].contains);
    http_reply_free(&r);
  }
  /* the unknown tool is journaled as at the ock/1 endpoint: known false, 404 */
  cJSON *s = journal_nth(m, "tool_start", 0), *e = journal_nth(m, "tool_end", 0);
  OCK_ASSERT_STR_EQ(ock_json_str(s, "name"), "nope");
  OCK_ASSERT_INT_EQ(ock_json_bool(s, "known", -1), 0);
  OCK_ASSERT_INT_EQ(ock_json_int(e, "status", 0), 404);
  OCK_ASSERT_INT_EQ(journal_count(m, "tool_start"), 1); /* invalid params never reach a tool */
  cJSON_Delete(s);
  cJSON_Delete(e);
  ock_mock_free(m);
}

static void test_tools_list_is_the_sessions_tools(void) {
  static const char *const fixtures[] = {"hooks.json", "tool_conversation.json"};
  for (size_t f = 0; f < 2; f++) {
    ock_mock *m = mock_from(fixtures[f], NULL);
    if (!m)
      return;
    char sid[100];
    open_session(m, "2025-06-18", sid, sizeof sid);
    struct http_reply r;
    mcp_send(m, "POST", "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":{}}",
             sid, "2025-06-18", &r);
    OCK_ASSERT_INT_EQ(r.status, 200);
    cJSON *got = cJSON_Parse(r.body.data);
    cJSON *fx = fixture_load(fixtures[f]);
    const cJSON *want = cJSON_GetObjectItem(cJSON_GetObjectItem(fx, "session"), "tools");
    const cJSON *tools = cJSON_GetObjectItem(cJSON_GetObjectItem(got, "result"), "tools");
    OCK_ASSERT_INT_EQ(cJSON_GetArraySize(tools), cJSON_GetArraySize(want));
    for (int i = 0; i < cJSON_GetArraySize(want); i++) {
      const cJSON *w = cJSON_GetArrayItem(want, i), *t = cJSON_GetArrayItem(tools, i);
      OCK_ASSERT_STR_EQ(ock_json_str(t, "name"), ock_json_str(w, "name"));
      OCK_ASSERT_STR_EQ(ock_json_str(t, "description"), ock_json_str(w, "description"));
      cJSON *dflt = cJSON_Parse("{\"type\":\"object\",\"properties\":{}}");
      const cJSON *schema = cJSON_GetObjectItem(w, "input_schema");
      OCK_ASSERT_TRUE(
          cJSON_Compare(cJSON_GetObjectItem(t, "inputSchema"), schema ? schema : dflt, 1));
      cJSON_Delete(dflt);
    }
    cJSON_Delete(fx);
    cJSON_Delete(got);
    http_reply_free(&r);
    ock_mock_free(m);
  }
}

/* tool_entries: the tool_start and tool_end entries of the journal, without seq, t_ms and the
 * members only MCP adds, printed. */
static char *tool_entries(ock_mock *m) {
  cJSON *all = ock_mock_journal(m), *out = cJSON_CreateArray();
  const cJSON *e;
  cJSON_ArrayForEach(e, all) {
    const char *k = ock_json_str(e, "kind");
    if (strcmp(k, "tool_start") && strcmp(k, "tool_end") && strcmp(k, "fault"))
      continue;
    cJSON *c = cJSON_Duplicate(e, 1);
    static const char *const drop[] = {"seq", "t_ms", "via", "mcp_session_id",
                                       "tool_call_id_inferred"};
    for (size_t i = 0; i < sizeof drop / sizeof drop[0]; i++)
      cJSON_DeleteItemFromObjectCaseSensitive(c, drop[i]);
    cJSON_AddItemToArray(out, c);
  }
  char *s = cJSON_PrintUnformatted(out);
  cJSON_Delete(out);
  cJSON_Delete(all);
  return s;
}

static void test_tools_call_is_the_ock1_tool(void) {
  /* the same calls through both doors: the same journal entries, and the results as the
   * CallToolResults they become */
  static const struct {
    const char *name, *id, *input;
    int is_error;
    const char *text;
  } calls[] = {
      {"flaky", "c1", "{}", 1, "Error: tool endpoint returned HTTP 500"}, /* scripted 500 */
      {"flaky", "c2", "{}", 1, "Error: disk full"},                       /* success false */
      {"flaky", "c3", "{}", 0, "fine"},
      {"ls", "c4", "{\"dir\":\".\"}", 0, "[\"a\",\"b\"]"}, /* 150 ms, JSON output */
  };
  ock_mock *a = mock_from("hooks.json", NULL), *b = mock_from("hooks.json", NULL);
  if (!a || !b) {
    ock_mock_free(a);
    ock_mock_free(b);
    return;
  }
  char sid[100];
  open_session(b, "2025-11-25", sid, sizeof sid);
  for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
    char path[100], body[400];
    struct http_reply r;
    snprintf(path, sizeof path, "/ock/v1/tools/%s", calls[i].name);
    snprintf(body, sizeof body, "{\"tool_call_id\":\"%s\",\"input\":%s}", calls[i].id,
             calls[i].input);
    http_post(a, path, body, "X-OCK-Trace-Id: tr-1", &r);
    http_reply_free(&r);
    snprintf(body, sizeof body,
             "{\"jsonrpc\":\"2.0\",\"id\":%zu,\"method\":\"tools/call\",\"params\":{\"name\":"
             "\"%s\",\"arguments\":%s,\"_meta\":{\"ock/tool_call_id\":\"%s\"}}}",
             i + 10, calls[i].name, calls[i].input, calls[i].id);
    struct http_reply q; /* with the trace header, as an instrumented SUT sends it */
    mcp_send_h(b, "POST", body, sid, NULL, "X-OCK-Trace-Id: tr-1", &q);
    OCK_ASSERT_INT_EQ(q.status, 200);
    cJSON *j = cJSON_Parse(q.body.data ? q.body.data : "");
    const cJSON *res = cJSON_GetObjectItem(j, "result");
    OCK_ASSERT_INT_EQ(ock_json_int(j, "id", 0), (long long)(i + 10));
    OCK_ASSERT_INT_EQ(ock_json_bool(res, "isError", -1), calls[i].is_error);
    const cJSON *block = cJSON_GetArrayItem(cJSON_GetObjectItem(res, "content"), 0);
    OCK_ASSERT_INT_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(res, "content")), 1);
    OCK_ASSERT_STR_EQ(ock_json_str(block, "type"), "text");
    OCK_ASSERT_STR_EQ(ock_json_str(block, "text"), calls[i].text);
    if (!strcmp(calls[i].name, "ls"))
      OCK_ASSERT_DOUBLE_GE(q.seconds, 0.14); /* the tool's delay */
    cJSON_Delete(j);
    http_reply_free(&q);
  }
  char *ja = tool_entries(a), *jb = tool_entries(b);
  OCK_ASSERT_STR_EQ(jb, ja);
  OCK_ASSERT_CONTAINS(ja, "\"tool_call_id\":\"c4\"");
  free(ja);
  free(jb);
  cJSON *s = journal_nth(b, "tool_start", 3), *e = journal_nth(b, "tool_end", 3);
  OCK_ASSERT_STR_EQ(ock_json_str(s, "via"), "mcp");
  OCK_ASSERT_STR_EQ(ock_json_str(e, "via"), "mcp");
  OCK_ASSERT_STR_EQ(ock_json_str(s, "mcp_session_id"), sid);
  OCK_ASSERT_INT_EQ(ock_json_bool(s, "tool_call_id_inferred", -1), 0);
  OCK_ASSERT_DOUBLE_GE(ock_json_num(e, "t_ms", 0) - ock_json_num(s, "t_ms", 0), 140);
  cJSON_Delete(s);
  cJSON_Delete(e);
  ock_mock_free(a);
  ock_mock_free(b);
}

static void test_tool_call_id_inferred_from_the_latest_reply(void) {
  ock_mock *m = mock_from("tool_conversation.json", NULL);
  if (!m)
    return;
  char sid[100];
  open_session(m, "2025-11-25", sid, sizeof sid);
  static const char call[] =
      "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":"
      "\"get_weather\",\"arguments\":{\"city\":\"Paris\"}}}";
  struct http_reply r;
  /* before any LLM reply: no call to match */
  mcp_send(m, "POST", call, sid, "2025-11-25", &r);
  OCK_ASSERT_CONTAINS(r.body.data, "\"isError\":false");
  http_reply_free(&r);
  http_post(m, "/p/oa/v1/chat/completions",
            "{\"model\":\"gpt-test\",\"messages\":[{\"role\":\"user\",\"content\":\"What is the "
            "weather in Paris?\"}],\"tools\":[{\"type\":\"function\",\"function\":{\"name\":"
            "\"get_weather\",\"parameters\":{\"type\":\"object\"}}}]}",
            NULL, &r);
  OCK_ASSERT_INT_EQ(r.status, 200);
  http_reply_free(&r);
  cJSON *reply = journal_nth(m, "llm_reply", 0);
  const char *model_id =
      ock_json_str(cJSON_GetArrayItem(cJSON_GetObjectItem(reply, "tool_calls"), 0), "id");
  OCK_ASSERT_NOT_NULL(model_id);
  /* other arguments: not the model's call */
  mcp_send(m, "POST",
           "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":"
           "\"get_weather\",\"arguments\":{\"city\":\"Lyon\"}}}",
           sid, "2025-11-25", &r);
  http_reply_free(&r);
  /* the model's call (equal arguments, members in another order would still match) */
  mcp_send(m, "POST", call, sid, "2025-11-25", &r);
  http_reply_free(&r);
  /* the same again: that call is taken */
  mcp_send(m, "POST", call, sid, "2025-11-25", &r);
  http_reply_free(&r);
  static const int has_id[] = {0, 0, 1, 0};
  for (int i = 0; i < 4; i++) {
    cJSON *s = journal_nth(m, "tool_start", i), *e = journal_nth(m, "tool_end", i);
    OCK_ASSERT_INT_EQ(ock_json_bool(s, "tool_call_id_inferred", -1), 1);
    const cJSON *ids = cJSON_GetObjectItem(s, "tool_call_id");
    const cJSON *ide = cJSON_GetObjectItem(e, "tool_call_id");
    if (has_id[i]) {
      OCK_ASSERT_STR_EQ(ock_json_str(s, "tool_call_id"), model_id ? model_id : "?");
      OCK_ASSERT_STR_EQ(ock_json_str(e, "tool_call_id"), model_id ? model_id : "?");
    } else {
      OCK_ASSERT_TRUE(cJSON_IsNull(ids) && cJSON_IsNull(ide));
    }
    cJSON_Delete(s);
    cJSON_Delete(e);
  }
  OCK_ASSERT_INT_EQ(journal_count(m, "unrequested_tool_call"), 3);
  cJSON *u = journal_nth(m, "unrequested_tool_call", 2);
  OCK_ASSERT_STR_EQ(ock_json_str(u, "name"), "get_weather");
  OCK_ASSERT_INT_EQ(ock_json_int(u, "reply_seq", -1), ock_json_int(reply, "seq", -2));
  cJSON_Delete(u);
  cJSON_Delete(reply);
  ock_mock_free(m);
}

static int suite_init(void) {
  return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : 1;
}

static int suite_cleanup(void) {
  curl_global_cleanup();
  return 0;
}

static const struct ock_test tests[] = {
    {"initialize_negotiates_the_version", test_initialize_negotiates_the_version},
    {"session_ids_and_version_header", test_session_ids_and_version_header},
    {"session_cap", test_session_cap},
    {"notifications_and_responses_get_202", test_notifications_and_responses_get_202},
    {"json_rpc_errors", test_json_rpc_errors},
    {"tools_list_is_the_sessions_tools", test_tools_list_is_the_sessions_tools},
    {"tools_call_is_the_ock1_tool", test_tools_call_is_the_ock1_tool},
    {"tool_call_id_inferred_from_the_latest_reply",
     test_tool_call_id_inferred_from_the_latest_reply},
    {NULL, NULL}};

const struct ock_suite mock_mcp_suite = {"mock_mcp", tests, suite_init, suite_cleanup};
