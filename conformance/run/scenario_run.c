/* scenario_run.c: run and grade one scenario (see scenario_run.h). */
#include "run/scenario_run.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "checks/blackbox.h"
#include "checks/grade.h"
#include "ock/caps.h"
#include "ock/contract.h"
#include "ock/json.h"
#include "ock/mock.h"
#include "ock/status.h"
#include "ock/utf8.h"
#include "run/sut.h"
#include "model/pair.h"
#include "model/timeline.h"
#include "model/view.h"

#define TIMELINE_MAX 400

/* The mock's server thread calls on_cancel; the SUT may not exist yet, so it is published
 * through an atomic pointer once spawned. */
struct cancel_target {
  _Atomic(sut *) s;
  _Atomic int pending;
};

static void on_cancel(void *user) {
  struct cancel_target *t = user;
  sut *s = atomic_load(&t->s);
  if (s)
    ock__sut_interrupt(s);
  else
    atomic_store(&t->pending, 1);
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

const char *ock__scenario_verdict(const cJSON *checks) {
  enum ock_verdict worst = OCK_VERDICT_SKIP;
  int any = 0;
  const cJSON *c;
  cJSON_ArrayForEach(c, checks) {
    enum ock_verdict v = OCK_VERDICT_ERROR;
    ock_verdict_parse(ock_json_str(c, "verdict"), &v);
    if (v > worst)
      worst = v;
    any = 1;
  }
  return any ? ock_verdict_name(worst) : OCK_V_ERROR;
}

static int declared(const struct run_config *cfg, const char *cap) {
  if (!strcmp(cap, OCK_CAP_CORE))
    return 1;
  for (size_t i = 0; cfg->declared && cfg->declared[i]; i++)
    if (!strcmp(cfg->declared[i], cap))
      return 1;
  return 0;
}

/* undeclared_wire: the api of the first session provider on a wire the SUT did not declare, or
 * NULL when it speaks every wire the scenario uses. Without declared wires a SUT speaks openai
 * and anthropic (SPEC.md 7.9): the gemini wire is only ever declared. */
static const char *undeclared_wire(const struct run_config *cfg, const struct scenario *sc) {
  for (size_t k = 0; k < sc->fx->n_providers; k++) {
    const struct ock_fx_provider *p = &sc->fx->providers[k];
    const char *api = ock_wire_name_at((int)p->api);
    int spoken = p->wireless || (!cfg->wires && p->api != OCK_WIRE_GEMINI);
    for (size_t i = 0; !spoken && cfg->wires && cfg->wires[i]; i++)
      spoken = !strcmp(cfg->wires[i], api);
    if (!spoken)
      return api;
  }
  return NULL;
}

static cJSON *base_result(const struct scenario *sc) {
  cJSON *r = cJSON_CreateObject();
  cJSON_AddStringToObject(r, "id", sc->id);
  cJSON_AddStringToObject(r, "title", sc->title ? sc->title : sc->id);
  cJSON_AddStringToObject(r, "proves", sc->proves ? sc->proves : "");
  cJSON_AddStringToObject(r, "file", sc->path);
  if (sc->base) { /* one wire of a wire-less scenario (SPEC.md 8.2) */
    cJSON_AddStringToObject(r, "fixture_id", sc->base);
    cJSON_AddStringToObject(r, "wire", sc->wire);
  }
  if (sc->alias)
    cJSON_AddStringToObject(r, "alias", sc->alias);
  cJSON *reqs = cJSON_AddArrayToObject(r, "requirements");
  for (size_t i = 0; reqs && i < sc->fx->n_requirements; i++)
    cJSON_AddItemToArray(reqs, cJSON_CreateString(sc->fx->requirements[i]));
  /* as the fixture lists them */
  const cJSON *caps = cJSON_GetObjectItemCaseSensitive(sc->fx->json, "capabilities");
  cJSON_AddItemToObject(r, "capabilities", caps ? cJSON_Duplicate(caps, 1) : cJSON_CreateArray());
  return r;
}

static void finish(cJSON *r, cJSON *checks, const char *verdict, double ms, const char *skip) {
  cJSON_AddStringToObject(r, "verdict", verdict);
  cJSON_AddNumberToObject(r, "duration_ms", ms);
  cJSON_AddBoolToObject(r, "expected_failure", 0);
  if (skip)
    cJSON_AddStringToObject(r, "skip_reason", skip);
  else
    cJSON_AddNullToObject(r, "skip_reason");
  cJSON_AddItemToObject(r, "checks", checks);
}

/* ---- one run ----------------------------------------------------------------------------- */

static void add_env(char **env, size_t *n, const char *name, const char *value) {
  size_t len = strlen(name) + strlen(value) + 2;
  env[*n] = malloc(len);
  if (env[*n])
    snprintf(env[(*n)++], len, "%s=%s", name, value);
}

/* write_journal writes the mock's journal as DIR/journals/<id>.journal.jsonl. The SUT could have
 * planted a symbolic link there (the directory or the file): neither is followed, so a journal
 * never overwrites a file elsewhere. */
static void write_journal(ock_mock *m, const struct run_config *cfg, const char *id) {
  if (!cfg->journal_dir)
    return;
  int dfd = open(cfg->journal_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dfd < 0)
    return;
  char name[600];
  snprintf(name, sizeof name, "%s.journal.jsonl", id);
  unlinkat(dfd, name, 0); /* a planted link or file goes; a new file takes its place */
  int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  close(dfd);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (f) {
    ock_mock_write_journal(m, f);
    fclose(f);
  } else if (fd >= 0) {
    close(fd);
  }
}

/* skip_reason: why sc is not run against what cfg declares (a capability, a wire, a
 * black-box run of a scenario that needs hook replies or events), written into why; 0 when it
 * runs. */
static int skip_reason(const struct scenario *sc, const struct run_config *cfg, char *why,
                       size_t n) {
  for (int c = 0; c < OCK_CAPABILITY_COUNT; c++) {
    const char *name = ock_capability_name((enum ock_capability)c);
    if ((sc->fx->capabilities & 1u << c) && !declared(cfg, name)) {
      snprintf(why, n, "capability %s not declared", name);
      return 1;
    }
  }
  const char *wire = undeclared_wire(cfg, sc);
  if (wire) {
    snprintf(why, n, "wire %s not declared", wire);
    return 1;
  }
  return cfg->blackbox && ock__blackbox_scenario_skip(sc->fx, why, n);
}

/* run_sut runs the SUT against the mock at url with the provider variables of SPEC.md 7, and
 * waits for it into proc; the cancel trigger reaches it through target. */
static void run_sut(const struct scenario *sc, const struct run_config *cfg, const char *url,
                    struct cancel_target *target, struct sut_result *proc, sut **s) {
  char v1[600], mcp[600];
  snprintf(v1, sizeof v1, "%s/v1", url);
  snprintf(mcp, sizeof mcp, "%s/mcp", url);
  char *env[16] = {0};
  size_t ne = 0;
  add_env(env, &ne, "OCK_URL", url);
  add_env(env, &ne, "OCK_MCP_URL", mcp);
  add_env(env, &ne, "OCK_SCENARIO", sc->id);
  add_env(env, &ne, "OPENAI_BASE_URL", v1);
  add_env(env, &ne, "OPENAI_API_KEY", "ock-dummy-key");
  add_env(env, &ne, "ANTHROPIC_BASE_URL", url);
  add_env(env, &ne, "ANTHROPIC_API_KEY", "ock-dummy-key");
  /* @google/genai puts the API version after the base URL itself (/v1beta/models/...) */
  add_env(env, &ne, "GOOGLE_GEMINI_BASE_URL", url);
  add_env(env, &ne, "GEMINI_API_KEY", "ock-dummy-key");
  add_env(env, &ne, "GOOGLE_API_KEY", "ock-dummy-key");
  /* A black-box SUT reads the prompts on stdin (SPEC.md 9.7). */
  char *input =
      cfg->blackbox
          ? ock__blackbox_input(cJSON_GetObjectItemCaseSensitive(sc->fx->session, "prompts"))
          : NULL;
  struct sut_spec spec = {.command = cfg->command,
                          .input = input,
                          .env = (const char *const *)env,
                          .timeout_s = cfg->timeout_s * (cfg->time_scale > 0 ? cfg->time_scale : 1),
                          .output_cap = cfg->output_cap,
                          .abort_flag = cfg->abort_flag};
  memset(proc, 0, sizeof *proc);
  proc->exit_code = -1;
  int rc = cfg->blackbox && !input ? OCK_ENOMEM : ock__sut_start(&spec, s);
  free(input);
  if (!rc) {
    atomic_store(&target->s, *s);
    if (atomic_load(&target->pending))
      ock__sut_interrupt(*s);
    ock__sut_wait(*s, proc);
  } else {
    proc->spawn_failed = 1;
    proc->out = strdup("");
    proc->err = strdup("ock: could not start the SUT (fork or pipe failed)");
  }
  for (size_t i = 0; i < ne; i++)
    free(env[i]);
}

/* grade_run grades what the SUT did (proc) as the journal shows it, into g->checks; v is the
 * caller's room for the journal's view. */
static void grade_run(struct grade_ctx *g, struct view *v, const struct scenario *sc,
                      const struct run_config *cfg, cJSON *journal, const struct sut_result *proc,
                      size_t dropped) {
  if (journal && !cfg->blackbox)
    ock__pair_tool_events(journal); /* id-less tool events read with their call's id (4.6) */
  if (proc->aborted) {
    /* Cut short by ock's own interrupt: what the SUT did so far says nothing about it. */
    char why[200];
    int sig = cfg->abort_flag ? (int)*cfg->abort_flag : 0;
    snprintf(why, sizeof why,
             "interrupted: ock was stopped by %s while this scenario ran, so it is not graded",
             sig > 1 ? ock__sut_signal_name(sig) : "an interrupt");
    ock__grade_error(g, CK_HARNESS_INTERRUPTED, why);
  } else if (journal && !(cfg->blackbox ? ock__view_build_traffic(v, sc->fx, journal, proc)
                                        : ock__view_build(v, sc->fx, journal, proc))) {
    g->v = v;
    ock__grade_scenario(g);
    ock__view_free(v);
    g->v = NULL;
  } else {
    ock__grade_error(g, CK_HARNESS_JOURNAL, "the journal could not be read");
  }
  if (dropped) {
    char why[200];
    snprintf(why, sizeof why,
             "the journal was cut: %zu entries past its cap were not kept, so checks saw a part",
             dropped);
    ock__grade_error(g, CK_HARNESS_JOURNAL_CAP, why);
  }
}

/* not_run finishes r as a SKIP (why) or, with a harness error, an ERROR. */
static int not_run(cJSON *r, cJSON *checks, const char *verdict, double ms, const char *why,
                   cJSON **out) {
  finish(r, checks, verdict, ms, why);
  cJSON_AddItemToObject(r, "timeline", cJSON_CreateArray());
  *out = r;
  return OCK_OK;
}

int ock__scenario_run(const struct scenario *sc, const struct run_config *cfg,
                      const ock_registry *reg, cJSON **out) {
  double t0 = now_ms();
  cJSON *r = base_result(sc);
  cJSON *checks = cJSON_CreateArray();
  if (!r || !checks) {
    cJSON_Delete(r);
    cJSON_Delete(checks);
    return OCK_ENOMEM;
  }
  char why_skip[120];
  if (skip_reason(sc, cfg, why_skip, sizeof why_skip))
    return not_run(r, checks, OCK_V_SKIP, 0, why_skip, out);
  struct cancel_target target = {NULL, 0}; /* set before any thread can see it */
  struct ock_mock_options mo = {.observe_only = cfg->observe_only,
                                .seed = cfg->seed,
                                .on_cancel = on_cancel,
                                .user = &target,
                                .threads = 1}; /* one SUT: a thread per start is what counts */
  ock_mock *m = NULL;
  struct ock_jerr err;
  struct grade_ctx g = {.reg = reg,
                        .declared = cfg->declared,
                        .level = cfg->level,
                        .strict = cfg->strict,
                        .time_scale = cfg->time_scale > 0 ? cfg->time_scale : 1,
                        .checks = checks,
                        .blackbox = cfg->blackbox};
  int rc = ock_mock_new_fixture(sc->fx, &mo, &m, &err);
  if (!rc)
    rc = ock_mock_start(m, &err);
  if (rc) {
    char why[900];
    snprintf(why, sizeof why, "the mock provider did not start: %s: %s", err.where, err.what);
    ock__grade_error(&g, CK_HARNESS_MOCK, why);
    ock_mock_free(m);
    return not_run(r, checks, OCK_V_ERROR, now_ms() - t0, NULL, out);
  }
  sut *s = NULL;
  struct sut_result proc;
  run_sut(sc, cfg, ock_mock_url(m), &target, &proc, &s);
  ock_mock_stop(m);
  atomic_store(&target.s, NULL);
  write_journal(m, cfg, sc->id); /* before the take, which empties the journal */
  cJSON *journal = ock_mock_journal_take(m);
  struct view v;
  grade_run(&g, &v, sc, cfg, journal, &proc, ock_mock_journal_dropped(m));
  finish(r, checks, ock__scenario_verdict(checks), now_ms() - t0, NULL);
  cJSON_AddBoolToObject(r, "timed_out", proc.timed_out);
  if (proc.aborted)
    cJSON_AddBoolToObject(r, "interrupted", 1);
  cJSON_AddItemToObject(r, "process", ock__outcome_json(&proc));
  cJSON_AddItemToObject(r, "timeline", ock__timeline_build(journal, checks, TIMELINE_MAX));
  cJSON_Delete(journal);
  ock__sut_result_clear(&proc);
  ock__sut_free(s);
  ock_mock_free(m);
  *out = r;
  return OCK_OK;
}
