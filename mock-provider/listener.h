/*
 * listener.h: the mock's listening socket, and the thread that accepts its connections and
 * hands each to libmicrohttpd (MHD_add_connection).
 *
 * libmicrohttpd's own accept let whichever of its threads woke first take a whole burst of new
 * connections, so a client opening 16 at once was often served by one thread of two. Handed
 * over one by one, connections are spread over the threads by socket number. Past the
 * connection cap (SPEC.md 6.8: OCK_MAX_MOCK_CONNECTIONS and the overflow that is told 503) the
 * listener stops accepting until a connection closes, so further clients wait in the kernel's
 * backlog as they did when libmicrohttpd accepted.
 */
#ifndef OCK_MOCK_LISTENER_H
#define OCK_MOCK_LISTENER_H

#include <sys/socket.h>

#include <microhttpd.h>

#include "guard.h"

struct mock_listener;

/* ock__listener_open binds addr (IPv6 addresses only IPv6) and listens. Returns OCK_OK, OCK_EIO
 * (errno says why) or OCK_ENOMEM. */
int ock__listener_open(const struct sockaddr *addr, socklen_t len, struct mock_listener **out);

/* ock__listener_port: the port bound (the one the system chose when addr's was 0). */
int ock__listener_port(const struct mock_listener *l);

/* ock__listener_start accepts connections for d until stopped, at most cap open at once as g
 * counts them. Returns OCK_OK or OCK_ENOMEM (no thread). */
int ock__listener_start(struct mock_listener *l, struct MHD_Daemon *d, struct mock_guard *g,
                        int cap);

/* ock__listener_free stops accepting (joining the thread) and closes the socket. */
void ock__listener_free(struct mock_listener *l);

#endif
