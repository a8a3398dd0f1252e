/*
 * upstream.c: the libcurl edge of the mutant proxy (see upstream.h). One easy handle per
 * exchange (driven through a multi handle, to be able to give up at any moment), so connection
 * threads never share one. No proxy from the environment, no "Expect: 100-continue", no
 * signals.
 */
#include "upstream.h"

#include <stdio.h>
#include <string.h>

#include <curl/curl.h>

#include "ock/caps.h"
#include "ock/status.h"

#define SLICE_MS 20

struct transfer {
  CURL *h;
  struct upstream_reply *r;
  const struct upstream_request *rq;
  int too_big;
  int stopped;
  int head_sent; /* on_head was called */
};

void ock__upstream_reply_init(struct upstream_reply *r) {
  memset(r, 0, sizeof *r);
  ock_buf_init(&r->body, OCK_MAX_MUTANT_BODY);
}

void ock__upstream_reply_free(struct upstream_reply *r) {
  ock__mutant_headers_free(&r->headers);
  ock_buf_free(&r->body);
}

/* head_done tells the streaming caller that the status and headers are in; 0 to go on. */
static int head_done(struct transfer *t) {
  if (t->head_sent || !t->rq->on_head)
    return 0;
  t->head_sent = 1;
  curl_easy_getinfo(t->h, CURLINFO_RESPONSE_CODE, &t->r->status);
  if (t->rq->on_head(t->rq->user, t->r->status, &t->r->headers)) {
    t->stopped = 1;
    return 1;
  }
  return 0;
}

static size_t on_body(char *data, size_t size, size_t n, void *user) {
  struct transfer *t = user;
  if (head_done(t))
    return 0;
  if (t->rq->on_data) {
    if (t->rq->on_data(t->rq->user, data, size * n)) {
      t->stopped = 1;
      return 0;
    }
    return size * n;
  }
  if (ock_buf_append(&t->r->body, data, size * n)) {
    t->too_big = 1;
    return 0;
  }
  return size * n;
}

/* on_header keeps "Name: value" lines; a new status line (after a 1xx) starts over. */
static size_t on_header(char *line, size_t size, size_t n, void *user) {
  struct transfer *t = user;
  size_t len = size * n;
  if (len >= 5 && !strncmp(line, "HTTP/", 5)) {
    ock__mutant_headers_free(&t->r->headers);
    return len;
  }
  if (len <= 2) { /* the blank line that ends a header block */
    long status = 0;
    curl_easy_getinfo(t->h, CURLINFO_RESPONSE_CODE, &status);
    return status >= 200 && head_done(t) ? 0 : len;
  }
  const char *colon = memchr(line, ':', len);
  if (!colon)
    return len;
  char name[256], value[4096];
  size_t nl = (size_t)(colon - line);
  const char *v = colon + 1;
  size_t vl = len - nl - 1;
  while (vl && (*v == ' ' || *v == '\t'))
    v++, vl--;
  while (vl && (v[vl - 1] == '\r' || v[vl - 1] == '\n' || v[vl - 1] == ' '))
    vl--;
  if (nl >= sizeof name || vl >= sizeof value)
    return len;
  memcpy(name, line, nl);
  name[nl] = '\0';
  memcpy(value, v, vl);
  value[vl] = '\0';
  ock__mutant_headers_add(&t->r->headers, name, value);
  return len;
}

/* perform runs the transfer in slices of at most SLICE_MS, asking keep_going in between, so a
 * transfer is abandoned promptly when the SUT hangs up or the proxy stops. */
static CURLcode perform(CURL *h, struct transfer *t) {
  CURLM *m = curl_multi_init();
  if (!m || curl_multi_add_handle(m, h)) {
    curl_multi_cleanup(m);
    return CURLE_OUT_OF_MEMORY;
  }
  CURLcode rc = CURLE_OK;
  for (;;) {
    int running = 0;
    if (curl_multi_perform(m, &running)) {
      rc = CURLE_RECV_ERROR;
      break;
    }
    if (!running) {
      int left;
      CURLMsg *msg = curl_multi_info_read(m, &left);
      rc = msg && msg->msg == CURLMSG_DONE ? msg->data.result : CURLE_RECV_ERROR;
      break;
    }
    if (t->stopped || (t->rq->keep_going && !t->rq->keep_going(t->rq->user))) {
      t->stopped = 1;
      rc = CURLE_ABORTED_BY_CALLBACK;
      break;
    }
    curl_multi_poll(m, NULL, 0, SLICE_MS, NULL);
  }
  curl_multi_remove_handle(m, h);
  curl_multi_cleanup(m);
  return rc;
}

int ock__upstream_exchange(const struct upstream_request *rq, struct upstream_reply *r) {
  CURL *h = curl_easy_init();
  if (!h)
    return OCK_ENOMEM;
  struct transfer t = {.h = h, .r = r, .rq = rq};
  struct curl_slist *list = curl_slist_append(NULL, "Expect:");
  for (int i = 0; rq->headers && i < rq->headers->n && list; i++) {
    char line[4400];
    snprintf(line, sizeof line, "%s: %s", rq->headers->name[i], rq->headers->value[i]);
    list = curl_slist_append(list, line);
  }
  if (!list) {
    curl_easy_cleanup(h);
    return OCK_ENOMEM;
  }
  curl_easy_setopt(h, CURLOPT_URL, rq->url);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_PROXY, "");
  curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
  curl_easy_setopt(h, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, list);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &t);
  if (rq->timeout_ms > 0)
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, rq->timeout_ms);
  if (!strcmp(rq->method, "GET")) {
    curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
  } else {
    curl_easy_setopt(h, CURLOPT_POST, 1L);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, rq->body ? rq->body : "");
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(rq->body ? rq->body_len : 0));
    if (strcmp(rq->method, "POST"))
      curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, rq->method);
  }
  CURLcode rc = perform(h, &t);
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &r->status);
  r->complete = rc == CURLE_OK;
  if (rc != CURLE_OK)
    snprintf(r->error, sizeof r->error, "%s %s: %s", rq->method, rq->url,
             t.too_big ? "the reply is larger than the 8 MiB cap" : curl_easy_strerror(rc));
  curl_slist_free_all(list);
  curl_easy_cleanup(h);
  if (rc == CURLE_OK)
    return OCK_OK;
  return t.too_big ? OCK_ETOOBIG : t.stopped ? OCK_ECANCELLED : OCK_EIO;
}
