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

static const char *const top_keys[] = {
    "ock_fixture", "id",     "title",         "proves", "requirements", "capabilities",
    "session",     "script", "tools",         "hooks",  "cancel",       "observe_only",
    "seed",        "expect", "random_faults", NULL};
static const char *const expect_keys[] = {
    "exit_code",  "executes",   "events_present",        "events_absent", "llm_requests",
    "tool_calls", "tool_input", "last_request_contains", "timing",        "requirement",
    NULL};
static const char *const execute_keys[] = {"status", "turn_count", "reason", "error_type", NULL};

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
  /* The mock validates the members it plays: session, script, tools, hooks, cancel. */
  ock_mock *m = NULL;
  rc = ock_mock_new(fx, NULL, &m, &err);
  ock_mock_free(m);
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
  for (size_t i = 0; globs && globs[i]; i++)
    if (!fnmatch(globs[i], id, 0))
      return 1;
  return 0;
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
    if ((!include || !include[0] || matches_any(s->items[i].id, include)) &&
        !matches_any(s->items[i].id, exclude)) {
      s->items[k++] = s->items[i];
    } else {
      free(s->items[i].path);
      cJSON_Delete(s->items[i].fixture);
    }
  }
  s->n = k;
}

int ock__scenarios_find(const struct scenario_set *s, const char *id) {
  for (size_t i = 0; i < s->n; i++)
    if (!strcmp(s->items[i].id, id))
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
      free(s->items[i].path);
      cJSON_Delete(s->items[i].fixture);
    }
  }
  s->n = k;
}

void ock__scenarios_free(struct scenario_set *s) {
  for (size_t i = 0; i < s->n; i++) {
    free(s->items[i].path);
    cJSON_Delete(s->items[i].fixture);
  }
  free(s->items);
  s->items = NULL;
  s->n = 0;
}

const cJSON *ock__scenario_capabilities(const struct scenario *sc) {
  return cJSON_GetObjectItemCaseSensitive(sc->fixture, "capabilities");
}
