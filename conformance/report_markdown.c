/*
 * report_markdown.c: the "markdown" report writer: summary.md, made to be appended to a CI job
 * summary ($GITHUB_STEP_SUMMARY) or pasted into a pull request.
 *
 * It answers three questions in this order: did the run pass (a headline with the verdict,
 * the exit code and MUST/SHOULD/MAY x/y), which requirements are not met (with their text and
 * the scenarios to re-run), and how each scenario went (verdict as plain text, time, checks).
 * The details (expected, actual, event timelines, process output) are in report.html. Every
 * string goes through ock_escape_markdown, so a SUT string cannot break a table or inject HTML.
 */
#include "report.h"

#include <stdarg.h>
#include <string.h>

#include "escape.h"
#include "ock/status.h"

#define CELL_LIMIT 200 /* characters of one free-text table cell */

struct doc {
  struct ock_buf b;
  int rc; /* first error; once set, nothing more is appended */
};

static void put(struct doc *d, const char *s) {
  if (!d->rc)
    d->rc = ock_buf_puts(&d->b, s);
}

static void putf(struct doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(struct doc *d, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (!d->rc)
    d->rc = ock_buf_vprintf(&d->b, fmt, ap);
  va_end(ap);
}

static void md(struct doc *d, const char *s, size_t limit) {
  if (!d->rc)
    d->rc = ock_escape_markdown(&d->b, s, limit);
}

static void duration(struct doc *d, double ms) {
  if (ms < 1000)
    putf(d, "%.0f ms", ms < 0 ? 0 : ms);
  else
    putf(d, "%.1f s", ms / 1000.0);
}

static void headline(struct doc *d, const cJSON *report) {
  const char *verdict = ock_json_str(report, "verdict");
  const cJSON *summary = cJSON_GetObjectItemCaseSensitive(report, "summary");
  const cJSON *counts = cJSON_GetObjectItemCaseSensitive(summary, "scenarios");
  put(d, "## OCK conformance: ");
  md(d, verdict ? verdict : "?", 0);
  put(d, "\n\n**");
  md(d, verdict ? verdict : "?", 0);
  putf(d, "** (exit code %lld)", ock_json_int(report, "exit_code", -1));
  if (!d->rc)
    d->rc = ock_report_tally(&d->b, report, "", "");
  put(d, " · ");
  duration(d, ock_json_num(report, "duration_ms", 0));
  put(d, "\n\n");

  if (ock_json_str(report, "error")) {
    putf(d,
         "**The run did not grade the orchestrator** (exit code %lld: usage or fixture error). "
         "Fix this and run again:\n\n> ",
         ock_json_int(report, "exit_code", -1));
    md(d, ock_json_str(report, "error"), 0);
    put(d, "\n\n");
  } else if (ock_json_bool(report, "interrupted", 0)) {
    put(d, "**The run was interrupted** (");
    md(d,
       ock_json_str(report, "interrupt_signal") ? ock_json_str(report, "interrupt_signal")
                                                : "SIGINT",
       0);
    put(d, "): the scenarios it cut short are ERROR (interrupted), not failures of the "
           "orchestrator, and scenarios that had not started are missing. This report is "
           "partial.\n\n");
  } else if (verdict && !strcmp(verdict, "INCOMPLETE")) {
    long long errors = ock_json_int(counts, "ERROR", 0);
    if (errors)
      putf(d,
           "The run is incomplete: %lld scenario%s could not be graded (ERROR), so the run "
           "proves nothing about %s.\n\n",
           errors, errors == 1 ? "" : "s", errors == 1 ? "it" : "them");
    else
      put(d, "The run is incomplete: no scenario ran (none selected, or all skipped).\n\n");
  }

  const cJSON *orch = cJSON_GetObjectItemCaseSensitive(report, "orchestrator");
  const cJSON *opts = cJSON_GetObjectItemCaseSensitive(report, "options");
  const cJSON *kit = cJSON_GetObjectItemCaseSensitive(report, "kit");
  put(d, "Orchestrator ");
  md(d, ock_json_str(orch, "name"), CELL_LIMIT);
  if (ock_json_str(orch, "command")) {
    put(d, " (");
    md(d, ock_json_str(orch, "command"), CELL_LIMIT);
    put(d, ")");
  }
  const cJSON *wire;
  int first_wire = 1;
  cJSON_ArrayForEach(wire, cJSON_GetObjectItemCaseSensitive(orch, "wires")) {
    put(d, first_wire ? " · wires " : ", ");
    md(d, cJSON_IsString(wire) ? wire->valuestring : "?", CELL_LIMIT);
    first_wire = 0;
  }
  if (ock_json_str(orch, "framework")) {
    put(d, " · framework ");
    md(d, ock_json_str(orch, "framework"), CELL_LIMIT);
  }
  const cJSON *emulated = cJSON_GetObjectItemCaseSensitive(orch, "emulated"), *policy;
  int first_policy = 1;
  cJSON_ArrayForEach(policy, emulated) {
    put(d, first_policy ? " · **emulated by the bridge**, not the framework: " : ", ");
    md(d, cJSON_IsString(policy) ? policy->valuestring : "?", CELL_LIMIT);
    first_policy = 0;
  }
  put(d, " · contract ");
  md(d, ock_json_str(report, "contract_version"), 0);
  put(d, " · ");
  md(d, ock_json_str(kit, "name"), 0);
  put(d, " ");
  md(d, ock_json_str(kit, "version"), 0);
  put(d, " · level ");
  md(d, ock_json_str(opts, "level"), 0);
  putf(d, " · strict %s", ock_json_bool(opts, "strict", 0) ? "on" : "off");
  if (ock_json_str(report, "tier")) {
    put(d, " · tier ");
    md(d, ock_json_str(report, "tier"), 0);
  }
  if (ock_json_str(opts, "shard")) {
    put(d, " · shard ");
    md(d, ock_json_str(opts, "shard"), 0);
  }
  putf(d, " · seed %lld · started ", ock_json_int(report, "seed", 0));
  md(d, ock_json_str(report, "started_at"), 0);
  put(d, "\n\n");
}

static void string_list(struct doc *d, const cJSON *array) {
  const cJSON *e;
  int first = 1;
  cJSON_ArrayForEach(e, array) {
    if (!cJSON_IsString(e))
      continue;
    put(d, first ? "" : ", ");
    md(d, e->valuestring, CELL_LIMIT);
    first = 0;
  }
}

/* coverage: under the black-box tier, which requirements a PASS does and does not cover. */
static void coverage(struct doc *d, const cJSON *report) {
  const cJSON *cov = cJSON_GetObjectItemCaseSensitive(report, "blackbox_coverage");
  if (!cov)
    return;
  put(d, "Black-box tier (SPEC.md 9.7): graded from the traffic alone. A PASS covers ");
  string_list(d, cJSON_GetObjectItemCaseSensitive(cov, "graded"));
  put(d, ".\n\nNot covered (they need events; run the instrumented tier): ");
  string_list(d, cJSON_GetObjectItemCaseSensitive(cov, "not_graded"));
  put(d, ".\n\n");
}

static void requirements(struct doc *d, const cJSON *report) {
  const cJSON *r;
  int bad = 0, by[6] = {0}; /* SKIP PASS WARN FAIL ERROR UNTESTED */
  cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(report, "requirements")) {
    int sev = ock_verdict_severity(ock_json_str(r, "verdict"));
    by[sev < 0 ? 5 : sev]++;
  }
  put(d, "### Requirements not met\n\n");
  cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(report, "requirements")) {
    if (ock_verdict_severity(ock_json_str(r, "verdict")) < 2)
      continue;
    if (!bad++)
      put(d, "| Requirement | Level | Verdict | Requirement text | Scenarios | First failure |\n"
             "|---|---|---|---|---|---|\n");
    put(d, "| ");
    md(d, ock_json_str(r, "id"), CELL_LIMIT);
    put(d, " | ");
    md(d, ock_json_str(r, "level"), CELL_LIMIT);
    put(d, " | ");
    md(d, ock_json_str(r, "verdict"), CELL_LIMIT);
    put(d, " | ");
    md(d, ock_json_str(r, "text"), CELL_LIMIT);
    put(d, " | ");
    string_list(d, cJSON_GetObjectItemCaseSensitive(r, "scenarios"));
    put(d, " | ");
    md(d, ock_json_str(r, "message"), CELL_LIMIT);
    put(d, " |\n");
  }
  if (!bad && by[5] == cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(report, "requirements")))
    put(d, "No requirement was tested.\n");
  else if (!bad)
    put(d, "Every requirement that was tested passed or was skipped.\n");
  putf(d, "\nRequirements: %d passed, %d warned, %d failed, %d error, %d skipped, %d untested.\n\n",
       by[1], by[2], by[3], by[4], by[0], by[5]);
}

/* scenario_note: why a scenario did not pass, in one cell. */
static void scenario_note(struct doc *d, const cJSON *s) {
  const char *verdict = ock_json_str(s, "verdict");
  int sev = ock_verdict_severity(verdict);
  if (sev == 1 || sev < 0) /* PASS, or no verdict: nothing to say */
    return;
  if (ock_json_str(s, "skip_reason")) {
    md(d, ock_json_str(s, "skip_reason"), CELL_LIMIT);
    return;
  }
  const cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(s, "checks")) {
    if (ock_verdict_severity(ock_json_str(c, "verdict")) != sev)
      continue;
    const char *m = ock_json_str(c, "message");
    md(d, ock_json_str(c, "id"), CELL_LIMIT);
    put(d, ": ");
    md(d, m && *m ? m : ock_json_str(c, "actual"), CELL_LIMIT);
    return;
  }
  const cJSON *p = cJSON_GetObjectItemCaseSensitive(s, "process");
  if (ock_json_str(p, "signal")) {
    put(d, "killed by ");
    md(d, ock_json_str(p, "signal"), CELL_LIMIT);
  } else if (ock_json_bool(p, "timed_out", 0)) {
    put(d, "timed out");
  }
}

static void scenarios(struct doc *d, const cJSON *report) {
  const cJSON *s, *c;
  put(d, "### Scenarios\n\n");
  if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(report, "scenarios")) == 0) {
    put(d, "No scenario ran.\n");
    return;
  }
  put(d, "| Scenario | Verdict | Time | Checks passed | Note |\n|---|---|---:|---:|---|\n");
  cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(report, "scenarios")) {
    int total = 0, passed = 0;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(s, "checks")) {
      total++;
      passed += ock_verdict_severity(ock_json_str(c, "verdict")) == 1;
    }
    put(d, "| ");
    md(d, ock_json_str(s, "id"), CELL_LIMIT);
    put(d, " | ");
    md(d, ock_json_str(s, "verdict"), CELL_LIMIT);
    if (ock_json_bool(s, "expected_failure", 0))
      put(d, " (expected failure)");
    put(d, " | ");
    duration(d, ock_json_num(s, "duration_ms", 0));
    putf(d, " | %d/%d | ", passed, total);
    scenario_note(d, s);
    put(d, " |\n");
  }
}

static int write_markdown(const cJSON *report, FILE *out) {
  struct doc d = {.rc = OCK_OK};
  ock_buf_init(&d.b, OCK_CAP_REPORT_OUT);
  headline(&d, report);
  coverage(&d, report);
  requirements(&d, report);
  scenarios(&d, report);
  put(&d, "\nDetails: report.html (expected and actual per check, event timelines, process "
          "output).\n");
  int rc = d.rc;
  if (!rc && d.b.len && fwrite(d.b.data, 1, d.b.len, out) != d.b.len)
    rc = OCK_EIO;
  ock_buf_free(&d.b);
  return rc;
}

const struct ock_report_writer ock_report_writer_markdown = {"markdown", "summary.md",
                                                             write_markdown};
