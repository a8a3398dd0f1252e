/*
 * faults.h: seeded random faults, and what a fault does to a reply's bytes.
 *
 * A fixture can script a fault on a turn, or ask for random faults with a probability; the
 * roll for the n-th candidate request is a pure function of (seed, rule, n), so the same
 * seed faults the same requests in every run, whatever the threads do. Applying a fault
 * rewrites the list of SSE events (cut, error mid-stream, malformed chunk) or the
 * non-streaming body. No I/O.
 */
#ifndef OCK_MOCK_FAULTS_H
#define OCK_MOCK_FAULTS_H

#include "ock/fixture.h"
#include "wire.h"

/* ock__fault_roll: 1 when random rule number `rule` fires for its n-th candidate request
 * (n counts from 1), with probability p. */
int ock__fault_roll(unsigned long long seed, size_t rule, unsigned long long n, double p);

/* ock__fault_apply_stream rewrites a streamed reply's events for a cut_stream,
 * error_mid_stream or malformed_chunk fault (others leave them alone), SPEC 6.6: the first
 * `after` events (pings not counted) go out, then nothing, one error event, or one event that
 * is not JSON; never the terminator. The caller closes the connection after the last piece.
 * OCK_OK or OCK_ENOMEM. */
int ock__fault_apply_stream(const struct ock_fx_fault *f, const struct ock_wire_ops *w,
                            struct ock_chunks *events);

/* What a stream fault means for a non-streaming reply. */
struct mock_body_fault {
  int status;           /* 0: keep 200; else reply with this error status and envelope */
  long long drop_after; /* >= 0: close the connection after this many body bytes */
  int truncate;         /* 1: the body is cut in half (not JSON any more) */
};

/* ock__fault_for_body maps a fault onto a non-streaming body of body_len bytes (SPEC 6.6):
 * cut_stream drops the connection halfway, error_mid_stream becomes HTTP 500 (or the
 * fault's status) with the error body, malformed_chunk sends half the body with status 200,
 * drop_connection drops after its byte count. */
void ock__fault_for_body(const struct ock_fx_fault *f, size_t body_len,
                         struct mock_body_fault *out);

#endif
