/* fuzz_sse.c: any bytes as a provider's SSE stream, fed in pieces whose sizes come from the
 * input itself, through the decoder and the per-wire stream mapping (first byte picks the
 * wire). */
#include <stddef.h>
#include <stdint.h>

#include "ock/message.h"
#include "ock/orchestrator.h"
#include "sse.h"
#include "stream_map.h"

static int on_delta(void *user, const struct ock_delta *d) {
  (void)user;
  (void)d;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2)
    return 0;
  enum ock_wire wire = data[0] & 1 ? OCK_WIRE_ANTHROPIC : OCK_WIRE_OPENAI;
  size_t piece = (size_t)data[1] % 17 + 1;
  data += 2;
  size -= 2;
  ock__sse *d = NULL;
  ock__stream_map *m = NULL;
  if (ock__sse_new(1 << 16, &d) || ock__stream_map_new(wire, 1 << 20, &m)) {
    ock__sse_free(d);
    ock__stream_map_free(m);
    return 0;
  }
  int failed = 0;
  for (size_t off = 0; off < size && !failed;) {
    size_t n = size - off < piece ? size - off : piece;
    size_t used = 0;
    while (used < n && !failed) {
      size_t consumed = 0;
      struct ock__sse_event ev;
      int have = 0;
      if (ock__sse_feed(d, (const char *)data + off + used, n - used, &consumed, &ev, &have)) {
        failed = 1;
        break;
      }
      used += consumed;
      if (have) {
        struct ock_llm_error err;
        failed = ock__stream_map_event(m, ev.event, ev.data, on_delta, NULL, &err) != 0;
      }
      if (!consumed && !have)
        break;
    }
    off += n;
  }
  struct ock_reply r;
  struct ock_llm_error err;
  ock_reply_init(&r);
  if (!failed && !ock__stream_map_finish(m, &r, &err))
    ock_reply_clear(&r);
  ock__sse_free(d);
  ock__stream_map_free(m);
  return 0;
}
