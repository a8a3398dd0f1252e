/*
 * registry.c: loading and looking up the requirement registry (see registry.h).
 *
 * The loaded registry keeps the parsed cJSON tree and points into it, so no string is copied
 * twice; lookups are linear (the registry has about a hundred entries).
 */
#include "ock/caps.h"
#include "ock/registry.h"

#include <ctype.h>
#include <strings.h>
#include <stdlib.h>
#include <string.h>

#include "ock/contract.h"
#include "ock/status.h"

extern const unsigned char ock__registry_json[];
extern const size_t ock__registry_json_len;

#define OCK_NAME_OF(ident, name) name,
const char *const ock_capabilities[] = {OCK_CAPABILITY_MAP(OCK_NAME_OF) NULL};
#undef OCK_NAME_OF

static const char *const level_names[] = {"MUST", "SHOULD", "MAY", NULL};

struct ock_registry {
  cJSON *root;
  const char *contract_version;
  struct ock_requirement *reqs;
  size_t n_reqs;
  struct ock_event_def *events;
  size_t n_events;
  const char **names; /* storage for every event's required/optional lists */
};

const char *ock_level_name(enum ock_level level) {
  return (unsigned)level < 3 ? level_names[level] : "?";
}

int ock_level_parse(const char *name, enum ock_level *out) {
  for (int i = 0; name && level_names[i]; i++) {
    if (!strcasecmp(name, level_names[i])) {
      *out = (enum ock_level)i;
      return OCK_OK;
    }
  }
  return OCK_EINVAL;
}

int ock_capability_known(const char *name) {
  enum ock_capability c;
  return ock_capability_parse(name, &c) == OCK_OK;
}

/* id_matches: id is "OCK-" group "-" three digits. */
static int id_matches(const char *id, const char *group) {
  size_t g = strlen(group);
  if (strncmp(id, "OCK-", 4) || strncmp(id + 4, group, g) || id[4 + g] != '-')
    return 0;
  const char *d = id + 5 + g;
  return strlen(d) == 3 && isdigit((unsigned char)d[0]) && isdigit((unsigned char)d[1]) &&
         isdigit((unsigned char)d[2]);
}

static int load_requirement(const cJSON *o, const char *path, struct ock_requirement *r,
                            struct ock_jerr *err) {
  const char *level = NULL;
  int rc = ock_jcheck_object(o, path, err);
  if (!rc)
    rc = ock_jget_nonempty(o, path, "id", OCK_REQUIRED, &r->id, err);
  if (!rc)
    rc = ock_jget_nonempty(o, path, "group", OCK_REQUIRED, &r->group, err);
  if (!rc)
    rc = ock_jget_nonempty(o, path, "level", OCK_REQUIRED, &level, err);
  if (!rc)
    rc = ock_jget_nonempty(o, path, "capability", OCK_REQUIRED, &r->capability, err);
  if (!rc)
    rc = ock_jget_nonempty(o, path, "text", OCK_REQUIRED, &r->text, err);
  if (!rc)
    rc = ock_jget_nonempty(o, path, "checked_by", OCK_REQUIRED, &r->checked_by, err);
  r->fix = "";
  if (!rc)
    rc = ock_jget_string(o, path, "fix", OCK_OPTIONAL, &r->fix, err);
  r->blackbox = 0;
  if (!rc)
    rc = ock_jget_bool(o, path, "blackbox", OCK_OPTIONAL, &r->blackbox, err);
  if (rc)
    return rc;
  char mp[OCK_JSON_PATH_MAX];
  if (ock_level_parse(level, &r->level) || strcmp(level, ock_level_name(r->level))) {
    ock_jpath_key(mp, sizeof mp, path, "level");
    return ock_jerr_set(err, OCK_ETYPE, mp, "expected \"MUST\", \"SHOULD\" or \"MAY\", got \"%s\"",
                        level);
  }
  if (!ock_capability_known(r->capability)) {
    ock_jpath_key(mp, sizeof mp, path, "capability");
    return ock_jerr_set(err, OCK_ETYPE, mp, "unknown capability \"%s\"", r->capability);
  }
  if (!id_matches(r->id, r->group)) {
    ock_jpath_key(mp, sizeof mp, path, "id");
    return ock_jerr_set(err, OCK_ETYPE, mp, "expected \"OCK-%s-NNN\", got \"%s\"", r->group, r->id);
  }
  return OCK_OK;
}

/* count_names counts the strings of an optional array member; -1 when it is not strings. */
static int count_names(const cJSON *o, const char *key) {
  const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key), *s;
  if (!a)
    return 0;
  if (!cJSON_IsArray(a))
    return -1;
  int n = 0;
  cJSON_ArrayForEach(s, a) {
    if (!cJSON_IsString(s))
      return -1;
    n++;
  }
  return n;
}

static const char **fill_names(const cJSON *o, const char *key, const char **slot) {
  const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key), *s;
  cJSON_ArrayForEach(s, a)
    *slot++ = s->valuestring;
  *slot++ = NULL;
  return slot;
}

static int load_events(ock_registry *r, const cJSON *events, struct ock_jerr *err) {
  int n = cJSON_GetArraySize(events);
  size_t total = 0;
  for (int i = 0; i < n; i++) {
    char path[OCK_JSON_PATH_MAX];
    ock_jpath_index(path, sizeof path, "$.events", i);
    const cJSON *e = cJSON_GetArrayItem(events, i);
    int rc = ock_jcheck_object(e, path, err);
    if (rc)
      return rc;
    for (int k = 0; k < 2; k++) {
      const char *key = k ? "optional" : "required";
      int c = count_names(e, key);
      if (c < 0) {
        char mp[OCK_JSON_PATH_MAX];
        ock_jpath_key(mp, sizeof mp, path, key);
        return ock_jerr_set(err, OCK_ETYPE, mp, "expected an array of field names");
      }
      total += (size_t)c + 1;
    }
  }
  r->events = calloc((size_t)n + 1, sizeof *r->events);
  r->names = calloc(total + 1, sizeof *r->names);
  if (!r->events || !r->names)
    return OCK_ENOMEM;
  const char **slot = r->names;
  for (int i = 0; i < n; i++) {
    char path[OCK_JSON_PATH_MAX];
    ock_jpath_index(path, sizeof path, "$.events", i);
    const cJSON *e = cJSON_GetArrayItem(events, i);
    struct ock_event_def *d = &r->events[i];
    d->capability = OCK_CAP_CORE;
    int rc = ock_jget_nonempty(e, path, "name", OCK_REQUIRED, &d->name, err);
    if (!rc)
      rc = ock_jget_nonempty(e, path, "stage", OCK_REQUIRED, &d->stage, err);
    if (!rc)
      rc = ock_jget_nonempty(e, path, "capability", OCK_OPTIONAL, &d->capability, err);
    if (rc)
      return rc;
    for (size_t j = 0; j < (size_t)i; j++) {
      if (!strcmp(r->events[j].name, d->name)) {
        char mp[OCK_JSON_PATH_MAX];
        ock_jpath_key(mp, sizeof mp, path, "name");
        return ock_jerr_set(err, OCK_ETYPE, mp, "event \"%s\" is listed twice", d->name);
      }
    }
    d->required = slot;
    slot = fill_names(e, "required", slot);
    d->optional = slot;
    slot = fill_names(e, "optional", slot);
    r->n_events++;
  }
  return OCK_OK;
}

int ock_registry_load(const char *text, size_t len, ock_registry **out, struct ock_jerr *err) {
  ock_registry *r = calloc(1, sizeof *r);
  if (!r)
    return OCK_ENOMEM;
  const cJSON *reqs = NULL, *events = NULL;
  int rc = ock_json_parse(text, len, &r->root, err);
  if (!rc)
    rc = ock_jcheck_object(r->root, "$", err);
  if (!rc)
    rc = ock_jget_nonempty(r->root, "$", "contract_version", OCK_REQUIRED, &r->contract_version,
                           err);
  if (!rc)
    rc = ock_jget_array(r->root, "$", "requirements", OCK_REQUIRED, &reqs, err);
  if (!rc)
    rc = ock_jget_array(r->root, "$", "events", OCK_REQUIRED, &events, err);
  if (!rc) {
    r->reqs = calloc((size_t)cJSON_GetArraySize(reqs) + 1, sizeof *r->reqs);
    rc = r->reqs ? OCK_OK : OCK_ENOMEM;
  }
  for (int i = 0; !rc && i < cJSON_GetArraySize(reqs); i++) {
    char path[OCK_JSON_PATH_MAX];
    ock_jpath_index(path, sizeof path, "$.requirements", i);
    rc = load_requirement(cJSON_GetArrayItem(reqs, i), path, &r->reqs[i], err);
    for (size_t j = 0; !rc && j < r->n_reqs; j++)
      if (!strcmp(r->reqs[j].id, r->reqs[i].id))
        rc = ock_jerr_set(err, OCK_ETYPE, path, "requirement %s is listed twice", r->reqs[i].id);
    if (!rc)
      r->n_reqs++;
  }
  if (!rc)
    rc = load_events(r, events, err);
  if (rc) {
    ock_registry_free(r);
    return rc;
  }
  *out = r;
  return OCK_OK;
}

int ock_registry_load_builtin(ock_registry **out, struct ock_jerr *err) {
  return ock_registry_load((const char *)ock__registry_json, ock__registry_json_len, out, err);
}

void ock_registry_free(ock_registry *r) {
  if (!r)
    return;
  cJSON_Delete(r->root);
  free(r->reqs);
  free(r->events);
  free(r->names);
  free(r);
}

const char *ock_registry_contract_version(const ock_registry *r) {
  return r->contract_version;
}

size_t ock_registry_count(const ock_registry *r) {
  return r->n_reqs;
}

const struct ock_requirement *ock_registry_at(const ock_registry *r, size_t i) {
  return i < r->n_reqs ? &r->reqs[i] : NULL;
}

const struct ock_requirement *ock_registry_find(const ock_registry *r, const char *id) {
  for (size_t i = 0; id && i < r->n_reqs; i++)
    if (!strcmp(r->reqs[i].id, id))
      return &r->reqs[i];
  return NULL;
}

size_t ock_registry_event_count(const ock_registry *r) {
  return r->n_events;
}

const struct ock_event_def *ock_registry_event_at(const ock_registry *r, size_t i) {
  return i < r->n_events ? &r->events[i] : NULL;
}

const struct ock_event_def *ock_registry_event(const ock_registry *r, const char *name) {
  for (size_t i = 0; name && i < r->n_events; i++)
    if (!strcmp(r->events[i].name, name))
      return &r->events[i];
  return NULL;
}
