/*
 * report_junit.c: the "junit" report writer: junit.xml for CI systems (GitLab, Jenkins,
 * GitHub test reporters).
 *
 * First a <testsuite> "first causes" with one <testcase> per first cause (causes.h), whose
 * message names the checks it explains and the command that reruns it; then one <testsuite>
 * per scenario and one <testcase> per check (classname = scenario id, name =
 * "<check id> [<requirement id>]"): CI tools group by classname, and a scenario is what a
 * person re-runs. A check that a first cause explains is <skipped> there, its message naming
 * the cause, so one fault is one red testcase per scenario it shows in, not a wall. FAIL is
 * a <failure> carrying the requirement text, expected, actual and the journal entries that
 * prove it; ERROR is an <error>; SKIP is <skipped/>; WARN is a <failure>
 * only under --strict (it fails the run only then), else a passing testcase with a note in
 * its <system-out>. A failure the expected-failures baseline waived is a <skipped> whose
 * message starts "WAIVED FAIL" (or WARN), so CI shows it is not a pass, and its suite has the
 * property waived. When a scenario's verdict is worse than every one of its checks (it could
 * not run, or has no checks), an extra testcase named "scenario" carries that verdict, so the
 * counts never hide a scenario that did not pass. A run that did not grade (exit code 2, the
 * report's "error") is one <error> testcase, never an empty, green document. Every string goes
 * through ock_escape_xml.
 */
#include "report/report.h"
#include "report/render.h"

#include <stdarg.h>
#include <string.h>

#include "report/escape.h"
#include "ock/caps.h"
#include "ock/contract.h"
#include "ock/status.h"

/* What a testcase becomes. */
enum outcome { PASSED, PASSED_WARN, FAILED, ERRORED, SKIPPED };

static enum outcome outcome_of(const char *verdict, int strict) {
  switch (ock_verdict_severity(verdict)) {
  case 0:
    return SKIPPED;
  case 1:
    return PASSED;
  case 2:
    return strict ? FAILED : PASSED_WARN;
  case 3:
    return FAILED;
  default:
    return ERRORED;
  }
}

struct counts {
  int tests, failures, errors, skipped;
};

static void count(struct counts *c, enum outcome o) {
  c->tests++;
  c->failures += o == FAILED;
  c->errors += o == ERRORED;
  c->skipped += o == SKIPPED;
}

/* needs_scenario_case: the scenario's own verdict must appear as an extra testcase. */
static int needs_scenario_case(const cJSON *scenario) {
  const cJSON *checks = cJSON_GetObjectItemCaseSensitive(scenario, "checks"), *c;
  int worst = -1;
  cJSON_ArrayForEach(c, checks) {
    int sev = ock_verdict_severity(ock_json_str(c, "verdict"));
    worst = sev > worst ? sev : worst;
  }
  return cJSON_GetArraySize(checks) == 0 ||
         ock_verdict_severity(ock_json_str(scenario, "verdict")) > worst;
}

/* consequence_of: the first cause that explains this failing check, when it is not its own
 * (causes.h); NULL otherwise. Such a check is reported under its cause's testcase. */
static const char *consequence_of(const cJSON *check) {
  const char *cause = ock_json_str(check, "cause"), *id = ock_json_str(check, "id");
  const char *req = ock_json_str(check, "requirement");
  if (!cause || !id || !req || ock_verdict_severity(ock_json_str(check, "verdict")) < 2)
    return NULL; /* a PASS, also an excused failure, stays what it is */
  size_t n = strlen(req);
  return strncmp(cause, req, n) || cause[n] != '/' || strcmp(cause + n + 1, id) ? cause : NULL;
}

/* check_outcome: a failure the baseline waived is a <skipped> with a message saying so (CI tools
 * show skipped tests and their message, where a passing testcase would hide it), and so is a
 * consequence, whose failure is counted under its cause's testcase. */
static enum outcome check_outcome(const cJSON *check, int strict) {
  return ock_json_str(check, "waived") || consequence_of(check)
             ? SKIPPED
             : outcome_of(ock_json_str(check, "verdict"), strict);
}

static struct counts scenario_counts(const cJSON *scenario, int strict) {
  struct counts c = {0};
  const cJSON *k;
  cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(scenario, "checks")) {
    count(&c, check_outcome(k, strict));
  }
  if (needs_scenario_case(scenario))
    count(&c, outcome_of(ock_json_str(scenario, "verdict"), strict));
  return c;
}

static void seconds(struct ock_doc *d, const cJSON *o) {
  double ms = ock_json_num(o, "duration_ms", 0);
  ock_doc_putf(d, "%.3f", ms > 0 ? ms / 1000.0 : 0.0);
}

static void property(struct ock_doc *d, const char *name, const char *value) {
  if (!value || !*value)
    return;
  ock_doc_putf(d, "      <property name=\"%s\" value=\"", name);
  ock_doc_xml(d, value, 0, OCK_ESC_ATTR);
  ock_doc_put(d, "\"/>\n");
}

static void join_strings(struct ock_doc *d, const cJSON *array, struct ock_buf *tmp) {
  const cJSON *e;
  int first = 1;
  ock_buf_reset(tmp);
  cJSON_ArrayForEach(e, array) {
    if (cJSON_IsString(e) && !d->rc) {
      if (!first)
        d->rc = ock_buf_puts(tmp, ", ");
      if (!d->rc)
        d->rc = ock_buf_puts(tmp, e->valuestring);
      first = 0;
    }
  }
}

static void evidence(struct ock_doc *d, const cJSON *check) {
  const cJSON *ev = cJSON_GetObjectItemCaseSensitive(check, "evidence"), *e;
  if (!cJSON_IsArray(ev) || cJSON_GetArraySize(ev) == 0)
    return;
  ock_doc_put(d, "\nevidence: journal entries ");
  int first = 1;
  cJSON_ArrayForEach(e, ev) {
    if (!first)
      ock_doc_put(d, ", ");
    if (cJSON_IsNumber(e))
      ock_doc_putf(d, "%lld", (long long)e->valuedouble);
    else if (cJSON_IsString(e))
      ock_doc_xml(d, e->valuestring, 0, OCK_ESC_TEXT);
    first = 0;
  }
}

/* check_body: the text of a <failure>, <error> or note: requirement, expected, actual. */
static void check_body(struct ock_doc *d, const cJSON *check) {
  const char *rid = ock_json_str(check, "requirement");
  const cJSON *req =
      cJSON_GetArrayItem(d->m->requirements, ock_report_index_of(&d->m->requirement_ids, rid));
  const char *level = ock_json_str(check, "level");
  ock_doc_xml(d, rid, 0, OCK_ESC_TEXT);
  if (!level)
    level = ock_json_str(req, "level");
  if (level) {
    ock_doc_put(d, " (");
    ock_doc_xml(d, level, 0, OCK_ESC_TEXT);
    ock_doc_put(d, ")");
  }
  if (req) {
    ock_doc_put(d, ": ");
    ock_doc_xml(d, ock_json_str(req, "text"), 0, OCK_ESC_TEXT);
  }
  static const char *const fields[] = {"expected", "actual", "message"};
  for (int i = 0; i < 3; i++) {
    const char *v = ock_json_str(check, fields[i]);
    if (v && *v) {
      ock_doc_putf(d, "\n%s: ", fields[i]);
      ock_doc_xml(d, v, 0, OCK_ESC_TEXT);
    }
  }
  evidence(d, check);
}

static void message_attr(struct ock_doc *d, const cJSON *check) {
  const char *m = ock_json_str(check, "message");
  if (!m || !*m)
    m = ock_json_str(check, "actual");
  ock_doc_put(d, " message=\"");
  ock_doc_xml(d, m ? m : "", 0, OCK_ESC_ATTR);
  ock_doc_put(d, "\"");
}

static void testcase(struct ock_doc *d, const char *sid, const cJSON *check) {
  const char *verdict = ock_json_str(check, "verdict"), *waived = ock_json_str(check, "waived");
  enum outcome o = check_outcome(check, d->m->strict);
  ock_doc_put(d, "    <testcase classname=\"");
  ock_doc_xml(d, sid, 0, OCK_ESC_ATTR);
  ock_doc_put(d, "\" name=\"");
  ock_doc_xml(d, ock_json_str(check, "id"), 0, OCK_ESC_ATTR);
  ock_doc_put(d, " [");
  ock_doc_xml(d, ock_json_str(check, "requirement"), 0, OCK_ESC_ATTR);
  ock_doc_put(d, "]\" time=\"0\"");
  if (o == PASSED) {
    ock_doc_put(d, "/>\n");
    return;
  }
  ock_doc_put(d, ">\n");
  switch (o) {
  case FAILED:
  case ERRORED:
    ock_doc_put(d, o == FAILED ? "      <failure" : "      <error");
    message_attr(d, check);
    ock_doc_put(d, " type=\"");
    ock_doc_xml(d, verdict, 0, OCK_ESC_ATTR);
    ock_doc_put(d, "\">");
    check_body(d, check);
    ock_doc_put(d, o == FAILED ? "</failure>\n" : "</error>\n");
    break;
  case SKIPPED:
    ock_doc_put(d, "      <skipped");
    if (waived) {
      ock_doc_put(d, " message=\"WAIVED ");
      ock_doc_xml(d, waived, 0, OCK_ESC_ATTR);
      ock_doc_put(d, " (listed in --expected-failures): ");
      const char *m = ock_json_str(check, "message");
      ock_doc_xml(d, m && *m ? m : ock_json_str(check, "actual"), 0, OCK_ESC_ATTR);
      ock_doc_put(d, "\">");
      check_body(d, check);
      ock_doc_put(d, "</skipped>\n");
      break;
    }
    if (consequence_of(check)) {
      ock_doc_put(d, " message=\"");
      ock_doc_xml(d, verdict, 0, OCK_ESC_ATTR);
      ock_doc_put(d, ", a consequence of ");
      ock_doc_xml(d, consequence_of(check), 0, OCK_ESC_ATTR);
      ock_doc_put(d, "; its testcase is in the suite first causes: ");
      ock_doc_xml(d, ock_json_str(check, "message"), 0, OCK_ESC_ATTR);
      ock_doc_put(d, "\"");
    } else {
      message_attr(d, check);
    }
    ock_doc_put(d, "/>\n");
    break;
  default: /* PASSED_WARN */
    ock_doc_put(d, "      <system-out>WARN (does not fail the run without --strict): ");
    check_body(d, check);
    ock_doc_put(d, "</system-out>\n");
    break;
  }
  ock_doc_put(d, "    </testcase>\n");
}

/* scenario_case: the extra testcase that carries the scenario's own verdict. */
static void scenario_case(struct ock_doc *d, const cJSON *s) {
  const char *verdict = ock_json_str(s, "verdict");
  const char *reason = ock_json_str(s, "skip_reason");
  const cJSON *p = cJSON_GetObjectItemCaseSensitive(s, "process");
  enum outcome o = outcome_of(verdict, d->m->strict);
  ock_doc_put(d, "    <testcase classname=\"");
  ock_doc_xml(d, ock_json_str(s, "id"), 0, OCK_ESC_ATTR);
  ock_doc_put(d, "\" name=\"scenario\" time=\"");
  seconds(d, s);
  ock_doc_put(d, "\"");
  if (o == PASSED) {
    ock_doc_put(d, "/>\n");
    return;
  }
  static const char *const tags[] = {"", "system-out", "failure", "error", "skipped"};
  const char *tag = tags[o];
  ock_doc_putf(d, ">\n      <%s", tag);
  if (o != PASSED_WARN) {
    ock_doc_put(d, " message=\"");
    if (reason)
      ock_doc_xml(d, reason, 0, OCK_ESC_ATTR);
    else {
      ock_doc_put(d, "scenario verdict ");
      ock_doc_xml(d, verdict, 0, OCK_ESC_ATTR);
    }
    ock_doc_put(d, "\"");
  }
  if (o == SKIPPED) {
    ock_doc_put(d, "/>\n    </testcase>\n");
    return;
  }
  ock_doc_put(d, ">scenario verdict ");
  ock_doc_xml(d, verdict, 0, OCK_ESC_TEXT);
  if (reason) {
    ock_doc_put(d, ": ");
    ock_doc_xml(d, reason, 0, OCK_ESC_TEXT);
  }
  if (p) {
    const char *sig = ock_json_str(p, "signal");
    ock_doc_putf(d, "\nprocess: exit code %lld", ock_json_int(p, "exit_code", -1));
    if (sig) {
      ock_doc_put(d, ", killed by ");
      ock_doc_xml(d, sig, 0, OCK_ESC_TEXT);
    }
    if (ock_json_bool(p, "timed_out", 0))
      ock_doc_put(d, ", timed out");
  }
  ock_doc_putf(d, "</%s>\n    </testcase>\n", tag);
}

static void process_output(struct ock_doc *d, const cJSON *s) {
  const cJSON *p = cJSON_GetObjectItemCaseSensitive(s, "process");
  static const char *const streams[][2] = {{"stdout", "system-out"}, {"stderr", "system-err"}};
  for (int i = 0; p && i < 2; i++) {
    const char *text = ock_json_str(p, streams[i][0]);
    if (!text || !*text)
      continue;
    ock_doc_putf(d, "    <%s>", streams[i][1]);
    ock_doc_xml(d, text, 0, OCK_ESC_TEXT);
    ock_doc_putf(d, "</%s>\n", streams[i][1]);
  }
}

static void testsuite(struct ock_doc *d, const cJSON *s, struct ock_buf *tmp) {
  const char *sid = ock_json_str(s, "id");
  struct counts c = scenario_counts(s, d->m->strict);
  ock_doc_put(d, "  <testsuite name=\"");
  ock_doc_xml(d, sid, 0, OCK_ESC_ATTR);
  ock_doc_putf(d, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"", c.tests,
               c.failures, c.errors, c.skipped);
  seconds(d, s);
  ock_doc_put(d, "\">\n    <properties>\n");
  property(d, "verdict", ock_json_str(s, "verdict"));
  property(d, "title", ock_json_str(s, "title"));
  property(d, "proves", ock_json_str(s, "proves"));
  property(d, "file", ock_json_str(s, "file"));
  join_strings(d, cJSON_GetObjectItemCaseSensitive(s, "requirements"), tmp);
  property(d, "requirements", tmp->data);
  join_strings(d, cJSON_GetObjectItemCaseSensitive(s, "capabilities"), tmp);
  property(d, "capabilities", tmp->data);
  property(d, "skip_reason", ock_json_str(s, "skip_reason"));
  if (ock_json_bool(s, "expected_failure", 0))
    property(d, "expected_failure", "true");
  if (ock_json_bool(s, "expected_failure", 0) && !strcmp(ock_json_str(s, "verdict"), OCK_V_PASS))
    property(d, "waived", "true");
  /* What the SUT's bridge does in the framework's place (its manifest's emulated): a reader of
   * any one test suite must be able to tell the framework's behaviour from the bridge's. */
  const cJSON *orch = cJSON_GetObjectItemCaseSensitive(d->m->report, "orchestrator");
  const cJSON *emulated = cJSON_GetObjectItemCaseSensitive(orch, "emulated");
  if (cJSON_GetArraySize(emulated) > 0) {
    join_strings(d, emulated, tmp);
    property(d, "emulated", tmp->data);
  }
  if (ock_json_str(d->m->report, "tier")) /* blackbox or instrumented (SPEC.md 9.7) */
    property(d, "tier", ock_json_str(d->m->report, "tier"));
  ock_doc_put(d, "    </properties>\n");
  const cJSON *k;
  cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(s, "checks")) {
    testcase(d, sid, k);
  }
  if (needs_scenario_case(s))
    scenario_case(d, s);
  process_output(d, s);
  ock_doc_put(d, "  </testsuite>\n");
}

/* run_error_suite: a run that did not grade (a usage or fixture error, exit 2) is one <error>
 * testcase carrying the reason, so CI shows it red instead of an empty, green suite. */
static void run_error_suite(struct ock_doc *d) {
  const char *why = d->m->error;
  if (!why)
    return;
  long long code = d->m->exit_code;
  ock_doc_put(d, "  <testsuite name=\"ock\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" "
                 "time=\"0\">\n    <testcase classname=\"ock\" name=\"run\" time=\"0\">\n"
                 "      <error message=\"");
  ock_doc_xml(d, why, 0, OCK_ESC_ATTR);
  ock_doc_putf(d,
               "\" type=\"exit code %lld\">The run did not grade the orchestrator (exit code %lld: "
               "usage or fixture error): ",
               code, code);
  ock_doc_xml(d, why, 0, OCK_ESC_TEXT);
  ock_doc_put(d, "</error>\n    </testcase>\n  </testsuite>\n");
}

/* cause_summary: a cause in one line: its message, where, what it explains, how to rerun. */
static void cause_summary(struct ock_doc *d, const cJSON *c, unsigned flags) {
  const cJSON *k;
  ock_doc_xml(d, ock_json_str(c, "message"), 0, flags);
  ock_doc_putf(d, " · in %d scenario(s)",
               cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(c, "scenarios")));
  int first = 1;
  cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(c, "consequences")) {
    ock_doc_put(d, first ? " · explains: " : ", ");
    ock_doc_xml(d, ock_json_str(k, "check"), 0, flags);
    ock_doc_put(d, " [");
    ock_doc_xml(d, ock_json_str(k, "requirement"), 0, flags);
    ock_doc_putf(d, "] in %lld", ock_json_int(k, "scenarios", 0));
    first = 0;
  }
  ock_doc_put(d, " · rerun: ");
  ock_doc_xml(d, ock_json_str(c, "command"), 0, flags);
}

static struct counts causes_counts(const cJSON *causes, int strict) {
  struct counts n = {0};
  const cJSON *c;
  cJSON_ArrayForEach(c, causes) {
    count(&n, outcome_of(ock_json_str(c, "verdict"), strict));
  }
  return n;
}

/* causes_suite: the first suite, one testcase per first cause (causes.h), its message naming
 * the checks it explains; those checks are skipped in their scenarios' suites. */
static void causes_suite(struct ock_doc *d) {
  const cJSON *causes = cJSON_GetObjectItemCaseSensitive(d->m->report, "causes"), *c, *e;
  if (!cJSON_GetArraySize(causes))
    return;
  struct counts n = causes_counts(causes, d->m->strict);
  ock_doc_putf(d,
               "  <testsuite name=\"first causes\" tests=\"%d\" failures=\"%d\" errors=\"%d\" "
               "skipped=\"%d\" time=\"0\">\n",
               n.tests, n.failures, n.errors, n.skipped);
  cJSON_ArrayForEach(c, causes) {
    enum outcome o = outcome_of(ock_json_str(c, "verdict"), d->m->strict);
    static const char *const tags[] = {"system-out", "system-out", "failure", "error", "skipped"};
    ock_doc_put(d, "    <testcase classname=\"first causes\" name=\"");
    ock_doc_xml(d, ock_json_str(c, "id"), 0, OCK_ESC_ATTR);
    ock_doc_put(d, "\" time=\"0\">\n      <");
    ock_doc_put(d, tags[o]);
    if (o != PASSED_WARN && o != PASSED) {
      ock_doc_put(d, " message=\"");
      cause_summary(d, c, OCK_ESC_ATTR);
      ock_doc_put(d, "\" type=\"");
      ock_doc_xml(d, ock_json_str(c, "verdict"), 0, OCK_ESC_ATTR);
      ock_doc_put(d, "\"");
    }
    ock_doc_put(d, ">");
    if (o == PASSED_WARN)
      ock_doc_put(d, "WARN (does not fail the run without --strict): ");
    else if (o == PASSED)
      ock_doc_put(d, "expected failure (the baseline excuses it): ");
    ock_doc_xml(d, ock_json_str(c, "level"), 0, OCK_ESC_TEXT);
    ock_doc_put(d, " ");
    ock_doc_xml(d, ock_json_str(c, "id"), 0, OCK_ESC_TEXT);
    ock_doc_put(d, ": ");
    cause_summary(d, c, OCK_ESC_TEXT);
    ock_doc_put(d, "\nscenarios:");
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(c, "scenarios")) {
      ock_doc_put(d, " ");
      ock_doc_xml(d, cJSON_IsString(e) ? e->valuestring : "?", 0, OCK_ESC_TEXT);
    }
    ock_doc_putf(d, "</%s>\n    </testcase>\n", tags[o]);
  }
  ock_doc_put(d, "  </testsuite>\n");
}

static void render_junit(struct ock_doc *d) {
  const struct ock_report_model *m = d->m;
  const cJSON *s;
  struct counts all =
      causes_counts(cJSON_GetObjectItemCaseSensitive(m->report, "causes"), m->strict);
  if (m->error) /* the run's own error testcase */
    count(&all, ERRORED);
  cJSON_ArrayForEach(s, m->scenarios) {
    struct counts c = scenario_counts(s, m->strict);
    all.tests += c.tests;
    all.failures += c.failures;
    all.errors += c.errors;
    all.skipped += c.skipped;
  }
  ock_doc_put(d, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"ock");
  if (ock_json_str(m->orchestrator, "name")) {
    ock_doc_put(d, " ");
    ock_doc_xml(d, ock_json_str(m->orchestrator, "name"), 0, OCK_ESC_ATTR);
  }
  ock_doc_putf(d, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"", all.tests,
               all.failures, all.errors, all.skipped);
  seconds(d, m->report);
  ock_doc_put(d, "\">\n");
  run_error_suite(d);
  causes_suite(d);
  struct ock_buf tmp;
  ock_buf_init(&tmp, OCK_MAX_REPORT_OUT);
  cJSON_ArrayForEach(s, m->scenarios) {
    testsuite(d, s, &tmp);
  }
  ock_buf_free(&tmp);
  ock_doc_put(d, "</testsuites>\n");
}

const struct ock_report_writer ock_report_writer_junit = {"junit", "junit.xml", render_junit};
