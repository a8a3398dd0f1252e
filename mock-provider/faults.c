/*
 * faults.c: random fault rolls and fault rewriting (see faults.h).
 */
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

int ock__fault_apply_stream(const struct mock_fault *f, const struct mock_wire *w,
                            const struct mock_answer *a, struct mock_chunks *events) {
  size_t body = events->n > w->terminators ? events->n - w->terminators : 0;
  size_t at = f->after < 0 ? 0 : (size_t)f->after;
  if (at > body)
    at = body;
  struct ock_buf b;
  ock_buf_init(&b, 1 << 20);
  int rc = OCK_OK;
  switch (f->kind) {
  case MOCK_FAULT_CUT_STREAM:
    ock__chunks_truncate(events, at);
    break;
  case MOCK_FAULT_ERROR_MID_STREAM:
    ock__chunks_truncate(events, at);
    rc = w->error_event(f->status, f->message, &b);
    if (!rc)
      rc = ock__chunks_push(events, b.data, b.len);
    break;
  case MOCK_FAULT_MALFORMED_CHUNK:
    rc = w->malformed_event(a, &b);
    if (!rc)
      rc = ock__chunks_insert(events, at, b.data, b.len);
    break;
  default:
    break;
  }
  ock_buf_free(&b);
  return rc;
}

void ock__fault_for_body(const struct mock_fault *f, enum mock_api api, size_t body_len,
                         struct mock_body_fault *out) {
  out->status = 0;
  out->drop_after = -1;
  out->truncate = 0;
  switch (f->kind) {
  case MOCK_FAULT_CUT_STREAM:
    out->drop_after = (long long)(body_len / 2);
    break;
  case MOCK_FAULT_ERROR_MID_STREAM:
    out->status = f->status ? f->status : api == MOCK_API_ANTHROPIC ? 529 : 500;
    break;
  case MOCK_FAULT_MALFORMED_CHUNK:
    out->truncate = 1;
    break;
  case MOCK_FAULT_DROP_CONNECTION:
    out->drop_after = f->after;
    break;
  default:
    break;
  }
}
