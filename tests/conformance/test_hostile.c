/*
 * test_hostile.c: the hostile-SUT matrix. ock runs against each mode of hostile_sut.c (crash,
 * hang, deaf to signals, escaping children, gigabytes of output, a million events, a 100 MB
 * body, broken bodies, deep nesting, 1 MB ids, slowloris), two scenarios at a time with
 * --jobs 2. Each must end in a graded FAIL (exit 1, never a pass and never a harness error),
 * with all four reports written and no process left behind. And a flood of large events past
 * the journal's byte cap: ock's peak memory stays within the cap and a small constant.
 */
#include "runner.h"

#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ock/caps.h"
#include "ock/json.h"

#ifndef OCK_BIN_DIR
#define OCK_BIN_DIR "build"
#endif

static char out_dir[64];

static int setup(void) {
  return ock_test_tmpdir(out_dir, "hostile");
}

/* teardown kills what a failed test left running, so a failure never leaks processes. */
static int teardown(void) {
  char cmd[256];
  snprintf(cmd, sizeof cmd, "pkill -KILL -f '^[^ ]*[h]ostile_sut [a-z]* %s'", out_dir);
  ock_test_sh(cmd);
  return ock_test_rmdir(out_dir);
}

/* leftovers: a process of this test run is still alive. Every hostile process carries this
 * run's unique directory as an argument (other checkouts may run the same test meanwhile);
 * the [h] keeps pgrep from matching its own command line. */
static int leftovers(void) {
  char cmd[256];
  snprintf(cmd, sizeof cmd, "pgrep -f '[h]ostile_sut .* %s' >/dev/null", out_dir);
  return system(cmd) == 0;
}

/* count_leftovers: how many processes of this test run are alive. */
static int count_leftovers(void) {
  char cmd[256], line[32] = "";
  snprintf(cmd, sizeof cmd, "pgrep -fc '^[^ ]*[h]ostile_sut [a-z]* %s'", out_dir);
  FILE *f = popen(cmd, "r");
  if (!f)
    return -1;
  if (!fgets(line, sizeof line, f))
    line[0] = '\0';
  pclose(f);
  return (int)strtol(line, NULL, 10);
}

/* wait_count polls count_leftovers() for up to seconds until it is at least (at_least) or at
 * most (!at_least) n; returns the last count. */
static int wait_count(int n, int at_least, double seconds) {
  int c = count_leftovers();
  for (int i = 0; i < seconds * 20 && (at_least ? c < n : c > n); i++) {
    usleep(50 * 1000);
    c = count_leftovers();
  }
  return c;
}

/* start_background runs `ock ARGS` in the background against `hostile_sut MODE`, with its pid in
 * NAME.pid and, once it ends, its exit code in NAME.code; then waits until `alive` hostile
 * processes (SUTs and their children) are alive. */
static void start_background(const char *name, const char *args, const char *mode, int alive) {
  char cmd[1400];
  snprintf(cmd, sizeof cmd,
           "(%s/bin/ock %s --orchestrator '%s/tests/hostile_sut %s %s' "
           "--timeout 60 -o %s/%s >%s/%s.out 2>&1 & p=$!; echo $p >%s/%s.pid; wait $p; "
           "echo $? >%s/%s.code) >/dev/null 2>&1 &",
           OCK_BIN_DIR, args, OCK_BIN_DIR, mode, out_dir, out_dir, name, out_dir, name, out_dir,
           name, out_dir, name);
  OCK_ASSERT_INT_EQ(ock_test_sh(cmd), 0);
  OCK_ASSERT_INT_EQ(wait_count(alive, 1, 20), alive);
}

/* signal_background sends sig to the ock started as NAME. */
static void signal_background(const char *name, const char *sig) {
  char cmd[256];
  snprintf(cmd, sizeof cmd, "kill -%s $(cat %s/%s.pid)", sig, out_dir, name);
  OCK_ASSERT_INT_EQ(ock_test_sh(cmd), 0);
}

/* An out-of-memory kill of the harness is a SIGKILL it cannot see: its sentinel still kills the
 * SUTs, and the children that left their groups. */
static void killed_harness_leaves_nothing(void) {
  char args[512];
  snprintf(args, sizeof args,
           "run --fixtures %s --case text-answer --case tool-single-call --jobs 2",
           ock_test_path("fixtures"));
  start_background("killed", args, "forkhang", 8);
  signal_background("killed", "KILL");
  OCK_ASSERT_INT_EQ(wait_count(0, 0, 5), 0);
  /* The same after a SUT was reaped: the harness's reaping of orphans spares its sentinel. */
  snprintf(args, sizeof args,
           "run --fixtures %s --case text-answer --case tool-single-call --jobs 1",
           ock_test_path("fixtures"));
  start_background("killed-late", args, "latehang", 4);
  signal_background("killed-late", "KILL");
  OCK_ASSERT_INT_EQ(wait_count(0, 0, 5), 0);
}

/* ock fuzz stops on SIGINT, SIGTERM and SIGHUP like ock run: the running SUTs killed, exit 3. */
static void interrupted_fuzz_leaves_nothing(void) {
  static const char *const sigs[] = {"INT", "TERM", "HUP"};
  for (int i = 0; i < 3; i++) {
    char name[32], path[256];
    snprintf(name, sizeof name, "fuzz-%s", sigs[i]);
    start_background(name, "fuzz --count 6 --jobs 2", "forkhang", 8);
    signal_background(name, sigs[i]);
    OCK_ASSERT_INT_EQ(wait_count(0, 0, 5), 0);
    snprintf(path, sizeof path, "%s/%s.code", out_dir, name);
    char *code = NULL;
    for (int t = 0; t < 100 && !(code = ock_test_read_file(path)); t++)
      usleep(50 * 1000);
    OCK_ASSERT_STR_EQ(code, "3\n");
    free(code);
  }
}

/* run_mode runs ock against `hostile_sut MODE` and checks the outcome. expect_signal: the
 * signal the scenario's process must report, or NULL. */
static void run_mode(const char *mode, double timeout, const char *expect_signal,
                     int expect_timeout) {
  char dir[128], cmd[1024], path[256];
  snprintf(dir, sizeof dir, "%s/%s", out_dir, mode);
  snprintf(cmd, sizeof cmd,
           "%s/bin/ock run --orchestrator '%s/tests/hostile_sut %s %s' --fixtures %s "
           "--case text-answer --case tool-single-call --jobs 2 --timeout %g -o %s "
           "--format jsonl >%s.out 2>&1",
           OCK_BIN_DIR, OCK_BIN_DIR, mode, out_dir, ock_test_path("fixtures"), timeout, dir, dir);
  int code = ock_test_sh(cmd);
  if (code != 1) {
    /* ock's own console (a sanitizer's report among it) is the evidence: show its end */
    snprintf(path, sizeof path, "%s.out", dir);
    char *out = ock_test_read_file(path);
    size_t len = out ? strlen(out) : 0;
    ock_test_fail(__LINE__, __FILE__,
                  "mode %s: ock exited %d, expected 1 (graded FAIL); its "
                  "output ends: %s",
                  mode, code, out ? out + (len > 1500 ? len - 1500 : 0) : "");
    free(out);
  }
  static const char *const files[] = {"report.json", "junit.xml", "summary.md", "report.html"};
  for (int i = 0; i < 4; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, files[i]);
    if (access(path, R_OK))
      ock_test_fail(__LINE__, __FILE__, "mode %s: %s was not written", mode, files[i]);
  }
  snprintf(path, sizeof path, "%s/report.json", dir);
  cJSON *report = NULL;
  struct ock_jerr err;
  if (ock_json_parse_file(path, 64 << 20, &report, &err)) {
    ock_test_fail(__LINE__, __FILE__, "mode %s: report.json unreadable: %s", mode, err.what);
    return;
  }
  OCK_ASSERT_STR_EQ(ock_json_str(report, "verdict"), "FAIL");
  const cJSON *sc;
  int n = 0;
  cJSON_ArrayForEach(sc, cJSON_GetObjectItemCaseSensitive(report, "scenarios")) {
    n++;
    OCK_ASSERT_STR_EQ(ock_json_str(sc, "verdict"), "FAIL");
    const cJSON *proc = cJSON_GetObjectItemCaseSensitive(sc, "process");
    if (expect_signal)
      OCK_ASSERT_STR_EQ(ock_json_str(proc, "signal"), expect_signal);
    OCK_ASSERT_INT_EQ(ock_json_bool(proc, "timed_out", 0), expect_timeout);
    OCK_ASSERT_INT_LE(strlen(ock_json_str(proc, "stdout") ? ock_json_str(proc, "stdout") : ""),
                      64 * 1024);
  }
  OCK_ASSERT_INT_EQ(n, 2);
  cJSON_Delete(report);
  OCK_ASSERT_INT_EQ(leftovers(), 0);
}

/* Under AddressSanitizer the hostile program is instrumented too, and ASan turns its SIGSEGV
 * into a report and an abort. */
#if defined(__SANITIZE_ADDRESS__)
#define SEGV_SIGNAL "SIGABRT"
#else
#define SEGV_SIGNAL "SIGSEGV"
#endif

static void crashes(void) {
  run_mode("segv", 10, SEGV_SIGNAL, 0);
  run_mode("abort", 10, "SIGABRT", 0);
}

static void exits_at_once(void) {
  run_mode("exit", 10, NULL, 0);
}

static void hangs_and_ignores_signals(void) {
  run_mode("hang", 1.5, NULL, 1);
  run_mode("deaf", 1.5, NULL, 1);
}

static void escaping_children_are_killed(void) {
  run_mode("fork", 10, NULL, 0);
}

static void gigabytes_of_output(void) {
  char path[256];
  run_mode("flood", 30, NULL, 0);
  snprintf(path, sizeof path, "%s/flood/report.json", out_dir);
  cJSON *report = NULL;
  struct ock_jerr err;
  if (ock_json_parse_file(path, 64 << 20, &report, &err)) {
    ock_test_fail(__LINE__, __FILE__, "%s: %s", err.where, err.what);
    return;
  }
  const cJSON *proc = cJSON_GetObjectItemCaseSensitive(
      cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(report, "scenarios"), 0), "process");
  OCK_ASSERT_INT_GE(ock_json_num(proc, "stdout_bytes", 0), 1024LL * 1024 * 1024);
  OCK_ASSERT_INT_GE(ock_json_num(proc, "stderr_bytes", 0), 1024LL * 1024 * 1024);
  cJSON_Delete(report);
}

static void floods_the_mock(void) {
  run_mode("events", 3, NULL, 1);
  run_mode("bigbody", 10, NULL, 0);
  run_mode("badbodies", 10, NULL, 0);
  run_mode("nesting", 10, NULL, 0);
  run_mode("bigids", 10, NULL, 0);
  run_mode("slowloris", 2, NULL, 1);
}

/* peak_rss_kib runs cmd through /bin/sh in a child of its own and returns the largest resident
 * set of that child's descendants (ock and what it runs), in KiB; -1 when it cannot tell.
 * *code gets cmd's exit code. */
static long peak_rss_kib(const char *cmd, int *code) {
  char path[128];
  snprintf(path, sizeof path, "%s/peak-rss", out_dir);
  pid_t pid = fork();
  if (pid == 0) {
    int rc = ock_test_sh(cmd);
    struct rusage ru;
    FILE *f = fopen(path, "w");
    if (f && !getrusage(RUSAGE_CHILDREN, &ru))
      fprintf(f, "%ld %d\n", ru.ru_maxrss, rc);
    if (f)
      fclose(f);
    _exit(0);
  }
  int status;
  if (pid < 0 || waitpid(pid, &status, 0) != pid)
    return -1;
  char *text = ock_test_read_file(path);
  long kib = -1;
  if (text) {
    char *end;
    kib = strtol(text, &end, 10);
    *code = (int)strtol(end, NULL, 10);
  }
  free(text);
  return text ? kib : -1;
}

/* The headroom over the journal's byte cap that a flooded scenario may take: the process itself
 * and the requests in flight while the flood arrives (a body, its tree and its line, each under
 * OCK_MAX_MOCK_BODY). The old reader held the journal's lines and their tree at once: twice the
 * cap. */
#define FLOOD_HEADROOM_KIB (48L * 1024)

/* A flood of 4 MiB events past the journal's byte cap: the journal is cut (an ERROR, never a
 * pass), and the peak memory of ock stays within the cap and a small constant, since the
 * reader frees the journal's lines as it makes their trees and counts the trees against the
 * cap. One scenario, one job: the cap is per journal. */
static void flood_stays_within_journal_cap(void) {
  char cmd[1024], path[256];
  snprintf(cmd, sizeof cmd,
           "%s/bin/ock run --orchestrator '%s/tests/hostile_sut bigevents %s' --fixtures %s "
           "--case text-answer --jobs 1 --timeout 20 -o %s/bigevents >%s/bigevents.out 2>&1",
           OCK_BIN_DIR, OCK_BIN_DIR, out_dir, ock_test_path("fixtures"), out_dir, out_dir);
  int code = -1;
  long kib = peak_rss_kib(cmd, &code);
  OCK_ASSERT_INT_GT(kib, 0);
  OCK_ASSERT_INT_EQ(code, 3);      /* the only scenario is an ERROR: the run is incomplete */
#if !defined(__SANITIZE_ADDRESS__) /* ASan's shadow and quarantine are memory of their own */
  OCK_ASSERT_INT_LE(kib, (long)(OCK_MAX_MOCK_JOURNAL_BYTES >> 10) + FLOOD_HEADROOM_KIB);
#endif
  snprintf(path, sizeof path, "%s/bigevents/report.json", out_dir);
  cJSON *report = NULL;
  struct ock_jerr err;
  if (ock_json_parse_file(path, 64 << 20, &report, &err)) {
    ock_test_fail(__LINE__, __FILE__, "%s: %s", err.where, err.what);
    return;
  }
  const cJSON *sc = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(report, "scenarios"), 0);
  OCK_ASSERT_STR_EQ(ock_json_str(sc, "verdict"), "ERROR");
  const cJSON *c;
  int cut = 0;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(sc, "checks"))
    cut |= !strcmp(ock_json_str(c, "id") ? ock_json_str(c, "id") : "", "harness.journal-cap");
  OCK_ASSERT_INT_EQ(cut, 1);
  cJSON_Delete(report);
  OCK_ASSERT_INT_EQ(leftovers(), 0);
}

static const struct ock_test tests[] = {
    {"crashes", crashes},
    {"exits_at_once", exits_at_once},
    {"hangs_and_ignores_signals", hangs_and_ignores_signals},
    {"escaping_children_are_killed", escaping_children_are_killed},
    {"gigabytes_of_output", gigabytes_of_output},
    {"floods_the_mock", floods_the_mock},
    {"flood_stays_within_journal_cap", flood_stays_within_journal_cap},
    {"killed_harness_leaves_nothing", killed_harness_leaves_nothing},
    {"interrupted_fuzz_leaves_nothing", interrupted_fuzz_leaves_nothing},
    {NULL, NULL}};
const struct ock_suite suite_hostile = {"hostile", tests, setup, teardown};
