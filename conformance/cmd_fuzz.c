/*
 * cmd_fuzz.c: `ock fuzz`, random sessions against the SUT, graded by the rules that hold for
 * every session. On a failure it prints the seed, shrinks the session to the smallest one that
 * still breaks the same requirement, and writes it as a fixture that `ock run` replays.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ock/caps.h"
#include "cli.h"
#include "escape.h"
#include "fuzz_gen.h"
#include "ock/json.h"
#include "ock/registry.h"
#include "scenario_run.h"

#define SHRINK_BUDGET 80

static const char usage[] =
    "usage: ock fuzz --orchestrator CMD [--capabilities LIST] [--seed S] [--count N]\n"
    "                [--jobs N] [--timeout S] [-o DIR]\n"
    "\n"
    "Runs N random scripted sessions (text, tool calls, parallel calls, unknown tools, failing\n"
    "tools, hook denials and injections, provider faults, cancellations, several prompts; only\n"
    "features of the declared capabilities) drawn from seed S, and checks the rules that hold\n"
    "for every session: exactly one orchestrator:complete per execute, the event grammar, no\n"
    "orphaned tool call, the process exits 0. On the first failure it prints the session's\n"
    "seed, shrinks the session to the smallest that still fails, and writes it to\n"
    "DIR/fuzz-<seed>.json (default DIR: reports/fuzz) with the `ock run` line that replays it.\n"
    "\n"
    "Defaults: --seed 1, --count 100, --jobs CPUs, --timeout 20.\n"
    "Exit: 0 every session passed, 1 a failure was found, 2 usage error, 3 a session could not\n"
    "be graded (a harness or generator fault).\n";

struct fuzz {
  const char *command;
  const char *declared[16];
  unsigned long long seed;
  long count;
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

static unsigned long long session_seed(unsigned long long seed, long i) {
  unsigned long long z = seed * 0x9E3779B97F4A7C15ULL + (unsigned long long)i + 1;
  z = (z ^ (z >> 31)) * 0xD6E8FEB86659FD93ULL;
  return z ^ (z >> 32);
}

static int universal(const char *req) {
  for (int i = 0; req && fuzz_universal_requirements[i]; i++)
    if (!strcmp(req, fuzz_universal_requirements[i]))
      return 1;
  return 0;
}

/* run_one runs fx; returns the first universal check that failed (a new object the caller
 * deletes), or NULL. *error is set when the session could not be graded. */
static cJSON *run_one(struct fuzz *z, const cJSON *fx, int *error) {
  struct scenario sc = {.path = "(generated)",
                        .fixture = (cJSON *)fx,
                        .id = ock_json_str(fx, "id"),
                        .title = ock_json_str(fx, "title"),
                        .proves = ock_json_str(fx, "proves")};
  struct run_config cfg = {.command = z->command,
                           .declared = z->declared,
                           .timeout_s = z->timeout_s,
                           .time_scale = 1,
                           .output_cap = OCK_CAP_FUZZ_SUT_OUTPUT,
                           .level = OCK_LEVEL_MUST};
  cJSON *result = NULL;
  *error = 0;
  if (scenario_run(&sc, &cfg, z->reg, &result) || !result) {
    *error = 1;
    return NULL;
  }
  cJSON *failed = NULL;
  const cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(result, "checks")) {
    const char *v = ock_json_str(c, "verdict");
    if (v && !strcmp(v, "ERROR") && !strncmp(ock_json_str(c, "id"), "harness.", 8))
      *error = 1;
    if (!failed && v && !strcmp(v, "FAIL") && universal(ock_json_str(c, "requirement")))
      failed = cJSON_Duplicate(c, 1);
  }
  cJSON_Delete(result);
  return failed;
}

static void *worker(void *arg) {
  struct fuzz *z = arg;
  for (;;) {
    long i = atomic_fetch_add(&z->next, 1);
    if (i >= z->count || i > atomic_load(&z->first_failure))
      return NULL;
    cJSON *fx = fuzz_generate(session_seed(z->seed, i), z->declared);
    int error = 0;
    cJSON *failed = run_one(z, fx, &error);
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
      printf("ock fuzz: %ld/%ld sessions\n", d, z->count);
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
    for (int k = 0; *runs < SHRINK_BUDGET && fuzz_shrink_step(fx, k, &cand); k++) {
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

static void mkdirs(const char *dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s", dir);
  for (char *p = path + 1; *p; p++)
    if (*p == '/') {
      *p = '\0';
      mkdir(path, 0755);
      *p = '/';
    }
  mkdir(path, 0755);
}

int cmd_fuzz(int argc, char **argv) {
  static const struct option longs[] = {{"orchestrator", required_argument, 0, 'c'},
                                        {"capabilities", required_argument, 0, 'C'},
                                        {"seed", required_argument, 0, 's'},
                                        {"count", required_argument, 0, 'n'},
                                        {"jobs", required_argument, 0, 'j'},
                                        {"timeout", required_argument, 0, 't'},
                                        {"help", no_argument, 0, 'h'},
                                        {0, 0, 0, 0}};
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  struct fuzz z = {.seed = 1,
                   .count = 100,
                   .jobs = cpus > 0 ? (int)cpus : 1,
                   .timeout_s = 20,
                   .out_dir = "reports/fuzz"};
  char caps[1024] = "";
  const char *caps_arg = NULL; /* as given, for the replay line */
  int nd = 0, c;
  z.declared[nd++] = "core";
  optind = 1;
  while ((c = getopt_long(argc, argv, "ho:", longs, NULL)) != -1) {
    const char *bad = NULL;
    double v = 0;
    switch (c) {
    case 'c':
      z.command = optarg;
      break;
    case 'C':
      caps_arg = optarg;
      snprintf(caps, sizeof caps, "%s", optarg);
      char *save = NULL;
      for (char *tok = strtok_r(caps, ",", &save); tok && nd < 15; tok = strtok_r(NULL, ",", &save))
        if (strcmp(tok, "core")) {
          if (!ock_capability_known(tok)) {
            fprintf(stderr, "ock fuzz: --capabilities: unknown capability \"%s\"\n", tok);
            return EXIT_USAGE;
          }
          z.declared[nd++] = tok;
        }
      break;
    case 's':
      bad = cli_number(optarg, 0, 1.8e19, 1, &v) ? "--seed: expected a non-negative integer" : NULL;
      z.seed = (unsigned long long)v;
      break;
    case 'n':
      bad = cli_number(optarg, 1, 1e9, 1, &v) ? "--count: expected a number from 1 to 1e9" : NULL;
      z.count = (long)v;
      break;
    case 'j':
      bad = cli_number(optarg, 1, 64, 1, &v) ? "--jobs: expected a number from 1 to 64" : NULL;
      z.jobs = (int)v;
      break;
    case 't':
      bad = cli_number(optarg, 0.1, 86400, 0, &v) ? "--timeout: expected seconds from 0.1 to 86400"
                                                  : NULL;
      z.timeout_s = v;
      break;
    case 'o':
      z.out_dir = optarg;
      break;
    case 'h':
      fputs(usage, stdout);
      return EXIT_PASS;
    default:
      fputs(usage, stderr);
      return EXIT_USAGE;
    }
    if (bad) {
      fprintf(stderr, "ock fuzz: %s, got \"%s\" (not a number in range)\n", bad, optarg);
      return EXIT_USAGE;
    }
  }
  z.declared[nd] = NULL;
  if (!z.command || z.count < 1 || z.jobs < 1 || z.jobs > 64 || z.timeout_s <= 0) {
    fputs(usage, stderr);
    return EXIT_USAGE;
  }
  ock_registry *reg = NULL;
  if (ock_registry_load_builtin(&reg, NULL))
    return EXIT_INCOMPLETE;
  z.reg = reg;
  z.first_failure = z.count;
  pthread_mutex_init(&z.lock, NULL);
  signal(SIGPIPE, SIG_IGN);
  printf("ock fuzz: %ld sessions from seed %llu against %s\n", z.count, z.seed, z.command);
  pthread_t threads[64];
  int jobs = z.jobs < z.count ? z.jobs : (int)z.count;
  for (int i = 0; i < jobs; i++)
    pthread_create(&threads[i], NULL, worker, &z);
  for (int i = 0; i < jobs; i++)
    pthread_join(threads[i], NULL);

  int code = atomic_load(&z.harness_error) ? EXIT_INCOMPLETE : EXIT_PASS;
  long f = atomic_load(&z.first_failure);
  if (f < z.count) {
    unsigned long long seed = session_seed(z.seed, f);
    cJSON *fx = fuzz_generate(seed, z.declared);
    int error = 0;
    cJSON *failed = run_one(&z, fx, &error);
    if (!failed) {
      char safe_first[1024];
      printf("ock fuzz: session %ld (seed %llu) failed once and passed when run again (flaky):\n"
             "  %s\n",
             f, seed, ock_escape_terminal(safe_first, sizeof safe_first, z.first_message));
      mkdirs(z.out_dir);
      char path[4096];
      snprintf(path, sizeof path, "%s/%s.json", z.out_dir, ock_json_str(fx, "id"));
      char *text = cJSON_Print(fx);
      FILE *out = fopen(path, "w");
      if (out && text) {
        fprintf(out, "%s\n", text);
        fclose(out);
        printf("ock fuzz: fixture written to %s; hunt it with --repeat 50:\n"
               "replay:   ock run --orchestrator '%s' --fixtures %s --case %s --repeat 50%s%s\n",
               path, z.command, z.out_dir, ock_json_str(fx, "id"),
               caps_arg ? " --capabilities " : "", caps_arg ? caps_arg : "");
      }
      free(text);
      code = EXIT_FAIL;
    } else {
      char req[64];
      snprintf(req, sizeof req, "%s", ock_json_str(failed, "requirement"));
      char safe[1024]; /* the message quotes the SUT's events */
      printf("ock fuzz: FAIL in session %ld, seed %llu: %s\n  %s\n", f, seed, req,
             ock_escape_terminal(safe, sizeof safe, ock_json_str(failed, "message")));
      int runs = 0;
      fx = shrink(&z, fx, req, &runs);
      cJSON *reqs = cJSON_CreateArray();
      cJSON_AddItemToArray(reqs, cJSON_CreateString(req));
      cJSON_ReplaceItemInObjectCaseSensitive(fx, "requirements", reqs);
      mkdirs(z.out_dir);
      char path[4096];
      snprintf(path, sizeof path, "%s/%s.json", z.out_dir, ock_json_str(fx, "id"));
      char *text = cJSON_Print(fx);
      FILE *out = fopen(path, "w");
      if (out && text) {
        fprintf(out, "%s\n", text);
        fclose(out);
        printf("ock fuzz: shrunk in %d runs; fixture written to %s\n"
               "replay:   ock run --orchestrator '%s' --fixtures %s --case %s%s%s\n",
               runs, path, z.command, z.out_dir, ock_json_str(fx, "id"),
               caps_arg ? " --capabilities " : "", caps_arg ? caps_arg : "");
      } else {
        fprintf(stderr, "ock fuzz: cannot write %s\n", path);
      }
      free(text);
      cJSON_Delete(failed);
      code = EXIT_FAIL;
    }
    cJSON_Delete(fx);
  } else {
    printf("ock fuzz: %ld sessions, no rule broken\n", z.count);
  }
  pthread_mutex_destroy(&z.lock);
  ock_registry_free(reg);
  return code;
}
