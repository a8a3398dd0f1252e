/*
 * report_merge.c: the aggregates of a report (ock_report_summarize) and the joining of shard
 * reports into one (ock_report_merge); see report.h.
 *
 * Both live here because merging is "concatenate the scenarios, then summarize": the merged
 * summary, requirement verdicts, traceability and run verdict come from exactly the code that
 * computes them for a single run, so the two can never disagree.
 */
#include "report/report.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ock/contract.h"
#include "ock/status.h"
#include "report/causes.h"

static const char *const verdict_names[] = {OCK_V_SKIP, OCK_V_PASS, OCK_V_WARN, OCK_V_FAIL,
                                            OCK_V_ERROR};
static const char *const level_names[] = {"MUST", "SHOULD", "MAY"};

/* One requirement of the catalogue while its aggregate is being built. */
struct agg {
  cJSON *req;        /* the new requirements[] entry */
  cJSON *scenarios;  /* its "scenarios" array (owned by req) */
  cJSON *trace;      /* the new traceability[] entry */
  cJSON *t_scen;     /* trace's "scenarios" */
  cJSON *t_checks;   /* trace's "checks" */
  const char *id;    /* borrowed from req */
  const char *level; /* borrowed from req */
  int worst;         /* most severe verdict so far, -1 = none ran; a waived check's own verdict */
  int worst_kept;    /* the same over the checks not waived */
  int msg_sev;       /* severity of the check that gave the message, -1 = none */
  char *message;     /* owned; "<scenario>: <message>" */
};

/* A string already in one of the aggregates' lists: append_unique looks here instead of
 * walking the list, which made a run of a few hundred scenarios quadratic. */
struct seen {
  const cJSON *list; /* NULL: a free slot */
  const char *s;     /* borrowed from the list's item */
};

struct summarizer {
  struct agg *aggs;
  size_t n, cap;
  cJSON *reqs, *trace; /* the new arrays */
  struct seen *seen;   /* open addressing, seen_cap a power of two; NULL: lists are walked */
  size_t seen_n, seen_cap;
  int seen_off; /* the table was dropped (out of memory): never rebuilt, it would miss */
  int oom;
  int by_verdict[5]; /* scenarios by verdict severity (SKIP PASS WARN FAIL ERROR) */
  int total;         /* scenarios counted */
  int waived_scen;   /* scenarios that passed only because the baseline waived a failure */
  int passed[3];     /* per level (MUST SHOULD MAY): requirements that passed */
  int waived[3];     /* per level: requirements whose worst verdict the baseline waived */
  int graded[3];     /* per level: requirements graded (not SKIP, not UNTESTED) */
};

static cJSON *add_string(struct summarizer *z, cJSON *obj, const char *key, const char *value) {
  cJSON *item = cJSON_AddStringToObject(obj, key, value ? value : "");
  if (!item)
    z->oom = 1;
  return item;
}

static cJSON *add_array(struct summarizer *z, cJSON *obj, const char *key) {
  cJSON *item = cJSON_AddArrayToObject(obj, key);
  if (!item)
    z->oom = 1;
  return item;
}

static int array_has(const cJSON *a, const char *s) {
  const cJSON *e;
  cJSON_ArrayForEach(e, a) {
    if (cJSON_IsString(e) && !strcmp(e->valuestring, s))
      return 1;
  }
  return 0;
}

static size_t seen_hash(const cJSON *list, const char *s) {
  size_t h = (size_t)14695981039346656037ULL ^ (size_t)(uintptr_t)list;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * (size_t)1099511628211ULL;
  return h;
}

/* seen_slot: the slot holding (list, s), or the free slot where it would go. */
static struct seen *seen_slot(const struct summarizer *z, const cJSON *list, const char *s) {
  size_t mask = z->seen_cap - 1;
  for (size_t i = seen_hash(list, s) & mask;; i = (i + 1) & mask) {
    struct seen *e = &z->seen[i];
    if (!e->list || (e->list == list && !strcmp(e->s, s)))
      return e;
  }
}

/* seen_grow keeps the table at most half full; out of memory it is dropped (lists are then
 * walked, as before it existed). */
static void seen_grow(struct summarizer *z) {
  if (z->seen_off || (z->seen && 2 * (z->seen_n + 1) <= z->seen_cap))
    return;
  size_t cap = z->seen_cap ? 2 * z->seen_cap : 256;
  struct seen *old = z->seen, *grown = calloc(cap, sizeof *grown);
  size_t old_cap = z->seen_cap;
  z->seen = grown;
  z->seen_cap = grown ? cap : 0;
  z->seen_off = !grown;
  for (size_t i = 0; grown && i < old_cap; i++)
    if (old[i].list)
      *seen_slot(z, old[i].list, old[i].s) = old[i];
  free(old);
}

static void append_unique(struct summarizer *z, cJSON *a, const char *s) {
  if (!a || !s)
    return;
  seen_grow(z);
  struct seen *slot = z->seen ? seen_slot(z, a, s) : NULL;
  if (slot ? slot->list != NULL : array_has(a, s))
    return;
  cJSON *str = cJSON_CreateString(s);
  if (!str || !cJSON_AddItemToArray(a, str)) {
    cJSON_Delete(str);
    z->oom = 1;
    return;
  }
  if (slot) {
    *slot = (struct seen){a, str->valuestring};
    z->seen_n++;
  }
}

/* add_requirement appends a catalogue entry; returns it or NULL when out of memory. */
static struct agg *add_requirement(struct summarizer *z, const char *id, const char *group,
                                   const char *level, const char *capability, const char *text) {
  if (z->n == z->cap) {
    size_t cap = z->cap ? z->cap * 2 : 64;
    struct agg *p = realloc(z->aggs, cap * sizeof *p);
    if (!p) {
      z->oom = 1;
      return NULL;
    }
    z->aggs = p;
    z->cap = cap;
  }
  struct agg *a = &z->aggs[z->n];
  memset(a, 0, sizeof *a);
  a->worst = a->worst_kept = a->msg_sev = -1;
  a->req = cJSON_CreateObject();
  a->trace = cJSON_CreateObject();
  if (!a->req || !cJSON_AddItemToArray(z->reqs, a->req)) {
    cJSON_Delete(a->req);
    cJSON_Delete(a->trace);
    z->oom = 1;
    return NULL;
  }
  if (!a->trace || !cJSON_AddItemToArray(z->trace, a->trace)) {
    cJSON_Delete(a->trace);
    z->oom = 1;
    return NULL;
  }
  z->n++;
  cJSON *idj = add_string(z, a->req, "id", id);
  add_string(z, a->req, "group", group);
  cJSON *lv = add_string(z, a->req, "level", level);
  add_string(z, a->req, "capability", capability);
  add_string(z, a->req, "text", text);
  /* verdict and message are placeholders, set in place once every check was seen, so the
   * member order is the one report.schema.json documents. */
  if (!cJSON_AddNullToObject(a->req, "verdict"))
    z->oom = 1;
  a->scenarios = add_array(z, a->req, "scenarios");
  if (!cJSON_AddNullToObject(a->req, "message"))
    z->oom = 1;
  a->id = idj ? idj->valuestring : "";
  a->level = lv ? lv->valuestring : "";
  add_string(z, a->trace, "requirement", id);
  a->t_scen = add_array(z, a->trace, "scenarios");
  a->t_checks = add_array(z, a->trace, "checks");
  return a;
}

static struct agg *find_requirement(struct summarizer *z, const char *id) {
  for (size_t i = 0; i < z->n; i++)
    if (!strcmp(z->aggs[i].id, id))
      return &z->aggs[i];
  return NULL;
}

/* group_of copies the group of "OCK-<GROUP>-NNN" into out ("" when the id has another form). */
static void group_of(const char *id, char *out, size_t n) {
  const char *start = strncmp(id, "OCK-", 4) ? NULL : id + 4, *end = strrchr(id, '-');
  size_t len = start && end > start ? (size_t)(end - start) : 0;
  if (len >= n)
    len = n - 1;
  memcpy(out, start ? start : "", len);
  out[len] = '\0';
}

static void load_catalogue(struct summarizer *z, const cJSON *report, const ock_registry *reg) {
  if (reg) {
    for (size_t i = 0; i < ock_registry_count(reg); i++) {
      const struct ock_requirement *r = ock_registry_at(reg, i);
      add_requirement(z, r->id, r->group, ock_level_name(r->level), r->capability, r->text);
    }
    return;
  }
  const cJSON *r;
  cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(report, "requirements")) {
    const char *id = ock_json_str(r, "id");
    if (id && !find_requirement(z, id))
      add_requirement(z, id, ock_json_str(r, "group"), ock_json_str(r, "level"),
                      ock_json_str(r, "capability"), ock_json_str(r, "text"));
  }
}

static void note_check(struct summarizer *z, const char *scenario, const cJSON *check) {
  const char *rid = ock_json_str(check, "requirement");
  if (!rid)
    return;
  struct agg *a = find_requirement(z, rid);
  if (!a) {
    char group[64];
    const char *level = ock_json_str(check, "level");
    group_of(rid, group, sizeof group);
    a = add_requirement(z, rid, group, level ? level : "MUST", "",
                        "(this requirement is not in the requirement registry)");
    if (!a)
      return;
  }
  /* A failure the baseline waived (--expected-failures) counts as what it was, apart. */
  const char *waived = ock_json_str(check, "waived");
  int sev = ock_verdict_severity(waived ? waived : ock_json_str(check, "verdict"));
  if (sev < 0) /* a check cannot be UNTESTED; treat it as the harness error it is */
    sev = 4;
  if (sev > a->worst)
    a->worst = sev;
  if (!waived && sev > a->worst_kept)
    a->worst_kept = sev;
  append_unique(z, a->scenarios, scenario);
  append_unique(z, a->t_scen, scenario);
  append_unique(z, a->t_checks, ock_json_str(check, "id"));
  if (sev >= 2 && sev > a->msg_sev) {
    const char *m = ock_json_str(check, "message");
    if (!m || !*m)
      m = ock_json_str(check, "actual");
    size_t len = strlen(scenario) + (m ? strlen(m) : 0) + 3;
    char *msg = malloc(len);
    if (!msg) {
      z->oom = 1;
      return;
    }
    snprintf(msg, len, "%s: %s", scenario, m ? m : "");
    free(a->message);
    a->message = msg;
    a->msg_sev = sev;
  }
}

/* set_member replaces obj[key] in place (keeping key order) or appends it; takes item. */
static int set_member(cJSON *obj, const char *key, cJSON *item) {
  if (!item)
    return 0;
  if (cJSON_GetObjectItemCaseSensitive(obj, key))
    return cJSON_ReplaceItemInObjectCaseSensitive(obj, key, item) ? 1 : (cJSON_Delete(item), 0);
  return cJSON_AddItemToObject(obj, key, item) ? 1 : (cJSON_Delete(item), 0);
}

/* scenario_waived: a check of s is a failure the baseline waived. */
static int scenario_waived(const cJSON *s) {
  const cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(s, "checks")) {
    if (ock_json_str(c, "waived"))
      return 1;
  }
  return 0;
}

/* tally_scenarios counts the scenarios by verdict and notes, per requirement, the scenarios
 * that claim it and the checks that graded it. */
static void tally_scenarios(struct summarizer *z, const cJSON *scenarios) {
  const cJSON *s, *c;
  cJSON_ArrayForEach(s, scenarios) {
    const char *sid = ock_json_str(s, "id");
    if (!sid || z->oom)
      continue;
    int sev = ock_verdict_severity(ock_json_str(s, "verdict"));
    if (sev == 1 && scenario_waived(s))
      z->waived_scen++;
    else
      z->by_verdict[sev < 0 ? 4 : sev]++;
    z->total++;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(s, "requirements")) {
      struct agg *a = cJSON_IsString(c) ? find_requirement(z, c->valuestring) : NULL;
      if (a) {
        append_unique(z, a->scenarios, sid);
        append_unique(z, a->t_scen, sid);
      }
    }
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(s, "checks")) {
      note_check(z, sid, c);
    }
  }
}

/* settle_requirements gives each requirement its verdict (its worst check, or UNTESTED) and
 * first message, and counts them per level. */
static void settle_requirements(struct summarizer *z) {
  for (size_t i = 0; i < z->n && !z->oom; i++) {
    struct agg *a = &z->aggs[i];
    int waived = a->worst > a->worst_kept && a->worst >= 2; /* its worst is a waived failure */
    if (!set_member(a->req, "verdict",
                    cJSON_CreateString(a->worst < 0 ? "UNTESTED" : verdict_names[a->worst])) ||
        (a->message && !set_member(a->req, "message", cJSON_CreateString(a->message))) ||
        (waived && !cJSON_AddBoolToObject(a->req, "waived", 1)))
      z->oom = 1;
    for (int l = 0; l < 3; l++) {
      if (!strcmp(a->level, level_names[l])) {
        z->graded[l] += a->worst >= 1; /* SKIP and UNTESTED were not graded */
        z->passed[l] += a->worst == 1;
        z->waived[l] += waived;
      }
    }
  }
}

/* summary_counts fills summary.scenarios (counts) and summary.levels (lv). */
static void summary_counts(struct summarizer *z, cJSON *counts, cJSON *lv) {
  if (z->oom)
    return;
  cJSON_AddNumberToObject(counts, "total", z->total);
  for (int v = 0; v < 5; v++) {
    static const int order[5] = {1, 3, 2, 0, 4}; /* PASS FAIL WARN SKIP ERROR */
    if (!cJSON_AddNumberToObject(counts, verdict_names[order[v]], z->by_verdict[order[v]]))
      z->oom = 1;
  }
  if (!cJSON_AddNumberToObject(counts, "waived", z->waived_scen))
    z->oom = 1;
  for (int l = 0; l < 3; l++) {
    cJSON *o = cJSON_AddObjectToObject(lv, level_names[l]);
    if (!o || !cJSON_AddNumberToObject(o, "passed", z->passed[l]) ||
        !cJSON_AddNumberToObject(o, "total", z->graded[l]) ||
        !cJSON_AddNumberToObject(o, "waived", z->waived[l]))
      z->oom = 1;
  }
}

/* run_verdict: the run's verdict and exit code from the scenario counts (SPEC.md 9). */
static const char *run_verdict(const struct summarizer *z, int strict, int *exit_code) {
  *exit_code = 0;
  if (z->by_verdict[3] || (strict && z->by_verdict[2])) {
    *exit_code = 1;
    return OCK_V_FAIL;
  }
  if (z->by_verdict[4] || z->total == z->by_verdict[0]) { /* an ERROR, or nothing but SKIP */
    *exit_code = 3;
    return "INCOMPLETE";
  }
  return OCK_V_PASS;
}

int ock_report_summarize(cJSON *report, const ock_registry *reg) {
  const cJSON *scenarios = cJSON_GetObjectItemCaseSensitive(report, "scenarios");
  if (!cJSON_IsObject(report) || !cJSON_IsArray(scenarios))
    return OCK_EINVAL;
  struct summarizer z = {0};
  z.reqs = cJSON_CreateArray();
  z.trace = cJSON_CreateArray();
  cJSON *summary = cJSON_CreateObject();
  cJSON *counts = summary ? cJSON_AddObjectToObject(summary, "scenarios") : NULL;
  cJSON *lv = summary ? cJSON_AddObjectToObject(summary, "levels") : NULL;
  z.oom = !z.reqs || !z.trace || !counts || !lv;
  if (!z.oom)
    load_catalogue(&z, report, reg);
  tally_scenarios(&z, scenarios);
  settle_requirements(&z);
  summary_counts(&z, counts, lv);
  for (size_t i = 0; i < z.n; i++)
    free(z.aggs[i].message);
  free(z.aggs);
  free(z.seen);
  int exit_code;
  const char *verdict = run_verdict(
      &z, ock_json_bool(cJSON_GetObjectItemCaseSensitive(report, "options"), "strict", 0),
      &exit_code);
  /* Everything is built; from here on only replacements happen. A failure now (out of memory
   * while creating two small items) could leave a mix, so create them first. */
  cJSON *vj = z.oom ? NULL : cJSON_CreateString(verdict);
  cJSON *ej = z.oom ? NULL : cJSON_CreateNumber(exit_code);
  if (!vj || !ej) {
    cJSON_Delete(vj);
    cJSON_Delete(ej);
    cJSON_Delete(z.reqs);
    cJSON_Delete(z.trace);
    cJSON_Delete(summary);
    return OCK_ENOMEM;
  }
  int ok = set_member(report, "verdict", vj);
  ok &= set_member(report, "exit_code", ej);
  ok &= set_member(report, "summary", summary);
  ok &= set_member(report, "requirements", z.reqs);
  ok &= set_member(report, "traceability", z.trace);
  return ok ? ock_report_causes(report) : OCK_ENOMEM;
}

/* ---- merge ---- */

struct shard_scenario {
  const cJSON *scenario;
  const char *id;
  size_t shard; /* 0-based */
  int index;    /* position in its shard's scenarios */
};

static int by_id(const void *a, const void *b) {
  const struct shard_scenario *x = a, *y = b;
  int c = strcmp(x->id, y->id);
  if (c)
    return c;
  if (x->shard != y->shard)
    return x->shard < y->shard ? -1 : 1;
  return x->index - y->index;
}

/* same_member: reports[0] and r agree on the member at (object key, key). */
static int same_member(const cJSON *first, const cJSON *r, const char *object, const char *key) {
  const cJSON *a = object ? cJSON_GetObjectItemCaseSensitive(first, object) : first;
  const cJSON *b = object ? cJSON_GetObjectItemCaseSensitive(r, object) : r;
  a = cJSON_GetObjectItemCaseSensitive(a, key);
  b = cJSON_GetObjectItemCaseSensitive(b, key);
  if (!a && !b)
    return 1;
  return a && b && cJSON_Compare(a, b, 1);
}

/* shard_name: names[i] when given, else "shard i+1", into buf. */
static const char *shard_name(const char *const *names, size_t i, char *buf, size_t n) {
  if (names && names[i])
    return names[i];
  snprintf(buf, n, "shard %zu", i + 1);
  return buf;
}

/* differs sets err for member (object key) on which shard i differs from shard 1: the JSON
 * path, both shards and both values. */
static int differs(const cJSON *const *reports, const char *const *names, size_t i,
                   const char *object, const char *key, struct ock_jerr *err) {
  char where[OCK_JSON_PATH_MAX], path[OCK_JSON_PATH_MAX], a[64], b[64];
  if (object)
    ock_jpath_key(path, sizeof path, "$", object);
  else
    snprintf(path, sizeof path, "$");
  ock_jpath_key(where, sizeof where, path, key);
  char *va[2] = {NULL, NULL};
  for (int k = 0; k < 2; k++) {
    const cJSON *r = reports[k ? i : 0];
    const cJSON *o = object ? cJSON_GetObjectItemCaseSensitive(r, object) : r;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    va[k] = v ? cJSON_PrintUnformatted(v) : NULL;
  }
  int rc = ock_jerr_set(err, OCK_EINVAL, where,
                        "%.200s has %.120s where %.200s has %.120s; only shards of one run (same "
                        "kit, contract, seed, level, strictness, tier, orchestrator, capabilities, "
                        "wires and fixtures) can be merged",
                        shard_name(names, i, b, sizeof b), va[1] ? va[1] : "nothing",
                        shard_name(names, 0, a, sizeof a), va[0] ? va[0] : "nothing");
  free(va[0]);
  free(va[1]);
  return rc;
}

static int check_shards(const cJSON *const *reports, const char *const *names, size_t n,
                        struct ock_jerr *err) {
  /* What makes shards one run: the same kit and contract, the same grading, the same
   * orchestrator declaring the same, and the same scenarios to split. */
  static const char *const agree[][2] = {{NULL, "schema_version"},
                                         {NULL, "contract_version"},
                                         {"kit", "version"},
                                         {NULL, "seed"},
                                         {"options", "level"},
                                         {"options", "strict"},
                                         {NULL, "tier"},
                                         {"orchestrator", "command"},
                                         {"orchestrator", "name"},
                                         {"orchestrator", "capabilities"},
                                         {"orchestrator", "wires"},
                                         {"options", "fixtures"},
                                         {"options", "case"},
                                         {"options", "exclude"}};
  for (size_t i = 0; i < n; i++) {
    struct ock_jerr verr;
    if (!reports[i])
      return ock_jerr_set(err, OCK_EINVAL, "shards", "shard %zu is NULL", i + 1);
    int rc = ock_report_validate(reports[i], &verr);
    if (rc) {
      if (err) {
        snprintf(err->where, sizeof err->where, "shard %zu: %.300s", i + 1, verr.where);
        memcpy(err->what, verr.what, sizeof err->what);
      }
      return rc;
    }
    for (size_t k = 0; i > 0 && k < sizeof agree / sizeof agree[0]; k++)
      if (!same_member(reports[0], reports[i], agree[k][0], agree[k][1]))
        return differs(reports, names, i, agree[k][0], agree[k][1], err);
  }
  return OCK_OK;
}

/* collect_scenarios lists every shard's scenarios sorted by id, failing on a duplicate id. */
static int collect_scenarios(const cJSON *const *reports, size_t n, struct shard_scenario **out,
                             size_t *count, struct ock_jerr *err) {
  size_t total = 0, k = 0;
  for (size_t i = 0; i < n; i++)
    total += (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(reports[i], "scenarios"));
  struct shard_scenario *all = calloc(total ? total : 1, sizeof *all);
  if (!all)
    return OCK_ENOMEM;
  for (size_t i = 0; i < n; i++) {
    const cJSON *s;
    int index = 0;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(reports[i], "scenarios")) {
      all[k].scenario = s;
      all[k].id = ock_json_str(s, "id");
      all[k].shard = i;
      all[k++].index = index++;
    }
  }
  qsort(all, total, sizeof *all, by_id);
  for (size_t i = 1; i < total; i++) {
    if (strcmp(all[i - 1].id, all[i].id))
      continue;
    char where[OCK_JSON_PATH_MAX];
    snprintf(where, sizeof where, "shard %zu: $.scenarios[%d].id", all[i].shard + 1, all[i].index);
    int rc = ock_jerr_set(err, OCK_EINVAL, where,
                          "scenario \"%s\" is also in shard %zu ($.scenarios[%d]); each scenario "
                          "must run in exactly one shard",
                          all[i].id, all[i - 1].shard + 1, all[i - 1].index);
    free(all);
    return rc;
  }
  *out = all;
  *count = total;
  return OCK_OK;
}

/* build_merged fills the new report m from the sorted scenarios and the shards. */
/* union_requirements appends to reqs the union of the shards' requirement lists, the first
 * shard's order first. Returns 1, or 0 when out of memory. */
static int union_requirements(cJSON *reqs, const cJSON *const *reports, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const cJSON *r, *e;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(reports[i], "requirements")) {
      const char *id = ock_json_str(r, "id");
      int seen = 0;
      cJSON_ArrayForEach(e, reqs) {
        seen |= !strcmp(ock_json_str(e, "id"), id);
      }
      if (seen)
        continue;
      cJSON *d = cJSON_Duplicate(r, 1);
      if (!d || !cJSON_AddItemToArray(reqs, d)) {
        cJSON_Delete(d);
        return 0;
      }
    }
  }
  return 1;
}

/* merged_times: the merged run started with its earliest shard and finished with its latest
 * (the shards' times are validated already, so they parse). Returns 1, or 0 when out of
 * memory. */
static int merged_times(cJSON *m, const cJSON *const *reports, size_t n) {
  size_t first = 0, last = 0;
  long long lo = 0, hi = 0;
  for (size_t i = 0; i < n; i++) {
    long long a = 0, b = 0;
    ock_report_time_ms(ock_json_str(reports[i], "started_at"), &a);
    ock_report_time_ms(ock_json_str(reports[i], "finished_at"), &b);
    if (i == 0 || a < lo) {
      lo = a;
      first = i;
    }
    if (i == 0 || b > hi) {
      hi = b;
      last = i;
    }
  }
  return set_member(m, "started_at",
                    cJSON_CreateString(ock_json_str(reports[first], "started_at"))) &&
         set_member(m, "finished_at",
                    cJSON_CreateString(ock_json_str(reports[last], "finished_at"))) &&
         set_member(m, "duration_ms", cJSON_CreateNumber((double)(hi > lo ? hi - lo : 0)));
}

static int build_merged(cJSON *m, const cJSON *const *reports, size_t n,
                        const struct shard_scenario *all, size_t count) {
  cJSON *scen = cJSON_CreateArray(), *reqs = cJSON_CreateArray();
  int ok = scen && reqs;
  for (size_t i = 0; ok && i < count; i++) {
    cJSON *d = cJSON_Duplicate(all[i].scenario, 1);
    ok = d && cJSON_AddItemToArray(scen, d);
    if (!ok)
      cJSON_Delete(d);
  }
  ok = ok && union_requirements(reqs, reports, n);
  if (!ok) {
    cJSON_Delete(scen);
    cJSON_Delete(reqs);
    return OCK_ENOMEM;
  }
  int placed = set_member(m, "scenarios", scen); /* takes scen, also on failure */
  if (!placed || !set_member(m, "requirements", reqs)) {
    if (!placed)
      cJSON_Delete(reqs);
    return OCK_ENOMEM;
  }
  cJSON *opts = cJSON_GetObjectItemCaseSensitive(m, "options");
  if (!merged_times(m, reports, n) ||
      (opts && !set_member(opts, "shard", cJSON_CreateString("merged"))))
    return OCK_ENOMEM;
  return ock_report_summarize(m, NULL);
}

int ock_report_merge(const cJSON *const *reports, size_t n, cJSON **out, struct ock_jerr *err) {
  return ock_report_merge_named(reports, NULL, n, out, err);
}

int ock_report_merge_named(const cJSON *const *reports, const char *const *names, size_t n,
                           cJSON **out, struct ock_jerr *err) {
  if (!reports || n == 0 || !out)
    return ock_jerr_set(err, OCK_EINVAL, "shards", "no report to merge");
  int rc = check_shards(reports, names, n, err);
  struct shard_scenario *all = NULL;
  size_t count = 0;
  if (!rc)
    rc = collect_scenarios(reports, n, &all, &count, err);
  if (rc)
    return rc;
  cJSON *m = cJSON_Duplicate(reports[0], 1);
  rc = m ? build_merged(m, reports, n, all, count) : OCK_ENOMEM;
  free(all);
  if (rc) {
    cJSON_Delete(m);
    return ock_jerr_set(err, rc, "shards", "merging failed: %s", ock_strerror(rc));
  }
  *out = m;
  return OCK_OK;
}

/* parse_shard reads "I/N" with 1 <= I <= N <= 100000; returns 0 or -1. */
static int parse_shard(const char *label, long *i, long *total) {
  char *end;
  if (!label || *label < '1' || *label > '9')
    return -1;
  *i = strtol(label, &end, 10);
  if (*end != '/' || end[1] < '1' || end[1] > '9')
    return -1;
  *total = strtol(end + 1, &end, 10);
  return *end || *total > 100000 || *i > *total ? -1 : 0;
}

int ock_report_shards_missing(const cJSON *const *reports, size_t n, char *missing,
                              size_t n_missing) {
  long total = 0;
  unsigned char *seen = NULL;
  missing[0] = '\0';
  for (size_t k = 0; k < n; k++) {
    const char *label =
        ock_json_str(cJSON_GetObjectItemCaseSensitive(reports[k], "options"), "shard");
    long i, t;
    if (parse_shard(label, &i, &t)) {
      snprintf(missing, n_missing, "report %zu: options.shard is \"%s\", expected I/N", k + 1,
               label ? label : "(none)");
      free(seen);
      return -1;
    }
    if (!total) {
      total = t;
      seen = calloc((size_t)total + 1, 1);
      if (!seen) {
        snprintf(missing, n_missing, "out of memory");
        return -1;
      }
    }
    if (t != total || seen[i]) {
      snprintf(missing, n_missing,
               t != total ? "report %zu is shard %s, but report 1 is one of %ld shards"
                          : "report %zu is shard %s, which is already given",
               k + 1, label, total);
      free(seen);
      return -1;
    }
    seen[i] = 1;
  }
  int count = 0;
  size_t used = 0;
  for (long i = 1; i <= total; i++) {
    if (seen[i])
      continue;
    count++;
    int w = snprintf(missing + used, used < n_missing ? n_missing - used : 0, "%s%ld/%ld",
                     count > 1 ? ", " : "", i, total);
    if (w > 0)
      used += (size_t)w;
  }
  free(seen);
  return count;
}
