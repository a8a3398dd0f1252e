/*
 * hostile.c: orchestrators that attack the harness instead of doing their job, one per mode.
 * `hostile_sut MODE [TAG]` reads OCK_URL like a real SUT and then misbehaves (TAG is ignored:
 * it lets a test find the processes of its own run). The hostile matrix test
 * (test_hostile.c) runs ock against each and expects a clear verdict, the reports written and
 * no process left behind. Every loop here is bounded: the harness's timeout ends the rest.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <curl/curl.h>

static const char *url(void) {
  const char *u = getenv("OCK_URL");
  return u ? u : "http://127.0.0.1:1";
}

static size_t discard(void *p, size_t size, size_t n, void *user) {
  (void)p;
  (void)user;
  return size * n;
}

/* post sends body to path with content type ct on a reused handle (keep-alive). */
static long post(CURL *c, const char *path, const char *ct, const char *body, size_t len) {
  char full[512];
  snprintf(full, sizeof full, "%s%s", url(), path);
  struct curl_slist *h = NULL;
  char header[128];
  snprintf(header, sizeof header, "Content-Type: %s", ct);
  h = curl_slist_append(h, header);
  curl_easy_setopt(c, CURLOPT_URL, full);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
  long code = 0;
  if (curl_easy_perform(c) == CURLE_OK)
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
  curl_slist_free_all(h);
  return code;
}

static char *repeat(char ch, size_t n) {
  char *s = malloc(n + 1);
  memset(s, ch, n);
  s[n] = '\0';
  return s;
}

static void flood_output(void) {
  char *block = repeat('x', 1 << 20);
  for (int i = 0; i < 1024; i++) { /* 1 GiB to stdout, then 1 GiB to stderr */
    if (fwrite(block, 1, 1 << 20, stdout) != 1 << 20)
      break;
  }
  for (int i = 0; i < 1024; i++)
    if (fwrite(block, 1, 1 << 20, stderr) != 1 << 20)
      break;
  free(block);
}

static void million_events(CURL *c) {
  const char *submit = "{\"event\":\"prompt:submit\",\"data\":{\"prompt\":\"Say hello.\"}}";
  post(c, "/ock/v1/events", "application/json", submit, strlen(submit));
  const char *ev = "{\"event\":\"custom:noise\",\"data\":{}}";
  for (long i = 0; i < 1000000; i++)
    if (!post(c, "/ock/v1/events", "application/json", ev, strlen(ev)))
      break;
}

/* big_events: events of 4 MiB each (a string of spaces in data), 72 of them: 288 MiB, past the
 * journal's byte cap (OCK_MAX_MOCK_JOURNAL_BYTES), each under the mock's body cap. */
static void big_events(CURL *c) {
  const char *submit = "{\"event\":\"prompt:submit\",\"data\":{\"prompt\":\"Say hello.\"}}";
  post(c, "/ock/v1/events", "application/json", submit, strlen(submit));
  size_t n = (size_t)4 << 20;
  char *body = repeat(' ', n);
  static const char head[] = "{\"event\":\"custom:noise\",\"data\":{\"x\":\"";
  memcpy(body, head, sizeof head - 1);
  memcpy(body + n - 3, "\"}}", 3);
  for (int i = 0; i < 72; i++)
    if (post(c, "/ock/v1/events", "application/json", body, n) != 200)
      break;
  free(body);
}

static void huge_body(CURL *c) {
  size_t n = (size_t)100 << 20;
  char *body = repeat(' ', n);
  memcpy(body, "{\"event\":\"prompt:submit\",\"data\":{\"prompt\":\"", 44);
  body[n - 3] = '"';
  body[n - 2] = '}';
  body[n - 1] = '}';
  post(c, "/ock/v1/events", "application/json", body, n);
  free(body);
}

static void bad_bodies(CURL *c) {
  post(c, "/ock/v1/events", "application/json", "{not json", 9);
  post(c, "/ock/v1/events", "text/plain", "{\"event\":\"prompt:submit\",\"data\":{}}", 35);
  post(c, "/ock/v1/events", "application/json", "{\"event\":\"prompt:sub", 20);
  post(c, "/ock/v1/events", "application/json", "[1,2,3]", 7);
  post(c, "/v1/chat/completions", "application/json",
       "{\"model\":\"m\",\"messages\":[{\"role\":", 33);
  post(c, "/ock/v1/tools/get_weather", "application/json", "{\"input\":", 9);
}

static void deep_nesting(CURL *c) {
  size_t depth = 10000;
  size_t n = depth * 2 + 64;
  char *body = malloc(n);
  size_t k = (size_t)snprintf(body, n, "{\"event\":\"prompt:submit\",\"data\":{\"x\":");
  for (size_t i = 0; i < depth; i++)
    body[k++] = '[';
  for (size_t i = 0; i < depth; i++)
    body[k++] = ']';
  body[k++] = '}';
  body[k++] = '}';
  post(c, "/ock/v1/events", "application/json", body, k);
  free(body);
}

static void huge_ids(CURL *c) {
  size_t n = (size_t)1 << 20;
  char *id = repeat('a', n);
  size_t len = n + 128;
  char *body = malloc(len);
  int k = snprintf(body, len, "{\"tool_call_id\":\"%s\",\"input\":{\"city\":\"Paris\"}}", id);
  for (int i = 0; i < 5; i++)
    post(c, "/ock/v1/tools/get_weather", "application/json", body, (size_t)k);
  k = snprintf(body, len, "{\"event\":\"tool:pre\",\"data\":{\"tool_call_id\":\"%s\"}}", id);
  post(c, "/ock/v1/events", "application/json", body, (size_t)k);
  free(body);
  free(id);
}

/* slowloris opens connections and trickles a request a byte at a time. */
static void slowloris(void) {
  const char *u = url();
  const char *colon = strrchr(u, ':');
  int port = colon ? (int)strtol(colon + 1, NULL, 10) : 0;
  int fds[64];
  int n = 0;
  for (int i = 0; i < 64; i++) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    if (fd >= 0 && !connect(fd, (struct sockaddr *)&a, sizeof a))
      fds[n++] = fd;
  }
  const char *req = "POST /ock/v1/events HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n{";
  for (int step = 0; step < 600; step++) {
    for (int i = 0; i < n; i++)
      if (write(fds[i], req + (step < (int)strlen(req) ? step : (int)strlen(req) - 1), 1) < 0)
        fds[i] = fds[--n];
    usleep(50 * 1000); /* the trickle is the attack: one byte per connection every 50 ms */
  }
}

/* terminal_escapes fetches the session like a real SUT, then sends an event whose name and a
 * tool_call_id carry clear-screen, window-title and colour sequences, and prints them too: the
 * console of `ock run` must show them escaped. */
static void terminal_escapes(CURL *c) {
  char full[512];
  snprintf(full, sizeof full, "%s/ock/v1/session", url());
  curl_easy_setopt(c, CURLOPT_URL, full);
  curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
  curl_easy_perform(c);
  static const char name[] = "{\"event\":\"\\u001b[2J\\u001b]0;owned\\u0007\",\"data\":{}}";
  static const char call[] = "{\"event\":\"tool:pre\",\"data\":{\"tool_call_id\":"
                             "\"\\u001b[31mred\\u001b[0m\",\"tool_name\":\"\\u001b[2J\"}}";
  static const char submit[] = "{\"event\":\"prompt:submit\",\"data\":{\"prompt\":"
                               "\"\\u001b]0;owned\\u0007\\u001b[2J\"}}";
  post(c, "/ock/v1/events", "application/json", submit, strlen(submit));
  post(c, "/ock/v1/events", "application/json", name, strlen(name));
  post(c, "/ock/v1/events", "application/json", call, strlen(call));
  fputs("\033[2J\033]0;owned\007\033[31mred\n", stdout);
  fputs("\033[2J\033]0;owned\007\033[31mred\n", stderr);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  signal(SIGPIPE, SIG_IGN);
  curl_global_init(CURL_GLOBAL_ALL);
  CURL *c = curl_easy_init();
  if (!strcmp(mode, "segv"))
    raise(SIGSEGV);
  else if (!strcmp(mode, "abort"))
    abort();
  else if (!strcmp(mode, "exit"))
    return 0;
  else if (!strcmp(mode, "hang"))
    pause();
  else if (!strcmp(mode, "deaf")) {
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    for (;;)
      pause();
  } else if (!strcmp(mode, "fork")) {
    for (int i = 0; i < 3; i++)
      if (fork() == 0) {
        setsid(); /* even a child that leaves the group is reaped by the harness's timeout */
        signal(SIGINT, SIG_IGN);
        signal(SIGTERM, SIG_IGN);
        sleep(30); /* the hostile act itself: outlive the SUT */
        _exit(0);
      }
    return 0;
  } else if (!strcmp(mode, "forkhang") || !strcmp(mode, "latehang")) {
    /* children that leave the group, then hang deaf; latehang passes text-answer first (ends at
     * once), so a harness has reaped one SUT before it is killed */
    const char *sc = getenv("OCK_SCENARIO");
    if (!strcmp(mode, "latehang") && sc && !strcmp(sc, "text-answer"))
      return 0;
    for (int i = 0; i < 3; i++)
      if (fork() == 0) {
        setsid();
        signal(SIGINT, SIG_IGN);
        signal(SIGTERM, SIG_IGN);
        sleep(60);
        _exit(0);
      }
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    for (;;)
      pause();
  } else if (!strcmp(mode, "flood"))
    flood_output();
  else if (!strcmp(mode, "events"))
    million_events(c);
  else if (!strcmp(mode, "bigevents"))
    big_events(c);
  else if (!strcmp(mode, "bigbody"))
    huge_body(c);
  else if (!strcmp(mode, "badbodies"))
    bad_bodies(c);
  else if (!strcmp(mode, "nesting"))
    deep_nesting(c);
  else if (!strcmp(mode, "bigids"))
    huge_ids(c);
  else if (!strcmp(mode, "slowloris"))
    slowloris();
  else if (!strcmp(mode, "terminal"))
    terminal_escapes(c);
  else {
    fprintf(stderr, "hostile: unknown mode \"%s\"\n", mode);
    return 2;
  }
  curl_easy_cleanup(c);
  curl_global_cleanup();
  return 0;
}
