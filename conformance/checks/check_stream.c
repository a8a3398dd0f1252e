/*
 * check_stream.c: STREAM, streaming: requested when configured, provider:stream deltas that add
 * up to the provider:response, tool-call arguments reassembled from fragments, and a broken
 * stream treated as an error, never as a partial success.
 */
#include <stdlib.h>
#include <string.h>

#include "checks/grade.h"
#include "ock/caps.h"
#include "ock/status.h"
#include "ock/buf.h"
#include "ock/contract.h"
#include "ock/json.h"
#include "model/view_calls.h"

static int broken_stream(const cJSON *reply) {
  const cJSON *f = cJSON_GetObjectItemCaseSensitive(reply, OCK_F_LLM_REPLY_FAULT);
  const char *k = cJSON_IsString(f) ? f->valuestring : ock_json_str(f, "kind");
  return k && (!strcmp(k, "cut_stream") || !strcmp(k, "error_mid_stream") ||
               !strcmp(k, "drop_connection") || !strcmp(k, "malformed_chunk"));
}

/* One provider:request .. provider:response/error window of events. */
static void window(struct grade_ctx *g, size_t start) {
  const struct view *v = g->v;
  struct ock_buf text;
  ock_buf_init(&text, OCK_MAX_STREAM_TEXT);
  int streamed = 0, n_stream = 0, rc = OCK_OK;
  size_t close = (size_t)-1;
  for (size_t i = start + 1; i < v->n; i++) {
    const cJSON *e = v->e[i];
    if (ock__is_kind(e, OCK_ENTRY_LLM_REQUEST))
      streamed |= ock_json_bool(e, OCK_F_LLM_REQUEST_STREAM, 0);
    if (ock__is_event(e, OCK_EV_PROVIDER_STREAM)) {
      n_stream++;
      const char *delta = ock__pf_str(e, OCK_FIELD_DELTA);
      if (delta)
        rc |= ock_buf_puts(&text, delta);
    }
    if (ock__is_event(e, OCK_EV_PROVIDER_RESPONSE) || ock__is_event(e, OCK_EV_PROVIDER_ERROR) ||
        ock__is_event(e, OCK_EV_PROVIDER_REQUEST) ||
        ock__is_event(e, OCK_EV_ORCHESTRATOR_COMPLETE)) {
      close = i;
      break;
    }
  }
  if (close != (size_t)-1 && streamed && ock__is_event(v->e[close], OCK_EV_PROVIDER_RESPONSE)) {
    const char *content = ock__pf_str(v->e[close], OCK_FIELD_CONTENT);
    if (n_stream)
      ock__grade_emit(g, CK_STREAM_DELTAS_ADD_UP,
                      !rc && content && !strcmp(text.data ? text.data : "", content),
                      ock__entry_seq(v->e[close]),
                      "the provider:stream deltas add up to the response",
                      "deltas \"%.60s\" vs content \"%.60s\"", text.data ? text.data : "",
                      ock__pf_show(v->e[close], OCK_FIELD_CONTENT));
    if (content && *content)
      ock__grade_emit(g, CK_STREAM_EVENTS, n_stream > 0, ock__entry_seq(v->e[close]),
                      "provider:stream events for a streamed reply with text", "%d provider:stream",
                      n_stream);
  }
  ock_buf_free(&text);
}

/* stream_requested: an LLM request e asks for a stream when config.streaming is set
 * (OCK-STREAM-001). */
static void stream_requested(struct grade_ctx *g, const cJSON *e) {
  ock__grade_emit(g, CK_STREAM_REQUESTED, ock_json_bool(e, OCK_F_LLM_REQUEST_STREAM, 0),
                  ock__entry_seq(e), "\"stream\": true when config.streaming",
                  "request %ld: stream %s", ock__entry_seq(e),
                  ock_json_bool(e, OCK_F_LLM_REQUEST_STREAM, 0) ? "true" : "false or absent");
}

/* stream_fault_is_error: the broken reply at entry index i is a provider:error, and no call of
 * it runs or is announced (OCK-STREAM-004). */
static void stream_fault_is_error(struct grade_ctx *g, size_t i) {
  const struct view *v = g->v;
  const cJSON *e = v->e[i];
  size_t j = i + 1;
  while (j < v->n && !ock__is_event(v->e[j], OCK_EV_PROVIDER_RESPONSE) &&
         !ock__is_event(v->e[j], OCK_EV_PROVIDER_ERROR) &&
         !ock__is_kind(v->e[j], OCK_ENTRY_LLM_REQUEST))
    j++;
  int ok = j < v->n && ock__is_event(v->e[j], OCK_EV_PROVIDER_ERROR);
  /* No call of a broken reply may run or be announced (no tool_start, no tool:pre). */
  const cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(e, OCK_F_LLM_REPLY_TOOL_CALLS)) {
    for (size_t k = i + 1; k < v->n; k++) {
      const cJSON *later = v->e[k];
      if (ock__is_kind(later, OCK_ENTRY_TOOL_START) &&
          !strcmp(ock__str_field(later, OCK_F_TOOL_START_TOOL_CALL_ID), ock__str_field(c, "id")))
        ok = 0;
      if (ock__is_event(later, OCK_EV_TOOL_PRE) &&
          ock__pf_is(later, OCK_FIELD_TOOL_CALL_ID, ock__str_field(c, "id")))
        ok = 0;
    }
  }
  ock__grade_emit(
      g, CK_STREAM_FAULT_IS_ERROR, ok, ock__entry_seq(e),
      "a broken stream is a provider:error; nothing of it is run",
      "reply %ld was broken (%s); the SUT %s", ock__entry_seq(e),
      ock_json_str(e, OCK_F_LLM_REPLY_FAULT) ? ock_json_str(e, OCK_F_LLM_REPLY_FAULT) : "fault",
      ok ? "reported provider:error" : "treated it as a response, or ran or announced its tools");
}

/* stream_arguments_reassembled: a call of a streamed reply that ran as the model sent it gets
 * the arguments whole, reassembled from their fragments (OCK-STREAM-003). */
static void stream_arguments_reassembled(struct grade_ctx *g, const struct call_fate *f) {
  const struct view *v = g->v;
  size_t r = f->reply_index;
  while (r > 0 && !ock__is_kind(v->e[r], OCK_ENTRY_LLM_REQUEST))
    r--;
  if (!f->start || !ock_json_bool(v->e[r], "stream", 0) ||
      (f->pre && strcmp(ock__event_action(f->pre), OCK_PV_HOOK_RESULT_ACTION_CONTINUE)) ||
      f->selecting)
    return;
  cJSON *args = cJSON_Parse(ock__call_args(f));
  if (cJSON_IsObject(args))
    ock__grade_emit(g, CK_STREAM_ARGUMENTS_REASSEMBLED,
                    cJSON_Compare(args, cJSON_GetObjectItemCaseSensitive(f->start, "input"), 1),
                    ock__entry_seq(f->start), "streamed tool-call arguments reassembled whole",
                    "call %s: the tool input %s the streamed arguments", ock__call_id(f),
                    cJSON_Compare(args, cJSON_GetObjectItemCaseSensitive(f->start, "input"), 1)
                        ? "equals"
                        : "differs from");
  cJSON_Delete(args);
}

void ock__check_stream(struct grade_ctx *g) {
  const struct view *v = g->v;
  int want_stream = v->cfg.streaming;
  for (size_t i = 0; i < v->n; i++) {
    const cJSON *e = v->e[i];
    if (want_stream && ock__is_kind(e, OCK_ENTRY_LLM_REQUEST))
      stream_requested(g, e);
    if (ock__is_event(e, OCK_EV_PROVIDER_REQUEST) && !ock__event_denied(e))
      window(g, i);
    if (ock__is_kind(e, OCK_ENTRY_LLM_REPLY) && broken_stream(e))
      stream_fault_is_error(g, i);
  }
  struct call_fate *fates = NULL;
  size_t n = ock__call_fates(v, &fates);
  for (size_t i = 0; i < n; i++)
    stream_arguments_reassembled(g, &fates[i]);
  free(fates);
}
