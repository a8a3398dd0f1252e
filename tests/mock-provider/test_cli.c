/*
 * test_cli.c: `ock-mock-provider` as a team would run it: start it on a fixture, read the
 * URL from its first line, stream a completion with libcurl, stop it with SIGTERM, read the
 * journal it wrote. The child is always reaped; a test failure kills it first.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <curl/curl.h>

#include "helpers.h"
#include "ock/buf.h"
#include "runner.h"

#ifndef OCK_MOCK_CLI
#define OCK_MOCK_CLI "build/bin/ock-mock-provider"
#endif

struct child {
  pid_t pid;
  int out; /* its stdout */
  int err; /* its stderr */
};

static const char *cli_path(void) {
  static char path[4096];
  const char *env = getenv("OCK_MOCK_CLI");
  const char *p = env && *env ? env : OCK_MOCK_CLI;
  snprintf(path, sizeof path, "%s", p[0] == '/' ? p : ock_test_path(p));
  return path;
}

/* spawn runs the CLI with args (NULL-terminated, without argv[0]). */
static int spawn(const char *const *args, struct child *c) {
  int out[2], err[2];
  if (pipe(out) || pipe(err))
    return -1;
  const char *argv[16] = {cli_path()};
  for (int i = 0; i < 14 && args[i]; i++)
    argv[i + 1] = args[i];
  pid_t pid = fork();
  if (pid < 0)
    return -1;
  if (pid == 0) {
    dup2(out[1], 1);
    dup2(err[1], 2);
    close(out[0]);
    close(err[0]);
    execv(argv[0], (char *const *)argv);
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  c->pid = pid;
  c->out = out[0];
  c->err = err[0];
  return 0;
}

/* read_line reads fd up to a newline or EOF within timeout_ms. */
static void read_line(int fd, char *buf, size_t n, int timeout_ms) {
  size_t len = 0;
  buf[0] = '\0';
  while (len + 1 < n) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, timeout_ms) <= 0)
      break;
    ssize_t got = read(fd, buf + len, 1);
    if (got <= 0 || buf[len] == '\n')
      break;
    len++;
  }
  buf[len] = '\0';
}

static void read_all(int fd, struct ock_buf *b) {
  char chunk[4096];
  ssize_t got;
  while ((got = read(fd, chunk, sizeof chunk)) > 0)
    OCK_ASSERT_OK(ock_buf_append(b, chunk, (size_t)got));
}

/* finish signals (when sig) and reaps the child; returns its exit status, or -1 when it was
 * killed or did not end within 5 s (then it is killed). */
static int finish(struct child *c, int sig) {
  if (sig)
    kill(c->pid, sig);
  int status = 0;
  for (int i = 0; i < 500; i++) {
    pid_t r = waitpid(c->pid, &status, WNOHANG);
    if (r == c->pid) {
      close(c->out);
      close(c->err);
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    usleep(10000);
  }
  kill(c->pid, SIGKILL);
  waitpid(c->pid, &status, 0);
  close(c->out);
  close(c->err);
  return -1;
}

static size_t on_data(char *p, size_t size, size_t n, void *user) {
  return ock_buf_append(user, p, size * n) ? 0 : size * n;
}

static void test_serves_until_sigterm_and_writes_the_journal(void) {
  char journal[] = "/tmp/ock-mock-journal-XXXXXX";
  int fd = mkstemp(journal);
  if (fd < 0) {
    ock_test_fail(__LINE__, __FILE__, "mkstemp: %s", strerror(errno));
    return;
  }
  close(fd);
  char fixture[4096];
  snprintf(fixture, sizeof fixture, "%s", ock_test_path("tests/mock-provider/fixtures/text.json"));
  const char *args[] = {"--fixture", fixture, "--journal", journal, NULL};
  struct child c;
  if (spawn(args, &c)) {
    ock_test_fail(__LINE__, __FILE__, "cannot start %s", cli_path());
    return;
  }
  char url[256];
  read_line(c.out, url, sizeof url, 5000);
  OCK_ASSERT_CONTAINS(url, "http://127.0.0.1:");

  /* The README's demo request, as curl -sN sends it. */
  char target[320];
  snprintf(target, sizeof target, "%s/v1/chat/completions", url);
  struct ock_buf body;
  ock_buf_init(&body, 1 << 20);
  CURL *h = curl_easy_init();
  struct curl_slist *hs = curl_slist_append(NULL, "Content-Type: application/json");
  curl_easy_setopt(h, CURLOPT_URL, target);
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, hs);
  curl_easy_setopt(h, CURLOPT_POSTFIELDS,
                   "{\"model\":\"m\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":"
                   "\"hi\"}]}");
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(h, CURLOPT_TIMEOUT, 10L);
  OCK_ASSERT_INT_EQ(curl_easy_perform(h), CURLE_OK);
  curl_slist_free_all(hs);
  curl_easy_cleanup(h);
  OCK_ASSERT_CONTAINS(body.data, "data: {\"id\":\"chatcmpl-");
  const char *done = "data: [DONE]\n\n";
  OCK_ASSERT_TRUE(body.len >= strlen(done) && !strcmp(body.data + body.len - strlen(done), done));
  ock_buf_free(&body);

  OCK_ASSERT_INT_EQ(finish(&c, SIGTERM), 0);
  FILE *f = fopen(journal, "r");
  char line[16384];
  int lines = 0;
  while (f && fgets(line, sizeof line, f)) {
    lines++;
    cJSON *e = cJSON_Parse(line);
    OCK_ASSERT_NOT_NULL(e);
    cJSON_Delete(e);
  }
  if (f)
    fclose(f);
  OCK_ASSERT_INT_EQ(lines, 2); /* llm_request, llm_reply */
  unlink(journal);
}

static void test_fixture_errors_exit_2_with_the_path(void) {
  char fixture[] = "/tmp/ock-mock-fixture-XXXXXX";
  int fd = mkstemp(fixture);
  const char *text = "{\"ock_fixture\":1,\"id\":\"x\",\"session\":{\"prompts\":[],\"providers\":["
                     "{\"name\":\"p\",\"api\":\"gpt\",\"model\":\"m\"}]}}";
  if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
    ock_test_fail(__LINE__, __FILE__, "cannot write a temporary fixture");
    return;
  }
  close(fd);
  const char *args[] = {"--fixture", fixture, NULL};
  struct child c;
  if (spawn(args, &c))
    return;
  struct ock_buf err;
  ock_buf_init(&err, 1 << 16);
  read_all(c.err, &err);
  OCK_ASSERT_INT_EQ(finish(&c, 0), 2);
  OCK_ASSERT_CONTAINS(err.data, "$.session.providers[0].api: expected one of \"openai\", "
                                "\"anthropic\", got \"gpt\"");
  ock_buf_free(&err);
  unlink(fixture);

  /* A key given twice is an error too: cJSON would keep both and read the first. */
  char twice[] = "/tmp/ock-mock-fixture-XXXXXX";
  fd = mkstemp(twice);
  const char *dup = "{\"ock_fixture\":1,\"id\":\"x\",\"id\":\"y\",\"session\":{\"prompts\":[]}}";
  if (fd < 0 || write(fd, dup, strlen(dup)) != (ssize_t)strlen(dup)) {
    ock_test_fail(__LINE__, __FILE__, "cannot write a temporary fixture");
    return;
  }
  close(fd);
  const char *dup_args[] = {"--fixture", twice, NULL};
  if (spawn(dup_args, &c))
    return;
  ock_buf_init(&err, 1 << 16);
  read_all(c.err, &err);
  OCK_ASSERT_INT_EQ(finish(&c, 0), 2);
  OCK_ASSERT_CONTAINS(err.data, "$.id: duplicate key");
  ock_buf_free(&err);
  unlink(twice);

  const char *none[] = {"--port", "x", NULL};
  if (spawn(none, &c))
    return;
  OCK_ASSERT_INT_EQ(finish(&c, 0), 2);
}

static void test_other_bind_address_warns(void) {
  const char *args[] = {"--fixture", ock_test_path("tests/mock-provider/fixtures/text.json"),
                        "--bind", "127.0.0.2", NULL};
  char fixture[4096];
  snprintf(fixture, sizeof fixture, "%s", args[1]);
  args[1] = fixture;
  struct child c;
  if (spawn(args, &c))
    return;
  char url[256];
  read_line(c.out, url, sizeof url, 5000);
  OCK_ASSERT_CONTAINS(url, "http://127.0.0.2:");
  kill(c.pid, SIGINT);
  struct ock_buf err;
  ock_buf_init(&err, 1 << 16);
  read_all(c.err, &err);
  OCK_ASSERT_INT_EQ(finish(&c, 0), 0);
  OCK_ASSERT_CONTAINS(err.data, "warning: listening on 127.0.0.2, not 127.0.0.1");
  ock_buf_free(&err);
}

static const struct ock_test tests[] = {
    {"serves_until_sigterm_and_writes_the_journal",
     test_serves_until_sigterm_and_writes_the_journal},
    {"fixture_errors_exit_2_with_the_path", test_fixture_errors_exit_2_with_the_path},
    {"other_bind_address_warns", test_other_bind_address_warns},
    {NULL, NULL}};

static int suite_init(void) {
  return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : 1;
}

static int suite_cleanup(void) {
  curl_global_cleanup();
  return 0;
}

const struct ock_suite mock_cli_suite = {"mock_cli", tests, suite_init, suite_cleanup};
