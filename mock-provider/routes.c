/*
 * routes.c: the mock's state and the map from method and path to an endpoint handler.
 *
 * Paths (SUT protocol ock/1, DESIGN.md §3):
 *   GET  /ock/v1/session                    the session document
 *   POST /ock/v1/events                     a HookResult
 *   POST /ock/v1/tools/{name}               a ToolResult (or a scripted fault)
 *   POST /p/{provider}/v1/chat/completions  OpenAI providers
 *   POST /p/{provider}/v1/messages          Anthropic providers
 *   POST /p/{provider}/v1/responses         OpenAI Responses providers
 *   POST /p/{provider}/{v1,v1beta}/models/{model}:generateContent (and
 *        :streamGenerateContent?alt=sse)  Gemini providers
 *   POST /v1/chat/completions, /v1/messages, /v1/responses
 *                                           the first provider of that api (Gemini: the paths
 *                                           above without /p/{provider})
 *   GET  /ock/v1/journal                    the journal so far (for teams using the CLI;
 *                                           not journaled itself)
 *   POST /mcp (and DELETE)                  the scenario's tools over MCP (mcp.c)
 * Anything else is a 404 or 405 with a message that names what exists.
 */
#include "state.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ock/caps.h"
#include "ock/contract.h"
#include "ock/status.h"
#include "ock/utf8.h"
#include "gemini.h"
#include "wire.h"

int ock__state_new(const struct ock_fixture *fx, struct ock_fixture *owned, int observe_only,
                   unsigned long long seed, size_t max_journal, size_t stored_responses,
                   struct mock_state **out) {
  struct mock_state *st = calloc(1, sizeof *st);
  if (!st) {
    ock_fixture_free(owned);
    return OCK_ENOMEM;
  }
  st->fx = fx;
  st->owned = owned;
  st->observe_only = observe_only;
  st->seed = seed;
  if (ock__lock_init(&st->lock)) {
    free(st);
    ock_fixture_free(owned);
    return OCK_ENOMEM;
  }
  if (ock__store_init(&st->responses, stored_responses)) {
    pthread_mutex_destroy(&st->lock);
    free(st);
    ock_fixture_free(owned);
    return OCK_ENOMEM;
  }
  size_t np = fx->n_providers ? fx->n_providers : 1;
  st->provider_requests = calloc(np, sizeof *st->provider_requests);
  st->plays = calloc(np, sizeof *st->plays);
  st->tool_calls = calloc(fx->n_tools ? fx->n_tools : 1, sizeof *st->tool_calls);
  st->hook_counts = calloc(fx->n_hooks ? fx->n_hooks : 1, sizeof *st->hook_counts);
  st->random_counts = calloc(fx->n_randoms ? fx->n_randoms : 1, sizeof *st->random_counts);
  st->cancel_counts = calloc(fx->n_cancels ? fx->n_cancels : 1, sizeof *st->cancel_counts);
  st->cancel_fired = calloc(fx->n_cancels ? fx->n_cancels : 1, 1);
  int ok = st->provider_requests && st->plays && st->tool_calls && st->hook_counts &&
           st->random_counts && st->cancel_counts && st->cancel_fired;
  for (size_t i = 0; ok && i < fx->n_providers; i++)
    ok = ock__play_init(&st->plays[i], &fx->providers[i]) == OCK_OK;
  if (!ok || ock__journal_new(max_journal, OCK_MAX_MOCK_JOURNAL_BYTES, &st->journal)) {
    ock__state_free(st);
    return OCK_ENOMEM;
  }
  *out = st;
  return OCK_OK;
}

void ock__state_free(struct mock_state *st) {
  if (!st)
    return;
  for (size_t i = 0; st->plays && i < st->fx->n_providers; i++)
    ock__play_free(&st->plays[i]);
  free(st->plays);
  free(st->provider_requests);
  free(st->tool_calls);
  free(st->hook_counts);
  free(st->random_counts);
  free(st->cancel_counts);
  free(st->cancel_fired);
  ock__journal_free(st->journal);
  ock_fixture_free(st->owned);
  ock__store_free(&st->responses);
  pthread_mutex_destroy(&st->lock);
  free(st);
}

cJSON *ock__headers_json(const struct mock_request *rq) {
  cJSON *h = cJSON_CreateObject();
  if (h && rq->trace_id)
    cJSON_AddStringToObject(h, "x-ock-trace-id", rq->trace_id);
  return h;
}

static cJSON *cancel_entry(const struct ock_fx_cancel *c) {
  static const char *const names[] = {"", "tool", OCK_KIND_LLM_REQUEST, "event", "after_execute"};
  cJSON *e = cJSON_CreateObject();
  cJSON *t = cJSON_AddObjectToObject(e, OCK_F_CANCEL_TRIGGER);
  cJSON_AddStringToObject(t, "at", names[c->at]);
  switch (c->at) {
  case OCK_FX_CANCEL_TOOL:
    cJSON_AddStringToObject(t, "tool", c->name);
    cJSON_AddNumberToObject(t, "occurrence", (double)c->n);
    break;
  case OCK_FX_CANCEL_EVENT:
    cJSON_AddStringToObject(t, "event", c->name);
    cJSON_AddNumberToObject(t, "occurrence", (double)c->n);
    break;
  default:
    cJSON_AddNumberToObject(t, "index", (double)c->n);
    break;
  }
  return e;
}

void ock__cancel_on_arrival(struct mock_state *st, enum ock_fx_cancel_at at, const char *name,
                            unsigned long long index, struct mock_plan *plan) {
  for (size_t i = 0; i < st->fx->n_cancels; i++) {
    const struct ock_fx_cancel *c = &st->fx->cancels[i];
    int event_kind = at == OCK_FX_CANCEL_EVENT &&
                     (c->at == OCK_FX_CANCEL_EVENT || c->at == OCK_FX_CANCEL_AFTER_EXECUTE);
    if (c->at != at && !event_kind)
      continue;
    unsigned long long n = index;
    if (at != OCK_FX_CANCEL_LLM_REQUEST) {
      if (strcmp(c->name, name))
        continue;
      n = ++st->cancel_counts[i];
    }
    if (st->cancel_fired[i] || n != (unsigned long long)c->n)
      continue;
    st->cancel_fired[i] = 1;
    ock__journal_append(st->journal, OCK_KIND_CANCEL, cancel_entry(c));
    if (!plan->cancel)
      plan->delay_ms += OCK_FX_CANCEL_HOLD_MS;
    plan->cancel = 1;
  }
}

/* path_api: the wire whose endpoint the path names (".../v1/chat/completions",
 * ".../v1/messages" or ".../v1/responses"), or NULL for the mock's own endpoints. */
static const struct ock_wire_ops *path_api(const char *path) {
  static const char chat[] = "/v1/chat/completions", messages[] = "/v1/messages";
  static const char responses[] = "/v1/responses";
  size_t n = strlen(path), model_len;
  if (n >= sizeof responses - 1 && !strcmp(path + n - (sizeof responses - 1), responses))
    return &ock_wire_responses;
  const char *model;
  int stream;
  if (ock__gemini_route(path, &model, &model_len, &stream) >= 0)
    return &ock_wire_gemini;
  if (n >= sizeof chat - 1 && !strcmp(path + n - (sizeof chat - 1), chat))
    return &ock_wire_openai;
  if (n >= sizeof messages - 1 && !strcmp(path + n - (sizeof messages - 1), messages))
    return &ock_wire_anthropic;
  return NULL;
}

int ock__serve_http_error(struct mock_state *st, const struct mock_request *rq, int status,
                          const char *type, const char *message, struct mock_plan *plan) {
  cJSON *e = cJSON_CreateObject();
  cJSON_AddStringToObject(e, OCK_F_HTTP_ERROR_METHOD, rq->method);
  cJSON_AddStringToObject(e, OCK_F_HTTP_ERROR_PATH, rq->path);
  cJSON_AddNumberToObject(e, OCK_F_HTTP_ERROR_STATUS, status);
  cJSON_AddStringToObject(e, OCK_F_HTTP_ERROR_MESSAGE, message);
  long long seq = ock__journal_append(st->journal, OCK_KIND_HTTP_ERROR, e);
  /* On an LLM endpoint the refusal comes in that API's envelope and error type, as the real
   * service's 404, 405 or 413 does (SPEC.md 6.6): an SDK reads its error from there. */
  const struct ock_wire_ops *w = path_api(rq->path);
  if (w) {
    char request_id[64];
    ock__id_text(request_id, "req_ock_", st->fx->hash, '_',
                 (unsigned long long[]){(unsigned long long)seq}, 1);
    struct ock_buf b;
    ock_buf_init(&b, 1 << 20);
    int rc = w->encode_error(status, message, NULL, NULL, request_id, &b);
    if (!rc)
      rc = ock__plan_bytes(plan, status, "application/json", b.data, b.len);
    ock_buf_free(&b);
    if (!rc && w == &ock_wire_anthropic)
      rc = ock__plan_header(plan, w->request_id_header, request_id);
    return rc;
  }
  cJSON *body = cJSON_CreateObject();
  cJSON *err = cJSON_AddObjectToObject(body, "error");
  cJSON_AddStringToObject(err, "type", type);
  cJSON_AddStringToObject(err, "message", message);
  return ock__plan_json(plan, status, body);
}

static int method_is(const struct mock_request *rq, const char *m) {
  return !strcmp(rq->method, m);
}

static int wrong_method(struct mock_state *st, const struct mock_request *rq, const char *allow,
                        struct mock_plan *plan) {
  char msg[200];
  snprintf(msg, sizeof msg, "%s is not allowed on %.100s; use %s", rq->method, rq->path, allow);
  int rc = ock__serve_http_error(st, rq, 405, "method_not_allowed", msg, plan);
  if (!rc)
    rc = ock__plan_header(plan, "Allow", allow);
  return rc;
}

/* first_of_api: the first provider speaking api, or NULL. */
static const struct ock_fx_provider *first_of_api(const struct ock_fixture *fx, enum ock_wire api) {
  for (size_t i = 0; i < fx->n_providers; i++)
    if (fx->providers[i].api == api)
      return &fx->providers[i];
  return NULL;
}

static int llm_route(struct mock_state *st, const struct mock_request *rq, enum ock_wire api,
                     const char *name, size_t name_len, struct mock_plan *plan) {
  char msg[300];
  const struct ock_fx_provider *p = NULL;
  if (name) {
    for (size_t i = 0; i < st->fx->n_providers && !p; i++)
      if (strlen(st->fx->providers[i].name) == name_len &&
          !strncmp(st->fx->providers[i].name, name, name_len))
        p = &st->fx->providers[i];
    if (!p) {
      snprintf(msg, sizeof msg, "no provider \"%.*s\" in this session", (int)(name_len % 100),
               name);
      return ock__serve_http_error(st, rq, 404, "not_found", msg, plan);
    }
    if (p->api != api) {
      snprintf(msg, sizeof msg, "provider \"%s\" speaks %s; its endpoint is %s", p->name,
               ock_wire_name_at(p->api),
               p->api == OCK_WIRE_OPENAI      ? "/p/NAME/v1/chat/completions"
               : p->api == OCK_WIRE_RESPONSES ? "/p/NAME/v1/responses"
               : p->api == OCK_WIRE_ANTHROPIC ? "/p/NAME/v1/messages"
                                              : "/p/NAME/v1beta/models/MODEL:generateContent");
      return ock__serve_http_error(st, rq, 404, "not_found", msg, plan);
    }
  } else {
    p = first_of_api(st->fx, api);
    if (!p) {
      snprintf(msg, sizeof msg, "this session has no %s provider", ock_wire_name_at(api));
      return ock__serve_http_error(st, rq, 404, "not_found", msg, plan);
    }
  }
  if (!method_is(rq, "POST"))
    return wrong_method(st, rq, "POST", plan);
  return ock__serve_llm(st, rq, p, plan);
}

static int journal_reply(struct mock_state *st, struct mock_plan *plan) {
  struct ock_buf b;
  ock_buf_init(&b, OCK_MAX_OWN_TEXT);
  int rc = ock__journal_array_text(st->journal, &b);
  if (!rc)
    rc = ock__plan_bytes(plan, 200, "application/json", b.data, b.len);
  ock_buf_free(&b);
  return rc;
}

int ock__route(struct mock_state *st, const struct mock_request *rq, struct mock_plan *plan) {
  const char *path = rq->path;
  const char *tool = !strncmp(path, "/ock/v1/tools/", 14) ? path + 14 : NULL;
  static const char chat[] = "/v1/chat/completions";
  static const char messages[] = "/v1/messages";
  static const char responses[] = "/v1/responses";
  if (rq->body_too_big) {
    char msg[160];
    snprintf(msg, sizeof msg, "request body larger than %zu bytes (8 MiB)", OCK_MAX_MOCK_BODY);
    return ock__serve_http_error(st, rq, 413, "request_too_large", msg, plan);
  }
  /* JSON text is UTF-8 (RFC 8259 8.1) and the real APIs refuse other bytes; so the mock
   * answers 400 and journals only where the first bad byte is, never the bytes. */
  size_t bad = ock_utf8_check(rq->body, rq->body_len);
  if (bad < rq->body_len) {
    char msg[200];
    snprintf(msg, sizeof msg,
             "the request body is not valid UTF-8: byte 0x%02X at offset %zu (JSON text must be "
             "UTF-8)",
             (unsigned char)rq->body[bad], bad);
    return ock__serve_http_error(st, rq, 400, "invalid_request_error", msg, plan);
  }
  if (!strcmp(path, "/ock/v1/session"))
    return method_is(rq, "GET") ? ock__serve_session(st, rq, plan)
                                : wrong_method(st, rq, "GET", plan);
  if (!strcmp(path, "/ock/v1/journal"))
    return method_is(rq, "GET") ? journal_reply(st, plan) : wrong_method(st, rq, "GET", plan);
  if (!strcmp(path, "/ock/v1/events"))
    return method_is(rq, "POST") ? ock__serve_event(st, rq, plan)
                                 : wrong_method(st, rq, "POST", plan);
  if (!strcmp(path, "/mcp"))
    return ock__serve_mcp(st, rq, plan);
  if (tool && *tool && !strchr(tool, '/'))
    return method_is(rq, "POST") ? ock__serve_tool(st, rq, tool, plan)
                                 : wrong_method(st, rq, "POST", plan);
  if (!strcmp(path, chat))
    return llm_route(st, rq, OCK_WIRE_OPENAI, NULL, 0, plan);
  if (!strcmp(path, messages))
    return llm_route(st, rq, OCK_WIRE_ANTHROPIC, NULL, 0, plan);
  if (!strcmp(path, responses))
    return llm_route(st, rq, OCK_WIRE_RESPONSES, NULL, 0, plan);
  const char *model;
  size_t model_len;
  int stream;
  long gemini = ock__gemini_route(path, &model, &model_len, &stream);
  if (gemini == 0)
    return llm_route(st, rq, OCK_WIRE_GEMINI, NULL, 0, plan);
  if (gemini > 3 && !strncmp(path, "/p/", 3) && !memchr(path + 3, '/', (size_t)gemini - 3))
    return llm_route(st, rq, OCK_WIRE_GEMINI, path + 3, (size_t)gemini - 3, plan);
  if (!strncmp(path, "/p/", 3)) {
    const char *name = path + 3, *slash = strchr(name, '/');
    if (slash && slash > name) {
      if (!strcmp(slash, chat))
        return llm_route(st, rq, OCK_WIRE_OPENAI, name, (size_t)(slash - name), plan);
      if (!strcmp(slash, messages))
        return llm_route(st, rq, OCK_WIRE_ANTHROPIC, name, (size_t)(slash - name), plan);
      if (!strcmp(slash, responses))
        return llm_route(st, rq, OCK_WIRE_RESPONSES, name, (size_t)(slash - name), plan);
    }
  }
  char msg[400];
  snprintf(msg, sizeof msg,
           "no endpoint at %.120s; this mock serves /ock/v1/session, /ock/v1/events, "
           "/ock/v1/tools/NAME, /mcp, /p/PROVIDER/v1/chat/completions, /p/PROVIDER/v1/messages, "
           "/p/PROVIDER/v1/responses, /p/PROVIDER/v1beta/models/MODEL:generateContent, "
           "/v1/chat/completions, /v1/messages, /v1/responses, "
           "/v1beta/models/MODEL:generateContent",
           path);
  return ock__serve_http_error(st, rq, 404, "not_found", msg, plan);
}
