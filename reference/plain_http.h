/*
 * plain_http.h: the ock/1 exchanges (the session, events, tool calls) over plain HTTP/1.1, on
 * a connection each thread keeps.
 *
 * A turn of a tool loop makes four to six ock/1 exchanges with the harness, on loopback, each
 * awaited before the loop goes on (DESIGN.md §3). Through libcurl each one cost 80,000-90,000
 * instructions and a dozen system calls (bench/RESULTS.md, item 5), more than the turn's own
 * work; here it is one send, then a poll and a recv per piece of the response. The LLM side
 * stays on libcurl (http.h): TLS, proxies and real providers are its business.
 *
 * What it speaks: http:// URLs only, no proxy (the ock/1 endpoints are the harness's own, on
 * loopback: an http_proxy meant for the internet must not reroute them); responses framed by
 * Content-Length, by the chunked transfer coding or by the connection's close; interim 1xx
 * responses skipped; a status line and headers of at most 16 KiB.
 *
 * A request sent on a kept connection that the server closes before the first byte of the
 * response is sent once more, on a new connection. libcurl did the same; it is safe here
 * because an ock/1 endpoint answers every request it reads, so the closed connection's
 * request was never read (the server's idle timeout closed it as the request left).
 */
#ifndef OCK_REF_PLAIN_HTTP_H
#define OCK_REF_PLAIN_HTTP_H

#include <stddef.h>

#include "http.h"

/* ock__plain_exchange performs rq (on_data must be NULL; retry_after is not read) and fills rs
 * the way ock__http_exchange does, with the same returns: OCK_OK when a whole response
 * arrived (whatever its status), OCK_ECANCELLED, OCK_ETIMEDOUT (rq->timeout_ms counts the
 * connect too), OCK_ETOOBIG past rq->max_body, OCK_EIO when the connection failed or the
 * response is not HTTP/1.x (why says which), OCK_EINVAL when rq->url is not an http:// URL.
 * On any error the connection is closed; the next exchange opens a new one. */
int ock__plain_exchange(const struct ock__http_request *rq, struct ock__http_response *rs,
                        char *why, size_t why_len);

/* ock__plain_thread_cleanup closes the calling thread's kept connection now (a thread's is
 * also closed when the thread exits). */
void ock__plain_thread_cleanup(void);

#endif
