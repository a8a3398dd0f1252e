/*
 * events.c: lifecycle stages and their transitions (see events.h and SPEC.md §4).
 *
 * The transition table is the CUGAR lifecycle fitted to an LLM loop: route picks a provider,
 * plan is an LLM turn (the model decides what to do next), execute runs the tools it asked
 * for, aggregate hands the answer back; any stage may fail or be cancelled. CUGAR's own order
 * (plan first, then a route before each step's execute) is accepted beside it; the stage walk
 * keeps the two apart.
 */
#include "ock/events.h"

#include <stdio.h>
#include <string.h>

#include "ock/status.h"

static const char *const stage_names[OCK_STAGE_COUNT] = {
    "initialize", "plan", "route", "execute", "aggregate", "complete", "failed", "cancelled"};

const char *ock_stage_name(enum ock_stage s) {
  return (unsigned)s < OCK_STAGE_COUNT ? stage_names[s] : "?";
}

int ock_stage_parse(const char *name, enum ock_stage *out) {
  for (int i = 0; name && i < OCK_STAGE_COUNT; i++) {
    if (!strcmp(name, stage_names[i])) {
      *out = (enum ock_stage)i;
      return OCK_OK;
    }
  }
  return OCK_EINVAL;
}

static const char *const event_names[OCK_EVENT_KNOWN] = {
#define OCK_EVENT_NAME(ident, name) name,
    OCK_EVENT_MAP(OCK_EVENT_NAME)
#undef OCK_EVENT_NAME
};

enum ock_event ock_event_parse(const char *name) {
  for (int i = 0; name && i < OCK_EVENT_KNOWN; i++)
    if (!strcmp(name, event_names[i]))
      return (enum ock_event)i;
  return OCK_EVENT_CUSTOM;
}

const char *ock_event_name(enum ock_event e) {
  return (unsigned)e < OCK_EVENT_KNOWN ? event_names[e] : "custom";
}

int ock_event_is_tool(enum ock_event e) {
  return e == OCK_EVENT_TOOL_SELECTING || e == OCK_EVENT_TOOL_SELECTED || e == OCK_EVENT_TOOL_PRE ||
         e == OCK_EVENT_TOOL_POST || e == OCK_EVENT_TOOL_ERROR;
}

int ock_stage_is_terminal(enum ock_stage s) {
  return s == OCK_STAGE_COMPLETE || s == OCK_STAGE_FAILED || s == OCK_STAGE_CANCELLED;
}

int ock_stage_for_status(const char *status, enum ock_stage *out) {
  if (!status)
    return OCK_EINVAL;
  if (!strcmp(status, "success") || !strcmp(status, "incomplete"))
    *out = OCK_STAGE_COMPLETE;
  else if (!strcmp(status, "error"))
    *out = OCK_STAGE_FAILED;
  else if (!strcmp(status, "cancelled"))
    *out = OCK_STAGE_CANCELLED;
  else
    return OCK_EINVAL;
  return OCK_OK;
}

int ock_stage_transition_allowed(enum ock_stage from, enum ock_stage to) {
  if ((unsigned)from >= OCK_STAGE_COUNT || (unsigned)to >= OCK_STAGE_COUNT)
    return 0;
  if (from == to)
    return 1;
  if (ock_stage_is_terminal(from))
    return 0; /* a terminal stage is final; only events of the same stage may follow */
  if (to == OCK_STAGE_FAILED || to == OCK_STAGE_CANCELLED)
    return from != OCK_STAGE_AGGREGATE;
  switch (from) {
  case OCK_STAGE_INITIALIZE:
    return to == OCK_STAGE_ROUTE || to == OCK_STAGE_PLAN || to == OCK_STAGE_AGGREGATE;
  case OCK_STAGE_ROUTE:
    return to == OCK_STAGE_PLAN || to == OCK_STAGE_EXECUTE;
  case OCK_STAGE_PLAN:
    return to == OCK_STAGE_EXECUTE || to == OCK_STAGE_AGGREGATE || to == OCK_STAGE_ROUTE;
  case OCK_STAGE_EXECUTE:
    return to == OCK_STAGE_PLAN || to == OCK_STAGE_ROUTE || to == OCK_STAGE_AGGREGATE;
  case OCK_STAGE_AGGREGATE:
    return to == OCK_STAGE_COMPLETE;
  default:
    return 0;
  }
}

void ock_stage_walk_start(struct ock_stage_walk *w) {
  *w = (struct ock_stage_walk){.prev = OCK_STAGE_COUNT};
}

/* in_order: the pairs that belong to one order only. route -> execute starts a routed step, and
 * needs a plan before it (CUGAR: "PLAN MUST complete before ROUTE"); once steps are routed each
 * one is (plan -> execute would skip its ROUTE), the next step is routed from the last one's
 * execute, and the results are aggregated after it. In the provider-routing order the tool
 * results go back to the model instead: execute -> route and execute -> aggregate stay refused. */
static int in_order(const struct ock_stage_walk *w, enum ock_stage to) {
  enum ock_stage from = w->prev;
  if (from == OCK_STAGE_ROUTE && to == OCK_STAGE_EXECUTE)
    return w->planned && !w->unrouted_steps;
  if (from == OCK_STAGE_PLAN && to == OCK_STAGE_EXECUTE)
    return !w->routed_steps;
  if (from == OCK_STAGE_EXECUTE && (to == OCK_STAGE_ROUTE || to == OCK_STAGE_AGGREGATE))
    return w->routed_steps;
  return 1;
}

int ock_stage_walk_next(struct ock_stage_walk *w, enum ock_stage to) {
  enum ock_stage from = w->prev;
  int ok = from == OCK_STAGE_COUNT || (ock_stage_transition_allowed(from, to) && in_order(w, to));
  if (from == OCK_STAGE_ROUTE && to == OCK_STAGE_EXECUTE)
    w->routed_steps = 1;
  if (from == OCK_STAGE_PLAN && to == OCK_STAGE_EXECUTE)
    w->unrouted_steps = 1;
  if (to == OCK_STAGE_PLAN)
    w->planned = 1;
  w->prev = to;
  return ok;
}

/* The payload shapes of core/contract-shapes.json, as core/gen/contract_map.c writes them: each
 * event's fields with their JSON types and an integer's minimum, the type of an array field's
 * items, and the members of an object field (or of each object item of an array field). The
 * last row of each table is a sentinel (ev OCK_EVENT_CUSTOM), so that none is empty. */
static const struct field_shape {
  enum ock_event ev;
  const char *field;
  int types;
  long long minimum;
} field_shapes[] = {
#define OCK_SHAPE_ROW(ev, f, req, types, minimum) {OCK_EVENT_##ev, OCK_PF_##f, types, minimum},
    OCK_EVENT_FIELD_MAP(OCK_SHAPE_ROW)
#undef OCK_SHAPE_ROW
        {OCK_EVENT_CUSTOM, NULL, 0, OCK_NO_MINIMUM}};

static const struct field_shape lifecycle_shapes[] = {
#define OCK_SHAPE_ROW(f, types) {OCK_EVENT_CUSTOM, OCK_PF_##f, types, OCK_NO_MINIMUM},
    OCK_LIFECYCLE_FIELD_MAP(OCK_SHAPE_ROW)
#undef OCK_SHAPE_ROW
        {OCK_EVENT_CUSTOM, NULL, 0, OCK_NO_MINIMUM}};

static const struct field_shape item_shapes[] = {
#define OCK_SHAPE_ROW(ev, f, types) {OCK_EVENT_##ev, OCK_PF_##f, types, OCK_NO_MINIMUM},
    OCK_EVENT_ITEM_MAP(OCK_SHAPE_ROW)
#undef OCK_SHAPE_ROW
        {OCK_EVENT_CUSTOM, NULL, 0, OCK_NO_MINIMUM}};

static const struct member_shape {
  enum ock_event ev;
  const char *field, *member;
  int required;
  int types;
  long long minimum;
} member_shapes[] = {
#define OCK_SHAPE_ROW(ev, f, m, req, types, minimum)                                               \
  {OCK_EVENT_##ev, OCK_PF_##f, m, req, types, minimum},
    OCK_EVENT_MEMBER_MAP(OCK_SHAPE_ROW)
#undef OCK_SHAPE_ROW
        {OCK_EVENT_CUSTOM, NULL, NULL, 0, 0, OCK_NO_MINIMUM}};

/* is_whole: a JSON number without a fraction (every double past 2^53 is one). */
static int is_whole(double d) {
  if (d > 9e15 || d < -9e15)
    return 1;
  return d == (double)(long long)d;
}

/* fits: value j is of one of the types, and an integer is whole and at least minimum. */
static int fits(const cJSON *j, int types, long long minimum) {
  if (cJSON_IsString(j))
    return types & OCK_JT_STRING;
  if (cJSON_IsBool(j))
    return types & OCK_JT_BOOL;
  if (cJSON_IsNull(j))
    return types & OCK_JT_NULL;
  if (cJSON_IsObject(j))
    return types & OCK_JT_OBJECT;
  if (cJSON_IsArray(j))
    return types & OCK_JT_ARRAY;
  if (!cJSON_IsNumber(j))
    return 0;
  if (types & OCK_JT_NUMBER)
    return 1;
  return (types & OCK_JT_INTEGER) && is_whole(j->valuedouble) &&
         (minimum == OCK_NO_MINIMUM || j->valuedouble >= (double)minimum);
}

/* describe_types writes "an integer >= 1 or null" for the types (and an integer's minimum). */
static void describe_types(int types, long long minimum, char *out, size_t n) {
  static const struct {
    int bit;
    const char *name;
  } names[] = {{OCK_JT_STRING, "a string"},    {OCK_JT_NUMBER, "a number"},
               {OCK_JT_INTEGER, "an integer"}, {OCK_JT_BOOL, "a boolean"},
               {OCK_JT_OBJECT, "an object"},   {OCK_JT_ARRAY, "an array"},
               {OCK_JT_NULL, "null"}};
  size_t used = 0;
  out[0] = '\0';
  for (size_t i = 0; i < sizeof names / sizeof names[0] && used < n; i++) {
    if (!(types & names[i].bit))
      continue;
    int w = snprintf(out + used, n - used, "%s%s", used ? " or " : "", names[i].name);
    if (w > 0)
      used += (size_t)w;
    if (names[i].bit == OCK_JT_INTEGER && minimum != OCK_NO_MINIMUM && used < n) {
      w = snprintf(out + used, n - used, " >= %lld", minimum);
      if (w > 0)
        used += (size_t)w;
    }
  }
}

/* describe_value writes what j is: "a string", "the number 2.5", "null", ..., "missing". */
static void describe_value(const cJSON *j, char *out, size_t n) {
  if (!j)
    snprintf(out, n, "missing");
  else if (cJSON_IsNumber(j))
    snprintf(out, n, "the number %.15g", j->valuedouble);
  else
    snprintf(out, n, "%s",
             cJSON_IsString(j)   ? "a string"
             : cJSON_IsBool(j)   ? "a boolean"
             : cJSON_IsNull(j)   ? "null"
             : cJSON_IsObject(j) ? "an object"
             : cJSON_IsArray(j)  ? "an array"
                                 : "not JSON");
}

/* mismatch writes "<path> is <what j is>, expected <types>" and returns 1. */
static int mismatch(const char *path, const cJSON *j, int types, long long minimum, char *out,
                    size_t n) {
  char is[64], want[160];
  describe_value(j, is, sizeof is);
  describe_types(types, minimum, want, sizeof want);
  if (n)
    snprintf(out, n, "%s is %s, expected %s", path, is, want);
  return 1;
}

/* bad_members: the first member of object o (at path) that the member rows of field f of event
 * ev say is missing or mistyped. */
static int bad_members(enum ock_event ev, const char *f, const cJSON *o, const char *path,
                       char *out, size_t n) {
  for (const struct member_shape *m = member_shapes; m->field; m++) {
    if (m->ev != ev || strcmp(m->field, f))
      continue;
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, m->member);
    if (j ? fits(j, m->types, m->minimum) : !m->required)
      continue;
    char at[160];
    snprintf(at, sizeof at, "%s.%s", path, m->member);
    return mismatch(at, j, m->types, m->minimum, out, n);
  }
  return 0;
}

/* bad_inside: what is wrong inside field f's value j (path "data.f"): an item of an array of the
 * wrong type, or a member of an object, or of an object item, missing or mistyped. */
static int bad_inside(enum ock_event ev, const char *f, const cJSON *j, const char *path, char *out,
                      size_t n) {
  if (cJSON_IsObject(j))
    return bad_members(ev, f, j, path, out, n);
  if (!cJSON_IsArray(j))
    return 0;
  int items = OCK_JT_ANY;
  for (const struct field_shape *s = item_shapes; s->field; s++)
    if (s->ev == ev && !strcmp(s->field, f))
      items = s->types;
  const cJSON *it;
  int i = 0;
  cJSON_ArrayForEach(it, j) {
    char at[160];
    snprintf(at, sizeof at, "%s[%d]", path, i++);
    if (!fits(it, items, OCK_NO_MINIMUM))
      return mismatch(at, it, items, OCK_NO_MINIMUM, out, n);
    if (cJSON_IsObject(it) && bad_members(ev, f, it, at, out, n))
      return 1;
  }
  return 0;
}

/* skipped: field is one of the NULL-terminated list skip (NULL: none). */
static int skipped(const char *const *skip, const char *field) {
  for (size_t i = 0; skip && skip[i]; i++)
    if (!strcmp(skip[i], field))
      return 1;
  return 0;
}

/* bad_in_table: the first field of data the rows of table give event ev (every row when ev is
 * OCK_EVENT_CUSTOM, for the lifecycle table) that is sent with a wrong type. */
static int bad_in_table(const struct field_shape *table, enum ock_event ev, const cJSON *data,
                        const char *const *skip, char *out, size_t n) {
  for (const struct field_shape *s = table; s->field; s++) {
    if ((s->ev != ev && s->ev != OCK_EVENT_CUSTOM) || skipped(skip, s->field))
      continue;
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(data, s->field);
    char path[96];
    snprintf(path, sizeof path, "data.%s", s->field);
    if (!j)
      continue; /* a missing field is ock_event_missing_fields's to report */
    if (!fits(j, s->types, s->minimum))
      return mismatch(path, j, s->types, s->minimum, out, n);
    if (bad_inside(ev, s->field, j, path, out, n))
      return 1;
  }
  return 0;
}

int ock_event_bad_field(const char *name, const cJSON *data, int with_lifecycle,
                        const char *const *skip, char *out, size_t n) {
  if (n)
    out[0] = '\0';
  enum ock_event ev = ock_event_parse(name);
  if (ev == OCK_EVENT_CUSTOM || !cJSON_IsObject(data))
    return 0;
  if (bad_in_table(field_shapes, ev, data, skip, out, n))
    return 1;
  return with_lifecycle && bad_in_table(lifecycle_shapes, ev, data, skip, out, n);
}

static void note_missing(char *out, size_t n, size_t *used, const char *field) {
  if (*used >= n)
    return;
  int w = snprintf(out + *used, n - *used, "%s%s", *used ? ", " : "", field);
  if (w > 0)
    *used += (size_t)w;
}

int ock_event_missing_fields(const ock_registry *r, const char *name, const cJSON *data,
                             int with_lifecycle, char *out, size_t n) {
  size_t used = 0;
  int missing = 0;
  if (n)
    out[0] = '\0';
  const struct ock_event_def *d = ock_registry_event(r, name);
  if (!d)
    return 0;
  for (size_t i = 0; d->required[i]; i++) {
    if (!cJSON_HasObjectItem(data, d->required[i])) {
      note_missing(out, n, &used, d->required[i]);
      missing++;
    }
  }
  static const char *const lifecycle_fields[] = {"trace_id", "stage"};
  for (size_t i = 0; with_lifecycle && i < 2; i++) {
    if (!cJSON_HasObjectItem(data, lifecycle_fields[i])) {
      note_missing(out, n, &used, lifecycle_fields[i]);
      missing++;
    }
  }
  return missing;
}
