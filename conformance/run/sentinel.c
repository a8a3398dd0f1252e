/*
 * sentinel.c: what kills the SUTs when the harness itself is killed (see sentinel.h).
 *
 * The sentinel is forked from a process that has threads, so until it exits it calls only
 * async-signal-safe functions and raw system calls: no malloc, no stdio, no locks.
 */
#define _GNU_SOURCE /* SOCK_CLOEXEC, close_range */
#include "run/sentinel.h"

#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ock/caps.h"

static pthread_mutex_t sentinel_lock = PTHREAD_MUTEX_INITIALIZER;
static int sentinel_fd = -1; /* the harness's end of the socket pair; -1 before the start */
static _Atomic pid_t sentinel_pid = -1;
static char sentinel_mark[64]; /* "OCK_SENTINEL=<pid>" */

/* ---- the sentinel's side (async-signal-safe) ------------------------------------------------ */

/* One entry of getdents64, as the kernel lays it out. */
struct proc_entry {
  uint64_t ino;
  int64_t off;
  unsigned short reclen;
  unsigned char type;
  char name[];
};

/* put_long writes v in decimal at p (room for 20 digits); returns the end. */
static char *put_long(char *p, long v) {
  char tmp[24];
  int n = 0;
  if (v < 0) {
    *p++ = '-';
    v = -v;
  }
  do
    tmp[n++] = (char)('0' + v % 10);
  while ((v /= 10) > 0);
  while (n)
    *p++ = tmp[--n];
  return p;
}

/* read_long reads a decimal number at *p, moving *p past it. */
static long read_long(const char **p) {
  long v = 0;
  while (**p >= '0' && **p <= '9')
    v = v * 10 + (*(*p)++ - '0');
  return v;
}

/* environ_has: /proc/PID/environ holds the variable mark ("NAME=VALUE"), whole. */
static int environ_has(const char *pid, const char *mark, size_t mark_len) {
  char path[64] = "/proc/", buf[8192];
  size_t n = strlen(pid);
  if (n > 40)
    return 0;
  memcpy(path + 6, pid, n);
  memcpy(path + 6 + n, "/environ", 9);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  /* A variable that straddles two reads is carried over: keep the tail that may start one. */
  size_t have = 0;
  int found = 0;
  for (;;) {
    ssize_t r = read(fd, buf + have, sizeof buf - have - 1);
    if (r <= 0)
      break;
    have += (size_t)r;
    buf[have] = '\0';
    size_t start = 0;
    for (size_t i = 0; i < have; i++)
      if (buf[i] == '\0') {
        if (i - start == mark_len && !memcmp(buf + start, mark, mark_len))
          found = 1;
        start = i + 1;
      }
    if (found)
      break;
    have -= start;
    memmove(buf, buf + start, have);
    if (have >= sizeof buf - 1)
      have = 0; /* a variable longer than the buffer is not ours */
  }
  close(fd);
  return found;
}

/* kill_marked kills every process whose environment carries mark: the SUTs and what they
 * started, also those that left their process group with setsid. */
static void kill_marked(const char *mark) {
  size_t mark_len = strlen(mark);
  int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0)
    return;
  _Alignas(8) char buf[4096];
  for (;;) {
    long n = syscall(SYS_getdents64, dir, buf, sizeof buf);
    if (n <= 0)
      break;
    for (long off = 0; off < n;) {
      const struct proc_entry *de = (const struct proc_entry *)(buf + off);
      off += de->reclen;
      const char *name = de->name;
      if (name[0] < '1' || name[0] > '9')
        continue;
      const char *p = name;
      long pid = read_long(&p);
      if (!*p && pid != getpid() && environ_has(name, mark, mark_len))
        kill((pid_t)pid, SIGKILL);
    }
  }
  close(dir);
}

/* sentinel_main: the sentinel's life. It reads "+PGID\n" and "-PGID\n" lines until its socket's
 * end of file, then kills what is still listed and what carries the mark, and exits. */
static void sentinel_main(int fd, const char *mark) {
  static const int ignored[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = SIG_IGN;
  for (size_t i = 0; i < sizeof ignored / sizeof *ignored; i++)
    sigaction(ignored[i], &sa, NULL);
  pid_t groups[OCK_MAX_SUT_LIVE];
  size_t n_groups = 0, have = 0;
  char line[256];
  for (;;) {
    ssize_t r = read(fd, line + have, sizeof line - have - 1);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    have += (size_t)r;
    line[have] = '\0';
    char *nl;
    while ((nl = memchr(line, '\n', have))) {
      const char *p = line + 1;
      pid_t pg = (pid_t)read_long(&p);
      if (line[0] == '+' && n_groups < OCK_MAX_SUT_LIVE)
        groups[n_groups++] = pg;
      for (size_t i = 0; line[0] == '-' && i < n_groups; i++)
        if (groups[i] == pg) {
          groups[i] = groups[--n_groups];
          break;
        }
      size_t used = (size_t)(nl - line) + 1;
      have -= used;
      memmove(line, nl + 1, have);
    }
  }
  for (size_t i = 0; i < n_groups; i++)
    kill(-groups[i], SIGKILL);
  kill_marked(mark);
  _exit(0);
}

/* ---- the harness's side --------------------------------------------------------------------- */

/* start: forks the sentinel; under sentinel_lock. A socket pair, not a pipe: the harness's sends
 * use MSG_NOSIGNAL, so a sentinel that died never costs the harness a SIGPIPE. */
static void start(void) {
  int fds[2];
  char mark[sizeof sentinel_mark] = "OCK_SENTINEL=";
  *put_long(mark + strlen(mark), (long)getpid()) = '\0';
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds))
    return;
  pid_t pid = fork();
  if (pid == 0) {
    /* Keep nothing of the harness open but the socket: a listening socket held here would stay
     * open after the harness closed it. */
    dup2(fds[0], 0);
    syscall(SYS_close_range, 1, ~0U, 0);
    sentinel_main(0, mark);
  }
  close(fds[0]);
  if (pid < 0) {
    close(fds[1]);
    return;
  }
  sentinel_fd = fds[1];
  sentinel_pid = pid;
  memcpy(sentinel_mark, mark, sizeof mark);
}

/* tell sends one line to the sentinel in one send; lines of threads and of forked copies of the
 * harness never interleave (a stream socket delivers a short send whole, in order). */
static void tell(char sign, pid_t pgid) {
  char line[32], *p = line;
  *p++ = sign;
  p = put_long(p, (long)pgid);
  *p++ = '\n';
  ssize_t w;
  do
    w = send(sentinel_fd, line, (size_t)(p - line), MSG_NOSIGNAL);
  while (w < 0 && errno == EINTR);
}

const char *ock__sentinel_mark(void) {
  pthread_mutex_lock(&sentinel_lock);
  if (sentinel_fd < 0)
    start();
  const char *mark = sentinel_fd < 0 ? NULL : sentinel_mark;
  pthread_mutex_unlock(&sentinel_lock);
  return mark;
}

void ock__sentinel_stop(void) {
  pthread_mutex_lock(&sentinel_lock);
  if (sentinel_fd >= 0) {
    close(sentinel_fd);
    sentinel_fd = -1;
    while (waitpid(sentinel_pid, NULL, 0) < 0 && errno == EINTR)
      ;
    sentinel_pid = -1;
  }
  pthread_mutex_unlock(&sentinel_lock);
}

pid_t ock__sentinel_pid(void) {
  return sentinel_pid;
}

void ock__sentinel_watch(pid_t pgid) {
  if (sentinel_fd >= 0 && pgid > 0)
    tell('+', pgid);
}

void ock__sentinel_forget(pid_t pgid) {
  if (sentinel_fd >= 0 && pgid > 0)
    tell('-', pgid);
}
