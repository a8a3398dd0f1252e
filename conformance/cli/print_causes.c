/*
 * print_causes.c: the first causes on the console (see cli.h), the last screen of `ock run`.
 *
 * One fault fails many checks; the console ends on the few causes that explain them, each with
 * the command that reruns its simplest scenario, so the next step is one copy and paste.
 */
#include "cli/cli.h"

#include <cJSON.h>

#include "ock/json.h"
#include "report/escape.h"

#define LINE_WIDTH 300 /* bytes of one printed report string */
#define LINE_WRAP 100  /* columns of the list of consequences */

/* failing_checks: the failing checks the causes not excused explain, themselves included. */
static long long failing_checks(const cJSON *causes) {
  long long n = 0;
  const cJSON *c, *k;
  cJSON_ArrayForEach(c, causes) {
    if (ock_json_bool(c, "expected_failure", 0))
      continue;
    n += cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(c, "scenarios"));
    cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(c, "consequences"))
      n += ock_json_int(k, "scenarios", 0);
  }
  return n;
}

/* print_consequences: "explains: a (3), b (1)", wrapped before LINE_WRAP columns. */
static void print_consequences(FILE *f, const cJSON *c) {
  const cJSON *k;
  int shown = 0, col = 0;
  char id[100];
  cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(c, "consequences")) {
    char item[160];
    int n = snprintf(item, sizeof item, "%s (%lld)",
                     ock_escape_terminal(id, sizeof id, ock_json_str(k, "check")),
                     ock_json_int(k, "scenarios", 0));
    if (!shown++)
      col = fprintf(f, "     explains: %s", item);
    else if (col + n + 2 > LINE_WRAP)
      col = fprintf(f, ",\n               %s", item) - 2;
    else
      col += fprintf(f, ", %s", item);
  }
  if (shown)
    fprintf(f, "\n");
}

static void print_cause(FILE *f, int i, const cJSON *c) {
  char id[200], text[LINE_WIDTH], sid[200];
  const cJSON *simplest = cJSON_GetObjectItemCaseSensitive(c, "simplest");
  int n = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(c, "scenarios"));
  fprintf(f, "  %d. %-5s %-6s %s  in %d scenario%s\n", i + 1,
          ock_escape_terminal(text, 20, ock_json_str(c, "verdict")),
          ock_escape_terminal(sid, 20, ock_json_str(c, "level")),
          ock_escape_terminal(id, sizeof id, ock_json_str(c, "id")), n, n == 1 ? "" : "s");
  const char *m = ock_json_str(c, "message");
  if (m && *m)
    fprintf(f, "     %s\n", ock_escape_terminal(text, sizeof text, m));
  print_consequences(f, c);
  long long events = ock_json_int(simplest, "events", 0);
  fprintf(f, "     simplest: %s (%lld event%s)\n",
          ock_escape_terminal(sid, sizeof sid, ock_json_str(simplest, "scenario")), events,
          events == 1 ? "" : "s");
  char cmd[1200];
  fprintf(f, "     rerun:    %s\n",
          ock_escape_terminal(cmd, sizeof cmd, ock_json_str(c, "command")));
}

void ock__cli_print_causes(FILE *f, const cJSON *report, int max) {
  const cJSON *causes = cJSON_GetObjectItemCaseSensitive(report, "causes"), *c;
  int n = 0, excused = 0, i = 0;
  cJSON_ArrayForEach(c, causes) {
    if (ock_json_bool(c, "expected_failure", 0))
      excused++;
    else
      n++;
  }
  if (n)
    fprintf(f, "\n%d first cause%s of %lld failing check%s:\n", n, n == 1 ? "" : "s",
            failing_checks(causes), failing_checks(causes) == 1 ? "" : "s");
  cJSON_ArrayForEach(c, causes) {
    if (i == max || ock_json_bool(c, "expected_failure", 0))
      continue;
    print_cause(f, i++, c);
  }
  if (n > max)
    fprintf(f, "  ... and %d more in summary.md and report.html\n", n - max);
  if (excused)
    fprintf(f, "%s%d first cause%s the expected failures excuse (report.json lists them)\n",
            n ? "" : "\n", excused, excused == 1 ? "" : "s");
}
