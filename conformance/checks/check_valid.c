/*
 * check_valid.c: VALID, input the SUT must refuse: an empty or blank prompt and a session with
 * no provider end the execute with status error and the right error.type, send nothing to a
 * provider, and do not stop the next prompt.
 */
#include <string.h>

#include "checks/grade.h"
#include "ock/contract.h"
#include "ock/json.h"
#include "ock/utf8.h"

void ock__check_valid(struct grade_ctx *g) {
  const struct view *v = g->v;
  int no_provider = v->fx->n_providers == 0;
  for (size_t k = 0; k < v->nx; k++) {
    const struct view_exec *x = &v->x[k];
    int empty = x->prompt && ock_utf8_is_blank(x->prompt);
    if (!empty && !no_provider)
      continue;
    const char *want_type = empty ? "invalid_input" : "no_provider";
    enum check_name check = empty ? CK_VALID_EMPTY_PROMPT : CK_VALID_NO_PROVIDER;
    int sent = 0;
    for (size_t i = x->first; i < x->end; i++)
      sent += ock__is_kind(v->e[i], OCK_ENTRY_LLM_REQUEST);
    const char *status = ock__pf_str(x->complete_entry, OCK_FIELD_STATUS);
    const char *type = ock_json_str(ock__pf(x->complete_entry, OCK_FIELD_ERROR), "type");
    int ok =
        !sent && status && !strcmp(status, OCK_PV_STATUS_ERROR) && type && !strcmp(type, want_type);
    ock__grade_emit(g, check, ok, x->complete_seq,
                    "status error, error.type as SPEC.md says, no LLM request",
                    "execute %d: status %s, error.type %s, %d LLM request(s)", x->index,
                    status ? status : "(none)", type ? type : "(none)", sent);
    /* Nothing of an invalid execute is stored: the next request carries no such prompt. */
    const cJSON *next = ock__next_first_request(v, x);
    if (next && empty)
      ock__grade_emit(g, CK_VALID_NOT_STORED, !ock__history_has_user_text(next, x->prompt),
                      ock__entry_seq(next), "an invalid prompt is not stored in the context",
                      "the blank prompt of execute %d %s in the next request", x->index,
                      ock__history_has_user_text(next, x->prompt) ? "is" : "is not");
    if (k + 1 >=
        (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(v->session, "prompts")))
      continue;
    /* After invalid input the next prompt runs: its prompt:submit, and (when it can reach a
     * provider) at least one LLM request. */
    const struct view_exec *nx = k + 1 < v->nx ? &v->x[k + 1] : NULL;
    int asks = nx && !no_provider && nx->prompt && !ock_utf8_is_blank(nx->prompt);
    int requests = 0;
    for (size_t i = nx ? nx->first : 0; nx && i < nx->end; i++)
      requests += ock__is_kind(v->e[i], OCK_ENTRY_LLM_REQUEST);
    ock__grade_emit(g, CK_VALID_NEXT_PROMPT, nx && (!asks || requests > 0), x->complete_seq,
                    "the next prompt still runs and reaches the provider",
                    "%zu of the prompts ran; the next one made %d LLM request(s)", v->nx, requests);
  }
}
