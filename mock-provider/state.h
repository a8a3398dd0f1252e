/*
 * state.h: what the mock remembers between requests, and the router over it.
 *
 * One mock_state per ock_mock: the loaded fixture, the journal, and the counters the script
 * needs (requests per provider, used turns, calls per tool, hook occurrences, random-fault
 * candidates). One mutex guards the counters; a handler holds it while it decides and
 * journals a request's arrival, so the journal's order is the order decisions were made in.
 * The router and the handlers take a parsed HTTP request and fill a plan (plan.h); they do
 * no I/O, and the tests call them without a socket.
 */
#ifndef OCK_MOCK_STATE_H
#define OCK_MOCK_STATE_H

#include <pthread.h>
#include <stddef.h>

#include "ock/caps.h"
#include "ock/fixture.h"
#include "journal.h"
#include "mcp.h"
#include "plan.h"
#include "script.h"
#include "stored.h"

struct mock_state {
  const struct ock_fixture *fx; /* what the mock plays */
  struct ock_fixture *owned;    /* fx when the mock loaded it (freed with it), else NULL */
  struct mock_journal *journal; /* owned */
  pthread_mutex_t lock;         /* guards every member below */
  int observe_only;
  unsigned long long seed;
  char url[96];                          /* "http://127.0.0.1:PORT", set at start */
  unsigned long long llm_requests;       /* over all providers */
  unsigned long long *provider_requests; /* per provider */
  struct mock_play *plays;               /* per provider: its turns played */
  unsigned long long *tool_calls;        /* per session tool */
  unsigned long long *hook_counts;       /* per hook: matching events seen */
  unsigned long long *random_counts;     /* per random rule: candidates seen */
  unsigned long long *cancel_counts;     /* per cancel trigger: arrivals of its tool or event */
  unsigned char *cancel_fired;           /* per cancel trigger */
  unsigned long long replies;            /* scripted turns played so far, over all providers:
                                            the <turn> of the deterministic ids (SPEC 6.6) */
  struct mock_mcp_session mcp[OCK_MAX_MCP_SESSIONS]; /* the MCP sessions opened so far (mcp.c) */
  size_t n_mcp;
  struct mock_store responses; /* the Responses API's stored conversations; its own lock */
};

#define OCK_FX_CANCEL_HOLD_MS 200 /* a reply held after its cancel trigger fired (SPEC 8.7) */

/* One HTTP request as the router sees it. Everything is borrowed for the call. */
struct mock_request {
  const char *method;
  const char *path; /* without the query */
  const char *body; /* NUL-terminated; "" when none */
  size_t body_len;
  int body_too_big;     /* the body passed OCK_MAX_MOCK_BODY and was not kept */
  const char *trace_id; /* the X-OCK-Trace-Id header, or NULL */
  /* header(conn, name): any request header (name case-insensitive), or NULL; header may be
   * NULL when the request has no headers to ask for. The bytes are the client's, not checked
   * as UTF-8: scrub them before they reach the journal. */
  const char *(*header)(void *conn, const char *name);
  /* query(conn, name): a query argument (?alt=sse), or NULL; query may be NULL, as header. */
  const char *(*query)(void *conn, const char *name);
  void *conn;
};

/* ock__state_new plays fx; it takes ownership of owned (fx or NULL), also on failure.
 * stored_responses: what the Responses API store keeps at least (stored.h). Returns OCK_OK or
 * OCK_ENOMEM. */
int ock__state_new(const struct ock_fixture *fx, struct ock_fixture *owned, int observe_only,
                   unsigned long long seed, size_t max_journal, size_t stored_responses,
                   struct mock_state **out);
void ock__state_free(struct mock_state *st); /* NULL is a no-op */

/* ock__route answers one request: fills plan (initialised by the caller). Returns OCK_OK,
 * or OCK_ENOMEM when even an error reply could not be built. */
int ock__route(struct mock_state *st, const struct mock_request *rq, struct mock_plan *plan);

/* The endpoint handlers ock__route calls (session.c, events.c, tools.c, llm.c, mcp.c). */
int ock__serve_session(struct mock_state *st, const struct mock_request *rq,
                       struct mock_plan *plan);
int ock__serve_event(struct mock_state *st, const struct mock_request *rq, struct mock_plan *plan);
int ock__serve_tool(struct mock_state *st, const struct mock_request *rq, const char *name,
                    struct mock_plan *plan);
int ock__serve_llm(struct mock_state *st, const struct mock_request *rq,
                   const struct ock_fx_provider *p, struct mock_plan *plan);
int ock__serve_mcp(struct mock_state *st, const struct mock_request *rq, struct mock_plan *plan);

/* One call of a scripted tool, through either door (POST /ock/v1/tools/{name}, or tools/call
 * over MCP). The caller fills name, input, id (NULL: journaled as null), extra (members added
 * to the tool_start and tool_end entries, or NULL; the caller owns it) and resolve (or NULL),
 * which runs under st->lock just before tool_start is journaled and may set id (pointing into
 * id_buf) and add to extra. ock__tool_call fills known, status and reply (the ToolResult; the
 * caller owns it), adds the tool's delay to the plan and defers its tool_end entry. */
struct mock_tool_call {
  const char *name;
  const cJSON *input;
  const char *id;
  cJSON *extra;
  void (*resolve)(struct mock_state *st, struct mock_tool_call *c);
  void *user; /* for resolve */
  char id_buf[OCK_MAX_MCP_ID + 1];
  int known;
  int status;
  cJSON *reply;
};
int ock__tool_call(struct mock_state *st, const struct mock_request *rq, struct mock_tool_call *c,
                   struct mock_plan *plan);

/* ock__serve_http_error journals an http_error and replies {"error":{"type","message"}}, or,
 * on an LLM path, the error envelope of that path's API (type then follows the status). */
int ock__serve_http_error(struct mock_state *st, const struct mock_request *rq, int status,
                          const char *type, const char *message, struct mock_plan *plan);

/* ock__id_text writes prefix, hash as 8 lowercase hex digits, then sep and n for each n in ns
 * (count of them), and a NUL: the deterministic ids of SPEC.md 6.6 ("req_ock_H_S",
 * "chatcmpl-H-T", "call_H_T_I"), without printf, which cost a tenth of a reply. out must hold
 * the prefix and 8 + count * 21 + 1 more bytes. */
void ock__id_text(char *out, const char *prefix, unsigned hash, char sep,
                  const unsigned long long *ns, int count);

/* ock__headers_json: {"x-ock-trace-id": value} or {} (caller owns). */
cJSON *ock__headers_json(const struct mock_request *rq);

/* ock__cancel_on_arrival counts an arriving tool call (at OCK_FX_CANCEL_TOOL) or event
 * (OCK_FX_CANCEL_EVENT, OCK_FX_CANCEL_AFTER_EXECUTE) named name against the fixture's cancel
 * triggers, or matches an LLM request's run-wide index (OCK_FX_CANCEL_LLM_REQUEST, name NULL).
 * A trigger that fires (once) is journaled now and marks the plan, whose reply is then held
 * OCK_FX_CANCEL_HOLD_MS so the SIGINT arrives first. Call with st->lock held. */
void ock__cancel_on_arrival(struct mock_state *st, enum ock_fx_cancel_at at, const char *name,
                            unsigned long long index, struct mock_plan *plan);

#endif
