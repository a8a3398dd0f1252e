/*
 * recording.h: what `ock record` keeps while it runs and writes when it stops.
 *
 * The proxy's sink appends each exchange; ock__rec_write then writes, into a directory,
 * traffic.jsonl (every exchange, redacted), events.jsonl (the events the agent posted, when it
 * posted any) and fixture.json (fixture.c). Every file passes through the scrub of redact.h
 * before it is written.
 */
#ifndef OCK_RECORD_RECORDING_H
#define OCK_RECORD_RECORDING_H

#include <pthread.h>
#include <stddef.h>

#include "exchange.h"
#include "redact.h"

struct recording {
  pthread_mutex_t lock;
  struct rec_exchange **items;
  size_t n;
  size_t cap;
  const char *wire;          /* --wire, or NULL: each request's path says */
  const char *const *redact; /* --redact paths */
  size_t n_redact;
};

void ock__recording_init(struct recording *r);
void ock__recording_free(struct recording *r);

/* ock__recording_sink: the proxy's sink (user is the recording). */
void ock__recording_sink(void *user, struct rec_exchange *x);

/* ock__recording_write redacts what was recorded and writes the files into dir (made when
 * missing). Returns OCK_OK, else OCK_EIO with err naming the file. */
int ock__recording_write(struct recording *r, const char *dir, char *err, size_t n);

#endif
