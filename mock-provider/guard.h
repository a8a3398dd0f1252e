/*
 * guard.h: the mock's defences against clients that hold connections without finishing a
 * request (SPEC.md 6.8): a cap on open connections, answered with a clear 503 past it, and a
 * deadline for each request's headers and body that a client sending a byte now and then cannot
 * push back (libmicrohttpd's own timeout is reset by every byte).
 *
 * One watch per connection, made when libmicrohttpd opens it and freed when it closes. A watch
 * is "waiting" from the connection's start, and again from the end of each reply, until the
 * next request has been read whole; a reaper thread shuts down (shutdown(2), never close) the
 * socket of a watch that has waited past the deadline, and libmicrohttpd then closes it.
 */
#ifndef OCK_MOCK_GUARD_H
#define OCK_MOCK_GUARD_H

#include "ock/caps.h" /* OCK_MAX_MOCK_CONNECTIONS */

/* The time a request's headers and body may take to arrive, from the connection's start or
 * the end of the previous reply (ock_mock_options.request_timeout_ms overrides it). */
#define MOCK_REQUEST_TIMEOUT_MS 30000

struct mock_guard;
struct mock_watch;

/* ock__guard_new starts the reaper thread. Returns OCK_OK or OCK_ENOMEM. */
int ock__guard_new(unsigned timeout_ms, struct mock_guard **out);
/* ock__guard_free stops the reaper and frees the guard; every watch must be closed first. */
void ock__guard_free(struct mock_guard *g);

/* ock__guard_open watches a new connection's socket; NULL when out of memory (unwatched). */
struct mock_watch *ock__guard_open(struct mock_guard *g, int fd);
/* ock__guard_close forgets a watch (the connection is closing) and frees it. */
void ock__guard_close(struct mock_guard *g, struct mock_watch *w);
/* ock__guard_open_count: the connections open now. */
int ock__guard_open_count(struct mock_guard *g);

/* ock__guard_read: the request has been read whole; its reply is not bound by the deadline. */
void ock__guard_read(struct mock_watch *w);
/* ock__guard_replied: the reply is out; the next request's deadline starts now. */
void ock__guard_replied(struct mock_watch *w);

#endif
