/*
 * proxy.c: the mutant's HTTP proxy (see proxy.h): libmicrohttpd in front, upstream.c behind,
 * the mutation's hooks in between.
 *
 * Each request is read whole (body capped at 8 MiB), classified by its path, shown to the
 * request hook, forwarded, and its reply read whole and shown to the reply hook before it goes
 * back. Streamed (SSE) replies are buffered whole too: the SUT gets the same bytes, later. A
 * reply the mock cut short is cut short again: the bytes that came, then a broken connection.
 * Bodies are re-serialised only where a hook could have changed them, so everything else
 * passes byte for byte.
 */
#include "proxy.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "ock/caps.h"
#include "ock/buf.h"
#include "ock/http_request.h"
#include "ock/json.h"
#include "ock/status.h"
#include "upstream.h"

struct proxy {
  const struct mutation *mu;
  char upstream[256];
  char url[64];
  struct MHD_Daemon *daemon;
  pthread_mutex_t lock; /* guards st and the last request */
  struct mutant_state st;
  atomic_int stopping;
  atomic_int stop_requested;
  atomic_int child_gone;        /* the SUT was stopped (ock__proxy_child_gone) */
  atomic_int child_pid;         /* the SUT's pid, for a deferred SIGINT (0: not known) */
  pthread_mutex_t workers_lock; /* guards workers; also what child_gone_cv waits with */
  pthread_cond_t workers_done;
  pthread_cond_t child_gone_cv; /* child_gone or stopping was set (CLOCK_MONOTONIC) */
  int workers;                  /* streaming transfers still running (detached threads) */
  /* The last tool or LLM request forwarded, for a replay (mutant_exchange.replay_after). */
  char *last_url;
  char *last_body;
  size_t last_len;
  struct mutant_headers last_headers;
};

/* What a forwarded transfer watches to know whether to go on. */
struct watch {
  proxy *p;
  int fd; /* the SUT's socket, or -1 */
};

/* A reply that the mock cut short, played back up to the cut. */
struct partial {
  char *data;
  size_t len;
};

/* Hop-by-hop and framing headers: each side of the proxy makes its own. */
static const char *const own_headers[] = {"host",
                                          "content-length",
                                          "connection",
                                          "keep-alive",
                                          "transfer-encoding",
                                          "expect",
                                          "te",
                                          "upgrade",
                                          "accept-encoding",
                                          "proxy-connection",
                                          "date",
                                          NULL};

static int is_own_header(const char *name) {
  for (int i = 0; own_headers[i]; i++)
    if (!strcasecmp(name, own_headers[i]))
      return 1;
  return 0;
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && !strcmp(s + n - k, suffix);
}

/* classify names a request by its path. libmicrohttpd hands over the path without its query
 * string, and the proxy forwards the path alone: ock/1 has no query parameters, and the one
 * the Gemini API needs (?alt=sse on :streamGenerateContent) is put back by serve(). */
static enum mutant_route classify(const char *method, const char *url, enum mutant_wire *wire) {
  *wire = MUTANT_WIRE_NONE;
  if (!strcmp(method, "GET") && !strcmp(url, "/ock/v1/session"))
    return MUTANT_ROUTE_SESSION;
  if (strcmp(method, "POST"))
    return MUTANT_ROUTE_OTHER;
  if (!strcmp(url, "/ock/v1/events"))
    return MUTANT_ROUTE_EVENT;
  if (!strncmp(url, "/ock/v1/tools/", 14))
    return MUTANT_ROUTE_TOOL;
  if (ends_with(url, "/chat/completions")) {
    *wire = MUTANT_WIRE_OPENAI;
    return MUTANT_ROUTE_LLM;
  }
  if (ends_with(url, "/v1/messages")) {
    *wire = MUTANT_WIRE_ANTHROPIC;
    return MUTANT_ROUTE_LLM;
  }
  if (ends_with(url, "/v1/responses")) {
    *wire = MUTANT_WIRE_RESPONSES;
    return MUTANT_ROUTE_LLM;
  }
  if (strstr(url, "/models/") &&
      (ends_with(url, ":generateContent") || ends_with(url, ":streamGenerateContent"))) {
    *wire = MUTANT_WIRE_GEMINI;
    return MUTANT_ROUTE_LLM;
  }
  return MUTANT_ROUTE_OTHER;
}

/* ---- upstream helpers ------------------------------------------------------------------------ */

static int keep_going(void *user) {
  struct watch *w = user;
  return !atomic_load(&w->p->stopping) && !ock_http_peer_gone(w->fd);
}

/* post_extra sends one body the hooks asked for to the mock; its reply is not needed. */
static void post_extra(proxy *p, const char *path, const char *body, size_t len,
                       const struct mutant_headers *h) {
  char url[1024];
  snprintf(url, sizeof url, "%s%s", p->upstream, path);
  struct watch w = {p, -1};
  struct upstream_request rq = {.method = "POST",
                                .url = url,
                                .body = body,
                                .body_len = len,
                                .headers = h,
                                .timeout_ms = 60000,
                                .keep_going = keep_going,
                                .user = &w};
  struct upstream_reply r;
  ock__upstream_reply_init(&r);
  if (ock__upstream_exchange(&rq, &r))
    fprintf(stderr, "ock-mutant: %s\n", r.error);
  ock__upstream_reply_free(&r);
}

static void post_events(proxy *p, const cJSON *events) {
  struct mutant_headers h = {0};
  ock__mutant_headers_add(&h, "Content-Type", "application/json");
  const cJSON *e;
  cJSON_ArrayForEach(e, events) {
    char *text = cJSON_PrintUnformatted(e);
    if (text)
      post_extra(p, "/ock/v1/events", text, strlen(text), &h);
    free(text);
  }
  ock__mutant_headers_free(&h);
}

static void remember(proxy *p, const char *url, const char *body, size_t len,
                     const struct mutant_headers *h) {
  pthread_mutex_lock(&p->lock);
  free(p->last_url);
  free(p->last_body);
  ock__mutant_headers_free(&p->last_headers);
  p->last_url = strdup(url);
  p->last_body = malloc(len + 1);
  p->last_len = p->last_body ? len : 0;
  if (p->last_body && len)
    memcpy(p->last_body, body, len);
  for (int i = 0; i < h->n; i++)
    ock__mutant_headers_add(&p->last_headers, h->name[i], h->value[i]);
  pthread_mutex_unlock(&p->lock);
}

static void replay(proxy *p) {
  pthread_mutex_lock(&p->lock);
  char *url = p->last_url ? strdup(p->last_url) : NULL;
  char *body = p->last_body ? malloc(p->last_len + 1) : NULL;
  size_t len = body ? p->last_len : 0;
  if (body && len)
    memcpy(body, p->last_body, len);
  struct mutant_headers h = {0};
  for (int i = 0; i < p->last_headers.n; i++)
    ock__mutant_headers_add(&h, p->last_headers.name[i], p->last_headers.value[i]);
  pthread_mutex_unlock(&p->lock);
  if (url)
    post_extra(p, url, body, len, &h);
  free(url);
  free(body);
  ock__mutant_headers_free(&h);
}

/* ---- streamed replies -------------------------------------------------------------------------

 * An LLM reply is passed on as it arrives, as the mock sends it: a stream the SUT cancels is cut
 * off at the mock too, as it would be without the proxy. A worker thread reads from the mock into
 * a pipe; the SUT's connection thread plays the pipe through a content reader. Whichever of the
 * two ends last frees the pipe. */

struct pipe {
  proxy *p;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int refs; /* the worker and the reader (or serve() until it hands over) */
  int fd;   /* the SUT's socket */
  struct upstream_request rq;
  char *url, *body; /* owned copies for the worker */
  size_t body_len;
  struct mutant_headers req_headers;
  struct upstream_reply up;
  struct ock_buf data;    /* the body so far */
  int head;               /* status and headers are in (up.status, up.headers) */
  int finished;           /* the transfer is over */
  int reader_gone;        /* the SUT's side is closed: abandon the transfer */
  const char *seal;       /* bytes to add to a stream cut short, then end it normally; NULL: none */
  int lenient;            /* -1 undecided; 1: drop bad events (mutation.drops_bad_stream_events) */
  struct ock_buf pending; /* with lenient: bytes of an event not complete yet */
};

/* good_event: an SSE event (its text up to the blank line) whose data is [DONE] or a JSON
 * object that is not an error. */
static int good_event(const char *ev, size_t len) {
  const char *data = NULL;
  for (size_t i = 0; i + 6 <= len && !data; i++)
    if ((i == 0 || ev[i - 1] == '\n') && !memcmp(ev + i, "data: ", 6))
      data = ev + i + 6;
  if (!data)
    return 1; /* comments, bare event lines: passed on */
  size_t dl = (size_t)(ev + len - data);
  while (dl && (data[dl - 1] == '\n' || data[dl - 1] == '\r'))
    dl--;
  if (dl == 6 && !memcmp(data, "[DONE]", 6))
    return 1;
  cJSON *j = cJSON_ParseWithLength(data, dl);
  const char *type = ock_json_str(j, "type");
  int ok =
      cJSON_IsObject(j) && !cJSON_HasObjectItem(j, "error") && !(type && !strcmp(type, "error"));
  cJSON_Delete(j);
  return ok;
}

/* lenient_append: moves the complete events of pending that are good into data. */
static int lenient_append(struct pipe *pp, const char *bytes, size_t len) {
  if (ock_buf_append(&pp->pending, bytes, len))
    return -1;
  size_t start = 0;
  for (size_t i = 0; i + 1 < pp->pending.len; i++) {
    if (pp->pending.data[i] != '\n' || pp->pending.data[i + 1] != '\n')
      continue;
    size_t end = i + 2;
    if (good_event(pp->pending.data + start, end - start) &&
        ock_buf_append(&pp->data, pp->pending.data + start, end - start))
      return -1;
    start = end;
    i = end - 1;
  }
  memmove(pp->pending.data, pp->pending.data + start, pp->pending.len - start);
  pp->pending.len -= start;
  return 0;
}

/* ends_sealed: the stream so far carries its wire's terminator and arrived whole. */
static int ends_sealed(const struct pipe *pp) {
  const char *mark = strstr(pp->seal, "message_stop")         ? "\"message_stop\""
                     : strstr(pp->seal, "response.completed") ? "\"response.completed\""
                     : strstr(pp->seal, "finishReason")       ? "\"finishReason\""
                                                              : "[DONE]";
  size_t m = strlen(mark);
  for (size_t i = 0; pp->up.complete && i + m <= pp->data.len; i++)
    if (!memcmp(pp->data.data + i, mark, m))
      return 1;
  return 0;
}

/* The terminator of each wire's stream (SPEC.md 6.4, 6.5), for mutations.seals_cut_streams. */
static const char *stream_terminator(enum mutant_wire w) {
  if (w == MUTANT_WIRE_RESPONSES) /* a completed response with nothing more in it */
    return "\n\nevent: response.completed\ndata: {\"type\":\"response.completed\","
           "\"sequence_number\":0,\"response\":{\"object\":\"response\",\"status\":"
           "\"completed\",\"output\":[]}}\n\n";
  if (w == MUTANT_WIRE_GEMINI) /* Gemini's stream ends with the chunk that has a finishReason */
    return "\n\ndata: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"\"}],\"role\":"
           "\"model\"},\"finishReason\":\"STOP\",\"index\":0}]}\n\n";
  return w == MUTANT_WIRE_ANTHROPIC
             ? "\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
             : "\n\ndata: [DONE]\n\n";
}

static void pipe_release(struct pipe *pp) {
  pthread_mutex_lock(&pp->mu);
  int last = --pp->refs == 0;
  pthread_mutex_unlock(&pp->mu);
  if (!last)
    return;
  ock__upstream_reply_free(&pp->up);
  ock_buf_free(&pp->data);
  ock_buf_free(&pp->pending);
  ock__mutant_headers_free(&pp->req_headers);
  free(pp->url);
  free(pp->body);
  pthread_cond_destroy(&pp->cv);
  pthread_mutex_destroy(&pp->mu);
  free(pp);
}

static int pipe_keep_going(void *user) {
  struct pipe *pp = user;
  pthread_mutex_lock(&pp->mu);
  int gone = pp->reader_gone;
  pthread_mutex_unlock(&pp->mu);
  return !gone && !atomic_load(&pp->p->stopping) && !ock_http_peer_gone(pp->fd);
}

static int pipe_head(void *user, long status, const struct mutant_headers *h) {
  (void)status, (void)h; /* the worker's reply struct holds them; head only says they are in */
  struct pipe *pp = user;
  pthread_mutex_lock(&pp->mu);
  pp->head = 1;
  int gone = pp->reader_gone;
  pthread_cond_broadcast(&pp->cv);
  pthread_mutex_unlock(&pp->mu);
  return gone;
}

static int pipe_data(void *user, const char *data, size_t len) {
  struct pipe *pp = user;
  pthread_mutex_lock(&pp->mu);
  if (pp->lenient < 0) {
    const char *type = ock__mutant_headers_get(&pp->up.headers, "content-type");
    pp->lenient = pp->p->mu->drops_bad_stream_events && type && strstr(type, "text/event-stream");
  }
  int rc = pp->reader_gone ||
           (pp->lenient ? lenient_append(pp, data, len) : ock_buf_append(&pp->data, data, len));
  pthread_cond_broadcast(&pp->cv);
  pthread_mutex_unlock(&pp->mu);
  return rc;
}

static void *pipe_worker(void *arg) {
  struct pipe *pp = arg;
  proxy *p = pp->p;
  if (ock__upstream_exchange(&pp->rq, &pp->up) && !atomic_load(&p->stopping) && !pp->reader_gone)
    fprintf(stderr, "ock-mutant: %s\n", pp->up.error);
  pthread_mutex_lock(&pp->mu);
  pp->finished = 1;
  pthread_cond_broadcast(&pp->cv);
  pthread_mutex_unlock(&pp->mu);
  pipe_release(pp);
  pthread_mutex_lock(&p->workers_lock);
  if (--p->workers == 0)
    pthread_cond_broadcast(&p->workers_done);
  pthread_mutex_unlock(&p->workers_lock);
  return NULL;
}

/* pipe_start copies the request and starts the worker; the caller holds one reference. */
static struct pipe *pipe_start(proxy *p, int fd, const char *url, const char *body, size_t len,
                               const struct mutant_headers *h) {
  struct pipe *pp = calloc(1, sizeof *pp);
  if (!pp)
    return NULL;
  pp->p = p;
  pp->fd = fd;
  pp->refs = 2;
  pthread_mutex_init(&pp->mu, NULL);
  pthread_cond_init(&pp->cv, NULL);
  ock__upstream_reply_init(&pp->up);
  ock_buf_init(&pp->data, OCK_MAX_MUTANT_BODY);
  ock_buf_init(&pp->pending, OCK_MAX_MUTANT_BODY);
  pp->lenient = -1;
  pp->url = strdup(url);
  pp->body = malloc(len + 1);
  if (pp->body && len)
    memcpy(pp->body, body, len);
  pp->body_len = len;
  for (int i = 0; i < h->n; i++)
    ock__mutant_headers_add(&pp->req_headers, h->name[i], h->value[i]);
  pp->rq = (struct upstream_request){.method = "POST",
                                     .url = pp->url,
                                     .body = pp->body,
                                     .body_len = len,
                                     .headers = &pp->req_headers,
                                     .keep_going = pipe_keep_going,
                                     .on_head = pipe_head,
                                     .on_data = pipe_data,
                                     .user = pp};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_mutex_lock(&p->workers_lock);
  p->workers++;
  pthread_mutex_unlock(&p->workers_lock);
  pthread_t t;
  int rc = !pp->url || !pp->body ? ENOMEM : pthread_create(&t, &attr, pipe_worker, pp);
  pthread_attr_destroy(&attr);
  if (rc) {
    pthread_mutex_lock(&p->workers_lock);
    p->workers--;
    pthread_mutex_unlock(&p->workers_lock);
    pp->refs = 1;
    pipe_release(pp);
    return NULL;
  }
  return pp;
}

/* pipe_wait_head waits until the status line is in or the transfer is over. */
static void pipe_wait_head(struct pipe *pp) {
  pthread_mutex_lock(&pp->mu);
  while (!pp->head && !pp->finished)
    pthread_cond_wait(&pp->cv, &pp->mu);
  pthread_mutex_unlock(&pp->mu);
}

static ssize_t play_pipe(void *cls, uint64_t pos, char *buf, size_t max) {
  struct pipe *pp = cls;
  pthread_mutex_lock(&pp->mu);
  for (;;) {
    if (atomic_load(&pp->p->stopping) || pp->reader_gone) {
      pthread_mutex_unlock(&pp->mu);
      return MHD_CONTENT_READER_END_WITH_ERROR;
    }
    if (pos < pp->data.len) {
      size_t n = pp->data.len - (size_t)pos;
      if (n > max)
        n = max;
      memcpy(buf, pp->data.data + pos, n);
      pthread_mutex_unlock(&pp->mu);
      return (ssize_t)n;
    }
    if (pp->finished && pp->seal && pp->data.len && !ends_sealed(pp)) {
      /* The lie: the cut, at the transport or before the terminator, is hidden behind the
       * wire's normal ending. */
      int sealed = ock_buf_puts(&pp->data, pp->seal) == OCK_OK;
      pp->seal = NULL;
      pp->up.complete = sealed;
      continue;
    }
    if (pp->finished) {
      int whole = pp->up.complete;
      pthread_mutex_unlock(&pp->mu);
      return whole ? MHD_CONTENT_READER_END_OF_STREAM : MHD_CONTENT_READER_END_WITH_ERROR;
    }
    /* Wait in slices: the SUT may hang up meanwhile, and only a look at its socket tells. */
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 20 * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
      until.tv_sec++;
      until.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&pp->cv, &pp->mu, &until);
    if (pos >= pp->data.len && !pp->finished && ock_http_peer_gone(pp->fd))
      pp->reader_gone = 1;
  }
}

static void free_pipe(void *cls) {
  struct pipe *pp = cls;
  pthread_mutex_lock(&pp->mu);
  pp->reader_gone = 1; /* the SUT's side is done: the worker may stop */
  pthread_mutex_unlock(&pp->mu);
  pipe_release(pp);
}

/* send_pipe queues the streamed reply: status and headers now, the body as it comes. */
static enum MHD_Result send_pipe(struct MHD_Connection *c, struct pipe *pp, long status,
                                 const struct mutant_headers *h) {
  struct MHD_Response *resp =
      MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 64 * 1024, play_pipe, pp, free_pipe);
  if (!resp) {
    free_pipe(pp);
    return MHD_NO;
  }
  for (int i = 0; h && i < h->n; i++)
    if (!is_own_header(h->name[i]))
      MHD_add_response_header(resp, h->name[i], h->value[i]);
  enum MHD_Result ret = MHD_queue_response(c, (unsigned)status, resp);
  MHD_destroy_response(resp);
  return ret;
}

/* ---- the session document ------------------------------------------------------------------- */

/* point_at_proxy rewrites each provider's base_url from the mock's root to the proxy's. */
static void point_at_proxy(proxy *p, cJSON *doc) {
  size_t n = strlen(p->upstream);
  cJSON *prov;
  cJSON_ArrayForEach(prov, cJSON_GetObjectItemCaseSensitive(doc, "providers")) {
    cJSON *b = cJSON_GetObjectItemCaseSensitive(prov, "base_url");
    if (!cJSON_IsString(b) || strncmp(b->valuestring, p->upstream, n))
      continue;
    char url[1024];
    snprintf(url, sizeof url, "%s%s", p->url, b->valuestring + n);
    cJSON_ReplaceItemInObjectCaseSensitive(prov, "base_url", cJSON_CreateString(url));
  }
}

/* ---- replies to the SUT --------------------------------------------------------------------- */

static ssize_t play_partial(void *cls, uint64_t pos, char *buf, size_t max) {
  struct partial *pt = cls;
  if (pos >= pt->len)
    return MHD_CONTENT_READER_END_WITH_ERROR;
  size_t n = pt->len - (size_t)pos;
  if (n > max)
    n = max;
  memcpy(buf, pt->data + pos, n);
  return (ssize_t)n;
}

static void free_partial(void *cls) {
  struct partial *pt = cls;
  free(pt->data);
  free(pt);
}

/* send_reply queues status, headers and body; cut: the body stops there with a broken
 * connection. */
static enum MHD_Result send_reply(struct MHD_Connection *c, long status,
                                  const struct mutant_headers *h, const char *body, size_t len,
                                  int cut) {
  struct MHD_Response *resp;
  if (cut) {
    struct partial *pt = calloc(1, sizeof *pt);
    if (!pt)
      return MHD_NO;
    pt->data = malloc(len + 1);
    if (!pt->data) {
      free(pt);
      return MHD_NO;
    }
    memcpy(pt->data, body, len);
    pt->len = len;
    resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 64 * 1024, play_partial, pt,
                                             free_partial);
    if (!resp) {
      free_partial(pt);
      return MHD_NO;
    }
  } else {
    resp = MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
    if (!resp)
      return MHD_NO;
  }
  for (int i = 0; h && i < h->n; i++)
    if (!is_own_header(h->name[i]))
      MHD_add_response_header(resp, h->name[i], h->value[i]);
  enum MHD_Result ret = MHD_queue_response(c, (unsigned)status, resp);
  MHD_destroy_response(resp);
  return ret;
}

static enum MHD_Result send_error(struct MHD_Connection *c, unsigned status, const char *what) {
  return ock_http_queue_json_error(c, status, "ock_mutant", what, 0);
}

/* ---- one request ------------------------------------------------------------------------------
 */

static enum MHD_Result collect_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                      const char *value) {
  (void)kind;
  if (!is_own_header(key))
    ock__mutant_headers_add(cls, key, value);
  return MHD_YES;
}

/* request_hook / reply_hook: the mutation's hook for this route, or NULL. */
static mutant_hook_fn request_hook(const struct mutation *mu, enum mutant_route r) {
  return r == MUTANT_ROUTE_EVENT  ? mu->event
         : r == MUTANT_ROUTE_LLM  ? mu->llm_request
         : r == MUTANT_ROUTE_TOOL ? mu->tool_request
                                  : NULL;
}

static mutant_hook_fn reply_hook(const struct mutation *mu, enum mutant_route r) {
  return r == MUTANT_ROUTE_EVENT  ? mu->event_reply
         : r == MUTANT_ROUTE_LLM  ? mu->llm_reply
         : r == MUTANT_ROUTE_TOOL ? mu->tool_reply
                                  : NULL;
}

static void free_exchange(struct mutant_exchange *x) {
  cJSON_Delete(x->body);
  cJSON_Delete(x->answer);
  cJSON_Delete(x->before);
  cJSON_Delete(x->after);
  cJSON_Delete(x->reply);
}

static void await_stop(proxy *p);

/* pass_sigint_on sends the deferred SIGINT to the SUT and gives its handler a moment to run
 * before the SUT reads the reply it is waiting for. */
static void pass_sigint_on(proxy *p) {
  pid_t pid = (pid_t)atomic_load(&p->child_pid);
  if (pid > 0 && !kill(pid, SIGINT))
    usleep(50 * 1000);
}

/* after_reply runs the reply hook and keeps the state's facts current; returns 1 when a hook
 * asked for the SUT to be stopped. */
static int after_reply(proxy *p, struct mutant_exchange *x, mutant_hook_fn after, int cut,
                       const cJSON *sent_event) {
  pthread_mutex_lock(&p->lock);
  if (x->route == MUTANT_ROUTE_SESSION && cJSON_IsObject(x->reply)) {
    point_at_proxy(p, x->reply);
    if (p->mu->session)
      p->mu->session(&p->st, x->reply);
    ock__mutant_note_session(&p->st, x->reply);
  }
  if (after && !cut)
    after(&p->st, x);
  if (sent_event)
    ock__mutant_note_event(&p->st, sent_event, x->reply);
  if (x->route == MUTANT_ROUTE_LLM && x->body)
    ock__mutant_note_llm(&p->st, x->body);
  int stop = p->st.stop;
  int sigint_now = p->st.sigint_now;
  p->st.sigint_now = 0;
  pthread_mutex_unlock(&p->lock);
  if (sigint_now)
    pass_sigint_on(p);
  post_events(p, x->after);
  if (x->replay_after)
    replay(p);
  return stop;
}

/* stream_llm forwards an LLM request and streams its reply back (see "streamed replies"). */
static enum MHD_Result stream_llm(proxy *p, struct MHD_Connection *c, struct mutant_exchange *x,
                                  const char *full, const char *body, size_t len,
                                  mutant_hook_fn after) {
  struct pipe *pp = pipe_start(p, ock_http_connection_fd(c), full, body, len, x->req_headers);
  if (!pp)
    return send_error(c, 502, "the proxy could not start the transfer");
  pipe_wait_head(pp);
  const char *type = ock__mutant_headers_get(&pp->up.headers, "content-type");
  if ((p->mu->seals_cut_streams || p->mu->drops_bad_stream_events) && type &&
      strstr(type, "text/event-stream")) {
    pthread_mutex_lock(&pp->mu);
    pp->seal = stream_terminator(x->wire);
    pthread_mutex_unlock(&pp->mu);
  }
  struct mutant_headers h = {0};
  for (int i = 0; i < pp->up.headers.n; i++)
    ock__mutant_headers_add(&h, pp->up.headers.name[i], pp->up.headers.value[i]);
  x->status = pp->up.status;
  x->reply_headers = &h;
  if (after_reply(p, x, after, x->status == 0, NULL)) {
    atomic_store(&p->stop_requested, 1);
    await_stop(p);
  }
  enum MHD_Result ret;
  if (x->status == 0) {
    free_pipe(pp); /* no reply came: the SUT sees the connection close, as from the mock */
    ret = MHD_NO;
  } else {
    ret = send_pipe(c, pp, x->status, &h);
  }
  x->reply_headers = NULL; /* h ends here */
  ock__mutant_headers_free(&h);
  return ret;
}

/* forward_whole sends a request other than an LLM one upstream and reads its whole reply
 * into *up; the reply is parsed into x->reply when a hook or the state needs it. Returns 1
 * when the reply was cut. */
static int forward_whole(proxy *p, struct MHD_Connection *c, struct mutant_exchange *x,
                         const char *method, const char *full, const char *body, size_t len,
                         mutant_hook_fn after, struct upstream_reply *up) {
  struct watch w = {p, ock_http_connection_fd(c)};
  struct upstream_request rq = {.method = method,
                                .url = full,
                                .body = body,
                                .body_len = len,
                                .headers = x->req_headers,
                                .keep_going = keep_going,
                                .user = &w};
  if (ock__upstream_exchange(&rq, up) && !atomic_load(&p->stopping))
    fprintf(stderr, "ock-mutant: %s\n", up->error);
  int cut = !up->complete;
  x->status = up->status;
  if (!cut && (after || x->route == MUTANT_ROUTE_SESSION || x->route == MUTANT_ROUTE_EVENT))
    x->reply = cJSON_ParseWithLength(up->body.data ? up->body.data : "", up->body.len);
  return cut;
}

/* send_back answers the SUT: the reply as a hook left it, or the upstream bytes as they came. */
static enum MHD_Result send_back(struct MHD_Connection *c, const struct mutant_exchange *x,
                                 const struct upstream_reply *up, int reprint, int cut) {
  char *text = reprint ? cJSON_PrintUnformatted(x->reply) : NULL;
  enum MHD_Result ret;
  if (x->status == 0 || (reprint && !text))
    ret = MHD_NO; /* no reply came: the SUT sees the connection close, as from the mock */
  else if (text)
    ret = send_reply(c, x->status, &up->headers, text, strlen(text), cut);
  else
    ret = send_reply(c, x->status, &up->headers, up->body.data ? up->body.data : "", up->body.len,
                     cut);
  free(text);
  return ret;
}

/* before_hook runs the mutation's request hook for this exchange, if it has one, and posts the
 * events it queued. Returns whether there was one. */
static int before_hook(proxy *p, struct mutant_exchange *x) {
  mutant_hook_fn before = x->route == MUTANT_ROUTE_SESSION ? p->mu->session_request
                          : x->body                        ? request_hook(p->mu, x->route)
                                                           : NULL;
  pthread_mutex_lock(&p->lock);
  if (before)
    before(&p->st, x);
  pthread_mutex_unlock(&p->lock);
  post_events(p, x->before);
  return before != NULL;
}

static enum MHD_Result serve(proxy *p, struct MHD_Connection *c, const char *url,
                             const char *method, struct ock_http_request *r) {
  if (r->too_big) {
    fprintf(stderr, "ock-mutant: %s %s: the request body is larger than the 8 MiB cap\n", method,
            url);
    return send_error(c, 413, "request body larger than 8 MiB");
  }
  struct mutant_headers reqh = {0};
  MHD_get_connection_values(c, MHD_HEADER_KIND, collect_header, &reqh);
  struct mutant_exchange x = {.path = url, .req_headers = &reqh};
  x.route = classify(method, url, &x.wire);
  const char *raw = r->body.data ? r->body.data : "";
  if (x.route != MUTANT_ROUTE_SESSION && x.route != MUTANT_ROUTE_OTHER && r->body.len)
    x.body = cJSON_ParseWithLength(raw, r->body.len);
  cJSON *sent_event = x.route == MUTANT_ROUTE_EVENT && x.body ? cJSON_Duplicate(x.body, 1) : NULL;
  int before = before_hook(p, &x);
  mutant_hook_fn after = reply_hook(p->mu, x.route);
  struct upstream_reply up;
  ock__upstream_reply_init(&up);
  int cut = 0, answered = x.answer != NULL;
  char *edited = NULL;
  enum MHD_Result ret;
  if (answered) {
    x.status = 200;
    x.reply = x.answer;
    x.answer = NULL;
    ock__mutant_headers_add(&up.headers, "Content-Type", "application/json");
  } else {
    edited = before ? cJSON_PrintUnformatted(x.body) : NULL;
    const char *body = edited ? edited : raw;
    size_t len = edited ? strlen(edited) : r->body.len;
    char full[1024];
    const char *alt = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "alt");
    int sse = x.wire == MUTANT_WIRE_GEMINI && alt && !strcmp(alt, "sse");
    snprintf(full, sizeof full, "%s%s%s", p->upstream, x.path, sse ? "?alt=sse" : "");
    if (x.route == MUTANT_ROUTE_LLM || x.route == MUTANT_ROUTE_TOOL)
      remember(p, x.path, body, len, &reqh);
    if (x.route == MUTANT_ROUTE_LLM) {
      ret = stream_llm(p, c, &x, full, body, len, after);
      goto done;
    }
    cut = forward_whole(p, c, &x, method, full, body, len, after, &up);
  }
  x.reply_headers = &up.headers;
  if (after_reply(p, &x, after, cut, sent_event)) {
    atomic_store(&p->stop_requested, 1);
    await_stop(p);
  }
  ret =
      send_back(c, &x, &up, x.reply && (answered || after || x.route == MUTANT_ROUTE_SESSION), cut);
done:
  free(edited);
  cJSON_Delete(sent_event);
  free_exchange(&x);
  ock__upstream_reply_free(&up);
  ock__mutant_headers_free(&reqh);
  return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **req_cls) {
  (void)version;
  struct ock_http_request *r;
  switch (ock_http_request_read(req_cls, OCK_MAX_MUTANT_BODY, upload_data, upload_data_size, &r)) {
  case OCK_HTTP_NEW:
  case OCK_HTTP_MORE:
    return MHD_YES;
  case OCK_HTTP_READY:
    return serve(cls, c, url, method, r);
  case OCK_HTTP_NOMEM:
    break;
  }
  return MHD_NO;
}

/* ---- life -------------------------------------------------------------------------------------
 */

/* proxy_discard frees a proxy whose daemon never started. */
static void proxy_discard(proxy *p) {
  pthread_cond_destroy(&p->child_gone_cv);
  pthread_cond_destroy(&p->workers_done);
  pthread_mutex_destroy(&p->workers_lock);
  ock__mutant_state_free(&p->st);
  pthread_mutex_destroy(&p->lock);
  free(p);
}

int ock__proxy_start(const struct mutation *mu, const char *upstream, proxy **out, char *err,
                     size_t n) {
  size_t ul = strlen(upstream);
  while (ul && upstream[ul - 1] == '/')
    ul--;
  if (ul >= sizeof((proxy *)0)->upstream) {
    snprintf(err, n, "OCK_URL is too long (%zu characters)", ul);
    return OCK_EINVAL;
  }
  proxy *p = calloc(1, sizeof *p);
  if (!p || pthread_mutex_init(&p->lock, NULL)) {
    free(p);
    snprintf(err, n, "out of memory");
    return OCK_ENOMEM;
  }
  p->mu = mu;
  memcpy(p->upstream, upstream, ul);
  pthread_mutex_init(&p->workers_lock, NULL);
  pthread_cond_init(&p->workers_done, NULL);
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&p->child_gone_cv, &ca);
  pthread_condattr_destroy(&ca);
  ock__mutant_state_init(&p->st);
  /* Bind first, so the URL is known (and written) before any connection thread exists. */
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = 0};
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t sl = sizeof sa;
  if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) || listen(fd, 128) ||
      getsockname(fd, (struct sockaddr *)&sa, &sl)) {
    snprintf(err, n, "cannot listen on 127.0.0.1: %s", strerror(errno));
    if (fd >= 0)
      close(fd);
    proxy_discard(p);
    return OCK_EIO;
  }
  snprintf(p->url, sizeof p->url, "http://127.0.0.1:%u", (unsigned)ntohs(sa.sin_port));
  p->daemon = MHD_start_daemon(OCK_HTTP_DAEMON_FLAGS, 0, NULL, NULL, on_request, p,
                               MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
                               OCK_MAX_PROXY_HEADER_MEMORY, MHD_OPTION_CONNECTION_LIMIT,
                               (unsigned int)OCK_MAX_PROXY_CONNECTIONS, MHD_OPTION_NOTIFY_COMPLETED,
                               ock_http_request_completed, p, MHD_OPTION_END);
  if (!p->daemon) {
    snprintf(err, n, "cannot serve on %s: %s", p->url, strerror(errno));
    close(fd);
    proxy_discard(p);
    return OCK_EIO;
  }
  *out = p;
  return OCK_OK;
}

const char *ock__proxy_url(const proxy *p) {
  return p->url;
}

int ock__proxy_stop_requested(proxy *p) {
  return atomic_load(&p->stop_requested);
}

void ock__proxy_set_child(proxy *p, pid_t pid) {
  atomic_store(&p->child_pid, (int)pid);
}

void ock__proxy_note_sigint(proxy *p) {
  pthread_mutex_lock(&p->lock);
  p->st.sigint_pending = 1;
  pthread_mutex_unlock(&p->lock);
}

/* wake_stop_waiters: await_stop looks again (child_gone or stopping has just been set). */
static void wake_stop_waiters(proxy *p) {
  pthread_mutex_lock(&p->workers_lock);
  pthread_cond_broadcast(&p->child_gone_cv);
  pthread_mutex_unlock(&p->workers_lock);
}

void ock__proxy_child_gone(proxy *p) {
  atomic_store(&p->child_gone, 1);
  wake_stop_waiters(p);
}

/* await_stop holds the reply that asked for the stop until the SUT is gone (2 s at most), so it
 * cannot act on the reply first, e.g. start its next prompt. It sleeps until woken by
 * ock__proxy_child_gone or ock__proxy_free, not in slices. */
static void await_stop(proxy *p) {
  struct timespec until;
  clock_gettime(CLOCK_MONOTONIC, &until);
  until.tv_sec += 2;
  pthread_mutex_lock(&p->workers_lock);
  while (!atomic_load(&p->child_gone) && !atomic_load(&p->stopping))
    if (pthread_cond_timedwait(&p->child_gone_cv, &p->workers_lock, &until) == ETIMEDOUT)
      break;
  pthread_mutex_unlock(&p->workers_lock);
}

int ock__proxy_exit_status(proxy *p, int ended) {
  if (!p->mu->exit)
    return ended;
  pthread_mutex_lock(&p->lock);
  int r = p->mu->exit(&p->st, ended);
  pthread_mutex_unlock(&p->lock);
  return r;
}

void ock__proxy_free(proxy *p) {
  if (!p)
    return;
  atomic_store(&p->stopping, 1);
  wake_stop_waiters(p);
  if (p->daemon)
    MHD_stop_daemon(p->daemon);
  /* Streaming workers notice `stopping` within a slice (upstream.c). */
  pthread_mutex_lock(&p->workers_lock);
  while (p->workers > 0)
    pthread_cond_wait(&p->workers_done, &p->workers_lock);
  pthread_mutex_unlock(&p->workers_lock);
  pthread_cond_destroy(&p->child_gone_cv);
  pthread_cond_destroy(&p->workers_done);
  pthread_mutex_destroy(&p->workers_lock);
  ock__mutant_state_free(&p->st);
  free(p->last_url);
  free(p->last_body);
  ock__mutant_headers_free(&p->last_headers);
  pthread_mutex_destroy(&p->lock);
  free(p);
}
