/*
 * provider_http.c: LLM providers over HTTP: OpenAI Chat Completions, Anthropic Messages and the
 * OpenAI Responses API and the Gemini API (generateContent; the model and streaming are in its
 * URL, the key in x-goog-api-key).
 *
 * A thin edge: the request body, the JSON reply and the streamed reply (through the SSE
 * decoder, ock/sse.h) are the provider wire's (ock/wire.h), which does all the building and
 * parsing without I/O. This file only builds URLs and headers, moves bytes with http.c, and
 * turns HTTP outcomes into ock_llm_error values the engine can classify.
 */
#include "ock/orchestrator.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ock/caps.h"
#include "http.h"
#include "ock/json.h"
#include "ock/sse.h"
#include "ock/status.h"
#include "ock/wire.h"
#include "retry.h"

#define ANTHROPIC_VERSION "2023-06-01"
#define ANTHROPIC_MAX_TOKENS 4096

struct ock_http_provider {
  struct ock_provider iface;
  enum ock_wire wire;
  const struct ock_wire_ops *ops;
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

/* request_body prints the JSON body; caller frees. NULL when out of memory. */
static char *request_body(const struct ock_http_provider *p, const struct ock_llm_request *req) {
  struct ock_wire_request wr = {.model = p->model,
                                .messages = req->messages,
                                .tools = req->tools,
                                .n_tools = req->n_tools,
                                .stream = req->stream,
                                .max_tokens = ANTHROPIC_MAX_TOKENS};
  struct ock_buf b;
  ock_buf_init(&b, OCK_MAX_OWN_TEXT);
  if (p->ops->encode_request(&wr, &b)) {
    ock_buf_free(&b);
    return NULL;
  }
  return ock_buf_take(&b);
}

/* http_error turns an error status into an ock_llm_error (type "http_error"), quoting the
 * body's error type and message when it is the wire's error envelope. */
static void http_error(const struct ock__http_response *rs, struct ock_llm_error *err) {
  char msg[400];
  struct ock_wire_error we;
  if (!ock_wire_decode_error(rs->body.data, rs->body.len, &we))
    snprintf(msg, sizeof msg, "HTTP %ld: %s%s%s", rs->status, we.type, *we.type ? ": " : "",
             we.message);
  else
    snprintf(msg, sizeof msg, "HTTP %ld", rs->status);
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

/* stream_error: what the stream decoder found (a cut, an error event, a malformed chunk). */
static void stream_error(int rc, const struct ock_wire_error *we, struct ock_llm_error *err) {
  set_error(err, rc == OCK_ECANCELLED ? OCK_LLM_CANCELLED : OCK_LLM_STREAM, 0, we->type,
            we->message);
}

/* One streamed exchange: bytes -> SSE events -> deltas. */
struct streaming {
  ock_sse *sse;
  ock_wire_stream *map;
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
    struct ock_sse_event ev;
    int rc = ock_sse_feed(s->sse, p, n, &used, &ev, &have);
    if (rc) {
      set_error(&s->err, OCK_LLM_STREAM, 0, "stream_error", "an SSE line or event is too large");
      s->failed = 1;
      return rc;
    }
    p += used;
    n -= used;
    struct ock_wire_error we;
    rc = have ? ock_wire_stream_event(s->map, ev.event, ev.data, s->on_delta, s->user, &we) : 0;
    if (rc) {
      stream_error(rc, &we, &s->err);
      s->failed = 1;
      return rc == OCK_ECANCELLED ? OCK_ECANCELLED : OCK_EPROTO;
    }
  }
  return OCK_OK;
}

/* reply_of reads a complete 2xx response: the streamed reply, or the JSON body. */
static int reply_of(const struct ock_http_provider *p, struct streaming *s,
                    const struct ock__http_response *rs, struct ock_reply *out,
                    struct ock_llm_error *err) {
  struct ock_reply r;
  ock_reply_init(&r);
  if (s->map) {
    struct ock_wire_error we;
    int rc = ock_wire_stream_finish(s->map, &r, &we);
    if (rc)
      stream_error(rc, &we, err);
    else
      *out = r;
    return rc;
  }
  struct ock_jerr jerr;
  cJSON *j = NULL;
  int rc = ock_json_parse(rs->body.data ? rs->body.data : "", rs->body.len, &j, &jerr);
  if (!rc)
    rc = p->ops->decode_reply(j, &r, &jerr);
  cJSON_Delete(j);
  if (!rc) {
    *out = r;
    return OCK_OK;
  }
  char msg[700];
  snprintf(msg, sizeof msg, "malformed reply: %s: %s", jerr.where, jerr.what);
  set_error(err, OCK_LLM_MALFORMED, (int)rs->status, "malformed_response", msg);
  return OCK_EPROTO;
}

/* outcome turns what the transfer gave (rc, why) into the reply or an ock_llm_error. */
static int outcome(const struct ock_http_provider *p, struct streaming *s, int rc, const char *why,
                   const struct ock__http_response *rs, struct ock_reply *out,
                   struct ock_llm_error *err) {
  if (s->failed) {
    *err = s->err; /* the stream itself was bad: cut, error event, malformed chunk */
    rc = rc ? rc : OCK_EPROTO;
  } else if (rc == OCK_ENOMEM) {
    /* err already set */
  } else if (rc) {
    transfer_error(rc, why, s->map && rs->received > 0, err);
  } else if (rs->status < 200 || rs->status >= 300) {
    http_error(rs, err);
    rc = OCK_EHTTP;
  } else {
    rc = reply_of(p, s, rs, out, err);
  }
  if (rc && err->kind != OCK_LLM_HTTP && err->status == 0 && rs->status > 0)
    err->status = (int)rs->status; /* a status did arrive before the reply broke */
  return rc;
}

static int exchange(struct ock_http_provider *p, const struct ock_llm_request *req,
                    ock_delta_fn on_delta, void *user, struct ock_reply *out,
                    struct ock_llm_error *err) {
  char *body = request_body(p, req);
  if (!body) {
    set_error(err, OCK_LLM_MALFORMED, 0, "internal_error", "could not build the request body");
    return OCK_ENOMEM;
  }
  char auth[600], trace[300], url[1200];
  if (p->wire == OCK_WIRE_OPENAI || p->wire == OCK_WIRE_RESPONSES)
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", p->api_key);
  else if (p->wire == OCK_WIRE_GEMINI)
    snprintf(auth, sizeof auth, "x-goog-api-key: %s", p->api_key);
  else
    snprintf(auth, sizeof auth, "x-api-key: %s", p->api_key);
  /* Gemini: {base}/v1beta/models/{model} + the method; the others' URL is whole */
  snprintf(url, sizeof url, "%s%s", p->url,
           p->wire != OCK_WIRE_GEMINI ? ""
           : req->stream              ? ":streamGenerateContent?alt=sse"
                                      : ":generateContent");
  snprintf(trace, sizeof trace, "X-OCK-Trace-Id: %s", req->trace_id ? req->trace_id : "");
  const char *headers[] = {"Content-Type: application/json",
                           auth,
                           p->wire == OCK_WIRE_ANTHROPIC ? "anthropic-version: " ANTHROPIC_VERSION
                                                         : "Accept: application/json",
                           req->stream ? "Accept: text/event-stream" : "Cache-Control: no-cache",
                           req->trace_id ? trace : NULL,
                           NULL};
  struct streaming s = {.on_delta = on_delta, .user = user};
  int rc = req->stream ? ock_sse_new(OCK_MAX_PROVIDER_REPLY, &s.sse) : OCK_OK;
  if (!rc && req->stream)
    rc = ock_wire_stream_new(p->wire, OCK_MAX_PROVIDER_REPLY, &s.map);
  struct ock__http_request rq = {.method = "POST",
                                 .url = url,
                                 .body = body,
                                 .body_len = strlen(body),
                                 .headers = headers,
                                 .timeout_ms = req->timeout_ms,
                                 .cancel = req->cancel,
                                 .max_body = OCK_MAX_PROVIDER_REPLY,
                                 .on_data = req->stream ? on_stream_bytes : NULL,
                                 .user = &s};
  struct ock__http_response rs;
  ock__http_response_init(&rs, OCK_MAX_PROVIDER_REPLY);
  char why[512] = "";
  if (!rc)
    rc = ock__http_exchange(&rq, &rs, why, sizeof why);
  else
    set_error(err, OCK_LLM_MALFORMED, 0, "internal_error", "out of memory");
  rc = outcome(p, &s, rc, why, &rs, out, err);
  ock__http_response_free(&rs);
  ock_sse_free(s.sse);
  ock_wire_stream_free(s.map);
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
      (wire != OCK_WIRE_OPENAI && wire != OCK_WIRE_ANTHROPIC && wire != OCK_WIRE_RESPONSES &&
       wire != OCK_WIRE_GEMINI))
    return OCK_EINVAL;
  struct ock_http_provider *p = calloc(1, sizeof *p);
  if (!p)
    return OCK_ENOMEM;
  if (!api_key && wire == OCK_WIRE_GEMINI) { /* what @google/genai reads, in its order */
    api_key = getenv("GOOGLE_API_KEY");
    if (!api_key || !*api_key)
      api_key = getenv("GEMINI_API_KEY");
  }
  if (!api_key)
    api_key = getenv(wire == OCK_WIRE_ANTHROPIC ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY");
  size_t blen = strlen(base_url);
  while (blen && base_url[blen - 1] == '/')
    blen--;
  const char *path = ock_wire_get(wire)->path;
  const char *tail = wire == OCK_WIRE_GEMINI ? model : ""; /* .../v1beta/models/{model} */
  size_t ulen = blen + strlen(path) + strlen(tail) + 1;
  p->url = malloc(ulen);
  if (p->url)
    snprintf(p->url, ulen, "%.*s%s%s", (int)blen, base_url, path, tail);
  p->wire = wire;
  p->ops = ock_wire_get(wire);
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
