/*
 * test_plain_http.c: the ock/1 HTTP client (reference/plain_http.c) against a scripted server.
 *
 * The server is a thread on 127.0.0.1 that reads each request (head and Content-Length body)
 * and answers it with the next reply of its script, byte for byte, so a test can send what no
 * well-behaved server would: chunks with extensions and trailers, an interim 100, a body that
 * ends with the connection, a stale kept connection, no answer at all. It counts the
 * connections it accepted and the requests it read: the kept connection and the one retry
 * are checked by those counts, not by timing.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ock/status.h"
#include "plain_http.h"
#include "runner.h"

#define CLOSE "!close" /* a reply that closes the connection without a byte */
#define HANG "!hang"   /* a reply that never comes */

struct server {
  int lfd;
  char url[64];              /* http://127.0.0.1:PORT */
  const char *const *script; /* the replies in order, NULL-terminated */
  int close_after_each;      /* close the connection after each reply */
  pthread_t thread;
  atomic_int stop;
  atomic_int accepts, requests;
  char in[4096];   /* the request being read */
  char last[4096]; /* the last whole request read, head and body: copied before the reply */
};

/* read_request reads one request into s->in; 0 when the client closed or stop was set. */
static int read_request(struct server *s, int fd) {
  size_t len = 0;
  for (;;) {
    s->in[len] = '\0';
    char *end = strstr(s->in, "\r\n\r\n");
    if (end) {
      char *cl = strstr(s->in, "Content-Length: ");
      size_t body = cl && cl < end ? strtoul(cl + 16, NULL, 10) : 0;
      if (len >= (size_t)(end + 4 - s->in) + body)
        return 1;
    }
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (atomic_load(&s->stop))
      return 0;
    if (poll(&p, 1, 20) <= 0)
      continue;
    ssize_t n = recv(fd, s->in + len, sizeof s->in - 1 - len, 0);
    if (n <= 0)
      return 0;
    len += (size_t)n;
  }
}

static void serve_connection(struct server *s, int fd, size_t *next) {
  while (read_request(s, fd)) {
    memcpy(s->last, s->in, sizeof s->last);
    atomic_fetch_add(&s->requests, 1);
    const char *reply = s->script[*next];
    if (reply)
      (*next)++;
    if (!reply || !strcmp(reply, CLOSE))
      return;
    if (!strcmp(reply, HANG)) {
      while (!atomic_load(&s->stop))
        usleep(5000);
      return;
    }
    if (send(fd, reply, strlen(reply), MSG_NOSIGNAL) < 0 || s->close_after_each)
      return;
  }
}

static void *serve(void *arg) {
  struct server *s = arg;
  size_t next = 0;
  while (!atomic_load(&s->stop)) {
    struct pollfd p = {.fd = s->lfd, .events = POLLIN};
    if (poll(&p, 1, 20) <= 0)
      continue;
    int fd = accept(s->lfd, NULL, NULL);
    if (fd < 0)
      continue;
    atomic_fetch_add(&s->accepts, 1);
    serve_connection(s, fd, &next);
    close(fd);
  }
  return NULL;
}

static void server_start(struct server *s, const char *const *script, int close_after_each) {
  memset(s, 0, sizeof *s);
  s->script = script;
  s->close_after_each = close_after_each;
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t alen = sizeof a;
  s->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s->lfd < 0 || bind(s->lfd, (struct sockaddr *)&a, sizeof a) || listen(s->lfd, 8) ||
      getsockname(s->lfd, (struct sockaddr *)&a, &alen))
    ock_test_fatal(__LINE__, __FILE__, "cannot listen on 127.0.0.1");
  snprintf(s->url, sizeof s->url, "http://127.0.0.1:%d", ntohs(a.sin_port));
  if (pthread_create(&s->thread, NULL, serve, s))
    ock_test_fatal(__LINE__, __FILE__, "cannot start the server thread");
}

static void server_stop(struct server *s) {
  atomic_store(&s->stop, 1);
  pthread_join(s->thread, NULL);
  close(s->lfd);
  ock__plain_thread_cleanup(); /* the next test starts without a kept connection */
}

/* exchange POSTs body to the server's path and returns the status of the call. */
static int exchange(const struct server *s, const char *path, const char *body, long timeout_ms,
                    size_t max_body, struct ock__http_response *rs, char *why, size_t why_len) {
  char url[128];
  snprintf(url, sizeof url, "%s%s", s->url, path);
  const char *headers[] = {"Content-Type: application/json", NULL};
  struct ock__http_request rq = {.method = body ? "POST" : "GET",
                                 .url = url,
                                 .body = body,
                                 .body_len = body ? strlen(body) : 0,
                                 .headers = headers,
                                 .timeout_ms = timeout_ms,
                                 .max_body = max_body};
  ock__http_response_init(rs, max_body);
  return ock__plain_exchange(&rq, rs, why, why_len);
}

#define OK_5 "HTTP/1.1 200 OK\r\nContent-Length: 5 \r\n\r\nhello" /* blanks may end a value */

static void test_request_bytes_and_kept_connection(void) {
  const char *const script[] = {OK_5, "HTTP/1.1 500 Oops\r\nContent-Length: 3\r\n\r\nbad", NULL};
  struct server s;
  server_start(&s, script, 0);
  struct ock__http_response rs;
  char why[256] = "", want[256];
  OCK_ASSERT_INT_EQ(exchange(&s, "/ock/v1/events?x=1#frag", "{}", 5000, 100, &rs, why, sizeof why),
                    OCK_OK);
  OCK_ASSERT_INT_EQ(rs.status, 200);
  OCK_ASSERT_STR_EQ(rs.body.data, "hello");
  snprintf(want, sizeof want,
           "POST /ock/v1/events?x=1 HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
           "Content-Length: 2\r\n\r\n{}",
           s.url + 7);
  OCK_ASSERT_STR_EQ(s.last, want);
  ock__http_response_free(&rs);
  /* An error status is a whole response: its body is kept, and so is the connection. */
  OCK_ASSERT_INT_EQ(exchange(&s, "", NULL, 5000, 100, &rs, why, sizeof why), OCK_OK);
  OCK_ASSERT_INT_EQ(rs.status, 500);
  OCK_ASSERT_STR_EQ(rs.body.data, "bad");
  snprintf(want, sizeof want,
           "GET / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n\r\n", s.url + 7);
  OCK_ASSERT_STR_EQ(s.last, want);
  ock__http_response_free(&rs);
  OCK_ASSERT_INT_EQ(atomic_load(&s.accepts), 1);
  OCK_ASSERT_INT_EQ(atomic_load(&s.requests), 2);
  server_stop(&s);
}

static void test_chunked_interim_and_bodiless(void) {
  const char *const script[] = {
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
      "3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nX-Trailer: t\r\n\r\n",
      "HTTP/1.1 204 No Content\r\n\r\n", OK_5, NULL};
  struct server s;
  server_start(&s, script, 0);
  struct ock__http_response rs;
  char why[256] = "";
  OCK_ASSERT_INT_EQ(exchange(&s, "/a", "{}", 5000, 100, &rs, why, sizeof why), OCK_OK);
  OCK_ASSERT_INT_EQ(rs.status, 200);
  OCK_ASSERT_STR_EQ(rs.body.data, "abcde");
  ock__http_response_free(&rs);
  OCK_ASSERT_INT_EQ(exchange(&s, "/b", "{}", 5000, 100, &rs, why, sizeof why), OCK_OK);
  OCK_ASSERT_INT_EQ(rs.status, 204);
  OCK_ASSERT_INT_EQ(rs.body.len, 0);
  ock__http_response_free(&rs);
  OCK_ASSERT_INT_EQ(exchange(&s, "/c", "{}", 5000, 100, &rs, why, sizeof why), OCK_OK);
  OCK_ASSERT_STR_EQ(rs.body.data, "hello");
  ock__http_response_free(&rs);
  OCK_ASSERT_INT_EQ(atomic_load(&s.accepts), 1); /* all three framed: one connection */
  server_stop(&s);
}

static void test_body_until_close(void) {
  const char *const script[] = {"HTTP/1.1 200 OK\r\n\r\nall of it", OK_5, NULL};
  struct server s;
  server_start(&s, script, 1);
  struct ock__http_response rs;
  char why[256] = "";
  OCK_ASSERT_INT_EQ(exchange(&s, "/", "{}", 5000, 100, &rs, why, sizeof why), OCK_OK);
  OCK_ASSERT_STR_EQ(rs.body.data, "all of it");
  ock__http_response_free(&rs);
  OCK_ASSERT_INT_EQ(exchange(&s, "/", "{}", 5000, 100, &rs, why, sizeof why), OCK_OK);
  OCK_ASSERT_STR_EQ(rs.body.data, "hello");
  ock__http_response_free(&rs);
  OCK_ASSERT_INT_EQ(atomic_load(&s.accepts), 2);
  server_stop(&s);
}

/* The server closes each connection after its reply, without saying so: the second request
 * meets a closed kept connection and goes once more on a new one. The server reads it once. */
static void test_stale_kept_connection_is_retried_once(void) {
  const char *const script[] = {OK_5, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi", NULL};
  struct server s;
  server_start(&s, script, 1);
  struct ock__http_response rs;
  char why[256] = "";
  OCK_ASSERT_INT_EQ(exchange(&s, "/", "{}", 5000, 100, &rs, why, sizeof why), OCK_OK);
  ock__http_response_free(&rs);
  /* Whether the close has reached the client or not, the second request is lost on the first
   * connection (a FIN, or a reset for unread data): no wait is needed. */
  OCK_ASSERT_INT_EQ(exchange(&s, "/", "{}", 5000, 100, &rs, why, sizeof why), OCK_OK);
  OCK_ASSERT_STR_EQ(rs.body.data, "hi");
  ock__http_response_free(&rs);
  OCK_ASSERT_INT_EQ(atomic_load(&s.accepts), 2);
  OCK_ASSERT_INT_EQ(atomic_load(&s.requests), 2);
  server_stop(&s);
}

/* On a new connection a close before the response is an error, never a second request: the
 * server may have acted on the first. */
static void test_drop_on_a_new_connection_is_not_retried(void) {
  const char *const script[] = {CLOSE, OK_5, NULL};
  struct server s;
  server_start(&s, script, 0);
  struct ock__http_response rs;
  char why[256] = "";
  OCK_ASSERT_INT_EQ(exchange(&s, "/", "{}", 5000, 100, &rs, why, sizeof why), OCK_EIO);
  OCK_ASSERT_CONTAINS(why, "closed the connection");
  ock__http_response_free(&rs);
  OCK_ASSERT_INT_EQ(atomic_load(&s.requests), 1);
  server_stop(&s);
}

static void test_limits_and_broken_responses(void) {
  const char *const script[] = {HANG, NULL};
  struct server s;
  server_start(&s, script, 0);
  struct ock__http_response rs;
  char why[256] = "";
  OCK_ASSERT_INT_EQ(exchange(&s, "/", "{}", 100, 100, &rs, why, sizeof why), OCK_ETIMEDOUT);
  OCK_ASSERT_CONTAINS(why, "100 ms");
  ock__http_response_free(&rs);
  server_stop(&s);

  const char *const big[] = {
      "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello world",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nb\r\nhello world\r\n0\r\n\r\n", NULL};
  server_start(&s, big, 0);
  OCK_ASSERT_INT_EQ(exchange(&s, "/", "{}", 5000, 10, &rs, why, sizeof why), OCK_ETOOBIG);
  ock__http_response_free(&rs);
  OCK_ASSERT_INT_EQ(exchange(&s, "/", "{}", 5000, 10, &rs, why, sizeof why), OCK_ETOOBIG);
  OCK_ASSERT_CONTAINS(why, "10 bytes");
  ock__http_response_free(&rs);
  OCK_ASSERT_INT_EQ(atomic_load(&s.accepts), 2); /* a cut-off response closes the connection */
  server_stop(&s);

  const char *const broken[] = {"SSH-2.0-OpenSSH\r\n\r\n",
                                "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
                                "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n",
                                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
                                "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nshort",
                                NULL};
  const char *const says[] = {"status line", "Content-Length", "transfer coding", "chunk size",
                              "closed the connection"};
  server_start(&s, broken, 1);
  for (size_t i = 0; i < sizeof says / sizeof *says; i++) {
    OCK_ASSERT_INT_EQ(exchange(&s, "/", "{}", 5000, 100, &rs, why, sizeof why), OCK_EIO);
    OCK_ASSERT_CONTAINS(why, says[i]);
    ock__http_response_free(&rs);
  }
  server_stop(&s);
}

/* A host name goes through the resolver (an address literal does not); the Host header keeps
 * the name. */
static void test_a_name_is_resolved(void) {
  const char *const script[] = {OK_5, NULL};
  struct server s;
  server_start(&s, script, 0);
  char url[96], want[128];
  snprintf(url, sizeof url, "http://localhost%s/n", strrchr(s.url, ':'));
  const struct ock__http_request rq = {.method = "GET", .url = url, .max_body = 10};
  struct ock__http_response rs;
  char why[256] = "";
  ock__http_response_init(&rs, 10);
  OCK_ASSERT_INT_EQ(ock__plain_exchange(&rq, &rs, why, sizeof why), OCK_OK);
  OCK_ASSERT_STR_EQ(rs.body.data, "hello");
  snprintf(want, sizeof want, "GET /n HTTP/1.1\r\nHost: localhost%s\r\n\r\n", strrchr(s.url, ':'));
  OCK_ASSERT_STR_EQ(s.last, want);
  ock__http_response_free(&rs);
  server_stop(&s);
}

static void test_bad_urls_and_refused(void) {
  const char *const bad[] = {"https://127.0.0.1:1/", "http://",      "http://user@host/",
                             "http://host:x/",       "http://[::1/", "http://h:123456789/"};
  struct ock__http_request rq = {.method = "GET", .max_body = 10};
  struct ock__http_response rs;
  char why[256];
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    rq.url = bad[i];
    ock__http_response_init(&rs, 10);
    OCK_ASSERT_INT_EQ(ock__plain_exchange(&rq, &rs, why, sizeof why), OCK_EINVAL);
    OCK_ASSERT_CONTAINS(why, bad[i]);
    ock__http_response_free(&rs);
  }
  /* A port nobody listens on: bound, then closed. */
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t alen = sizeof a;
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  OCK_ASSERT_INT_EQ(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
  OCK_ASSERT_INT_EQ(getsockname(fd, (struct sockaddr *)&a, &alen), 0);
  close(fd);
  char url[64];
  snprintf(url, sizeof url, "http://127.0.0.1:%d/x", ntohs(a.sin_port));
  rq.url = url;
  ock__http_response_init(&rs, 10);
  OCK_ASSERT_INT_EQ(ock__plain_exchange(&rq, &rs, why, sizeof why), OCK_EIO);
  OCK_ASSERT_CONTAINS(why, "cannot connect to 127.0.0.1:");
  ock__http_response_free(&rs);
  ock__plain_thread_cleanup();
}

static const struct ock_test tests[] = {
    {"request_bytes_and_kept_connection", test_request_bytes_and_kept_connection},
    {"chunked_interim_and_bodiless", test_chunked_interim_and_bodiless},
    {"body_until_close", test_body_until_close},
    {"stale_kept_connection_is_retried_once", test_stale_kept_connection_is_retried_once},
    {"drop_on_a_new_connection_is_not_retried", test_drop_on_a_new_connection_is_not_retried},
    {"limits_and_broken_responses", test_limits_and_broken_responses},
    {"a_name_is_resolved", test_a_name_is_resolved},
    {"bad_urls_and_refused", test_bad_urls_and_refused},
    {NULL, NULL}};

const struct ock_suite plain_http_suite = {"plain_http", tests, NULL, NULL, 0};
