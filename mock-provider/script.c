/*
 * script.c: turn matching (see script.h).
 *
 * Explicit matches win over order so that a fixture can pin one answer to a situation (the
 * request after tool call X) without counting requests; everything else plays in order.
 */
#include "script.h"

#include <stdlib.h>
#include <string.h>

#include "ock/status.h"

void ock__match_input_from(const struct ock_history *h, long long position,
                           struct mock_match_input *in) {
  memset(in, 0, sizeof *in);
  in->position = position;
  if (h->len) {
    const struct ock_message *last = &h->items[h->len - 1];
    in->last_text = last->content;
    in->last_role = ock_role_name(last->role);
    if (last->role == OCK_ROLE_TOOL)
      in->last_tool_call_id = last->tool_call_id;
  }
}

static int matches(const struct ock_fx_turn *t, const struct mock_match_input *in) {
  switch (t->match) {
  case OCK_FX_MATCH_POSITION:
    return in->position == t->position;
  case OCK_FX_MATCH_LAST_CONTAINS:
    return in->last_text && strstr(in->last_text, t->match_text) != NULL;
  case OCK_FX_MATCH_LAST_TOOL_CALL_ID:
    return in->last_tool_call_id && !strcmp(in->last_tool_call_id, t->match_text);
  case OCK_FX_MATCH_NEXT:
    break;
  }
  return 0;
}

/* describe_turn appends turn i's path and match to why; returns ock_buf_append's status. */
static int describe_turn(const struct ock_fx_provider *p, size_t i, struct ock_buf *why) {
  const struct ock_fx_turn *t = &p->turns[i];
  int rc = ock_buf_printf(why, "$.script.%s[%zu]", p->name, i);
  switch (t->match) {
  case OCK_FX_MATCH_POSITION:
    return rc | ock_buf_printf(why, " (match position %lld)", t->position);
  case OCK_FX_MATCH_LAST_CONTAINS:
    return rc | ock_buf_printf(why, " (match last_message_contains \"%.100s\")", t->match_text);
  case OCK_FX_MATCH_LAST_TOOL_CALL_ID:
    return rc | ock_buf_printf(why, " (match last_tool_call_id \"%.100s\")", t->match_text);
  case OCK_FX_MATCH_NEXT:
    return rc | ock_buf_puts(why, " (next in order)");
  }
  return rc;
}

int ock__play_init(struct mock_play *pl, const struct ock_fx_provider *p) {
  memset(pl, 0, sizeof *pl);
  size_t n = p->n_turns ? p->n_turns : 1;
  pl->used = calloc(n, 1);
  pl->matched = calloc(n, sizeof *pl->matched);
  if (!pl->used || !pl->matched) {
    ock__play_free(pl);
    return OCK_ENOMEM;
  }
  for (size_t i = 0; i < p->n_turns; i++)
    if (p->turns[i].match != OCK_FX_MATCH_NEXT)
      pl->matched[pl->n_matched++] = i;
  return OCK_OK;
}

void ock__play_free(struct mock_play *pl) {
  free(pl->used);
  free(pl->matched);
  memset(pl, 0, sizeof *pl);
}

static int take(struct mock_play *pl, size_t i) {
  pl->used[i] = 1;
  pl->n_used++;
  return (int)i;
}

int ock__script_pick(const struct ock_fx_provider *p, struct mock_play *pl,
                     const struct mock_match_input *in, struct ock_buf *why) {
  for (size_t k = 0; k < pl->n_matched; k++) {
    size_t i = pl->matched[k];
    if (!pl->used[i] && matches(&p->turns[i], in))
      return take(pl, i);
  }
  while (pl->next < p->n_turns &&
         (pl->used[pl->next] || p->turns[pl->next].match != OCK_FX_MATCH_NEXT))
    pl->next++;
  if (pl->next < p->n_turns)
    return take(pl, pl->next++);

  /* A dead buffer repeats its status, so rc |= keeps the first failure. */
  int rc = ock_buf_printf(
      why, "request %lld to provider \"%s\" matches no scripted turn: ", in->position, p->name);
  size_t unused = p->n_turns - pl->n_used;
  if (!p->n_turns) {
    rc |= ock_buf_printf(why, "$.script.%s has no turns", p->name);
  } else if (!unused) {
    rc |= ock_buf_printf(why, "all %zu turns of $.script.%s are used", p->n_turns, p->name);
  } else {
    /* Only turns with a match are left unused: name them. */
    rc |= ock_buf_puts(why, "expected ");
    size_t shown = 0;
    for (size_t k = 0; k < pl->n_matched && shown < 3; k++) {
      if (pl->used[pl->matched[k]])
        continue;
      if (shown++)
        rc |= ock_buf_puts(why, " or ");
      rc |= describe_turn(p, pl->matched[k], why);
    }
    if (unused > shown)
      rc |= ock_buf_printf(why, " (and %zu more)", unused - shown);
  }
  rc |= ock_buf_printf(why, "; the request's last message is %s",
                       in->last_role ? in->last_role : "none");
  if (in->last_text)
    rc |= ock_buf_printf(why, " \"%.80s\"", in->last_text);
  if (in->last_tool_call_id)
    rc |= ock_buf_printf(why, ", the result for \"%.100s\"", in->last_tool_call_id);
  return rc ? rc : -1;
}
