/* blackbox.c: what a black-box run grades, and what its SUT is given (blackbox.h). */
#include "checks/blackbox.h"

#include <stdio.h>
#include <string.h>

#include "ock/caps.h"
#include "ock/buf.h"
#include "ock/contract.h"
#include "ock/json.h"

int ock__blackbox_graded(const struct check_entry *c, const struct ock_requirement *r) {
  return c && (c->flags & CHECK_BLACKBOX) && r && r->blackbox;
}

int ock__blackbox_scenario_skip(const struct ock_fixture *fx, char *why, size_t n) {
  int event_timed = 0; /* a cancel fired on an event, which a black-box SUT never posts */
  for (size_t i = 0; i < fx->n_cancels; i++)
    event_timed |= fx->cancels[i].at == OCK_FX_CANCEL_EVENT ||
                   fx->cancels[i].at == OCK_FX_CANCEL_AFTER_EXECUTE;
  if (fx->capabilities & 1u << OCK_CAPABILITY_LIFECYCLE)
    snprintf(why, n, "%s: the scenario grades lifecycle events", BLACKBOX_REASON);
  else if (event_timed)
    snprintf(why, n, "%s: the scenario's SIGINT is timed by an event", BLACKBOX_REASON);
  else if (fx->n_hooks > 0)
    snprintf(why, n, "%s: the scenario scripts hook replies to events", BLACKBOX_REASON);
  else
    return 0;
  return 1;
}

char *ock__blackbox_input(const cJSON *prompts) {
  struct ock_buf b;
  ock_buf_init(&b, OCK_MAX_BLACKBOX_INPUT);
  const cJSON *p;
  int rc = 0;
  cJSON_ArrayForEach(p, prompts) {
    for (const char *c = cJSON_IsString(p) ? p->valuestring : ""; *c && !rc; c++) {
      if (*c == '\\')
        rc = ock_buf_puts(&b, "\\\\");
      else if (*c == '\n')
        rc = ock_buf_puts(&b, "\\n");
      else
        rc = ock_buf_append(&b, c, 1);
    }
    if (!rc)
      rc = ock_buf_puts(&b, "\n");
  }
  if (rc) {
    ock_buf_free(&b);
    return NULL;
  }
  return ock_buf_take(&b);
}

cJSON *ock__blackbox_coverage(const ock_registry *reg) {
  cJSON *o = cJSON_CreateObject();
  cJSON *yes = cJSON_AddArrayToObject(o, "graded");
  cJSON *no = cJSON_AddArrayToObject(o, "not_graded");
  for (size_t i = 0; i < ock_registry_count(reg); i++) {
    const struct ock_requirement *r = ock_registry_at(reg, i);
    cJSON_AddItemToArray(r->blackbox ? yes : no, cJSON_CreateString(r->id));
  }
  return o;
}
