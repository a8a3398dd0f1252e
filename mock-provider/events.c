/*
 * events.c: POST /ock/v1/events, where the SUT reports each event and gets a HookResult.
 *
 * A fixture's hooks say which event gets which reply: by name, optionally only when data
 * members equal given values ("match"), and optionally only on the N-th such event
 * ("occurrence", counted per hook). The first hook that applies wins; otherwise the reply is
 * {"action":"continue"}. The event and the reply are journaled together, so the harness sees
 * exactly which deny or injection the SUT was given. Events also drive two cancel triggers,
 * both fired before the reply, which is then held a moment so the SIGINT lands first: "event"
 * and "after_execute" (the N-th orchestrator:complete: the SIGINT falls after that execute,
 * before the next one can begin).
 */
#include "state.h"

#include <stdio.h>
#include <string.h>

#include "ock/contract.h"
#include "ock/json.h"
#include "ock/status.h"

/* hook_applies: name and every member of match equal (by value) in data. */
static int hook_matches(const struct ock_fx_hook *h, const char *event, const cJSON *data) {
  if (strcmp(h->event, event))
    return 0;
  const cJSON *m;
  cJSON_ArrayForEach(m, h->match) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(data, m->string);
    if (!v || !cJSON_Compare(m, v, 1))
      return 0;
  }
  return 1;
}

int ock__serve_event(struct mock_state *st, const struct mock_request *rq, struct mock_plan *plan) {
  cJSON *body = NULL;
  struct ock_jerr jerr;
  const char *event = NULL;
  const cJSON *data = NULL;
  int rc = ock_json_parse(rq->body, rq->body_len, &body, &jerr);
  if (!rc)
    rc = ock_jcheck_object(body, "$", &jerr);
  if (!rc)
    rc = ock_jget_nonempty(body, "$", "event", OCK_REQUIRED, &event, &jerr);
  if (!rc)
    rc = ock_jget_object(body, "$", "data", OCK_REQUIRED, &data, &jerr);
  if (rc) {
    char msg[900];
    snprintf(msg, sizeof msg, "an event must be {\"event\": NAME, \"data\": {...}}: %s: %s",
             jerr.where, jerr.what);
    cJSON_Delete(body);
    return ock__serve_http_error(st, rq, 400, "invalid_event", msg, plan);
  }

  pthread_mutex_lock(&st->lock);
  const cJSON *reply = NULL;
  for (size_t i = 0; i < st->fx->n_hooks; i++) {
    const struct ock_fx_hook *h = &st->fx->hooks[i];
    if (!hook_matches(h, event, data))
      continue;
    unsigned long long n = ++st->hook_counts[i];
    if (!reply && (h->occurrence == 0 || (unsigned long long)h->occurrence == n))
      reply = h->reply;
  }
  cJSON *sent = reply ? cJSON_Duplicate(reply, 1) : NULL;
  if (!sent) {
    sent = cJSON_CreateObject();
    cJSON_AddStringToObject(sent, "action", "continue");
  }
  cJSON *e = cJSON_CreateObject();
  cJSON_AddStringToObject(e, OCK_F_EVENT_EVENT, event);
  cJSON_AddItemToObject(e, OCK_F_EVENT_DATA, cJSON_Duplicate(data, 1));
  cJSON_AddItemToObject(e, OCK_F_EVENT_REPLY, cJSON_Duplicate(sent, 1));
  cJSON_AddItemToObject(e, OCK_F_EVENT_HEADERS, ock__headers_json(rq));
  ock__journal_append(st->journal, OCK_KIND_EVENT, e);
  ock__cancel_on_arrival(st, OCK_FX_CANCEL_EVENT, event, 0, plan);
  pthread_mutex_unlock(&st->lock);

  cJSON_Delete(body);
  return ock__plan_json(plan, 200, sent);
}
