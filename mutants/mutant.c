/*
 * mutant.c: the shared parts of mutant.h: header lists, and the facts the hooks remember
 * (which execute this is, what it has seen), kept current from the traffic itself.
 */
#include "mutant.h"
#include "ock/caps.h"
#include "ock/contract.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define REMINDER_MARK "orchestrator-loop-limit"

int ock__mutant_headers_add(struct mutant_headers *h, const char *name, const char *value) {
  if (h->n >= OCK_MAX_MUTANT_HEADERS)
    return -1;
  char *n = strdup(name), *v = strdup(value ? value : "");
  if (!n || !v) {
    free(n);
    free(v);
    return -1;
  }
  h->name[h->n] = n;
  h->value[h->n++] = v;
  return 0;
}

const char *ock__mutant_headers_get(const struct mutant_headers *h, const char *name) {
  for (int i = 0; i < h->n; i++)
    if (!strcasecmp(h->name[i], name))
      return h->value[i];
  return NULL;
}

int ock__mutant_headers_remove(struct mutant_headers *h, const char *name) {
  int removed = 0, k = 0;
  for (int i = 0; i < h->n; i++) {
    if (!strcasecmp(h->name[i], name)) {
      free(h->name[i]);
      free(h->value[i]);
      removed++;
      continue;
    }
    h->name[k] = h->name[i];
    h->value[k++] = h->value[i];
  }
  h->n = k;
  return removed;
}

void ock__mutant_headers_free(struct mutant_headers *h) {
  for (int i = 0; i < h->n; i++) {
    free(h->name[i]);
    free(h->value[i]);
  }
  h->n = 0;
}

void ock__mutant_state_init(struct mutant_state *s) {
  memset(s, 0, sizeof *s);
  s->held = cJSON_CreateArray();
}

void ock__mutant_state_free(struct mutant_state *s) {
  cJSON_Delete(s->held);
  cJSON_Delete(s->resolve);
  free(s->kept);
  for (int i = 0; i < s->n_injections; i++)
    free(s->injections[i]);
  memset(s, 0, sizeof *s);
}

static const char *str_of(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) ? v->valuestring : "";
}

void ock__mutant_note_session(struct mutant_state *s, const cJSON *doc) {
  const cJSON *config = cJSON_GetObjectItemCaseSensitive(doc, "config");
  s->streaming = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(config, "streaming"));
  const cJSON *strategy = cJSON_GetObjectItemCaseSensitive(config, "error_strategy");
  s->retrying = cJSON_IsString(strategy) && (!strcmp(strategy->valuestring, "retry") ||
                                             !strcmp(strategy->valuestring, "fallback"));
  const cJSON *max = cJSON_GetObjectItemCaseSensitive(config, "max_iterations");
  s->max_iterations = cJSON_IsNumber(max) ? max->valueint : 10;
  const cJSON *base = cJSON_GetObjectItemCaseSensitive(config, "retry_base_delay_ms");
  s->base_delay_ms = cJSON_IsNumber(base) ? (long)base->valuedouble : 1000;
}

void ock__mutant_note_event(struct mutant_state *s, const cJSON *event, const cJSON *reply) {
  const char *name = str_of(event, "event");
  if (!strcmp(name, OCK_EV_PROMPT_SUBMIT)) {
    s->executes++;
    s->llm_in_execute = s->responses_in_execute = s->requests_in_execute = 0;
    s->after_cancel = s->cancelled;
    s->cancelled = 0;
    s->tool_failed = 0;
    cJSON_Delete(s->resolve);
    s->resolve = NULL;
  } else if (!strcmp(name, OCK_EV_CANCEL_REQUESTED)) {
    s->cancelled = 1;
  } else if (!strcmp(name, OCK_EV_TOOL_ERROR)) {
    s->tool_failed = 1;
  } else if (!strcmp(name, OCK_EV_PROVIDER_RESPONSE)) {
    s->responses_in_execute++;
  } else if (!strcmp(name, OCK_EV_PROVIDER_REQUEST)) {
    s->requests_in_execute++;
  } else if (!strcmp(name, OCK_EV_PROVIDER_RESOLVE)) {
    cJSON_Delete(s->resolve);
    s->resolve = cJSON_Duplicate(event, 1);
  }
  const char *text = str_of(reply, "context_injection");
  if (!strcmp(str_of(reply, "action"), "inject_context") && *text &&
      s->n_injections < OCK_MAX_MUTANT_INJECTIONS) {
    for (int i = 0; i < s->n_injections; i++)
      if (!strcmp(s->injections[i], text))
        return;
    char *copy = strdup(text);
    if (copy)
      s->injections[s->n_injections++] = copy;
  }
}

/* carries_reminder: some message of the request holds the iteration-limit reminder. */
static int carries_reminder(const cJSON *request) {
  char *text = cJSON_PrintUnformatted(request);
  int hit = text && strstr(text, REMINDER_MARK);
  free(text);
  return hit;
}

void ock__mutant_note_llm(struct mutant_state *s, const cJSON *request) {
  s->llm_in_execute++;
  if (carries_reminder(request))
    s->wrapped_up = 1;
}
