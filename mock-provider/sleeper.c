/*
 * sleeper.c: the waits of sleeper.h. One thread keeps a list of suspended connections and the
 * time each is due; it wakes at the earliest of them, or every CHECK_MS while any is held, to
 * resume what is due and what lost its client.
 *
 * A connection is suspended under the sleeper's lock, and resumed only under it: so the thread
 * never resumes a connection before libmicrohttpd has suspended it (a resume that comes first
 * would be cancelled by the suspend, and the connection would hang).
 */
#include "sleeper.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "ock/http_request.h"
#include "ock/status.h"

#define CHECK_MS 10 /* how often a held connection's client is checked */

struct nap {
  struct MHD_Connection *c;
  int fd;           /* c's socket, watched for the client going away */
  long long due_ns; /* CLOCK_MONOTONIC */
  struct nap *next;
};

struct mock_sleeper {
  pthread_mutex_t lock;
  pthread_cond_t wake; /* on CLOCK_MONOTONIC */
  pthread_t thread;
  int started; /* the thread runs: from the first wait on (most scenarios never wait) */
  int stopping;
  int joined;
  struct nap *naps;
};

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* resume_due resumes (and forgets) every nap that is due, lost its client, or, when all is
 * set, every nap. Returns the earliest due time left, or -1 when none is left. Caller holds
 * the lock. */
static long long resume_due(struct mock_sleeper *s, int all) {
  long long now = now_ns(), next = -1;
  struct nap **at = &s->naps;
  while (*at) {
    struct nap *n = *at;
    if (all || n->due_ns <= now || ock_http_peer_gone(n->fd)) {
      *at = n->next;
      MHD_resume_connection(n->c);
      free(n);
      continue;
    }
    if (next < 0 || n->due_ns < next)
      next = n->due_ns;
    at = &n->next;
  }
  return next;
}

static void *run(void *arg) {
  struct mock_sleeper *s = arg;
  pthread_mutex_lock(&s->lock);
  while (!s->stopping) {
    long long next = resume_due(s, 0);
    if (next < 0) {
      pthread_cond_wait(&s->wake, &s->lock);
      continue;
    }
    long long check = now_ns() + CHECK_MS * 1000000LL;
    if (next > check)
      next = check;
    struct timespec until = {.tv_sec = next / 1000000000LL, .tv_nsec = next % 1000000000LL};
    pthread_cond_timedwait(&s->wake, &s->lock, &until);
  }
  resume_due(s, 1);
  pthread_mutex_unlock(&s->lock);
  return NULL;
}

int ock__sleeper_new(struct mock_sleeper **out) {
  struct mock_sleeper *s = calloc(1, sizeof *s);
  if (!s)
    return OCK_ENOMEM;
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_mutex_init(&s->lock, NULL);
  pthread_cond_init(&s->wake, &attr);
  pthread_condattr_destroy(&attr);
  *out = s;
  return OCK_OK;
}

int ock__sleeper_wait(struct mock_sleeper *s, struct MHD_Connection *c, long long ms) {
  struct nap *n = malloc(sizeof *n);
  if (!n)
    return 0;
  n->c = c;
  n->fd = ock_http_connection_fd(c);
  n->due_ns = now_ns() + ms * 1000000LL;
  pthread_mutex_lock(&s->lock);
  if (!s->stopping && !s->started && !pthread_create(&s->thread, NULL, run, s))
    s->started = 1;
  if (s->stopping || !s->started) {
    pthread_mutex_unlock(&s->lock);
    free(n);
    return 0;
  }
  MHD_suspend_connection(c);
  n->next = s->naps;
  s->naps = n;
  pthread_cond_signal(&s->wake);
  pthread_mutex_unlock(&s->lock);
  return 1;
}

void ock__sleeper_stop(struct mock_sleeper *s) {
  if (!s || s->joined)
    return;
  pthread_mutex_lock(&s->lock);
  s->stopping = 1;
  int started = s->started;
  pthread_cond_signal(&s->wake);
  pthread_mutex_unlock(&s->lock);
  if (started)
    pthread_join(s->thread, NULL);
  s->joined = 1;
}

void ock__sleeper_free(struct mock_sleeper *s) {
  if (!s)
    return;
  ock__sleeper_stop(s);
  pthread_cond_destroy(&s->wake);
  pthread_mutex_destroy(&s->lock);
  free(s);
}
