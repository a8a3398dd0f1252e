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

/* read_config: the session's config over c, by the one reader of ock/config.h (so its types,
 * ranges and defaults are the registry's, as the mock served them). */
static int read_config(const cJSON *cfg, struct ock_orchestrator_config *c, struct ock_jerr *err) {
  struct ock_config k;
  ock_config_default(&k);
#define FROM_C(ident, member, type, dflt, lo, hi) k.member = c->member;
  OCK_CONFIG_MAP(FROM_C)
#undef FROM_C
  int rc = ock_config_read(cfg, "$.config", OCK_CONFIG_LENIENT, &k, err);
  if (rc)
    return rc;
  int stream_set = (k.present >> OCK_CONFIG_STREAMING) & 1;
  int mode_set = (k.present >> OCK_CONFIG_MODE) & 1;
#define TO_C(ident, member, type, dflt, lo, hi) c->member = k.member;
  OCK_CONFIG_MAP(TO_C)
#undef TO_C
  /* An explicit "streaming": false beats a streaming mode that came from the command line. */
  if (stream_set && !c->streaming && !mode_set && c->mode == OCK_MODE_STREAMING)
    c->mode = OCK_MODE_BASIC;
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
