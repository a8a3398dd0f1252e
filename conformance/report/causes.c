/*
 * causes.c: first causes from the failing checks of each scenario (see causes.h).
 *
 * Which failure explains which is data: two tables over check ids.
 *
 *  - layers: a check of a higher layer restates, in general terms, what a check of a lower
 *    layer found in particular. The scenario's expectations (expect.*) sum up the whole run;
 *    the event grammar, the event fields, the status and turn count of orchestrator:complete
 *    and the texts fed back sum up one execute. A failing check is explained by any failing
 *    check of a lower layer in its scenario. The capability checks stand alone: a manifest
 *    that does not say what the run shows explains no failure, and no failure explains it.
 *  - rules: within one layer, a deviation that takes away what other checks read. Without
 *    orchestrator:complete (complete.once) nothing that reads the outcome can pass; without a
 *    tool result (orphan.result-for-every-call) nothing that reads that result can.
 *
 * Of the checks that explain a failure, the lowest layer wins, then the nearest deviation
 * before it (by the first journal entry each cites): of two independent faults in one scenario,
 * a failure is charged to the one it follows. Its own cause is followed until a check nothing
 * explains: the first cause. The rules form no cycle (tests/conformance/test_causes.c checks it
 * over the whole checklist), so that walk ends.
 */
#include "report/causes.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "checks/checklist.h"
#include "ock/contract.h"
#include "ock/json.h"
#include "ock/status.h"
#include "report/report.h"

/* What a layer or a rule names: one check (a row of checks.def, so a misspelled one does not
 * compile), or a group, every check whose id starts with a prefix: "order." (the group),
 * "order.tool-", "" (every check). ock_cause_groups_known holds each prefix to the table. */
struct named {
  enum check_name check; /* CK_COUNT for a group */
  const char *prefix;    /* the group's prefix; NULL for one check */
};
#define ONE(name)                                                                                  \
  { name, NULL }
#define GROUP(prefix)                                                                              \
  { CK_COUNT, prefix }

static int matches(struct named n, const char *id) {
  if (n.prefix)
    return !strncmp(n.prefix, id, strlen(n.prefix));
  return !strcmp(ock__check_row(n.check)->id, id);
}

#define STANDS_ALONE (-1) /* a layer of its own: never explains, never explained */

static const struct {
  struct named checks;
  int layer;
} layers[] = {
    /* A capability used but not declared (or declared but unused) is a finding about the
     * manifest: it explains no failure of the run and no failure explains it. */
    {GROUP(CHECK_CAPABILITY_PREFIX), STANDS_ALONE},
    {GROUP("expect."), 2},
    {ONE(CK_ORDER_GRAMMAR), 1},
    {ONE(CK_PROC_EVENT_FIELDS), 1},
    {ONE(CK_PROC_EVENTS_WELL_FORMED), 1},
    {ONE(CK_COMPLETE_STATUS_MATCHES), 1},
    {ONE(CK_COMPLETE_TURN_COUNT), 1},
    {ONE(CK_ERROR_PROVIDER_ERROR), 1},
    {ONE(CK_ITER_STATUS), 1},
    {GROUP("text."), 1},
};

/* Within a layer: a failure of `cause` explains failures of `consequences`. */
static const struct {
  enum check_name cause;
  struct named consequences;
} rules[] = {
    /* No orchestrator:complete, or two: the outcome every later check reads is missing. */
    {CK_COMPLETE_ONCE, GROUP("complete.")},
    {CK_COMPLETE_ONCE, GROUP("error.")},
    {CK_COMPLETE_ONCE, GROUP("valid.")},
    {CK_COMPLETE_ONCE, GROUP("iter.")},
    {CK_COMPLETE_ONCE, GROUP("cancel.")},
    {CK_COMPLETE_ONCE, GROUP("lifecycle.")},
    {CK_COMPLETE_ONCE, GROUP("hook.")},
    {CK_COMPLETE_ONCE, GROUP("parallel.")},
    /* A call without its result: every check of what the result says, or where it sits. */
    {CK_ORPHAN_RESULT_FOR_EVERY_CALL, GROUP("orphan.")},
    {CK_ORPHAN_RESULT_FOR_EVERY_CALL, GROUP("tool.")},
    {CK_ORPHAN_RESULT_FOR_EVERY_CALL, GROUP("hook.")},
    {CK_ORPHAN_RESULT_FOR_EVERY_CALL, GROUP("error.")},
    {CK_ORPHAN_RESULT_FOR_EVERY_CALL, ONE(CK_CANCEL_RESULTS_KEPT)},
    {CK_ORPHAN_RESULT_FOR_EVERY_CALL, GROUP("text.")},
    /* Tool events without their call's id (or naming another tool): no tool check can pair
     * an event with its call, so each reads a call without events. */
    {CK_TOOL_EVENT_FIELDS, GROUP("tool.")},
    {CK_TOOL_EVENT_FIELDS, GROUP("order.tool-")},
    {CK_TOOL_EVENT_FIELDS, GROUP("hook.")},
    {CK_TOOL_EVENT_FIELDS, GROUP("parallel.")},
    /* A turn counted wrong: the iteration limit's turn count is wrong with it. */
    {CK_COMPLETE_TURN_COUNT, ONE(CK_ITER_STATUS)},
    /* A status that does not say what happened: the limit's check reads the same status (an
     * answered execute reported as incomplete, reason max_iterations). */
    {CK_COMPLETE_STATUS_MATCHES, ONE(CK_ITER_STATUS)},
    /* The iteration limit not kept: the wrap-up and the outcome of the limit go with it. */
    {CK_ITER_LIMIT, GROUP("iter.")},
    /* A response rewritten in prompt:complete is rewritten in execution:end too. */
    {CK_COMPLETE_RESPONSE, ONE(CK_COMPLETE_END_RESPONSE)},
    /* A cancelled execute reported with another status: the lifecycle and error checks read it. */
    {CK_CANCEL_STATUS, GROUP("lifecycle.")},
    {CK_CANCEL_STATUS, GROUP("error.")},
    /* Streamed arguments put together wrong: the tool gets the wrong input with them. */
    {CK_STREAM_ARGUMENTS_REASSEMBLED, ONE(CK_TOOL_INPUT)},
    /* A permanent error retried: the provider:error that called it retryable goes with it. */
    {CK_ERROR_NO_RETRY, ONE(CK_ERROR_RETRYABLE_VALUE)},
    /* A SIGINT acted on that should have been ignored: the lifecycle then tells of it. */
    {CK_CANCEL_IGNORED, GROUP("lifecycle.")},
    /* A SUT killed by a signal, or by a SIGINT it should have taken as a cancel: nothing after
     * its death happens. */
    {CK_PROC_SIGNAL, GROUP("")},
    {CK_PROC_SIGINT, GROUP("")},
    /* A broken stream taken as an answer: no error, no retry, another outcome. */
    {CK_STREAM_FAULT_IS_ERROR, GROUP("error.")},
    /* A call run despite an ask_user reply: the deny it should have been (OCK-HOOK-008, or a veto
     * at tool:selecting) is judged on the same run, and fails with it. */
    {CK_HOOK_ASK_USER_TOOL_NOT_RUN, ONE(CK_HOOK_ASK_USER)},
    {CK_HOOK_ASK_USER_TOOL_NOT_RUN, ONE(CK_HOOK_SELECTING_DENY)},
    /* Results out of call order: the history the API refuses (A08) is the finding; the parallel
     * check of the same order restates it. */
    {CK_ORPHAN_CALL_ORDER, ONE(CK_PARALLEL_RESULT_ORDER)},
    /* A status that is none of the four: every check that reads the outcome reads that word. */
    {CK_COMPLETE_STATUS, GROUP("lifecycle.")},
    {CK_COMPLETE_STATUS, ONE(CK_ORDER_PROMPT_COMPLETE)},
    {CK_COMPLETE_STATUS, ONE(CK_CANCEL_STATUS)},
    {CK_COMPLETE_STATUS, GROUP("valid.")},
    /* A cancel told twice: the check of the cancel's pair of events sees the second one too. */
    {CK_CANCEL_ONCE, ONE(CK_CANCEL_EVENTS)},
    /* The prompt after an invalid one never ran: one execute fewer than prompts. */
    {CK_VALID_NEXT_PROMPT, ONE(CK_PROC_EXECUTES)},
    /* An injection put between a call and its results: the history check sees the same split. */
    {CK_HOOK_INJECT_PLACEMENT, ONE(CK_ORPHAN_RESULTS_ADJACENT)},
    /* An event without the fields it must carry: the check of what they say reads them. */
    {CK_PROC_EVENT_FIELDS, ONE(CK_ERROR_PROVIDER_ERROR)},
    /* No prompt:complete: the lifecycle's transitions lack the step it marks. */
    {CK_ORDER_PROMPT_COMPLETE, ONE(CK_LIFECYCLE_TRANSITIONS)},
    /* A turn sent back to the provider that failed carries that provider's model where the
     * session gives the fallback's. */
    {CK_ERROR_FALLBACK_STICKS, ONE(CK_PROC_REQUEST_MODEL)},
    /* An event before the session fetch is an event before the first prompt:submit too: the
     * grammar's check of the first event restates it. */
    {CK_PROC_SESSION, ONE(CK_ORDER_SUBMIT_FIRST)},
    /* A timeout reported as another failure: the tool:post order check exempts a timeout by its
     * type, so it reads the mislabel too. */
    {CK_TOOL_TIMEOUT, ONE(CK_ORDER_TOOL_POST_AFTER_RUN)},
};

static int layer_of(const char *id) {
  for (size_t i = 0; i < sizeof layers / sizeof layers[0]; i++)
    if (matches(layers[i].checks, id))
      return layers[i].layer;
  return 0;
}

static int ruled(const char *cause, const char *consequence) {
  for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
    if (!strcmp(ock__check_row(rules[i].cause)->id, cause) &&
        matches(rules[i].consequences, consequence))
      return 1;
  return 0;
}

static int group_holds_a_check(const char *prefix) {
  if (!strcmp(prefix, CHECK_CAPABILITY_PREFIX))
    return 1; /* made per capability, not rows of the table (checklist.h) */
  for (size_t i = 0; i < ock__checklist_count(); i++)
    if (!strncmp(prefix, ock__checklist_at(i)->id, strlen(prefix)))
      return 1;
  return 0;
}

int ock_cause_groups_known(const char **unknown) {
  const char *bad = NULL;
  for (size_t i = 0; !bad && i < sizeof layers / sizeof layers[0]; i++)
    if (layers[i].checks.prefix && !group_holds_a_check(layers[i].checks.prefix))
      bad = layers[i].checks.prefix;
  for (size_t i = 0; !bad && i < sizeof rules / sizeof rules[0]; i++)
    if (rules[i].consequences.prefix && !group_holds_a_check(rules[i].consequences.prefix))
      bad = rules[i].consequences.prefix;
  *unknown = bad;
  return bad == NULL;
}

int ock_cause_explains(const char *cause, const char *consequence) {
  if (!cause || !consequence || !strcmp(cause, consequence))
    return 0;
  int a = layer_of(cause), b = layer_of(consequence);
  if (a == STANDS_ALONE || b == STANDS_ALONE)
    return 0;
  if (a != b)
    return a < b;
  return ruled(cause, consequence) && !ruled(consequence, cause);
}

void ock_cause_id(char *out, size_t n, const char *requirement, const char *check) {
  snprintf(out, n, "%s/%s", requirement ? requirement : "", check ? check : "");
}

int ock_cause_parse(const char *id, char *requirement, char *check, size_t n) {
  const char *slash = id ? strchr(id, '/') : NULL;
  if (!slash || strncmp(id, "OCK-", 4) || slash == id || !slash[1] || strchr(slash + 1, '/'))
    return -1;
  size_t rl = (size_t)(slash - id), cl = strlen(slash + 1);
  if (rl >= n || cl >= n)
    return -1;
  memcpy(requirement, id, rl);
  requirement[rl] = '\0';
  memcpy(check, slash + 1, cl + 1);
  return 0;
}

/* ---- the first cause of each failing check of one scenario ---- */

struct failing {
  cJSON *check;
  const char *id;
  int layer;
  long first_seq; /* the first evidence, LONG_MAX when none */
  int parent;     /* the failing check that explains it, or -1 */
};

/* failed: the check failed, or failed and the expected-failures baseline excused it (its
 * verdict is PASS then, SPEC.md 9.3): an excused failure still explains what follows from it. */
static int failed(const cJSON *c) {
  const char *v = ock_json_str(c, "verdict");
  return ock_json_bool(c, "expected_failure", 0) ||
         (v && (!strcmp(v, OCK_V_FAIL) || !strcmp(v, OCK_V_WARN) || !strcmp(v, OCK_V_ERROR)));
}

/* better: for failure i, candidate j is a more direct explanation than candidate k: of a lower
 * layer; else the nearest deviation before i (the latest evidence not after i's), since of two
 * independent faults the one just before a failure is the one it follows from; else, when
 * neither comes before i, the earlier. */
static int better(const struct failing *f, int i, int j, int k) {
  if (k < 0)
    return 1;
  if (f[j].layer != f[k].layer)
    return f[j].layer < f[k].layer;
  int j_before = f[j].first_seq <= f[i].first_seq, k_before = f[k].first_seq <= f[i].first_seq;
  if (j_before != k_before)
    return j_before;
  return j_before ? f[j].first_seq > f[k].first_seq : f[j].first_seq < f[k].first_seq;
}

static int root_of(const struct failing *f, int n, int i) {
  int r = i;
  for (int steps = 0; f[r].parent >= 0 && steps < n; steps++)
    r = f[r].parent;
  return f[r].parent >= 0 ? i : r; /* a cycle the rules should not allow: its own cause */
}

/* collect fills f (capacity cap) with the scenario's failing checks; returns how many. */
static int collect(const cJSON *scenario, struct failing *f, int cap) {
  int n = 0;
  cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(scenario, "checks")) {
    const char *id = ock_json_str(c, "id");
    if (!id || !ock_json_str(c, "requirement") || !failed(c) || n == cap)
      continue;
    const cJSON *ev = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(c, "evidence"), 0);
    f[n] = (struct failing){c, id, layer_of(id),
                            cJSON_IsNumber(ev) ? (long)ev->valuedouble : LONG_MAX, -1};
    n++;
  }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      if (j != i && ock_cause_explains(f[j].id, f[i].id) && better(f, i, j, f[i].parent))
        f[i].parent = j;
  return n;
}

const cJSON *ock_scenario_first_cause(const cJSON *scenario) {
  int cap = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(scenario, "checks"));
  struct failing *f = cap ? calloc((size_t)cap, sizeof *f) : NULL;
  if (!f)
    return NULL;
  int n = collect(scenario, f, cap), best = -1;
  for (int i = 0; i < n; i++) {
    int sev = ock_verdict_severity(ock_json_str(f[i].check, "verdict"));
    if (f[i].parent >= 0)
      continue;
    if (best < 0 || sev > ock_verdict_severity(ock_json_str(f[best].check, "verdict")) ||
        (sev == ock_verdict_severity(ock_json_str(f[best].check, "verdict")) &&
         (f[i].layer < f[best].layer ||
          (f[i].layer == f[best].layer && f[i].first_seq < f[best].first_seq))))
      best = i;
  }
  const cJSON *c = best < 0 ? NULL : f[best].check;
  free(f);
  return c;
}

/* ---- grouping across scenarios ---- */

static cJSON *find_by(cJSON *array, const char *key, const char *value, const char *key2,
                      const char *value2) {
  cJSON *e;
  cJSON_ArrayForEach(e, array) {
    const char *a = ock_json_str(e, key), *b = key2 ? ock_json_str(e, key2) : NULL;
    if (a && !strcmp(a, value) && (!key2 || (b && !strcmp(b, value2))))
      return e;
  }
  return NULL;
}

static int events_of(const cJSON *scenario) {
  const cJSON *t = cJSON_GetObjectItemCaseSensitive(scenario, "timeline");
  return cJSON_IsArray(t) ? cJSON_GetArraySize(t) : INT_MAX;
}

/* cause_entry: the entry of cause id in causes, created from root check c when new. */
static cJSON *cause_entry(cJSON *causes, const char *id, const cJSON *c) {
  cJSON *e = find_by(causes, "id", id, NULL, NULL);
  if (e)
    return e;
  e = cJSON_CreateObject();
  if (!e || !cJSON_AddItemToArray(causes, e)) {
    cJSON_Delete(e);
    return NULL;
  }
  cJSON_AddStringToObject(e, "id", id);
  cJSON_AddStringToObject(e, "requirement", ock_json_str(c, "requirement"));
  cJSON_AddStringToObject(e, "check", ock_json_str(c, "id"));
  cJSON_AddStringToObject(e, "level", ock_json_str(c, "level") ? ock_json_str(c, "level") : "MUST");
  cJSON_AddStringToObject(e, "verdict", OCK_V_PASS); /* until a failure not excused */
  cJSON_AddBoolToObject(e, "expected_failure", 1);
  cJSON_AddStringToObject(e, "message", "");
  cJSON_AddArrayToObject(e, "scenarios");
  cJSON_AddArrayToObject(e, "consequences");
  cJSON *s = cJSON_AddObjectToObject(e, "simplest");
  cJSON_AddStringToObject(s, "scenario", "");
  cJSON_AddNumberToObject(s, "events", -1);
  return e;
}

/* worsen raises the cause's verdict to check c's when c is more severe: a cause is as severe
 * as the worst failure it explains, so a WARN that explains a FAIL never reads as a pass. A
 * failure the baseline excused leaves it as it is; one it did not makes the cause not excused. */
static void worsen(cJSON *e, const cJSON *c) {
  const char *v = ock_json_str(c, "verdict");
  if (ock_json_bool(c, "expected_failure", 0))
    return;
  cJSON_ReplaceItemInObjectCaseSensitive(e, "expected_failure", cJSON_CreateFalse());
  if (v && ock_verdict_severity(v) > ock_verdict_severity(ock_json_str(e, "verdict")))
    cJSON_ReplaceItemInObjectCaseSensitive(e, "verdict", cJSON_CreateString(v));
}

#define SIMPLEST_EXCUSED "excused" /* while grouping only: finish removes it */

/* add_root records scenario sc as one where root check c is a first cause. */
static int add_root(cJSON *e, const cJSON *sc, const cJSON *c) {
  const char *sid = ock_json_str(sc, "id");
  cJSON *scenarios = cJSON_GetObjectItemCaseSensitive(e, "scenarios");
  if (!sid || !cJSON_AddItemToArray(scenarios, cJSON_CreateString(sid)))
    return OCK_ENOMEM;
  worsen(e, c);
  /* The simplest scenario: the fewest events, of those where the failure is not excused if
   * there is one (that is the one to rerun). */
  cJSON *simplest = cJSON_GetObjectItemCaseSensitive(e, "simplest");
  int events = events_of(sc), known = (int)ock_json_int(simplest, "events", -1);
  int excused = ock_json_bool(c, "expected_failure", 0);
  int was_excused = ock_json_bool(simplest, SIMPLEST_EXCUSED, 0);
  if (known < 0 || excused < was_excused || (excused == was_excused && events < known)) {
    cJSON_ReplaceItemInObjectCaseSensitive(simplest, "scenario", cJSON_CreateString(sid));
    cJSON_ReplaceItemInObjectCaseSensitive(simplest, "events",
                                           cJSON_CreateNumber(events == INT_MAX ? 0 : events));
    cJSON_DeleteItemFromObjectCaseSensitive(simplest, SIMPLEST_EXCUSED);
    cJSON_AddBoolToObject(simplest, SIMPLEST_EXCUSED, excused);
    const char *m = ock_json_str(c, "message");
    cJSON_ReplaceItemInObjectCaseSensitive(e, "message", cJSON_CreateString(m ? m : ""));
  }
  return OCK_OK;
}

static int add_consequence(cJSON *e, const cJSON *c) {
  cJSON *list = cJSON_GetObjectItemCaseSensitive(e, "consequences");
  worsen(e, c);
  const char *id = ock_json_str(c, "id"), *req = ock_json_str(c, "requirement");
  cJSON *k = find_by(list, "check", id, "requirement", req);
  if (k) {
    cJSON_ReplaceItemInObjectCaseSensitive(
        k, "scenarios", cJSON_CreateNumber((double)ock_json_int(k, "scenarios", 0) + 1));
    return OCK_OK;
  }
  k = cJSON_CreateObject();
  if (!k || !cJSON_AddItemToArray(list, k)) {
    cJSON_Delete(k);
    return OCK_ENOMEM;
  }
  cJSON_AddStringToObject(k, "check", id);
  cJSON_AddStringToObject(k, "requirement", req);
  cJSON_AddStringToObject(k, "verdict", ock_json_str(c, "verdict"));
  if (ock_json_bool(c, "expected_failure", 0))
    cJSON_AddBoolToObject(k, "expected_failure", 1);
  cJSON_AddNumberToObject(k, "scenarios", 1);
  return OCK_OK;
}

static int scenario_causes(cJSON *causes, cJSON *sc) {
  int cap = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(sc, "checks"));
  struct failing *f = cap ? calloc((size_t)cap, sizeof *f) : NULL;
  if (cap && !f)
    return OCK_ENOMEM;
  cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(sc, "checks")) {
    cJSON_DeleteItemFromObjectCaseSensitive(c, "cause");
  }
  int n = collect(sc, f, cap), rc = OCK_OK;
  for (int i = 0; i < n && !rc; i++) {
    const cJSON *root = f[root_of(f, n, i)].check;
    char id[300];
    ock_cause_id(id, sizeof id, ock_json_str(root, "requirement"), ock_json_str(root, "id"));
    cJSON *e =
        cJSON_AddStringToObject(f[i].check, "cause", id) ? cause_entry(causes, id, root) : NULL;
    if (!e)
      rc = OCK_ENOMEM;
    else
      rc = root == f[i].check ? add_root(e, sc, root) : add_consequence(e, f[i].check);
  }
  free(f);
  return rc;
}

/* by_weight: most severe first, then the most scenarios, then by id. */
static int by_weight(const void *pa, const void *pb) {
  const cJSON *a = *(const cJSON *const *)pa, *b = *(const cJSON *const *)pb;
  int d = ock_verdict_severity(ock_json_str(b, "verdict")) -
          ock_verdict_severity(ock_json_str(a, "verdict"));
  if (!d)
    d = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(b, "scenarios")) -
        cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(a, "scenarios"));
  return d ? d : strcmp(ock_json_str(a, "id"), ock_json_str(b, "id"));
}

/* finish sorts causes and adds each one's rerun command; returns OCK_OK or OCK_ENOMEM. */
static int finish(cJSON *report, cJSON *causes) {
  int n = cJSON_GetArraySize(causes);
  cJSON **items = n ? malloc((size_t)n * sizeof *items) : NULL;
  if (n && !items)
    return OCK_ENOMEM;
  for (int i = 0; i < n; i++)
    items[i] = cJSON_DetachItemFromArray(causes, 0);
  if (n)
    qsort(items, (size_t)n, sizeof *items, by_weight);
  int rc = OCK_OK;
  for (int i = 0; i < n; i++) {
    cJSON_AddItemToArray(causes, items[i]);
    cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(items[i], "simplest"),
                                            SIMPLEST_EXCUSED);
    struct ock_buf b;
    ock_buf_init(&b, 4096);
    const char *sid =
        ock_json_str(cJSON_GetObjectItemCaseSensitive(items[i], "simplest"), "scenario");
    if (!rc && (ock_report_rerun_command(&b, report, sid) ||
                !cJSON_AddStringToObject(items[i], "command", b.len ? b.data : "")))
      rc = OCK_ENOMEM;
    ock_buf_free(&b);
  }
  free(items);
  return rc;
}

int ock_report_causes(cJSON *report) {
  cJSON *scenarios = cJSON_GetObjectItemCaseSensitive(report, "scenarios");
  if (!cJSON_IsObject(report) || !cJSON_IsArray(scenarios))
    return OCK_EINVAL;
  cJSON *causes = cJSON_CreateArray(), *sc;
  int rc = causes ? OCK_OK : OCK_ENOMEM;
  cJSON_ArrayForEach(sc, scenarios) {
    if (!rc)
      rc = scenario_causes(causes, sc);
  }
  if (!rc)
    rc = finish(report, causes);
  if (rc) {
    cJSON_Delete(causes);
    return rc;
  }
  if (cJSON_GetObjectItemCaseSensitive(report, "causes"))
    return cJSON_ReplaceItemInObjectCaseSensitive(report, "causes", causes) ? OCK_OK : OCK_ENOMEM;
  return cJSON_AddItemToObject(report, "causes", causes) ? OCK_OK
                                                         : (cJSON_Delete(causes), OCK_ENOMEM);
}

/* ---- the command that reruns one scenario ---- */

/* put_word appends s for a POSIX shell: as it is when every byte is safe, else single-quoted. */
static int put_word(struct ock_buf *b, const char *s) {
  static const char safe[] =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./,:=@%+-";
  if (*s && strspn(s, safe) == strlen(s))
    return ock_buf_puts(b, s);
  int rc = ock_buf_puts(b, "'");
  for (const char *p = s; *p && !rc; p++)
    rc = *p == '\'' ? ock_buf_puts(b, "'\\''") : ock_buf_append(b, p, 1);
  return rc ? rc : ock_buf_puts(b, "'");
}

static int put_list(struct ock_buf *b, const char *flag, const cJSON *list) {
  struct ock_buf joined;
  ock_buf_init(&joined, 4096);
  const cJSON *e;
  int rc = OCK_OK;
  cJSON_ArrayForEach(e, list) {
    if (cJSON_IsString(e) && !rc)
      rc = ock_buf_printf(&joined, "%s%s", joined.len ? "," : "", e->valuestring);
  }
  if (!rc && joined.len)
    rc = ock_buf_printf(b, " %s ", flag);
  if (!rc && joined.len)
    rc = put_word(b, joined.data);
  ock_buf_free(&joined);
  return rc;
}

/* fixtures_flag: the fixtures directory unless it is a "fixtures" folder, which is where ock
 * looks by default. */
static int fixtures_flag(struct ock_buf *b, const char *dir) {
  size_t n = dir ? strlen(dir) : 0;
  while (n && dir[n - 1] == '/')
    n--;
  if (!n || (n >= 8 && !strncmp(dir + n - 8, "fixtures", 8) && (n == 8 || dir[n - 9] == '/')))
    return OCK_OK;
  int rc = ock_buf_puts(b, " --fixtures ");
  return rc ? rc : put_word(b, dir);
}

int ock_report_rerun_command(struct ock_buf *b, const cJSON *report, const char *scenario) {
  const cJSON *orch = cJSON_GetObjectItemCaseSensitive(report, "orchestrator");
  const cJSON *opt = cJSON_GetObjectItemCaseSensitive(report, "options");
  const char *cmd = ock_json_str(orch, "command"), *level = ock_json_str(opt, "level");
  int rc = ock_buf_puts(b, "ock run --orchestrator ");
  if (!rc)
    rc = put_word(b, cmd ? cmd : "");
  if (!rc)
    rc = put_list(b, "--capabilities", cJSON_GetObjectItemCaseSensitive(orch, "capabilities"));
  if (!rc && cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(orch, "wires")) == 1)
    rc = put_list(b, "--wires", cJSON_GetObjectItemCaseSensitive(orch, "wires"));
  if (!rc && level && strcmp(level, "should"))
    rc = ock_buf_printf(b, " --level %s", !strcmp(level, "must") ? "must" : "may");
  if (!rc && ock_json_bool(opt, "strict", 0))
    rc = ock_buf_puts(b, " --strict");
  if (!rc && ock_json_bool(opt, "blackbox", 0))
    rc = ock_buf_puts(b, " --blackbox");
  if (!rc)
    rc = fixtures_flag(b, ock_json_str(opt, "fixtures"));
  if (!rc)
    rc = ock_buf_puts(b, " --case ");
  return rc ? rc : put_word(b, scenario ? scenario : "");
}
