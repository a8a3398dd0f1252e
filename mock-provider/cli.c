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
#include "ock/status.h"

static void usage(FILE *f) {
  fputs("usage: ock-mock-provider --fixture FILE [--port N] [--journal FILE] [--observe-only]\n"
        "                         [--seed N] [--bind ADDR] [--request-timeout-ms N]\n"
        "  --fixture FILE   the scenario fixture (JSON) to serve\n"
        "  --port N         the port to listen on (default 0: a free port)\n"
        "  --journal FILE   write the journal as JSONL to FILE on exit\n"
        "  --observe-only   journal broken histories but answer them normally\n"
        "  --seed N         seed for random faults (default: the fixture's)\n"
        "  --bind ADDR      listen on ADDR instead of 127.0.0.1 (prints a warning)\n"
        "  --request-timeout-ms N\n"
        "                   the time a request's headers and body may take to arrive, from the\n"
        "                   connection's start or the previous reply (default 30000); past it\n"
        "                   the connection is closed. At most 512 connections are served at\n"
        "                   once: past that a request gets 503.\n"
        "Prints the URL, then serves until SIGINT or SIGTERM.\n",
        f);
}

static int parse_ull(const char *s, unsigned long long max, unsigned long long *out) {
  char *end = NULL;
  errno = 0;
  if (!s || !*s || *s == '-')
    return -1;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || *end || v > max)
    return -1;
  *out = v;
  return 0;
}

int main(int argc, char **argv) {
  const char *fixture_path = NULL, *journal_path = NULL, *bind = NULL;
  struct ock_mock_options opt = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    unsigned long long n = 0;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(a, "--observe-only")) {
      opt.observe_only = 1;
    } else if (!strcmp(a, "--fixture") && v) {
      fixture_path = v;
      i++;
    } else if (!strcmp(a, "--journal") && v) {
      journal_path = v;
      i++;
    } else if (!strcmp(a, "--bind") && v) {
      bind = v;
      i++;
    } else if (!strcmp(a, "--port") && v) {
      if (parse_ull(v, 65535, &n)) {
        fprintf(stderr, "ock-mock-provider: --port: expected 0 to 65535, got \"%s\"\n", v);
        return 2;
      }
      opt.port = (int)n;
      i++;
    } else if (!strcmp(a, "--request-timeout-ms") && v) {
      if (parse_ull(v, 86400000, &n) || n == 0) {
        fprintf(stderr,
                "ock-mock-provider: --request-timeout-ms: expected 1 to 86400000, got \"%s\"\n", v);
        return 2;
      }
      opt.request_timeout_ms = (unsigned)n;
      i++;
    } else if (!strcmp(a, "--seed") && v) {
      if (parse_ull(v, ~0ULL, &n)) {
        fprintf(stderr, "ock-mock-provider: --seed: expected a non-negative integer, got \"%s\"\n",
                v);
        return 2;
      }
      opt.seed = n;
      i++;
    } else {
      fprintf(stderr, "ock-mock-provider: %s: %s\n", a,
              v || a[0] != '-' ? "unknown argument" : "needs a value");
      usage(stderr);
      return 2;
    }
  }
  if (!fixture_path) {
    fputs("ock-mock-provider: --fixture is required\n", stderr);
    usage(stderr);
    return 2;
  }
  opt.bind_address = bind;

  struct ock_jerr err;
  char msg[1200];
  cJSON *fixture = NULL;
  if (ock_json_parse_file(fixture_path, OCK_CAP_MOCK_FIXTURE, &fixture, &err)) {
    ock_jerr_format(&err, msg, sizeof msg);
    fprintf(stderr, "ock-mock-provider: %s\n", msg);
    return 2;
  }
  /* A key given twice: cJSON keeps both and every lookup sees the first (SPEC.md 8). */
  if (ock_json_check_unique_keys(fixture, "$", &err)) {
    ock_jerr_format(&err, msg, sizeof msg);
    fprintf(stderr, "ock-mock-provider: %s: %s\n", fixture_path, msg);
    cJSON_Delete(fixture);
    return 2;
  }
  FILE *journal = NULL;
  if (journal_path && !(journal = fopen(journal_path, "w"))) {
    fprintf(stderr, "ock-mock-provider: --journal %s: %s\n", journal_path, strerror(errno));
    cJSON_Delete(fixture);
    return 2;
  }
  ock_mock *m = NULL;
  int rc = ock_mock_new(fixture, &opt, &m, &err);
  cJSON_Delete(fixture);
  if (rc) {
    ock_jerr_format(&err, msg, sizeof msg);
    fprintf(stderr, "ock-mock-provider: %s: %s\n", fixture_path, msg);
    if (journal)
      fclose(journal);
    return 2;
  }

  /* Block the signals before any server thread exists, so they all inherit the mask and
   * sigwait below is the one place that receives them. */
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, NULL);

  if (ock_mock_start(m, &err)) {
    ock_jerr_format(&err, msg, sizeof msg);
    fprintf(stderr, "ock-mock-provider: %s\n", msg);
    ock_mock_free(m);
    if (journal)
      fclose(journal);
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
  rc = 0;
  if (journal) {
    if (ock_mock_write_journal(m, journal) || fclose(journal)) {
      fprintf(stderr, "ock-mock-provider: --journal %s: write failed\n", journal_path);
      rc = 1;
    }
  }
  ock_mock_free(m);
  return rc;
}
