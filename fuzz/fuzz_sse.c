/* fuzz_sse.c: any bytes as a provider's SSE stream, fed in pieces whose sizes come from the
 * input itself, through the decoder and the wire's stream decoding (first byte picks the
 * wire). */
#include <stddef.h>
#include <stdint.h>

#include "ock/message.h"
#include "ock/sse.h"
#include "ock/wire.h"

static int on_delta(void *user, const struct ock_delta *d) {
  (void)user;
  (void)d;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2)
    return 0;
  enum ock_wire wire = data[0] & 2   ? OCK_WIRE_GEMINI
                       : data[0] & 1 ? OCK_WIRE_ANTHROPIC
                                     : OCK_WIRE_OPENAI;
  size_t piece = (size_t)data[1] % 17 + 1;
  data += 2;
  size -= 2;
  ock_sse *d = NULL;
  ock_wire_stream *m = NULL;
  if (ock_sse_new(1 << 16, &d) || ock_wire_stream_new(wire, 1 << 20, &m)) {
    ock_sse_free(d);
    ock_wire_stream_free(m);
    return 0;
  }
  int failed = 0;
  for (size_t off = 0; off < size && !failed;) {
    size_t n = size - off < piece ? size - off : piece;
    size_t used = 0;
    while (used < n && !failed) {
      size_t consumed = 0;
      struct ock_sse_event ev;
      int have = 0;
      if (ock_sse_feed(d, (const char *)data + off + used, n - used, &consumed, &ev, &have)) {
        failed = 1;
        break;
      }
      used += consumed;
      if (have) {
        struct ock_wire_error err;
        failed = ock_wire_stream_event(m, ev.event, ev.data, on_delta, NULL, &err) != 0;
      }
      if (!consumed && !have)
        break;
    }
    off += n;
  }
  struct ock_reply r;
  struct ock_wire_error err;
  ock_reply_init(&r);
  if (!failed && !ock_wire_stream_finish(m, &r, &err))
    ock_reply_clear(&r);
  ock_sse_free(d);
  ock_wire_stream_free(m);
  return 0;
}
