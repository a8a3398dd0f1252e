/*
 * grammar.c: the event automaton of SPEC.md 3.3 (see ock/grammar.h).
 *
 * One function per symbol class, each checking the "accepted when" column of SPEC.md 3.3's
 * table in the order the table lists it and applying the "effect" column. A failed
 * precondition is reported with the requirement whose sentence names that rule (the table
 * below); the rest is OCK-ORDER-007, the grammar as a whole.
 *
 *           prompt:submit[/deny]                       orchestrator:complete (quiet)
 *   IDLE ───────────────────────▶ EXECUTE record ──────────────────────────────────▶ IDLE
 *                                  │ req:  NONE ─request─▶ OPEN ─response─▶ OK
 *                                  │                        └──error──▶ ERR ─retry|resolve─▶
 * (recovered) │ calls[id]: SELECTING ─▶ SELECTED ─▶ STARTED ─▶ DONE │ cancel: NONE ─requested─▶
 * REQUESTED ─completed─▶ COMPLETED └ completed (prompt:complete), ended (execution:end)
 *
 *   rule broken                                   requirement
 *   a symbol before the first prompt:submit       OCK-ORDER-001
 *   prompt:submit inside an execute, input ends   OCK-COMPLETE-001
 *   orchestrator:complete again                   OCK-COMPLETE-001
 *   anything else after orchestrator:complete     OCK-COMPLETE-002
 *   open request (stream/response/error/...)      OCK-ORDER-002
 *   tool call pairing, open calls                 OCK-ORDER-003
 *   prompt:complete placement, body after it      OCK-ORDER-004
 *   execution:start/end placement                 OCK-LIFECYCLE-001
 *   cancel:requested/completed count and order    OCK-CANCEL-002
 *   tool:selected without tool:selecting          OCK-HOOK-010
 *   tool event without a string tool_call_id      OCK-TOOL-007
 *   everything else                               OCK-ORDER-007
 */
#include "ock/contract.h"
#include "ock/grammar.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ock/caps.h"
#include "ock/status.h"

enum req_state { REQ_NONE, REQ_OPEN, REQ_OK, REQ_ERR };
enum denial { DENIED_NONE, DENIED_SUBMIT, DENIED_REQUEST };
enum cancel_state { CANCEL_NONE, CANCEL_REQUESTED, CANCEL_COMPLETED };
enum call_state { CALL_SELECTING, CALL_SELECTING_DENIED, CALL_SELECTED, CALL_STARTED, CALL_DONE };

struct call {
  char *id;
  enum call_state state;
};

struct ock_grammar {
  ock_grammar_violation_fn on_violation;
  void *user;
  int executes;   /* prompt:submit symbols seen */
  int in_execute; /* 0: IDLE */
  int broken;     /* a symbol of this execute was rejected: skip to its end */
  long first_rejected;
  /* the execute record of SPEC.md 3.3 */
  enum ock_event prev;
  enum denial denied;
  enum req_state req;
  int recovered, resolved, tools_after_response, completed, ended, started;
  enum cancel_state cancel;
  struct call *calls;
  size_t n_calls, cap_calls;
};

static void reject(ock_grammar *g, long seq, const char *req, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void reject(ock_grammar *g, long seq, const char *req, const char *fmt, ...) {
  struct ock_grammar_violation v = {
      .requirement = req, .seq = seq, .execute = g->executes, .first = g->first_rejected < 0};
  if (g->first_rejected < 0)
    g->first_rejected = seq;
  if (g->in_execute)
    g->broken = 1;
  if (!g->on_violation)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(v.message, sizeof v.message, fmt, ap);
  va_end(ap);
  g->on_violation(g->user, &v);
}

int ock_grammar_new(ock_grammar_violation_fn on_violation, void *user, ock_grammar **out) {
  ock_grammar *g = calloc(1, sizeof *g);
  if (!g)
    return OCK_ENOMEM;
  g->on_violation = on_violation;
  g->user = user;
  g->first_rejected = -1;
  *out = g;
  return OCK_OK;
}

static void forget_calls(ock_grammar *g) {
  for (size_t i = 0; i < g->n_calls; i++)
    free(g->calls[i].id);
  g->n_calls = 0;
}

void ock_grammar_free(ock_grammar *g) {
  if (!g)
    return;
  forget_calls(g);
  free(g->calls);
  free(g);
}

int ock_grammar_executes(const ock_grammar *g) {
  return g->executes;
}

long ock_grammar_first_rejected(const ock_grammar *g) {
  return g->first_rejected;
}

static struct call *find_call(const ock_grammar *g, const char *id) {
  for (size_t i = 0; i < g->n_calls; i++)
    if (!strcmp(g->calls[i].id, id))
      return &g->calls[i];
  return NULL;
}

/* add_call: NULL when the cap is reached or memory ran out (the caller rejects). */
static struct call *add_call(ock_grammar *g, const char *id, enum call_state state) {
  if (g->n_calls >= OCK_MAX_GRAMMAR_CALLS)
    return NULL;
  if (g->n_calls == g->cap_calls) {
    size_t cap = g->cap_calls ? g->cap_calls * 2 : 16;
    struct call *p = realloc(g->calls, cap * sizeof *p);
    if (!p)
      return NULL;
    g->calls = p;
    g->cap_calls = cap;
  }
  struct call *c = &g->calls[g->n_calls];
  c->id = strdup(id);
  if (!c->id)
    return NULL;
  c->state = state;
  g->n_calls++;
  return c;
}

static const char *open_call(const ock_grammar *g) {
  for (size_t i = 0; i < g->n_calls; i++)
    if (g->calls[i].state != CALL_DONE)
      return g->calls[i].id;
  return NULL;
}

/* quiet: no open request and no open call (SPEC.md 3.3). On failure it rejects, naming what is
 * open, and returns 0. */
static int require_quiet(ock_grammar *g, long seq, enum ock_event ev) {
  const char *id = open_call(g);
  if (g->req == REQ_OPEN)
    reject(g, seq, "OCK-ORDER-002", "%s while a provider:request is open", ock_event_name(ev));
  else if (id)
    reject(g, seq, "OCK-ORDER-003", "%s while tool call %s has no tool:post or tool:error",
           ock_event_name(ev), id);
  else
    return 1;
  return 0;
}

/* body_allowed: the conditions shared by provider:request, provider:resolve and the starts of
 * tool calls: no denial, not after prompt:complete or execution:end, and the cancel state. */
static int body_allowed(ock_grammar *g, long seq, enum ock_event ev, int allow_cancel_requested) {
  const char *what = ock_event_name(ev);
  if (g->denied != DENIED_NONE)
    reject(g, seq, "OCK-ORDER-007", "%s after a denied %s: a denial ends the execute", what,
           g->denied == DENIED_SUBMIT ? OCK_EV_PROMPT_SUBMIT : OCK_EV_PROVIDER_REQUEST);
  else if (g->completed)
    reject(g, seq, "OCK-ORDER-004", "%s after prompt:complete", what);
  else if (g->ended)
    reject(g, seq, "OCK-LIFECYCLE-001", "%s after execution:end", what);
  else if (g->cancel == CANCEL_COMPLETED ||
           (g->cancel == CANCEL_REQUESTED && !allow_cancel_requested))
    reject(g, seq, "OCK-ORDER-007", "%s after %s", what,
           g->cancel == CANCEL_COMPLETED ? OCK_EV_CANCEL_COMPLETED : OCK_EV_CANCEL_REQUESTED);
  else
    return 1;
  return 0;
}

static void on_resolve(ock_grammar *g, long seq) {
  if (!body_allowed(g, seq, OCK_EVENT_PROVIDER_RESOLVE, 0) ||
      !require_quiet(g, seq, OCK_EVENT_PROVIDER_RESOLVE))
    return;
  if (g->req == REQ_NONE && !g->resolved)
    g->resolved = 1;
  else if (g->req == REQ_ERR && !g->recovered)
    g->recovered = 1;
  else
    reject(g, seq, "OCK-ORDER-007",
           "provider:resolve neither before the first provider:request nor once after "
           "a " OCK_EV_PROVIDER_ERROR);
}

static void on_request(ock_grammar *g, long seq, int denied) {
  if (!body_allowed(g, seq, OCK_EVENT_PROVIDER_REQUEST, 1) ||
      !require_quiet(g, seq, OCK_EVENT_PROVIDER_REQUEST))
    return;
  if (g->req == REQ_ERR && !g->recovered) {
    reject(g, seq, "OCK-ORDER-007",
           "provider:request after a provider:error with no provider:retry or provider:resolve "
           "deciding to go on");
    return;
  }
  if (denied) {
    g->denied = DENIED_REQUEST;
    return;
  }
  g->req = REQ_OPEN;
  g->recovered = 0;
  forget_calls(g);
}

static void on_close(ock_grammar *g, long seq, enum ock_event ev) {
  if (g->req != REQ_OPEN) {
    reject(g, seq, "OCK-ORDER-002", "%s without an open provider:request", ock_event_name(ev));
    return;
  }
  if (ev == OCK_EVENT_PROVIDER_RESPONSE) {
    g->req = REQ_OK;
    g->tools_after_response = 0;
  } else if (ev == OCK_EVENT_PROVIDER_ERROR) {
    g->req = REQ_ERR;
    g->recovered = 0;
  } /* provider:stream: no effect */
}

static void on_retry(ock_grammar *g, long seq) {
  if (g->req == REQ_OPEN)
    reject(g, seq, "OCK-ORDER-002", "provider:retry while a provider:request is open");
  else if (g->req != REQ_ERR)
    reject(g, seq, "OCK-ORDER-007", "provider:retry not after a provider:error");
  else if (g->recovered)
    reject(g, seq, "OCK-ORDER-007",
           "a second provider:retry or provider:resolve for one provider:error");
  else if (g->cancel == CANCEL_COMPLETED)
    reject(g, seq, "OCK-ORDER-007", "provider:retry after cancel:completed");
  else
    g->recovered = 1;
}

/* on_call_start: tool:selecting, tool:selecting/deny and tool:pre. */
static void on_call_start(ock_grammar *g, long seq, enum ock_event ev, int denied, const char *id) {
  const char *what = ock_event_name(ev);
  if (g->req == REQ_OPEN) {
    reject(g, seq, "OCK-ORDER-002", "%s for %s while a provider:request is open", what, id);
    return;
  }
  if (g->req != REQ_OK) {
    reject(g, seq, "OCK-ORDER-007", "%s for %s without a provider:response before it", what, id);
    return;
  }
  if (!body_allowed(g, seq, ev, 1))
    return;
  struct call *c = find_call(g, id);
  if (ev == OCK_EVENT_TOOL_PRE && c && (c->state == CALL_SELECTING || c->state == CALL_SELECTED)) {
    c->state = CALL_STARTED;
  } else if (c) {
    reject(g, seq, "OCK-ORDER-003", "%s for %s, whose call already %s", what, id,
           c->state == CALL_SELECTING_DENIED ? "was vetoed at tool:selecting"
           : c->state == CALL_STARTED        ? "had its tool:pre"
           : c->state == CALL_DONE           ? "had its tool:post or tool:error"
                                             : "had its tool:selecting");
    return;
  } else if (!add_call(g, id,
                       ev == OCK_EVENT_TOOL_PRE ? CALL_STARTED
                       : denied                 ? CALL_SELECTING_DENIED
                                                : CALL_SELECTING)) {
    reject(g, seq, "OCK-ORDER-007", "more than %d tool calls in one response; not tracked",
           OCK_MAX_GRAMMAR_CALLS);
    return;
  }
  g->tools_after_response = 1;
}

static void on_selected(ock_grammar *g, long seq, const char *id) {
  struct call *c = find_call(g, id);
  if (c && c->state == CALL_SELECTING)
    c->state = CALL_SELECTED;
  else
    reject(g, seq, "OCK-HOOK-010", "tool:selected for %s without a tool:selecting just before", id);
}

static void on_call_end(ock_grammar *g, long seq, enum ock_event ev, const char *id) {
  struct call *c = find_call(g, id);
  int ok = c && (c->state == CALL_STARTED || (ev == OCK_EVENT_TOOL_ERROR && c->state != CALL_DONE));
  if (ok) {
    c->state = CALL_DONE;
    return;
  }
  reject(g, seq, "OCK-ORDER-003", "%s for %s %s", ock_event_name(ev), id,
         !c                      ? "without a tool:pre before it"
         : c->state == CALL_DONE ? "after its tool:post or tool:error"
                                 : "before its tool:pre");
}

static void on_prompt_complete(ock_grammar *g, long seq) {
  const char *why = NULL;
  if (g->completed)
    why = "a second prompt:complete";
  else if (g->ended)
    why = "prompt:complete after execution:end";
  else if (g->cancel != CANCEL_NONE)
    why = "prompt:complete after cancel:requested: a cancelled execute has no response";
  else if (!require_quiet(g, seq, OCK_EVENT_PROMPT_COMPLETE))
    return;
  else if (g->denied == DENIED_NONE && g->req != REQ_OK)
    why = g->req == REQ_ERR ? "prompt:complete after a provider:error: there is no answer"
                            : "prompt:complete before any provider:response";
  else if (g->denied == DENIED_NONE && g->tools_after_response)
    why = "prompt:complete after a tool round, with no final provider:response";
  if (why)
    reject(g, seq, "OCK-ORDER-004", "%s", why);
  else
    g->completed = 1;
}

static void on_cancel_requested(ock_grammar *g, long seq) {
  if (g->cancel != CANCEL_NONE)
    reject(g, seq, "OCK-CANCEL-002", "a second cancel:requested in one execute");
  else if (g->completed)
    reject(g, seq, "OCK-ORDER-007",
           "cancel:requested after prompt:complete (a SIGINT after the response is ignored)");
  else if (g->ended)
    reject(g, seq, "OCK-LIFECYCLE-001", "cancel:requested after execution:end");
  else
    g->cancel = CANCEL_REQUESTED;
}

static void on_cancel_completed(ock_grammar *g, long seq) {
  if (g->cancel != CANCEL_REQUESTED)
    reject(g, seq, "OCK-CANCEL-002", "cancel:completed %s",
           g->cancel == CANCEL_NONE ? "without cancel:requested" : "a second time");
  else if (require_quiet(g, seq, OCK_EVENT_CANCEL_COMPLETED))
    g->cancel = CANCEL_COMPLETED;
}

/* on_ending: execution:end and orchestrator:complete. */
static void on_ending(ock_grammar *g, long seq, enum ock_event ev) {
  if (ev == OCK_EVENT_EXECUTION_END && g->ended) {
    reject(g, seq, "OCK-LIFECYCLE-001", "a second execution:end in one execute");
    return;
  }
  if (!require_quiet(g, seq, ev))
    return;
  if (g->cancel == CANCEL_REQUESTED) {
    reject(g, seq, "OCK-CANCEL-002", "%s before cancel:completed", ock_event_name(ev));
    return;
  }
  if (ev == OCK_EVENT_EXECUTION_END)
    g->ended = 1;
  else
    g->in_execute = 0;
}

static void enter_execute(ock_grammar *g, long seq, int denied) {
  if (g->in_execute && !g->broken)
    reject(g, seq, "OCK-COMPLETE-001",
           "prompt:submit while execute %d has no orchestrator:complete yet", g->executes);
  g->executes++;
  g->in_execute = 1;
  g->broken = 0;
  g->prev = OCK_EVENT_PROMPT_SUBMIT;
  g->denied = denied ? DENIED_SUBMIT : DENIED_NONE;
  g->req = REQ_NONE;
  g->recovered = g->resolved = g->tools_after_response = 0;
  g->completed = g->ended = g->started = 0;
  g->cancel = CANCEL_NONE;
  forget_calls(g);
}

/* outside: a symbol other than prompt:submit while IDLE. */
static void outside(ock_grammar *g, long seq, enum ock_event ev, const char *name) {
  const char *what = ev == OCK_EVENT_CUSTOM && name ? name : ock_event_name(ev);
  if (!g->executes)
    reject(g, seq, "OCK-ORDER-001", "%s before the first prompt:submit", what);
  else if (ev == OCK_EVENT_ORCHESTRATOR_COMPLETE)
    reject(g, seq, "OCK-COMPLETE-001", "a second orchestrator:complete in execute %d", g->executes);
  else
    reject(g, seq, "OCK-COMPLETE-002", "%s after orchestrator:complete of execute %d", what,
           g->executes);
}

/* inside: one symbol inside an execute whose grammar still holds; prev is the symbol
 * before it. */
static void inside(ock_grammar *g, long seq, enum ock_event ev, enum ock_event prev, int denied,
                   const char *id) {
  switch (ev) {
  case OCK_EVENT_EXECUTION_START:
    if (prev != OCK_EVENT_PROMPT_SUBMIT || g->started)
      reject(g, seq, "OCK-LIFECYCLE-001", "execution:start not directly after prompt:submit");
    g->started = 1;
    break;
  case OCK_EVENT_PROVIDER_RESOLVE:
    on_resolve(g, seq);
    break;
  case OCK_EVENT_PROVIDER_REQUEST:
    on_request(g, seq, denied);
    break;
  case OCK_EVENT_PROVIDER_STREAM:
  case OCK_EVENT_PROVIDER_RESPONSE:
  case OCK_EVENT_PROVIDER_ERROR:
    on_close(g, seq, ev);
    break;
  case OCK_EVENT_PROVIDER_RETRY:
    on_retry(g, seq);
    break;
  case OCK_EVENT_TOOL_SELECTING:
  case OCK_EVENT_TOOL_PRE:
    on_call_start(g, seq, ev, ev == OCK_EVENT_TOOL_SELECTING && denied, id);
    break;
  case OCK_EVENT_TOOL_SELECTED:
    on_selected(g, seq, id);
    break;
  case OCK_EVENT_TOOL_POST:
  case OCK_EVENT_TOOL_ERROR:
    on_call_end(g, seq, ev, id);
    break;
  case OCK_EVENT_PROMPT_COMPLETE:
    on_prompt_complete(g, seq);
    break;
  case OCK_EVENT_CANCEL_REQUESTED:
    on_cancel_requested(g, seq);
    break;
  case OCK_EVENT_CANCEL_COMPLETED:
    on_cancel_completed(g, seq);
    break;
  case OCK_EVENT_EXECUTION_END:
  case OCK_EVENT_ORCHESTRATOR_COMPLETE:
    on_ending(g, seq, ev);
    break;
  default: /* prompt:submit and custom events are handled above */
    break;
  }
}

void ock_grammar_symbol(ock_grammar *g, long seq, enum ock_event ev, const char *name, int denied,
                        const char *id) {
  if ((unsigned)ev > OCK_EVENT_CUSTOM)
    ev = OCK_EVENT_CUSTOM;
  if (ev == OCK_EVENT_PROMPT_SUBMIT) {
    enter_execute(g, seq, denied);
    return;
  }
  if (!g->in_execute) {
    outside(g, seq, ev, name);
    return;
  }
  if (g->broken) {
    if (ev == OCK_EVENT_ORCHESTRATOR_COMPLETE)
      g->in_execute = 0;
    return;
  }
  if (ev == OCK_EVENT_CUSTOM)
    return; /* removed by preprocessing (SPEC.md 3.1) */
  if (ock_event_is_tool(ev) && !id) {
    reject(g, seq, "OCK-TOOL-007", "%s without a string tool_call_id", ock_event_name(ev));
    return;
  }
  enum ock_event prev = g->prev;
  g->prev = ev;
  inside(g, seq, ev, prev, denied, id);
}

void ock_grammar_event(ock_grammar *g, long seq, const char *name, const cJSON *data,
                       const char *reply_action) {
  const cJSON *id = cJSON_GetObjectItemCaseSensitive(data, "tool_call_id");
  int denied = reply_action && (!strcmp(reply_action, "deny") || !strcmp(reply_action, "ask_user"));
  ock_grammar_symbol(g, seq, ock_event_parse(name), name, denied,
                     cJSON_IsString(id) ? id->valuestring : NULL);
}

void ock_grammar_end(ock_grammar *g, long seq) {
  if (g->in_execute && !g->broken)
    reject(g, seq, "OCK-COMPLETE-001", "execute %d ended without orchestrator:complete",
           g->executes);
  else if (g->in_execute && g->first_rejected < 0)
    g->first_rejected = seq;
  g->in_execute = 0;
  forget_calls(g);
}
