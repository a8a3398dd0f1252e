/*
 * cmd_check.c: `ock check EVENTS.jsonl`, grading a recorded event log offline, for teams that
 * can only log events. One JSON object per line: {"event": NAME, "data": {...}} (a mock journal
 * line, kind "event", works too; other kinds are skipped). The log is streamed: one line in
 * memory at a time, the grammar keeps one execute's state, so memory does not grow with it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ock/grammar.h"
#include "ock/buf.h"
#include "ock/json.h"
#include "ock/status.h"

#define LINE_MAX_BYTES ((size_t)16 << 20)
#define PRINT_MAX 50

static const char usage[] =
    "usage: ock check EVENTS.jsonl [--quiet]\n"
    "\n"
    "Grades a recorded event log without running anything: the per-execute event grammar\n"
    "(SPEC.md section 3), the fields of orchestrator:complete, and tool-event pairing by\n"
    "tool_call_id. Each line is {\"event\": NAME, \"data\": {...}}; \"-\" reads standard input.\n"
    "Checks that need the mock's view (turn_count against real requests, orphaned tool calls\n"
    "in the history) need `ock run`. --quiet prints nothing: the exit code tells.\n"
    "\n"
    "Exit: 0 no violation, 1 violations found, 2 the file cannot be read.\n";

struct tally {
  const char *ids[128];
  long counts[128];
  int n;
  long total;
  FILE *out; /* where violations and the summary go; NULL: nowhere */
};

static void count(struct tally *t, const char *req) {
  t->total++;
  for (int i = 0; i < t->n; i++)
    if (!strcmp(t->ids[i], req)) {
      t->counts[i]++;
      return;
    }
  if (t->n < 128) {
    t->ids[t->n] = req;
    t->counts[t->n++] = 1;
  }
}

static void report(struct tally *t, long line, const char *req, const char *msg) {
  count(t, req);
  if (t->out && t->total <= PRINT_MAX)
    fprintf(t->out, "line %ld: %s: %s\n", line, req, msg);
}

static void on_violation(void *user, const struct ock_grammar_violation *v) {
  report(user, v->seq, v->requirement, v->message);
}

static void check_complete_fields(struct tally *t, long line, const cJSON *d) {
  static const char *const statuses[] = {"success", "incomplete", "cancelled", "error", NULL};
  const char *o = ock_json_str(d, "orchestrator");
  if (!o || !*o)
    report(t, line, "OCK-COMPLETE-003", "orchestrator:complete without a non-empty orchestrator");
  const char *s = ock_json_str(d, "status");
  int ok = 0;
  for (int i = 0; s && statuses[i]; i++)
    ok |= !strcmp(s, statuses[i]);
  if (!ok)
    report(t, line, "OCK-COMPLETE-004",
           "orchestrator:complete status is not success, incomplete, "
           "cancelled or error");
  const cJSON *tc = cJSON_GetObjectItemCaseSensitive(d, "turn_count");
  if (!cJSON_IsNumber(tc) || tc->valuedouble < 0 || tc->valuedouble != floor(tc->valuedouble))
    report(t, line, "OCK-COMPLETE-005", "turn_count is not a non-negative integer");
}

/* read_line reads one line into b (cleared first). Returns 1 for a line, 0 at EOF; a line
 * longer than the cap is consumed and *too_long set. */
static int read_line(FILE *f, struct ock_buf *b, int *too_long) {
  char chunk[65536];
  ock_buf_reset(b);
  *too_long = 0;
  int any = 0;
  while (fgets(chunk, sizeof chunk, f)) {
    any = 1;
    size_t len = strlen(chunk);
    int end = len && chunk[len - 1] == '\n';
    if (!*too_long && ock_buf_append(b, chunk, len))
      *too_long = 1;
    if (end)
      break;
  }
  return any;
}

int check_event_log(FILE *f, const char *name, FILE *out) {
  struct tally t = {.out = out};
  ock_grammar *g = NULL;
  if (ock_grammar_new(on_violation, &t, &g))
    return EXIT_INCOMPLETE;
  struct ock_buf line;
  ock_buf_init(&line, LINE_MAX_BYTES);
  long lineno = 0, events = 0;
  int too_long;
  while (read_line(f, &line, &too_long)) {
    lineno++;
    if (too_long) {
      report(&t, lineno, "OCK-PROC-005", "line longer than 16 MiB; skipped");
      continue;
    }
    if (line.len <= 1)
      continue;
    cJSON *o = cJSON_ParseWithLength(line.data, line.len);
    const char *kind = ock_json_str(o, "kind");
    const char *ev = ock_json_str(o, "event");
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(o, "data");
    if (!o || (kind && strcmp(kind, "event"))) {
      if (!o)
        report(&t, lineno, "OCK-PROC-005", "not a JSON object");
      cJSON_Delete(o);
      continue;
    }
    if (!ev || (data && !cJSON_IsObject(data))) {
      report(&t, lineno, "OCK-PROC-005", "expected {\"event\": NAME, \"data\": {...}}");
      cJSON_Delete(o);
      continue;
    }
    events++;
    const char *action = ock_json_str(cJSON_GetObjectItemCaseSensitive(o, "reply"), "action");
    ock_grammar_event(g, lineno, ev, data, action);
    if (!strcmp(ev, "orchestrator:complete"))
      check_complete_fields(&t, lineno, data);
    cJSON_Delete(o);
  }
  ock_grammar_end(g, lineno);
  int executes = ock_grammar_executes(g);
  ock_grammar_free(g);
  ock_buf_free(&line);
  if (out) {
    if (t.total > PRINT_MAX)
      fprintf(out, "... %ld more violation(s) not shown\n", t.total - PRINT_MAX);
    fprintf(out, "%s: %ld line(s), %ld event(s), %d execute(s), %ld violation(s)\n", name, lineno,
            events, executes, t.total);
    for (int i = 0; i < t.n; i++)
      fprintf(out, "  %-18s %ld\n", t.ids[i], t.counts[i]);
  }
  if (ferror(f)) {
    fprintf(stderr, "ock check: %s: read error\n", name);
    return EXIT_USAGE;
  }
  if (!events) {
    if (out)
      fprintf(stderr, "ock check: %s: no event found\n", name);
    return EXIT_INCOMPLETE;
  }
  return t.total ? EXIT_FAIL : EXIT_PASS;
}

int cmd_check(int argc, char **argv) {
  const char *path = NULL;
  int quiet = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      fputs(usage, stdout);
      return EXIT_PASS;
    }
    if (!strcmp(argv[i], "--quiet"))
      quiet = 1;
    else if (!path)
      path = argv[i];
    else {
      fprintf(stderr, "ock check: one log at a time\n%s", usage);
      return EXIT_USAGE;
    }
  }
  if (!path) {
    fputs(usage, stderr);
    return EXIT_USAGE;
  }
  FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
  if (!f) {
    fprintf(stderr, "ock check: %s: cannot open\n", path);
    return EXIT_USAGE;
  }
  int code = check_event_log(f, path, quiet ? NULL : stdout);
  if (f != stdin)
    fclose(f);
  return code;
}
