/*
 * mut_traffic.c: the lies told in LLM requests (the history the SUT sends), LLM replies (what
 * the SUT is told the provider said), and tool requests and replies. History edits are
 * core's (ock/wire.h), so each lie has the same shape on the OpenAI and Anthropic wires.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mut_hooks.h"
#include "ock/contract.h"
#include "ock/wire.h"

/* wire_of: the provider wire of an LLM request; NULL for other traffic (the edits then leave
 * it alone). */
static const struct ock_wire_ops *wire_of(const struct mutant_exchange *x) {
  if (x->wire == MUTANT_WIRE_NONE)
    return NULL;
  return ock_wire_get(x->wire == MUTANT_WIRE_ANTHROPIC   ? OCK_WIRE_ANTHROPIC
                      : x->wire == MUTANT_WIRE_RESPONSES ? OCK_WIRE_RESPONSES
                      : x->wire == MUTANT_WIRE_GEMINI    ? OCK_WIRE_GEMINI
                                                         : OCK_WIRE_OPENAI);
}

void ock__mut_result_dropped(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  ock_wire_drop_last_result(x->body, wire_of(x));
}

void ock__mut_result_wrong_id(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  ock_wire_rename_last_result(x->body, wire_of(x), "_mutant");
}

void ock__mut_message_between_call_and_results(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (ock_wire_result_count(x->body, wire_of(x)) > 0)
    ock_wire_split_call(x->body, wire_of(x),
                        "(mutant) a user message between a call and its results");
}

void ock__mut_result_duplicated(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  ock_wire_duplicate_last_result(x->body, wire_of(x));
}

void ock__mut_results_reversed(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  ock_wire_reverse_results(x->body, wire_of(x));
}

void ock__mut_call_id_rewritten(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (ock_wire_result_count(x->body, wire_of(x)) > 0)
    ock_wire_rename_call(x->body, wire_of(x), "_m");
}

void ock__mut_call_arguments_altered(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (ock_wire_result_count(x->body, wire_of(x)) > 0)
    ock_wire_alter_call_arguments(x->body, wire_of(x), "ock_mutant");
}

void ock__mut_call_name_rewritten(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (ock_wire_result_count(x->body, wire_of(x)) > 0)
    ock_wire_rename_call_tool(x->body, wire_of(x), "_mutant");
}

/* path_provider: the provider name in an LLM path "/p/<name>/...", into buf ("" when none). */
static const char *path_provider(const char *path, char *buf, size_t n) {
  buf[0] = '\0';
  if (strncmp(path, "/p/", 3))
    return buf;
  const char *end = strchr(path + 3, '/');
  size_t len = end ? (size_t)(end - path - 3) : strlen(path + 3);
  if (len < n) {
    memcpy(buf, path + 3, len);
    buf[len] = '\0';
  }
  return buf;
}

void ock__mut_fallback_forgotten(struct mutant_state *s, struct mutant_exchange *x) {
  static char first[128];
  char now[128];
  path_provider(x->path, now, sizeof now);
  if (s->llm_in_execute == 0) {
    snprintf(first, sizeof first, "%s", now);
    return;
  }
  /* A later turn (a response came back since) that another provider serves goes back to the
   * execute's first provider, as if its failure were forgotten after the turn. */
  if (s->responses_in_execute == 0 || !*first || !*now || !strcmp(first, now))
    return;
  const char *rest = x->path + 3 + strlen(now);
  snprintf(x->path_buf, sizeof x->path_buf, "/p/%s%s", first, rest);
  x->path = x->path_buf;
}

void ock__mut_fallback_keeps_model(struct mutant_state *s, struct mutant_exchange *x) {
  static char first[128], model[256];
  char now[128];
  path_provider(x->path, now, sizeof now);
  cJSON *m = cJSON_GetObjectItemCaseSensitive(x->body, "model");
  if (!cJSON_IsString(m))
    return;
  if (s->llm_in_execute == 0) {
    snprintf(first, sizeof first, "%s", now);
    snprintf(model, sizeof model, "%s", m->valuestring);
    return;
  }
  /* A request to another provider than the execute's first (a fallback) keeps the first's
   * model, as a loop that resolves the model once per execute. */
  if (*first && *now && strcmp(first, now))
    cJSON_SetValuestring(m, model);
}

/* last_user_index: the index of the last user message of the request, or -1. */
static int last_user_index(const cJSON *messages) {
  int found = -1, i = 0;
  const cJSON *m;
  cJSON_ArrayForEach(m, messages) {
    if (!strcmp(ock__mut_str(m, "role"), "user"))
      found = i;
    i++;
  }
  return found;
}

void ock__mut_final_answer_altered(struct mutant_state *s, struct mutant_exchange *x) {
  cJSON *msgs = cJSON_GetObjectItemCaseSensitive(x->body, "messages");
  int u = last_user_index(msgs);
  cJSON *before = u > 0 ? cJSON_GetArrayItem(msgs, u - 1) : NULL;
  if (s->executes < 2 || s->llm_in_execute > 0 || strcmp(ock__mut_str(before, "role"), "assistant"))
    return;
  cJSON *content = cJSON_GetObjectItemCaseSensitive(before, "content");
  cJSON *block = NULL, *b;
  if (cJSON_IsArray(content))
    cJSON_ArrayForEach(b, content)
      if (!block && !strcmp(ock__mut_str(b, "type"), "text"))
        block = b;
  cJSON *holder = cJSON_IsString(content) ? before : block;
  const char *key = cJSON_IsString(content) ? "content" : "text";
  const char *text = ock__mut_str(holder, key);
  if (!*text)
    return;
  char changed[4096];
  snprintf(changed, sizeof changed, "%s (mutant)", text);
  ock__mut_set_str(holder, key, changed);
}

void ock__mut_empty_reply_stored(struct mutant_state *s, struct mutant_exchange *x) {
  if (s->executes >= 2 && s->llm_in_execute == 0)
    ock_wire_insert_assistant_before_prompt(x->body, "");
}

void ock__mut_context_left_broken(struct mutant_state *s, struct mutant_exchange *x) {
  if (s->executes >= 2 && s->llm_in_execute == 0)
    ock_wire_drop_last_result(x->body, wire_of(x));
}

void ock__mut_result_text_replaced(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  ock_wire_set_result_texts(x->body, wire_of(x), "(mutant) the tool's output is not here", 1);
}

void ock__mut_failure_text_changed(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  ock_wire_suffix_error_results(x->body, wire_of(x), " (mutant)");
}

/* The wrap-up reminder in other words: no mark of SPEC.md 5.5 in it. */
#define OTHER_REMINDER                                                                             \
  "[loop limit] No more tools this turn: answer the user now with what you have found so far."

/* other_words: each text of SPEC.md 5.10, 5.11 and 5.5 in other English, what a framework with
 * its own wording sends; NULL for any other text. */
static const char *other_words(enum ock_wire_text_kind kind, const char *t, char *buf, size_t n) {
  if (kind == OCK_WIRE_TEXT_RESULT) {
    const char *end;
    if (!strncmp(t, "Error: tool '", 13) && (end = strstr(t + 13, "' not found")) != NULL)
      snprintf(buf, n, "There is no tool called %.*s.", (int)(end - (t + 13)), t + 13);
    else if (!strncmp(t, "Error: denied: ", 15))
      snprintf(buf, n, "A hook refused this call (%s).", t + 15);
    else if (!strncmp(t, "Error: invalid arguments: ", 26))
      snprintf(buf, n, "The arguments could not be read: %s", t + 26);
    else if (!strcmp(t, "Error: cancelled"))
      return "Stopped: the user cancelled the run.";
    else if (!strncmp(t, "Error: skipped: ", 16))
      return "Not run, because another call of this turn failed first.";
    else if (!strncmp(t, "Error: ", 7))
      snprintf(buf, n, "The tool failed: %s", t + 7);
    else
      return NULL;
    return buf;
  }
  const char *at = kind == OCK_WIRE_TEXT_USER ? strstr(t, MUT_REMINDER) : NULL;
  if (at) {
    snprintf(buf, n, "%.*s%s%s", (int)(at - t), t, OTHER_REMINDER, at + strlen(MUT_REMINDER));
    return buf;
  }
  if (kind == OCK_WIRE_TEXT_ASSISTANT && !strcmp(t, MUT_CANCELLED_TEXT))
    return "(The run above was stopped at the user's request.)";
  return NULL;
}

void ock__mut_other_texts(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  ock_wire_map_texts(x->body, wire_of(x), other_words);
}

/* The texts of SPEC.md 2.15 one by one: a framework that words one of them its own way. */
enum text_class {
  TEXT_OTHER,
  TEXT_UNKNOWN_TOOL,
  TEXT_DENIED,
  TEXT_INVALID_ARGUMENTS,
  TEXT_CANCELLED,
  TEXT_SKIPPED,
  TEXT_FAILURE, /* any other "Error: ..." result: a tool's failure or its endpoint's */
  TEXT_REMINDER,
  TEXT_CLOSING,
};

static enum text_class class_of(enum ock_wire_text_kind kind, const char *t) {
  if (kind == OCK_WIRE_TEXT_USER)
    return strstr(t, MUT_REMINDER) ? TEXT_REMINDER : TEXT_OTHER;
  if (kind == OCK_WIRE_TEXT_ASSISTANT)
    return !strcmp(t, MUT_CANCELLED_TEXT) ? TEXT_CLOSING : TEXT_OTHER;
  if (kind != OCK_WIRE_TEXT_RESULT || strncmp(t, "Error: ", 7))
    return TEXT_OTHER;
  if (!strncmp(t, "Error: tool '", 13) && strstr(t + 13, "' not found"))
    return TEXT_UNKNOWN_TOOL;
  if (!strncmp(t, "Error: denied: ", 15))
    return TEXT_DENIED;
  if (!strncmp(t, "Error: invalid arguments: ", 26))
    return TEXT_INVALID_ARGUMENTS;
  if (!strcmp(t, "Error: cancelled"))
    return TEXT_CANCELLED;
  if (!strncmp(t, "Error: skipped: ", 16))
    return TEXT_SKIPPED;
  return TEXT_FAILURE;
}

static const char *words_of(enum text_class c, enum ock_wire_text_kind kind, const char *t,
                            char *buf, size_t n) {
  return class_of(kind, t) == c ? other_words(kind, t, buf, n) : NULL;
}

static const char *unknown_tool_words(enum ock_wire_text_kind kind, const char *t, char *buf,
                                      size_t n) {
  return words_of(TEXT_UNKNOWN_TOOL, kind, t, buf, n);
}

static const char *denied_words(enum ock_wire_text_kind kind, const char *t, char *buf, size_t n) {
  return words_of(TEXT_DENIED, kind, t, buf, n);
}

static const char *invalid_arguments_words(enum ock_wire_text_kind kind, const char *t, char *buf,
                                           size_t n) {
  return words_of(TEXT_INVALID_ARGUMENTS, kind, t, buf, n);
}

static const char *cancelled_words(enum ock_wire_text_kind kind, const char *t, char *buf,
                                   size_t n) {
  return words_of(TEXT_CANCELLED, kind, t, buf, n);
}

static const char *skipped_words(enum ock_wire_text_kind kind, const char *t, char *buf, size_t n) {
  return words_of(TEXT_SKIPPED, kind, t, buf, n);
}

static const char *failure_words(enum ock_wire_text_kind kind, const char *t, char *buf, size_t n) {
  return words_of(TEXT_FAILURE, kind, t, buf, n);
}

static const char *closing_words(enum ock_wire_text_kind kind, const char *t, char *buf, size_t n) {
  return words_of(TEXT_CLOSING, kind, t, buf, n);
}

void ock__mut_unknown_tool_other_words(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  ock_wire_map_texts(x->body, wire_of(x), unknown_tool_words);
}

void ock__mut_denied_other_words(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  ock_wire_map_texts(x->body, wire_of(x), denied_words);
}

void ock__mut_invalid_arguments_other_words(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  ock_wire_map_texts(x->body, wire_of(x), invalid_arguments_words);
}

void ock__mut_cancelled_other_words(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  ock_wire_map_texts(x->body, wire_of(x), cancelled_words);
}

void ock__mut_skipped_other_words(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  ock_wire_map_texts(x->body, wire_of(x), skipped_words);
}

void ock__mut_failure_other_words(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  ock_wire_map_texts(x->body, wire_of(x), failure_words);
}

void ock__mut_closing_other_words(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  ock_wire_map_texts(x->body, wire_of(x), closing_words);
}

/* reminder_words: other_words for the reminder alone. */
static const char *reminder_words(enum ock_wire_text_kind kind, const char *t, char *buf,
                                  size_t n) {
  return kind == OCK_WIRE_TEXT_USER ? other_words(kind, t, buf, n) : NULL;
}

/* The reminder in its own words, then stored: the wrap-up request (the one the SUT marked) gets
 * OTHER_REMINDER in place of the reminder, and every request after it starts with it. */
void ock__mut_reminder_other_words(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  ock_wire_map_texts(x->body, wire_of(x), reminder_words);
}

void ock__mut_reminder_stored_other_words(struct mutant_state *s, struct mutant_exchange *x) {
  if (ock_wire_find_message(x->body, MUT_REMINDER_MARK) >= 0) {
    s->wrapped_up = 1;
    ock_wire_map_texts(x->body, wire_of(x), reminder_words);
  } else if (s->wrapped_up && ock_wire_find_message(x->body, OTHER_REMINDER) < 0) {
    ock_wire_insert_user_first(x->body, OTHER_REMINDER);
  }
}

void ock__mut_injection_between_call_and_results(struct mutant_state *s,
                                                 struct mutant_exchange *x) {
  for (int i = 0; i < s->n_injections; i++)
    ock_wire_move_into_call(x->body, wire_of(x), s->injections[i]);
}

void ock__mut_reminder_as_system(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  ock_wire_move_to_system(x->body, wire_of(x), MUT_REMINDER_MARK);
}

void ock__mut_reminder_stored(struct mutant_state *s, struct mutant_exchange *x) {
  if (s->wrapped_up && ock_wire_find_message(x->body, MUT_REMINDER_MARK) < 0)
    ock_wire_insert_user_first(x->body, MUT_REMINDER);
}

void ock__mut_stream_false(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(x->body, "stream")))
    return;
  cJSON_ReplaceItemInObjectCaseSensitive(x->body, "stream", cJSON_CreateFalse());
  cJSON_DeleteItemFromObjectCaseSensitive(x->body, "stream_options");
}

void ock__mut_trace_header_dropped(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  ock__mutant_headers_remove(x->req_headers, "X-OCK-Trace-Id");
}

void ock__mut_finished_results_lost(struct mutant_state *s, struct mutant_exchange *x) {
  if (s->after_cancel && s->llm_in_execute == 0)
    ock_wire_set_result_texts(x->body, wire_of(x), "Error: cancelled", 0);
}

void ock__mut_closing_message_dropped(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  ock_wire_drop_message(x->body, "assistant", MUT_CANCELLED_TEXT);
}

void ock__mut_release_held(struct mutant_state *s, struct mutant_exchange *x) {
  ock__mut_flush_held(s, x, 1);
}

void ock__mut_non_retryable_as_retryable(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  static const long permanent[] = {400, 401, 403, 404, 413, 422};
  for (size_t i = 0; i < sizeof permanent / sizeof permanent[0]; i++)
    if (x->status == permanent[i])
      x->status = 503;
}

void ock__mut_retry_after_ignored(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  ock__mutant_headers_remove(x->reply_headers, "retry-after");
  ock__mutant_headers_remove(x->reply_headers, "retry-after-ms");
}

/* retry_after_as_floor: the SUT waits the longer of Retry-After and its backoff, as a loop that
 * takes Retry-After as a floor under the backoff instead of as the wait: the first retry's
 * backoff (about the base delay) is written into retry-after-ms. */
void ock__mut_retry_after_as_floor(struct mutant_state *s, struct mutant_exchange *x) {
  const char *ms = ock__mutant_headers_get(x->reply_headers, "retry-after-ms");
  if (!ms)
    return;
  char *end = NULL;
  double asked = strtod(ms, &end);
  if (end == ms || asked >= (double)s->base_delay_ms)
    return;
  char floor[32];
  snprintf(floor, sizeof floor, "%ld", s->base_delay_ms);
  ock__mutant_headers_remove(x->reply_headers, "retry-after-ms");
  ock__mutant_headers_add(x->reply_headers, "retry-after-ms", floor);
}

void ock__mut_tool_input_altered(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  cJSON *input = cJSON_GetObjectItemCaseSensitive(x->body, "input");
  if (cJSON_IsObject(input))
    cJSON_AddTrueToObject(input, "ock_mutant");
}

void ock__mut_streamed_arguments_truncated(struct mutant_state *s, struct mutant_exchange *x) {
  cJSON *input = cJSON_GetObjectItemCaseSensitive(x->body, "input");
  if (!s->streaming || !cJSON_IsObject(input))
    return;
  int n = cJSON_GetArraySize(input);
  if (n > 0)
    cJSON_DeleteItemFromArray(input, n - 1); /* the fragment that came last is lost */
  else
    cJSON_AddStringToObject(input, "ock_mutant", "a fragment from another call");
}

/* blank-prompt-stored: the SUT refuses a blank prompt but keeps it in the context; the event
 * hook remembers the prompt, the next LLM request carries it as the first user message. */
void ock__mut_blank_prompt_kept(struct mutant_state *s, struct mutant_exchange *x) {
  if (strcmp(ock__mut_event_name(x), OCK_EV_PROMPT_SUBMIT))
    return;
  const char *prompt = ock__mut_str(ock__mut_event_data(x), "prompt");
  for (const char *p = prompt; *p; p++)
    if (!isspace((unsigned char)*p))
      return;
  free(s->kept);
  s->kept = strdup(prompt);
}

void ock__mut_blank_prompt_stored(struct mutant_state *s, struct mutant_exchange *x) {
  if (!s->kept)
    return;
  ock_wire_insert_user_first(x->body, s->kept);
  free(s->kept);
  s->kept = NULL;
}

/* wrap-up-call-announced: the wrap-up reply's tool call gets a tool:pre, as if it were to run.
 * The LLM hook marks the wrap-up request before it goes out (done_once 1), so the event hook
 * knows the provider:response that answers it; it acts once (done_once 2). */
void ock__mut_wrap_up_sent(struct mutant_state *s, struct mutant_exchange *x) {
  if (!s->done_once && ock_wire_find_message(x->body, MUT_REMINDER_MARK) >= 0)
    s->done_once = 1;
}

/* tool_event: a tool event for the call, with the fields every tool event carries. */
static cJSON *tool_event(const char *name, const cJSON *call, const cJSON *response) {
  cJSON *ev = cJSON_CreateObject();
  cJSON_AddStringToObject(ev, "event", name);
  cJSON *d = cJSON_AddObjectToObject(ev, "data");
  cJSON_AddStringToObject(d, "tool_call_id", ock__mut_str(call, "id"));
  cJSON_AddStringToObject(d, "tool_name", ock__mut_str(call, "name"));
  cJSON_AddStringToObject(d, "parallel_group_id", "00000000-0000-4000-8000-00000000f1a5");
  if (*ock__mut_str(response, "trace_id"))
    cJSON_AddStringToObject(d, "trace_id", ock__mut_str(response, "trace_id"));
  cJSON_AddStringToObject(d, "stage", "execute");
  return ev;
}

/* The wrap-up reply's first call goes into the tool pipeline: tool:pre, then the loop sees the
 * limit and closes it with tool:error cancelled; it is never run. */
void ock__mut_wrap_up_call_announced(struct mutant_state *s, struct mutant_exchange *x) {
  if (s->done_once != 1 || strcmp(ock__mut_event_name(x), OCK_EV_PROVIDER_RESPONSE))
    return;
  const cJSON *data = ock__mut_event_data(x);
  const cJSON *call = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(data, "tool_calls"), 0);
  if (!call)
    return;
  s->done_once = 2;
  cJSON *pre = tool_event(OCK_EV_TOOL_PRE, call, data);
  const cJSON *args = cJSON_GetObjectItemCaseSensitive(call, "arguments");
  cJSON_AddItemToObject(cJSON_GetObjectItemCaseSensitive(pre, "data"), "tool_input",
                        args ? cJSON_Duplicate(args, 1) : cJSON_CreateObject());
  ock__mut_post_after(x, pre);
  cJSON *err = tool_event(OCK_EV_TOOL_ERROR, call, data);
  cJSON *e = cJSON_AddObjectToObject(cJSON_GetObjectItemCaseSensitive(err, "data"), "error");
  cJSON_AddStringToObject(e, "type", "cancelled");
  cJSON_AddStringToObject(e, "message", "the iteration limit was reached");
  ock__mut_post_after(x, err);
}

/* ---- what a failed attempt leaves behind (OCK-ERROR-012) ------------------------------------ */

/* append_message adds {role, content: text} at the end of the request's messages: a plain
 * string content is valid on both wires. */
static void append_message(cJSON *body, const char *role, const char *text) {
  cJSON *msgs = cJSON_GetObjectItemCaseSensitive(body, "messages");
  cJSON *m = cJSON_CreateObject();
  cJSON_AddStringToObject(m, "role", role);
  cJSON_AddStringToObject(m, "content", text);
  if (cJSON_IsArray(msgs))
    cJSON_AddItemToArray(msgs, m);
  else
    cJSON_Delete(m);
}

/* note_attempts keeps what the retry lies need: that a provider:retry came, and the text the
 * provider:stream events of the current request carried. */
void ock__mut_note_attempts(struct mutant_state *s, struct mutant_exchange *x) {
  const char *name = ock__mut_event_name(x);
  if (!strcmp(name, OCK_EV_PROVIDER_RETRY)) {
    s->retry_next = 1;
  } else if (!strcmp(name, OCK_EV_PROVIDER_REQUEST) && !s->retry_next) {
    free(s->kept);
    s->kept = NULL;
  } else if (!strcmp(name, OCK_EV_PROVIDER_STREAM)) {
    const char *delta = ock__mut_str(ock__mut_event_data(x), "delta");
    size_t had = s->kept ? strlen(s->kept) : 0, more = strlen(delta);
    char *grown = realloc(s->kept, had + more + 1);
    if (grown) {
      memcpy(grown + had, delta, more + 1);
      s->kept = grown;
    }
  }
}

void ock__mut_retry_prompt_repeated(struct mutant_state *s, struct mutant_exchange *x) {
  if (!s->retry_next)
    return;
  s->retry_next = 0;
  const cJSON *msgs = cJSON_GetObjectItemCaseSensitive(x->body, "messages");
  const cJSON *last_user = NULL, *m;
  cJSON_ArrayForEach(m, msgs) {
    if (!strcmp(ock__mut_str(m, "role"), "user"))
      last_user = m;
  }
  if (last_user)
    cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(x->body, "messages"),
                         cJSON_Duplicate(last_user, 1));
}

void ock__mut_partial_reply_stored(struct mutant_state *s, struct mutant_exchange *x) {
  if (!s->retry_next)
    return;
  s->retry_next = 0;
  if (s->kept && *s->kept)
    append_message(x->body, "assistant", s->kept);
  free(s->kept);
  s->kept = NULL;
}

/* ---- what a cancelled stream leaves behind (OCK-CANCEL-007) ---------------------------------- */

/* note_stream keeps the text the provider:stream events of the current request carried, across
 * the end of a cancelled execute, so the next execute's first request can store it. */
void ock__mut_note_stream(struct mutant_state *s, struct mutant_exchange *x) {
  const char *name = ock__mut_event_name(x);
  if (!strcmp(name, OCK_EV_PROVIDER_REQUEST) && !(s->after_cancel && s->llm_in_execute == 0)) {
    free(s->kept);
    s->kept = NULL;
  } else if (!strcmp(name, OCK_EV_PROVIDER_STREAM) && !s->cancelled) {
    const char *delta = ock__mut_str(ock__mut_event_data(x), "delta");
    size_t had = s->kept ? strlen(s->kept) : 0, more = strlen(delta);
    char *grown = realloc(s->kept, had + more + 1);
    if (grown) {
      memcpy(grown + had, delta, more + 1);
      s->kept = grown;
    }
  }
}

/* partial_stream_stored: the first request after a cancelled execute carries, before the closing
 * message, the partial text the abandoned stream delivered. */
void ock__mut_partial_stream_stored(struct mutant_state *s, struct mutant_exchange *x) {
  if (!s->after_cancel || s->llm_in_execute || !s->kept || !*s->kept)
    return;
  cJSON *msgs = cJSON_GetObjectItemCaseSensitive(x->body, "messages");
  int last_user = -1, i = 0;
  const cJSON *m;
  cJSON_ArrayForEach(m, msgs) {
    if (!strcmp(ock__mut_str(m, "role"), "user"))
      last_user = i;
    i++;
  }
  if (last_user < 1)
    return;
  /* A copy with the partial message before the closing one (cJSON's insert is not used: some
   * versions refuse an index inside a parsed array). */
  cJSON *copy = cJSON_CreateArray();
  i = 0;
  cJSON_ArrayForEach(m, msgs) {
    if (i++ == last_user - 1) {
      cJSON *partial = cJSON_CreateObject();
      cJSON_AddStringToObject(partial, "role", "assistant");
      cJSON_AddStringToObject(partial, "content", s->kept);
      cJSON_AddItemToArray(copy, partial);
    }
    cJSON_AddItemToArray(copy, cJSON_Duplicate(m, 1));
  }
  cJSON_ReplaceItemInObjectCaseSensitive(x->body, "messages", copy);
  free(s->kept);
  s->kept = NULL;
}

/* unstarted_calls_dropped: the first request after a cancelled execute stores only the first
 * call of the round (the one that started) and its result; the calls the cancel kept from
 * starting are left out with their results (OpenAI wire). */
void ock__mut_unstarted_calls_dropped(struct mutant_state *s, struct mutant_exchange *x) {
  if (!s->after_cancel || s->llm_in_execute || x->wire != MUTANT_WIRE_OPENAI)
    return;
  cJSON *msgs = cJSON_GetObjectItemCaseSensitive(x->body, "messages");
  cJSON *calls = NULL, *m;
  cJSON_ArrayForEach(m, msgs) {
    cJSON *tc = cJSON_GetObjectItemCaseSensitive(m, "tool_calls");
    if (cJSON_GetArraySize(tc) > 1)
      calls = tc;
  }
  while (calls && cJSON_GetArraySize(calls) > 1) {
    cJSON *gone = cJSON_DetachItemFromArray(calls, cJSON_GetArraySize(calls) - 1);
    const char *id = ock__mut_str(gone, "id");
    for (int i = cJSON_GetArraySize(msgs) - 1; i >= 0; i--)
      if (!strcmp(ock__mut_str(cJSON_GetArrayItem(msgs, i), "tool_call_id"), id))
        cJSON_DeleteItemFromArray(msgs, i);
    cJSON_Delete(gone);
  }
}

/* ---- a failed tool's output taken for its result (OCK-TOOL-002) ----------------------------- */

/* note_failed_output keeps the output of a ToolResult with success false. */
void ock__mut_note_failed_output(struct mutant_state *s, struct mutant_exchange *x) {
  const cJSON *out = cJSON_GetObjectItemCaseSensitive(x->reply, "output");
  if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(x->reply, "success")) && cJSON_IsString(out) &&
      *out->valuestring) {
    free(s->kept);
    s->kept = strdup(out->valuestring);
  }
}

/* failed_output_fed_back: the next request carries that output as the tool result, instead of
 * the error (a loop that feeds back whatever output the result has). */
void ock__mut_failed_output_fed_back(struct mutant_state *s, struct mutant_exchange *x) {
  if (!s->kept)
    return;
  ock_wire_set_result_texts(x->body, wire_of(x), s->kept, 0);
  free(s->kept);
  s->kept = NULL;
}

/* ---- one lie per check (each makes one check id FAIL and, as far as it can, no other) ------- */

/* denied_prompt_kept: the mock denied this prompt:submit; the prompt is kept to be stored. */
void ock__mut_denied_prompt_kept(struct mutant_state *s, struct mutant_exchange *x) {
  if (strcmp(ock__mut_event_name(x), OCK_EV_PROMPT_SUBMIT) ||
      strcmp(ock__mut_str(x->reply, "action"), "deny"))
    return;
  free(s->kept);
  s->kept = strdup(ock__mut_str(ock__mut_event_data(x), "prompt"));
}

/* result_without_call: the last tool result is sent twice, the copy under an id no call has. */
void ock__mut_result_without_call(struct mutant_state *s, struct mutant_exchange *x) {
  (void)s;
  if (ock_wire_result_count(x->body, wire_of(x)) > 0 &&
      ock_wire_duplicate_last_result(x->body, wire_of(x)))
    ock_wire_rename_last_result(x->body, wire_of(x), "_nocall");
}

/* wrap_up_call_stored: the first request after the execute that wrapped up stores the wrap-up
 * reply's tool call, with a result, as a turn of its own before the final answer. The mock
 * numbers its call ids <prefix><hash>_<reply>_<call>, and the wrap-up reply is the one after the
 * reply whose call the history stores last, so its first call's id is known. */
void ock__mut_wrap_up_call_stored(struct mutant_state *s, struct mutant_exchange *x) {
  const struct ock_wire_ops *w = wire_of(x);
  if (!w || !s->wrapped_up || s->llm_in_execute || s->done_once)
    return;
  struct ock_wire_result r[OCK_MAX_WIRE_REFS];
  int n = w->find_results(x->body, r, OCK_MAX_WIRE_REFS);
  if (!n)
    return;
  const char *id = ock__mut_str(r[n - 1].item, w->result_id_key);
  size_t skip = strlen(w->call_prefix);
  const char *u = strlen(id) > skip ? strchr(id + skip, '_') : NULL;
  if (!u || !isdigit((unsigned char)u[1]))
    return;
  char wrap[256];
  snprintf(wrap, sizeof wrap, "%.*s_%lu_0", (int)(u - id), id, strtoul(u + 1, NULL, 10) + 1);
  s->done_once = ock_wire_copy_call_turn(x->body, w, wrap);
}

/* failure_hidden: the first tool endpoint failure reaches the SUT as a ToolResult with success
 * true whose output is the text the SUT would store for the failure; its message is kept for
 * ock__mut_failure_reported (which tells the mock of the failure as the SUT would have). */
void ock__mut_failure_hidden(struct mutant_state *s, struct mutant_exchange *x) {
  if (s->done_once || x->status < 500)
    return;
  const char *name = strrchr(x->path ? x->path : "", '/');
  char text[400];
  snprintf(text, sizeof text, "Error: tool '%.100s' endpoint answered HTTP %ld",
           name ? name + 1 : "", x->status);
  cJSON *result = cJSON_CreateObject();
  char *message = strdup(text + strlen("Error: "));
  if (!result || !message || !cJSON_AddTrueToObject(result, "success") ||
      !cJSON_AddStringToObject(result, "output", text) || !cJSON_AddNullToObject(result, "error")) {
    cJSON_Delete(result);
    free(message);
    return;
  }
  free(s->kept);
  s->kept = message;
  cJSON_Delete(x->reply);
  x->reply = result;
  x->status = 200;
  s->done_once = 1;
}
