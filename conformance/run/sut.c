/*
 * sut.c: spawning, watching and killing the SUT (see sut.h).
 *
 * fork() runs in a multi-threaded harness (scenarios run in parallel), so the child does only
 * async-signal-safe work before execve: setpgid, dup2, open, close. Everything it needs
 * (argv, envp) is built before the fork.
 */
#include "run/sut.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ock/caps.h"
#include "ock/buf.h"
#include "ock/status.h"

extern char **environ;

/*
 * A SUT may fork a child that leaves its process group (setsid) and so escapes the group kill.
 * The harness is therefore a child subreaper: such orphans are reparented to it, and after each
 * SUT ends, every child of the harness that is not a live SUT is killed. The live SUTs are
 * registered under a lock that is also held across fork(), so a SUT being born is never taken
 * for an orphan.
 */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t live[OCK_MAX_SUT_LIVE];
static size_t n_live;

static void live_remove(pid_t pid) {
  pthread_mutex_lock(&live_lock);
  for (size_t i = 0; i < n_live; i++)
    if (live[i] == pid) {
      live[i] = live[--n_live];
      break;
    }
  pthread_mutex_unlock(&live_lock);
}

/* kill_if_orphan kills and reaps child pid when it is not a live SUT. Under live_lock. */
static void kill_if_orphan(pid_t pid) {
  for (size_t i = 0; i < n_live; i++)
    if (live[i] == pid)
      return;
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
}

/* reap_orphans kills and reaps every child of the harness that is not a live SUT. The children
 * are read from /proc/self/task/<tid>/children (each thread's own), not by scanning every
 * process of the machine. */
static void reap_orphans(void) {
  DIR *d = opendir("/proc/self/task");
  if (!d)
    return;
  pthread_mutex_lock(&live_lock);
  struct dirent *de;
  while ((de = readdir(d))) {
    if (de->d_name[0] < '1' || de->d_name[0] > '9')
      continue;
    char path[128], buf[4096];
    snprintf(path, sizeof path, "/proc/self/task/%s/children", de->d_name);
    FILE *f = fopen(path, "r");
    if (!f)
      continue;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    for (char *p = buf, *end; *p; p = end) {
      long pid = strtol(p, &end, 10);
      if (end == p)
        break;
      if (pid > 0)
        kill_if_orphan((pid_t)pid);
    }
  }
  pthread_mutex_unlock(&live_lock);
  closedir(d);
}

struct sut {
  _Atomic pid_t pgid; /* 0 once the group is gone */
  pid_t pid;
  int pidfd; /* readable when the SUT exits (pidfd_open), or -1 on an older kernel */
  int out_fd, err_fd;
  int in_fd;   /* the write end of the SUT's stdin, or -1 (stdin is /dev/null) */
  char *input; /* what is left to write to it (owned) */
  size_t input_len, input_off;
  double timeout_s;
  size_t cap;
  volatile sig_atomic_t *abort_flag;
  double started;
  _Atomic int interrupts;
  int waited;
};

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

const char *sut_signal_name(int sig) {
  static _Thread_local char other[16];
  switch (sig) {
  case SIGSEGV:
    return "SIGSEGV";
  case SIGABRT:
    return "SIGABRT";
  case SIGKILL:
    return "SIGKILL";
  case SIGTERM:
    return "SIGTERM";
  case SIGINT:
    return "SIGINT";
  case SIGHUP:
    return "SIGHUP";
  case SIGBUS:
    return "SIGBUS";
  case SIGFPE:
    return "SIGFPE";
  case SIGILL:
    return "SIGILL";
  case SIGPIPE:
    return "SIGPIPE";
  default:
    snprintf(other, sizeof other, "SIG%d", sig);
    return other;
  }
}

/* name_len: the length of NAME in "NAME=VALUE". */
static size_t name_len(const char *kv) {
  const char *eq = strchr(kv, '=');
  return eq ? (size_t)(eq - kv) : strlen(kv);
}

static int overridden(const char *kv, const char *const *extra) {
  for (size_t i = 0; extra && extra[i]; i++)
    if (name_len(kv) == name_len(extra[i]) && !strncmp(kv, extra[i], name_len(kv)))
      return 1;
  return 0;
}

/* build_env: the inherited environment less the overridden names, plus extra. Borrowed
 * strings; free only the array. */
static char **build_env(const char *const *extra) {
  size_t n = 0, k = 0;
  while (environ[n])
    n++;
  for (size_t i = 0; extra && extra[i]; i++)
    n++;
  char **env = calloc(n + 1, sizeof *env);
  if (!env)
    return NULL;
  for (size_t i = 0; environ[i]; i++)
    if (!overridden(environ[i], extra))
      env[k++] = environ[i];
  for (size_t i = 0; extra && extra[i]; i++)
    env[k++] = (char *)extra[i];
  env[k] = NULL;
  return env;
}

/* simple_command: no shell syntax beyond words and quotes, so `exec` can replace the shell and
 * the SUT's own exit status or signal reaches the harness (dash does not exec by itself). */
static int simple_command(const char *cmd) {
  return !strpbrk(cmd, ";&|<>()`$\n\\*?[#~{}") && strncmp(cmd, "exec ", 5);
}

/* stdin_pipe: a pipe for the SUT's stdin whose write end no other SUT inherits: it is made
 * close-on-exec under live_lock, which every fork holds. */
static int stdin_pipe(int p[2]) {
  pthread_mutex_lock(&live_lock);
  int rc = pipe(p);
  if (!rc)
    fcntl(p[1], F_SETFD, FD_CLOEXEC);
  pthread_mutex_unlock(&live_lock);
  return rc;
}

/* sut_new: a handle holding a copy of spec's input and its limits; NULL when out of memory. */
static sut *sut_new(const struct sut_spec *spec) {
  sut *s = calloc(1, sizeof *s);
  if (!s)
    return NULL;
  s->in_fd = -1;
  if (spec->input) {
    s->input_len = strlen(spec->input);
    s->input = malloc(s->input_len + 1);
    if (!s->input) {
      free(s);
      return NULL;
    }
    memcpy(s->input, spec->input, s->input_len + 1);
  }
  s->timeout_s = spec->timeout_s;
  s->cap = spec->output_cap;
  s->abort_flag = spec->abort_flag;
  return s;
}

static void close_pair(int p[2]) {
  if (p[0] >= 0)
    close(p[0]);
  if (p[1] >= 0)
    close(p[1]);
}

/* fork_tracked forks with the child listed in live, or returns -1 past OCK_MAX_SUT_LIVE children.
 */
static pid_t fork_tracked(void) {
  pthread_mutex_lock(&live_lock);
  pid_t pid = n_live < OCK_MAX_SUT_LIVE ? fork() : -1;
  if (pid > 0)
    live[n_live++] = pid;
  pthread_mutex_unlock(&live_lock);
  return pid;
}

/* run_child, in the forked child: its own process group, the pipes as its streams (or
 * /dev/null as stdin), default SIGINT and SIGPIPE, then the shell. Never returns. */
static void run_child(int po[2], int pe[2], int pi[2], char *line, char **env) {
  char *argv[] = {"sh", "-c", line, NULL};
  setpgid(0, 0);
  int devnull = pi[0] >= 0 ? pi[0] : open("/dev/null", O_RDONLY);
  if (devnull >= 0)
    dup2(devnull, 0);
  if (pi[0] >= 0)
    close(pi[0]), close(pi[1]);
  dup2(po[1], 1);
  dup2(pe[1], 2);
  close(po[0]), close(pe[0]), close(po[1]), close(pe[1]);
  signal(SIGINT, SIG_DFL);
  signal(SIGPIPE, SIG_DFL);
  execve("/bin/sh", argv, env);
  _exit(127);
}

/* adopt keeps the parent's ends of the pipes, non-blocking, and the child's ids in s. */
static void adopt(sut *s, pid_t pid, int po[2], int pe[2], int pi[2]) {
  setpgid(pid, pid); /* also here, so the group exists before anyone signals it */
  close(po[1]);
  close(pe[1]);
  if (pi[0] >= 0) {
    close(pi[0]);
    s->in_fd = pi[1];
    fcntl(s->in_fd, F_SETFL, O_NONBLOCK);
  }
  fcntl(po[0], F_SETFL, O_NONBLOCK);
  fcntl(pe[0], F_SETFL, O_NONBLOCK);
  s->pid = pid;
  s->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
  atomic_store(&s->pgid, pid);
  s->out_fd = po[0];
  s->err_fd = pe[0];
}

int sut_start(const struct sut_spec *spec, sut **out) {
  sut *s = sut_new(spec);
  char **env = build_env(spec->env);
  size_t len = strlen(spec->command) + 8;
  char *line = malloc(len);
  int po[2] = {-1, -1}, pe[2] = {-1, -1}, pi[2] = {-1, -1};
  int rc = !s || !env || !line ? OCK_ENOMEM : OCK_OK;
  if (!rc && (pipe(po) || pipe(pe) || (spec->input && stdin_pipe(pi))))
    rc = OCK_EIO;
  pid_t pid = -1;
  if (!rc) {
    snprintf(line, len, "%s%s", simple_command(spec->command) ? "exec " : "", spec->command);
    s->started = now_ms();
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    pid = fork_tracked();
    if (pid == 0)
      run_child(po, pe, pi, line, env);
    if (pid < 0)
      rc = OCK_EIO;
  }
  if (rc) {
    close_pair(po);
    close_pair(pe);
    close_pair(pi);
    if (s)
      free(s->input);
    free(s);
  } else {
    adopt(s, pid, po, pe, pi);
    *out = s;
  }
  free(env);
  free(line);
  return rc;
}

void sut_interrupt(sut *s) {
  pid_t g = s ? atomic_load(&s->pgid) : 0;
  if (g > 0) {
    atomic_fetch_add(&s->interrupts, 1);
    kill(-g, SIGINT);
  }
}

static void kill_group(sut *s) {
  pid_t g = atomic_exchange(&s->pgid, 0);
  if (g > 0)
    kill(-g, SIGKILL);
}

/* feed writes what the pipe takes of the SUT's input; at its end (or when the SUT stopped
 * reading) it closes the pipe, which is the SUT's end of input. SIGPIPE is ignored by ock run. */
static void feed(sut *s) {
  while (s->in_fd >= 0 && s->input_off < s->input_len) {
    ssize_t n = write(s->in_fd, s->input + s->input_off, s->input_len - s->input_off);
    if (n > 0) {
      s->input_off += (size_t)n;
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
      return;
    break; /* EPIPE: the SUT closed its stdin */
  }
  if (s->in_fd >= 0) {
    close(s->in_fd);
    s->in_fd = -1;
  }
}

/* drain reads what is available from fd into b (kept up to its cap) and counts it in total.
 * Returns 0 at EOF, 1 while open. */
static int drain(int fd, struct ock_buf *b, size_t *total) {
  char chunk[65536];
  for (;;) {
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n > 0) {
      *total += (size_t)n;
      size_t room = b->max - b->len;
      if (ock_buf_append(b, chunk, (size_t)n < room ? (size_t)n : room) != OCK_OK)
        continue; /* out of memory: b is dead (no half-kept output); reading goes on */
      continue;
    }
    if (n == 0)
      return 0;
    return errno == EAGAIN || errno == EINTR ? 1 : 0;
  }
}

/* printable: a NUL byte would end the kept text as a C string and hide what follows it (a
 * crash's message after a binary dump): each becomes '?', as invalid UTF-8 does in the
 * reports. Returns the text, which the caller frees. */
static char *printable(struct ock_buf *b) {
  for (size_t i = 0; i < b->len; i++)
    if (!b->data[i])
      b->data[i] = '?';
  return ock_buf_take(b);
}

/* settle records how the SUT ended (status) in r, and forgets the child. */
static void settle(sut *s, struct sut_result *r, int status, struct ock_buf *out,
                   struct ock_buf *err) {
  s->waited = 1;
  live_remove(s->pid);
  reap_orphans();
  if (WIFEXITED(status) && !r->timed_out)
    r->exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status) && !r->timed_out && !r->aborted)
    r->signal = WTERMSIG(status);
  r->spawn_failed = r->exit_code == 127 && !r->out_total;
  r->interrupted = atomic_load(&s->interrupts);
  r->out = printable(out);
  r->err = printable(err);
}

int sut_wait(sut *s, struct sut_result *r) {
  memset(r, 0, sizeof *r);
  r->exit_code = -1;
  struct ock_buf out, err;
  ock_buf_init(&out, s->cap);
  ock_buf_init(&err, s->cap);
  int out_open = 1, err_open = 1, exited = 0, status = 0;
  double deadline = s->started + s->timeout_s * 1000.0;
  double grace_end = 0; /* after exit: how long to wait for the pipes to drain */
  while (out_open || err_open || !exited) {
    /* The pidfd wakes the poll when the SUT exits, so its end is seen at once even after its
     * pipes closed; without one (an old kernel) the poll times out every 20 ms. */
    struct pollfd p[4] = {{out_open ? s->out_fd : -1, POLLIN, 0},
                          {err_open ? s->err_fd : -1, POLLIN, 0},
                          {!exited ? s->pidfd : -1, POLLIN, 0},
                          {!exited ? s->in_fd : -1, POLLOUT, 0}};
    poll(p, 4, 20);
    if (p[3].revents)
      feed(s);
    if (out_open && p[0].revents)
      out_open = drain(s->out_fd, &out, &r->out_total);
    if (err_open && p[1].revents)
      err_open = drain(s->err_fd, &err, &r->err_total);
    if (!exited && waitpid(s->pid, &status, WNOHANG) == s->pid) {
      exited = 1;
      r->wall_ms = now_ms() - s->started;
      kill_group(s); /* children that outlive the SUT die with it */
      grace_end = now_ms() + 500;
    }
    double t = now_ms();
    if (!exited && (t >= deadline || (s->abort_flag && *s->abort_flag))) {
      r->timed_out = t >= deadline;
      r->aborted = !r->timed_out;
      kill_group(s);
      waitpid(s->pid, &status, 0);
      exited = 1;
      r->wall_ms = t - s->started;
      grace_end = t + 200;
    }
    if (exited && t >= grace_end)
      break; /* a pipe held open by something we could not kill: stop reading */
  }
  settle(s, r, status, &out, &err);
  return OCK_OK;
}

void sut_free(sut *s) {
  if (!s)
    return;
  kill_group(s);
  if (!s->waited) {
    waitpid(s->pid, NULL, 0);
    live_remove(s->pid);
    reap_orphans();
  }
  close(s->out_fd);
  close(s->err_fd);
  if (s->in_fd >= 0)
    close(s->in_fd);
  free(s->input);
  if (s->pidfd >= 0)
    close(s->pidfd);
  free(s);
}

void sut_result_clear(struct sut_result *r) {
  free(r->out);
  free(r->err);
  memset(r, 0, sizeof *r);
}
