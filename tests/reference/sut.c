/* sut.c: the CLI as a child process, through core's process runner (see sut.h). */
#include "sut.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ock/process.h"

#ifndef OCK_REF_CLI
#define OCK_REF_CLI "build/bin/ock-orchestrator"
#endif

#define MAX_ARGS 32
#define MAX_ENV 32

/* The running child: one at a time, as sut.h's pid-based calls imply. */
static ock_process *running;

int sut_valgrind(void) {
#if defined(__SANITIZE_ADDRESS__)
  return 0; /* an AddressSanitizer build checks memory itself and cannot run under valgrind */
#endif
  const char *v = getenv("OCK_VALGRIND");
  if (v && !strcmp(v, "0"))
    return 0;
  return system("command -v valgrind >/dev/null 2>&1") == 0;
}

pid_t ref_cli_start(const char *const *argv, const char *const *env, int valgrind) {
  const char *args[MAX_ARGS];
  size_t k = 0;
  if (valgrind) {
    args[k++] = "valgrind";
    args[k++] = "--leak-check=full";
    args[k++] = "--error-exitcode=1";
    args[k++] = "--quiet";
  }
  args[k++] = OCK_REF_CLI;
  for (size_t i = 0; argv && argv[i] && k < MAX_ARGS - 1; i++)
    args[k++] = argv[i];
  args[k] = NULL;
  /* The mode variables are removed first, so the tests do not depend on the caller's shell. */
  const char *vars[MAX_ENV] = {"OCK_MODE", "OCK_MAX_ITERATIONS", "OCK_ERROR_STRATEGY"};
  size_t n = 3;
  for (size_t i = 0; env && env[i] && n < MAX_ENV - 1; i++)
    vars[n++] = env[i];
  vars[n] = NULL;
  struct ock_process_spec spec = {
      .argv = args, .env = vars, .output_cap = sizeof((struct sut_run){0}.err) - 1};
  ock_process_free(running);
  running = NULL;
  return ock_process_start(&spec, &running) ? -1 : ock_process_pid(running);
}

void ref_cli_wait(pid_t pid, long timeout_ms, struct sut_run *out) {
  memset(out, 0, sizeof *out);
  out->exit_code = -1;
  if (!running || ock_process_pid(running) != pid)
    return;
  struct ock_process_result r;
  ock_process_wait(running, (double)timeout_ms / 1000.0, &r);
  out->exit_code = r.exit_code;
  out->signal = r.signal;
  out->timed_out = r.timed_out;
  snprintf(out->out, sizeof out->out, "%s", r.out ? r.out : "");
  snprintf(out->err, sizeof out->err, "%s", r.err ? r.err : "");
  ock_process_result_clear(&r);
  ock_process_free(running);
  running = NULL;
}
