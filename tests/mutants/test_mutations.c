/* test_mutations.c: the table is well formed, the state follows the traffic, and the hooks
 * tell their lie only where their situation occurs (no sockets: hooks do no I/O). */
#include "runner.h"

#include <signal.h>
#include <stdlib.h>

#include "mutant.h"
#include "ock/json.h"

static cJSON *event(const char *name, const char *data_json) {
  cJSON *e = cJSON_CreateObject();
  cJSON_AddStringToObject(e, "event", name);
  cJSON_AddItemToObject(e, "data", cJSON_Parse(data_json));
  return e;
}

/* An exchange for an event; free with done(). */
static struct mutant_exchange exchange_of(cJSON *body, struct mutant_headers *h) {
  struct mutant_exchange x = {.route = MUTANT_ROUTE_EVENT,
                              .path = "/ock/v1/events",
                              .body = body,
                              .req_headers = h,
                              .reply_headers = h};
  return x;
}

static void done(struct mutant_exchange *x) {
  cJSON_Delete(x->body);
  cJSON_Delete(x->answer);
  cJSON_Delete(x->before);
  cJSON_Delete(x->after);
  cJSON_Delete(x->reply);
}

static const struct mutation *need(const char *name) {
  const struct mutation *m = ock__mutant_find(name);
  OCK_ASSERT_NOT_NULL_FATAL(m);
  return m;
}

static const char *data_str(const struct mutant_exchange *x, const char *key) {
  const cJSON *v = cJSON_GetObjectItem(cJSON_GetObjectItem(x->body, "data"), key);
  return cJSON_IsString(v) ? v->valuestring : "(absent)";
}

static void table_is_well_formed(void) {
  OCK_ASSERT_INT_GE(ock__mutant_count(), 82);
  for (size_t i = 0; i < ock__mutant_count(); i++) {
    const struct mutation *m = ock__mutant_at(i);
    int hooks = !!m->session + !!m->session_request + !!m->event + !!m->event_reply +
                !!m->llm_request + !!m->llm_reply + !!m->tool_request + !!m->tool_reply +
                !!m->exit + m->dies_on_sigint + m->seals_cut_streams + m->drops_bad_stream_events;
    if (!m->name || !*m->name || !m->what || !*m->what || !m->requirement || hooks == 0)
      ock_test_fail(__LINE__, __FILE__, "mutation %zu (%s) lacks a name, a lie or a hook", i,
                    m->name ? m->name : "?");
    OCK_ASSERT_TRUE(ock__mutant_find(m->name) == m);
  }
  OCK_ASSERT_NULL(ock__mutant_at(ock__mutant_count()));
  OCK_ASSERT_NULL(ock__mutant_find("no-such-mutation"));
  const struct mutation *none = need("none");
  OCK_ASSERT_STR_EQ(none->requirement, "");
  char buf[64];
  OCK_ASSERT_STR_EQ(ock__mutant_cases(need("complete-twice"), buf, sizeof buf),
                    "@OCK-COMPLETE-001");
}

static void state_follows_traffic(void) {
  struct mutant_state s;
  ock__mutant_state_init(&s);
  cJSON *doc = cJSON_Parse("{\"config\":{\"streaming\":true}}");
  ock__mutant_note_session(&s, doc);
  OCK_ASSERT_TRUE(s.streaming);
  cJSON *submit = event("prompt:submit", "{\"prompt\":\"p\"}");
  cJSON *cancel = event("cancel:requested", "{}");
  cJSON *resolve = event("provider:resolve", "{\"provider\":\"p\"}");
  cJSON *post = event("tool:post", "{}");
  cJSON *inject = cJSON_Parse("{\"action\":\"inject_context\",\"context_injection\":\"NOTE\"}");
  ock__mutant_note_event(&s, submit, NULL);
  ock__mutant_note_event(&s, resolve, NULL);
  ock__mutant_note_event(&s, post, inject);
  ock__mutant_note_event(&s, post, inject); /* the same text is kept once */
  cJSON *req =
      cJSON_Parse("{\"messages\":[{\"role\":\"user\",\"content\":\"orchestrator-loop-limit\"}]}");
  ock__mutant_note_llm(&s, req);
  OCK_ASSERT_INT_EQ(s.executes, 1);
  OCK_ASSERT_INT_EQ(s.llm_in_execute, 1);
  OCK_ASSERT_TRUE(s.wrapped_up);
  OCK_ASSERT_INT_EQ(s.n_injections, 1);
  OCK_ASSERT_STR_EQ(s.injections[0], "NOTE");
  OCK_ASSERT_NOT_NULL(s.resolve);
  ock__mutant_note_event(&s, cancel, NULL);
  ock__mutant_note_event(&s, submit, NULL);
  OCK_ASSERT_INT_EQ(s.executes, 2);
  OCK_ASSERT_TRUE(s.after_cancel);
  OCK_ASSERT_INT_EQ(s.llm_in_execute, 0);
  OCK_ASSERT_NULL(s.resolve);
  ock__mutant_state_free(&s);
  cJSON_Delete(doc);
  cJSON_Delete(submit);
  cJSON_Delete(cancel);
  cJSON_Delete(resolve);
  cJSON_Delete(post);
  cJSON_Delete(inject);
  cJSON_Delete(req);
}

static void complete_lies(void) {
  struct mutant_state s;
  ock__mutant_state_init(&s);
  struct mutant_headers h = {0};

  struct mutant_exchange x =
      exchange_of(event("orchestrator:complete",
                        "{\"orchestrator\":\"o\",\"status\":\"error\",\"turn_count\":1,"
                        "\"error\":{\"type\":\"t\",\"message\":\"m\"}}"),
                  &h);
  need("complete-dropped-on-error")->event(&s, &x);
  OCK_ASSERT_NOT_NULL(x.answer); /* not forwarded; the SUT is told continue */
  need("error-object-dropped")->event(&s, &x);
  OCK_ASSERT_INT_EQ(cJSON_HasObjectItem(cJSON_GetObjectItem(x.body, "data"), "error"), 0);
  need("turn-count-plus-one")->event(&s, &x);
  OCK_ASSERT_INT_EQ(
      cJSON_GetObjectItem(cJSON_GetObjectItem(x.body, "data"), "turn_count")->valueint, 2);
  need("complete-twice")->event(&s, &x);
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(x.after), 1);
  done(&x);

  /* A success is left alone by the lies about errors. */
  x = exchange_of(event("orchestrator:complete", "{\"status\":\"success\"}"), &h);
  need("complete-dropped-on-error")->event(&s, &x);
  need("incomplete-as-success")->event(&s, &x);
  need("cancelled-as-error")->event(&s, &x);
  OCK_ASSERT_NULL(x.answer);
  OCK_ASSERT_STR_EQ(data_str(&x, "status"), "success");
  done(&x);

  x = exchange_of(
      event("orchestrator:complete", "{\"status\":\"incomplete\",\"reason\":\"denied\"}"), &h);
  need("incomplete-as-success")->event(&s, &x);
  OCK_ASSERT_STR_EQ(data_str(&x, "status"), "success");
  OCK_ASSERT_STR_EQ(data_str(&x, "reason"), "(absent)");
  done(&x);
  ock__mutant_state_free(&s);
}

/* The type lie: the cancel events' turn_count becomes its text; orchestrator:complete's, and a
 * turn_count that is not a number, are left alone. */
static void cancel_turn_count_lie(void) {
  struct mutant_state s;
  ock__mutant_state_init(&s);
  struct mutant_headers h = {0};
  static const char *const names[] = {"cancel:requested", "cancel:completed"};
  for (int i = 0; i < 2; i++) {
    struct mutant_exchange x =
        exchange_of(event(names[i], "{\"orchestrator\":\"o\",\"turn_count\":1}"), &h);
    need("cancel-turn-count-as-string")->event(&s, &x);
    OCK_ASSERT_STR_EQ(data_str(&x, "turn_count"), "1");
    done(&x);
  }
  struct mutant_exchange x = exchange_of(event("orchestrator:complete", "{\"turn_count\":1}"), &h);
  need("cancel-turn-count-as-string")->event(&s, &x);
  OCK_ASSERT_TRUE(
      cJSON_IsNumber(cJSON_GetObjectItem(cJSON_GetObjectItem(x.body, "data"), "turn_count")));
  done(&x);
  x = exchange_of(event("cancel:completed", "{\"turn_count\":null}"), &h);
  need("cancel-turn-count-as-string")->event(&s, &x);
  OCK_ASSERT_TRUE(
      cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(x.body, "data"), "turn_count")));
  done(&x);
  ock__mutant_state_free(&s);
}

static void held_events_overtaken(void) {
  struct mutant_state s;
  ock__mutant_state_init(&s);
  struct mutant_headers h = {0};
  const struct mutation *m = need("provider-request-late");
  struct mutant_exchange x = exchange_of(event("provider:request", "{\"provider\":\"p\"}"), &h);
  m->event(&s, &x);
  OCK_ASSERT_NOT_NULL(x.answer);
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(s.held), 1);
  done(&x);
  struct mutant_exchange llm = {
      .route = MUTANT_ROUTE_LLM, .status = 200, .req_headers = &h, .reply_headers = &h};
  m->llm_reply(&s, &llm); /* the LLM request is through: the event may follow it */
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(llm.after), 1);
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(s.held), 0);
  done(&llm);

  /* Any other event lets held ones go first. */
  m = need("tool-pre-late");
  x = exchange_of(event("tool:pre", "{\"tool_call_id\":\"a\"}"), &h);
  m->event(&s, &x);
  done(&x);
  x = exchange_of(event("tool:error", "{\"tool_call_id\":\"a\"}"), &h);
  m->event(&s, &x);
  OCK_ASSERT_NULL(x.answer);
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(x.before), 1);
  done(&x);
  ock__mutant_state_free(&s);
}

static void hook_replies_ignored(void) {
  struct mutant_state s;
  ock__mutant_state_init(&s);
  struct mutant_headers h = {0};
  struct mutant_exchange x = exchange_of(event("tool:pre", "{}"), &h);
  x.reply = cJSON_Parse("{\"action\":\"deny\",\"reason\":\"no\"}");
  need("deny-submit-ignored")->event_reply(&s, &x); /* another event: untouched */
  OCK_ASSERT_STR_EQ(cJSON_GetObjectItem(x.reply, "action")->valuestring, "deny");
  need("deny-tool-pre-ignored")->event_reply(&s, &x);
  OCK_ASSERT_STR_EQ(cJSON_GetObjectItem(x.reply, "action")->valuestring, "continue");
  done(&x);

  x = exchange_of(event("tool:post", "{}"), &h);
  x.reply = cJSON_Parse("{\"action\":\"inject_context\",\"context_injection\":\"N\","
                        "\"ephemeral\":true}");
  need("kept-injection-ignored")->event_reply(&s, &x);
  OCK_ASSERT_STR_EQ(cJSON_GetObjectItem(x.reply, "action")->valuestring, "inject_context");
  need("ephemeral-injection-ignored")->event_reply(&s, &x);
  OCK_ASSERT_STR_EQ(cJSON_GetObjectItem(x.reply, "action")->valuestring, "continue");
  done(&x);
  ock__mutant_state_free(&s);
}

static void stream_and_lifecycle_lies(void) {
  struct mutant_state s;
  ock__mutant_state_init(&s);
  struct mutant_headers h = {0};
  struct mutant_exchange x = exchange_of(
      event("provider:error", "{\"provider\":\"p\",\"error\":{\"type\":\"stream_error\"}}"), &h);
  need("stream-error-as-response")->event(&s, &x); /* not streaming: no lie */
  OCK_ASSERT_STR_EQ(cJSON_GetObjectItem(x.body, "event")->valuestring, "provider:error");
  s.streaming = 1;
  need("stream-error-as-response")->event(&s, &x);
  OCK_ASSERT_STR_EQ(cJSON_GetObjectItem(x.body, "event")->valuestring, "provider:response");
  OCK_ASSERT_STR_EQ(data_str(&x, "finish_reason"), "stop");
  done(&x);

  x = exchange_of(event("provider:request", "{\"stage\":\"plan\"}"), &h);
  need("request-stage-route")->event(&s, &x);
  OCK_ASSERT_STR_EQ(data_str(&x, "stage"), "route");
  done(&x);
  s.requests_in_execute = 1; /* only the first request of an execute */
  x = exchange_of(event("provider:request", "{\"stage\":\"plan\"}"), &h);
  need("request-stage-route")->event(&s, &x);
  OCK_ASSERT_STR_EQ(data_str(&x, "stage"), "plan");
  done(&x);

  x = exchange_of(event("provider:resolve", "{\"provider\":\"p\",\"fallback\":null}"), &h);
  need("fallback-wrong")->event(&s, &x);
  OCK_ASSERT_STR_EQ(data_str(&x, "fallback"), "p");
  need("fallback-wrong")->event(&s, &x);
  OCK_ASSERT_TRUE(
      cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(x.body, "data"), "fallback")));
  done(&x);
  ock__mutant_state_free(&s);
}

static void traffic_lies(void) {
  struct mutant_state s;
  ock__mutant_state_init(&s);
  struct mutant_headers h = {0};
  ock__mutant_headers_add(&h, "X-OCK-Trace-Id", "t");
  ock__mutant_headers_add(&h, "Retry-After", "1");
  ock__mutant_headers_add(&h, "retry-after-ms", "500");
  struct mutant_exchange x = {.route = MUTANT_ROUTE_LLM,
                              .wire = MUTANT_WIRE_OPENAI,
                              .body = cJSON_Parse("{\"stream\":true,\"stream_options\":{},"
                                                  "\"messages\":[]}"),
                              .req_headers = &h,
                              .reply_headers = &h,
                              .status = 422};
  need("stream-false")->llm_request(&s, &x);
  OCK_ASSERT_TRUE(cJSON_IsFalse(cJSON_GetObjectItem(x.body, "stream")));
  OCK_ASSERT_INT_EQ(cJSON_HasObjectItem(x.body, "stream_options"), 0);
  need("trace-header-dropped")->llm_request(&s, &x);
  OCK_ASSERT_NULL(ock__mutant_headers_get(&h, "x-ock-trace-id"));
  need("retry-after-ignored")->llm_reply(&s, &x);
  OCK_ASSERT_INT_EQ(h.n, 0);
  need("non-retryable-retried")->llm_reply(&s, &x);
  OCK_ASSERT_INT_EQ(x.status, 503);
  done(&x);

  struct mutant_exchange t = {.route = MUTANT_ROUTE_TOOL,
                              .body = cJSON_Parse("{\"tool_call_id\":\"a\",\"input\":{\"x\":1,"
                                                  "\"y\":2}}"),
                              .req_headers = &h,
                              .reply_headers = &h};
  need("streamed-arguments-truncated")->tool_request(&s, &t); /* not streaming: no lie */
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(t.body, "input")), 2);
  s.streaming = 1;
  need("streamed-arguments-truncated")->tool_request(&s, &t);
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(cJSON_GetObjectItem(t.body, "input")), 1);
  done(&t);
  ock__mutant_headers_free(&h);
  ock__mutant_state_free(&s);
}

static void session_and_exit_lies(void) {
  struct mutant_state s;
  ock__mutant_state_init(&s);
  cJSON *doc = cJSON_Parse("{\"config\":{\"max_iterations\":2,\"parallel_tools\":true,"
                           "\"error_strategy\":\"fallback\",\"max_retries\":2,"
                           "\"retry_base_delay_ms\":100}}");
  need("max-iterations-raised")->session(&s, doc);
  need("tools-serialized")->session(&s, doc);
  need("backoff-zero")->session(&s, doc);
  need("retry-budget-raised")->session(&s, doc);
  need("fail-fast-continues")->session(&s, doc); /* fallback is not fail_fast: untouched */
  need("fallback-as-retry")->session(&s, doc);
  char *text = cJSON_PrintUnformatted(doc);
  OCK_ASSERT_STR_EQ(text, "{\"config\":{\"max_iterations\":3,\"parallel_tools\":false,"
                          "\"error_strategy\":\"retry\",\"max_retries\":3,"
                          "\"retry_base_delay_ms\":0}}");
  free(text);
  cJSON_Delete(doc);
  OCK_ASSERT_INT_EQ(need("exit-one")->exit(&s, 0), 1);
  OCK_ASSERT_INT_EQ(need("exit-one")->exit(&s, 3), 3);
  OCK_ASSERT_INT_EQ(need("sigsegv-at-exit")->exit(&s, 0), -SIGSEGV);
  OCK_ASSERT_TRUE(need("dies-on-sigint")->dies_on_sigint);
  ock__mutant_state_free(&s);
}

static void headers(void) {
  struct mutant_headers h = {0};
  for (int i = 0; i < OCK_MAX_MUTANT_HEADERS; i++)
    OCK_ASSERT_INT_EQ(ock__mutant_headers_add(&h, "X-A", "1"), 0);
  OCK_ASSERT_INT_EQ(ock__mutant_headers_add(&h, "X-B", "2"), -1); /* past the cap: dropped */
  OCK_ASSERT_STR_EQ(ock__mutant_headers_get(&h, "x-a"), "1");
  OCK_ASSERT_INT_EQ(ock__mutant_headers_remove(&h, "X-a"), OCK_MAX_MUTANT_HEADERS);
  OCK_ASSERT_INT_EQ(h.n, 0);
  ock__mutant_headers_free(&h);
}

/* event-before-session posts one event ahead of the first session fetch only; blank-prompt-stored
 * puts a blank prompt into the next LLM request only, once. */
static void session_and_blank_prompt_lies(void) {
  struct mutant_state s;
  ock__mutant_state_init(&s);
  struct mutant_headers h = {0};
  struct mutant_exchange x = {.route = MUTANT_ROUTE_SESSION, .path = "/ock/v1/session"};
  need("event-before-session")->session_request(&s, &x);
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(x.before), 1);
  done(&x);
  x = (struct mutant_exchange){.route = MUTANT_ROUTE_SESSION, .path = "/ock/v1/session"};
  need("event-before-session")->session_request(&s, &x);
  OCK_ASSERT_NULL(x.before);
  done(&x);
  ock__mutant_state_free(&s);

  ock__mutant_state_init(&s);
  const struct mutation *m = need("blank-prompt-stored");
  x = exchange_of(event("prompt:submit", "{\"prompt\":\"real\"}"), &h);
  m->event(&s, &x);
  OCK_ASSERT_NULL(s.kept); /* a prompt with text is not the lie's */
  done(&x);
  x = exchange_of(event("prompt:submit", "{\"prompt\":\"  \"}"), &h);
  m->event(&s, &x);
  done(&x);
  const char *history = "{\"messages\":[{\"role\":\"user\",\"content\":\"next\"}]}";
  for (int round = 0; round < 2; round++) {
    x = (struct mutant_exchange){
        .route = MUTANT_ROUTE_LLM, .wire = MUTANT_WIRE_OPENAI, .body = cJSON_Parse(history)};
    m->llm_request(&s, &x);
    const cJSON *msgs = cJSON_GetObjectItem(x.body, "messages");
    OCK_ASSERT_INT_EQ(cJSON_GetArraySize(msgs), round == 0 ? 2 : 1);
    if (round == 0)
      OCK_ASSERT_STR_EQ(cJSON_GetObjectItem(cJSON_GetArrayItem(msgs, 0), "content")->valuestring,
                        "  ");
    done(&x);
  }
  ock__mutant_state_free(&s);

  /* wrap-up-call-announced acts on the provider:response after the wrap-up request only. */
  ock__mutant_state_init(&s);
  m = need("wrap-up-call-announced");
  const char *response = "{\"tool_calls\":[{\"id\":\"c9\",\"name\":\"get\",\"arguments\":{}}]}";
  x = exchange_of(event("provider:response", response), &h);
  m->event(&s, &x);
  OCK_ASSERT_NULL(x.after); /* no wrap-up yet */
  done(&x);
  x = (struct mutant_exchange){.route = MUTANT_ROUTE_LLM,
                               .wire = MUTANT_WIRE_OPENAI,
                               .body =
                                   cJSON_Parse("{\"messages\":[{\"role\":\"user\",\"content\":\"<x "
                                               "source=orchestrator-loop-limit>\"}]}")};
  m->llm_request(&s, &x);
  done(&x);
  x = exchange_of(event("provider:response", response), &h);
  m->event(&s, &x);
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(x.after), 2); /* tool:pre, then tool:error cancelled */
  const cJSON *pre_data = cJSON_GetObjectItem(cJSON_GetArrayItem(x.after, 0), "data");
  OCK_ASSERT_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(pre_data, "tool_call_id")), "c9");
  OCK_ASSERT_NOT_NULL(cJSON_GetObjectItem(pre_data, "tool_input"));
  const cJSON *err_data = cJSON_GetObjectItem(cJSON_GetArrayItem(x.after, 1), "data");
  OCK_ASSERT_STR_EQ(
      cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(err_data, "error"), "type")),
      "cancelled");
  done(&x);
  ock__mutant_state_free(&s);
}

/* Each one-text lie rewords its own text of SPEC.md 2.15 and leaves the others as they are. */
static void one_text_at_a_time(void) {
  struct mutant_state s;
  ock__mutant_state_init(&s);
  static const char body[] =
      "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\","
      "\"content\":null,\"tool_calls\":[{\"id\":\"a\",\"type\":\"function\",\"function\":"
      "{\"name\":\"f\",\"arguments\":\"{}\"}},{\"id\":\"b\",\"type\":\"function\","
      "\"function\":{\"name\":\"g\",\"arguments\":\"{}\"}}]},{\"role\":\"tool\","
      "\"tool_call_id\":\"a\",\"content\":\"Error: cancelled\"},{\"role\":\"tool\","
      "\"tool_call_id\":\"b\",\"content\":\"Error: tool 'g' not found\"}]}";
  struct mutant_exchange x = {
      .route = MUTANT_ROUTE_LLM, .wire = MUTANT_WIRE_OPENAI, .body = cJSON_Parse(body)};
  need("cancelled-other-words")->llm_request(&s, &x);
  const cJSON *m = cJSON_GetObjectItem(x.body, "messages");
  OCK_ASSERT_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(m, 2), "content")),
                    "Stopped: the user cancelled the run.");
  OCK_ASSERT_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(m, 3), "content")),
                    "Error: tool 'g' not found");
  need("unknown-tool-other-words")->llm_request(&s, &x);
  OCK_ASSERT_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(m, 3), "content")),
                    "There is no tool called g.");
  need("tool-failure-other-words")->llm_request(&s, &x); /* no other "Error: " text here */
  OCK_ASSERT_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(m, 2), "content")),
                    "Stopped: the user cancelled the run.");
  done(&x);
  ock__mutant_state_free(&s);
}

/* The event lies added for single check ids act on their event only. */
static void narrow_event_lies(void) {
  struct mutant_state s;
  ock__mutant_state_init(&s);
  struct mutant_headers h = {0};
  struct mutant_exchange x =
      exchange_of(event("tool:error", "{\"error\":{\"type\":\"denied\"}}"), &h);
  need("denied-type-renamed-ask-user")->event(&s, &x);
  OCK_ASSERT_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(
                        cJSON_GetObjectItem(cJSON_GetObjectItem(x.body, "data"), "error"), "type")),
                    "rejected");
  done(&x);
  x = exchange_of(event("cancel:completed", "{}"), &h);
  need("cancel-completed-twice")->event(&s, &x);
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(x.after), 1);
  done(&x);
  x = exchange_of(event("orchestrator:complete", "{\"status\":\"success\",\"orchestrator\":\"o\"}"),
                  &h);
  need("ignored-sigint-announced")->event(&s, &x); /* no SIGINT pending: nothing */
  OCK_ASSERT_NULL(x.before);
  s.sigint_pending = 1;
  need("ignored-sigint-announced")->event(&s, &x);
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(x.before), 1);
  OCK_ASSERT_STR_EQ(
      cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(x.before, 0), "event")),
      "cancel:requested");
  OCK_ASSERT_INT_EQ(s.sigint_pending, 0);
  need("success-as-incomplete")->event(&s, &x);
  OCK_ASSERT_STR_EQ(data_str(&x, "status"), "incomplete");
  OCK_ASSERT_STR_EQ(data_str(&x, "reason"), "max_iterations");
  need("limit-reason-renamed")->event(&s, &x);
  OCK_ASSERT_STR_EQ(data_str(&x, "reason"), "iteration_limit");
  need("stop-after-first-execute")->event(&s, &x);
  OCK_ASSERT_INT_EQ(s.stop, 1);
  done(&x);
  ock__mutant_state_free(&s);
}

/* The lies that each leave one check the one first cause: a sticky tool error, an error given as
 * a string, a cancelled call told as tool:post, and streaming not wired through. */
static void single_cause_lies(void) {
  struct mutant_state s;
  ock__mutant_state_init(&s);
  struct mutant_headers h = {0};
  cJSON *submit = event("prompt:submit", "{\"prompt\":\"p\"}");
  cJSON *failed = event("tool:error", "{\"error\":{\"type\":\"execution_failed\"}}");
  struct mutant_exchange x =
      exchange_of(event("orchestrator:complete", "{\"status\":\"success\"}"), &h);
  need("tool-error-sticks")->event(&s, &x); /* no tool failed yet: nothing */
  OCK_ASSERT_STR_EQ(data_str(&x, "status"), "success");
  ock__mutant_note_event(&s, submit, NULL);
  ock__mutant_note_event(&s, failed, NULL);
  OCK_ASSERT_TRUE(s.tool_failed);
  need("tool-error-sticks")->event(&s, &x);
  OCK_ASSERT_STR_EQ(data_str(&x, "status"), "error");
  OCK_ASSERT_STR_EQ(data_str(&x, "stage"), "failed");
  OCK_ASSERT_NOT_NULL(cJSON_GetObjectItem(cJSON_GetObjectItem(x.body, "data"), "error"));
  done(&x);
  x = exchange_of(event("prompt:complete", "{\"response\":\"r\"}"), &h);
  need("tool-error-sticks")->event(&s, &x);
  OCK_ASSERT_NOT_NULL(x.answer); /* the error path sends no prompt:complete */
  done(&x);
  x = exchange_of(event("execution:end", "{\"response\":\"r\",\"status\":\"completed\"}"), &h);
  need("tool-error-sticks")->event(&s, &x);
  OCK_ASSERT_STR_EQ(data_str(&x, "status"), "error");
  OCK_ASSERT_TRUE(
      cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(x.body, "data"), "response")));
  done(&x);
  ock__mutant_note_event(&s, submit, NULL); /* a new execute clears the flag */
  OCK_ASSERT_INT_EQ(s.tool_failed, 0);

  x = exchange_of(event("provider:error", "{\"error\":{\"type\":\"http_error\",\"message\":"
                                          "\"HTTP 500\"},\"retryable\":true}"),
                  &h);
  need("provider-error-as-string")->event(&s, &x);
  OCK_ASSERT_STR_EQ(data_str(&x, "error"), "HTTP 500");
  done(&x);

  x = exchange_of(event("tool:error", "{\"tool_call_id\":\"c\",\"error\":{\"type\":\"timeout\"}}"),
                  &h);
  need("cancelled-as-post")->event(&s, &x); /* only a cancelled call */
  OCK_ASSERT_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(x.body, "event")), "tool:error");
  done(&x);
  x = exchange_of(
      event("tool:error", "{\"tool_call_id\":\"c\",\"error\":{\"type\":\"cancelled\"}}"), &h);
  need("cancelled-as-post")->event(&s, &x);
  OCK_ASSERT_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(x.body, "event")), "tool:post");
  const cJSON *result = cJSON_GetObjectItem(cJSON_GetObjectItem(x.body, "data"), "result");
  OCK_ASSERT_TRUE(cJSON_IsFalse(cJSON_GetObjectItem(result, "success")));
  OCK_ASSERT_STR_EQ(data_str(&x, "error"), "(absent)");
  done(&x);

  cJSON *doc = cJSON_Parse("{\"config\":{\"streaming\":true,\"mode\":\"streaming\"}}");
  need("streaming-ignored")->session(&s, doc);
  char *text = cJSON_PrintUnformatted(doc);
  OCK_ASSERT_STR_EQ(text, "{\"config\":{\"streaming\":false,\"mode\":\"basic\"}}");
  free(text);
  cJSON_Delete(doc);

  cJSON_Delete(submit);
  cJSON_Delete(failed);
  ock__mutant_state_free(&s);
}

/* The lies that leave one check id the first cause (mutants/README.md, "each check id caught
 * alone"): each acts in its one situation only. */
static void one_cause_lies(void) {
  struct mutant_state s;
  ock__mutant_state_init(&s);
  struct mutant_headers h = {0};
  /* request-after-cancel: the last provider:request again, as the next attempt, after
   * cancel:requested, and the request replayed. */
  struct mutant_exchange x =
      exchange_of(event("provider:request", "{\"iteration\":1,\"attempt\":1}"), &h);
  need("request-after-cancel")->event(&s, &x);
  OCK_ASSERT_NULL(x.after);
  done(&x);
  x = exchange_of(event("cancel:requested", "{}"), &h);
  need("request-after-cancel")->event(&s, &x);
  OCK_ASSERT_TRUE(x.replay_after);
  const cJSON *again = cJSON_GetArrayItem(x.after, 0);
  OCK_ASSERT_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(again, "event")), "provider:request");
  OCK_ASSERT_INT_EQ(cJSON_GetObjectItem(cJSON_GetObjectItem(again, "data"), "attempt")->valueint,
                    2);
  done(&x);
  ock__mutant_state_free(&s);

  /* fail-fast-failure-seen-late: the first endpoint failure becomes a success for the SUT, and
   * that call's tool:post the tool:error the mock expects; a second failure is left alone. */
  ock__mutant_state_init(&s);
  x = (struct mutant_exchange){.route = MUTANT_ROUTE_TOOL,
                               .path = "/ock/v1/tools/get_time",
                               .status = 500,
                               .req_headers = &h,
                               .reply_headers = &h};
  need("fail-fast-failure-seen-late")->tool_reply(&s, &x);
  OCK_ASSERT_INT_EQ(x.status, 200);
  OCK_ASSERT_TRUE(cJSON_IsTrue(cJSON_GetObjectItem(x.reply, "success")));
  OCK_ASSERT_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(x.reply, "output")),
                    "Error: tool 'get_time' endpoint answered HTTP 500");
  done(&x);
  x = exchange_of(event("tool:post", "{\"tool_call_id\":\"c1\",\"result\":{}}"), &h);
  need("fail-fast-failure-seen-late")->event(&s, &x);
  OCK_ASSERT_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(x.body, "event")), "tool:error");
  OCK_ASSERT_STR_EQ(data_str(&x, "result"), "(absent)");
  const cJSON *err = cJSON_GetObjectItem(cJSON_GetObjectItem(x.body, "data"), "error");
  OCK_ASSERT_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(err, "type")), "execution_failed");
  OCK_ASSERT_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(err, "message")),
                    "tool 'get_time' endpoint answered HTTP 500");
  done(&x);
  x = (struct mutant_exchange){.route = MUTANT_ROUTE_TOOL,
                               .path = "/ock/v1/tools/search",
                               .status = 500,
                               .req_headers = &h,
                               .reply_headers = &h};
  need("fail-fast-failure-seen-late")->tool_reply(&s, &x);
  OCK_ASSERT_INT_EQ(x.status, 500);
  done(&x);
  ock__mutant_state_free(&s);

  /* cancelled-step-failed: a custom event with stage failed before cancel:completed. */
  ock__mutant_state_init(&s);
  x = exchange_of(event("cancel:completed", "{\"trace_id\":\"t\",\"stage\":\"cancelled\"}"), &h);
  need("cancelled-step-failed")->event(&s, &x);
  const cJSON *step = cJSON_GetArrayItem(x.before, 0);
  OCK_ASSERT_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(step, "event")),
                    "ock-mutant:step-aborted");
  OCK_ASSERT_STR_EQ(
      cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(step, "data"), "stage")),
      "failed");
  done(&x);
  ock__mutant_state_free(&s);
}

/* The lies only a scenario's expectation sees: the limit one lower (never below 1), a retry
 * announced after a non-retryable error only, the fail_fast error type made generic. */
static void expectation_lies(void) {
  struct mutant_state s;
  ock__mutant_state_init(&s);
  cJSON *doc = cJSON_Parse("{\"config\":{\"max_iterations\":2}}");
  need("limit-off-by-one-turns")->session(&s, doc);
  OCK_ASSERT_INT_EQ(ock_json_int(cJSON_GetObjectItem(doc, "config"), "max_iterations", 0), 1);
  need("limit-off-by-one-turns")->session(&s, doc); /* 1 stays 1: a limit of 0 is another lie */
  OCK_ASSERT_INT_EQ(ock_json_int(cJSON_GetObjectItem(doc, "config"), "max_iterations", 0), 1);
  cJSON_Delete(doc);

  struct mutant_headers h = {0};
  struct mutant_exchange x = exchange_of(
      event("provider:error", "{\"provider\":\"primary\",\"iteration\":1,\"attempt\":1,"
                              "\"retryable\":true,\"error\":{\"type\":\"http_error\"}}"),
      &h);
  need("retry-announced-not-made")->event(&s, &x);
  OCK_ASSERT_NULL(x.after); /* a retryable error: its retry is the SUT's to make */
  done(&x);
  x = exchange_of(event("provider:error",
                        "{\"provider\":\"primary\",\"iteration\":1,\"attempt\":1,"
                        "\"retryable\":false,\"error\":{\"type\":\"http_error\"}}"),
                  &h);
  need("retry-announced-not-made")->event(&s, &x);
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(x.after), 1);
  const cJSON *retry = cJSON_GetArrayItem(x.after, 0);
  OCK_ASSERT_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(retry, "event")), "provider:retry");
  OCK_ASSERT_INT_EQ(ock_json_int(cJSON_GetObjectItem(retry, "data"), "attempt", 0), 2);
  done(&x);

  x = exchange_of(event("orchestrator:complete",
                        "{\"status\":\"error\",\"error\":{\"type\":\"invalid_arguments\","
                        "\"message\":\"m\"}}"),
                  &h);
  need("fail-fast-type-generic")->event(&s, &x);
  OCK_ASSERT_STR_EQ(
      ock_json_str(cJSON_GetObjectItem(cJSON_GetObjectItem(x.body, "data"), "error"), "type"),
      "execution_failed");
  done(&x);
  x = exchange_of(event("orchestrator:complete",
                        "{\"status\":\"error\",\"error\":{\"type\":\"no_provider\","
                        "\"message\":\"m\"}}"),
                  &h);
  need("fail-fast-type-generic")->event(&s, &x); /* not a tool's failure: untouched */
  OCK_ASSERT_STR_EQ(
      ock_json_str(cJSON_GetObjectItem(cJSON_GetObjectItem(x.body, "data"), "error"), "type"),
      "no_provider");
  done(&x);
  ock__mutant_state_free(&s);
}

static const struct ock_test tests[] = {
    {"table_is_well_formed", table_is_well_formed},
    {"state_follows_traffic", state_follows_traffic},
    {"complete_lies", complete_lies},
    {"cancel_turn_count_lie", cancel_turn_count_lie},
    {"held_events_overtaken", held_events_overtaken},
    {"hook_replies_ignored", hook_replies_ignored},
    {"stream_and_lifecycle_lies", stream_and_lifecycle_lies},
    {"traffic_lies", traffic_lies},
    {"session_and_exit_lies", session_and_exit_lies},
    {"headers", headers},
    {"session_and_blank_prompt_lies", session_and_blank_prompt_lies},
    {"one_text_at_a_time", one_text_at_a_time},
    {"narrow_event_lies", narrow_event_lies},
    {"single_cause_lies", single_cause_lies},
    {"one_cause_lies", one_cause_lies},
    {"expectation_lies", expectation_lies},
    {NULL, NULL}};

const struct ock_suite suite_mutations = {"mutations", tests, NULL, NULL};
