/* view_calls.c: the fate of each tool call (see view_calls.h). */
#include "model/view_calls.h"

#include <stdlib.h>
#include <string.h>

#include "ock/contract.h"
#include "ock/json.h"

const char *ock__call_id(const struct call_fate *f) {
  return ock__str_field(f->call, "id");
}

const char *ock__call_name(const struct call_fate *f) {
  return ock__str_field(f->call, "name");
}

const char *ock__call_args(const struct call_fate *f) {
  return ock__str_field(f->call, "arguments");
}

const char *ock__fate_error_type(const struct call_fate *f) {
  return ock__str_field(ock__pf(f->error, OCK_FIELD_ERROR), "type");
}

static void collect(const struct view *v, struct call_fate *f) {
  const char *id = ock__call_id(f);
  size_t end = f->x ? f->x->end : v->n;
  for (size_t i = f->reply_index + 1; i < end; i++) {
    const cJSON *e = v->e[i];
    if (ock__is_kind(e, OCK_ENTRY_EVENT)) {
      if (!ock__pf_is(e, OCK_FIELD_TOOL_CALL_ID, id))
        continue;
      const char *n = ock__event_name(e);
      const cJSON **slot = !strcmp(n, OCK_EV_TOOL_SELECTING)  ? &f->selecting
                           : !strcmp(n, OCK_EV_TOOL_SELECTED) ? &f->selected
                           : !strcmp(n, OCK_EV_TOOL_PRE)      ? &f->pre
                           : !strcmp(n, OCK_EV_TOOL_POST)     ? &f->post
                           : !strcmp(n, OCK_EV_TOOL_ERROR)    ? &f->error
                                                              : NULL;
      if (slot && !*slot)
        *slot = e;
    } else if (ock__is_kind(e, OCK_ENTRY_TOOL_START) && !f->start &&
               !strcmp(ock__str_field(e, OCK_F_TOOL_START_TOOL_CALL_ID), id)) {
      f->start = e;
      f->start_index = i;
    } else if (ock__is_kind(e, OCK_ENTRY_TOOL_END) && !f->end &&
               !strcmp(ock__str_field(e, OCK_F_TOOL_END_TOOL_CALL_ID), id)) {
      f->end = e;
    }
  }
}

size_t ock__call_fates(const struct view *v, struct call_fate **out) {
  size_t n = 0, cap = 0;
  struct call_fate *fates = NULL;
  for (size_t i = 0; i < v->n; i++) {
    const cJSON *reply = v->e[i];
    if (!ock__is_kind(reply, OCK_ENTRY_LLM_REPLY) || ock__reply_failed(reply) ||
        ock__view_is_wrap_up(v, i))
      continue;
    const cJSON *c;
    int idx = 0;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(reply, OCK_F_LLM_REPLY_TOOL_CALLS)) {
      if (n == cap) {
        cap = cap ? cap * 2 : 16;
        struct call_fate *p = realloc(fates, cap * sizeof *p);
        if (!p) {
          free(fates);
          *out = NULL;
          return 0;
        }
        fates = p;
      }
      struct call_fate *f = &fates[n++];
      memset(f, 0, sizeof *f);
      f->call = c;
      f->reply = reply;
      f->reply_index = i;
      f->x = ock__view_exec_of(v, i);
      f->call_index = idx++;
      collect(v, f);
    }
  }
  *out = fates;
  return n;
}

const cJSON *ock__next_request_after(const struct view *v, size_t i, size_t *index_out) {
  for (size_t j = i + 1; j < v->n; j++) {
    if (ock__is_kind(v->e[j], OCK_ENTRY_LLM_REQUEST)) {
      if (index_out)
        *index_out = j;
      return v->e[j];
    }
  }
  return NULL;
}

const char *ock__request_result_text(const cJSON *request, const char *id) {
  const cJSON *m;
  cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(request, OCK_F_LLM_REQUEST_NEUTRAL))
    if (!strcmp(ock__str_field(m, "role"), "tool") &&
        !strcmp(ock__str_field(m, "tool_call_id"), id))
      return ock__str_field(m, "content");
  return NULL;
}

const char *ock__call_not_fed_back(const struct view *v, const struct call_fate *f, int goes_on) {
  size_t j = 0;
  const cJSON *next = ock__next_request_after(v, f->reply_index, &j);
  const cJSON *c = f->x ? f->x->complete_entry : NULL;
  int may_stop = ock__pf_is(c, OCK_FIELD_STATUS, OCK_PV_STATUS_CANCELLED) ||
                 ock__pf_is(c, OCK_FIELD_STATUS, OCK_PV_STATUS_ERROR);
  for (size_t i = f->x ? f->x->first : 0; f->x && i < f->x->end && !may_stop; i++)
    may_stop = ock__is_kind(v->e[i], OCK_ENTRY_CANCEL);
  if (!next)
    return goes_on && !may_stop ? "no later LLM request: the loop stopped" : NULL;
  if (!ock__request_result_text(next, ock__call_id(f)))
    return "no tool result for it in the next LLM request";
  if (goes_on && !may_stop && f->x && j >= f->x->end)
    return "the loop stopped: the next LLM request belongs to a later execute";
  return NULL;
}
