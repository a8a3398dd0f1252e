/* wire_helpers.h: what the wire tests share: a reply with its frame, and SSE pieces as text. */
#ifndef OCK_TEST_WIRE_HELPERS_H
#define OCK_TEST_WIRE_HELPERS_H

#include <cJSON.h>

#include "ock/wire.h"

/* A reply to encode; its strings are borrowed from the test (never cleared). */
struct answer {
  struct ock_reply r;
  struct ock_wire_frame f;
};

/* joined: every piece, concatenated (caller frees). */
char *joined(const struct ock_chunks *c);

/* sse_split: SSE text as an array of {"event": name or null, "data": text}, read with the SSE
 * decoder (caller deletes). */
cJSON *sse_split(const char *body);

#endif
