/*
 * view_calls.h: what happened to each tool call the mock issued.
 *
 * For every tool call in a successful LLM reply, the events and tool-endpoint entries that
 * carry its tool_call_id within the same execute, and the hook replies that changed its fate.
 * The TOOL, HOOK, PARALLEL and STREAM checks all start from this.
 */
#ifndef OCK_VIEW_CALLS_H
#define OCK_VIEW_CALLS_H

#include "model/view.h"

struct call_fate {
  const cJSON *call;  /* {id, name, arguments} from the llm_reply */
  const cJSON *reply; /* that llm_reply entry */
  size_t reply_index; /* its entry index */
  const struct view_exec *x;
  int call_index;                                         /* position in the reply's tool_calls */
  const cJSON *selecting, *selected, *pre, *post, *error; /* event entries, or NULL */
  const cJSON *start, *end;                               /* tool endpoint entries, or NULL */
  size_t start_index;
};

/* ock__call_fates collects the fates of all calls in the view. *out is an array the caller frees
 * with free(); returns the count (0 when there are none or out of memory). */
size_t ock__call_fates(const struct view *v, struct call_fate **out);

/* ock__call_id / ock__call_name / ock__call_args: fields of the call (never NULL). */
const char *ock__call_id(const struct call_fate *f);
const char *ock__call_name(const struct call_fate *f);
const char *ock__call_args(const struct call_fate *f);

/* ock__fate_error_type: data.error.type of the tool:error event, or "". */
const char *ock__fate_error_type(const struct call_fate *f);

/* ock__next_request_after: the first llm_request entry after index i, or NULL. */
const cJSON *ock__next_request_after(const struct view *v, size_t i, size_t *index_out);

/* ock__request_result_text: the content of the tool result for id in the request's history, or
 * NULL when the history has none. */
const char *ock__request_result_text(const cJSON *request, const char *id);

/* ock__call_not_fed_back judges what every call is owed whatever its result says (SPEC.md 5.8): a
 * tool result in the first LLM request after the reply that issued it, and, when goes_on, that
 * request in the same execute; an execute that ended cancelled or error (or holds a SIGINT) need
 * not go on, and when no request follows it nothing is owed. Returns NULL when that holds, else a
 * static phrase saying what is missing. The wording of the result is not judged here: that is
 * the TEXT requirements' (SPEC.md 2.15). */
const char *ock__call_not_fed_back(const struct view *v, const struct call_fate *f, int goes_on);

#endif
