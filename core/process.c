/*
 * process.c: spawning, watching and killing a child (see process.h).
 *
 * The child is started with posix_spawn, which glibc makes a clone(CLONE_VM | CLONE_VFORK):
 * the parent's page tables are not copied and then torn down again, as fork() does. The
 * harness is a large process that starts a SUT per scenario, and that copy was 2 ms of its
 * 5 ms per scenario. The child's setup (its own process group, the pipes as its streams,
 * default signals, an empty mask) is posix_spawn's file actions and attributes, and
 * everything it needs (argv, envp) is built before. Every pipe is made close-on-exec at birth
 * (pipe2), so a child started by another thread at the same moment never inherits this
 * child's pipes and holds them open.
 */
#define _GNU_SOURCE /* pipe2 */
#include "ock/process.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ock/buf.h"
#include "ock/status.h"

extern char **environ;

/* After the child exits, how long to wait for its pipes to drain (something it forked that could
 * not be killed may hold them), and after the runner killed it. */
#define DRAIN_AFTER_EXIT_MS 500
#define DRAIN_AFTER_KILL_MS 200
#define POLL_MS 20

struct ock_process {
  _Atomic pid_t target; /* the pid (and group) kill aims at; 0 once the child is gone */
  pid_t pid;
  int same_group;
  int pidfd; /* readable when the child exits (pidfd_open), or -1 on an older kernel */
  int out_fd, err_fd;
  int in_fd;   /* the write end of the child's stdin, or -1 (stdin is /dev/null) */
  char *input; /* what is left to write to it (owned) */
  size_t input_len, input_off;
  struct ock_buf out, err; /* kept output */
  size_t out_total, err_total;
  int out_open, err_open;
  int exited, reaped, status;
  int timed_out, aborted;
  volatile sig_atomic_t *abort_flag;
  double started, wall_ms;
  double drain_end; /* once exited: when to stop reading the pipes */
};

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

/* name_len: the length of NAME in "NAME=VALUE" (or in a bare "NAME"). */
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

/* build_env: the inherited environment less the names extra sets or removes, plus extra's
 * "NAME=VALUE" strings. Borrowed strings; free only the array. */
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
    if (strchr(extra[i], '='))
      env[k++] = (char *)extra[i];
  env[k] = NULL;
  return env;
}

/* simple_command: no shell syntax beyond words and quotes, so `exec` can replace the shell and
 * the child's own exit status or signal comes back (dash does not exec by itself). */
static int simple_command(const char *cmd) {
  return !strpbrk(cmd, ";&|<>()`$\n\\*?[#~{}") && strncmp(cmd, "exec ", 5);
}

/* What the child execs, built before the fork. */
struct exec_plan {
  char *const *argv;
  char **env;  /* owned array of borrowed strings */
  char *line;  /* owned: the shell's command line, or NULL */
  char *sh[4]; /* argv for the shell */
};

/* assignments_len: how many bytes of cmd are leading NAME=VALUE words and the blanks after
 * them ("VAR=x cmd" -> 6). `exec` goes after them: `exec VAR=x cmd` would run a program
 * named VAR=x, where `VAR=x exec cmd` runs cmd with VAR in its environment. A value may be
 * quoted with '' or "" (simple_command allows no other shell syntax). */
static size_t assignments_len(const char *cmd) {
  size_t at = 0;
  for (;;) {
    size_t i = at;
    if (!isalpha((unsigned char)cmd[i]) && cmd[i] != '_')
      return at;
    while (isalnum((unsigned char)cmd[i]) || cmd[i] == '_')
      i++;
    if (cmd[i] != '=')
      return at;
    for (char quote = 0; cmd[i] && (quote || !isspace((unsigned char)cmd[i])); i++)
      if (cmd[i] == '\'' || cmd[i] == '"')
        quote = quote == cmd[i] ? 0 : quote ? quote : cmd[i];
    while (isspace((unsigned char)cmd[i]))
      i++;
    at = i;
  }
}

static int plan_exec(const struct ock_process_spec *spec, struct exec_plan *x) {
  memset(x, 0, sizeof *x);
  x->env = build_env(spec->env);
  if (!x->env)
    return OCK_ENOMEM;
  x->argv = (char *const *)spec->argv;
  if (!spec->command)
    return OCK_OK;
  size_t len = strlen(spec->command) + 8;
  x->line = malloc(len);
  if (!x->line)
    return OCK_ENOMEM;
  size_t head = simple_command(spec->command) ? assignments_len(spec->command) : 0;
  snprintf(x->line, len, "%.*s%s%s", (int)head, spec->command,
           simple_command(spec->command) ? "exec " : "", spec->command + head);
  x->sh[0] = "sh", x->sh[1] = "-c", x->sh[2] = x->line, x->sh[3] = NULL;
  x->argv = x->sh;
  return OCK_OK;
}

/* process_new: a handle holding a copy of spec's input and its limits; NULL when out of memory. */
static ock_process *process_new(const struct ock_process_spec *spec) {
  ock_process *p = calloc(1, sizeof *p);
  if (!p)
    return NULL;
  p->in_fd = p->out_fd = p->err_fd = p->pidfd = -1;
  if (spec->input) {
    p->input_len = strlen(spec->input);
    p->input = malloc(p->input_len + 1);
    if (!p->input) {
      free(p);
      return NULL;
    }
    memcpy(p->input, spec->input, p->input_len + 1);
  }
  ock_buf_init(&p->out, spec->output_cap);
  ock_buf_init(&p->err, spec->output_cap);
  p->same_group = spec->same_group;
  p->abort_flag = spec->abort_flag;
  return p;
}

static void close_pair(int q[2]) {
  if (q[0] >= 0)
    close(q[0]);
  if (q[1] >= 0)
    close(q[1]);
}

/* child_setup: the child's own process group (unless same_group), the pipes as its streams (or
 * /dev/null as stdin; none of that with inherit_stdio), default dispositions for the signals a
 * parent commonly catches or ignores, and no blocked signal. A dup2 onto the same number
 * clears close-on-exec (glibc, since 2.29). */
static int child_setup(int same_group, int po[2], int pe[2], int pi[2],
                       posix_spawn_file_actions_t *fa, posix_spawnattr_t *at) {
  sigset_t dfl, none;
  sigemptyset(&none);
  sigemptyset(&dfl);
  sigaddset(&dfl, SIGINT);
  sigaddset(&dfl, SIGTERM);
  sigaddset(&dfl, SIGPIPE);
  int rc = posix_spawnattr_setsigdefault(at, &dfl) || posix_spawnattr_setsigmask(at, &none) ||
           posix_spawnattr_setpgroup(at, 0) ||
           posix_spawnattr_setflags(at, (short)(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK |
                                                (same_group ? 0 : POSIX_SPAWN_SETPGROUP)));
  if (!rc && po[1] >= 0) {
    rc = pi[0] >= 0 ? posix_spawn_file_actions_adddup2(fa, pi[0], 0)
                    : posix_spawn_file_actions_addopen(fa, 0, "/dev/null", O_RDONLY, 0);
    rc = rc || posix_spawn_file_actions_adddup2(fa, po[1], 1) ||
         posix_spawn_file_actions_adddup2(fa, pe[1], 2);
  }
  return rc;
}

/* What a program that cannot be executed does, as a shell does it: says so on stderr and exits
 * 127 (posix_spawnp reports the failed exec instead of making a child). $0 is the program. */
#define CANNOT_EXECUTE "printf 'cannot execute %s\\n' \"$0\" >&2; exit 127"

/* run_child starts the child of x; returns its pid, or -1 when no process could be made. */
static pid_t run_child(const struct exec_plan *x, int same_group, int po[2], int pe[2], int pi[2]) {
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t at;
  pid_t pid = -1;
  if (posix_spawn_file_actions_init(&fa))
    return -1;
  if (posix_spawnattr_init(&at)) {
    posix_spawn_file_actions_destroy(&fa);
    return -1;
  }
  int rc = child_setup(same_group, po, pe, pi, &fa, &at);
  if (!rc && x->line)
    rc = posix_spawn(&pid, "/bin/sh", &fa, &at, x->argv, x->env);
  else if (!rc)
    rc = posix_spawnp(&pid, x->argv[0], &fa, &at, x->argv, x->env);
  if (rc && rc != ENOMEM && rc != EAGAIN && !x->line) {
    char *const argv[] = {"sh", "-c", CANNOT_EXECUTE, x->argv[0], NULL};
    rc = posix_spawn(&pid, "/bin/sh", &fa, &at, argv, x->env);
  }
  posix_spawnattr_destroy(&at);
  posix_spawn_file_actions_destroy(&fa);
  return rc ? -1 : pid;
}

/* adopt keeps the parent's ends of the pipes, non-blocking, and the child's ids in p. */
static void adopt(ock_process *p, pid_t pid, int po[2], int pe[2], int pi[2]) {
  close_pair((int[2]){-1, po[1]});
  close_pair((int[2]){-1, pe[1]});
  if (pi[0] >= 0) {
    close(pi[0]);
    p->in_fd = pi[1];
    fcntl(p->in_fd, F_SETFL, O_NONBLOCK);
  }
  p->out_open = po[0] >= 0 && fcntl(po[0], F_SETFL, O_NONBLOCK) == 0;
  p->err_open = pe[0] >= 0 && fcntl(pe[0], F_SETFL, O_NONBLOCK) == 0;
  p->pid = pid;
  p->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
  atomic_store(&p->target, pid);
  p->out_fd = po[0];
  p->err_fd = pe[0];
}

/* spawn starts the child of x with the hooks around it; returns its pid or -1. */
static pid_t spawn(const struct ock_process_spec *spec, const struct exec_plan *x, int po[2],
                   int pe[2], int pi[2]) {
  if (spec->before_fork && spec->before_fork(spec->fork_ctx))
    return -1;
  pid_t pid = run_child(x, spec->same_group, po, pe, pi);
  if (spec->after_fork)
    spec->after_fork(spec->fork_ctx, pid);
  return pid;
}

int ock_process_start(const struct ock_process_spec *spec, ock_process **out) {
  ock_process *p = process_new(spec);
  struct exec_plan x;
  int rc = plan_exec(spec, &x);
  int po[2] = {-1, -1}, pe[2] = {-1, -1}, pi[2] = {-1, -1};
  if (!rc && !p)
    rc = OCK_ENOMEM;
  if (!rc && !spec->inherit_stdio &&
      (pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC) || (spec->input && pipe2(pi, O_CLOEXEC))))
    rc = OCK_EIO;
  pid_t pid = -1;
  if (!rc) {
    p->started = now_ms();
    pid = spawn(spec, &x, po, pe, pi);
    if (pid < 0)
      rc = OCK_EIO;
  }
  if (rc) {
    close_pair(po);
    close_pair(pe);
    close_pair(pi);
    ock_process_free(p);
  } else {
    adopt(p, pid, po, pe, pi);
    *out = p;
  }
  free(x.env);
  free(x.line);
  return rc;
}

pid_t ock_process_pid(const ock_process *p) {
  return p->pid;
}

int ock_process_kill(ock_process *p, int sig) {
  pid_t t = p ? atomic_load(&p->target) : 0;
  if (t <= 0)
    return 0;
  kill(p->same_group ? t : -t, sig);
  return 1;
}

/* forget_target: no kill reaches the child any more; the group is killed first, so children
 * that outlive the child die with it. */
static void forget_target(ock_process *p) {
  pid_t t = atomic_exchange(&p->target, 0);
  if (t > 0 && !p->same_group)
    kill(-t, SIGKILL);
  else if (t > 0 && !p->reaped)
    kill(t, SIGKILL);
}

/* feed writes what the pipe takes of the child's input; at its end (or when the child stopped
 * reading) it closes the pipe, which is the child's end of input. The caller ignores SIGPIPE. */
static void feed(ock_process *p) {
  while (p->in_fd >= 0 && p->input_off < p->input_len) {
    ssize_t n = write(p->in_fd, p->input + p->input_off, p->input_len - p->input_off);
    if (n > 0) {
      p->input_off += (size_t)n;
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
      return;
    break; /* EPIPE: the child closed its stdin */
  }
  if (p->in_fd >= 0) {
    close(p->in_fd);
    p->in_fd = -1;
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

/* reap notes the child's exit when it has happened (block: wait for it). */
static void reap(ock_process *p, int block) {
  if (p->reaped || waitpid(p->pid, &p->status, block ? 0 : WNOHANG) != p->pid)
    return;
  p->reaped = 1;
}

static int finished(const ock_process *p) {
  return p->exited && ((!p->out_open && !p->err_open) || now_ms() >= p->drain_end);
}

/* step: one round of waiting at most wait_ms: feed the input, read the output, notice the exit. */
static void step(ock_process *p, int wait_ms) {
  /* The pidfd wakes the poll when the child exits, so its end is seen at once even after its
   * pipes closed; without one (an old kernel) the poll times out every POLL_MS. */
  struct pollfd q[4] = {{p->out_open ? p->out_fd : -1, POLLIN, 0},
                        {p->err_open ? p->err_fd : -1, POLLIN, 0},
                        {!p->exited ? p->pidfd : -1, POLLIN, 0},
                        {!p->exited ? p->in_fd : -1, POLLOUT, 0}};
  poll(q, 4, wait_ms);
  if (q[3].revents)
    feed(p);
  if (p->out_open && q[0].revents)
    p->out_open = drain(p->out_fd, &p->out, &p->out_total);
  if (p->err_open && q[1].revents)
    p->err_open = drain(p->err_fd, &p->err, &p->err_total);
  if (!p->exited) {
    reap(p, 0);
    if (p->reaped) {
      p->exited = 1;
      p->wall_ms = now_ms() - p->started;
      forget_target(p);
      p->drain_end = now_ms() + DRAIN_AFTER_EXIT_MS;
    }
  }
}

int ock_process_poll(ock_process *p, int wait_ms) {
  if (!finished(p))
    step(p, wait_ms);
  return finished(p);
}

const char *ock_process_stdout(const ock_process *p) {
  return p->out.data ? p->out.data : "";
}

/* stop kills the child that ran out of time (or was aborted) at time t, and reaps it. */
static void stop(ock_process *p, double t, int timed_out) {
  p->timed_out = timed_out;
  p->aborted = !timed_out;
  forget_target(p);
  reap(p, 1);
  p->exited = 1;
  p->wall_ms = t - p->started;
  p->drain_end = t + DRAIN_AFTER_KILL_MS;
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

int ock_process_wait(ock_process *p, double timeout_s, struct ock_process_result *r) {
  double deadline = timeout_s > 0 ? p->started + timeout_s * 1000.0 : 0;
  while (!finished(p)) {
    step(p, POLL_MS);
    double t = now_ms();
    if (!p->exited && ((deadline && t >= deadline) || (p->abort_flag && *p->abort_flag)))
      stop(p, t, deadline && t >= deadline);
  }
  memset(r, 0, sizeof *r);
  r->exit_code = -1;
  r->timed_out = p->timed_out;
  r->aborted = p->aborted;
  if (WIFEXITED(p->status) && !p->timed_out)
    r->exit_code = WEXITSTATUS(p->status);
  if (WIFSIGNALED(p->status) && !p->timed_out && !p->aborted)
    r->signal = WTERMSIG(p->status);
  r->out = printable(&p->out);
  r->err = printable(&p->err);
  r->out_total = p->out_total;
  r->err_total = p->err_total;
  r->wall_ms = p->wall_ms;
  return OCK_OK;
}

void ock_process_free(ock_process *p) {
  if (!p)
    return;
  if (p->pid > 0) {
    forget_target(p);
    reap(p, 1);
  }
  if (p->out_fd >= 0)
    close(p->out_fd);
  if (p->err_fd >= 0)
    close(p->err_fd);
  if (p->in_fd >= 0)
    close(p->in_fd);
  if (p->pidfd >= 0)
    close(p->pidfd);
  ock_buf_free(&p->out);
  ock_buf_free(&p->err);
  free(p->input);
  free(p);
}

void ock_process_result_clear(struct ock_process_result *r) {
  free(r->out);
  free(r->err);
  memset(r, 0, sizeof *r);
}
