/*
 * test_integration.c: ock-orchestrator against the mock provider, in both wire formats,
 * streaming and not.
 *
 * Each test starts the mock in process on a free port with a fixture from
 * tests/reference/fixtures/, spawns the CLI with OCK_URL and the other ock/1 variables, sends
 * SIGINT to its process group when the fixture's cancel trigger fires, waits with a timeout,
 * and then grades the mock's journal: per prompt one execute window that passes the same
 * per-execute checks as the unit tests (exactly one orchestrator:complete, last, with the
 * fixture's expected status, turn_count, reason and error type; grammar; stages; trace IDs),
 * no history finding, no unmatched request, the trace header on every LLM and tool request,
 * "stream": true on every request of a streaming session, and exit status 0. When valgrind is
 * on PATH the CLI runs under it (OCK_VALGRIND=0 turns that off), and a leak or memory error
 * fails the test through valgrind's exit status.
 */
#include "runner.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakes.h"
#include "ock/json.h"
#include "ock/mock.h"
#include "sut.h"

static atomic_int g_child; /* the CLI's process group, for the cancel trigger */

static void send_sigint(void *user) {
  (void)user;
  int pg = atomic_load(&g_child);
  if (pg > 0)
    kill(-pg, SIGINT);
}

/* window_events splits the journal's event entries into execute windows (one array per
 * prompt:submit). Returns a new array of arrays. */
static cJSON *windows_of(const cJSON *journal) {
  cJSON *windows = cJSON_CreateArray(), *cur = NULL;
  const cJSON *e;
  cJSON_ArrayForEach(e, journal) {
    if (strcmp(ock_json_str(e, "kind"), "event"))
      continue;
    if (!strcmp(ock_json_str(e, "event"), "prompt:submit")) {
      cur = cJSON_CreateArray();
      cJSON_AddItemToArray(windows, cur);
    }
    if (cur)
      cJSON_AddItemToArray(cur, cJSON_Duplicate(e, 1));
    else
      ock_test_fail(__LINE__, __FILE__, "event %s before the first prompt:submit",
                    ock_json_str(e, "event"));
  }
  return windows;
}

static int status_of(const char *s) {
  const char *names[] = {"success", "incomplete", "cancelled", "error"};
  for (int i = 0; i < 4; i++)
    if (s && !strcmp(s, names[i]))
      return i;
  return -1;
}

/* grade checks the journal of one run against the fixture's expectations. */
static void grade(const cJSON *fixture, const cJSON *journal, const struct sut_run *run) {
  const cJSON *expect = cJSON_GetObjectItemCaseSensitive(fixture, "expect");
  const cJSON *executes = cJSON_GetObjectItemCaseSensitive(expect, "executes");
  const cJSON *session = cJSON_GetObjectItemCaseSensitive(fixture, "session");
  const cJSON *config = cJSON_GetObjectItemCaseSensitive(session, "config");
  int prompts = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(session, "prompts"));
  OCK_ASSERT_INT_EQ(run->timed_out, 0);
  OCK_ASSERT_INT_EQ(run->signal, 0);
  OCK_ASSERT_INT_EQ(run->exit_code, 0);

  cJSON *windows = windows_of(journal);
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(windows), prompts);
  const cJSON *first = cJSON_GetObjectItemCaseSensitive(
      cJSON_GetArrayItem(cJSON_GetArrayItem(windows, 0), 0), "data");
  char trace[256];
  snprintf(trace, sizeof trace, "%s",
           ock_json_str(first, "trace_id") ? ock_json_str(first, "trace_id") : "");
  OCK_ASSERT_INT_NE(trace[0], '\0');
  for (int i = 0; i < prompts && i < cJSON_GetArraySize(windows); i++) {
    const cJSON *ex = cJSON_GetArrayItem(executes, i);
    const cJSON *w = cJSON_GetArrayItem(windows, i);
    int status = status_of(ock_json_str(ex, "status"));
    if (status < 0)
      continue;
    check_events(w, (enum ock_exec_status)status, (int)ock_json_int(ex, "turn_count", -1), trace,
                 "ock-reference");
    const cJSON *last = cJSON_GetArrayItem(w, cJSON_GetArraySize(w) - 1);
    const cJSON *done = cJSON_GetObjectItemCaseSensitive(last, "data");
    if (ock_json_str(ex, "reason"))
      OCK_ASSERT_STR_EQ(ock_json_str(done, "reason"), ock_json_str(ex, "reason"));
    if (ock_json_str(ex, "error_type"))
      OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetObjectItemCaseSensitive(done, "error"), "type"),
                        ock_json_str(ex, "error_type"));
  }
  cJSON_Delete(windows);

  int streaming = ock_json_bool(config, "streaming", 0);
  const cJSON *tool_calls = cJSON_GetObjectItemCaseSensitive(expect, "tool_calls");
  const cJSON *tool_input = cJSON_GetObjectItemCaseSensitive(expect, "tool_input");
  cJSON *starts = cJSON_CreateObject(); /* tool name -> count */
  const cJSON *e;
  cJSON_ArrayForEach(e, journal) {
    const char *kind = ock_json_str(e, "kind");
    if (!strcmp(kind, "finding") || !strcmp(kind, "unmatched") || !strcmp(kind, "http_error")) {
      char *text = cJSON_PrintUnformatted(e);
      ock_test_fail(__LINE__, __FILE__, "journal: %.600s", text ? text : kind);
      free(text);
    }
    const cJSON *headers = cJSON_GetObjectItemCaseSensitive(e, "headers");
    if (!strcmp(kind, "llm_request")) {
      OCK_ASSERT_STR_EQ(ock_json_str(headers, "x-ock-trace-id"), trace);
      OCK_ASSERT_INT_EQ(ock_json_bool(e, "stream", 0), streaming);
    }
    if (!strcmp(kind, "tool_start")) {
      const char *name = ock_json_str(e, "name");
      OCK_ASSERT_STR_EQ(ock_json_str(headers, "x-ock-trace-id"), trace);
      cJSON *n = cJSON_GetObjectItemCaseSensitive(starts, name);
      if (!n) {
        const cJSON *want = cJSON_GetObjectItemCaseSensitive(tool_input, name);
        if (want && !cJSON_Compare(want, cJSON_GetObjectItemCaseSensitive(e, "input"), 1))
          ock_test_fail(__LINE__, __FILE__, "first input of tool %s differs", name);
        cJSON_AddNumberToObject(starts, name, 1);
      } else {
        cJSON_SetNumberValue(n, n->valuedouble + 1);
      }
    }
  }
  cJSON_ArrayForEach(e, tool_calls) {
    if (!strcmp(e->string, "requirement")) /* what the clause proves (SPEC.md 8.8) */
      continue;
    /* A count is an integer or {"count": N, "requirement": ID}. */
    long long want = cJSON_IsObject(e) ? ock_json_int(e, "count", -1) : (long long)e->valueint;
    OCK_ASSERT_INT_EQ(ock_json_int(starts, e->string, 0), want);
  }
  cJSON_Delete(starts);
  /* every cancel trigger fired: a SIGINT that never came would test nothing */
  const cJSON *cancel = cJSON_GetObjectItemCaseSensitive(fixture, "cancel");
  int triggers = cJSON_IsArray(cancel) ? cJSON_GetArraySize(cancel) : cancel != NULL, fired = 0;
  cJSON_ArrayForEach(e, journal)
    fired += !strcmp(ock_json_str(e, "kind"), "cancel");
  OCK_ASSERT_INT_EQ(fired, triggers);
}

/* run_fixture runs the CLI against the mock serving fixtures/<name>.json and grades it. */
static void run_fixture(const char *name) {
  char rel[256];
  snprintf(rel, sizeof rel, "tests/reference/fixtures/%s.json", name);
  struct ock_jerr err;
  cJSON *fixture = NULL;
  if (ock_json_parse_file(ock_test_path(rel), 1 << 20, &fixture, &err)) {
    ock_test_fail(__LINE__, __FILE__, "%s: %s", err.where, err.what);
    return;
  }
  struct ock_mock_options opt = {.port = 0, .on_cancel = send_sigint};
  ock_mock *m = NULL;
  if (ock_mock_new(fixture, &opt, &m, &err) || ock_mock_start(m, &err)) {
    ock_test_fail(__LINE__, __FILE__, "mock for %s: %s: %s", name, err.where, err.what);
    ock_mock_free(m);
    cJSON_Delete(fixture);
    return;
  }
  const char *url = ock_mock_url(m);
  char v_url[300], v_scn[300], v_oai[300], v_ant[300];
  snprintf(v_url, sizeof v_url, "OCK_URL=%s", url);
  snprintf(v_scn, sizeof v_scn, "OCK_SCENARIO=%s", name);
  snprintf(v_oai, sizeof v_oai, "OPENAI_BASE_URL=%s/v1", url);
  snprintf(v_ant, sizeof v_ant, "ANTHROPIC_BASE_URL=%s", url);
  const char *env[] = {
      v_url, v_scn, v_oai, "OPENAI_API_KEY=ock-dummy-key", v_ant, "ANTHROPIC_API_KEY=ock-dummy-key",
      NULL};
  int valgrind = sut_valgrind();
  pid_t pid = ref_cli_start(NULL, env, valgrind);
  OCK_ASSERT_INT_GT(pid, 0);
  atomic_store(&g_child, (int)pid);
  struct sut_run run;
  ref_cli_wait(pid, valgrind ? 180000 : 30000, &run);
  atomic_store(&g_child, 0);
  cJSON *journal = ock_mock_journal(m);
  ock_mock_stop(m);
  grade(fixture, journal, &run);
  if (getenv("OCK_TEST_VERBOSE") || run.exit_code != 0)
    fprintf(stderr, "\n--- %s%s: exit %d, stderr:\n%s---\n", name, valgrind ? " (valgrind)" : "",
            run.exit_code, run.err);
  cJSON_Delete(journal);
  ock_mock_free(m);
  cJSON_Delete(fixture);
}

static void test_openai_tools(void) {
  run_fixture("ref-openai-tools");
}

static void test_anthropic_stream(void) {
  run_fixture("ref-anthropic-stream");
}

static void test_openai_stream_retry(void) {
  run_fixture("ref-openai-stream-retry");
}

static void test_fallback(void) {
  run_fixture("ref-fallback");
}

static void test_cancel(void) {
  run_fixture("ref-cancel");
}

static void test_cancel_points(void) {
  run_fixture("ref-cancel-points");
}

static void test_limits(void) {
  run_fixture("ref-limits");
}

static void test_events_mode(void) {
  run_fixture("ref-events-mode");
}

static void test_no_provider(void) {
  run_fixture("ref-no-provider");
}

static const struct ock_test tests[] = {{"openai_tools", test_openai_tools},
                                        {"anthropic_stream", test_anthropic_stream},
                                        {"openai_stream_retry", test_openai_stream_retry},
                                        {"fallback", test_fallback},
                                        {"cancel", test_cancel},
                                        {"cancel_points", test_cancel_points},
                                        {"limits", test_limits},
                                        {"events_mode", test_events_mode},
                                        {"no_provider", test_no_provider},
                                        {NULL, NULL}};

/* The CLI under valgrind: four minutes on a loaded machine. */
const struct ock_suite integration_suite = {"integration", tests, NULL, NULL, 900};
