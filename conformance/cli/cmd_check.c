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

#include "cli/cli.h"
#include "model/pair.h"
#include "report/escape.h"
#include "ock/caps.h"
#include "ock/contract.h"
#include "ock/grammar.h"
#include "ock/buf.h"
#include "ock/json.h"
#include "ock/options.h"
#include "ock/status.h"
#include "ock/utf8.h"

#define PRINT_MAX 50

static const char usage_head[] =
    "usage: ock check EVENTS.jsonl [--quiet]\n"
    "\n"
    "Grades a recorded event log without running anything: the per-execute event grammar\n"
    "(SPEC.md section 3), the fields of orchestrator:complete, and tool-event pairing by\n"
    "tool_call_id (a tool event without one is paired with the provider:response call of its\n"
    "name and arguments, and reported once as OCK-TOOL-008: SPEC.md 4.6). Each line is\n"
    "{\"event\": NAME, \"data\": {...}}; \"-\" reads standard input.\n"
    "A line may add \"reply\": the HookResult the orchestrator got for that event (a mock\n"
    "journal line has it); its \"action\" deny or ask_user opens the deny paths of the grammar.\n"
    "Without it, a prompt:submit or provider:request followed by prompt:complete is taken as\n"
    "denied.\n"
    "Checks that need the mock's view (turn_count against real requests, orphaned tool calls\n"
    "in the history) need `ock run`.\n"
    "\n";

static const char usage_tail[] =
    "\n"
    "Every line must be one event: a NUL byte, U+0000 in a string, a member name given twice,\n"
    "content after the object, a line that is not an event, invalid UTF-8 or a missing \"data\"\n"
    "is a finding; a line over 16 MiB stops the reading.\n"
    "\n"
    "Exit: 0 no violation, 1 violations found, 2 the file cannot be read, 3 no event found.\n";

struct tally {
  const char *ids[128];
  long counts[128];
  int n;
  long total;
  FILE *out;          /* where violations and the summary go; NULL: nowhere */
  ock_pairer *pairer; /* id-less tool events paired with the calls (SPEC.md 4.6), or NULL */
  long paired;        /* how many were */
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
  char safe[1024]; /* event names and data come from the SUT: no escape sequence gets through */
  if (t->out && t->total <= PRINT_MAX)
    fprintf(t->out, "line %ld: %s: %s\n", line, req, ock_escape_terminal(safe, sizeof safe, msg));
}

static void on_violation(void *user, const struct ock_grammar_violation *v) {
  report(user, v->seq, v->requirement, v->message);
}

static void check_complete_fields(struct tally *t, long line, const cJSON *d) {
  static const char *const statuses[] = {"success", "incomplete", "cancelled", "error", NULL};
  const char *o = ock_json_str(d, OCK_PF_ORCHESTRATOR);
  if (!o || !*o)
    report(t, line, "OCK-COMPLETE-003", "orchestrator:complete without a non-empty orchestrator");
  const char *s = ock_json_str(d, OCK_PF_STATUS);
  int ok = 0;
  for (int i = 0; s && statuses[i]; i++)
    ok |= !strcmp(s, statuses[i]);
  if (!ok)
    report(t, line, "OCK-COMPLETE-004",
           "orchestrator:complete status is not success, incomplete, "
           "cancelled or error");
  const cJSON *tc = cJSON_GetObjectItemCaseSensitive(d, OCK_PF_TURN_COUNT);
  /* 1e400 reads as infinity, which floor() leaves as it is: bounded first */
  if (!cJSON_IsNumber(tc) || !(tc->valuedouble >= 0 && tc->valuedouble <= OCK_JSON_INT_MAX) ||
      tc->valuedouble != floor(tc->valuedouble))
    report(t, line, "OCK-COMPLETE-005", "turn_count is not a non-negative integer");
}

/* The log, read a block at a time; lines are found in the block with memchr. */
struct lines {
  FILE *f;
  size_t at, len; /* the unread bytes are block[at..len) */
  char block[1 << 16];
};

/* read_line reads the next line into b (cleared first), at its real length: NUL bytes are kept
 * and counted in b->len, the newline is not kept. Returns 1 for a line, 0 at EOF, -1 for a
 * line longer than b's cap (then reading stops: a file such as /dev/zero has no end of line). */
static int read_line(struct lines *r, struct ock_buf *b) {
  int any = 0;
  ock_buf_reset(b);
  for (;;) {
    if (r->at == r->len) {
      r->at = 0;
      r->len = fread(r->block, 1, sizeof r->block, r->f);
      if (!r->len)
        return any;
    }
    const char *start = r->block + r->at;
    const char *nl = memchr(start, '\n', r->len - r->at);
    size_t n = nl ? (size_t)(nl - start) : r->len - r->at;
    if (n && ock_buf_append(b, start, n))
      return -1;
    r->at += n + (nl != NULL);
    any = 1;
    if (nl)
      return 1;
  }
}

/* line_problem: what keeps one line from being read as exactly one event, or NULL. The line
 * (len bytes) is made valid UTF-8 in place, as reports need it; *o gets the parsed object,
 * kept when only the trailing content is wrong (the first object is still graded). */
static const char *line_problem(char *text, size_t len, cJSON **o, char *why, size_t n) {
  *o = NULL;
  const char *nul = memchr(text, '\0', len);
  if (nul) {
    snprintf(why, n, "a NUL byte at column %zu; the line is skipped", (size_t)(nul - text) + 1);
    return why;
  }
  size_t bad = ock_utf8_scrub(text);
  const char *end = NULL;
  *o = cJSON_ParseWithLengthOpts(text, len, &end, 0);
  if (!*o) {
    snprintf(why, n, "not a JSON object%s", bad ? " (and invalid UTF-8)" : "");
    return why;
  }
  struct ock_jerr jerr; /* U+0000 in a string, a name given twice: not graded as cJSON reads it */
  if (ock_json_check_read(text, end ? (size_t)(end - text) : len, *o, &jerr)) {
    snprintf(why, n, "%s: %s; the line is skipped", jerr.where, jerr.what);
    cJSON_Delete(*o);
    *o = NULL;
    return why;
  }
  while (end && end < text + len && (*end == ' ' || *end == '\t' || *end == '\r'))
    end++;
  if (end && end < text + len) {
    snprintf(why, n,
             "content after the JSON object at column %zu (one event per line); only the "
             "first object is graded",
             (size_t)(end - text) + 1);
    return why;
  }
  if (bad) {
    snprintf(why, n, "%zu byte(s) of invalid UTF-8, replaced with '?'", bad);
    return why;
  }
  return NULL;
}

/* pair_line: the model's calls come from provider:response; a tool event without
 * tool_call_id is read with the id of the call it reports (SPEC.md 4.6), and the first one is
 * reported under OCK-TOOL-008, once: a missing id is one finding, not one per event. */
static void pair_line(struct tally *t, long lineno, const char *ev, cJSON *data) {
  if (!t->pairer)
    return;
  if (!strcmp(ev, OCK_EV_PROMPT_SUBMIT))
    ock__pairer_reset(t->pairer);
  if (!strcmp(ev, OCK_EV_PROVIDER_RESPONSE))
    ock__pairer_calls(t->pairer, cJSON_GetObjectItemCaseSensitive(data, OCK_PF_TOOL_CALLS));
  if (ock__pairer_event(t->pairer, ev, data, NULL, 0, 0) && !t->paired++)
    report(t, lineno, "OCK-TOOL-008",
           "tool events without tool_call_id: each is read with the id of the model's call of "
           "its name and arguments (SPEC.md 4.6); reported once");
}

/* A prompt:submit or provider:request logged without its hook reply (a plain {event, data} log
 * has no "reply" member) is held, with the execution:start and custom events after it, until the
 * next event tells whether it was denied: a denial is followed by prompt:complete (SPEC.md 5.6),
 * anything else goes on. The held events are then fed in order. */
#define HELD_MAX 256

struct held {
  long lineno;
  char *name;
  cJSON *data;
  char *action; /* the logged reply's action, NULL when none */
};

struct lookahead {
  struct held q[HELD_MAX];
  int n;
  int deciding; /* q[0] waits for the event that tells whether it was denied */
};

/* feed feeds one event to the grammar and the field checks. */
static void feed(struct tally *t, ock_grammar *g, long lineno, const char *ev, const cJSON *data,
                 const char *action) {
  pair_line(t, lineno, ev, (cJSON *)data); /* fills in a paired tool_call_id first */
  ock_grammar_event(g, lineno, ev, data, action);
  if (!strcmp(ev, OCK_EV_ORCHESTRATOR_COMPLETE))
    check_complete_fields(t, lineno, data);
}

/* release feeds the held events, the first one denied or not. */
static void release(struct tally *t, ock_grammar *g, struct lookahead *la, int denied) {
  for (int i = 0; i < la->n; i++) {
    struct held *h = &la->q[i];
    feed(t, g, h->lineno, h->name, h->data, i == 0 && la->deciding && denied ? "deny" : h->action);
    free(h->name);
    free(h->action);
    cJSON_Delete(h->data);
  }
  la->n = 0;
  la->deciding = 0;
}

/* hold keeps one event for later; returns 0 when out of room or memory (then it is not kept). */
static int hold(struct lookahead *la, long lineno, const char *ev, const cJSON *data,
                const char *action) {
  if (la->n >= HELD_MAX)
    return 0;
  struct held *h = &la->q[la->n];
  h->lineno = lineno;
  h->name = strdup(ev);
  h->data = cJSON_Duplicate(data, 1);
  h->action = action ? strdup(action) : NULL;
  if (!h->name || !h->data || (action && !h->action)) {
    free(h->name);
    free(h->action);
    cJSON_Delete(h->data);
    return 0;
  }
  la->n++;
  return 1;
}

/* passes_by: an event that may sit between a held event and the one that decides it. */
static int passes_by(const char *ev) {
  enum ock_event e = ock_event_parse(ev);
  return e == OCK_EVENT_CUSTOM || !strcmp(ev, OCK_EV_EXECUTION_START);
}

/* grade_event routes one event through the look-ahead. has_reply: the line had a "reply". */
static void grade_event(struct tally *t, ock_grammar *g, struct lookahead *la, long lineno,
                        const char *ev, const cJSON *data, const char *action, int has_reply) {
  if (la->deciding) {
    if (passes_by(ev) && hold(la, lineno, ev, data, action))
      return;
    release(t, g, la, !strcmp(ev, OCK_EV_PROMPT_COMPLETE));
  }
  int undecided =
      !has_reply && (!strcmp(ev, OCK_EV_PROMPT_SUBMIT) || !strcmp(ev, OCK_EV_PROVIDER_REQUEST));
  if (undecided && hold(la, lineno, ev, data, action)) {
    la->deciding = 1;
    return;
  }
  feed(t, g, lineno, ev, data, action);
}

/* grade_line grades one line (len bytes, without its end) of the log; returns 1 when it was
 * an event. */
static int grade_line(struct tally *t, ock_grammar *g, struct lookahead *la, long lineno,
                      char *text, size_t len) {
  char why[sizeof(struct ock_jerr) + 64];
  cJSON *o = NULL;
  const char *problem = line_problem(text, len, &o, why, sizeof why);
  if (problem)
    report(t, lineno, "OCK-PROC-005", problem);
  const char *kind = ock_json_str(o, "kind");
  const char *ev = ock_json_str(o, "event");
  cJSON *data = cJSON_GetObjectItemCaseSensitive(o, "data");
  if (!o || (kind && strcmp(kind, OCK_KIND_EVENT))) {
    cJSON_Delete(o); /* a mock journal's other kinds are not events: skipped */
    return 0;
  }
  if (!ev || !cJSON_IsObject(data)) {
    report(t, lineno, "OCK-PROC-005",
           !ev     ? "not an event: expected {\"event\": NAME, \"data\": {...}}"
           : !data ? "an event without \"data\": expected {\"event\": NAME, \"data\": {...}}"
                   : "\"data\" is not an object: expected {\"event\": NAME, \"data\": {...}}");
    cJSON_Delete(o);
    return 0;
  }
  const cJSON *reply = cJSON_GetObjectItemCaseSensitive(o, "reply");
  grade_event(t, g, la, lineno, ev, data, ock_json_str(reply, "action"), reply != NULL);
  cJSON_Delete(o);
  return 1;
}

static void print_tally(const struct tally *t, const char *name, long lines, long events,
                        int executes) {
  if (t->total > PRINT_MAX)
    fprintf(t->out, "... %ld more violation(s) not shown\n", t->total - PRINT_MAX);
  fprintf(t->out, "%s: %ld line(s), %ld event(s), %d execute(s), %ld violation(s)\n", name, lines,
          events, executes, t->total);
  for (int i = 0; i < t->n; i++)
    fprintf(t->out, "  %-18s %ld\n", t->ids[i], t->counts[i]);
}

int ock__check_event_log(FILE *f, const char *name, FILE *out) {
  struct tally t = {.out = out, .pairer = ock__pairer_new()};
  ock_grammar *g = NULL;
  if (ock_grammar_new(on_violation, &t, &g)) {
    ock__pairer_free(t.pairer);
    return EXIT_INCOMPLETE;
  }
  struct ock_buf line;
  ock_buf_init(&line, OCK_MAX_EVENT_LOG_LINE);
  struct lines *in = malloc(sizeof *in);
  if (!in) {
    ock_grammar_free(g);
    ock__pairer_free(t.pairer);
    return EXIT_INCOMPLETE;
  }
  in->f = f, in->at = in->len = 0;
  struct lookahead *la = calloc(1, sizeof *la);
  if (!la) {
    free(in);
    ock_grammar_free(g);
    return EXIT_INCOMPLETE;
  }
  long lineno = 0, events = 0;
  int got;
  while ((got = read_line(in, &line)) != 0) {
    lineno++;
    if (got < 0) {
      report(&t, lineno, "OCK-PROC-005", "line longer than 16 MiB; reading stopped here");
      break;
    }
    size_t len = line.len;
    while (len && (line.data[len - 1] == '\r' || line.data[len - 1] == ' '))
      len--;
    if (len)
      events += grade_line(&t, g, la, lineno, line.data, len);
  }
  release(&t, g, la, 0);
  free(la);
  ock_grammar_end(g, lineno);
  int executes = ock_grammar_executes(g);
  ock_grammar_free(g);
  ock__pairer_free(t.pairer);
  ock_buf_free(&line);
  free(in);
  if (out)
    print_tally(&t, name, lineno, events, executes);
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

static void print_usage(const struct ock_option *t, FILE *f) {
  fputs(usage_head, f);
  ock_options_help(t, f);
  fputs(usage_tail, f);
}

int ock__cmd_check(int argc, char **argv) {
  int quiet = 0, help = 0, npos = 0;
  const struct ock_option t[] = {
      {"quiet", 0, OCK_OPT_FLAG, &quiet, .help = "prints nothing: the exit code tells"},
      {"help", 'h', OCK_OPT_FLAG, &help, .help = "print this and exit"},
      {0}};
  char err[1024];
  int rc = ock_options_parse(t, argc, argv, &npos, err, sizeof err);
  if (help) {
    print_usage(t, stdout);
    return EXIT_PASS;
  }
  if (!rc && npos > 1)
    snprintf(err, sizeof err, "one log at a time"), rc = -1;
  if (rc || !npos) {
    if (rc)
      fprintf(stderr, "ock check: %s (see ock check --help)\n", err);
    else
      print_usage(t, stderr);
    return EXIT_USAGE;
  }
  const char *path = argv[1];
  FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
  if (!f) {
    fprintf(stderr, "ock check: %s: cannot open\n", path);
    return EXIT_USAGE;
  }
  int code = ock__check_event_log(f, path, quiet ? NULL : stdout);
  if (f != stdin)
    fclose(f);
  return code;
}
