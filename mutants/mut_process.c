/*
 * mut_process.c: the lies told in the session document (the SUT runs with a config the mock
 * did not give) and at the process exit.
 */
#include <signal.h>
#include <string.h>

#include "mut_hooks.h"
#include "ock/contract.h"
#include "ock/utf8.h"

static cJSON *config_of(cJSON *doc) {
  cJSON *c = cJSON_GetObjectItemCaseSensitive(doc, "config");
  return cJSON_IsObject(c) ? c : NULL;
}

static void add_to_number(cJSON *config, const char *key, double delta) {
  cJSON *v = cJSON_GetObjectItemCaseSensitive(config, key);
  if (cJSON_IsNumber(v))
    cJSON_SetNumberHelper(v, v->valuedouble + delta);
}

static void set_number(cJSON *config, const char *key, double value) {
  cJSON *v = cJSON_GetObjectItemCaseSensitive(config, key);
  if (cJSON_IsNumber(v))
    cJSON_SetNumberHelper(v, value);
}

/* replace_strategy: config.error_strategy from -> to. */
static void replace_strategy(cJSON *config, const char *from, const char *to) {
  cJSON *v = cJSON_GetObjectItemCaseSensitive(config, "error_strategy");
  if (cJSON_IsString(v) && !strcmp(v->valuestring, from))
    cJSON_ReplaceItemInObjectCaseSensitive(config, "error_strategy", cJSON_CreateString(to));
}

/* ascii_blank: only the ASCII white space of C's isspace, as a loop that forgot Unicode sees. */
static int ascii_blank(const char *s) {
  for (; *s; s++)
    if (!strchr(" \t\r\n\v\f", *s))
      return 0;
  return 1;
}

void ock__mut_unicode_space_as_text(struct mutant_state *s, cJSON *doc) {
  (void)s;
  cJSON *p;
  cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(doc, "prompts")) {
    if (cJSON_IsString(p) && ock_utf8_is_blank(p->valuestring) && !ascii_blank(p->valuestring))
      cJSON_SetValuestring(p, "(mutant) a prompt of non-ASCII white space taken as text");
  }
}

void ock__mut_max_iterations_raised(struct mutant_state *s, cJSON *doc) {
  (void)s;
  add_to_number(config_of(doc), "max_iterations", 1);
}

/* The session's config.streaming (and its streaming mode) is not wired through: the SUT never
 * streams. */
void ock__mut_streaming_ignored(struct mutant_state *s, cJSON *doc) {
  (void)s;
  cJSON *config = config_of(doc);
  if (cJSON_HasObjectItem(config, "streaming"))
    cJSON_ReplaceItemInObjectCaseSensitive(config, "streaming", cJSON_CreateFalse());
  if (cJSON_HasObjectItem(config, "mode"))
    cJSON_ReplaceItemInObjectCaseSensitive(config, "mode", cJSON_CreateString("basic"));
}

void ock__mut_tools_serialized(struct mutant_state *s, cJSON *doc) {
  (void)s;
  cJSON *config = config_of(doc);
  if (cJSON_HasObjectItem(config, "parallel_tools"))
    cJSON_ReplaceItemInObjectCaseSensitive(config, "parallel_tools", cJSON_CreateFalse());
}

void ock__mut_backoff_zero(struct mutant_state *s, cJSON *doc) {
  (void)s;
  set_number(config_of(doc), "retry_base_delay_ms", 0);
}

void ock__mut_fallback_as_retry(struct mutant_state *s, cJSON *doc) {
  (void)s;
  replace_strategy(config_of(doc), "fallback", "retry");
}

void ock__mut_fail_fast_continues(struct mutant_state *s, cJSON *doc) {
  (void)s;
  replace_strategy(config_of(doc), "fail_fast", "continue");
}

void ock__mut_retry_budget_raised(struct mutant_state *s, cJSON *doc) {
  (void)s;
  add_to_number(config_of(doc), "max_retries", 1);
}

/* The first session fetch goes upstream only after an event: the SUT posts before it knows
 * its session. */
void ock__mut_event_before_session(struct mutant_state *s, struct mutant_exchange *x) {
  if (s->done_once++)
    return;
  cJSON *e = cJSON_CreateObject();
  cJSON_AddStringToObject(e, "event", OCK_EV_EXECUTION_START);
  cJSON_AddItemToObject(e, "data", cJSON_CreateObject());
  ock__mut_post_before(x, e);
}

/* custom_event_before_session: a custom event (a "starting" notice) is posted before the
 * session document is fetched: no trace_id or stage yet, since those come with the session. */
void ock__mut_custom_event_before_session(struct mutant_state *s, struct mutant_exchange *x) {
  if (s->done_once++)
    return;
  cJSON *e = cJSON_CreateObject();
  cJSON_AddStringToObject(e, "event", "ock-mutant:starting");
  cJSON *d = cJSON_AddObjectToObject(e, "data");
  cJSON_AddStringToObject(d, "note", "an event before the session is fetched");
  ock__mut_post_before(x, e);
}

int ock__mut_exit_one(const struct mutant_state *s, int ended) {
  (void)s;
  return ended == 0 ? 1 : ended;
}

int ock__mut_exit_sigsegv(const struct mutant_state *s, int ended) {
  (void)s;
  (void)ended;
  return -SIGSEGV;
}

/* The iteration limit off by one (the loop counts turns from 1 and stops at >= where it means >):
 * the loop wraps up one turn early, which is the SUT running with max_iterations one lower than
 * the session's. Its turn_count is the turns it made, so only what the scenario expects of the
 * limit (the turn count, the requests, the tool runs, what the last request carries) tells. */
void ock__mut_max_iterations_lowered(struct mutant_state *s, cJSON *doc) {
  (void)s;
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(config_of(doc), "max_iterations");
  if (cJSON_IsNumber(m) && m->valuedouble > 1)
    add_to_number(config_of(doc), "max_iterations", -1);
}
