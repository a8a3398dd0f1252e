/*
 * http.h: one HTTP exchange over libcurl: the LLM requests. (The ock/1 exchanges with the
 * harness go over plain_http.h, which takes the same request and response structs.)
 *
 * The exchange runs on a multi handle so that the caller's on_data sees the body as it
 * arrives *outside* any libcurl callback (a streaming consumer may then post events, itself
 * an HTTP exchange). It honours a whole-transfer timeout, a body cap, and a cancellation flag
 * checked by libcurl's progress callback and between polls, so an in-flight transfer is
 * abandoned within a few tens of milliseconds of a cancel. Each thread reuses its libcurl
 * handles from one exchange to the next; each request goes on a new connection, closed after
 * it (http.c says why).
 */
#ifndef OCK_REF_HTTP_H
#define OCK_REF_HTTP_H

#include <stddef.h>

#include "ock/buf.h"
#include "ock/orchestrator.h"

struct ock__http_request {
  const char *method; /* "GET" or "POST" */
  const char *url;
  const char *body; /* POST body; may be NULL */
  size_t body_len;
  const char *const *headers; /* NULL-terminated "Name: value" lines; may be NULL */
  long timeout_ms;            /* whole transfer; 0 = none */
  const ock_cancel *cancel;   /* may be NULL */
  size_t max_body;            /* cap on the bytes kept or passed on */
  /* on_data, when set, receives a 2xx response's body as it arrives (the body then is not
   * kept); a non-zero return abandons the transfer and becomes the exchange's return value.
   * Error statuses are always kept in the response body. */
  int (*on_data)(void *user, const char *p, size_t n);
  void *user;
};

struct ock__http_response {
  long status; /* 0 when no status line came */
  struct ock_buf body;
  char retry_after[64]; /* header values, "" when absent */
  char retry_after_ms[64];
  size_t received; /* body bytes received in all */
};

void ock__http_response_init(struct ock__http_response *r, size_t max_body);
void ock__http_response_free(struct ock__http_response *r);

/* ock__http_exchange performs the request. Returns OCK_OK when a complete response arrived
 * (whatever its status), OCK_ECANCELLED, OCK_ETIMEDOUT, OCK_ETOOBIG, OCK_EIO (could not
 * connect, or the connection broke: why says how), or on_data's non-zero return. */
int ock__http_exchange(const struct ock__http_request *rq, struct ock__http_response *rs, char *why,
                       size_t why_len);

#endif
