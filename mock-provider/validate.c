/*
 * validate.c: pairs every tool call with its result the way the real APIs insist on.
 *
 * SPEC 6.7 as a walk over the neutral messages that keeps the *open set*: the calls of the
 * latest assistant message with tool calls that have no result yet, in call order.
 *   1. An assistant message with calls: a repeated id is A05; otherwise its calls open.
 *   2. A tool result: already answered A05; nothing open and never issued A02; not an open
 *      id A06; open but not the first unanswered call A08; else the call is answered.
 *   3. Anything else (or the end) while calls are open: A03 or A04 when a result for an open
 *      id still comes later (after a user/system or an assistant message), else A07 when some
 *      of several calls were answered, else A01.
 *   4. Anthropic: a result outside the user message right after its calls counts as if a
 *      user message came first (the neutral form already turns text placed before the
 *      results into such a user message).
 * Only the first problem is reported: it is the one the real API names in its 400.
 */
#include "validate.h"

#include <stdlib.h>
#include <string.h>

#include "idmap.h"
#include "ock/caps.h"
#include "ock/buf.h"
#include "ock/status.h"

const char *ock__shape_name(enum mock_shape shape) {
  switch (shape) {
  case MOCK_A01_UNMATCHED_TOOL_USE:
    return "A01_UNMATCHED_TOOL_USE";
  case MOCK_A02_UNMATCHED_TOOL_RESULT:
    return "A02_UNMATCHED_TOOL_RESULT";
  case MOCK_A03_INTERLEAVED_USER_MSG:
    return "A03_INTERLEAVED_USER_MSG";
  case MOCK_A04_INTERLEAVED_ASST_MSG:
    return "A04_INTERLEAVED_ASST_MSG";
  case MOCK_A05_DUPLICATE_TOOL_CALL_ID:
    return "A05_DUPLICATE_TOOL_CALL_ID";
  case MOCK_A06_WRONG_TOOL_CALL_ID:
    return "A06_WRONG_TOOL_CALL_ID";
  case MOCK_A07_PARALLEL_MISSING_RESULT:
    return "A07_PARALLEL_MISSING_RESULT";
  case MOCK_A08_PARALLEL_WRONG_ORDER:
    return "A08_PARALLEL_WRONG_ORDER";
  case MOCK_SHAPE_NONE:
    break;
  }
  return "";
}

void ock__finding_clear(struct mock_finding *f) {
  free(f->tool_call_id);
  free(f->id);
  free(f->ids);
  free(f->expected);
  memset(f, 0, sizeof *f);
}

static char *dup_or_empty(const char *s) {
  return strdup(s ? s : "");
}

/* The walk's state. Results are accepted only in call order, so the answered calls of the
 * open message are always its first `due` calls. */
struct walk {
  const struct ock_history *h;
  int anthropic;
  long long call_msg;    /* index (in h) of the message whose calls are open; -1: none */
  size_t due;            /* calls of call_msg answered so far; the next one is due */
  size_t n_open;         /* calls of call_msg still unanswered */
  struct idmap issued;   /* every call id issued so far: its message (index) and position */
  struct idmap answered; /* every call id answered so far; both borrow their keys from h */
  struct mock_finding *out;
};

static const char *id_of(const char *id) {
  return id ? id : "";
}

static int report(struct walk *w, enum mock_shape shape, int message_index, const char *first,
                  const char *id, int on_result) {
  struct mock_finding *f = w->out;
  f->shape = shape;
  f->message_index = message_index;
  f->on_result = on_result;
  f->tool_call_id = dup_or_empty(first);
  f->id = dup_or_empty(id);
  return f->tool_call_id && f->id ? OCK_OK : OCK_ENOMEM;
}

/* rule3: a message that is not a result (or the end, or Anthropic's implied user message)
 * while calls are open. `later_from` is where results may still come. */
static int rule3(struct walk *w, int assistant, size_t later_from) {
  const struct ock_history *h = w->h;
  const struct ock_message *m = &h->items[w->call_msg];
  struct ock_buf ids;
  ock_buf_init(&ids, OCK_MAX_ID_LIST + 64);
  int rc = OCK_OK;
  size_t c = w->due;
  for (; c < m->n_calls && !rc; c++) {
    const char *id = id_of(m->calls[c].id);
    if (ids.len + 2 + strlen(id) > OCK_MAX_ID_LIST)
      break; /* the rest is counted, so the 400 stays a readable size */
    rc = ock_buf_printf(&ids, "%s%s", ids.len ? ", " : "", id);
  }
  if (!rc && c < m->n_calls)
    rc = ock_buf_printf(&ids, "%s... and %zu more", ids.len ? ", " : "", m->n_calls - c);
  if (rc) {
    ock_buf_free(&ids);
    return OCK_ENOMEM;
  }
  /* A result for an open call further on? (The walk stops here, so this runs once.) */
  int later = 0;
  for (size_t k = later_from; k < h->len && !later; k++) {
    if (h->items[k].role != OCK_ROLE_TOOL)
      continue;
    const struct idmap_slot *s = ock__idmap_find(&w->issued, id_of(h->items[k].tool_call_id));
    later = s && s->index == (size_t)w->call_msg && s->pos >= w->due;
  }
  enum mock_shape shape =
      later ? (assistant ? MOCK_A04_INTERLEAVED_ASST_MSG : MOCK_A03_INTERLEAVED_USER_MSG)
      : m->n_calls >= 2 && w->due ? MOCK_A07_PARALLEL_MISSING_RESULT
                                  : MOCK_A01_UNMATCHED_TOOL_USE;
  const char *first = id_of(m->calls[w->due].id);
  rc = report(w, shape, m->wire_index, first, first, 0);
  if (!rc) {
    w->out->ids = ock_buf_take(&ids);
    rc = w->out->ids ? OCK_OK : OCK_ENOMEM;
  }
  ock_buf_free(&ids);
  return rc;
}

/* on_result applies rule 2 (and rule 4) to the result at index i. Sets *stop when it found
 * the problem. */
static int on_result(struct walk *w, size_t i, int *stop) {
  const struct ock_history *h = w->h;
  const struct ock_message *r = &h->items[i];
  const char *id = id_of(r->tool_call_id);
  *stop = 1;
  if (w->anthropic && w->n_open && r->wire_index != h->items[w->call_msg].wire_index + 1)
    return rule3(w, 0, i);
  if (ock__idmap_find(&w->answered, id))
    return report(w, MOCK_A05_DUPLICATE_TOOL_CALL_ID, r->wire_index, id, id, 1);
  const struct idmap_slot *s = ock__idmap_find(&w->issued, id);
  if (!w->n_open)
    return report(w, s ? MOCK_A05_DUPLICATE_TOOL_CALL_ID : MOCK_A02_UNMATCHED_TOOL_RESULT,
                  r->wire_index, id, id, 1);
  if (!s || s->index != (size_t)w->call_msg)
    return report(w, MOCK_A06_WRONG_TOOL_CALL_ID, r->wire_index, id, id, 1);
  if (s->pos != w->due) {
    const char *expected = id_of(h->items[w->call_msg].calls[w->due].id);
    int rc = report(w, MOCK_A08_PARALLEL_WRONG_ORDER, r->wire_index, expected, id, 1);
    if (!rc && !(w->out->expected = dup_or_empty(expected)))
      rc = OCK_ENOMEM;
    return rc;
  }
  w->due++;
  w->n_open--;
  *stop = 0;
  return ock__idmap_put(&w->answered, id, i, 0);
}

/* on_calls applies rule 1 to the assistant message with calls at index i. */
static int on_calls(struct walk *w, size_t i, int *stop) {
  const struct ock_message *m = &w->h->items[i];
  for (size_t c = 0; c < m->n_calls; c++) {
    const char *id = id_of(m->calls[c].id);
    if (ock__idmap_find(&w->issued, id)) { /* issued before, or earlier in this message */
      *stop = 1;
      return report(w, MOCK_A05_DUPLICATE_TOOL_CALL_ID, m->wire_index, id, id, 0);
    }
    int rc = ock__idmap_put(&w->issued, id, i, c);
    if (rc)
      return rc;
  }
  w->call_msg = (long long)i;
  w->due = 0;
  w->n_open = m->n_calls;
  return OCK_OK;
}

int ock__validate_first(const struct ock_history *h, int anthropic, struct mock_finding *out) {
  memset(out, 0, sizeof *out);
  struct walk w = {.h = h, .anthropic = anthropic, .call_msg = -1, .out = out};
  int rc = OCK_OK, stop = 0;
  for (size_t i = 0; i <= h->len && !rc && !stop; i++) {
    const struct ock_message *m = i < h->len ? &h->items[i] : NULL;
    if (m && m->role == OCK_ROLE_TOOL) {
      rc = on_result(&w, i, &stop);
      continue;
    }
    if (w.n_open) {
      rc = rule3(&w, m && m->role == OCK_ROLE_ASSISTANT, i + 1);
      stop = 1;
      continue;
    }
    if (m && m->role == OCK_ROLE_ASSISTANT && m->n_calls)
      rc = on_calls(&w, i, &stop);
  }
  ock__idmap_free(&w.issued);
  ock__idmap_free(&w.answered);
  if (rc)
    ock__finding_clear(out);
  return rc;
}

int ock__validate_history(const struct ock_history *h, struct mock_findings *out) {
  struct mock_finding f;
  int rc = ock__validate_first(h, 0, &f);
  if (rc || f.shape == MOCK_SHAPE_NONE)
    return rc;
  struct mock_finding *items = realloc(out->items, (out->len + 1) * sizeof *items);
  if (!items) {
    ock__finding_clear(&f);
    return OCK_ENOMEM;
  }
  items[out->len++] = f;
  out->items = items;
  out->cap = out->len;
  return OCK_OK;
}

const struct mock_finding *ock__findings_first_blocking(const struct mock_findings *f) {
  return f->len ? &f->items[0] : NULL;
}

void ock__findings_free(struct mock_findings *f) {
  for (size_t i = 0; i < f->len; i++)
    ock__finding_clear(&f->items[i]);
  free(f->items);
  memset(f, 0, sizeof *f);
}
