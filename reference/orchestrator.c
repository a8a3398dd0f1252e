/*
 * orchestrator.c: the engine: one loop, three modes, every exit path by the contract.
 *
 * One execute is a state machine driven by a single loop over LLM turns:
 *
 *   prompt:submit, execution:start -> (invalid input | no provider | denied) -> end
 *   store the user message, provider:resolve
 *   turn n: provider:request -> provider:stream* -> provider:response | provider:error
 *           (retry: provider:retry, same turn; fallback: provider:resolve, same turn)
 *           no tool calls -> final answer -> end
 *           store the assistant message with its calls BEFORE any tool runs
 *           [events mode: tool:selecting -> tool:selected] tool:pre -> run -> tool:post|error
 *           add one result per call, in call order; kept injections after them
 *   after max_iterations turns with tool calls: one wrap-up turn without tools -> end
 *
 * and every end goes through one of three finishers (answer, error, cancel) that emit the
 * closing events exactly once. The invariants the public loops break are kept by
 * construction: every call of a stored assistant message gets exactly one result before
 * anything else is stored (not found, denied, invalid arguments, failed, timed out,
 * cancelled, skipped); context injections wait for a safe point; the wrap-up reminder and
 * ephemeral injections live only in the request copy.
 *
 * Events carry "trace_id" and "stage" (CUGAR lifecycle); the stage of each event is fixed by
 * SPEC.md and the order of this code keeps the transitions in the allowed table.
 */
#include "ock/contract.h"
#include "ock/orchestrator.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ock/events.h"
#include "ock/status.h"
#include "ock/utf8.h"
#include "retry.h"

#define DEFAULT_NAME "ock-reference"
#define WRAP_UP_REMINDER                                                                           \
  "<system-reminder source=\"orchestrator-loop-limit\">\nYou have reached the maximum number "     \
  "of iterations for this turn. Please provide a response to the user now, summarizing your "      \
  "progress and noting what remains to be done.\n</system-reminder>"
#define CANCEL_CLOSING "The previous operation was cancelled."
#define NO_APPROVAL "No approval system available"
#define SKIPPED "Error: skipped: an earlier tool call failed (fail_fast)"

struct ock_cancel {
  atomic_int flag;
};

int ock_cancel_is_set(const ock_cancel *c) {
  return c ? atomic_load(&((ock_cancel *)c)->flag) != 0 : 0;
}

/* A context injection waiting for its place: a kept one while the context cannot take it yet
 * (before the user prompt is stored, or while a tool round is open), an ephemeral one until
 * the next LLM request of the execute. */
struct injection {
  enum ock_role role;
  char *text;
};

struct injections {
  struct injection *items;
  size_t len;
};

struct ock_orchestrator {
  struct ock_orchestrator_config cfg;
  char *name;
  struct ock_runtime rt;
  uint64_t rng; /* state of the default random source */
  ock_cancel cancel;
  atomic_int busy;  /* an execute is in progress (a second one is refused) */
  atomic_int armed; /* cancellation takes effect: from prompt:submit to the end of the execute */
  unsigned long groups; /* responses with tool calls so far (parallel_group_id) */
};

/* ---- names and defaults --------------------------------------------------------------------- */

static const char *const status_names[] = {"success", "incomplete", "cancelled", "error"};

const char *ock_exec_status_name(enum ock_exec_status s) {
  return (unsigned)s < 4 ? status_names[s] : "?";
}

void ock_orchestrator_config_default(struct ock_orchestrator_config *c) {
  struct ock_config d;
  ock_config_default(&d);
  memset(c, 0, sizeof *c);
  c->name = DEFAULT_NAME;
#define COPY_DEFAULT(ident, member, type, dflt, lo, hi) c->member = d.member;
  OCK_CONFIG_MAP(COPY_DEFAULT)
#undef COPY_DEFAULT
}

void ock_exec_result_clear(struct ock_exec_result *r) {
  if (!r)
    return;
  free(r->response);
  memset(r, 0, sizeof *r);
}

/* ---- the default runtime -------------------------------------------------------------------- */

static void default_sleep(void *user, long ms, const ock_cancel *cancel) {
  (void)user;
  while (ms > 0 && !ock_cancel_is_set(cancel)) {
    long slice = ms < 20 ? ms : 20; /* wake up often enough to notice cancellation */
    struct timespec ts = {.tv_sec = 0, .tv_nsec = slice * 1000000L};
    nanosleep(&ts, NULL);
    ms -= slice;
  }
}

static double default_random(void *user) {
  ock_orchestrator *o = user;
  /* xorshift64*: plenty for jitter and IDs; nothing here needs to be unpredictable. */
  o->rng ^= o->rng >> 12;
  o->rng ^= o->rng << 25;
  o->rng ^= o->rng >> 27;
  return (double)((o->rng * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

/* ---- life cycle ------------------------------------------------------------------------------ */

int ock_orchestrator_new(const struct ock_orchestrator_config *cfg, ock_orchestrator **out) {
  if (!out)
    return OCK_EINVAL;
  ock_orchestrator *o = calloc(1, sizeof *o);
  if (!o)
    return OCK_ENOMEM;
  if (cfg)
    o->cfg = *cfg;
  else
    ock_orchestrator_config_default(&o->cfg);
  o->name = strdup(o->cfg.name && *o->cfg.name ? o->cfg.name : DEFAULT_NAME);
  if (!o->name) {
    free(o);
    return OCK_ENOMEM;
  }
  o->cfg.name = o->name;
  if (o->cfg.max_iterations <= 0) {
    struct ock_config d;
    ock_config_default(&d);
    o->cfg.max_iterations = d.max_iterations;
  }
  if (o->cfg.max_retries < 0)
    o->cfg.max_retries = 0;
  if (o->cfg.mode == OCK_MODE_STREAMING)
    o->cfg.streaming = 1;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  o->rng = ((uint64_t)ts.tv_sec * 1000000007ULL) ^ (uint64_t)ts.tv_nsec ^
           ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)o;
  if (!o->rng)
    o->rng = 88172645463325252ULL;
  o->rt.sleep_ms = default_sleep;
  o->rt.random = default_random;
  o->rt.user = o;
  atomic_init(&o->cancel.flag, 0);
  atomic_init(&o->busy, 0);
  atomic_init(&o->armed, 0);
  *out = o;
  return OCK_OK;
}

static void injections_clear(struct injections *l) {
  for (size_t i = 0; i < l->len; i++)
    free(l->items[i].text);
  free(l->items);
  l->items = NULL;
  l->len = 0;
}

void ock_orchestrator_free(ock_orchestrator *o) {
  if (!o)
    return;
  free(o->name);
  free(o);
}

void ock_orchestrator_set_runtime(ock_orchestrator *o, const struct ock_runtime *rt) {
  if (!o || !rt)
    return;
  o->rt = *rt;
  if (!o->rt.sleep_ms)
    o->rt.sleep_ms = default_sleep;
  if (!o->rt.random) {
    o->rt.random = default_random;
    o->rt.user = o;
  }
}

void ock_orchestrator_cancel(ock_orchestrator *o) {
  /* Only lock-free atomics: this runs inside a signal handler. */
  if (o && atomic_load(&o->armed))
    atomic_store(&o->cancel.flag, 1);
}

/* ---- one execute ----------------------------------------------------------------------------- */

struct run {
  ock_orchestrator *o;
  const struct ock_orchestrator_config *cfg;
  const char *trace_id;
  const struct ock_context *ctx;
  const struct ock_provider *const *providers;
  size_t n_providers;
  const struct ock_tool *const *tools;
  size_t n_tools;
  struct ock_tool_spec *specs; /* the tools as offered to the model */
  const struct ock_hooks *hooks;
  int stream;           /* ask providers for streamed replies */
  int scheduling;       /* events mode: tool:selecting / tool:selected */
  enum ock_stage stage; /* the stage of the last event emitted */
  int turn_count;
  int cancel_noticed;          /* cancel:requested was emitted */
  int hold_kept;               /* kept injections must wait: prompt not stored / round open */
  struct injections kept;      /* kept injections waiting for hold_kept to end */
  struct injections ephemeral; /* for the next LLM request of this execute */

  int store_failed;      /* a message could not be stored (out of memory) */
  unsigned char *failed; /* per provider: failed for good in this execute */
  int current;           /* the provider in use */
  char deny_reason[512];
  struct ock_llm_error last_error;
  char last_provider[128];
  struct ock_exec_result *res;
};

/* ---- events ---------------------------------------------------------------------------------- */

static void queue_injection(struct injections *l, enum ock_role role, const char *text) {
  struct injection *items = realloc(l->items, (l->len + 1) * sizeof *items);
  if (!items)
    return;
  l->items = items;
  char *copy = strdup(text);
  if (!copy)
    return;
  l->items[l->len].role = role;
  l->items[l->len].text = copy;
  l->len++;
}

static void store_text(struct run *r, enum ock_role role, const char *text);

/* injects: whether an inject_context reply to this event is honoured (not on the events that
 * close an execute: nothing would see the injection before the execute ends). */
static int injects(const char *event) {
  return strcmp(event, OCK_EV_PROMPT_COMPLETE) && strncmp(event, "cancel:", 7) &&
         strcmp(event, OCK_EV_EXECUTION_END) && strcmp(event, OCK_EV_ORCHESTRATOR_COMPLETE);
}

/* emit sends one event: data (owned, consumed) gets trace_id and stage, the hook registry sees
 * it, and an inject_context answer is applied (SPEC.md 5.6): an ephemeral one waits for the
 * next request, a kept one is stored at once unless the context cannot take it yet. The
 * answer goes to *hr when it is not NULL (the caller then clears it). */
static void emit(struct run *r, const char *name, enum ock_stage stage, cJSON *data,
                 struct ock_hook_result *hr) {
  struct ock_hook_result local = {.action = OCK_HOOK_CONTINUE};
  struct ock_hook_result *res = hr ? hr : &local;
  ock_hook_result_init(res);
  r->stage = stage;
  if (!data)
    data = cJSON_CreateObject();
  if (data) {
    cJSON_AddStringToObject(data, "trace_id", r->trace_id);
    cJSON_AddStringToObject(data, "stage", ock_stage_name(stage));
    if (r->hooks && r->hooks->emit && r->hooks->emit(r->hooks->self, name, data, res)) {
      ock_hook_result_clear(res); /* a failed emit counts as continue */
    }
    cJSON_Delete(data);
  }
  if (res->action == OCK_HOOK_INJECT_CONTEXT && res->context_injection && *res->context_injection &&
      injects(name)) {
    enum ock_role role =
        res->injection_role == OCK_ROLE_TOOL ? OCK_ROLE_SYSTEM : res->injection_role;
    if (res->ephemeral)
      queue_injection(&r->ephemeral, role, res->context_injection);
    else if (r->hold_kept)
      queue_injection(&r->kept, role, res->context_injection);
    else
      store_text(r, role, res->context_injection);
  }
  if (!hr)
    ock_hook_result_clear(&local);
}

/* denied: 1 when a hook answer refuses (deny, or ask_user without an approval system); the
 * reason goes to r->deny_reason. */
static int denied(struct run *r, const struct ock_hook_result *hr) {
  if (hr->action == OCK_HOOK_ASK_USER) {
    snprintf(r->deny_reason, sizeof r->deny_reason, "%s", NO_APPROVAL);
    return 1;
  }
  if (hr->action == OCK_HOOK_DENY) {
    snprintf(r->deny_reason, sizeof r->deny_reason, "%s",
             hr->reason && *hr->reason ? hr->reason : "no reason given");
    return 1;
  }
  return 0;
}

static cJSON *obj(void) {
  return cJSON_CreateObject();
}

static void put_str(cJSON *o, const char *k, const char *v) {
  if (!o)
    return;
  if (v)
    cJSON_AddStringToObject(o, k, v);
  else
    cJSON_AddNullToObject(o, k);
}

static void put_int(cJSON *o, const char *k, long long v) {
  if (o)
    cJSON_AddNumberToObject(o, k, (double)v);
}

static void put_item(cJSON *o, const char *k, cJSON *v) {
  if (o && v)
    cJSON_AddItemToObject(o, k, v);
  else
    cJSON_Delete(v);
}

static cJSON *error_obj(const char *type, const char *message) {
  cJSON *e = obj();
  put_str(e, "type", type);
  put_str(e, "message", message);
  return e;
}

/* ock__check_cancel notices a cancellation request once, with cancel:requested in the current
 * stage. Returns 1 once cancellation was noticed. */
static int ock__check_cancel(struct run *r) {
  if (!r->cancel_noticed && ock_cancel_is_set(&r->o->cancel)) {
    r->cancel_noticed = 1;
    cJSON *d = obj();
    put_str(d, "orchestrator", r->o->name);
    put_int(d, "turn_count", r->turn_count);
    emit(r, OCK_EV_CANCEL_REQUESTED, r->stage, d, NULL);
  }
  return r->cancel_noticed;
}

/* ---- the context ----------------------------------------------------------------------------- */

static void store(struct run *r, const struct ock_message *m) {
  if (r->ctx->add_message(r->ctx->self, m))
    r->store_failed = 1;
}

static void store_text(struct run *r, enum ock_role role, const char *text) {
  struct ock_message m = {.role = role, .content = (char *)text, .wire_index = -1};
  store(r, &m);
}

/* release_kept ends a hold: the kept injections that waited are stored, in arrival order. */
static void release_kept(struct run *r) {
  r->hold_kept = 0;
  for (size_t i = 0; i < r->kept.len; i++)
    store_text(r, r->kept.items[i].role, r->kept.items[i].text);
  injections_clear(&r->kept);
}

/* ---- finishers: every execute ends in exactly one of these ----------------------------------- */

static void complete_event(struct run *r, enum ock_exec_status status, enum ock_stage stage) {
  cJSON *d = obj();
  put_str(d, "orchestrator", r->o->name);
  put_int(d, "turn_count", r->turn_count);
  put_str(d, "status", ock_exec_status_name(status));
  if (status == OCK_EXEC_INCOMPLETE)
    put_str(d, "reason", r->res->reason);
  if (status == OCK_EXEC_ERROR)
    put_item(d, "error", error_obj(r->res->error_type, r->res->error_message));
  r->res->status = status;
  r->res->turn_count = r->turn_count;
  emit(r, OCK_EV_ORCHESTRATOR_COMPLETE, stage, d, NULL);
}

/* finish_answer: the execute returns a response (success, or incomplete with a reason). */
static void finish_answer(struct run *r, enum ock_exec_status status, const char *reason,
                          const char *response) {
  snprintf(r->res->reason, sizeof r->res->reason, "%s", reason ? reason : "");
  r->res->response = strdup(response ? response : "");
  cJSON *d = obj();
  put_str(d, "response", response ? response : "");
  emit(r, OCK_EV_PROMPT_COMPLETE, OCK_STAGE_AGGREGATE, d, NULL);
  d = obj();
  put_str(d, "response", response ? response : "");
  put_str(d, "status", "completed");
  emit(r, OCK_EV_EXECUTION_END, OCK_STAGE_COMPLETE, d, NULL);
  complete_event(r, status, OCK_STAGE_COMPLETE);
}

static void finish_error(struct run *r, const char *type, const char *message) {
  snprintf(r->res->error_type, sizeof r->res->error_type, "%s", type);
  snprintf(r->res->error_message, sizeof r->res->error_message, "%s", message);
  cJSON *d = obj();
  put_str(d, "response", NULL);
  put_str(d, "status", "error");
  emit(r, OCK_EV_EXECUTION_END, OCK_STAGE_FAILED, d, NULL);
  complete_event(r, OCK_EXEC_ERROR, OCK_STAGE_FAILED);
}

/* finish_cancel: the context must end with the closing assistant message so the next prompt
 * starts from a valid, finished conversation. */
static void finish_cancel(struct run *r) {
  ock__check_cancel(r);
  store_text(r, OCK_ROLE_ASSISTANT, CANCEL_CLOSING);
  cJSON *d = obj();
  put_str(d, "orchestrator", r->o->name);
  put_int(d, "turn_count", r->turn_count);
  emit(r, OCK_EV_CANCEL_COMPLETED, OCK_STAGE_CANCELLED, d, NULL);
  d = obj();
  put_str(d, "response", NULL);
  put_str(d, "status", "cancelled");
  emit(r, OCK_EV_EXECUTION_END, OCK_STAGE_CANCELLED, d, NULL);
  complete_event(r, OCK_EXEC_CANCELLED, OCK_STAGE_CANCELLED);
}

/* ---- routing --------------------------------------------------------------------------------- */

/* resolve announces the routing decision (provider:resolve) and switches to its target.
 * Returns 0 when no provider is left. */
static int resolve(struct run *r, const char *after) {
  struct ock_route d;
  ock_route_decide(r->providers, r->n_providers, r->failed, after, &d);
  if (d.target < 0)
    return 0;
  r->current = d.target;
  cJSON *e = obj();
  put_str(e, "provider", r->providers[d.target]->name);
  put_str(e, "reason", d.reason);
  put_str(e, "fallback", d.fallback >= 0 ? r->providers[d.fallback]->name : NULL);
  emit(r, OCK_EV_PROVIDER_RESOLVE, OCK_STAGE_ROUTE, e, NULL);
  return 1;
}

/* ---- the state machine of one execute ------------------------------------------------------ *
 *
 *   ock_orchestrator_execute
 *        |
 *        v
 *    [ START ] ---- out of memory, blank prompt, no provider, denied ------> (END)
 *        |
 *        | prompt stored, provider:resolve
 *        v
 *  +-> [ REQUEST ] ---- denied, cancelled ----------------------------------> (END)
 *  |       |
 *  |       | sent
 *  |       v
 *  |   [ AWAIT ] ---- a reply without calls, or the wrap-up turn's reply --> (ANSWER)
 *  |     |     |
 *  |     |     +-- error --> [ AFTER ERROR ] ---- give up, cancelled ------> (END)
 *  |     |                         |
 *  +-----|------ retry, fallback --+
 *  |     |
 *  |     | a reply with calls
 *  |     v
 *  |   [ TOOLS ] ---- fail_fast failure, cancelled ------------------------> (END)
 *  |     |
 *  +-----+ every call answered: the next iteration
 *
 *   transition                               function
 *   START -> END                             run_or_refuse
 *   START -> REQUEST                         run_loop, resolve
 *   REQUEST -> AWAIT                         announce_request, send_request
 *   REQUEST -> END                           announce_request, end_turn
 *   AWAIT -> ANSWER                          final_answer
 *   AWAIT -> AFTER ERROR                     after_error, deciding by ock__next_after_error
 *                                            (retry.c: pure, unit-tested from a table)
 *   AFTER ERROR -> REQUEST (retry)           retry_wait
 *   AFTER ERROR -> REQUEST (fallback)        resolve
 *   AFTER ERROR -> END                       after_error, end_turn
 *   AWAIT -> TOOLS                           tool_round (stores the calls first), run_tools
 *   TOOLS -> REQUEST                         one_iteration (iteration + 1)
 *   TOOLS -> END                             tool_round
 *
 * Every END and ANSWER goes through finish_answer, finish_error or finish_cancel. */

/* ---- one LLM turn ---------------------------------------------------------------------------- */

enum turn_end { TURN_OK, TURN_DENIED, TURN_CANCELLED, TURN_FAILED };

/* build_messages: the request copy: the context's messages, then the ephemeral injections
 * (consumed), then for the wrap-up turn the reminder. Nothing here is stored. */
static int build_messages(struct run *r, const struct ock_provider *p, int wrapup,
                          struct ock_history *out) {
  int rc = r->ctx->messages_for_request(r->ctx->self, p, out);
  struct injections *eph = &r->ephemeral;
  for (size_t i = 0; !rc && i < eph->len; i++)
    rc = ock_history_add_text(out, eph->items[i].role, eph->items[i].text);
  if (!rc && wrapup)
    rc = ock_history_add_text(out, OCK_ROLE_USER, WRAP_UP_REMINDER);
  return rc;
}

struct stream_ctx {
  struct run *r;
  const struct ock_provider *p;
  int iteration;
};

static int on_delta(void *user, const struct ock_delta *d) {
  struct stream_ctx *s = user;
  if (ock_cancel_is_set(&s->r->o->cancel))
    return 1;
  cJSON *e = obj();
  put_str(e, "provider", s->p->name);
  put_int(e, "iteration", s->iteration);
  put_str(e, "delta", d->text ? d->text : "");
  if (d->tool_index >= 0) {
    cJSON *t = obj();
    put_int(t, "index", d->tool_index);
    if (d->tool_id)
      put_str(t, "id", d->tool_id);
    if (d->tool_name)
      put_str(t, "name", d->tool_name);
    put_str(t, "arguments", d->tool_args ? d->tool_args : "");
    put_item(e, "tool_call_delta", t);
  }
  emit(s->r, OCK_EV_PROVIDER_STREAM, OCK_STAGE_PLAN, e, NULL);
  return ock_cancel_is_set(&s->r->o->cancel);
}

/* arguments_value: a call's arguments as the events show them: the JSON object the text
 * parses to, else the text itself. */
static cJSON *arguments_value(const char *args) {
  cJSON *v = args ? cJSON_Parse(args) : NULL;
  if (cJSON_IsObject(v))
    return v;
  cJSON_Delete(v);
  return cJSON_CreateString(args ? args : "");
}

static void response_event(struct run *r, const struct ock_provider *p, int iteration,
                           const struct ock_reply *reply, const struct ock_tool_call *calls,
                           size_t n) {
  cJSON *e = obj();
  put_str(e, "provider", p->name);
  put_int(e, "iteration", iteration);
  put_str(e, "content", reply->msg.content ? reply->msg.content : "");
  cJSON *arr = cJSON_CreateArray();
  for (size_t i = 0; arr && i < n; i++) {
    cJSON *c = obj();
    put_str(c, "id", calls[i].id);
    put_str(c, "name", calls[i].name);
    put_item(c, "arguments", arguments_value(calls[i].arguments));
    if (c)
      cJSON_AddItemToArray(arr, c);
  }
  put_item(e, "tool_calls", arr);
  put_str(e, "finish_reason", reply->finish_reason);
  if (reply->input_tokens >= 0 || reply->output_tokens >= 0) {
    cJSON *u = obj();
    put_int(u, "input_tokens", reply->input_tokens < 0 ? 0 : reply->input_tokens);
    put_int(u, "output_tokens", reply->output_tokens < 0 ? 0 : reply->output_tokens);
    put_item(e, "usage", u);
  }
  emit(r, OCK_EV_PROVIDER_RESPONSE, OCK_STAGE_PLAN, e, NULL);
}

static void error_event(struct run *r, const struct ock_provider *p, int iteration, int attempt,
                        const struct ock_llm_error *err, int retryable) {
  cJSON *e = obj();
  put_str(e, "provider", p->name);
  put_int(e, "iteration", iteration);
  put_int(e, "attempt", attempt);
  put_item(e, "error", error_obj(err->type, err->message));
  if (e)
    cJSON_AddBoolToObject(e, "retryable", retryable);
  if (err->status > 0)
    put_int(e, "status_code", err->status);
  else
    put_str(e, "status_code", NULL);
  emit(r, OCK_EV_PROVIDER_ERROR, OCK_STAGE_PLAN, e, NULL);
}

/* cancelled_request closes an open request that cancellation abandoned or kept from going out:
 * provider:error type cancelled, not retryable, no status. */
static void cancelled_request(struct run *r, const struct ock_provider *p, int iteration,
                              int attempt) {
  struct ock_llm_error c = {.kind = OCK_LLM_CANCELLED, .retry_after_ms = -1};
  snprintf(c.type, sizeof c.type, "cancelled");
  snprintf(c.message, sizeof c.message, "the request was abandoned: cancellation requested");
  error_event(r, p, iteration, attempt, &c, 0);
}

/* call_provider sends one request (streamed or not). */
static int call_provider(struct run *r, const struct ock_provider *p, int iteration, int wrapup,
                         const struct ock_history *msgs, struct ock_reply *reply,
                         struct ock_llm_error *err) {
  struct ock_llm_request req = {.messages = msgs,
                                .tools = wrapup ? NULL : r->specs,
                                .n_tools = wrapup ? 0 : r->n_tools,
                                .stream = r->stream && p->stream != NULL,
                                .trace_id = r->trace_id,
                                .timeout_ms = r->cfg->request_timeout_ms,
                                .cancel = &r->o->cancel};
  if (req.stream) {
    struct stream_ctx s = {.r = r, .p = p, .iteration = iteration};
    return p->stream(p->self, &req, on_delta, &s, reply, err);
  }
  if (!p->complete) { /* a provider without complete: a caller's bug, never worth a retry */
    err->kind = OCK_LLM_MALFORMED;
    snprintf(err->type, sizeof err->type, "unsupported");
    snprintf(err->message, sizeof err->message, "provider \"%s\" has no complete function",
             p->name);
    return OCK_EINVAL;
  }
  return p->complete(p->self, &req, reply, err);
}

/* reply_calls: the tool calls of a reply, as the provider parses them (borrowed from reply). */
static void reply_calls(const struct ock_provider *p, const struct ock_reply *reply,
                        const struct ock_tool_call **calls, size_t *n) {
  *calls = reply->msg.calls;
  *n = reply->msg.n_calls;
  if (p->parse_tool_calls && p->parse_tool_calls(p->self, reply, calls, n)) {
    *calls = reply->msg.calls;
    *n = reply->msg.n_calls;
  }
}

/* announce_request: provider:request, then a hook's denial, or a cancellation noticed while
 * the event was out (the request is then never sent, no turn counts, it is only closed).
 * TURN_OK means: send it. */
static enum turn_end announce_request(struct run *r, const struct ock_provider *p, int iteration,
                                      int attempt) {
  cJSON *e = obj();
  put_str(e, "provider", p->name);
  put_str(e, "model", p->model);
  put_int(e, "iteration", iteration);
  put_int(e, "attempt", attempt);
  struct ock_hook_result hr;
  emit(r, OCK_EV_PROVIDER_REQUEST, OCK_STAGE_PLAN, e, &hr);
  int deny = denied(r, &hr);
  ock_hook_result_clear(&hr);
  if (deny)
    return TURN_DENIED;
  if (ock__check_cancel(r)) {
    cancelled_request(r, p, iteration, attempt);
    return TURN_CANCELLED;
  }
  return TURN_OK;
}

/* send_request builds the request copy and sends it. *sent says whether it went out; a turn
 * counts once (*counted), when its first request goes out. On failure err says why and the
 * reply is cleared. */
static int send_request(struct run *r, const struct ock_provider *p, int iteration, int wrapup,
                        int *counted, struct ock_reply *reply, struct ock_llm_error *err,
                        int *sent) {
  struct ock_history msgs;
  ock_history_init(&msgs);
  memset(err, 0, sizeof *err);
  err->retry_after_ms = -1;
  *sent = 0;
  int rc = build_messages(r, p, wrapup, &msgs);
  if (rc) {
    ock_history_free(&msgs);
    err->kind = OCK_LLM_MALFORMED;
    snprintf(err->type, sizeof err->type, "internal_error");
    snprintf(err->message, sizeof err->message, "could not build the request: %s",
             ock_strerror(rc));
    return rc;
  }
  if (!*counted)
    r->turn_count++;
  *counted = 1;
  *sent = 1;
  injections_clear(&r->ephemeral); /* sent once: this request was its "next request" */
  ock_reply_clear(reply);
  rc = call_provider(r, p, iteration, wrapup, &msgs, reply, err);
  ock_history_free(&msgs);
  if (rc)
    ock_reply_clear(reply);
  return rc;
}

/* retry_wait: provider:retry, then the backoff before retry number n of this request. */
static void retry_wait(struct run *r, const struct ock_provider *p, int iteration, int attempt,
                       const struct ock_llm_error *err, int n) {
  double u = r->o->rt.random(r->o->rt.user);
  long delay = ock__retry_delay_ms(err->retry_after_ms, n, r->cfg->retry_base_delay_ms,
                                   r->cfg->retry_max_delay_ms, r->cfg->retry_jitter, u);
  cJSON *d = obj();
  put_str(d, "provider", p->name);
  put_int(d, "iteration", iteration);
  put_int(d, "attempt", attempt + 1);
  put_int(d, "delay_ms", delay);
  put_item(d, "error", error_obj(err->type, err->message));
  emit(r, OCK_EV_PROVIDER_RETRY, OCK_STAGE_PLAN, d, NULL);
  r->o->rt.sleep_ms(r->o->rt.user, delay, &r->o->cancel);
}

/* after_error carries out ock__next_after_error's decision on a failed request (*retries
 * counts the retries of this turn with this provider). Returns TURN_OK when the turn goes on
 * with another request (a retry, or a fallback's provider), else how the turn ended. */
static enum turn_end after_error(struct run *r, const struct ock_provider *p, int iteration,
                                 int attempt, const struct ock_llm_error *err, int sent,
                                 int *retries) {
  int cancel_requested = sent && ock_cancel_is_set(&r->o->cancel);
  struct ock__after_error a = ock__next_after_error(err, cancel_requested, *retries, r->cfg);
  if (a.next == OCK__AFTER_CANCELLED) {
    /* The request was abandoned: close it in the event log, discard any reply. */
    cancelled_request(r, p, iteration, attempt);
    ock__check_cancel(r);
    return TURN_CANCELLED;
  }
  error_event(r, p, iteration, attempt, err, a.retryable);
  r->last_error = *err;
  snprintf(r->last_provider, sizeof r->last_provider, "%s", p->name);
  if (a.next == OCK__AFTER_FAILED)
    return TURN_FAILED;
  if (a.next == OCK__AFTER_FALLBACK)
    r->failed[r->current] = 1; /* failed for good: out for the rest of this execute */
  if (ock__check_cancel(r))
    return TURN_CANCELLED;
  if (a.next == OCK__AFTER_RETRY) {
    *retries = a.retry;
    retry_wait(r, p, iteration, attempt, err, a.retry);
    return TURN_OK;
  }
  if (!resolve(r, p->name))
    return TURN_FAILED;
  *retries = 0; /* the budget is per turn and provider */
  return TURN_OK;
}

/* request_turn runs LLM turn `iteration` to a reply (and its tool calls, borrowed from it),
 * through retries and fallbacks as the error strategy allows. */
static enum turn_end request_turn(struct run *r, int iteration, int wrapup, struct ock_reply *reply,
                                  const struct ock_tool_call **calls, size_t *n_calls) {
  int attempt = 0, retries = 0, counted = 0;
  for (;;) {
    if (ock__check_cancel(r))
      return TURN_CANCELLED;
    const struct ock_provider *p = r->providers[r->current];
    attempt++;
    enum turn_end t = announce_request(r, p, iteration, attempt);
    if (t != TURN_OK)
      return t;
    struct ock_llm_error err;
    int sent = 0;
    if (send_request(r, p, iteration, wrapup, &counted, reply, &err, &sent) == OCK_OK) {
      reply_calls(p, reply, calls, n_calls);
      response_event(r, p, iteration, reply, *calls, *n_calls);
      return TURN_OK;
    }
    t = after_error(r, p, iteration, attempt, &err, sent, &retries);
    if (t != TURN_OK)
      return t;
  }
}

/* ---- tools ----------------------------------------------------------------------------------- */

/* How one tool call ended; exactly one of these per call. */
enum call_end {
  CALL_PENDING,  /* not decided yet */
  CALL_RESULT,   /* the tool returned a ToolResult (success true or false): tool:post */
  CALL_ERROR,    /* tool:error of error_type */
  CALL_UNSTARTED /* never started (cancelled or skipped): a result, no events */
};

struct call {
  const struct ock_tool_call *tc; /* the model's call */
  const char *name;               /* the tool to run (a scheduler may change it) */
  char *name_owned;
  cJSON *input;      /* the input to send; NULL when the arguments are invalid */
  char invalid[256]; /* why the arguments are invalid */
  const struct ock_tool *tool;
  struct ock_tool_env env;
  int started; /* tool:pre was emitted */
  int threaded;
  pthread_t thread;
  int exec_rc;
  cJSON *result;
  char detail[512];
  enum call_end end;
  const char *error_type;
  char *text; /* the tool result text for the context */
};

static void *call_thread(void *arg) {
  struct call *c = arg;
  c->exec_rc = c->tool->execute(c->tool->self, c->tc->id, c->input, &c->env, &c->result, c->detail,
                                sizeof c->detail);
  return NULL;
}

static const struct ock_tool *find_tool(const struct run *r, const char *name) {
  for (size_t i = 0; name && i < r->n_tools; i++)
    if (r->tools[i] && r->tools[i]->spec.name && !strcmp(r->tools[i]->spec.name, name))
      return r->tools[i];
  return NULL;
}

/* parse_input reads a call's arguments; only a JSON object is a valid tool input. */
static cJSON *parse_input(const char *args, char *why, size_t n) {
  if (!args || !*args)
    return cJSON_CreateObject();
  cJSON *v = cJSON_Parse(args);
  if (!v) {
    snprintf(why, n, "not valid JSON: %.120s", args);
    return NULL;
  }
  if (!cJSON_IsObject(v)) {
    snprintf(why, n, "expected a JSON object, got %s", ock_json_type_name(v));
    cJSON_Delete(v);
    return NULL;
  }
  return v;
}

static void set_text(struct call *c, const char *fmt, const char *arg) {
  size_t n = strlen(fmt) + (arg ? strlen(arg) : 0) + 1;
  c->text = malloc(n);
  if (c->text)
    snprintf(c->text, n, fmt, arg ? arg : "");
}

/* call_error ends a call with tool:error (only for calls whose events began). */
static void call_error(struct run *r, struct call *c, const char *type, const char *message,
                       const char *group) {
  c->end = CALL_ERROR;
  c->error_type = type;
  cJSON *d = obj();
  put_str(d, "tool_call_id", c->tc->id);
  put_str(d, "tool_name", c->name);
  put_item(d, "error", error_obj(type, message));
  put_str(d, "parallel_group_id", group);
  emit(r, OCK_EV_TOOL_ERROR, OCK_STAGE_EXECUTE, d, NULL);
}

static void call_denied(struct run *r, struct call *c, const char *group) {
  set_text(c, "Error: denied: %s", r->deny_reason);
  call_error(r, c, "denied", r->deny_reason, group);
}

/* select_call: events mode: a scheduler may veto the call or change its tool and input. */
static void select_call(struct run *r, struct call *c, const char *group) {
  cJSON *d = obj();
  put_str(d, "tool_call_id", c->tc->id);
  put_str(d, "tool_name", c->name);
  put_item(d, "tool_input",
           c->input ? cJSON_Duplicate(c->input, 1)
                    : cJSON_CreateString(c->tc->arguments ? c->tc->arguments : ""));
  cJSON *avail = cJSON_CreateArray();
  for (size_t i = 0; avail && i < r->n_tools; i++)
    if (r->tools[i])
      cJSON_AddItemToArray(avail, cJSON_CreateString(r->tools[i]->spec.name));
  put_item(d, "available_tools", avail);
  struct ock_hook_result hr;
  emit(r, OCK_EV_TOOL_SELECTING, OCK_STAGE_EXECUTE, d, &hr);
  if (denied(r, &hr)) {
    ock_hook_result_clear(&hr);
    call_denied(r, c, group);
    return;
  }
  int changed = 0;
  if (hr.action == OCK_HOOK_MODIFY && cJSON_IsObject(hr.data)) {
    const char *tool = ock_json_str(hr.data, "tool");
    const cJSON *in = cJSON_GetObjectItemCaseSensitive(hr.data, "tool_input");
    if (!in)
      in = cJSON_GetObjectItemCaseSensitive(hr.data, "arguments");
    if (tool && *tool && strcmp(tool, c->name)) {
      char *copy = strdup(tool);
      if (copy) {
        free(c->name_owned);
        c->name = c->name_owned = copy;
        changed = 1;
      }
    }
    if (cJSON_IsObject(in) && !(c->input && cJSON_Compare(in, c->input, 1))) {
      cJSON *copy = cJSON_Duplicate(in, 1);
      if (copy) {
        cJSON_Delete(c->input);
        c->input = copy;
        changed = 1;
      }
    }
  }
  ock_hook_result_clear(&hr);
  d = obj();
  put_str(d, "tool_call_id", c->tc->id);
  put_str(d, "tool_name", c->name);
  put_str(d, "source", changed ? "scheduler" : "llm");
  put_str(d, "original_tool", changed ? c->tc->name : NULL);
  emit(r, OCK_EV_TOOL_SELECTED, OCK_STAGE_EXECUTE, d, NULL);
}

/* start_call: tool:pre, then not found / denied / invalid arguments, or the tool starts. */
static void start_call(struct run *r, struct call *c, const char *group, int parallel) {
  c->started = 1;
  cJSON *d = obj();
  put_str(d, "tool_call_id", c->tc->id);
  put_str(d, "tool_name", c->name);
  put_item(d, "tool_input",
           c->input ? cJSON_Duplicate(c->input, 1)
                    : cJSON_CreateString(c->tc->arguments ? c->tc->arguments : ""));
  put_str(d, "parallel_group_id", group);
  struct ock_hook_result hr;
  emit(r, OCK_EV_TOOL_PRE, OCK_STAGE_EXECUTE, d, &hr);
  if (denied(r, &hr)) {
    ock_hook_result_clear(&hr);
    call_denied(r, c, group);
    return;
  }
  if (hr.action == OCK_HOOK_MODIFY && cJSON_IsObject(hr.data)) {
    const cJSON *in = cJSON_GetObjectItemCaseSensitive(hr.data, "tool_input");
    if (in && !cJSON_IsNull(in) && !(c->input && cJSON_Compare(in, c->input, 1))) {
      cJSON *copy = cJSON_Duplicate(in, 1);
      if (copy) {
        cJSON_Delete(c->input);
        c->input = copy;
      }
    }
  }
  ock_hook_result_clear(&hr);
  if (ock__check_cancel(r)) { /* noticed while tool:pre was out: the tool never starts */
    set_text(c, "Error: cancelled", NULL);
    call_error(r, c, "cancelled", "cancelled before the tool started", group);
    return;
  }
  c->tool = find_tool(r, c->name);
  if (!c->tool || !c->tool->execute) {
    char msg[300];
    snprintf(msg, sizeof msg, "tool '%.200s' not found", c->name ? c->name : "");
    set_text(c, "Error: %s", msg);
    call_error(r, c, "not_found", msg, group);
    return;
  }
  if (!c->input) {
    set_text(c, "Error: invalid arguments: %s", c->invalid);
    call_error(r, c, "invalid_arguments", c->invalid, group);
    return;
  }
  c->env.trace_id = r->trace_id;
  c->env.timeout_ms = r->cfg->tool_timeout_ms;
  c->env.cancel = &r->o->cancel;
  if (parallel && pthread_create(&c->thread, NULL, call_thread, c) == 0) {
    c->threaded = 1;
    return;
  }
  call_thread(c); /* sequential, or no thread to be had: run it here */
}

/* finish_call reports how a started tool ended: tool:post for a ToolResult, tool:error for an
 * endpoint failure, a timeout or cancellation. */
static void finish_call(struct run *r, struct call *c, const char *group) {
  if (c->threaded) {
    pthread_join(c->thread, NULL);
    c->threaded = 0;
  }
  if (c->end != CALL_PENDING || !c->started)
    return;
  if (c->exec_rc == OCK_OK &&
      cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(c->result, "success"))) {
    c->end = CALL_RESULT;
    c->text = ock_tool_result_text(c->result);
    cJSON *d = obj();
    put_str(d, "tool_call_id", c->tc->id);
    put_str(d, "tool_name", c->name);
    put_item(d, "result", cJSON_Duplicate(c->result, 1));
    put_str(d, "parallel_group_id", group);
    emit(r, OCK_EV_TOOL_POST, OCK_STAGE_EXECUTE, d, NULL);
    return;
  }
  if (c->exec_rc == OCK_ECANCELLED) {
    set_text(c, "Error: cancelled", NULL);
    call_error(r, c, "cancelled", "cancelled before the tool finished", group);
    return;
  }
  char msg[700];
  if (c->exec_rc == OCK_OK)
    snprintf(msg, sizeof msg,
             "tool '%.100s' answered something that is not a ToolResult (no boolean success)",
             c->name);
  else if (c->detail[0])
    snprintf(msg, sizeof msg, "%s", c->detail);
  else
    snprintf(msg, sizeof msg, "tool '%.100s' failed: %s", c->name, ock_strerror(c->exec_rc));
  set_text(c, "Error: %s", msg);
  call_error(r, c, c->exec_rc == OCK_ETIMEDOUT ? "timeout" : "execution_failed", msg, group);
}

/* a tool failure that ends the execute under fail_fast */
static int is_failure(const struct call *c) {
  return c->end == CALL_ERROR &&
         (!strcmp(c->error_type, "execution_failed") || !strcmp(c->error_type, "timeout") ||
          !strcmp(c->error_type, "invalid_arguments"));
}

/* make_group_id: a version-4 UUID whose last four bytes count the responses this orchestrator
 * has seen, so two responses never share an ID even with a poor random source. */
static void make_group_id(struct run *r, char *out, size_t n) {
  unsigned char b[16];
  unsigned long seq = ++r->o->groups;
  for (int i = 0; i < 12; i++)
    b[i] = (unsigned char)(r->o->rt.random(r->o->rt.user) * 256.0);
  for (int i = 0; i < 4; i++)
    b[12 + i] = (unsigned char)(seq >> (8 * (3 - i)));
  b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
  b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
  snprintf(out, n, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
           b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
           b[15]);
}

enum tools_end { TOOLS_OK, TOOLS_CANCELLED, TOOLS_FAILED };

/* answer_all: every call gets the same error result (when the calls cannot be run at all). */
static void answer_all(struct run *r, const struct ock_tool_call *calls, size_t n,
                       const char *text) {
  for (size_t i = 0; i < n; i++) {
    struct ock_message m = {.role = OCK_ROLE_TOOL,
                            .content = (char *)text,
                            .tool_call_id = calls[i].id,
                            .is_error = 1,
                            .wire_index = -1};
    store(r, &m);
  }
}

/* start_calls starts (or, sequentially, runs) the calls in order; a call after cancellation
 * or after a fail_fast failure never starts. Returns the first fail_fast failure, or -1. */
static int start_calls(struct run *r, struct call *cs, size_t n, const char *group, int fail_fast) {
  int parallel = r->cfg->parallel_tools && n > 1;
  int failed = -1;
  for (size_t i = 0; i < n; i++) {
    struct call *c = &cs[i];
    if (ock__check_cancel(r) || (fail_fast && failed >= 0)) {
      c->end = CALL_UNSTARTED; /* never started: a result, no events */
      set_text(c, r->cancel_noticed ? "Error: cancelled" : SKIPPED, NULL);
      continue;
    }
    if (r->scheduling) {
      select_call(r, c, group);
      if (c->end != CALL_PENDING)
        continue; /* vetoed */
      if (ock__check_cancel(r)) {
        set_text(c, "Error: cancelled", NULL); /* selected, never started: close it */
        call_error(r, c, "cancelled", "cancelled before the tool started", group);
        continue;
      }
    }
    start_call(r, c, group, parallel);
    if (!c->threaded)
      finish_call(r, c, group);
    if (failed < 0 && is_failure(c))
      failed = (int)i;
  }
  return failed;
}

/* finish_calls waits for every thread, then reports how each started call ended. Returns the
 * first fail_fast failure (failed, or a later one found now), or -1. */
static int finish_calls(struct run *r, struct call *cs, size_t n, const char *group, int failed) {
  for (size_t i = 0; i < n; i++) {
    if (cs[i].threaded) {
      pthread_join(cs[i].thread, NULL);
      cs[i].threaded = 0;
    }
  }
  ock__check_cancel(r); /* a tool that gave up on cancellation is reported after cancel:requested */
  for (size_t i = 0; i < n; i++) {
    finish_call(r, &cs[i], group);
    if (failed < 0 && is_failure(&cs[i]))
      failed = (int)i;
  }
  return failed;
}

static void store_results(struct run *r, const struct call *cs, size_t n) {
  for (size_t i = 0; i < n; i++) {
    struct ock_message m = {.role = OCK_ROLE_TOOL,
                            .content = cs[i].text ? cs[i].text : "Error: out of memory",
                            .tool_call_id = cs[i].tc->id,
                            .is_error = cs[i].end != CALL_RESULT ||
                                        !ock_json_bool(cs[i].result, "success", 1),
                            .wire_index = -1};
    store(r, &m);
  }
}

static void free_calls(struct call *cs, size_t n) {
  for (size_t i = 0; i < n; i++) {
    free(cs[i].name_owned);
    cJSON_Delete(cs[i].input);
    cJSON_Delete(cs[i].result);
    free(cs[i].text);
  }
  free(cs);
}

/* run_tools gives every call of one response exactly one result, added in call order after
 * all of them ended, then the kept injections. A fail_fast failure is described in fail_msg
 * and *fail_type. */
static enum tools_end run_tools(struct run *r, const struct ock_tool_call *calls, size_t n, int cut,
                                char *fail_msg, size_t fail_len, const char **fail_type) {
  char group[40];
  make_group_id(r, group, sizeof group);
  struct call *cs = calloc(n, sizeof *cs);
  if (!cs) {
    /* Cannot track the calls: still answer each one so the context stays valid. */
    answer_all(r, calls, n, "Error: out of memory");
    snprintf(fail_msg, fail_len, "out of memory running tools");
    *fail_type = "internal_error";
    return TOOLS_FAILED;
  }
  for (size_t i = 0; i < n; i++) {
    cs[i].tc = &calls[i];
    cs[i].name = calls[i].name ? calls[i].name : "";
    cs[i].input = parse_input(calls[i].arguments, cs[i].invalid, sizeof cs[i].invalid);
    if (cut && cs[i].input) { /* parsed, but maybe cut short: not run (SPEC.md 5.8 step 1) */
      cJSON_Delete(cs[i].input);
      cs[i].input = NULL;
      snprintf(cs[i].invalid, sizeof cs[i].invalid,
               "the reply stopped at the output token limit; the arguments may be cut short");
    }
  }
  int fail_fast = r->cfg->error_strategy == OCK_ERROR_STRATEGY_FAIL_FAST;
  int failed = start_calls(r, cs, n, group, fail_fast);
  failed = finish_calls(r, cs, n, group, failed);
  store_results(r, cs, n);
  release_kept(r); /* after the results: never between a call and its results */
  enum tools_end end = TOOLS_OK;
  if (fail_fast && failed >= 0) {
    struct call *c = &cs[failed];
    snprintf(fail_msg, fail_len, "tool '%.100s' (call %.100s) failed: %.300s", c->name, c->tc->id,
             c->text ? c->text : "");
    *fail_type = c->error_type;
    end = TOOLS_FAILED;
  }
  if (r->cancel_noticed)
    end = TOOLS_CANCELLED;
  free_calls(cs, n);
  return end;
}

/* ---- the loop -------------------------------------------------------------------------------- */

/* end_turn ends the execute after a turn without a reply: denied, cancelled or failed. */
static void end_turn(struct run *r, enum turn_end t) {
  if (t == TURN_DENIED) {
    /* The context keeps what it holds; nothing is stored for the denial. */
    char text[600];
    snprintf(text, sizeof text, "Denied: %s", r->deny_reason);
    finish_answer(r, OCK_EXEC_INCOMPLETE, "denied", text);
  } else if (t == TURN_CANCELLED) {
    finish_cancel(r);
  } else {
    char msg[800];
    snprintf(msg, sizeof msg, "provider '%s': %s", r->last_provider, r->last_error.message);
    finish_error(r, r->last_error.type[0] ? r->last_error.type : "provider_error", msg);
  }
}

/* final_answer ends the execute with a reply that is an answer. The wrap-up turn's tool calls
 * are discarded (neither stored nor run). An empty answer is not stored: no API accepts an
 * empty assistant message. Once cancellation is noticed the answer is not delivered, so it is
 * not stored either. */
static void final_answer(struct run *r, const struct ock_reply *reply, int wrapup) {
  const char *text = reply->msg.content ? reply->msg.content : "";
  if (ock__check_cancel(r)) {
    finish_cancel(r);
    return;
  }
  if (*text)
    store_text(r, OCK_ROLE_ASSISTANT, text);
  if (wrapup)
    finish_answer(r, OCK_EXEC_INCOMPLETE, "max_iterations", text);
  else
    finish_answer(r, OCK_EXEC_SUCCESS, NULL, text);
}

/* tool_round stores a reply with tool calls and runs them. Returns 1 when the execute ended
 * (cancelled, or a fail_fast failure), 0 when the next turn follows. */
static int tool_round(struct run *r, const struct ock_reply *reply,
                      const struct ock_tool_call *calls, size_t n) {
  struct ock_message m = {.role = OCK_ROLE_ASSISTANT,
                          .content = reply->msg.content,
                          .calls = (struct ock_tool_call *)calls,
                          .n_calls = n,
                          .wire_index = -1};
  store(r, &m);     /* before any tool runs: the calls are in the context whatever happens */
  r->hold_kept = 1; /* the round is open until every call has its result */
  if (ock__check_cancel(r)) {
    answer_all(r, calls, n, "Error: cancelled");
    release_kept(r);
    finish_cancel(r);
    return 1;
  }
  char fail_msg[600] = "";
  const char *fail_type = "execution_failed";
  int cut = ock_finish_is_token_limit(reply->finish_reason);
  enum tools_end te = run_tools(r, calls, n, cut, fail_msg, sizeof fail_msg, &fail_type);
  if (te == TOOLS_CANCELLED)
    finish_cancel(r);
  else if (te == TOOLS_FAILED)
    finish_error(r, fail_type, fail_msg);
  return te != TOOLS_OK;
}

/* one_iteration runs LLM turn `iteration` and what follows its reply. Returns 1 when the
 * execute ended. */
static int one_iteration(struct run *r, int iteration, struct ock_reply *reply) {
  int wrapup = iteration > r->cfg->max_iterations;
  const struct ock_tool_call *calls = NULL;
  size_t n = 0;
  enum turn_end t = request_turn(r, iteration, wrapup, reply, &calls, &n);
  if (t != TURN_OK) {
    end_turn(r, t);
    return 1;
  }
  if (wrapup || n == 0) {
    final_answer(r, reply, wrapup);
    return 1;
  }
  return tool_round(r, reply, calls, n);
}

static void run_loop(struct run *r, const char *prompt) {
  store_text(r, OCK_ROLE_USER, prompt);
  release_kept(r); /* a prompt:submit injection goes after the prompt */
  if (ock__check_cancel(r)) {
    finish_cancel(r);
    return;
  }
  resolve(r, NULL);
  struct ock_reply reply;
  ock_reply_init(&reply);
  for (int iteration = 1; !one_iteration(r, iteration, &reply); iteration++)
    ;
  ock_reply_clear(&reply);
}

static void make_trace_id(ock_orchestrator *o, char *out, size_t n) {
  unsigned long long hi = (unsigned long long)(o->rt.random(o->rt.user) * 4294967296.0);
  unsigned long long lo = (unsigned long long)(o->rt.random(o->rt.user) * 4294967296.0);
  snprintf(out, n, "ock-%08llx%08llx", hi, lo);
}

/* offer_tools: the tools that exist (NULL entries skipped) into dense, and how they are
 * offered to the model into specs (both caller-freed, NULL when out of memory). Returns how
 * many there are. */
static size_t offer_tools(const struct ock_tool *const *tools, size_t n_tools,
                          const struct ock_tool ***dense, struct ock_tool_spec **specs) {
  *dense = calloc(n_tools ? n_tools : 1, sizeof **dense);
  *specs = calloc(n_tools ? n_tools : 1, sizeof **specs);
  size_t k = 0;
  for (size_t i = 0; *dense && *specs && tools && i < n_tools; i++) {
    if (tools[i]) {
      (*dense)[k] = tools[i];
      (*specs)[k++] = tools[i]->spec;
    }
  }
  return k;
}

/* announce arms cancellation and emits prompt:submit (its hook answer goes to *submit) and
 * execution:start. */
static void announce(struct run *r, const char *prompt, struct ock_hook_result *submit) {
  cJSON *d = obj();
  put_str(d, "prompt", prompt ? prompt : "");
  /* Armed only now, as late as possible: a SIGINT that arrives before this execute announced
   * itself was meant for the gap between executes, and is ignored. */
  atomic_store(&r->o->cancel.flag, 0);
  atomic_store(&r->o->armed, 1);
  emit(r, OCK_EV_PROMPT_SUBMIT, OCK_STAGE_INITIALIZE, d, submit);
  d = obj();
  put_str(d, "prompt", prompt ? prompt : "");
  emit(r, OCK_EV_EXECUTION_START, OCK_STAGE_INITIALIZE, d, NULL);
}

/* run_or_refuse: the loop, unless the execute ends before it (out of memory, a blank prompt,
 * no provider, a denied prompt:submit). */
static void run_or_refuse(struct run *r, const char *prompt, int ready,
                          const struct ock_hook_result *submit) {
  struct ock_route first;
  ock_route_decide(r->providers, r->n_providers, NULL, NULL, &first);
  if (!ready) {
    finish_error(r, "internal_error", "out of memory");
  } else if (ock_utf8_is_blank(prompt)) {
    finish_error(r, "invalid_input", "the prompt is empty or only whitespace; nothing was sent");
  } else if (first.target < 0) {
    finish_error(r, "no_provider",
                 "no provider is configured: the session lists none, so no LLM can answer");
  } else if (denied(r, submit)) {
    /* Nothing was stored yet, and nothing is: the prompt never entered the conversation. */
    char text[600];
    snprintf(text, sizeof text, "Denied: %s", r->deny_reason);
    finish_answer(r, OCK_EXEC_INCOMPLETE, "denied", text);
  } else {
    run_loop(r, prompt);
  }
}

int ock_orchestrator_execute(ock_orchestrator *o, const char *prompt, const ock_exec_context *exec,
                             const struct ock_context *context,
                             const struct ock_provider *const *providers, size_t n_providers,
                             const struct ock_tool *const *tools, size_t n_tools,
                             const struct ock_hooks *hooks, struct ock_exec_result *out) {
  if (!o || !context || !context->add_message || !context->messages_for_request || !out)
    return OCK_EINVAL;
  int idle = 0;
  if (!atomic_compare_exchange_strong(&o->busy, &idle, 1))
    return OCK_ESTATE;
  memset(out, 0, sizeof *out);

  char generated[40];
  const char *trace_id = ock_exec_context_trace_id(exec);
  if (!trace_id) {
    make_trace_id(o, generated, sizeof generated);
    trace_id = generated;
  }
  const struct ock_tool **dense = NULL;
  struct ock_tool_spec *specs = NULL;
  size_t k = offer_tools(tools, n_tools, &dense, &specs);
  struct run r = {.o = o,
                  .cfg = &o->cfg,
                  .trace_id = trace_id,
                  .ctx = context,
                  .providers = providers,
                  .n_providers = providers ? n_providers : 0,
                  .tools = dense,
                  .n_tools = k,
                  .specs = specs,
                  .hooks = hooks,
                  .stream = o->cfg.streaming || o->cfg.mode == OCK_MODE_STREAMING,
                  .scheduling = o->cfg.mode == OCK_MODE_EVENTS,
                  .stage = OCK_STAGE_INITIALIZE,
                  .hold_kept = 1, /* until the prompt is stored */
                  .res = out};
  r.failed = calloc(r.n_providers ? r.n_providers : 1, 1);
  struct ock_hook_result submit;
  announce(&r, prompt, &submit);
  run_or_refuse(&r, prompt, r.failed && dense && specs, &submit);
  if (r.store_failed && out->status != OCK_EXEC_ERROR)
    fprintf(stderr, "ock-orchestrator: warning: the context manager refused a message\n");
  ock_hook_result_clear(&submit);
  injections_clear(&r.kept); /* injections with nowhere to go in this execute are dropped */
  injections_clear(&r.ephemeral);
  free(r.failed);
  free(dense);
  free(specs);
  atomic_store(&o->armed, 0);
  atomic_store(&o->cancel.flag, 0); /* a SIGINT from the end of this execute is not for the next */
  atomic_store(&o->busy, 0);
  return OCK_OK;
}
