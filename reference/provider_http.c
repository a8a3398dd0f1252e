/*
 * provider_http.c: LLM providers over HTTP, OpenAI Chat Completions and Anthropic Messages.
 *
 * A thin edge: the request body comes from the neutral history (message.h converters), a JSON
 * reply goes through ock_reply_from_*, a streamed reply through the SSE decoder (sse.c) and
 * the chunk mapper (stream_map.c), which do all the parsing without I/O. This file only
 * builds URLs and headers, moves bytes with http.c, and turns HTTP outcomes into
 * ock_llm_error values the engine can classify.
 */
#include "ock/orchestrator.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ock/caps.h"
#include "http.h"
#include "ock/json.h"
#include "ock/status.h"
#include "retry.h"
#include "sse.h"
#include "stream_map.h"

#define ANTHROPIC_VERSION "2023-06-01"
#define ANTHROPIC_MAX_TOKENS 4096

struct ock_http_provider {
  struct ock_provider iface;
  enum ock_wire wire;
  char *name, *model, *url, *api_key;
};

static void set_error(struct ock_llm_error *e, enum ock_llm_fault kind, int status,
                      const char *type, const char *message) {
  e->kind = kind;
  e->status = status;
  e->retry_after_ms = -1;
  snprintf(e->type, sizeof e->type, "%s", type);
  snprintf(e->message, sizeof e->message, "%s", message);
}

/* tools_json: the tools offered, in the wire's shape. */
static cJSON *tools_json(enum ock_wire wire, const struct ock_llm_request *req) {
  cJSON *arr = cJSON_CreateArray();
  for (size_t i = 0; arr && i < req->n_tools; i++) {
    const struct ock_tool_spec *t = &req->tools[i];
    cJSON *schema = t->input_schema ? cJSON_Duplicate(t->input_schema, 1) : NULL;
    if (!schema) {
      schema = cJSON_CreateObject();
      cJSON_AddStringToObject(schema, "type", "object");
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToArray(arr, o);
    if (wire == OCK_WIRE_OPENAI) {
      cJSON_AddStringToObject(o, "type", "function");
      cJSON *fn = cJSON_AddObjectToObject(o, "function");
      cJSON_AddStringToObject(fn, "name", t->name);
      if (t->description)
        cJSON_AddStringToObject(fn, "description", t->description);
      cJSON_AddItemToObject(fn, "parameters", schema);
    } else {
      cJSON_AddStringToObject(o, "name", t->name);
      if (t->description)
        cJSON_AddStringToObject(o, "description", t->description);
      cJSON_AddItemToObject(o, "input_schema", schema);
    }
  }
  return arr;
}

/* openai_messages: the history as a raw JSON value, written straight from the messages: the
 * whole history goes out on every turn, and a tree of it per turn was most of the reference's
 * cost per turn. */
static int openai_messages(const struct ock_history *h, cJSON **out) {
  struct ock_buf text;
  ock_buf_init(&text, (size_t)-1 / 2);
  int rc = ock_history_write_openai(h, &text);
  *out = rc ? NULL : cJSON_CreateRaw(text.data);
  ock_buf_free(&text);
  return rc ? rc : *out ? OCK_OK : OCK_ENOMEM;
}

/* request_body prints the JSON body; caller frees. */
static char *request_body(const struct ock_http_provider *p, const struct ock_llm_request *req) {
  cJSON *body = cJSON_CreateObject();
  cJSON *msgs = NULL;
  char *system = NULL;
  int rc = p->wire == OCK_WIRE_OPENAI ? openai_messages(req->messages, &msgs)
                                      : ock_history_to_anthropic(req->messages, &msgs, &system);
  if (rc || !body) {
    cJSON_Delete(body);
    cJSON_Delete(msgs);
    return NULL;
  }
  cJSON_AddStringToObject(body, "model", p->model);
  if (p->wire == OCK_WIRE_ANTHROPIC) {
    cJSON_AddNumberToObject(body, "max_tokens", ANTHROPIC_MAX_TOKENS);
    if (system)
      cJSON_AddStringToObject(body, "system", system);
  }
  cJSON_AddItemToObject(body, "messages", msgs);
  if (req->n_tools)
    cJSON_AddItemToObject(body, "tools", tools_json(p->wire, req));
  cJSON_AddBoolToObject(body, "stream", req->stream);
  char *text = ock_json_print(body);
  cJSON_Delete(body);
  free(system);
  return text;
}

/* http_error turns an error status into an ock_llm_error (type "http_error"), quoting the
 * body's error type and message when it has the documented {"error": {"type", "message"}}. */
static void http_error(const struct ock__http_response *rs, struct ock_llm_error *err) {
  char msg[400];
  cJSON *j = rs->body.len ? cJSON_ParseWithLength(rs->body.data, rs->body.len) : NULL;
  const cJSON *e = cJSON_GetObjectItemCaseSensitive(j, "error");
  const char *wire_type = ock_json_str(e, "type"), *wire_msg = ock_json_str(e, "message");
  if (wire_msg)
    snprintf(msg, sizeof msg, "HTTP %ld: %s%s%s", rs->status, wire_type ? wire_type : "",
             wire_type ? ": " : "", wire_msg);
  else
    snprintf(msg, sizeof msg, "HTTP %ld", rs->status);
  cJSON_Delete(j);
  set_error(err, OCK_LLM_HTTP, (int)rs->status, "http_error", msg);
  err->retry_after_ms = ock__retry_after_ms(rs->retry_after_ms[0] ? rs->retry_after_ms : NULL,
                                            rs->retry_after[0] ? rs->retry_after : NULL);
}

/* transfer_error: the exchange did not give a complete response. */
static void transfer_error(int rc, const char *why, int got_bytes, struct ock_llm_error *err) {
  if (rc == OCK_ECANCELLED)
    set_error(err, OCK_LLM_CANCELLED, 0, "cancelled", why);
  else if (rc == OCK_ETIMEDOUT)
    set_error(err, OCK_LLM_TIMEOUT, 0, "timeout", why);
  else if (rc == OCK_ETOOBIG)
    set_error(err, OCK_LLM_MALFORMED, 0, "malformed_response", why);
  else if (got_bytes)
    set_error(err, OCK_LLM_STREAM, 0, "stream_error", why);
  else
    set_error(err, OCK_LLM_CONNECTION, 0, "connection_error", why);
}

/* One streamed exchange: bytes -> SSE events -> deltas. */
struct streaming {
  ock__sse *sse;
  ock__stream_map *map;
  ock_delta_fn on_delta;
  void *user;
  struct ock_llm_error err;
  int failed;
};

static int on_stream_bytes(void *user, const char *p, size_t n) {
  struct streaming *s = user;
  while (n > 0) {
    size_t used = 0;
    int have = 0;
    struct ock__sse_event ev;
    int rc = ock__sse_feed(s->sse, p, n, &used, &ev, &have);
    if (rc) {
      set_error(&s->err, OCK_LLM_STREAM, 0, "stream_error", "an SSE line or event is too large");
      s->failed = 1;
      return rc;
    }
    p += used;
    n -= used;
    if (have && ock__stream_map_event(s->map, ev.event, ev.data, s->on_delta, s->user, &s->err)) {
      s->failed = 1;
      return s->err.kind == OCK_LLM_CANCELLED ? OCK_ECANCELLED : OCK_EPROTO;
    }
  }
  return OCK_OK;
}

static int exchange(struct ock_http_provider *p, const struct ock_llm_request *req,
                    ock_delta_fn on_delta, void *user, struct ock_reply *out,
                    struct ock_llm_error *err) {
  char *body = request_body(p, req);
  if (!body) {
    set_error(err, OCK_LLM_MALFORMED, 0, "internal_error", "could not build the request body");
    return OCK_ENOMEM;
  }
  char auth[600], trace[300];
  if (p->wire == OCK_WIRE_OPENAI)
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", p->api_key);
  else
    snprintf(auth, sizeof auth, "x-api-key: %s", p->api_key);
  snprintf(trace, sizeof trace, "X-OCK-Trace-Id: %s", req->trace_id ? req->trace_id : "");
  const char *headers[] = {"Content-Type: application/json",
                           auth,
                           p->wire == OCK_WIRE_ANTHROPIC ? "anthropic-version: " ANTHROPIC_VERSION
                                                         : "Accept: application/json",
                           req->stream ? "Accept: text/event-stream" : "Cache-Control: no-cache",
                           req->trace_id ? trace : NULL,
                           NULL};
  struct streaming s = {.on_delta = on_delta, .user = user};
  int rc = OCK_OK;
  if (req->stream) {
    rc = ock__sse_new(OCK_CAP_PROVIDER_REPLY, &s.sse);
    if (!rc)
      rc = ock__stream_map_new(p->wire, OCK_CAP_PROVIDER_REPLY, &s.map);
  }
  struct ock__http_request rq = {.method = "POST",
                                 .url = p->url,
                                 .body = body,
                                 .body_len = strlen(body),
                                 .headers = headers,
                                 .timeout_ms = req->timeout_ms,
                                 .cancel = req->cancel,
                                 .max_body = OCK_CAP_PROVIDER_REPLY,
                                 .on_data = req->stream ? on_stream_bytes : NULL,
                                 .user = &s};
  struct ock__http_response rs;
  ock__http_response_init(&rs, OCK_CAP_PROVIDER_REPLY);
  char why[512] = "";
  if (!rc)
    rc = ock__http_exchange(&rq, &rs, why, sizeof why);
  else
    set_error(err, OCK_LLM_MALFORMED, 0, "internal_error", "out of memory");
  if (s.failed) {
    *err = s.err; /* the stream itself was bad: cut, error event, malformed chunk */
    rc = rc ? rc : OCK_EPROTO;
  } else if (rc == OCK_ENOMEM) {
    /* err already set */
  } else if (rc) {
    transfer_error(rc, why, req->stream && rs.received > 0, err);
  } else if (rs.status < 200 || rs.status >= 300) {
    http_error(&rs, err);
    rc = OCK_EHTTP;
  } else if (req->stream) {
    struct ock_reply r;
    ock_reply_init(&r);
    rc = ock__stream_map_finish(s.map, &r, err);
    if (!rc)
      *out = r;
  } else {
    struct ock_jerr jerr;
    cJSON *j = NULL;
    rc = ock_json_parse(rs.body.data ? rs.body.data : "", rs.body.len, &j, &jerr);
    struct ock_reply r;
    ock_reply_init(&r);
    if (!rc)
      rc = p->wire == OCK_WIRE_OPENAI ? ock_reply_from_openai(j, &r, &jerr)
                                      : ock_reply_from_anthropic(j, &r, &jerr);
    cJSON_Delete(j);
    if (rc) {
      char msg[700];
      snprintf(msg, sizeof msg, "malformed reply: %s: %s", jerr.where, jerr.what);
      set_error(err, OCK_LLM_MALFORMED, (int)rs.status, "malformed_response", msg);
      rc = OCK_EPROTO;
    } else {
      *out = r;
    }
  }
  if (rc && err->kind != OCK_LLM_HTTP && err->status == 0 && rs.status > 0)
    err->status = (int)rs.status; /* a status did arrive before the reply broke */
  ock__http_response_free(&rs);
  ock__sse_free(s.sse);
  ock__stream_map_free(s.map);
  free(body);
  return rc;
}

static int provider_complete(void *self, const struct ock_llm_request *req, struct ock_reply *out,
                             struct ock_llm_error *err) {
  struct ock_llm_request r = *req;
  r.stream = 0;
  return exchange(self, &r, NULL, NULL, out, err);
}

static int provider_stream(void *self, const struct ock_llm_request *req, ock_delta_fn on_delta,
                           void *user, struct ock_reply *out, struct ock_llm_error *err) {
  struct ock_llm_request r = *req;
  r.stream = 1;
  return exchange(self, &r, on_delta, user, out, err);
}

int ock_http_provider_new(enum ock_wire wire, const char *name, const char *base_url,
                          const char *model, int priority, const char *api_key,
                          ock_http_provider **out) {
  if (!name || !base_url || !model || !out ||
      (wire != OCK_WIRE_OPENAI && wire != OCK_WIRE_ANTHROPIC))
    return OCK_EINVAL;
  struct ock_http_provider *p = calloc(1, sizeof *p);
  if (!p)
    return OCK_ENOMEM;
  if (!api_key)
    api_key = getenv(wire == OCK_WIRE_OPENAI ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY");
  size_t blen = strlen(base_url);
  while (blen && base_url[blen - 1] == '/')
    blen--;
  const char *path = wire == OCK_WIRE_OPENAI ? "/chat/completions" : "/v1/messages";
  size_t ulen = blen + strlen(path) + 1;
  p->url = malloc(ulen);
  if (p->url)
    snprintf(p->url, ulen, "%.*s%s", (int)blen, base_url, path);
  p->wire = wire;
  p->name = strdup(name);
  p->model = strdup(model);
  p->api_key = strdup(api_key && *api_key ? api_key : "ock-dummy-key");
  if (!p->url || !p->name || !p->model || !p->api_key) {
    ock_http_provider_free(p);
    return OCK_ENOMEM;
  }
  p->iface.name = p->name;
  p->iface.model = p->model;
  p->iface.priority = priority;
  p->iface.self = p;
  p->iface.complete = provider_complete;
  p->iface.stream = provider_stream;
  p->iface.parse_tool_calls = NULL;
  *out = p;
  return OCK_OK;
}

void ock_http_provider_free(ock_http_provider *p) {
  if (!p)
    return;
  free(p->name);
  free(p->model);
  free(p->url);
  free(p->api_key);
  free(p);
}

const struct ock_provider *ock_http_provider_get(ock_http_provider *p) {
  return p ? &p->iface : NULL;
}
