/*
 * fixture.h: the one model of a fixture (a scenario, SPEC.md 8; docs/fixtures.md), loaded and
 * checked once, and read by the mock (what it plays), the harness (what it runs) and the checks
 * (what they grade against).
 *
 * ock_fixture_load reads the fixture JSON into the structs below and rejects anything it does not
 * understand with the JSON path and what was expected, so a typo in a script is a load error and
 * never a silent default. The loaded fixture owns a deep copy of the JSON; every `const char *` and
 * `const cJSON *` below points into that copy and lives as long as the fixture. Nothing here does
 * I/O.
 */
#ifndef OCK_FIXTURE_H
#define OCK_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>

#include "ock/config.h"
#include "ock/contract.h"
#include "ock/json.h"
#include "ock/registry.h"
#include "ock/wire.h"
#include "ock/wire_list.h" /* ock_wire_name_at: a provider's api by name */

enum ock_fx_fault_kind {
  OCK_FX_FAULT_NONE = 0,
  OCK_FX_FAULT_STATUS,           /* an HTTP error status with the provider's typed body */
  OCK_FX_FAULT_CUT_STREAM,       /* the stream ends cleanly before [DONE] / message_stop */
  OCK_FX_FAULT_ERROR_MID_STREAM, /* an error event in place of the rest of the stream */
  OCK_FX_FAULT_DROP_CONNECTION,  /* the connection closes after `after` body bytes */
  OCK_FX_FAULT_MALFORMED_CHUNK   /* one chunk that is not JSON, then the rest */
};

struct ock_fx_fault {
  enum ock_fx_fault_kind kind;
  int status;               /* OCK_FX_FAULT_STATUS: 400..599 */
  double retry_after;       /* seconds for the retry-after header; < 0: none */
  long long retry_after_ms; /* retry-after-ms header; < 0: none */
  const char *message;      /* NULL: the provider's usual text for the status */
  long long after;          /* chunks (cut, error, malformed) or bytes (drop) sent first */
};

struct ock_fx_call {
  const char *name;
  char *arguments; /* the arguments as the wire carries them: compact JSON text, or the
                      fixture's arguments_raw verbatim (owned) */
  int raw;         /* 1: from arguments_raw (may not be JSON) */
};

enum ock_fx_match {
  OCK_FX_MATCH_NEXT = 0,         /* no "match": the next unused such turn in order */
  OCK_FX_MATCH_POSITION,         /* the provider's N-th request (1-based) */
  OCK_FX_MATCH_LAST_CONTAINS,    /* the last message's text contains a string */
  OCK_FX_MATCH_LAST_TOOL_CALL_ID /* the last message is the result for this call id */
};

struct ock_fx_turn {
  enum ock_fx_match match;
  long long position;     /* OCK_FX_MATCH_POSITION */
  const char *match_text; /* OCK_FX_MATCH_LAST_CONTAINS, OCK_FX_MATCH_LAST_TOOL_CALL_ID */
  const char *text;       /* NULL: no text */
  struct ock_fx_call *calls;
  size_t n_calls;
  const char *finish;        /* finish_reason / stop_reason; NULL: derived from the content */
  const char *stop_sequence; /* Anthropic: the sequence a stop_sequence stop names; NULL: none */
  long long chunk_size;      /* characters per streamed delta, >= 1 */
  long long chunk_delay_ms;
  long long delay_ms; /* before the first byte */
  struct ock_fx_fault fault;
};

struct ock_fx_provider {
  const char *name;
  enum ock_wire api; /* openai when wireless */
  int wireless;      /* 1: no "api": the run plays it on each of its wires (SPEC.md 8.2) */
  const char *model;
  long long priority; /* default 100 */
  struct ock_fx_turn *turns;
  size_t n_turns;
};

struct ock_fx_tool_reply {
  const cJSON *result; /* the ToolResult body; NULL: the default for the status (SPEC 8.5) */
  long long delay_ms;
  int status; /* HTTP status, 200 unless scripted */
};

struct ock_fx_tool {
  const char *name;
  int scripted;                    /* 0: listed in the session only; default replies */
  struct ock_fx_tool_reply dflt;   /* every call not in calls[] */
  struct ock_fx_tool_reply *calls; /* calls[i] answers the (i+1)-th call */
  size_t n_calls;
};

struct ock_fx_hook {
  const char *event;
  long long occurrence; /* 1-based among matching events; 0: every one */
  const cJSON *match;   /* object: each member must equal data's member by value; NULL: any */
  const cJSON *reply;   /* the HookResult sent */
};

enum ock_fx_cancel_at {
  OCK_FX_CANCEL_NONE = 0,
  OCK_FX_CANCEL_TOOL,
  OCK_FX_CANCEL_LLM_REQUEST,
  OCK_FX_CANCEL_EVENT,
  OCK_FX_CANCEL_AFTER_EXECUTE /* after the reply to the N-th orchestrator:complete event */
};

struct ock_fx_cancel {
  enum ock_fx_cancel_at at;
  const char *name; /* the tool or event name (OCK_EV_ORCHESTRATOR_COMPLETE for after_execute) */
  long long n;      /* occurrence (tool, event) or index (llm_request, after_execute), 1-based */
};

enum ock_fx_random_on { OCK_FX_RANDOM_LLM = 0, OCK_FX_RANDOM_TOOL = 1 };

struct ock_fx_random {
  enum ock_fx_random_on on;
  const char *target;        /* provider or tool name; NULL: any */
  double probability;        /* 0..1 */
  struct ock_fx_fault fault; /* OCK_FX_RANDOM_LLM */
  int status;                /* OCK_FX_RANDOM_TOOL: HTTP status of the failing reply */
};

/* ---- the harness's members: what a scenario is and what it expects (SPEC.md 8.8) ---------- */

/* One element of an expect clause. */
struct ock_fx_expect_item {
  const char *name;        /* events_*: the event; last_request_contains: the text; tool_calls and
                              tool_input: the tool; NULL for llm_requests */
  long long count;         /* llm_requests, tool_calls: the number expected; else -1 */
  const cJSON *input;      /* tool_input: the input expected, compared by value; else NULL */
  const char *requirement; /* the requirement the element names itself, or NULL */
};

/* A list clause: its elements, and the requirement the clause names for all (tool_calls,
 * tool_input), or NULL. */
struct ock_fx_expect_list {
  struct ock_fx_expect_item *items;
  size_t n;
  const char *requirement;
};

/* One element of "executes": NULL or -1 where the scenario expects nothing. */
struct ock_fx_expect_execute {
  const char *status; /* "success", "incomplete", "cancelled" or "error" */
  long long turn_count;
  const char *reason;
  const char *error_type;
};

/* A range of "timing.between_requests_ms", in milliseconds: min 0 and max 1e12 when unsaid. */
struct ock_fx_range {
  double min_ms, max_ms;
};

struct ock_fx_expect {
  int present;             /* the fixture has "expect" */
  const char *requirement; /* expect.requirement, or NULL */
  long long exit_code;     /* -1: not expected */
  struct ock_fx_expect_execute *executes;
  size_t n_executes;
  struct ock_fx_expect_list events_present, events_absent, last_request_contains;
  struct ock_fx_expect_list tool_calls, tool_input;
  int has_llm_requests;
  struct ock_fx_expect_item llm_requests;
  int has_timing;
  const char *timing_requirement;
  int timing_each;             /* 1: one range for every pair; 0: ranges[i] for pair i */
  struct ock_fx_range *ranges; /* n_ranges >= 1 when has_timing */
  size_t n_ranges;
};

struct ock_fixture {
  cJSON *json; /* the owned copy */
  const char *id;
  const char *title;         /* NULL when absent (the harness requires it) */
  const char *proves;        /* NULL when absent (the harness requires it) */
  const char **requirements; /* in the fixture's order; the first is what it proves first */
  size_t n_requirements;
  unsigned capabilities; /* 1u << enum ock_capability, or-ed: what the SUT must declare */
  const cJSON *aliases;  /* wire name -> the id it had on that wire, or NULL */
  struct ock_fx_expect expect;
  uint32_t hash;        /* fnv1a(id) */
  const char *trace_id; /* the fixture's, or "ock-<hash>" in trace_buf */
  char trace_buf[32];
  const cJSON *session;     /* $.session, validated */
  struct ock_config config; /* $.session.config over the registry's defaults: what is served */
  struct ock_fx_provider *providers;
  size_t n_providers;
  struct ock_fx_tool *tools; /* the session's tools, then nothing else */
  size_t n_tools;
  struct ock_fx_hook *hooks;
  size_t n_hooks;
  struct ock_fx_cancel *cancels; /* "cancel": one trigger or an array; each fires once */
  size_t n_cancels;
  struct ock_fx_random *randoms;
  size_t n_randoms;
  int observe_only;
  unsigned long long seed;
};

/* ock_fnv1a hashes a string (FNV-1a, 32 bits). */
uint32_t ock_fnv1a(const char *s);

/* ock_fixture_load checks json and builds *out (free with ock_fixture_free). reg: the registry
 * the harness grades by: the fixture must then have a title, a "proves" line and at least one
 * requirement, and every requirement it names must be reg's. NULL (the mock alone, which plays
 * any scenario): those members are checked by type only.
 * Returns OCK_OK, OCK_ENOMEM, or OCK_EMISSING / OCK_ETYPE / OCK_EINVAL with err set. */
int ock_fixture_load(const cJSON *json, const ock_registry *reg, struct ock_fixture **out,
                     struct ock_jerr *err);

/* ock_fixture_lists: the fixture names requirement id among its requirements. */
int ock_fixture_lists(const struct ock_fixture *f, const char *id);

/* ock_fixture_wireless: some provider of f names no wire (SPEC.md 8.2). */
int ock_fixture_wireless(const struct ock_fixture *f);

/* ock_fixture_alias: the id f had on wire ("aliases"), or NULL. */
const char *ock_fixture_alias(const struct ock_fixture *f, const char *wire);

/* ock_fixture_free frees everything; NULL is a no-op. */
void ock_fixture_free(struct ock_fixture *f);

/* Lookups by name; NULL when absent. */
const struct ock_fx_provider *ock_fixture_provider(const struct ock_fixture *f, const char *name);
const struct ock_fx_tool *ock_fixture_tool(const struct ock_fixture *f, const char *name);

/* ock_fx_fault_kind_name gives "status", "cut_stream", ... ("none" for OCK_FX_FAULT_NONE). */
const char *ock_fx_fault_kind_name(enum ock_fx_fault_kind kind);

#endif
