/*
 * fixture.c: loads and checks a fixture (see ock/fixture.h): here the parts the mock plays,
 * in fixture_expect.c the parts the harness reads.
 *
 * The fixture is written by people. Every member is checked here, once, with the JSON path
 * in the message, so the server code that follows can trust the structs and never meets a
 * bad value at request time. Unknown members anywhere are errors, because a misspelt key would
 * otherwise turn into a default nobody asked for.
 */
#include "fixture_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ock/buf.h"
#include "ock/config.h"
#include "ock/contract.h"
#include "ock/status.h"

uint32_t ock_fnv1a(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s; s++) {
    h ^= (unsigned char)*s;
    h *= 16777619u;
  }
  return h;
}

const char *ock_fx_fault_kind_name(enum ock_fx_fault_kind kind) {
  switch (kind) {
  case OCK_FX_FAULT_STATUS:
    return "status";
  case OCK_FX_FAULT_CUT_STREAM:
    return "cut_stream";
  case OCK_FX_FAULT_ERROR_MID_STREAM:
    return "error_mid_stream";
  case OCK_FX_FAULT_DROP_CONNECTION:
    return "drop_connection";
  case OCK_FX_FAULT_MALFORMED_CHUNK:
    return "malformed_chunk";
  case OCK_FX_FAULT_NONE:
    break;
  }
  return "none";
}

/* is_name_safe: provider and tool names appear in URL paths, so they stay plain
 * (^[A-Za-z0-9_-]{1,64}$, SPEC 7.3). */
static int is_name_safe(const char *s) {
  size_t n = 0;
  for (; *s; s++, n++) {
    unsigned char c = (unsigned char)*s;
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
          c == '-'))
      return 0;
  }
  return n >= 1 && n <= 64;
}

/* is_id_safe: a scenario id is ^[a-z0-9][a-z0-9-]{0,63}$ (SPEC 8.1). */
static int is_id_safe(const char *s) {
  size_t n = 0;
  for (; s[n]; n++) {
    unsigned char c = (unsigned char)s[n];
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (c == '-' && n > 0)))
      return 0;
  }
  return n >= 1 && n <= 64;
}

static int get_safe_name(const cJSON *obj, const char *path, const char *key, const char **out,
                         struct ock_jerr *err) {
  const char *s = NULL;
  TRY(ock_jget_nonempty(obj, path, key, OCK_REQUIRED, &s, err));
  if (!is_name_safe(s)) {
    char mp[OCK_JSON_PATH_MAX];
    ock_jpath_key(mp, sizeof mp, path, key);
    return ock_jerr_set(err, OCK_EINVAL, mp,
                        "expected 1 to 64 letters, digits, '_' or '-' (it is part of a URL), "
                        "got \"%.80s\"",
                        s);
  }
  *out = s;
  return OCK_OK;
}

/* ---- session ---------------------------------------------------------------------------- */

static int load_providers(struct ock_fixture *f, const cJSON *arr, const char *path,
                          struct ock_jerr *err) {
  static const char *const keys[] = {"name", "api", "model", "priority", NULL};
  static const char *const apis[] = {"openai", "anthropic", "responses", "gemini", NULL};
  int n = cJSON_GetArraySize(arr);
  if (n == 0)
    return OCK_OK;
  f->providers = calloc((size_t)n, sizeof *f->providers);
  if (!f->providers)
    return OCK_ENOMEM;
  const cJSON *p = arr->child; /* walked along, not indexed: cJSON arrays are lists */
  for (int i = 0; i < n; i++, p = p->next) {
    struct ock_fx_provider *mp = &f->providers[i];
    char pp[OCK_JSON_PATH_MAX];
    ock_jpath_index(pp, sizeof pp, path, i);
    TRY(ock_jcheck_object(p, pp, err));
    TRY(ock_jcheck_keys(p, pp, keys, err));
    TRY(get_safe_name(p, pp, "name", &mp->name, err));
    int api = -1;
    /* without api a scenario is wire-less (SPEC.md 8.2): alone, the mock plays it on openai */
    TRY(ock_jget_enum(p, pp, "api", OCK_OPTIONAL, apis, &api, err));
    mp->wireless = api < 0;
    api = api < 0 ? OCK_WIRE_OPENAI : api;
    mp->api = (enum ock_wire)api;
    TRY(ock_jget_nonempty(p, pp, "model", OCK_REQUIRED, &mp->model, err));
    mp->priority = 100;
    TRY(ock_jget_int(p, pp, "priority", OCK_OPTIONAL, -1000000, 1000000, &mp->priority, err));
    for (int j = 0; j < i; j++) {
      if (!strcmp(f->providers[j].name, mp->name)) {
        char np[OCK_JSON_PATH_MAX];
        ock_jpath_key(np, sizeof np, pp, "name");
        return ock_jerr_set(err, OCK_EINVAL, np, "\"%s\" is already the name of providers[%d]",
                            mp->name, j);
      }
    }
    f->n_providers++;
  }
  return OCK_OK;
}

static int load_session_tools(struct ock_fixture *f, const cJSON *arr, const char *path,
                              struct ock_jerr *err) {
  static const char *const keys[] = {"name", "description", "input_schema", NULL};
  int n = cJSON_GetArraySize(arr);
  if (n == 0)
    return OCK_OK;
  f->tools = calloc((size_t)n, sizeof *f->tools);
  if (!f->tools)
    return OCK_ENOMEM;
  const cJSON *t = arr->child;
  for (int i = 0; i < n; i++, t = t->next) {
    struct ock_fx_tool *mt = &f->tools[i];
    char tp[OCK_JSON_PATH_MAX];
    ock_jpath_index(tp, sizeof tp, path, i);
    TRY(ock_jcheck_object(t, tp, err));
    TRY(ock_jcheck_keys(t, tp, keys, err));
    TRY(get_safe_name(t, tp, "name", &mt->name, err));
    const char *desc = NULL;
    const cJSON *schema = NULL;
    TRY(ock_jget_string(t, tp, "description", OCK_OPTIONAL, &desc, err));
    TRY(ock_jget_object(t, tp, "input_schema", OCK_OPTIONAL, &schema, err));
    for (size_t j = 0; j < f->n_tools; j++) {
      if (!strcmp(f->tools[j].name, mt->name)) {
        char np[OCK_JSON_PATH_MAX];
        ock_jpath_key(np, sizeof np, tp, "name");
        return ock_jerr_set(err, OCK_EINVAL, np, "\"%s\" is already the name of tools[%zu]",
                            mt->name, j);
      }
    }
    mt->dflt.status = 200;
    f->n_tools++;
  }
  return OCK_OK;
}

static int load_session(struct ock_fixture *f, struct ock_jerr *err) {
  static const char *const keys[] = {"prompts", "config", "providers", "tools", "trace_id", NULL};
  const char *path = "$.session";
  const cJSON *s = NULL, *prompts = NULL, *cfg = NULL, *providers = NULL, *tools = NULL;
  TRY(ock_jget_object(f->json, "$", "session", OCK_REQUIRED, &s, err));
  f->session = s;
  TRY(ock_jcheck_keys(s, path, keys, err));
  TRY(ock_jget_array(s, path, "prompts", OCK_REQUIRED, &prompts, err));
  int i = 0;
  const cJSON *p;
  cJSON_ArrayForEach(p, prompts) {
    if (!cJSON_IsString(p)) {
      char pp[OCK_JSON_PATH_MAX];
      ock_jpath_index(pp, sizeof pp, "$.session.prompts", i);
      return ock_jerr_set(err, OCK_ETYPE, pp, "expected a string, got %s", ock_json_type_name(p));
    }
    i++;
  }
  /* The config over the registry's defaults, by the one reader the harness and the reference
   * share (ock/config.h): what GET /ock/v1/session serves. */
  TRY(ock_jget_object(s, path, "config", OCK_OPTIONAL, &cfg, err));
  ock_config_default(&f->config);
  TRY(ock_config_read(cfg, "$.session.config", OCK_CONFIG_FIXTURE, &f->config, err));
  TRY(ock_jget_array(s, path, "providers", OCK_OPTIONAL, &providers, err));
  if (providers)
    TRY(load_providers(f, providers, "$.session.providers", err));
  TRY(ock_jget_array(s, path, "tools", OCK_OPTIONAL, &tools, err));
  if (tools)
    TRY(load_session_tools(f, tools, "$.session.tools", err));
  const char *trace = NULL;
  TRY(ock_jget_nonempty(s, path, "trace_id", OCK_OPTIONAL, &trace, err));
  if (trace) {
    f->trace_id = trace;
  } else {
    snprintf(f->trace_buf, sizeof f->trace_buf, "ock-%08x", (unsigned)f->hash);
    f->trace_id = f->trace_buf;
  }
  return OCK_OK;
}

/* ---- faults ----------------------------------------------------------------------------- */

static int load_fault(const cJSON *o, const char *path, struct ock_fx_fault *out,
                      struct ock_jerr *err) {
  static const char *const kinds[] = {"status",          "cut_stream",      "error_mid_stream",
                                      "drop_connection", "malformed_chunk", NULL};
  static const char *const status_keys[] = {"kind",           "status",  "retry_after",
                                            "retry_after_ms", "message", NULL};
  static const char *const chunk_keys[] = {"kind", "after_chunks", NULL};
  static const char *const error_keys[] = {"kind", "after_chunks", "status", "message", NULL};
  static const char *const drop_keys[] = {"kind", "after_bytes", NULL};
  struct ock_fx_fault f = {.kind = OCK_FX_FAULT_STATUS, .retry_after = -1, .retry_after_ms = -1};
  TRY(ock_jcheck_object(o, path, err));
  int kind = 0;
  TRY(ock_jget_enum(o, path, "kind", OCK_OPTIONAL, kinds, &kind, err));
  f.kind = (enum ock_fx_fault_kind)(kind + OCK_FX_FAULT_STATUS);
  long long n = 0;
  switch (f.kind) {
  case OCK_FX_FAULT_STATUS:
    TRY(ock_jcheck_keys(o, path, status_keys, err));
    TRY(ock_jget_int(o, path, "status", OCK_REQUIRED, 400, 599, &n, err));
    f.status = (int)n;
    TRY(ock_jget_number(o, path, "retry_after", OCK_OPTIONAL, 0, 86400, &f.retry_after, err));
    TRY(ock_jget_int(o, path, "retry_after_ms", OCK_OPTIONAL, 0, 86400000, &f.retry_after_ms, err));
    TRY(ock_jget_string(o, path, "message", OCK_OPTIONAL, &f.message, err));
    break;
  case OCK_FX_FAULT_ERROR_MID_STREAM:
    TRY(ock_jcheck_keys(o, path, error_keys, err));
    TRY(ock_jget_int(o, path, "after_chunks", OCK_REQUIRED, 0, 1000000, &f.after, err));
    n = 0;
    TRY(ock_jget_int(o, path, "status", OCK_OPTIONAL, 400, 599, &n, err));
    f.status = (int)n;
    TRY(ock_jget_string(o, path, "message", OCK_OPTIONAL, &f.message, err));
    break;
  case OCK_FX_FAULT_CUT_STREAM:
  case OCK_FX_FAULT_MALFORMED_CHUNK:
    TRY(ock_jcheck_keys(o, path, chunk_keys, err));
    TRY(ock_jget_int(o, path, "after_chunks", OCK_REQUIRED, 0, 1000000, &f.after, err));
    break;
  case OCK_FX_FAULT_DROP_CONNECTION:
    TRY(ock_jcheck_keys(o, path, drop_keys, err));
    TRY(ock_jget_int(o, path, "after_bytes", OCK_REQUIRED, 0, 1LL << 40, &f.after, err));
    break;
  case OCK_FX_FAULT_NONE:
    break;
  }
  *out = f;
  return OCK_OK;
}

/* ---- script ----------------------------------------------------------------------------- */

static int load_match(const cJSON *o, const char *path, struct ock_fx_turn *t,
                      struct ock_jerr *err) {
  static const char *const keys[] = {"position", "last_message_contains", "last_tool_call_id",
                                     NULL};
  TRY(ock_jcheck_object(o, path, err));
  TRY(ock_jcheck_keys(o, path, keys, err));
  if (cJSON_GetArraySize(o) != 1)
    return ock_jerr_set(err, OCK_EINVAL, path,
                        "expected exactly one of position, last_message_contains, "
                        "last_tool_call_id");
  if (cJSON_GetObjectItemCaseSensitive(o, "position")) {
    t->match = OCK_FX_MATCH_POSITION;
    return ock_jget_int(o, path, "position", OCK_REQUIRED, 1, 1000000000, &t->position, err);
  }
  if (cJSON_GetObjectItemCaseSensitive(o, "last_message_contains")) {
    t->match = OCK_FX_MATCH_LAST_CONTAINS;
    return ock_jget_string(o, path, "last_message_contains", OCK_REQUIRED, &t->match_text, err);
  }
  t->match = OCK_FX_MATCH_LAST_TOOL_CALL_ID;
  return ock_jget_nonempty(o, path, "last_tool_call_id", OCK_REQUIRED, &t->match_text, err);
}

static int load_calls(const cJSON *arr, const char *path, struct ock_fx_turn *t,
                      struct ock_jerr *err) {
  static const char *const keys[] = {"name", "arguments", "arguments_raw", NULL};
  int n = cJSON_GetArraySize(arr);
  if (n == 0)
    return OCK_OK;
  t->calls = calloc((size_t)n, sizeof *t->calls);
  if (!t->calls)
    return OCK_ENOMEM;
  const cJSON *c = arr->child;
  for (int i = 0; i < n; i++, c = c->next) {
    struct ock_fx_call *mc = &t->calls[i];
    char cp[OCK_JSON_PATH_MAX];
    ock_jpath_index(cp, sizeof cp, path, i);
    TRY(ock_jcheck_object(c, cp, err));
    TRY(ock_jcheck_keys(c, cp, keys, err));
    t->n_calls++; /* counted now so ock_fixture_free frees what follows */
    TRY(ock_jget_nonempty(c, cp, "name", OCK_REQUIRED, &mc->name, err));
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(c, "arguments");
    const char *raw = NULL;
    TRY(ock_jget_string(c, cp, "arguments_raw", OCK_OPTIONAL, &raw, err));
    if (args && raw)
      return ock_jerr_set(err, OCK_EINVAL, cp, "give arguments or arguments_raw, not both");
    if (args) {
      char ap[OCK_JSON_PATH_MAX];
      ock_jpath_key(ap, sizeof ap, cp, "arguments");
      TRY(ock_jcheck_object(args, ap, err));
      mc->arguments = ock_json_print(args);
    } else {
      mc->arguments = strdup(raw ? raw : "{}");
      mc->raw = raw != NULL;
    }
    if (!mc->arguments)
      return OCK_ENOMEM;
  }
  return OCK_OK;
}

/* load_stop_sequence: Anthropic names the sequence it stopped on in "stop_sequence"; a turn
 * that stops on one says which, and "stop_reason" "stop_sequence" goes with it. */
static int load_stop_sequence(const cJSON *o, const char *path, enum ock_wire api,
                              struct ock_fx_turn *t, struct ock_jerr *err) {
  char sub[OCK_JSON_PATH_MAX];
  ock_jpath_key(sub, sizeof sub, path, "stop_sequence");
  int has = cJSON_GetObjectItemCaseSensitive(o, "stop_sequence") != NULL;
  if (has && api != OCK_WIRE_ANTHROPIC)
    return ock_jerr_set(err, OCK_EINVAL, sub,
                        "stop_sequence is an Anthropic field; this "
                        "provider speaks %s",
                        ock_wire_name_at(api));
  if (has)
    TRY(ock_jget_nonempty(o, path, "stop_sequence", OCK_REQUIRED, &t->stop_sequence, err));
  if (has && t->finish && strcmp(t->finish, "stop_sequence"))
    return ock_jerr_set(err, OCK_EINVAL, sub,
                        "a stop_sequence goes with stop_reason "
                        "\"stop_sequence\", not \"%s\"",
                        t->finish);
  if (has)
    t->finish = "stop_sequence";
  if (!has && t->finish && !strcmp(t->finish, "stop_sequence")) {
    ock_jpath_key(sub, sizeof sub, path, "stop_reason");
    return ock_jerr_set(err, OCK_EMISSING, sub,
                        "stop_reason \"stop_sequence\" needs "
                        "\"stop_sequence\": the sequence the reply stopped on");
  }
  return OCK_OK;
}

/* load_token_limit: "token_limit": true, a wire-less way to say the reply stopped at the output
 * token limit; each wire gets its own reason for it (SPEC.md 8.3). */
static int load_token_limit(const cJSON *o, const char *path, enum ock_wire api,
                            struct ock_fx_turn *t, struct ock_jerr *err) {
  int on = 0;
  TRY(ock_jget_bool(o, path, "token_limit", OCK_OPTIONAL, &on, err));
  if (!on)
    return OCK_OK;
  if (t->finish) {
    char sub[OCK_JSON_PATH_MAX];
    ock_jpath_key(sub, sizeof sub, path, "token_limit");
    return ock_jerr_set(err, OCK_EINVAL, sub,
                        "token_limit names the finish itself; give it or \"%s\", not both",
                        api == OCK_WIRE_ANTHROPIC ? "stop_reason" : "finish_reason");
  }
  t->finish = api == OCK_WIRE_ANTHROPIC   ? "max_tokens"
              : api == OCK_WIRE_RESPONSES ? "max_output_tokens"
              : api == OCK_WIRE_GEMINI    ? "MAX_TOKENS"
                                          : "length";
  return OCK_OK;
}

static int load_turn(const cJSON *o, const char *path, enum ock_wire api, struct ock_fx_turn *t,
                     struct ock_jerr *err) {
  static const char *const keys[] = {
      "match",          "text",     "tool_calls", "finish_reason", "stop_reason", "chunk_size",
      "chunk_delay_ms", "delay_ms", "fault",      "stop_sequence", "token_limit", NULL};
  static const char *const finishes[] = {"stop", "length", "tool_calls", "content_filter", NULL};
  static const char *const gemini_finishes[] = {
      "STOP", "MAX_TOKENS", "SAFETY", "RECITATION", "MALFORMED_FUNCTION_CALL", "OTHER", NULL};
  static const char *const stops[] = {"end_turn",
                                      "max_tokens",
                                      "stop_sequence",
                                      "tool_use",
                                      "pause_turn",
                                      "refusal",
                                      "model_context_window_exceeded",
                                      NULL};
  char sub[OCK_JSON_PATH_MAX];
  t->chunk_size = 8;
  TRY(ock_jcheck_object(o, path, err));
  TRY(ock_jcheck_keys(o, path, keys, err));
  const cJSON *match = cJSON_GetObjectItemCaseSensitive(o, "match");
  if (match) {
    ock_jpath_key(sub, sizeof sub, path, "match");
    TRY(load_match(match, sub, t, err));
  }
  TRY(ock_jget_string(o, path, "text", OCK_OPTIONAL, &t->text, err));
  const cJSON *calls = NULL;
  TRY(ock_jget_array(o, path, "tool_calls", OCK_OPTIONAL, &calls, err));
  if (calls) {
    ock_jpath_key(sub, sizeof sub, path, "tool_calls");
    TRY(load_calls(calls, sub, t, err));
  }
  /* the Responses API's finish is its status, or the reason it is incomplete */
  static const char *const statuses[] = {"completed", "max_output_tokens", "content_filter", NULL};
  const char *key = api == OCK_WIRE_ANTHROPIC ? "stop_reason" : "finish_reason";
  const char *other = api == OCK_WIRE_ANTHROPIC ? "finish_reason" : "stop_reason";
  if (cJSON_GetObjectItemCaseSensitive(o, other)) {
    ock_jpath_key(sub, sizeof sub, path, other);
    return ock_jerr_set(err, OCK_EINVAL, sub, "this provider speaks %s; use \"%s\"",
                        ock_wire_name_at(api), key);
  }
  int e = 0;
  const char *const *choices = api == OCK_WIRE_OPENAI      ? finishes
                               : api == OCK_WIRE_GEMINI    ? gemini_finishes
                               : api == OCK_WIRE_RESPONSES ? statuses
                                                           : stops;
  if (cJSON_GetObjectItemCaseSensitive(o, key)) {
    TRY(ock_jget_enum(o, path, key, OCK_REQUIRED, choices, &e, err));
    t->finish = choices[e];
  }
  TRY(load_stop_sequence(o, path, api, t, err));
  TRY(load_token_limit(o, path, api, t, err));
  TRY(ock_jget_int(o, path, "chunk_size", OCK_OPTIONAL, 1, 1000000, &t->chunk_size, err));
  TRY(ock_jget_int(o, path, "chunk_delay_ms", OCK_OPTIONAL, 0, 600000, &t->chunk_delay_ms, err));
  TRY(ock_jget_int(o, path, "delay_ms", OCK_OPTIONAL, 0, 600000, &t->delay_ms, err));
  const cJSON *fault = cJSON_GetObjectItemCaseSensitive(o, "fault");
  if (fault) {
    ock_jpath_key(sub, sizeof sub, path, "fault");
    TRY(load_fault(fault, sub, &t->fault, err));
  }
  return OCK_OK;
}

static int load_script(struct ock_fixture *f, struct ock_jerr *err) {
  const cJSON *script = NULL;
  TRY(ock_jget_object(f->json, "$", "script", OCK_OPTIONAL, &script, err));
  if (!script)
    return OCK_OK;
  const cJSON *turns;
  cJSON_ArrayForEach(turns, script) {
    char sp[OCK_JSON_PATH_MAX];
    ock_jpath_key(sp, sizeof sp, "$.script", turns->string);
    struct ock_fx_provider *p = NULL;
    for (size_t i = 0; i < f->n_providers && !p; i++)
      if (!strcmp(f->providers[i].name, turns->string))
        p = &f->providers[i];
    if (!p)
      return ock_jerr_set(err, OCK_EINVAL, sp, "no provider of that name in $.session.providers");
    if (!cJSON_IsArray(turns))
      return ock_jerr_set(err, OCK_ETYPE, sp, "expected an array of turns, got %s",
                          ock_json_type_name(turns));
    int n = cJSON_GetArraySize(turns);
    if (n == 0)
      continue;
    p->turns = calloc((size_t)n, sizeof *p->turns);
    if (!p->turns)
      return OCK_ENOMEM;
    const cJSON *turn = turns->child;
    for (int i = 0; i < n; i++, turn = turn->next) {
      char tp[OCK_JSON_PATH_MAX];
      ock_jpath_index(tp, sizeof tp, sp, i);
      p->n_turns++;
      TRY(load_turn(turn, tp, p->api, &p->turns[i], err));
    }
  }
  return OCK_OK;
}

/* ---- tools, hooks, cancel, random faults ------------------------------------------------ */

static int load_tool_reply(const cJSON *o, const char *path, struct ock_fx_tool_reply *r,
                           struct ock_jerr *err) {
  long long st = r->status;
  TRY(ock_jget_object(o, path, "result", OCK_OPTIONAL, &r->result, err));
  TRY(ock_jget_int(o, path, "delay_ms", OCK_OPTIONAL, 0, 600000, &r->delay_ms, err));
  TRY(ock_jget_int(o, path, "status", OCK_OPTIONAL, 200, 599, &st, err));
  r->status = (int)st;
  return OCK_OK;
}

static int load_tools(struct ock_fixture *f, struct ock_jerr *err) {
  static const char *const keys[] = {"result", "delay_ms", "status", "calls", NULL};
  static const char *const call_keys[] = {"result", "delay_ms", "status", NULL};
  const cJSON *tools = NULL;
  TRY(ock_jget_object(f->json, "$", "tools", OCK_OPTIONAL, &tools, err));
  if (!tools)
    return OCK_OK;
  const cJSON *t;
  cJSON_ArrayForEach(t, tools) {
    char tp[OCK_JSON_PATH_MAX];
    ock_jpath_key(tp, sizeof tp, "$.tools", t->string);
    struct ock_fx_tool *mt = NULL;
    for (size_t i = 0; i < f->n_tools && !mt; i++)
      if (!strcmp(f->tools[i].name, t->string))
        mt = &f->tools[i];
    if (!mt)
      return ock_jerr_set(err, OCK_EINVAL, tp,
                          "no tool of that name in $.session.tools (a tool the session does not "
                          "list always gets 404)");
    TRY(ock_jcheck_object(t, tp, err));
    TRY(ock_jcheck_keys(t, tp, keys, err));
    mt->scripted = 1;
    TRY(load_tool_reply(t, tp, &mt->dflt, err));
    const cJSON *calls = NULL;
    TRY(ock_jget_array(t, tp, "calls", OCK_OPTIONAL, &calls, err));
    int n = calls ? cJSON_GetArraySize(calls) : 0;
    if (n == 0)
      continue;
    mt->calls = calloc((size_t)n, sizeof *mt->calls);
    if (!mt->calls)
      return OCK_ENOMEM;
    const cJSON *c = calls->child;
    for (int i = 0; i < n; i++, c = c->next) {
      char cp[OCK_JSON_PATH_MAX], ap[OCK_JSON_PATH_MAX];
      ock_jpath_key(ap, sizeof ap, tp, "calls");
      ock_jpath_index(cp, sizeof cp, ap, i);
      TRY(ock_jcheck_object(c, cp, err));
      TRY(ock_jcheck_keys(c, cp, call_keys, err));
      mt->calls[i] = mt->dflt; /* a call entry inherits what it does not say */
      TRY(load_tool_reply(c, cp, &mt->calls[i], err));
      mt->n_calls++;
    }
  }
  return OCK_OK;
}

static int load_hook_reply(const cJSON *o, const char *path, struct ock_jerr *err) {
  static const char *const keys[] = {
      "action", "reason", "data", "context_injection", "context_injection_role", "ephemeral", NULL};
  static const char *const actions[] = {"continue",       "deny",     "modify",
                                        "inject_context", "ask_user", NULL};
  static const char *const roles[] = {"system", "user", "assistant", NULL};
  int e = 0, b = 0;
  const char *s = NULL;
  const cJSON *d = NULL;
  TRY(ock_jcheck_object(o, path, err));
  TRY(ock_jcheck_keys(o, path, keys, err));
  TRY(ock_jget_enum(o, path, "action", OCK_REQUIRED, actions, &e, err));
  TRY(ock_jget_string(o, path, "reason", OCK_OPTIONAL, &s, err));
  TRY(ock_jget_object(o, path, "data", OCK_OPTIONAL, &d, err));
  TRY(ock_jget_string(o, path, "context_injection", OCK_OPTIONAL, &s, err));
  TRY(ock_jget_enum(o, path, "context_injection_role", OCK_OPTIONAL, roles, &e, err));
  TRY(ock_jget_bool(o, path, "ephemeral", OCK_OPTIONAL, &b, err));
  return OCK_OK;
}

static int load_hooks(struct ock_fixture *f, struct ock_jerr *err) {
  static const char *const keys[] = {"event", "occurrence", "match", "reply", NULL};
  const cJSON *hooks = NULL;
  TRY(ock_jget_array(f->json, "$", "hooks", OCK_OPTIONAL, &hooks, err));
  int n = hooks ? cJSON_GetArraySize(hooks) : 0;
  if (n == 0)
    return OCK_OK;
  f->hooks = calloc((size_t)n, sizeof *f->hooks);
  if (!f->hooks)
    return OCK_ENOMEM;
  const cJSON *h = hooks->child;
  for (int i = 0; i < n; i++, h = h->next) {
    struct ock_fx_hook *mh = &f->hooks[i];
    char hp[OCK_JSON_PATH_MAX], rp[OCK_JSON_PATH_MAX];
    ock_jpath_index(hp, sizeof hp, "$.hooks", i);
    TRY(ock_jcheck_object(h, hp, err));
    TRY(ock_jcheck_keys(h, hp, keys, err));
    TRY(ock_jget_nonempty(h, hp, "event", OCK_REQUIRED, &mh->event, err));
    TRY(ock_jget_int(h, hp, "occurrence", OCK_OPTIONAL, 1, 1000000000, &mh->occurrence, err));
    TRY(ock_jget_object(h, hp, "match", OCK_OPTIONAL, &mh->match, err));
    TRY(ock_jget_object(h, hp, "reply", OCK_REQUIRED, &mh->reply, err));
    ock_jpath_key(rp, sizeof rp, hp, "reply");
    TRY(load_hook_reply(mh->reply, rp, err));
    f->n_hooks++;
  }
  return OCK_OK;
}

static int load_trigger(const cJSON *c, const char *path, struct ock_fx_cancel *out,
                        struct ock_jerr *err) {
  static const char *const ats[] = {"tool", OCK_KIND_LLM_REQUEST, "event", "after_execute", NULL};
  static const char *const tool_keys[] = {"at", "tool", "occurrence", NULL};
  static const char *const index_keys[] = {"at", "index", NULL};
  static const char *const event_keys[] = {"at", "event", "occurrence", NULL};
  TRY(ock_jcheck_object(c, path, err));
  int at = 0;
  TRY(ock_jget_enum(c, path, "at", OCK_REQUIRED, ats, &at, err));
  struct ock_fx_cancel mc = {.at = (enum ock_fx_cancel_at)(at + OCK_FX_CANCEL_TOOL), .n = 1};
  switch (mc.at) {
  case OCK_FX_CANCEL_TOOL:
    TRY(ock_jcheck_keys(c, path, tool_keys, err));
    TRY(ock_jget_nonempty(c, path, "tool", OCK_REQUIRED, &mc.name, err));
    TRY(ock_jget_int(c, path, "occurrence", OCK_OPTIONAL, 1, 1000000000, &mc.n, err));
    break;
  case OCK_FX_CANCEL_EVENT:
    TRY(ock_jcheck_keys(c, path, event_keys, err));
    TRY(ock_jget_nonempty(c, path, "event", OCK_REQUIRED, &mc.name, err));
    TRY(ock_jget_int(c, path, "occurrence", OCK_OPTIONAL, 1, 1000000000, &mc.n, err));
    break;
  default:
    TRY(ock_jcheck_keys(c, path, index_keys, err));
    TRY(ock_jget_int(c, path, "index", OCK_REQUIRED, 1, 1000000000, &mc.n, err));
    if (mc.at == OCK_FX_CANCEL_AFTER_EXECUTE)
      mc.name = OCK_EV_ORCHESTRATOR_COMPLETE;
    break;
  }
  *out = mc;
  return OCK_OK;
}

static int load_cancel(struct ock_fixture *f, struct ock_jerr *err) {
  const cJSON *c = cJSON_GetObjectItemCaseSensitive(f->json, "cancel");
  if (!c)
    return OCK_OK;
  if (!cJSON_IsObject(c) && !cJSON_IsArray(c))
    return ock_jerr_set(err, OCK_ETYPE, "$.cancel",
                        "expected a trigger object or an array of them, got %s",
                        ock_json_type_name(c));
  int n = cJSON_IsArray(c) ? cJSON_GetArraySize(c) : 1;
  if (n == 0)
    return OCK_OK;
  f->cancels = calloc((size_t)n, sizeof *f->cancels);
  if (!f->cancels)
    return OCK_ENOMEM;
  const cJSON *trigger = cJSON_IsArray(c) ? c->child : c;
  for (int i = 0; i < n; i++, trigger = trigger->next) {
    char tp[OCK_JSON_PATH_MAX];
    if (cJSON_IsArray(c))
      ock_jpath_index(tp, sizeof tp, "$.cancel", i);
    else
      snprintf(tp, sizeof tp, "$.cancel");
    TRY(load_trigger(trigger, tp, &f->cancels[i], err));
    f->n_cancels++;
  }
  return OCK_OK;
}

static int load_randoms(struct ock_fixture *f, struct ock_jerr *err) {
  static const char *const ons[] = {"llm", "tool", NULL};
  static const char *const llm_keys[] = {"on", "provider", "probability", "fault", NULL};
  static const char *const tool_keys[] = {"on", "tool", "probability", "status", NULL};
  const cJSON *arr = NULL;
  TRY(ock_jget_array(f->json, "$", "random_faults", OCK_OPTIONAL, &arr, err));
  int n = arr ? cJSON_GetArraySize(arr) : 0;
  if (n == 0)
    return OCK_OK;
  f->randoms = calloc((size_t)n, sizeof *f->randoms);
  if (!f->randoms)
    return OCK_ENOMEM;
  const cJSON *r = arr->child;
  for (int i = 0; i < n; i++, r = r->next) {
    struct ock_fx_random *mr = &f->randoms[i];
    char rp[OCK_JSON_PATH_MAX], sub[OCK_JSON_PATH_MAX];
    ock_jpath_index(rp, sizeof rp, "$.random_faults", i);
    TRY(ock_jcheck_object(r, rp, err));
    int on = 0;
    TRY(ock_jget_enum(r, rp, "on", OCK_REQUIRED, ons, &on, err));
    mr->on = (enum ock_fx_random_on)on;
    TRY(ock_jget_number(r, rp, "probability", OCK_REQUIRED, 0, 1, &mr->probability, err));
    if (mr->on == OCK_FX_RANDOM_LLM) {
      TRY(ock_jcheck_keys(r, rp, llm_keys, err));
      TRY(ock_jget_nonempty(r, rp, "provider", OCK_OPTIONAL, &mr->target, err));
      if (mr->target && !ock_fixture_provider(f, mr->target)) {
        ock_jpath_key(sub, sizeof sub, rp, "provider");
        return ock_jerr_set(err, OCK_EINVAL, sub, "no provider \"%s\" in $.session.providers",
                            mr->target);
      }
      const cJSON *fault = NULL;
      TRY(ock_jget_object(r, rp, "fault", OCK_REQUIRED, &fault, err));
      ock_jpath_key(sub, sizeof sub, rp, "fault");
      TRY(load_fault(fault, sub, &mr->fault, err));
    } else {
      long long st = 500;
      TRY(ock_jcheck_keys(r, rp, tool_keys, err));
      TRY(ock_jget_nonempty(r, rp, "tool", OCK_OPTIONAL, &mr->target, err));
      if (mr->target && !ock_fixture_tool(f, mr->target)) {
        ock_jpath_key(sub, sizeof sub, rp, "tool");
        return ock_jerr_set(err, OCK_EINVAL, sub, "no tool \"%s\" in $.session.tools", mr->target);
      }
      TRY(ock_jget_int(r, rp, "status", OCK_OPTIONAL, 400, 599, &st, err));
      mr->status = (int)st;
    }
    f->n_randoms++;
  }
  return OCK_OK;
}

static int load_all(struct ock_fixture *f, const ock_registry *reg, struct ock_jerr *err) {
  static const char *const keys[] = {
      "ock_fixture",   "id",      "title", "proves", "requirements", "capabilities", "session",
      "script",        "tools",   "hooks", "cancel", "observe_only", "seed",         "expect",
      "random_faults", "aliases", NULL};
  TRY(ock_jcheck_object(f->json, "$", err));
  TRY(ock_jcheck_keys(f->json, "$", keys, err));
  long long version = 0;
  TRY(ock_jget_int(f->json, "$", "ock_fixture", OCK_REQUIRED, 1, 1, &version, err));
  TRY(ock_jget_nonempty(f->json, "$", "id", OCK_REQUIRED, &f->id, err));
  if (strchr(f->id, '@'))
    return ock_jerr_set(
        err, OCK_ETYPE, "$.id",
        "\"%.60s\" holds \"@\", which marks the wire of a scenario played on several "
        "(\"<id>@<wire>\"): expected an id without it",
        f->id);
  if (!is_id_safe(f->id))
    return ock_jerr_set(err, OCK_EINVAL, "$.id",
                        "expected 1 to 64 lower-case letters, digits or '-' (not first), got "
                        "\"%.80s\"",
                        f->id);
  f->hash = ock_fnv1a(f->id);
  TRY(ock__fixture_load_scenario(f, reg, err));
  TRY(load_session(f, err));
  TRY(load_script(f, err));
  TRY(load_tools(f, err));
  TRY(load_hooks(f, err));
  TRY(load_cancel(f, err));
  TRY(load_randoms(f, err));
  TRY(ock_jget_bool(f->json, "$", "observe_only", OCK_OPTIONAL, &f->observe_only, err));
  long long seed = 0;
  TRY(ock_jget_int(f->json, "$", "seed", OCK_OPTIONAL, 0, 9007199254740991LL, &seed, err));
  f->seed = (unsigned long long)seed;
  return OCK_OK;
}

int ock_fixture_load(const cJSON *json, const ock_registry *reg, struct ock_fixture **out,
                     struct ock_jerr *err) {
  struct ock_fixture *f = calloc(1, sizeof *f);
  if (!f)
    return OCK_ENOMEM;
  f->json = cJSON_Duplicate(json, 1);
  if (!f->json) {
    free(f);
    return json ? OCK_ENOMEM : ock_jerr_set(err, OCK_EINVAL, "$", "no fixture given");
  }
  int rc = load_all(f, reg, err);
  if (rc) {
    if (rc == OCK_ENOMEM)
      ock_jerr_set(err, rc, "$", "out of memory while loading the fixture");
    ock_fixture_free(f);
    return rc;
  }
  *out = f;
  return OCK_OK;
}

void ock_fixture_free(struct ock_fixture *f) {
  if (!f)
    return;
  for (size_t i = 0; i < f->n_providers; i++) {
    struct ock_fx_provider *p = &f->providers[i];
    for (size_t t = 0; t < p->n_turns; t++) {
      for (size_t c = 0; c < p->turns[t].n_calls; c++)
        free(p->turns[t].calls[c].arguments);
      free(p->turns[t].calls);
    }
    free(p->turns);
  }
  free(f->providers);
  for (size_t i = 0; i < f->n_tools; i++)
    free(f->tools[i].calls);
  free(f->tools);
  free(f->hooks);
  free(f->cancels);
  free(f->randoms);
  ock__fixture_free_scenario(f);
  cJSON_Delete(f->json);
  free(f);
}

const struct ock_fx_provider *ock_fixture_provider(const struct ock_fixture *f, const char *name) {
  for (size_t i = 0; i < f->n_providers; i++)
    if (!strcmp(f->providers[i].name, name))
      return &f->providers[i];
  return NULL;
}

const struct ock_fx_tool *ock_fixture_tool(const struct ock_fixture *f, const char *name) {
  for (size_t i = 0; i < f->n_tools; i++)
    if (!strcmp(f->tools[i].name, name))
      return &f->tools[i];
  return NULL;
}
