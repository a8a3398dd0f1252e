/* helpers.c: shared helpers of the mock-provider tests (see helpers.h). */
#include "helpers.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

#include "ock/json.h"
#include "runner.h"

cJSON *fixture_load(const char *name) {
  char rel[512];
  snprintf(rel, sizeof rel, "tests/mock-provider/fixtures/%s", name);
  cJSON *j = NULL;
  struct ock_jerr err;
  if (ock_json_parse_file(ock_test_path(rel), 1 << 20, &j, &err)) {
    ock_test_fail(__LINE__, __FILE__, "fixture %s: %s: %s", name, err.where, err.what);
    return NULL;
  }
  return j;
}

ock_mock *mock_from(const char *fixture, const struct ock_mock_options *opt) {
  cJSON *j = NULL;
  if (fixture[0] == '{') {
    j = cJSON_Parse(fixture);
    if (!j)
      ock_test_fail(__LINE__, __FILE__, "inline fixture is not JSON: %.200s", fixture);
  } else {
    j = fixture_load(fixture);
  }
  if (!j)
    return NULL;
  ock_mock *m = NULL;
  struct ock_jerr err;
  int rc = ock_mock_new(j, opt, &m, &err);
  cJSON_Delete(j);
  if (rc) {
    ock_test_fail(__LINE__, __FILE__, "ock_mock_new: %s: %s", err.where, err.what);
    return NULL;
  }
  if (ock_mock_start(m, &err)) {
    ock_test_fail(__LINE__, __FILE__, "ock_mock_start: %s: %s", err.where, err.what);
    ock_mock_free(m);
    return NULL;
  }
  return m;
}

static size_t on_data(char *p, size_t size, size_t n, void *user) {
  struct ock_buf *b = user;
  return ock_buf_append(b, p, size * n) ? 0 : size * n;
}

static void perform(ock_mock *m, const char *path, const char *body, const char *header,
                    struct http_reply *out) {
  memset(out, 0, sizeof *out);
  ock_buf_init(&out->head, 1 << 20);
  ock_buf_init(&out->body, 64 << 20);
  char url[512];
  snprintf(url, sizeof url, "%s%s", ock_mock_url(m), path);
  CURL *c = curl_easy_init();
  struct curl_slist *hs = NULL;
  hs = curl_slist_append(hs, "Content-Type: application/json");
  hs = curl_slist_append(hs, "Expect:");
  if (header)
    hs = curl_slist_append(hs, header);
  curl_easy_setopt(c, CURLOPT_URL, url);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, hs);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &out->body);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_data);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &out->head);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  if (body) {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
  }
  out->curl_rc = (int)curl_easy_perform(c);
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &out->status);
  curl_easy_getinfo(c, CURLINFO_TOTAL_TIME, &out->seconds);
  curl_slist_free_all(hs);
  curl_easy_cleanup(c);
  if (!out->body.data)
    OCK_ASSERT_OK(ock_buf_puts(&out->body, ""));
  if (!out->head.data)
    OCK_ASSERT_OK(ock_buf_puts(&out->head, ""));
}

void http_post(ock_mock *m, const char *path, const char *body, const char *header,
               struct http_reply *out) {
  perform(m, path, body ? body : "", header, out);
}

void http_get(ock_mock *m, const char *path, struct http_reply *out) {
  perform(m, path, NULL, NULL, out);
}

void http_reply_free(struct http_reply *r) {
  ock_buf_free(&r->head);
  ock_buf_free(&r->body);
}

const char *reply_header(const struct http_reply *r, const char *name, char *buf, size_t n) {
  size_t len = strlen(name);
  const char *line = r->head.data;
  while (line && *line) {
    const char *end = strstr(line, "\r\n");
    if (!end)
      break;
    if ((size_t)(end - line) > len && !strncasecmp(line, name, len) && line[len] == ':') {
      const char *v = line + len + 1;
      while (*v == ' ')
        v++;
      snprintf(buf, n, "%.*s", (int)(end - v), v);
      return buf;
    }
    line = end + 2;
  }
  return NULL;
}

cJSON *sse_split(const char *body) {
  cJSON *arr = cJSON_CreateArray();
  const char *p = body;
  while (p && *p) {
    const char *end = strstr(p, "\n\n");
    size_t len = end ? (size_t)(end - p) : strlen(p);
    char *ev = strndup(p, len);
    char *name = NULL, *data = NULL;
    for (char *save = NULL, *line = strtok_r(ev, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
      if (!strncmp(line, "event: ", 7))
        name = line + 7;
      else if (!strncmp(line, "data: ", 6))
        data = line + 6;
    }
    cJSON *o = cJSON_CreateObject();
    if (name)
      cJSON_AddStringToObject(o, "event", name);
    else
      cJSON_AddNullToObject(o, "event");
    cJSON_AddStringToObject(o, "data", data ? data : "");
    cJSON_AddItemToArray(arr, o);
    free(ev);
    p = end ? end + 2 : NULL;
  }
  return arr;
}

cJSON *journal_nth(ock_mock *m, const char *kind, int nth) {
  cJSON *j = ock_mock_journal(m);
  cJSON *e, *found = NULL;
  cJSON_ArrayForEach(e, j) {
    const char *k = ock_json_str(e, "kind");
    if ((!kind || (k && !strcmp(k, kind))) && nth-- == 0) {
      found = cJSON_Duplicate(e, 1);
      break;
    }
  }
  cJSON_Delete(j);
  return found;
}

int journal_count(ock_mock *m, const char *kind) {
  cJSON *j = ock_mock_journal(m);
  int n = 0;
  cJSON *e;
  cJSON_ArrayForEach(e, j) {
    const char *k = ock_json_str(e, "kind");
    n += !kind || (k && !strcmp(k, kind));
  }
  cJSON_Delete(j);
  return n;
}

char *journal_without_time(ock_mock *m) {
  cJSON *j = ock_mock_journal(m);
  cJSON *e;
  cJSON_ArrayForEach(e, j) {
    cJSON_DeleteItemFromObjectCaseSensitive(e, "t_ms");
  }
  char *s = cJSON_PrintUnformatted(j);
  cJSON_Delete(j);
  return s;
}
