/* payload.c: event payload fields read by the registry's shape (see payload.h). */
#include "model/payload.h"

#include <string.h>

#include "model/view.h"

static const char *const field_names[] = {
#define OCK_FIELD_NAME(ident, name) name,
    OCK_PAYLOAD_FIELD_MAP(OCK_FIELD_NAME)
#undef OCK_FIELD_NAME
};

/* One row of OCK_EVENT_FIELD_MAP: field f of event ev, required or not, its JSON types (its
 * minimum is core's to check, ock_event_bad_field). */
struct field_row {
  enum ock_event ev;
  enum ock_field f;
  int required;
  int types;
};

static const struct field_row event_fields[] = {
#define OCK_FIELD_ROW(ev, f, req, types, minimum) {OCK_EVENT_##ev, OCK_FIELD_##f, req, types},
    OCK_EVENT_FIELD_MAP(OCK_FIELD_ROW)
#undef OCK_FIELD_ROW
};

static const struct {
  enum ock_field f;
  int types;
} lifecycle_fields[] = {
#define OCK_LIFECYCLE_ROW(f, types) {OCK_FIELD_##f, types},
    OCK_LIFECYCLE_FIELD_MAP(OCK_LIFECYCLE_ROW)
#undef OCK_LIFECYCLE_ROW
};

const char *ock__field_name(enum ock_field f) {
  return (unsigned)f < OCK_FIELD_COUNT ? field_names[f] : "";
}

int ock__field_rule(enum ock_event ev, enum ock_field f, int *types) {
  int bits = 0, rule = -1;
  for (size_t i = 0; i < sizeof event_fields / sizeof event_fields[0] && rule < 0; i++) {
    if (event_fields[i].ev == ev && event_fields[i].f == f) {
      rule = event_fields[i].required;
      bits = event_fields[i].types;
    }
  }
  for (size_t i = 0; i < sizeof lifecycle_fields / sizeof lifecycle_fields[0] && rule < 0; i++) {
    if (lifecycle_fields[i].f == f) {
      rule = 0;
      bits = lifecycle_fields[i].types;
    }
  }
  if (types)
    *types = bits;
  return rule;
}

/* json_type: the OCK_JT_* bits a cJSON value matches (0 for an invalid one). A number matches
 * an integer field too, fraction or not: whether it is whole, and in range, is for the check
 * that reads it (and proc.event-fields) to judge. */
static int json_type(const cJSON *j) {
  if (cJSON_IsString(j))
    return OCK_JT_STRING;
  if (cJSON_IsNumber(j))
    return OCK_JT_NUMBER | OCK_JT_INTEGER;
  if (cJSON_IsBool(j))
    return OCK_JT_BOOL;
  if (cJSON_IsNull(j))
    return OCK_JT_NULL;
  if (cJSON_IsObject(j))
    return OCK_JT_OBJECT;
  return cJSON_IsArray(j) ? OCK_JT_ARRAY : 0;
}

struct ock_payload ock__payload(const cJSON *e, enum ock_field f) {
  struct ock_payload p = {OCK_PAYLOAD_NO_FIELD, NULL};
  int types = 0;
  if (!e || !ock__is_kind(e, OCK_ENTRY_EVENT) || (unsigned)f >= OCK_FIELD_COUNT)
    return p;
  int rule = ock__field_rule(ock_event_parse(ock__event_name(e)), f, &types);
  if (rule < 0)
    return p;
  const cJSON *j = cJSON_GetObjectItemCaseSensitive(ock__event_data(e), field_names[f]);
  if (!j)
    p.state = rule ? OCK_PAYLOAD_MISSING : OCK_PAYLOAD_ABSENT;
  else if (!(json_type(j) & types))
    p.state = OCK_PAYLOAD_MISTYPED;
  else {
    p.state = OCK_PAYLOAD_OK;
    p.json = j;
  }
  return p;
}

const cJSON *ock__pf(const cJSON *e, enum ock_field f) {
  return ock__payload(e, f).json;
}

const char *ock__pf_str(const cJSON *e, enum ock_field f) {
  return cJSON_GetStringValue(ock__pf(e, f));
}

int ock__pf_is(const cJSON *e, enum ock_field f, const char *want) {
  const char *s = ock__pf_str(e, f);
  return s && want && !strcmp(s, want);
}

int ock__pf_sent(const cJSON *e, enum ock_field f) {
  enum ock_payload_state s = ock__payload(e, f).state;
  return s == OCK_PAYLOAD_OK || s == OCK_PAYLOAD_MISTYPED;
}

int ock__pf_same(const cJSON *a, const cJSON *b, enum ock_field f) {
  struct ock_payload x = ock__payload(a, f), y = ock__payload(b, f);
  return x.state == y.state && (x.json ? cJSON_Compare(x.json, y.json, 1) : 1);
}

double ock__pf_num(const cJSON *e, enum ock_field f, double absent) {
  const cJSON *j = ock__pf(e, f);
  return cJSON_IsNumber(j) ? j->valuedouble : absent;
}

long long ock__pf_int(const cJSON *e, enum ock_field f, long long absent) {
  double d = ock__pf_num(e, f, 1e300);
  /* A peer may send 1e300: a cast out of range is undefined, so such a value is absent. */
  return d > -9.2e18 && d < 9.2e18 ? (long long)d : absent;
}

const char *ock__pf_show(const cJSON *e, enum ock_field f) {
  struct ock_payload p = ock__payload(e, f);
  switch (p.state) {
  case OCK_PAYLOAD_OK:
    if (cJSON_IsString(p.json))
      return p.json->valuestring;
    return cJSON_IsNull(p.json) ? "null" : "(not a string)";
  case OCK_PAYLOAD_ABSENT:
    return "(absent)";
  case OCK_PAYLOAD_MISSING:
    return "(missing)";
  case OCK_PAYLOAD_MISTYPED:
    return "(mistyped)";
  default:
    return "(no such field)";
  }
}
