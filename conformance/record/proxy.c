/*
 * proxy.c: the forwarding proxy of `ock record` (see proxy.h). Plain sockets in front, one
 * thread per connection and one request per connection (the reply ends with the connection,
 * so a stream needs no framing of its own), libcurl behind.
 */
#include "proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "ock/caps.h"
#include "ock/json.h"
#include "ock/status.h"

#define HEAD_MAX 65536

struct rec_proxy {
  char upstream[512];
  char url[64];
  int fd;
  pthread_t listener;
  atomic_int stopping;
  atomic_int active; /* connection threads still running */
  long long t0;
  rec_sink_fn sink;
  void *user;
};

struct conn {
  rec_proxy *p;
  int fd;
  struct rec_exchange *x;
  int head_sent;
  int client_gone;
  int hold; /* the session document: held whole, its base URLs pointed at the proxy */
};

/* Hop-by-hop and framing headers: each side of the proxy makes its own. */
static const char *const hop_headers[] = {"host",
                                          "content-length",
                                          "connection",
                                          "keep-alive",
                                          "transfer-encoding",
                                          "expect",
                                          "te",
                                          "upgrade",
                                          "trailer",
                                          "proxy-connection",
                                          "accept-encoding",
                                          "date",
                                          "proxy-authorization",
                                          NULL};

static int is_hop(const char *name) {
  for (int i = 0; hop_headers[i]; i++)
    if (!strcasecmp(name, hop_headers[i]))
      return 1;
  return 0;
}

static long long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int send_all(int fd, const char *p, size_t n) {
  while (n) {
    ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
    if (k <= 0)
      return -1;
    p += k;
    n -= (size_t)k;
  }
  return 0;
}

/* ---- the request ------------------------------------------------------------------------- */

/* read_head reads up to the blank line into buf; returns its length (the head included) or
 * -1. *got: bytes read in all (some of the body may have come along). */
static long read_head(int fd, char *buf, size_t cap, size_t *got) {
  size_t n = 0;
  while (n < cap - 1) {
    ssize_t k = recv(fd, buf + n, cap - 1 - n, 0);
    if (k <= 0)
      return -1;
    n += (size_t)k;
    buf[n] = '\0';
    char *end = strstr(buf, "\r\n\r\n");
    if (end) {
      *got = n;
      return (long)(end - buf) + 4;
    }
  }
  return -1;
}

static void lower(char *s) {
  for (; *s; s++)
    if (*s >= 'A' && *s <= 'Z')
      *s = (char)(*s - 'A' + 'a');
}

/* parse_head fills the method, path, query and headers of x; returns the Content-Length
 * (0 when absent), -1 for a head that is not HTTP/1.x, -2 for a body without a length (a
 * chunked upload: answered 411, the client sends it again with one). */
static long parse_head(char *head, struct rec_exchange *x) {
  char *line_end = strstr(head, "\r\n");
  *line_end = '\0';
  char *sp1 = strchr(head, ' ');
  char *sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
  if (!sp1 || !sp2 || (size_t)(sp1 - head) >= sizeof x->method || strncmp(sp2 + 1, "HTTP/1.", 7))
    return -1;
  memcpy(x->method, head, (size_t)(sp1 - head));
  x->method[sp1 - head] = '\0';
  *sp2 = '\0';
  char *target = sp1 + 1;
  char *q = strchr(target, '?');
  if (q) {
    *q = '\0';
    x->query = strdup(q + 1);
  }
  x->path = strdup(target);
  long length = 0;
  int chunked = 0;
  for (char *line = line_end + 2; *line && strncmp(line, "\r\n", 2);) {
    char *next = strstr(line, "\r\n");
    *next = '\0';
    char *colon = strchr(line, ':');
    if (colon) {
      *colon = '\0';
      char *v = colon + 1;
      while (*v == ' ' || *v == '\t')
        v++;
      lower(line);
      if (!strcmp(line, "content-length"))
        length = strtol(v, NULL, 10);
      chunked |= !strcmp(line, "transfer-encoding") && strcmp(v, "identity");
      if (!cJSON_GetObjectItemCaseSensitive(x->req_headers, line))
        cJSON_AddStringToObject(x->req_headers, line, v);
    }
    line = next + 2;
  }
  return x->path && length >= 0 && !chunked ? length : -2;
}

/* read_request reads one whole request into x; 0 or -1. */
static int read_request(int fd, struct rec_exchange *x) {
  static const char need_length[] = "HTTP/1.1 411 Length Required\r\nContent-Length: 0\r\n"
                                    "Connection: close\r\n\r\n";
  static const char go_on[] = "HTTP/1.1 100 Continue\r\n\r\n";
  char *buf = malloc(HEAD_MAX);
  size_t got = 0;
  long head_len = buf ? read_head(fd, buf, HEAD_MAX, &got) : -1;
  long length = head_len < 0 ? -1 : parse_head(buf, x);
  if (length == -2)
    send_all(fd, need_length, sizeof need_length - 1);
  if (length < 0 || (size_t)length > OCK_MAX_PROVIDER_REPLY) {
    free(buf);
    return -1;
  }
  const char *expect = ock_json_str(x->req_headers, "expect");
  if (expect && !strcasecmp(expect, "100-continue") && got == (size_t)head_len && length > 0)
    send_all(fd, go_on, sizeof go_on - 1);
  size_t have = got - (size_t)head_len;
  if (have > (size_t)length)
    have = (size_t)length;
  int rc = ock_buf_append(&x->req, buf + head_len, have) ? -1 : 0;
  free(buf);
  char chunk[16384];
  while (!rc && x->req.len < (size_t)length) {
    size_t want = (size_t)length - x->req.len;
    ssize_t k = recv(fd, chunk, want < sizeof chunk ? want : sizeof chunk, 0);
    rc = k <= 0 || ock_buf_append(&x->req, chunk, (size_t)k) ? -1 : 0;
  }
  return rc;
}

/* ---- the reply --------------------------------------------------------------------------- */

/* send_head writes the status line and the reply's headers but the hop-by-hop ones. */
static int send_head(struct conn *c) {
  if (c->head_sent || c->hold)
    return 0;
  c->head_sent = 1;
  struct ock_buf h;
  ock_buf_init(&h, HEAD_MAX);
  int rc = ock_buf_printf(&h, "HTTP/1.1 %ld %s\r\n", c->x->status, "OCK");
  const cJSON *it;
  cJSON_ArrayForEach(it, c->x->resp_headers) {
    if (!is_hop(it->string) && cJSON_IsString(it))
      rc = rc ? rc : ock_buf_printf(&h, "%s: %s\r\n", it->string, it->valuestring);
  }
  rc = rc ? rc : ock_buf_printf(&h, "Connection: close\r\n\r\n");
  rc = rc || send_all(c->fd, h.data, h.len);
  ock_buf_free(&h);
  if (rc)
    c->client_gone = 1;
  return rc;
}

static size_t on_header(char *line, size_t size, size_t n, void *user) {
  struct conn *c = user;
  size_t len = size * n;
  if (len >= 5 && !strncmp(line, "HTTP/", 5)) {
    cJSON_Delete(c->x->resp_headers);
    c->x->resp_headers = cJSON_CreateObject();
    const char *sp = memchr(line, ' ', len);
    c->x->status = sp ? strtol(sp + 1, NULL, 10) : 0;
    return len;
  }
  if (len <= 2)
    return c->x->status >= 200 && send_head(c) ? 0 : len;
  const char *colon = memchr(line, ':', len);
  if (!colon || (size_t)(colon - line) >= 256)
    return len;
  char name[256];
  size_t nl = (size_t)(colon - line);
  memcpy(name, line, nl);
  name[nl] = '\0';
  lower(name);
  const char *v = colon + 1;
  size_t vl = len - nl - 1;
  while (vl && (*v == ' ' || *v == '\t'))
    v++, vl--;
  while (vl && (v[vl - 1] == '\r' || v[vl - 1] == '\n'))
    vl--;
  char *value = strndup(v, vl);
  if (value && !cJSON_GetObjectItemCaseSensitive(c->x->resp_headers, name))
    cJSON_AddStringToObject(c->x->resp_headers, name, value);
  free(value);
  return len;
}

static size_t on_body(char *data, size_t size, size_t n, void *user) {
  struct conn *c = user;
  size_t len = size * n;
  if (!c->hold && (send_head(c) || send_all(c->fd, data, len))) {
    c->client_gone = 1;
    return 0;
  }
  int full = ock_buf_append(&c->x->resp, data, len);
  (void)full; /* past the cap the recording is short, not the reply */
  return len;
}

static struct curl_slist *request_headers(const struct rec_exchange *x) {
  struct curl_slist *list = curl_slist_append(NULL, "Expect:");
  const cJSON *it;
  cJSON_ArrayForEach(it, x->req_headers) {
    if (is_hop(it->string) || !cJSON_IsString(it) || !list)
      continue;
    struct ock_buf line;
    ock_buf_init(&line, HEAD_MAX);
    if (!ock_buf_printf(&line, "%s: %s", it->string, it->valuestring))
      list = curl_slist_append(list, line.data);
    ock_buf_free(&line);
  }
  return list;
}

/* send_session sends the held session document with every upstream URL in it replaced by
 * the proxy's, so the providers' traffic of an ock/1 orchestrator crosses the proxy too. */
static void send_session(struct conn *c) {
  struct rec_exchange *x = c->x;
  struct ock_buf out;
  ock_buf_init(&out, OCK_MAX_PROVIDER_REPLY);
  const char *from = c->p->upstream, *to = c->p->url, *p = x->resp.data ? x->resp.data : "";
  size_t k = strlen(from);
  int rc = ock_buf_puts(&out, "");
  for (const char *at; !rc && k && (at = strstr(p, from)); p = at + k)
    rc = ock_buf_append(&out, p, (size_t)(at - p)) || ock_buf_puts(&out, to);
  rc = rc || ock_buf_puts(&out, p);
  cJSON_DeleteItemFromObjectCaseSensitive(x->resp_headers, "content-length");
  c->hold = 0;
  if (!rc && !send_head(c) && send_all(c->fd, out.data, out.len))
    c->client_gone = 1;
  ock_buf_free(&out);
}

/* forward sends the request upstream and the reply back as it comes. */
static void forward(struct conn *c) {
  struct rec_exchange *x = c->x;
  struct ock_buf url;
  ock_buf_init(&url, HEAD_MAX);
  int bad_url = ock_buf_printf(&url, "%s%s%s%s", c->p->upstream, x->path, x->query ? "?" : "",
                               x->query ? x->query : "");
  CURL *h = curl_easy_init();
  struct curl_slist *list = request_headers(x);
  if (!h || !list || bad_url) {
    curl_easy_cleanup(h);
    curl_slist_free_all(list);
    ock_buf_free(&url);
    return;
  }
  curl_easy_setopt(h, CURLOPT_URL, url.data);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_PROXY, "");
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, list);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, c);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, c);
  if (!strcmp(x->method, "GET")) {
    curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
  } else {
    curl_easy_setopt(h, CURLOPT_POST, 1L);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, x->req.data ? x->req.data : "");
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)x->req.len);
    if (strcmp(x->method, "POST"))
      curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, x->method);
  }
  c->hold = !strcmp(x->method, "GET") && !strcmp(x->path, "/ock/v1/session");
  CURLcode rc = curl_easy_perform(h);
  x->complete = rc == CURLE_OK;
  if (c->hold && x->complete)
    send_session(c);
  if (rc != CURLE_OK && !c->head_sent && !c->client_gone) {
    static const char bad[] = "HTTP/1.1 502 Bad Gateway\r\nContent-Type: application/json\r\n"
                              "Connection: close\r\n\r\n"
                              "{\"error\":{\"type\":\"bad_gateway\",\"message\":\"ock record: "
                              "the upstream did not answer\"}}";
    send_all(c->fd, bad, sizeof bad - 1);
  } else if (x->complete) {
    send_head(c);
  }
  curl_slist_free_all(list);
  curl_easy_cleanup(h);
  ock_buf_free(&url);
}

static void answer_event(struct conn *c) {
  static const char body[] = "{\"action\":\"continue\"}";
  char head[160];
  int n = snprintf(head, sizeof head,
                   "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n"
                   "Connection: close\r\n\r\n",
                   sizeof body - 1);
  c->x->status = 200;
  c->x->local = 1;
  c->x->complete = !send_all(c->fd, head, (size_t)n) && !send_all(c->fd, body, sizeof body - 1);
  cJSON_AddStringToObject(c->x->resp_headers, "content-type", "application/json");
  if (ock_buf_append(&c->x->resp, body, sizeof body - 1))
    c->x->complete = 0;
}

static void *serve(void *arg) {
  struct conn *c = arg;
  c->x = ock__rec_exchange_new();
  if (c->x && !read_request(c->fd, c->x)) {
    c->x->t_ms = now_ms() - c->p->t0;
    if (!strcmp(c->x->method, "POST") && !strcmp(c->x->path, "/ock/v1/events"))
      answer_event(c);
    else
      forward(c);
    c->p->sink(c->p->user, c->x);
  } else {
    ock__rec_exchange_free(c->x);
  }
  shutdown(c->fd, SHUT_RDWR);
  close(c->fd);
  atomic_fetch_sub(&c->p->active, 1);
  free(c);
  return NULL;
}

static void *listen_loop(void *arg) {
  rec_proxy *p = arg;
  while (!atomic_load(&p->stopping)) {
    struct pollfd pfd = {.fd = p->fd, .events = POLLIN};
    if (poll(&pfd, 1, 100) <= 0)
      continue;
    int fd = accept(p->fd, NULL, NULL);
    if (fd < 0)
      continue;
    struct conn *c = calloc(1, sizeof *c);
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (c) {
      c->p = p;
      c->fd = fd;
      atomic_fetch_add(&p->active, 1);
    }
    if (!c || pthread_create(&t, &attr, serve, c)) {
      if (c)
        atomic_fetch_sub(&p->active, 1);
      free(c);
      close(fd);
    }
    pthread_attr_destroy(&attr);
  }
  return NULL;
}

int ock__rec_proxy_start(const char *upstream, int port, rec_sink_fn sink, void *user,
                         rec_proxy **out, char *err, size_t n) {
  rec_proxy *p = calloc(1, sizeof *p);
  if (!p)
    return OCK_ENOMEM;
  size_t ul = strlen(upstream);
  while (ul && upstream[ul - 1] == '/')
    ul--;
  if (ul >= sizeof p->upstream) {
    snprintf(err, n, "--upstream: a URL of at most %zu bytes", sizeof p->upstream - 1);
    free(p);
    return OCK_EINVAL;
  }
  memcpy(p->upstream, upstream, ul);
  p->sink = sink;
  p->user = user;
  p->t0 = now_ms();
  p->fd = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(p->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t al = sizeof a;
  if (p->fd < 0 || bind(p->fd, (struct sockaddr *)&a, sizeof a) || listen(p->fd, 64) ||
      getsockname(p->fd, (struct sockaddr *)&a, &al) ||
      pthread_create(&p->listener, NULL, listen_loop, p)) {
    snprintf(err, n, "cannot listen on 127.0.0.1:%d", port);
    if (p->fd >= 0)
      close(p->fd);
    free(p);
    return OCK_EIO;
  }
  snprintf(p->url, sizeof p->url, "http://127.0.0.1:%u", (unsigned)ntohs(a.sin_port));
  *out = p;
  return OCK_OK;
}

const char *ock__rec_proxy_url(const rec_proxy *p) {
  return p->url;
}

void ock__rec_proxy_free(rec_proxy *p) {
  if (!p)
    return;
  atomic_store(&p->stopping, 1);
  pthread_join(p->listener, NULL);
  close(p->fd);
  for (int i = 0; i < 100 && atomic_load(&p->active) > 0; i++) {
    struct timespec ts = {0, 10 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  if (atomic_load(&p->active) == 0)
    free(p); /* else a connection thread still holds it: the process is about to end */
}
