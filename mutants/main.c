/*
 * main.c: ock-mutant, the reference orchestrator seen through one deliberate lie.
 *
 *   ock-mutant NAME -- CMD [ARG...]
 *
 * starts the proxy (proxy.h) in front of the mock at $OCK_URL, runs CMD as its child with
 * OCK_URL, OPENAI_BASE_URL and ANTHROPIC_BASE_URL pointing at the proxy, and ends the way the
 * child ended (after the mutation's exit hook). The child stays in the mutant's process group,
 * so the harness's SIGINT to the group reaches it directly; the mutant itself ignores SIGINT
 * unless its mutation says otherwise (a mutation that defers the SIGINT runs the child in its own
 * group and hands the signal on when a hook says), and passes SIGTERM on. It leaves no thread or
 * process behind.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <curl/curl.h>

#include "mutant.h"
#include "ock/process.h"
#include "ock/status.h"
#include "proxy.h"

static const char usage[] =
    "usage: ock-mutant NAME -- CMD [ARG...]\n"
    "       ock-mutant --list\n"
    "\n"
    "Runs the orchestrator CMD behind a proxy that tells exactly one lie, the mutation NAME, so\n"
    "that the conformance check of one requirement must fail (the mutant gate, make test).\n"
    "The proxy serves on 127.0.0.1 and forwards everything to the mock at $OCK_URL; CMD gets\n"
    "OCK_URL, OPENAI_BASE_URL and ANTHROPIC_BASE_URL pointing at the proxy. The mutant exits\n"
    "as CMD did, unless its lie is about the exit.\n"
    "\n"
    "  --list    print the mutations: name, the requirement it breaks, its scenarios, the lie\n"
    "            (NAME \"none\" tells no lie: the proxy alone, which must change nothing)\n"
    "  --help    print this\n"
    "\n"
    "example, inside `ock run`:\n"
    "  ock run --orchestrator \"build/bin/ock-mutant complete-twice -- "
    "build/bin/ock-orchestrator\" \\\n"
    "          --capabilities core --case text-answer\n";

static volatile sig_atomic_t got_sigint, got_sigterm;

static void on_signal(int sig) {
  if (sig == SIGINT)
    got_sigint = 1;
  else
    got_sigterm = 1;
}

static void list_mutations(void) {
  printf("%-36s %-18s %-40s %s\n", "NAME", "BREAKS", "SCENARIOS", "THE LIE");
  for (size_t i = 0; i < ock__mutant_count(); i++) {
    const struct mutation *m = ock__mutant_at(i);
    char buf[64];
    printf("%-36s %-18s %-40s %s\n", m->name, m->requirement, ock__mutant_cases(m, buf, sizeof buf),
           m->what);
  }
  printf("%zu mutations\n", ock__mutant_count());
}

/* wait_child waits for the child, handling signals and stop requests meanwhile. Returns how it
 * ended: an exit code, or -signal; *stopped is set when the proxy asked to stop it. */
static int wait_child(ock_process *c, proxy *p, const struct mutation *mu, int *stopped) {
  int died_on_sigint = 0;
  while (!ock_process_poll(c, 5)) {
    if (got_sigint) {
      got_sigint = 0;
      if (mu->dies_on_sigint) {
        ock_process_kill(c, SIGKILL);
        died_on_sigint = 1;
        break;
      }
      if (mu->defers_sigint)
        ock__proxy_note_sigint(p);
    }
    if (got_sigterm) {
      got_sigterm = 0;
      ock_process_kill(c, SIGTERM);
    }
    if (!*stopped && ock__proxy_stop_requested(p)) {
      *stopped = 1;
      ock_process_kill(c, SIGKILL);
      break;
    }
  }
  struct ock_process_result r;
  ock_process_wait(c, 0, &r);
  if (*stopped)
    ock__proxy_child_gone(p);
  int ended = died_on_sigint ? -SIGINT : r.signal ? -r.signal : r.exit_code;
  ock_process_result_clear(&r);
  return ended;
}

/* end_as ends the process with an exit code, or by the signal -ended. */
static int end_as(int ended) {
  if (ended >= 0)
    return ended;
  int sig = -ended;
  struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core); /* a mutant's crash is a lie, not a bug worth a core */
  signal(sig, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  sigprocmask(SIG_UNBLOCK, &set, NULL);
  raise(sig);
  return 128 + sig;
}

/* parse_args finds the mutation of `ock-mutant NAME -- CMD [ARG...]`, or handles --help and
 * --list. Returns -1 to go on with *mu set, else the exit code. */
static int parse_args(int argc, char **argv, const struct mutation **mu) {
  if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    fputs(usage, stdout);
    return 0;
  }
  if (argc >= 2 && !strcmp(argv[1], "--list")) {
    list_mutations();
    return 0;
  }
  if (argc < 4 || strcmp(argv[2], "--")) {
    fprintf(stderr, "ock-mutant: expected NAME -- CMD [ARG...]\n\n%s", usage);
    return 2;
  }
  *mu = ock__mutant_find(argv[1]);
  if (!*mu) {
    fprintf(stderr,
            "ock-mutant: unknown mutation \"%s\" (ock-mutant --list shows the %zu there "
            "are)\n",
            argv[1], ock__mutant_count());
    return 2;
  }
  return -1;
}

/* run_child runs CMD behind the proxy and returns how the mutant ends (see end_as). CMD stays
 * in the mutant's process group and shares its streams; its environment gets the three URLs
 * of the proxy. */
static int run_child(const struct mutation *mu, proxy *p, char **cmd) {
  char urls[3][300];
  const char *self = ock__proxy_url(p);
  snprintf(urls[0], sizeof urls[0], "OCK_URL=%s", self);
  snprintf(urls[1], sizeof urls[1], "OPENAI_BASE_URL=%s/v1", self);
  snprintf(urls[2], sizeof urls[2], "ANTHROPIC_BASE_URL=%s", self);
  const char *env[] = {urls[0], urls[1], urls[2], NULL};
  struct ock_process_spec spec = {.argv = (const char *const *)cmd,
                                  .env = env,
                                  .same_group = !mu->defers_sigint,
                                  .inherit_stdio = 1};
  ock_process *c = NULL;
  int rc = ock_process_start(&spec, &c);
  if (rc) {
    fprintf(stderr, "ock-mutant: cannot run \"%s\": %s\n", cmd[0], ock_strerror(rc));
    return 127;
  }
  ock__proxy_set_child(p, ock_process_pid(c));
  int stopped = 0;
  int ended = wait_child(c, p, mu, &stopped);
  ock_process_free(c);
  if (stopped)
    ended = 0; /* the lie: the SUT stopped early, and says all is well */
  if (ended != -SIGINT || !mu->dies_on_sigint)
    ended = ock__proxy_exit_status(p, ended);
  return ended;
}

int main(int argc, char **argv) {
  const struct mutation *mu = NULL;
  int code = parse_args(argc, argv, &mu);
  if (code >= 0)
    return code;
  const char *upstream = getenv("OCK_URL");
  if (!upstream || !*upstream) {
    fprintf(stderr, "ock-mutant: OCK_URL is not set: it must name the mock, e.g. "
                    "http://127.0.0.1:8080 (ock run sets it)\n");
    return 2;
  }
  if (curl_global_init(CURL_GLOBAL_DEFAULT)) {
    fprintf(stderr, "ock-mutant: libcurl could not be initialised\n");
    return 3;
  }
  struct sigaction sa = {0};
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);

  proxy *p = NULL;
  char err[512];
  if (ock__proxy_start(mu, upstream, &p, err, sizeof err)) {
    fprintf(stderr, "ock-mutant: %s\n", err);
    curl_global_cleanup();
    return 3;
  }
  int ended = run_child(mu, p, argv + 3);
  ock__proxy_free(p);
  curl_global_cleanup();
  return end_as(ended);
}
