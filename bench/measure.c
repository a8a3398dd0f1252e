/*
 * measure.c: run one command and report what it cost, for bench/bench.py.
 *
 *   measure -o FILE -- COMMAND [ARGS...]
 *
 * Forks, execs COMMAND (no shell), waits with wait4 and writes one JSON line to FILE:
 * {"wall_us", "user_us", "sys_us", "maxrss_kb", "exit", "signal"}. The command's stdout and
 * stderr are its own. Why not Python's os.wait4: a child forked from Python starts with
 * Python's resident pages, and Linux keeps the larger peak across execve, so every command
 * would seem to need at least the interpreter's 20-odd MB. Forked from this small program,
 * the floor is its own size (about 1 MB). Exit status: the command's, or 125 when measure
 * itself fails.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static long long tv_us(struct timeval tv) {
  return (long long)tv.tv_sec * 1000000LL + tv.tv_usec;
}

int main(int argc, char **argv) {
  if (argc < 5 || strcmp(argv[1], "-o") || strcmp(argv[3], "--")) {
    fprintf(stderr, "usage: measure -o FILE -- COMMAND [ARGS...]\n");
    return 125;
  }
  FILE *out = fopen(argv[2], "w");
  if (!out) {
    perror(argv[2]);
    return 125;
  }
  long long t0 = now_us();
  pid_t pid = fork();
  if (pid < 0) {
    perror("measure: fork");
    fclose(out);
    return 125;
  }
  if (pid == 0) {
    execvp(argv[4], argv + 4);
    perror(argv[4]);
    _exit(127);
  }
  int status = 0;
  struct rusage ru;
  while (wait4(pid, &status, 0, &ru) < 0) {
    if (errno != EINTR) {
      perror("measure: wait4");
      fclose(out);
      return 125;
    }
  }
  long long wall = now_us() - t0;
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  fprintf(out,
          "{\"wall_us\": %lld, \"user_us\": %lld, \"sys_us\": %lld, \"maxrss_kb\": %ld, "
          "\"exit\": %d, \"signal\": %d}\n",
          wall, tv_us(ru.ru_utime), tv_us(ru.ru_stime), ru.ru_maxrss, code, sig);
  if (fclose(out))
    return 125;
  return code < 0 ? 125 : code;
}
