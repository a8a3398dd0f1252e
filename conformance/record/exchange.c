/*
 * exchange.c: one recorded exchange (see exchange.h).
 */
#include "exchange.h"

#include <stdlib.h>

#include "ock/caps.h"

struct rec_exchange *ock__rec_exchange_new(void) {
  struct rec_exchange *x = calloc(1, sizeof *x);
  if (!x)
    return NULL;
  x->req_headers = cJSON_CreateObject();
  x->resp_headers = cJSON_CreateObject();
  ock_buf_init(&x->req, OCK_MAX_PROVIDER_REPLY);
  ock_buf_init(&x->resp, OCK_MAX_PROVIDER_REPLY);
  if (!x->req_headers || !x->resp_headers) {
    ock__rec_exchange_free(x);
    return NULL;
  }
  return x;
}

void ock__rec_exchange_free(struct rec_exchange *x) {
  if (!x)
    return;
  free(x->path);
  free(x->query);
  cJSON_Delete(x->req_headers);
  cJSON_Delete(x->resp_headers);
  ock_buf_free(&x->req);
  ock_buf_free(&x->resp);
  free(x);
}
