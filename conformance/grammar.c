/*
 * grammar.c: the event automaton (see grammar.h and SPEC.md §3).
 *
 * State per execute: whether a provider request is open, whether the last closed request
 * ended in provider:error (provider:retry may only follow that), the open tool calls by
 * tool_call_id with the step each has reached, and flags for the once-only events. Events the
 * kit does not know are custom events and are ignored, except after orchestrator:complete.
 */
#include "grammar.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ock/status.h"

/* How far one tool call has come. */
enum call_step { STEP_SELECTING, STEP_SELECTED, STEP_PRE, STEP_CLOSED };

struct call {
  char *id;
  enum call_step step;
};

#define MAX_OPEN_CALLS 10000 /* a hostile log must not grow the automaton without bound */

enum phase {
  PH_NONE,      /* before the first prompt:submit, or after orchestrator:complete */
  PH_SUBMITTED, /* just after prompt:submit (execution:start may come) */
  PH_BODY,      /* requests, tools, routing */
  PH_ENDING,    /* after prompt:complete */
  PH_EXEC_END,  /* after execution:end */
};

struct ock_grammar {
  ock_violation_fn on_violation;
  ock_execute_fn on_execute;
  void *user;
  enum phase phase;
  int executes;
  int request_open;
  int last_close_was_error; /* the most recent request closed with provider:error */
  int after_complete;       /* orchestrator:complete seen; only a prompt:submit may follow */
  struct call *calls;
  size_t n_calls;
  size_t cap_calls;
  int calls_overflow;
  struct ock_execute_summary cur;
};

static void violate(ock_grammar *g, long seq, const char *req, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void violate(ock_grammar *g, long seq, const char *req, const char *fmt, ...) {
  if (!g->on_violation)
    return;
  struct ock_violation v = {.requirement = req, .seq = seq, .execute = g->executes};
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(v.message, sizeof v.message, fmt, ap);
  va_end(ap);
  g->on_violation(g->user, &v);
}

int ock_grammar_new(ock_violation_fn on_violation, ock_execute_fn on_execute, void *user,
                    ock_grammar **out) {
  ock_grammar *g = calloc(1, sizeof *g);
  if (!g)
    return OCK_ENOMEM;
  g->on_violation = on_violation;
  g->on_execute = on_execute;
  g->user = user;
  *out = g;
  return OCK_OK;
}

static void clear_calls(ock_grammar *g) {
  for (size_t i = 0; i < g->n_calls; i++)
    free(g->calls[i].id);
  g->n_calls = 0;
  g->calls_overflow = 0;
}

void ock_grammar_free(ock_grammar *g) {
  if (!g)
    return;
  clear_calls(g);
  free(g->calls);
  free(g);
}

int ock_grammar_executes(const ock_grammar *g) {
  return g->executes;
}

static struct call *find_call(ock_grammar *g, const char *id) {
  for (size_t i = 0; i < g->n_calls; i++)
    if (!strcmp(g->calls[i].id, id))
      return &g->calls[i];
  return NULL;
}

static struct call *add_call(ock_grammar *g, long seq, const char *id, enum call_step step) {
  if (g->n_calls >= MAX_OPEN_CALLS) {
    if (!g->calls_overflow)
      violate(g, seq, "OCK-ORDER-003", "more than %d tool calls in one execute; not tracked",
              MAX_OPEN_CALLS);
    g->calls_overflow = 1;
    return NULL;
  }
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
  c->step = step;
  g->n_calls++;
  return c;
}

static size_t open_calls(const ock_grammar *g) {
  size_t n = 0;
  for (size_t i = 0; i < g->n_calls; i++)
    n += g->calls[i].step != STEP_CLOSED;
  return n;
}

static const char *first_open_call(const ock_grammar *g) {
  for (size_t i = 0; i < g->n_calls; i++)
    if (g->calls[i].step != STEP_CLOSED)
      return g->calls[i].id;
  return "";
}

/* finish_execute reports the execute that is ending (at a new prompt:submit or the end). */
static void finish_execute(ock_grammar *g, long seq) {
  if (!g->executes)
    return;
  if (!g->cur.n_complete)
    violate(g, seq, "OCK-COMPLETE-001", "execute %d ended without orchestrator:complete",
            g->executes);
  if (g->on_execute)
    g->on_execute(g->user, &g->cur);
}

static void start_execute(ock_grammar *g, long seq) {
  finish_execute(g, seq);
  g->executes++;
  g->phase = PH_SUBMITTED;
  g->request_open = 0;
  g->last_close_was_error = 0;
  g->after_complete = 0;
  clear_calls(g);
  memset(&g->cur, 0, sizeof g->cur);
  g->cur.index = g->executes;
  g->cur.first_seq = seq;
  g->cur.complete_seq = -1;
}

static const char *call_id(const cJSON *data) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(data, "tool_call_id");
  return cJSON_IsString(v) && *v->valuestring ? v->valuestring : NULL;
}

/* tool_event applies the per-call rules of SPEC.md §3 to one tool event. */
static void tool_event(ock_grammar *g, long seq, const char *name, const cJSON *data) {
  const char *id = call_id(data);
  if (!id) {
    violate(g, seq, "OCK-TOOL-007", "%s without a tool_call_id", name);
    return;
  }
  if (g->request_open)
    violate(g, seq, "OCK-ORDER-002", "%s for %s while a provider request is open", name, id);
  struct call *c = find_call(g, id);
  if (!strcmp(name, "tool:selecting")) {
    if (c)
      violate(g, seq, "OCK-ORDER-003", "tool:selecting for %s, which was already seen", id);
    else
      add_call(g, seq, id, STEP_SELECTING);
  } else if (!strcmp(name, "tool:selected")) {
    if (!c || c->step != STEP_SELECTING)
      violate(g, seq, "OCK-HOOK-010", "tool:selected for %s without a tool:selecting before it",
              id);
    else
      c->step = STEP_SELECTED;
  } else if (!strcmp(name, "tool:pre")) {
    if (!c)
      add_call(g, seq, id, STEP_PRE);
    else if (c->step == STEP_SELECTING)
      violate(g, seq, "OCK-HOOK-010", "tool:pre for %s after tool:selecting without tool:selected",
              id);
    else if (c->step != STEP_SELECTED)
      violate(g, seq, "OCK-ORDER-003", "a second tool:pre for %s", id);
    if (c && c->step != STEP_CLOSED)
      c->step = STEP_PRE;
  } else { /* tool:post or tool:error */
    int is_error = !strcmp(name, "tool:error");
    if (!c) {
      violate(g, seq, "OCK-ORDER-003", "%s for %s without a tool:pre before it", name, id);
      c = add_call(g, seq, id, STEP_CLOSED);
    } else if (c->step == STEP_CLOSED) {
      violate(g, seq, "OCK-ORDER-003", "%s for %s, which already had its tool:post or tool:error",
              name, id);
    } else if (c->step != STEP_PRE && !(is_error && c->step != STEP_CLOSED)) {
      /* tool:error may close a call before its tool:pre: vetoed at tool:selecting, or
       * cancelled after tool:selected (SPEC.md 3). tool:post may not. */
      violate(g, seq, "OCK-ORDER-003", "%s for %s before its tool:pre", name, id);
    }
    if (c)
      c->step = STEP_CLOSED;
  }
}

static int is_tool_event(const char *name) {
  return !strcmp(name, "tool:pre") || !strcmp(name, "tool:post") || !strcmp(name, "tool:error") ||
         !strcmp(name, "tool:selecting") || !strcmp(name, "tool:selected");
}

static const char *const known_events[] = {"prompt:submit",
                                           "execution:start",
                                           "provider:resolve",
                                           "provider:request",
                                           "provider:stream",
                                           "provider:response",
                                           "provider:error",
                                           "provider:retry",
                                           "tool:selecting",
                                           "tool:selected",
                                           "tool:pre",
                                           "tool:post",
                                           "tool:error",
                                           "prompt:complete",
                                           "cancel:requested",
                                           "cancel:completed",
                                           "execution:end",
                                           "orchestrator:complete",
                                           NULL};

static int is_known(const char *name) {
  for (int i = 0; known_events[i]; i++)
    if (!strcmp(name, known_events[i]))
      return 1;
  return 0;
}

/* body_allowed: the body events (requests, tools, routing, cancel) may not come after
 * prompt:complete or execution:end. */
static void check_body_phase(ock_grammar *g, long seq, const char *name) {
  if (g->phase == PH_ENDING || g->phase == PH_EXEC_END)
    violate(g, seq, "OCK-ORDER-004", "%s after %s", name,
            g->phase == PH_ENDING ? "prompt:complete" : "execution:end");
  g->phase = PH_BODY;
}

void ock_grammar_event(ock_grammar *g, long seq, const char *name, const cJSON *data, int denied) {
  if (!name)
    return;
  if (!strcmp(name, "prompt:submit")) {
    start_execute(g, seq);
    return;
  }
  if (!g->executes) {
    violate(g, seq, "OCK-ORDER-001", "%s before any prompt:submit", name);
    return;
  }
  if (g->after_complete) {
    violate(g, seq, "OCK-COMPLETE-002", "%s after orchestrator:complete of execute %d", name,
            g->executes);
    if (strcmp(name, "orchestrator:complete"))
      return;
  }
  if (!is_known(name)) {
    if (g->phase == PH_SUBMITTED)
      g->phase = PH_BODY;
    return; /* a custom event: allowed anywhere inside the execute */
  }
  if (!strcmp(name, "execution:start")) {
    if (g->phase != PH_SUBMITTED)
      violate(g, seq, "OCK-LIFECYCLE-001", "execution:start not directly after prompt:submit");
    g->phase = PH_BODY;
    return;
  }
  if (!strcmp(name, "provider:request")) {
    check_body_phase(g, seq, name);
    g->cur.n_requests++;
    if (g->request_open)
      violate(g, seq, "OCK-ORDER-002", "provider:request while the previous one is still open");
    if (open_calls(g))
      violate(g, seq, "OCK-ORDER-003",
              "provider:request while tool call %s has no tool:post or tool:error yet",
              first_open_call(g));
    if (denied) {
      g->cur.n_denied_requests++;
      g->request_open = 0; /* a denied request is never sent, so nothing closes it */
    } else {
      g->request_open = 1;
    }
    return;
  }
  if (!strcmp(name, "provider:stream")) {
    if (!g->request_open)
      violate(g, seq, "OCK-ORDER-002", "provider:stream outside a provider request");
    return;
  }
  if (!strcmp(name, "provider:response") || !strcmp(name, "provider:error")) {
    if (!g->request_open)
      violate(g, seq, "OCK-ORDER-002", "%s without an open provider:request", name);
    g->request_open = 0;
    g->last_close_was_error = !strcmp(name, "provider:error");
    g->phase = g->phase == PH_SUBMITTED ? PH_BODY : g->phase;
    return;
  }
  if (!strcmp(name, "provider:retry")) {
    check_body_phase(g, seq, name);
    if (g->request_open || !g->last_close_was_error)
      violate(g, seq, "OCK-ORDER-007", "provider:retry not directly after a provider:error");
    g->last_close_was_error = 0;
    return;
  }
  if (!strcmp(name, "provider:resolve")) {
    check_body_phase(g, seq, name);
    if (g->request_open)
      violate(g, seq, "OCK-ORDER-002", "provider:resolve while a provider request is open");
    return;
  }
  if (is_tool_event(name)) {
    check_body_phase(g, seq, name);
    tool_event(g, seq, name, data);
    return;
  }
  if (!strcmp(name, "cancel:requested")) {
    if (g->cur.saw_cancel_requested)
      violate(g, seq, "OCK-CANCEL-002", "a second cancel:requested in one execute");
    g->cur.saw_cancel_requested = 1;
    return;
  }
  if (!strcmp(name, "cancel:completed")) {
    if (!g->cur.saw_cancel_requested)
      violate(g, seq, "OCK-CANCEL-002", "cancel:completed without cancel:requested");
    if (g->cur.saw_cancel_completed)
      violate(g, seq, "OCK-CANCEL-002", "a second cancel:completed in one execute");
    g->cur.saw_cancel_completed = 1;
    return;
  }
  if (!strcmp(name, "prompt:complete")) {
    if (g->cur.saw_prompt_complete)
      violate(g, seq, "OCK-ORDER-004", "a second prompt:complete in one execute");
    if (g->request_open)
      violate(g, seq, "OCK-ORDER-004", "prompt:complete while a provider request is open");
    if (open_calls(g))
      violate(g, seq, "OCK-ORDER-004", "prompt:complete while tool call %s is still open",
              first_open_call(g));
    if (g->phase == PH_EXEC_END)
      violate(g, seq, "OCK-ORDER-004", "prompt:complete after execution:end");
    g->cur.saw_prompt_complete = 1;
    g->phase = PH_ENDING;
    return;
  }
  if (!strcmp(name, "execution:end")) {
    if (g->phase == PH_EXEC_END)
      violate(g, seq, "OCK-LIFECYCLE-001", "a second execution:end in one execute");
    if (g->request_open || open_calls(g))
      violate(g, seq, "OCK-ORDER-007", "execution:end while a request or tool call is open");
    g->phase = PH_EXEC_END;
    return;
  }
  /* orchestrator:complete */
  g->cur.n_complete++;
  if (g->cur.n_complete > 1) {
    violate(g, seq, "OCK-COMPLETE-001", "a second orchestrator:complete in execute %d",
            g->executes);
    return;
  }
  g->cur.complete_seq = seq;
  if (g->request_open)
    violate(g, seq, "OCK-ORDER-002", "orchestrator:complete while a provider request is open");
  if (open_calls(g))
    violate(g, seq, "OCK-ORDER-003",
            "orchestrator:complete while tool call %s has no tool:post or tool:error",
            first_open_call(g));
  if (g->cur.saw_cancel_requested && !g->cur.saw_cancel_completed)
    violate(g, seq, "OCK-CANCEL-002", "orchestrator:complete before cancel:completed");
  g->after_complete = 1;
  g->phase = PH_NONE;
}

void ock_grammar_end(ock_grammar *g, long seq) {
  finish_execute(g, seq);
  memset(&g->cur, 0, sizeof g->cur);
  clear_calls(g);
  g->phase = PH_NONE;
}
