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
#include "ock/status.h"
#include "ock/wire_list.h"

int ock__scenario_load(const cJSON *fx, const char *file, const ock_registry *reg,
                       struct ock_fixture **out, char *errbuf, size_t n) {
  struct ock_jerr err;
  int rc = ock_jcheck_object(fx, "$", &err);
  if (!rc) /* cJSON keeps both members of a repeated key, and lookups see only the first */
    rc = ock_json_check_unique_keys(fx, "$", &err);
  if (!rc)
    rc = ock_fixture_load(fx, reg, out, &err);
  if (rc)
    snprintf(errbuf, n, "%s: %s: %s", file, err.where, err.what);
  return rc;
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
  ock_fixture_free(sc->fx);
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

/* load_one reads and loads dir/name into *fx: a regular file (a symbolic link could make the
 * harness read anything on the machine), a valid fixture, its id the file's stem and not an id
 * of set. A wire-less fixture is loaded as the mock alone plays it, on openai. Returns OCK_OK, or
 * an error with errbuf. */
static int load_one(const char *dir, const char *name, const ock_registry *reg,
                    const struct scenario_set *set, struct ock_fixture **fx, char *errbuf,
                    size_t n) {
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
  cJSON *json = NULL;
  int rc = ock_json_parse_file(path, OCK_MAX_SCENARIO_FIXTURE, &json, &err);
  if (rc) {
    snprintf(errbuf, n, "%s: %s", err.where, err.what);
    return rc;
  }
  rc = ock__scenario_load(json, path, reg, fx, errbuf, n);
  cJSON_Delete(json);
  if (rc)
    return rc;
  const char *id = (*fx)->id;
  size_t stem = strlen(name) - 5; /* without ".json" */
  if (strlen(id) != stem || strncmp(id, name, stem)) {
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
    cJSON_ArrayForEach(a, set->items[i].fx->aliases) {
      for (size_t k = 0; k < set->n; k++) {
        const cJSON *b;
        int clash = !strcmp(set->items[k].id, a->valuestring);
        cJSON_ArrayForEach(b, set->items[k].fx->aliases)
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
    struct ock_fixture *fx = NULL;
    rc = load_one(dir, names[i], reg, out, &fx, errbuf, n);
    const char *id = fx ? fx->id : NULL;
    if (rc || (include && include[0] && !matches_any(id, include)) || matches_any(id, exclude)) {
      ock_fixture_free(fx);
      continue;
    }
    struct scenario *sc = &out->items[out->n++];
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    sc->path = strdup(path);
    sc->fx = fx;
    sc->id = id;
    sc->title = fx->title;
    sc->proves = fx->proves;
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

/* ---- scenarios on every wire (SPEC.md 8.2) ----------------------------------------------------
 */

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
  cJSON *played = cJSON_Duplicate(sc->fx->json, 1); /* its id stays the fixture's: the mock's */
  struct ock_jerr err;
  int rc = !played || give_wire(played, wire) ? OCK_ENOMEM : OCK_OK;
  if (!rc) /* loaded before, on openai: on another wire it can only run out of memory */
    rc = ock_fixture_load(played, NULL, &out->fx, &err);
  cJSON_Delete(played);
  out->path = strdup(sc->path);
  out->base = strdup(sc->id);
  out->wire_id = strdup(id);
  if (rc || !out->path || !out->base || !out->wire_id) {
    scenario_release(out);
    return rc ? rc : OCK_ENOMEM;
  }
  out->id = several ? out->wire_id : out->base;
  out->title = out->fx->title;
  out->proves = out->fx->proves;
  out->wire = wire;
  out->alias = ock_fixture_alias(out->fx, wire);
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
    wide += ock_fixture_wireless(s->items[i].fx) ? nw : 1;
  struct scenario *items = calloc(wide + 1, sizeof *items);
  if (!items)
    return OCK_ENOMEM;
  size_t k = 0;
  int rc = OCK_OK;
  for (size_t i = 0; i < s->n; i++) {
    struct scenario *sc = &s->items[i];
    if (!ock_fixture_wireless(sc->fx)) {
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
