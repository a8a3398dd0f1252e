/*
 * min_sut.c: the smallest orchestrator that passes a one-turn scenario, for the benchmarks.
 *
 *   min_sut [--times FILE] [--floor]
 *
 * It speaks ock/1 (SPEC.md section 7) over one keep-alive loopback connection to $OCK_URL:
 * GET the session, then per prompt send prompt:submit, provider:request, one non-streamed
 * chat completion to $OCK_URL/v1/chat/completions, provider:response, prompt:complete and
 * orchestrator:complete, and exit 0. It handles text answers only; that is all the harness
 * overhead benchmark (bench/README.md, item 3) scripts. --times FILE appends the
 * microseconds from main() to exit, so the bench can subtract the SUT's own time from the
 * harness's wall time. --floor does one GET of the session and exits: the floor of "spawn
 * the SUT, one loopback HTTP exchange" that the harness's overhead is compared with.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "ock/contract_map.h" /* the event names, as macros: nothing to link */

#define REPLY_MAX ((size_t)4 << 20)

struct conn {
  int fd;
  char *buf; /* the last reply's body, NUL-terminated; owned */
  size_t cap;
};

static long long now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static int die(const char *what) {
  fprintf(stderr, "min_sut: %s: %s\n", what, errno ? strerror(errno) : "protocol error");
  exit(1);
}

static void conn_open(struct conn *c, const char *url) {
  static const char prefix[] = "http://127.0.0.1:";
  char *end = NULL;
  long port =
      strncmp(url, prefix, sizeof prefix - 1) ? 0 : strtol(url + sizeof prefix - 1, &end, 10);
  if (!end || end == url + sizeof prefix - 1 || (*end && *end != '/') || port <= 0 ||
      port > 65535) {
    fprintf(stderr, "min_sut: OCK_URL must be http://127.0.0.1:PORT, got \"%s\"\n", url);
    exit(2);
  }
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons((unsigned short)port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  c->fd = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  if (c->fd < 0 || setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) ||
      connect(c->fd, (struct sockaddr *)&a, sizeof a))
    die("connect");
}

static void send_all(int fd, const char *p, size_t n) {
  while (n) {
    ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      die("send");
    p += w;
    n -= (size_t)w;
  }
}

/* exchange sends one request and reads the reply (Content-Length bodies only) into c->buf.
 * Returns the HTTP status. */
static int exchange(struct conn *c, const char *method, const char *path, const char *trace,
                    const char *body) {
  char head[512];
  size_t blen = body ? strlen(body) : 0;
  int n = snprintf(head, sizeof head,
                   "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                   "%s%s%sContent-Length: %zu\r\n\r\n",
                   method, path, trace ? "X-OCK-Trace-Id: " : "", trace ? trace : "",
                   trace ? "\r\n" : "", blen);
  if (n < 0 || (size_t)n >= sizeof head)
    die("request head too long");
  send_all(c->fd, head, (size_t)n);
  if (blen)
    send_all(c->fd, body, blen);

  size_t len = 0, body_at = 0;
  long long want = -1;
  for (;;) {
    if (len + 4096 + 1 > c->cap) {
      size_t cap = c->cap ? c->cap * 2 : 65536;
      if (cap > REPLY_MAX)
        die("reply too large");
      char *p = realloc(c->buf, cap);
      if (!p)
        die("out of memory");
      c->buf = p;
      c->cap = cap;
    }
    if (want < 0) {
      c->buf[len] = '\0';
      char *end = strstr(c->buf, "\r\n\r\n");
      if (end) {
        body_at = (size_t)(end - c->buf) + 4;
        for (char *h = strstr(c->buf, "\r\n"); h && h < end; h = strstr(h + 2, "\r\n"))
          if (!strncasecmp(h + 2, "Content-Length:", 15))
            want = strtoll(h + 17, NULL, 10);
        if (want < 0)
          die("reply without Content-Length");
      }
    }
    if (want >= 0 && len >= body_at + (size_t)want)
      break;
    ssize_t r = recv(c->fd, c->buf + len, c->cap - len - 1, 0);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      die("recv");
    len += (size_t)r;
  }
  char *end = NULL;
  long status = strtol(c->buf + 9, &end, 10); /* "HTTP/1.1 200 OK" */
  if (end == c->buf + 9 || status < 100 || status > 599)
    die("reply without an HTTP status");
  memmove(c->buf, c->buf + body_at, (size_t)want);
  c->buf[want] = '\0';
  return (int)status;
}

/* post_event sends {"event": name, "data": data}; consumes data. */
static void post_event(struct conn *c, const char *name, cJSON *data) {
  cJSON *e = cJSON_CreateObject();
  cJSON_AddStringToObject(e, "event", name);
  cJSON_AddItemToObject(e, "data", data);
  char *s = cJSON_PrintUnformatted(e);
  if (!s || exchange(c, "POST", "/ock/v1/events", NULL, s) != 200)
    die(name);
  cJSON_free(s);
  cJSON_Delete(e);
}

static void record_time(const char *path, long long t0) {
  char line[32];
  int n = snprintf(line, sizeof line, "%lld\n", now_us() - t0);
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
  if (fd < 0 || write(fd, line, (size_t)n) != n)
    die(path);
  close(fd);
}

int main(int argc, char **argv) {
  long long t0 = now_us();
  const char *times = NULL;
  int floor_only = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--times") && i + 1 < argc)
      times = argv[++i];
    else if (!strcmp(argv[i], "--floor"))
      floor_only = 1;
    else {
      fprintf(stderr, "usage: min_sut [--times FILE] [--floor]\n");
      return 2;
    }
  }
  const char *url = getenv("OCK_URL");
  if (!url) {
    fprintf(stderr, "min_sut: OCK_URL is not set\n");
    return 2;
  }
  struct conn c = {-1, NULL, 0};
  conn_open(&c, url);
  if (exchange(&c, "GET", "/ock/v1/session", NULL, NULL) != 200)
    die("session");
  if (floor_only)
    return 0;

  cJSON *session = cJSON_Parse(c.buf);
  const cJSON *prompts = cJSON_GetObjectItemCaseSensitive(session, "prompts");
  const cJSON *provider =
      cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(session, "providers"), 0);
  const char *pname = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(provider, "name"));
  const char *model = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(provider, "model"));
  const char *trace = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(session, "trace_id"));
  if (!cJSON_IsArray(prompts) || !pname || !model)
    die("session document");

  cJSON *messages = cJSON_CreateArray();
  const cJSON *p;
  cJSON_ArrayForEach(p, prompts) {
    const char *prompt = cJSON_GetStringValue(p);
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "prompt", prompt);
    post_event(&c, OCK_EV_PROMPT_SUBMIT, d);

    d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "provider", pname);
    cJSON_AddStringToObject(d, "model", model);
    cJSON_AddNumberToObject(d, "iteration", 1);
    cJSON_AddNumberToObject(d, "attempt", 1);
    post_event(&c, OCK_EV_PROVIDER_REQUEST, d);

    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "role", "user");
    cJSON_AddStringToObject(m, "content", prompt);
    cJSON_AddItemToArray(messages, m);
    cJSON *req = cJSON_CreateObject();
    cJSON_AddStringToObject(req, "model", model);
    cJSON_AddItemReferenceToObject(req, "messages", messages);
    cJSON_AddBoolToObject(req, "stream", 0);
    char *s = cJSON_PrintUnformatted(req);
    if (!s || exchange(&c, "POST", "/v1/chat/completions", trace, s) != 200)
      die("chat completion");
    cJSON_free(s);
    cJSON_Delete(req);
    cJSON *reply = cJSON_Parse(c.buf);
    const cJSON *choice = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(reply, "choices"), 0);
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(choice, "message");
    const char *text = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(msg, "content"));
    const char *finish =
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(choice, "finish_reason"));
    if (!text)
      text = "";

    d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "provider", pname);
    cJSON_AddNumberToObject(d, "iteration", 1);
    cJSON_AddStringToObject(d, "content", text);
    cJSON_AddArrayToObject(d, "tool_calls");
    cJSON_AddStringToObject(d, "finish_reason", finish ? finish : "stop");
    post_event(&c, OCK_EV_PROVIDER_RESPONSE, d);

    m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "role", "assistant");
    cJSON_AddStringToObject(m, "content", text);
    cJSON_AddItemToArray(messages, m);

    d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "response", text);
    post_event(&c, OCK_EV_PROMPT_COMPLETE, d);

    d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "orchestrator", "ock-bench-min-sut");
    cJSON_AddNumberToObject(d, "turn_count", 1);
    cJSON_AddStringToObject(d, "status", "success");
    post_event(&c, OCK_EV_ORCHESTRATOR_COMPLETE, d);
    cJSON_Delete(reply);
  }
  cJSON_Delete(messages);
  cJSON_Delete(session);
  free(c.buf);
  close(c.fd);
  if (times)
    record_time(times, t0);
  return 0;
}
