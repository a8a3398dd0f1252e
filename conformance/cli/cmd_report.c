/*
 * cmd_report.c: `ock report merge` (join the report.json of the shards of one run, as a CI
 * matrix produces them) and `ock report render` (write junit.xml, summary.md and report.html
 * again from a report.json).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "ock/json.h"
#include "ock/options.h"
#include "report/causes.h"
#include "report/report.h"

static const char usage_head[] =
    "usage: ock report merge A.json B.json ... [-o DIR]\n"
    "       ock report render FILE.json [-o DIR]\n"
    "\n"
    "merge joins shard reports of one run (`ock run --shard I/N`) into one: the same document an\n"
    "unsharded run writes. Shards of another orchestrator, capability set, wire set, fixture set\n"
    "or selection, tier, seed, level or kit are refused, naming the member and both files.\n"
    "render writes all four formats from a report.json, its summary and verdict recomputed from\n"
    "its scenarios (adding its first causes when it has none); a report whose scenario verdict is\n"
    "milder than one of its checks is refused.\n"
    "\n";

static const char usage_tail[] =
    "\n"
    "The exit code is the joined run's: 0 pass, 1 fail, 3 incomplete; 2 when a report cannot be\n"
    "read or the shards do not belong together; 3, writing nothing, when a shard of the set is\n"
    "missing (merge 1/3 and 2/3 without 3/3).\n";

#define MAX_REPORTS 256

/* read_reports reads the n files; returns 0, or 1 after printing why one cannot be read. */
static int read_reports(char **files, size_t n, cJSON **reports) {
  struct ock_jerr err;
  for (size_t i = 0; i < n; i++)
    if (ock_report_read(files[i], &reports[i], &err)) {
      fprintf(stderr, "ock report: %s: %s\n", err.where, err.what);
      return 1;
    }
  return 0;
}

/* shards_missing: a merge of part of the shards would look like a whole run that passed.
 * Returns 0, 1 after saying which shard is missing, or -1 after saying why the set is wrong. */
static int shards_missing(cJSON **reports, size_t n) {
  char missing[600];
  int gap = ock_report_shards_missing((const cJSON *const *)reports, n, missing, sizeof missing);
  if (gap > 0)
    fprintf(stderr,
            "ock report merge: the set of shards is incomplete: missing %s; merge every "
            "shard of the run\n",
            missing);
  else if (gap)
    fprintf(stderr, "ock report merge: %s\n", missing);
  return gap;
}

/* inconsistent: a scenario of report whose verdict is milder than one of its checks (an edited
 * report: a FAIL check under a PASS scenario). Says which and returns 1; 0 when none. */
static int inconsistent(const cJSON *report, const char *file) {
  const cJSON *s, *c;
  cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(report, "scenarios")) {
    int sev = ock_verdict_severity(ock_json_str(s, "verdict"));
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(s, "checks")) {
      if (ock_verdict_severity(ock_json_str(c, "verdict")) <= sev)
        continue;
      fprintf(stderr,
              "ock report: %s: scenario %.120s has verdict %.20s but its check %.80s is %.20s: "
              "the report was edited or is broken; refusing to render it\n",
              file, ock_json_str(s, "id"), ock_json_str(s, "verdict"), ock_json_str(c, "id"),
              ock_json_str(c, "verdict"));
      return 1;
    }
  }
  return 0;
}

/* recompute gives report the aggregates its scenarios imply (summary, requirements, verdict,
 * exit code), saying so when the verdict it carried was another. */
static int recompute(cJSON *report, const char *file) {
  char was[32];
  snprintf(was, sizeof was, "%s",
           ock_json_str(report, "verdict") ? ock_json_str(report, "verdict") : "");
  if (ock_report_summarize(report, NULL)) {
    fprintf(stderr, "ock report: %s: out of memory\n", file);
    return 1;
  }
  /* A run that did not grade (error: exit 2) or was cut short stays INCOMPLETE, as ock run
   * wrote it (SPEC.md 9, 10). */
  int forced = ock_json_str(report, "error")             ? EXIT_USAGE
               : ock_json_bool(report, "interrupted", 0) ? EXIT_INCOMPLETE
                                                         : 0;
  if (forced) {
    cJSON_ReplaceItemInObjectCaseSensitive(report, "exit_code", cJSON_CreateNumber(forced));
    cJSON_ReplaceItemInObjectCaseSensitive(report, "verdict", cJSON_CreateString("INCOMPLETE"));
  }
  if (strcmp(was, ock_json_str(report, "verdict")))
    fprintf(stderr,
            "ock report: %s: its verdict %s does not follow from its scenarios; rendered "
            "with the recomputed verdict %s\n",
            file, was, ock_json_str(report, "verdict"));
  return 0;
}

/* write_out writes the four files of out into dir; returns the joined run's exit code. */
static int write_out(const cJSON *out, const char *dir, int merge) {
  char msg[600];
  if (ock_report_write_all(out, dir, msg, sizeof msg)) {
    fprintf(stderr, "ock report: %s\n", msg);
    return EXIT_USAGE;
  }
  printf("%s: verdict %s; wrote %s/report.json, junit.xml, summary.md, report.html\n",
         merge ? "merged" : "rendered", ock_json_str(out, "verdict"), dir);
  return (int)ock_json_int(out, "exit_code", EXIT_INCOMPLETE);
}

static void print_usage(const struct ock_option *t, FILE *f) {
  fputs(usage_head, f);
  ock_options_help(t, f);
  fputs(usage_tail, f);
}

int ock__cmd_report(int argc, char **argv) {
  const char *dir = "reports/latest";
  int help = 0, npos = 0;
  const struct ock_option t[] = {{NULL, 'o', OCK_OPT_STRING, &dir, .metavar = "DIR",
                                  .help = "where the four files go (default reports/latest)"},
                                 {"help", 'h', OCK_OPT_FLAG, &help, .help = "print this and exit"},
                                 {0}};
  char err[1024];
  int bad = ock_options_parse(t, argc, argv, &npos, err, sizeof err);
  if (help || bad || npos < 2 || npos > MAX_REPORTS ||
      (strcmp(argv[1], "merge") && (strcmp(argv[1], "render") || npos != 2))) {
    if (bad && !help)
      fprintf(stderr, "ock report: %s\n\n", err);
    print_usage(t, help ? stdout : stderr);
    return help ? EXIT_PASS : EXIT_USAGE;
  }
  int merge = !strcmp(argv[1], "merge");
  size_t n = (size_t)npos - 1;
  cJSON *reports[MAX_REPORTS] = {0}, *out = NULL;
  struct ock_jerr je;
  int gap = 0, rc = read_reports(argv + 2, n, reports);
  if (!rc && merge && (gap = shards_missing(reports, n)))
    rc = 1;
  for (size_t i = 0; !rc && i < n; i++)
    rc = inconsistent(reports[i], argv[2 + i]);
  if (!rc && merge &&
      (rc = ock_report_merge_named((const cJSON *const *)reports, (const char *const *)argv + 2, n,
                                   &out, &je)))
    fprintf(stderr, "ock report merge: %s: %s\n", je.where, je.what);
  if (!rc && !merge) {
    out = reports[0];
    reports[0] = NULL;
    rc = recompute(out, argv[2]);
  }
  int code = rc ? (gap > 0 ? EXIT_INCOMPLETE : EXIT_USAGE) : write_out(out, dir, merge);
  for (size_t i = 0; i < n; i++)
    cJSON_Delete(reports[i]);
  cJSON_Delete(out);
  return code;
}
