/*
 * session.c: reading the ock/1 session document (see session.h).
 */
#include "session.h"

#include <stdlib.h>
#include <string.h>

#include "ock/status.h"

void ock__session_free(struct ock__session *s) {
  if (!s)
    return;
  free(s->scenario);
  free(s->trace_id);
  for (size_t i = 0; i < s->n_prompts; i++)
    free(s->prompts[i]);
  free(s->prompts);
  for (size_t i = 0; i < s->n_providers; i++) {
    free(s->providers[i].name);
    free(s->providers[i].base_url);
    free(s->providers[i].model);
  }
  free(s->providers);
  for (size_t i = 0; i < s->n_tools; i++) {
    free(s->tools[i].name);
    free(s->tools[i].description);
    cJSON_Delete(s->tools[i].input_schema);
  }
  free(s->tools);
  free(s);
}

static int dup_into(char **dst, const char *src) {
  if (!src)
    return OCK_OK;
  *dst = strdup(src);
  return *dst ? OCK_OK : OCK_ENOMEM;
}

static int read_long(const cJSON *cfg, const char *key, long long lo, long long hi, long *out,
                     struct ock_jerr *err) {
  long long v = *out;
  int rc = ock_jget_int(cfg, "$.config", key, OCK_OPTIONAL, lo, hi, &v, err);
  if (!rc)
    *out = (long)v;
  return rc;
}

static int read_config(const cJSON *cfg, struct ock_orchestrator_config *c, struct ock_jerr *err) {
  static const char *const modes[] = {"basic", "streaming", "events", NULL};
  static const char *const strategies[] = {"fail_fast", "continue", "retry", "fallback", NULL};
  long max_iter = c->max_iterations, retries = c->max_retries;
  int mode = (int)c->mode, strategy = (int)c->strategy, stream = -1;
  int mode_set = cJSON_GetObjectItemCaseSensitive(cfg, "mode") != NULL;
  double jitter = c->retry_jitter;
  int rc = ock_jcheck_object(cfg, "$.config", err);
  /* max_iterations <= 0 means "the default" (SPEC.md), so any integer is accepted. */
  if (!rc)
    rc = read_long(cfg, "max_iterations", -1000000, 1000000, &max_iter, err);
  if (!rc)
    rc = ock_jget_bool(cfg, "$.config", "parallel_tools", OCK_OPTIONAL, &c->parallel_tools, err);
  if (!rc)
    rc = ock_jget_bool(cfg, "$.config", "streaming", OCK_OPTIONAL, &stream, err);
  if (!rc)
    rc = ock_jget_enum(cfg, "$.config", "error_strategy", OCK_OPTIONAL, strategies, &strategy, err);
  if (!rc)
    rc = read_long(cfg, "max_retries", 0, 1000, &retries, err);
  if (!rc)
    rc = read_long(cfg, "retry_base_delay_ms", 0, 86400000, &c->retry_base_delay_ms, err);
  if (!rc)
    rc = read_long(cfg, "retry_max_delay_ms", 0, 86400000, &c->retry_max_delay_ms, err);
  if (!rc)
    rc = ock_jget_number(cfg, "$.config", "retry_jitter", OCK_OPTIONAL, 0.0, 1.0, &jitter, err);
  if (!rc)
    rc = read_long(cfg, "tool_timeout_ms", 0, 86400000, &c->tool_timeout_ms, err);
  if (!rc)
    rc = read_long(cfg, "request_timeout_ms", 0, 86400000, &c->request_timeout_ms, err);
  if (!rc)
    rc = ock_jget_enum(cfg, "$.config", "mode", OCK_OPTIONAL, modes, &mode, err);
  if (rc)
    return rc;
  c->max_iterations = max_iter > 0 ? (int)max_iter : 10;
  c->max_retries = (int)retries;
  c->retry_jitter = jitter;
  c->strategy = (enum ock_strategy)strategy;
  c->mode = (enum ock_mode)mode;
  if (stream >= 0) {
    c->streaming = stream;
    /* An explicit "streaming": false beats a streaming mode that came from the command line. */
    if (!stream && !mode_set && c->mode == OCK_MODE_STREAMING)
      c->mode = OCK_MODE_BASIC;
  }
  return OCK_OK;
}

static int read_provider(const cJSON *jp, const char *path, struct ock__session_provider *p,
                         struct ock_jerr *err) {
  static const char *const apis[] = {"openai", "anthropic", "responses", "gemini", NULL};
  static const enum ock_wire wires[] = {OCK_WIRE_OPENAI, OCK_WIRE_ANTHROPIC, OCK_WIRE_RESPONSES,
                                        OCK_WIRE_GEMINI};
  const char *name = NULL, *base_url = NULL, *model = "";
  int api = 0;
  long long prio = 100;
  int rc = ock_jcheck_object(jp, path, err);
  if (!rc)
    rc = ock_jget_nonempty(jp, path, "name", OCK_REQUIRED, &name, err);
  if (!rc)
    rc = ock_jget_enum(jp, path, "api", OCK_REQUIRED, apis, &api, err);
  if (!rc)
    rc = ock_jget_nonempty(jp, path, "base_url", OCK_REQUIRED, &base_url, err);
  if (!rc)
    rc = ock_jget_string(jp, path, "model", OCK_OPTIONAL, &model, err);
  if (!rc)
    rc = ock_jget_int(jp, path, "priority", OCK_OPTIONAL, -1000000, 1000000, &prio, err);
  if (rc)
    return rc;
  p->api = wires[api];
  p->priority = (int)prio;
  if (dup_into(&p->name, name) || dup_into(&p->base_url, base_url) || dup_into(&p->model, model))
    return OCK_ENOMEM;
  return OCK_OK;
}

static int read_tool(const cJSON *jt, const char *path, struct ock__session_tool *t,
                     struct ock_jerr *err) {
  const char *name = NULL, *desc = NULL;
  const cJSON *schema = NULL;
  int rc = ock_jcheck_object(jt, path, err);
  if (!rc)
    rc = ock_jget_nonempty(jt, path, "name", OCK_REQUIRED, &name, err);
  if (!rc)
    rc = ock_jget_string(jt, path, "description", OCK_OPTIONAL, &desc, err);
  if (!rc)
    rc = ock_jget_object(jt, path, "input_schema", OCK_OPTIONAL, &schema, err);
  if (rc)
    return rc;
  if (dup_into(&t->name, name) || dup_into(&t->description, desc))
    return OCK_ENOMEM;
  if (schema && !(t->input_schema = cJSON_Duplicate(schema, 1)))
    return OCK_ENOMEM;
  return OCK_OK;
}

/* The top-level members of the document, borrowed from it. */
struct top {
  const char *protocol, *scenario, *trace_id;
  const cJSON *prompts, *config, *providers, *tools;
};

static int read_top(const cJSON *doc, struct top *t, struct ock_jerr *err) {
  int rc = ock_jcheck_object(doc, "$", err);
  if (!rc)
    rc = ock_jget_string(doc, "$", "protocol", OCK_REQUIRED, &t->protocol, err);
  if (!rc && strcmp(t->protocol, "ock/1"))
    rc = ock_jerr_set(err, OCK_ETYPE, "$.protocol", "expected \"ock/1\", got \"%.40s\"",
                      t->protocol);
  if (!rc)
    rc = ock_jget_string(doc, "$", "scenario", OCK_OPTIONAL, &t->scenario, err);
  if (!rc)
    rc = ock_jget_nonempty(doc, "$", "trace_id", OCK_OPTIONAL, &t->trace_id, err);
  if (!rc)
    rc = ock_jget_array(doc, "$", "prompts", OCK_REQUIRED, &t->prompts, err);
  if (!rc)
    rc = ock_jget_object(doc, "$", "config", OCK_OPTIONAL, &t->config, err);
  if (!rc)
    rc = ock_jget_array(doc, "$", "providers", OCK_OPTIONAL, &t->providers, err);
  if (!rc)
    rc = ock_jget_array(doc, "$", "tools", OCK_OPTIONAL, &t->tools, err);
  return rc;
}

/* read_lists fills s->prompts, s->providers and s->tools (allocated for every item) and the
 * config over the defaults already in s. */
static int read_lists(const struct top *t, struct ock__session *s, struct ock_jerr *err) {
  size_t np = (size_t)cJSON_GetArraySize(t->prompts), nv = (size_t)cJSON_GetArraySize(t->providers);
  size_t nt = (size_t)cJSON_GetArraySize(t->tools);
  s->prompts = calloc(np ? np : 1, sizeof *s->prompts);
  s->providers = calloc(nv ? nv : 1, sizeof *s->providers);
  s->tools = calloc(nt ? nt : 1, sizeof *s->tools);
  int rc = (!s->prompts || !s->providers || !s->tools || dup_into(&s->scenario, t->scenario) ||
            dup_into(&s->trace_id, t->trace_id))
               ? OCK_ENOMEM
               : OCK_OK;
  char path[OCK_JSON_PATH_MAX];
  for (size_t i = 0; !rc && i < np; i++) {
    const cJSON *p = cJSON_GetArrayItem(t->prompts, (int)i);
    ock_jpath_index(path, sizeof path, "$.prompts", (int)i);
    if (!cJSON_IsString(p))
      rc = ock_jerr_set(err, OCK_ETYPE, path, "expected a string, got %s", ock_json_type_name(p));
    else
      rc = dup_into(&s->prompts[s->n_prompts++], p->valuestring);
  }
  if (!rc && t->config)
    rc = read_config(t->config, &s->config, err);
  for (size_t i = 0; !rc && i < nv; i++) {
    ock_jpath_index(path, sizeof path, "$.providers", (int)i);
    rc = read_provider(cJSON_GetArrayItem(t->providers, (int)i), path,
                       &s->providers[s->n_providers++], err);
  }
  for (size_t i = 0; !rc && i < nt; i++) {
    ock_jpath_index(path, sizeof path, "$.tools", (int)i);
    rc = read_tool(cJSON_GetArrayItem(t->tools, (int)i), path, &s->tools[s->n_tools++], err);
  }
  return rc;
}

int ock__session_parse(const cJSON *doc, const struct ock_orchestrator_config *defaults,
                       struct ock__session **out, struct ock_jerr *err) {
  struct top t = {.scenario = ""};
  int rc = read_top(doc, &t, err);
  if (rc)
    return rc;
  struct ock__session *s = calloc(1, sizeof *s);
  if (!s)
    return OCK_ENOMEM;
  if (defaults)
    s->config = *defaults;
  else
    ock_orchestrator_config_default(&s->config);
  s->config.name = NULL;
  rc = read_lists(&t, s, err);
  if (rc) {
    ock__session_free(s);
    return rc;
  }
  *out = s;
  return OCK_OK;
}
