/*
 * validate.c: pairs every tool call with its result the way the real APIs insist on.
 *
 * The rule both providers enforce: an assistant message with tool calls must be followed,
 * immediately, by exactly one result for each call; a result must answer a call of the
 * assistant message right before its block. The walk below reads each assistant message
 * with calls together with the run of tool results after it, and classifies every way that
 * pairing can fail into the eight shapes of validate.h. Each offending id is reported once,
 * under the shape that explains it best: a result that turns up late (after a user or an
 * assistant message) makes A03/A04 for its call, not also A02 for itself; a block with a
 * wrong id makes A06, not also A01 for the call the wrong result was meant for.
 */
#include "validate.h"

#include <stdlib.h>
#include <string.h>

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
  }
  return "unknown";
}

static int add(struct mock_findings *out, enum mock_shape shape, int message_index,
               const char *id, int on_result, int call_index, const char *missing) {
  if (out->len >= MOCK_MAX_FINDINGS)
    return OCK_OK;
  if (out->len == out->cap) {
    size_t cap = out->cap ? out->cap * 2 : 8;
    struct mock_finding *p = realloc(out->items, cap * sizeof *p);
    if (!p)
      return OCK_ENOMEM;
    out->items = p;
    out->cap = cap;
  }
  struct mock_finding f = {.shape = shape,
                           .message_index = message_index,
                           .on_result = on_result,
                           .call_index = call_index,
                           .blocking = shape != MOCK_A08_PARALLEL_WRONG_ORDER};
  f.tool_call_id = strdup(id ? id : "");
  f.missing = missing && *missing ? strdup(missing) : NULL;
  if (!f.tool_call_id || (missing && *missing && !f.missing)) {
    free(f.tool_call_id);
    free(f.missing);
    return OCK_ENOMEM;
  }
  out->items[out->len++] = f;
  return OCK_OK;
}

static int same_id(const char *a, const char *b) {
  return a && b && !strcmp(a, b);
}

/* earlier_call: does a message before `before` carry a call with this id? */
static int earlier_call(const struct ock_history *h, size_t before, const char *id) {
  for (size_t i = 0; i < before; i++)
    for (size_t c = 0; c < h->items[i].n_calls; c++)
      if (same_id(h->items[i].calls[c].id, id))
        return 1;
  return 0;
}

/* earlier_result: was this id already answered by a claimed result before `before`? */
static int earlier_result(const struct ock_history *h, const unsigned char *claimed,
                          size_t before, const char *id) {
  for (size_t i = 0; i < before; i++)
    if (claimed[i] && h->items[i].role == OCK_ROLE_TOOL && same_id(h->items[i].tool_call_id, id))
      return 1;
  return 0;
}

/* check_calls handles one assistant message with calls (index i) and its block of results.
 * answered[] has room for the message's calls. */
static int check_calls(const struct ock_history *h, size_t i, unsigned char *claimed,
                       int *answered, struct mock_findings *out) {
  const struct ock_message *m = &h->items[i];
  int rc;
  for (size_t c = 0; c < m->n_calls; c++) {
    int dup = earlier_call(h, i, m->calls[c].id);
    for (size_t d = 0; d < c && !dup; d++)
      dup = same_id(m->calls[d].id, m->calls[c].id);
    if (dup && (rc = add(out, MOCK_A05_DUPLICATE_TOOL_CALL_ID, m->wire_index, m->calls[c].id, 0,
                         m->wire_index, m->calls[c].id)))
      return rc;
  }
  size_t j = i + 1;
  while (j < h->len && h->items[j].role == OCK_ROLE_TOOL)
    j++;
  for (size_t c = 0; c < m->n_calls; c++)
    answered[c] = 0;
  int any_answered = 0, wrong = 0;
  long long max_pos = -1;
  size_t out_of_order = 0;
  for (size_t k = i + 1; k < j; k++) {
    const struct ock_message *r = &h->items[k];
    if (claimed[k])
      continue;
    claimed[k] = 1;
    long long pos = -1;
    for (size_t c = 0; c < m->n_calls && pos < 0; c++)
      if (same_id(m->calls[c].id, r->tool_call_id))
        pos = (long long)c;
    if (pos >= 0 && !answered[pos]) {
      answered[pos] = 1;
      any_answered = 1;
      if (pos < max_pos && !out_of_order)
        out_of_order = k;
      if (pos > max_pos)
        max_pos = pos;
      continue;
    }
    if (pos >= 0 || earlier_result(h, claimed, i, r->tool_call_id)) {
      rc = add(out, MOCK_A05_DUPLICATE_TOOL_CALL_ID, r->wire_index, r->tool_call_id, 1, -1, NULL);
    } else {
      /* An id of no call of this message: the result of a wrong id. (Its text needs the
       * missing ids, filled in below once they are known.) */
      wrong = 1;
      rc = add(out, MOCK_A06_WRONG_TOOL_CALL_ID, r->wire_index, r->tool_call_id, 1,
               m->wire_index, NULL);
    }
    if (rc)
      return rc;
  }

  struct ock_buf missing;
  ock_buf_init(&missing, 64 * 1024);
  for (size_t c = 0; c < m->n_calls; c++)
    if (!answered[c])
      ock_buf_printf(&missing, "%s%s", missing.len ? ", " : "", m->calls[c].id ? m->calls[c].id : "");
  rc = OCK_OK;
  if (wrong && missing.len) {
    for (size_t f = 0; f < out->len; f++) {
      struct mock_finding *x = &out->items[f];
      if (x->shape == MOCK_A06_WRONG_TOOL_CALL_ID && x->call_index == m->wire_index && !x->missing)
        x->missing = strdup(missing.data);
    }
  }
  for (size_t c = 0; c < m->n_calls && !rc; c++) {
    if (answered[c])
      continue;
    const char *id = m->calls[c].id;
    size_t late = 0;
    for (size_t k = j; k < h->len && !late; k++)
      if (h->items[k].role == OCK_ROLE_TOOL && !claimed[k] && same_id(h->items[k].tool_call_id, id))
        late = k;
    if (late) {
      claimed[late] = 1;
      enum mock_shape shape = h->items[j].role == OCK_ROLE_ASSISTANT
                                  ? MOCK_A04_INTERLEAVED_ASST_MSG
                                  : MOCK_A03_INTERLEAVED_USER_MSG;
      rc = add(out, shape, h->items[j].wire_index, id, 0, m->wire_index, missing.data);
    } else if (!wrong) {
      enum mock_shape shape = m->n_calls > 1 && any_answered ? MOCK_A07_PARALLEL_MISSING_RESULT
                                                             : MOCK_A01_UNMATCHED_TOOL_USE;
      rc = add(out, shape, m->wire_index, id, 0, m->wire_index, missing.data);
    }
  }
  if (!rc && !missing.len && out_of_order)
    rc = add(out, MOCK_A08_PARALLEL_WRONG_ORDER, h->items[out_of_order].wire_index,
             h->items[out_of_order].tool_call_id, 1, m->wire_index, NULL);
  ock_buf_free(&missing);
  return rc;
}

int ock__validate_history(const struct ock_history *h, struct mock_findings *out) {
  if (!h->len)
    return OCK_OK;
  size_t max_calls = 1;
  for (size_t i = 0; i < h->len; i++)
    if (h->items[i].n_calls > max_calls)
      max_calls = h->items[i].n_calls;
  unsigned char *claimed = calloc(h->len, 1);
  int *answered = calloc(max_calls, sizeof *answered);
  int rc = claimed && answered ? OCK_OK : OCK_ENOMEM;
  for (size_t i = 0; i < h->len && !rc; i++) {
    const struct ock_message *m = &h->items[i];
    if (m->role == OCK_ROLE_ASSISTANT && m->n_calls) {
      rc = check_calls(h, i, claimed, answered, out);
    } else if (m->role == OCK_ROLE_TOOL && !claimed[i]) {
      claimed[i] = 1;
      int dup = earlier_result(h, claimed, i, m->tool_call_id);
      rc = add(out, dup ? MOCK_A05_DUPLICATE_TOOL_CALL_ID : MOCK_A02_UNMATCHED_TOOL_RESULT,
               m->wire_index, m->tool_call_id, 1, -1, NULL);
    }
  }
  free(claimed);
  free(answered);
  return rc;
}

const struct mock_finding *ock__findings_first_blocking(const struct mock_findings *f) {
  const struct mock_finding *best = NULL;
  for (size_t i = 0; i < f->len; i++) {
    const struct mock_finding *x = &f->items[i];
    if (x->blocking && (!best || x->message_index < best->message_index))
      best = x;
  }
  return best;
}

void ock__findings_free(struct mock_findings *f) {
  for (size_t i = 0; i < f->len; i++) {
    free(f->items[i].tool_call_id);
    free(f->items[i].missing);
  }
  free(f->items);
  f->items = NULL;
  f->len = 0;
  f->cap = 0;
}
