/* wire_helpers.c: see wire_helpers.h. */
#include "wire_helpers.h"

#include <string.h>

#include "ock/buf.h"
#include "ock/sse.h"

char *joined(const struct ock_chunks *c) {
  struct ock_buf b;
  ock_buf_init(&b, 1 << 20);
  int rc = 0;
  for (size_t i = 0; i < c->n; i++)
    rc |= ock_buf_append(&b, c->items[i], c->lens[i]);
  return rc ? NULL : ock_buf_take(&b); /* a failed append left the buffer freed */
}

cJSON *sse_split(const char *body) {
  cJSON *arr = cJSON_CreateArray();
  ock_sse *d = NULL;
  if (ock_sse_new(1 << 20, &d))
    return arr;
  size_t left = strlen(body);
  while (left) {
    size_t used = 0;
    int have = 0;
    struct ock_sse_event ev;
    if (ock_sse_feed(d, body, left, &used, &ev, &have) || (!used && !have))
      break;
    body += used;
    left -= used;
    if (!have)
      continue;
    cJSON *o = cJSON_CreateObject();
    if (*ev.event)
      cJSON_AddStringToObject(o, "event", ev.event);
    else
      cJSON_AddNullToObject(o, "event");
    cJSON_AddStringToObject(o, "data", ev.data);
    cJSON_AddItemToArray(arr, o);
  }
  ock_sse_free(d);
  return arr;
}
