/* scenarios.c: loading, validating and selecting fixtures (see scenarios.h). */
#include "run/scenarios.h"

#include <dirent.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ock/caps.h"
#include "ock/json.h"
#include "ock/mock.h"
#include "ock/status.h"
#include "ock/wire_list.h"

static const char *const top_keys[] = {
    "ock_fixture",   "id",      "title", "proves", "requirements", "capabilities", "session",
    "script",        "tools",   "hooks", "cancel", "observe_only", "seed",         "expect",
    "random_faults", "aliases", NULL};
static const char *const expect_keys[] = {
    "exit_code",  "executes",   "events_present",        "events_absent", "llm_requests",
    "tool_calls", "tool_input", "last_request_contains", "timing",        "requirement",
    NULL};
static const char *const execute_keys[] = {"status", "turn_count", "reason", "error_type", NULL};

static int wireless(const cJSON *fx);
static int give_wire(cJSON *fx, const char *wire);

static int fail(char *errbuf, size_t n, const char *file, const struct ock_jerr *err, int rc) {
  snprintf(errbuf, n, "%s: %s: %s", file, err->where, err->what);
  return rc;
}

static int check_string_array(const cJSON *o, const char *key, int required, char *path,
                              struct ock_jerr *err) {
  const cJSON *a = NULL;
  int rc = ock_jget_array(o, "$", key, required ? OCK_REQUIRED : OCK_OPTIONAL, &a, err);
  if (rc || !a)
    return rc;
  int i = 0;
  const cJSON *s;
  cJSON_ArrayForEach(s, a) {
    char base[64];
    snprintf(base, sizeof base, "$.%s", key);
    ock_jpath_index(path, OCK_JSON_PATH_MAX, base, i++);
    if (!cJSON_IsString(s))
      return ock_jerr_set(err, OCK_ETYPE, path, "expected a string, got %s", ock_json_type_name(s));
  }
  return OCK_OK;
}

/* check_requirement: an expect clause's own "requirement" (SPEC.md 8.8), when present, is a
 * registry ID. */
static int check_requirement(const cJSON *o, const char *path, const ock_registry *reg,
                             struct ock_jerr *err) {
  const char *id = NULL;
  char p[OCK_JSON_PATH_MAX];
  int rc = ock_jget_string(o, path, "requirement", OCK_OPTIONAL, &id, err);
  if (rc || !id || ock_registry_find(reg, id))
    return rc;
  ock_jpath_key(p, sizeof p, path, "requirement");
  return ock_jerr_set(err, OCK_ETYPE, p, "unknown requirement \"%.60s\" (see `ock list`)", id);
}

/* check_list_clause: events_* and last_request_contains: each element a string, or an object
 * {key: string, "requirement": ID}. */
static int check_list_clause(const cJSON *expect, const char *clause, const char *key,
                             const ock_registry *reg, struct ock_jerr *err) {
  const cJSON *a = NULL, *it;
  int rc = ock_jget_array(expect, "$.expect", clause, OCK_OPTIONAL, &a, err);
  int i = 0;
  cJSON_ArrayForEach(it, a) {
    char base[64], p[OCK_JSON_PATH_MAX];
    const char *allowed[] = {key, "requirement", NULL};
    const char *text = NULL;
    snprintf(base, sizeof base, "$.expect.%s", clause);
    ock_jpath_index(p, sizeof p, base, i++);
    if (rc || cJSON_IsString(it))
      continue;
    if (!cJSON_IsObject(it))
      return ock_jerr_set(err, OCK_ETYPE, p,
                          "expected a string or {\"%s\", \"requirement\"}, got %s", key,
                          ock_json_type_name(it));
    rc = ock_jcheck_keys(it, p, allowed, err);
    if (!rc)
      rc = ock_jget_string(it, p, key, OCK_REQUIRED, &text, err);
    if (!rc)
      rc = check_requirement(it, p, reg, err);
  }
  return rc;
}

/* check_count: an integer >= 0, or {"count": N, "requirement": ID}. */
static int check_count(const cJSON *value, const char *path, const ock_registry *reg,
                       struct ock_jerr *err) {
  static const char *const allowed[] = {"count", "requirement", NULL};
  long long n;
  if (cJSON_IsNumber(value)) {
    if (value->valuedouble < 0 || value->valuedouble != (double)(long long)value->valuedouble)
      return ock_jerr_set(err, OCK_ETYPE, path, "expected an integer >= 0");
    return OCK_OK;
  }
  if (!cJSON_IsObject(value))
    return ock_jerr_set(err, OCK_ETYPE, path,
                        "expected an integer or {\"count\", \"requirement\"}, got %s",
                        ock_json_type_name(value));
  int rc = ock_jcheck_keys(value, path, allowed, err);
  if (!rc)
    rc = ock_jget_int(value, path, "count", OCK_REQUIRED, 0, 1000000, &n, err);
  if (!rc)
    rc = check_requirement(value, path, reg, err);
  return rc;
}

static int validate_clauses(const cJSON *expect, const ock_registry *reg, struct ock_jerr *err) {
  int rc = check_list_clause(expect, "events_present", "event", reg, err);
  if (!rc)
    rc = check_list_clause(expect, "events_absent", "event", reg, err);
  if (!rc)
    rc = check_list_clause(expect, "last_request_contains", "text", reg, err);
  const cJSON *llm = cJSON_GetObjectItemCaseSensitive(expect, "llm_requests");
  if (!rc && llm)
    rc = check_count(llm, "$.expect.llm_requests", reg, err);
  const cJSON *o = NULL, *it;
  if (!rc)
    rc = ock_jget_object(expect, "$.expect", "tool_calls", OCK_OPTIONAL, &o, err);
  cJSON_ArrayForEach(it, o) {
    char p[OCK_JSON_PATH_MAX];
    ock_jpath_key(p, sizeof p, "$.expect.tool_calls", it->string);
    if (!rc)
      rc = strcmp(it->string, "requirement")
               ? check_count(it, p, reg, err)
               : check_requirement(o, "$.expect.tool_calls", reg, err);
  }
  o = NULL;
  if (!rc)
    rc = ock_jget_object(expect, "$.expect", "tool_input", OCK_OPTIONAL, &o, err);
  if (!rc && o)
    rc = check_requirement(o, "$.expect.tool_input", reg, err);
  o = NULL;
  if (!rc)
    rc = ock_jget_object(expect, "$.expect", "timing", OCK_OPTIONAL, &o, err);
  if (!rc && o) {
    static const char *const timing_keys[] = {"between_requests_ms", "requirement", NULL};
    rc = ock_jcheck_keys(o, "$.expect.timing", timing_keys, err);
    if (!rc)
      rc = check_requirement(o, "$.expect.timing", reg, err);
  }
  if (!rc)
    rc = check_requirement(expect, "$.expect", reg, err);
  return rc;
}

static int validate_expect(const cJSON *expect, const ock_registry *reg, struct ock_jerr *err) {
  int rc = ock_jcheck_object(expect, "$.expect", err);
  if (!rc)
    rc = ock_jcheck_keys(expect, "$.expect", expect_keys, err);
  const cJSON *execs = NULL, *e;
  if (!rc)
    rc = ock_jget_array(expect, "$.expect", "executes", OCK_OPTIONAL, &execs, err);
  int i = 0;
  cJSON_ArrayForEach(e, execs) {
    char p[OCK_JSON_PATH_MAX];
    ock_jpath_index(p, sizeof p, "$.expect.executes", i++);
    static const char *const statuses[] = {"success", "incomplete", "cancelled", "error", NULL};
    int which;
    long long t;
    if (!rc)
      rc = ock_jcheck_object(e, p, err);
    if (!rc)
      rc = ock_jcheck_keys(e, p, execute_keys, err);
    if (!rc)
      rc = ock_jget_enum(e, p, "status", OCK_OPTIONAL, statuses, &which, err);
    if (!rc)
      rc = ock_jget_int(e, p, "turn_count", OCK_OPTIONAL, 0, 1000000, &t, err);
  }
  long long v;
  if (!rc)
    rc = ock_jget_int(expect, "$.expect", "exit_code", OCK_OPTIONAL, 0, 255, &v, err);
  if (!rc)
    rc = validate_clauses(expect, reg, err);
  return rc;
}

/* validate_names: at least one requirement, each in the registry, and known capabilities. */
static int validate_names(const cJSON *fx, const ock_registry *reg, struct ock_jerr *err) {
  char path[OCK_JSON_PATH_MAX];
  const cJSON *reqs = cJSON_GetObjectItemCaseSensitive(fx, "requirements");
  if (!cJSON_GetArraySize(reqs))
    return ock_jerr_set(err, OCK_ETYPE, "$.requirements", "expected at least one requirement ID");
  int i = 0;
  const cJSON *r;
  cJSON_ArrayForEach(r, reqs) {
    ock_jpath_index(path, sizeof path, "$.requirements", i++);
    if (!ock_registry_find(reg, r->valuestring))
      return ock_jerr_set(err, OCK_ETYPE, path, "unknown requirement \"%.60s\" (see `ock list`)",
                          r->valuestring);
  }
  i = 0;
  cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(fx, "capabilities")) {
    ock_jpath_index(path, sizeof path, "$.capabilities", i++);
    if (!ock_capability_known(r->valuestring))
      return ock_jerr_set(err, OCK_ETYPE, path,
                          "unknown capability \"%.40s\"; expected one of core, streaming, "
                          "parallel, scheduling, lifecycle, resilience, cancellation",
                          r->valuestring);
  }
  return OCK_OK;
}

/* validate_wires: the id has no "@" (it marks the wire of a wire-less scenario, SPEC.md 8.2),
 * and "aliases", when present, maps wire names to ids. */
static int validate_wires(const cJSON *fx, const char *id, struct ock_jerr *err) {
  if (strchr(id, '@'))
    return ock_jerr_set(
        err, OCK_ETYPE, "$.id",
        "\"%.60s\" holds \"@\", which marks the wire of a scenario played on several "
        "(\"<id>@<wire>\"): expected an id without it",
        id);
  const cJSON *aliases = NULL, *a;
  int rc = ock_jget_object(fx, "$", "aliases", OCK_OPTIONAL, &aliases, err);
  cJSON_ArrayForEach(a, aliases) {
    char path[OCK_JSON_PATH_MAX];
    ock_jpath_key(path, sizeof path, "$.aliases", a->string);
    if (!rc && !ock_wire_by_name(a->string, NULL))
      rc = ock_jerr_set(err, OCK_ETYPE, path,
                        "expected a wire name (see ock run --help), got \"%.40s\"", a->string);
    if (!rc && (!cJSON_IsString(a) || !*a->valuestring || strchr(a->valuestring, '@')))
      rc = ock_jerr_set(err, OCK_ETYPE, path,
                        "expected the scenario id it had on that wire, without \"@\"");
  }
  return rc;
}

int ock__scenarios_validate(const cJSON *fx, const char *file, const ock_registry *reg,
                            char *errbuf, size_t n) {
  struct ock_jerr err;
  const char *id = NULL, *s = NULL;
  const cJSON *expect = NULL;
  char path[OCK_JSON_PATH_MAX];
  int rc = ock_jcheck_object(fx, "$", &err);
  if (!rc) /* cJSON keeps both members of a repeated key, and lookups see only the first */
    rc = ock_json_check_unique_keys(fx, "$", &err);
  if (!rc)
    rc = ock_jcheck_keys(fx, "$", top_keys, &err);
  if (!rc)
    rc = ock_jget_nonempty(fx, "$", "id", OCK_REQUIRED, &id, &err);
  if (!rc)
    rc = ock_jget_nonempty(fx, "$", "title", OCK_REQUIRED, &s, &err);
  if (!rc) /* every scenario says in one line what it proves */
    rc = ock_jget_nonempty(fx, "$", "proves", OCK_REQUIRED, &s, &err);
  if (!rc)
    rc = check_string_array(fx, "requirements", 1, path, &err);
  if (!rc)
    rc = check_string_array(fx, "capabilities", 0, path, &err);
  if (rc)
    return fail(errbuf, n, file, &err, rc);
  rc = validate_names(fx, reg, &err);
  if (rc)
    return fail(errbuf, n, file, &err, rc);
  rc = ock_jget_object(fx, "$", "expect", OCK_OPTIONAL, &expect, &err);
  if (!rc && expect)
    rc = validate_expect(expect, reg, &err);
  if (rc)
    return fail(errbuf, n, file, &err, rc);
  rc = validate_wires(fx, id, &err);
  if (rc)
    return fail(errbuf, n, file, &err, rc);
  /* The mock validates the members it plays: session, script, tools, hooks, cancel; a wire-less
   * scenario as it is played on each wire, here on openai. */
  cJSON *played = wireless(fx) ? cJSON_Duplicate(fx, 1) : NULL;
  if (played && give_wire(played, ock_wire_name_at(OCK_WIRE_OPENAI))) {
    cJSON_Delete(played);
    return OCK_ENOMEM;
  }
  ock_mock *m = NULL;
  rc = ock_mock_new(played ? played : fx, NULL, &m, &err);
  ock_mock_free(m);
  cJSON_Delete(played);
  if (rc)
    return fail(errbuf, n, file, &err, rc);
  return OCK_OK;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int by_id(const void *a, const void *b) {
  return strcmp(((const struct scenario *)a)->id, ((const struct scenario *)b)->id);
}

static int matches_any(const char *id, const char *const *globs) {
  for (size_t i = 0; id && globs && globs[i]; i++)
    if (!fnmatch(globs[i], id, 0))
      return 1;
  return 0;
}

/* scenario_matches: a glob matches sc by its id, its fixture's id, "<id>@<wire>" or its alias. */
static int scenario_matches(const struct scenario *sc, const char *const *globs) {
  return matches_any(sc->id, globs) || matches_any(sc->base, globs) ||
         matches_any(sc->wire_id, globs) || matches_any(sc->alias, globs);
}

static void scenario_release(struct scenario *sc) {
  free(sc->path);
  free(sc->base);
  free(sc->wire_id);
  cJSON_Delete(sc->fixture);
}

/* json_files lists the names of dir ending in ".json" (not hidden), sorted, into *names
 * (the caller frees each and the array). Returns -1 when dir cannot be opened. */
static int json_files(const char *dir, char ***names, size_t *count) {
  DIR *d = opendir(dir);
  if (!d)
    return -1;
  size_t cap = 0;
  struct dirent *de;
  *names = NULL;
  *count = 0;
  while ((de = readdir(d))) {
    size_t len = strlen(de->d_name);
    if (len < 6 || strcmp(de->d_name + len - 5, ".json") || de->d_name[0] == '.')
      continue;
    if (*count == cap) {
      cap = cap ? cap * 2 : 64;
      char **p = realloc(*names, cap * sizeof *p);
      if (!p)
        break;
      *names = p;
    }
    (*names)[(*count)++] = strdup(de->d_name);
  }
  closedir(d);
  qsort(*names, *count, sizeof **names, by_name);
  return 0;
}

/* load_one reads and validates dir/name into *fx: a regular file (a symbolic link could make
 * the harness read anything on the machine), a valid fixture, its id the file's stem and not
 * an id of set. Returns OCK_OK, or an error with errbuf. */
static int load_one(const char *dir, const char *name, const ock_registry *reg,
                    const struct scenario_set *set, cJSON **fx, char *errbuf, size_t n) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  struct stat st;
  if (lstat(path, &st) || !S_ISREG(st.st_mode)) {
    snprintf(errbuf, n,
             "%s: not a regular file (a symbolic link?); fixtures must be plain files in %s", path,
             dir);
    return OCK_EIO;
  }
  struct ock_jerr err;
  int rc = ock_json_parse_file(path, OCK_MAX_SCENARIO_FIXTURE, fx, &err);
  if (rc) {
    snprintf(errbuf, n, "%s: %s", err.where, err.what);
    return rc;
  }
  rc = ock__scenarios_validate(*fx, path, reg, errbuf, n);
  const char *id = ock_json_str(*fx, "id");
  size_t stem = strlen(name) - 5; /* without ".json" */
  if (!rc && (strlen(id) != stem || strncmp(id, name, stem))) {
    snprintf(errbuf, n, "%s: $.id: \"%s\" differs from the file name; they must be equal", path,
             id);
    rc = OCK_ETYPE;
  }
  for (size_t k = 0; !rc && k < set->n; k++)
    if (!strcmp(set->items[k].id, id)) {
      snprintf(errbuf, n, "%s: $.id: \"%s\" is also the id of %s", path, id, set->items[k].path);
      rc = OCK_ETYPE;
    }
  return rc;
}

/* aliases_unique: no alias (SPEC.md 8.2) is the id of a fixture or another alias: each names one
 * run. Returns OCK_OK, or OCK_ETYPE with errbuf. */
static int aliases_unique(const struct scenario_set *set, char *errbuf, size_t n) {
  for (size_t i = 0; i < set->n; i++) {
    const cJSON *a;
    cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(set->items[i].fixture, "aliases")) {
      for (size_t k = 0; k < set->n; k++) {
        const cJSON *b;
        int clash = !strcmp(set->items[k].id, a->valuestring);
        cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(set->items[k].fixture, "aliases"))
          clash |= b != a && !strcmp(b->valuestring, a->valuestring);
        if (clash) {
          snprintf(errbuf, n, "%s: $.aliases.%s: \"%s\" is also the id or an alias of %s",
                   set->items[i].path, a->string, a->valuestring, set->items[k].path);
          return OCK_ETYPE;
        }
      }
    }
  }
  return OCK_OK;
}

int ock__scenarios_load(const char *dir, const ock_registry *reg, const char *const *include,
                        const char *const *exclude, struct scenario_set *out, char *errbuf,
                        size_t n) {
  memset(out, 0, sizeof *out);
  char **names = NULL;
  size_t count = 0;
  if (json_files(dir, &names, &count)) {
    snprintf(errbuf, n, "%s: cannot open the fixtures directory", dir);
    return OCK_EIO;
  }
  out->items = calloc(count + 1, sizeof *out->items);
  int rc = out->items ? OCK_OK : OCK_ENOMEM;
  for (size_t i = 0; !rc && i < count; i++) {
    cJSON *fx = NULL;
    rc = load_one(dir, names[i], reg, out, &fx, errbuf, n);
    const char *id = ock_json_str(fx, "id");
    if (rc || (include && include[0] && !matches_any(id, include)) || matches_any(id, exclude)) {
      cJSON_Delete(fx);
      continue;
    }
    struct scenario *sc = &out->items[out->n++];
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    sc->path = strdup(path);
    sc->fixture = fx;
    sc->id = id;
    sc->title = ock_json_str(fx, "title");
    sc->proves = ock_json_str(fx, "proves");
  }
  for (size_t i = 0; i < count; i++)
    free(names[i]);
  free(names);
  if (!rc)
    rc = aliases_unique(out, errbuf, n);
  if (rc)
    ock__scenarios_free(out);
  else /* by id, as reports and merges order them (file names sort "a-b.json" before "a.json") */
    qsort(out->items, out->n, sizeof *out->items, by_id);
  return rc;
}

void ock__scenarios_select(struct scenario_set *s, const char *const *include,
                           const char *const *exclude) {
  size_t k = 0;
  for (size_t i = 0; i < s->n; i++) {
    if ((!include || !include[0] || scenario_matches(&s->items[i], include)) &&
        !scenario_matches(&s->items[i], exclude)) {
      s->items[k++] = s->items[i];
    } else {
      scenario_release(&s->items[i]);
    }
  }
  s->n = k;
}

int ock__scenario_names(const struct scenario *sc, const char *name) {
  return !strcmp(sc->id, name) || (sc->base && !strcmp(sc->base, name)) ||
         (sc->wire_id && !strcmp(sc->wire_id, name)) || (sc->alias && !strcmp(sc->alias, name));
}

int ock__scenarios_find(const struct scenario_set *s, const char *id) {
  for (size_t i = 0; i < s->n; i++)
    if (ock__scenario_names(&s->items[i], id))
      return 1;
  return 0;
}

void ock__scenarios_shard(struct scenario_set *s, int index, int count) {
  if (count <= 1)
    return;
  size_t k = 0;
  for (size_t i = 0; i < s->n; i++) {
    if ((int)(i % (size_t)count) == index - 1) {
      s->items[k++] = s->items[i];
    } else {
      scenario_release(&s->items[i]);
    }
  }
  s->n = k;
}

void ock__scenarios_free(struct scenario_set *s) {
  for (size_t i = 0; i < s->n; i++)
    scenario_release(&s->items[i]);
  free(s->items);
  s->items = NULL;
  s->n = 0;
}

const cJSON *ock__scenario_capabilities(const struct scenario *sc) {
  return cJSON_GetObjectItemCaseSensitive(sc->fixture, "capabilities");
}

/* ---- scenarios on every wire (SPEC.md 8.2) ----------------------------------------------------
 */

/* wireless: the fixture has a session provider without "api". */
static int wireless(const cJSON *fx) {
  const cJSON *p;
  cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(
                            cJSON_GetObjectItemCaseSensitive(fx, "session"), "providers")) {
    if (!cJSON_HasObjectItem(p, "api"))
      return 1;
  }
  return 0;
}

/* give_wire: the providers of fx without "api" get wire. OCK_OK or OCK_ENOMEM. */
static int give_wire(cJSON *fx, const char *wire) {
  cJSON *p;
  cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(
                            cJSON_GetObjectItemCaseSensitive(fx, "session"), "providers")) {
    if (!cJSON_HasObjectItem(p, "api") && !cJSON_AddStringToObject(p, "api", wire))
      return OCK_ENOMEM;
  }
  return OCK_OK;
}

/* on_wire: sc (wire-less) played on wire into *out: as "<id>@<wire>" when the run plays it on
 * several wires, else under its own id. OCK_OK or OCK_ENOMEM. */
static int on_wire(const struct scenario *sc, const char *wire, int several, struct scenario *out) {
  memset(out, 0, sizeof *out);
  char id[512];
  snprintf(id, sizeof id, "%s@%s", sc->id, wire);
  out->fixture = cJSON_Duplicate(sc->fixture, 1); /* its id stays the fixture's: the mock's */
  out->path = strdup(sc->path);
  out->base = strdup(sc->id);
  out->wire_id = strdup(id);
  if (!out->fixture || !out->path || !out->base || !out->wire_id || give_wire(out->fixture, wire)) {
    scenario_release(out);
    return OCK_ENOMEM;
  }
  out->id = several ? out->wire_id : out->base;
  out->title = ock_json_str(out->fixture, "title");
  out->proves = ock_json_str(out->fixture, "proves");
  out->wire = wire;
  out->alias = ock_json_str(cJSON_GetObjectItemCaseSensitive(out->fixture, "aliases"), wire);
  return OCK_OK;
}

int ock__scenarios_expand(struct scenario_set *s, const char *const *wires) {
  const char *names[64];
  size_t nw = 0;
  for (size_t i = 0; wires && wires[i] && nw < 64; i++) {
    enum ock_wire w;
    if (ock_wire_by_name(wires[i], &w)) /* the table's own string: it outlives the set */
      names[nw++] = ock_wire_name_at((int)w);
  }
  if (!nw) /* none declared: as before, on openai */
    names[nw++] = ock_wire_name_at(OCK_WIRE_OPENAI);
  size_t wide = 0;
  for (size_t i = 0; i < s->n; i++)
    wide += wireless(s->items[i].fixture) ? nw : 1;
  struct scenario *items = calloc(wide + 1, sizeof *items);
  if (!items)
    return OCK_ENOMEM;
  size_t k = 0;
  int rc = OCK_OK;
  for (size_t i = 0; i < s->n; i++) {
    struct scenario *sc = &s->items[i];
    if (!wireless(sc->fixture)) {
      items[k++] = *sc;
      continue;
    }
    for (size_t w = 0; w < nw && !rc; w++)
      if (!(rc = on_wire(sc, names[w], nw > 1, &items[k])))
        k++;
    scenario_release(sc);
  }
  free(s->items);
  s->items = items;
  s->n = k;
  qsort(s->items, s->n, sizeof *s->items, by_id);
  return rc;
}
