/*
 * cmd_run.c: `ock run`, the main job: every selected scenario against the SUT, graded, with a
 * line per scenario as it finishes, a summary at the end, and the four reports written on
 * every exit path (also on a fixture error and on Ctrl-C).
 */
#include <errno.h>
#include <stddef.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ock/caps.h"
#include "blackbox.h"
#include "checklist.h"
#include "cli.h"
#include "escape.h"
#include "grade.h"
#include "ock/json.h"
#include "ock/registry.h"
#include "ock/status.h"
#include "report.h"
#include "scenario_run.h"
#include "scenarios.h"
#include "sut.h"

#define CAUSE_WIDTH 160 /* bytes of a FAIL line's cause on the console */

static const char usage[] =
    "usage: ock run --orchestrator CMD [options]\n"
    "\n"
    "Runs every scenario against the orchestrator CMD (run by /bin/sh -c, in its own process\n"
    "group, with OCK_URL and the provider variables of SPEC.md section 7 in its environment),\n"
    "grades it, prints a line per scenario and a summary, and writes report.json, junit.xml,\n"
    "summary.md and report.html.\n"
    "\n"
    "  --orchestrator CMD       the system under test (required)\n"
    "  --capabilities LIST      what it supports, comma-separated: core, streaming, parallel,\n"
    "                           scheduling, lifecycle, resilience, cancellation (core is implied)\n"
    "  --wires LIST             the provider wires it speaks: openai, anthropic (default both);\n"
    "                           a scenario on another wire is SKIP\n"
    "  --manifest FILE          JSON {name, capabilities, wires, expected_failures, framework,\n"
    "                           emulated} instead\n"
    "  --name NAME              the orchestrator's name in the reports\n"
    "  --fixtures DIR           the scenarios (default: $OCK_FIXTURES, the installed ones, or "
    "./fixtures)\n"
    "  --case GLOB              run only scenarios whose id matches (repeatable)\n"
    "  --exclude GLOB           never start scenarios whose id matches (repeatable)\n"
    "  --level must|should|may  the highest requirement level graded (default should)\n"
    "  --strict                 SHOULD failures fail the run\n"
    "  --jobs N                 scenarios in parallel, each with its own mock (default: CPUs)\n"
    "  --shard I/N              run the I-th of N shards (merge them with `ock report merge`)\n"
    "  --timeout S              seconds per scenario before the SUT's group is killed (default "
    "30)\n"
    "  --time-scale X           multiply the timeout and the late tolerance of timing checks, for\n"
    "                           slow machines and sanitizer builds (default 1, or "
    "$OCK_TIME_SCALE)\n"
    "  --repeat N               run each scenario N times (flake hunting)\n"
    "  --seed N                 seed for random faults (default 0: the fixtures' own)\n"
    "  --expected-failures FILE baseline: lines \"scenario\" or \"scenario:ID\" (ID: a "
    "requirement\n"
    "                           or a check); listed failures pass, listed passes fail as stale\n"
    "  --observe-only           the mock answers broken histories normally (findings still "
    "graded)\n"
    "  --journals               also write each scenario's mock journal (JSONL) under "
    "DIR/journals\n"
    "  --blackbox               the SUT posts no events and reads no session: prompts on stdin,\n"
    "                           one a line; graded from the traffic (SPEC.md 9.7)\n"
    "  -o DIR                   report directory (default reports/latest)\n"
    "  --format human|jsonl     console output (default human)\n"
    "\n"
    "Exit: 0 every scored check passed, 1 a check failed, 2 usage or fixture error, 3 incomplete\n"
    "(a scenario could not be graded, nothing ran, or the run was interrupted by SIGINT, SIGTERM\n"
    "or SIGHUP: every SUT is killed, the reports are written, cut-short scenarios are ERROR).\n";

struct list {
  const char *items[OCK_CAP_LIST_ITEMS + 1];
  int n;
};

static void list_add(struct list *l, const char *s) {
  if (l->n < OCK_CAP_LIST_ITEMS)
    l->items[l->n++] = s;
  l->items[l->n] = NULL;
}

/* split_into adds the comma-separated parts of s (modified in place) to l. */
static void split_into(struct list *l, char *s) {
  char *save = NULL;
  for (char *tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
    if (*tok)
      list_add(l, tok);
}

struct run_opts {
  const char *orchestrator, *name, *fixtures, *out_dir, *format, *manifest, *baseline;
  const char *framework; /* the manifest's framework, or NULL */
  struct list caps, cases, excludes, expected, wires;
  struct list emulated; /* the manifest's emulated policies: done by the SUT's bridge */
  int has_emulated;     /* the manifest has an emulated member */
  enum ock_level level;
  int strict, jobs, shard_i, shard_n, repeat, observe_only, journals;
  int blackbox;
  int out_named; /* -o was given: error reports may go there */
  double timeout_s, time_scale;
  unsigned long long seed;
  cJSON *manifest_json; /* owns the strings of a manifest's lists */
  char *baseline_text;  /* owns the strings of the baseline file */
};

/* The signal that interrupted the run (SIGINT, SIGTERM or SIGHUP), or 0. All three end the
 * run the same way: every SUT group killed, the partial reports written, exit 3. */
static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig) {
  if (!interrupted)
    interrupted = sig;
}

/* ---- options -------------------------------------------------------------------------------- */

/* parse_shard reads "I/N" with 1 <= I <= N <= 100000, each part a cli_number. */
static int parse_shard(const char *s, int *i, int *n) {
  char part[32];
  const char *slash = strchr(s, '/');
  double a, b;
  if (!slash || (size_t)(slash - s) >= sizeof part)
    return -1;
  memcpy(part, s, (size_t)(slash - s));
  part[slash - s] = '\0';
  if (cli_number(part, 1, 100000, 1, &a) || cli_number(slash + 1, 1, 100000, 1, &b) || a > b)
    return -1;
  *i = (int)a;
  *n = (int)b;
  return 0;
}

/* wire_known: one of the two provider wires a SUT may declare (SPEC.md 7.9). */
static int wire_known(const char *w) {
  return !strcmp(w, "openai") || !strcmp(w, "anthropic");
}

/* same_set: a and b hold the same names, in any order, ignoring implied (NULL: none). */
static int same_set(const struct list *a, const struct list *b, const char *implied) {
  for (int k = 0; k < 2; k++) {
    const struct list *x = k ? b : a, *y = k ? a : b;
    for (int i = 0; i < x->n; i++) {
      int found = implied && !strcmp(x->items[i], implied);
      for (int j = 0; j < y->n && !found; j++)
        found = !strcmp(x->items[i], y->items[j]);
      if (!found)
        return 0;
    }
  }
  return 1;
}

/* join_list writes the names of l as "a,b" into out (n bytes), or "(none)". */
static void join_list(char *out, size_t n, const struct list *l) {
  size_t used = 0;
  snprintf(out, n, "%s", l->n ? "" : "(none)");
  for (int i = 0; i < l->n && used < n; i++) {
    int w = snprintf(out + used, n - used, "%s%s", i ? "," : "", l->items[i]);
    if (w < 0)
      break;
    used += (size_t)w;
  }
}

/* load_manifest reads the manifest of SPEC.md 7.9. Its name and capabilities are required; a
 * --capabilities or --wires given with it must say the same (it is a usage error when they
 * differ: which one the user meant cannot be known). */
static int load_manifest(struct run_opts *o, char *err, size_t n) {
  struct ock_jerr je;
  int rc = ock_json_parse_file(o->manifest, OCK_CAP_MANIFEST, &o->manifest_json, &je);
  const cJSON *caps = NULL, *xf = NULL, *it;
  const char *name = NULL;
  struct list mcaps = {0}, mwires = {0};
  if (!rc)
    rc = ock_jcheck_object(o->manifest_json, "$", &je);
  if (!rc)
    rc = ock_json_check_unique_keys(o->manifest_json, "$", &je);
  if (!rc)
    rc = ock_jget_nonempty(o->manifest_json, "$", "name", OCK_REQUIRED, &name, &je);
  if (!rc)
    rc = ock_jget_array(o->manifest_json, "$", "capabilities", OCK_REQUIRED, &caps, &je);
  if (!rc)
    rc = ock_jget_array(o->manifest_json, "$", "expected_failures", OCK_OPTIONAL, &xf, &je);
  const cJSON *wires = NULL;
  if (!rc)
    rc = ock_jget_array(o->manifest_json, "$", "wires", OCK_OPTIONAL, &wires, &je);
  int w = 0;
  cJSON_ArrayForEach(it, wires) {
    char p[OCK_JSON_PATH_MAX];
    ock_jpath_index(p, sizeof p, "$.wires", w++);
    if (!rc && (!cJSON_IsString(it) || !wire_known(it->valuestring)))
      rc = ock_jerr_set(&je, OCK_ETYPE, p, "expected \"openai\" or \"anthropic\"");
    if (!rc)
      list_add(&mwires, it->valuestring);
  }
  int i = 0;
  cJSON_ArrayForEach(it, caps) {
    char p[OCK_JSON_PATH_MAX];
    ock_jpath_index(p, sizeof p, "$.capabilities", i++);
    if (!rc && (!cJSON_IsString(it) || !ock_capability_known(it->valuestring)))
      rc = ock_jerr_set(&je, OCK_ETYPE, p, "expected a known capability name");
    if (!rc)
      list_add(&mcaps, it->valuestring);
  }
  if (!rc)
    rc = ock_jget_nonempty(o->manifest_json, "$", "framework", OCK_OPTIONAL, &o->framework, &je);
  const cJSON *emulated = NULL;
  if (!rc)
    rc = ock_jget_array(o->manifest_json, "$", "emulated", OCK_OPTIONAL, &emulated, &je);
  o->has_emulated = emulated != NULL;
  i = 0;
  cJSON_ArrayForEach(it, emulated) {
    char p[OCK_JSON_PATH_MAX];
    ock_jpath_index(p, sizeof p, "$.emulated", i++);
    if (!rc && (!cJSON_IsString(it) || !it->valuestring[0]))
      rc = ock_jerr_set(&je, OCK_ETYPE, p,
                        "expected a non-empty string naming a policy the bridge emulates");
    if (!rc)
      list_add(&o->emulated, it->valuestring);
  }
  i = 0;
  cJSON_ArrayForEach(it, xf) {
    char p[OCK_JSON_PATH_MAX];
    ock_jpath_index(p, sizeof p, "$.expected_failures", i++);
    if (!rc && !cJSON_IsString(it))
      rc = ock_jerr_set(&je, OCK_ETYPE, p,
                        "expected a string \"scenario\" or \"scenario:ID\", got %s",
                        ock_json_type_name(it));
    if (!rc)
      list_add(&o->expected, it->valuestring);
  }
  if (rc) {
    snprintf(err, n, "%s: %s: %s", o->manifest, je.where, je.what);
    return rc;
  }
  static const struct {
    const char *option, *member, *implied;
    size_t field;
  } both[] = {{"--capabilities", "capabilities", "core", offsetof(struct run_opts, caps)},
              {"--wires", "wires", NULL, offsetof(struct run_opts, wires)}};
  for (size_t k = 0; k < 2; k++) {
    struct list *given = (struct list *)((char *)o + both[k].field);
    const struct list *m = k ? &mwires : &mcaps;
    /* A manifest without wires leaves them to --wires (or the default, both). */
    if (given->n && (k == 0 || wires) && !same_set(given, m, both[k].implied)) {
      char a[400], b[400];
      join_list(a, sizeof a, given);
      join_list(b, sizeof b, m);
      snprintf(err, n,
               "%s %s differs from the %s of the manifest %s (%s); give the list once, in the "
               "manifest or on the command line",
               both[k].option, a, both[k].member, o->manifest, b);
      return OCK_ETYPE;
    }
    if (!given->n)
      *given = *m;
  }
  if (!o->name)
    o->name = name;
  return OCK_OK;
}

static int load_baseline(struct run_opts *o, char *err, size_t n) {
  FILE *f = fopen(o->baseline, "r");
  if (!f) {
    snprintf(err, n, "%s: cannot open the expected-failures file: %s", o->baseline,
             strerror(errno));
    return OCK_EIO;
  }
  size_t cap = OCK_CAP_BASELINE, len = fread(o->baseline_text = malloc(cap + 1), 1, cap, f);
  fclose(f);
  o->baseline_text[len] = '\0';
  char *save = NULL;
  for (char *line = strtok_r(o->baseline_text, "\n", &save); line;
       line = strtok_r(NULL, "\n", &save)) {
    char *hash = strchr(line, '#');
    if (hash)
      *hash = '\0';
    while (*line == ' ' || *line == '\t' || *line == '-')
      line++;
    size_t l = strlen(line);
    while (l && (line[l - 1] == ' ' || line[l - 1] == '\r' || line[l - 1] == '\t'))
      line[--l] = '\0';
    if (*line)
      list_add(&o->expected, line);
  }
  return OCK_OK;
}

/* baseline_unknown: each expected-failures entry names a scenario of the fixtures and, after
 * a colon, a requirement or check id. An entry that names nothing could never match: it is a
 * usage error naming it (SPEC.md 9.3), not a "stale" entry. Returns 0, or -1 with err. */
static int baseline_unknown(const struct run_opts *o, const struct scenario_set *all,
                            const ock_registry *reg, char *err, size_t n) {
  for (int i = 0; i < o->expected.n; i++) {
    const char *e = o->expected.items[i], *colon = strchr(e, ':');
    char id[512];
    size_t len = colon ? (size_t)(colon - e) : strlen(e);
    snprintf(id, sizeof id, "%.*s", (int)(len < sizeof id ? len : sizeof id - 1), e);
    if (!scenarios_find(all, id)) {
      snprintf(err, n,
               "expected failures: the entry \"%.300s\" names no scenario of %s (see ock list "
               "scenarios)",
               e, o->fixtures);
      return -1;
    }
    if (colon && !ock_registry_find(reg, colon + 1) && !checklist_find(colon + 1)) {
      snprintf(err, n,
               "expected failures: the entry \"%.300s\" names no requirement or check id after "
               "the colon (see ock list requirements, ock explain ID)",
               e);
      return -1;
    }
  }
  return 0;
}

static int parse_options(int argc, char **argv, struct run_opts *o, char *err, size_t n) {
  static const struct option longs[] = {{"orchestrator", required_argument, 0, 'c'},
                                        {"capabilities", required_argument, 0, 'C'},
                                        {"manifest", required_argument, 0, 'm'},
                                        {"wires", required_argument, 0, 'W'},
                                        {"name", required_argument, 0, 'N'},
                                        {"fixtures", required_argument, 0, 'f'},
                                        {"case", required_argument, 0, 'k'},
                                        {"exclude", required_argument, 0, 'x'},
                                        {"level", required_argument, 0, 'l'},
                                        {"strict", no_argument, 0, 's'},
                                        {"jobs", required_argument, 0, 'j'},
                                        {"shard", required_argument, 0, 'S'},
                                        {"timeout", required_argument, 0, 't'},
                                        {"time-scale", required_argument, 0, 'T'},
                                        {"repeat", required_argument, 0, 'r'},
                                        {"seed", required_argument, 0, 'e'},
                                        {"expected-failures", required_argument, 0, 'E'},
                                        {"observe-only", no_argument, 0, 'O'},
                                        {"journals", no_argument, 0, 'J'},
                                        {"blackbox", no_argument, 0, 'B'},
                                        {"format", required_argument, 0, 'F'},
                                        {"help", no_argument, 0, 'h'},
                                        {0, 0, 0, 0}};
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  const char *scale_env = getenv("OCK_TIME_SCALE");
  *o = (struct run_opts){.out_dir = "reports/latest",
                         .format = "human",
                         .level = OCK_LEVEL_SHOULD,
                         .jobs = cpus > 0 ? (int)cpus : 1,
                         .shard_i = 1,
                         .shard_n = 1,
                         .repeat = 1,
                         .timeout_s = 30,
                         .time_scale = 1};
  optind = 1;
  int c;
  double v;
  /* On a bad option, parsing goes on so that -o is known wherever it stands: the error report
   * goes to the directory the user named, or nowhere. The first error is the one reported. */
  int bad = 0;
  if (scale_env && cli_number(scale_env, 0.01, 1000, 0, &o->time_scale)) {
    snprintf(err, n, "OCK_TIME_SCALE: expected a factor from 0.01 to 1000, got \"%s\"", scale_env);
    bad = 1;
  }
#define USAGE_ERROR(...)                                                                           \
  do {                                                                                             \
    if (!bad)                                                                                      \
      snprintf(err, n, __VA_ARGS__);                                                               \
    bad = 1;                                                                                       \
  } while (0)
  while ((c = getopt_long(argc, argv, "ho:", longs, NULL)) != -1) {
    switch (c) {
    case 'c':
      o->orchestrator = optarg;
      break;
    case 'C':
      split_into(&o->caps, optarg);
      break;
    case 'm':
      o->manifest = optarg;
      break;
    case 'W':
      split_into(&o->wires, optarg);
      break;
    case 'N':
      o->name = optarg;
      break;
    case 'f':
      o->fixtures = optarg;
      break;
    case 'k':
      list_add(&o->cases, optarg);
      break;
    case 'x':
      list_add(&o->excludes, optarg);
      break;
    case 'l':
      if (ock_level_parse(optarg, &o->level)) {
        USAGE_ERROR("--level: expected must, should or may, got \"%s\"", optarg);
      }
      break;
    case 's':
      o->strict = 1;
      break;
    case 'j':
      if (cli_number(optarg, 1, 256, 1, &v)) {
        USAGE_ERROR("--jobs: expected a number from 1 to 256, got \"%s\"", optarg);
        break;
      }
      o->jobs = (int)v;
      break;
    case 'S':
      if (parse_shard(optarg, &o->shard_i, &o->shard_n)) {
        USAGE_ERROR("--shard: expected I/N with 1 <= I <= N, got \"%s\"", optarg);
      }
      break;
    case 't':
      if (cli_number(optarg, 0.1, 86400, 0, &o->timeout_s)) {
        USAGE_ERROR("--timeout: expected seconds from 0.1 to 86400, got \"%s\"", optarg);
      }
      break;
    case 'T':
      if (cli_number(optarg, 0.01, 1000, 0, &o->time_scale)) {
        USAGE_ERROR("--time-scale: expected a factor from 0.01 to 1000, got \"%s\"", optarg);
      }
      break;
    case 'r':
      if (cli_number(optarg, 1, 10000, 1, &v)) {
        USAGE_ERROR("--repeat: expected a number from 1 to 10000, got \"%s\"", optarg);
        break;
      }
      o->repeat = (int)v;
      break;
    case 'e':
      if (cli_number(optarg, 0, 1.8e19, 1, &v)) {
        USAGE_ERROR("--seed: expected a non-negative integer, got \"%s\"", optarg);
        break;
      }
      o->seed = (unsigned long long)v;
      break;
    case 'E':
      o->baseline = optarg;
      break;
    case 'O':
      o->observe_only = 1;
      break;
    case 'J':
      o->journals = 1;
      break;
    case 'B':
      o->blackbox = 1;
      break;
    case 'o':
      o->out_dir = optarg;
      o->out_named = 1;
      break;
    case 'F':
      if (strcmp(optarg, "human") && strcmp(optarg, "jsonl")) {
        USAGE_ERROR("--format: expected human or jsonl, got \"%s\"", optarg);
        break;
      }
      o->format = optarg;
      break;
    case 'h':
      return 1;
    default:
      USAGE_ERROR("unknown option (see ock run --help)");
      break;
    }
  }
#undef USAGE_ERROR
  if (bad)
    return -1;
  if (optind < argc) {
    snprintf(err, n, "unexpected argument \"%s\" (see ock run --help)", argv[optind]);
    return -1;
  }
  if (!o->orchestrator || !*o->orchestrator) {
    snprintf(err, n, "--orchestrator CMD is required and not empty (see ock run --help)");
    return -1;
  }
  for (int i = 0; i < o->caps.n; i++)
    if (!ock_capability_known(o->caps.items[i])) {
      snprintf(err, n,
               "--capabilities: unknown capability \"%s\"; expected core, streaming, "
               "parallel, scheduling, lifecycle, resilience, cancellation",
               o->caps.items[i]);
      return -1;
    }
  for (int i = 0; i < o->wires.n; i++)
    if (!wire_known(o->wires.items[i])) {
      snprintf(err, n, "--wires: unknown wire \"%s\"; expected openai, anthropic",
               o->wires.items[i]);
      return -1;
    }
  if (!o->fixtures)
    o->fixtures = default_fixtures_dir();
  return 0;
}

/* check_out_dir: the report directory can be created or written, before anything runs.
 * Returns 0, or -1 with the reason in err. */
static int check_out_dir(const char *dir, char *err, size_t n) {
  static const char *const kernel[] = {"/proc", "/sys", "/dev", NULL};
  if (!*dir) {
    snprintf(err, n, "-o: expected a directory for the reports, got an empty string");
    return -1;
  }
  for (int i = 0; kernel[i]; i++) {
    size_t l = strlen(kernel[i]);
    if (!strncmp(dir, kernel[i], l) && (!dir[l] || dir[l] == '/')) {
      snprintf(err, n, "-o %s: reports cannot go under %s; name an ordinary directory", dir,
               kernel[i]);
      return -1;
    }
  }
  /* The nearest part of the path that exists must be a directory we may write into. */
  char path[4096];
  snprintf(path, sizeof path, "%s", dir);
  struct stat st;
  for (;;) {
    if (!stat(path, &st))
      break;
    char *slash = strrchr(path, '/');
    if (errno != ENOENT || !slash) {
      if (errno == ENOENT) /* a relative path whose first part does not exist: the cwd */
        snprintf(path, sizeof path, ".");
      else {
        snprintf(err, n, "-o %s: %s: %s", dir, path, strerror(errno));
        return -1;
      }
      continue;
    }
    if (slash == path)
      slash[1] = '\0';
    else
      *slash = '\0';
  }
  if (!S_ISDIR(st.st_mode)) {
    snprintf(err, n, "-o %s: %s exists and is not a directory", dir, path);
    return -1;
  }
  if (access(path, W_OK | X_OK)) {
    snprintf(err, n, "-o %s: cannot write into %s: %s", dir, path, strerror(errno));
    return -1;
  }
  return 0;
}

/* ---- the baseline --------------------------------------------------------------------------- */

static int listed(const struct run_opts *o, const char *scenario, const char *req,
                  const char *check, int *used) {
  for (int i = 0; i < o->expected.n; i++) {
    const char *e = o->expected.items[i];
    size_t sl = strlen(scenario);
    if (strncmp(e, scenario, sl))
      continue;
    if (!e[sl] || (e[sl] == ':' && (!strcmp(e + sl + 1, req) || !strcmp(e + sl + 1, check)))) {
      used[i] = 1;
      return 1;
    }
  }
  return 0;
}

/* apply_baseline: listed failures pass (marked), listed entries that found nothing to excuse
 * fail as stale. The scenario's verdict is recomputed. */
static void apply_baseline(const struct run_opts *o, cJSON *result, const ock_registry *reg) {
  const char *verdict = ock_json_str(result, "verdict");
  if (!o->expected.n || (verdict && !strcmp(verdict, "SKIP")))
    return; /* a scenario not run has nothing to excuse, and proves no entry stale */
  const char *id = ock_json_str(result, "id");
  int used[OCK_CAP_LIST_ITEMS] = {0};
  int excused = 0;
  cJSON *checks = cJSON_GetObjectItemCaseSensitive(result, "checks"), *c;
  cJSON_ArrayForEach(c, checks) {
    const char *v = ock_json_str(c, "verdict");
    if (!v || (strcmp(v, "FAIL") && strcmp(v, "WARN")))
      continue;
    if (listed(o, id, ock_json_str(c, "requirement"), ock_json_str(c, "id"), used)) {
      cJSON_ReplaceItemInObjectCaseSensitive(c, "verdict", cJSON_CreateString("PASS"));
      cJSON_AddBoolToObject(c, "expected_failure", 1);
      excused = 1;
    }
  }
  for (int i = 0; i < o->expected.n; i++) {
    const char *e = o->expected.items[i];
    size_t sl = strlen(id);
    if (used[i] || strncmp(e, id, sl) || (e[sl] && e[sl] != ':'))
      continue;
    const char *req = e[sl] == ':' && ock_registry_find(reg, e + sl + 1) ? e + sl + 1 : NULL;
    if (!req)
      req = ock_json_str(
          cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(result, "requirements"), 0), "");
    const struct ock_requirement *r = ock_registry_find(reg, req);
    cJSON *s = cJSON_CreateObject();
    char msg[400];
    snprintf(msg, sizeof msg,
             "\"%s\" is in the expected failures but did not fail: remove the stale entry", e);
    cJSON_AddStringToObject(s, "id", "baseline.stale");
    cJSON_AddStringToObject(s, "requirement", r ? r->id : "OCK-PROC-001");
    cJSON_AddStringToObject(s, "level", "MUST");
    cJSON_AddStringToObject(s, "verdict", "FAIL");
    cJSON_AddStringToObject(s, "expected", "a listed expected failure still fails");
    cJSON_AddStringToObject(s, "actual", "it passed");
    cJSON_AddItemToObject(s, "evidence", cJSON_CreateArray());
    cJSON_AddStringToObject(s, "message", msg);
    cJSON_AddItemToArray(checks, s);
  }
  cJSON_ReplaceItemInObjectCaseSensitive(result, "verdict",
                                         cJSON_CreateString(scenario_verdict(checks)));
  cJSON_ReplaceItemInObjectCaseSensitive(result, "expected_failure", cJSON_CreateBool(excused));
}

/* ---- the worker pool ------------------------------------------------------------------------- */

struct pool {
  const struct run_opts *o;
  const struct scenario_set *set;
  const ock_registry *reg;
  struct run_config cfg;
  cJSON **results; /* one per (scenario, repetition) */
  size_t total;
  _Atomic size_t next;
  size_t done;
  pthread_mutex_t lock;
  int color;
};

static const char *paint(const struct pool *p, const char *verdict) {
  if (!p->color)
    return "";
  if (!strcmp(verdict, "PASS"))
    return "\033[32m";
  if (!strcmp(verdict, "SKIP"))
    return "\033[2m";
  if (!strcmp(verdict, "WARN"))
    return "\033[33m";
  return "\033[31m";
}

static void print_progress(struct pool *p, const cJSON *r) {
  const char *verdict = ock_json_str(r, "verdict");
  int timed_out = ock_json_bool(r, "timed_out", 0);
  if (!strcmp(p->o->format, "jsonl")) {
    cJSON *line = cJSON_CreateObject();
    cJSON_AddStringToObject(line, "scenario", ock_json_str(r, "id"));
    cJSON_AddStringToObject(line, "verdict", verdict);
    cJSON_AddBoolToObject(line, "timed_out", timed_out);
    cJSON_AddBoolToObject(line, "interrupted", ock_json_bool(r, "interrupted", 0));
    cJSON_AddNumberToObject(line, "duration_ms", ock_json_num(r, "duration_ms", 0));
    cJSON *failed = cJSON_AddArrayToObject(line, "failed");
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(r, "checks")) {
      const char *v = ock_json_str(c, "verdict");
      if (v && (!strcmp(v, "FAIL") || !strcmp(v, "ERROR") || !strcmp(v, "WARN")))
        cJSON_AddItemToArray(failed, cJSON_CreateString(ock_json_str(c, "requirement")));
      if (v && (!strcmp(v, "FAIL") || !strcmp(v, "ERROR")) && !cJSON_HasObjectItem(line, "cause") &&
          ock_json_str(c, "message"))
        cJSON_AddStringToObject(line, "cause", ock_json_str(c, "message"));
    }
    char *text = ock_json_print(line);
    printf("%s\n", text);
    free(text);
    cJSON_Delete(line);
  } else {
    printf("[%3zu/%zu] %s%-7s%s %6.2fs  %s", p->done, p->total, paint(p, verdict),
           timed_out ? "TIMEOUT" : verdict, p->color ? "\033[0m" : "",
           ock_json_num(r, "duration_ms", 0) / 1000.0, ock_json_str(r, "id"));
    const cJSON *c, *first = NULL;
    const char *shown[4] = {0};
    int n = 0;
    int cut = ock_json_bool(r, "interrupted", 0); /* its one check is the interrupt itself */
    if (cut)
      printf("  interrupted, not graded");
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(cut ? NULL : r, "checks")) {
      const char *v = ock_json_str(c, "verdict"), *req = ock_json_str(c, "requirement");
      int dup = 0;
      for (int i = 0; i < n; i++)
        dup |= !strcmp(shown[i], req);
      if (v && (!strcmp(v, "FAIL") || !strcmp(v, "ERROR")) && !first)
        first = c;
      if (v && req && !dup && (!strcmp(v, "FAIL") || !strcmp(v, "ERROR")) && n < 4) {
        printf("%s%s", n ? ", " : "  ", n < 3 ? req : "...");
        shown[n++] = req;
      }
    }
    printf("\n");
    /* The cause on a line of its own: the first failing check's message, which quotes what the
     * SUT sent, so escaped (no escape sequence reaches the terminal) and cut to one line. */
    const char *cause = ock_json_str(first, "message");
    if (cause && *cause) {
      char id[80], text[CAUSE_WIDTH + 1];
      printf("          %s: %s\n", ock_escape_terminal(id, sizeof id, ock_json_str(first, "id")),
             ock_escape_terminal(text, sizeof text, cause));
    }
  }
  fflush(stdout);
}

static void *worker(void *arg) {
  struct pool *p = arg;
  for (;;) {
    size_t k = atomic_fetch_add(&p->next, 1);
    if (k >= p->total || interrupted)
      return NULL;
    const struct scenario *sc = &p->set->items[k / (size_t)p->o->repeat];
    cJSON *r = NULL;
    scenario_run(sc, &p->cfg, p->reg, &r);
    if (!r)
      continue;
    if (p->o->repeat > 1) {
      char id[300];
      snprintf(id, sizeof id, "%s#%zu", sc->id, k % (size_t)p->o->repeat + 1);
      cJSON_ReplaceItemInObjectCaseSensitive(r, "id", cJSON_CreateString(id));
    }
    apply_baseline(p->o, r, p->reg);
    pthread_mutex_lock(&p->lock);
    p->results[k] = r;
    p->done++;
    print_progress(p, r);
    pthread_mutex_unlock(&p->lock);
  }
}

/* ---- the report -------------------------------------------------------------------------------
 */

/* iso_now writes the current UTC time as RFC 3339 with milliseconds. */
static void iso_now(char *out, size_t n) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  struct tm tm;
  gmtime_r(&ts.tv_sec, &tm);
  char base[32];
  strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
  snprintf(out, n, "%s.%03ldZ", base, ts.tv_nsec / 1000000);
}

static cJSON *string_array(const struct list *l) {
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; i < l->n; i++)
    cJSON_AddItemToArray(a, cJSON_CreateString(l->items[i]));
  return a;
}

static cJSON *new_report(const struct run_opts *o, const char *started, const ock_registry *reg) {
  cJSON *r = cJSON_CreateObject();
  cJSON_AddNumberToObject(r, "schema_version", OCK_REPORT_SCHEMA_VERSION);
  cJSON *kit = cJSON_AddObjectToObject(r, "kit");
  cJSON_AddStringToObject(kit, "name", "ock");
  cJSON_AddStringToObject(kit, "version", OCK_KIT_VERSION);
  cJSON_AddStringToObject(r, "contract_version", ock_registry_contract_version(reg));
  cJSON_AddNumberToObject(r, "seed", (double)o->seed);
  cJSON_AddStringToObject(r, "started_at", started);
  cJSON_AddStringToObject(r, "finished_at", started);
  cJSON_AddNumberToObject(r, "duration_ms", 0);
  cJSON_AddStringToObject(r, "tier", o->blackbox ? "blackbox" : "instrumented");
  if (o->blackbox)
    cJSON_AddItemToObject(r, "blackbox_coverage", blackbox_coverage(reg));
  cJSON *orch = cJSON_AddObjectToObject(r, "orchestrator");
  cJSON_AddStringToObject(orch, "command", o->orchestrator ? o->orchestrator : "");
  cJSON_AddStringToObject(orch, "name", o->name ? o->name : o->orchestrator ? o->orchestrator : "");
  cJSON *caps = string_array(&o->caps);
  int has_core = 0;
  for (int i = 0; i < o->caps.n; i++)
    has_core |= !strcmp(o->caps.items[i], "core");
  if (!has_core)
    cJSON_InsertItemInArray(caps, 0, cJSON_CreateString("core"));
  cJSON_AddItemToObject(orch, "capabilities", caps);
  cJSON *wires = o->wires.n ? string_array(&o->wires) : cJSON_CreateArray();
  if (!o->wires.n) {
    cJSON_AddItemToArray(wires, cJSON_CreateString("openai"));
    cJSON_AddItemToArray(wires, cJSON_CreateString("anthropic"));
  }
  cJSON_AddItemToObject(orch, "wires", wires);
  if (o->framework)
    cJSON_AddStringToObject(orch, "framework", o->framework);
  if (o->has_emulated)
    cJSON_AddItemToObject(orch, "emulated", string_array(&o->emulated));
  cJSON *opt = cJSON_AddObjectToObject(r, "options");
  cJSON_AddStringToObject(opt, "level",
                          o->level == OCK_LEVEL_MUST     ? "must"
                          : o->level == OCK_LEVEL_SHOULD ? "should"
                                                         : "may");
  cJSON_AddBoolToObject(opt, "strict", o->strict);
  cJSON_AddBoolToObject(opt, "blackbox", o->blackbox);
  cJSON_AddNumberToObject(opt, "jobs", o->jobs);
  char shard[32];
  snprintf(shard, sizeof shard, "%d/%d", o->shard_i, o->shard_n);
  cJSON_AddStringToObject(opt, "shard", shard);
  cJSON_AddNumberToObject(opt, "timeout_s", o->timeout_s);
  cJSON_AddNumberToObject(opt, "time_scale", o->time_scale);
  cJSON_AddNumberToObject(opt, "repeat", o->repeat);
  cJSON_AddStringToObject(opt, "fixtures", o->fixtures ? o->fixtures : "");
  cJSON_AddItemToObject(opt, "case", string_array(&o->cases));
  cJSON_AddItemToObject(opt, "exclude", string_array(&o->excludes));
  cJSON_AddItemToObject(r, "scenarios", cJSON_CreateArray());
  return r;
}

static void print_summary(const struct run_opts *o, const cJSON *report, const char *dir) {
  FILE *f = strcmp(o->format, "jsonl") ? stdout : stderr;
  const cJSON *levels = cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(report, "summary"), "levels");
  fprintf(f, "\n");
  static const char *const names[] = {"MUST", "SHOULD", "MAY"};
  for (int i = 0; i < 3; i++) {
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(levels, names[i]);
    fprintf(f, "%s %lld/%lld%s", names[i], ock_json_int(l, "passed", 0),
            ock_json_int(l, "total", 0), i < 2 ? "   " : "\n");
  }
  const cJSON *r;
  int shown = 0;
  cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(report, "requirements")) {
    const char *v = ock_json_str(r, "verdict");
    if (!v || (strcmp(v, "FAIL") && strcmp(v, "ERROR") && strcmp(v, "WARN")))
      continue;
    if (!shown++)
      fprintf(f, "\nNot met:\n");
    fprintf(f, "  %-5s %-18s %s\n", v, ock_json_str(r, "id"), ock_json_str(r, "text"));
  }
  const char *sig = ock_json_str(report, "interrupt_signal");
  if (sig)
    fprintf(f,
            "\nThe run was interrupted (%s): %d scenario run(s) finished or were cut short "
            "(ERROR, interrupted); the rest did not start. The reports are partial.\n",
            sig, cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(report, "scenarios")));
  fprintf(f, "\nverdict %s; reports: %s/report.json, junit.xml, summary.md, report.html\n",
          ock_json_str(report, "verdict"), dir);
}

/* command_not_found: every scenario that ran ended with the shell's 127 at once, printing
 * nothing on stdout: the command is missing, not a non-conforming orchestrator. Writes the
 * shell's message into why. */
static int command_not_found(const cJSON *scenarios, char *why, size_t n) {
  const cJSON *sc;
  const char *err = NULL;
  int ran = 0;
  cJSON_ArrayForEach(sc, scenarios) {
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(sc, "process");
    if (!p)
      continue; /* skipped */
    if (ock_json_int(p, "exit_code", -1) != 127 || ock_json_num(p, "stdout_bytes", 1) > 0 ||
        ock_json_num(p, "wall_ms", 1e9) > 5000)
      return 0;
    ran++;
    err = ock_json_str(p, "stderr");
  }
  if (!ran)
    return 0;
  size_t len = err ? strcspn(err, "\n") : 0;
  snprintf(why, n,
           "--orchestrator: the command exited at once with status 127 (not found) in every "
           "scenario%s%.*s",
           len ? ": " : "", (int)(len < 400 ? len : 400), err ? err : "");
  return 1;
}

/* write_reports fills the aggregates and writes the four files; returns the exit code. */
static int write_reports(cJSON *report, const ock_registry *reg, const char *dir, int forced_exit) {
  ock_report_summarize(report, reg);
  if (forced_exit) {
    cJSON_ReplaceItemInObjectCaseSensitive(report, "exit_code", cJSON_CreateNumber(forced_exit));
    cJSON_ReplaceItemInObjectCaseSensitive(report, "verdict", cJSON_CreateString("INCOMPLETE"));
  }
  char err[600];
  if (ock_report_write_all(report, dir, err, sizeof err)) {
    fprintf(stderr, "ock: could not write the reports: %s\n", err);
    return EXIT_INCOMPLETE;
  }
  return (int)ock_json_int(report, "exit_code", EXIT_INCOMPLETE);
}

int cmd_run(int argc, char **argv) {
  struct run_opts o;
  char err[1200];
  int pr = parse_options(argc, argv, &o, err, sizeof err);
  if (pr > 0) {
    fputs(usage, stdout);
    return EXIT_PASS;
  }
  ock_registry *reg = NULL;
  struct ock_jerr je;
  if (ock_registry_load_builtin(&reg, &je)) {
    fprintf(stderr, "ock: the built-in registry is broken: %s: %s\n", je.where, je.what);
    return EXIT_INCOMPLETE;
  }
  char started[32];
  iso_now(started, sizeof started);
  if (!pr && check_out_dir(o.out_dir, err, sizeof err))
    pr = -1;
  if (!pr && o.manifest)
    pr = load_manifest(&o, err, sizeof err) ? -1 : 0;
  if (!pr && o.baseline)
    pr = load_baseline(&o, err, sizeof err) ? -1 : 0;
  if (!pr && cli_fixtures_missing(o.fixtures, err, sizeof err))
    pr = -1;
  int usage_error = pr < 0; /* a fixture error below still writes its report */
  struct scenario_set set = {0};
  /* All of them first: a baseline entry may name a scenario --case leaves out. */
  if (!pr && scenarios_load(o.fixtures, reg, NULL, NULL, &set, err, sizeof err))
    pr = -1;
  if (!pr && baseline_unknown(&o, &set, reg, err, sizeof err)) {
    pr = -1;
    usage_error = 1;
  }
  if (!pr)
    scenarios_select(&set, o.cases.items, o.excludes.items);
  if (pr < 0) {
    char safe[4 * sizeof err]; /* it may quote a fixture or a manifest */
    fprintf(stderr, "ock: %s\n", ock_escape_terminal(safe, sizeof safe, err));
    char why[200];
    /* A usage error names no directory unless -o did, and that one must be usable: the
     * reports of an earlier run are never overwritten by a mistyped command line. */
    if (!usage_error || (o.out_named && !check_out_dir(o.out_dir, why, sizeof why))) {
      cJSON *report = new_report(&o, started, reg);
      cJSON_AddStringToObject(report, "error", err);
      write_reports(report, reg, o.out_dir, EXIT_USAGE);
      cJSON_Delete(report);
    }
    scenarios_free(&set); /* loaded whole when only a baseline entry was wrong */
    cJSON_Delete(o.manifest_json);
    free(o.baseline_text);
    ock_registry_free(reg);
    return EXIT_USAGE;
  }
  scenarios_shard(&set, o.shard_i, o.shard_n);

  char journal_dir[4200];
  snprintf(journal_dir, sizeof journal_dir, "%s/journals", o.out_dir);
  if (o.journals) {
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "%s", journal_dir);
    for (char *p = cmd + 1; *p; p++)
      if (*p == '/') {
        *p = '\0';
        mkdir(cmd, 0755);
        *p = '/';
      }
    mkdir(cmd, 0755);
  }

  struct sigaction sa = {0}, old_int, old_term, old_hup, old_pipe;
  sa.sa_handler = on_interrupt;
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  sigaction(SIGHUP, &sa, &old_hup);
  sa.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &sa, &old_pipe);

  struct pool p = {.o = &o,
                   .set = &set,
                   .reg = reg,
                   .total = set.n * (size_t)o.repeat,
                   .color = !strcmp(o.format, "human") && use_color(stdout)};
  const char *declared[OCK_CAP_LIST_ITEMS + 2];
  int nd = 0;
  declared[nd++] = "core";
  for (int i = 0; i < o.caps.n; i++)
    declared[nd++] = o.caps.items[i];
  declared[nd] = NULL;
  const char *wires[OCK_CAP_LIST_ITEMS + 1];
  for (int i = 0; i < o.wires.n; i++)
    wires[i] = o.wires.items[i];
  wires[o.wires.n] = NULL;
  p.cfg = (struct run_config){.command = o.orchestrator,
                              .declared = declared,
                              .wires = o.wires.n ? wires : NULL,
                              .timeout_s = o.timeout_s,
                              .time_scale = o.time_scale,
                              .output_cap = OCK_CAP_SUT_OUTPUT,
                              .seed = o.seed,
                              .level = o.level,
                              .strict = o.strict,
                              .observe_only = o.observe_only,
                              .blackbox = o.blackbox,
                              .journal_dir = o.journals ? journal_dir : NULL,
                              .abort_flag = &interrupted};
  p.results = calloc(p.total + 1, sizeof *p.results);
  pthread_mutex_init(&p.lock, NULL);
  if (!strcmp(o.format, "human"))
    printf("ock %s: %zu scenario(s) against %s, %d job(s)\n", OCK_KIT_VERSION, p.total,
           o.orchestrator, o.jobs);
  if (!strcmp(o.format, "human"))
    printf("tier: %s\n",
           o.blackbox ? "blackbox (graded from the traffic; SPEC.md 9.7)" : "instrumented");
  int jobs = o.jobs < (int)p.total ? o.jobs : (int)p.total;
  pthread_t threads[256];
  for (int i = 0; i < jobs; i++)
    pthread_create(&threads[i], NULL, worker, &p);
  for (int i = 0; i < jobs; i++)
    pthread_join(threads[i], NULL);

  cJSON *report = new_report(&o, started, reg);
  cJSON *scen = cJSON_GetObjectItemCaseSensitive(report, "scenarios");
  for (size_t k = 0; k < p.total; k++)
    if (p.results[k])
      cJSON_AddItemToArray(scen, p.results[k]);
  char finished[32];
  iso_now(finished, sizeof finished);
  cJSON_ReplaceItemInObjectCaseSensitive(report, "finished_at", cJSON_CreateString(finished));
  long long a = 0, b = 0;
  ock_report_time_ms(started, &a);
  ock_report_time_ms(finished, &b);
  cJSON_ReplaceItemInObjectCaseSensitive(report, "duration_ms",
                                         cJSON_CreateNumber((double)(b - a)));
  char not_found[700];
  int missing = !interrupted && command_not_found(scen, not_found, sizeof not_found);
  if (missing) {
    char safe[800]; /* it quotes the SUT's stderr */
    fprintf(stderr, "ock: %s\n", ock_escape_terminal(safe, sizeof safe, not_found));
    cJSON_AddStringToObject(report, "error", not_found);
  }
  if (interrupted) {
    cJSON_AddBoolToObject(report, "interrupted", 1);
    cJSON_AddStringToObject(report, "interrupt_signal", sut_signal_name(interrupted));
  }
  int code = write_reports(report, reg, o.out_dir,
                           missing       ? EXIT_USAGE
                           : interrupted ? EXIT_INCOMPLETE
                                         : 0);
  print_summary(&o, report, o.out_dir);
  if (!p.total)
    fprintf(stderr, "ock: no scenario ran (check --fixtures, --case, --exclude, --shard)\n");

  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  sigaction(SIGHUP, &old_hup, NULL);
  sigaction(SIGPIPE, &old_pipe, NULL);
  pthread_mutex_destroy(&p.lock);
  free(p.results);
  cJSON_Delete(report);
  scenarios_free(&set);
  cJSON_Delete(o.manifest_json);
  free(o.baseline_text);
  ock_registry_free(reg);
  return code;
}
