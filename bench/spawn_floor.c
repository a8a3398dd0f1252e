/*
 * spawn_floor.c: how long it takes just to start a SUT the way the harness does, N times.
 *
 *   spawn_floor N COMMAND
 *
 * Each round forks, puts the child in its own process group, runs COMMAND with /bin/sh -c
 * (SPEC.md section 7.1), and waits for it, one after another. Prints one JSON line with the
 * minimum, median and mean microseconds per round. With COMMAND = `min_sut --floor`, which
 * does one loopback HTTP exchange, that is the floor any harness pays per scenario, the
 * figure bench/bench.py sets the harness's own per-scenario time against (item 3).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS_MAX 100000

static long long now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static int cmp_ll(const void *a, const void *b) {
  long long x = *(const long long *)a, y = *(const long long *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  long n = argc == 3 ? strtol(argv[1], NULL, 10) : 0;
  if (n < 1 || n > ROUNDS_MAX) {
    fprintf(stderr, "usage: spawn_floor N COMMAND   (1 <= N <= %d)\n", ROUNDS_MAX);
    return 2;
  }
  long long *t = calloc((size_t)n, sizeof *t);
  if (!t)
    return 1;
  long long sum = 0;
  for (long i = 0; i < n; i++) {
    long long t0 = now_us();
    pid_t pid = fork();
    if (pid < 0) {
      perror("spawn_floor: fork");
      return 1;
    }
    if (pid == 0) {
      setpgid(0, 0);
      execl("/bin/sh", "sh", "-c", argv[2], (char *)NULL);
      _exit(127);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
      fprintf(stderr, "spawn_floor: \"%s\" failed (status %d)\n", argv[2], status);
      return 1;
    }
    t[i] = now_us() - t0;
    sum += t[i];
  }
  qsort(t, (size_t)n, sizeof *t, cmp_ll);
  printf("{\"rounds\": %ld, \"min_us\": %lld, \"median_us\": %lld, \"mean_us\": %lld}\n", n, t[0],
         t[n / 2], sum / n);
  free(t);
  return 0;
}
