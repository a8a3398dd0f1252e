/*
 * cmd_fuzz.c: `ock fuzz`, random sessions against the SUT, graded by the rules that hold for
 * every session. On a failure it prints the seed, shrinks the session to the smallest one that
 * still breaks the same requirement, and writes it as a fixture that `ock run` replays.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/manifest.h"
#include "report/escape.h"
#include "run/fuzz_gen.h"
#include "ock/caps.h"
#include "ock/contract.h"
#include "ock/json.h"
#include "ock/options.h"
#include "ock/registry.h"
#include "run/scenario_run.h"
#include "run/sentinel.h"
#include "run/sut.h"

#define SHRINK_BUDGET 80

static const char usage_head[] =
    "usage: ock fuzz --orchestrator CMD [--capabilities LIST] [--wires LIST]\n"
    "                [--manifest FILE] [--seed S] [--count N] [--jobs N] [--timeout S]\n"
    "                [-o DIR]\n"
    "\n"
    "Runs N random scripted sessions (text, tool calls, parallel calls, unknown tools, failing\n"
    "tools, hook denials and injections, provider faults, cancellations, several prompts; only\n"
    "features of the declared capabilities, on the declared wires) drawn from seed S, and\n"
    "checks the rules that hold for every session: exactly one orchestrator:complete per\n"
    "execute, the event grammar, no orphaned tool call, the process exits 0. On the first\n"
    "failure it prints the session's seed, shrinks the session to the smallest that still\n"
    "fails, and writes it to DIR/fuzz-<seed>.json with the `ock run` line that replays it.\n"
    "\n";

static const char usage_tail[] =
    "\n"
    "Exit: 0 every session passed, 1 a failure was found, 2 usage error, 3 a session could not\n"
    "be graded (a harness or generator fault), or SIGINT, SIGTERM or SIGHUP stopped the run (the\n"
    "running orchestrators are killed, and nothing is left running).\n";

struct fuzz {
  const char *command;
  const char *declared[16];
  struct ock_option_list caps;  /* --capabilities as given (or the manifest's) */
  struct ock_option_list wires; /* --wires as given (or the manifest's); none: the default */
  const char *manifest;         /* --manifest, or NULL */
  struct ock_manifest mf;       /* what it says */
  unsigned long long seed;
  int count, help;
  int jobs;
  double timeout_s;
  const char *out_dir;
  const ock_registry *reg;
  _Atomic long next;
  _Atomic long done;
  _Atomic long first_failure; /* index of the lowest failing session, or count */
  _Atomic int harness_error;
  pthread_mutex_t lock;
  char first_message[700]; /* the failure of session first_failure, as first seen */
};

/* The signal that interrupted the fuzzing (SIGINT, SIGTERM or SIGHUP), or 0: the running
 * sessions' SUTs are killed, no new session starts, and ock fuzz exits 3 without shrinking. */
static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig) {
  if (!interrupted)
    interrupted = sig;
}

static void catch_interrupts(void) {
  struct sigaction sa = {0};
  sa.sa_handler = on_interrupt;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
  sa.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &sa, NULL);
}

static unsigned long long session_seed(unsigned long long seed, long i) {
  unsigned long long z = seed * 0x9E3779B97F4A7C15ULL + (unsigned long long)i + 1;
  z = (z ^ (z >> 31)) * 0xD6E8FEB86659FD93ULL;
  return z ^ (z >> 32);
}

static int universal(const char *req) {
  for (int i = 0; req && ock__fuzz_universal_requirements[i]; i++)
    if (!strcmp(req, ock__fuzz_universal_requirements[i]))
      return 1;
  return 0;
}

/* run_one runs fx; returns the first universal check that failed (a new object the caller
 * deletes), or NULL. *error is set when the session could not be graded. */
static cJSON *run_one(struct fuzz *z, const cJSON *fx, int *error) {
  struct ock_fixture *model = NULL;
  char why[1200];
  *error = 0;
  if (ock__scenario_load(fx, "(generated)", z->reg, &model, why, sizeof why)) {
    fprintf(stderr, "ock fuzz: a generated session is not a valid fixture: %s\n", why);
    *error = 1;
    return NULL;
  }
  struct scenario sc = {.path = "(generated)",
                        .fx = model,
                        .id = model->id,
                        .title = model->title,
                        .proves = model->proves};
  struct run_config cfg = {.command = z->command,
                           .declared = z->declared,
                           .wires = z->wires.n ? z->wires.items : ock__default_wires,
                           .timeout_s = z->timeout_s,
                           .time_scale = 1,
                           .output_cap = 16384,
                           .level = OCK_LEVEL_MUST,
                           .abort_flag = &interrupted};
  cJSON *result = NULL;
  int rc = ock__scenario_run(&sc, &cfg, z->reg, &result);
  ock_fixture_free(model);
  if (rc || !result) {
    *error = 1;
    return NULL;
  }
  cJSON *failed = NULL;
  const cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(result, "checks")) {
    const char *v = ock_json_str(c, "verdict");
    if (v && !strcmp(v, OCK_V_ERROR) && !strncmp(ock_json_str(c, "id"), "harness.", 8))
      *error = 1;
    if (!failed && v && !strcmp(v, OCK_V_FAIL) && universal(ock_json_str(c, "requirement")))
      failed = cJSON_Duplicate(c, 1);
  }
  cJSON_Delete(result);
  return failed;
}

/* fuzz_wires: the wires the sessions draw from, NULL for the default pair. */
static const char *const *fuzz_wires(const struct fuzz *z) {
  return z->wires.n ? z->wires.items : NULL;
}

static void *worker(void *arg) {
  struct fuzz *z = arg;
  for (;;) {
    long i = atomic_fetch_add(&z->next, 1);
    if (i >= z->count || i > atomic_load(&z->first_failure) || interrupted)
      return NULL;
    cJSON *fx = ock__fuzz_generate(session_seed(z->seed, i), z->declared, fuzz_wires(z));
    int error = 0;
    cJSON *failed = run_one(z, fx, &error);
    if (interrupted) { /* a session cut short by the signal says nothing */
      cJSON_Delete(failed);
      cJSON_Delete(fx);
      return NULL;
    }
    if (error) {
      atomic_store(&z->harness_error, 1);
      fprintf(stderr, "ock fuzz: session %ld (seed %llu) could not be graded\n", i,
              session_seed(z->seed, i));
    }
    if (failed) {
      pthread_mutex_lock(&z->lock);
      if (i < atomic_load(&z->first_failure)) {
        atomic_store(&z->first_failure, i);
        snprintf(z->first_message, sizeof z->first_message, "%s", ock_json_str(failed, "message"));
      }
      pthread_mutex_unlock(&z->lock);
      cJSON_Delete(failed);
    }
    cJSON_Delete(fx);
    long d = atomic_fetch_add(&z->done, 1) + 1;
    if (d % 50 == 0 || d == z->count) {
      pthread_mutex_lock(&z->lock);
      printf("ock fuzz: %ld/%d sessions\n", d, z->count);
      fflush(stdout);
      pthread_mutex_unlock(&z->lock);
    }
  }
}

/* shrink keeps applying the first candidate that still breaks requirement req. */
static cJSON *shrink(struct fuzz *z, cJSON *fx, const char *req, int *runs) {
  int progress = 1;
  while (progress && *runs < SHRINK_BUDGET) {
    progress = 0;
    cJSON *cand = NULL;
    for (int k = 0; *runs < SHRINK_BUDGET && ock__fuzz_shrink_step(fx, k, &cand); k++) {
      if (!cand)
        continue;
      int error = 0;
      cJSON *failed = run_one(z, cand, &error);
      (*runs)++;
      int same = failed && !strcmp(ock_json_str(failed, "requirement"), req);
      cJSON_Delete(failed);
      if (same) {
        cJSON_Delete(fx);
        fx = cand;
        progress = 1;
        break;
      }
      cJSON_Delete(cand);
    }
  }
  return fx;
}

enum { FUZZ_OPTIONS = 12 };

/* fuzz_options fills t with the options of ock fuzz, stored into z. */
static void fuzz_options(struct fuzz *z, struct ock_option t[FUZZ_OPTIONS]) {
  const struct ock_option rows[] = {
      {"orchestrator", 0, OCK_OPT_STRING, &z->command, .metavar = "CMD",
       .help = "the system under test (required)"},
      {"capabilities", 0, OCK_OPT_LIST, &z->caps, .values = ock_capabilities, .metavar = "LIST",
       .help = "what it supports, comma-separated (core is implied)"},
      {"wires", 0, OCK_OPT_LIST, &z->wires, .values = ock__wire_option_names(), .metavar = "LIST",
       .help = ock__wire_option_help("; each session's provider speaks\none of them")},
      {"manifest", 0, OCK_OPT_STRING, &z->manifest, .metavar = "FILE",
       .help = "its capabilities and wires from the manifest of ock run (its\n"
               "expected_failures name catalog scenarios: not used here)"},
      {"seed", 0, OCK_OPT_U64, &z->seed, .metavar = "S", .help = "the first seed (default 1)"},
      {"count", 0, OCK_OPT_INT, &z->count, 1, 1e9, .metavar = "N",
       .help = "sessions to run (default 100)"},
      {"jobs", 0, OCK_OPT_INT, &z->jobs, 1, 64, .metavar = "N",
       .help = "sessions in parallel (default: CPUs)"},
      {"timeout", 0, OCK_OPT_DOUBLE, &z->timeout_s, 0.1, 86400, .unit = "seconds", .metavar = "S",
       .help = "seconds per session (default 20)"},
      {NULL, 'o', OCK_OPT_STRING, &z->out_dir, .metavar = "DIR",
       .help = "where a failing session is written (default reports/fuzz)"},
      {"help", 'h', OCK_OPT_FLAG, &z->help, .help = "print this and exit"},
      {0}};
  _Static_assert(sizeof rows / sizeof rows[0] <= FUZZ_OPTIONS, "FUZZ_OPTIONS too small");
  memcpy(t, rows, sizeof rows);
}

static void print_usage(FILE *f) {
  struct fuzz z = {0};
  struct ock_option t[FUZZ_OPTIONS];
  fuzz_options(&z, t);
  fputs(usage_head, f);
  ock_options_help(t, f);
  fputs(usage_tail, f);
}

/* parse_fuzz_options returns 1 for --help, 0, or -1 after printing the mistake. */
static int parse_fuzz_options(int argc, char **argv, struct fuzz *z) {
  struct ock_option t[FUZZ_OPTIONS];
  char err[1024];
  int npos = 0;
  fuzz_options(z, t);
  int rc = ock_options_parse(t, argc, argv, &npos, err, sizeof err);
  if (z->help)
    return 1;
  if (!rc && npos)
    snprintf(err, sizeof err, "unexpected argument \"%s\"", argv[1]), rc = -1;
  if (rc) {
    fprintf(stderr, "ock fuzz: %s (see ock fuzz --help)\n", err);
    return -1;
  }
  if (!z->command) {
    print_usage(stderr);
    return -1;
  }
  if (z->manifest &&
      (ock__manifest_load(z->manifest, &z->mf, err, sizeof err) ||
       ock__manifest_merge(&z->mf, z->manifest, &z->caps, &z->wires, err, sizeof err))) {
    fprintf(stderr, "ock fuzz: %s\n", err);
    ock__manifest_free(&z->mf);
    return -1;
  }
  int nd = 0;
  z->declared[nd++] = OCK_CAP_CORE;
  for (int i = 0; i < z->caps.n && nd < 15; i++)
    if (strcmp(z->caps.items[i], "core"))
      z->declared[nd++] = z->caps.items[i];
  z->declared[nd] = NULL;
  return 0;
}

/* write_fixture writes fx to DIR/<id>.json into path (n bytes); returns 0 or -1. */
static int write_fixture(const struct fuzz *z, const cJSON *fx, char *path, size_t n) {
  ock__cli_make_dirs(z->out_dir);
  snprintf(path, n, "%s/%s.json", z->out_dir, ock_json_str(fx, "id"));
  char *text = cJSON_Print(fx);
  FILE *out = fopen(path, "w");
  int rc = out && text && fprintf(out, "%s\n", text) > 0 ? 0 : -1;
  if (out && fclose(out))
    rc = -1;
  free(text);
  return rc;
}

/* replay_caps writes what the SUT declared, as `ock run` takes it, into out (n bytes): " --manifest
 * FILE" when one was given, else " --capabilities a,b" and " --wires c,d" as given; or "". */
static void replay_caps(const struct fuzz *z, char *out, size_t n) {
  size_t used = 0;
  out[0] = '\0';
  if (z->manifest) {
    snprintf(out, n, " --manifest %s", z->manifest);
    return;
  }
  for (int k = 0; k < 2; k++) {
    const struct ock_option_list *l = k ? &z->wires : &z->caps;
    for (int i = 0; i < l->n && used < n; i++) {
      int w = snprintf(out + used, n - used, "%s%s",
                       i   ? ","
                       : k ? " --wires "
                           : " --capabilities ",
                       l->items[i]);
      if (w < 0)
        return;
      used += (size_t)w;
    }
  }
}

/* flaky: the first failing session passed when run again; it is written for --repeat. */
static void report_flaky(struct fuzz *z, long f, unsigned long long seed, const cJSON *fx) {
  char safe_first[1024], path[4096], caps[1200];
  printf("ock fuzz: session %ld (seed %llu) failed once and passed when run again (flaky):\n"
         "  %s\n",
         f, seed, ock_escape_terminal(safe_first, sizeof safe_first, z->first_message));
  replay_caps(z, caps, sizeof caps);
  if (!write_fixture(z, fx, path, sizeof path))
    printf("ock fuzz: fixture written to %s; hunt it with --repeat 50:\n"
           "replay:   ock run --orchestrator '%s' --fixtures %s --case %s --repeat 50%s\n",
           path, z->command, z->out_dir, ock_json_str(fx, "id"), caps);
}

/* report_failure prints the failure, shrinks fx and writes it; returns the shrunk fx. */
static cJSON *report_failure(struct fuzz *z, long f, unsigned long long seed, cJSON *fx,
                             const cJSON *failed) {
  char req[64], safe[1024], path[4096], caps[1200]; /* the message quotes the SUT's events */
  snprintf(req, sizeof req, "%s", ock_json_str(failed, "requirement"));
  printf("ock fuzz: FAIL in session %ld, seed %llu: %s\n  %s\n", f, seed, req,
         ock_escape_terminal(safe, sizeof safe, ock_json_str(failed, "message")));
  int runs = 0;
  fx = shrink(z, fx, req, &runs);
  cJSON *reqs = cJSON_CreateArray();
  cJSON_AddItemToArray(reqs, cJSON_CreateString(req));
  cJSON_ReplaceItemInObjectCaseSensitive(fx, "requirements", reqs);
  replay_caps(z, caps, sizeof caps);
  if (!write_fixture(z, fx, path, sizeof path))
    printf("ock fuzz: shrunk in %d runs; fixture written to %s\n"
           "replay:   ock run --orchestrator '%s' --fixtures %s --case %s%s\n",
           runs, path, z->command, z->out_dir, ock_json_str(fx, "id"), caps);
  else
    fprintf(stderr, "ock fuzz: cannot write %s\n", path);
  return fx;
}

/* run_sessions runs the count sessions on z->jobs threads. */
static void run_sessions(struct fuzz *z) {
  pthread_t threads[64];
  int jobs = z->jobs < z->count ? z->jobs : z->count;
  for (int i = 0; i < jobs; i++)
    pthread_create(&threads[i], NULL, worker, z);
  for (int i = 0; i < jobs; i++)
    pthread_join(threads[i], NULL);
}

int ock__cmd_fuzz(int argc, char **argv) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  struct fuzz z = {.seed = 1,
                   .count = 100,
                   .jobs = cpus > 0 ? (int)(cpus < 64 ? cpus : 64) : 1,
                   .timeout_s = 20,
                   .out_dir = "reports/fuzz"};
  int pr = parse_fuzz_options(argc, argv, &z);
  if (pr)
    return pr > 0 ? (print_usage(stdout), EXIT_PASS) : EXIT_USAGE;
  ock_registry *reg = NULL;
  if (ock_registry_load_builtin(&reg, NULL)) {
    ock__manifest_free(&z.mf);
    return EXIT_INCOMPLETE;
  }
  z.reg = reg;
  z.first_failure = z.count;
  pthread_mutex_init(&z.lock, NULL);
  catch_interrupts();
  printf("ock fuzz: %d sessions from seed %llu against %s\n", z.count, z.seed, z.command);
  fflush(stdout);
  run_sessions(&z);
  int code = atomic_load(&z.harness_error) ? EXIT_INCOMPLETE : EXIT_PASS;
  long f = atomic_load(&z.first_failure);
  if (interrupted) {
    printf("ock fuzz: interrupted by %s after %ld of %d sessions; nothing shrunk\n",
           ock__sut_signal_name(interrupted), atomic_load(&z.done), z.count);
    code = EXIT_INCOMPLETE;
  } else if (f < z.count) {
    unsigned long long seed = session_seed(z.seed, f);
    cJSON *fx = ock__fuzz_generate(seed, z.declared, fuzz_wires(&z));
    int error = 0;
    cJSON *failed = run_one(&z, fx, &error);
    if (!failed)
      report_flaky(&z, f, seed, fx);
    else
      fx = report_failure(&z, f, seed, fx, failed);
    cJSON_Delete(failed);
    cJSON_Delete(fx);
    code = EXIT_FAIL;
  } else {
    printf("ock fuzz: %d sessions, no rule broken\n", z.count);
  }
  ock__sentinel_stop();
  ock__manifest_free(&z.mf);
  pthread_mutex_destroy(&z.lock);
  ock_registry_free(reg);
  return code;
}
