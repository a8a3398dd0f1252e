/*
 * upstream.h: one HTTP exchange with the real mock (libcurl), for the mutant proxy.
 *
 * The proxy forwards what the SUT sent and needs back exactly what the mock answered: status,
 * headers, body, and whether the body arrived whole (a scripted fault may cut it). The body is
 * held in a capped buffer (OCK_MAX_MUTANT_BODY). A transfer can be abandoned midway through the
 * keep_going callback (the proxy is stopping, or the SUT hung up).
 */
#ifndef OCK_MUTANTS_UPSTREAM_H
#define OCK_MUTANTS_UPSTREAM_H

#include <stddef.h>

#include "mutant.h"
#include "ock/caps.h"
#include "ock/buf.h"

struct upstream_request {
  const char *method; /* "GET", "POST", ... */
  const char *url;    /* absolute */
  const char *body;   /* may be NULL (no body) */
  size_t body_len;
  const struct mutant_headers *headers; /* sent as given; may be NULL */
  long timeout_ms;                      /* 0: none */
  int (*keep_going)(void *user);        /* polled during the transfer; 0 abandons it; may be NULL */
  /* Streaming (may be NULL): on_head once the final status line and headers are in; on_data
   * for each piece of the body as it arrives, which is then not kept in the reply's body.
   * Either returning non-zero abandons the transfer. */
  int (*on_head)(void *user, long status, const struct mutant_headers *headers);
  int (*on_data)(void *user, const char *data, size_t len);
  void *user;
};

struct upstream_reply {
  long status;                   /* the HTTP status; 0 when no status line arrived */
  struct mutant_headers headers; /* the reply's headers (of the last status line) */
  struct ock_buf body;           /* what arrived of the body, capped at OCK_MAX_MUTANT_BODY */
  int complete;                  /* 1 when the whole reply arrived */
  char error[256];               /* why not, for a message on stderr */
};

/* ock__upstream_reply_init prepares an empty reply; ock__upstream_reply_free releases it. */
void ock__upstream_reply_init(struct upstream_reply *r);
void ock__upstream_reply_free(struct upstream_reply *r);

/* ock__upstream_exchange performs the request and fills r (initialised by the caller). Returns
 * OCK_OK when a whole reply arrived (any status), OCK_EIO when the exchange failed or was cut
 * (r says how far it got), OCK_ETOOBIG past the body cap, OCK_ECANCELLED when keep_going
 * stopped it, OCK_ENOMEM. */
int ock__upstream_exchange(const struct upstream_request *rq, struct upstream_reply *r);

#endif
