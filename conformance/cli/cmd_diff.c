/*
 * cmd_diff.c: `ock diff OLD NEW`, the event contract of two runs compared (model/event_diff.h
 * says what is compared). A side is an event log (`ock check`'s format, or a mock journal) or a
 * report directory written with --journals (its report.json and journals/), compared scenario by
 * scenario.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "model/event_diff.h"
#include "report/escape.h"
#include "ock/caps.h"
#include "ock/contract.h"
#include "ock/json.h"
#include "ock/status.h"

#define LOG_MAX (256u << 20)

static const char usage[] =
    "usage: ock diff OLD NEW [--allow FILE] [--format human|json]\n"
    "\n"
    "Compares the event contract of two runs, execute by execute: events removed, added or\n"
    "moved; payload fields removed or changed in type (and added, which is not breaking); the\n"
    "tool-call pairing (which calls got tool:post, tool:error or nothing); "
    "orchestrator:complete's\n"
    "status, reason and turn_count. Values that change from run to run (ids, trace ids,\n"
    "timestamps) are never compared: fields by their types, calls by their order.\n"
    "\n"
    "OLD and NEW are both event logs (JSON Lines of {\"event\": NAME, \"data\": {...}}, as\n"
    "`ock check` reads them; mock journal lines work too, other kinds are skipped), or both "
    "report\n"
    "directories (or their report.json) of `ock run --journals`, compared scenario by scenario.\n"
    "\n"
    "  --allow FILE    intended changes: one pattern a line (# comments), matched as a glob\n"
    "                  against a change's key, e.g. `event-added provider:stream`,\n"
    "                  `field-removed tool:post *`, `turn_count`; `[SCENARIO-GLOB] KEY-GLOB`\n"
    "                  limits a pattern to scenarios\n"
    "  --format F      human (default) or json\n"
    "  -h, --help      print this and exit\n"
    "\n"
    "Exit: 0 the contract is the same (or every breaking change is allowed), 1 a breaking change,\n"
    "2 bad input (an unreadable file, a line that is not JSON, a report without journals).\n";

/* One side: its scopes (scenario id, or "" for a log) each with its executes. */
struct side {
  const char *path;
  cJSON *events; /* owned: {scope: [events...]} */
  cJSON *scopes; /* owned: {scope: executes} (ock__diff_split, references into events) */
};

/* take_line appends the event on one line of a log to out; a journal line of another kind is
 * skipped. Returns 0, or -1 with err naming the file, the line and what was expected. */
static int take_line(const char *text, size_t len, const char *path, long line, cJSON *out,
                     char *err, size_t n) {
  cJSON *o = NULL;
  struct ock_jerr je;
  if (ock_json_parse(text, len, &o, &je) || !cJSON_IsObject(o)) {
    snprintf(err, n, "%s:%ld: not a JSON object%s%s", path, line, o ? "" : ": ", o ? "" : je.what);
    cJSON_Delete(o);
    return -1;
  }
  const char *kind = ock_json_str(o, "kind");
  if (kind && strcmp(kind, OCK_KIND_EVENT)) {
    cJSON_Delete(o);
    return 0;
  }
  if (!ock_json_str(o, "event") || !cJSON_IsObject(cJSON_GetObjectItem(o, "data"))) {
    snprintf(err, n, "%s:%ld: $.event (a string) and $.data (an object) are expected", path, line);
    cJSON_Delete(o);
    return -1;
  }
  cJSON_AddItemToArray(out, o);
  return 0;
}

/* read_jsonl appends the events of a JSON Lines file to out. Returns 0, or -1 with err set. */
static int read_jsonl(const char *path, cJSON *out, char *err, size_t n) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, n, "%s: cannot be read", path);
    return -1;
  }
  char *text = malloc(LOG_MAX + 1);
  size_t len = text ? fread(text, 1, LOG_MAX + 1, f) : 0;
  fclose(f);
  if (!text || len > LOG_MAX) {
    snprintf(err, n, "%s: %s", path, text ? "larger than 256 MiB" : "out of memory");
    free(text);
    return -1;
  }
  int rc = 0;
  long line = 0;
  for (size_t at = 0; at < len && !rc;) {
    const char *nl = memchr(text + at, '\n', len - at);
    size_t end = nl ? (size_t)(nl - text) : len;
    line++;
    size_t k = at;
    while (k < end && (text[k] == ' ' || text[k] == '\t' || text[k] == '\r'))
      k++;
    if (k < end)
      rc = take_line(text + at, end - at, path, line, out, err, n);
    at = end + 1;
  }
  free(text);
  return rc;
}

/* report_dir: the directory of a report: path itself, or the one its report.json is in. */
static int report_dir(const char *path, char *dir, size_t n) {
  struct stat st;
  if (stat(path, &st))
    return -1;
  if (S_ISDIR(st.st_mode)) {
    snprintf(dir, n, "%s", path);
    return 1;
  }
  size_t len = strlen(path);
  if (len < 5 || strcmp(path + len - 5, ".json"))
    return 0;
  const char *slash = strrchr(path, '/');
  snprintf(dir, n, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
  return 1;
}

/* load_report reads a report's scenarios and each one's journal. */
static int load_report(struct side *s, const char *dir, char *err, size_t n) {
  char path[4200];
  snprintf(path, sizeof path, "%s/report.json", dir);
  cJSON *report = NULL;
  struct ock_jerr je;
  if (ock_json_parse_file(path, LOG_MAX, &report, &je)) {
    snprintf(err, n, "%s: %s", je.where, je.what);
    return -1;
  }
  int rc = 0;
  const cJSON *sc;
  cJSON_ArrayForEach(sc, cJSON_GetObjectItemCaseSensitive(report, "scenarios")) {
    const char *id = ock_json_str(sc, "id"), *verdict = ock_json_str(sc, "verdict");
    if (!id || (verdict && !strcmp(verdict, OCK_V_SKIP)))
      continue;
    snprintf(path, sizeof path, "%s/journals/%s.journal.jsonl", dir, id);
    struct stat st;
    if (stat(path, &st)) {
      snprintf(err, n, "%s: no journal for scenario %s: run `ock run` with --journals", dir, id);
      rc = -1;
      break;
    }
    cJSON *events = cJSON_AddArrayToObject(s->events, id);
    if (!events || read_jsonl(path, events, err, n)) {
      rc = -1;
      break;
    }
  }
  if (!rc && !cJSON_GetObjectItemCaseSensitive(report, "scenarios")) {
    snprintf(err, n, "%s/report.json: $.scenarios (an array) is expected", dir);
    rc = -1;
  }
  cJSON_Delete(report);
  return rc;
}

/* load_side reads path (a log or a report) into s; *is_report tells which it was. */
static int load_side(struct side *s, const char *path, int *is_report, char *err, size_t n) {
  char dir[4096];
  s->path = path;
  s->events = cJSON_CreateObject();
  s->scopes = cJSON_CreateObject();
  if (!s->events || !s->scopes) {
    snprintf(err, n, "out of memory");
    return -1;
  }
  int r = report_dir(path, dir, sizeof dir);
  if (r < 0) {
    snprintf(err, n, "%s: cannot be read", path);
    return -1;
  }
  *is_report = r;
  int rc = r ? load_report(s, dir, err, n)
             : read_jsonl(path, cJSON_AddArrayToObject(s->events, ""), err, n);
  const cJSON *ev;
  cJSON_ArrayForEach(ev, s->events) {
    cJSON *ex = rc ? NULL : ock__diff_split(ev);
    if (!rc && (!ex || !cJSON_AddItemToObject(s->scopes, ev->string, ex))) {
      cJSON_Delete(ex);
      snprintf(err, n, "out of memory");
      rc = -1;
    }
  }
  return rc;
}

static void side_free(struct side *s) {
  cJSON_Delete(s->scopes); /* references first, then what they point into */
  cJSON_Delete(s->events);
}

/* ---- allowed changes ------------------------------------------------------------------------ */

/* allowed: a line of the allow list (text, NUL-separated lines) matches change c. */
static int allowed(const char *text, size_t len, const cJSON *c) {
  const char *key = ock_json_str(c, "key"), *scope = ock_json_str(c, "scope");
  for (size_t at = 0; text && at < len; at += strlen(text + at) + 1) {
    const char *p = text + at;
    while (*p == ' ' || *p == '\t')
      p++;
    if (!*p || *p == '#')
      continue;
    char scope_glob[512] = "*";
    if (*p == '[') {
      const char *close = strchr(p, ']');
      if (!close)
        continue;
      snprintf(scope_glob, sizeof scope_glob, "%.*s", (int)(close - p - 1), p + 1);
      for (p = close + 1; *p == ' ' || *p == '\t'; p++)
        ;
    }
    if (!fnmatch(scope_glob, scope, 0) && !fnmatch(p, key, 0))
      return 1;
  }
  return 0;
}

/* read_allow reads the allow list into *text as NUL-separated lines (trailing blanks and CR
 * cut). Returns 0, or -1 with err set. */
static int read_allow(const char *path, char **text, size_t *len, char *err, size_t n) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, n, "%s: cannot be read", path);
    return -1;
  }
  *text = malloc(1 << 20);
  *len = *text ? fread(*text, 1, (1 << 20) - 1, f) : 0;
  fclose(f);
  if (!*text) {
    snprintf(err, n, "out of memory");
    return -1;
  }
  (*text)[*len] = '\0';
  for (size_t i = 0; i < *len; i++)
    if ((*text)[i] == '\n' || (*text)[i] == '\r')
      (*text)[i] = '\0';
  for (size_t i = *len; i-- > 0;)
    if (((*text)[i] == ' ' || (*text)[i] == '\t') && (i + 1 == *len || !(*text)[i + 1]))
      (*text)[i] = '\0';
  return 0;
}

/* ---- the comparison and its output ---------------------------------------------------------- */

static void add_scope_change(cJSON *changes, const char *scope, const char *kind, int breaking) {
  cJSON *c = cJSON_CreateObject();
  cJSON_AddStringToObject(c, "scope", scope);
  cJSON_AddNumberToObject(c, "execute", 0);
  cJSON_AddStringToObject(c, "kind", kind);
  cJSON_AddStringToObject(c, "key", kind);
  cJSON_AddNullToObject(c, "old");
  cJSON_AddNullToObject(c, "new");
  cJSON_AddBoolToObject(c, "breaking", breaking);
  cJSON_AddItemToArray(changes, c);
}

static int compare(const struct side *a, const struct side *b, cJSON *changes) {
  const cJSON *s;
  cJSON_ArrayForEach(s, a->scopes) {
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(b->scopes, s->string);
    if (!t)
      add_scope_change(changes, s->string, "scenario-missing", 1);
    else if (ock__diff_executes(s, t, s->string, changes))
      return -1;
  }
  cJSON_ArrayForEach(s, b->scopes)
    if (!cJSON_GetObjectItemCaseSensitive(a->scopes, s->string))
      add_scope_change(changes, s->string, "scenario-added", 0);
  return 0;
}

static void print_value(const cJSON *v) {
  char *t = cJSON_IsNull(v) ? NULL : cJSON_PrintUnformatted(v);
  char safe[300];
  printf("%s", t ? ock_escape_terminal(safe, sizeof safe, t) : "-");
  free(t);
}

static void print_human(const struct side *a, const struct side *b, const cJSON *changes,
                        int breaking, int waived) {
  printf("ock diff: %s -> %s\n", a->path, b->path);
  const cJSON *c;
  cJSON_ArrayForEach(c, changes) {
    const char *scope = ock_json_str(c, "scope");
    int ex = (int)ock_json_num(c, "execute", 0);
    char safe[700];
    printf("%s ",
           cJSON_IsTrue(cJSON_GetObjectItem(c, "allowed"))
               ? "allowed "
               : (cJSON_IsTrue(cJSON_GetObjectItem(c, "breaking")) ? "BREAKING" : "note    "));
    if (*scope)
      printf("%s ", ock_escape_terminal(safe, sizeof safe, scope));
    if (ex)
      printf("execute %d: ", ex);
    printf("%s (", ock_escape_terminal(safe, sizeof safe, ock_json_str(c, "key")));
    print_value(cJSON_GetObjectItem(c, "old"));
    printf(" -> ");
    print_value(cJSON_GetObjectItem(c, "new"));
    printf(")\n");
  }
  printf("%d change(s), %d breaking, %d of them allowed: %s\n", cJSON_GetArraySize(changes),
         breaking + waived, waived,
         breaking                      ? "REGRESSION"
         : cJSON_GetArraySize(changes) ? "compatible"
                                       : "same contract");
}

static void print_json(const char *const paths[2], const cJSON *changes, int breaking, int waived) {
  cJSON *out = cJSON_CreateObject();
  cJSON_AddStringToObject(out, "diff", "ock-diff/1");
  cJSON_AddStringToObject(out, "old", paths[0]);
  cJSON_AddStringToObject(out, "new", paths[1]);
  cJSON_AddStringToObject(out, "verdict",
                          breaking                      ? "regression"
                          : cJSON_GetArraySize(changes) ? "compatible"
                                                        : "same");
  cJSON_AddNumberToObject(out, "breaking", breaking);
  cJSON_AddNumberToObject(out, "allowed", waived);
  cJSON_AddItemReferenceToObject(out, "changes", (cJSON *)changes);
  char *t = cJSON_Print(out);
  puts(t ? t : "{}");
  free(t);
  cJSON_Delete(out);
}

int ock__cmd_diff(int argc, char **argv) {
  const char *paths[2] = {NULL, NULL}, *allow = NULL, *format = "human";
  int np = 0;
  for (int i = 1; i < argc; i++) { /* argv[0] is "diff" */
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      fputs(usage, stdout);
      return EXIT_PASS;
    } else if (!strcmp(argv[i], "--allow") && i + 1 < argc) {
      allow = argv[++i];
    } else if (!strcmp(argv[i], "--format") && i + 1 < argc) {
      format = argv[++i];
    } else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "ock diff: unknown option or missing value: %s\n%s", argv[i], usage);
      return EXIT_USAGE;
    } else if (np < 2) {
      paths[np++] = argv[i];
    } else {
      fprintf(stderr, "ock diff: takes two inputs, OLD and NEW\n%s", usage);
      return EXIT_USAGE;
    }
  }
  if (np != 2 || (strcmp(format, "human") && strcmp(format, "json"))) {
    fprintf(stderr, "ock diff: %s\n%s",
            np != 2 ? "OLD and NEW are required" : "--format is human or json", usage);
    return EXIT_USAGE;
  }
  char err[4400] = "", *allow_text = NULL;
  size_t allow_len = 0;
  struct side a = {0}, b = {0};
  int ra = 0, rb = 0, code = EXIT_USAGE;
  cJSON *changes = cJSON_CreateArray();
  if (!load_side(&a, paths[0], &ra, err, sizeof err) &&
      !load_side(&b, paths[1], &rb, err, sizeof err) &&
      !(allow && read_allow(allow, &allow_text, &allow_len, err, sizeof err))) {
    if (ra != rb)
      snprintf(err, sizeof err, "%s is %s but %s is %s: compare two of a kind", paths[0],
               ra ? "a report" : "an event log", paths[1], rb ? "a report" : "an event log");
    else if (!changes || compare(&a, &b, changes))
      snprintf(err, sizeof err, "out of memory");
  }
  if (!*err) {
    int breaking = 0, waived = 0;
    cJSON *c;
    cJSON_ArrayForEach(c, changes) {
      if (!cJSON_IsTrue(cJSON_GetObjectItem(c, "breaking")))
        continue;
      int ok = allowed(allow_text, allow_len, c);
      cJSON_AddBoolToObject(c, "allowed", ok);
      ok ? waived++ : breaking++;
    }
    code = breaking ? EXIT_FAIL : EXIT_PASS;
    if (!strcmp(format, "json"))
      print_json(paths, changes, breaking, waived);
    else
      print_human(&a, &b, changes, breaking, waived);
  } else {
    fprintf(stderr, "ock diff: %s\n", err);
  }
  cJSON_Delete(changes);
  free(allow_text);
  side_free(&a);
  side_free(&b);
  return code;
}
