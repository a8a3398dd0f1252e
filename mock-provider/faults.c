/*
 * faults.c: random fault rolls and fault rewriting (see faults.h).
 */
#include "ock/caps.h"
#include "faults.h"

#include "ock/status.h"

/* splitmix64's finaliser: a good 64-bit mix, so neighbouring n give unrelated rolls. */
static unsigned long long mix(unsigned long long x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

int ock__fault_roll(unsigned long long seed, size_t rule, unsigned long long n, double p) {
  if (p <= 0)
    return 0;
  if (p >= 1)
    return 1;
  unsigned long long x = mix(mix(mix(seed) ^ (unsigned long long)rule) ^ n);
  double u = (double)(x >> 11) / 9007199254740992.0; /* [0, 1) with 53 bits */
  return u < p;
}

/* cut_point: the piece index right after the n-th event that is not a ping, never past the
 * terminator. */
static size_t cut_point(const struct ock_chunks *events, const struct ock_wire_ops *w,
                        long long n) {
  size_t body = events->n > w->terminators ? events->n - w->terminators : 0;
  size_t i = 0;
  long long seen = 0;
  while (i < body && seen < n) {
    if (!ock_sse_is_ping(events->items[i]))
      seen++;
    i++;
  }
  return i;
}

int ock__fault_apply_stream(const struct ock_fx_fault *f, const struct ock_wire_ops *w,
                            struct ock_chunks *events) {
  if (f->kind != OCK_FX_FAULT_CUT_STREAM && f->kind != OCK_FX_FAULT_ERROR_MID_STREAM &&
      f->kind != OCK_FX_FAULT_MALFORMED_CHUNK)
    return OCK_OK;
  size_t cut = cut_point(events, w, f->after);
  ock_chunks_truncate(events, cut);
  if (f->kind == OCK_FX_FAULT_CUT_STREAM)
    return OCK_OK;
  struct ock_buf b;
  ock_buf_init(&b, 1 << 20);
  int rc = f->kind != OCK_FX_FAULT_ERROR_MID_STREAM ? w->encode_malformed_event(&b)
           : w->encode_error_event_at ? w->encode_error_event_at(cut, f->status, f->message, &b)
                                      : w->encode_error_event(f->status, f->message, &b);
  if (!rc)
    rc = ock_chunks_push(events, b.data, b.len);
  ock_buf_free(&b);
  return rc;
}

void ock__fault_for_body(const struct ock_fx_fault *f, size_t body_len,
                         struct mock_body_fault *out) {
  out->status = 0;
  out->drop_after = -1;
  out->truncate = 0;
  switch (f->kind) {
  case OCK_FX_FAULT_CUT_STREAM:
    out->drop_after = (long long)(body_len / 2);
    break;
  case OCK_FX_FAULT_ERROR_MID_STREAM:
    out->status = f->status ? f->status : 500;
    break;
  case OCK_FX_FAULT_MALFORMED_CHUNK:
    out->truncate = 1;
    break;
  case OCK_FX_FAULT_DROP_CONNECTION:
    out->drop_after = f->after;
    break;
  default:
    break;
  }
}
