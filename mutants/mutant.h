/*
 * mutant.h: the contract between the mutant proxy and its mutations.
 *
 * A mutant is the reference orchestrator seen through exactly one deliberate lie. The proxy
 * (proxy.c) stands between the orchestrator and the mock, forwards every request unchanged,
 * and gives the one mutation named on the command line a chance to rewrite what passes: the
 * session document, an event and its hook reply, an LLM request and its reply, a tool request
 * and its reply, the reaction to SIGINT, the process exit. The gate (tests/mutants/test_gate.c)
 * proves with it that every conformance check can fail.
 *
 * Hooks do no I/O: they edit the exchange in place and ask for extra upstream posts through
 * its `before` / `after` arrays, so they are unit-tested without sockets. The proxy calls every
 * hook with the mutant's lock held, so hooks read and write `struct mutant_state` freely.
 */
#ifndef OCK_MUTANT_H
#define OCK_MUTANT_H

#include <stddef.h>

#include <cJSON.h>

#include "ock/caps.h"

/* What a request is, by its path (SPEC.md section 7.2). */
enum mutant_route {
  MUTANT_ROUTE_SESSION, /* GET /ock/v1/session */
  MUTANT_ROUTE_EVENT,   /* POST /ock/v1/events */
  MUTANT_ROUTE_TOOL,    /* POST /ock/v1/tools/{name} */
  MUTANT_ROUTE_LLM,     /* POST .../chat/completions or .../v1/messages */
  MUTANT_ROUTE_OTHER    /* anything else: forwarded untouched */
};

enum mutant_wire {
  MUTANT_WIRE_NONE,
  MUTANT_WIRE_OPENAI,
  MUTANT_WIRE_ANTHROPIC,
  MUTANT_WIRE_RESPONSES,
  MUTANT_WIRE_GEMINI
};

/* HTTP headers as name/value pairs; names keep the case they arrived with. */
struct mutant_headers {
  char *name[OCK_MAX_MUTANT_HEADERS];
  char *value[OCK_MAX_MUTANT_HEADERS];
  int n;
};

/* ock__mutant_headers_add copies name and value; past OCK_MAX_MUTANT_HEADERS the header is dropped.
 * Returns 0, or -1 when it was dropped or out of memory. */
int ock__mutant_headers_add(struct mutant_headers *h, const char *name, const char *value);
/* ock__mutant_headers_get: the value of the first header of that name (any case), or NULL. */
const char *ock__mutant_headers_get(const struct mutant_headers *h, const char *name);
/* ock__mutant_headers_remove drops every header of that name (any case); returns how many. */
int ock__mutant_headers_remove(struct mutant_headers *h, const char *name);
void ock__mutant_headers_free(struct mutant_headers *h);

/* One request and, once forwarded, its reply. The proxy owns every member. */
struct mutant_exchange {
  enum mutant_route route;
  enum mutant_wire wire; /* for MUTANT_ROUTE_LLM */
  const char *path;      /* the request path, e.g. "/ock/v1/tools/get_weather"; a request hook
                            may point it at path_buf to send the request elsewhere */
  char path_buf[256];
  cJSON *body; /* the request body when it is JSON, else NULL; hooks edit it */
  struct mutant_headers *req_headers;
  /* Set by request hooks. */
  cJSON *answer;    /* when set, the request is not forwarded: the SUT gets 200 and this */
  cJSON *before;    /* event bodies to POST upstream before the request is forwarded */
  cJSON *after;     /* event bodies to POST upstream once the reply is back */
  int replay_after; /* send the last forwarded tool or LLM request upstream once more */
  /* The reply, for reply hooks. */
  long status;  /* HTTP status; 0 when no reply came (connection failed) */
  cJSON *reply; /* the reply body when it is JSON, else NULL; hooks edit it */
  struct mutant_headers *reply_headers;
};

/* What the hooks remember across requests. Guarded by the proxy's lock. */
struct mutant_state {
  int streaming;            /* the session's config.streaming */
  int retrying;             /* config.error_strategy is retry or fallback */
  int max_iterations;       /* config.max_iterations (10 when absent) */
  long base_delay_ms;       /* config.retry_base_delay_ms (1000 when absent) */
  int executes;             /* prompt:submit events seen */
  int llm_in_execute;       /* LLM requests since the last prompt:submit */
  int responses_in_execute; /* provider:response events since the last prompt:submit */
  int requests_in_execute;  /* provider:request events since the last prompt:submit */
  int cancelled;            /* the current execute saw cancel:requested */
  int tool_failed;          /* the current execute saw a tool:error */
  int after_cancel;         /* the previous execute was cancelled */
  int wrapped_up;           /* an LLM request carried the iteration-limit reminder */
  int done_once;            /* a one-shot mutation already acted */
  cJSON *held;              /* event bodies held back (an array), forwarded later */
  cJSON *resolve;           /* the last provider:resolve body of this execute */
  char *injections[OCK_MAX_MUTANT_INJECTIONS]; /* context_injection texts the mock replied */
  int n_injections;
  int stop;           /* a hook asks the process to stop the SUT now and exit 0 */
  int retry_next;     /* a provider:retry came: the next LLM request is a retry */
  int sigint_pending; /* defers_sigint: the harness's SIGINT came and the SUT has not got it yet */
  int sigint_now;     /* a hook asks the proxy to pass the pending SIGINT on to the SUT now */
  char *kept;         /* a text one hook keeps for a later one (malloc'd; freed with the state) */
};

/* ock__mutant_state_init / ock__mutant_state_free: an empty state; free releases what hooks kept.
 */
void ock__mutant_state_init(struct mutant_state *s);
void ock__mutant_state_free(struct mutant_state *s);

/* mutant_note_* keep the facts above current. The proxy calls them after the hooks of the same
 * message, so a hook sees what came before it: for the first prompt:submit, executes is 0.
 * ock__mutant_note_event takes the event and the HookResult the SUT got (NULL when none). */
void ock__mutant_note_session(struct mutant_state *s, const cJSON *doc);
void ock__mutant_note_event(struct mutant_state *s, const cJSON *event, const cJSON *reply);
void ock__mutant_note_llm(struct mutant_state *s, const cJSON *request);

typedef void (*mutant_session_fn)(struct mutant_state *s, cJSON *doc);
typedef void (*mutant_hook_fn)(struct mutant_state *s, struct mutant_exchange *x);
/* mutant_exit_fn: given the SUT's wait status as an exit code (>= 0) or a terminating signal
 * (< 0: -signal), returns what the mutant ends with, in the same encoding. */
typedef int (*mutant_exit_fn)(const struct mutant_state *s, int ended);

/* One mutation: one lie aimed at one requirement. Unused hooks are NULL. */
struct mutation {
  const char *name;               /* "complete-twice": the command-line name */
  const char *requirement;        /* "OCK-COMPLETE-001": what it must make FAIL */
  const char *proves_too;         /* NULL, or further requirements it must make FAIL, each
                                     proven like requirement, space-separated (one lie that
                                     breaks a family of requirements, e.g. the TEXT group) */
  const char *cases;              /* the scenarios that show it: space-separated id globs and
                                     "@OCK-..." (every scenario naming that requirement), each
                                     may start with "!" to leave those out; NULL means
                                     "@<requirement>" */
  const char *what;               /* one line: the lie */
  mutant_session_fn session;      /* rewrites the session document */
  mutant_hook_fn session_request; /* the session fetch, before it is forwarded (body NULL):
                                     may ask for events before it */
  mutant_hook_fn event;           /* an event, before it is forwarded */
  mutant_hook_fn event_reply;     /* the HookResult, before the SUT sees it */
  mutant_hook_fn llm_request;     /* an LLM request, before it is forwarded */
  mutant_hook_fn llm_reply;       /* an LLM reply, before the SUT sees it */
  mutant_hook_fn tool_request;    /* a tool request, before it is forwarded */
  mutant_hook_fn tool_reply;      /* a tool reply, before the SUT sees it */
  mutant_exit_fn exit;            /* the process exit */
  int dies_on_sigint; /* SIGINT ends the mutant (and its SUT) instead of being ignored */
  int defers_sigint;  /* the SUT runs in its own process group, so the harness's SIGINT reaches the
                         mutant only; it is kept pending (mutant_state.sigint_pending) until a
                         hook sets sigint_now, and then passed on before the SUT gets that reply */
  int seals_cut_streams;       /* a streamed LLM reply the mock cut short reaches the SUT with the
                                  wire's terminator added, as if it had ended normally */
  int drops_bad_stream_events; /* also leave out of a stream every event whose data is not JSON
                                  or is an error, as a parser that skips what it cannot read */
};

/* The table (mutations.c). */
size_t ock__mutant_count(void);
const struct mutation *ock__mutant_at(size_t i);
/* ock__mutant_find: the mutation of that name, or NULL. "none" is the mutation without a lie (not
 * in the table: its requirement is ""), which shows that the proxy alone changes nothing. */
const struct mutation *ock__mutant_find(const char *name);
/* ock__mutant_cases: m->cases, or "@<requirement>" written into buf when it is NULL. */
const char *ock__mutant_cases(const struct mutation *m, char *buf, size_t n);

#endif
