/*
 * gate.c: running the mutant gate (see gate.h). Programs run without a shell through the
 * process runner (ock/process.h), their console output is kept in files in the scratch
 * directory, and all that is read back is JSON: the catalog and the reports.
 */
#include "gate.h"

#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "checks/checklist.h"
#include "ock/json.h"
#include "ock/process.h"
#include "report/causes.h"

#define ALL_CAPABILITIES "core,streaming,parallel,scheduling,lifecycle,resilience,cancellation"
#define REPORT_MAX ((size_t)1 << 30)
#define MAX_ARGS (2 * GATE_MAX_CASES + 32)
#define OUTPUT_CAP REPORT_MAX /* a buffer grows only as far as the output does */

static const char *str_of(const cJSON *o, const char *key) {
  const char *s = ock_json_str(o, key);
  return s ? s : "";
}

/* append adds "sep text" to out unless text is there already; out stays NUL-terminated. */
static void append(char *out, size_t n, const char *text) {
  size_t len = strlen(out), tl = strlen(text);
  const char *at = strstr(out, text);
  if (at && (at == out || at[-1] == ' ') && (at[tl] == '\0' || at[tl] == ','))
    return;
  snprintf(out + len, len < n ? n - len : 0, "%s%s", len ? ", " : "", text);
}

int gate_lists(const char *list, const char *id) {
  size_t k = strlen(id);
  for (const char *at = list ? strstr(list, id) : NULL; at && k; at = strstr(at + 1, id))
    if ((at == list || at[-1] == ' ' || at[-1] == ',') &&
        (at[k] == '\0' || at[k] == ' ' || at[k] == ','))
      return 1;
  return 0;
}

/* start runs argv without a shell, stdin from /dev/null, in the gate's process group (so the
 * test runner's kill of a hung suite reaches it too); NULL when it cannot start. */
static ock_process *start(char *const argv[]) {
  struct ock_process_spec spec = {
      .argv = (const char *const *)argv, .output_cap = OUTPUT_CAP, .same_group = 1};
  ock_process *p = NULL;
  return ock_process_start(&spec, &p) ? NULL : p;
}

static void write_file(const char *path, const char *text) {
  FILE *f = path ? fopen(path, "w") : NULL;
  if (f) {
    fputs(text ? text : "", f);
    fclose(f);
  }
}

/* finish waits for p to end, writes its stdout and stderr to the files out and err (each may be
 * NULL), and frees p. Returns its exit code, 128 + the signal that ended it, or -1 when p is
 * NULL; *seconds (when seconds is not NULL) is how long it ran. */
static int finish(ock_process *p, const char *out, const char *err, double *seconds) {
  if (!p)
    return -1;
  struct ock_process_result r;
  ock_process_wait(p, 0, &r);
  ock_process_free(p);
  write_file(out, r.out);
  write_file(err, r.err);
  if (seconds)
    *seconds = r.wall_ms / 1000.0;
  int code = r.exit_code >= 0 ? r.exit_code : 128 + r.signal;
  ock_process_result_clear(&r);
  return code;
}

/* settle reads the output of every process of ps (NULL entries skipped) until all have ended,
 * so none blocks on a full pipe while another is waited for. */
static void settle(ock_process *const *ps, size_t n) {
  for (int ended = 0; !ended;) {
    ended = 1;
    for (size_t i = 0; i < n; i++)
      if (ps[i] && !ock_process_poll(ps[i], 0))
        ended = 0;
    if (!ended)
      nanosleep(&(struct timespec){0, 20 * 1000000L}, NULL);
  }
}

/* ---- preparing ----------------------------------------------------------------------------- */

static int program(char *out, size_t n, const char *root, const char *build, const char *name,
                   char *err, size_t en) {
  snprintf(out, n, "%s/%s/bin/%s", root, build, name);
  if (access(out, X_OK)) {
    snprintf(err, en, "%s is missing (build it first: make)", out);
    return -1;
  }
  return 0;
}

int gate_reuse(struct gate *g, const char *dir, char *err, size_t n) {
  char path[600];
  snprintf(path, sizeof path, "%s/reference/report.json", dir);
  if (access(path, R_OK)) {
    snprintf(err, n, "%s: %s (keep a run with OCK_GATE_KEEP=1 first)", path, strerror(errno));
    return -1;
  }
  char *argv[] = {"/bin/rm", "-rf", g->tmp, NULL};
  finish(start(argv), NULL, NULL, NULL);
  snprintf(g->tmp, sizeof g->tmp, "%s", dir);
  g->reused = 1;
  return 0;
}

static int names(const cJSON *scenario, const char *id) {
  const cJSON *r;
  cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(scenario, "requirements"))
    if (cJSON_IsString(r) && !strcmp(r->valuestring, id))
      return 1;
  return 0;
}

int gate_scenarios_of(const struct gate *g, const char *id) {
  int n = 0;
  const cJSON *s;
  cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(g->catalog, "scenarios"))
    n += names(s, id);
  return n;
}

int gate_scenarios_known(const struct gate *g, const char *id) {
  const cJSON *s;
  cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(g->catalog, "scenarios"))
    if (!strcmp(str_of(s, "id"), id))
      return 1;
  return 0;
}

/* matches: scenario s is selected by one selector ("@OCK-X-NNN" or an id glob). */
static int matches(const cJSON *s, const char *sel) {
  return sel[0] == '@' ? names(s, sel + 1) : !fnmatch(sel, str_of(s, "id"), 0);
}

/* on_wire: a selector "<glob>@<wire>" (not "@OCK-..."): its wire, and the glob in glob (n
 * bytes); NULL for any other selector. */
static const char *on_wire(const char *sel, char *glob, size_t n) {
  const char *at = sel[0] == '@' ? NULL : strrchr(sel, '@');
  if (!at)
    return NULL;
  snprintf(glob, n, "%.*s", (int)(at - sel), sel);
  return at + 1;
}

/* add_case appends scenario id to gm->cases, as "<id>@<wire>" when wire is set (the fixture
 * played on that wire only; its string is kept in gm->owned). */
static void add_case(struct gate_mutant *gm, const char *id, const char *wire) {
  if (gm->n_cases >= GATE_MAX_CASES)
    return;
  if (!wire) {
    gm->cases[gm->n_cases++] = id;
    return;
  }
  char one[300];
  snprintf(one, sizeof one, "%s@%s", id, wire);
  if (!gm->owned)
    gm->owned = cJSON_CreateArray();
  cJSON *s = cJSON_CreateString(one);
  cJSON_AddItemToArray(gm->owned, s);
  gm->cases[gm->n_cases++] = s->valuestring;
}

/* expand fills gm->cases from the mutation's selectors, in catalog order: a scenario any
 * selector matches and no "!selector" does. A selector "<glob>@<wire>" names the wire-less
 * fixtures it matches played on that one wire. */
static void expand(struct gate *g, struct gate_mutant *gm) {
  char buf[64], sel[1024];
  snprintf(sel, sizeof sel, "%s", ock__mutant_cases(gm->m, buf, sizeof buf));
  const cJSON *s;
  cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(g->catalog, "scenarios")) {
    int hit = 0, out = 0;
    const char *wire = NULL;
    char copy[1024], glob[256];
    snprintf(copy, sizeof copy, "%s", sel);
    char *save = NULL;
    for (char *tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
      const char *w = on_wire(tok, glob, sizeof glob);
      if (tok[0] == '!')
        out |= matches(s, tok + 1);
      else if (w && !fnmatch(glob, str_of(s, "id"), 0) && !hit)
        hit = 1, wire = w;
      else if (!w && matches(s, tok))
        hit = 1, wire = NULL;
    }
    if (hit && !out)
      add_case(gm, str_of(s, "id"), wire);
  }
}

static int selected(const char *only, const char *name) {
  if (!only || !*only)
    return 1;
  size_t n = strlen(name);
  for (const char *p = only; (p = strstr(p, name)); p += n)
    if ((p == only || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
      return 1;
  return 0;
}

/* parse_share reads "K/N" (1 <= K <= N <= 64) into *k (zero-based) and *every. */
static int parse_share(const char *share, int *k, int *every) {
  char *end;
  long a = strtol(share, &end, 10);
  if (end == share || *end != '/')
    return -1;
  const char *rest = end + 1;
  long b = strtol(rest, &end, 10);
  if (end == rest || *end || a < 1 || b < a || b > 64)
    return -1;
  *k = (int)a - 1;
  *every = (int)b;
  return 0;
}

int gate_prepare(struct gate *g, const char *root, const char *build, const char *only,
                 const char *share, char *err, size_t n) {
  memset(g, 0, sizeof *g);
  g->reference_exit = g->transparent_exit = -1;
  int share_k = 0, share_every = 1;
  if (share && *share && parse_share(share, &share_k, &share_every)) {
    snprintf(err, n, "OCK_GATE_SHARE=%s: expected K/N with 1 <= K <= N <= 64, e.g. 1/3", share);
    return -1;
  }
  g->partial = (only && *only) || share_every > 1;
  char abs[PATH_MAX];
  if (!realpath(root, abs)) {
    snprintf(err, n, "%s: %s", root, strerror(errno));
    return -1;
  }
  if (program(g->ock, sizeof g->ock, abs, build, "ock", err, n) ||
      program(g->mutant, sizeof g->mutant, abs, build, "ock-mutant", err, n) ||
      program(g->reference, sizeof g->reference, abs, build, "ock-orchestrator", err, n))
    return -1;
  snprintf(g->fixtures, sizeof g->fixtures, "%s/fixtures", abs);
  snprintf(g->tmp, sizeof g->tmp, "/tmp/ock-gate-XXXXXX");
  if (!mkdtemp(g->tmp)) {
    snprintf(err, n, "cannot make a scratch directory in /tmp: %s", strerror(errno));
    return -1;
  }
  struct ock_jerr je;
  if (ock_registry_load_builtin(&g->reg, &je)) {
    snprintf(err, n, "the built-in registry: %s: %s", je.where, je.what);
    return -1;
  }
  char out[512], errf[512];
  snprintf(out, sizeof out, "%s/catalog.json", g->tmp);
  snprintf(errf, sizeof errf, "%s/catalog.err", g->tmp);
  char *argv[] = {g->ock, "list", "scenarios", "--format", "json", "--fixtures", g->fixtures, NULL};
  if (finish(start(argv), out, errf, NULL) != 0 ||
      ock_json_parse_file(out, REPORT_MAX, &g->catalog, &je)) {
    snprintf(err, n, "`ock list scenarios` failed; see %s", errf);
    return -1;
  }
  g->mut = calloc(ock__mutant_count(), sizeof *g->mut);
  g->checks = calloc(ock__checklist_count(), sizeof *g->checks);
  g->proofs = cJSON_CreateObject();
  if (!g->mut || !g->checks || !g->proofs) {
    snprintf(err, n, "out of memory");
    return -1;
  }
  for (size_t i = 0; i < ock__mutant_count(); i++) {
    if (!selected(only, ock__mutant_at(i)->name) || (int)(i % (size_t)share_every) != share_k)
      continue;
    struct gate_mutant *gm = &g->mut[g->n++];
    gm->m = ock__mutant_at(i);
    gm->exit_code = -1;
    expand(g, gm);
  }
  for (size_t i = 0; i < ock__checklist_count(); i++) {
    struct gate_check *c = &g->checks[g->n_checks++];
    c->id = ock__checklist_at(i)->id;
    c->harness = ock__checklist_at(i)->kind == CHECK_HARNESS;
  }
  return 0;
}

/* ---- running ------------------------------------------------------------------------------- */

/* run_argv builds `ock run` for an orchestrator over cases (NULL-free list), output in dir. */
static void run_argv(const struct gate *g, char *argv[MAX_ARGS], const char *orchestrator,
                     const char *dir, const char *const *cases, int n_cases) {
  int k = 0;
  argv[k++] = (char *)g->ock;
  argv[k++] = "run";
  argv[k++] = "--orchestrator";
  argv[k++] = (char *)orchestrator;
  argv[k++] = "--capabilities";
  argv[k++] = ALL_CAPABILITIES;
  argv[k++] = "--wires";
  argv[k++] = "openai,anthropic,responses,gemini";
  argv[k++] = "--fixtures";
  argv[k++] = (char *)g->fixtures;
  argv[k++] = "--strict";
  argv[k++] = "--jobs";
  argv[k++] = "2";
  argv[k++] = "--format";
  argv[k++] = "jsonl";
  argv[k++] = "-o";
  argv[k++] = (char *)dir;
  for (int i = 0; i < n_cases && n_cases <= GATE_MAX_CASES; i++) {
    argv[k++] = "--case";
    argv[k++] = (char *)cases[i];
  }
  argv[k] = NULL;
}

static cJSON *read_report(const char *dir) {
  char path[600];
  snprintf(path, sizeof path, "%s/report.json", dir);
  cJSON *report = NULL;
  struct ock_jerr je;
  return ock_json_parse_file(path, REPORT_MAX, &report, &je) ? NULL : report;
}

static const cJSON *scenario_in(const cJSON *report, const char *id);
static int is_failure(const char *verdict);

/* replace_scenarios puts the scenarios of again in place of those with the same id in report. */
static void replace_scenarios(cJSON *report, const cJSON *again) {
  cJSON *list = cJSON_GetObjectItemCaseSensitive(report, "scenarios");
  const cJSON *s;
  cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(again, "scenarios")) {
    int i = 0;
    for (const cJSON *old = list ? list->child : NULL; old; old = old->next, i++)
      if (!strcmp(str_of(old, "id"), str_of(s, "id"))) {
        cJSON_ReplaceItemInArray(list, i, cJSON_Duplicate(s, 1));
        break;
      }
  }
}

/* run_again_alone: the reference and the lie-free proxy run side by side, each with two jobs, so
 * on a loaded machine (a sanitizer build, a shared CI runner) a timing check can fail in either.
 * The scenarios the reference fails, or whose verdict the proxy changes, run once more, the two
 * runs one after the other, and their second verdicts count; the line printed names them. A
 * scenario that differs again is reported by reference_passes or proxy_is_transparent. */
static void run_again_alone(struct gate *g, const char *orch) {
  if (!g->reference_report || !g->transparent_report)
    return;
  cJSON *ids = cJSON_CreateArray();
  const cJSON *s;
  cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(g->reference_report, "scenarios")) {
    const char *v = str_of(s, "verdict");
    const cJSON *t = scenario_in(g->transparent_report, str_of(s, "id"));
    if (cJSON_GetArraySize(ids) < GATE_MAX_CASES &&
        (is_failure(v) || !t || strcmp(v, str_of(t, "verdict"))))
      cJSON_AddItemToArray(ids, cJSON_CreateString(str_of(s, "id")));
  }
  const char *cases[GATE_MAX_CASES];
  int n = 0;
  cJSON_ArrayForEach(s, ids)
    cases[n++] = s->valuestring;
  if (n) {
    printf("\ngate: %d scenario(s) differ between the reference and the lie-free proxy; run again, "
           "one run at a time:",
           n);
    for (int i = 0; i < n; i++)
      printf(" %s", cases[i]);
    printf("\n");
    const char *who[2] = {g->reference, orch};
    cJSON *reports[2] = {g->reference_report, g->transparent_report};
    for (int k = 0; k < 2; k++) {
      char dir[512], *argv[MAX_ARGS];
      snprintf(dir, sizeof dir, "%s/%s-again", g->tmp, k ? "none" : "reference");
      run_argv(g, argv, who[k], dir, cases, n);
      ock_process *p = start(argv);
      settle(&p, 1);
      int code = finish(p, NULL, NULL, NULL);
      if (k == 0 && code == 0)
        g->reference_exit = 0; /* every scenario it failed passed alone */
      cJSON *again = read_report(dir);
      if (again)
        replace_scenarios(reports[k], again);
      cJSON_Delete(again);
    }
  }
  cJSON_Delete(ids);
}

void gate_run_reference(struct gate *g) {
  const char *cases[GATE_MAX_CASES];
  int n = 0;
  const cJSON *s;
  cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(g->catalog, "scenarios")) {
    const char *id = str_of(s, "id");
    int used = 0;
    for (size_t i = 0; i < g->n && !used; i++)
      for (int c = 0; c < g->mut[i].n_cases && !used; c++) {
        const char *k = g->mut[i].cases[c];
        used = !strncmp(k, id, strlen(id)) && (!k[strlen(id)] || k[strlen(id)] == '@');
      }
    if (used && n < GATE_MAX_CASES)
      cases[n++] = id;
  }
  if (!n)
    return;
  char dir[512], out[600], err[600], tdir[512], tout[600], terr[600], orch[3000];
  snprintf(dir, sizeof dir, "%s/reference", g->tmp);
  snprintf(out, sizeof out, "%s/reference.out", g->tmp);
  snprintf(err, sizeof err, "%s/reference.err", g->tmp);
  snprintf(tdir, sizeof tdir, "%s/none", g->tmp);
  snprintf(tout, sizeof tout, "%s/none.out", g->tmp);
  snprintf(terr, sizeof terr, "%s/none.err", g->tmp);
  snprintf(orch, sizeof orch, "%s none -- %s", g->mutant, g->reference);
  char *argv[MAX_ARGS], *targv[MAX_ARGS];
  if (g->reused) {
    g->reference_exit = g->transparent_exit = 0;
    g->reference_report = read_report(dir);
    g->transparent_report = read_report(tdir);
    return;
  }
  run_argv(g, argv, g->reference, dir, cases, n);
  run_argv(g, targv, orch, tdir, cases, n);
  ock_process *both[2] = {start(argv), start(targv)};
  settle(both, 2);
  g->reference_exit = finish(both[0], out, err, &g->reference_seconds);
  g->transparent_exit = finish(both[1], tout, terr, NULL);
  g->reference_report = read_report(dir);
  g->transparent_report = read_report(tdir);
  run_again_alone(g, orch);
}

static const cJSON *scenario_in(const cJSON *report, const char *id) {
  const cJSON *s;
  cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(report, "scenarios"))
    if (!strcmp(str_of(s, "id"), id))
      return s;
  return NULL;
}

static int is_failure(const char *verdict) {
  return !strcmp(verdict, "FAIL") || !strcmp(verdict, "ERROR");
}

/* reference_fails: the reference's report has a failing check of req in scenario id (a
 * scenario it did not run counts as failing: nothing is proven there). */
static int reference_fails(const struct gate *g, const char *id, const char *req) {
  const cJSON *s = scenario_in(g->reference_report, id);
  if (!s)
    return 1;
  const cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(s, "checks"))
    if (!strcmp(str_of(c, "requirement"), req) && is_failure(str_of(c, "verdict")))
      return 1;
  return 0;
}

/* reference_fails_check: the reference's report has check id FAIL or ERROR in scenario sid
 * (a scenario it did not run counts as failing). */
static int reference_fails_check(const struct gate *g, const char *sid, const char *id) {
  const cJSON *s = scenario_in(g->reference_report, sid);
  if (!s)
    return 1;
  const cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(s, "checks"))
    if (!strcmp(str_of(c, "id"), id) && is_failure(str_of(c, "verdict")))
      return 1;
  return 0;
}

/* prove_check: mutation name made check id FAIL in scenario sid; it proves the id unless the
 * reference fails it there too. */
static void prove_check(struct gate *g, struct gate_mutant *gm, const char *sid, const char *id) {
  size_t at = (size_t)(gm - g->mut) + 1;
  const struct check_entry *row = ock__checklist_find(id);
  if (row && row->kind == CHECK_GRADES && g->reference_report &&
      !reference_fails_check(g, sid, id)) {
    if (!gm->fails)
      gm->fails = cJSON_CreateObject();
    cJSON *where = cJSON_GetObjectItemCaseSensitive(gm->fails, id);
    if (!where)
      where = cJSON_AddArrayToObject(gm->fails, id);
    cJSON_AddItemToArray(where, cJSON_CreateString(sid));
  }
  /* A wire-less scenario runs once per wire, as <fixture>@<wire>: a proof on any wire is the
   * fixture's (the reference is compared on the same run). */
  char fixture[256];
  snprintf(fixture, sizeof fixture, "%.*s", (int)strcspn(sid, "@"), sid);
  if (g->reference_report && !reference_fails_check(g, sid, id)) {
    cJSON *in = cJSON_GetObjectItemCaseSensitive(g->proofs, fixture);
    if (!in)
      in = cJSON_AddObjectToObject(g->proofs, fixture);
    cJSON *by = cJSON_GetObjectItemCaseSensitive(in, id);
    if (!by)
      cJSON_AddNumberToObject(in, id, (double)at);
    else if (by->valuedouble > (double)at)
      cJSON_SetNumberValue(by, (double)at);
  }
  for (size_t i = 0; i < g->n_checks; i++) {
    struct gate_check *c = &g->checks[i];
    if (strcmp(c->id, id) || (c->by_at && c->by_at <= at) || !g->reference_report ||
        reference_fails_check(g, sid, id))
      continue;
    c->by_at = at;
    snprintf(c->by, sizeof c->by, "%s", gm->m->name);
    snprintf(c->scenario, sizeof c->scenario, "%s", sid);
  }
}

static void grade(struct gate *g, struct gate_mutant *gm, const char *dir) {
  char path[600];
  snprintf(path, sizeof path, "%s/report.json", dir);
  cJSON *report = NULL;
  struct ock_jerr je;
  if (ock_json_parse_file(path, REPORT_MAX, &report, &je)) {
    snprintf(gm->evidence, sizeof gm->evidence, "no report: %s: %s", je.where, je.what);
    return;
  }
  const char *target = gm->m->requirement;
  const cJSON *r;
  cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(report, "requirements"))
    if (!strcmp(str_of(r, "id"), target))
      snprintf(gm->verdict, sizeof gm->verdict, "%s", str_of(r, "verdict"));
  const cJSON *s, *c;
  cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(report, "scenarios")) {
    const char *sid = str_of(s, "id");
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(s, "checks")) {
      const char *req = str_of(c, "requirement");
      if (strcmp(str_of(c, "verdict"), "FAIL"))
        continue;
      prove_check(g, gm, sid, str_of(c, "id"));
      if (strcmp(req, target)) {
        if (*req && gate_lists(gm->m->proves_too, req)) { /* proven like the target */
          if (g->reference_report && !reference_fails(g, sid, req))
            append(gm->proven_also, sizeof gm->proven_also, req);
          continue;
        }
        if (*req && g->reference_report && !reference_fails(g, sid, req))
          append(gm->collateral, sizeof gm->collateral, req);
        continue;
      }
      append(gm->failed_in, sizeof gm->failed_in, sid);
      if (!*gm->evidence)
        snprintf(gm->evidence, sizeof gm->evidence, "%s: %s: %.300s", sid, str_of(c, "id"),
                 str_of(c, "actual"));
      if (g->reference_report && !reference_fails(g, sid, target))
        gm->proven = 1;
    }
  }
  gm->caught = !strcmp(gm->verdict, "FAIL") && *gm->failed_in;
  gm->proven &= gm->caught;
  cJSON_Delete(report);
}

/* start_mutant starts `ock run` for gm; NULL when it cannot start (then it says so). */
static ock_process *start_mutant(const struct gate *g, const struct gate_mutant *gm) {
  char orch[3000], dir[512];
  snprintf(orch, sizeof orch, "%s %s -- %s", g->mutant, gm->m->name, g->reference);
  snprintf(dir, sizeof dir, "%s/%s", g->tmp, gm->m->name);
  char *argv[MAX_ARGS];
  run_argv(g, argv, orch, dir, gm->cases, gm->n_cases);
  ock_process *p = start(argv);
  if (!p)
    fprintf(stderr, "gate: cannot start ock run for %s: %s\n", gm->m->name, strerror(errno));
  return p;
}

/* finish_mutant collects the ended run of gm, keeps its console output, and grades it. */
static void finish_mutant(struct gate *g, struct gate_mutant *gm, ock_process *p) {
  char dir[512], out[600], err[600];
  snprintf(dir, sizeof dir, "%s/%s", g->tmp, gm->m->name);
  snprintf(out, sizeof out, "%s/%s.out", g->tmp, gm->m->name);
  snprintf(err, sizeof err, "%s/%s.err", g->tmp, gm->m->name);
  gm->exit_code = finish(p, out, err, &gm->seconds);
  grade(g, gm, dir);
}

void gate_run_mutants(struct gate *g, int jobs) {
  for (size_t i = 0; g->reused && i < g->n; i++) {
    char dir[512];
    snprintf(dir, sizeof dir, "%s/%s", g->tmp, g->mut[i].m->name);
    if (g->mut[i].n_cases)
      grade(g, &g->mut[i], dir);
  }
  if (g->reused)
    return;
  ock_process **procs = calloc(g->n, sizeof *procs);
  if (!procs)
    return;
  size_t next = 0, running = 0;
  while (next < g->n || running) {
    for (; next < g->n && running < (size_t)jobs; next++)
      if (g->mut[next].n_cases) {
        procs[next] = start_mutant(g, &g->mut[next]);
        running += procs[next] != NULL;
      }
    int reaped = 0;
    for (size_t i = 0; i < g->n; i++) {
      if (!procs[i] || !ock_process_poll(procs[i], 0))
        continue;
      finish_mutant(g, &g->mut[i], procs[i]);
      procs[i] = NULL;
      running--;
      reaped = 1;
    }
    if (!reaped && running)
      nanosleep(&(struct timespec){0, 20 * 1000000L}, NULL);
  }
  free(procs);
}

int gate_reference_failures(const struct gate *g, char *out, size_t n) {
  int failed = 0;
  out[0] = '\0';
  const cJSON *s, *c;
  cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(g->reference_report, "scenarios")) {
    if (!is_failure(str_of(s, "verdict")))
      continue;
    failed++;
    char one[400] = "";
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(s, "checks"))
      if (is_failure(str_of(c, "verdict")))
        append(one, sizeof one,
               *str_of(c, "requirement") ? str_of(c, "requirement") : str_of(c, "id"));
    size_t len = strlen(out);
    snprintf(out + len, len < n ? n - len : 0, "%s  %s: %s", len ? "\n" : "", str_of(s, "id"), one);
  }
  return failed;
}

int gate_proxy_differences(const struct gate *g, char *out, size_t n) {
  int differ = 0;
  out[0] = '\0';
  const cJSON *s;
  cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(g->reference_report, "scenarios")) {
    const char *id = str_of(s, "id"), *v = str_of(s, "verdict");
    const cJSON *t = scenario_in(g->transparent_report, id);
    const char *tv = t ? str_of(t, "verdict") : "(not run)";
    if (is_failure(v) || !strcmp(v, tv))
      continue;
    differ++;
    char first[300] = "";
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(t, "checks"))
      if (!*first && is_failure(str_of(c, "verdict")))
        snprintf(first, sizeof first, ": %s %.200s", str_of(c, "id"), str_of(c, "actual"));
    size_t len = strlen(out);
    snprintf(out + len, len < n ? n - len : 0, "%s  %s: reference %s, through the proxy %s%s",
             len ? "\n" : "", id, v, tv, first);
  }
  return differ;
}

const char *gate_proven_in(const struct gate *g, const char *sid, const char *id) {
  const cJSON *by =
      cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(g->proofs, sid), id);
  if (!cJSON_IsNumber(by) || by->valueint < 1 || (size_t)by->valueint > g->n)
    return NULL;
  return g->mut[by->valueint - 1].m->name;
}

int gate_alone_set(const struct gate *g, const struct gate_mutant *gm, char *out, size_t n) {
  int k = 0;
  out[0] = '\0';
  for (size_t i = 0; i < g->n_checks; i++)
    if (cJSON_GetObjectItemCaseSensitive(gm->fails, g->checks[i].id)) {
      size_t len = strlen(out);
      snprintf(out + len, len < n ? n - len : 0, "%s%s", k++ ? " " : "", g->checks[i].id);
    }
  return k;
}

/* strictly_catches: the one check id gm makes FAIL where the reference does not is id. */
static int strictly_catches(const struct gate_mutant *gm, const char *id) {
  return cJSON_GetArraySize(gm->fails) == 1 && cJSON_GetObjectItemCaseSensitive(gm->fails, id);
}

static int lists_scenario(const cJSON *where, const char *sid) {
  const cJSON *s;
  cJSON_ArrayForEach(s, where)
    if (cJSON_IsString(s) && !strcmp(s->valuestring, sid))
      return 1;
  return 0;
}

/* alone_catches: gm makes id FAIL, and every other check id it makes FAIL is, in each scenario
 * where it does, a consequence of id failing there. */
static int alone_catches(const struct gate_mutant *gm, const char *id) {
  const cJSON *own = cJSON_GetObjectItemCaseSensitive(gm->fails, id), *other, *s;
  if (!own)
    return 0;
  cJSON_ArrayForEach(other, gm->fails) {
    if (!strcmp(other->string, id))
      continue;
    if (!ock_cause_explains(id, other->string))
      return 0;
    cJSON_ArrayForEach(s, other)
      if (!lists_scenario(own, s->valuestring))
        return 0;
  }
  return 1;
}

/* The checks that restate a specific check, the expectations and two more: whenever one fails, one
 * of those checks fails too, in the same scenario, on the same evidence, so no lie can make it the
 * one first cause. Each is proven by a mutation that catches alone a check it restates, and makes
 * it FAIL with it (mutants/README.md, docs/grading.md Section 9.1):
 *  - status: what complete.status-matches wants of each exit path (SPEC.md 5.2), the scenario's
 *    status being the one its path gives;
 *  - exit_code: every fixture gives 0, and SPEC.md 7.8 wants 0 of every run (proc.exit);
 *  - timing: each range is the window of SPEC.md 5.7 with the tolerances of 9.4, the one the
 *    backoff and Retry-After checks apply to the same gap (and they also read delay_ms);
 *  - reason: "denied" is what the deny checks want of a denied prompt or request, and
 *    "max_iterations" what the limit's check wants when the limit ended the loop;
 *  - tool_input: the input a tool got, which the tool, hook and stream checks compare with the
 *    call's arguments or the hook's replacement;
 *  - events_present: each event a scenario lists is one a specific check owes (the stream's
 *    deltas, the lifecycle's pair, the selection's pair, the cancel's pair, the grammar's
 *    events of a turn);
 *  - turn_count, llm_requests, tool_calls, last_request: the one lie found that moves each of
 *    them, a limit off by one that wraps up a turn early, is one iter.status and
 *    complete.status-matches see too (reason max_iterations without the limit's turns; an
 *    execute that ended on a final answer reported incomplete). No lie they alone see is known. */
static const struct {
  const char *expectation;
  const char *restates; /* space-separated check ids */
} restatements[] = {
    {"expect.status", "complete.status-matches"},
    {"expect.exit-code", "proc.exit"},
    {"expect.timing", "error.backoff error.retry-after"},
    {"expect.reason", "hook.deny-submit hook.deny-request iter.status"},
    {"expect.tool-input",
     "tool.input hook.modify-tool-pre hook.selecting-modify stream.arguments-reassembled"},
    {"expect.events-present",
     "stream.events lifecycle.execution-events hook.selecting-order cancel.events "
     "order.request-closed order.prompt-complete complete.once"},
    {"expect.turn-count", "complete.turn-count iter.status complete.status-matches"},
    {"expect.llm-requests", "iter.status complete.status-matches"},
    {"expect.tool-calls", "iter.status complete.status-matches"},
    {"expect.last-request", "iter.status complete.status-matches"},
    /* Two specific checks restate others too (mutants/README.md says why each stays as it is):
     * the next execute's history, judged by the history checks first; the order of results,
     * judged by the call-order check first (a first-cause rule each). */
    {"orphan.context-valid",
     "orphan.result-for-every-call orphan.results-adjacent orphan.call-order orphan.call-kept"},
    {"parallel.result-order", "orphan.call-order"},
};

/* by_restatement: the first mutation (table order) that catches alone a check c restates and
 * makes c FAIL too; sets c->alone and c->restates. */
static void by_restatement(struct gate *g, struct gate_check *c) {
  for (size_t r = 0; r < sizeof restatements / sizeof restatements[0]; r++) {
    if (strcmp(restatements[r].expectation, c->id))
      continue;
    for (size_t k = 0; k < g->n && !*c->alone; k++) {
      const struct gate_mutant *gm = &g->mut[k];
      char words[256];
      snprintf(words, sizeof words, "%s", restatements[r].restates);
      char *save = NULL;
      for (char *w = strtok_r(words, " ", &save); w && !*c->alone; w = strtok_r(NULL, " ", &save))
        if (cJSON_GetObjectItemCaseSensitive(gm->fails, c->id) && alone_catches(gm, w)) {
          snprintf(c->alone, sizeof c->alone, "%s", gm->m->name);
          c->restates = restatements[r].restates + (w - words);
        }
    }
  }
}

size_t gate_measure_alone(struct gate *g, size_t *strict) {
  size_t alone = 0, strictly = 0;
  for (size_t i = 0; i < g->n_checks; i++) {
    struct gate_check *c = &g->checks[i];
    c->alone[0] = c->strictly[0] = c->shared[0] = '\0';
    c->n_shared = 0;
    c->restates = NULL;
    for (size_t k = 0; k < g->n && !c->harness; k++) {
      const struct gate_mutant *gm = &g->mut[k];
      if (!*c->strictly && strictly_catches(gm, c->id))
        snprintf(c->strictly, sizeof c->strictly, "%s", gm->m->name);
      if (!*c->alone && alone_catches(gm, c->id))
        snprintf(c->alone, sizeof c->alone, "%s", gm->m->name);
      else if (cJSON_GetObjectItemCaseSensitive(gm->fails, c->id) && c->n_shared++ < 6) {
        size_t len = strlen(c->shared);
        snprintf(c->shared + len, sizeof c->shared - len, "%s%s", len ? " " : "", gm->m->name);
      }
    }
    if (!*c->alone && !c->harness)
      by_restatement(g, c);
    alone += *c->alone != '\0';
    strictly += *c->strictly != '\0';
  }
  if (strict)
    *strict = strictly;
  return alone;
}

int gate_checks_unproven(const struct gate *g, char *out, size_t n) {
  int missed = 0;
  out[0] = '\0';
  for (size_t i = 0; i < g->n_checks; i++)
    if (!g->checks[i].harness && !*g->checks[i].by) {
      missed++;
      size_t len = strlen(out);
      snprintf(out + len, len < n ? n - len : 0, "%s%s", len ? " " : "", g->checks[i].id);
    }
  return missed;
}

void gate_free(struct gate *g, int keep) {
  if (*g->tmp && !keep && !g->reused) {
    char *argv[] = {"/bin/rm", "-rf", g->tmp, NULL};
    finish(start(argv), NULL, NULL, NULL);
  }
  cJSON_Delete(g->catalog);
  cJSON_Delete(g->reference_report);
  cJSON_Delete(g->transparent_report);
  cJSON_Delete(g->proofs);
  ock_registry_free(g->reg);
  for (size_t i = 0; g->mut && i < g->n; i++) {
    cJSON_Delete(g->mut[i].fails);
    cJSON_Delete(g->mut[i].owned);
  }
  free(g->mut);
  free(g->checks);
  memset(g, 0, sizeof *g);
}
