/*
 * test_grammar_model.c: a property test of the event automaton (core/grammar.c) against a
 * second, independent reading of SPEC.md 3.3 written for this test.
 *
 * The model below is the table of SPEC.md 3.3 transcribed row by row: each row is a symbol,
 * its "accepted when" column as one boolean expression over the record, and its "effect"
 * column. It names events by their wire strings, keeps calls in a small array, and shares no
 * code with core/grammar.c, which is written as one function per symbol class with the
 * requirement each rule belongs to. Sequences are drawn by walking the model's own
 * transitions, then each is mutated by one insertion, deletion or swap; the automaton and the
 * model must agree on every sequence, original and mutated, about where the first rejection
 * is. A disagreement fails the test and prints the shortest sequence that shows it.
 */
#include "runner.h"

#include <stdlib.h>

#include "grammar_examples.h"

/* ---- the model: SPEC.md 3.3's record and table ---------------------------------------------- */

enum { NONE_, OPEN, OK, ERR };                                         /* req */
enum { D_NONE, D_SUBMIT, D_REQUEST };                                  /* denied */
enum { C_NONE, REQUESTED, COMPLETED };                                 /* cancel */
enum { ABSENT, SELECTING, SELECTING_DENIED, SELECTED, STARTED, DONE }; /* calls[id] */

#define MODEL_IDS 4 /* tool_call_ids "a".."d" */

struct model {
  int idle;
  char prev[40];
  int denied, req, recovered, resolved, tools_after_response, cancel, completed, ended;
  int started; /* an execution:start was seen (the "no execution:start yet" condition) */
  int calls[MODEL_IDS];
};

struct sym {
  const char *name; /* wire name; "custom:x" for a custom event */
  int denied;
  int id; /* 0..MODEL_IDS-1 for tool events, -1 otherwise */
};

static int open_calls(const struct model *m) {
  for (int i = 0; i < MODEL_IDS; i++)
    if (m->calls[i] != ABSENT && m->calls[i] != DONE)
      return 1;
  return 0;
}
static int quiet(const struct model *m) {
  return m->req != OPEN && !open_calls(m);
}
static int call(const struct model *m, const struct sym *s) {
  return m->calls[s->id];
}

/* The "accepted when" column, one expression per row. */
static int a_submit(const struct model *m, const struct sym *s) {
  (void)s;
  return m->idle;
}
static int a_start(const struct model *m, const struct sym *s) {
  (void)s;
  return !strcmp(m->prev, "prompt:submit") && !m->started;
}
static int a_resolve(const struct model *m, const struct sym *s) {
  (void)s;
  return m->denied == D_NONE && m->cancel == C_NONE && !m->completed && !m->ended &&
         !open_calls(m) && ((m->req == NONE_ && !m->resolved) || (m->req == ERR && !m->recovered));
}
static int a_request(const struct model *m, const struct sym *s) {
  (void)s;
  return m->denied == D_NONE && m->cancel != COMPLETED && !m->completed && !m->ended && quiet(m) &&
         (m->req != ERR || m->recovered);
}
static int a_req_open(const struct model *m, const struct sym *s) {
  (void)s;
  return m->req == OPEN;
}
static int a_retry(const struct model *m, const struct sym *s) {
  (void)s;
  return m->req == ERR && !m->recovered && m->cancel != COMPLETED;
}
static int a_selecting(const struct model *m, const struct sym *s) {
  return m->req == OK && m->denied == D_NONE && m->cancel != COMPLETED && !m->completed &&
         !m->ended && call(m, s) == ABSENT;
}
static int a_selected(const struct model *m, const struct sym *s) {
  return call(m, s) == SELECTING;
}
static int a_pre(const struct model *m, const struct sym *s) {
  return m->req == OK && m->denied == D_NONE && m->cancel != COMPLETED && !m->completed &&
         !m->ended && (call(m, s) == ABSENT || call(m, s) == SELECTING || call(m, s) == SELECTED);
}
static int a_post(const struct model *m, const struct sym *s) {
  return call(m, s) == STARTED;
}
static int a_tool_error(const struct model *m, const struct sym *s) {
  int c = call(m, s);
  return c == SELECTING || c == SELECTING_DENIED || c == SELECTED || c == STARTED;
}
static int a_prompt_complete(const struct model *m, const struct sym *s) {
  (void)s;
  return !m->completed && !m->ended && m->cancel == C_NONE && quiet(m) &&
         (m->denied != D_NONE || (m->req == OK && !m->tools_after_response));
}
static int a_cancel_requested(const struct model *m, const struct sym *s) {
  (void)s;
  return m->cancel == C_NONE && !m->completed && !m->ended;
}
static int a_cancel_completed(const struct model *m, const struct sym *s) {
  (void)s;
  return m->cancel == REQUESTED && quiet(m);
}
static int a_execution_end(const struct model *m, const struct sym *s) {
  (void)s;
  return !m->ended && quiet(m) && m->cancel != REQUESTED;
}
static int a_complete(const struct model *m, const struct sym *s) {
  (void)s;
  return quiet(m) && m->cancel != REQUESTED;
}

/* The "effect" column. */
static void e_none(struct model *m, const struct sym *s) {
  (void)m, (void)s;
}
static void e_submit(struct model *m, const struct sym *s) {
  memset(m, 0, sizeof *m);
  m->denied = s->denied ? D_SUBMIT : D_NONE;
}
static void e_resolve(struct model *m, const struct sym *s) {
  (void)s;
  if (m->req == NONE_)
    m->resolved = 1;
  else
    m->recovered = 1;
}
static void e_request(struct model *m, const struct sym *s) {
  if (s->denied) {
    m->denied = D_REQUEST;
    return;
  }
  m->req = OPEN;
  m->recovered = 0;
  memset(m->calls, 0, sizeof m->calls);
}
static void e_response(struct model *m, const struct sym *s) {
  (void)s;
  m->req = OK;
  m->tools_after_response = 0;
}
static void e_error(struct model *m, const struct sym *s) {
  (void)s;
  m->req = ERR;
  m->recovered = 0;
}
static void e_retry(struct model *m, const struct sym *s) {
  (void)s;
  m->recovered = 1;
}
static void e_selecting(struct model *m, const struct sym *s) {
  m->calls[s->id] = s->denied ? SELECTING_DENIED : SELECTING;
  m->tools_after_response = 1;
}
static void e_selected(struct model *m, const struct sym *s) {
  m->calls[s->id] = SELECTED;
}
static void e_pre(struct model *m, const struct sym *s) {
  m->calls[s->id] = STARTED;
  m->tools_after_response = 1;
}
static void e_done(struct model *m, const struct sym *s) {
  m->calls[s->id] = DONE;
}
static void e_prompt_complete(struct model *m, const struct sym *s) {
  (void)s;
  m->completed = 1;
}
static void e_cancel_requested(struct model *m, const struct sym *s) {
  (void)s;
  m->cancel = REQUESTED;
}
static void e_cancel_completed(struct model *m, const struct sym *s) {
  (void)s;
  m->cancel = COMPLETED;
}
static void e_execution_end(struct model *m, const struct sym *s) {
  (void)s;
  m->ended = 1;
}
static void e_start(struct model *m, const struct sym *s) {
  (void)s;
  m->started = 1;
}
static void e_complete(struct model *m, const struct sym *s) {
  (void)s;
  m->idle = 1;
}

static const struct row {
  const char *name;
  int (*accepted)(const struct model *, const struct sym *);
  void (*effect)(struct model *, const struct sym *);
} table[] = {
    {"prompt:submit", a_submit, e_submit},
    {"execution:start", a_start, e_start},
    {"provider:resolve", a_resolve, e_resolve},
    {"provider:request", a_request, e_request},
    {"provider:stream", a_req_open, e_none},
    {"provider:response", a_req_open, e_response},
    {"provider:error", a_req_open, e_error},
    {"provider:retry", a_retry, e_retry},
    {"tool:selecting", a_selecting, e_selecting},
    {"tool:selected", a_selected, e_selected},
    {"tool:pre", a_pre, e_pre},
    {"tool:post", a_post, e_done},
    {"tool:error", a_tool_error, e_done},
    {"prompt:complete", a_prompt_complete, e_prompt_complete},
    {"cancel:requested", a_cancel_requested, e_cancel_requested},
    {"cancel:completed", a_cancel_completed, e_cancel_completed},
    {"execution:end", a_execution_end, e_execution_end},
    {"orchestrator:complete", a_complete, e_complete},
};
#define N_ROWS (sizeof table / sizeof table[0])

static const struct row *row_of(const char *name) {
  for (size_t i = 0; i < N_ROWS; i++)
    if (!strcmp(table[i].name, name))
      return &table[i];
  return NULL; /* a custom event */
}

/* model_step: 1 when s is accepted (and applied), 0 when rejected. Preprocessing of SPEC.md
 * 3.1: a custom event is dropped inside an execute and rejected outside; only a few symbols
 * keep their /deny. */
static int model_step(struct model *m, const struct sym *s) {
  const struct row *r = row_of(s->name);
  if (!r)
    return !m->idle;
  int is_submit = r == &table[0];
  if (m->idle && !is_submit)
    return 0;
  struct sym plain = *s;
  if (strcmp(s->name, "prompt:submit") && strcmp(s->name, "provider:request") &&
      strcmp(s->name, "tool:selecting"))
    plain.denied = 0;
  if (!r->accepted(m, &plain))
    return 0;
  r->effect(m, &plain);
  if (!is_submit)
    snprintf(m->prev, sizeof m->prev, "%s", s->name);
  else
    snprintf(m->prev, sizeof m->prev, "prompt:submit");
  return 1;
}

static void model_init(struct model *m) {
  memset(m, 0, sizeof *m);
  m->idle = 1;
}

/* model_first_rejected: same contract as grammar_feed. */
static int model_first_rejected(const struct sym *seq, int n) {
  struct model m;
  model_init(&m);
  for (int i = 0; i < n; i++)
    if (!model_step(&m, &seq[i]))
      return i;
  return m.idle ? -1 : n;
}

/* ---- the alphabet, the walk, the mutations ----------------------------------------------------
 */

#define MAX_LEN 48
#define ALPHABET_MAX 64

static struct sym alphabet[ALPHABET_MAX];
static int n_alphabet;

static void build_alphabet(void) {
  n_alphabet = 0;
  for (size_t i = 0; i < N_ROWS; i++) {
    const char *name = table[i].name;
    int tool = !strncmp(name, "tool:", 5);
    int deniable = !strcmp(name, "prompt:submit") || !strcmp(name, "provider:request") ||
                   !strcmp(name, "tool:selecting");
    for (int id = 0; id < (tool ? 3 : 1); id++)
      for (int d = 0; d <= deniable; d++)
        alphabet[n_alphabet++] = (struct sym){name, d, tool ? id : -1};
  }
  alphabet[n_alphabet++] = (struct sym){"custom:x", 0, -1};
  /* a deny reply on an event whose /deny does not matter must change nothing */
  alphabet[n_alphabet++] = (struct sym){"provider:response", 1, -1};
}

static unsigned long long rng_state;
static unsigned rnd(unsigned n) {
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned)((rng_state >> 33) % n);
}

/* walk draws a sequence from the model's own transitions; returns its length. */
static int walk(struct sym *out) {
  struct model m;
  model_init(&m);
  int n = 0, target = 4 + (int)rnd(MAX_LEN - 8);
  while (n < target) {
    struct sym ok[ALPHABET_MAX];
    int n_ok = 0;
    for (int i = 0; i < n_alphabet; i++) {
      struct model copy = m;
      if (model_step(&copy, &alphabet[i]))
        ok[n_ok++] = alphabet[i];
    }
    if (!n_ok)
      break;
    /* closing symbols are favoured so that executes end and the input is often accepted */
    struct sym s = ok[rnd((unsigned)n_ok)];
    model_step(&m, &s);
    out[n++] = s;
    if (m.idle && n >= target / 2 && rnd(3) == 0)
      break;
  }
  return n;
}

/* feed_core runs seq through core/grammar.c by way of grammar_feed. */
static int feed_core(const struct sym *seq, int n) {
  struct grammar_example ex;
  memset(&ex, 0, sizeof ex);
  for (int i = 0; i < n; i++) {
    struct grammar_symbol *g = &ex.sym[i];
    snprintf(g->name, sizeof g->name, "%s", seq[i].name);
    g->ev = ock_event_parse(seq[i].name);
    g->denied = seq[i].denied;
    if (seq[i].id >= 0)
      snprintf(g->id, sizeof g->id, "%c", 'a' + seq[i].id);
  }
  ex.n = n;
  return grammar_feed(&ex);
}

static void describe(char *out, size_t n, const struct sym *seq, int len) {
  size_t used = 0;
  out[0] = '\0';
  for (int i = 0; i < len && used + 1 < n; i++) {
    int w = snprintf(out + used, n - used, "%s%s%s", i ? " " : "", seq[i].name,
                     seq[i].denied ? "/deny" : "");
    used += w > 0 ? (size_t)w : 0;
    if (seq[i].id >= 0 && used + 1 < n) {
      w = snprintf(out + used, n - used, "(%c)", 'a' + seq[i].id);
      used += w > 0 ? (size_t)w : 0;
    }
  }
}

struct verdicts {
  long compared, accepted, rejected, disagreements;
  int seen[N_ROWS]; /* each symbol accepted at least once somewhere */
  struct sym shortest[MAX_LEN + 1];
  int shortest_len, shortest_core, shortest_model;
};

static void compare(struct verdicts *v, const struct sym *seq, int n) {
  int core = feed_core(seq, n), model = model_first_rejected(seq, n);
  v->compared++;
  if (model < 0)
    v->accepted++;
  else
    v->rejected++;
  for (int i = 0; i < (model < 0 ? n : model); i++) {
    const struct row *r = row_of(seq[i].name);
    if (r)
      v->seen[r - table] = 1;
  }
  if (core == model)
    return;
  v->disagreements++;
  if (!v->shortest_len || n < v->shortest_len) {
    memcpy(v->shortest, seq, (size_t)n * sizeof *seq);
    v->shortest_len = n;
    v->shortest_core = core;
    v->shortest_model = model;
  }
}

static void mutate_and_compare(struct verdicts *v, const struct sym *seq, int n) {
  struct sym m[MAX_LEN + 1];
  /* one insertion */
  int at = (int)rnd((unsigned)n + 1);
  memcpy(m, seq, (size_t)at * sizeof *m);
  m[at] = alphabet[rnd((unsigned)n_alphabet)];
  memcpy(m + at + 1, seq + at, (size_t)(n - at) * sizeof *m);
  compare(v, m, n + 1);
  if (n < 2)
    return;
  /* one deletion */
  at = (int)rnd((unsigned)n);
  memcpy(m, seq, (size_t)at * sizeof *m);
  memcpy(m + at, seq + at + 1, (size_t)(n - at - 1) * sizeof *m);
  compare(v, m, n - 1);
  /* one swap of neighbours */
  at = (int)rnd((unsigned)n - 1);
  memcpy(m, seq, (size_t)n * sizeof *m);
  struct sym t = m[at];
  m[at] = m[at + 1];
  m[at + 1] = t;
  compare(v, m, n);
}

static void automaton_agrees_with_the_table(void) {
  build_alphabet();
  rng_state = 20261123;
  struct verdicts v;
  memset(&v, 0, sizeof v);
  struct sym seq[MAX_LEN];
  for (int i = 0; i < 6000; i++) {
    int n = walk(seq);
    compare(&v, seq, n);
    mutate_and_compare(&v, seq, n);
  }
  if (v.disagreements) {
    char text[2048];
    describe(text, sizeof text, v.shortest, v.shortest_len);
    ock_test_fail(__LINE__, __FILE__,
                  "%ld of %ld sequences judged differently; shortest (%d symbols): %s -- "
                  "automaton rejects at %d, SPEC.md 3.3's table at %d (-1: accepted, %d: the end)",
                  v.disagreements, v.compared, v.shortest_len, text, v.shortest_core,
                  v.shortest_model, v.shortest_len);
  } else {
    CU_PASS("automaton and table agree");
  }
  /* The property is only worth something if both verdicts were drawn often and every symbol
   * was accepted somewhere. */
  if (v.accepted < 2000 || v.rejected < 2000)
    ock_test_fail(__LINE__, __FILE__, "too few of one verdict: %ld accepted, %ld rejected",
                  v.accepted, v.rejected);
  for (size_t i = 0; i < N_ROWS; i++)
    if (!v.seen[i])
      ock_test_fail(__LINE__, __FILE__, "no drawn sequence accepted %s", table[i].name);
}

/* The model must itself read SPEC.md 3.4 as the contract says, or agreeing with it is worth
 * nothing. */
static void table_reads_spec_examples(void) {
  build_alphabet();
  static struct grammar_example ex[96];
  char err[300];
  int n = grammar_read_spec_examples(ex, 96, err, sizeof err);
  if (n < 0) {
    ock_test_fail(__LINE__, __FILE__, "%s", err);
    return;
  }
  for (int k = 0; k < n; k++) {
    struct sym seq[GRAMMAR_EXAMPLE_MAX];
    for (int i = 0; i < ex[k].n; i++) {
      const struct row *r = row_of(ex[k].sym[i].name);
      seq[i] = (struct sym){r ? r->name : "custom:x", ex[k].sym[i].denied,
                            ex[k].sym[i].id[0] ? ex[k].sym[i].id[0] - 'a' : -1};
    }
    OCK_ASSERT_INT_EQ(model_first_rejected(seq, ex[k].n), ex[k].rejected_at);
  }
}

static const struct ock_test tests[] = {
    {"table_reads_spec_examples", table_reads_spec_examples},
    {"automaton_agrees_with_the_table", automaton_agrees_with_the_table},
    {NULL, NULL}};
const struct ock_suite suite_grammar_model = {"grammar_model", tests, NULL, NULL};
