/*
 * fixture_expect.c: loads the harness's members of a fixture (see fixture_impl.h): what the
 * scenario is (title, proves, requirements, capabilities, aliases) and what it expects
 * (SPEC.md 8.8, docs/fixtures.md). Checked once here, with the JSON path in each message, so the
 * checks read typed values and never meet a default of their own.
 */
#include "fixture_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ock/status.h"
#include "ock/wire_list.h"

/* The timing range when the fixture leaves a bound unsaid. */
#define RANGE_MAX_MS 1e12

/* requirement_known: id is a requirement of reg; any string without a registry. */
static int requirement_known(const ock_registry *reg, const char *id, const char *path,
                             struct ock_jerr *err) {
  if (!reg || ock_registry_find(reg, id))
    return OCK_OK;
  return ock_jerr_set(err, OCK_ETYPE, path, "unknown requirement \"%.60s\" (see `ock list`)", id);
}

/* own_requirement: an optional member "requirement" of o (at path), a registry ID. */
static int own_requirement(const cJSON *o, const char *path, const ock_registry *reg,
                           const char **out, struct ock_jerr *err) {
  char p[OCK_JSON_PATH_MAX];
  TRY(ock_jget_string(o, path, "requirement", OCK_OPTIONAL, out, err));
  ock_jpath_key(p, sizeof p, path, "requirement");
  return *out ? requirement_known(reg, *out, p, err) : OCK_OK;
}

/* string_array: an array of strings at $.key, copied as pointers into *out. */
static int string_array(const cJSON *fx, const char *key, enum ock_jneed need, const char ***out,
                        size_t *n, struct ock_jerr *err) {
  const cJSON *a = NULL, *s;
  char base[64], p[OCK_JSON_PATH_MAX];
  TRY(ock_jget_array(fx, "$", key, need, &a, err));
  int size = cJSON_GetArraySize(a);
  if (size == 0)
    return OCK_OK;
  *out = calloc((size_t)size, sizeof **out);
  if (!*out)
    return OCK_ENOMEM;
  snprintf(base, sizeof base, "$.%s", key);
  cJSON_ArrayForEach(s, a) {
    ock_jpath_index(p, sizeof p, base, (int)*n);
    if (!cJSON_IsString(s))
      return ock_jerr_set(err, OCK_ETYPE, p, "expected a string, got %s", ock_json_type_name(s));
    (*out)[(*n)++] = s->valuestring;
  }
  return OCK_OK;
}

/* load_names: the requirements (at least one, each reg's, when reg) and the capabilities. */
static int load_names(struct ock_fixture *f, const ock_registry *reg, struct ock_jerr *err) {
  char p[OCK_JSON_PATH_MAX];
  TRY(string_array(f->json, "requirements", reg ? OCK_REQUIRED : OCK_OPTIONAL, &f->requirements,
                   &f->n_requirements, err));
  if (reg && !f->n_requirements)
    return ock_jerr_set(err, OCK_ETYPE, "$.requirements", "expected at least one requirement ID");
  for (size_t i = 0; i < f->n_requirements; i++) {
    ock_jpath_index(p, sizeof p, "$.requirements", (int)i);
    TRY(requirement_known(reg, f->requirements[i], p, err));
  }
  const char **caps = NULL;
  size_t n = 0;
  int rc = string_array(f->json, "capabilities", OCK_OPTIONAL, &caps, &n, err);
  for (size_t i = 0; !rc && i < n; i++) {
    enum ock_capability c;
    ock_jpath_index(p, sizeof p, "$.capabilities", (int)i);
    if (ock_capability_parse(caps[i], &c))
      rc = ock_jerr_set(err, OCK_ETYPE, p,
                        "unknown capability \"%.40s\"; expected one of core, streaming, "
                        "parallel, scheduling, lifecycle, resilience, cancellation",
                        caps[i]);
    else
      f->capabilities |= 1u << c;
  }
  free(caps);
  return rc;
}

/* load_aliases: "aliases" maps wire names to the id the scenario had on that wire (SPEC.md
 * 8.2). */
static int load_aliases(struct ock_fixture *f, struct ock_jerr *err) {
  const cJSON *a;
  TRY(ock_jget_object(f->json, "$", "aliases", OCK_OPTIONAL, &f->aliases, err));
  cJSON_ArrayForEach(a, f->aliases) {
    char p[OCK_JSON_PATH_MAX];
    ock_jpath_key(p, sizeof p, "$.aliases", a->string);
    if (!ock_wire_by_name(a->string, NULL))
      return ock_jerr_set(err, OCK_ETYPE, p,
                          "expected a wire name (see ock run --help), got \"%.40s\"", a->string);
    if (!cJSON_IsString(a) || !*a->valuestring || strchr(a->valuestring, '@'))
      return ock_jerr_set(err, OCK_ETYPE, p,
                          "expected the scenario id it had on that wire, without \"@\"");
  }
  return OCK_OK;
}

/* load_item: a list element at path: a string, or {key: string, "requirement": ID}. */
static int load_item(const cJSON *it, const char *path, const char *key, const ock_registry *reg,
                     struct ock_fx_expect_item *out, struct ock_jerr *err) {
  const char *allowed[] = {key, "requirement", NULL};
  out->count = -1;
  if (cJSON_IsString(it)) {
    out->name = it->valuestring;
    return OCK_OK;
  }
  if (!cJSON_IsObject(it))
    return ock_jerr_set(err, OCK_ETYPE, path,
                        "expected a string or {\"%s\", \"requirement\"}, got %s", key,
                        ock_json_type_name(it));
  TRY(ock_jcheck_keys(it, path, allowed, err));
  TRY(ock_jget_string(it, path, key, OCK_REQUIRED, &out->name, err));
  return own_requirement(it, path, reg, &out->requirement, err);
}

/* load_count: an integer >= 0, or {"count": N, "requirement": ID}. */
static int load_count(const cJSON *value, const char *path, const ock_registry *reg,
                      struct ock_fx_expect_item *out, struct ock_jerr *err) {
  static const char *const allowed[] = {"count", "requirement", NULL};
  if (cJSON_IsNumber(value)) {
    if (value->valuedouble < 0 || value->valuedouble > 1000000 ||
        value->valuedouble != (double)(long long)value->valuedouble)
      return ock_jerr_set(err, OCK_ETYPE, path, "expected an integer >= 0");
    out->count = (long long)value->valuedouble;
    return OCK_OK;
  }
  if (!cJSON_IsObject(value))
    return ock_jerr_set(err, OCK_ETYPE, path,
                        "expected an integer or {\"count\", \"requirement\"}, got %s",
                        ock_json_type_name(value));
  TRY(ock_jcheck_keys(value, path, allowed, err));
  TRY(ock_jget_int(value, path, "count", OCK_REQUIRED, 0, 1000000, &out->count, err));
  return own_requirement(value, path, reg, &out->requirement, err);
}

static int new_items(struct ock_fx_expect_list *l, const cJSON *container) {
  int n = cJSON_GetArraySize(container);
  if (n == 0)
    return OCK_OK;
  l->items = calloc((size_t)n, sizeof *l->items);
  return l->items ? OCK_OK : OCK_ENOMEM;
}

/* load_list: events_present, events_absent and last_request_contains: arrays of items. */
static int load_list(const cJSON *expect, const char *clause, const char *key,
                     const ock_registry *reg, struct ock_fx_expect_list *l, struct ock_jerr *err) {
  const cJSON *a = NULL, *it;
  char base[64], p[OCK_JSON_PATH_MAX];
  TRY(ock_jget_array(expect, "$.expect", clause, OCK_OPTIONAL, &a, err));
  TRY(new_items(l, a));
  snprintf(base, sizeof base, "$.expect.%s", clause);
  cJSON_ArrayForEach(it, a) {
    ock_jpath_index(p, sizeof p, base, (int)l->n);
    TRY(load_item(it, p, key, reg, &l->items[l->n], err));
    l->n++;
  }
  return OCK_OK;
}

/* load_by_tool: tool_calls (tool -> count) and tool_input (tool -> input), each with an
 * optional member "requirement" for all its tools. */
static int load_by_tool(const cJSON *expect, const char *clause, const ock_registry *reg,
                        struct ock_fx_expect_list *l, struct ock_jerr *err) {
  const cJSON *o = NULL, *it;
  char base[64], p[OCK_JSON_PATH_MAX];
  snprintf(base, sizeof base, "$.expect.%s", clause);
  TRY(ock_jget_object(expect, "$.expect", clause, OCK_OPTIONAL, &o, err));
  if (!o)
    return OCK_OK;
  TRY(own_requirement(o, base, reg, &l->requirement, err));
  TRY(new_items(l, o));
  cJSON_ArrayForEach(it, o) {
    if (!strcmp(it->string, "requirement"))
      continue;
    struct ock_fx_expect_item *item = &l->items[l->n];
    ock_jpath_key(p, sizeof p, base, it->string);
    item->name = it->string;
    item->count = -1;
    if (!strcmp(clause, "tool_calls"))
      TRY(load_count(it, p, reg, item, err));
    else
      item->input = it;
    l->n++;
  }
  return OCK_OK;
}

static int load_range(const cJSON *o, const char *path, struct ock_fx_range *r,
                      struct ock_jerr *err) {
  static const char *const keys[] = {"min", "max", NULL};
  r->min_ms = 0;
  r->max_ms = RANGE_MAX_MS;
  TRY(ock_jcheck_object(o, path, err));
  TRY(ock_jcheck_keys(o, path, keys, err));
  TRY(ock_jget_number(o, path, "min", OCK_OPTIONAL, 0, RANGE_MAX_MS, &r->min_ms, err));
  TRY(ock_jget_number(o, path, "max", OCK_OPTIONAL, 0, RANGE_MAX_MS, &r->max_ms, err));
  if (r->min_ms > r->max_ms)
    return ock_jerr_set(err, OCK_EINVAL, path, "expected min <= max, got %.0f > %.0f", r->min_ms,
                        r->max_ms);
  return OCK_OK;
}

/* load_timing: {"between_requests_ms": range or [range, ...], "requirement": ID}. */
static int load_timing(const cJSON *expect, const ock_registry *reg, struct ock_fx_expect *e,
                       struct ock_jerr *err) {
  static const char *const keys[] = {"between_requests_ms", "requirement", NULL};
  static const char *const path = "$.expect.timing", *bpath = "$.expect.timing.between_requests_ms";
  const cJSON *t = NULL;
  TRY(ock_jget_object(expect, "$.expect", "timing", OCK_OPTIONAL, &t, err));
  if (!t)
    return OCK_OK;
  TRY(ock_jcheck_keys(t, path, keys, err));
  TRY(own_requirement(t, path, reg, &e->timing_requirement, err));
  const cJSON *between = cJSON_GetObjectItemCaseSensitive(t, "between_requests_ms");
  if (!between)
    return ock_jerr_set(err, OCK_EMISSING, bpath,
                        "expected {\"min\": MS, \"max\": MS} or an "
                        "array of them");
  e->has_timing = 1;
  e->timing_each = !cJSON_IsArray(between);
  int n = e->timing_each ? 1 : cJSON_GetArraySize(between);
  if (n == 0)
    return ock_jerr_set(err, OCK_EINVAL, bpath, "expected at least one range");
  e->ranges = calloc((size_t)n, sizeof *e->ranges);
  if (!e->ranges)
    return OCK_ENOMEM;
  if (e->timing_each) {
    e->n_ranges = 1;
    return load_range(between, bpath, &e->ranges[0], err);
  }
  const cJSON *r;
  cJSON_ArrayForEach(r, between) {
    char p[OCK_JSON_PATH_MAX];
    ock_jpath_index(p, sizeof p, bpath, (int)e->n_ranges);
    TRY(load_range(r, p, &e->ranges[e->n_ranges], err));
    e->n_ranges++;
  }
  return OCK_OK;
}

static int load_execute(const cJSON *o, const char *path, struct ock_fx_expect_execute *x,
                        struct ock_jerr *err) {
  static const char *const keys[] = {"status", "turn_count", "reason", "error_type", NULL};
  static const char *const statuses[] = {"success", "incomplete", "cancelled", "error", NULL};
  int which = -1;
  x->turn_count = -1;
  TRY(ock_jcheck_object(o, path, err));
  TRY(ock_jcheck_keys(o, path, keys, err));
  TRY(ock_jget_enum(o, path, "status", OCK_OPTIONAL, statuses, &which, err));
  x->status = which >= 0 ? statuses[which] : NULL;
  TRY(ock_jget_int(o, path, "turn_count", OCK_OPTIONAL, 0, 1000000, &x->turn_count, err));
  TRY(ock_jget_string(o, path, "reason", OCK_OPTIONAL, &x->reason, err));
  return ock_jget_string(o, path, "error_type", OCK_OPTIONAL, &x->error_type, err);
}

static int load_expect(struct ock_fixture *f, const ock_registry *reg, struct ock_jerr *err) {
  static const char *const keys[] = {
      "exit_code",  "executes",   "events_present",        "events_absent", "llm_requests",
      "tool_calls", "tool_input", "last_request_contains", "timing",        "requirement",
      NULL};
  struct ock_fx_expect *e = &f->expect;
  const cJSON *expect = NULL, *execs = NULL, *x;
  e->exit_code = -1;
  TRY(ock_jget_object(f->json, "$", "expect", OCK_OPTIONAL, &expect, err));
  if (!expect)
    return OCK_OK;
  e->present = 1;
  TRY(ock_jcheck_keys(expect, "$.expect", keys, err));
  TRY(own_requirement(expect, "$.expect", reg, &e->requirement, err));
  TRY(ock_jget_int(expect, "$.expect", "exit_code", OCK_OPTIONAL, 0, 255, &e->exit_code, err));
  TRY(ock_jget_array(expect, "$.expect", "executes", OCK_OPTIONAL, &execs, err));
  int n = cJSON_GetArraySize(execs);
  if (n > 0 && !(e->executes = calloc((size_t)n, sizeof *e->executes)))
    return OCK_ENOMEM;
  cJSON_ArrayForEach(x, execs) {
    char p[OCK_JSON_PATH_MAX];
    ock_jpath_index(p, sizeof p, "$.expect.executes", (int)e->n_executes);
    TRY(load_execute(x, p, &e->executes[e->n_executes], err));
    e->n_executes++;
  }
  TRY(load_list(expect, "events_present", "event", reg, &e->events_present, err));
  TRY(load_list(expect, "events_absent", "event", reg, &e->events_absent, err));
  TRY(load_list(expect, "last_request_contains", "text", reg, &e->last_request_contains, err));
  const cJSON *llm = cJSON_GetObjectItemCaseSensitive(expect, "llm_requests");
  if (llm) {
    e->has_llm_requests = 1;
    TRY(load_count(llm, "$.expect.llm_requests", reg, &e->llm_requests, err));
  }
  TRY(load_by_tool(expect, "tool_calls", reg, &e->tool_calls, err));
  TRY(load_by_tool(expect, "tool_input", reg, &e->tool_input, err));
  return load_timing(expect, reg, e, err);
}

int ock__fixture_load_scenario(struct ock_fixture *f, const ock_registry *reg,
                               struct ock_jerr *err) {
  TRY(ock_jget_nonempty(f->json, "$", "title", reg ? OCK_REQUIRED : OCK_OPTIONAL, &f->title, err));
  /* every scenario says in one line what it proves */
  TRY(ock_jget_nonempty(f->json, "$", "proves", reg ? OCK_REQUIRED : OCK_OPTIONAL, &f->proves,
                        err));
  TRY(load_names(f, reg, err));
  TRY(load_expect(f, reg, err));
  return load_aliases(f, err);
}

void ock__fixture_free_scenario(struct ock_fixture *f) {
  struct ock_fx_expect *e = &f->expect;
  free(f->requirements);
  free(e->executes);
  free(e->events_present.items);
  free(e->events_absent.items);
  free(e->last_request_contains.items);
  free(e->tool_calls.items);
  free(e->tool_input.items);
  free(e->ranges);
}

int ock_fixture_lists(const struct ock_fixture *f, const char *id) {
  for (size_t i = 0; id && i < f->n_requirements; i++)
    if (!strcmp(f->requirements[i], id))
      return 1;
  return 0;
}

int ock_fixture_wireless(const struct ock_fixture *f) {
  for (size_t i = 0; i < f->n_providers; i++)
    if (f->providers[i].wireless)
      return 1;
  return 0;
}

const char *ock_fixture_alias(const struct ock_fixture *f, const char *wire) {
  return ock_json_str(f->aliases, wire);
}
