/*
 * check_capability.c: behaviour of a capability the SUT did not declare (SPEC.md 1.3). Its
 * checks were skipped, so the report would be silent about it; instead each capability seen
 * in the journal but not declared is a WARN (FAIL under --strict) saying what was seen: declare
 * it and its checks apply.
 */
#include <stdio.h>
#include <string.h>

#include "grade.h"
#include "ock/json.h"

/* What shows a capability in use: an event name, or (NULL) a journal test. */
static const struct {
  const char *capability;
  const char *event;
} signs[] = {
    {"streaming", "provider:stream"},     {"scheduling", "tool:selecting"},
    {"scheduling", "tool:selected"},      {"lifecycle", "execution:start"},
    {"lifecycle", "execution:end"},       {"resilience", "provider:retry"},
    {"cancellation", "cancel:requested"}, {"cancellation", "cancel:completed"},
};

/* undeclared records the WARN for capability cap, seen at seq. */
static void undeclared(struct grade_ctx *g, const char *cap, long seq, const char *what) {
  /* Attributed to the capability's first requirement in the registry. */
  const struct ock_requirement *r = NULL;
  for (size_t i = 0; i < ock_registry_count(g->reg) && !r; i++)
    if (!strcmp(ock_registry_at(g->reg, i)->capability, cap))
      r = ock_registry_at(g->reg, i);
  if (!r)
    return;
  char id[64], msg[300], expected[160];
  snprintf(id, sizeof id, "capability.%s", cap);
  snprintf(expected, sizeof expected, "capability %s declared when its behaviour is used", cap);
  snprintf(msg, sizeof msg,
           "%s seen, but capability %s is not declared, so its checks were skipped: declare it",
           what, cap);
  cJSON *c = cJSON_CreateObject();
  cJSON_AddStringToObject(c, "id", id);
  cJSON_AddStringToObject(c, "requirement", r->id);
  cJSON_AddStringToObject(c, "level", "SHOULD");
  cJSON_AddStringToObject(c, "verdict", g->strict ? "FAIL" : "WARN");
  cJSON_AddStringToObject(c, "expected", expected);
  cJSON_AddStringToObject(c, "actual", what);
  cJSON *ev = cJSON_AddArrayToObject(c, "evidence");
  if (seq >= 0)
    cJSON_AddItemToArray(ev, cJSON_CreateNumber((double)seq));
  cJSON_AddStringToObject(c, "message", msg);
  cJSON_AddItemToArray(g->checks, c);
}

void check_capability(struct grade_ctx *g) {
  const struct view *v = g->v;
  for (size_t s = 0; s < sizeof signs / sizeof signs[0]; s++) {
    if (grade_declared(g, signs[s].capability))
      continue;
    for (size_t i = 0; i < v->n; i++) {
      if (is_event(v->e[i], signs[s].event)) {
        char what[120];
        snprintf(what, sizeof what, "event %s", signs[s].event);
        undeclared(g, signs[s].capability, entry_seq(v->e[i]), what);
        break;
      }
    }
  }
  if (!grade_declared(g, "streaming"))
    for (size_t i = 0; i < v->n; i++)
      if (is_kind(v->e[i], "llm_request") && ock_json_bool(v->e[i], "stream", 0) &&
          !cfg_bool(v, "streaming", 0)) {
        undeclared(g, "streaming", entry_seq(v->e[i]), "a streaming LLM request");
        break;
      }
}
