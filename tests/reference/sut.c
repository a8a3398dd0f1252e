/* sut.c: the CLI as a child process (see sut.h). */
#include "sut.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef OCK_REF_CLI
#define OCK_REF_CLI "build/bin/ock-orchestrator"
#endif

/* The capture files of the running child, one child at a time. */
static char out_path[64], err_path[64];

int sut_valgrind(void) {
#if defined(__SANITIZE_ADDRESS__)
  return 0; /* an AddressSanitizer build checks memory itself and cannot run under valgrind */
#endif
  const char *v = getenv("OCK_VALGRIND");
  if (v && !strcmp(v, "0"))
    return 0;
  return system("command -v valgrind >/dev/null 2>&1") == 0;
}

static int temp_file(char *path, size_t n, const char *tag) {
  snprintf(path, n, "/tmp/ock-ref-%s-XXXXXX", tag);
  return mkstemp(path);
}

pid_t sut_start(const char *const *argv, const char *const *env, int valgrind) {
  int out = temp_file(out_path, sizeof out_path, "out");
  int err = temp_file(err_path, sizeof err_path, "err");
  if (out < 0 || err < 0)
    return -1;
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    int in = open("/dev/null", O_RDONLY);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    unsetenv("OCK_MODE");
    unsetenv("OCK_MAX_ITERATIONS");
    unsetenv("OCK_ERROR_STRATEGY");
    for (size_t i = 0; env && env[i]; i++)
      putenv((char *)env[i]);
    const char *args[32];
    size_t k = 0;
    if (valgrind) {
      args[k++] = "valgrind";
      args[k++] = "--leak-check=full";
      args[k++] = "--error-exitcode=1";
      args[k++] = "--quiet";
    }
    args[k++] = OCK_REF_CLI;
    for (size_t i = 0; argv && argv[i] && k < 31; i++)
      args[k++] = argv[i];
    args[k] = NULL;
    if (valgrind)
      execvp(args[0], (char *const *)args);
    else
      execv(args[0], (char *const *)args);
    fprintf(stderr, "cannot run %s: %s\n", args[0], strerror(errno));
    _exit(127);
  }
  if (pid > 0)
    setpgid(pid, pid); /* also here, so a signal sent right away reaches the group */
  close(out);
  close(err);
  return pid;
}

static void slurp(const char *path, char *buf, size_t n) {
  buf[0] = '\0';
  FILE *f = fopen(path, "rb");
  if (f) {
    size_t got = fread(buf, 1, n - 1, f);
    buf[got] = '\0';
    fclose(f);
  }
  unlink(path);
}

void sut_wait(pid_t pid, long timeout_ms, struct sut_run *out) {
  memset(out, 0, sizeof *out);
  out->exit_code = -1;
  int status = 0;
  long waited = 0;
  pid_t r = 0;
  while ((r = waitpid(pid, &status, WNOHANG)) == 0 && waited < timeout_ms) {
    struct timespec ts = {.tv_sec = 0, .tv_nsec = 10 * 1000000L};
    nanosleep(&ts, NULL);
    waited += 10;
  }
  if (r == 0) {
    out->timed_out = 1;
    kill(-pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  if (WIFEXITED(status))
    out->exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    out->signal = WTERMSIG(status);
  slurp(out_path, out->out, sizeof out->out);
  slurp(err_path, out->err, sizeof out->err);
}
