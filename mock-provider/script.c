/*
 * script.c: turn matching (see script.h).
 *
 * Explicit matches win over order so that a fixture can pin one answer to a situation (the
 * request after tool call X) without counting requests; everything else plays in order.
 */
#include "script.h"

#include <string.h>

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

static int matches(const struct mock_turn *t, const struct mock_match_input *in) {
  switch (t->match) {
  case MOCK_MATCH_POSITION:
    return in->position == t->position;
  case MOCK_MATCH_LAST_CONTAINS:
    return in->last_text && strstr(in->last_text, t->match_text) != NULL;
  case MOCK_MATCH_LAST_TOOL_CALL_ID:
    return in->last_tool_call_id && !strcmp(in->last_tool_call_id, t->match_text);
  case MOCK_MATCH_NEXT:
    break;
  }
  return 0;
}

static void describe_turn(const struct mock_provider *p, size_t i, struct ock_buf *why) {
  const struct mock_turn *t = &p->turns[i];
  ock_buf_printf(why, "$.script.%s[%zu]", p->name, i);
  switch (t->match) {
  case MOCK_MATCH_POSITION:
    ock_buf_printf(why, " (match position %lld)", t->position);
    break;
  case MOCK_MATCH_LAST_CONTAINS:
    ock_buf_printf(why, " (match last_message_contains \"%.100s\")", t->match_text);
    break;
  case MOCK_MATCH_LAST_TOOL_CALL_ID:
    ock_buf_printf(why, " (match last_tool_call_id \"%.100s\")", t->match_text);
    break;
  case MOCK_MATCH_NEXT:
    ock_buf_puts(why, " (next in order)");
    break;
  }
}

int ock__script_pick(const struct mock_provider *p, unsigned char *used,
                     const struct mock_match_input *in, struct ock_buf *why) {
  for (size_t i = 0; i < p->n_turns; i++) {
    if (!used[i] && p->turns[i].match != MOCK_MATCH_NEXT && matches(&p->turns[i], in)) {
      used[i] = 1;
      return (int)i;
    }
  }
  for (size_t i = 0; i < p->n_turns; i++) {
    if (!used[i] && p->turns[i].match == MOCK_MATCH_NEXT) {
      used[i] = 1;
      return (int)i;
    }
  }
  ock_buf_printf(why, "request %lld to provider \"%s\" matches no scripted turn: ", in->position,
                 p->name);
  size_t unused = 0;
  for (size_t i = 0; i < p->n_turns; i++)
    unused += !used[i];
  if (!p->n_turns) {
    ock_buf_printf(why, "$.script.%s has no turns", p->name);
  } else if (!unused) {
    ock_buf_printf(why, "all %zu turns of $.script.%s are used", p->n_turns, p->name);
  } else {
    ock_buf_puts(why, "expected ");
    size_t shown = 0;
    for (size_t i = 0; i < p->n_turns && shown < 3; i++) {
      if (used[i])
        continue;
      if (shown++)
        ock_buf_puts(why, " or ");
      describe_turn(p, i, why);
    }
    if (unused > shown)
      ock_buf_printf(why, " (and %zu more)", unused - shown);
  }
  ock_buf_printf(why, "; the request's last message is %s", in->last_role ? in->last_role : "none");
  if (in->last_text)
    ock_buf_printf(why, " \"%.80s\"", in->last_text);
  if (in->last_tool_call_id)
    ock_buf_printf(why, ", the result for \"%.100s\"", in->last_tool_call_id);
  return -1;
}
