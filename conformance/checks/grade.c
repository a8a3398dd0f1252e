/* grade.c: verdicts from check outcomes (see grade.h). */
#include "checks/grade.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "checks/blackbox.h"
#include "checks/checklist.h"
#include "ock/caps.h"
#include "ock/contract.h"
#include "ock/json.h"
#include "ock/utf8.h"

double ock__grade_late_ms(const struct grade_ctx *g) {
  /* Slow machines and sanitizer builds wake late, never early: only the late side widens. */
  return GRADE_TIMING_LATE_MS * (g->time_scale > 1 ? g->time_scale : 1);
}

int ock__grade_declared(const struct grade_ctx *g, const char *cap) {
  if (!strcmp(cap, OCK_CAP_CORE))
    return 1;
  for (size_t i = 0; g->declared && g->declared[i]; i++)
    if (!strcmp(g->declared[i], cap))
      return 1;
  return 0;
}

/* find_check: the entry of check charged to requirement req. One check id that proves several
 * requirements (an expect clause, SPEC.md 8.8) keeps one entry per requirement, so each
 * failure stays charged to the requirement it proves. */
static cJSON *find_check(const struct grade_ctx *g, const char *check, const char *req) {
  cJSON *c;
  cJSON_ArrayForEach(c, g->checks) {
    const char *id = ock_json_str(c, "id");
    const char *of = ock_json_str(c, "requirement");
    if (id && !strcmp(id, check) && of && !strcmp(of, req))
      return c;
  }
  return NULL;
}

static enum ock_verdict current(const cJSON *c) {
  enum ock_verdict v = OCK_VERDICT_PASS;
  ock_verdict_parse(ock_json_str(c, "verdict"), &v);
  return v;
}

/* record sets or collapses the check entry to the more severe outcome. */
static void record(struct grade_ctx *g, const char *check, const struct ock_requirement *r,
                   enum ock_verdict v, long seq, const char *expected, const char *actual,
                   const char *message) {
  cJSON *c = find_check(g, check, r->id);
  if (!c) {
    c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "id", check);
    cJSON_AddStringToObject(c, "requirement", r->id);
    cJSON_AddStringToObject(c, "level", ock_level_name(r->level));
    cJSON_AddStringToObject(c, "verdict", ock_verdict_name(v));
    cJSON_AddStringToObject(c, "expected", expected);
    cJSON_AddStringToObject(c, "actual", actual);
    cJSON_AddItemToObject(c, "evidence", cJSON_CreateArray());
    cJSON_AddStringToObject(c, "message", message);
    cJSON_AddItemToArray(g->checks, c);
  } else if (v > current(c)) {
    cJSON_ReplaceItemInObjectCaseSensitive(c, "verdict", cJSON_CreateString(ock_verdict_name(v)));
    cJSON_ReplaceItemInObjectCaseSensitive(c, "expected", cJSON_CreateString(expected));
    cJSON_ReplaceItemInObjectCaseSensitive(c, "actual", cJSON_CreateString(actual));
    cJSON_ReplaceItemInObjectCaseSensitive(c, "message", cJSON_CreateString(message));
    /* Evidence of the failure first: what passed before does not prove it. */
    cJSON_ReplaceItemInObjectCaseSensitive(c, "evidence", cJSON_CreateArray());
  } else if (v < current(c)) {
    return;
  }
  cJSON *ev = cJSON_GetObjectItemCaseSensitive(c, "evidence");
  if (seq >= 0 && cJSON_GetArraySize(ev) < 20)
    cJSON_AddItemToArray(ev, cJSON_CreateNumber((double)seq));
}

/* error_to records that check could not be run, charged to req (a requirement id, or NULL). */
static void error_to(struct grade_ctx *g, const char *check, const char *req, const char *why) {
  static const struct ock_requirement unknown = {
      "OCK-UNKNOWN", "", OCK_LEVEL_MUST, OCK_CAP_CORE, "", "", "", 0};
  const struct ock_requirement *r = ock_registry_find(g->reg, req);
  record(g, check, r ? r : &unknown, OCK_VERDICT_ERROR, -1, "the check runs", why, why);
}

/* charge: the requirement check reports under: req when the call names one, else its row's.
 * NULL after recording an ERROR when the check running is not the row's run, the call and the row
 * disagree, neither names one, or the registry lacks it. */
static const struct ock_requirement *charge(struct grade_ctx *g, const struct check_entry *c,
                                            const char *req) {
  char why[300];
  const char *want = req ? req : c->requirement;
  const struct ock_requirement *r = ock_registry_find(g->reg, want);
  if (g->running && c->run != g->running)
    snprintf(why, sizeof why,
             "check id %.60s is graded by another check than the run its row in checks.def names",
             c->id);
  else if (!want)
    snprintf(why, sizeof why,
             "check id %.60s takes its requirement from the scenario: grade it with "
             "ock__grade_emit_to",
             c->id);
  else if (req && c->requirement && strcmp(c->requirement, req))
    snprintf(why, sizeof why,
             "check id %.60s reports under %.40s, but its row in checks.def says %.40s", c->id, req,
             c->requirement);
  else if (!r)
    snprintf(why, sizeof why, "the check names a requirement the registry does not have");
  else
    return r;
  error_to(g, c->id, want, why);
  return NULL;
}

/* skip_reason: why check, charged to r, is not graded in this run, into why; 0 when it is. */
static int skip_reason(const struct grade_ctx *g, const struct check_entry *c,
                       const struct ock_requirement *r, char *why, size_t n) {
  if (g->blackbox && !ock__blackbox_graded(c, r))
    snprintf(why, n, "%s: the traffic of a black-box run does not decide this check (SPEC.md 9.7)",
             BLACKBOX_REASON);
  else if (!ock__grade_declared(g, r->capability))
    snprintf(why, n, "not applicable: capability %s not declared", r->capability);
  else if (r->level > g->level)
    snprintf(why, n, "not graded: level %s (use --level)", ock_level_name(r->level));
  else
    return 0;
  return 1;
}

static int applies(struct grade_ctx *g, const struct check_entry *c,
                   const struct ock_requirement *r) {
  char why[160];
  if (!skip_reason(g, c, r, why, sizeof why))
    return 1;
  if (!find_check(g, c->id, r->id))
    record(g, c->id, r, OCK_VERDICT_SKIP, -1, r->text, why, why);
  return 0;
}

int ock__grade_applies_to(struct grade_ctx *g, enum check_name check, const char *req) {
  const struct check_entry *c = ock__check_row(check);
  const struct ock_requirement *r = charge(g, c, req);
  return r && applies(g, c, r);
}

int ock__grade_applies(struct grade_ctx *g, enum check_name check) {
  return ock__grade_applies_to(g, check, NULL);
}

/* emit_to: ock__grade_emit_to with the actual's arguments as a va_list. */
__attribute__((format(printf, 7, 0))) static void emit_to(struct grade_ctx *g,
                                                          enum check_name check, const char *req,
                                                          int ok, long seq, const char *expected,
                                                          const char *actual_fmt, va_list ap) {
  const struct check_entry *c = ock__check_row(check);
  const struct ock_requirement *r = charge(g, c, req);
  if (!r || !applies(g, c, r))
    return;
  char actual[600];
  vsnprintf(actual, sizeof actual, actual_fmt, ap);
  ock_utf8_scrub(actual); /* "%.60s" of a SUT string may have cut a character in two */
  enum ock_verdict v = OCK_VERDICT_PASS;
  if (!ok)
    v = r->level == OCK_LEVEL_MUST || g->strict ? OCK_VERDICT_FAIL : OCK_VERDICT_WARN;
  char message[900];
  if (ok)
    snprintf(message, sizeof message, "%s", r->text);
  else
    snprintf(message, sizeof message, "%s: %s", r->id, actual);
  ock_utf8_scrub(message);
  record(g, c->id, r, v, seq, expected, actual, message);
}

void ock__grade_emit_to(struct grade_ctx *g, enum check_name check, const char *req, int ok,
                        long seq, const char *expected, const char *actual_fmt, ...) {
  va_list ap;
  va_start(ap, actual_fmt);
  emit_to(g, check, req, ok, seq, expected, actual_fmt, ap);
  va_end(ap);
}

void ock__grade_emit(struct grade_ctx *g, enum check_name check, int ok, long seq,
                     const char *expected, const char *actual_fmt, ...) {
  va_list ap;
  va_start(ap, actual_fmt);
  emit_to(g, check, NULL, ok, seq, expected, actual_fmt, ap);
  va_end(ap);
}

void ock__grade_error(struct grade_ctx *g, enum check_name check, const char *why) {
  const struct check_entry *c = ock__check_row(check);
  error_to(g, c->id, c->requirement, why);
}

void ock__grade_error_to(struct grade_ctx *g, enum check_name check, const char *req,
                         const char *why) {
  error_to(g, ock__check_row(check)->id, req, why);
}

check_run *const *ock__grade_runs(void) {
  static check_run *const runs[] = {
      ock__check_proc,     ock__check_complete,  ock__check_order,      ock__check_orphan,
      ock__check_tool,     ock__check_hook,      ock__check_iter,       ock__check_stream,
      ock__check_parallel, ock__check_lifecycle, ock__check_error,      ock__check_cancel,
      ock__check_valid,    ock__check_expect,    ock__check_capability, NULL};
  return runs;
}

void ock__grade_scenario(struct grade_ctx *g) {
  check_run *const *runs = ock__grade_runs();
  ock__grammar_read(g);
  for (int i = 0; runs[i]; i++) {
    g->running = runs[i];
    runs[i](g);
  }
  g->running = NULL;
  ock__grammar_free(g);
}
