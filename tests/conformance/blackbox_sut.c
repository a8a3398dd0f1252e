/*
 * blackbox_sut.c: a plain agent with no ock/1 events, for `ock run --blackbox` in make test.
 *
 * `blackbox_sut [drop-failed] [TAG]` reads the prompts from standard input, one a line ("\n"
 * is a line break, "\\" a backslash: SPEC.md 9.7), keeps one conversation, and loops each
 * prompt until the model calls no tool. It speaks the OpenAI wire at $OPENAI_BASE_URL and posts
 * no event. It takes its tool definitions from the session document and runs the tools at the
 * tools endpoint; the grading reads neither, only the traffic. With drop-failed it leaves the
 * result of a failing tool call out of the history: the orphan the black-box tier must catch;
 * with forget-answer it keeps no final answer in the history (OCK-ORPHAN-009). A failed LLM
 * request (429, 5xx, no answer) is retried twice, after the Retry-After the provider sent or an
 * exponential backoff from 100 ms (the resilience fixtures' config); with no-wait at once, which
 * the retry timing checks must catch. Its owner configures it for the catalog as SPEC.md 9.7
 * lets an owner do: it reads config.max_iterations (default 10) from the session document and
 * then sends the wrap-up request with the reminder and no tools; it skips a blank prompt; it
 * stores no empty final answer; it words tool errors as SPEC.md 5.9 says. TAG is ignored (it
 * lets a test find the processes of its own run).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <cJSON.h>
#include <curl/curl.h>

#include "ock/utf8.h"

#define BODY_MAX (4 << 20)
#define TURNS_MAX 10
#define RETRIES 2
#define REMINDER                                                                                   \
  "<system-reminder source=\"orchestrator-loop-limit\">\nYou have reached the maximum number "     \
  "of iterations for this turn. Please provide a response to the user now, summarizing your "      \
  "progress and noting what remains to be done.\n</system-reminder>"

struct body {
  char *data;
  size_t len;
};

static size_t keep(void *p, size_t size, size_t n, void *user) {
  struct body *b = user;
  size_t add = size * n;
  if (b->len + add > BODY_MAX)
    return 0;
  char *grown = realloc(b->data, b->len + add + 1);
  if (!grown)
    return 0;
  memcpy(grown + b->len, p, add);
  b->data = grown;
  b->len += add;
  b->data[b->len] = '\0';
  return add;
}

/* The session's config, as the agent's owner would set it (SPEC.md 9.7). */
static long tool_timeout_ms = 30000;

/* retry_after_ms: the delay the last reply's Retry-After headers asked for, or -1. */
static double retry_after_ms = -1;

static size_t header(char *line, size_t size, size_t n, void *user) {
  (void)user;
  size_t len = size * n;
  char h[128];
  snprintf(h, sizeof h, "%.*s", (int)(len < sizeof h - 1 ? len : sizeof h - 1), line);
  if (!strncasecmp(h, "retry-after-ms:", 15))
    retry_after_ms = strtod(h + 15, NULL);
  else if (!strncasecmp(h, "retry-after:", 12) && retry_after_ms < 0)
    retry_after_ms = strtod(h + 12, NULL) * 1000.0;
  return len;
}

/* call sends body (NULL: a GET) to url; returns the reply parsed (NULL if it is not JSON) and
 * its HTTP status in *status (0 when the request failed). */
static cJSON *call(CURL *c, const char *url, const cJSON *body, long *status) {
  struct body got = {NULL, 0};
  struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
  h = curl_slist_append(h, "Authorization: Bearer ock-dummy-key");
  char *text = body ? cJSON_PrintUnformatted(body) : NULL;
  curl_easy_reset(c);
  curl_easy_setopt(c, CURLOPT_URL, url);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
  if (text)
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, text);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, keep);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &got);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS,
                   body && strstr(url, "/ock/v1/tools/") ? tool_timeout_ms : 20000L);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, header);
  /* libcurl resends a request on its own when a reused connection drops before the reply: a
   * retry the agent never decided on, which the black-box tier sees (OCK-ERROR-002). */
  curl_easy_setopt(c, CURLOPT_FORBID_REUSE, 1L);
  retry_after_ms = -1;
  *status = 0;
  if (curl_easy_perform(c) == CURLE_OK)
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
  cJSON *reply = got.data ? cJSON_Parse(got.data) : NULL;
  free(got.data);
  free(text);
  curl_slist_free_all(h);
  return reply;
}

/* openai_tools: the tools of session in the OpenAI wire's form. */
static cJSON *openai_tools(const cJSON *session) {
  cJSON *tools = cJSON_CreateArray();
  const cJSON *t;
  cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(session, "tools")) {
    cJSON *fn = cJSON_CreateObject();
    cJSON_AddItemToObject(fn, "name",
                          cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(t, "name"), 1));
    cJSON_AddItemToObject(fn, "parameters",
                          cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(t, "input_schema"), 1));
    cJSON *tool = cJSON_CreateObject();
    cJSON_AddStringToObject(tool, "type", "function");
    cJSON_AddItemToObject(tool, "function", fn);
    cJSON_AddItemToArray(tools, tool);
  }
  return tools;
}

static int has_tool(const cJSON *tools, const char *name) {
  const cJSON *t;
  cJSON_ArrayForEach(t, tools) {
    const char *n = cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(t, "function"), "name"));
    if (n && name && !strcmp(n, name))
      return 1;
  }
  return 0;
}

/* error_text: "Error: " and msg, a new string. */
static char *error_text(const char *fmt, const char *msg) {
  char text[1024];
  snprintf(text, sizeof text, fmt, msg);
  return strdup(text);
}

/* run_tool runs one call at the tools endpoint; returns the result text (caller frees) and
 * whether the tool failed: 1 a failed result, 2 a failure of the call itself. */
static char *run_tool(CURL *c, const char *base, const cJSON *tools, const cJSON *tc, int *failed) {
  const cJSON *fn = cJSON_GetObjectItemCaseSensitive(tc, "function");
  const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(fn, "name"));
  const char *args = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(fn, "arguments"));
  *failed = 1;
  if (!has_tool(tools, name))
    return error_text("Error: tool '%s' not found", name ? name : "");
  cJSON *input = args && !ock_utf8_is_blank(args) ? cJSON_Parse(args) : cJSON_CreateObject();
  if (!cJSON_IsObject(input)) {
    cJSON_Delete(input);
    *failed = 2; /* a tool:error, which ends the execute under fail_fast */
    return error_text("Error: invalid arguments: %s", "not a JSON object");
  }
  char url[1024];
  snprintf(url, sizeof url, "%s/ock/v1/tools/%s", base, name ? name : "");
  cJSON *req = cJSON_CreateObject();
  cJSON_AddItemToObject(req, "tool_call_id",
                        cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(tc, "id"), 1));
  cJSON_AddItemToObject(req, "input", input);
  long status;
  cJSON *res = call(c, url, req, &status);
  cJSON_Delete(req);
  const cJSON *out = cJSON_GetObjectItemCaseSensitive(res, "output");
  const char *msg = cJSON_GetStringValue(
      cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(res, "error"), "message"));
  *failed = status != 200 ? 2 : !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(res, "success"));
  char *text = status != 200         ? strdup("Error: the tool endpoint failed")
               : *failed             ? error_text("Error: %s", msg && *msg ? msg : "unknown error")
               : cJSON_IsString(out) ? strdup(out->valuestring)
                                     : cJSON_PrintUnformatted(out);
  cJSON_Delete(res);
  return text;
}

/* decode undoes the prompt line's escapes in place. */
static void decode(char *s) {
  char *w = s;
  for (char *r = s; *r; r++) {
    if (*r == '\\' && (r[1] == 'n' || r[1] == '\\'))
      *w++ = *++r == 'n' ? '\n' : '\\';
    else if (*r != '\n')
      *w++ = *r;
  }
  *w = '\0';
}

/* One agent: its connection, its configuration and its one conversation. */
struct agent {
  CURL *c;
  const char *base; /* $OCK_URL: the session document and the tools endpoint */
  char url[1024];   /* the chat completions endpoint */
  cJSON *tools;     /* the OpenAI wire's tool definitions */
  cJSON *messages;  /* the conversation */
  int max_iter;     /* turns that offer tools before the wrap-up request */
  int retries;      /* retries of a failed request (0 unless retry or fallback) */
  int fail_fast;    /* a tool call that fails ends the execute */
  int drop_failed, forget_answer, no_wait; /* the deliberate bugs */
};

/* configure reads what an owner would set from the session document (SPEC.md 9.7). */
static void configure(struct agent *a) {
  char url[1100];
  long got;
  snprintf(url, sizeof url, "%s/ock/v1/session", a->base);
  cJSON *session = call(a->c, url, NULL, &got);
  const cJSON *config = cJSON_GetObjectItemCaseSensitive(session, "config");
  a->tools = openai_tools(session);
  a->max_iter =
      (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(config, "max_iterations"));
  if (a->max_iter <= 0 || a->max_iter > TURNS_MAX)
    a->max_iter = TURNS_MAX;
  const char *strategy =
      cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(config, "error_strategy"));
  a->retries =
      strategy && (!strcmp(strategy, "retry") || !strcmp(strategy, "fallback")) ? RETRIES : 0;
  a->fail_fast = strategy && !strcmp(strategy, "fail_fast");
  double timeout =
      cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(config, "tool_timeout_ms"));
  if (timeout >= 1 && timeout < 600000)
    tool_timeout_ms = (long)timeout;
  cJSON_Delete(session);
}

/* ask sends one turn's request (the wrap-up one with the reminder, which is not stored, and no
 * tools: SPEC.md 5.5), retrying a failed one; returns the reply and its status. */
static cJSON *ask(struct agent *a, int wrap_up, long *status) {
  cJSON *req = cJSON_CreateObject();
  cJSON_AddStringToObject(req, "model", "gpt-ock");
  if (wrap_up) {
    cJSON *sent = cJSON_Duplicate(a->messages, 1);
    cJSON *reminder = cJSON_CreateObject();
    cJSON_AddStringToObject(reminder, "role", "user");
    cJSON_AddStringToObject(reminder, "content", REMINDER);
    cJSON_AddItemToArray(sent, reminder);
    cJSON_AddItemToObject(req, "messages", sent);
  } else {
    cJSON_AddItemReferenceToObject(req, "messages", a->messages);
  }
  if (cJSON_GetArraySize(a->tools) && !wrap_up)
    cJSON_AddItemReferenceToObject(req, "tools", a->tools);
  cJSON *reply = call(a->c, a->url, req, status);
  for (int retry = 1; retry <= a->retries && (*status == 0 || *status == 429 || *status >= 500);
       retry++) {
    double ms = retry_after_ms >= 0 ? retry_after_ms : 100.0 * (1 << (retry - 1));
    if (!a->no_wait) /* the backoff under test: the harness grades its timing */
      usleep((useconds_t)((ms < 2000 ? ms : 2000) * 1000));
    cJSON_Delete(reply);
    reply = call(a->c, a->url, req, status);
  }
  cJSON_Delete(req);
  return reply;
}

/* run_calls runs the calls of the assistant message kept in the conversation and stores their
 * results; returns 1 when fail_fast ends the execute. */
static int run_calls(struct agent *a, const cJSON *kept) {
  const cJSON *tc;
  int stop = 0;
  cJSON_ArrayForEach(tc, cJSON_GetObjectItemCaseSensitive(kept, "tool_calls")) {
    int failed = 0;
    char *text = stop ? strdup("Error: skipped: an earlier tool call failed (fail_fast)")
                      : run_tool(a->c, a->base, a->tools, tc, &failed);
    stop = stop || (a->fail_fast && failed == 2);
    if (!(failed && a->drop_failed)) {
      cJSON *result = cJSON_CreateObject();
      cJSON_AddStringToObject(result, "role", "tool");
      cJSON_AddItemToObject(result, "tool_call_id",
                            cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(tc, "id"), 1));
      cJSON_AddStringToObject(result, "content", text ? text : "");
      cJSON_AddItemToArray(a->messages, result);
    }
    free(text);
  }
  return stop;
}

/* execute runs one prompt until the model calls no tool (or the wrap-up turn answers). */
static void execute(struct agent *a, const char *prompt) {
  cJSON *user = cJSON_CreateObject();
  cJSON_AddStringToObject(user, "role", "user");
  cJSON_AddStringToObject(user, "content", prompt);
  cJSON_AddItemToArray(a->messages, user);
  for (int turn = 0; turn <= a->max_iter; turn++) {
    int wrap_up = turn == a->max_iter, stop = 1;
    long status;
    cJSON *reply = ask(a, wrap_up, &status);
    cJSON *msg = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(reply, "choices"), 0), "message");
    const char *text = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(msg, "content"));
    if (status != 200 || !msg) {
      fprintf(stderr, "blackbox_sut: the LLM answered HTTP %ld\n", status);
    } else if (!cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(msg, "tool_calls")) ||
               wrap_up) { /* a final answer; a wrap-up reply's calls are dropped */
      printf("%s\n", text ? text : "");
      if (!a->forget_answer && text && *text) { /* an empty answer stores nothing */
        cJSON *answer = cJSON_CreateObject();
        cJSON_AddStringToObject(answer, "role", "assistant");
        cJSON_AddStringToObject(answer, "content", text);
        cJSON_AddItemToArray(a->messages, answer);
      }
    } else {
      cJSON *kept = cJSON_Duplicate(msg, 1);
      cJSON_AddItemToArray(a->messages, kept);
      stop = run_calls(a, kept);
    }
    cJSON_Delete(reply);
    if (stop)
      break;
  }
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  struct agent a = {.base = getenv("OCK_URL"),
                    .drop_failed = !strcmp(mode, "drop-failed"),
                    .forget_answer = !strcmp(mode, "forget-answer"),
                    .no_wait = !strcmp(mode, "no-wait")};
  const char *llm = getenv("OPENAI_BASE_URL");
  if (!a.base || !llm) {
    fprintf(stderr, "blackbox_sut: OCK_URL and OPENAI_BASE_URL must be set\n");
    return 2;
  }
  curl_global_init(CURL_GLOBAL_DEFAULT);
  a.c = curl_easy_init();
  configure(&a);
  a.messages = cJSON_CreateArray();
  snprintf(a.url, sizeof a.url, "%s/chat/completions", llm);
  char line[65536];
  while (fgets(line, sizeof line, stdin)) {
    decode(line);
    if (!ock_utf8_is_blank(line)) /* a blank prompt: no request, nothing stored (SPEC.md 5.12) */
      execute(&a, line);
    fflush(stdout);
  }
  cJSON_Delete(a.messages);
  cJSON_Delete(a.tools);
  curl_easy_cleanup(a.c);
  curl_global_cleanup();
  return 0;
}
