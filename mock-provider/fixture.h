/*
 * fixture.h: the parts of a fixture the mock uses, loaded and checked once.
 *
 * ock__fixture_load reads the fixture JSON (format: BRIEF/SPEC "Fixture format") into the
 * structs below and rejects anything it does not understand with the JSON path and what was
 * expected, so a typo in a script is a load error and never a silent default. The loaded
 * fixture owns a deep copy of the JSON; every `const char *` and `const cJSON *` below
 * points into that copy and lives as long as the fixture. Nothing here does I/O.
 */
#ifndef OCK_MOCK_FIXTURE_H
#define OCK_MOCK_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>

#include "ock/config.h"
#include "ock/contract.h"
#include "ock/json.h"

enum mock_api {
  MOCK_API_OPENAI = 0,
  MOCK_API_ANTHROPIC = 1,
  MOCK_API_RESPONSES = 2,
  MOCK_API_GEMINI = 3
};

enum mock_fault_kind {
  MOCK_FAULT_NONE = 0,
  MOCK_FAULT_STATUS,           /* an HTTP error status with the provider's typed body */
  MOCK_FAULT_CUT_STREAM,       /* the stream ends cleanly before [DONE] / message_stop */
  MOCK_FAULT_ERROR_MID_STREAM, /* an error event in place of the rest of the stream */
  MOCK_FAULT_DROP_CONNECTION,  /* the connection closes after `after` body bytes */
  MOCK_FAULT_MALFORMED_CHUNK   /* one chunk that is not JSON, then the rest */
};

struct mock_fault {
  enum mock_fault_kind kind;
  int status;               /* MOCK_FAULT_STATUS: 400..599 */
  double retry_after;       /* seconds for the retry-after header; < 0: none */
  long long retry_after_ms; /* retry-after-ms header; < 0: none */
  const char *message;      /* NULL: the provider's usual text for the status */
  long long after;          /* chunks (cut, error, malformed) or bytes (drop) sent first */
};

struct mock_call {
  const char *name;
  char *arguments; /* the arguments as the wire carries them: compact JSON text, or the
                      fixture's arguments_raw verbatim (owned) */
  int raw;         /* 1: from arguments_raw (may not be JSON) */
};

enum mock_match {
  MOCK_MATCH_NEXT = 0,         /* no "match": the next unused such turn in order */
  MOCK_MATCH_POSITION,         /* the provider's N-th request (1-based) */
  MOCK_MATCH_LAST_CONTAINS,    /* the last message's text contains a string */
  MOCK_MATCH_LAST_TOOL_CALL_ID /* the last message is the result for this call id */
};

struct mock_turn {
  enum mock_match match;
  long long position;     /* MOCK_MATCH_POSITION */
  const char *match_text; /* MOCK_MATCH_LAST_CONTAINS, MOCK_MATCH_LAST_TOOL_CALL_ID */
  const char *text;       /* NULL: no text */
  struct mock_call *calls;
  size_t n_calls;
  const char *finish;        /* finish_reason / stop_reason; NULL: derived from the content */
  const char *stop_sequence; /* Anthropic: the sequence a stop_sequence stop names; NULL: none */
  long long chunk_size;      /* characters per streamed delta, >= 1 */
  long long chunk_delay_ms;
  long long delay_ms; /* before the first byte */
  struct mock_fault fault;
};

struct mock_provider {
  const char *name;
  enum mock_api api;
  const char *model;
  long long priority; /* default 100 */
  struct mock_turn *turns;
  size_t n_turns;
};

struct mock_tool_reply {
  const cJSON *result; /* the ToolResult body; NULL: the default for the status (SPEC 8.5) */
  long long delay_ms;
  int status; /* HTTP status, 200 unless scripted */
};

struct mock_tool {
  const char *name;
  int scripted;                  /* 0: listed in the session only; default replies */
  struct mock_tool_reply dflt;   /* every call not in calls[] */
  struct mock_tool_reply *calls; /* calls[i] answers the (i+1)-th call */
  size_t n_calls;
};

struct mock_hook {
  const char *event;
  long long occurrence; /* 1-based among matching events; 0: every one */
  const cJSON *match;   /* object: each member must equal data's member by value; NULL: any */
  const cJSON *reply;   /* the HookResult sent */
};

enum mock_cancel_at {
  MOCK_CANCEL_NONE = 0,
  MOCK_CANCEL_TOOL,
  MOCK_CANCEL_LLM_REQUEST,
  MOCK_CANCEL_EVENT,
  MOCK_CANCEL_AFTER_EXECUTE /* after the reply to the N-th orchestrator:complete event */
};

struct mock_cancel {
  enum mock_cancel_at at;
  const char *name; /* the tool or event name (OCK_EV_ORCHESTRATOR_COMPLETE for after_execute) */
  long long n;      /* occurrence (tool, event) or index (llm_request, after_execute), 1-based */
};

enum mock_random_on { MOCK_RANDOM_LLM = 0, MOCK_RANDOM_TOOL = 1 };

struct mock_random {
  enum mock_random_on on;
  const char *target;      /* provider or tool name; NULL: any */
  double probability;      /* 0..1 */
  struct mock_fault fault; /* MOCK_RANDOM_LLM */
  int status;              /* MOCK_RANDOM_TOOL: HTTP status of the failing reply */
};

struct mock_fixture {
  cJSON *json; /* the owned copy */
  const char *id;
  uint32_t hash;        /* fnv1a(id) */
  const char *trace_id; /* the fixture's, or "ock-<hash>" in trace_buf */
  char trace_buf[32];
  const cJSON *session;     /* $.session, validated */
  struct ock_config config; /* $.session.config over the registry's defaults: what is served */
  struct mock_provider *providers;
  size_t n_providers;
  struct mock_tool *tools; /* the session's tools, then nothing else */
  size_t n_tools;
  struct mock_hook *hooks;
  size_t n_hooks;
  struct mock_cancel *cancels; /* "cancel": one trigger or an array; each fires once */
  size_t n_cancels;
  struct mock_random *randoms;
  size_t n_randoms;
  int observe_only;
  unsigned long long seed;
};

/* ock__fnv1a hashes a string (FNV-1a, 32 bits). */
uint32_t ock__fnv1a(const char *s);

/* ock__fixture_load checks json and builds *out (free with ock__fixture_free).
 * Returns OCK_OK, OCK_ENOMEM, or OCK_EMISSING / OCK_ETYPE / OCK_EINVAL with err set. */
int ock__fixture_load(const cJSON *json, struct mock_fixture **out, struct ock_jerr *err);

/* ock__fixture_free frees everything; NULL is a no-op. */
void ock__fixture_free(struct mock_fixture *f);

/* Lookups by name; NULL when absent. */
const struct mock_provider *ock__fixture_provider(const struct mock_fixture *f, const char *name);
const struct mock_tool *ock__fixture_tool(const struct mock_fixture *f, const char *name);

/* ock__api_name gives "openai", "anthropic", "responses" or "gemini". */
const char *ock__api_name(enum mock_api api);

/* ock__fault_kind_name gives "status", "cut_stream", ... ("none" for MOCK_FAULT_NONE). */
const char *ock__fault_kind_name(enum mock_fault_kind kind);

#endif
