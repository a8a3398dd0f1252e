/*
 * cli.c: `ock-mock-provider`, the mock as a command, for teams that point their own test
 * suite at it.
 *
 *   ock-mock-provider --fixture F [--port N] [--journal FILE] [--observe-only] [--seed N]
 *                     [--bind ADDR]
 *
 * Prints the URL on the first line of stdout, serves until SIGINT or SIGTERM, then writes
 * the journal (JSONL) to FILE if asked and exits 0. Exit 2 on a usage or fixture error,
 * 1 when it cannot serve. It binds 127.0.0.1 unless --bind says otherwise, and then warns:
 * the mock has no authentication.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ock/caps.h"
#include "ock/json.h"
#include "ock/mock.h"
#include "ock/options.h"
#include "ock/status.h"

static const char usage_head[] =
    "usage: ock-mock-provider --fixture FILE [--port N] [--journal FILE] [--observe-only]\n"
    "                         [--seed N] [--bind ADDR] [--request-timeout-ms N]\n";

static const char usage_tail[] =
    "Serves each provider of the fixture at /p/NAME/v1/chat/completions (api openai),\n"
    "/p/NAME/v1/responses (responses: the OpenAI Responses API) or /p/NAME/v1/messages\n"
    "(anthropic), and the first of each api at /v1/... Prints the URL, then serves until SIGINT\n"
    "or SIGTERM.\n";

/* The command line: where its options go. */
struct args {
  const char *fixture, *journal, *bind;
  int port, observe_only, request_timeout_ms, help;
  unsigned long long seed;
};

enum { MOCK_OPTIONS = 10 };

/* mock_options fills t with the options of ock-mock-provider, stored into a. */
static void mock_options(struct args *a, struct ock_option t[MOCK_OPTIONS]) {
  const struct ock_option rows[] = {
      {"fixture", 0, OCK_OPT_STRING, &a->fixture, .metavar = "FILE",
       .help = "the scenario fixture (JSON) to serve"},
      {"port", 0, OCK_OPT_INT, &a->port, 0, 65535, .metavar = "N",
       .help = "the port to listen on (default 0: a free port)"},
      {"journal", 0, OCK_OPT_STRING, &a->journal, .metavar = "FILE",
       .help = "write the journal as JSONL to FILE on exit"},
      {"observe-only", 0, OCK_OPT_FLAG, &a->observe_only,
       .help = "journal broken histories but answer them normally"},
      {"seed", 0, OCK_OPT_U64, &a->seed, .metavar = "N",
       .help = "seed for random faults (default: the fixture's)"},
      {"bind", 0, OCK_OPT_STRING, &a->bind, .metavar = "ADDR",
       .help = "listen on ADDR instead of 127.0.0.1 (prints a warning)"},
      {"request-timeout-ms", 0, OCK_OPT_INT, &a->request_timeout_ms, 1, 86400000, .metavar = "N",
       .help = "the time a request's headers and body may take to arrive, from the\n"
               "connection's start or the previous reply (default 30000); past it\n"
               "the connection is closed. At most 512 connections are served at\n"
               "once: past that a request gets 503."},
      {"help", 'h', OCK_OPT_FLAG, &a->help, .help = "print this and exit"},
      {0}};
  _Static_assert(sizeof rows / sizeof rows[0] <= MOCK_OPTIONS, "MOCK_OPTIONS too small");
  memcpy(t, rows, sizeof rows);
}

static void usage(FILE *f) {
  struct args a = {0};
  struct ock_option t[MOCK_OPTIONS];
  mock_options(&a, t);
  fputs(usage_head, f);
  ock_options_help(t, f);
  fputs(usage_tail, f);
}

/* parse_args returns 1 for --help, 0, or 2 (the exit code) after the message. */
static int parse_args(int argc, char **argv, struct args *a) {
  struct ock_option t[MOCK_OPTIONS];
  char err[1024];
  int npos = 0;
  mock_options(a, t);
  int rc = ock_options_parse(t, argc, argv, &npos, err, sizeof err);
  if (a->help)
    return 1;
  if (!rc && npos)
    snprintf(err, sizeof err, "unexpected argument \"%s\"", argv[1]), rc = -1;
  if (rc) {
    fprintf(stderr, "ock-mock-provider: %s (see ock-mock-provider --help)\n", err);
    return 2;
  }
  if (!a->fixture) {
    fputs("ock-mock-provider: --fixture is required\n", stderr);
    usage(stderr);
    return 2;
  }
  return 0;
}

/* load_mock reads the fixture, opens the journal file and makes the mock; returns 0, or 2
 * after the message. */
static int load_mock(const struct args *a, const struct ock_mock_options *opt, ock_mock **m,
                     FILE **journal) {
  struct ock_jerr err;
  char msg[1200];
  cJSON *fixture = NULL;
  if (ock_json_parse_file(a->fixture, OCK_MAX_MOCK_FIXTURE, &fixture, &err)) {
    ock_jerr_format(&err, msg, sizeof msg);
    fprintf(stderr, "ock-mock-provider: %s\n", msg);
    return 2;
  }
  /* A key given twice: cJSON keeps both and every lookup sees the first (SPEC.md 8). */
  int rc = ock_json_check_unique_keys(fixture, "$", &err);
  if (!rc)
    rc = ock_mock_new(fixture, opt, m, &err);
  cJSON_Delete(fixture);
  if (rc) {
    ock_jerr_format(&err, msg, sizeof msg);
    fprintf(stderr, "ock-mock-provider: %s: %s\n", a->fixture, msg);
    return 2;
  }
  if (a->journal && !(*journal = fopen(a->journal, "w"))) {
    fprintf(stderr, "ock-mock-provider: --journal %s: %s\n", a->journal, strerror(errno));
    ock_mock_free(*m);
    return 2;
  }
  return 0;
}

/* serve starts m, prints its URL and serves until SIGINT or SIGTERM; returns the exit code. */
static int serve(ock_mock *m, const char *bind) {
  /* Block the signals before any server thread exists, so they all inherit the mask and
   * sigwait below is the one place that receives them. */
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  struct ock_jerr err;
  char msg[1200];
  if (ock_mock_start(m, &err)) {
    ock_jerr_format(&err, msg, sizeof msg);
    fprintf(stderr, "ock-mock-provider: %s\n", msg);
    return 1;
  }
  if (bind && strcmp(bind, "127.0.0.1"))
    fprintf(stderr,
            "ock-mock-provider: warning: listening on %s, not 127.0.0.1: anyone who can reach "
            "this address can use the mock (it has no authentication)\n",
            bind);
  printf("%s\n", ock_mock_url(m));
  fflush(stdout);
  int sig = 0;
  while (sigwait(&set, &sig) != 0) {
  }
  ock_mock_stop(m);
  return 0;
}

int main(int argc, char **argv) {
  struct args a = {0};
  int rc = parse_args(argc, argv, &a);
  if (rc)
    return rc == 1 ? (usage(stdout), 0) : rc;
  struct ock_mock_options opt = {.port = a.port,
                                 .observe_only = a.observe_only,
                                 .seed = a.seed,
                                 .bind_address = a.bind,
                                 .request_timeout_ms = (unsigned)a.request_timeout_ms};
  ock_mock *m = NULL;
  FILE *journal = NULL;
  if ((rc = load_mock(&a, &opt, &m, &journal)))
    return rc;
  rc = serve(m, a.bind);
  if (!rc && journal && ock_mock_write_journal(m, journal)) {
    fprintf(stderr, "ock-mock-provider: --journal %s: write failed\n", a.journal);
    rc = 1;
  }
  if (journal && fclose(journal) && !rc) {
    fprintf(stderr, "ock-mock-provider: --journal %s: write failed\n", a.journal);
    rc = 1;
  }
  ock_mock_free(m);
  return rc;
}
