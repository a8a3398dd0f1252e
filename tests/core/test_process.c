/* test_process.c: the process runner reports how a child ended (exit code, signal, timeout),
 * kills its whole group at the timeout, keeps output up to the cap and counts the rest, and
 * gives the child its environment additions and its input. */
#include "runner.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ock/process.h"
#include "ock/status.h"

/* run starts spec, waits at most timeout_s, and fills *r (caller clears it). */
static void run(const struct ock_process_spec *spec, double timeout_s,
                struct ock_process_result *r) {
  ock_process *p = NULL;
  memset(r, 0, sizeof *r);
  OCK_ASSERT_OK(ock_process_start(spec, &p));
  if (!p)
    return;
  OCK_ASSERT_OK(ock_process_wait(p, timeout_s, r));
  ock_process_free(p);
}

static void exit_code_of_argv_and_of_a_command(void) {
  const char *argv[] = {"sh", "-c", "echo out; echo err >&2; exit 3", NULL};
  struct ock_process_spec spec = {.argv = argv, .output_cap = 100};
  struct ock_process_result r;
  run(&spec, 10, &r);
  OCK_ASSERT_INT_EQ(r.exit_code, 3);
  OCK_ASSERT_INT_EQ(r.signal, 0);
  OCK_ASSERT_INT_EQ(r.timed_out, 0);
  OCK_ASSERT_STR_EQ(r.out, "out\n");
  OCK_ASSERT_STR_EQ(r.err, "err\n");
  ock_process_result_clear(&r);
  struct ock_process_spec cmd = {.command = "sh -c 'exit 4'", .output_cap = 100};
  run(&cmd, 10, &r);
  OCK_ASSERT_INT_EQ(r.exit_code, 4);
  ock_process_result_clear(&r);
}

/* A command led by assignments runs its program with them in its environment (the shell's
 * `exec` goes after them, not before). */
static void leading_assignments_reach_the_program(void) {
  struct ock_process_spec spec = {.command = "OCK_T1=one OCK_T2='two words' env",
                                  .output_cap = 1 << 16};
  struct ock_process_result r;
  run(&spec, 10, &r);
  OCK_ASSERT_INT_EQ(r.exit_code, 0);
  OCK_ASSERT_CONTAINS(r.out, "\nOCK_T1=one\n");
  OCK_ASSERT_CONTAINS(r.out, "\nOCK_T2=two words\n");
  ock_process_result_clear(&r);
}

static void signal_that_ended_it(void) {
  struct ock_process_spec spec = {.command = "kill -SEGV $$", .output_cap = 100};
  struct ock_process_result r;
  run(&spec, 10, &r);
  OCK_ASSERT_INT_EQ(r.exit_code, -1);
  OCK_ASSERT_INT_EQ(r.signal, SIGSEGV);
  ock_process_result_clear(&r);
}

static void missing_program_exits_127(void) {
  const char *argv[] = {"/nonexistent/ock-no-such-program", NULL};
  struct ock_process_spec spec = {.argv = argv, .output_cap = 1000};
  struct ock_process_result r;
  run(&spec, 10, &r);
  OCK_ASSERT_INT_EQ(r.exit_code, 127);
  OCK_ASSERT_CONTAINS(r.err, "ock-no-such-program");
  ock_process_result_clear(&r);
}

/* gone: pid no longer runs (it is absent, or a zombie waiting for its new parent). */
static int gone(long pid) {
  char path[64], stat[256] = "";
  snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  FILE *f = fopen(path, "r");
  if (!f)
    return 1;
  size_t n = fread(stat, 1, sizeof stat - 1, f);
  fclose(f);
  stat[n] = '\0';
  const char *paren = strrchr(stat, ')');
  return paren && (paren[2] == 'Z' || paren[2] == 'X');
}

static void timeout_kills_the_group_with_a_grandchild(void) {
  struct ock_process_spec spec = {.command = "sleep 60 & echo $!; wait", .output_cap = 100};
  struct ock_process_result r;
  run(&spec, 0.5, &r);
  OCK_ASSERT_TRUE(r.timed_out);
  OCK_ASSERT_INT_EQ(r.exit_code, -1);
  OCK_ASSERT_INT_EQ(r.signal, 0);
  OCK_ASSERT_DOUBLE_LT(r.wall_ms, 5000.0);
  char *end = NULL;
  long grandchild = r.out ? strtol(r.out, &end, 10) : 0;
  OCK_ASSERT_INT_GT(grandchild, 0);
  int dead = 0;
  for (int i = 0; i < 200 && grandchild > 0 && !(dead = gone(grandchild)); i++)
    nanosleep(&(struct timespec){0, 10 * 1000000L}, NULL);
  OCK_ASSERT_TRUE(dead);
  ock_process_result_clear(&r);
}

static void cap_keeps_the_head_and_counts_the_rest(void) {
  struct ock_process_spec spec = {.command = "head -c 100000 /dev/zero | tr '\\0' a",
                                  .output_cap = 1000};
  struct ock_process_result r;
  run(&spec, 10, &r);
  OCK_ASSERT_INT_EQ(r.exit_code, 0);
  OCK_ASSERT_NOT_NULL_FATAL(r.out);
  OCK_ASSERT_INT_EQ(strlen(r.out), 1000);
  OCK_ASSERT_INT_EQ(r.out_total, 100000);
  OCK_ASSERT_INT_EQ(r.out[999], 'a');
  ock_process_result_clear(&r);
}

static void env_additions_replace_and_remove(void) {
  setenv("OCK_TEST_GONE", "inherited", 1);
  setenv("OCK_TEST_SET", "inherited", 1);
  const char *env[] = {"OCK_TEST_SET=added", "OCK_TEST_GONE", "OCK_TEST_NEW=new", NULL};
  struct ock_process_spec spec = {.command =
                                      "echo \"$OCK_TEST_SET ${OCK_TEST_GONE-unset} $OCK_TEST_NEW\"",
                                  .env = env,
                                  .output_cap = 100};
  struct ock_process_result r;
  run(&spec, 10, &r);
  OCK_ASSERT_STR_EQ(r.out, "added unset new\n");
  ock_process_result_clear(&r);
  unsetenv("OCK_TEST_GONE");
  unsetenv("OCK_TEST_SET");
}

static void stdin_carries_the_input_then_ends(void) {
  const char *argv[] = {"cat", NULL};
  struct ock_process_spec spec = {.argv = argv, .input = "hello\nworld\n", .output_cap = 100};
  struct ock_process_result r;
  run(&spec, 10, &r);
  OCK_ASSERT_INT_EQ(r.exit_code, 0);
  OCK_ASSERT_STR_EQ(r.out, "hello\nworld\n");
  ock_process_result_clear(&r);
  const char *wc[] = {"wc", "-c", NULL}; /* no input: /dev/null, at its end at once */
  struct ock_process_spec none = {.argv = wc, .output_cap = 100};
  run(&none, 10, &r);
  OCK_ASSERT_CONTAINS(r.out, "0");
  ock_process_result_clear(&r);
}

/* poll and the kept stdout let a caller wait for a line, then signal the child. */
static void poll_sees_output_and_kill_signals(void) {
  struct ock_process_spec spec = {.command = "echo ready; exec sleep 60", .output_cap = 100};
  ock_process *p = NULL;
  OCK_ASSERT_OK(ock_process_start(&spec, &p));
  if (!p)
    return;
  for (int i = 0; i < 500 && !strchr(ock_process_stdout(p), '\n'); i++)
    ock_process_poll(p, 20);
  OCK_ASSERT_STR_EQ(ock_process_stdout(p), "ready\n");
  OCK_ASSERT_TRUE(ock_process_kill(p, SIGTERM));
  struct ock_process_result r;
  OCK_ASSERT_OK(ock_process_wait(p, 10, &r));
  OCK_ASSERT_INT_EQ(r.signal, SIGTERM);
  OCK_ASSERT_INT_EQ(ock_process_kill(p, SIGTERM), 0); /* gone: nothing is signalled */
  ock_process_result_clear(&r);
  ock_process_free(p);
}

/* A foreground child (ock-mutant's CMD) shares the caller's streams and group: nothing kept. */
static void inherit_stdio_keeps_nothing(void) {
  const char *argv[] = {"sh", "-c", "exit 5", NULL};
  struct ock_process_spec spec = {.argv = argv, .same_group = 1, .inherit_stdio = 1};
  struct ock_process_result r;
  run(&spec, 10, &r);
  OCK_ASSERT_INT_EQ(r.exit_code, 5);
  OCK_ASSERT_STR_EQ(r.out, "");
  OCK_ASSERT_INT_EQ(r.out_total, 0);
  ock_process_result_clear(&r);
}

static const struct ock_test tests[] = {
    {"exit_code_of_argv_and_of_a_command", exit_code_of_argv_and_of_a_command},
    {"leading_assignments_reach_the_program", leading_assignments_reach_the_program},
    {"signal_that_ended_it", signal_that_ended_it},
    {"missing_program_exits_127", missing_program_exits_127},
    {"timeout_kills_the_group_with_a_grandchild", timeout_kills_the_group_with_a_grandchild},
    {"cap_keeps_the_head_and_counts_the_rest", cap_keeps_the_head_and_counts_the_rest},
    {"env_additions_replace_and_remove", env_additions_replace_and_remove},
    {"stdin_carries_the_input_then_ends", stdin_carries_the_input_then_ends},
    {"poll_sees_output_and_kill_signals", poll_sees_output_and_kill_signals},
    {"inherit_stdio_keeps_nothing", inherit_stdio_keeps_nothing},
    {NULL, NULL}};
const struct ock_suite suite_process = {"process", tests, NULL, NULL};
