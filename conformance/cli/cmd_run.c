/*
 * cmd_run.c: `ock run`, the main job: every selected scenario against the SUT, graded, with a
 * line per scenario as it finishes, a summary at the end, and the four reports written on
 * every exit path (also on a fixture error and on Ctrl-C).
 */
#include <errno.h>
#include <stddef.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "checks/blackbox.h"
#include "checks/checklist.h"
#include "cli/cli.h"
#include "cli/manifest.h"
#include "report/escape.h"
#include "checks/grade.h"
#include "ock/caps.h"
#include "ock/contract.h"
#include "ock/json.h"
#include "ock/options.h"
#include "ock/registry.h"
#include "ock/status.h"
#include "report/render.h"
#include "ock/wire_list.h"
#include "report/causes.h"
#include "report/report.h"
#include "run/scenario_run.h"
#include "run/sentinel.h"
#include "run/scenarios.h"
#include "run/sut.h"

#define MAX_LIST OCK_OPTION_LIST_MAX
#define CONSOLE_CAUSES 8 /* first causes the last screen lists; the reports list all */
#define CAUSE_WIDTH 160  /* bytes of a FAIL line's cause on the console */

static const char usage_head[] =
    "usage: ock run --orchestrator CMD [options]\n"
    "\n"
    "Runs every scenario against the orchestrator CMD (run by /bin/sh -c, in its own process\n"
    "group, with OCK_URL and the provider variables of SPEC.md section 7 in its environment),\n"
    "grades it, prints a line per scenario and a summary, and writes report.json, junit.xml,\n"
    "summary.md and report.html.\n"
    "\n";

static const char usage_tail[] =
    "\n"
    "Exit: 0 every scored check passed, 1 a check failed, 2 usage or fixture error, 3 incomplete\n"
    "(a scenario could not be graded, nothing ran, or the run was interrupted by SIGINT, SIGTERM\n"
    "or SIGHUP: every SUT is killed, the reports are written, cut-short scenarios are ERROR).\n";

static void list_add(struct ock_option_list *l, const char *s) {
  if (l->n < MAX_LIST)
    l->items[l->n++] = s;
  l->items[l->n] = NULL;
}

struct run_opts {
  const char *orchestrator, *name, *fixtures, *out_dir, *format, *manifest, *baseline;
  const char *framework; /* the manifest's framework, or NULL */
  struct ock_option_list caps, cases, excludes, expected, wires;
  struct ock_option_list emulated; /* the manifest's emulated policies: done by the SUT's bridge */
  int has_emulated;                /* the manifest has an emulated member */
  int level;                       /* enum ock_level */
  int strict, jobs, shard_i, shard_n, repeat, observe_only, journals;
  int blackbox, help;
  const char *shard; /* "I/N" as given */
  int out_named;     /* -o was given: error reports may go there */
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

/* parse_shard reads "I/N" with 1 <= I <= N <= 100000. */
static int parse_shard(const char *s, int *i, int *n) {
  int a = 0, b = 0;
  const struct ock_option part[] = {{"shard", 0, OCK_OPT_INT, &a, 1, 100000},
                                    {"shard", 0, OCK_OPT_INT, &b, 1, 100000}};
  char text[32], *slash, why[200];
  snprintf(text, sizeof text, "%s", s);
  if (strlen(s) >= sizeof text || !(slash = strchr(text, '/')))
    return -1;
  *slash = '\0';
  if (ock_option_set(&part[0], text, "--shard", why, sizeof why) ||
      ock_option_set(&part[1], slash + 1, "--shard", why, sizeof why) || a > b)
    return -1;
  *i = a;
  *n = b;
  return 0;
}

/* load_manifest reads the manifest of SPEC.md 7.9 (cli/manifest.h): its lists join the
 * command line's, its name names the run unless --name does. */
static int load_manifest(struct run_opts *o, char *err, size_t n) {
  struct ock_manifest m;
  int rc = ock__manifest_load(o->manifest, &m, err, n);
  o->manifest_json = m.json; /* owns the strings */
  if (!rc)
    rc = ock__manifest_merge(&m, o->manifest, &o->caps, &o->wires, err, n);
  if (rc)
    return rc;
  for (int i = 0; i < m.expected.n; i++)
    list_add(&o->expected, m.expected.items[i]);
  o->framework = m.framework;
  o->emulated = m.emulated;
  o->has_emulated = m.has_emulated;
  if (!o->name)
    o->name = m.name;
  return OCK_OK;
}

static int load_baseline(struct run_opts *o, char *err, size_t n) {
  FILE *f = fopen(o->baseline, "r");
  if (!f) {
    snprintf(err, n, "%s: cannot open the expected-failures file: %s", o->baseline,
             strerror(errno));
    return OCK_EIO;
  }
  o->baseline_text = malloc(OCK_MAX_BASELINE + 1);
  if (!o->baseline_text) {
    fclose(f);
    snprintf(err, n, "%s: out of memory for the expected-failures file", o->baseline);
    return OCK_ENOMEM;
  }
  size_t len = fread(o->baseline_text, 1, OCK_MAX_BASELINE, f);
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
    if (!*line)
      continue;
    if (o->expected.n >= MAX_LIST) {
      snprintf(err, n, "%s: more than %d expected-failures entries; the kit reads at most %d",
               o->baseline, MAX_LIST, MAX_LIST);
      return OCK_ETYPE;
    }
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
    /* "<id>@<wire>" of a wire this run does not play names a scenario all the same: one
     * baseline may serve runs on different wires */
    char *at = strrchr(id, '@');
    if (at && ock_wire_by_name(at + 1, NULL))
      *at = '\0';
    if (!ock__scenarios_find(all, id)) {
      snprintf(err, n,
               "expected failures: the entry \"%.300s\" names no scenario of %s (see ock list "
               "scenarios)",
               e, o->fixtures);
      return -1;
    }
    if (colon && !ock_registry_find(reg, colon + 1) && !ock__checklist_find(colon + 1)) {
      snprintf(err, n,
               "expected failures: the entry \"%.300s\" names no requirement or check id after "
               "the colon (see ock list requirements, ock explain ID)",
               e);
      return -1;
    }
  }
  return 0;
}

static const char *const level_names[] = {"must", "should", "may", NULL}; /* enum ock_level */
static const char *const formats[] = {"human", "jsonl", NULL};
enum { RUN_OPTIONS = 26 };

/* run_options fills t with the options of ock run, stored into o and *format. */
static void run_options(struct run_opts *o, int *format, struct ock_option t[RUN_OPTIONS]) {
  const struct ock_option rows[] = {
      {"orchestrator", 0, OCK_OPT_STRING, &o->orchestrator, .metavar = "CMD",
       .help = "the system under test (required)"},
      {"capabilities", 0, OCK_OPT_LIST, &o->caps, .values = ock_capabilities, .metavar = "LIST",
       .help = "what it supports, comma-separated: core, streaming, parallel,\n"
               "scheduling, lifecycle, resilience, cancellation (core is implied)"},
      {"wires", 0, OCK_OPT_LIST, &o->wires, .values = ock__wire_option_names(), .metavar = "LIST",
       .help = ock__wire_option_help(
           ". A scenario pinned to another wire is\n"
           "SKIP; a wire-less one plays on each, as ID@WIRE (on one wire, or\n"
           "with none declared on openai, as ID)")},
      {"manifest", 0, OCK_OPT_STRING, &o->manifest, .metavar = "FILE",
       .help = "JSON {name, capabilities, wires, expected_failures, framework,\nemulated} instead"},
      {"name", 0, OCK_OPT_STRING, &o->name, .metavar = "NAME",
       .help = "the orchestrator's name in the reports"},
      {"fixtures", 0, OCK_OPT_STRING, &o->fixtures, .metavar = "DIR",
       .help = "the scenarios (default: $OCK_FIXTURES, the installed ones, or\n./fixtures)"},
      {"case", 0, OCK_OPT_LIST, &o->cases, .metavar = "GLOB",
       .help = "run only scenarios whose id matches (repeatable; a,b is both)"},
      {"exclude", 0, OCK_OPT_LIST, &o->excludes, .metavar = "GLOB",
       .help = "never start scenarios whose id matches (repeatable; a,b is both)"},
      {"level", 0, OCK_OPT_ENUM, &o->level, .values = level_names,
       .help = "the highest requirement level graded (default should)"},
      {"strict", 0, OCK_OPT_FLAG, &o->strict, .help = "SHOULD failures fail the run"},
      {"jobs", 0, OCK_OPT_INT, &o->jobs, 1, 256, .metavar = "N",
       .help = "scenarios in parallel, each with its own mock (default: CPUs)"},
      {"shard", 0, OCK_OPT_STRING, &o->shard, .metavar = "I/N",
       .help = "run the I-th of N shards (merge them with `ock report merge`)"},
      {"timeout", 0, OCK_OPT_DOUBLE, &o->timeout_s, 0.1, 86400, .unit = "seconds", .metavar = "S",
       .help = "seconds per scenario before the SUT's group is killed (default 30)"},
      {"time-scale", 0, OCK_OPT_DOUBLE, &o->time_scale, 0.01, 1000, .unit = "a factor",
       .metavar = "X",
       .help = "multiply the timeout and the late tolerance of timing checks, for\n"
               "slow machines and sanitizer builds (default 1, or $OCK_TIME_SCALE)"},
      {"repeat", 0, OCK_OPT_INT, &o->repeat, 1, 10000, .metavar = "N",
       .help = "run each scenario N times (flake hunting)"},
      {"seed", 0, OCK_OPT_U64, &o->seed, .metavar = "N",
       .help = "seed for random faults (default 0: the fixtures' own)"},
      {"expected-failures", 0, OCK_OPT_STRING, &o->baseline, .metavar = "FILE",
       .help = "baseline: lines \"scenario\" or \"scenario:ID\" (ID: a requirement\n"
               "or a check); listed failures pass, listed passes fail as stale"},
      {"observe-only", 0, OCK_OPT_FLAG, &o->observe_only,
       .help = "the mock answers broken histories normally (findings still graded)"},
      {"journals", 0, OCK_OPT_FLAG, &o->journals,
       .help = "also write each scenario's mock journal (JSONL) under DIR/journals"},
      {"blackbox", 0, OCK_OPT_FLAG, &o->blackbox,
       .help = "the SUT posts no events and reads no session: prompts on stdin,\n"
               "one a line; graded from the traffic (SPEC.md 9.7)"},
      {NULL, 'o', OCK_OPT_STRING, &o->out_dir, .metavar = "DIR",
       .help = "report directory (default reports/latest)"},
      {"format", 0, OCK_OPT_ENUM, format, .values = formats,
       .help = "console output (default human)"},
      {"help", 'h', OCK_OPT_FLAG, &o->help, .help = "print this and exit"},
      {0}};
  _Static_assert(sizeof rows / sizeof rows[0] <= RUN_OPTIONS, "RUN_OPTIONS too small");
  memcpy(t, rows, sizeof rows);
}

static void print_usage(void) {
  struct run_opts o = {0};
  int format = 0;
  struct ock_option t[RUN_OPTIONS];
  run_options(&o, &format, t);
  fputs(usage_head, stdout);
  ock_options_help(t, stdout);
  fputs(usage_tail, stdout);
}

/* parse_options returns 1 for --help, 0, or -1 with the first mistake in err. On a mistake the
 * options after it are still read, so that -o is known wherever it stands: the error report
 * goes to the directory the user named, or nowhere. */
static int parse_options(int argc, char **argv, struct run_opts *o, char *err, size_t n) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  char *scale_env = getenv("OCK_TIME_SCALE");
  *o = (struct run_opts){.level = OCK_LEVEL_SHOULD,
                         .jobs = cpus > 0 ? (int)cpus : 1,
                         .shard_i = 1,
                         .shard_n = 1,
                         .repeat = 1,
                         .timeout_s = 30,
                         .time_scale = 1};
  int format = 0, npos = 0;
  struct ock_option t[RUN_OPTIONS];
  run_options(o, &format, t);
  int bad = scale_env &&
            ock_option_set(ock_option_find(t, "time-scale"), scale_env, "OCK_TIME_SCALE", err, n);
  char later[1024] = "";
  if (ock_options_parse(t, argc, argv, &npos, bad ? later : err, bad ? sizeof later : n))
    bad = 1;
  o->format = formats[format];
  o->out_named = o->out_dir != NULL;
  if (!o->out_dir)
    o->out_dir = "reports/latest";
  if (o->help)
    return 1;
  if (!bad && o->shard && parse_shard(o->shard, &o->shard_i, &o->shard_n)) {
    snprintf(err, n, "--shard: expected I/N with 1 <= I <= N, got \"%s\"", o->shard);
    bad = 1;
  }
  if (bad)
    return -1;
  if (npos > 0) {
    snprintf(err, n, "unexpected argument \"%s\" (see ock run --help)", argv[1]);
    return -1;
  }
  if (!o->orchestrator || !*o->orchestrator) {
    snprintf(err, n, "--orchestrator CMD is required and not empty (see ock run --help)");
    return -1;
  }
  if (!o->fixtures)
    o->fixtures = ock__default_fixtures_dir();
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

/* entry_names: the length of the scenario part of baseline entry e ("scenario" or
 * "scenario:ID") when it names result: its id, its alias, "<fixture id>@<wire>" (exactly this
 * run), or the fixture's id when the run plays it on several wires (every wire of it); else 0.
 * *exact: it names this very run. */
static size_t entry_names(const char *e, const cJSON *result, int *exact) {
  const char *colon = strchr(e, ':');
  size_t len = colon ? (size_t)(colon - e) : strlen(e);
  char wire_id[600] = "";
  const char *fixture = ock_json_str(result, "fixture_id"), *wire = ock_json_str(result, "wire");
  if (fixture && wire)
    snprintf(wire_id, sizeof wire_id, "%s@%s", fixture, wire);
  const char *names[] = {ock_json_str(result, "id"), ock_json_str(result, "alias"), wire_id,
                         fixture};
  for (int k = 0; k < 4; k++) {
    if (names[k] && *names[k] && strlen(names[k]) == len && !strncmp(e, names[k], len)) {
      *exact = k < 3;
      return len;
    }
  }
  return 0;
}

static int listed(const struct run_opts *o, const cJSON *result, const char *req, const char *check,
                  int *used) {
  for (int i = 0; i < o->expected.n; i++) {
    const char *e = o->expected.items[i];
    int exact = 0;
    size_t sl = entry_names(e, result, &exact);
    if (!sl)
      continue;
    if (!e[sl] || !strcmp(e + sl + 1, req) || !strcmp(e + sl + 1, check)) {
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
  if (!o->expected.n || (verdict && !strcmp(verdict, OCK_V_SKIP)))
    return; /* a scenario not run has nothing to excuse, and proves no entry stale */
  int used[MAX_LIST] = {0};
  int excused = 0;
  cJSON *checks = cJSON_GetObjectItemCaseSensitive(result, "checks"), *c;
  cJSON_ArrayForEach(c, checks) {
    const char *v = ock_json_str(c, "verdict");
    if (!v || (strcmp(v, OCK_V_FAIL) && strcmp(v, OCK_V_WARN)))
      continue;
    if (listed(o, result, ock_json_str(c, "requirement"), ock_json_str(c, "id"), used)) {
      /* It passes the run, and stays counted apart as the failure it was (SPEC.md 9.3). */
      cJSON_AddStringToObject(c, "waived", v);
      cJSON_ReplaceItemInObjectCaseSensitive(c, "verdict", cJSON_CreateString(OCK_V_PASS));
      cJSON_AddBoolToObject(c, "expected_failure", 1);
      excused = 1;
    }
  }
  for (int i = 0; i < o->expected.n; i++) {
    const char *e = o->expected.items[i];
    int exact = 0;
    size_t sl = entry_names(e, result, &exact);
    /* An entry for every wire of a scenario may excuse a failure of another wire: only one that
     * names this very run is stale here. */
    if (used[i] || !sl || !exact)
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
    cJSON_AddStringToObject(s, "verdict", OCK_V_FAIL);
    cJSON_AddStringToObject(s, "expected", "a listed expected failure still fails");
    cJSON_AddStringToObject(s, "actual", "it passed");
    cJSON_AddItemToObject(s, "evidence", cJSON_CreateArray());
    cJSON_AddStringToObject(s, "message", msg);
    cJSON_AddItemToArray(checks, s);
  }
  cJSON_ReplaceItemInObjectCaseSensitive(result, "verdict",
                                         cJSON_CreateString(ock__scenario_verdict(checks)));
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
  if (!strcmp(verdict, OCK_V_PASS))
    return "\033[32m";
  if (!strcmp(verdict, OCK_V_SKIP))
    return "\033[2m";
  if (!strcmp(verdict, OCK_V_WARN))
    return "\033[33m";
  return "\033[31m";
}

/* shown_cause: the FAIL or ERROR check a scenario's line names: its first cause (causes.h),
 * else NULL (then the first failing check is named). */
static const cJSON *shown_cause(const cJSON *r) {
  const cJSON *c = ock_scenario_first_cause(r);
  return ock_verdict_severity(ock_json_str(c, "verdict")) >= 3 ? c : NULL;
}

/* line_cause: the check a scenario's line names. A scenario that could not be graded (ERROR)
 * names the check that made it so (a cut journal, say); any other its first cause; else the
 * check behind its verdict. */
static const cJSON *line_cause(const cJSON *r) {
  const cJSON *c = shown_cause(r);
  if (c && strcmp(ock_json_str(r, "verdict"), OCK_V_ERROR))
    return c;
  return ock_report_scenario_cause(r);
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
    cJSON *waived = cJSON_AddArrayToObject(line, "waived");
    const cJSON *c = line_cause(r);
    if (c && ock_json_str(c, "message"))
      cJSON_AddStringToObject(line, "cause", ock_json_str(c, "message"));
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(r, "checks")) {
      const char *v = ock_json_str(c, "verdict");
      const char *req = ock_json_str(c, "requirement");
      if (ock_json_str(c, "waived"))
        cJSON_AddItemToArray(waived, cJSON_CreateString(req));
      int listed = 0; /* one requirement, however many of its checks failed */
      const cJSON *f;
      cJSON_ArrayForEach(f, failed)
        listed |= req && !strcmp(f->valuestring, req);
      if (v && req && !listed &&
          (!strcmp(v, OCK_V_FAIL) || !strcmp(v, OCK_V_ERROR) || !strcmp(v, OCK_V_WARN)))
        cJSON_AddItemToArray(failed, cJSON_CreateString(req));
    }
    char *text = ock_json_print(line);
    if (text)
      printf("%s\n", text);
    else /* the report still has the scenario; only its progress line is lost */
      fprintf(stderr, "ock: out of memory for the progress line of %s\n", ock_json_str(r, "id"));
    free(text);
    cJSON_Delete(line);
  } else {
    int waived = !strcmp(verdict, OCK_V_PASS) && ock_json_bool(r, "expected_failure", 0);
    printf("[%3zu/%zu] %s%-7s%s %6.2fs  %s", p->done, p->total,
           paint(p, waived ? OCK_V_WARN : verdict),
           timed_out ? "TIMEOUT"
           : waived  ? "WAIVED"
                     : verdict,
           p->color ? "\033[0m" : "", ock_json_num(r, "duration_ms", 0) / 1000.0,
           ock_json_str(r, "id"));
    int cut = ock_json_bool(r, "interrupted", 0); /* its one check is the interrupt itself */
    const cJSON *c, *first = cut ? NULL : line_cause(r);
    const char *shown[4] = {0};
    int n = 0;
    if (cut)
      printf("  interrupted, not graded");
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(cut ? NULL : r, "checks")) {
      const char *v = ock_json_str(c, "verdict"), *req = ock_json_str(c, "requirement");
      int dup = 0;
      for (int i = 0; i < n; i++)
        dup |= !strcmp(shown[i], req);
      if (ock_json_str(c, "waived")) /* a waived failure is named as the failure it was */
        v = ock_json_str(c, "waived");
      if (v && (!strcmp(v, OCK_V_FAIL) || !strcmp(v, OCK_V_ERROR)) && !first)
        first = c;
      if (v && req && !dup && (!strcmp(v, OCK_V_FAIL) || !strcmp(v, OCK_V_ERROR)) && n < 4) {
        printf("%s%s", n ? ", " : "  ", n < 3 ? req : "...");
        shown[n++] = req;
      }
    }
    printf("\n");
    /* The cause on a line of its own: the message of the check behind the verdict, which quotes
     * what the SUT sent, so escaped (no escape sequence reaches the terminal) and cut to one
     * line. */
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
    ock__scenario_run(sc, &p->cfg, p->reg, &r);
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

static cJSON *string_array(const struct ock_option_list *l) {
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
    cJSON_AddItemToObject(r, "blackbox_coverage", ock__blackbox_coverage(reg));
  cJSON *orch = cJSON_AddObjectToObject(r, "orchestrator");
  cJSON_AddStringToObject(orch, "command", o->orchestrator ? o->orchestrator : "");
  cJSON_AddStringToObject(orch, "name", o->name ? o->name : o->orchestrator ? o->orchestrator : "");
  cJSON *caps = string_array(&o->caps);
  int has_core = 0;
  for (int i = 0; i < o->caps.n; i++)
    has_core |= !strcmp(o->caps.items[i], OCK_CAP_CORE);
  if (!has_core)
    cJSON_InsertItemInArray(caps, 0, cJSON_CreateString(OCK_CAP_CORE));
  cJSON_AddItemToObject(orch, "capabilities", caps);
  cJSON *wires = o->wires.n ? string_array(&o->wires) : cJSON_CreateArray();
  for (size_t i = 0; !o->wires.n && ock__default_wires[i]; i++)
    cJSON_AddItemToArray(wires, cJSON_CreateString(ock__default_wires[i]));
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

static void print_summary(const struct run_opts *o, const cJSON *report, const char *dir,
                          int written) {
  FILE *f = strcmp(o->format, "jsonl") ? stdout : stderr;
  const cJSON *levels = cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(report, "summary"), "levels");
  fprintf(f, "\n");
  static const char *const names[] = {"MUST", "SHOULD", "MAY"};
  for (int i = 0; i < 3; i++) {
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(levels, names[i]);
    long long waived = ock_json_int(l, "waived", 0);
    fprintf(f, "%s %lld/%lld", names[i], ock_json_int(l, "passed", 0), ock_json_int(l, "total", 0));
    if (waived)
      fprintf(f, ", %lld waived", waived);
    fprintf(f, "%s", i < 2 ? "   " : "\n");
  }
  /* Not met first, then what the baseline waived: a waived failure is not a pass. */
  for (int waived = 0; waived < 2; waived++) {
    const cJSON *r;
    int shown = 0;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(report, "requirements")) {
      const char *v = ock_json_str(r, "verdict");
      if (!v || (strcmp(v, OCK_V_FAIL) && strcmp(v, OCK_V_ERROR) && strcmp(v, OCK_V_WARN)) ||
          ock_json_bool(r, "waived", 0) != waived)
        continue;
      if (!shown++)
        fprintf(f, waived ? "\nWaived (--expected-failures; they do not fail the run):\n"
                          : "\nNot met:\n");
      fprintf(f, "  %-5s %-18s %s\n", v, ock_json_str(r, "id"), ock_json_str(r, "text"));
    }
  }
  ock__cli_print_causes(f, report, CONSOLE_CAUSES);
  const char *sig = ock_json_str(report, "interrupt_signal");
  if (sig)
    fprintf(f,
            "\nThe run was interrupted (%s): %d scenario run(s) finished or were cut short "
            "(ERROR, interrupted); the rest did not start. The reports are partial.\n",
            sig, cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(report, "scenarios")));
  if (written)
    fprintf(f, "\nverdict %s; reports: %s/report.json, junit.xml, summary.md, report.html\n",
            ock_json_str(report, "verdict"), dir);
  else /* never point at files this run did not write */
    fprintf(f, "\nverdict %s; the reports were NOT written (see the error above)\n",
            ock_json_str(report, "verdict"));
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

/* write_reports fills the aggregates and writes the four files, *written saying whether it
 * did; returns the exit code. */
static int write_reports(cJSON *report, const ock_registry *reg, const char *dir, int forced_exit,
                         int *written) {
  ock_report_summarize(report, reg);
  if (forced_exit) {
    cJSON_ReplaceItemInObjectCaseSensitive(report, "exit_code", cJSON_CreateNumber(forced_exit));
    cJSON_ReplaceItemInObjectCaseSensitive(report, "verdict", cJSON_CreateString("INCOMPLETE"));
  }
  char err[600];
  *written = !ock_report_write_all(report, dir, err, sizeof err);
  if (!*written) {
    char safe[4 * 600]; /* the path may hold anything */
    fprintf(stderr, "ock: could not write the reports: %s\n",
            ock_escape_terminal(safe, sizeof safe, err));
    return EXIT_INCOMPLETE;
  }
  return (int)ock_json_int(report, "exit_code", EXIT_INCOMPLETE);
}

/* load_inputs checks the report directory, reads the manifest, the baseline and every scenario
 * (a baseline entry may name a scenario --case leaves out), then selects. Returns 0, or -1 with
 * err and *usage_error set when the mistake is the command line's (its report goes only where
 * -o said); a fixture error still writes its report. */
static int load_inputs(struct run_opts *o, const ock_registry *reg, struct scenario_set *set,
                       int *usage_error, char *err, size_t n) {
  *usage_error = 1;
  if (check_out_dir(o->out_dir, err, n) || (o->manifest && load_manifest(o, err, n)) ||
      (o->baseline && load_baseline(o, err, n)) || ock__cli_fixtures_missing(o->fixtures, err, n))
    return -1;
  *usage_error = 0;
  if (ock__scenarios_load(o->fixtures, reg, NULL, NULL, set, err, n))
    return -1;
  const char *wires[OCK_MAX_LIST_ITEMS + 1];
  for (int i = 0; i < o->wires.n && i < OCK_MAX_LIST_ITEMS; i++)
    wires[i] = o->wires.items[i];
  wires[o->wires.n < OCK_MAX_LIST_ITEMS ? o->wires.n : OCK_MAX_LIST_ITEMS] = NULL;
  if (ock__scenarios_expand(set, o->wires.n ? wires : NULL)) {
    snprintf(err, n, "out of memory while laying out the scenarios on each wire");
    return -1;
  }
  if (baseline_unknown(o, set, reg, err, n)) {
    *usage_error = 1;
    return -1;
  }
  ock__scenarios_select(set, o->cases.items, o->excludes.items);
  return 0;
}

/* fail_early prints err and, unless it is a usage error without a usable -o, writes the error
 * report: the reports of an earlier run are never overwritten by a mistyped command line. */
static void fail_early(const struct run_opts *o, const ock_registry *reg, const char *started,
                       int usage_error, const char *err) {
  char safe[4 * 1200]; /* it may quote a fixture or a manifest */
  fprintf(stderr, "ock: %s\n", ock_escape_terminal(safe, sizeof safe, err));
  char why[200];
  if (!usage_error || (o->out_named && !check_out_dir(o->out_dir, why, sizeof why))) {
    cJSON *report = new_report(o, started, reg);
    cJSON_AddStringToObject(report, "error", err);
    int written;
    write_reports(report, reg, o->out_dir, EXIT_USAGE, &written);
    cJSON_Delete(report);
  }
}

/* The dispositions ock__cmd_run replaces while it runs, and gives back. */
struct signals {
  struct sigaction old_int, old_term, old_hup, old_pipe;
};

static void signals_take(struct signals *s) {
  struct sigaction sa = {0};
  sa.sa_handler = on_interrupt;
  sigaction(SIGINT, &sa, &s->old_int);
  sigaction(SIGTERM, &sa, &s->old_term);
  sigaction(SIGHUP, &sa, &s->old_hup);
  sa.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &sa, &s->old_pipe);
}

static void signals_give_back(const struct signals *s) {
  sigaction(SIGINT, &s->old_int, NULL);
  sigaction(SIGTERM, &s->old_term, NULL);
  sigaction(SIGHUP, &s->old_hup, NULL);
  sigaction(SIGPIPE, &s->old_pipe, NULL);
}

/* run_pool runs every (scenario, repetition) of set on o->jobs threads into p->results.
 * p->cfg points into this frame: it is not used after the return. */
static void run_pool(struct pool *p, const char *journal_dir) {
  const struct run_opts *o = p->o;
  const char *declared[MAX_LIST + 2], *wires[MAX_LIST + 1];
  int nd = 0;
  declared[nd++] = OCK_CAP_CORE;
  for (int i = 0; i < o->caps.n; i++)
    declared[nd++] = o->caps.items[i];
  declared[nd] = NULL;
  for (int i = 0; i < o->wires.n; i++)
    wires[i] = o->wires.items[i];
  wires[o->wires.n] = NULL;
  p->cfg = (struct run_config){.command = o->orchestrator,
                               .declared = declared,
                               .wires = o->wires.n ? wires : ock__default_wires,
                               .timeout_s = o->timeout_s,
                               .time_scale = o->time_scale,
                               .output_cap = 64 * 1024,
                               .seed = o->seed,
                               .level = (enum ock_level)o->level,
                               .strict = o->strict,
                               .observe_only = o->observe_only,
                               .blackbox = o->blackbox,
                               .journal_dir = o->journals ? journal_dir : NULL,
                               .abort_flag = &interrupted};
  if (!strcmp(o->format, "human"))
    printf("ock %s: %zu scenario(s) against %s, %d job(s)\ntier: %s\n", OCK_KIT_VERSION, p->total,
           o->orchestrator, o->jobs,
           o->blackbox ? "blackbox (graded from the traffic; SPEC.md 9.7)" : "instrumented");
  int jobs = o->jobs < (int)p->total ? o->jobs : (int)p->total;
  pthread_t threads[256];
  for (int i = 0; i < jobs; i++)
    pthread_create(&threads[i], NULL, worker, p);
  for (int i = 0; i < jobs; i++)
    pthread_join(threads[i], NULL);
}

/* finish_report gathers the results into the report, writes it (*written: whether it did) and
 * returns the exit code. */
static int finish_report(const struct pool *p, cJSON *report, const char *started, int *written) {
  cJSON *scen = cJSON_GetObjectItemCaseSensitive(report, "scenarios");
  for (size_t k = 0; k < p->total; k++)
    if (p->results[k])
      cJSON_AddItemToArray(scen, p->results[k]);
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
    cJSON_AddStringToObject(report, "interrupt_signal", ock__sut_signal_name(interrupted));
  }
  return write_reports(report, p->reg, p->o->out_dir,
                       missing       ? EXIT_USAGE
                       : interrupted ? EXIT_INCOMPLETE
                                     : 0,
                       written);
}

/* run_all runs every scenario of set on the worker pool, then writes and summarizes the
 * report. Returns the exit code; EXIT_INCOMPLETE, before anything runs, when there is no memory
 * for the results. */
static int run_all(const struct run_opts *o, const struct scenario_set *set,
                   const ock_registry *reg, const char *started, const char *journal_dir) {
  struct pool p = {.o = o,
                   .set = set,
                   .reg = reg,
                   .total = set->n * (size_t)o->repeat,
                   .color = !strcmp(o->format, "human") && ock__use_color(stdout)};
  p.results = calloc(p.total + 1, sizeof *p.results);
  if (!p.results) {
    fprintf(stderr, "ock: out of memory for the results of %zu runs; nothing ran\n", p.total);
    return EXIT_INCOMPLETE;
  }
  struct signals sig;
  signals_take(&sig);
  pthread_mutex_init(&p.lock, NULL);
  run_pool(&p, journal_dir);
  ock__sentinel_stop();
  cJSON *report = new_report(o, started, reg);
  int written = 0;
  int code = finish_report(&p, report, started, &written);
  print_summary(o, report, o->out_dir, written);
  if (!p.total)
    fprintf(stderr, "ock: no scenario ran (check --fixtures, --case, --exclude, --shard)\n");
  signals_give_back(&sig);
  pthread_mutex_destroy(&p.lock);
  free(p.results);
  cJSON_Delete(report);
  return code;
}

int ock__cmd_run(int argc, char **argv) {
  struct run_opts o;
  char err[1200];
  int pr = parse_options(argc, argv, &o, err, sizeof err), usage_error = 1;
  if (pr > 0) {
    print_usage();
    return EXIT_PASS;
  }
  ock_registry *reg = NULL;
  struct ock_jerr je;
  if (ock_registry_load_builtin(&reg, &je)) {
    fprintf(stderr, "ock: the built-in registry is broken: %s: %s\n", je.where, je.what);
    return EXIT_INCOMPLETE;
  }
  char started[32], journal_dir[4200];
  iso_now(started, sizeof started);
  struct scenario_set set = {0};
  if (!pr)
    pr = load_inputs(&o, reg, &set, &usage_error, err, sizeof err);
  int code = EXIT_USAGE;
  if (pr < 0) {
    fail_early(&o, reg, started, usage_error, err);
  } else {
    ock__scenarios_shard(&set, o.shard_i, o.shard_n);
    snprintf(journal_dir, sizeof journal_dir, "%s/journals", o.out_dir);
    if (o.journals)
      ock__cli_make_dirs(journal_dir);
    code = run_all(&o, &set, reg, started, journal_dir);
  }
  ock__scenarios_free(&set); /* loaded whole when only a baseline entry was wrong */
  cJSON_Delete(o.manifest_json);
  free(o.baseline_text);
  ock_registry_free(reg);
  return code;
}
