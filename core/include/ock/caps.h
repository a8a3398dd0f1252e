/*
 * caps.h: every size cap on what comes from outside, in one place.
 *
 * A SUT, a provider, a fixture or a client can send a gigabyte, a million tool calls or an ID
 * the length of a book; each limit below is where the kit stops reading, and what a failure
 * past it means is said at the call site (a 413, a stream_error, a FAIL, a refused file). The
 * values are the ones the parts always had; each comment says what the cap bounds and why that
 * value. A cap that is only a table's width, or how much a report shows, is not here.
 */
#ifndef OCK_CAPS_H
#define OCK_CAPS_H

#include <stddef.h>

/* ---- core ----------------------------------------------------------------------------------- */

/* Tool calls the event grammar tracks in one execute: a hostile event log must not grow the
 * automaton without bound, and no real execute comes near ten thousand calls. */
#define OCK_MAX_GRAMMAR_CALLS 10000

/* ---- the reference orchestrator ------------------------------------------------------------- */

/* The ock/1 session document: prompts, config, providers and tools fit in far less; 16 MiB
 * leaves room for long prompts without letting a broken server exhaust memory. */
#define OCK_MAX_SESSION_BYTES ((size_t)16 << 20)
/* One provider reply, JSON or streamed; also the cap of one SSE line and one event's data,
 * which cannot be longer than the reply. 16 MiB is far past any real completion. */
#define OCK_MAX_PROVIDER_REPLY ((size_t)16 << 20)
/* An SSE event name: the wires use names of a few dozen bytes. */
#define OCK_MAX_SSE_EVENT_NAME 256
/* Tool calls in one streamed reply: the wires number them from 0, and no model sends 256. */
#define OCK_MAX_STREAM_SLOTS 256
/* The largest block or call "index" a streamed chunk may carry: past it the chunk is
 * malformed (1e300 or 2^31 would overflow an int, a real index is small). */
#define OCK_MAX_STREAM_INDEX 1000000
/* One ock/1 tool endpoint reply: a ToolResult with its output; 8 MiB, as the mock's request
 * cap, so any result the mock can hold comes back whole. */
#define OCK_MAX_TOOL_REPLY ((size_t)8 << 20)
/* One ock/1 events endpoint reply: a HookResult is a few fields and an injection text. */
#define OCK_MAX_HOOK_REPLY ((size_t)1 << 20)
/* A trace ID: the kit's own are 20 bytes, W3C's 32 hex digits; 128 takes any sane scheme. */
#define OCK_MAX_TRACE_ID 128

/* ---- the mock provider ---------------------------------------------------------------------- */

/* A fixture file the mock loads: a long script of turns fits easily (the harness's own
 * fixtures are capped at OCK_MAX_SCENARIO_FIXTURE). */
#define OCK_MAX_MOCK_FIXTURE ((size_t)16 << 20)
/* A request body the mock keeps; past it the request gets 413. A conversation history with
 * large tool results stays well under 8 MiB. */
#define OCK_MAX_MOCK_BODY ((size_t)8 << 20)
/* A request body past OCK_MAX_MOCK_BODY is still read (and dropped) up to this, so the client
 * sees the 413 instead of a reset connection; beyond it the connection is closed. */
#define OCK_MAX_MOCK_DRAIN ((unsigned long long)OCK_MAX_MOCK_BODY * 16)
/* The bytes a scenario's journal takes; past it entries are dropped and counted. A long run's
 * journal is tens of MiB. It bounds the journal's lines while the mock runs, and when the
 * harness reads them (ock_mock_journal_take) the lines still held and the cJSON tree made of
 * them together: each block of lines is freed once parsed, each entry's tree is counted at an
 * upper bound of its heap (its nodes and strings), and the entries whose trees would pass the cap
 * are dropped and counted too. So a flooded journal peaks at this plus the block being read and
 * one entry in flight (under OCK_MAX_MOCK_BODY each): about 20 MiB over it, where the reader
 * that held the lines and the whole tree at once took twice it. */
#define OCK_MAX_MOCK_JOURNAL_BYTES ((size_t)256 << 20)
/* The Responses API responses the mock keeps for previous_response_id and item_reference
 * (stored.h): at least this many of the last ones, at most twice as many. A scenario stores a
 * few dozen; a load stores one per request, about 1.4 KB each, and would otherwise keep them
 * all. */
#define OCK_MAX_MOCK_STORED_RESPONSES 4096
/* The journal entries kept when the options do not say: a run of every fixture stays far
 * below it. */
#define OCK_MAX_MOCK_JOURNAL_ENTRIES 200000
/* A request's line and headers (libmicrohttpd's connection memory, which also holds the reply's
 * header): 16 KiB, as Node's HTTP server, takes any LLM client's headers (under 2 KiB); a larger
 * header block is refused by libmicrohttpd with 431. libmicrohttpd clears the whole of it before
 * every request: at 64 KiB that was the largest single cost of a request and swept the caches
 * the load generator and the kernel share (SPEC.md 6.9). */
#define OCK_MAX_MOCK_HEADER_MEMORY ((size_t)16 * 1024)
/* The open connections the mock serves at once; past this a request gets 503. A SUT with
 * parallel tools opens a handful; 512 stays below the default descriptor limit of 1024. */
#define OCK_MAX_MOCK_CONNECTIONS 512
/* Connections libmicrohttpd accepts past OCK_MAX_MOCK_CONNECTIONS, so that they can be told
 * 503 rather than left waiting. */
#define OCK_MAX_MOCK_OVERFLOW_CONNECTIONS 64
/* MCP sessions one run may open; initialize past this is refused. A client opens one or two. */
#define OCK_MAX_MCP_SESSIONS 64
/* The longest tool_call_id an MCP client may give in _meta: the wires' IDs are under 64. */
#define OCK_MAX_MCP_ID 255
/* An error body the mock writes (a provider error envelope, a fault's event): built from a
 * fixture's message, which is far shorter than 1 MiB. */
#define OCK_MAX_ERROR_BODY ((size_t)1 << 20)
/* The list of open tool call IDs named in a history finding's 400 text: ids past this many
 * bytes are counted ("..., ... and 4000 more"), so that the text fits the finding (and a
 * request with megabytes of ids gets the real API's 400, not a 500). */
#define OCK_MAX_ID_LIST ((size_t)1024)

/* ---- the ock harness ------------------------------------------------------------------------ */

/* A scenario's fixture file: the shipped ones are a few KiB. */
#define OCK_MAX_SCENARIO_FIXTURE ((size_t)4 << 20)
/* The --manifest file (capabilities, expected failures): a few hundred bytes in practice. */
#define OCK_MAX_MANIFEST ((size_t)1 << 20)
/* The expected-failures file of --baseline: one check ID a line. */
#define OCK_MAX_BASELINE ((size_t)1 << 20)
/* One line of an event log `ock check` reads: a line is one event, and a file such as
 * /dev/zero has no end of line at all. */
#define OCK_MAX_EVENT_LOG_LINE ((size_t)16 << 20)
/* The stdout and the stderr kept of each SUT run (the rest is counted, not kept): enough for
 * a crash's message and a backtrace in the report. */
#define OCK_MAX_SUT_OUTPUT ((size_t)64 * 1024)
/* The same for `ock fuzz`, which runs the SUT thousands of times. */
#define OCK_MAX_FUZZ_SUT_OUTPUT ((size_t)16384)
/* SUT processes alive at once (the table the orphan reaper reads): ock runs one per scenario
 * and a few in parallel. */
#define OCK_MAX_SUT_LIVE 256
/* The stdin text of a black-box SUT, joined from a fixture's prompts. */
#define OCK_MAX_BLACKBOX_INPUT ((size_t)1 << 24)
/* The text of one reply's provider:stream deltas, joined to compare with the response: as
 * large as the reference's OCK_MAX_PROVIDER_REPLY. */
#define OCK_MAX_STREAM_TEXT ((size_t)1 << 24)
/* A deny text compared exactly; a longer reason is not judged. */
#define OCK_MAX_DENY_TEXT 4096
/* A tool result text compared exactly; a longer error.message or tool name is not judged. */
#define OCK_MAX_RESULT_TEXT 4096
/* Providers that failed for good in one execute, as the fallback check tracks them: the
 * fixtures configure two or three. */
#define OCK_MAX_FAILED_PROVIDERS 16
/* Items of one list option (--capabilities, --case, ...): there are fewer capabilities and
 * scenarios than this. */
#define OCK_MAX_LIST_ITEMS 256
/* A report read back (merge, `ock report`): the JSON of a run of every scenario is a few MiB. */
#define OCK_MAX_REPORT_READ ((size_t)512 << 20)
/* A report document written (JSON, JUnit, Markdown, HTML). */
#define OCK_MAX_REPORT_OUT ((size_t)256 << 20)

/* ---- ock-mutant ----------------------------------------------------------------------------- */

/* Every body the proxy holds: the mock's own request cap, so the proxy never refuses what the
 * mock would take. */
#define OCK_MAX_MUTANT_BODY ((size_t)8 << 20)
/* Headers kept of one request or reply; past it a header is dropped. HTTP clients send about
 * a dozen. */
#define OCK_MAX_MUTANT_HEADERS 64
/* Event bodies a mutation holds back at once before forwarding them. */
#define OCK_MAX_MUTANT_HELD 32
/* context_injection texts remembered in one run. */
#define OCK_MAX_MUTANT_INJECTIONS 16
/* The proxy's open connections, as the mock's OCK_MAX_MOCK_CONNECTIONS. */
#define OCK_MAX_PROXY_CONNECTIONS 512
/* A request's line and headers at the proxy, as the mock's OCK_MAX_MOCK_HEADER_MEMORY. */
#define OCK_MAX_PROXY_HEADER_MEMORY OCK_MAX_MOCK_HEADER_MEMORY
/* Tool calls or results one wire edit looks at in one request body. */
#define OCK_MAX_WIRE_REFS 256
/* The most text one rewritten string may hold; a longer rewrite is cut there. */
#define OCK_MAX_WIRE_TEXT 16384

/* ---- text the kit assembles -------------------------------------------------------------- */

/* Text assembled from one document the kit already read under a cap above (a request body, a
 * provider reply, a fixture, a recording): message text joined from its parts, a system prompt,
 * a history converted between wires. It cannot outgrow that document, so this cap is a
 * backstop against a mistake in the kit, not a limit a sender can reach. */
#define OCK_MAX_DERIVED_TEXT ((size_t)1 << 30)
/* Text the kit writes from its own trees or records (JSON printed from a cJSON tree, the
 * journal's lines and document, the request bodies the reference builds from its history):
 * each input to it is capped above, and its size grows only with what the kit itself kept, so
 * it is bounded by memory alone. Named, so that no call site spells an unbounded cap. */
#define OCK_MAX_OWN_TEXT ((size_t)-1 / 2)

#endif
