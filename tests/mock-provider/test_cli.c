/*
 * test_cli.c: `ock-mock-provider` as a team would run it: start it on a fixture, read the
 * URL from its first line, stream a completion with libcurl, stop it with SIGTERM, read the
 * journal it wrote. The child runs through the process runner (ock/process.h) and is always
 * reaped; a test failure kills it first.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "helpers.h"
#include "ock/buf.h"
#include "ock/process.h"
#include "runner.h"

#ifndef OCK_MOCK_CLI
#define OCK_MOCK_CLI "build/bin/ock-mock-provider"
#endif

struct child {
  ock_process *p;
};

static const char *cli_path(void) {
  static char path[4096];
  const char *env = getenv("OCK_MOCK_CLI");
  const char *p = env && *env ? env : OCK_MOCK_CLI;
  snprintf(path, sizeof path, "%s", p[0] == '/' ? p : ock_test_path(p));
  return path;
}

/* spawn runs the CLI with args (NULL-terminated, without argv[0]) in the suite's process group,
 * so the runner's kill of a hung suite reaches it too. */
static int spawn(const char *const *args, struct child *c) {
  const char *argv[16] = {cli_path()};
  for (int i = 0; i < 14 && args[i]; i++)
    argv[i + 1] = args[i];
  struct ock_process_spec spec = {.argv = argv, .output_cap = 1 << 16, .same_group = 1};
  c->p = NULL;
  return ock_process_start(&spec, &c->p) ? -1 : 0;
}

/* read_line copies the child's first line of stdout, once written within timeout_ms. */
static void read_line(struct child *c, char *buf, size_t n, int timeout_ms) {
  for (int waited = 0; waited < timeout_ms && !strchr(ock_process_stdout(c->p), '\n'); waited += 20)
    if (ock_process_poll(c->p, 20))
      break;
  snprintf(buf, n, "%.*s", (int)strcspn(ock_process_stdout(c->p), "\n"), ock_process_stdout(c->p));
}

/* finish signals (when sig) and reaps the child, and appends its stderr to err (when given);
 * returns its exit status, or -1 when it was killed or had not ended 30 s after its start (then
 * it is killed). */
static int finish(struct child *c, int sig, struct ock_buf *err) {
  if (sig)
    ock_process_kill(c->p, sig);
  struct ock_process_result r;
  ock_process_wait(c->p, 30, &r);
  if (err && r.err)
    OCK_ASSERT_OK(ock_buf_puts(err, r.err));
  int code = r.exit_code;
  ock_process_result_clear(&r);
  ock_process_free(c->p);
  c->p = NULL;
  return code;
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
  read_line(&c, url, sizeof url, 5000);
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

  OCK_ASSERT_INT_EQ(finish(&c, SIGTERM, NULL), 0);
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
  OCK_ASSERT_INT_EQ(finish(&c, 0, &err), 2);
  OCK_ASSERT_CONTAINS(err.data, "$.session.providers[0].api: expected one of \"openai\", "
                                "\"anthropic\", \"responses\", \"gemini\", got \"gpt\"");
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
  OCK_ASSERT_INT_EQ(finish(&c, 0, &err), 2);
  OCK_ASSERT_CONTAINS(err.data, "$.id: duplicate key");
  ock_buf_free(&err);
  unlink(twice);

  const char *none[] = {"--port", "x", NULL};
  if (spawn(none, &c))
    return;
  OCK_ASSERT_INT_EQ(finish(&c, 0, NULL), 2);
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
  read_line(&c, url, sizeof url, 5000);
  OCK_ASSERT_CONTAINS(url, "http://127.0.0.2:");
  struct ock_buf err;
  ock_buf_init(&err, 1 << 16);
  OCK_ASSERT_INT_EQ(finish(&c, SIGINT, &err), 0);
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
