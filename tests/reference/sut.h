/*
 * sut.h: run build/bin/ock-orchestrator as a child process through the harness's own runner
 * (ock/process.h): its own process group, stdin from /dev/null, stdout and stderr captured, a
 * wall-clock timeout after which the group is killed. One child at a time. When valgrind is on PATH
 * the CLI runs under `valgrind --leak-check=full --error-exitcode=1` (about 10 s for the whole
 * integration suite); OCK_VALGRIND=0 in the environment runs it bare.
 */
#ifndef OCK_TEST_REFERENCE_SUT_H
#define OCK_TEST_REFERENCE_SUT_H

#include <sys/types.h>

struct sut_run {
  int exit_code; /* -1 when killed by a signal */
  int signal;    /* the terminating signal, 0 if none */
  int timed_out;
  char out[16384]; /* stdout, truncated */
  char err[65536]; /* stderr, truncated */
};

/* sut_valgrind: 1 when valgrind is on PATH and OCK_VALGRIND is not "0" (never in an ASan
 * build, which checks memory itself). */
int sut_valgrind(void);

/* ref_cli_start forks the CLI with argv (NULL-terminated, without the program) and the given
 * environment additions ("NAME=value", NULL-terminated; the variables OCK_MODE,
 * OCK_MAX_ITERATIONS and OCK_ERROR_STRATEGY are removed first). Returns the child's pid, which
 * is also its process group, or -1. */
pid_t ref_cli_start(const char *const *argv, const char *const *env, int valgrind);

/* ref_cli_wait waits at most timeout_ms (counted from ref_cli_start), kills the group on expiry,
 * and collects the outcome. pid is ref_cli_start's. */
void ref_cli_wait(pid_t pid, long timeout_ms, struct sut_run *out);

#endif
