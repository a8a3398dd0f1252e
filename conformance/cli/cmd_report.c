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
#include "report/report.h"

static const char usage[] =
    "usage: ock report merge A.json B.json ... [-o DIR]\n"
    "       ock report render FILE.json [-o DIR]\n"
    "\n"
    "merge joins shard reports of one run (`ock run --shard I/N`) into one: the same document an\n"
    "unsharded run writes. render writes all four formats from a report.json. DIR defaults to\n"
    "reports/latest. The exit code is the joined run's: 0 pass, 1 fail, 3 incomplete; 2 when a\n"
    "report cannot be read or the shards do not belong together; 3, writing nothing, when a\n"
    "shard of the set is missing (merge 1/3 and 2/3 without 3/3).\n";

int cmd_report(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    fputs(usage, argc < 2 ? stderr : stdout);
    return argc < 2 ? EXIT_USAGE : EXIT_PASS;
  }
  const char *sub = argv[1], *dir = "reports/latest";
  const char *files[256];
  size_t n = 0;
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "-o") && i + 1 < argc)
      dir = argv[++i];
    else if (n < 256)
      files[n++] = argv[i];
  }
  int merge = !strcmp(sub, "merge");
  if ((!merge && strcmp(sub, "render")) || !n || (!merge && n != 1)) {
    fputs(usage, stderr);
    return EXIT_USAGE;
  }
  cJSON *reports[256] = {0};
  struct ock_jerr err;
  int rc = 0;
  for (size_t i = 0; i < n && !rc; i++)
    if ((rc = ock_report_read(files[i], &reports[i], &err)))
      fprintf(stderr, "ock report: %s: %s\n", err.where, err.what);
  cJSON *out = NULL;
  char missing[600];
  int gap = !rc && merge ? ock_report_shards_missing((const cJSON *const *)reports, n, missing,
                                                     sizeof missing)
                         : 0;
  if (gap) {
    /* A merge of part of the shards would look like a whole run that passed. */
    if (gap > 0)
      fprintf(stderr,
              "ock report merge: the set of shards is incomplete: missing %s; merge every "
              "shard of the run\n",
              missing);
    else
      fprintf(stderr, "ock report merge: %s\n", missing);
    rc = 1;
  }
  if (!rc && merge) {
    rc = ock_report_merge((const cJSON *const *)reports, n, &out, &err);
    if (rc)
      fprintf(stderr, "ock report merge: %s: %s\n", err.where, err.what);
  } else if (!rc) {
    out = reports[0];
    reports[0] = NULL;
  }
  int code = gap > 0 ? EXIT_INCOMPLETE : EXIT_USAGE;
  if (!rc) {
    char msg[600];
    if (ock_report_write_all(out, dir, msg, sizeof msg)) {
      fprintf(stderr, "ock report: %s\n", msg);
    } else {
      code = (int)ock_json_int(out, "exit_code", EXIT_INCOMPLETE);
      printf("%s: verdict %s; wrote %s/report.json, junit.xml, summary.md, report.html\n",
             merge ? "merged" : "rendered", ock_json_str(out, "verdict"), dir);
    }
  }
  for (size_t i = 0; i < n; i++)
    cJSON_Delete(reports[i]);
  cJSON_Delete(out);
  return code;
}
