/*
 * sleeper.h: scripted waits (a turn's delay, the pause between a stream's chunks) that hold no
 * thread.
 *
 * The mock serves its connections from a few event-loop threads (mock.c), so a handler must not
 * sleep: it suspends its connection instead (MHD_suspend_connection) and hands it to the
 * sleeper, whose one thread resumes it when the time is up, as soon as the client has gone away
 * (checked every 10 ms), or at once when the mock stops. libmicrohttpd then calls the handler
 * (or the content reader) again, which looks at why it woke: the mock stopping or the client
 * gone end the reply, anything else goes on with it.
 */
#ifndef OCK_MOCK_SLEEPER_H
#define OCK_MOCK_SLEEPER_H

#include <microhttpd.h>

struct mock_sleeper;

/* ock__sleeper_new makes a sleeper; its thread starts with the first wait. Returns OCK_OK or
 * OCK_ENOMEM. */
int ock__sleeper_new(struct mock_sleeper **out);

/* ock__sleeper_wait suspends c for ms milliseconds (ms > 0). Call it only from a libmicrohttpd
 * callback of c (the access handler or a content reader), on a daemon started with
 * MHD_ALLOW_SUSPEND_RESUME, and return from the callback at once: MHD_YES without a reply from
 * the access handler, 0 bytes from a content reader. Returns 1 when c is suspended, 0 when it
 * is not (the sleeper is stopping, or no memory or thread): then the caller ends the reply
 * itself. */
int ock__sleeper_wait(struct mock_sleeper *s, struct MHD_Connection *c, long long ms);

/* ock__sleeper_stop resumes every connection it holds and suspends no more: call it before
 * MHD_stop_daemon, which must not find a suspended connection. */
void ock__sleeper_stop(struct mock_sleeper *s);

/* ock__sleeper_free stops the sleeper (if that was not done) and frees it. */
void ock__sleeper_free(struct mock_sleeper *s);

#endif
