/*
 * plain_http.c: the HTTP/1.1 client of plain_http.h.
 *
 * An exchange is: parse the URL; take the thread's kept connection when it goes to the same
 * host and port, or connect; send the request head and body in one sendmsg; read the
 * response through a 16 KiB window (struct wire): the head line by line, then the body by
 * its framing, into rs->body. Every wait is a poll bounded by the exchange's deadline and, when
 * the request can be cancelled, by POLL_SLICE_MS, so a cancel is seen within that. The socket
 * is non-blocking throughout: a system call never waits past a deadline.
 *
 * The connection is kept after a response framed by Content-Length or chunks, when the server
 * did not say "Connection: close" and sent nothing past the response; any error closes it.
 */
#include "plain_http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "ock/status.h"

#define CONNECT_TIMEOUT_MS 10000LL /* as the libcurl side's (http.c) */
#define POLL_SLICE_MS 20           /* how soon a cancel is seen during a wait */
#define WINDOW 16384               /* the read window: a head line must fit in it */
#define HEAD_MAX 16384             /* a response's status line and headers, in all */
#define REQUEST_HEAD_MAX 16384     /* the request line and headers we send */

/* ---- the URL --------------------------------------------------------------------------------- */

struct target {
  char host[256];      /* without the brackets of an IPv6 literal */
  char port[8];        /* "80" when the URL has none */
  char authority[272]; /* host[:port] as the URL writes it: the Host header, the kept key */
  const char *path;    /* from the first '/' or '?', borrowed from the URL; "" for none */
  size_t path_len;     /* up to the fragment */
};

static int parse_url(const char *url, struct target *t) {
  if (strncasecmp(url, "http://", 7))
    return OCK_EINVAL;
  const char *a = url + 7;
  size_t alen = strcspn(a, "/?#");
  if (!alen || alen >= sizeof t->authority || memchr(a, '@', alen))
    return OCK_EINVAL;
  memcpy(t->authority, a, alen);
  t->authority[alen] = '\0';
  const char *host = a, *host_end, *colon;
  if (*a == '[') { /* an IPv6 literal */
    host_end = memchr(a, ']', alen);
    if (!host_end)
      return OCK_EINVAL;
    host++;
    colon = host_end + 1 < a + alen ? host_end + 1 : NULL;
    if (colon && *colon != ':')
      return OCK_EINVAL;
  } else {
    colon = memchr(a, ':', alen);
    host_end = colon ? colon : a + alen;
  }
  size_t hlen = (size_t)(host_end - host);
  if (!hlen || hlen >= sizeof t->host)
    return OCK_EINVAL;
  memcpy(t->host, host, hlen);
  t->host[hlen] = '\0';
  const char *port = colon ? colon + 1 : "80";
  size_t plen = colon ? (size_t)(a + alen - port) : 2;
  if (!plen || plen >= sizeof t->port || strspn(port, "0123456789") < plen)
    return OCK_EINVAL;
  memcpy(t->port, port, plen);
  t->port[plen] = '\0';
  t->path = a + alen;
  t->path_len = strcspn(t->path, "#");
  return OCK_OK;
}

/* ---- waiting --------------------------------------------------------------------------------- */

static long long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* wait_io waits until fd is ready for events, the deadline (0: none) passes, or cancel is
 * set. */
static int wait_io(int fd, short events, long long deadline, const ock_cancel *cancel) {
  for (;;) {
    if (ock_cancel_is_set(cancel))
      return OCK_ECANCELLED;
    long long left = deadline ? deadline - now_ms() : -1;
    if (deadline && left <= 0)
      return OCK_ETIMEDOUT;
    if (cancel && (left < 0 || left > POLL_SLICE_MS))
      left = POLL_SLICE_MS;
    struct pollfd p = {.fd = fd, .events = events};
    int n = poll(&p, 1, (int)left);
    if (n > 0)
      return OCK_OK; /* ready, or an error the next call reports */
    if (n < 0 && errno != EINTR)
      return OCK_EIO;
  }
}

/* ---- the connection a thread keeps ----------------------------------------------------------- */

struct kept {
  int fd; /* -1: none */
  char authority[272];
};

static pthread_key_t kept_key;
static pthread_once_t kept_once = PTHREAD_ONCE_INIT;
static int kept_key_ok;

static void kept_free(void *p) {
  struct kept *k = p;
  if (k && k->fd >= 0)
    close(k->fd);
  free(k);
}

static void kept_key_create(void) {
  kept_key_ok = pthread_key_create(&kept_key, kept_free) == 0;
}

/* kept_get: the calling thread's, made on first use; NULL when out of memory. */
static struct kept *kept_get(void) {
  pthread_once(&kept_once, kept_key_create);
  if (!kept_key_ok)
    return NULL;
  struct kept *k = pthread_getspecific(kept_key);
  if (k)
    return k;
  k = calloc(1, sizeof *k);
  if (!k)
    return NULL;
  k->fd = -1;
  if (pthread_setspecific(kept_key, k)) {
    free(k);
    return NULL;
  }
  return k;
}

static void kept_close(struct kept *k) {
  if (k->fd >= 0)
    close(k->fd);
  k->fd = -1;
}

void ock__plain_thread_cleanup(void) {
  pthread_once(&kept_once, kept_key_create);
  if (!kept_key_ok)
    return;
  kept_free(pthread_getspecific(kept_key));
  pthread_setspecific(kept_key, NULL);
}

/* address_literal fills ai (whose ai_addr points to a sockaddr_storage) when t's host is an
 * IPv4 or IPv6 address literal; 0 for a name, or a port past 65535 (getaddrinfo says why). */
static int address_literal(const struct target *t, struct addrinfo *ai) {
  long port = strtol(t->port, NULL, 10);
  if (port > 65535)
    return 0;
  memset(ai->ai_addr, 0, sizeof(struct sockaddr_storage));
  struct sockaddr_in *v4 = (struct sockaddr_in *)ai->ai_addr;
  struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ai->ai_addr;
  if (inet_pton(AF_INET, t->host, &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons((unsigned short)port);
    ai->ai_family = AF_INET;
    ai->ai_addrlen = sizeof *v4;
    return 1;
  }
  if (inet_pton(AF_INET6, t->host, &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons((unsigned short)port);
    ai->ai_family = AF_INET6;
    ai->ai_addrlen = sizeof *v6;
    return 1;
  }
  return 0;
}

/* connect_to opens a non-blocking TCP connection to t, within CONNECT_TIMEOUT_MS and the
 * exchange's deadline. */
static int connect_to(const struct target *t, long long deadline, const ock_cancel *cancel,
                      int *fd_out, char *why, size_t why_len) {
  long long cap = now_ms() + CONNECT_TIMEOUT_MS;
  if (!deadline || deadline > cap)
    deadline = cap;
  /* An address literal (the harness's own 127.0.0.1) needs no resolver: getaddrinfo would read
   * /etc/gai.conf and the NSS configuration, and touch about 100 KB more of the C library. */
  struct sockaddr_storage ss;
  struct addrinfo literal = {.ai_socktype = SOCK_STREAM, .ai_addr = (struct sockaddr *)&ss};
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
  struct addrinfo *list = &literal;
  if (!address_literal(t, &literal)) {
    int gai = getaddrinfo(t->host, t->port, &hints, &list);
    if (gai) {
      snprintf(why, why_len, "cannot resolve %s: %s", t->host, gai_strerror(gai));
      return OCK_EIO;
    }
  }
  int rc = OCK_EIO, err = 0;
  for (struct addrinfo *ai = list; ai; ai = ai->ai_next) {
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      err = errno;
      continue;
    }
    rc = OCK_OK;
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) && errno != EINPROGRESS)
      rc = OCK_EIO, err = errno;
    else if ((rc = wait_io(fd, POLLOUT, deadline, cancel)) == OCK_OK) {
      socklen_t len = sizeof err;
      if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) || err)
        rc = OCK_EIO;
    }
    if (rc == OCK_OK) {
      int one = 1; /* the head and body leave in one write; the next request must not wait */
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      *fd_out = fd;
      break;
    }
    close(fd);
    if (rc != OCK_EIO) /* timed out or cancelled: no other address gets a try */
      break;
  }
  if (list != &literal)
    freeaddrinfo(list);
  if (rc == OCK_EIO)
    snprintf(why, why_len, "cannot connect to %s: %s", t->authority,
             err ? strerror(err) : "no address");
  return rc;
}

/* ---- one exchange on a connection ------------------------------------------------------------ */

struct wire {
  int fd;
  long long deadline; /* 0: none */
  const ock_cancel *cancel;
  char buf[WINDOW];
  size_t at, len; /* the unread bytes are buf[at, len) */
  size_t got;     /* response bytes received in all: 0 means the server sent nothing yet */
  int eof;        /* the server closed the connection in order */
  int closed;     /* ... in order or by a reset */
  char *why;
  size_t why_len;
};

static int broken(struct wire *w, const char *what) {
  snprintf(w->why, w->why_len, "%s", what);
  return OCK_EIO;
}

/* send_request writes the head and the body, waiting as needed. */
static int send_request(struct wire *w, const char *head, size_t head_len, const char *body,
                        size_t body_len) {
  struct iovec iov[2] = {{(void *)head, head_len}, {(void *)body, body_len}};
  struct msghdr msg = {.msg_iov = iov, .msg_iovlen = body_len ? 2 : 1};
  while (msg.msg_iovlen) {
    ssize_t n = sendmsg(w->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      int rc = wait_io(w->fd, POLLOUT, w->deadline, w->cancel);
      if (rc)
        return rc;
      continue;
    }
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      w->closed = errno == EPIPE || errno == ECONNRESET;
      snprintf(w->why, w->why_len, "sending the request failed: %s", strerror(errno));
      return OCK_EIO;
    }
    for (size_t done = (size_t)n; done;) { /* drop what was sent */
      size_t take = done < msg.msg_iov->iov_len ? done : msg.msg_iov->iov_len;
      msg.msg_iov->iov_base = (char *)msg.msg_iov->iov_base + take;
      msg.msg_iov->iov_len -= take;
      done -= take;
      if (!msg.msg_iov->iov_len) {
        msg.msg_iov++;
        msg.msg_iovlen--;
      }
    }
  }
  return OCK_OK;
}

/* fill reads more of the response into the window (compacting it first); OCK_EIO with
 * w->closed set when the server closed the connection. */
static int fill(struct wire *w) {
  if (w->at) {
    memmove(w->buf, w->buf + w->at, w->len - w->at);
    w->len -= w->at;
    w->at = 0;
  }
  if (w->len == sizeof w->buf)
    return broken(w, "a response header line or chunk size line passes 16 KiB");
  for (;;) {
    int rc = wait_io(w->fd, POLLIN, w->deadline, w->cancel);
    if (rc)
      return rc;
    ssize_t n = recv(w->fd, w->buf + w->len, sizeof w->buf - w->len, MSG_DONTWAIT);
    if (n > 0) {
      w->len += (size_t)n;
      w->got += (size_t)n;
      return OCK_OK;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
      continue;
    w->eof = n == 0;
    w->closed = n == 0 || errno == ECONNRESET;
    if (n == 0)
      return broken(w, "the server closed the connection before the response ended");
    snprintf(w->why, w->why_len, "reading the response failed: %s", strerror(errno));
    return OCK_EIO;
  }
}

/* next_line sets *line to the next line of the window without its CRLF (or LF), NUL-terminated
 * in place; valid until the next fill. */
static int next_line(struct wire *w, char **line, size_t *n) {
  for (;;) {
    char *start = w->buf + w->at;
    char *nl = memchr(start, '\n', w->len - w->at);
    if (nl) {
      *n = (size_t)(nl - start);
      w->at += *n + 1;
      if (*n && start[*n - 1] == '\r')
        (*n)--;
      start[*n] = '\0';
      *line = start;
      return OCK_OK;
    }
    int rc = fill(w);
    if (rc)
      return rc;
  }
}

struct head {
  int status;
  int http10;       /* an HTTP/1.0 response: the connection closes after it */
  int close;        /* "Connection: close" */
  int chunked;      /* Transfer-Encoding ends with chunked */
  long long length; /* Content-Length; -1 when absent */
};

/* header_is: line is "name: value" for this name (any case); *value is set past the blanks. */
static int header_is(const char *line, const char *name, const char **value) {
  size_t k = strlen(name);
  if (strncasecmp(line, name, k) || line[k] != ':')
    return 0;
  const char *v = line + k + 1;
  while (*v == ' ' || *v == '\t')
    v++;
  *value = v;
  return 1;
}

/* has_token: a comma-separated header value holds token (any case); with last_only, token is
 * its last element (a transfer coding list must end with chunked). */
static int has_token(const char *v, const char *token, int last_only) {
  size_t k = strlen(token);
  int found = 0;
  while (*v) {
    v += strspn(v, " \t,");
    size_t n = strcspn(v, ",");
    size_t m = n;
    while (m && (v[m - 1] == ' ' || v[m - 1] == '\t'))
      m--;
    found = m == k && !strncasecmp(v, token, k);
    if (found && !last_only)
      return 1;
    v += n;
  }
  return found;
}

/* parse_header reads one header line into h. */
static int parse_header(struct wire *w, const char *line, struct head *h) {
  const char *v;
  if (header_is(line, "content-length", &v)) {
    char *end = NULL;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    while (end && (*end == ' ' || *end == '\t')) /* blanks may end a field value */
      end++;
    if (end == v || *end || n < 0 || errno || (h->length >= 0 && h->length != n))
      return broken(w, "the response has an invalid Content-Length");
    h->length = n;
  } else if (header_is(line, "transfer-encoding", &v)) {
    h->chunked = has_token(v, "chunked", 1);
    if (!h->chunked)
      return broken(w, "the response has a transfer coding other than chunked");
  } else if (header_is(line, "connection", &v)) {
    h->close |= has_token(v, "close", 0);
  }
  return OCK_OK;
}

/* read_head reads the status line and headers of the final response, skipping 1xx ones. */
static int read_head(struct wire *w, struct head *h) {
  for (;;) {
    memset(h, 0, sizeof *h);
    h->length = -1;
    size_t n, total = 0;
    char *line;
    int rc = next_line(w, &line, &n);
    if (rc)
      return rc;
    if (n < 12 || strncmp(line, "HTTP/1.", 7) || (line[7] != '0' && line[7] != '1') ||
        line[8] != ' ' || strspn(line + 9, "0123456789") != 3 || (line[12] && line[12] != ' '))
      return broken(w, "the response does not start with an HTTP/1.x status line");
    h->http10 = line[7] == '0';
    h->status = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
    total += n;
    for (;;) {
      if ((rc = next_line(w, &line, &n)))
        return rc;
      if (!n)
        break;
      if ((total += n) > HEAD_MAX)
        return broken(w, "the response's headers pass 16 KiB");
      if ((rc = parse_header(w, line, h)))
        return rc;
    }
    if (h->status >= 200 || h->status == 101)
      return OCK_OK;
  }
}

/* take_body moves n bytes of body (all until the close when n is -1) into rs. */
static int take_body(struct wire *w, long long n, const struct ock__http_request *rq,
                     struct ock__http_response *rs) {
  while (n) {
    if (w->at == w->len) {
      int rc = fill(w);
      if (rc && n < 0 && w->eof) { /* the close ends the body */
        w->why[0] = '\0';
        return OCK_OK;
      }
      if (rc)
        return rc;
    }
    size_t avail = w->len - w->at;
    size_t take = n >= 0 && (unsigned long long)n < avail ? (size_t)n : avail;
    rs->received += take;
    if (rs->received > rq->max_body || ock_buf_append(&rs->body, w->buf + w->at, take)) {
      snprintf(w->why, w->why_len, "the response passed %zu bytes", rq->max_body);
      return OCK_ETOOBIG;
    }
    w->at += take;
    if (n > 0)
      n -= (long long)take;
  }
  return OCK_OK;
}

/* take_chunks decodes a chunked body into rs, trailers skipped. */
static int take_chunks(struct wire *w, const struct ock__http_request *rq,
                       struct ock__http_response *rs) {
  for (;;) {
    char *line, *end = NULL;
    size_t n;
    int rc = next_line(w, &line, &n);
    if (rc)
      return rc;
    errno = 0;
    unsigned long long size = strtoull(line, &end, 16);
    if (end == line || (*end && *end != ';' && *end != ' ' && *end != '\t') || errno)
      return broken(w, "the response has an invalid chunk size line");
    if (size > rq->max_body) { /* take_body would say so too, but size must fit long long */
      snprintf(w->why, w->why_len, "the response passed %zu bytes", rq->max_body);
      return OCK_ETOOBIG;
    }
    if (!size)
      break;
    if ((rc = take_body(w, (long long)size, rq, rs)) || (rc = next_line(w, &line, &n)))
      return rc;
    if (n)
      return broken(w, "a chunk of the response does not end where its size says");
  }
  for (;;) { /* trailers, up to the empty line */
    char *line;
    size_t n;
    int rc = next_line(w, &line, &n);
    if (rc || !n)
      return rc;
  }
}

/* read_response reads the response into rs; *keep says whether the connection may be kept. */
static int read_response(struct wire *w, const struct ock__http_request *rq,
                         struct ock__http_response *rs, int *keep) {
  struct head h;
  int rc = read_head(w, &h);
  if (rc)
    return rc;
  rs->status = h.status;
  int bodiless = h.status == 204 || h.status == 304;
  if (h.chunked && !bodiless)
    rc = take_chunks(w, rq, rs);
  else if (h.length >= 0 && !bodiless)
    rc = take_body(w, h.length, rq, rs);
  else if (!bodiless)
    rc = take_body(w, -1, rq, rs);
  *keep =
      !rc && !h.http10 && !h.close && (h.chunked || h.length >= 0 || bodiless) && w->at == w->len;
  return rc;
}

/* request_head renders the request line and headers. */
static int request_head(const struct ock__http_request *rq, const struct target *t,
                        struct ock_buf *out) {
  int rc = ock_buf_printf(out, "%s %.*s%s HTTP/1.1\r\nHost: %s\r\n", rq->method, (int)t->path_len,
                          t->path, t->path_len ? "" : "/", t->authority);
  for (size_t i = 0; rq->headers && rq->headers[i]; i++)
    rc |= ock_buf_printf(out, "%s\r\n", rq->headers[i]);
  if (!strcmp(rq->method, "POST"))
    rc |= ock_buf_printf(out, "Content-Length: %zu\r\n", rq->body ? rq->body_len : 0);
  return rc | ock_buf_puts(out, "\r\n");
}

int ock__plain_exchange(const struct ock__http_request *rq, struct ock__http_response *rs,
                        char *why, size_t why_len) {
  struct target t;
  if (parse_url(rq->url, &t)) {
    snprintf(why, why_len, "not an http:// URL: %s", rq->url);
    return OCK_EINVAL;
  }
  struct kept *k = kept_get();
  struct ock_buf head;
  ock_buf_init(&head, REQUEST_HEAD_MAX);
  if (!k || request_head(rq, &t, &head)) {
    ock_buf_free(&head);
    snprintf(why, why_len, k ? "the request's headers pass 16 KiB" : "out of memory");
    return k ? OCK_ETOOBIG : OCK_ENOMEM;
  }
  long long deadline = rq->timeout_ms > 0 ? now_ms() + rq->timeout_ms : 0;
  struct wire *w = malloc(sizeof *w);
  int rc = w ? OCK_OK : OCK_ENOMEM;
  for (int attempt = 0; w; attempt++) {
    if (k->fd >= 0 && strcmp(k->authority, t.authority))
      kept_close(k);
    int reused = k->fd >= 0;
    if (!reused && (rc = connect_to(&t, deadline, rq->cancel, &k->fd, why, why_len)))
      break;
    snprintf(k->authority, sizeof k->authority, "%s", t.authority);
    w->fd = k->fd; /* not a compound literal: that would clear the 16 KiB window each time */
    w->deadline = deadline;
    w->cancel = rq->cancel;
    w->at = w->len = w->got = 0;
    w->eof = w->closed = 0;
    w->why = why;
    w->why_len = why_len;
    why[0] = '\0';
    int keep = 0;
    rc = send_request(w, head.data, head.len, rq->body, rq->body ? rq->body_len : 0);
    if (!rc)
      rc = read_response(w, rq, rs, &keep);
    if (!rc && keep)
      break;
    kept_close(k);
    if (rc && reused && w->closed && !w->got && !attempt)
      continue; /* the server had closed the kept connection: see plain_http.h */
    break;
  }
  if (rc == OCK_ETIMEDOUT)
    snprintf(why, why_len, "no whole response within %ld ms", rq->timeout_ms);
  else if (rc == OCK_ECANCELLED)
    snprintf(why, why_len, "abandoned on cancellation");
  else if (rc == OCK_ENOMEM)
    snprintf(why, why_len, "out of memory");
  free(w);
  ock_buf_free(&head);
  return rc;
}
