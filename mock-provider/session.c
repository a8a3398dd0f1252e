/*
 * session.c: GET /ock/v1/session, the document a SUT reads first (DESIGN.md §3.1).
 *
 * The fixture's session with the contract's defaults filled in (the fixture loader read its
 * config over the registry's defaults, ock/config.h, so a SUT never guesses a default
 * differently from the harness), each provider's base_url under this mock's URL, and the
 * trace id. The journal's session entry keeps the config served, for the checks.
 */
#include "state.h"

#include <stdio.h>

#include "ock/config.h"
#include "ock/contract.h"
#include "ock/json.h"
#include "ock/status.h"

int ock__serve_session(struct mock_state *st, const struct mock_request *rq,
                       struct mock_plan *plan) {
  const struct ock_fixture *fx = st->fx;
  cJSON *doc = cJSON_CreateObject();
  cJSON_AddStringToObject(doc, "protocol", "ock/1");
  cJSON_AddStringToObject(doc, "scenario", fx->id);
  cJSON_AddStringToObject(doc, "trace_id", fx->trace_id);
  char mcp[128];
  snprintf(mcp, sizeof mcp, "%s/mcp", st->url);
  cJSON_AddStringToObject(doc, "mcp_url", mcp); /* the same tools over MCP (mcp.c) */
  cJSON_AddItemToObject(
      doc, "prompts", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(fx->session, "prompts"), 1));
  cJSON_AddItemToObject(doc, "config", ock_config_to_json(&fx->config));
  cJSON *providers = cJSON_AddArrayToObject(doc, "providers");
  for (size_t i = 0; i < fx->n_providers; i++) {
    const struct ock_fx_provider *p = &fx->providers[i];
    char base[256];
    snprintf(base, sizeof base, "%s/p/%s%s", st->url, p->name,
             p->api == OCK_WIRE_OPENAI || p->api == OCK_WIRE_RESPONSES
                 ? "/v1"
                 : ""); /* Anthropic: {base}/v1/messages; Gemini: {base}/v1beta/models/... */
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToArray(providers, o);
    cJSON_AddStringToObject(o, "name", p->name);
    cJSON_AddStringToObject(o, "api", ock_wire_name_at(p->api));
    cJSON_AddStringToObject(o, "base_url", base);
    cJSON_AddStringToObject(o, "model", p->model);
    cJSON_AddNumberToObject(o, "priority", (double)p->priority);
  }
  /* Tools with every member the session schema requires (SPEC 7.3). */
  cJSON *tools = cJSON_AddArrayToObject(doc, "tools");
  const cJSON *t;
  cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(fx->session, "tools")) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToArray(tools, o);
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(t, "input_schema");
    cJSON_AddStringToObject(o, "name", ock_json_str(t, "name"));
    cJSON_AddStringToObject(o, "description",
                            ock_json_str(t, "description") ? ock_json_str(t, "description") : "");
    cJSON_AddItemToObject(o, "input_schema",
                          schema ? cJSON_Duplicate(schema, 1)
                                 : cJSON_Parse("{\"type\":\"object\",\"properties\":{}}"));
  }

  cJSON *e = cJSON_CreateObject();
  cJSON_AddStringToObject(e, OCK_F_SESSION_PATH, rq->path);
  cJSON_AddItemToObject(e, OCK_F_SESSION_HEADERS, ock__headers_json(rq));
  /* The trace id served (the fixture's, or the derived default): what TRACE checks compare to. */
  cJSON_AddStringToObject(e, OCK_F_SESSION_TRACE_ID, fx->trace_id);
  /* The config served, every option filled in: what the checks grade against. */
  cJSON_AddItemToObject(e, OCK_F_SESSION_CONFIG, ock_config_to_json(&fx->config));
  ock__journal_append(st->journal, OCK_KIND_SESSION, e);
  return ock__plan_json(plan, 200, doc);
}
