/* fakes.c: the in-process collaborators and contract checks of fakes.h. */
#include "fakes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ock/events.h"
#include "ock/grammar.h"
#include "ock/registry.h"
#include "ock/status.h"
#include "runner.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

static void sleep_ms(long ms) {
  struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* ---- provider -------------------------------------------------------------------------------- */

static void fail_with(struct ock_llm_error *err, enum ock_llm_fault kind, int status, long ra,
                      const char *type, const char *message) {
  err->kind = kind;
  err->status = status;
  err->retry_after_ms = ra;
  snprintf(err->type, sizeof err->type, "%s", type);
  snprintf(err->message, sizeof err->message, "%s", message);
}

static int fp_reply(struct fake_provider *p, const struct ock_llm_request *req,
                    ock_delta_fn on_delta, void *user, struct ock_reply *out,
                    struct ock_llm_error *err) {
  int k = p->requests++;
  if (k < FAKE_MAX_REQUESTS) {
    ock_history_copy(req->messages, &p->seen[k]);
    p->tools_offered[k] = req->n_tools;
    p->streamed[k] = on_delta != NULL;
    snprintf(p->trace_ids[k], sizeof p->trace_ids[k], "%s", req->trace_id ? req->trace_id : "");
  }
  if (p->next >= p->n_turns) {
    fail_with(err, OCK_LLM_MALFORMED, 0, -1, "script_exhausted",
              "the fake's script has no turn left");
    return OCK_EPROTO;
  }
  const struct fake_turn *t = &p->turns[p->next++];
  if (t->cancel_in_flight) {
    ock_orchestrator_cancel(p->w->o);
    fail_with(err, OCK_LLM_CANCELLED, 0, -1, "cancelled", "abandoned");
    return OCK_ECANCELLED;
  }
  if (t->fail) {
    fail_with(err, t->fault, t->status, t->retry_after_ms == 0 ? -1 : t->retry_after_ms,
              t->status == 429 ? "rate_limit_error" : "fake_error", "scripted failure");
    return OCK_EHTTP;
  }
  int deltas = 0;
  if (on_delta) {
    const char *s = t->text ? t->text : "";
    for (size_t i = 0, len = strlen(s); i < len; i += 3) {
      char piece[4] = {0};
      memcpy(piece, s + i, strnlen(s + i, 3));
      if (t->stream_cut_after && deltas == t->stream_cut_after)
        goto cut;
      struct ock_delta d = {.text = piece, .tool_index = -1};
      deltas++;
      if (on_delta(user, &d)) {
        fail_with(err, OCK_LLM_CANCELLED, 0, -1, "cancelled", "abandoned");
        return OCK_ECANCELLED;
      }
    }
    for (int c = 0; c < t->n_calls; c++) {
      const char *a = t->calls[c].args ? t->calls[c].args : "{}";
      size_t half = strlen(a) / 2;
      char first[256];
      snprintf(first, sizeof first, "%.*s", (int)half, a);
      struct ock_delta parts[2] = {{.text = "",
                                    .tool_index = c,
                                    .tool_id = t->calls[c].id,
                                    .tool_name = t->calls[c].name,
                                    .tool_args = first},
                                   {.text = "", .tool_index = c, .tool_args = a + half}};
      for (int q = 0; q < 2; q++) {
        if (t->stream_cut_after && deltas == t->stream_cut_after)
          goto cut;
        deltas++;
        if (on_delta(user, &parts[q])) {
          fail_with(err, OCK_LLM_CANCELLED, 0, -1, "cancelled", "abandoned");
          return OCK_ECANCELLED;
        }
      }
    }
  }
  ock_reply_init(out);
  out->msg.content = t->text ? strdup(t->text) : NULL;
  if (t->n_calls) {
    out->msg.calls = calloc((size_t)t->n_calls, sizeof *out->msg.calls);
    out->msg.n_calls = (size_t)t->n_calls;
    for (int c = 0; c < t->n_calls; c++) {
      out->msg.calls[c].id = strdup(t->calls[c].id);
      out->msg.calls[c].name = strdup(t->calls[c].name);
      out->msg.calls[c].arguments = strdup(t->calls[c].args ? t->calls[c].args : "{}");
    }
  }
  out->finish_reason = strdup(t->n_calls ? "tool_calls" : "stop");
  return OCK_OK;
cut:
  fail_with(err, OCK_LLM_STREAM, 0, -1, "stream_error", "the stream ended before data: [DONE]");
  return OCK_EPROTO;
}

static int fp_complete(void *self, const struct ock_llm_request *req, struct ock_reply *out,
                       struct ock_llm_error *err) {
  return fp_reply(self, req, NULL, NULL, out, err);
}

static int fp_stream(void *self, const struct ock_llm_request *req, ock_delta_fn on_delta,
                     void *user, struct ock_reply *out, struct ock_llm_error *err) {
  return fp_reply(self, req, on_delta, user, out, err);
}

/* ---- tools ----------------------------------------------------------------------------------- */

static int ft_exec(void *self, const char *id, const cJSON *input, const struct ock_tool_env *env,
                   cJSON **result, char *detail, size_t detail_len) {
  struct fake_tool *t = self;
  pthread_mutex_lock(&t->mu);
  int k = t->calls++;
  if (k < FAKE_MAX_TOOL_CALLS) {
    char *in = cJSON_PrintUnformatted(input);
    snprintf(t->ids[k], sizeof t->ids[k], "%s", id);
    snprintf(t->inputs[k], sizeof t->inputs[k], "%s", in ? in : "");
    snprintf(t->trace_ids[k], sizeof t->trace_ids[k], "%s", env->trace_id ? env->trace_id : "");
    t->started_ms[k] = now_ms();
    free(in);
  }
  pthread_mutex_unlock(&t->mu);
  if (t->cancel_on_call)
    ock_orchestrator_cancel(t->w->o);
  if (t->delay_ms)
    sleep_ms(t->delay_ms); /* the tool's scripted duration, which the test is about */
  if (t->wait_for_cancel) {
    for (int i = 0; i < 500 && !ock_cancel_is_set(env->cancel); i++)
      sleep_ms(10);
    snprintf(detail, detail_len, "gave up on cancellation");
    return OCK_ECANCELLED;
  }
  if (k < FAKE_MAX_TOOL_CALLS)
    t->ended_ms[k] = now_ms();
  if (t->fail_rc) {
    snprintf(detail, detail_len, "fake tool %s failed", t->name);
    return t->fail_rc;
  }
  *result =
      cJSON_Parse(t->result ? t->result : "{\"success\":true,\"output\":\"ok\",\"error\":null}");
  return OCK_OK;
}

/* ---- hooks ----------------------------------------------------------------------------------- */

static int fh_emit(void *self, const char *name, const cJSON *data, struct ock_hook_result *out) {
  struct fake_hooks *h = self;
  cJSON *rec = cJSON_CreateObject();
  cJSON_AddStringToObject(rec, "event", name);
  cJSON_AddItemToObject(rec, "data", cJSON_Duplicate(data, 1));
  cJSON_AddItemToArray(h->events, rec);
  int occurrence = count_events(h->w, name);
  for (size_t i = 0; i < h->n_rules; i++) {
    const struct hook_rule *r = &h->rules[i];
    if (strcmp(r->event, name) || (r->occurrence && r->occurrence != occurrence))
      continue;
    const char *tn = ock_json_str(data, "tool_name");
    if (r->tool_name && (!tn || strcmp(tn, r->tool_name)))
      continue;
    if (r->cancel)
      ock_orchestrator_cancel(h->w->o);
    if (r->reply) {
      cJSON *j = cJSON_Parse(r->reply);
      struct ock_jerr err;
      if (!j || ock_hook_result_from_json(j, out, &err))
        ock_test_fail(__LINE__, __FILE__, "bad hook reply in a test: %s", r->reply);
      cJSON_AddItemToObject(rec, "reply", j);
      return OCK_OK;
    }
  }
  return OCK_OK;
}

/* ---- world ----------------------------------------------------------------------------------- */

static void fake_sleep(void *user, long ms, const ock_cancel *cancel) {
  (void)cancel;
  struct world *w = user;
  if (w->n_sleeps < 64)
    w->sleeps[w->n_sleeps++] = ms;
}

static double fake_random(void *user) {
  (void)user;
  return 0.5; /* jitter factor 1 + j*(2u-1) = 1: delays are exact */
}

void world_init(struct world *w) {
  memset(w, 0, sizeof *w);
  ock_orchestrator_config_default(&w->cfg);
  w->cfg.name = "test-orchestrator";
  w->hooks.iface.self = &w->hooks;
  w->hooks.iface.emit = fh_emit;
  w->hooks.events = cJSON_CreateArray();
  w->hooks.w = w;
  OCK_ASSERT_OK(ock_memctx_new(&w->ctx));
  OCK_ASSERT_OK(ock_exec_context_new("trace-test-1", &w->exec));
}

void world_start(struct world *w) {
  ock_orchestrator_free(w->o);
  OCK_ASSERT_OK(ock_orchestrator_new(&w->cfg, &w->o));
  struct ock_runtime rt = {.sleep_ms = fake_sleep, .random = fake_random, .user = w};
  ock_orchestrator_set_runtime(w->o, &rt);
}

void world_free(struct world *w) {
  for (int i = 0; i < w->n_providers; i++)
    for (int k = 0; k < FAKE_MAX_REQUESTS; k++)
      ock_history_free(&w->providers[i].seen[k]);
  for (int i = 0; i < w->n_tools; i++)
    pthread_mutex_destroy(&w->tools[i].mu);
  cJSON_Delete(w->hooks.events);
  ock_memctx_free(w->ctx);
  ock_orchestrator_free(w->o);
  ock_exec_context_free(w->exec);
  ock_exec_result_clear(&w->res);
}

struct fake_provider *world_provider(struct world *w, const char *name, int priority,
                                     const struct fake_turn *turns, size_t n) {
  struct fake_provider *p = &w->providers[w->n_providers];
  w->pptr[w->n_providers++] = &p->iface;
  p->iface.name = name;
  p->iface.model = "fake-model";
  p->iface.priority = priority;
  p->iface.self = p;
  p->iface.complete = fp_complete;
  p->iface.stream = fp_stream;
  p->turns = turns;
  p->n_turns = n;
  p->w = w;
  for (int k = 0; k < FAKE_MAX_REQUESTS; k++)
    ock_history_init(&p->seen[k]);
  return p;
}

struct fake_tool *world_tool(struct world *w, const char *name, const char *result) {
  struct fake_tool *t = &w->tools[w->n_tools];
  w->tptr[w->n_tools++] = &t->iface;
  snprintf(t->name, sizeof t->name, "%s", name);
  t->iface.spec.name = t->name;
  t->iface.spec.description = "a fake tool";
  t->iface.self = t;
  t->iface.execute = ft_exec;
  t->result = result;
  t->w = w;
  pthread_mutex_init(&t->mu, NULL);
  return t;
}

void world_rules(struct world *w, const struct hook_rule *rules, size_t n) {
  w->hooks.rules = rules;
  w->hooks.n_rules = n;
}

int world_run(struct world *w, const char *prompt) {
  if (!w->o)
    world_start(w);
  cJSON_Delete(w->hooks.events);
  w->hooks.events = cJSON_CreateArray();
  ock_exec_result_clear(&w->res);
  int rc = ock_orchestrator_execute(w->o, prompt, w->exec, ock_memctx_context(w->ctx), w->pptr,
                                    (size_t)w->n_providers, w->tptr, (size_t)w->n_tools,
                                    &w->hooks.iface, &w->res);
  OCK_ASSERT_OK(rc);
  return (int)w->res.status;
}

const struct ock_history *world_history(const struct world *w) {
  return ock_memctx_history(w->ctx);
}

/* ---- event access ------------------------------------------------------------------------------
 */

int count_events(const struct world *w, const char *name) {
  int n = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, w->hooks.events)
    n += !strcmp(ock_json_str(e, "event"), name);
  return n;
}

const cJSON *ock__event_data(const struct world *w, const char *name, int k) {
  const cJSON *e;
  cJSON_ArrayForEach(e, w->hooks.events) {
    if (!strcmp(ock_json_str(e, "event"), name) && k-- == 0)
      return cJSON_GetObjectItemCaseSensitive(e, "data");
  }
  return NULL;
}

const char *event_names(const struct world *w) {
  static char buf[8192];
  size_t len = 0;
  buf[0] = '\0';
  const cJSON *e;
  cJSON_ArrayForEach(e, w->hooks.events) {
    int n = snprintf(buf + len, sizeof buf - len, "%s%s", len ? "," : "", ock_json_str(e, "event"));
    if (n < 0 || (size_t)n >= sizeof buf - len)
      break;
    len += (size_t)n;
  }
  return buf;
}

/* ---- the checks -------------------------------------------------------------------------------
 */

/* check_history: every assistant tool call is answered by exactly one tool result, right after
 * it, in call order; no tool result anywhere else. */
void check_history(const struct ock_history *h, const char *what) {
  for (size_t i = 0; i < h->len; i++) {
    const struct ock_message *m = &h->items[i];
    if (m->role == OCK_ROLE_TOOL) {
      ock_test_fail(__LINE__, __FILE__, "%s: message %zu is a tool result without a call (%s)",
                    what, i, m->tool_call_id ? m->tool_call_id : "?");
      continue;
    }
    if (m->role != OCK_ROLE_ASSISTANT || !m->n_calls)
      continue;
    for (size_t c = 0; c < m->n_calls; c++) {
      size_t j = i + 1 + c;
      if (j >= h->len || h->items[j].role != OCK_ROLE_TOOL ||
          strcmp(h->items[j].tool_call_id, m->calls[c].id)) {
        ock_test_fail(__LINE__, __FILE__, "%s: call %s of message %zu is not answered at %zu", what,
                      m->calls[c].id, i, j);
        return;
      }
    }
    i += m->n_calls;
  }
  CU_PASS(what);
}

/* registry: the requirement registry built into the core, loaded once. */
static const ock_registry *registry(void) {
  static ock_registry *r;
  struct ock_jerr err;
  if (!r && ock_registry_load_builtin(&r, &err))
    ock_test_fail(__LINE__, __FILE__, "cannot load the registry: %s: %s", err.where, err.what);
  return r;
}

/* check_fields: the event has the registry's required fields, each field it sends of its JSON
 * type (lifecycle fields too), and its stage. */
static void check_fields(const char *name, const cJSON *d, enum ock_stage st, enum ock_stage prev) {
  char missing[256];
  if (ock_event_missing_fields(registry(), name, d, 1, missing, sizeof missing))
    ock_test_fail(__LINE__, __FILE__, "%s lacks %s", name, missing);
  if (ock_event_bad_field(name, d, 1, NULL, missing, sizeof missing))
    ock_test_fail(__LINE__, __FILE__, "%s: %s", name, missing);
  const struct ock_event_def *def = ock_registry_event(registry(), name);
  enum ock_stage want;
  if (!def)
    ock_test_fail(__LINE__, __FILE__, "%s is not an event of the registry", name);
  else if (!strcmp(def->stage, "terminal")) {
    if (!ock_stage_is_terminal(st))
      ock_test_fail(__LINE__, __FILE__, "%s has stage %s, expected a terminal one", name,
                    ock_stage_name(st));
  } else if (!strcmp(def->stage, "current")) {
    if (st != prev)
      ock_test_fail(__LINE__, __FILE__, "%s has stage %s, expected the current %s", name,
                    ock_stage_name(st), ock_stage_name(prev));
  } else if (!ock_stage_parse(def->stage, &want) && want != st) {
    ock_test_fail(__LINE__, __FILE__, "%s has stage %s, expected %s", name, ock_stage_name(st),
                  def->stage);
  }
}

/* count_in: events named name in the array. */
static int count_in(const cJSON *events, const char *name) {
  int n = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, events)
    n += !strcmp(ock_json_str(e, "event"), name);
  return n;
}

static const cJSON *data_in(const cJSON *events, const char *name) {
  const cJSON *e;
  cJSON_ArrayForEach(e, events) {
    if (!strcmp(ock_json_str(e, "event"), name))
      return cJSON_GetObjectItemCaseSensitive(e, "data");
  }
  return NULL;
}

static const char *names_in(const cJSON *events) {
  static char buf[8192];
  size_t len = 0;
  buf[0] = '\0';
  const cJSON *e;
  cJSON_ArrayForEach(e, events) {
    int k = snprintf(buf + len, sizeof buf - len, "%s%s", len ? "," : "", ock_json_str(e, "event"));
    if (k < 0 || (size_t)k >= sizeof buf - len)
      break;
    len += (size_t)k;
  }
  return buf;
}

struct grammar_seen {
  const cJSON *events;
  int violations;
};

static void on_grammar_violation(void *user, const struct ock_grammar_violation *v) {
  struct grammar_seen *seen = user;
  seen->violations++;
  ock_test_fail(__LINE__, __FILE__, "event %ld: %s: %s (%s)", v->seq, v->requirement, v->message,
                names_in(seen->events));
}

void check_events(const cJSON *events, enum ock_exec_status status, int turn_count,
                  const char *trace_id, const char *orchestrator) {
  int n = cJSON_GetArraySize(events);
  OCK_ASSERT_INT_EQ(count_in(events, "orchestrator:complete"), 1);
  const cJSON *last = cJSON_GetArrayItem(events, n - 1);
  OCK_ASSERT_STR_EQ(ock_json_str(last, "event"), "orchestrator:complete");
  const cJSON *done = cJSON_GetObjectItemCaseSensitive(last, "data");
  OCK_ASSERT_STR_EQ(ock_json_str(done, "status"), ock_exec_status_name(status));
  OCK_ASSERT_INT_EQ(ock_json_int(done, "turn_count", -1), turn_count);
  OCK_ASSERT_STR_EQ(ock_json_str(done, "orchestrator"), orchestrator);
  if (status == OCK_EXEC_ERROR) {
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(done, "error");
    OCK_ASSERT_TRUE(ock_json_str(e, "type") != NULL && ock_json_str(e, "message") != NULL);
  }
  if (status == OCK_EXEC_INCOMPLETE)
    OCK_ASSERT_NOT_NULL(ock_json_str(done, "reason"));

  /* prompt:submit first, execution:start right after it, execution:end right before the end */
  OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetArrayItem(events, 0), "event"), "prompt:submit");
  OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetArrayItem(events, 1), "event"), "execution:start");
  OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetArrayItem(events, n - 2), "event"), "execution:end");
  OCK_ASSERT_INT_EQ(count_in(events, "execution:end"), 1);
  const char *end_status = ock_json_str(data_in(events, "execution:end"), "status");
  OCK_ASSERT_STR_EQ(end_status, status == OCK_EXEC_ERROR       ? "error"
                                : status == OCK_EXEC_CANCELLED ? "cancelled"
                                                               : "completed");
  int answered = status == OCK_EXEC_SUCCESS || status == OCK_EXEC_INCOMPLETE;
  OCK_ASSERT_INT_EQ(count_in(events, "prompt:complete"), answered);
  if (status == OCK_EXEC_CANCELLED) {
    OCK_ASSERT_INT_EQ(count_in(events, "cancel:requested"), 1);
    OCK_ASSERT_INT_EQ(count_in(events, "cancel:completed"), 1);
  } else {
    OCK_ASSERT_INT_EQ(count_in(events, "cancel:completed"), 0);
  }

  /* stages and trace IDs; the order through the contract's own automaton (core/grammar.c) */
  enum ock_stage terminal;
  struct ock_stage_walk order;
  ock_stage_walk_start(&order);
  order.prev = OCK_STAGE_INITIALIZE; /* an execute opens in initialize */
  ock_stage_for_status(ock_exec_status_name(status), &terminal);
  struct grammar_seen seen = {.events = events};
  ock_grammar *grammar = NULL;
  OCK_ASSERT_INT_EQ(ock_grammar_new(on_grammar_violation, &seen, &grammar), OCK_OK);
  for (int i = 0; i < n; i++) {
    const cJSON *e = cJSON_GetArrayItem(events, i);
    const char *name = ock_json_str(e, "event");
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(e, "data");
    const char *reply = ock_json_str(cJSON_GetObjectItemCaseSensitive(e, "reply"), "action");
    if (grammar)
      ock_grammar_event(grammar, i, name, d, reply);
    OCK_ASSERT_STR_EQ(ock_json_str(d, "trace_id"), trace_id);
    enum ock_stage st;
    if (ock_stage_parse(ock_json_str(d, "stage"), &st)) {
      ock_test_fail(__LINE__, __FILE__, "event %d (%s) has no valid stage", i, name);
      continue;
    }
    enum ock_stage prev = order.prev;
    check_fields(name, d, st, prev);
    if (!ock_stage_walk_next(&order, st))
      ock_test_fail(__LINE__, __FILE__, "event %d (%s): stage %s may not follow %s (%s)", i, name,
                    ock_stage_name(st), ock_stage_name(prev), names_in(events));
    if (ock_stage_is_terminal(st) && st != terminal)
      ock_test_fail(__LINE__, __FILE__, "event %d (%s): terminal stage %s, expected %s", i, name,
                    ock_stage_name(st), ock_stage_name(terminal));
  }
  if (grammar)
    ock_grammar_end(grammar, n);
  ock_grammar_free(grammar);
  OCK_ASSERT_INT_EQ(seen.violations, 0);
}

void check_contract(struct world *w, enum ock_exec_status status, int turn_count) {
  check_events(w->hooks.events, status, turn_count, ock_exec_context_trace_id(w->exec),
               "test-orchestrator");
  OCK_ASSERT_INT_EQ(w->res.status, status);
  OCK_ASSERT_INT_EQ(w->res.turn_count, turn_count);

  /* the context, and every request any provider saw */
  check_history(world_history(w), "context");
  for (int p = 0; p < w->n_providers; p++)
    for (int k = 0; k < w->providers[p].requests && k < FAKE_MAX_REQUESTS; k++)
      check_history(&w->providers[p].seen[k], "request");
}
