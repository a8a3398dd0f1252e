/*
 * orchestrator.h: the reference orchestrator, the contract of SPEC.md done right.
 *
 * An orchestrator runs one prompt at a time (ock_orchestrator_execute): it sends the
 * conversation to a provider, runs the tools the model asks for, feeds the results back and
 * reports every step as an event, until the model gives a final answer. The collaborators are
 * the ones the Amplifier contract names, each a struct of function pointers so that a C user
 * can plug in their own:
 *
 *   provider         complete, stream (streaming complete), parse_tool_calls
 *   tool             execute
 *   context manager  add_message, messages_for_request
 *   hook registry    emit, which returns a HookResult
 *
 * One engine serves three modes: basic (the tools of one response run in parallel, results
 * are added in call order), streaming (provider:stream per delta) and events (tool:selecting /
 * tool:selected, where a scheduler may veto or change a call). Around it sit the CUGAR parts:
 * an immutable execution context carrying the trace ID, deterministic routing with a named
 * fallback, the four error strategies, and cooperative cancellation.
 *
 * The engine does no I/O of its own: the HTTP collaborators at the end of this header (LLM
 * providers for the OpenAI and Anthropic wires, tools and hooks over the ock/1 protocol) are
 * thin libcurl edges, and the unit tests replace all of them with in-process fakes.
 *
 * Threads: with parallel tools, tool->execute runs on worker threads (one per call of a
 * response), concurrently with other calls; every other collaborator function is called from
 * the thread that called ock_orchestrator_execute.
 *
 * Errors: functions return OCK_OK or a negative code of ock/status.h.
 */
#ifndef OCK_ORCHESTRATOR_H
#define OCK_ORCHESTRATOR_H

#include <stddef.h>

#include <cJSON.h>

#include "ock/config.h"
#include "ock/json.h"
#include "ock/message.h"
#include "ock/wire.h"

/* ---- cancellation -------------------------------------------------------------------------- */

/* A cancellation flag a long operation polls. Owned by the orchestrator; collaborators get a
 * borrowed pointer for the duration of one call. */
typedef struct ock_cancel ock_cancel;

/* ock_cancel_is_set: 1 once cancellation of the running execute was requested; 0 for NULL. */
int ock_cancel_is_set(const ock_cancel *c);

/* ---- providers ----------------------------------------------------------------------------- */

/* What a tool looks like to the model (offered in each request): struct ock_tool_spec, in
 * ock/wire.h. */

/* One LLM request. Everything is borrowed for the duration of the call. */
struct ock_llm_request {
  const struct ock_history *messages; /* the request's messages (context plus this request's
                                         ephemeral additions) */
  const struct ock_tool_spec *tools;  /* the tools offered; NULL when n_tools is 0 */
  size_t n_tools;
  int stream;               /* 1: ask for a streamed reply ("stream": true) */
  const char *trace_id;     /* sent as X-OCK-Trace-Id */
  long timeout_ms;          /* the whole transfer; 0 = no limit */
  const ock_cancel *cancel; /* when set, abandon the transfer: OCK_ECANCELLED */
};

/* Why an LLM request failed. The engine decides retryability from kind and status
 * (ock_llm_error_retryable), so a provider only reports what happened. */
enum ock_llm_fault {
  OCK_LLM_HTTP,       /* the provider answered with an error status (status set) */
  OCK_LLM_CONNECTION, /* could not connect, or the connection broke */
  OCK_LLM_TIMEOUT,    /* request_timeout_ms passed */
  OCK_LLM_STREAM,     /* a stream cut short, an error event mid-stream, a malformed chunk */
  OCK_LLM_MALFORMED,  /* a complete reply that is not the documented shape */
  OCK_LLM_CANCELLED   /* abandoned because cancellation was requested */
};

struct ock_llm_error {
  enum ock_llm_fault kind;
  int status;          /* HTTP status, 0 when there was none */
  char type[64];       /* short machine name: "rate_limit_error", "stream_error", ... */
  char message[512];   /* for a person: what happened */
  long retry_after_ms; /* from retry-after-ms / retry-after; -1 when absent */
};

/* ock_llm_error_retryable: 1 for HTTP 408, 409, 429, 500, 502, 503, 504, 529, connection
 * errors, timeouts and broken streams; 0 for everything else (400, 401, 403, 404, 413, 422,
 * a malformed reply, cancellation). */
int ock_llm_error_retryable(const struct ock_llm_error *e);

/* One piece of a streamed reply: struct ock_delta and ock_delta_fn, in ock/wire.h. The
 * provider calls on_delta from the thread that called stream; a non-zero return abandons the
 * stream (the provider then reports OCK_LLM_CANCELLED). */

struct ock_provider {
  const char *name;  /* as routing and events name it; borrowed for the provider's life */
  const char *model; /* borrowed */
  int priority;      /* lower number = preferred */
  void *self;        /* passed back to every function below */

  /* complete sends req and fills *out (ock_reply_init'ed by the caller; cleared by the
   * caller with ock_reply_clear). Returns OCK_OK, or a negative code with *err filled. */
  int (*complete)(void *self, const struct ock_llm_request *req, struct ock_reply *out,
                  struct ock_llm_error *err);

  /* stream is complete with "stream": true: on_delta sees each delta as it arrives, and *out
   * is the whole reply, whose text is exactly the concatenation of the text deltas. A stream
   * that ends early, carries an error event or a malformed chunk fails (OCK_LLM_STREAM) and
   * leaves no partial reply. NULL: the provider cannot stream; the engine uses complete. */
  int (*stream)(void *self, const struct ock_llm_request *req, ock_delta_fn on_delta, void *user,
                struct ock_reply *out, struct ock_llm_error *err);

  /* parse_tool_calls points *calls at the tool calls of reply (borrowed from it) and sets
   * *n. NULL: the reply's own calls (reply->msg.calls). */
  int (*parse_tool_calls)(void *self, const struct ock_reply *reply,
                          const struct ock_tool_call **calls, size_t *n);
};

/* ---- tools --------------------------------------------------------------------------------- */

/* Per-call environment of a tool execution; borrowed for the call. */
struct ock_tool_env {
  const char *trace_id;     /* sent as X-OCK-Trace-Id by the HTTP tool */
  long timeout_ms;          /* config tool_timeout_ms; 0 = no limit */
  const ock_cancel *cancel; /* when set, give up: OCK_ECANCELLED */
};

struct ock_tool {
  struct ock_tool_spec spec; /* name, description, input schema */
  void *self;

  /* execute runs the tool once with input (a JSON value, borrowed). May run on a worker
   * thread, concurrently with other calls of the same or other tools.
   * Returns OCK_OK with *result a ToolResult {"success", "output", "error"} (caller frees
   * with cJSON_Delete); OCK_ETIMEDOUT when the tool timed out; OCK_ECANCELLED when it gave
   * up on cancellation; any other negative code when it could not run (endpoint failure).
   * On failure, detail (detail_len bytes, may be NULL) says why, for the tool result text. */
  int (*execute)(void *self, const char *tool_call_id, const cJSON *input,
                 const struct ock_tool_env *env, cJSON **result, char *detail, size_t detail_len);
};

/* ---- context manager ----------------------------------------------------------------------- */

struct ock_context {
  void *self;
  /* add_message stores a copy of m at the end of the conversation. */
  int (*add_message)(void *self, const struct ock_message *m);
  /* messages_for_request fills out (initialised, empty) with a copy of the messages to send
   * to provider p; out is the caller's (ock_history_free). May trim, never reorders. */
  int (*messages_for_request)(void *self, const struct ock_provider *p, struct ock_history *out);
};

/* The in-memory context manager: keeps every message, sends them all. */
typedef struct ock_memctx ock_memctx;

/* ock_memctx_new makes an empty context. Free with ock_memctx_free. */
int ock_memctx_new(ock_memctx **out);
void ock_memctx_free(ock_memctx *m); /* NULL is a no-op */
/* ock_memctx_context: its context-manager interface (owned by m). */
const struct ock_context *ock_memctx_context(ock_memctx *m);
/* ock_memctx_history: the stored messages (owned by m; valid until the next change). */
const struct ock_history *ock_memctx_history(const ock_memctx *m);

/* ---- hooks --------------------------------------------------------------------------------- */

enum ock_hook_action {
  OCK_HOOK_CONTINUE,
  OCK_HOOK_DENY,
  OCK_HOOK_MODIFY,
  OCK_HOOK_INJECT_CONTEXT,
  OCK_HOOK_ASK_USER
};

/* A HookResult, what a hook registry answers to an event. Owns its strings and data. */
struct ock_hook_result {
  enum ock_hook_action action;
  char *reason;                 /* deny / modify explanation; may be NULL */
  cJSON *data;                  /* modify: the changed fields; may be NULL */
  char *context_injection;      /* inject_context: the text; may be NULL */
  enum ock_role injection_role; /* system (default), user or assistant */
  int ephemeral;                /* inject_context: 1 = next request only, never stored */
};

void ock_hook_result_init(struct ock_hook_result *r); /* action continue, nothing else */
void ock_hook_result_clear(struct ock_hook_result *r);
/* ock_hook_result_from_json reads {"action", "reason", "data", "context_injection",
 * "context_injection_role", "ephemeral"}. Unknown members are ignored; an unknown action or
 * role is OCK_ETYPE naming the path. *out is untouched on failure. */
int ock_hook_result_from_json(const cJSON *j, struct ock_hook_result *out, struct ock_jerr *err);

struct ock_hooks {
  void *self;
  /* emit tells the registry about event `name` with data (borrowed; the engine has already
   * added "trace_id" and "stage") and returns only after every handler ran. It fills *out
   * (initialised to continue by the caller). A non-zero return counts as "continue". */
  int (*emit)(void *self, const char *name, const cJSON *data, struct ock_hook_result *out);
};

/* ---- execution context (CUGAR) ------------------------------------------------------------- */

/* An immutable execution context: a trace ID (required, never changed), metadata (a JSON
 * object, changed only by making a new context), and a link to the parent context of a nested
 * run. Contexts are reference-counted; every function that returns one gives the caller a
 * reference to release with ock_exec_context_free. */
typedef struct ock_exec_context ock_exec_context;

/* ock_exec_context_new: a root context. trace_id is copied and must be non-empty and at most
 * 128 printable ASCII bytes (else OCK_EINVAL). */
int ock_exec_context_new(const char *trace_id, ock_exec_context **out);
/* ock_exec_context_with_metadata: a new context equal to c with metadata key set to a copy of
 * value (c is unchanged; same trace ID and parent). */
int ock_exec_context_with_metadata(const ock_exec_context *c, const char *key, const cJSON *value,
                                   ock_exec_context **out);
/* ock_exec_context_child: a context for a nested run: same trace ID, a copy of the metadata,
 * parent = c (kept alive by the child). */
int ock_exec_context_child(const ock_exec_context *c, ock_exec_context **out);
const char *ock_exec_context_trace_id(const ock_exec_context *c);  /* owned by c */
const cJSON *ock_exec_context_metadata(const ock_exec_context *c); /* owned by c; read only */
const ock_exec_context *ock_exec_context_parent(const ock_exec_context *c); /* or NULL */
/* ock_exec_context_depth: 0 for a root, 1 for its child, ... */
int ock_exec_context_depth(const ock_exec_context *c);
void ock_exec_context_free(ock_exec_context *c); /* releases one reference; NULL no-op */

/* ---- routing (CUGAR) ----------------------------------------------------------------------- */

/* A routing decision: a pure function of the providers (their priorities and list order) and
 * the set of providers that already failed in this execute. */
struct ock_route {
  int target;       /* index into the providers, or -1 when none is left */
  int fallback;     /* the next one by the same order, or -1 */
  char reason[256]; /* names the rule that chose target */
};

/* ock_route_decide chooses the provider with the lowest priority number among those not
 * failed (failed may be NULL; failed[i] != 0 marks provider i), ties by list order. after is
 * the name of the provider that just failed (NULL for the first decision); it only words the
 * reason. */
void ock_route_decide(const struct ock_provider *const *providers, size_t n,
                      const unsigned char *failed, const char *after, struct ock_route *out);

/* ---- the orchestrator ---------------------------------------------------------------------- */

/* The loop modes (enum ock_mode) and error strategies (enum ock_error_strategy), their names
 * on the wire ("basic", "fail_fast", ...) and ock_mode_name / ock_error_strategy_name and the
 * parse functions come from the registry through ock/config.h. */

/* The orchestrator's settings: its name, and every option of the session config (SPEC.md 7.4)
 * as ock/config.h types it (max_iterations, parallel_tools, streaming, error_strategy,
 * max_retries, retry_base_delay_ms, retry_max_delay_ms, retry_jitter, tool_timeout_ms,
 * request_timeout_ms, mode). Here max_iterations <= 0 means the default, tool_timeout_ms 0
 * means no limit, and mode streaming sets streaming. */
struct ock_orchestrator_config {
  const char *name; /* "orchestrator" in events; copied; NULL = "ock-reference" */
  OCK_CONFIG_MEMBERS
};

/* ock_orchestrator_config_default fills c with the registry's defaults (ock_config_default). */
void ock_orchestrator_config_default(struct ock_orchestrator_config *c);

/* Time and chance, replaceable so tests run fast and deterministic. */
struct ock_runtime {
  /* sleep_ms waits ms milliseconds, or less once cancel is set. */
  void (*sleep_ms)(void *user, long ms, const ock_cancel *cancel);
  /* random returns a uniform number in [0, 1). */
  double (*random)(void *user);
  void *user;
};

typedef struct ock_orchestrator ock_orchestrator;

/* ock_orchestrator_new makes an orchestrator (cfg copied; NULL = defaults). Free with
 * ock_orchestrator_free. It keeps, across executes, only what the contract carries over:
 * ephemeral context injections not yet sent. */
int ock_orchestrator_new(const struct ock_orchestrator_config *cfg, ock_orchestrator **out);
void ock_orchestrator_free(ock_orchestrator *o); /* NULL is a no-op */
/* ock_orchestrator_set_runtime replaces the clock and random source (copied). */
void ock_orchestrator_set_runtime(ock_orchestrator *o, const struct ock_runtime *rt);

enum ock_exec_status {
  OCK_EXEC_SUCCESS,    /* a final answer */
  OCK_EXEC_INCOMPLETE, /* max_iterations, or a hook denied */
  OCK_EXEC_CANCELLED,
  OCK_EXEC_ERROR
};
const char *ock_exec_status_name(enum ock_exec_status s); /* "success", ... */

/* What one execute ended with: the same facts orchestrator:complete reported. */
struct ock_exec_result {
  enum ock_exec_status status;
  int turn_count;
  char *response;      /* the final answer (success / incomplete), else NULL; owned */
  char reason[32];     /* incomplete: "max_iterations" or "denied"; else "" */
  char error_type[64]; /* error: "invalid_input", "no_provider", a provider or tool error */
  char error_message[512];
};
void ock_exec_result_clear(struct ock_exec_result *r);

/* ock_orchestrator_execute runs one prompt to its end under the contract: events through
 * hooks (NULL: nobody listens), messages kept in context, providers chosen by routing, tools
 * by name. exec may be NULL (a trace ID is generated). Everything is borrowed for the call.
 * Every path, including an empty prompt, no provider, a denial, an error and cancellation,
 * ends with exactly one orchestrator:complete and leaves context valid for the next prompt.
 * Returns OCK_OK with *out filled (clear it with ock_exec_result_clear), or OCK_EINVAL when
 * o, context or out is NULL, or OCK_ESTATE when an execute is already running on o. */
int ock_orchestrator_execute(ock_orchestrator *o, const char *prompt, const ock_exec_context *exec,
                             const struct ock_context *context,
                             const struct ock_provider *const *providers, size_t n_providers,
                             const struct ock_tool *const *tools, size_t n_tools,
                             const struct ock_hooks *hooks, struct ock_exec_result *out);

/* ock_orchestrator_cancel requests cancellation of the running execute; it takes effect at
 * the next safe point (in-flight transfers are abandoned). It counts from the moment the
 * execute posts prompt:submit until the execute returns; outside that it does nothing.
 * Async-signal-safe: a SIGINT handler may call it. */
void ock_orchestrator_cancel(ock_orchestrator *o);

/* ---- collaborators over HTTP (libcurl) ----------------------------------------------------- */

/* enum ock_wire (OCK_WIRE_OPENAI, OCK_WIRE_ANTHROPIC, OCK_WIRE_GEMINI) is in ock/wire.h. */

/* An LLM provider on the OpenAI Chat Completions wire (POST {base_url}/chat/completions), the
 * Anthropic Messages wire (POST {base_url}/v1/messages) or the Gemini API wire (POST
 * {base_url}/v1beta/models/{model}:generateContent, or :streamGenerateContent?alt=sse), JSON or
 * SSE. Strings are copied; api_key NULL uses $OPENAI_API_KEY / $ANTHROPIC_API_KEY /
 * $GOOGLE_API_KEY then $GEMINI_API_KEY, or a dummy. */
typedef struct ock_http_provider ock_http_provider;
int ock_http_provider_new(enum ock_wire wire, const char *name, const char *base_url,
                          const char *model, int priority, const char *api_key,
                          ock_http_provider **out);
void ock_http_provider_free(ock_http_provider *p);                      /* NULL is a no-op */
const struct ock_provider *ock_http_provider_get(ock_http_provider *p); /* owned by p */

/* A tool run by POST {root}/ock/v1/tools/{name} with {"tool_call_id", "input"}; the reply is
 * the ToolResult. HTTP >= 400 or an unreadable reply is an endpoint failure. Strings and the
 * schema are copied. */
typedef struct ock_http_tool ock_http_tool;
int ock_http_tool_new(const char *root, const char *name, const char *description,
                      const cJSON *input_schema, ock_http_tool **out);
void ock_http_tool_free(ock_http_tool *t);
const struct ock_tool *ock_http_tool_get(ock_http_tool *t); /* owned by t */

/* A hook registry that POSTs every event to {root}/ock/v1/events as {"event", "data"} and
 * waits for the HookResult. A failed POST is reported on stderr and counts as continue. */
typedef struct ock_http_hooks ock_http_hooks;
int ock_http_hooks_new(const char *root, long timeout_ms, ock_http_hooks **out);
void ock_http_hooks_free(ock_http_hooks *h);
const struct ock_hooks *ock_http_hooks_get(ock_http_hooks *h); /* owned by h */

/* The HTTP collaborators and ock_http_get_json keep each thread's libcurl handles, and its
 * open connections to the ock/1 endpoints, from one request to the next; a thread's are freed
 * when it exits. ock_http_thread_cleanup frees the calling thread's now (a later request makes
 * new ones); never from inside a request's callback. Call it on the main thread before
 * curl_global_cleanup(). */
void ock_http_thread_cleanup(void);

/* ock_http_get_json fetches url (GET, at most max bytes, timeout_ms) and parses it.
 * Returns OCK_OK (*out owned by the caller), OCK_EIO (unreachable), OCK_EHTTP (status
 * >= 400), OCK_ETIMEDOUT, OCK_ETOOBIG or OCK_EJSON; err says which, with the URL. */
int ock_http_get_json(const char *url, long timeout_ms, size_t max, cJSON **out,
                      struct ock_jerr *err);

#endif
