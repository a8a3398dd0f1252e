/*
 * sut.h: running the system under test, any program, as a child it does not trust.
 *
 * The SUT runs as `/bin/sh -c COMMAND` (the command is the user's, documented as a shell
 * command; no fixture data is ever put into it) in its own process group, with stdin from
 * /dev/null (or, for a black-box run, a pipe that carries the given input, then end of input), the
 * ock/1 variables added to its environment, and stdout/stderr kept up to a cap (the rest is
 * counted, not kept). At the timeout, and after the SUT exits, the whole group is killed, so no
 * process it forked outlives the scenario. The running is core's process runner (ock/process.h);
 * what is the harness's own is here: the interrupt count, and the orphans that left the group
 * (ock is a child subreaper and kills every child that is not a live SUT).
 */
#ifndef OCK_SUT_H
#define OCK_SUT_H

#include <stddef.h>
#include <signal.h>
#include <sys/types.h>

#include "model/outcome.h" /* struct sut_result, what ock__sut_wait fills */

struct sut_spec {
  const char *command; /* passed to /bin/sh -c */
  const char *const
      *env;          /* "NAME=VALUE" strings added (replacing inherited ones); NULL-terminated */
  double timeout_s;  /* wall-clock limit */
  size_t output_cap; /* bytes kept of stdout and of stderr each */
  volatile sig_atomic_t *abort_flag; /* when set to non-zero: stop waiting, kill the group */
  const char *input; /* when set: written to the SUT's stdin, which is then closed */
};

typedef struct sut sut;

/* ock__sut_start forks and execs the SUT. Returns OCK_OK, OCK_EIO (pipe/fork failed) or
 * OCK_ENOMEM. */
int ock__sut_start(const struct sut_spec *spec, sut **out);

/* ock__sut_interrupt sends SIGINT to the SUT's process group, as Ctrl-C would. Safe to call from
 * any thread, and before or after the SUT exited (then it does nothing). */
void ock__sut_interrupt(sut *s);

/* ock__sut_wait reads the SUT's output until it exits or the timeout passes, kills the process
 * group, and fills *out (caller clears it with ock__sut_result_clear). Call once. */
int ock__sut_wait(sut *s, struct sut_result *out);

void ock__sut_free(sut *s); /* kills the group if still running; NULL is a no-op */

#endif
