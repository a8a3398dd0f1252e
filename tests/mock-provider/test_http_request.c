/* test_http_request.c: the request skeleton of the mock and the proxy (ock/http_request.h): the
 * body is gathered across upload calls and is ready only on the call without data; past the cap
 * it is freed and the rest dropped; an answered request is never served; a peer is gone when it
 * closed, not while it has bytes waiting; and a real daemon built on it sends the JSON error
 * envelope with its headers. */
#include "runner.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ock/http_request.h"

/* feed hands one upload call's data to the skeleton, as libmicrohttpd would. */
static enum ock_http_step feed(void **cls, size_t max, const char *data,
                               struct ock_http_request **r) {
  size_t n = data ? strlen(data) : 0;
  enum ock_http_step step = ock_http_request_read(cls, max, data, &n, r);
  OCK_ASSERT_INT_EQ(n, 0); /* always consumed */
  return step;
}

static void body_gathers_across_calls(void) {
  void *cls = NULL;
  struct ock_http_request *r = NULL;
  OCK_ASSERT_INT_EQ(feed(&cls, 100, NULL, &r), OCK_HTTP_NEW);
  OCK_ASSERT_NOT_NULL_FATAL(r);
  OCK_ASSERT_TRUE(cls == r);
  OCK_ASSERT_INT_EQ(r->body.len, 0);
  OCK_ASSERT_INT_EQ(feed(&cls, 100, "{\"a\":", &r), OCK_HTTP_MORE);
  OCK_ASSERT_INT_EQ(feed(&cls, 100, "1", &r), OCK_HTTP_MORE);
  OCK_ASSERT_INT_EQ(feed(&cls, 100, "}", &r), OCK_HTTP_MORE);
  OCK_ASSERT_INT_EQ(feed(&cls, 100, NULL, &r), OCK_HTTP_READY);
  OCK_ASSERT_STR_EQ(r->body.data, "{\"a\":1}");
  OCK_ASSERT_INT_EQ(r->body.len, 7);
  OCK_ASSERT_INT_EQ(r->too_big, 0);
  ock_http_request_completed(NULL, NULL, &cls, MHD_REQUEST_TERMINATED_COMPLETED_OK);
  OCK_ASSERT_NULL(cls);
}

static void past_the_cap_is_freed_and_dropped(void) {
  void *cls = NULL;
  struct ock_http_request *r = NULL;
  OCK_ASSERT_INT_EQ(feed(&cls, 4, NULL, &r), OCK_HTTP_NEW);
  OCK_ASSERT_INT_EQ(feed(&cls, 4, "abc", &r), OCK_HTTP_MORE);
  OCK_ASSERT_INT_EQ(r->too_big, 0);
  OCK_ASSERT_INT_EQ(feed(&cls, 4, "de", &r), OCK_HTTP_MORE); /* 5 bytes: one past */
  OCK_ASSERT_INT_EQ(r->too_big, 1);
  OCK_ASSERT_NULL(r->body.data);
  OCK_ASSERT_INT_EQ(r->body.len, 0);
  OCK_ASSERT_INT_EQ(feed(&cls, 4, "f", &r), OCK_HTTP_MORE); /* fits alone, dropped still */
  OCK_ASSERT_NULL(r->body.data);
  OCK_ASSERT_INT_EQ(feed(&cls, 4, NULL, &r), OCK_HTTP_READY); /* served, as too big */
  OCK_ASSERT_INT_EQ(r->too_big, 1);
  ock_http_request_completed(NULL, NULL, &cls, MHD_REQUEST_TERMINATED_COMPLETED_OK);
  OCK_ASSERT_NULL(cls);
}

static void answered_request_is_drained_never_ready(void) {
  void *cls = NULL;
  struct ock_http_request *r = NULL;
  OCK_ASSERT_INT_EQ(feed(&cls, 100, NULL, &r), OCK_HTTP_NEW);
  r->answered = 1;
  OCK_ASSERT_INT_EQ(feed(&cls, 100, "abc", &r), OCK_HTTP_MORE);
  OCK_ASSERT_INT_EQ(r->body.len, 0); /* dropped, not kept */
  OCK_ASSERT_INT_EQ(feed(&cls, 100, NULL, &r), OCK_HTTP_MORE);
  ock_http_request_completed(NULL, NULL, &cls, MHD_REQUEST_TERMINATED_COMPLETED_OK);
  ock_http_request_completed(NULL, NULL, &cls, MHD_REQUEST_TERMINATED_COMPLETED_OK); /* no-op */
  OCK_ASSERT_NULL(cls);
}

static void peer_gone_when_closed_not_while_sending(void) {
  int sv[2];
  OCK_ASSERT_INT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  OCK_ASSERT_INT_EQ(ock_http_peer_gone(sv[0]), 0); /* quiet and open */
  OCK_ASSERT_INT_EQ(write(sv[1], "x", 1), 1);
  errno = 1234;
  OCK_ASSERT_INT_EQ(ock_http_peer_gone(sv[0]), 0); /* a pipelined byte is not a hang-up */
  OCK_ASSERT_INT_EQ(errno, 1234);
  char b = 0;
  OCK_ASSERT_INT_EQ(read(sv[0], &b, 1), 1); /* the peek left it there */
  OCK_ASSERT_INT_EQ(b, 'x');
  close(sv[1]);
  OCK_ASSERT_INT_EQ(ock_http_peer_gone(sv[0]), 1);
  close(sv[0]);
  OCK_ASSERT_INT_EQ(ock_http_peer_gone(-1), 0);
}

/* A server on the skeleton: a body of up to 4 bytes is echoed as the message (200); a longer
 * one gets 413 and Connection: close. */
static enum MHD_Result echo_request(void *cls, struct MHD_Connection *c, const char *url,
                                    const char *method, const char *version, const char *data,
                                    size_t *size, void **req_cls) {
  (void)cls, (void)url, (void)method, (void)version;
  struct ock_http_request *r;
  enum ock_http_step step = ock_http_request_read(req_cls, 4, data, size, &r);
  if (step != OCK_HTTP_READY)
    return step == OCK_HTTP_NOMEM ? MHD_NO : MHD_YES;
  if (r->too_big)
    return ock_http_queue_json_error(c, 413, "too_big", "past 4 bytes", 1);
  return ock_http_queue_json_error(c, 200, "echo", r->body.data ? r->body.data : "", 0);
}

/* exchange sends req to the port and reads until the reply's body ("}}") is in. */
static void exchange(uint16_t port, const char *req, char *buf, size_t n) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  size_t used = 0;
  if (fd >= 0 && !connect(fd, (struct sockaddr *)&a, sizeof a) &&
      send(fd, req, strlen(req), MSG_NOSIGNAL) == (ssize_t)strlen(req)) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    while (used + 1 < n && !strstr(buf, "}}") && poll(&p, 1, 5000) > 0) {
      ssize_t got = recv(fd, buf + used, n - 1 - used, 0);
      if (got <= 0)
        break;
      used += (size_t)got;
      buf[used] = '\0';
    }
  }
  buf[used] = '\0';
  if (fd >= 0)
    close(fd);
}

static void daemon_replies_with_the_json_envelope(void) {
  struct MHD_Daemon *d = MHD_start_daemon(OCK_HTTP_DAEMON_FLAGS, 0, NULL, NULL, echo_request, NULL,
                                          MHD_OPTION_NOTIFY_COMPLETED, ock_http_request_completed,
                                          NULL, MHD_OPTION_END);
  OCK_ASSERT_NOT_NULL_FATAL(d);
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
  uint16_t port = info ? info->port : 0;
  char buf[2048] = "";
  exchange(port, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc", buf, sizeof buf);
  OCK_ASSERT_CONTAINS(buf, "HTTP/1.1 200");
  OCK_ASSERT_CONTAINS(buf, "Content-Type: application/json\r\n");
  OCK_ASSERT_TRUE(!strstr(buf, "Connection: close"));
  OCK_ASSERT_CONTAINS(buf, "\r\n\r\n{\"error\":{\"type\":\"echo\",\"message\":\"abc\"}}");
  buf[0] = '\0';
  exchange(port, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\n\r\nabcdefghi", buf,
           sizeof buf);
  OCK_ASSERT_CONTAINS(buf, "HTTP/1.1 413");
  OCK_ASSERT_CONTAINS(buf, "Content-Type: application/json\r\n");
  OCK_ASSERT_CONTAINS(buf, "Connection: close\r\n");
  OCK_ASSERT_CONTAINS(buf,
                      "\r\n\r\n{\"error\":{\"type\":\"too_big\",\"message\":\"past 4 bytes\"}}");
  MHD_stop_daemon(d);
}

static const struct ock_test tests[] = {
    {"body_gathers_across_calls", body_gathers_across_calls},
    {"past_the_cap_is_freed_and_dropped", past_the_cap_is_freed_and_dropped},
    {"answered_request_is_drained_never_ready", answered_request_is_drained_never_ready},
    {"peer_gone_when_closed_not_while_sending", peer_gone_when_closed_not_while_sending},
    {"daemon_replies_with_the_json_envelope", daemon_replies_with_the_json_envelope},
    {NULL, NULL}};

const struct ock_suite suite_http_request = {"http_request", tests, NULL, NULL, 0};
