/* test_sut.c: the SUT runner keeps output up to its cap, reports exits and signals, kills the
 * whole process group at the timeout, and leaves nothing behind. */
#include "runner.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "run/sut.h"

static struct sut_result run(const char *cmd, double timeout_s, size_t cap) {
  static const char *const env[] = {"OCK_TEST_VAR=from-harness", NULL};
  struct sut_spec spec = {.command = cmd, .env = env, .timeout_s = timeout_s, .output_cap = cap};
  struct sut_result r;
  memset(&r, 0, sizeof r);
  sut *s = NULL;
  if (ock__sut_start(&spec, &s)) {
    ock_test_fail(__LINE__, __FILE__, "sut_start failed for %s", cmd);
    return r;
  }
  ock__sut_wait(s, &r);
  ock__sut_free(s);
  return r;
}

/* gone_within: no process whose command line holds marker is left, waiting up to ms for the
 * killed ones to be reaped. Returns 1 when none is left. */
static int gone_within(const char *marker, int ms) {
  char check[128];
  snprintf(check, sizeof check, "pgrep -f \"[%c]%s\" >/dev/null", marker[0], marker + 1);
  for (int waited = 0; system(check) == 0; waited += 20) {
    if (waited >= ms)
      return 0;
    usleep(20 * 1000);
  }
  return 1;
}

/* file_within: path exists, waiting up to ms for it to appear. */
static int file_within(const char *path, int ms) {
  for (int waited = 0; access(path, F_OK) != 0; waited += 10) {
    if (waited >= ms)
      return 0;
    usleep(10 * 1000);
  }
  return 1;
}

static void exit_code_and_output(void) {
  struct sut_result r = run("echo out; echo err >&2; echo $OCK_TEST_VAR; exit 3", 5, 1024);
  OCK_ASSERT_INT_EQ(r.exit_code, 3);
  OCK_ASSERT_INT_EQ(r.signal, 0);
  OCK_ASSERT_INT_EQ(r.timed_out, 0);
  OCK_ASSERT_STR_EQ(r.out, "out\nfrom-harness\n");
  OCK_ASSERT_STR_EQ(r.err, "err\n");
  ock__sut_result_clear(&r);
}

/* A NUL byte in the SUT's output does not hide what follows it. */
static void output_past_a_nul_is_kept(void) {
  struct sut_result r =
      run("printf 'dump\\000\\001then the cause\\n' >&2; printf 'a\\000b'", 5, 1024);
  OCK_ASSERT_STR_EQ(r.err, "dump?\001then the cause\n");
  OCK_ASSERT_STR_EQ(r.out, "a?b");
  OCK_ASSERT_INT_EQ(r.err_total, 21);
  ock__sut_result_clear(&r);
}

static void signal_is_reported(void) {
  struct sut_result r = run("kill -SEGV $$; sleep 1", 5, 1024);
  OCK_ASSERT_INT_EQ(r.signal, SIGSEGV);
  OCK_ASSERT_STR_EQ(ock__sut_signal_name(r.signal), "SIGSEGV");
  OCK_ASSERT_INT_EQ(r.exit_code, -1);
  ock__sut_result_clear(&r);
}

static void output_is_capped_and_counted(void) {
  struct sut_result r = run("head -c 1000000 /dev/zero | tr '\\0' x", 10, 1000);
  OCK_ASSERT_INT_EQ(strlen(r.out), 1000);
  OCK_ASSERT_INT_EQ(r.out_total, 1000000);
  OCK_ASSERT_INT_EQ(r.exit_code, 0);
  ock__sut_result_clear(&r);
}

static void timeout_kills_the_group(void) {
  /* The child forks a grandchild that would outlive it; both must be gone. */
  char marker[64];
  snprintf(marker, sizeof marker, "ock-test-%d", (int)getpid());
  char cmd[256];
  snprintf(cmd, sizeof cmd, "trap '' INT TERM; sh -c 'exec -a %s sleep 300' & sleep 300", marker);
  struct sut_result r = run(cmd, 0.5, 1024);
  OCK_ASSERT_TRUE(r.timed_out);
  OCK_ASSERT_INT_GE(r.wall_ms, 450);
  OCK_ASSERT_INT_LT(r.wall_ms, 3000);
  OCK_ASSERT_TRUE(gone_within(marker, 5000));
  ock__sut_result_clear(&r);
}

static void children_die_with_the_sut(void) {
  char marker[64];
  snprintf(marker, sizeof marker, "ock-orphan-%d", (int)getpid());
  char cmd[256];
  snprintf(cmd, sizeof cmd, "sh -c 'exec -a %s sleep 300' >/dev/null 2>&1 & exit 0", marker);
  struct sut_result r = run(cmd, 5, 1024);
  OCK_ASSERT_INT_EQ(r.exit_code, 0);
  OCK_ASSERT_TRUE(gone_within(marker, 5000));
  ock__sut_result_clear(&r);
}

static void interrupt_reaches_the_sut(void) {
  static const char *const env[] = {NULL};
  char dir[64], cmd[256], ready[128];
  if (ock_test_tmpdir(dir, "sut-int")) {
    ock_test_fail(__LINE__, __FILE__, "cannot create a temporary directory");
    return;
  }
  /* The SUT says when its trap is set: a SIGINT before that would kill the shell instead. */
  snprintf(ready, sizeof ready, "%s/ready", dir);
  snprintf(cmd, sizeof cmd, "trap 'exit 7' INT; : > %s; sleep 5 & wait", ready);
  struct sut_spec spec = {.command = cmd, .env = env, .timeout_s = 5, .output_cap = 64};
  sut *s = NULL;
  OCK_ASSERT_OK(ock__sut_start(&spec, &s));
  OCK_ASSERT_TRUE(file_within(ready, 5000));
  ock__sut_interrupt(s);
  struct sut_result r;
  ock__sut_wait(s, &r);
  OCK_ASSERT_INT_EQ(r.exit_code, 7);
  OCK_ASSERT_TRUE(r.interrupted);
  ock__sut_result_clear(&r);
  ock__sut_free(s);
  ock_test_rmdir(dir);
}

static const struct ock_test tests[] = {
    {"exit_code_and_output", exit_code_and_output},
    {"output_past_a_nul_is_kept", output_past_a_nul_is_kept},
    {"signal_is_reported", signal_is_reported},
    {"output_is_capped_and_counted", output_is_capped_and_counted},
    {"timeout_kills_the_group", timeout_kills_the_group},
    {"children_die_with_the_sut", children_die_with_the_sut},
    {"interrupt_reaches_the_sut", interrupt_reaches_the_sut},
    {NULL, NULL}};
const struct ock_suite suite_sut = {"sut", tests, NULL, NULL};
