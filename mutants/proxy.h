/*
 * proxy.h: the mutant's HTTP proxy: the SUT talks to it as if it were the mock.
 *
 * It listens on 127.0.0.1 (a free port; libmicrohttpd, one thread per connection), forwards
 * every request to the real mock at the upstream URL (libcurl) and passes the reply back:
 * status, body and headers, and the same kind of failure when the mock's reply was cut short.
 * Along the way it lets its one mutation (mutant.h) rewrite what passes. The session document
 * is rewritten so that each provider's base_url points at the proxy too: LLM traffic passes
 * through it like everything else.
 */
#ifndef OCK_MUTANTS_PROXY_H
#define OCK_MUTANTS_PROXY_H

#include <stddef.h>
#include <sys/types.h>

#include "mutant.h"

typedef struct proxy proxy;

/* ock__proxy_start binds 127.0.0.1:<free port> and serves in background threads.
 * mu: the mutation (borrowed; static). upstream: "http://127.0.0.1:PORT" of the mock (copied).
 * Returns OCK_OK and *out (free with ock__proxy_free), OCK_EINVAL (an upstream URL that is too
 * long), OCK_EIO (cannot serve; err says why), OCK_ENOMEM. */
int ock__proxy_start(const struct mutation *mu, const char *upstream, proxy **out, char *err,
                     size_t n);

/* ock__proxy_url: "http://127.0.0.1:PORT" (no trailing slash), owned by the proxy. */
const char *ock__proxy_url(const proxy *p);

/* ock__proxy_stop_requested: 1 once a hook asked for the SUT to be stopped (mutant_state.stop); the
 * reply of the exchange that asked is held until ock__proxy_child_gone. Safe from any thread. */
int ock__proxy_stop_requested(proxy *p);

/* ock__proxy_child_gone tells the proxy the SUT was stopped, releasing the reply that asked for it.
 * Safe from any thread. */
void ock__proxy_child_gone(proxy *p);

/* ock__proxy_set_child tells the proxy the SUT's pid, for a deferred SIGINT (defers_sigint);
 * ock__proxy_note_sigint records that the harness's SIGINT came (it stays pending until a hook
 * passes it on). */
void ock__proxy_set_child(proxy *p, pid_t pid);
void ock__proxy_note_sigint(proxy *p);

/* ock__proxy_exit_status applies the mutation's exit hook to how the SUT ended (an exit code >= 0
 * or -signal); returns the same encoding. */
int ock__proxy_exit_status(proxy *p, int ended);

/* ock__proxy_free stops serving (in-flight upstream transfers are abandoned, connection threads
 * joined), then frees. NULL is a no-op. */
void ock__proxy_free(proxy *p);

#endif
