/* view.c: indexing a scenario's journal by execute (see view.h). */
#include "model/view.h"

#include <stdlib.h>
#include <string.h>

#include "ock/contract.h"
#include "ock/json.h"
#include "ock/status.h"
#include "ock/utf8.h"

const char *ock__str_field(const cJSON *o, const char *k) {
  const char *s = ock_json_str(o, k);
  return s ? s : "";
}

const char *ock__entry_kind(const cJSON *e) {
  const char *k = ock_json_str(e, OCK_F_KIND);
  return k ? k : "";
}

long ock__entry_seq(const cJSON *e) {
  return (long)ock_json_int(e, OCK_F_SEQ, -1);
}

double ock__entry_time(const cJSON *e) {
  return ock_json_num(e, OCK_F_T_MS, 0);
}

int ock__is_kind(const cJSON *e, enum ock_journal_kind kind) {
  return kind < OCK_ENTRY_KNOWN && !strcmp(ock__entry_kind(e), ock_journal_kind_name(kind));
}

const char *ock__event_name(const cJSON *e) {
  const char *n = ock_json_str(e, OCK_F_EVENT_EVENT);
  return n ? n : "";
}

/* The empty object ock__event_data returns for an entry without object data: a constant, not
 * allocated on first use. Scenarios are graded on several worker threads at once, and a
 * lazily created one raced: two workers that both found it missing both created it, and the
 * one overwritten was never freed (a 64-byte cJSON that LeakSanitizer reported at exit, now and
 * then, in any suite that runs ock with --jobs 2). An object with no child is all cJSON reads. */
static const cJSON empty_object = {.type = cJSON_Object};

const cJSON *ock__event_data(const cJSON *e) {
  const cJSON *d = cJSON_GetObjectItemCaseSensitive(e, OCK_F_EVENT_DATA);
  return cJSON_IsObject(d) ? d : &empty_object;
}

const cJSON *ock__event_reply(const cJSON *e) {
  return cJSON_GetObjectItemCaseSensitive(e, OCK_F_EVENT_REPLY);
}

const char *ock__event_action(const cJSON *e) {
  const char *a = ock_json_str(ock__event_reply(e), "action");
  return a ? a : OCK_PV_HOOK_RESULT_ACTION_CONTINUE;
}

int ock__is_event(const cJSON *e, const char *name) {
  return ock__is_kind(e, OCK_ENTRY_EVENT) && (!name || !strcmp(ock__event_name(e), name));
}

int ock__reply_failed(const cJSON *reply) {
  if (!reply)
    return 1;
  if (ock_json_int(reply, OCK_F_LLM_REPLY_STATUS, 200) >= 400)
    return 1;
  const cJSON *fault = cJSON_GetObjectItemCaseSensitive(reply, OCK_F_LLM_REPLY_FAULT);
  return fault && !cJSON_IsNull(fault);
}

/* view_config: v->cfg, from the config the mock served (the first session entry that holds
 * one), else from the fixture's config over the registry's defaults. A value neither can give
 * (a hand-edited journal) leaves the defaults: the fixture loader refuses such a fixture. */
static void view_config(struct view *v, const cJSON *journal) {
  const cJSON *it, *served = NULL;
  cJSON_ArrayForEach(it, journal) {
    if (ock__is_kind(it, OCK_ENTRY_SESSION) &&
        (served = cJSON_GetObjectItemCaseSensitive(it, OCK_F_SESSION_CONFIG)) != NULL)
      break;
  }
  ock_config_default(&v->cfg);
  if (served && !ock_config_read(served, "$.config", OCK_CONFIG_LENIENT, &v->cfg, NULL)) {
    v->cfg_served = 1;
    return;
  }
  v->cfg = v->fx->config; /* what the mock serves: the fixture's over the registry's defaults */
}

/* view_init: the fields both builders share, and room for n entries and executes. */
static int view_init(struct view *v, const struct ock_fixture *fx, const cJSON *journal,
                     const struct sut_result *proc) {
  memset(v, 0, sizeof *v);
  v->fx = fx;
  v->session = fx->session;
  view_config(v, journal);
  v->proc = proc;
  size_t n = (size_t)cJSON_GetArraySize(journal);
  v->e = calloc(n + 1, sizeof *v->e);
  v->x = calloc(n + 1, sizeof *v->x);
  if (!v->e || !v->x) {
    ock__view_free(v);
    return OCK_ENOMEM;
  }
  return OCK_OK;
}

const char *ock__last_user_text(const cJSON *request) {
  const char *text = NULL;
  const cJSON *m;
  cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(request, OCK_F_LLM_REQUEST_NEUTRAL)) {
    if (!strcmp(ock__str_field(m, "role"), "user"))
      text = ock_json_str(m, "content");
  }
  return text;
}

int ock__view_build_traffic(struct view *v, const struct ock_fixture *fx, const cJSON *journal,
                            const struct sut_result *proc) {
  if (view_init(v, fx, journal, proc))
    return OCK_ENOMEM;
  v->traffic = 1;
  size_t n = (size_t)cJSON_GetArraySize(journal);
  const cJSON *prompts = cJSON_GetObjectItemCaseSensitive(v->session, "prompts");
  int n_prompts = cJSON_GetArraySize(prompts), next = 0;
  const cJSON *it;
  cJSON_ArrayForEach(it, journal) {
    size_t i = v->n++;
    v->e[i] = it;
    if (!ock__is_kind(it, OCK_ENTRY_LLM_REQUEST))
      continue;
    const char *said = ock__last_user_text(it);
    /* Only the next prompt opens an execute; a blank prompt before it (one the SUT must
     * refuse without a request, SPEC.md 5.12) is passed over when the prompt after it opens. */
    for (int p = next; said && p < n_prompts; p++) {
      const cJSON *want = cJSON_GetArrayItem(prompts, p);
      if (!cJSON_IsString(want))
        break;
      if (strcmp(want->valuestring, said)) {
        if (!ock_utf8_is_blank(want->valuestring))
          break;
        continue;
      }
      if (v->nx)
        v->x[v->nx - 1].end = i;
      struct view_exec *x = &v->x[v->nx++];
      x->index = p + 1;
      x->first = i;
      x->end = n;
      x->complete_seq = -1;
      x->prompt = want->valuestring;
      next = p + 1;
      break;
    }
  }
  return OCK_OK;
}

int ock__view_saw_event(const struct view *v, const char *name) {
  for (size_t i = 0; i < v->n; i++)
    if (ock__is_event(v->e[i], name))
      return 1;
  return 0;
}

int ock__view_after_cancel(const struct view *v, size_t i) {
  const struct view_exec *x = ock__view_exec_of(v, i);
  for (size_t k = x ? x->first : 0; k < i && k < v->n; k++)
    if (ock__is_kind(v->e[k], OCK_ENTRY_CANCEL))
      return 1;
  return 0;
}

int ock__view_build(struct view *v, const struct ock_fixture *fx, const cJSON *journal,
                    const struct sut_result *proc) {
  if (view_init(v, fx, journal, proc))
    return OCK_ENOMEM;
  size_t n = (size_t)cJSON_GetArraySize(journal);
  const cJSON *prompts = cJSON_GetObjectItemCaseSensitive(v->session, "prompts");
  const cJSON *it;
  cJSON_ArrayForEach(it, journal) {
    size_t i = v->n++;
    v->e[i] = it;
    if (ock__is_event(it, OCK_EV_PROMPT_SUBMIT)) {
      if (v->nx)
        v->x[v->nx - 1].end = i;
      struct view_exec *x = &v->x[v->nx++];
      x->index = (int)v->nx;
      x->first = i;
      x->end = n;
      x->complete_seq = -1;
      const cJSON *p = cJSON_GetArrayItem(prompts, x->index - 1);
      x->prompt = cJSON_IsString(p) ? p->valuestring : NULL;
    } else if (v->nx && ock__is_event(it, OCK_EV_ORCHESTRATOR_COMPLETE) &&
               !v->x[v->nx - 1].complete) {
      v->x[v->nx - 1].complete = ock__event_data(it);
      v->x[v->nx - 1].complete_entry = it;
      v->x[v->nx - 1].complete_seq = ock__entry_seq(it);
    }
  }
  return OCK_OK;
}

void ock__view_free(struct view *v) {
  free(v->e);
  free(v->x);
  v->e = NULL;
  v->x = NULL;
  v->n = v->nx = 0;
}

const struct view_exec *ock__view_exec_of(const struct view *v, size_t i) {
  for (size_t k = v->nx; k-- > 0;)
    if (i >= v->x[k].first)
      return &v->x[k];
  return NULL;
}

const cJSON *ock__view_reply_of(const struct view *v, size_t i) {
  /* The mock names the request a reply answers (request_seq): a reply journaled late (the
   * client had gone) still pairs with its own request. */
  long seq = ock__entry_seq(v->e[i]);
  for (size_t j = i + 1; j < v->n; j++)
    if (ock__is_kind(v->e[j], OCK_ENTRY_LLM_REPLY) &&
        ock_json_int(v->e[j], OCK_F_LLM_REPLY_REQUEST_SEQ, -2) == seq)
      return v->e[j];
  for (size_t j = i + 1; j < v->n; j++) { /* a journal without request_seq: by position */
    if (ock__is_kind(v->e[j], OCK_ENTRY_LLM_REQUEST))
      return NULL;
    if (ock__is_kind(v->e[j], OCK_ENTRY_LLM_REPLY) &&
        !cJSON_HasObjectItem(v->e[j], OCK_F_LLM_REPLY_REQUEST_SEQ))
      return v->e[j];
  }
  return NULL;
}

int ock__event_denied(const cJSON *e) {
  const char *a = ock__event_action(e);
  return !strcmp(a, OCK_PV_HOOK_RESULT_ACTION_DENY) ||
         !strcmp(a, OCK_PV_HOOK_RESULT_ACTION_ASK_USER); /* no approval system under ock/1 */
}

int ock__view_is_wrap_up(const struct view *v, size_t i) {
  while (i > 0 && !ock__is_kind(v->e[i], OCK_ENTRY_LLM_REQUEST))
    i--;
  const cJSON *request = v->e[i];
  const struct view_exec *x = ock__view_exec_of(v, i);
  if (!x || !ock__is_kind(request, OCK_ENTRY_LLM_REQUEST))
    return 0;
  /* The turn of the request within its execute (SPEC.md 5.1), counted as ock__view_turns does. */
  int turn = 0, have_prev = 0;
  const cJSON *prev_reply = NULL;
  for (size_t k = x->first; k <= i; k++) {
    if (!ock__is_kind(v->e[k], OCK_ENTRY_LLM_REQUEST))
      continue;
    if (!have_prev || !ock__reply_failed(prev_reply))
      turn++;
    have_prev = 1;
    prev_reply = ock__view_reply_of(v, k);
  }
  if (turn != v->cfg.max_iterations + 1)
    return 0;
  /* A request of that turn that still offers tools is the loop going on past the limit
   * (OCK-ITER-001), not a wrap-up; the reminder's words are not looked at (OCK-TEXT-006). */
  if (ock_json_int(request, OCK_F_LLM_REQUEST_TOOLS_OFFERED, 0) == 0)
    return 1;
  const cJSON *m;
  cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(request, OCK_F_LLM_REQUEST_NEUTRAL)) {
    const char *c = ock_json_str(m, "content");
    if (c && strstr(c, "orchestrator-loop-limit"))
      return 1;
  }
  return 0;
}

int ock__view_turns(const struct view *v, const struct view_exec *x) {
  int turns = 0;
  const cJSON *prev_reply = NULL;
  int have_prev = 0;
  for (size_t i = x->first; i < x->end; i++) {
    if (!ock__is_kind(v->e[i], OCK_ENTRY_LLM_REQUEST))
      continue;
    if (!have_prev || !ock__reply_failed(prev_reply))
      turns++;
    have_prev = 1;
    prev_reply = ock__view_reply_of(v, i);
  }
  return turns;
}

const cJSON *ock__next_first_request(const struct view *v, const struct view_exec *x) {
  for (size_t k = 0; k + 1 < v->nx; k++) {
    if (&v->x[k] != x)
      continue;
    for (size_t i = v->x[k + 1].first; i < v->x[k + 1].end; i++)
      if (ock__is_kind(v->e[i], OCK_ENTRY_LLM_REQUEST))
        return v->e[i];
  }
  return NULL;
}

int ock__history_has_user_text(const cJSON *request, const char *text) {
  const cJSON *m;
  cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(request, OCK_F_LLM_REQUEST_NEUTRAL)) {
    if (!strcmp(ock__str_field(m, "role"), "user") && !strcmp(ock__str_field(m, "content"), text))
      return 1;
  }
  return 0;
}

int ock__session_has_tool(const struct view *v, const char *name) {
  return name && ock_fixture_tool(v->fx, name) != NULL;
}

int ock__reply_abandoned(const struct view *v, size_t i) {
  size_t j = i + 1;
  while (j < v->n && !ock__is_event(v->e[j], OCK_EV_PROVIDER_RESPONSE) &&
         !ock__is_event(v->e[j], OCK_EV_PROVIDER_ERROR) &&
         !ock__is_kind(v->e[j], OCK_ENTRY_LLM_REQUEST))
    j++;
  if (j >= v->n || !ock__is_event(v->e[j], OCK_EV_PROVIDER_ERROR) ||
      strcmp(ock__str_field(ock__pf(v->e[j], OCK_FIELD_ERROR), "type"), "cancelled"))
    return 0;
  for (size_t k = j; k-- > 0 && !ock__is_event(v->e[k], OCK_EV_PROMPT_SUBMIT);)
    if (ock__is_kind(v->e[k], OCK_ENTRY_CANCEL))
      return 1;
  return 0;
}
