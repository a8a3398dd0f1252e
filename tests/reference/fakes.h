/*
 * fakes.h: in-process collaborators for the engine's tests (no sockets), and the contract
 * checks every exit-path test ends with.
 *
 * A `world` holds scripted providers, tools that answer from a table, a hook registry that
 * records every event (and answers from rules), the in-memory context, and an orchestrator
 * whose clock never sleeps (it records the delays it was asked for). world_run executes one
 * prompt; check_contract then asserts what SPEC.md demands of every execute: exactly one
 * orchestrator:complete, last, with the expected status and turn_count; the event grammar;
 * the lifecycle stages and trace IDs; and a well-formed history (every tool call answered, in
 * order) in the context and in every request the providers saw.
 */
#ifndef OCK_TEST_REFERENCE_FAKES_H
#define OCK_TEST_REFERENCE_FAKES_H

#include <pthread.h>

#include "ock/orchestrator.h"

#define FAKE_MAX_CALLS 4
#define FAKE_MAX_REQUESTS 32
#define FAKE_MAX_TOOL_CALLS 32

/* One scripted provider turn: a reply (text and/or calls), or a failure. */
struct fake_turn {
  const char *text;
  struct {
    const char *id, *name, *args;
  } calls[FAKE_MAX_CALLS];
  int n_calls;
  int fail; /* 1: this request fails with fault / status below */
  enum ock_llm_fault fault;
  int status;           /* HTTP status for OCK_LLM_HTTP */
  long retry_after_ms;  /* -1 or 0 when none: use RA_NONE */
  int cancel_in_flight; /* request cancellation during the request, then give up */
  int stream_cut_after; /* streaming: deliver this many deltas, then fail (OCK_LLM_STREAM) */
};
#define RA_NONE (-1)

struct fake_provider {
  struct ock_provider iface;
  const struct fake_turn *turns;
  size_t n_turns, next;
  int can_stream;
  int requests;                               /* requests received */
  struct ock_history seen[FAKE_MAX_REQUESTS]; /* the messages of each request */
  size_t tools_offered[FAKE_MAX_REQUESTS];
  int streamed[FAKE_MAX_REQUESTS];
  char trace_ids[FAKE_MAX_REQUESTS][64];
  struct world *w;
};

struct fake_tool {
  struct ock_tool iface;
  char name[32];
  const char *result;  /* ToolResult JSON text answered on success */
  int fail_rc;         /* non-zero: return this instead (OCK_EIO, OCK_ETIMEDOUT, ...) */
  long delay_ms;       /* sleep before answering (real time) */
  int wait_for_cancel; /* block until cancellation is requested, then OCK_ECANCELLED */
  int cancel_on_call;  /* request cancellation when called, then answer normally */
  struct world *w;
  pthread_mutex_t mu;
  int calls;
  char ids[FAKE_MAX_TOOL_CALLS][64];
  char inputs[FAKE_MAX_TOOL_CALLS][256]; /* compact JSON of each input */
  char trace_ids[FAKE_MAX_TOOL_CALLS][64];
  double started_ms[FAKE_MAX_TOOL_CALLS], ended_ms[FAKE_MAX_TOOL_CALLS];
};

/* A hook answer: for `event` (its occurrence-th time in this execute, 0 = every time; and
 * only when tool_name matches data.tool_name, if set), reply with the HookResult JSON, and/or
 * request cancellation. */
struct hook_rule {
  const char *event;
  int occurrence;
  const char *tool_name;
  const char *reply;
  int cancel;
};

struct fake_hooks {
  struct ock_hooks iface;
  cJSON *events; /* [{"event", "data", "reply"}], this execute's */
  const struct hook_rule *rules;
  size_t n_rules;
  struct world *w;
};

struct world {
  struct ock_orchestrator_config cfg;
  struct fake_provider providers[3];
  const struct ock_provider *pptr[3];
  int n_providers;
  struct fake_tool tools[4];
  const struct ock_tool *tptr[4];
  int n_tools;
  struct fake_hooks hooks;
  ock_memctx *ctx;
  ock_orchestrator *o;
  ock_exec_context *exec;
  struct ock_exec_result res;
  long sleeps[64]; /* delays the engine asked for */
  int n_sleeps;
};

/* world_init: default config with parallel tools, the given strategy; nothing else yet. */
void world_init(struct world *w);
/* world_start makes the orchestrator from w->cfg (call after changing cfg). */
void world_start(struct world *w);
void world_free(struct world *w);
struct fake_provider *world_provider(struct world *w, const char *name, int priority,
                                     const struct fake_turn *turns, size_t n);
struct fake_tool *world_tool(struct world *w, const char *name, const char *result);
void world_rules(struct world *w, const struct hook_rule *rules, size_t n);
/* world_run executes prompt (events of earlier runs are dropped); returns execute's status. */
int world_run(struct world *w, const char *prompt);

/* The checks. check_events applies the per-execute checks to one execute's events, an array
 * of {"event", "data", "reply"?} (what the fake hooks record, and what the mock journals);
 * check_contract adds the world's result and histories. */
void check_events(const cJSON *events, enum ock_exec_status status, int turn_count,
                  const char *trace_id, const char *orchestrator);
void check_contract(struct world *w, enum ock_exec_status status, int turn_count);
void check_history(const struct ock_history *h, const char *what);

/* Event access (this execute's). */
int count_events(const struct world *w, const char *name);
/* ock__event_data: the data of the k-th (0-based) event named name, or NULL. */
const cJSON *ock__event_data(const struct world *w, const char *name, int k);
/* event_names: the names joined by ",", for exact sequence asserts (static buffer). */
const char *event_names(const struct world *w);
const struct ock_history *world_history(const struct world *w);

#endif
