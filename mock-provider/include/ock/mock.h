/*
 * mock.h: the scripted mock LLM provider, in process.
 *
 * One ock_mock serves one fixture (one scenario) over HTTP on 127.0.0.1: the SUT protocol
 * ock/1 (GET /ock/v1/session, POST /ock/v1/events, POST /ock/v1/tools/{name}) and one LLM
 * endpoint per provider of the session, in that provider's wire format (OpenAI Chat
 * Completions or Anthropic Messages, streaming or not). It plays the fixture's script, fires
 * its faults, checks every LLM request's history the way the real APIs do, and records all it
 * sees and sends in a journal with one total order. The harness and the tests drive it through
 * this header; `ock-mock-provider` (cli.c) is the same thing as a command.
 *
 * Lifecycle: ock_mock_new (validates the fixture) -> ock_mock_start (binds, serves from
 * libmicrohttpd threads) -> ock_mock_url / ock_mock_journal while it runs -> ock_mock_stop
 * -> ock_mock_free. Every function here is safe to call from any thread while the server
 * threads run; the journal calls take a consistent snapshot.
 */
#ifndef OCK_MOCK_H
#define OCK_MOCK_H

#include <stddef.h>
#include <stdio.h>

#include <cJSON.h>

#include "ock/json.h"

struct ock_fixture; /* ock/fixture.h */

typedef struct ock_mock ock_mock;

struct ock_mock_options {
  int port;                      /* 0: a free port */
  int observe_only;              /* journal history findings but answer normally */
  unsigned long long seed;       /* for seeded random faults; 0 = the fixture's seed */
  const char *bind_address;      /* NULL: "127.0.0.1"; copied by ock_mock_new */
  void (*on_cancel)(void *user); /* called (from a server thread) when the fixture's cancel
                                    trigger fires; may be NULL */
  void *user;                    /* passed to on_cancel; borrowed */
  size_t max_journal_entries;    /* 0: default 200000; past it entries are counted, not kept
                                    (so are entries past the journal's byte cap,
                                    OCK_MAX_MOCK_JOURNAL_BYTES) */
  unsigned request_timeout_ms;   /* 0: default 30000; the time a request's headers and body
                                    may take, from the connection's start or the previous
                                    reply; past it the connection is closed */
  size_t stored_responses;       /* 0: OCK_MAX_MOCK_STORED_RESPONSES; the Responses API
                                    responses kept for previous_response_id: at least the last
                                    this many, at most twice as many (older ones are dropped,
                                    and not found, as the API's expired ones) */
  unsigned threads;              /* 0: 4; the event-loop threads that serve the connections
                                    (none ever blocks: delays suspend the connection). One
                                    serves a single client well and starts and stops sooner;
                                    more serve many busy connections faster */
};

/* ock_mock_new validates the fixture and makes a stopped mock.
 * fixture: the parsed fixture JSON (borrowed for the call; the mock keeps its own copy).
 * opt: may be NULL for all defaults; copied. The fixture's "observe_only": true also turns
 * observe-only mode on.
 * Returns OCK_OK and *out (free with ock_mock_free), OCK_ENOMEM, or a JSON status
 * (OCK_EMISSING, OCK_ETYPE, OCK_EINVAL) with err naming the JSON path
 * ("$.script.main[2].fault.status: expected ..."); err may be NULL. */
int ock_mock_new(const cJSON *fixture, const struct ock_mock_options *opt, ock_mock **out,
                 struct ock_jerr *err);

/* ock_mock_new_fixture: as ock_mock_new, for a fixture already loaded (ock/fixture.h), which the
 * mock borrows: the caller keeps it until ock_mock_free. The harness loads each scenario once
 * and hands the same model to the mock and to the checks. */
int ock_mock_new_fixture(const struct ock_fixture *fixture, const struct ock_mock_options *opt,
                         ock_mock **out, struct ock_jerr *err);

/* ock_mock_start binds (opt.bind_address, opt.port) and serves from background threads.
 * Returns OCK_OK, OCK_ESTATE when already started, or OCK_EIO (err says why: the address
 * is in use, not a local address, ...). */
int ock_mock_start(ock_mock *m, struct ock_jerr *err);

/* ock_mock_url gives "http://127.0.0.1:PORT" (no trailing slash). Owned by the mock, valid
 * after a successful start until ock_mock_free; "" before start. */
const char *ock_mock_url(const ock_mock *m);

/* ock_mock_port gives the bound port, or 0 before start. */
int ock_mock_port(const ock_mock *m);

/* ock_mock_journal returns a deep copy snapshot of the journal: a JSON array of entries
 * {"seq", "t_ms", "kind", ...} in order (README.md lists every kind and its members).
 * The caller frees it with cJSON_Delete. NULL only when out of memory. */
cJSON *ock_mock_journal(ock_mock *m);

/* ock_mock_journal_take is ock_mock_journal for a reader done with the journal, after
 * ock_mock_stop: it empties the journal as it parses it, freeing the lines as their entries
 * become trees, and counts the trees against the journal's byte cap (OCK_MAX_MOCK_JOURNAL_BYTES)
 * with the lines still held; the entries whose trees would pass it are dropped (counted by
 * ock_mock_journal_dropped). So the journal's lines and tree together stay within the cap and
 * one entry. Later reads of the journal find it empty. NULL only when out of memory. */
cJSON *ock_mock_journal_take(ock_mock *m);

/* ock_mock_journal_dropped counts entries not kept (past max_journal_entries, or past the
 * journal's byte cap, OCK_MAX_MOCK_JOURNAL_BYTES, while it ran or when it was taken); a harness
 * should treat a non-zero count as an incomplete record. */
size_t ock_mock_journal_dropped(ock_mock *m);

/* ock_mock_write_journal writes the journal as JSONL (one compact entry per line) to f,
 * which stays open and owned by the caller. Returns OCK_OK, OCK_EIO or OCK_ENOMEM. */
int ock_mock_write_journal(ock_mock *m, FILE *f);

/* ock_mock_stop stops serving: in-flight delays and streams end promptly, open connections
 * are closed, the server threads are joined. Idempotent; the journal stays readable. */
void ock_mock_stop(ock_mock *m);

/* ock_mock_free stops the mock if needed and frees it. NULL is a no-op. */
void ock_mock_free(ock_mock *m);

#endif
