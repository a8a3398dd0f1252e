/*
 * hook_result.c: the HookResult a hook registry answers with, read from JSON (no I/O).
 *
 * The HTTP hook registry reads the reply of POST /ock/v1/events with it; C hook registries
 * may fill the struct directly. Unknown members are ignored (Amplifier's HookResult has many
 * the contract does not use), but a misspelt action or role is an error, not a silent
 * "continue".
 */
#include "ock/orchestrator.h"

#include <stdlib.h>
#include <string.h>

#include "ock/status.h"

void ock_hook_result_init(struct ock_hook_result *r) {
  memset(r, 0, sizeof *r);
  r->action = OCK_HOOK_CONTINUE;
  r->injection_role = OCK_ROLE_SYSTEM;
}

void ock_hook_result_clear(struct ock_hook_result *r) {
  free(r->reason);
  cJSON_Delete(r->data);
  free(r->context_injection);
  ock_hook_result_init(r);
}

int ock_hook_result_from_json(const cJSON *j, struct ock_hook_result *out, struct ock_jerr *err) {
  static const char *const actions[] = {"continue",       "deny",     "modify",
                                        "inject_context", "ask_user", NULL};
  static const char *const roles[] = {"system", "user", "assistant", NULL};
  static const enum ock_role role_of[] = {OCK_ROLE_SYSTEM, OCK_ROLE_USER, OCK_ROLE_ASSISTANT};
  int action = 0, role = 0, ephemeral = 0;
  const char *reason = NULL, *inj = NULL;
  const cJSON *data = NULL;
  int rc = ock_jcheck_object(j, "$", err);
  if (!rc)
    rc = ock_jget_enum(j, "$", "action", OCK_OPTIONAL, actions, &action, err);
  if (!rc && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "reason")))
    reason = cJSON_GetObjectItemCaseSensitive(j, "reason")->valuestring;
  if (!rc && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "context_injection")))
    inj = cJSON_GetObjectItemCaseSensitive(j, "context_injection")->valuestring;
  if (!rc && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "context_injection_role")))
    rc = ock_jget_enum(j, "$", "context_injection_role", OCK_OPTIONAL, roles, &role, err);
  if (!rc && cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(j, "ephemeral")))
    ephemeral = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "ephemeral"));
  if (!rc) {
    data = cJSON_GetObjectItemCaseSensitive(j, "data");
    if (cJSON_IsNull(data))
      data = NULL;
  }
  if (rc)
    return rc;
  struct ock_hook_result r;
  ock_hook_result_init(&r);
  r.action = (enum ock_hook_action)action;
  r.injection_role = role_of[role];
  r.ephemeral = ephemeral;
  r.reason = reason ? strdup(reason) : NULL;
  r.context_injection = inj ? strdup(inj) : NULL;
  r.data = data ? cJSON_Duplicate(data, 1) : NULL;
  if ((reason && !r.reason) || (inj && !r.context_injection) || (data && !r.data)) {
    ock_hook_result_clear(&r);
    return OCK_ENOMEM;
  }
  *out = r;
  return OCK_OK;
}
