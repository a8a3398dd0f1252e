/*
 * report_html.c: the "html" report writer: report.html, one self-contained page for a person.
 *
 * The page has no external resource and no script: inline CSS, inline SVG, and <details> for
 * collapsing, so it can be attached to a CI run and opened anywhere. A Content-Security-Policy
 * meta tag forbids scripts as a second line of defence; the first is that every string from
 * the report goes through ock_escape_xml, in text, in attributes and in SVG <text>/<title>.
 *
 * Layout, failures first: a headline (run verdict, exit code, MUST/SHOULD/MAY x/y, and why a
 * run did not grade when it did not), then the first causes (causes.h: each deviation once,
 * the checks it explains, the command that reruns its simplest scenario, and that scenario's
 * sequence diagram), then the failing checks (scenario, requirement, check,
 * cause) with a crashed SUT's exit status and stderr tail, so the first screen says what broke;
 * then the run's metadata, the requirement matrix (groups x verdicts, then every requirement
 * with its verdict, text, first failure and links to its scenarios), then one collapsible
 * section per scenario (open when it failed or errored) with its checks (expected vs actual), a
 * sequence diagram of its timeline and the SUT process's exit and output. Anchors use indexes
 * (#req-3, #sc-7), never report strings, so an id cannot break out of an attribute or collide.
 */
#include "report/report.h"
#include "report/render.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report/escape.h"
#include "ock/contract.h"
#include "ock/status.h"
#include "model/outcome.h"

/* verdict_class: a CSS class suffix for a verdict; never a report string. */
static const char *verdict_class(const char *v) {
  static const char *const known[] = {OCK_V_PASS,  OCK_V_FAIL, OCK_V_WARN,   OCK_V_SKIP,
                                      OCK_V_ERROR, "UNTESTED", "INCOMPLETE", NULL};
  for (int i = 0; v && known[i]; i++)
    if (!strcmp(v, known[i]))
      return known[i];
  return "UNKNOWN";
}

static void badge(struct ock_doc *d, const char *verdict) {
  ock_doc_putf(d, "<span class=\"v v-%s\">", verdict_class(verdict));
  ock_doc_text(d, verdict ? verdict : "?");
  ock_doc_put(d, "</span>");
}

static const char style[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0;"
    "color:#1f2328;background:#fff}\n"
    "header{padding:16px 24px;border-bottom:1px solid #d0d7de;background:#f6f8fa}\n"
    "main{padding:8px 24px 48px}h1{margin:0 0 8px;font-size:22px}h2{margin:28px 0 8px;"
    "font-size:18px;border-bottom:1px solid #d0d7de}h3{font-size:15px;margin:16px 0 6px}"
    "h4{margin:14px 0 6px;font-size:14px}\n"
    ".headline{font-size:16px;margin:4px 0}.note{color:#57606a}.msg{color:#a40e26;"
    "font-size:13px;margin-top:2px}\n"
    ".v{display:inline-block;padding:0 8px;border-radius:10px;font-weight:600;font-size:12px;"
    "line-height:20px;white-space:nowrap}\n"
    ".v-PASS{background:#dafbe1;color:#116329}.v-FAIL{background:#ffebe9;color:#a40e26}"
    ".v-WARN{background:#fff8c5;color:#7d4e00}.v-SKIP{background:#eaeef2;color:#57606a}"
    ".v-ERROR{background:#a40e26;color:#fff}.v-UNTESTED{background:#fff;color:#57606a;"
    "border:1px dashed #8c959f}.v-INCOMPLETE{background:#fff1e5;color:#953800}"
    ".v-UNKNOWN{background:#000;color:#fff}\n"
    "h1 .v{font-size:16px;line-height:26px;padding:0 12px}\n"
    "table{border-collapse:collapse;margin:6px 0}th,td{border:1px solid #d0d7de;padding:3px 8px;"
    "text-align:left;vertical-align:top}th{background:#f6f8fa;font-weight:600}\n"
    "table.meta td,table.meta th{border:none;padding:1px 12px 1px 0}table.meta td.mono{"
    "word-break:break-all}td.n{text-align:right}\n"
    "td.c-PASS{background:#dafbe1}td.c-FAIL{background:#ffebe9}td.c-WARN{background:#fff8c5}"
    "td.c-SKIP{background:#eaeef2}td.c-ERROR{background:#ffcecb}td.c-UNTESTED{background:#fff}\n"
    "tr.r-FAIL td,tr.r-ERROR td{background:#fff5f5}tr.r-WARN td{background:#fffbe6}\n"
    "a.sc{display:inline-block;margin:1px 4px 1px 0;padding:0 6px;border-radius:8px;"
    "font-size:12px;text-decoration:none;color:#1f2328}a.sc.v-ERROR{color:#fff}\n"
    "details.sc{border:1px solid #d0d7de;border-radius:6px;margin:8px 0}"
    "details.sc>summary{cursor:pointer;padding:6px 12px;font-weight:600;background:#f6f8fa}"
    "details.sc>div{padding:0 12px 12px}\n"
    "pre{background:#f6f8fa;border:1px solid #d0d7de;padding:8px;margin:4px 0;overflow:auto;"
    "max-height:24em;white-space:pre-wrap;word-break:break-all;font-size:12px}\n"
    "code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}"
    "\n.diagram{overflow-x:auto}svg.seq{max-width:100%;height:auto}"
    "svg.seq text{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;fill:#1f2328}"
    "svg.seq text.t,svg.seq text.d{fill:#57606a}svg.seq g.bad text{fill:#a40e26}"
    "svg.seq text.h{font-weight:600}\n"
    "footer{color:#57606a;font-size:12px;margin-top:32px}\n"
    ".runerr{border:2px solid #cf222e;background:#ffebe9;border-radius:6px;padding:8px 12px;"
    "margin:8px 0}.runerr pre{background:#fff;max-height:12em}\n"
    "table.fails td{font-size:13px}tr.crash td{background:#ffebe9}pre.tail{max-height:12em;"
    "margin:4px 0 2px}\n";

static void meta_row(struct ock_doc *d, const char *name, const char *value) {
  if (!value)
    return;
  ock_doc_putf(d, "<tr><th>%s</th><td>", name);
  ock_doc_text(d, value);
  ock_doc_put(d, "</td></tr>\n");
}

static void string_list(struct ock_doc *d, const cJSON *array, const char *sep) {
  const cJSON *e;
  int first = 1;
  cJSON_ArrayForEach(e, array) {
    if (!cJSON_IsString(e))
      continue;
    ock_doc_put(d, first ? "" : sep);
    ock_doc_text(d, e->valuestring);
    first = 0;
  }
}

/* run_error: a run that ended before grading (a usage or fixture error, exit 2, or a command
 * that was not found) says so first, with the reason, so nobody reads its empty or all-ERROR
 * tables as a verdict on the orchestrator. */
static void run_error(struct ock_doc *d) {
  const char *why = d->m->error;
  if (!why)
    return;
  ock_doc_putf(
      d,
      "<div class=\"runerr\" id=\"run-error\"><b>The run did not grade the orchestrator</b> "
      "(exit code %lld: usage or fixture error). Fix this and run again:\n<pre>",
      d->m->exit_code);
  ock_doc_text(d, why);
  ock_doc_put(d, "</pre></div>\n");
}

static void header(struct ock_doc *d) {
  const cJSON *r = d->m->report;
  const char *verdict = ock_json_str(r, "verdict");
  const cJSON *summary = cJSON_GetObjectItemCaseSensitive(r, "summary");
  const cJSON *counts = cJSON_GetObjectItemCaseSensitive(summary, "scenarios");

  ock_doc_put(d, "<header>\n<h1>OCK conformance report ");
  badge(d, verdict);
  ock_doc_put(d, "</h1>\n<p class=\"headline\">");
  ock_doc_putf(d, "exit code %lld", ock_json_int(r, "exit_code", -1));
  if (!d->rc)
    d->rc = ock_report_tally(&d->b, r, "<b>", "</b>");
  ock_doc_put(d, " · ");
  ock_doc_duration(d, ock_json_num(r, "duration_ms", 0), 2);
  ock_doc_put(d, "</p>\n");
  if (ock_json_bool(r, "interrupted", 0)) {
    ock_doc_put(d, "<p class=\"note\">The run was interrupted (");
    ock_doc_text(d, ock_json_str(r, "interrupt_signal") ? ock_json_str(r, "interrupt_signal")
                                                        : "SIGINT");
    ock_doc_put(d, "): the scenarios it cut short are ERROR (interrupted), not failures of the "
                   "orchestrator, and scenarios that had not started are missing. This report is "
                   "partial.</p>\n");
  } else if (verdict && !strcmp(verdict, "INCOMPLETE") && !ock_json_str(r, "error")) {
    long long errors = ock_json_int(counts, OCK_V_ERROR, 0);
    if (errors)
      ock_doc_putf(d,
                   "<p class=\"note\">Incomplete: %lld scenario%s could not be graded (ERROR); the "
                   "run proves nothing about %s.</p>\n",
                   errors, errors == 1 ? "" : "s", errors == 1 ? "it" : "them");
    else
      ock_doc_put(d, "<p class=\"note\">Incomplete: no scenario ran (none selected, or all "
                     "skipped).</p>\n");
  }

  run_error(d);
  ock_doc_put(d, "</header>\n");
}

/* run_meta: the run's metadata (who, what, when, how), below the failures. */
static void run_meta(struct ock_doc *d) {
  const cJSON *r = d->m->report;
  const cJSON *orch = cJSON_GetObjectItemCaseSensitive(r, "orchestrator");
  const cJSON *kit = cJSON_GetObjectItemCaseSensitive(r, "kit");
  ock_doc_put(d, "<section id=\"run\">\n<h2>Run</h2>\n<table class=\"meta\">\n");
  meta_row(d, "Orchestrator", ock_json_str(orch, "name"));
  meta_row(d, "Command", ock_json_str(orch, "command"));
  ock_doc_put(d, "<tr><th>Capabilities</th><td>");
  string_list(d, cJSON_GetObjectItemCaseSensitive(orch, "capabilities"), ", ");
  if (cJSON_GetObjectItemCaseSensitive(orch, "wires")) {
    ock_doc_put(d, "</td></tr>\n<tr><th>Wires</th><td>");
    string_list(d, cJSON_GetObjectItemCaseSensitive(orch, "wires"), ", ");
  }
  if (ock_json_str(orch, "framework")) {
    ock_doc_put(d, "</td></tr>\n<tr><th>Framework</th><td>");
    ock_doc_text(d, ock_json_str(orch, "framework"));
  }
  const cJSON *emulated = cJSON_GetObjectItemCaseSensitive(orch, "emulated");
  if (emulated) {
    ock_doc_put(d, "</td></tr>\n<tr><th>Emulated by the bridge</th><td>");
    if (cJSON_GetArraySize(emulated) > 0)
      string_list(d, emulated, ", ");
    else
      ock_doc_put(d, "nothing: every policy graded is the framework's own");
  }
  ock_doc_put(d, "</td></tr>\n<tr><th>Kit</th><td>");
  ock_doc_text(d, ock_json_str(kit, "name"));
  ock_doc_put(d, " ");
  ock_doc_text(d, ock_json_str(kit, "version"));
  ock_doc_put(d, "</td></tr>\n");
  if (ock_json_str(r, "tier"))
    meta_row(d, "Tier",
             !strcmp(ock_json_str(r, "tier"), "blackbox")
                 ? "blackbox: graded from the traffic; a PASS covers only the "
                   "requirements listed under blackbox_coverage in report.json"
                 : ock_json_str(r, "tier"));
  meta_row(d, "Contract", ock_json_str(r, "contract_version"));
  meta_row(d, "Started", ock_json_str(r, "started_at"));
  meta_row(d, "Finished", ock_json_str(r, "finished_at"));
  ock_doc_putf(d, "<tr><th>Seed</th><td>%lld</td></tr>\n", ock_json_int(r, "seed", 0));
  char *opts = ock_json_print(cJSON_GetObjectItemCaseSensitive(r, "options"));
  if (opts) {
    ock_doc_put(d, "<tr><th>Options</th><td class=\"mono\">");
    ock_doc_text(d, opts);
    ock_doc_put(d, "</td></tr>\n");
    free(opts);
  }
  ock_doc_put(d, "</table>\n</section>\n");
}

static const char *const req_verdicts[] = {OCK_V_PASS, OCK_V_FAIL,  OCK_V_WARN,
                                           OCK_V_SKIP, OCK_V_ERROR, "UNTESTED"};

/* group_matrix: requirement groups x verdicts, counts. */
static void group_matrix(struct ock_doc *d, const cJSON *reqs) {
  ock_doc_put(d, "<h3>By group</h3>\n<table>\n<tr><th>Group</th>");
  for (int v = 0; v < 6; v++)
    ock_doc_putf(d, "<th>%s</th>", req_verdicts[v]);
  ock_doc_put(d, "</tr>\n");
  const cJSON *r, *q;
  int i = 0;
  cJSON_ArrayForEach(r, reqs) {
    const char *g = ock_json_str(r, "group");
    int seen = 0, j = 0;
    cJSON_ArrayForEach(q, reqs) { /* each group once, where it first appears */
      if (j++ >= i)
        break;
      const char *qg = ock_json_str(q, "group");
      seen |= g && qg && !strcmp(g, qg);
    }
    i++;
    if (seen || !g)
      continue;
    int by[6] = {0};
    cJSON_ArrayForEach(q, reqs) {
      const char *qg = ock_json_str(q, "group");
      if (!qg || strcmp(qg, g))
        continue;
      const char *v = ock_json_str(q, "verdict");
      for (int k = 0; k < 6; k++)
        by[k] += v && !strcmp(v, req_verdicts[k]);
    }
    ock_doc_put(d, "<tr><td>");
    ock_doc_text(d, g);
    ock_doc_put(d, "</td>");
    for (int k = 0; k < 6; k++) {
      if (by[k])
        ock_doc_putf(d, "<td class=\"n c-%s\">%d</td>", req_verdicts[k], by[k]);
      else
        ock_doc_put(d, "<td class=\"n\"></td>");
    }
    ock_doc_put(d, "</tr>\n");
  }
  ock_doc_put(d, "</table>\n");
}

static void scenario_link(struct ock_doc *d, const char *id) {
  const cJSON *scenarios = d->m->scenarios;
  int i = ock_report_index_of(&d->m->scenario_ids, id);
  if (i < 0) {
    ock_doc_text(d, id);
    return;
  }
  const char *v = ock_json_str(cJSON_GetArrayItem(scenarios, i), "verdict");
  ock_doc_putf(d, "<a class=\"sc v-%s\" href=\"#sc-%d\">", verdict_class(v), i);
  ock_doc_text(d, id);
  ock_doc_put(d, "</a>");
}

static void requirements(struct ock_doc *d) {
  const cJSON *reqs = d->m->requirements, *r, *s;
  ock_doc_put(d, "<section id=\"requirements\">\n<h2>Requirements</h2>\n");
  if (cJSON_GetArraySize(reqs) == 0) {
    ock_doc_put(d, "<p class=\"note\">The report lists no requirement.</p>\n</section>\n");
    return;
  }
  group_matrix(d, reqs);
  ock_doc_put(d, "<h3>Every requirement</h3>\n<table class=\"reqs\">\n<tr><th>Requirement</th>"
                 "<th>Level</th><th>Capability</th><th>Verdict</th><th>Text</th><th>Scenarios</th>"
                 "</tr>\n");
  int i = 0;
  cJSON_ArrayForEach(r, reqs) {
    const char *v = ock_json_str(r, "verdict");
    ock_doc_putf(d, "<tr id=\"req-%d\" class=\"r-%s\"><td class=\"mono\">", i++, verdict_class(v));
    ock_doc_text(d, ock_json_str(r, "id"));
    ock_doc_put(d, "</td><td>");
    ock_doc_text(d, ock_json_str(r, "level"));
    ock_doc_put(d, "</td><td>");
    ock_doc_text(d, ock_json_str(r, "capability"));
    ock_doc_put(d, "</td><td>");
    badge(d, v);
    ock_doc_put(d, "</td><td>");
    ock_doc_text(d, ock_json_str(r, "text"));
    if (ock_json_str(r, "message")) {
      ock_doc_put(d, "<div class=\"msg\">");
      ock_doc_text(d, ock_json_str(r, "message"));
      ock_doc_put(d, "</div>");
    }
    ock_doc_put(d, "</td><td>");
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(r, "scenarios")) {
      if (cJSON_IsString(s))
        scenario_link(d, s->valuestring);
    }
    ock_doc_put(d, "</td></tr>\n");
  }
  ock_doc_put(d, "</table>\n</section>\n");
}

/* ---- failures first ---- */

#define FAILS_MAX 40    /* failing checks listed above the matrix; every one is also below */
#define CAUSE_CHARS 240 /* characters of a cause in that list; the whole is in its title */
#define TAILS_MAX 3     /* crashed scenarios whose stderr tail the list shows */
#define TAIL_LINES 8    /* the lines of that tail, at most TAIL_BYTES bytes */
#define TAIL_BYTES 1200

/* utf8_chars: the code points in s, as ock_escape_xml counts them for its limit. */
static size_t utf8_chars(const char *s) {
  size_t n = 0;
  for (; s && *s; s++)
    n += ((unsigned char)*s & 0xC0) != 0x80;
  return n;
}

/* cut_text: s, cut at limit characters; a cut string keeps its whole text in a title
 * attribute, so nothing is lost to a person who points at it. */
static void cut_text(struct ock_doc *d, const char *s, size_t limit) {
  if (utf8_chars(s) <= limit) {
    ock_doc_text(d, s);
    return;
  }
  ock_doc_put(d, "<span title=\"");
  ock_doc_xml(d, s, 0, OCK_ESC_ATTR);
  ock_doc_put(d, "\">");
  ock_doc_xml(d, s, limit, OCK_ESC_TEXT);
  ock_doc_put(d, "</span>");
}

/* ended_badly: the SUT process did not end on its own with exit code 0: a signal, a non-zero
 * exit code (127: the shell did not find the command) or the harness's timeout. */
static int ended_badly(const cJSON *p) {
  const cJSON *code = cJSON_GetObjectItemCaseSensitive(p, "exit_code");
  return cJSON_IsObject(p) && (ock_json_str(p, "signal") || ock_json_bool(p, "timed_out", 0) ||
                               (cJSON_IsNumber(code) && code->valuedouble != 0));
}

/* exit_status: how the SUT process ended, in words. */
static void exit_status(struct ock_doc *d, const cJSON *p) {
  const cJSON *code = cJSON_GetObjectItemCaseSensitive(p, "exit_code");
  if (ock_json_str(p, "signal")) {
    ock_doc_put(d, "killed by ");
    ock_doc_text(d, ock_json_str(p, "signal"));
  } else if (cJSON_IsNumber(code)) {
    long long c = (long long)code->valuedouble;
    ock_doc_putf(d, "exit code %lld", c);
    if (c == 127)
      ock_doc_put(d, " (the shell did not find the command)");
    else if (c == 126)
      ock_doc_put(d, " (the shell could not execute the command)");
    else if (c > 128 && c < 128 + 65)
      ock_doc_putf(d, " (128 + %lld: a process under the shell was killed by %s)", c - 128,
                   ock__sut_signal_name((int)(c - 128)));
  } else {
    ock_doc_put(d, "no exit status");
  }
  if (ock_json_bool(p, "timed_out", 0))
    ock_doc_put(d, " · timed out");
}

/* stderr_tail: the last lines of the SUT's stderr, where a crash says why. */
static void stderr_tail(struct ock_doc *d, const cJSON *p) {
  const char *err = ock_json_str(p, "stderr");
  size_t len = err ? strlen(err) : 0;
  while (len && (err[len - 1] == '\n' || err[len - 1] == '\r'))
    len--;
  if (!len) {
    ock_doc_put(d, "<div class=\"note\">stderr was empty.</div>");
    return;
  }
  size_t start = len > TAIL_BYTES ? len - TAIL_BYTES : 0;
  int lines = 0;
  for (size_t i = len; i > start; i--)
    if (err[i - 1] == '\n' && ++lines == TAIL_LINES) {
      start = i;
      break;
    }
  while (start < len && ((unsigned char)err[start] & 0xC0) == 0x80)
    start++; /* never begin inside a character */
  char *tail = strndup(err + start, len - start);
  if (!tail) {
    d->rc = d->rc ? d->rc : OCK_ENOMEM;
    return;
  }
  long long total = ock_json_int(p, "stderr_bytes", (long long)strlen(err));
  ock_doc_putf(d,
               "<div class=\"note\">%s of stderr (%lld bytes in all%s):</div><pre class=\"tail\">",
               start ? "the end" : "all", total,
               total > (long long)strlen(err) ? "; the report keeps the first part" : "");
  ock_doc_text(d, tail);
  ock_doc_put(d, "</pre>");
  free(tail);
}

/* failure_row: one failing check (or, with check NULL, a scenario that failed without one). */
static void failure_row(struct ock_doc *d, const cJSON *s, const cJSON *check) {
  const char *v = ock_json_str(check ? check : s, "verdict");
  if (check && ock_json_str(check, "waived")) /* shown as the failure it was */
    v = ock_json_str(check, "waived");
  const cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(s, "requirements"), 0);
  const char *rid = check                   ? ock_json_str(check, "requirement")
                    : cJSON_IsString(first) ? first->valuestring
                                            : NULL;
  ock_doc_putf(d, "<tr class=\"r-%s\"><td>", verdict_class(v));
  scenario_link(d, ock_json_str(s, "id"));
  ock_doc_put(d, "</td><td class=\"mono\">");
  int ri = ock_report_index_of(&d->m->requirement_ids, rid);
  if (ri >= 0)
    ock_doc_putf(d, "<a href=\"#req-%d\">", ri);
  ock_doc_text(d, rid);
  ock_doc_put(d, ri >= 0 ? "</a>" : "");
  ock_doc_put(d, "</td><td class=\"mono\">");
  ock_doc_text(d, check ? ock_json_str(check, "id") : "(scenario)");
  ock_doc_put(d, "</td><td>");
  badge(d, v);
  ock_doc_put(d, "</td><td>");
  const char *cause = NULL;
  if (check) {
    cause = ock_json_str(check, "message");
    if (!cause || !*cause)
      cause = ock_json_str(check, "actual");
  } else {
    cause = ock_json_str(s, "skip_reason");
  }
  if (cause && *cause)
    cut_text(d, cause, CAUSE_CHARS);
  else
    ock_doc_put(d, check ? "(no message)" : "the scenario could not be graded");
  ock_doc_put(d, "</td></tr>\n");
}

/* failures: above everything else, what failed and why: every FAIL and ERROR check (and WARN
 * under --strict) with its scenario, requirement and cause, and for a SUT that crashed, its
 * exit status and the end of its stderr. */
/* The failures list as it is being written. */
struct fail_list {
  int floor; /* the least severe check verdict listed */
  int rows;  /* rows written (at most FAILS_MAX) */
  int tails; /* stderr tails shown (at most TAILS_MAX) */
  int left;  /* failing checks past FAILS_MAX, not listed */
};

/* failing_scenario: the rows of one failed or errored scenario: how its SUT process ended when
 * it ended badly, then each failing check (or the scenario itself when none failed). */
static void failing_scenario(struct ock_doc *d, const cJSON *s, struct fail_list *f) {
  const cJSON *p = cJSON_GetObjectItemCaseSensitive(s, "process"), *c;
  int listed = 0;
  if (f->rows < FAILS_MAX && ended_badly(p)) {
    ock_doc_put(d, "<tr class=\"crash\"><td>");
    scenario_link(d, ock_json_str(s, "id"));
    ock_doc_put(d, "</td><td colspan=\"4\"><b>SUT process: ");
    exit_status(d, p);
    ock_doc_put(d, "</b>");
    if (f->tails++ < TAILS_MAX)
      stderr_tail(d, p);
    ock_doc_put(d, "</td></tr>\n");
  }
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(s, "checks")) {
    if (ock_verdict_severity(ock_json_str(c, "verdict")) < f->floor)
      continue;
    listed++;
    if (f->rows < FAILS_MAX) {
      failure_row(d, s, c);
      f->rows++;
    } else {
      f->left++;
    }
  }
  if (!listed && f->rows < FAILS_MAX) {
    failure_row(d, s, NULL);
    f->rows++;
  }
}

static void failures(struct ock_doc *d) {
  const cJSON *scen = d->m->scenarios, *s, *c;
  struct fail_list f = {.floor = d->m->strict ? 2 : 3};
  int checks = 0, in = 0;
  cJSON_ArrayForEach(s, scen) {
    if (ock_verdict_severity(ock_json_str(s, "verdict")) < 3)
      continue;
    in++;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(s, "checks")) {
      checks += ock_verdict_severity(ock_json_str(c, "verdict")) >= f.floor;
    }
  }
  ock_doc_put(d, "<section id=\"failures\">\n<h2>Failures</h2>\n");
  if (!in) {
    ock_doc_put(
        d, !cJSON_GetArraySize(scen) ? "<p class=\"note\">No scenario ran.</p>\n"
           : ock_json_int(cJSON_GetObjectItemCaseSensitive(d->m->summary, "scenarios"), "waived", 0)
               ? "<p class=\"note\">No scenario failed or errored but for the failures "
                 "waived below.</p>\n"
               : "<p class=\"note\">No scenario failed or errored.</p>\n");
    ock_doc_put(d, "</section>\n");
    return;
  }
  ock_doc_putf(d,
               "<p class=\"note\">%d failing check%s in %d scenario%s; the details are under "
               "<a href=\"#scenarios\">Scenarios</a>.</p>\n",
               checks, checks == 1 ? "" : "s", in, in == 1 ? "" : "s");
  ock_doc_put(d, "<table class=\"fails\">\n<tr><th>Scenario</th><th>Requirement</th><th>Check</th>"
                 "<th>Verdict</th><th>Cause</th></tr>\n");
  cJSON_ArrayForEach(s, scen) {
    if (ock_verdict_severity(ock_json_str(s, "verdict")) >= 3)
      failing_scenario(d, s, &f);
  }
  ock_doc_put(d, "</table>\n");
  if (f.left)
    ock_doc_putf(
        d,
        "<p class=\"note\">… and %d more failing check%s, listed under "
        "<a href=\"#requirements\">Requirements</a> and <a href=\"#scenarios\">Scenarios</a>."
        "</p>\n",
        f.left, f.left == 1 ? "" : "s");
  ock_doc_put(d, "</section>\n");
}

/* waived: on the first screen too, the failures the expected-failures baseline excused: they
 * pass the run, and they are not passes. */
static void waived(struct ock_doc *d) {
  const cJSON *s, *c;
  int n = 0, rows = 0;
  cJSON_ArrayForEach(s, d->m->scenarios) {
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(s, "checks")) {
      n += ock_json_str(c, "waived") != NULL;
    }
  }
  if (!n)
    return;
  ock_doc_putf(d,
               "<section id=\"waived\">\n<h2>Waived</h2>\n<p class=\"note\">%d failing check%s "
               "waived by the expected-failures baseline: they do not fail the run, and they are "
               "not counted as passes.</p>\n",
               n, n == 1 ? "" : "s");
  ock_doc_put(d, "<table class=\"fails\">\n<tr><th>Scenario</th><th>Requirement</th><th>Check</th>"
                 "<th>Verdict</th><th>Cause</th></tr>\n");
  cJSON_ArrayForEach(s, d->m->scenarios) {
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(s, "checks")) {
      if (ock_json_str(c, "waived") && rows++ < FAILS_MAX)
        failure_row(d, s, c);
    }
  }
  ock_doc_put(d, "</table>\n");
  if (rows > FAILS_MAX)
    ock_doc_putf(d,
                 "<p class=\"note\">… and %d more, under <a href=\"#scenarios\">Scenarios</a>."
                 "</p>\n",
                 rows - FAILS_MAX);
  ock_doc_put(d, "</section>\n");
}

/* ---- the sequence diagram ---- */

#define LANES 5
#define TIME_W 130   /* the "#seq t" column */
#define LANE_W 170   /* one lane */
#define DETAIL_X 995 /* the detail column */
#define SVG_W 1320
#define HEAD_H 34
#define ROW_H 22
#define MAX_ROWS 400   /* a streamed reply can have thousands of entries; the rest is in JSON */
#define LABEL_CHARS 48 /* at most, and never more than fit before the detail column */
#define CHAR_W10 73    /* tenths of a pixel: the advance of one 12px monospace character */
#define LABEL_GAP 8    /* pixels kept free before the detail column */
#define DETAIL_CHARS 44

static const char *const lane_names[LANES] = {"harness", "sut", "llm", "tool", "fault"};
static const char *const lane_titles[LANES] = {"harness", "SUT", "LLM (mock)", "tools", "faults"};
static const char *const lane_colors[LANES] = {"#8250df", "#0969da", "#1a7f37", "#9a6700",
                                               "#bc4c00"};
#define FAILED_COLOR "#cf222e"

static int lane_x(int k) {
  return TIME_W + LANE_W * k + LANE_W / 2;
}

static int lane_of(const char *lane) {
  for (int k = 0; lane && k < LANES; k++)
    if (!strcmp(lane, lane_names[k]))
      return k;
  return -1;
}

/* is_reply: a row that answers the SUT (the mock's reply to a request, a tool's result): its
 * arrow points back to the SUT. The harness writes these label prefixes (scenario_run.c); the
 * names after them may come from the SUT. */
static int is_reply(int k, const char *label) {
  return label &&
         ((k == 2 && !strncmp(label, "reply", 5)) || (k == 3 && !strncmp(label, "tool done", 9)));
}

/* label_budget: how many characters of a label starting at x fit before the detail column. */
static size_t label_budget(int x) {
  int room = DETAIL_X - LABEL_GAP - x;
  size_t n = room > 0 ? (size_t)(room * 10 / CHAR_W10) : 1;
  return n < LABEL_CHARS ? (n ? n : 1) : LABEL_CHARS;
}

/* row_title: the row's whole label and detail as its tooltip: what the row shows may be cut. */
static void row_title(struct ock_doc *d, const cJSON *e, int failed) {
  const char *detail = ock_json_str(e, "detail");
  ock_doc_putf(d, "<title>#%lld %.1f ms · ", ock_json_int(e, "seq", 0), ock_json_num(e, "t_ms", 0));
  ock_doc_xml(d, ock_json_str(e, "lane"), 0, OCK_ESC_ONELINE);
  ock_doc_put(d, " · ");
  ock_doc_xml(d, ock_json_str(e, "label"), 0, OCK_ESC_ONELINE);
  if (detail) {
    ock_doc_put(d, " · ");
    ock_doc_xml(d, detail, 2000, OCK_ESC_ONELINE);
  }
  if (failed)
    ock_doc_put(d, " · FAILED");
  ock_doc_put(d, "</title>");
}

/* row_marks draws the row's arrow and its point on lane k at (x, y), and moves the label's
 * place (*label_x, *label_y) above the arrow when there is one. An arrow shows who acts on
 * whom: the SUT calls the LLM and the tools, and their replies come back to it; the harness
 * acts on the SUT. SUT events and injected faults are points on their own lane. */
static void row_marks(struct ock_doc *d, int k, int known, const char *label, int y,
                      const char *color, int *label_x, int *label_y) {
  int x = lane_x(k), from = -1, to = -1;
  if (known && (k == 2 || k == 3)) {
    from = is_reply(k, label) ? x : lane_x(1);
    to = is_reply(k, label) ? lane_x(1) : x;
  } else if (k == 0) {
    from = x;
    to = lane_x(1);
  }
  if (from >= 0) {
    int dir = to > from ? 1 : -1;
    ock_doc_putf(
        d,
        "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"1.5\"/>"
        "<polygon points=\"%d,%d %d,%d %d,%d\" fill=\"%s\"/>",
        from, y, to - 7 * dir, y, color, to - dir, y, to - 8 * dir, y - 4, to - 8 * dir, y + 4,
        color);
    *label_x = (from < to ? from : to) + 10;
    *label_y = y - 4;
  }
  if (k == 4)
    ock_doc_putf(d, "<polygon points=\"%d,%d %d,%d %d,%d %d,%d\" fill=\"%s\"/>", x, y - 6, x + 6, y,
                 x, y + 6, x - 6, y, color);
  else
    ock_doc_putf(d, "<circle cx=\"%d\" cy=\"%d\" r=\"4.5\" fill=\"%s\"/>", x, y, color);
}

/* row_label: the label at (x, y), cut to what fits before the detail column; an unknown lane
 * is named in it. The budget keeps a label out of the detail column in the usual fonts; the
 * clip keeps it out whatever the glyphs' width (wide characters, a fallback font). */
static void row_label(struct ock_doc *d, const cJSON *e, int known, int x, int y, int diagram) {
  const char *lane = ock_json_str(e, "lane"), *label = ock_json_str(e, "label");
  size_t budget = label_budget(x);
  ock_doc_putf(d, "<text x=\"%d\" y=\"%d\" clip-path=\"url(#lc-%d)\">", x, y, diagram);
  if (!known) {
    size_t prefix = (utf8_chars(lane) > 12 ? 13 : utf8_chars(lane)) + 3; /* "[lane] " */
    ock_doc_put(d, "[");
    ock_doc_xml(d, lane, 12, OCK_ESC_ONELINE);
    ock_doc_put(d, "] ");
    budget = budget > prefix ? budget - prefix : 1;
  }
  /* A cut label ends in "…", which takes one of the budget's characters. */
  ock_doc_xml(d, label,
              utf8_chars(label) <= budget ? 0
              : budget > 1                ? budget - 1
                                          : 1,
              OCK_ESC_ONELINE);
  ock_doc_put(d, "</text>");
}

static void timeline_row(struct ock_doc *d, const cJSON *e, int row, int diagram) {
  const char *detail = ock_json_str(e, "detail");
  int k = lane_of(ock_json_str(e, "lane")), failed = ock_json_bool(e, "failed", 0);
  int known = k >= 0;
  k = known ? k : 0; /* an unknown lane is drawn on the harness lane, named in the label */
  int y = HEAD_H + 16 + row * ROW_H;
  const char *color = failed ? FAILED_COLOR : lane_colors[k];
  ock_doc_put(d, failed ? "<g class=\"bad\">" : "<g>");
  row_title(d, e, failed);
  if (failed)
    ock_doc_putf(d, "<rect x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#ffebe9\"/>",
                 y - ROW_H / 2, SVG_W, ROW_H);
  ock_doc_putf(d, "<text class=\"t\" x=\"4\" y=\"%d\">#%lld %.1f ms</text>", y + 4,
               ock_json_int(e, "seq", 0), ock_json_num(e, "t_ms", 0));
  int label_x = lane_x(k) + 9, label_y = y + 4;
  row_marks(d, k, known, ock_json_str(e, "label"), y, color, &label_x, &label_y);
  row_label(d, e, known, label_x, label_y, diagram);
  if (detail) {
    ock_doc_putf(d, "<text class=\"d\" x=\"%d\" y=\"%d\">", DETAIL_X, y + 4);
    ock_doc_xml(d, detail, DETAIL_CHARS, OCK_ESC_ONELINE);
    ock_doc_put(d, "</text>");
  }
  ock_doc_put(d, "</g>\n");
}

static void sequence_diagram(struct ock_doc *d, const cJSON *scenario, int diagram) {
  const cJSON *timeline = cJSON_GetObjectItemCaseSensitive(scenario, "timeline"), *e;
  int n = cJSON_GetArraySize(timeline);
  ock_doc_put(d, "<h4>Sequence</h4>\n");
  if (n == 0) {
    ock_doc_put(d, "<p class=\"note\">No timeline was recorded.</p>\n");
    return;
  }
  int rows = n > MAX_ROWS ? MAX_ROWS : n;
  int height = HEAD_H + 16 + rows * ROW_H + (n > rows ? ROW_H : 0);
  ock_doc_putf(d,
               "<div class=\"diagram\"><svg class=\"seq\" xmlns=\"http://www.w3.org/2000/svg\" "
               "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
               "aria-label=\"sequence diagram\">\n",
               SVG_W, height, SVG_W, height);
  ock_doc_putf(
      d, "<clipPath id=\"lc-%d\"><rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\"/></clipPath>",
      diagram, DETAIL_X - LABEL_GAP / 2, height);
  ock_doc_putf(d, "<text class=\"h\" x=\"4\" y=\"20\">#seq time</text>");
  for (int k = 0; k < LANES; k++) {
    int x = lane_x(k);
    ock_doc_putf(d,
                 "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#d0d7de\" "
                 "stroke-dasharray=\"4 3\"/>"
                 "<rect x=\"%d\" y=\"4\" width=\"%d\" height=\"22\" rx=\"4\" fill=\"#fff\" "
                 "stroke=\"%s\"/><text class=\"h\" x=\"%d\" y=\"20\" text-anchor=\"middle\" "
                 "style=\"fill:%s\">%s</text>\n",
                 x, HEAD_H - 8, x, height - 2, x - 60, 120, lane_colors[k], x, lane_colors[k],
                 lane_titles[k]);
  }
  ock_doc_putf(d, "<text class=\"h\" x=\"%d\" y=\"20\">detail</text>\n", DETAIL_X);
  int row = 0;
  cJSON_ArrayForEach(e, timeline) {
    if (row == rows)
      break;
    timeline_row(d, e, row++, diagram);
  }
  if (n > rows)
    ock_doc_putf(d,
                 "<text class=\"t\" x=\"4\" y=\"%d\">… %d more timeline entries not drawn "
                 "(see report.json)</text>\n",
                 HEAD_H + 16 + rows * ROW_H + 4, n - rows);
  ock_doc_put(d, "</svg></div>\n");
}

/* ---- the first causes ---- */

#define HTML_CAUSE_DIAGRAMS 5   /* causes whose simplest scenario is drawn on the page */
#define HTML_CAUSE_SCENARIOS 30 /* scenarios linked from a cause; the rest counted */

static void cause_consequences(struct ock_doc *d, const cJSON *c) {
  const cJSON *k;
  int first = 1;
  cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(c, "consequences")) {
    ock_doc_put(d, first ? "" : ", ");
    ock_doc_put(d, "<span class=\"mono\">");
    ock_doc_text(d, ock_json_str(k, "check"));
    ock_doc_putf(d, "</span> (%lld)", ock_json_int(k, "scenarios", 0));
    first = 0;
  }
  if (first)
    ock_doc_put(d, "<span class=\"note\">nothing else</span>");
}

/* cause_process: under a cause whose simplest scenario's SUT ended badly, how it ended and
 * the end of its stderr, as the failures list shows them (a crash says why there). */
static void cause_process(struct ock_doc *d, const cJSON *c, int *tails) {
  const char *id = ock_json_str(cJSON_GetObjectItemCaseSensitive(c, "simplest"), "scenario");
  int i = ock_report_index_of(&d->m->scenario_ids, id);
  const cJSON *p =
      i < 0 ? NULL
            : cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(d->m->scenarios, i), "process");
  if (!ended_badly(p))
    return;
  ock_doc_put(d, "<tr class=\"crash\"><td></td><td colspan=\"6\"><b>SUT process: ");
  exit_status(d, p);
  ock_doc_put(d, "</b>");
  if ((*tails)++ < TAILS_MAX)
    stderr_tail(d, p);
  ock_doc_put(d, "</td></tr>\n");
}

static void cause_row(struct ock_doc *d, const cJSON *c, int k) {
  const cJSON *simplest = cJSON_GetObjectItemCaseSensitive(c, "simplest"), *e;
  ock_doc_putf(d, "<tr class=\"r-%s\"><td class=\"n\">%d</td><td class=\"mono\">",
               verdict_class(ock_json_str(c, "verdict")), k + 1);
  ock_doc_text(d, ock_json_str(c, "id"));
  ock_doc_put(d, "</td><td>");
  ock_doc_text(d, ock_json_str(c, "level"));
  ock_doc_put(d, " ");
  badge(d, ock_json_str(c, "verdict"));
  if (ock_json_bool(c, "expected_failure", 0))
    ock_doc_put(d, " <span class=\"note\">expected failure</span>");
  ock_doc_put(d, "</td><td>");
  cut_text(d, ock_json_str(c, "message"), 300);
  ock_doc_put(d, "</td><td>");
  cause_consequences(d, c);
  ock_doc_putf(d, "</td><td class=\"n\">%d</td><td>",
               cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(c, "scenarios")));
  scenario_link(d, ock_json_str(simplest, "scenario"));
  long long events = ock_json_int(simplest, "events", 0);
  ock_doc_putf(d, " <span class=\"note\">(%lld event%s)</span></td></tr>\n", events,
               events == 1 ? "" : "s");
  ock_doc_put(d, "<tr><td></td><td colspan=\"6\"><span class=\"note\">rerun</span> <code>");
  ock_doc_text(d, ock_json_str(c, "command"));
  ock_doc_put(d, "</code>");
  int n = 0, all = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(c, "scenarios"));
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(c, "scenarios")) {
    if (n == HTML_CAUSE_SCENARIOS) {
      ock_doc_putf(d, " <span class=\"note\">and %d more</span>", all - n);
      break;
    }
    ock_doc_put(d, n++ ? " " : "<br/><span class=\"note\">in</span> ");
    scenario_link(d, cJSON_IsString(e) ? e->valuestring : "?");
  }
  ock_doc_put(d, "</td></tr>\n");
}

/* cause_diagram: the sequence diagram of cause k's simplest scenario; the first one open. */
static void cause_diagram(struct ock_doc *d, const cJSON *c, int k) {
  const char *id = ock_json_str(cJSON_GetObjectItemCaseSensitive(c, "simplest"), "scenario");
  int i = ock_report_index_of(&d->m->scenario_ids, id);
  if (i < 0)
    return;
  ock_doc_putf(d, "<details class=\"sc\"%s><summary>%d. <span class=\"mono\">",
               k ? "" : " open=\"\"", k + 1);
  ock_doc_text(d, ock_json_str(c, "id"));
  ock_doc_put(d, "</span> in its simplest scenario <span class=\"mono\">");
  ock_doc_text(d, id);
  ock_doc_put(d, "</span></summary>\n<div>\n");
  /* Diagram ids after the scenarios' own, so no clipPath id repeats. */
  sequence_diagram(d, cJSON_GetArrayItem(d->m->scenarios, i),
                   cJSON_GetArraySize(d->m->scenarios) + k);
  ock_doc_put(d, "</div>\n</details>\n");
}

/* causes: the first section: each first cause once, what it explains, where to rerun it, and
 * the sequence diagram of its simplest scenario. */
static void causes(struct ock_doc *d) {
  const cJSON *list = cJSON_GetObjectItemCaseSensitive(d->m->report, "causes"), *c;
  int n = cJSON_GetArraySize(list), k = 0;
  if (!n)
    return;
  ock_doc_putf(d,
               "<section id=\"causes\">\n<h2>First causes</h2>\n<p class=\"note\">%d first "
               "cause%s: each is one deviation; the failing checks it explains are listed with "
               "it, not as causes of their own.</p>\n",
               n, n == 1 ? "" : "s");
  ock_doc_put(d, "<table class=\"fails\">\n<tr><th>#</th><th>Cause</th><th>Level</th>"
                 "<th>What was seen</th><th>Explains (scenarios)</th><th>Scenarios</th>"
                 "<th>Simplest scenario</th></tr>\n");
  int tails = 0;
  cJSON_ArrayForEach(c, list) {
    cause_row(d, c, k++);
    cause_process(d, c, &tails);
  }
  ock_doc_put(d, "</table>\n");
  k = 0;
  cJSON_ArrayForEach(c, list) {
    if (k == HTML_CAUSE_DIAGRAMS)
      break;
    cause_diagram(d, c, k++);
  }
  ock_doc_put(d, "</section>\n");
}

/* ---- scenarios ---- */

static void checks_table(struct ock_doc *d, const cJSON *scenario) {
  const cJSON *checks = cJSON_GetObjectItemCaseSensitive(scenario, "checks"), *c, *e;
  ock_doc_put(d, "<h4>Checks</h4>\n");
  if (cJSON_GetArraySize(checks) == 0) {
    ock_doc_put(d, "<p class=\"note\">No check ran.</p>\n");
    return;
  }
  ock_doc_put(d, "<table class=\"checks\">\n<tr><th>Check</th><th>Requirement</th><th>Level</th>"
                 "<th>Verdict</th><th>Expected</th><th>Actual</th><th>Evidence</th><th>Message</th>"
                 "</tr>\n");
  cJSON_ArrayForEach(c, checks) {
    const char *v = ock_json_str(c, "verdict"), *rid = ock_json_str(c, "requirement");
    int ri = ock_report_index_of(&d->m->requirement_ids, rid);
    ock_doc_putf(d, "<tr class=\"r-%s\"><td class=\"mono\">", verdict_class(v));
    ock_doc_text(d, ock_json_str(c, "id"));
    ock_doc_put(d, "</td><td class=\"mono\">");
    if (ri >= 0)
      ock_doc_putf(d, "<a href=\"#req-%d\">", ri);
    ock_doc_text(d, rid);
    ock_doc_put(d, ri >= 0 ? "</a></td><td>" : "</td><td>");
    ock_doc_text(d, ock_json_str(c, "level"));
    ock_doc_put(d, "</td><td>");
    badge(d, v);
    ock_doc_put(d, "</td><td>");
    ock_doc_text(d, ock_json_str(c, "expected"));
    ock_doc_put(d, "</td><td>");
    ock_doc_text(d, ock_json_str(c, "actual"));
    ock_doc_put(d, "</td><td class=\"mono\">");
    int first = 1;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(c, "evidence")) {
      ock_doc_put(d, first ? "" : ", ");
      if (cJSON_IsNumber(e))
        ock_doc_putf(d, "#%lld", (long long)e->valuedouble);
      else if (cJSON_IsString(e))
        ock_doc_text(d, e->valuestring);
      first = 0;
    }
    ock_doc_put(d, "</td><td>");
    ock_doc_text(d, ock_json_str(c, "message"));
    ock_doc_put(d, "</td></tr>\n");
  }
  ock_doc_put(d, "</table>\n");
}

static void process(struct ock_doc *d, const cJSON *scenario) {
  const cJSON *p = cJSON_GetObjectItemCaseSensitive(scenario, "process");
  ock_doc_put(d, "<h4>Process</h4>\n");
  if (!cJSON_IsObject(p)) {
    ock_doc_put(d, "<p class=\"note\">The SUT process did not run.</p>\n");
    return;
  }
  const cJSON *code = cJSON_GetObjectItemCaseSensitive(p, "exit_code");
  ock_doc_put(d, "<p>exit code ");
  if (cJSON_IsNumber(code))
    ock_doc_putf(d, "%lld", (long long)code->valuedouble);
  else
    ock_doc_put(d, "none");
  if (ock_json_str(p, "signal")) {
    ock_doc_put(d, " · <b>killed by ");
    ock_doc_text(d, ock_json_str(p, "signal"));
    ock_doc_put(d, "</b>");
  }
  if (ock_json_bool(p, "timed_out", 0))
    ock_doc_put(d, " · <b>timed out</b>");
  ock_doc_put(d, "</p>\n");
  static const char *const streams[] = {"stdout", "stderr"};
  for (int i = 0; i < 2; i++) {
    const char *out = ock_json_str(p, streams[i]);
    char key[32];
    snprintf(key, sizeof key, "%s_bytes", streams[i]);
    long long bytes = ock_json_int(p, key, out ? (long long)strlen(out) : 0);
    ock_doc_putf(d, "<div class=\"note\">%s, %lld bytes", streams[i], bytes);
    if (out && bytes > (long long)strlen(out))
      ock_doc_putf(d, " (the first %zu kept)", strlen(out));
    ock_doc_put(d, "</div>\n<pre>");
    if (out && *out)
      ock_doc_text(d, out);
    else
      ock_doc_put(d, "(empty)");
    ock_doc_put(d, "</pre>\n");
  }
}

static void scenario_section(struct ock_doc *d, const cJSON *s, int i) {
  const char *v = ock_json_str(s, "verdict");
  int sev = ock_verdict_severity(v);
  ock_doc_putf(d, "<details class=\"sc\" id=\"sc-%d\"%s><summary>", i,
               sev >= 3 ? " open=\"\"" : "");
  badge(d, v);
  ock_doc_put(d, " <span class=\"mono\">");
  ock_doc_text(d, ock_json_str(s, "id"));
  ock_doc_put(d, "</span>");
  if (ock_json_str(s, "title")) {
    ock_doc_put(d, " — ");
    ock_doc_text(d, ock_json_str(s, "title"));
  }
  ock_doc_put(d, " <span class=\"note\">(");
  ock_doc_duration(d, ock_json_num(s, "duration_ms", 0), 2);
  ock_doc_put(d, ")</span></summary>\n<div>\n");
  if (ock_json_str(s, "proves")) {
    ock_doc_put(d, "<p>Proves: ");
    ock_doc_text(d, ock_json_str(s, "proves"));
    ock_doc_put(d, "</p>\n");
  }
  ock_doc_put(d, "<p class=\"note\">");
  if (ock_json_str(s, "file")) {
    ock_doc_put(d, "fixture <span class=\"mono\">");
    ock_doc_text(d, ock_json_str(s, "file"));
    ock_doc_put(d, "</span> · ");
  }
  ock_doc_put(d, "requirements ");
  string_list(d, cJSON_GetObjectItemCaseSensitive(s, "requirements"), ", ");
  ock_doc_put(d, " · capabilities ");
  string_list(d, cJSON_GetObjectItemCaseSensitive(s, "capabilities"), ", ");
  if (ock_json_bool(s, "expected_failure", 0))
    ock_doc_put(d, " · <b>expected failure</b>");
  ock_doc_put(d, "</p>\n");
  if (ock_json_str(s, "skip_reason")) {
    ock_doc_put(d, "<p>Skipped: ");
    ock_doc_text(d, ock_json_str(s, "skip_reason"));
    ock_doc_put(d, "</p>\n");
  }
  checks_table(d, s);
  sequence_diagram(d, s, i);
  process(d, s);
  ock_doc_put(d, "</div>\n</details>\n");
}

static void scenarios(struct ock_doc *d) {
  const cJSON *scen = d->m->scenarios, *s, *c;
  ock_doc_put(d, "<section id=\"scenarios\">\n<h2>Scenarios</h2>\n");
  if (cJSON_GetArraySize(scen) == 0) {
    ock_doc_put(d, "<p class=\"note\">No scenario ran.</p>\n</section>\n");
    return;
  }
  ock_doc_put(d, "<table>\n<tr><th>Scenario</th><th>Verdict</th><th>Time</th><th>Checks passed</th>"
                 "<th>Title</th></tr>\n");
  int i = 0;
  cJSON_ArrayForEach(s, scen) {
    int total = 0, passed = 0;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(s, "checks")) {
      total++;
      passed += ock_verdict_severity(ock_json_str(c, "verdict")) == 1 && !ock_json_str(c, "waived");
    }
    const char *v = ock_json_str(s, "verdict");
    ock_doc_putf(d, "<tr class=\"r-%s\"><td class=\"mono\"><a href=\"#sc-%d\">", verdict_class(v),
                 i++);
    ock_doc_text(d, ock_json_str(s, "id"));
    ock_doc_put(d, "</a></td><td>");
    badge(d, v);
    ock_doc_put(d, "</td><td class=\"n\">");
    ock_doc_duration(d, ock_json_num(s, "duration_ms", 0), 2);
    ock_doc_putf(d, "</td><td class=\"n\">%d/%d</td><td>", passed, total);
    ock_doc_text(d, ock_json_str(s, "title"));
    ock_doc_put(d, "</td></tr>\n");
  }
  ock_doc_put(d, "</table>\n");
  i = 0;
  cJSON_ArrayForEach(s, scen) {
    scenario_section(d, s, i++);
  }
  ock_doc_put(d, "</section>\n");
}

static void render_html(struct ock_doc *d) {
  const struct ock_report_model *m = d->m;
  ock_doc_put(d, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
                 "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
                 "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                 "style-src 'unsafe-inline'\"/>\n<title>OCK ");
  ock_doc_text(d, m->verdict);
  ock_doc_put(d, ": ");
  ock_doc_text(d, ock_json_str(m->orchestrator, "name"));
  ock_doc_put(d, "</title>\n<style>\n");
  ock_doc_put(d, style);
  ock_doc_put(d, "</style>\n</head>\n<body>\n");
  header(d);
  ock_doc_put(d, "<main>\n<p class=\"note\"><a href=\"#causes\">First causes</a> · "
                 "<a href=\"#failures\">Failures</a> · "
                 "<a href=\"#run\">Run</a> · <a href=\"#requirements\">Requirements</a> · "
                 "<a href=\"#scenarios\">Scenarios</a></p>\n");
  causes(d);
  failures(d);
  waived(d);
  run_meta(d);
  requirements(d);
  scenarios(d);
  ock_doc_put(d, "<footer>Rendered by ");
  ock_doc_text(d, ock_json_str(m->kit, "name"));
  ock_doc_put(d, " ");
  ock_doc_text(d, ock_json_str(m->kit, "version"));
  ock_doc_putf(d, " from report.json (schema_version %lld).</footer>\n</main>\n</body>\n</html>\n",
               ock_json_int(m->report, "schema_version", 0));
}

const struct ock_report_writer ock_report_writer_html = {"html", "report.html", render_html};
