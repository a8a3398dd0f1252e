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
 * the retry timing checks must catch. TAG is ignored (it
 * lets a test find the processes of its own run).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <cJSON.h>
#include <curl/curl.h>

#define BODY_MAX (4 << 20)
#define TURNS_MAX 10
#define RETRIES 2

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
  curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, header);
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

/* openai_tools: the session's tools in the OpenAI wire's form. */
static cJSON *openai_tools(CURL *c, const char *base) {
  char url[1024];
  snprintf(url, sizeof url, "%s/ock/v1/session", base);
  long status;
  cJSON *session = call(c, url, NULL, &status);
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
  cJSON_Delete(session);
  return tools;
}

/* run_tool runs one call at the tools endpoint; returns the result text (caller frees) and
 * whether the tool failed. */
static char *run_tool(CURL *c, const char *base, const cJSON *tc, int *failed) {
  const cJSON *fn = cJSON_GetObjectItemCaseSensitive(tc, "function");
  const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(fn, "name"));
  const char *args = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(fn, "arguments"));
  char url[1024];
  snprintf(url, sizeof url, "%s/ock/v1/tools/%s", base, name ? name : "");
  cJSON *req = cJSON_CreateObject();
  cJSON_AddItemToObject(req, "tool_call_id",
                        cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(tc, "id"), 1));
  cJSON *input = args ? cJSON_Parse(args) : NULL;
  cJSON_AddItemToObject(req, "input", input ? input : cJSON_CreateObject());
  long status;
  cJSON *res = call(c, url, req, &status);
  cJSON_Delete(req);
  const cJSON *out = cJSON_GetObjectItemCaseSensitive(res, "output");
  *failed = status != 200 || !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(res, "success"));
  char *text = *failed               ? strdup("Error: the tool failed")
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

int main(int argc, char **argv) {
  int drop_failed = argc > 1 && !strcmp(argv[1], "drop-failed");
  int forget_answer = argc > 1 && !strcmp(argv[1], "forget-answer");
  int no_wait = argc > 1 && !strcmp(argv[1], "no-wait");
  const char *base = getenv("OCK_URL"), *llm = getenv("OPENAI_BASE_URL");
  if (!base || !llm) {
    fprintf(stderr, "blackbox_sut: OCK_URL and OPENAI_BASE_URL must be set\n");
    return 2;
  }
  curl_global_init(CURL_GLOBAL_DEFAULT);
  CURL *c = curl_easy_init();
  cJSON *tools = openai_tools(c, base);
  cJSON *messages = cJSON_CreateArray();
  char url[1024], line[65536];
  snprintf(url, sizeof url, "%s/chat/completions", llm);
  while (fgets(line, sizeof line, stdin)) {
    decode(line);
    cJSON *user = cJSON_CreateObject();
    cJSON_AddStringToObject(user, "role", "user");
    cJSON_AddStringToObject(user, "content", line);
    cJSON_AddItemToArray(messages, user);
    for (int turn = 0; turn < TURNS_MAX; turn++) {
      cJSON *req = cJSON_CreateObject();
      cJSON_AddStringToObject(req, "model", "gpt-ock");
      cJSON_AddItemReferenceToObject(req, "messages", messages);
      if (cJSON_GetArraySize(tools))
        cJSON_AddItemReferenceToObject(req, "tools", tools);
      long status;
      cJSON *reply = call(c, url, req, &status);
      for (int retry = 1; retry <= RETRIES && (status == 0 || status == 429 || status >= 500);
           retry++) {
        double ms = retry_after_ms >= 0 ? retry_after_ms : 100.0 * (1 << (retry - 1));
        if (!no_wait) /* the backoff under test: the harness grades its timing */
          usleep((useconds_t)((ms < 2000 ? ms : 2000) * 1000));
        cJSON_Delete(reply);
        reply = call(c, url, req, &status);
      }
      cJSON_Delete(req);
      cJSON *msg = cJSON_GetObjectItemCaseSensitive(
          cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(reply, "choices"), 0), "message");
      if (status != 200 || !msg) {
        fprintf(stderr, "blackbox_sut: the LLM answered HTTP %ld\n", status);
        cJSON_Delete(reply);
        break;
      }
      const cJSON *calls = cJSON_GetObjectItemCaseSensitive(msg, "tool_calls");
      if (!cJSON_GetArraySize(calls)) {
        const char *text = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(msg, "content"));
        printf("%s\n", text ? text : "");
        if (!forget_answer)
          cJSON_AddItemToArray(messages, cJSON_Duplicate(msg, 1));
        cJSON_Delete(reply);
        break;
      }
      cJSON *kept = cJSON_Duplicate(msg, 1);
      cJSON_AddItemToArray(messages, kept);
      calls = cJSON_GetObjectItemCaseSensitive(kept, "tool_calls");
      const cJSON *tc;
      cJSON_ArrayForEach(tc, calls) {
        int failed = 0;
        char *text = run_tool(c, base, tc, &failed);
        if (!(failed && drop_failed)) {
          cJSON *result = cJSON_CreateObject();
          cJSON_AddStringToObject(result, "role", "tool");
          cJSON_AddItemToObject(result, "tool_call_id",
                                cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(tc, "id"), 1));
          cJSON_AddStringToObject(result, "content", text ? text : "");
          cJSON_AddItemToArray(messages, result);
        }
        free(text);
      }
      cJSON_Delete(reply);
    }
    fflush(stdout);
  }
  cJSON_Delete(messages);
  cJSON_Delete(tools);
  curl_easy_cleanup(c);
  curl_global_cleanup();
  return 0;
}
