/*
 * redact.c: secrets out of a recording (see redact.h).
 */
#include "redact.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ock/status.h"

static const char *const secret_headers[] = {
    "authorization", "proxy-authorization", "x-api-key",      "x-goog-api-key", "api-key", "cookie",
    "set-cookie",    "openai-organization", "openai-project", "x-auth-token",   NULL};

static const char *const secret_params[] = {"key",    "api_key",       "apikey", "api-key",
                                            "token",  "access_token",  "auth",   "password",
                                            "secret", "client_secret", NULL};

void ock__rec_secrets_free(struct rec_secrets *s) {
  for (size_t i = 0; i < s->n; i++)
    free(s->items[i]);
  free(s->items);
  memset(s, 0, sizeof *s);
}

static void add_secret(struct rec_secrets *s, const char *v, size_t n) {
  while (n && *v == ' ')
    v++, n--;
  if (n < 4) /* too short to scrub without shredding ordinary text; still redacted in place */
    return;
  for (size_t i = 0; i < s->n; i++)
    if (strlen(s->items[i]) == n && !memcmp(s->items[i], v, n))
      return;
  if (s->n == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 8;
    char **items = realloc(s->items, cap * sizeof *items);
    if (!items)
      return;
    s->items = items;
    s->cap = cap;
  }
  char *copy = strndup(v, n);
  if (copy)
    s->items[s->n++] = copy;
}

int ock__rec_is_secret_header(const char *name) {
  for (int i = 0; secret_headers[i]; i++)
    if (!strcasecmp(name, secret_headers[i]))
      return 1;
  return 0;
}

void ock__rec_redact_headers(cJSON *headers, struct rec_secrets *s) {
  cJSON *it;
  cJSON_ArrayForEach(it, headers) {
    if (!ock__rec_is_secret_header(it->string) || !cJSON_IsString(it))
      continue;
    const char *v = it->valuestring;
    add_secret(s, v, strlen(v));
    const char *sp = strchr(v, ' '); /* "Bearer KEY", "Basic ...": the token alone too */
    if (sp)
      add_secret(s, sp + 1, strlen(sp + 1));
    for (const char *p = v; *p; p++) /* cookies: each value of "a=b; c=d" */
      if (*p == '=') {
        size_t n = strcspn(p + 1, ";");
        add_secret(s, p + 1, n);
      }
    cJSON_SetValuestring(it, REC_REDACTED);
  }
}

static int is_secret_param(const char *name, size_t n) {
  for (int i = 0; secret_params[i]; i++)
    if (strlen(secret_params[i]) == n && !strncasecmp(name, secret_params[i], n))
      return 1;
  return 0;
}

char *ock__rec_redact_query(const char *query, struct rec_secrets *s) {
  if (!query)
    return NULL;
  struct ock_buf b;
  ock_buf_init(&b, (size_t)1 << 20);
  int rc = ock_buf_puts(&b, "");
  for (const char *p = query; *p && !rc;) {
    size_t len = strcspn(p, "&");
    const char *eq = memchr(p, '=', len);
    size_t name_len = eq ? (size_t)(eq - p) : len;
    if (p != query)
      rc = ock_buf_puts(&b, "&");
    if (eq && is_secret_param(p, name_len)) {
      add_secret(s, eq + 1, len - name_len - 1);
      rc = rc ? rc : ock_buf_append(&b, p, name_len + 1);
      rc = rc ? rc : ock_buf_puts(&b, REC_REDACTED);
    } else {
      rc = rc ? rc : ock_buf_append(&b, p, len);
    }
    p += len + (p[len] == '&');
  }
  if (rc) {
    ock_buf_free(&b);
    return NULL;
  }
  return ock_buf_take(&b);
}

/* ---- JSON paths ---------------------------------------------------------------------------- */

/* step reads one step of path at *p: a member name (into name) or an index (*index, -1 for
 * "*"). Returns 1 for a member, 2 for an index, 0 at the end, -1 for bad syntax. */
static int step(const char **p, char *name, size_t n, long *index) {
  const char *s = *p;
  if (!*s)
    return 0;
  if (*s == '.') {
    size_t len = strcspn(s + 1, ".[");
    if (!len || len >= n)
      return -1;
    memcpy(name, s + 1, len);
    name[len] = '\0';
    *p = s + 1 + len;
    return 1;
  }
  if (*s != '[')
    return -1;
  if (s[1] == '\'' || s[1] == '"') {
    const char *end = strchr(s + 2, s[1]);
    if (!end || end[1] != ']' || (size_t)(end - s - 2) >= n)
      return -1;
    memcpy(name, s + 2, (size_t)(end - s - 2));
    name[end - s - 2] = '\0';
    *p = end + 2;
    return 1;
  }
  if (s[1] == '*' && s[2] == ']') {
    *index = -1;
    *p = s + 3;
    return 2;
  }
  char *end;
  *index = strtol(s + 1, &end, 10);
  if (end == s + 1 || *end != ']' || *index < 0)
    return -1;
  *p = end + 1;
  return 2;
}

/* walk replaces, under node, what the steps at p name; returns how many, or -1. */
static int walk(cJSON *node, const char *p, struct rec_secrets *s) {
  char name[256];
  long index = 0;
  const char *rest = p;
  int kind = step(&rest, name, sizeof name, &index);
  if (kind <= 0)
    return kind;
  int count = 0;
  cJSON *child = node->child;
  for (long i = 0; child; i++) {
    cJSON *next = child->next;
    int hit = kind == 1 ? cJSON_IsObject(node) && child->string && !strcmp(child->string, name)
                        : cJSON_IsArray(node) && (index < 0 || index == i);
    if (hit && !*rest) {
      char *text = cJSON_IsString(child) ? NULL : cJSON_PrintUnformatted(child);
      const char *v = cJSON_IsString(child) ? child->valuestring : text;
      if (s && v)
        add_secret(s, v, strlen(v));
      free(text);
      cJSON *r = cJSON_CreateString(REC_REDACTED);
      if (r && child->string && !(r->string = strdup(child->string))) {
        cJSON_Delete(r);
        r = NULL;
      }
      if (r && cJSON_ReplaceItemViaPointer(node, child, r))
        count++;
      else
        cJSON_Delete(r);
    } else if (hit) {
      int k = walk(child, rest, s);
      if (k < 0)
        return -1;
      count += k;
    }
    child = next;
  }
  return count;
}

int ock__rec_path_valid(const char *path) {
  if (!path || path[0] != '$')
    return 0;
  char name[256];
  long index;
  const char *p = path + 1;
  int kind;
  while ((kind = step(&p, name, sizeof name, &index)) > 0)
    ;
  return kind == 0;
}

int ock__rec_redact_path(cJSON *doc, const char *path, struct rec_secrets *s) {
  if (!ock__rec_path_valid(path))
    return -1;
  if (!doc || !path[1])
    return 0;
  return walk(doc, path + 1, s);
}

static char *find(char *hay, size_t n, const char *needle, size_t k) {
  for (size_t i = 0; k && i + k <= n; i++)
    if (hay[i] == needle[0] && !memcmp(hay + i, needle, k))
      return hay + i;
  return NULL;
}

int ock__rec_scrub(struct ock_buf *b, const struct rec_secrets *s) {
  for (size_t i = 0; i < s->n; i++) {
    size_t n = strlen(s->items[i]);
    char *at;
    while (b->data && (at = find(b->data, b->len, s->items[i], n))) {
      size_t off = (size_t)(at - b->data), tail = b->len - off - n;
      size_t r = sizeof REC_REDACTED - 1;
      if (r > n && ock_buf_reserve(b, r - n))
        return OCK_ENOMEM;
      at = b->data + off;
      memmove(at + r, at + n, tail + 1);
      memcpy(at, REC_REDACTED, r);
      b->len = off + r + tail;
    }
  }
  return OCK_OK;
}
