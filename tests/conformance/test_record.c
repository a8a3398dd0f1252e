/*
 * test_record.c: `ock record` (conformance/record/). The mock is the upstream and real clients
 * cross the proxy: the plain Python agent of examples/plain-agent (streamed and not) and the
 * reference orchestrator. A recorded good session replays as PASS, the same agent with a
 * dropped tool result FAILs the replay on OCK-ORPHAN-001, the recorded events.jsonl is the
 * golden log `ock diff` compares, and no secret a client sent is anywhere in the directory.
 */
#include "runner.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "ock/json.h"
#include "ock/message.h"
#include "ock/wire.h"
#include "ock/wire_list.h"
#include "ock/wire_responses.h"
#include "record/fixture.h"
#include "record/redact.h"

#ifndef OCK_BIN_DIR
#define OCK_BIN_DIR "build"
#endif

static char tmp[64];

static int setup(void) {
  return ock_test_tmpdir(tmp, "record");
}

static int teardown(void) {
  return ock_test_rmdir(tmp);
}

static const char prompts[] = "printf 'What is the weather in Paris?\\nThanks!\\n'";

/* record_from runs client through the recorder in front of the mock serving the fixture
 * source, into tmp/name; returns the client's exit status. */
static int record_from(const char *source, const char *name, const char *client,
                       const char *options) {
  char cmd[4096], script[512]; /* ock_test_path's buffer is reused: copy */
  snprintf(script, sizeof script, "%s", ock_test_path("tests/record/record-session.sh"));
  snprintf(cmd, sizeof cmd, "%s %s %s %s/%s \"%s\" %s", script, OCK_BIN_DIR, source, tmp, name,
           client, options);
  return ock_test_sh(cmd);
}

/* record: record_from the session of tests/record/session.json (Chat Completions). */
static int record(const char *name, const char *client, const char *options) {
  char source[512];
  snprintf(source, sizeof source, "%s", ock_test_path("tests/record/session.json"));
  return record_from(source, name, client, options);
}

/* session_on writes tests/record/session.json with its provider on wire (tmp/session-W.json)
 * and returns that path (static). */
static const char *session_on(const char *wire) {
  static char path[256];
  char cmd[1024];
  snprintf(path, sizeof path, "%s/session-%s.json", tmp, wire);
  snprintf(cmd, sizeof cmd, "sed 's/\"api\": \"openai\"/\"api\": \"%s\"/' %s >%s", wire,
           ock_test_path("tests/record/session.json"), path);
  OCK_ASSERT_INT_EQ(ock_test_sh(cmd), 0);
  return path;
}

static cJSON *read_json(const char *dir, const char *file) {
  char path[256];
  snprintf(path, sizeof path, "%s/%s/%s", tmp, dir, file);
  cJSON *doc = NULL;
  struct ock_jerr err;
  if (ock_json_parse_file(path, 16 << 20, &doc, &err))
    ock_test_fail(__LINE__, __FILE__, "%s: %s", path, err.what);
  return doc;
}

/* replay grades sut against tmp/dir/fixture.json and returns report.json (caller frees). */
static cJSON *replay(const char *dir, const char *sut, const char *options, int want_exit) {
  char cmd[4096], out[128];
  snprintf(out, sizeof out, "%s-replay-%d", dir, want_exit);
  snprintf(cmd, sizeof cmd,
           "%s/bin/ock run --orchestrator '%s' --fixtures %s/%s %s -o %s/%s "
           ">%s/%s.log 2>&1",
           OCK_BIN_DIR, sut, tmp, dir, options, tmp, out, tmp, out);
  OCK_ASSERT_INT_EQ(ock_test_sh(cmd), want_exit);
  return read_json(out, "report.json");
}

static const char *check_verdict(const cJSON *report, const char *id, const char **message) {
  const cJSON *sc = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(report, "scenarios"), 0);
  const cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(sc, "checks")) {
    if (!strcmp(ock_json_str(c, "id") ? ock_json_str(c, "id") : "", id)) {
      *message = ock_json_str(c, "message");
      return ock_json_str(c, "verdict");
    }
  }
  *message = "";
  return "";
}

static char agent[600];

static const char *agent_cmd(const char *flags) {
  snprintf(agent, sizeof agent, "python3 %s %s", ock_test_path("examples/plain-agent/agent.py"),
           flags);
  return agent;
}

/* The recording of the agent (tools run by itself, a 429 with Retry-After on the way) is a
 * fixture of the model's side; the agent replays it as PASS, and with a dropped tool result
 * FAILs on OCK-ORPHAN-001. */
static void agent_session_replays(void) {
  char client[1200];
  snprintf(client, sizeof client, "%s | OPENAI_API_KEY=sk-test-0000 %s", prompts, agent_cmd(""));
  OCK_ASSERT_INT_EQ(record("agent", client, ""), 0);
  cJSON *fx = read_json("agent", "fixture.json");
  OCK_ASSERT_NOT_NULL_FATAL(fx);
  const cJSON *session = cJSON_GetObjectItemCaseSensitive(fx, "session");
  const cJSON *prompts_j = cJSON_GetObjectItemCaseSensitive(session, "prompts");
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(prompts_j), 2);
  OCK_ASSERT_STR_EQ(cJSON_GetArrayItem(prompts_j, 1)->valuestring, "Thanks!");
  const cJSON *turns =
      cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(fx, "script"), "primary");
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(turns), 4);
  const cJSON *call = cJSON_GetArrayItem(
      cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(turns, 0), "tool_calls"), 0);
  OCK_ASSERT_STR_EQ(ock_json_str(call, "name"), "get_weather");
  OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetObjectItemCaseSensitive(call, "arguments"), "city"),
                    "Paris");
  const cJSON *fault = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(turns, 1), "fault");
  OCK_ASSERT_INT_EQ(cJSON_GetObjectItemCaseSensitive(fault, "status")->valueint, 429);
  OCK_ASSERT_INT_EQ(cJSON_GetObjectItemCaseSensitive(fault, "retry_after")->valueint, 1);
  OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetArrayItem(turns, 2), "text"),
                    "It is 15 degrees in Paris.");
  /* The tool's result is what the next request carried for that call. */
  const cJSON *calls = cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(fx, "tools"),
                                       "get_weather"),
      "calls");
  OCK_ASSERT_STR_EQ(
      ock_json_str(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(calls, 0), "result"),
                   "output"),
      "15 degrees in Paris");
  cJSON_Delete(fx);

  const char *msg;
  cJSON *good =
      replay("agent", agent_cmd(""), "--blackbox --capabilities core,resilience --journals", 0);
  OCK_ASSERT_STR_EQ(ock_json_str(good, "verdict"), "PASS");
  OCK_ASSERT_STR_EQ(check_verdict(good, "orphan.result-for-every-call", &msg), "PASS");
  cJSON_Delete(good);
  /* The replay's mock issued call ids of its own, which the agent carried: none recorded. */
  char path[256];
  snprintf(path, sizeof path, "%s/agent/traffic.jsonl", tmp);
  char *traffic = ock_test_read_file(path);
  snprintf(path, sizeof path, "%s/agent-replay-0/journals/fixture.journal.jsonl", tmp);
  char *journal = ock_test_read_file(path);
  OCK_ASSERT_NOT_NULL_FATAL(traffic);
  OCK_ASSERT_NOT_NULL_FATAL(journal);
  const char *id = strstr(traffic, "\"tool_call_id\":\"");
  OCK_ASSERT_NOT_NULL_FATAL(id);
  char recorded[64];
  snprintf(recorded, sizeof recorded, "%.*s", (int)strcspn(id + 16, "\""), id + 16);
  OCK_ASSERT_INT_GT((int)strlen(recorded), 0);
  OCK_ASSERT_CONTAINS(journal, "\"tool_call_id\":\"");
  if (strstr(journal, recorded))
    ock_test_fail(__LINE__, __FILE__, "the replay reused the recorded call id %s", recorded);
  free(traffic);
  free(journal);
  cJSON *bad = replay("agent", agent_cmd("--drop-tool-results"),
                      "--blackbox --capabilities core,resilience", 1);
  OCK_ASSERT_STR_EQ(ock_json_str(bad, "verdict"), "FAIL");
  OCK_ASSERT_STR_EQ(check_verdict(bad, "orphan.result-for-every-call", &msg), "FAIL");
  OCK_ASSERT_CONTAINS(msg, "OCK-ORPHAN-001");
  cJSON_Delete(bad);
}

/* item_str: the string at index i of an array, or "(none)". */
static const char *item_str(const cJSON *a, int i) {
  const cJSON *it = cJSON_GetArrayItem(a, i);
  return cJSON_IsString(it) ? it->valuestring : "(none)";
}

static char wire_agent[600];

/* wire_agent_cmd: tests/record/wire_agent.py on wire with flags. */
static const char *wire_agent_cmd(const char *wire, const char *flags) {
  snprintf(wire_agent, sizeof wire_agent, "python3 %s --wire %s %s",
           ock_test_path("tests/record/wire_agent.py"), wire, flags);
  return wire_agent;
}

/* session_fixture_holds: the recording of the session of tests/record/session.json on wire is
 * that session again: its provider's wire, both prompts, the tool call, the 429 with its
 * Retry-After, the answers, and the tool's result as the next request carried it. */
static void session_fixture_holds(const char *dir, const char *wire, int streamed) {
  cJSON *fx = read_json(dir, "fixture.json");
  OCK_ASSERT_NOT_NULL_FATAL(fx);
  const cJSON *session = cJSON_GetObjectItemCaseSensitive(fx, "session");
  const cJSON *prov = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(session, "providers"), 0);
  OCK_ASSERT_STR_EQ(ock_json_str(prov, "api"), wire);
  OCK_ASSERT_STR_EQ(ock_json_str(prov, "model"),
                    strcmp(wire, "gemini") ? "gpt-prod" : "gemini-prod");
  const cJSON *tool = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(session, "tools"), 0);
  OCK_ASSERT_STR_EQ(ock_json_str(tool, "name"), "get_weather");
  OCK_ASSERT_TRUE(cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(tool, "input_schema")));
  const cJSON *prompts_j = cJSON_GetObjectItemCaseSensitive(session, "prompts");
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(prompts_j), 2);
  OCK_ASSERT_STR_EQ(item_str(prompts_j, 0), "What is the weather in Paris?");
  OCK_ASSERT_STR_EQ(item_str(prompts_j, 1), "Thanks!");
  const cJSON *config = cJSON_GetObjectItemCaseSensitive(session, "config");
  OCK_ASSERT_INT_EQ(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(config, "streaming")), streamed);
  const cJSON *turns =
      cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(fx, "script"), "primary");
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(turns), 4);
  const cJSON *call = cJSON_GetArrayItem(
      cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(turns, 0), "tool_calls"), 0);
  OCK_ASSERT_STR_EQ(ock_json_str(call, "name"), "get_weather");
  OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetObjectItemCaseSensitive(call, "arguments"), "city"),
                    "Paris");
  const cJSON *fault = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(turns, 1), "fault");
  OCK_ASSERT_INT_EQ(cJSON_GetObjectItemCaseSensitive(fault, "status")->valueint, 429);
  OCK_ASSERT_INT_EQ(cJSON_GetObjectItemCaseSensitive(fault, "retry_after")->valueint, 1);
  OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetArrayItem(turns, 2), "text"),
                    "It is 15 degrees in Paris.");
  OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetArrayItem(turns, 3), "text"), "You're welcome.");
  const cJSON *calls = cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(fx, "tools"),
                                       "get_weather"),
      "calls");
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(calls), 1);
  OCK_ASSERT_STR_EQ(
      ock_json_str(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(calls, 0), "result"),
                   "output"),
      "15 degrees in Paris");
  cJSON_Delete(fx);
}

/* wire_session: the agent on wire records the session (a tool call, a 429, a second execute),
 * the recording is that session, and the agent replays it on that wire as PASS; when full,
 * the agent with a dropped tool result FAILs the replay on OCK-ORPHAN-001. */
static void wire_session(const char *wire, const char *name, const char *flags, int streamed,
                         int full) {
  char client[1200], options[256], caps[128];
  snprintf(client, sizeof client, "%s | %s", prompts, wire_agent_cmd(wire, flags));
  OCK_ASSERT_INT_EQ(record_from(session_on(wire), name, client, ""), 0);
  session_fixture_holds(name, wire, streamed);
  snprintf(caps, sizeof caps, "core,resilience%s", streamed ? ",streaming" : "");
  snprintf(options, sizeof options, "--blackbox --wires %s --capabilities %s", wire, caps);
  const char *msg;
  cJSON *good = replay(name, wire_agent_cmd(wire, flags), options, 0);
  OCK_ASSERT_STR_EQ(ock_json_str(good, "verdict"), "PASS");
  OCK_ASSERT_STR_EQ(check_verdict(good, "orphan.result-for-every-call", &msg), "PASS");
  cJSON_Delete(good);
  if (!full)
    return;
  char dropped[300];
  snprintf(dropped, sizeof dropped, "%s --drop-tool-results", flags);
  cJSON *bad = replay(name, wire_agent_cmd(wire, dropped), options, 1);
  OCK_ASSERT_STR_EQ(ock_json_str(bad, "verdict"), "FAIL");
  OCK_ASSERT_STR_EQ(check_verdict(bad, "orphan.result-for-every-call", &msg), "FAIL");
  OCK_ASSERT_CONTAINS(msg, "OCK-ORPHAN-001");
  cJSON_Delete(bad);
}

/* The Responses API with previous_response_id: every request after the first carries only its
 * new items, so the recording reads each through the conversation the provider kept; the
 * replay's mock keeps its own, and the chained agent replays as PASS, or FAILs without the
 * output of its call. */
static void responses_session_replays(void) {
  wire_session("responses", "responses", "", 0, 1);
  /* the recorded chain: the second request named the first response and carried its output */
  char path[256];
  snprintf(path, sizeof path, "%s/responses/traffic.jsonl", tmp);
  char *traffic = ock_test_read_file(path);
  OCK_ASSERT_NOT_NULL_FATAL(traffic);
  OCK_ASSERT_CONTAINS(traffic, "\"previous_response_id\":\"resp_");
  free(traffic);
}

static void responses_streamed_session_replays(void) {
  wire_session("responses", "responses-stream", "--stream", 1, 0);
}

/* The Gemini API: the model and streaming are in the path; v1beta with the key in the header,
 * v1 streamed with the key in the query. */
static void gemini_session_replays(void) {
  wire_session("gemini", "gemini", "", 0, 1);
}

static void gemini_streamed_session_replays(void) {
  wire_session("gemini", "gemini-stream", "--stream --v1 --key-in-query", 1, 1);
}

/* A streamed session crosses the proxy as it arrives and replays with streaming on. */
static void streamed_session_replays(void) {
  char client[1200];
  snprintf(client, sizeof client, "%s | %s", prompts, agent_cmd("--stream"));
  OCK_ASSERT_INT_EQ(record("stream", client, ""), 0);
  cJSON *fx = read_json("stream", "fixture.json");
  OCK_ASSERT_NOT_NULL_FATAL(fx);
  const cJSON *config =
      cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(fx, "session"), "config");
  OCK_ASSERT_TRUE(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(config, "streaming")));
  cJSON_Delete(fx);
  cJSON *good = replay("stream", agent_cmd("--stream"),
                       "--blackbox --capabilities core,resilience,streaming", 0);
  OCK_ASSERT_STR_EQ(ock_json_str(good, "verdict"), "PASS");
  cJSON_Delete(good);
}

/* Tools run over MCP through the recorder: their results come from the MCP replies, the
 * scenario expects the calls, and a build that stops calling the tool there FAILs it. */
static void mcp_session_replays(void) {
  char client[1200];
  snprintf(client, sizeof client, "%s | %s", prompts, agent_cmd("--mcp"));
  OCK_ASSERT_INT_EQ(record("mcp", client, ""), 0);
  cJSON *fx = read_json("mcp", "fixture.json");
  OCK_ASSERT_NOT_NULL_FATAL(fx);
  const cJSON *calls = cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(fx, "tools"),
                                       "get_weather"),
      "calls");
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(calls), 1);
  OCK_ASSERT_STR_EQ(
      ock_json_str(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(calls, 0), "result"),
                   "output"),
      "ok");
  const cJSON *expect = cJSON_GetObjectItemCaseSensitive(fx, "expect");
  OCK_ASSERT_INT_EQ(cJSON_GetObjectItemCaseSensitive(
                        cJSON_GetObjectItemCaseSensitive(expect, "tool_calls"), "get_weather")
                        ->valueint,
                    1);
  cJSON_Delete(fx);
  cJSON *good = replay("mcp", agent_cmd("--mcp"), "--blackbox --capabilities core,resilience", 0);
  OCK_ASSERT_STR_EQ(ock_json_str(good, "verdict"), "PASS");
  cJSON_Delete(good);
  cJSON *bad = replay("mcp", agent_cmd(""), "--blackbox --capabilities core,resilience", 1);
  OCK_ASSERT_STR_EQ(ock_json_str(bad, "verdict"), "FAIL");
  cJSON_Delete(bad);
}

/* An instrumented orchestrator's events are the golden log: it passes `ock check`, `ock diff`
 * finds a removed event in it and nothing between it and itself, and its recording replays
 * in the instrumented tier. */
static void orchestrator_events_are_golden(void) {
  char client[600], cmd[1200];
  snprintf(client, sizeof client, "%s/bin/ock-orchestrator", OCK_BIN_DIR);
  OCK_ASSERT_INT_EQ(record("orch", client, ""), 0);
  snprintf(cmd, sizeof cmd, "%s/bin/ock check %s/orch/events.jsonl >/dev/null", OCK_BIN_DIR, tmp);
  OCK_ASSERT_INT_EQ(ock_test_sh(cmd), 0);
  snprintf(cmd, sizeof cmd, "grep -v '\"tool:post\"' %s/orch/events.jsonl >%s/removed.jsonl", tmp,
           tmp);
  OCK_ASSERT_INT_EQ(ock_test_sh(cmd), 0);
  snprintf(cmd, sizeof cmd, "%s/bin/ock diff %s/orch/events.jsonl %s/orch/events.jsonl >/dev/null",
           OCK_BIN_DIR, tmp, tmp);
  OCK_ASSERT_INT_EQ(ock_test_sh(cmd), 0);
  snprintf(cmd, sizeof cmd, "%s/bin/ock diff %s/orch/events.jsonl %s/removed.jsonl >/dev/null",
           OCK_BIN_DIR, tmp, tmp);
  OCK_ASSERT_INT_EQ(ock_test_sh(cmd), 1);
  snprintf(cmd, sizeof cmd, "%s/bin/ock-orchestrator", OCK_BIN_DIR);
  cJSON *good = replay("orch", cmd, "--capabilities core,resilience", 0);
  OCK_ASSERT_STR_EQ(ock_json_str(good, "tier"), "instrumented");
  OCK_ASSERT_STR_EQ(ock_json_str(good, "verdict"), "PASS");
  cJSON_Delete(good);
}

/* contains: needle occurs anywhere in the n bytes of hay. */
static int contains(const char *hay, size_t n, const char *needle) {
  size_t k = strlen(needle);
  for (size_t i = 0; i + k <= n; i++)
    if (!memcmp(hay + i, needle, k))
      return 1;
  return 0;
}

/* Every byte of every file the recorder wrote is searched for every key a client sent. */
static void no_secret_on_disk(void) {
  static const char *const keys[] = {"sk-live-Q1w2E3r4", "xak-Z9y8X7w6", "goog-K5j4H3g2",
                                     "azk-P0o9I8u7",     "ck-M1n2B3v4",  "qk-L5k6J7h8",
                                     "uid-T3r4E5w6"};
  char client[2000], helper[512];
  snprintf(helper, sizeof helper, "%s", ock_test_path("tests/record/secret_requests.py"));
  snprintf(client, sizeof client, "%s | OPENAI_API_KEY=%s %s; python3 %s %s %s %s %s %s %s",
           prompts, keys[0], agent_cmd(""), helper, keys[1], keys[2], keys[3], keys[4], keys[5],
           keys[6]);
  OCK_ASSERT_INT_EQ(
      record("secrets", client, "--redact '$.metadata.user_id' --redact '$.data.user'"), 0);
  char dir[128];
  snprintf(dir, sizeof dir, "%s/secrets", tmp);
  DIR *d = opendir(dir);
  OCK_ASSERT_NOT_NULL_FATAL(d);
  int files = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.')
      continue;
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    char *text = ock_test_read_file(path);
    OCK_ASSERT_NOT_NULL_FATAL(text);
    files++;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
      if (contains(text, strlen(text), keys[i]))
        ock_test_fail(__LINE__, __FILE__, "%s holds the secret %s", path, keys[i]);
    free(text);
  }
  closedir(d);
  OCK_ASSERT_INT_EQ(files, 3); /* fixture.json, traffic.jsonl, events.jsonl */
  char path[512];
  snprintf(path, sizeof path, "%s/traffic.jsonl", dir);
  char *traffic = ock_test_read_file(path);
  OCK_ASSERT_NOT_NULL_FATAL(traffic);
  OCK_ASSERT_CONTAINS(traffic, "\"x-api-key\":\"" REC_REDACTED "\"");
  OCK_ASSERT_CONTAINS(traffic, "key=" REC_REDACTED "&beta=true");
  OCK_ASSERT_CONTAINS(traffic, "\"user_id\":\"" REC_REDACTED "\"");
  free(traffic);
}

/* no_key_in: no file of tmp/name holds any of the n keys; returns how many files it read. */
static int no_key_in(const char *name, const char *const *keys, size_t n) {
  char dir[128];
  snprintf(dir, sizeof dir, "%s/%s", tmp, name);
  DIR *d = opendir(dir);
  OCK_ASSERT_NOT_NULL_FATAL(d);
  int files = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.')
      continue;
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    char *text = ock_test_read_file(path);
    OCK_ASSERT_NOT_NULL_FATAL(text);
    files++;
    for (size_t i = 0; i < n; i++)
      if (contains(text, strlen(text), keys[i]))
        ock_test_fail(__LINE__, __FILE__, "%s holds the secret %s", path, keys[i]);
    free(text);
  }
  closedir(d);
  return files;
}

/* The Gemini API's key, in the x-goog-api-key header and in ?key= of the query (streamed and
 * not), and the Responses API's bearer token: no byte of any of them in any file written. */
static void wire_keys_not_on_disk(void) {
  static const char *const keys[] = {"AIzaHeaderK3y9x8w7", "AIzaQueryK3y6v5u4", "sk-resp-R1e2s3p4"};
  static const struct {
    const char *dir, *wire, *env, *flags, *shown;
  } runs[] = {{"keys-gemini-header", "gemini", "GEMINI_API_KEY", "",
               "\"x-goog-api-key\":\"" REC_REDACTED "\""},
              {"keys-gemini-query", "gemini", "GEMINI_API_KEY", "--stream --key-in-query",
               "\"query\":\"alt=sse&key=" REC_REDACTED "\""},
              {"keys-responses", "responses", "OPENAI_API_KEY", "--stream",
               "\"authorization\":\"" REC_REDACTED "\""}};
  for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
    char client[1200], path[512];
    snprintf(client, sizeof client, "%s | %s=%s %s", prompts, runs[i].env, keys[i],
             wire_agent_cmd(runs[i].wire, runs[i].flags));
    OCK_ASSERT_INT_EQ(record_from(session_on(runs[i].wire), runs[i].dir, client, ""), 0);
    OCK_ASSERT_INT_EQ(no_key_in(runs[i].dir, keys, sizeof keys / sizeof keys[0]), 2);
    snprintf(path, sizeof path, "%s/%s/traffic.jsonl", tmp, runs[i].dir);
    char *traffic = ock_test_read_file(path);
    OCK_ASSERT_NOT_NULL_FATAL(traffic);
    OCK_ASSERT_CONTAINS(traffic, runs[i].shown);
    free(traffic);
    cJSON *fx = read_json(runs[i].dir, "fixture.json"); /* the recording is a scenario still */
    OCK_ASSERT_INT_EQ(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(
                          cJSON_GetObjectItemCaseSensitive(fx, "script"), "primary")),
                      4);
    cJSON_Delete(fx);
  }
}

/* The JSON paths of --redact: members, indexes and wildcards; a bad path is refused. */
static void redact_paths(void) {
  cJSON *doc = cJSON_Parse("{\"a\":{\"b\":[{\"k\":\"s1\"},{\"k\":\"s2\"}]},\"c\":\"keep\"}");
  struct rec_secrets s = {0};
  OCK_ASSERT_INT_EQ(ock__rec_redact_path(doc, "$.a.b[*].k", &s), 2);
  OCK_ASSERT_INT_EQ((int)s.n, 0); /* "s1" and "s2" are too short to scrub elsewhere */
  OCK_ASSERT_INT_EQ(ock__rec_redact_path(doc, "$['c']", &s), 1);
  OCK_ASSERT_INT_EQ(ock__rec_redact_path(doc, "$.a.b[5].k", &s), 0);
  OCK_ASSERT_INT_EQ(ock__rec_redact_path(doc, "$.a..b", &s), -1);
  OCK_ASSERT_INT_EQ(ock__rec_redact_path(doc, "a.b", &s), -1);
  char *text = cJSON_PrintUnformatted(doc);
  OCK_ASSERT_STR_EQ(text, "{\"a\":{\"b\":[{\"k\":\"[redacted]\"},{\"k\":\"[redacted]\"}]},"
                          "\"c\":\"[redacted]\"}");
  free(text);
  char *q = ock__rec_redact_query("alt=sse&key=AIzaSECRET&api_key=abcd1234", &s);
  OCK_ASSERT_STR_EQ(q, "alt=sse&key=[redacted]&api_key=[redacted]");
  free(q);
  OCK_ASSERT_INT_EQ((int)s.n, 3); /* "keep" and the two query keys */
  ock__rec_secrets_free(&s);
  cJSON_Delete(doc);
}

/* exchange: a recorded LLM exchange on wire w: the request of history h, and a reply that is
 * the SSE events of r (stream; cut: without its last `cut` events and the end marker) or its
 * JSON body. */
static struct rec_exchange *exchange(const struct ock_wire_ops *w, const struct ock_history *h,
                                     const struct ock_reply *r, int stream, size_t cut) {
  struct rec_exchange *x = ock__rec_exchange_new();
  snprintf(x->method, sizeof x->method, "POST");
  static const char *const paths[] = {"/v1/chat/completions", "/v1/messages", "/v1/responses",
                                      "/v1beta/models/m-prod:generateContent"};
  x->path =
      strdup(w->wire == OCK_WIRE_GEMINI && stream ? "/v1beta/models/m-prod:streamGenerateContent"
                                                  : paths[w->wire]);
  if (w->wire == OCK_WIRE_GEMINI && stream)
    x->query = strdup("alt=sse");
  struct ock_tool_spec tool = {.name = "get_weather", .description = "Weather"};
  struct ock_wire_request rq = {.model = "m-prod",
                                .messages = h,
                                .tools = &tool,
                                .n_tools = 1,
                                .stream = stream,
                                .max_tokens = 64};
  OCK_ASSERT_OK(w->encode_request(&rq, &x->req));
  struct ock_wire_frame f = {.model = "m-prod", .chunk_size = 4};
  x->status = 200;
  x->complete = 1;
  if (stream) {
    struct ock_chunks c;
    ock_chunks_init(&c);
    OCK_ASSERT_OK(w->encode_events(r, &f, &c));
    ock_chunks_truncate(&c, c.n - (cut ? cut + w->terminators : 0));
    for (size_t i = 0; i < c.n; i++)
      OCK_ASSERT_OK(ock_buf_append(&x->resp, c.items[i], c.lens[i]));
    ock_chunks_free(&c);
    cJSON_AddStringToObject(x->resp_headers, "content-type", "text/event-stream");
  } else {
    OCK_ASSERT_OK(w->encode_reply(r, &f, &x->resp));
    cJSON_AddStringToObject(x->resp_headers, "content-type", "application/json");
  }
  return x;
}

/* Each wire's replies, streamed or not, are read back through the wire table: a tool call, a
 * stream cut short (a cut_stream fault after the events that came), its retry, the tool's
 * result from the next request. */
static void fixture_of_each_wire(void) {
  for (int k = 0; k < ock_wire_count(); k++) {
    const struct ock_wire_ops *w = ock_wire_get((enum ock_wire)k);
    struct ock_history h;
    ock_history_init(&h);
    OCK_ASSERT_OK(ock_history_add_text(&h, OCK_ROLE_USER, "Weather in Paris?"));
    struct ock_reply call, text;
    ock_reply_init(&call);
    ock_reply_init(&text);
    struct ock_tool_call tc = {
        .id = "call_rec_1", .name = "get_weather", .arguments = "{\"city\":\"Paris\"}"};
    call.msg.role = text.msg.role = OCK_ROLE_ASSISTANT;
    call.msg.calls = &tc;
    call.msg.n_calls = 1;
    text.msg.content = "It is 15 degrees.";
    call.id = text.id = w->wire == OCK_WIRE_ANTHROPIC ? "msg_rec" : "chatcmpl-rec";
    struct rec_exchange *xs[3];
    xs[0] = exchange(w, &h, &call, 1, 0);
    ock_history_free(&h);
    OCK_ASSERT_OK(ock_history_add_text(&h, OCK_ROLE_USER, "Weather in Paris?"));
    OCK_ASSERT_OK(ock_history_add_assistant(&h, NULL, &tc, 1));
    OCK_ASSERT_OK(ock_history_add_tool_result(&h, "call_rec_1", "15 degrees", 0));
    xs[1] = exchange(w, &h, &text, 1, 2);
    xs[2] = exchange(w, &h, &text, 0, 0);
    cJSON *doc = NULL;
    char err[256];
    OCK_ASSERT_OK(ock__rec_fixture(xs, 3, NULL, &doc, err, sizeof err));
    const cJSON *session = cJSON_GetObjectItemCaseSensitive(doc, "session");
    const cJSON *prov =
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(session, "providers"), 0);
    OCK_ASSERT_STR_EQ(ock_json_str(prov, "api"), w->name);
    OCK_ASSERT_STR_EQ(ock_json_str(prov, "model"), "m-prod");
    const cJSON *prompts_j = cJSON_GetObjectItemCaseSensitive(session, "prompts");
    OCK_ASSERT_INT_EQ(cJSON_GetArraySize(prompts_j), 1);
    OCK_ASSERT_STR_EQ(item_str(prompts_j, 0), "Weather in Paris?");
    const cJSON *turns = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(doc, "script"), "primary");
    OCK_ASSERT_INT_EQ(cJSON_GetArraySize(turns), 3);
    const cJSON *c0 = cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(turns, 0), "tool_calls"), 0);
    OCK_ASSERT_STR_EQ(ock_json_str(c0, "name"), "get_weather");
    OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetObjectItemCaseSensitive(c0, "arguments"), "city"),
                      "Paris");
    const cJSON *fault = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(turns, 1), "fault");
    OCK_ASSERT_STR_EQ(ock_json_str(fault, "kind"), "cut_stream");
    OCK_ASSERT_INT_GT(cJSON_GetObjectItemCaseSensitive(fault, "after_chunks")->valueint, 0);
    OCK_ASSERT_STR_EQ(ock_json_str(cJSON_GetArrayItem(turns, 2), "text"), "It is 15 degrees.");
    const cJSON *config = cJSON_GetObjectItemCaseSensitive(session, "config");
    OCK_ASSERT_TRUE(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(config, "streaming")));
    OCK_ASSERT_STR_EQ(ock_json_str(config, "error_strategy"), "retry");
    const cJSON *calls = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "tools"),
                                         "get_weather"),
        "calls");
    OCK_ASSERT_STR_EQ(
        ock_json_str(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(calls, 0), "result"),
                     "output"),
        "15 degrees");
    cJSON_Delete(doc);
    for (int i = 0; i < 3; i++)
      ock__rec_exchange_free(xs[i]);
    ock_history_free(&h); /* call and text borrow static strings: not cleared */
  }
}

/* raw_exchange: a recorded LLM exchange from its bytes: a POST of req to path, answered 200 with
 * the JSON body resp. */
static struct rec_exchange *raw_exchange(const char *path, const char *req, const char *resp) {
  struct rec_exchange *x = ock__rec_exchange_new();
  snprintf(x->method, sizeof x->method, "POST");
  x->path = strdup(path);
  OCK_ASSERT_OK(ock_buf_puts(&x->req, req));
  OCK_ASSERT_OK(ock_buf_puts(&x->resp, resp));
  x->status = 200;
  x->complete = 1;
  cJSON_AddStringToObject(x->resp_headers, "content-type", "application/json");
  return x;
}

/* responses_reply: the Responses API's reply body with that id, a text or a call. */
static const char *responses_reply(const char *id, const char *text, const char *call_id) {
  static char out[2048];
  struct ock_reply r;
  ock_reply_init(&r);
  struct ock_tool_call tc = {
      .id = (char *)call_id, .name = "get_weather", .arguments = "{\"city\":\"Paris\"}"};
  r.id = (char *)id;
  r.msg.role = OCK_ROLE_ASSISTANT;
  r.msg.content = (char *)text;
  r.msg.calls = call_id ? &tc : NULL;
  r.msg.n_calls = call_id ? 1 : 0;
  struct ock_wire_frame f = {.model = "gpt-r", .chunk_size = 8};
  struct ock_buf b;
  ock_buf_init(&b, sizeof out);
  OCK_ASSERT_OK(ock_wire_responses.encode_reply(&r, &f, &b));
  snprintf(out, sizeof out, "%s", b.data);
  ock_buf_free(&b);
  return out;
}

/* A Responses API conversation the provider keeps: the requests after the first carry only
 * their new items and name the last response; the recording reads each whole (instructions,
 * the stored chain, the input), so the second execute's prompt is found and the call's output
 * is its result. */
static void responses_chain_read_whole(void) {
  struct rec_exchange *xs[3];
  char reply[2048];
  snprintf(reply, sizeof reply, "%s", responses_reply("resp_a", NULL, "call_a"));
  xs[0] = raw_exchange("/v1/responses",
                       "{\"model\":\"gpt-r\",\"instructions\":\"Be brief.\",\"input\":\"Weather in "
                       "Paris?\",\"tools\":[{\"type\":\"function\",\"name\":\"get_weather\","
                       "\"parameters\":{\"type\":\"object\"}}]}",
                       reply);
  snprintf(reply, sizeof reply, "%s", responses_reply("resp_b", "It is 15.", NULL));
  xs[1] = raw_exchange("/v1/responses",
                       "{\"model\":\"gpt-r\",\"previous_response_id\":\"resp_a\",\"input\":[{"
                       "\"type\":\"function_call_output\",\"call_id\":\"call_a\",\"output\":\"15 "
                       "degrees\"}]}",
                       reply);
  snprintf(reply, sizeof reply, "%s", responses_reply("resp_c", "Welcome.", NULL));
  xs[2] = raw_exchange("/v1/responses",
                       "{\"model\":\"gpt-r\",\"previous_response_id\":\"resp_b\",\"input\":[{"
                       "\"role\":\"user\",\"content\":\"Thanks!\"}]}",
                       reply);
  cJSON *doc = NULL;
  char err[256];
  OCK_ASSERT_OK(ock__rec_fixture(xs, 3, NULL, &doc, err, sizeof err));
  const cJSON *session = cJSON_GetObjectItemCaseSensitive(doc, "session");
  const cJSON *prov = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(session, "providers"), 0);
  OCK_ASSERT_STR_EQ(ock_json_str(prov, "api"), "responses");
  OCK_ASSERT_STR_EQ(ock_json_str(prov, "model"), "gpt-r");
  OCK_ASSERT_STR_EQ(
      ock_json_str(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(session, "tools"), 0),
                   "name"),
      "get_weather");
  const cJSON *prompts_j = cJSON_GetObjectItemCaseSensitive(session, "prompts");
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(prompts_j), 2);
  OCK_ASSERT_STR_EQ(item_str(prompts_j, 0), "Weather in Paris?");
  OCK_ASSERT_STR_EQ(item_str(prompts_j, 1), "Thanks!");
  const cJSON *turns =
      cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "script"), "primary");
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(turns), 3);
  OCK_ASSERT_NULL(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(turns, 1), "finish_reason"));
  const cJSON *calls = cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "tools"),
                                       "get_weather"),
      "calls");
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(calls), 1);
  OCK_ASSERT_STR_EQ(
      ock_json_str(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(calls, 0), "result"),
                   "output"),
      "15 degrees");
  cJSON_Delete(doc);
  for (int i = 0; i < 3; i++)
    ock__rec_exchange_free(xs[i]);
}

/* Gemini calls the model sent without an id are paired with their responses by name and
 * order, as the API pairs them; the v1 path is a Gemini request as v1beta is, its model read
 * from the path. */
static void gemini_calls_without_ids(void) {
  static const char user[] = "{\"role\":\"user\",\"parts\":[{\"text\":\"Weather?\"}]}";
  static const char model[] = "{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":"
                              "\"get_weather\",\"args\":{\"city\":\"Paris\"}}}]}";
  char req[1024], resp[1024];
  struct rec_exchange *xs[2];
  snprintf(req, sizeof req, "{\"contents\":[%s]}", user);
  snprintf(resp, sizeof resp,
           "{\"candidates\":[{\"content\":%s,\"finishReason\":\"STOP\",\"index\":0}],"
           "\"responseId\":\"r1\"}",
           model);
  xs[0] = raw_exchange("/v1/models/gemini-x:generateContent", req, resp);
  snprintf(req, sizeof req,
           "{\"contents\":[%s,%s,{\"role\":\"user\",\"parts\":[{\"functionResponse\":{\"name\":"
           "\"get_weather\",\"response\":{\"output\":\"15 degrees\"}}}]}]}",
           user, model);
  xs[1] = raw_exchange("/v1/models/gemini-x:generateContent", req,
                       "{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":"
                       "\"It is 15.\"}]},\"finishReason\":\"STOP\",\"index\":0}]}");
  cJSON *doc = NULL;
  char err[256];
  OCK_ASSERT_OK(ock__rec_fixture(xs, 2, NULL, &doc, err, sizeof err));
  const cJSON *prov =
      cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
                             cJSON_GetObjectItemCaseSensitive(doc, "session"), "providers"),
                         0);
  OCK_ASSERT_STR_EQ(ock_json_str(prov, "api"), "gemini");
  OCK_ASSERT_STR_EQ(ock_json_str(prov, "model"), "gemini-x");
  const cJSON *calls = cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "tools"),
                                       "get_weather"),
      "calls");
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(calls), 1);
  OCK_ASSERT_STR_EQ(
      ock_json_str(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(calls, 0), "result"),
                   "output"),
      "15 degrees");
  cJSON_Delete(doc);
  for (int i = 0; i < 2; i++)
    ock__rec_exchange_free(xs[i]);
}

/* doc_block: the fenced block a page shows after the marker naming rel (caller frees), or
 * NULL when the marker or its block is missing. */
static char *doc_block(const char *page, const char *rel) {
  char marker[256];
  snprintf(marker, sizeof marker, "<!-- %s:", rel);
  const char *at = strstr(page, marker);
  const char *open = at ? strstr(at, "```") : NULL;
  const char *body = open ? strchr(open, '\n') : NULL;
  const char *close = body ? strstr(body + 1, "\n```") : NULL;
  if (!close)
    return NULL;
  size_t n = (size_t)(close - body);
  char *out = malloc(n + 1);
  memcpy(out, body + 1, n);
  out[n] = '\0';
  return out;
}

/* docs/regression.md shows each walk-through script verbatim, and each runs to its end: the
 * broken build FAILs the recorded scenario, the fixed one PASSes, ock diff says which. */
static void regression_walkthrough(void) {
  static const char *const files[] = {"examples/regression/agent.sh",
                                      "examples/regression/orchestrator.sh"};
  char *page = ock_test_read_file(ock_test_path("docs/regression.md"));
  OCK_ASSERT_NOT_NULL_FATAL(page);
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    char *file = ock_test_read_file(ock_test_path(files[i]));
    char *shown = doc_block(page, files[i]);
    OCK_ASSERT_NOT_NULL(file);
    if (!shown)
      ock_test_fail(__LINE__, __FILE__, "docs/regression.md shows no block after <!-- %s: -->",
                    files[i]);
    if (file && shown)
      OCK_ASSERT_STR_EQ(shown, file);
    free(file);
    free(shown);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cd %s && sh %s >%s/walk%zu.out 2>&1", ock_test_path(""), files[i],
             tmp, i);
    int code = ock_test_sh(cmd);
    if (code) {
      snprintf(cmd, sizeof cmd, "tail -30 %s/walk%zu.out", tmp, i);
      ock_test_sh(cmd);
    }
    OCK_ASSERT_INT_EQ(code, 0);
  }
  free(page);
}

static const struct ock_test tests[] = {
    {"redact_paths", redact_paths},
    {"fixture_of_each_wire", fixture_of_each_wire},
    {"responses_chain_read_whole", responses_chain_read_whole},
    {"gemini_calls_without_ids", gemini_calls_without_ids},
    {"agent_session_replays", agent_session_replays},
    {"streamed_session_replays", streamed_session_replays},
    {"responses_session_replays", responses_session_replays},
    {"responses_streamed_session_replays", responses_streamed_session_replays},
    {"gemini_session_replays", gemini_session_replays},
    {"gemini_streamed_session_replays", gemini_streamed_session_replays},
    {"mcp_session_replays", mcp_session_replays},
    {"orchestrator_events_are_golden", orchestrator_events_are_golden},
    {"no_secret_on_disk", no_secret_on_disk},
    {"wire_keys_not_on_disk", wire_keys_not_on_disk},
    {"regression_walkthrough", regression_walkthrough},
    {NULL, NULL}};
const struct ock_suite suite_record = {"record", tests, setup, teardown};
