/*
 * proxy.h: the forwarding proxy of `ock record`.
 *
 * It listens on 127.0.0.1, reads one request per connection (HTTP/1.1, a Content-Length body),
 * and forwards it to the upstream URL with libcurl: method, path, query, body and the headers
 * but the hop-by-hop ones. The reply goes back as it arrives (a stream is passed through event
 * by event), closed by the end of the connection; a reply the upstream cut short is cut short
 * again. POST /ock/v1/events is answered here with {"action":"continue"}: in production no kit
 * sits behind the agent. Every exchange, whole, goes to the sink.
 */
#ifndef OCK_RECORD_PROXY_H
#define OCK_RECORD_PROXY_H

#include <stddef.h>

#include "exchange.h"

typedef struct rec_proxy rec_proxy;

/* The sink takes ownership of x; it is called from the connection threads. */
typedef void (*rec_sink_fn)(void *user, struct rec_exchange *x);

/* ock__rec_proxy_start binds 127.0.0.1:port (0: a free port) and serves in background threads.
 * upstream: "http://HOST:PORT[/prefix]" (copied). OCK_OK and *out, else OCK_EIO with err. */
int ock__rec_proxy_start(const char *upstream, int port, rec_sink_fn sink, void *user,
                         rec_proxy **out, char *err, size_t n);

/* ock__rec_proxy_url: "http://127.0.0.1:PORT", owned by the proxy. */
const char *ock__rec_proxy_url(const rec_proxy *p);

/* ock__rec_proxy_free stops accepting, waits up to a second for exchanges in flight, frees. */
void ock__rec_proxy_free(rec_proxy *p);

#endif
