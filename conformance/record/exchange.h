/*
 * exchange.h: one request and its reply as they crossed `ock record`'s proxy.
 *
 * The proxy (proxy.c) fills one per request and hands it to the recording (recording.c), which
 * owns it from then on. Headers are kept as a JSON object (name -> value, names lower-cased);
 * secrets are taken out before anything is written (redact.c).
 */
#ifndef OCK_RECORD_EXCHANGE_H
#define OCK_RECORD_EXCHANGE_H

#include <stddef.h>

#include <cJSON.h>

#include "ock/buf.h"

struct rec_exchange {
  long long t_ms;      /* when the request arrived, milliseconds since the proxy started */
  char method[16];     /* "POST", "GET", ... */
  char *path;          /* without the query string */
  char *query;         /* after the '?', or NULL */
  cJSON *req_headers;  /* object: lower-case name -> value */
  struct ock_buf req;  /* the request body */
  long status;         /* the reply's HTTP status; 0 when none came */
  cJSON *resp_headers; /* object: lower-case name -> value */
  struct ock_buf resp; /* the reply body as it arrived */
  int complete;        /* 1 when the whole reply arrived */
  int local;           /* 1 when the proxy answered itself (events) */
};

/* rec_exchange_new: an empty exchange (bodies capped at OCK_MAX_PROVIDER_REPLY), or NULL. */
struct rec_exchange *ock__rec_exchange_new(void);
/* ock__rec_exchange_free frees x and everything it holds; NULL is a no-op. */
void ock__rec_exchange_free(struct rec_exchange *x);

#endif
