/*
 * pair.c: tool events without a tool_call_id, read with the id of the call they report
 * (SPEC.md 4.6; see pair.h).
 *
 * Amplifier's own loops send tool:pre {tool_name, tool_input} and no id. The checks pair calls,
 * events and tool endpoint requests by id, so one missing field would fail every tool check of
 * the scenario. Here each such event is paired, as the MCP door pairs an id-less tools/call
 * (SPEC.md 7.10), with a call of the latest LLM reply of its execute: the same name, arguments
 * equal as JSON values when the event carries its input (a tool:post also by its result against
 * the tool_end replies), among the calls that have no event of this kind yet. Calls that are the
 * same in name and arguments cannot be told apart by
 * their events; the endpoint traffic decides among them (the call whose tool_start comes first
 * after a tool:pre, whose tool_end came first before a tool:post), so a correct orchestrator
 * that runs two equal calls out of order is not failed, and one that runs a call before any
 * tool:pre is. When calls of the same name but other arguments remain and the event says
 * nothing to choose between them, the event stays without an id and the grammar refuses it.
 */
#include "model/pair.h"

#include <stdlib.h>
#include <string.h>

#include "ock/contract.h"
#include "ock/events.h"
#include "ock/json.h"
#include "model/view.h"

#define PAIR_MAX_CALLS 64 /* calls of one reply that are paired; later ones are not */

enum slot { SLOT_SELECTING, SLOT_SELECTED, SLOT_PRE, SLOT_CLOSE, SLOT_COUNT };

struct round {
  cJSON *owned;                       /* a copy of the latest reply's tool_calls */
  const cJSON *calls[PAIR_MAX_CALLS]; /* its items */
  cJSON *args[PAIR_MAX_CALLS];        /* their arguments as JSON ({} when empty), or NULL */
  unsigned char taken[PAIR_MAX_CALLS][SLOT_COUNT];
  char *chosen[PAIR_MAX_CALLS]; /* the tool a tool:selected named for it, or NULL; owned */
  size_t n;
};

struct ock_pairer {
  struct round r;
};

static void round_clear(struct round *r) {
  for (size_t i = 0; i < r->n; i++) {
    cJSON_Delete(r->args[i]);
    free(r->chosen[i]);
  }
  cJSON_Delete(r->owned);
  memset(r, 0, sizeof *r);
}

/* args_of: a call's arguments as JSON: the text parsed (the mock's journal), or the value (a
 * provider:response event); {} when absent or empty. NULL when the text is not JSON. */
static cJSON *args_of(const cJSON *call) {
  const cJSON *a = cJSON_GetObjectItemCaseSensitive(call, "arguments");
  if (cJSON_IsString(a))
    return *a->valuestring ? cJSON_Parse(a->valuestring) : cJSON_CreateObject();
  return a ? cJSON_Duplicate(a, 1) : cJSON_CreateObject();
}

static void round_from_calls(struct round *r, const cJSON *tool_calls) {
  round_clear(r);
  r->owned = cJSON_Duplicate(tool_calls, 1);
  const cJSON *c;
  cJSON_ArrayForEach(c, r->owned) {
    if (r->n == PAIR_MAX_CALLS)
      break;
    r->calls[r->n] = c;
    r->args[r->n] = args_of(c);
    r->n++;
  }
}

static enum slot slot_of(const char *name) {
  if (!strcmp(name, OCK_EV_TOOL_SELECTING))
    return SLOT_SELECTING;
  if (!strcmp(name, OCK_EV_TOOL_SELECTED))
    return SLOT_SELECTED;
  if (!strcmp(name, OCK_EV_TOOL_PRE))
    return SLOT_PRE;
  return SLOT_CLOSE; /* tool:post, tool:error */
}

/* same_call: calls i and j have the same name and equal arguments. */
static int same_call(const struct round *r, size_t i, size_t j) {
  return !strcmp(ock__str_field(r->calls[i], "name"), ock__str_field(r->calls[j], "name")) &&
         r->args[i] && r->args[j] && cJSON_Compare(r->args[i], r->args[j], 1);
}

/* traffic_index: the entry index of the first tool_start (kind) with call i's id after entry
 * `at` (forward), or of the first tool_end before it (backward); (size_t)-1 when none. */
static size_t traffic_index(const cJSON *const *ents, size_t n, size_t at, const struct round *r,
                            size_t i, int forward) {
  const char *id = ock__str_field(r->calls[i], "id");
  enum ock_journal_kind kind = forward ? OCK_ENTRY_TOOL_START : OCK_ENTRY_TOOL_END;
  const char *id_field = forward ? OCK_F_TOOL_START_TOOL_CALL_ID : OCK_F_TOOL_END_TOOL_CALL_ID;
  for (size_t k = forward ? at + 1 : 0; ents && (forward ? k < n : k < at); k++) {
    const cJSON *e = ents[k];
    if (ock__is_kind(e, kind) && !strcmp(ock__str_field(e, id_field), id))
      return k;
  }
  return (size_t)-1;
}

/* choose: among the candidate calls (cand, all the same call), the one the endpoint traffic
 * names: the first started after a tool:pre, the first ended before a tool:post or tool:error;
 * else the first in the reply's order. */
static size_t choose(const cJSON *const *ents, size_t n, size_t at, const struct round *r,
                     const size_t *cand, size_t nc, enum slot s) {
  if (s == SLOT_SELECTING || s == SLOT_SELECTED)
    return cand[0];
  size_t best = cand[0], best_at = (size_t)-1;
  for (size_t k = 0; k < nc; k++) {
    size_t t = traffic_index(ents, n, at, r, cand[k], s == SLOT_PRE);
    if (t != (size_t)-1 && (best_at == (size_t)-1 || t < best_at)) {
      best = cand[k];
      best_at = t;
    }
  }
  return best;
}

/* ended_with: the tool_end of call i before entry `at` replied `result` (JSON values equal). */
static int ended_with(const cJSON *const *ents, size_t at, const struct round *r, size_t i,
                      const cJSON *result) {
  size_t t = traffic_index(ents, at, at, r, i, 0);
  const cJSON *end = t == (size_t)-1 ? NULL : ents[t];
  const cJSON *reply = cJSON_GetObjectItemCaseSensitive(end, OCK_F_TOOL_END_REPLY);
  return reply && cJSON_Compare(reply, result, 1);
}

/* narrow: keep the candidates for which keep() holds, unless none does. */
static size_t narrow(size_t *out, size_t n, const int *keep) {
  size_t m = 0;
  for (size_t k = 0; k < n; k++)
    if (keep[k])
      out[m++] = out[k];
  return m ? m : n;
}

/* candidates: the calls the tool event e (data d, slot s, entry index at) may report, free in
 * slot s: the same name (or the tool a tool:selected chose for it); of those, the ones whose
 * arguments equal the event's tool_input, and for a tool:post the ones whose tool_end replied its
 * result, when some do. Returns the count; 0 also when calls that differ remain and nothing
 * tells them apart. */
static size_t candidates(const cJSON *const *ents, size_t at, const struct round *r, const cJSON *d,
                         enum slot s, size_t *out) {
  const char *name = ock_json_str(d, s == SLOT_SELECTED ? OCK_PF_ORIGINAL_TOOL : OCK_PF_TOOL_NAME);
  if (!name)
    name = ock__str_field(d, OCK_PF_TOOL_NAME);
  const cJSON *input = cJSON_GetObjectItemCaseSensitive(d, OCK_PF_TOOL_INPUT);
  const cJSON *result = cJSON_GetObjectItemCaseSensitive(d, OCK_PF_RESULT);
  size_t n = 0;
  int keep[PAIR_MAX_CALLS];
  for (size_t i = 0; i < r->n; i++)
    if (!r->taken[i][s] && (!strcmp(ock__str_field(r->calls[i], "name"), name) ||
                            (r->chosen[i] && !strcmp(r->chosen[i], name))))
      out[n++] = i;
  for (size_t k = 0; input && k < n; k++)
    keep[k] = r->args[out[k]] && cJSON_Compare(r->args[out[k]], input, 1);
  if (input)
    n = narrow(out, n, keep);
  for (size_t k = 0; result && s == SLOT_CLOSE && k < n; k++)
    keep[k] = ended_with(ents, at, r, out[k], result);
  if (result && s == SLOT_CLOSE)
    n = narrow(out, n, keep);
  for (size_t k = 1; k < n; k++)
    if (!same_call(r, out[0], out[k]))
      return 0; /* calls that differ, and nothing to choose between them */
  return n;
}

/* take: call i is reported by event data d of slot s; a tool:selected names the tool that runs
 * for it from then on (the scheduler may choose another, SPEC.md 5.8), under which its tool:pre
 * and tool:post come. */
static void take(struct round *r, size_t i, enum slot s, const cJSON *d) {
  r->taken[i][s] = 1;
  if (s == SLOT_SELECTED && ock_json_str(d, OCK_PF_TOOL_NAME)) {
    free(r->chosen[i]);
    r->chosen[i] = strdup(ock_json_str(d, OCK_PF_TOOL_NAME));
  }
}

ock_pairer *ock__pairer_new(void) {
  return calloc(1, sizeof(ock_pairer));
}

void ock__pairer_free(ock_pairer *p) {
  if (!p)
    return;
  round_clear(&p->r);
  free(p);
}

void ock__pairer_calls(ock_pairer *p, const cJSON *tool_calls) {
  round_from_calls(&p->r, tool_calls);
}

void ock__pairer_reset(ock_pairer *p) {
  round_clear(&p->r);
}

int ock__pairer_event(ock_pairer *p, const char *name, cJSON *data, const cJSON *const *ents,
                      size_t n, size_t at) {
  struct round *r = &p->r;
  if (!ock_event_is_tool(ock_event_parse(name)) || !cJSON_IsObject(data))
    return 0;
  enum slot s = slot_of(name);
  if (cJSON_HasObjectItem(data, OCK_PF_TOOL_CALL_ID)) { /* it names its call: that call's slot */
    const char *id = ock_json_str(data, OCK_PF_TOOL_CALL_ID);
    for (size_t i = 0; id && i < r->n; i++)
      if (!strcmp(ock__str_field(r->calls[i], "id"), id))
        take(r, i, s, data);
    return 0; /* an id of the wrong type: the grammar says so */
  }
  size_t cand[PAIR_MAX_CALLS];
  size_t nc = candidates(ents, at, r, data, s, cand);
  if (!nc)
    return 0; /* nothing to pair with: the grammar refuses the event */
  size_t i = choose(ents, n, at, r, cand, nc, s);
  take(r, i, s, data);
  return cJSON_AddStringToObject(data, OCK_PF_TOOL_CALL_ID, ock__str_field(r->calls[i], "id")) !=
         NULL;
}

size_t ock__pair_tool_events(cJSON *journal) {
  size_t paired = 0, n = (size_t)cJSON_GetArraySize(journal), k = 0;
  /* The entries by index: the traffic is searched around each id-less event. Without room for
   * it nothing is paired, and the grammar refuses the id-less events: never a false pass. */
  const cJSON **ents = n ? malloc(n * sizeof *ents) : NULL;
  ock_pairer *p = ents ? ock__pairer_new() : NULL;
  if (!p) {
    free(ents);
    return 0;
  }
  for (const cJSON *e = journal->child; e && k < n; e = e->next)
    ents[k++] = e;
  k = 0;
  for (cJSON *e = journal->child; e; e = e->next, k++) {
    if (ock__is_kind(e, OCK_ENTRY_LLM_REPLY) && !ock__reply_failed(e))
      ock__pairer_calls(p, cJSON_GetObjectItemCaseSensitive(e, OCK_F_LLM_REPLY_TOOL_CALLS));
    if (!ock__is_kind(e, OCK_ENTRY_EVENT))
      continue;
    const char *name = ock__event_name(e);
    if (!strcmp(name, OCK_EV_PROMPT_SUBMIT))
      ock__pairer_reset(p); /* a new execute: the calls of the last one are not this one's */
    if (ock__pairer_event(p, name, cJSON_GetObjectItemCaseSensitive(e, OCK_F_EVENT_DATA), ents, n,
                          k)) {
      cJSON_AddBoolToObject(e, OCK_F_EVENT_TOOL_CALL_ID_INFERRED, 1);
      paired++;
    }
  }
  ock__pairer_free(p);
  free(ents);
  return paired;
}
