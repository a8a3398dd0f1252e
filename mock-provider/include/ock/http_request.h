/*
 * http_request.h: the libmicrohttpd request skeleton shared by the mock provider and the
 * mutant's proxy.
 *
 * The proxy serves HTTP with one thread per connection (OCK_HTTP_DAEMON_FLAGS), the mock from two
 * event-loop threads (mock-provider/mock.c); both read each request
 * the same way: the first call of the access handler makes a per-request struct, later calls
 * append the upload body to a capped buffer (dropping what is past the cap and remembering
 * that), and the last call, with no data, serves the whole request. ock_http_request_read does
 * that common part and says which call this is; each program keeps its own policy around it
 * (the mock's connection cap and early refusals, the proxy's classify-and-forward).
 * ock_http_request_completed frees the struct when libmicrohttpd is done with the request.
 *
 * Also here: the one test for a peer that went away while a reply is prepared, and the small
 * JSON error reply both send before or instead of serving.
 */
#ifndef OCK_HTTP_REQUEST_H
#define OCK_HTTP_REQUEST_H

#include <stddef.h>

#include <microhttpd.h>

#include "ock/buf.h"

/* The proxy's daemon flags: one thread per connection, so a handler may block (a forwarded
 * transfer), and poll() rather than select() (no FD_SETSIZE). */
#define OCK_HTTP_DAEMON_FLAGS                                                                      \
  (MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL)

/* One request while its body arrives; libmicrohttpd keeps it in the handler's *req_cls. */
struct ock_http_request {
  struct ock_buf body; /* the upload so far; freed (and empty) once too_big */
  int too_big;         /* the body passed the cap, or the caller judged it too big up front */
  int answered;        /* a reply was queued before the body was read: the rest is dropped */
  void *held;          /* the server's own: a reply it holds while the connection is suspended
                          (the mock's delays); the server frees it before this struct is freed */
};

/* What ock_http_request_read found, i.e. what the access handler does next. */
enum ock_http_step {
  OCK_HTTP_NEW,   /* first call, headers only: *out was just made; apply any early policy
                     (refuse, mark too_big or answered), then return MHD_YES */
  OCK_HTTP_MORE,  /* upload data was taken (or dropped): return MHD_YES */
  OCK_HTTP_READY, /* the whole body is in *out (unless too_big): serve the request now */
  OCK_HTTP_NOMEM  /* no memory for the struct: return MHD_NO */
};

/* ock_http_request_read is the common part of an access handler. req_cls: the handler's own
 * argument (the struct is made there on the first call, with a body capped at max bytes, and
 * freed by ock_http_request_completed). upload_data, upload_data_size: the handler's; the data
 * is always consumed (*upload_data_size set to 0): appended while it fits, dropped past the
 * cap (too_big set, the body freed) or once the request is answered. A request marked answered
 * never becomes READY: its reply is already queued. *out: the request (borrowed until
 * completed), set on every result but OCK_HTTP_NOMEM. */
enum ock_http_step ock_http_request_read(void **req_cls, size_t max, const char *upload_data,
                                         size_t *upload_data_size, struct ock_http_request **out);

/* ock_http_request_completed frees the request in *req_cls, if any, and clears it. It has the
 * shape of libmicrohttpd's MHD_OPTION_NOTIFY_COMPLETED callback (cls, c and toe are unused),
 * so a server may pass it as it is or call it from its own. */
void ock_http_request_completed(void *cls, struct MHD_Connection *c, void **req_cls,
                                enum MHD_RequestTerminationCode toe);

/* ock_http_connection_fd: the connection's socket, or -1 when c is NULL or has none. */
int ock_http_connection_fd(struct MHD_Connection *c);

/* ock_http_peer_gone: has the peer closed or reset its end of the socket fd? A hang-up or an
 * error reported by poll() says so, and so does a read that would return end-of-file; bytes
 * waiting on a connection still open (a pipelined request) do not. Never blocks and never
 * consumes a byte; errno is left as it was. fd < 0: 0 (nothing to watch). */
int ock_http_peer_gone(int fd);

/* ock_http_queue_json_error queues the reply {"error":{"type":TYPE,"message":MESSAGE}} (the
 * envelope both wires' clients parse) with Content-Type: application/json and, when close_after
 * is non-zero, Connection: close. type and message are copied in as they are: plain text without
 * quotes or backslashes, together under 480 bytes. Returns MHD_queue_response's result, or
 * MHD_NO when the reply cannot be made (out of memory, text too long). */
enum MHD_Result ock_http_queue_json_error(struct MHD_Connection *c, unsigned status,
                                          const char *type, const char *message, int close_after);

#endif
