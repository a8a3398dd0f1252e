/* check_proc.c: PROC, the SUT as a process: it runs every prompt, exits 0, survives SIGINT. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "checks/grade.h"
#include "ock/caps.h"
#include "ock/contract.h"
#include "ock/events.h"
#include "ock/json.h"
#include "ock/utf8.h"

static int cancel_fired(const struct view *v) {
  for (size_t i = 0; i < v->n; i++)
    if (ock__is_kind(v->e[i], OCK_ENTRY_CANCEL))
      return 1;
  return 0;
}

/* proc_session: the session is fetched before the first event (SPEC.md, OCK-PROC-001). */
static void proc_session(struct grade_ctx *g) {
  const struct view *v = g->v;
  long fetched = -1, first_event = -1;
  for (size_t i = 0; i < v->n && fetched < 0; i++) {
    if (ock__is_kind(v->e[i], OCK_ENTRY_SESSION))
      fetched = ock__entry_seq(v->e[i]);
    else if (ock__is_kind(v->e[i], OCK_ENTRY_EVENT) && first_event < 0)
      first_event = ock__entry_seq(v->e[i]);
  }
  char seen[120];
  if (fetched < 0)
    snprintf(seen, sizeof seen, "the session document was never fetched");
  else if (first_event >= 0)
    snprintf(seen, sizeof seen, "event seq %ld came before the session fetch (seq %ld)",
             first_event, fetched);
  else
    snprintf(seen, sizeof seen, "fetched (seq %ld) before the first event", fetched);
  ock__grade_emit(g, CK_PROC_SESSION, fetched >= 0 && first_event < 0,
                  first_event >= 0 ? first_event : fetched,
                  "GET /ock/v1/session before the first event", "%s", seen);
}

/* prompt_count: the session's prompts, one execute each. */
static int prompt_count(const struct view *v) {
  return cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(v->session, "prompts"));
}

/* prompts_to_send: in a black-box run, the prompts whose execute the traffic must show: every
 * prompt that is not blank (SPEC.md 5.12), when the session has a provider to send it to. */
static int prompts_to_send(const struct view *v) {
  if (!v->fx->n_providers)
    return 0;
  int n = 0;
  const cJSON *p;
  cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(v->session, "prompts")) {
    if (!cJSON_IsString(p) || !ock_utf8_is_blank(p->valuestring))
      n++;
  }
  return n;
}

/* executes_seen: the executes of prompts that are not blank (the traffic tier's count). */
static int executes_seen(const struct view *v) {
  int seen = 0;
  for (size_t k = 0; k < v->nx; k++)
    seen += !ock_utf8_is_blank(v->x[k].prompt);
  return seen;
}

static void proc_executes(struct grade_ctx *g) {
  const struct view *v = g->v;
  if (v->traffic) {
    /* No prompt:submit: a prompt the SUT never sent to the LLM opens no execute (SPEC.md 9.7).
     * A blank prompt sent all the same is OCK-VALID-001's, which the traffic tier leaves out. */
    int want = prompts_to_send(v), seen = executes_seen(v);
    ock__grade_emit(g, CK_PROC_EXECUTES, seen == want,
                    v->nx ? ock__entry_seq(v->e[v->x[v->nx - 1].first]) : -1,
                    "every prompt that is not blank opens an execute: an LLM request whose last "
                    "user message is the prompt",
                    "%d such prompts, %d seen in the LLM requests", want, seen);
    return;
  }
  int want = prompt_count(v);
  ock__grade_emit(
      g, CK_PROC_EXECUTES, (int)v->nx == want, v->nx ? v->x[v->nx - 1].complete_seq : -1,
      "one execute (prompt:submit) per prompt", "%d prompts, %zu executes", want, v->nx);
}

static void proc_prompt_order(struct grade_ctx *g) {
  const struct view *v = g->v;
  for (size_t k = 0; k < v->nx; k++) {
    const struct view_exec *x = &v->x[k];
    const char *got = ock__pf_str(v->e[x->first], OCK_FIELD_PROMPT);
    int ok = x->prompt && got && !strcmp(got, x->prompt);
    ock__grade_emit(g, CK_PROC_PROMPT_ORDER, ok, ock__entry_seq(v->e[x->first]),
                    "prompt:submit of execute k carries prompt k", "execute %d submitted \"%.60s\"",
                    x->index, got ? got : "(no prompt field)");
  }
}

static void proc_exit(struct grade_ctx *g) {
  const struct sut_result *p = g->v->proc;
  if (p->timed_out)
    ock__grade_emit(g, CK_PROC_EXIT, 0, -1, "exit 0 within the timeout",
                    "timed out after %.0f ms and was killed", p->wall_ms);
  else if (p->signal)
    ock__grade_emit(g, CK_PROC_EXIT, 0, -1, "exit 0 within the timeout", "ended by %s",
                    ock__sut_signal_name(p->signal));
  else
    ock__grade_emit(g, CK_PROC_EXIT, p->exit_code == 0, -1, "exit 0 within the timeout",
                    "exit code %d", p->exit_code);
}

static void proc_signal(struct grade_ctx *g) {
  const struct sut_result *p = g->v->proc;
  if (!p->timed_out)
    ock__grade_emit(g, CK_PROC_SIGNAL, p->signal == 0 || p->signal == SIGINT, -1,
                    "not killed by a signal", "%s",
                    p->signal ? ock__sut_signal_name(p->signal) : "no signal");
}

static void proc_sigint(struct grade_ctx *g) {
  const struct view *v = g->v;
  const struct sut_result *p = v->proc;
  int want = v->traffic ? prompts_to_send(v) : prompt_count(v);
  int ran = v->traffic ? executes_seen(v) : (int)v->nx;
  if (cancel_fired(v)) {
    int survived = p->signal != SIGINT && !p->timed_out && ran == want;
    ock__grade_emit(g, CK_PROC_SIGINT, survived, -1,
                    "SIGINT cancels the running execute; the process goes on with the next prompt",
                    "%s; %d of %d executes ran", p->signal == SIGINT ? "killed by SIGINT" : "alive",
                    ran, want);
  }
}

/* Fields whose JSON type another check grades as a MUST on every event that carries them: their
 * findings are that check's. provider:error's error, retryable and status_code are read by
 * error.provider-error (OCK-ERROR-001) for every failed LLM request, orchestrator:complete's
 * turn_count by complete.turn-count (OCK-COMPLETE-005); trace_id and stage, the lifecycle
 * fields, by the trace and lifecycle checks (OCK-TRACE-001, OCK-LIFECYCLE-002), so they are
 * not typed here. */
static const char *const typed_by_provider_error[] = {OCK_PF_ERROR, OCK_PF_RETRYABLE,
                                                      OCK_PF_STATUS_CODE, NULL};
static const char *const typed_by_turn_count[] = {OCK_PF_TURN_COUNT, NULL};

static const char *const *typed_elsewhere(const char *event) {
  if (!strcmp(event, OCK_EV_PROVIDER_ERROR))
    return typed_by_provider_error;
  return strcmp(event, OCK_EV_ORCHESTRATOR_COMPLETE) ? NULL : typed_by_turn_count;
}

/* proc_event_fields: every event the kit knows carries its required fields (SPEC.md 4), and
 * with lifecycle declared also trace_id and stage; and every field it sends, required or
 * optional, has the JSON type SPEC.md 4 gives it (core/contract-shapes.json, SPEC.md 4.1: "when
 * sent they MUST have the stated type"). The first event found wanting is reported. */
static void proc_event_fields(struct grade_ctx *g) {
  const struct view *v = g->v;
  int lifecycle = ock__grade_declared(g, OCK_CAP_LIFECYCLE);
  int fields_bad = 0;
  const char *want = "every event carries the fields SPEC.md 4 requires, each of the type it gives";
  for (size_t i = 0; i < v->n && !fields_bad; i++) {
    if (!ock__is_kind(v->e[i], OCK_ENTRY_EVENT))
      continue;
    const char *name = ock__event_name(v->e[i]);
    const cJSON *data = ock__event_data(v->e[i]);
    char found[256];
    if (ock_event_missing_fields(g->reg, name, data, lifecycle, found, sizeof found)) {
      fields_bad = 1;
      ock__grade_emit(g, CK_PROC_EVENT_FIELDS, 0, ock__entry_seq(v->e[i]), want, "%s lacks %s",
                      name, found);
    } else if (ock_event_bad_field(name, data, 0, typed_elsewhere(name), found, sizeof found)) {
      fields_bad = 1;
      ock__grade_emit(g, CK_PROC_EVENT_FIELDS, 0, ock__entry_seq(v->e[i]), want, "%s: %s", name,
                      found);
    }
  }
  if (v->nx && !fields_bad)
    ock__grade_emit(g, CK_PROC_EVENT_FIELDS, 1, -1, want, "as expected");
}

/* session_model: the model of the session provider named name, or NULL when there is none. */
static const char *session_model(const struct view *v, const char *name) {
  const struct ock_fx_provider *p = name ? ock_fixture_provider(v->fx, name) : NULL;
  return p ? p->model : NULL;
}

/* proc_request_models: every LLM request carries the model of the session provider it goes to
 * (OCK-PROC-006); a fallback that keeps the first provider's model asks the wrong model. A
 * request the mock refused as malformed (its error member) may have no model to read: the 400
 * it got is graded where it leads. */
static void proc_request_models(struct grade_ctx *g) {
  const struct view *v = g->v;
  for (size_t i = 0; i < v->n; i++) {
    const cJSON *e = v->e[i];
    if (!ock__is_kind(e, OCK_ENTRY_LLM_REQUEST) || cJSON_HasObjectItem(e, OCK_F_LLM_REQUEST_ERROR))
      continue;
    const char *provider = ock__str_field(e, OCK_F_LLM_REQUEST_PROVIDER);
    const char *want = session_model(v, provider), *got = ock_json_str(e, OCK_F_LLM_REQUEST_MODEL);
    if (!want)
      continue;
    ock__grade_emit(g, CK_PROC_REQUEST_MODEL, got && !strcmp(got, want), ock__entry_seq(e),
                    "each LLM request carries its provider's model",
                    "request to %s with model \"%.80s\", the session gives it \"%.80s\"", provider,
                    got ? got : "(none)", want);
  }
}

/* proc_event_models: provider:request names the model the request it announces carries, or,
 * when no request follows it (a deny, a SIGINT), its provider's model (OCK-PROC-006). */
static void proc_event_models(struct grade_ctx *g) {
  const struct view *v = g->v;
  for (size_t i = 0; i < v->n; i++) {
    const cJSON *e = v->e[i];
    if (!ock__is_event(e, OCK_EV_PROVIDER_REQUEST))
      continue;
    const char *provider = ock__pf_str(e, OCK_FIELD_PROVIDER);
    const char *named = ock__pf_str(e, OCK_FIELD_MODEL);
    const char *sent = NULL;
    for (size_t j = i + 1; j < v->n && !sent; j++) {
      if (ock__is_event(v->e[j], OCK_EV_PROVIDER_REQUEST))
        break;
      if (ock__is_kind(v->e[j], OCK_ENTRY_LLM_REQUEST) &&
          !cJSON_HasObjectItem(v->e[j], OCK_F_LLM_REQUEST_ERROR))
        sent = ock_json_str(v->e[j], OCK_F_LLM_REQUEST_MODEL);
    }
    const char *want = sent ? sent : session_model(v, provider);
    if (!want)
      continue;
    ock__grade_emit(g, CK_PROC_EVENT_MODEL, named && !strcmp(named, want), ock__entry_seq(e),
                    "provider:request names the model the request carries",
                    "provider:request model \"%.80s\", the request %s \"%.80s\"",
                    named ? named : "(none)", sent ? "carries" : "to that provider would carry",
                    want);
  }
}

static void proc_events_well_formed(struct grade_ctx *g) {
  const struct view *v = g->v;
  int bad = 0;
  long bad_seq = -1;
  for (size_t i = 0; i < v->n; i++) {
    const char *path = ock_json_str(v->e[i], "path");
    if (ock__is_kind(v->e[i], OCK_ENTRY_HTTP_ERROR) && path && strstr(path, "/ock/v1/events")) {
      bad++;
      bad_seq = ock__entry_seq(v->e[i]);
    }
  }
  if (v->nx)
    ock__grade_emit(g, CK_PROC_EVENTS_WELL_FORMED, bad == 0, bad_seq,
                    "every event is a JSON object {event, data}", "%d malformed event posts", bad);
}

void ock__check_proc(struct grade_ctx *g) {
  proc_session(g);
  proc_executes(g);
  proc_prompt_order(g);
  proc_exit(g);
  proc_signal(g);
  proc_sigint(g);
  proc_event_fields(g);
  proc_events_well_formed(g);
  proc_request_models(g);
  proc_event_models(g);
}
