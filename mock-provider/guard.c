/*
 * guard.c: the connection cap and the request deadline of guard.h.
 */
#include "guard.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include "ock/status.h"

#define REAP_EVERY_MS 100

struct mock_watch {
  int fd;
  atomic_llong waiting_since_ms; /* 0 while a request is being answered */
  int reaped;                    /* its socket was shut down; under the guard's lock */
  struct mock_watch *prev, *next;
};

struct mock_guard {
  pthread_mutex_t lock;
  pthread_cond_t wake;
  pthread_t reaper;
  int stopping;
  unsigned timeout_ms;
  atomic_int open; /* changed under lock, read without it (on every request) */
  struct mock_watch *head;
};

static long long now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* reap shuts down every socket that has waited for its request past the deadline. */
static void reap(struct mock_guard *g) {
  long long now = now_ms();
  for (struct mock_watch *w = g->head; w; w = w->next) {
    long long since = atomic_load(&w->waiting_since_ms);
    if (!w->reaped && since && now - since > (long long)g->timeout_ms) {
      shutdown(w->fd, SHUT_RDWR);
      w->reaped = 1;
    }
  }
}

static void *reaper(void *arg) {
  struct mock_guard *g = arg;
  pthread_mutex_lock(&g->lock);
  while (!g->stopping) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += REAP_EVERY_MS * 1000000L;
    until.tv_sec += until.tv_nsec / 1000000000L;
    until.tv_nsec %= 1000000000L;
    pthread_cond_timedwait(&g->wake, &g->lock, &until);
    if (!g->stopping)
      reap(g);
  }
  pthread_mutex_unlock(&g->lock);
  return NULL;
}

int ock__guard_new(unsigned timeout_ms, struct mock_guard **out) {
  struct mock_guard *g = calloc(1, sizeof *g);
  if (!g)
    return OCK_ENOMEM;
  g->timeout_ms = timeout_ms ? timeout_ms : MOCK_REQUEST_TIMEOUT_MS;
  pthread_mutex_init(&g->lock, NULL);
  pthread_cond_init(&g->wake, NULL);
  if (pthread_create(&g->reaper, NULL, reaper, g)) {
    pthread_cond_destroy(&g->wake);
    pthread_mutex_destroy(&g->lock);
    free(g);
    return OCK_ENOMEM;
  }
  *out = g;
  return OCK_OK;
}

void ock__guard_free(struct mock_guard *g) {
  if (!g)
    return;
  pthread_mutex_lock(&g->lock);
  g->stopping = 1;
  pthread_cond_signal(&g->wake);
  pthread_mutex_unlock(&g->lock);
  pthread_join(g->reaper, NULL);
  pthread_cond_destroy(&g->wake);
  pthread_mutex_destroy(&g->lock);
  free(g);
}

struct mock_watch *ock__guard_open(struct mock_guard *g, int fd) {
  struct mock_watch *w = calloc(1, sizeof *w);
  pthread_mutex_lock(&g->lock);
  atomic_fetch_add(&g->open, 1);
  if (w) {
    w->fd = fd;
    atomic_init(&w->waiting_since_ms, now_ms());
    w->next = g->head;
    if (g->head)
      g->head->prev = w;
    g->head = w;
  }
  pthread_mutex_unlock(&g->lock);
  return w;
}

void ock__guard_close(struct mock_guard *g, struct mock_watch *w) {
  pthread_mutex_lock(&g->lock);
  atomic_fetch_sub(&g->open, 1);
  if (w) {
    if (w->prev)
      w->prev->next = w->next;
    else
      g->head = w->next;
    if (w->next)
      w->next->prev = w->prev;
  }
  pthread_mutex_unlock(&g->lock);
  free(w);
}

int ock__guard_open_count(struct mock_guard *g) {
  return atomic_load(&g->open);
}

void ock__guard_read(struct mock_watch *w) {
  if (w)
    atomic_store(&w->waiting_since_ms, 0);
}

void ock__guard_replied(struct mock_watch *w) {
  if (w)
    atomic_store(&w->waiting_since_ms, now_ms());
}
