/*
 * config.c: the one reader and writer of the session config (see config.h), expanded from
 * OCK_CONFIG_MAP: a table of the options with their type, member offset, range and values.
 */
#include "ock/config.h"

#include <stddef.h>
#include <string.h>

#include "ock/status.h"

enum cfg_type { CFG_INT, CFG_NUMBER, CFG_BOOL, CFG_ENUM };

/* The value names of each enum option, NULL-terminated: error_strategy_names, mode_names. */
#define CFG_VALUE_NAME(ident, name) name,
#define CFG_ENUM_NAMES(ident, member)                                                              \
  static const char *const member##_names[] = {OCK_CFG_##ident##_VALUES(CFG_VALUE_NAME) NULL};
OCK_CONFIG_ENUMS(CFG_ENUM_NAMES)
#undef CFG_ENUM_NAMES
#undef CFG_VALUE_NAME

#define CFG_CHOICES_INT(member) NULL
#define CFG_CHOICES_NUMBER(member) NULL
#define CFG_CHOICES_BOOL(member) NULL
#define CFG_CHOICES_ENUM(member) member##_names

struct cfg_option {
  const char *name;
  enum cfg_type type;
  size_t offset;              /* of the member in struct ock_config */
  double lo, hi;              /* the range of an integer or a number */
  const char *const *choices; /* an enum's value names */
};

static const struct cfg_option options[OCK_CONFIG_COUNT] = {
#define CFG_ROW(ident, member, type, dflt, lo, hi)                                                 \
  {OCK_CFG_##ident,           CFG_##type, offsetof(struct ock_config, member), lo, hi,             \
   CFG_CHOICES_##type(member)},
    OCK_CONFIG_MAP(CFG_ROW)
#undef CFG_ROW
};

/* The option names, NULL-terminated, for the "expected one of" message of an unknown member. */
static const char *const option_names[] = {
#define CFG_NAME(ident, member, type, dflt, lo, hi) OCK_CFG_##ident,
    OCK_CONFIG_MAP(CFG_NAME)
#undef CFG_NAME
        NULL};

void ock_config_default(struct ock_config *c) {
  memset(c, 0, sizeof *c);
#define CFG_DEFAULT(ident, member, type, dflt, lo, hi) c->member = dflt;
  OCK_CONFIG_MAP(CFG_DEFAULT)
#undef CFG_DEFAULT
}

/* read_option reads one option's member of obj, if present, into the struct at base. */
static int read_option(const struct cfg_option *o, const cJSON *obj, const char *path, char *base,
                       struct ock_jerr *err) {
  void *at = base + o->offset;
  int e = 0, rc = OCK_OK;
  switch (o->type) {
  case CFG_INT:
    rc = ock_jget_int(obj, path, o->name, OCK_OPTIONAL, (long long)o->lo, (long long)o->hi,
                      (long long *)at, err);
    break;
  case CFG_NUMBER:
    rc = ock_jget_number(obj, path, o->name, OCK_OPTIONAL, o->lo, o->hi, (double *)at, err);
    break;
  case CFG_BOOL:
    rc = ock_jget_bool(obj, path, o->name, OCK_OPTIONAL, (int *)at, err);
    break;
  case CFG_ENUM:
    /* Every enum member is an int-sized C enum; ock_jget_enum leaves e untouched when absent. */
    memcpy(&e, at, sizeof e);
    rc = ock_jget_enum(obj, path, o->name, OCK_OPTIONAL, o->choices, &e, err);
    if (!rc)
      memcpy(at, &e, sizeof e);
    break;
  }
  return rc;
}

/* fixture_rules: what a fixture must hold beyond each option's own type and range. */
static int fixture_rules(const cJSON *obj, const char *path, const struct ock_config *c,
                         struct ock_jerr *err) {
  if (c->mode != OCK_MODE_STREAMING || c->streaming)
    return OCK_OK;
  const cJSON *streaming = cJSON_GetObjectItemCaseSensitive(obj, OCK_CFG_STREAMING);
  char at[OCK_JSON_PATH_MAX];
  ock_jpath_key(at, sizeof at, path, OCK_CFG_MODE);
  return ock_jerr_set(err, OCK_ETYPE, at, "mode \"%s\" needs \"%s\": true in %s, got %s",
                      OCK_CFG_MODE_STREAMING, OCK_CFG_STREAMING, path,
                      streaming ? "false" : "no streaming member");
}

int ock_config_read(const cJSON *obj, const char *path, enum ock_config_read_flags flags,
                    struct ock_config *c, struct ock_jerr *err) {
  if (!obj)
    return OCK_OK;
  int rc = ock_jcheck_object(obj, path, err);
  if (!rc && (flags & OCK_CONFIG_FIXTURE))
    rc = ock_jcheck_keys(obj, path, option_names, err);
  struct ock_config next = *c;
  for (int i = 0; !rc && i < OCK_CONFIG_COUNT; i++) {
    rc = read_option(&options[i], obj, path, (char *)&next, err);
    if (!rc && cJSON_GetObjectItemCaseSensitive(obj, options[i].name))
      next.present |= 1UL << i;
  }
  if (!rc && (flags & OCK_CONFIG_FIXTURE))
    rc = fixture_rules(obj, path, &next, err);
  if (!rc)
    *c = next;
  return rc;
}

cJSON *ock_config_to_json(const struct ock_config *c) {
  cJSON *o = cJSON_CreateObject();
  const char *base = (const char *)c;
  for (int i = 0; o && i < OCK_CONFIG_COUNT; i++) {
    const struct cfg_option *opt = &options[i];
    const void *at = base + opt->offset;
    int e = 0;
    cJSON *v = NULL;
    switch (opt->type) {
    case CFG_INT:
      v = cJSON_CreateNumber((double)*(const long long *)at);
      break;
    case CFG_NUMBER:
      v = cJSON_CreateNumber(*(const double *)at);
      break;
    case CFG_BOOL:
      v = cJSON_CreateBool(*(const int *)at);
      break;
    case CFG_ENUM:
      memcpy(&e, at, sizeof e);
      v = e >= 0 && e <= (int)opt->hi ? cJSON_CreateString(opt->choices[e]) : NULL;
      break;
    }
    if (!v || !cJSON_AddItemToObject(o, opt->name, v)) {
      cJSON_Delete(v);
      cJSON_Delete(o);
      o = NULL;
    }
  }
  return o;
}

/* enum_index: the position of name among choices (NULL-terminated), or -1. */
static int enum_index(const char *const *choices, const char *name) {
  for (int i = 0; name && choices[i]; i++)
    if (!strcmp(choices[i], name))
      return i;
  return -1;
}

const char *ock_error_strategy_name(enum ock_error_strategy v) {
  return (unsigned)v < OCK_ERROR_STRATEGY_COUNT ? error_strategy_names[v] : "";
}

int ock_error_strategy_parse(const char *name, enum ock_error_strategy *out) {
  int i = enum_index(error_strategy_names, name);
  if (i < 0)
    return OCK_EINVAL;
  *out = (enum ock_error_strategy)i;
  return OCK_OK;
}

const char *ock_mode_name(enum ock_mode v) {
  return (unsigned)v < OCK_MODE_COUNT ? mode_names[v] : "";
}

int ock_mode_parse(const char *name, enum ock_mode *out) {
  int i = enum_index(mode_names, name);
  if (i < 0)
    return OCK_EINVAL;
  *out = (enum ock_mode)i;
  return OCK_OK;
}
