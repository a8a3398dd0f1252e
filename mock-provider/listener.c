/*
 * listener.c: the listening socket and accept thread of listener.h. The thread is stopped by
 * shutting the socket down, which makes a blocked accept() return.
 */
#define _GNU_SOURCE /* accept4 */
#include "listener.h"

#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "ock/status.h"

#define FULL_WAIT_MS 10 /* how often a listener at the cap looks again */

struct mock_listener {
  int fd;
  int port;
  struct MHD_Daemon *daemon;
  struct mock_guard *guard;
  int cap;
  atomic_int stopping;
  int started;
  pthread_t thread;
};

static void pause_ms(long ms) {
  struct timespec t = {.tv_sec = 0, .tv_nsec = ms * 1000000L};
  nanosleep(&t, NULL);
}

static void *accept_loop(void *arg) {
  struct mock_listener *l = arg;
  while (!atomic_load(&l->stopping)) {
    if (ock__guard_open_count(l->guard) >= l->cap) {
      pause_ms(FULL_WAIT_MS);
      continue;
    }
    struct sockaddr_storage peer;
    socklen_t len = sizeof peer;
    int fd = accept4(l->fd, (struct sockaddr *)&peer, &len, SOCK_CLOEXEC);
    if (fd >= 0) {
      MHD_add_connection(l->daemon, fd, (struct sockaddr *)&peer, len); /* closes fd on failure */
    } else if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
      pause_ms(FULL_WAIT_MS); /* out of descriptors or memory: the backlog waits */
    } else if (errno != EINTR && errno != ECONNABORTED && errno != EAGAIN) {
      break; /* shut down (EINVAL), or broken */
    }
  }
  return NULL;
}

int ock__listener_open(const struct sockaddr *addr, socklen_t len, struct mock_listener **out) {
  struct mock_listener *l = calloc(1, sizeof *l);
  if (!l)
    return OCK_ENOMEM;
  int one = 1;
  l->fd = socket(addr->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (l->fd < 0 || setsockopt(l->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) ||
      (addr->sa_family == AF_INET6 &&
       setsockopt(l->fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one)) ||
      bind(l->fd, addr, len) || listen(l->fd, SOMAXCONN)) {
    int saved = errno;
    if (l->fd >= 0)
      close(l->fd);
    free(l);
    errno = saved;
    return OCK_EIO;
  }
  struct sockaddr_storage bound;
  socklen_t blen = sizeof bound;
  getsockname(l->fd, (struct sockaddr *)&bound, &blen);
  l->port = ntohs(bound.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&bound)->sin6_port
                                              : ((struct sockaddr_in *)&bound)->sin_port);
  atomic_init(&l->stopping, 0);
  *out = l;
  return OCK_OK;
}

int ock__listener_port(const struct mock_listener *l) {
  return l->port;
}

int ock__listener_start(struct mock_listener *l, struct MHD_Daemon *d, struct mock_guard *g,
                        int cap) {
  l->daemon = d;
  l->guard = g;
  l->cap = cap;
  if (pthread_create(&l->thread, NULL, accept_loop, l))
    return OCK_ENOMEM;
  l->started = 1;
  return OCK_OK;
}

void ock__listener_free(struct mock_listener *l) {
  if (!l)
    return;
  atomic_store(&l->stopping, 1);
  shutdown(l->fd, SHUT_RDWR);
  if (l->started)
    pthread_join(l->thread, NULL);
  close(l->fd);
  free(l);
}
