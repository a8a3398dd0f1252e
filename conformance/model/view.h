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

#include "ock/config.h"
#include "ock/contract.h"
#include "ock/fixture.h"
#include "model/outcome.h"
#include "model/payload.h"

struct view_exec {
  int index;    /* 1-based */
  size_t first; /* entry index of its prompt:submit */
  size_t end;   /* one past its last entry (the next prompt:submit, or the journal's end) */
  const cJSON *complete;       /* data of its first orchestrator:complete, or NULL */
  long complete_seq;           /* seq of that event, or -1 */
  const cJSON *complete_entry; /* that event's journal entry, for model/payload.h; or NULL */
  const char *prompt; /* the session prompt this execute should run, or NULL past the last */
};

struct view {
  const struct ock_fixture *fx; /* the scenario's one model (ock/fixture.h) */
  const cJSON *session;         /* fx->session: the validated $.session */
  /* The session config the mock served (its journal's first session entry), typed by
   * ock/config.h; a journal without one (the SUT never asked, or an older journal) gets the
   * fixture's config over the registry's defaults, which is what the mock serves. */
  struct ock_config cfg;
  int cfg_served;  /* 1: cfg came from the journal's session entry */
  const cJSON **e; /* journal entries in order */
  size_t n;
  struct view_exec *x; /* the executes */
  size_t nx;
  const struct sut_result *proc; /* the SUT's process outcome */
  int traffic; /* the executes were found in the LLM traffic (ock__view_build_traffic): no events */
};

/* ock__view_build indexes journal (a JSON array) for the scenario fx; borrows both. Returns OCK_OK
 * or OCK_ENOMEM. ock__view_free releases the index only. */
int ock__view_build(struct view *v, const struct ock_fixture *fx, const cJSON *journal,
                    const struct sut_result *proc);
void ock__view_free(struct view *v);

/* ock__view_build_traffic indexes a black-box run, whose SUT posts no events: the executes are
 * found in the LLM traffic. The llm_request whose last user message equals the next session prompt
 * (in order) opens that prompt's execute, which ends where the next one opens (SPEC.md 9.7).
 * An execute that sent no LLM request is not seen; index stays the prompt's position, so a
 * view may skip one. complete is NULL in every execute. Returns OCK_OK or OCK_ENOMEM. */
int ock__view_build_traffic(struct view *v, const struct ock_fixture *fx, const cJSON *journal,
                            const struct sut_result *proc);

/* ock__last_user_text: the content of the last user message in the request's neutral history, or
 * NULL when it has none. */
const char *ock__last_user_text(const cJSON *request);

/* ock__view_after_cancel: the harness's SIGINT came before entry index i in i's execute. */
int ock__view_after_cancel(const struct view *v, size_t i);

/* ock__view_saw_event: the journal holds an event of that name. */
int ock__view_saw_event(const struct view *v, const char *name);

/* ock__str_field: the string member k of o, or "" when it is absent or not a string (never NULL).
 * Not for an event's payload: model/payload.h reads those by the registry's shape. */
const char *ock__str_field(const cJSON *o, const char *k);

/* Entry accessors. */
const char *ock__entry_kind(const cJSON *e);
long ock__entry_seq(const cJSON *e);
double ock__entry_time(const cJSON *e);
/* For kind "event": the event name, its data object (never NULL: an empty object), and the
 * action the mock replied ("continue" when absent). */
const char *ock__event_name(const cJSON *e);
const cJSON *ock__event_data(const cJSON *e);
const char *ock__event_action(const cJSON *e);
const cJSON *ock__event_reply(const cJSON *e);

/* ock__event_denied: the mock replied deny, or ask_user (which ock/1, with no approval system,
 * makes a deny: SPEC.md 5). */
int ock__event_denied(const cJSON *e);

/* ock__is_event: e is an event named name (name NULL: any event). */
int ock__is_event(const cJSON *e, const char *name);
/* ock__is_kind: e is a journal entry of that kind (compared by the registry's name of it). */
int ock__is_kind(const cJSON *e, enum ock_journal_kind kind);

/* ock__reply_failed: an llm_reply entry that was an error status or a broken stream. */
int ock__reply_failed(const cJSON *reply);

/* ock__view_turns: the LLM turns the mock served in execute x: requests whose previous request in
 * the same execute did not fail (a retry or a fallback repeats a turn). */
int ock__view_turns(const struct view *v, const struct view_exec *x);

/* ock__view_exec_of: the execute that entry index i belongs to, or NULL before the first. */
const struct view_exec *ock__view_exec_of(const struct view *v, size_t i);

/* ock__view_is_wrap_up: the llm_reply at entry index i answers the max-iterations wrap-up request:
 * the request of turn max_iterations + 1 of its execute that offers no tools (or carries the
 * reminder, whatever else it offers). Its tool calls are discarded by design (SPEC.md 5.5). */
int ock__view_is_wrap_up(const struct view *v, size_t i);

/* ock__view_reply_of: the llm_reply entry answering the llm_request at index i (by the mock's
 * request_seq), or NULL. */
const cJSON *ock__view_reply_of(const struct view *v, size_t i);

/* ock__next_first_request: the first llm_request of the execute after x, or NULL. */
const cJSON *ock__next_first_request(const struct view *v, const struct view_exec *x);

/* ock__history_has_user_text: the request's neutral history holds a user message whose content
 * equals text. */
int ock__history_has_user_text(const cJSON *request, const char *text);

/* ock__session_has_tool: the session offers a tool of that name. */
int ock__session_has_tool(const struct view *v, const char *name);

/* ock__reply_abandoned: the llm_reply at entry index i was closed by a provider:error of type
 * cancelled after the harness's SIGINT in the same execute: the SUT abandoned the request as
 * SPEC.md 5.10 step 3 says, even if the mock had finished sending (a stream that ended during
 * the cancel hold). Its reply is then not reported or stored. */
int ock__reply_abandoned(const struct view *v, size_t i);

#endif
