/*
 * process.h: running a program as a child it does not trust, and collecting what it did.
 *
 * The one process runner of the kit: the harness runs each SUT through it, and the kit's own
 * tests and ock-mutant run their children through it. A child runs argv (or `/bin/sh -c COMMAND`)
 * in its own process group, with additions to the environment, stdin from /dev/null or a pipe that
 * carries the given input then end of input, and stdout and stderr each kept up to a cap (the rest
 * is counted, not kept). At the timeout, when an abort flag is set, and after the child exits, the
 * whole group is killed, so nothing it forked outlives it. A wrapper that runs a program in the
 * foreground (ock-mutant) may keep it in its own group and share its streams instead.
 *
 * A handle is used by one thread, except ock_process_kill, which any thread (or a signal
 * handler's helper thread) may call at any time. The runner keeps no global state: a caller
 * that must track its children across threads (the harness's orphan reaping) does so in the
 * fork hooks.
 */
#ifndef OCK_PROCESS_H
#define OCK_PROCESS_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

struct ock_process_spec {
  const char *const *argv; /* program and arguments, NULL-terminated; a program without '/' is
                              looked up in PATH. Ignored when command is set */
  const char *command;     /* when set: run as `/bin/sh -c COMMAND` (a command of plain words
                              is exec'd by the shell, so its own exit status comes back) */
  const char *const *env;  /* NULL-terminated additions: "NAME=VALUE" replaces an inherited
                              NAME, a bare "NAME" removes it; may be NULL */
  const char *input;       /* when set: written to stdin, which is then closed; else stdin is
                              /dev/null. The caller ignores SIGPIPE (the child may stop reading) */
  size_t output_cap;       /* bytes kept of stdout and of stderr each */
  int same_group;    /* stay in the caller's process group: kills reach the child alone, and a group
                        kill aimed at the caller reaches it too */
  int inherit_stdio; /* the child shares the caller's stdin, stdout and stderr: nothing is
                        captured, and input and output_cap are ignored */
  volatile sig_atomic_t *abort_flag; /* when it becomes non-zero: stop waiting, kill the group */
  /* Optional, for a caller that tracks its children: before_fork runs just before the child is
   * started (a non-zero return refuses the start), after_fork just after, with the child's pid
   * or -1. Both get fork_ctx. */
  int (*before_fork)(void *ctx);
  void (*after_fork)(void *ctx, pid_t pid);
  void *fork_ctx;
};

struct ock_process_result {
  int exit_code;    /* when it exited; -1 otherwise */
  int signal;       /* the signal that ended it, or 0 (also 0 when the runner killed it) */
  int timed_out;    /* killed at the timeout */
  int aborted;      /* killed because the abort flag was set */
  char *out;        /* kept stdout, NUL-terminated, its own NUL bytes as '?'; owned */
  size_t out_total; /* bytes it wrote to stdout in all */
  char *err;        /* kept stderr, the same way */
  size_t err_total;
  double wall_ms; /* from start to exit (or kill) */
};

typedef struct ock_process ock_process;

/* ock_process_start starts the child described by spec (read during the call; input and env
 * are copied or used before it returns). Returns OCK_OK and *out (caller frees with
 * ock_process_free), OCK_ENOMEM, or OCK_EIO when a pipe or the spawn failed or before_fork refused;
 * *out is untouched on failure. A program that cannot be executed exits 127. */
int ock_process_start(const struct ock_process_spec *spec, ock_process **out);

/* ock_process_pid: the child's pid (also its process group unless same_group). */
pid_t ock_process_pid(const ock_process *p);

/* ock_process_kill sends sig to the child's group (to the child alone with same_group) while it
 * runs. Returns 1 when sent, 0 when the child is already gone (then it does nothing). Safe from
 * any thread. */
int ock_process_kill(ock_process *p, int sig);

/* ock_process_poll waits at most wait_ms for output or the child's end, and keeps what it
 * wrote. Returns 1 once the child has ended and its output is read, else 0. It never kills. */
int ock_process_poll(ock_process *p, int wait_ms);

/* ock_process_stdout: the stdout kept so far, NUL-terminated (possibly with NUL bytes inside);
 * borrowed until the next poll, wait or free. */
const char *ock_process_stdout(const ock_process *p);

/* ock_process_wait reads the child's output until it ends, or until timeout_s seconds after its
 * start (0: no limit) or the abort flag, which kill its group; then kills the group anyway and
 * fills *r (caller clears it with ock_process_result_clear). Returns OCK_OK; a text that could
 * not be kept for want of memory is NULL. Call once. */
int ock_process_wait(ock_process *p, double timeout_s, struct ock_process_result *r);

/* ock_process_free kills the group if the child still runs, reaps it and frees p; NULL is a
 * no-op. */
void ock_process_free(ock_process *p);

/* ock_process_result_clear frees r's texts and zeroes it. */
void ock_process_result_clear(struct ock_process_result *r);

#endif
