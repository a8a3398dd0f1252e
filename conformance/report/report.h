/*
 * report.h: OCK's run reports: report.json and the three documents rendered from it.
 *
 * The harness builds one report (a cJSON tree in the shape of reports/report.schema.json),
 * calls ock_report_summarize to fill the aggregate parts (summary, requirements, traceability,
 * verdict, exit code) from the scenarios' checks, and ock_report_write_all to write every
 * format into the output directory. `ock merge` reads shard reports with ock_report_read and
 * joins them with ock_report_merge, which aggregates through the same ock_report_summarize, so
 * a merged run and an unsharded run give the same document.
 *
 * The writers are pluggable parts: a struct of function pointers with a name, listed in one
 * table. Each is a renderer over one report model and one shared document writer (render.h):
 * it renders only from the model and treats every string in it as hostile (it may come from
 * the system under test): see escape.h.
 */
#ifndef OCK_REPORT_H
#define OCK_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include <cJSON.h>

#include "ock/caps.h"
#include "ock/buf.h"
#include "ock/json.h"
#include "ock/registry.h"

#define OCK_REPORT_SCHEMA_VERSION 1
/* The largest report.json ock_report_read accepts. */
/* The largest document a writer renders (it fails with OCK_ETOOBIG past it). */

struct ock_doc;

/* One output format: a renderer of the report model (render.h). */
struct ock_report_writer {
  const char *name;     /* "json", "junit", "markdown", "html" */
  const char *filename; /* the file it writes in the report directory: "junit.xml" */
  /* render appends the document for doc->m to doc; an error stays in doc->rc. It renders only
   * from the model and never crashes on a report that did not pass ock_report_validate: it
   * shows what it can. */
  void (*render)(struct ock_doc *doc);
};

extern const struct ock_report_writer ock_report_writer_json;     /* report.json, pretty */
extern const struct ock_report_writer ock_report_writer_junit;    /* junit.xml */
extern const struct ock_report_writer ock_report_writer_markdown; /* summary.md */
extern const struct ock_report_writer ock_report_writer_html;     /* report.html */

/* Every writer, NULL-terminated, in the order json, junit, markdown, html. */
extern const struct ock_report_writer *const ock_report_writers[];

/* ock_report_render renders report (borrowed; never modified) with w and writes the document
 * to out, which it does not close. Returns OCK_OK, OCK_ETOOBIG (document past
 * OCK_MAX_REPORT_OUT), OCK_ENOMEM or OCK_EIO (writing failed). */
int ock_report_render(const struct ock_report_writer *w, const cJSON *report, FILE *out);

/* ock_report_writer_find: the writer with that name, or NULL. */
const struct ock_report_writer *ock_report_writer_find(const char *name);

/* ock_report_write_all writes every writer's file into dir (borrowed), creating dir and its
 * parents as `mkdir -p` does. It refuses (OCK_EINVAL) when dir itself is a symbolic link or not
 * a directory, so a report never lands outside the chosen directory. The four files are
 * rendered into a fresh directory beside dir (".<name>.new-XXXXXX", or ".ock-new-XXXXXX" in dir
 * when its parent cannot be written; removed afterwards); only
 * when all four rendered is each renamed into place, replacing whatever had its name (an old
 * report, a forged one, a symbolic link, which is not followed), so a reader sees old or new
 * files, never a half-written one. When rendering fails nothing in dir changes; when a file
 * cannot be put in place (a directory has its name), the report files of dir that are not this
 * run's are removed, so none is left looking current. errbuf (n bytes, may be NULL) gets one
 * sentence naming the path and the cause. Returns OCK_OK, OCK_EINVAL, OCK_EIO, OCK_ENOMEM or
 * OCK_ETOOBIG. */
int ock_report_write_all(const cJSON *report, const char *dir, char *errbuf, size_t n);

/* ock_report_validate checks that report (borrowed) has the shape every reader relies on:
 * schema_version equal to OCK_REPORT_SCHEMA_VERSION, the top-level members with their types,
 * known verdicts, parseable timestamps, and each scenario's id, verdict and checks. The error
 * names the JSON path ("$.scenarios[2].checks[0].verdict: expected one of ..."). Returns
 * OCK_OK, OCK_ETYPE or OCK_EMISSING. */
int ock_report_validate(const cJSON *report, struct ock_jerr *err);

/* ock_report_read parses and validates the report.json at path. On success *out is owned by
 * the caller (cJSON_Delete). Errors name the file and the JSON path. Returns OCK_OK, OCK_EIO,
 * OCK_ETOOBIG, OCK_EJSON, OCK_ETYPE or OCK_EMISSING; *out is untouched on failure. */
int ock_report_read(const char *path, cJSON **out, struct ock_jerr *err);

/* ock_report_summarize (re)computes, from the report's scenarios, the members:
 *   summary       scenario counts by verdict; per level (MUST, SHOULD, MAY) the number of
 *                 requirements and how many have verdict PASS;
 *   requirements  every requirement of the catalogue, in catalogue order, with verdict = the
 *                 most severe verdict of its checks across all scenarios (ERROR > FAIL > WARN
 *                 > SKIP > PASS), or UNTESTED when no check for it ran; its scenarios (those
 *                 that declare it or have a check for it, in report order); message = the
 *                 first message among its checks with that verdict when it is WARN, FAIL or
 *                 ERROR ("<scenario>: <message>"), else null;
 *   traceability  per requirement, the scenarios and the distinct check IDs;
 *   verdict, exit_code  FAIL/1 when a scenario is FAIL (or WARN and options.strict is true);
 *                 else INCOMPLETE/3 when a scenario is ERROR or no scenario ran (none, or all
 *                 SKIP); else PASS/0;
 *   causes        the first causes of the failing checks, grouped across scenarios, and each
 *                 failing check's "cause" (causes.h: ock_report_causes).
 * The catalogue is reg (borrowed) when not NULL; when NULL it is the report's own
 * "requirements" array (used to re-aggregate a report that has one, as merge does). A check
 * naming a requirement outside the catalogue is added at the end, so it is never hidden.
 * Check and scenario verdicts are taken as final (the harness already applied --strict and
 * expected failures). Members are replaced in place (key order is kept) or appended.
 * Returns OCK_OK, OCK_EINVAL (report is not an object with a scenarios array) or OCK_ENOMEM;
 * on failure the report is unchanged. */
int ock_report_summarize(cJSON *report, const ock_registry *reg);

/* ock_report_merge joins n shard reports (borrowed) of one run into a new report (*out,
 * caller frees with cJSON_Delete): scenarios concatenated and sorted by id; the requirement
 * catalogue is the union of the shards' requirements; started_at = earliest, finished_at =
 * latest, duration_ms = their difference; options.shard = "merged"; everything else comes
 * from the first shard, then ock_report_summarize(*out, NULL) recomputes the aggregates.
 * Each shard must validate, and the shards must agree on schema_version, contract_version,
 * kit.version, seed, options.level, options.strict, tier, orchestrator.command, .name,
 * .capabilities and .wires, options.fixtures, options.case and options.exclude: a difference
 * is an error whose where is the member's JSON path and whose what names both shards and both
 * values. A scenario id present twice is an error naming the id and both shards. Errors name
 * the shard ("shard 2: $.scenarios[0].id"). Returns OCK_OK, OCK_EINVAL, OCK_ETYPE, OCK_EMISSING
 * or OCK_ENOMEM. */
int ock_report_merge(const cJSON *const *reports, size_t n, cJSON **out, struct ock_jerr *err);

/* ock_report_merge_named is ock_report_merge with the shards' file names (names[i] for
 * reports[i], borrowed; NULL: "shard i") in the message of a member they differ on. */
int ock_report_merge_named(const cJSON *const *reports, const char *const *names, size_t n,
                           cJSON **out, struct ock_jerr *err);

/* ock_report_shards_missing checks that n shard reports (borrowed) are a whole set: each
 * options.shard is "I/N" with the same N, no I twice, and every I from 1 to N present. On a
 * gap it writes the missing shards ("2/3, 3/3") into missing (n_missing bytes) and returns the
 * number missing; 0 for a whole set. Returns -1 with the reason in missing when the shards name
 * different N, the same I twice, or a shard label that is not "I/N". */
int ock_report_shards_missing(const cJSON *const *reports, size_t n, char *missing,
                              size_t n_missing);

/* ock_verdict_severity ranks a verdict: SKIP 0, PASS 1, WARN 2, FAIL 3, ERROR 4; UNTESTED
 * and NULL -1; any other string 4, so an unknown verdict is never taken for a pass. A PASS
 * outranks a SKIP: what applied somewhere and held is a pass, SKIP only when nothing applied. */
int ock_verdict_severity(const char *verdict);

/* ock_report_time_ms parses an RFC 3339 UTC timestamp ("2026-11-21T10:00:09Z", optional
 * fraction, "Z" or "+hh:mm") into milliseconds since 1970. Returns OCK_OK or OCK_EINVAL. */
int ock_report_time_ms(const char *text, long long *out);

/* ock_report_tally appends the run's counts as the HTML and Markdown headlines show them:
 * " · MUST 3/4 · SHOULD 1/1 · MAY 0/0 · 9 scenarios: 7 PASS, 1 FAIL, 0 WARN, 1 SKIP, 0 ERROR",
 * with ", N waived" after a level and after the scenario counts when the baseline waived
 * failures there, each level wrapped in strong_open and strong_close (say "<b>" and "</b>", or "").
 * Only numbers and fixed names are written, never a report string. Returns ock_buf's codes. */
int ock_report_tally(struct ock_buf *b, const cJSON *report, const char *strong_open,
                     const char *strong_close);

/* ock_report_check_fails: check is WARN, FAIL or ERROR, or was one before the baseline waived
 * it ("waived"). */
int ock_report_check_fails(const cJSON *check);

/* ock_report_scenario_fails: a check of scenario charged to requirement req fails (as
 * ock_report_check_fails says): the scenarios a requirement not met is listed with. */
int ock_report_scenario_fails(const cJSON *scenario, const char *req);

#endif
