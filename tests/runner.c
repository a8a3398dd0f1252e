/*
 * runner.c: the shared CUnit runner (see runner.h).
 *
 * As libuv's test runner does, each suite runs in a child process of its own, in its own
 * process group, with a deadline: a suite that crashes, hangs or is killed is reported FAILED
 * with the test it was running and why, its whole process group is killed, and the next suite
 * runs. The child tells the parent what happened through a pipe, one line per event:
 *
 *   T <test>                    a test starts
 *   A <test>\t<where>: <msg>    a failed assertion (<test> is "(setup)" outside a test)
 *   R <test> P|F                a test ended: passed, failed
 *   R <test> S <reason>         a test skipped itself
 *   K <reason>                  the whole suite skipped itself in its init
 *
 * The parent counts suites and tests, and ends the output with every skip and every failure,
 * so that the tail of a long CI log names what failed.
 */
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <CUnit/TestRun.h>

/* A suite's time limit unless it names its own, times OCK_TIME_SCALE (OCK_SUITE_TIMEOUT
 * overrides both). */
#define SUITE_TIMEOUT_S 300.0

/* ---- the child: runs one suite and reports on report_fd ---- */

/* CUnit keeps each failure message's pointer until the run ends: they live here and are
 * freed after the registry is cleaned up. */
#define MAX_KEPT 4096
static char *kept_messages[MAX_KEPT];
static size_t n_kept;

static int report_fd = -1;       /* the pipe to the parent, in the child */
static const char *current_test; /* the running test, NULL in a suite's init or cleanup */
static char skip_reason[512];    /* set by ock_test_skip, cleared when a test starts */

/* report: one line to the parent; newlines inside become spaces, so a line stays a line. */
__attribute__((format(printf, 1, 2))) static void report(const char *fmt, ...) {
  char line[2048];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line - 1, fmt, ap);
  va_end(ap);
  if (n < 0)
    return;
  size_t len = (size_t)n < sizeof line - 1 ? (size_t)n : sizeof line - 2;
  for (size_t i = 0; i < len; i++)
    if (line[i] == '\n' || line[i] == '\r')
      line[i] = ' ';
  line[len++] = '\n';
  if (report_fd >= 0 && write(report_fd, line, len) < 0)
    report_fd = -1;
}

/* fail: records a failed assertion; when fatal, CUnit then leaves the test (a longjmp). */
static void fail(int line, const char *file, CU_BOOL fatal, const char *fmt, va_list ap) {
  char msg[1024];
  vsnprintf(msg, sizeof msg, fmt, ap);
  if (!current_test) { /* in a suite's init or cleanup: CUnit is not running a test */
    fprintf(stderr, "%s:%d: %s\n", file, line, msg);
    report("A (setup)\t%s:%d: %s", file, line, msg);
    return;
  }
  char *kept = n_kept < MAX_KEPT ? strdup(msg) : NULL;
  if (kept)
    kept_messages[n_kept++] = kept;
  CU_assertImplementation(CU_FALSE, (unsigned)line, kept ? kept : "assertion failed", file, "",
                          fatal);
}

void ock_test_fail(int line, const char *file, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fail(line, file, CU_FALSE, fmt, ap);
  va_end(ap);
}

void ock_test_fatal(int line, const char *file, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fail(line, file, CU_TRUE, fmt, ap);
  va_end(ap);
}

void ock_test_skip(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(skip_reason, sizeof skip_reason, fmt, ap);
  va_end(ap);
}

static void on_test_start(const CU_pTest test, const CU_pSuite suite) {
  (void)suite;
  current_test = test->pName;
  skip_reason[0] = '\0';
  report("T %s", test->pName);
}

static void on_test_complete(const CU_pTest test, const CU_pSuite suite,
                             const CU_pFailureRecord failures) {
  for (CU_pFailureRecord f = failures; f; f = f->pNext) {
    fprintf(stderr, "  FAIL %s:%s %s:%u: %s\n", suite->pName, test->pName,
            f->strFileName ? f->strFileName : "?", f->uiLineNumber,
            f->strCondition ? f->strCondition : "");
    report("A %s\t%s:%u: %s", test->pName, f->strFileName ? f->strFileName : "?", f->uiLineNumber,
           f->strCondition ? f->strCondition : "");
  }
  if (failures)
    report("R %s F", test->pName);
  else if (skip_reason[0])
    report("R %s S %s", test->pName, skip_reason);
  else
    report("R %s P", test->pName);
  current_test = NULL;
}

/* register_tests: the suite's tests (or the one named) in a fresh CUnit registry, without its
 * init and cleanup, which run_suite calls itself so that an init can skip the suite. */
static int register_tests(const struct ock_suite *su, const char *only_test) {
  if (CU_initialize_registry() != CUE_SUCCESS)
    return -1;
  CU_pSuite cs = CU_add_suite(su->name, NULL, NULL);
  if (!cs)
    return -1;
  for (int t = 0; su->tests[t].name; t++) {
    if (only_test && strcmp(only_test, su->tests[t].name))
      continue;
    if (!CU_add_test(cs, su->tests[t].name, su->tests[t].fn))
      return -1;
  }
  return 0;
}

/* run_suite: the child's whole life. Its exit status is 0: failures go through the pipe, so a
 * non-zero status means something else spoke (valgrind's error exit code, a sanitizer). */
static int run_suite(const struct ock_suite *su, const char *only_test) {
  setvbuf(stdout, NULL, _IOLBF, 0); /* a killed child still shows what it printed */
  if (su->init && su->init() != 0) {
    report("A (setup)\t%s: its init failed", su->name);
    return 0;
  }
  if (skip_reason[0]) {
    report("K %s", skip_reason);
  } else if (register_tests(su, only_test) == 0) {
    CU_set_test_start_handler(on_test_start);
    CU_set_test_complete_handler(on_test_complete);
    CU_run_all_tests();
  } else {
    report("A (setup)\t%s: CUnit: %s", su->name, CU_get_error_msg());
  }
  CU_cleanup_registry();
  for (size_t i = 0; i < n_kept; i++)
    free(kept_messages[i]);
  n_kept = 0;
  if (su->cleanup && su->cleanup() != 0)
    report("A (setup)\t%s: its cleanup failed", su->name);
  return 0;
}

/* ---- the parent: forks, watches and counts ---- */

struct totals {
  unsigned suites, suites_failed, suites_skipped;
  unsigned passed, failed, skipped;
  char **lines; /* the skips, then the failures, repeated at the end; each malloc'd */
  size_t n_lines;
  char **failures;
  size_t n_failures;
};

/* The one suite's state while its child runs. */
struct suite_run {
  const char *suite;
  unsigned n_tests; /* the tests the child was asked to run, all skipped by a K line */
  char test[256];   /* the test running now, "" between tests */
  char buf[8192];   /* the pipe's bytes not yet ending in a newline */
  size_t len;
  unsigned passed, failed, skipped;
  int skipped_suite;
  int any_failure; /* an assertion failed, in a test or outside */
};

static volatile sig_atomic_t running_group; /* the child's process group, for on_signal */

static void on_signal(int sig) {
  if (running_group > 0)
    kill(-running_group, SIGKILL);
  signal(sig, SIG_DFL);
  raise(sig);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* add_line: appends a formatted line to one of the lists repeated at the end. */
__attribute__((format(printf, 3, 4))) static void add_line(char ***list, size_t *n, const char *fmt,
                                                           ...) {
  char line[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  char **grown = realloc(*list, (*n + 1) * sizeof **list);
  char *copy = strdup(line);
  if (!grown || !copy) {
    free(copy);
    if (grown)
      *list = grown;
    return;
  }
  *list = grown;
  (*list)[(*n)++] = copy;
}

/* handle_line: one line of the child's report (see the top of this file). */
static void handle_line(struct suite_run *run, struct totals *tot, char *line) {
  char kind = line[0];
  char *rest = line[0] && line[1] == ' ' ? line + 2 : line + strlen(line);
  if (kind == 'T') {
    snprintf(run->test, sizeof run->test, "%s", rest);
  } else if (kind == 'A') {
    char *tab = strchr(rest, '\t');
    if (tab)
      *tab++ = '\0';
    add_line(&tot->failures, &tot->n_failures, "FAILED %s:%s %s", run->suite, rest, tab ? tab : "");
    run->any_failure = 1;
  } else if (kind == 'R') {
    char *sp = strchr(rest, ' ');
    if (!sp)
      return;
    *sp = '\0';
    if (sp[1] == 'S') {
      run->skipped++;
      add_line(&tot->lines, &tot->n_lines, "SKIP %s:%s: %s", run->suite, rest, sp[2] ? sp + 3 : "");
    } else if (sp[1] == 'F') {
      run->failed++;
    } else {
      run->passed++;
    }
    run->test[0] = '\0';
  } else if (kind == 'K') {
    run->skipped_suite = 1;
    run->skipped += run->n_tests;
    add_line(&tot->lines, &tot->n_lines, "SKIP %s: %s", run->suite, rest);
  }
}

/* read_report: reads what the child wrote; returns 0 at end of file, 1 otherwise. */
static int read_report(int fd, struct suite_run *run, struct totals *tot) {
  for (;;) {
    ssize_t got = read(fd, run->buf + run->len, sizeof run->buf - 1 - run->len);
    if (got == 0)
      return 0;
    if (got < 0)
      return errno == EINTR || errno == EAGAIN ? 1 : 0;
    run->len += (size_t)got;
    run->buf[run->len] = '\0';
    char *start = run->buf, *nl;
    while ((nl = strchr(start, '\n'))) {
      *nl = '\0';
      handle_line(run, tot, start);
      start = nl + 1;
    }
    run->len = strlen(start);
    memmove(run->buf, start, run->len + 1);
    if (run->len == sizeof run->buf - 1)
      run->len = 0; /* a line longer than the buffer: dropped rather than stuck */
  }
}

/* watch_child: reads the child's report until it exits or the deadline passes (then kills its
 * process group). Returns 1 on a timeout, 0 otherwise; *status is waitpid's. */
static int watch_child(pid_t pid, int fd, double timeout, struct suite_run *run, struct totals *tot,
                       int *status) {
  double deadline = now_s() + timeout;
  int open = 1, timed_out = 0;
  while (waitpid(pid, status, WNOHANG) == 0) {
    double left = deadline - now_s();
    if (left <= 0) {
      kill(-pid, SIGKILL);
      waitpid(pid, status, 0);
      timed_out = 1;
      break;
    }
    /* A grandchild may hold the pipe after the child exits: a short tick keeps waitpid
     * looking. */
    struct pollfd p = {open ? fd : -1, POLLIN, 0};
    int ms = left < 0.1 ? (int)(left * 1000) + 1 : 100;
    if (poll(&p, 1, ms) > 0)
      open = read_report(fd, run, tot);
  }
  read_report(fd, run, tot);
  kill(-pid, SIGKILL); /* whatever the suite left running in its group */
  return timed_out;
}

/* why_failed: the suite's end as a reason, or NULL when it ended well. */
static const char *why_failed(int timed_out, int status, double timeout, char *buf, size_t n) {
  if (timed_out)
    snprintf(buf, n, "timed out after %.0f s (OCK_SUITE_TIMEOUT)", timeout);
  else if (WIFSIGNALED(status))
    snprintf(buf, n, "killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
  else if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
    snprintf(buf, n, "exited with status %d", WEXITSTATUS(status));
  else
    return NULL;
  return buf;
}

/* finish_suite: counts the suite's tests and prints its line. */
static void finish_suite(struct suite_run *run, struct totals *tot, const char *why, double secs) {
  tot->suites++;
  tot->passed += run->passed;
  tot->failed += run->failed;
  tot->skipped += run->skipped;
  if (why) {
    if (run->test[0]) {
      tot->failed++; /* the test that was running when the suite died */
      add_line(&tot->failures, &tot->n_failures, "FAILED %s:%s %s", run->suite, run->test, why);
    } else {
      add_line(&tot->failures, &tot->n_failures, "FAILED %s %s", run->suite, why);
    }
  }
  int failed = why || run->failed || run->any_failure;
  tot->suites_failed += failed;
  tot->suites_skipped += !failed && run->skipped_suite;
  printf("%-6s %s: %u passed, %u failed, %u skipped (%.1f s)%s%s\n",
         failed               ? "FAILED"
         : run->skipped_suite ? "SKIP"
                              : "ok",
         run->suite, run->passed, run->failed + (why && run->test[0]), run->skipped, secs,
         why ? ": " : "", why ? why : "");
}

/* spawn_suite: runs one suite in a child and counts what it did. Returns -1 when the child
 * could not be started. */
static int spawn_suite(const struct ock_suite *su, const char *only_test, double timeout,
                       struct totals *tot) {
  int fds[2];
  if (pipe(fds))
    return -1;
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return -1;
  }
  if (pid == 0) {
    setpgid(0, 0);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    close(fds[0]);
    report_fd = fds[1];
    fcntl(report_fd, F_SETFD, FD_CLOEXEC);
    exit(run_suite(su, only_test));
  }
  setpgid(pid, pid); /* also here, so a kill right away reaches the group */
  running_group = pid;
  close(fds[1]);
  fcntl(fds[0], F_SETFL, O_NONBLOCK);
  struct suite_run run = {.suite = su->name};
  for (int t = 0; su->tests[t].name; t++)
    run.n_tests += !only_test || !strcmp(only_test, su->tests[t].name);
  double start = now_s();
  int status = 0;
  int timed_out = watch_child(pid, fds[0], timeout, &run, tot, &status);
  running_group = 0;
  close(fds[0]);
  char why[256];
  finish_suite(&run, tot, why_failed(timed_out, status, timeout, why, sizeof why), now_s() - start);
  return 0;
}

/* env_positive: the variable as a number above 0 into *out (untouched when unset); -1 after a
 * message when it is set to anything else. */
static int env_positive(const char *name, double *out) {
  const char *env = getenv(name);
  if (!env || !*env)
    return 0;
  char *end;
  double v = strtod(env, &end);
  if (*end || !(v > 0)) {
    fprintf(stderr, "%s: expected a number above 0, got \"%s\"\n", name, env);
    return -1;
  }
  *out = v;
  return 0;
}

/* suite_timeout: the seconds su may take: OCK_SUITE_TIMEOUT, else its own limit or the
 * default, times OCK_TIME_SCALE. */
static double suite_timeout(const struct ock_suite *su, double override, double scale) {
  if (override > 0)
    return override;
  return (su->timeout_s ? su->timeout_s : SUITE_TIMEOUT_S) * scale;
}

/* print_totals: the summary, then every skip and failure again, and the list's release. */
static void print_totals(const char *program, struct totals *tot) {
  fflush(stdout);
  fprintf(stderr,
          "%s: %u suite(s) (%u failed, %u skipped), %u test(s): %u passed, %u failed, %u "
          "skipped\n",
          program, tot->suites, tot->suites_failed, tot->suites_skipped,
          tot->passed + tot->failed + tot->skipped, tot->passed, tot->failed, tot->skipped);
  for (size_t i = 0; i < tot->n_lines; i++) {
    fprintf(stderr, "%s: %s\n", program, tot->lines[i]);
    free(tot->lines[i]);
  }
  for (size_t i = 0; i < tot->n_failures; i++) {
    fprintf(stderr, "%s: %s\n", program, tot->failures[i]);
    free(tot->failures[i]);
  }
  free(tot->lines);
  free(tot->failures);
}

int ock_test_main(const struct ock_suite *const *suites, int argc, char **argv) {
  const char *only = argc > 1 ? argv[1] : NULL;
  double override = 0, scale = 1;
  if (env_positive("OCK_SUITE_TIMEOUT", &override) || env_positive("OCK_TIME_SCALE", &scale))
    return 2;
  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
  signal(SIGHUP, on_signal);
  struct totals tot = {0};
  size_t len = only ? strcspn(only, ":") : 0;
  const char *only_test = only && only[len] == ':' ? only + len + 1 : NULL;
  for (int s = 0; suites[s]; s++) {
    if (only && (strlen(suites[s]->name) != len || strncmp(suites[s]->name, only, len)))
      continue;
    if (spawn_suite(suites[s], only_test, suite_timeout(suites[s], override, scale), &tot)) {
      perror("fork");
      return 2;
    }
  }
  unsigned ran = tot.passed + tot.failed + tot.skipped + tot.suites_skipped;
  int failed = tot.failed || tot.suites_failed;
  print_totals(argv[0], &tot);
  if (ran == 0 && !failed) {
    fprintf(stderr, "no test ran%s%s\n", only ? " for " : "", only ? only : "");
    return 1;
  }
  return failed ? 1 : 0;
}

const char *ock_test_path(const char *rel) {
  static char buf[4096];
  const char *root = getenv("OCK_ROOT");
  snprintf(buf, sizeof buf, "%s/%s", root && *root ? root : ".", rel);
  return buf;
}

cJSON *ock_test_registry_config_defaults(void) {
  char *text = ock_test_read_file(ock_test_path("core/requirements.json"));
  cJSON *reg = text ? cJSON_Parse(text) : NULL, *out = NULL;
  free(text);
  const cJSON *opt;
  if (reg)
    out = cJSON_CreateObject();
  cJSON_ArrayForEach(opt, cJSON_GetObjectItemCaseSensitive(reg, "config")) {
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(opt, "name");
    const cJSON *dflt = cJSON_GetObjectItemCaseSensitive(opt, "default");
    if (cJSON_IsString(name) && dflt)
      cJSON_AddItemToObject(out, name->valuestring, cJSON_Duplicate(dflt, 1));
  }
  cJSON_Delete(reg);
  if (!out || !cJSON_GetArraySize(out)) {
    ock_test_fail(__LINE__, __FILE__, "no session config options in %s",
                  ock_test_path("core/requirements.json"));
    cJSON_Delete(out);
    return NULL;
  }
  return out;
}

void ock_test_registry_defaults_(int line, const char *file, const cJSON *config, const char *who) {
  cJSON *want = ock_test_registry_config_defaults();
  if (!want)
    return;
  int bad = 0;
  const cJSON *w;
  cJSON_ArrayForEach(w, want) {
    const cJSON *got = cJSON_GetObjectItemCaseSensitive(config, w->string);
    if (got && cJSON_Compare(got, w, 1))
      continue;
    char *g = got ? cJSON_PrintUnformatted(got) : NULL, *e = cJSON_PrintUnformatted(w);
    ock_test_fail(line, file, "%s: config.%s is %s, the registry's default is %s", who, w->string,
                  g ? g : "absent", e ? e : "?");
    free(g);
    free(e);
    bad = 1;
  }
  if (cJSON_GetArraySize(config) != cJSON_GetArraySize(want))
    ock_test_fail(line, file, "%s: %d config options, the registry has %d", who,
                  cJSON_GetArraySize(config), cJSON_GetArraySize(want)),
        bad = 1;
  if (!bad)
    CU_PASS(who);
  cJSON_Delete(want);
}

char *ock_test_read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  size_t len = 0, cap = 8192;
  char *text = malloc(cap);
  while (text) {
    len += fread(text + len, 1, cap - len - 1, f);
    if (len < cap - 1)
      break; /* end of file, or a read error */
    char *grown = realloc(text, cap *= 2);
    if (!grown)
      free(text);
    text = grown;
  }
  fclose(f);
  if (text)
    text[len] = '\0';
  return text;
}

int ock_test_sh(const char *cmd) {
  int status = system(cmd);
  return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int ock_test_tmpdir(char dir[64], const char *name) {
  snprintf(dir, 64, "/tmp/ock-%s-XXXXXX", name);
  return mkdtemp(dir) ? 0 : 1;
}

int ock_test_rmdir(const char *dir) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return ock_test_sh(cmd) == 0 ? 0 : 1;
}
