/*
 * view.h: one scenario's evidence, indexed for the checks.
 *
 * The mock's journal is one total order of everything it saw. The view splits it into the
 * SUT's executes (each from its prompt:submit to the next one) and answers the questions every
 * check asks: which events, LLM requests and tool calls belong to execute k, what the hook
 * replied, how many LLM turns the mock really served. It borrows the journal and the fixture.
 */
#ifndef OCK_VIEW_H
#define OCK_VIEW_H

#include <stddef.h>

#include <cJSON.h>

#include "ock/contract.h"
#include "run/sut.h"

struct view_exec {
  int index;    /* 1-based */
  size_t first; /* entry index of its prompt:submit */
  size_t end;   /* one past its last entry (the next prompt:submit, or the journal's end) */
  const cJSON *complete; /* data of its first orchestrator:complete, or NULL */
  long complete_seq;     /* seq of that event, or -1 */
  const char *prompt;    /* the session prompt this execute should run, or NULL past the last */
};

struct view {
  const cJSON *fixture;
  const cJSON *session; /* fixture.session */
  const cJSON *config;  /* fixture.session.config (may be NULL) */
  const cJSON **e;      /* journal entries in order */
  size_t n;
  struct view_exec *x; /* the executes */
  size_t nx;
  const struct sut_result *proc; /* the SUT's process outcome */
  int traffic; /* the executes were found in the LLM traffic (view_build_traffic): no events */
};

/* view_build indexes journal (a JSON array) for fixture; borrows both. Returns OCK_OK or
 * OCK_ENOMEM. view_free releases the index only. */
int view_build(struct view *v, const cJSON *fixture, const cJSON *journal,
               const struct sut_result *proc);
void view_free(struct view *v);

/* view_build_traffic indexes a black-box run, whose SUT posts no events: the executes are found
 * in the LLM traffic. The llm_request whose last user message equals the next session prompt
 * (in order) opens that prompt's execute, which ends where the next one opens (SPEC.md 9.7).
 * An execute that sent no LLM request is not seen; index stays the prompt's position, so a
 * view may skip one. complete is NULL in every execute. Returns OCK_OK or OCK_ENOMEM. */
int view_build_traffic(struct view *v, const cJSON *fixture, const cJSON *journal,
                       const struct sut_result *proc);

/* last_user_text: the content of the last user message in the request's neutral history, or
 * NULL when it has none. */
const char *last_user_text(const cJSON *request);

/* view_after_cancel: the harness's SIGINT came before entry index i in i's execute. */
int view_after_cancel(const struct view *v, size_t i);

/* str_field: the string member k of o, or "" when it is absent or not a string (never NULL). */
const char *str_field(const cJSON *o, const char *k);

/* Entry accessors. */
const char *entry_kind(const cJSON *e);
long entry_seq(const cJSON *e);
double entry_time(const cJSON *e);
/* For kind "event": the event name, its data object (never NULL: an empty object), and the
 * action the mock replied ("continue" when absent). */
const char *event_name(const cJSON *e);
const cJSON *event_data(const cJSON *e);
const char *event_action(const cJSON *e);
const cJSON *event_reply(const cJSON *e);

/* event_denied: the mock replied deny, or ask_user (which ock/1, with no approval system,
 * makes a deny: SPEC.md 5). */
int event_denied(const cJSON *e);

/* is_event: e is an event named name (name NULL: any event). */
int is_event(const cJSON *e, const char *name);
/* is_kind: e is a journal entry of that kind (compared by the registry's name of it). */
int is_kind(const cJSON *e, enum ock_journal_kind kind);

/* reply_failed: an llm_reply entry that was an error status or a broken stream. */
int reply_failed(const cJSON *reply);

/* view_turns: the LLM turns the mock served in execute x: requests whose previous request in
 * the same execute did not fail (a retry or a fallback repeats a turn). */
int view_turns(const struct view *v, const struct view_exec *x);

/* view_exec_of: the execute that entry index i belongs to, or NULL before the first. */
const struct view_exec *view_exec_of(const struct view *v, size_t i);

/* view_is_wrap_up: the llm_reply at entry index i answers the max-iterations wrap-up request:
 * the request of turn max_iterations + 1 of its execute that offers no tools (or carries the
 * reminder, whatever else it offers). Its tool calls are discarded by design (SPEC.md 5.5). */
int view_is_wrap_up(const struct view *v, size_t i);

/* view_reply_of: the llm_reply entry answering the llm_request at index i (by the mock's
 * request_seq), or NULL. */
const cJSON *view_reply_of(const struct view *v, size_t i);

/* cfg_int / cfg_str / cfg_bool read the session config with SPEC.md's defaults applied by
 * the caller. */
long long cfg_int(const struct view *v, const char *key, long long dflt);
const char *cfg_str(const struct view *v, const char *key, const char *dflt);
int cfg_bool(const struct view *v, const char *key, int dflt);

/* next_first_request: the first llm_request of the execute after x, or NULL. */
const cJSON *next_first_request(const struct view *v, const struct view_exec *x);

/* history_has_user_text: the request's neutral history holds a user message whose content
 * equals text. */
int history_has_user_text(const cJSON *request, const char *text);

/* session_has_tool: the session offers a tool of that name. */
int session_has_tool(const struct view *v, const char *name);

/* reply_abandoned: the llm_reply at entry index i was closed by a provider:error of type
 * cancelled after the harness's SIGINT in the same execute: the SUT abandoned the request as
 * SPEC.md 5.10 step 3 says, even if the mock had finished sending (a stream that ended during
 * the cancel hold). Its reply is then not reported or stored. */
int reply_abandoned(const struct view *v, size_t i);

#endif
