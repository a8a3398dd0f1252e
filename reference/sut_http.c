/*
 * sut_http.c: the ock/1 SUT protocol over HTTP: the session document, tools, and events.
 *
 * Events are POSTed one at a time and the reply (a HookResult) is awaited before the engine
 * goes on, as DESIGN.md §3 requires. Event posts are never abandoned on cancellation (the
 * closing events of a cancelled execute must arrive); tool calls are. A hook registry that
 * cannot be reached must not stop the loop, so a failed post counts as "continue" and is
 * reported on stderr. All of it goes over plain_http.h's client, not libcurl: these exchanges
 * are most of a turn's work (plain_http.h says why).
 */
#include "ock/orchestrator.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "ock/caps.h"
#include "plain_http.h"
#include "ock/json.h"
#include "ock/status.h"

/* join_url: root without trailing slashes + path (+ escaped name). Caller frees. */
static char *join_url(const char *root, const char *path, const char *name) {
  size_t rlen = strlen(root);
  while (rlen && root[rlen - 1] == '/')
    rlen--;
  char *esc = name ? curl_easy_escape(NULL, name, 0) : NULL;
  if (name && !esc)
    return NULL;
  size_t n = rlen + strlen(path) + (esc ? strlen(esc) : 0) + 1;
  char *url = malloc(n);
  if (url)
    snprintf(url, n, "%.*s%s%s", (int)rlen, root, path, esc ? esc : "");
  curl_free(esc);
  return url;
}

/* ---- GET JSON -------------------------------------------------------------------------------- */

int ock_http_get_json(const char *url, long timeout_ms, size_t max, cJSON **out,
                      struct ock_jerr *err) {
  const char *headers[] = {"Accept: application/json", NULL};
  struct ock__http_request rq = {
      .method = "GET",
      .url = url,
      .headers = headers,
      .timeout_ms = timeout_ms,
      .max_body = max,
  };
  struct ock__http_response rs;
  ock__http_response_init(&rs, max);
  char why[512] = "";
  int rc = ock__plain_exchange(&rq, &rs, why, sizeof why);
  if (rc == OCK_OK && (rs.status < 200 || rs.status >= 300))
    rc = ock_jerr_set(err, OCK_EHTTP, url, "HTTP status %ld", rs.status);
  else if (rc)
    rc = ock_jerr_set(err, rc, url, "%s", why[0] ? why : ock_strerror(rc));
  else {
    rc = ock_json_parse(rs.body.data ? rs.body.data : "", rs.body.len, out, err);
    if (rc && err) {
      char where[sizeof err->where];
      snprintf(where, sizeof where, "%.200s: %.300s", url, err->where);
      memcpy(err->where, where, sizeof where);
    }
  }
  ock__http_response_free(&rs);
  return rc;
}

/* post_body renders {"<k1>": "<v1>", "<k2>": <v2, or {} when NULL>} into *out (caller frees
 * with ock_buf_free), without copying v2's tree. OCK_ETOOBIG past what an ock/1 endpoint
 * keeps (it would answer 413), or OCK_ENOMEM; out is then empty. */
static int post_body(struct ock_buf *out, const char *k1, const char *v1, const char *k2,
                     const cJSON *v2) {
  ock_buf_init(out, OCK_MAX_MOCK_BODY);
  int rc = ock_buf_puts(out, "{");
  rc |= ock_json_write_string(out, k1);
  rc |= ock_buf_puts(out, ":");
  rc |= ock_json_write_string(out, v1);
  rc |= ock_buf_puts(out, ",");
  rc |= ock_json_write_string(out, k2);
  rc |= ock_buf_puts(out, ":");
  rc |= v2 ? ock_json_write(out, v2) : ock_buf_puts(out, "{}");
  rc |= ock_buf_puts(out, "}");
  if (rc)
    ock_buf_free(out);
  return rc;
}

/* ---- tools ----------------------------------------------------------------------------------- */

struct ock_http_tool {
  struct ock_tool iface;
  char *url, *name, *description;
  cJSON *schema;
};

static int tool_execute(void *self, const char *tool_call_id, const cJSON *input,
                        const struct ock_tool_env *env, cJSON **result, char *detail,
                        size_t detail_len) {
  struct ock_http_tool *t = self;
  char scratch[8];
  if (!detail) {
    detail = scratch;
    detail_len = sizeof scratch;
  }
  struct ock_buf body;
  int rc = post_body(&body, "tool_call_id", tool_call_id ? tool_call_id : "", "input", input);
  if (rc) {
    snprintf(detail, detail_len, "%s",
             rc == OCK_ETOOBIG ? "the tool's input is too large to send" : "out of memory");
    return rc;
  }
  char trace[300];
  snprintf(trace, sizeof trace, "X-OCK-Trace-Id: %s", env && env->trace_id ? env->trace_id : "");
  const char *headers[] = {"Content-Type: application/json", env && env->trace_id ? trace : NULL,
                           NULL};
  struct ock__http_request rq = {
      .method = "POST",
      .url = t->url,
      .body = body.data,
      .body_len = body.len,
      .headers = headers,
      .timeout_ms = env ? env->timeout_ms : 0,
      .cancel = env ? env->cancel : NULL,
      .max_body = OCK_MAX_TOOL_REPLY,
  };
  struct ock__http_response rs;
  ock__http_response_init(&rs, OCK_MAX_TOOL_REPLY);
  char why[512] = "";
  rc = ock__plain_exchange(&rq, &rs, why, sizeof why);
  ock_buf_free(&body);
  if (rc == OCK_ETIMEDOUT) {
    snprintf(detail, detail_len, "tool '%s' timed out after %ld ms", t->name,
             env ? env->timeout_ms : 0L);
  } else if (rc == OCK_ECANCELLED) {
    snprintf(detail, detail_len, "cancelled");
  } else if (rc) {
    snprintf(detail, detail_len, "tool '%s' endpoint failed: %s", t->name, why);
  } else if (rs.status < 200 || rs.status >= 300) {
    snprintf(detail, detail_len, "tool '%s' endpoint answered HTTP %ld", t->name, rs.status);
    rc = OCK_EHTTP;
  } else {
    cJSON *j = cJSON_ParseWithLength(rs.body.data ? rs.body.data : "", rs.body.len);
    if (!cJSON_IsObject(j)) {
      cJSON_Delete(j);
      snprintf(detail, detail_len, "tool '%s' endpoint answered something that is not a ToolResult",
               t->name);
      rc = OCK_EPROTO;
    } else {
      *result = j;
    }
  }
  ock__http_response_free(&rs);
  return rc;
}

int ock_http_tool_new(const char *root, const char *name, const char *description,
                      const cJSON *input_schema, ock_http_tool **out) {
  if (!root || !name || !*name || !out)
    return OCK_EINVAL;
  struct ock_http_tool *t = calloc(1, sizeof *t);
  if (!t)
    return OCK_ENOMEM;
  t->url = join_url(root, "/ock/v1/tools/", name);
  t->name = strdup(name);
  t->description = description ? strdup(description) : NULL;
  t->schema = input_schema ? cJSON_Duplicate(input_schema, 1) : NULL;
  if (!t->url || !t->name || (description && !t->description) || (input_schema && !t->schema)) {
    ock_http_tool_free(t);
    return OCK_ENOMEM;
  }
  t->iface.spec.name = t->name;
  t->iface.spec.description = t->description;
  t->iface.spec.input_schema = t->schema;
  t->iface.self = t;
  t->iface.execute = tool_execute;
  *out = t;
  return OCK_OK;
}

void ock_http_tool_free(ock_http_tool *t) {
  if (!t)
    return;
  free(t->url);
  free(t->name);
  free(t->description);
  cJSON_Delete(t->schema);
  free(t);
}

const struct ock_tool *ock_http_tool_get(ock_http_tool *t) {
  return t ? &t->iface : NULL;
}

/* ---- hooks (events) -------------------------------------------------------------------------- */

struct ock_http_hooks {
  struct ock_hooks iface;
  char *url;
  long timeout_ms;
};

static int hooks_emit(void *self, const char *name, const cJSON *data,
                      struct ock_hook_result *out) {
  struct ock_http_hooks *h = self;
  struct ock_buf body;
  int rc = post_body(&body, "event", name, "data", data);
  if (rc) {
    fprintf(stderr, "ock-orchestrator: event %s not sent: %s\n", name, ock_strerror(rc));
    return rc;
  }
  const char *headers[] = {"Content-Type: application/json", NULL};
  struct ock__http_request rq = {
      .method = "POST",
      .url = h->url,
      .body = body.data,
      .body_len = body.len,
      .headers = headers,
      .timeout_ms = h->timeout_ms,
      .max_body = OCK_MAX_HOOK_REPLY,
  };
  struct ock__http_response rs;
  ock__http_response_init(&rs, OCK_MAX_HOOK_REPLY);
  char why[512] = "";
  rc = ock__plain_exchange(&rq, &rs, why, sizeof why);
  ock_buf_free(&body);
  if (rc) {
    fprintf(stderr, "ock-orchestrator: event %s not delivered: %s\n", name, why);
  } else if (rs.status < 200 || rs.status >= 300) {
    fprintf(stderr, "ock-orchestrator: event %s: the hook endpoint answered HTTP %ld\n", name,
            rs.status);
    rc = OCK_EHTTP;
  } else if (rs.body.len) {
    struct ock_jerr jerr;
    cJSON *j = NULL;
    rc = ock_json_parse(rs.body.data, rs.body.len, &j, &jerr);
    if (!rc)
      rc = ock_hook_result_from_json(j, out, &jerr);
    if (rc)
      fprintf(stderr, "ock-orchestrator: event %s: the HookResult is invalid: %s: %s\n", name,
              jerr.where, jerr.what);
    cJSON_Delete(j);
  }
  ock__http_response_free(&rs);
  return rc;
}

int ock_http_hooks_new(const char *root, long timeout_ms, ock_http_hooks **out) {
  if (!root || !out)
    return OCK_EINVAL;
  struct ock_http_hooks *h = calloc(1, sizeof *h);
  if (!h)
    return OCK_ENOMEM;
  h->url = join_url(root, "/ock/v1/events", NULL);
  if (!h->url) {
    free(h);
    return OCK_ENOMEM;
  }
  h->timeout_ms = timeout_ms;
  h->iface.self = h;
  h->iface.emit = hooks_emit;
  *out = h;
  return OCK_OK;
}

void ock_http_hooks_free(ock_http_hooks *h) {
  if (!h)
    return;
  free(h->url);
  free(h);
}

const struct ock_hooks *ock_http_hooks_get(ock_http_hooks *h) {
  return h ? &h->iface : NULL;
}
