/*
 * report_markdown.c: the "markdown" report writer: summary.md, made to be appended to a CI job
 * summary ($GITHUB_STEP_SUMMARY) or pasted into a pull request.
 *
 * It answers four questions in this order: did the run pass (a headline with the verdict,
 * the exit code and MUST/SHOULD/MAY x/y), what are the first causes (each deviation once, the
 * failing checks it explains, the command that reruns its simplest scenario), which
 * requirements are not met (with their text and the scenarios to re-run), and how each
 * scenario went (verdict as plain text, time, checks).
 * The details (expected, actual, event timelines, process output) are in report.html. Every
 * string goes through ock_escape_markdown, so a SUT string cannot break a table or inject HTML.
 */
#include "report/report.h"
#include "report/render.h"

#include <stdarg.h>
#include <string.h>

#include "report/escape.h"
#include "ock/contract.h"
#include "ock/status.h"

#define CELL_LIMIT 200 /* characters of one free-text table cell */

/* headline: the run's verdict, exit code, MUST/SHOULD/MAY tally and duration. */
static void headline(struct ock_doc *d) {
  const struct ock_report_model *m = d->m;
  const char *verdict = m->verdict ? m->verdict : "?";
  ock_doc_put(d, "## OCK conformance: ");
  ock_doc_md(d, verdict, 0);
  ock_doc_put(d, "\n\n**");
  ock_doc_md(d, verdict, 0);
  ock_doc_putf(d, "** (exit code %lld)", m->exit_code);
  if (!d->rc)
    d->rc = ock_report_tally(&d->b, m->report, "", "");
  ock_doc_put(d, " · ");
  ock_doc_duration(d, ock_json_num(m->report, "duration_ms", 0), 1);
  ock_doc_put(d, "\n\n");
}

/* run_state: why the verdict is not about the orchestrator, when it is not: a run that did not
 * grade, an interrupted run, an incomplete one. */
static void run_state(struct ock_doc *d) {
  const struct ock_report_model *m = d->m;
  if (m->error) {
    ock_doc_putf(d,
                 "**The run did not grade the orchestrator** (exit code %lld: usage or fixture "
                 "error). Fix this and run again:\n\n> ",
                 m->exit_code);
    ock_doc_md(d, m->error, 0);
    ock_doc_put(d, "\n\n");
  } else if (ock_json_bool(m->report, "interrupted", 0)) {
    const char *sig = ock_json_str(m->report, "interrupt_signal");
    ock_doc_put(d, "**The run was interrupted** (");
    ock_doc_md(d, sig ? sig : "SIGINT", 0);
    ock_doc_put(d, "): the scenarios it cut short are ERROR (interrupted), not failures of the "
                   "orchestrator, and scenarios that had not started are missing. This report "
                   "is partial.\n\n");
  } else if (m->verdict && !strcmp(m->verdict, "INCOMPLETE")) {
    const cJSON *counts = cJSON_GetObjectItemCaseSensitive(m->summary, "scenarios");
    long long errors = ock_json_int(counts, OCK_V_ERROR, 0);
    if (errors)
      ock_doc_putf(d,
                   "The run is incomplete: %lld scenario%s could not be graded (ERROR), so the "
                   "run proves nothing about %s.\n\n",
                   errors, errors == 1 ? "" : "s", errors == 1 ? "it" : "them");
    else
      ock_doc_put(d, "The run is incomplete: no scenario ran (none selected, or all skipped).\n\n");
  }
}

/* labelled_list: " · <label>a, b" for the strings of array (anything else shows "?"); nothing
 * when it is empty. */
static void labelled_list(struct ock_doc *d, const char *label, const cJSON *array) {
  const cJSON *e;
  int first = 1;
  cJSON_ArrayForEach(e, array) {
    ock_doc_put(d, first ? label : ", ");
    ock_doc_md(d, cJSON_IsString(e) ? e->valuestring : "?", CELL_LIMIT);
    first = 0;
  }
}

/* labelled: " · <label>value" when value is there. */
static void labelled(struct ock_doc *d, const char *label, const char *value, size_t limit) {
  if (!value)
    return;
  ock_doc_put(d, label);
  ock_doc_md(d, value, limit);
}

/* run_line: what ran and how: the orchestrator, its wires and framework, what the bridge
 * emulates, the contract, the kit and the options. */
static void run_line(struct ock_doc *d) {
  const struct ock_report_model *m = d->m;
  const cJSON *orch = m->orchestrator;
  ock_doc_put(d, "Orchestrator ");
  ock_doc_md(d, ock_json_str(orch, "name"), CELL_LIMIT);
  if (ock_json_str(orch, "command")) {
    ock_doc_put(d, " (");
    ock_doc_md(d, ock_json_str(orch, "command"), CELL_LIMIT);
    ock_doc_put(d, ")");
  }
  labelled_list(d, " · wires ", cJSON_GetObjectItemCaseSensitive(orch, "wires"));
  labelled(d, " · framework ", ock_json_str(orch, "framework"), CELL_LIMIT);
  labelled_list(d, " · **emulated by the bridge**, not the framework: ",
                cJSON_GetObjectItemCaseSensitive(orch, "emulated"));
  ock_doc_put(d, " · contract ");
  ock_doc_md(d, ock_json_str(m->report, "contract_version"), 0);
  ock_doc_put(d, " · ");
  ock_doc_md(d, ock_json_str(m->kit, "name"), 0);
  ock_doc_put(d, " ");
  ock_doc_md(d, ock_json_str(m->kit, "version"), 0);
  ock_doc_put(d, " · level ");
  ock_doc_md(d, ock_json_str(m->options, "level"), 0);
  ock_doc_putf(d, " · strict %s", m->strict ? "on" : "off");
  labelled(d, " · tier ", ock_json_str(m->report, "tier"), 0);
  labelled(d, " · shard ", ock_json_str(m->options, "shard"), 0);
  ock_doc_putf(d, " · seed %lld · started ", ock_json_int(m->report, "seed", 0));
  ock_doc_md(d, ock_json_str(m->report, "started_at"), 0);
  ock_doc_put(d, "\n\n");
}

static void string_list(struct ock_doc *d, const cJSON *array) {
  const cJSON *e;
  int first = 1;
  cJSON_ArrayForEach(e, array) {
    if (!cJSON_IsString(e))
      continue;
    ock_doc_put(d, first ? "" : ", ");
    ock_doc_md(d, e->valuestring, CELL_LIMIT);
    first = 0;
  }
}

/* coverage: under the black-box tier, which requirements a PASS does and does not cover. */
static void coverage(struct ock_doc *d) {
  const cJSON *cov = cJSON_GetObjectItemCaseSensitive(d->m->report, "blackbox_coverage");
  if (!cov)
    return;
  ock_doc_put(d, "Black-box tier (SPEC.md 9.7): graded from the traffic alone. A PASS covers ");
  string_list(d, cJSON_GetObjectItemCaseSensitive(cov, "graded"));
  ock_doc_put(d, ".\n\nNot covered (they need events; run the instrumented tier): ");
  string_list(d, cJSON_GetObjectItemCaseSensitive(cov, "not_graded"));
  ock_doc_put(d, ".\n\n");
}

/* failing_scenarios: the scenarios of r in which one of its checks fails, not every one that
 * claims it. */
static void failing_scenarios(struct ock_doc *d, const cJSON *r) {
  const cJSON *e;
  int first = 1;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(r, "scenarios")) {
    int at = cJSON_IsString(e) ? ock_report_index_of(&d->m->scenario_ids, e->valuestring) : -1;
    if (at < 0 ||
        !ock_report_scenario_fails(cJSON_GetArrayItem(d->m->scenarios, at), ock_json_str(r, "id")))
      continue;
    ock_doc_put(d, first ? "" : ", ");
    ock_doc_md(d, e->valuestring, CELL_LIMIT);
    first = 0;
  }
}

/* requirement_rows: the table of the requirements not met (waived 0) or waived (1). */
static int requirement_rows(struct ock_doc *d, int waived) {
  const cJSON *r;
  int bad = 0;
  cJSON_ArrayForEach(r, d->m->requirements) {
    if (ock_verdict_severity(ock_json_str(r, "verdict")) < 2 ||
        ock_json_bool(r, "waived", 0) != waived)
      continue;
    if (!bad++)
      ock_doc_put(
          d, "| Requirement | Level | Verdict | Requirement text | Scenarios | First failure |\n"
             "|---|---|---|---|---|---|\n");
    ock_doc_put(d, "| ");
    ock_doc_md(d, ock_json_str(r, "id"), CELL_LIMIT);
    ock_doc_put(d, " | ");
    ock_doc_md(d, ock_json_str(r, "level"), CELL_LIMIT);
    ock_doc_put(d, " | ");
    ock_doc_md(d, ock_json_str(r, "verdict"), CELL_LIMIT);
    ock_doc_put(d, " | ");
    ock_doc_md(d, ock_json_str(r, "text"), CELL_LIMIT);
    ock_doc_put(d, " | ");
    failing_scenarios(d, r);
    ock_doc_put(d, " | ");
    ock_doc_md(d, ock_json_str(r, "message"), CELL_LIMIT);
    ock_doc_put(d, " |\n");
  }
  return bad;
}

static void requirements(struct ock_doc *d) {
  const cJSON *r;
  int by[6] = {0}, waived = 0; /* SKIP PASS WARN FAIL ERROR UNTESTED */
  cJSON_ArrayForEach(r, d->m->requirements) {
    int sev = ock_verdict_severity(ock_json_str(r, "verdict"));
    by[sev < 0 ? 5 : sev]++;
    waived += ock_json_bool(r, "waived", 0);
  }
  ock_doc_put(d, "### Requirements not met\n\n");
  int bad = requirement_rows(d, 0);
  if (!bad && waived)
    ock_doc_put(d, "Every requirement that was tested passed, was skipped or was waived.\n");
  else if (!bad && by[5] == cJSON_GetArraySize(d->m->requirements))
    ock_doc_put(d, "No requirement was tested.\n");
  else if (!bad)
    ock_doc_put(d, "Every requirement that was tested passed or was skipped.\n");
  if (waived) {
    ock_doc_put(d, "\n### Waived: failures the expected-failures baseline excused\n\n"
                   "They do not fail the run, and they are not passes.\n\n");
    requirement_rows(d, 1);
  }
  ock_doc_putf(d,
               "\nRequirements: %d passed, %d warned, %d failed, %d error, %d skipped, %d untested",
               by[1], by[2], by[3], by[4], by[0], by[5]);
  if (waived)
    ock_doc_putf(d, " (%d of them waived)", waived);
  ock_doc_put(d, ".\n\n");
}

/* scenario_note: why a scenario did not pass, in one cell. */
static void scenario_note(struct ock_doc *d, const cJSON *s) {
  const char *verdict = ock_json_str(s, "verdict");
  int sev = ock_verdict_severity(verdict);
  const cJSON *c;
  if (sev == 1) { /* a PASS says only what the baseline waived */
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(s, "checks")) {
      if (!ock_json_str(c, "waived"))
        continue;
      ock_doc_put(d, "waived ");
      ock_doc_md(d, ock_json_str(c, "waived"), CELL_LIMIT);
      ock_doc_put(d, ": ");
      ock_doc_md(d, ock_json_str(c, "id"), CELL_LIMIT);
      ock_doc_put(d, ": ");
      ock_doc_md(d, ock_json_str(c, "message"), CELL_LIMIT);
      return;
    }
  }
  if (sev == 1 || sev < 0) /* PASS, or no verdict: nothing to say */
    return;
  if (ock_json_str(s, "skip_reason")) {
    ock_doc_md(d, ock_json_str(s, "skip_reason"), CELL_LIMIT);
    return;
  }
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(s, "checks")) {
    if (ock_verdict_severity(ock_json_str(c, "verdict")) != sev)
      continue;
    const char *m = ock_json_str(c, "message");
    ock_doc_md(d, ock_json_str(c, "id"), CELL_LIMIT);
    ock_doc_put(d, ": ");
    ock_doc_md(d, m && *m ? m : ock_json_str(c, "actual"), CELL_LIMIT);
    return;
  }
  const cJSON *p = cJSON_GetObjectItemCaseSensitive(s, "process");
  if (ock_json_str(p, "signal")) {
    ock_doc_put(d, "killed by ");
    ock_doc_md(d, ock_json_str(p, "signal"), CELL_LIMIT);
  } else if (ock_json_bool(p, "timed_out", 0)) {
    ock_doc_put(d, "timed out");
  }
}

static void scenarios(struct ock_doc *d) {
  const cJSON *s, *c;
  ock_doc_put(d, "### Scenarios\n\n");
  if (cJSON_GetArraySize(d->m->scenarios) == 0) {
    ock_doc_put(d, "No scenario ran.\n");
    return;
  }
  ock_doc_put(d, "| Scenario | Verdict | Time | Checks passed | Note |\n|---|---|---:|---:|---|\n");
  cJSON_ArrayForEach(s, d->m->scenarios) {
    int total = 0, passed = 0;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(s, "checks")) {
      total++;
      passed += ock_verdict_severity(ock_json_str(c, "verdict")) == 1 && !ock_json_str(c, "waived");
    }
    ock_doc_put(d, "| ");
    ock_doc_md(d, ock_json_str(s, "id"), CELL_LIMIT);
    ock_doc_put(d, " | ");
    ock_doc_md(d, ock_json_str(s, "verdict"), CELL_LIMIT);
    if (ock_json_bool(s, "expected_failure", 0))
      ock_doc_put(d, ock_verdict_severity(ock_json_str(s, "verdict")) == 1 ? " (waived)"
                                                                           : " (expected failure)");
    ock_doc_put(d, " | ");
    ock_doc_duration(d, ock_json_num(s, "duration_ms", 0), 1);
    ock_doc_putf(d, " | %d/%d | ", passed, total);
    scenario_note(d, s);
    ock_doc_put(d, " |\n");
  }
}

/* causes: the first causes, before anything else that is not about the run itself. */
static void causes(struct ock_doc *d) {
  const cJSON *causes = cJSON_GetObjectItemCaseSensitive(d->m->report, "causes"), *c, *k;
  int n = cJSON_GetArraySize(causes);
  if (!n)
    return;
  ock_doc_putf(d,
               "### First causes\n\n%d first cause%s: each row is one deviation, with the "
               "failing checks it explains in its scenarios and the command that reruns the "
               "simplest of them.\n\n"
               "| Cause | Level | Verdict | What was seen | Scenarios | Explains | Simplest | "
               "Rerun |\n|---|---|---|---|---:|---|---|---|\n",
               n, n == 1 ? "" : "s");
  cJSON_ArrayForEach(c, causes) {
    const cJSON *simplest = cJSON_GetObjectItemCaseSensitive(c, "simplest");
    ock_doc_put(d, "| ");
    ock_doc_md(d, ock_json_str(c, "id"), CELL_LIMIT);
    ock_doc_put(d, " | ");
    ock_doc_md(d, ock_json_str(c, "level"), CELL_LIMIT);
    ock_doc_put(d, " | ");
    ock_doc_md(d, ock_json_str(c, "verdict"), CELL_LIMIT);
    if (ock_json_bool(c, "expected_failure", 0))
      ock_doc_put(d, " (expected failure)");
    ock_doc_put(d, " | ");
    ock_doc_md(d, ock_json_str(c, "message"), CELL_LIMIT);
    ock_doc_putf(d, " | %d | ",
                 cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(c, "scenarios")));
    int first = 1;
    cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(c, "consequences")) {
      ock_doc_put(d, first ? "" : ", ");
      ock_doc_md(d, ock_json_str(k, "check"), CELL_LIMIT);
      ock_doc_putf(d, " (%lld)", ock_json_int(k, "scenarios", 0));
      first = 0;
    }
    ock_doc_put(d, " | ");
    ock_doc_md(d, ock_json_str(simplest, "scenario"), CELL_LIMIT);
    long long events = ock_json_int(simplest, "events", 0);
    ock_doc_putf(d, " (%lld event%s) | ", events, events == 1 ? "" : "s");
    ock_doc_md(d, ock_json_str(c, "command"), 4 * CELL_LIMIT);
    ock_doc_put(d, " |\n");
  }
  ock_doc_put(d, "\n");
}

static void render_markdown(struct ock_doc *d) {
  headline(d);
  run_state(d);
  causes(d);
  run_line(d);
  coverage(d);
  requirements(d);
  scenarios(d);
  ock_doc_put(d, "\nDetails: report.html (expected and actual per check, event timelines, "
                 "process output).\n");
}

const struct ock_report_writer ock_report_writer_markdown = {"markdown", "summary.md",
                                                             render_markdown};
