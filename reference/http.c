/*
 * http.c: the libcurl exchange of http.h.
 *
 * Bytes that libcurl hands to the write callback go to a staging buffer; the driving loop
 * passes them to on_data after each curl_multi_perform, so no user code runs inside libcurl.
 *
 * Each thread keeps its easy and multi handles from one exchange to the next (a pthread key
 * frees them when the thread exits, ock_http_thread_cleanup before that), which spares each
 * LLM request the handles' set-up and the multi handle's wake-up socketpair. An exchange
 * started inside another one takes a second pair, kept the same way.
 *
 * Each request goes on a connection of its own (CURLOPT_FRESH_CONNECT), closed after it
 * (CURLOPT_FORBID_REUSE), because libcurl 7.88 replays a request on a new connection, without
 * a word, when a *reused* connection closes before any response byte ("Connection died,
 * retrying a fresh connect"; no option turns this off before CURLOPT_FORBID_RETRY_ON_REUSE in
 * 8.16). A provider that read the request and then dropped the connection (the mock's
 * drop_connection with N = 0, SPEC.md 6.6) would see it twice and the orchestrator would
 * never see the error: with reuse, the fixtures error-drop-connection and
 * retry-connection-drop fail. libcurl never replays on a fresh connection. (The ock/1
 * exchanges, which may reuse, go over plain_http.h.)
 */
#include "http.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

#include "ock/status.h"
#include "plain_http.h"

struct xfer {
  const struct ock__http_request *rq;
  struct ock__http_response *rs;
  CURL *easy;
  struct ock_buf staged; /* 2xx body bytes not yet passed to on_data */
  int toobig;
};

/* A pair of handles of one thread; the easy handle is in the multi handle only during an
 * exchange. */
struct handles {
  CURL *easy;
  CURLM *multi;         /* holds the kept connections */
  int busy;             /* an exchange is running on this pair */
  struct handles *next; /* the pair for an exchange started inside this one's */
};

static pthread_key_t handles_key;
static pthread_once_t handles_once = PTHREAD_ONCE_INIT;
static int handles_key_ok;

static void handles_free(void *p) {
  for (struct handles *h = p, *next; h; h = next) {
    next = h->next;
    curl_multi_cleanup(h->multi); /* closes the kept connections */
    curl_easy_cleanup(h->easy);
    free(h);
  }
}

static void handles_key_create(void) {
  handles_key_ok = pthread_key_create(&handles_key, handles_free) == 0;
}

static struct handles *handles_new(void) {
  struct handles *h = calloc(1, sizeof *h);
  if (!h)
    return NULL;
  h->easy = curl_easy_init();
  h->multi = curl_multi_init();
  if (!h->easy || !h->multi) {
    handles_free(h);
    return NULL;
  }
  return h;
}

/* handles_take returns a pair of the calling thread's that no running exchange uses, marked
 * busy, made when there is none; NULL when out of memory. */
static struct handles *handles_take(void) {
  pthread_once(&handles_once, handles_key_create);
  if (!handles_key_ok)
    return NULL;
  struct handles *head = pthread_getspecific(handles_key);
  struct handles **at = &head;
  while (*at && (*at)->busy)
    at = &(*at)->next;
  if (!*at) {
    *at = handles_new();
    if (!*at)
      return NULL;
    if (*at == head && pthread_setspecific(handles_key, head)) {
      handles_free(head);
      return NULL;
    }
  }
  (*at)->busy = 1;
  return *at;
}

void ock_http_thread_cleanup(void) {
  ock__plain_thread_cleanup(); /* the ock/1 side's kept connection */
  pthread_once(&handles_once, handles_key_create);
  if (!handles_key_ok)
    return;
  handles_free(pthread_getspecific(handles_key));
  pthread_setspecific(handles_key, NULL);
}

void ock__http_response_init(struct ock__http_response *r, size_t max_body) {
  memset(r, 0, sizeof *r);
  ock_buf_init(&r->body, max_body);
}

void ock__http_response_free(struct ock__http_response *r) {
  ock_buf_free(&r->body);
}

static size_t on_write(char *p, size_t size, size_t nmemb, void *user) {
  struct xfer *x = user;
  size_t n = size * nmemb;
  long status = 0;
  curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
  int stream = x->rq->on_data && status >= 200 && status < 300;
  x->rs->received += n;
  if (x->rs->received > x->rq->max_body ||
      ock_buf_append(stream ? &x->staged : &x->rs->body, p, n)) {
    x->toobig = 1;
    return 0; /* makes libcurl stop with CURLE_WRITE_ERROR */
  }
  return n;
}

/* header_value copies the value of header line h (any case) named name into out. */
static void header_value(const char *h, size_t n, const char *name, char *out, size_t out_len) {
  size_t k = strlen(name);
  if (n <= k || strncasecmp(h, name, k) || h[k] != ':')
    return;
  const char *v = h + k + 1;
  const char *end = h + n;
  while (v < end && (*v == ' ' || *v == '\t'))
    v++;
  while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' '))
    end--;
  snprintf(out, out_len, "%.*s", (int)(end - v), v);
}

static size_t on_header(char *p, size_t size, size_t nmemb, void *user) {
  struct xfer *x = user;
  size_t n = size * nmemb;
  if (n >= 5 && !strncmp(p, "HTTP/", 5)) { /* a new response (after 100 Continue, ...) */
    x->rs->retry_after[0] = '\0';
    x->rs->retry_after_ms[0] = '\0';
  }
  header_value(p, n, "retry-after", x->rs->retry_after, sizeof x->rs->retry_after);
  header_value(p, n, "retry-after-ms", x->rs->retry_after_ms, sizeof x->rs->retry_after_ms);
  return n;
}

static int on_progress(void *user, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un) {
  (void)dt, (void)dn, (void)ut, (void)un;
  struct xfer *x = user;
  return ock_cancel_is_set(x->rq->cancel); /* non-zero aborts the transfer */
}

/* deliver passes staged bytes to on_data. */
static int deliver(struct xfer *x) {
  if (!x->staged.len)
    return OCK_OK;
  int rc = x->rq->on_data(x->rq->user, x->staged.data, x->staged.len);
  ock_buf_reset(&x->staged);
  return rc;
}

/* request_headers: the request's header lines as a libcurl list (caller frees with
 * curl_slist_free_all); a line that cannot be added is left out. */
static struct curl_slist *request_headers(const struct ock__http_request *rq) {
  struct curl_slist *hdrs = NULL;
  for (size_t i = 0; rq->headers && rq->headers[i]; i++) {
    struct curl_slist *h = curl_slist_append(hdrs, rq->headers[i]);
    if (!h)
      break;
    hdrs = h;
  }
  if (!strcmp(rq->method, "POST")) {
    struct curl_slist *h = curl_slist_append(hdrs, "Expect:"); /* no 100-continue round trip */
    if (h)
      hdrs = h;
  }
  return hdrs;
}

/* set_options points the easy handle at this exchange (hdrs and errbuf borrowed until the
 * handle is reset). */
static void set_options(struct xfer *x, struct curl_slist *hdrs, char *errbuf) {
  const struct ock__http_request *rq = x->rq;
  curl_easy_setopt(x->easy, CURLOPT_URL, rq->url);
  curl_easy_setopt(x->easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(x->easy, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(x->easy, CURLOPT_HTTPHEADER, hdrs);
  curl_easy_setopt(x->easy, CURLOPT_WRITEFUNCTION, on_write);
  curl_easy_setopt(x->easy, CURLOPT_WRITEDATA, x);
  curl_easy_setopt(x->easy, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(x->easy, CURLOPT_HEADERDATA, x);
  curl_easy_setopt(x->easy, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(x->easy, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(x->easy, CURLOPT_XFERINFODATA, x);
  curl_easy_setopt(x->easy, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
  curl_easy_setopt(x->easy, CURLOPT_FRESH_CONNECT, 1L); /* see the top of this file */
  curl_easy_setopt(x->easy, CURLOPT_FORBID_REUSE, 1L);
  if (rq->timeout_ms > 0)
    curl_easy_setopt(x->easy, CURLOPT_TIMEOUT_MS, rq->timeout_ms);
  if (!strcmp(rq->method, "POST")) {
    curl_easy_setopt(x->easy, CURLOPT_POST, 1L);
    curl_easy_setopt(x->easy, CURLOPT_POSTFIELDS, rq->body ? rq->body : "");
    curl_easy_setopt(x->easy, CURLOPT_POSTFIELDSIZE_LARGE,
                     (curl_off_t)(rq->body ? rq->body_len : 0));
  }
}

/* drive runs the transfer until it ends, passing the body on as it comes, or until
 * cancellation, on_data or libcurl stops it. */
static int drive(CURLM *multi, struct xfer *x, char *why, size_t why_len) {
  int rc = OCK_OK;
  int running = 1;
  while (running) {
    if (curl_multi_perform(multi, &running) != CURLM_OK) {
      snprintf(why, why_len, "libcurl failed during the transfer");
      return OCK_EIO;
    }
    if (x->rq->on_data && (rc = deliver(x)) != OCK_OK)
      return rc;
    if (ock_cancel_is_set(x->rq->cancel))
      return OCK_ECANCELLED;
    if (running)
      curl_multi_poll(multi, NULL, 0, 20, NULL);
  }
  return OCK_OK;
}

/* transfer_result: how a transfer that ran to its end ended, by libcurl's result. */
static int transfer_result(CURLM *multi, struct xfer *x, const char *errbuf, char *why,
                           size_t why_len) {
  int rc = OCK_OK, left = 0;
  CURLMsg *m = NULL;
  CURLcode res = CURLE_OK;
  while ((m = curl_multi_info_read(multi, &left)))
    if (m->msg == CURLMSG_DONE)
      res = m->data.result;
  if (res == CURLE_OK && x->rq->on_data)
    rc = deliver(x);
  else if (x->toobig)
    rc = OCK_ETOOBIG;
  else if (res == CURLE_ABORTED_BY_CALLBACK)
    rc = OCK_ECANCELLED;
  else if (res == CURLE_OPERATION_TIMEDOUT)
    rc = OCK_ETIMEDOUT;
  else if (res != CURLE_OK)
    rc = OCK_EIO;
  if (res != CURLE_OK)
    snprintf(why, why_len, "%s", errbuf[0] ? errbuf : curl_easy_strerror(res));
  return rc;
}

int ock__http_exchange(const struct ock__http_request *rq, struct ock__http_response *rs, char *why,
                       size_t why_len) {
  struct xfer x = {.rq = rq, .rs = rs};
  char errbuf[CURL_ERROR_SIZE] = "";
  struct handles *th = handles_take();
  if (!th) {
    snprintf(why, why_len, "cannot initialise libcurl");
    return OCK_ENOMEM;
  }
  ock_buf_init(&x.staged, rq->max_body);
  x.easy = th->easy;
  CURLM *multi = th->multi;
  struct curl_slist *hdrs = request_headers(rq);
  set_options(&x, hdrs, errbuf);
  int rc = OCK_OK;
  if (curl_multi_add_handle(multi, x.easy) != CURLM_OK) {
    snprintf(why, why_len, "cannot initialise libcurl");
    rc = OCK_ENOMEM;
    goto done;
  }
  rc = drive(multi, &x, why, why_len);
  curl_easy_getinfo(x.easy, CURLINFO_RESPONSE_CODE, &rs->status); /* 0 when none came */
  if (!rc)
    rc = transfer_result(multi, &x, errbuf, why, why_len);
  if (rc == OCK_ETOOBIG)
    snprintf(why, why_len, "the response passed %zu bytes", rq->max_body);
  else if (rc == OCK_ECANCELLED)
    snprintf(why, why_len, "abandoned on cancellation");
  curl_multi_remove_handle(multi, x.easy);
done:
  curl_easy_reset(x.easy); /* no option may point into this frame after it */
  th->busy = 0;
  curl_slist_free_all(hdrs);
  ock_buf_free(&x.staged);
  return rc;
}
