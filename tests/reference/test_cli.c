/*
 * test_cli.c: ock-orchestrator's command line and broken environments, without a mock: the
 * capability line, --help, bad options, no OCK_URL, an unreachable session.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "runner.h"
#include "sut.h"

static void run(const char *const *argv, const char *const *env, struct sut_run *r) {
  pid_t pid = ref_cli_start(argv, env, 0);
  OCK_ASSERT_INT_GT(pid, 0);
  ref_cli_wait(pid, 20000, r);
  OCK_ASSERT_INT_EQ(r->timed_out, 0);
  OCK_ASSERT_INT_EQ(r->signal, 0);
}

static void test_capabilities(void) {
  const char *argv[] = {"--capabilities", NULL};
  struct sut_run r;
  run(argv, NULL, &r);
  OCK_ASSERT_INT_EQ(r.exit_code, 0);
  OCK_ASSERT_STR_EQ(r.out,
                    "core,streaming,parallel,scheduling,lifecycle,resilience,cancellation\n");
}

static void test_help_documents_everything(void) {
  const char *argv[] = {"--help", NULL};
  struct sut_run r;
  run(argv, NULL, &r);
  OCK_ASSERT_INT_EQ(r.exit_code, 0);
  const char *want[] = {"--mode basic|streaming|events",
                        "--max-iterations N",
                        "--error-strategy S",
                        "--capabilities",
                        "OCK_URL",
                        "OCK_MODE",
                        "OCK_MAX_ITERATIONS",
                        "OCK_ERROR_STRATEGY",
                        "SIGINT",
                        "exit status"};
  for (size_t i = 0; i < sizeof want / sizeof *want; i++)
    OCK_ASSERT_CONTAINS(r.out, want[i]);
}

static void test_bad_options(void) {
  const char *cases[][3] = {
      {"--mode", "turbo", NULL},         {"--max-iterations", "0", NULL},
      {"--max-iterations", "ten", NULL}, {"--error-strategy=yolo", NULL, NULL},
      {"--frobnicate", NULL, NULL},      {"--mode", NULL, NULL}};
  const char *msgs[] = {"--mode: expected one of: basic, streaming, events; got \"turbo\"",
                        "--max-iterations: expected a whole number from 1 to 1000000, got \"0\"",
                        "--max-iterations: expected a whole number from 1 to 1000000",
                        "--error-strategy: expected one of: fail_fast, continue, retry, fallback",
                        "unknown option \"--frobnicate\"",
                        "--mode: needs a value"};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    struct sut_run r;
    run(cases[i], NULL, &r);
    OCK_ASSERT_INT_EQ(r.exit_code, 2);
    OCK_ASSERT_CONTAINS(r.err, msgs[i]);
  }
  const char *env[] = {"OCK_MODE=warp", NULL};
  struct sut_run r;
  run(NULL, env, &r);
  OCK_ASSERT_INT_EQ(r.exit_code, 2);
  OCK_ASSERT_CONTAINS(r.err, "OCK_MODE: expected one of: basic, streaming, events; got \"warp\"");
}

static void test_no_ock_url(void) {
  const char *env[] = {"OCK_URL=", NULL};
  struct sut_run r;
  run(NULL, env, &r);
  OCK_ASSERT_INT_EQ(r.exit_code, 3);
  OCK_ASSERT_CONTAINS(r.err, "OCK_URL is not set");
}

/* closed_port: a local TCP port nobody listens on (bound, then released). */
static int closed_port(void) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof a;
  int port = 0;
  if (s >= 0 && !bind(s, (struct sockaddr *)&a, sizeof a) &&
      !getsockname(s, (struct sockaddr *)&a, &len))
    port = ntohs(a.sin_port);
  if (s >= 0)
    close(s);
  return port;
}

static void test_unreachable_session(void) {
  char url[64], want[128];
  int port = closed_port();
  snprintf(url, sizeof url, "OCK_URL=http://127.0.0.1:%d", port);
  snprintf(want, sizeof want, "cannot fetch the session: http://127.0.0.1:%d/ock/v1/session", port);
  const char *env[] = {url, NULL};
  struct sut_run r;
  run(NULL, env, &r);
  OCK_ASSERT_INT_EQ(r.exit_code, 3);
  OCK_ASSERT_CONTAINS(r.err, want);
}

static const struct ock_test tests[] = {
    {"capabilities", test_capabilities},
    {"help_documents_everything", test_help_documents_everything},
    {"bad_options", test_bad_options},
    {"no_ock_url", test_no_ock_url},
    {"unreachable_session", test_unreachable_session},
    {NULL, NULL}};

const struct ock_suite cli_suite = {"cli", tests, NULL, NULL};
