/*
 * test_cli.c: `ock` as a user runs it: a bad fixture exits 2 naming the file and the JSON path
 * (and still writes a report); a SUT that exits at once is graded and reported; two shards
 * merged equal the unsharded run; `ock check` streams a million-event log in flat memory.
 */
#include "runner.h"

#include <malloc.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report/render.h"
#include "ock/json.h"
#include "ock/options.h"

#ifndef OCK_BIN_DIR
#define OCK_BIN_DIR "build"
#endif

static char tmp[64];

static int out_of(const char *cmd, const char *name, char *text, size_t n);

/* ASSERT_LACKS: haystack is readable and does not contain needle. */
#define ASSERT_LACKS(haystack, needle)                                                             \
  do {                                                                                             \
    const char *h_ = (haystack), *n_ = (needle);                                                   \
    if (!h_ || strstr(h_, n_))                                                                     \
      ock_test_fail(__LINE__, __FILE__, "%s is \"%.300s\", expected it not to contain \"%s\"",     \
                    #haystack, h_ ? h_ : "(null)", n_);                                            \
    else                                                                                           \
      CU_PASS(#haystack);                                                                          \
  } while (0)

static int setup(void) {
  return ock_test_tmpdir(tmp, "cli");
}

static int teardown(void) {
  return ock_test_rmdir(tmp);
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f)
    return NULL;
  static char buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

static void bad_fixture_exits_2_naming_it(void) {
  char cmd[1024];
  snprintf(
      cmd, sizeof cmd,
      "mkdir -p %s/bad && printf '%%s' '{\"ock_fixture\":1,\"id\":\"bad\",\"title\":\"t\","
      "\"proves\":\"p\",\"requirements\":"
      "[\"OCK-COMPLETE-001\"],\"session\":{\"prompts\":[\"hi\"],\"providers\":[{\"name\":\"m\","
      "\"api\":\"openai\",\"model\":\"x\",\"priority\":\"high\"}]},\"script\":{\"m\":[]}}' "
      "> %s/bad/bad.json && %s/bin/ock run --orchestrator true --fixtures %s/bad -o %s/bad-out "
      "2> %s/bad.err",
      tmp, tmp, OCK_BIN_DIR, tmp, tmp, tmp);
  OCK_ASSERT_INT_EQ(ock_test_sh(cmd), 2);
  char path[256];
  snprintf(path, sizeof path, "%s/bad.err", tmp);
  const char *err = slurp(path);
  OCK_ASSERT_CONTAINS(err, "bad/bad.json");
  OCK_ASSERT_CONTAINS(err, "$.session.providers[0].priority");
  snprintf(path, sizeof path, "%s/bad-out/report.json", tmp);
  OCK_ASSERT_CONTAINS(slurp(path), "\"exit_code\":\t2");
}

static void a_sut_that_exits_is_graded(void) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd,
           "%s/bin/ock run --orchestrator false --fixtures %s --case text-answer -o %s/false "
           ">/dev/null 2>&1",
           OCK_BIN_DIR, ock_test_path("fixtures"), tmp);
  OCK_ASSERT_INT_EQ(ock_test_sh(cmd), 1);
  char path[256];
  snprintf(path, sizeof path, "%s/false/junit.xml", tmp);
  OCK_ASSERT_CONTAINS(slurp(path), "OCK-PROC-002");
}

/* The SUT finds the scenario's tools over MCP at OCK_MCP_URL, $OCK_URL/mcp (SPEC.md 7.1). */
static void the_sut_gets_the_mcp_url(void) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd,
           "%s/bin/ock run --orchestrator 'echo \"$OCK_URL/mcp $OCK_MCP_URL\" > %s/mcp-env' "
           "--fixtures %s --case text-answer -o %s/mcp-out >/dev/null 2>&1",
           OCK_BIN_DIR, tmp, ock_test_path("fixtures"), tmp);
  ock_test_sh(cmd);
  char path[256];
  snprintf(path, sizeof path, "%s/mcp-env", tmp);
  char *env = slurp(path); /* "$OCK_URL/mcp $OCK_MCP_URL\n" */
  char *space = env ? strchr(env, ' ') : NULL, *nl = space ? strchr(space, '\n') : NULL;
  OCK_ASSERT_TRUE(space && nl);
  if (!space || !nl)
    return;
  *space = *nl = '\0';
  OCK_ASSERT_CONTAINS(env, "http://127.0.0.1:");
  OCK_ASSERT_STR_EQ(space + 1, env);
}

/* A SUT declares the wires it speaks: a scenario on another wire is SKIP with the reason, the
 * others run, the report names the wires, and an unknown wire is a usage error. */
static void wires_are_declared(void) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd,
           "%s/bin/ock run --orchestrator %s/bin/ock-orchestrator --wires openai --capabilities "
           "streaming,parallel,scheduling,lifecycle,resilience,cancellation --fixtures %s "
           "--case text-answer --case anthropic-text -o %s/wires >/dev/null 2>&1",
           OCK_BIN_DIR, OCK_BIN_DIR, ock_test_path("fixtures"), tmp);
  OCK_ASSERT_INT_EQ(ock_test_sh(cmd), 0);
  char path[256];
  snprintf(path, sizeof path, "%s/wires/report.json", tmp);
  cJSON *r = NULL;
  struct ock_jerr err;
  OCK_ASSERT_INT_EQ(ock_json_parse_file(path, 64 << 20, &r, &err), 0);
  const cJSON *sc;
  int skipped = 0, passed = 0;
  cJSON_ArrayForEach(sc, cJSON_GetObjectItemCaseSensitive(r, "scenarios")) {
    if (!strcmp(ock_json_str(sc, "id"), "anthropic-text")) {
      OCK_ASSERT_STR_EQ(ock_json_str(sc, "verdict"), "SKIP");
      OCK_ASSERT_STR_EQ(ock_json_str(sc, "skip_reason"), "wire anthropic not declared");
      skipped = 1;
    } else {
      OCK_ASSERT_STR_EQ(ock_json_str(sc, "verdict"), "PASS");
      passed = 1;
    }
  }
  OCK_ASSERT_INT_EQ(skipped + passed, 2);
  char *wires = ock_json_print(cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(r, "orchestrator"), "wires"));
  OCK_ASSERT_STR_EQ(wires, "[\"openai\"]");
  free(wires);
  cJSON_Delete(r);
  snprintf(path, sizeof path, "%s/wires/summary.md", tmp);
  OCK_ASSERT_CONTAINS(slurp(path), "wires openai");
  snprintf(cmd, sizeof cmd,
           "%s/bin/ock run --orchestrator true --wires openai,grpc --fixtures %s 2>&1 | "
           "grep -q 'expected one of: openai, anthropic, responses, gemini; got \"grpc\"'; exit $?",
           OCK_BIN_DIR, ock_test_path("fixtures"));
  OCK_ASSERT_INT_EQ(ock_test_sh(cmd), 0);
  snprintf(cmd, sizeof cmd,
           "%s/bin/ock run --orchestrator true --wires grpc --fixtures %s >/dev/null 2>&1",
           OCK_BIN_DIR, ock_test_path("fixtures"));
  OCK_ASSERT_INT_EQ(ock_test_sh(cmd), 2);
  /* an orchestrator on the Responses API: its own scenarios and the wire-less ones play on it,
   * one pinned to Chat Completions is SKIP */
  snprintf(cmd, sizeof cmd,
           "%s/bin/ock run --orchestrator %s/bin/ock-orchestrator --wires responses --capabilities "
           "streaming,parallel,scheduling,lifecycle,resilience,cancellation --fixtures %s "
           "--case text-answer --case responses-tool-single-call --case tool-arguments-not-object "
           "-o %s/wires-r >/dev/null 2>&1",
           OCK_BIN_DIR, OCK_BIN_DIR, ock_test_path("fixtures"), tmp);
  snprintf(path, sizeof path, "%s/wires-r/report.json", tmp);
  OCK_ASSERT_INT_EQ(ock_test_sh(cmd), 0);
  OCK_ASSERT_INT_EQ(ock_json_parse_file(path, 64 << 20, &r, &err), 0);
  cJSON_ArrayForEach(sc, cJSON_GetObjectItemCaseSensitive(r, "scenarios")) {
    int pinned = !strcmp(ock_json_str(sc, "id"), "tool-arguments-not-object");
    OCK_ASSERT_STR_EQ(ock_json_str(sc, "verdict"), pinned ? "SKIP" : "PASS");
  }
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "scenarios")), 3);
  cJSON_Delete(r);
}

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (f) {
    fputs(text, f);
    fclose(f);
  }
}

/* Values SPEC.md forbids though their type is right, and a key given twice in one object, are
 * fixture errors: exit 2 naming the file, the JSON path and what was expected. */
static void fixture_values_and_duplicate_keys_are_errors(void) {
  static const char head[] =
      "{\"ock_fixture\":1,\"id\":\"f\",\"title\":\"t\",\"proves\":\"p\",\"requirements\":"
      "[\"OCK-COMPLETE-001\"],\"session\":{\"prompts\":[\"hi\"],\"config\":{";
  static const char tail[] = "},\"providers\":[{\"name\":\"m\",\"api\":\"openai\",\"model\":"
                             "\"x\",\"priority\":1}]},\"script\":{\"m\":[{\"text\":\"ok\"}]}%s}";
  static const struct {
    const char *config, *top, *path, *says;
  } cases[] = {
      {"\"max_iterations\":0", "",
       "$.session.config.max_iterations: ", "expected an integer from 1 to"},
      {"\"max_iterations\":-2", "", "$.session.config.max_iterations: ", "got -2"},
      {"\"mode\":\"streaming\",\"streaming\":false", "",
       "$.session.config.mode: ", "needs \"streaming\": true in $.session.config, got false"},
      {"\"mode\":\"streaming\"", "", "$.session.config.mode: ", "got no streaming member"},
      {"\"streaming\":true,\"streaming\":false", "",
       "$.session.config.streaming: ", "duplicate key"},
      {"", ",\"title\":\"again\"", "$.title: ", "duplicate key"},
      {"", ",\"expect\":{\"executes\":[{\"status\":\"success\",\"status\":\"error\"}]}",
       "$.expect.executes[0].status: ", "duplicate key"},
      {"", ",\"expect\":{\"executes\":[{\"status\":\"success\\u0000x\"}]}",
       "$.expect.executes[0].status: ", "a string holds U+0000"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char dir[128], path[192], text[2048], cmd[1024], out[8192], t[512];
    snprintf(dir, sizeof dir, "%s/fxv%zu", tmp, i);
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/f.json", dir);
    snprintf(t, sizeof t, tail, cases[i].top);
    snprintf(text, sizeof text, "%s%s%s", head, cases[i].config, t);
    write_text(path, text);
    snprintf(cmd, sizeof cmd, "%s/bin/ock run --orchestrator true --fixtures %s -o %s/out",
             OCK_ROOT_BIN, dir, dir);
    int code = out_of(cmd, "fxv", out, sizeof out);
    char want[256];
    snprintf(want, sizeof want, "%s: %s", path, cases[i].path);
    if (code != 2 || !strstr(out, want) || !strstr(out, cases[i].says))
      ock_test_fail(__LINE__, __FILE__, "fixture %zu: exit %d (expected 2), output \"%.300s\"", i,
                    code, out);
    else
      CU_PASS(cases[i].says);
  }
  /* The same members with allowed values load. */
  char dir[128], path[192], text[2048], cmd[512], out[8192], t[512];
  snprintf(dir, sizeof dir, "%s/fxv-good", tmp);
  mkdir(dir, 0755);
  snprintf(path, sizeof path, "%s/f.json", dir);
  snprintf(t, sizeof t, tail, "");
  snprintf(text, sizeof text, "%s%s%s", head,
           "\"max_iterations\":1,\"mode\":\"streaming\",\"streaming\":true", t);
  write_text(path, text);
  snprintf(cmd, sizeof cmd, "%s/bin/ock list scenarios --fixtures %s", OCK_ROOT_BIN, dir);
  OCK_ASSERT_INT_EQ(out_of(cmd, "fxv-good", out, sizeof out), 0);
}

/* SPEC.md 7.9 and 9.3: a manifest without its name, with an entry that is not a string, or
 * contradicted by --capabilities or --wires, and a baseline entry that names nothing, are
 * usage errors (exit 2) that say which. */
/* A manifest's framework and emulated policies reach every report (SPEC.md 7.9): a reader of
 * any of them can tell the framework's behaviour from what the bridge does in its place. */
static void manifest_emulated_reaches_every_report(void) {
  char path[192], cmd[2048], out[8192];
  snprintf(path, sizeof path, "%s/manifest-emulated.json", tmp);
  write_text(path, "{\"name\":\"bridge\",\"capabilities\":[\"core\"],\"framework\":\"fw-1.2\","
                   "\"emulated\":[\"wrap-up\",\"fail_fast\"]}");
  snprintf(cmd, sizeof cmd,
           "%s/bin/ock run --orchestrator true --fixtures %s --case text-answer --manifest %s "
           "-o %s/emulated-out",
           OCK_ROOT_BIN, ock_test_path("fixtures"), path, tmp);
  OCK_ASSERT_INT_EQ(out_of(cmd, "emulated", out, sizeof out), 1);
  static const struct {
    const char *file, *says[2];
  } want[] = {
      {"report.json", {"\"framework\":\"fw-1.2\"", "\"emulated\":[\"wrap-up\",\"fail_fast\"]"}},
      {"summary.md",
       {"framework fw-1.2", "**emulated by the bridge**, not the framework: wrap-up, fail\\_fast"}},
      {"report.html", {"<th>Framework</th><td>fw-1.2", "Emulated by the bridge</th><td>wrap-up, "}},
      {"junit.xml", {"<property name=\"emulated\" value=\"wrap-up, fail_fast\"", NULL}},
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    char file[256];
    snprintf(file, sizeof file, "%s/emulated-out/%s", tmp, want[i].file);
    char *text = ock_test_read_file(file);
    if (!text) {
      ock_test_fail(__LINE__, __FILE__, "%s was not written", file);
      continue;
    }
    char *flat = text; /* report.json is pretty-printed: compare it without white space */
    if (!strcmp(want[i].file, "report.json")) {
      size_t w = 0;
      for (size_t r = 0; text[r]; r++)
        if (text[r] != ' ' && text[r] != '\n' && text[r] != '\t')
          text[w++] = text[r];
      text[w] = '\0';
    }
    for (int k = 0; k < 2; k++)
      if (want[i].says[k])
        OCK_ASSERT_CONTAINS(flat, want[i].says[k]);
    free(text);
  }
}

static void manifest_and_baseline_errors(void) {
  static const struct {
    const char *manifest, *args, *says;
    int code;
  } cases[] = {
      {"{\"capabilities\":[\"core\"]}", "", "$.name: required", 2},
      {"{\"name\":\"n\"}", "", "$.capabilities: required", 2},
      {"{\"name\":\"n\",\"capabilities\":[],\"expected_failures\":[\"text-answer\",7]}", "",
       "$.expected_failures[1]: expected a string", 2},
      {"{\"name\":\"n\",\"name\":\"m\",\"capabilities\":[]}", "", "$.name: duplicate key", 2},
      {"{\"name\":\"n\",\"capabilities\":[\"streaming\"]}", "--capabilities streaming,parallel",
       "--capabilities streaming,parallel differs from the capabilities of the manifest", 2},
      {"{\"name\":\"n\",\"capabilities\":[],\"wires\":[\"openai\"]}", "--wires anthropic",
       "--wires anthropic differs from the wires of the manifest", 2},
      {"{\"name\":\"n\",\"capabilities\":[],\"emulated\":[\"wrap-up\",3]}", "",
       "$.emulated[1]: expected a non-empty string", 2},
      {"{\"name\":\"n\",\"capabilities\":[],\"framework\":\"\"}", "", "$.framework:", 2},
      {"{\"name\":\"n\",\"capabilities\":[],\"expected_failures\":[\"no-such-scenario\"]}", "",
       "the entry \"no-such-scenario\" names no scenario", 2},
      {"{\"name\":\"n\",\"capabilities\":[],\"expected_failures\":[\"text-answer:OCK-NOPE-1\"]}",
       "", "the entry \"text-answer:OCK-NOPE-1\" names no requirement or check id", 2},
      /* The same lists, core implied, in any order; entries that name a scenario --case leaves
       * out and a check id: the run goes on (true fails text-answer). */
      {"{\"name\":\"n\",\"capabilities\":[\"core\",\"streaming\"],\"wires\":[\"openai\"],"
       "\"expected_failures\":[\"tool-single-call\",\"stream-text:proc.exit\"]}",
       "--capabilities streaming --wires openai", "[  1/1] FAIL", 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char path[192], cmd[2048], out[8192];
    snprintf(path, sizeof path, "%s/manifest%zu.json", tmp, i);
    write_text(path, cases[i].manifest);
    snprintf(cmd, sizeof cmd,
             "%s/bin/ock run --orchestrator true --fixtures %s --case text-answer --manifest %s "
             "%s -o %s/manifest-out",
             OCK_ROOT_BIN, ock_test_path("fixtures"), path, cases[i].args, tmp);
    int code = out_of(cmd, "manifest", out, sizeof out);
    if (code != cases[i].code || !strstr(out, cases[i].says))
      ock_test_fail(__LINE__, __FILE__, "manifest %s %s: exit %d (expected %d), output \"%.300s\"",
                    cases[i].manifest, cases[i].args, code, cases[i].code, out);
    else
      CU_PASS(cases[i].says);
  }
  /* The baseline file's entries are checked the same way. */
  char path[192], cmd[2048], out[8192];
  snprintf(path, sizeof path, "%s/unknown-baseline.txt", tmp);
  write_text(path, "text-answer\nno-such-scenario:OCK-PROC-002\n");
  snprintf(cmd, sizeof cmd,
           "%s/bin/ock run --orchestrator true --fixtures %s --case text-answer "
           "--expected-failures %s -o %s/baseline-out",
           OCK_ROOT_BIN, ock_test_path("fixtures"), path, tmp);
  OCK_ASSERT_INT_EQ(out_of(cmd, "baseline-unknown", out, sizeof out), 2);
  OCK_ASSERT_CONTAINS(out, "\"no-such-scenario:OCK-PROC-002\" names no scenario");
}

/* The console of `ock run`: a FAIL line is followed by its cause (the first failing check's
 * message), and what the SUT sent reaches the terminal escaped: no clear-screen, window-title
 * or colour sequence gets through. */
static void console_shows_causes_escaped(void) {
  char cmd[2048], out[1 << 14];
  snprintf(cmd, sizeof cmd,
           "NO_COLOR=1 %s/bin/ock run --orchestrator '%s/tests/hostile_sut terminal' --fixtures "
           "%s --case text-answer -o %s/terminal",
           OCK_ROOT_BIN, OCK_ROOT_BIN, ock_test_path("fixtures"), tmp);
  OCK_ASSERT_INT_EQ(out_of(cmd, "terminal", out, sizeof out), 1);
  ASSERT_LACKS(out, "\033");
  ASSERT_LACKS(out, "\007");
  OCK_ASSERT_CONTAINS(out, "FAIL");
  OCK_ASSERT_CONTAINS(out, "text-answer  OCK-PROC-001");
  OCK_ASSERT_CONTAINS(out, "\n          proc.prompt-order: OCK-PROC-001: execute 1 submitted "
                           "\"\\x1b]0;owned\\x07\\x1b[2J\"\n");
  /* jsonl carries the cause as JSON (escaped by JSON itself). */
  snprintf(cmd, sizeof cmd,
           "%s/bin/ock run --orchestrator false --fixtures %s --case text-answer --format jsonl "
           "-o %s/cause-jsonl 2>/dev/null",
           OCK_ROOT_BIN, ock_test_path("fixtures"), tmp);
  OCK_ASSERT_INT_EQ(out_of(cmd, "cause-jsonl", out, sizeof out), 1);
  cJSON *line = cJSON_Parse(out);
  OCK_ASSERT_STR_EQ(ock_json_str(line, "cause"),
                    "OCK-PROC-001: the session document was never fetched");
  cJSON_Delete(line);
  /* A passing scenario has no cause line. */
  snprintf(cmd, sizeof cmd,
           "%s/bin/ock run --orchestrator %s/bin/ock-orchestrator --fixtures %s --case "
           "text-answer -o %s/cause-pass",
           OCK_ROOT_BIN, OCK_ROOT_BIN, ock_test_path("fixtures"), tmp);
  OCK_ASSERT_INT_EQ(out_of(cmd, "cause-pass", out, sizeof out), 0);
  ASSERT_LACKS(out, "\n          ");
}

/* Every option each --help lists appears in man/ock.1, so the two cannot drift apart. */
static void help_options_are_in_the_man_page(void) {
  static const char *const commands[] = {"--help",         "run --help",   "list --help",
                                         "explain --help", "check --help", "report --help",
                                         "fuzz --help",    "record --help"};
  char man[1 << 16];
  FILE *f = fopen(ock_test_path("man/ock.1"), "r");
  OCK_ASSERT_NOT_NULL(f);
  if (!f)
    return;
  size_t n = fread(man, 1, sizeof man - 1, f), k = 0;
  fclose(f);
  for (size_t i = 0; i < n; i++) /* roff writes a minus sign as \- */
    if (!(man[i] == '\\' && i + 1 < n && man[i + 1] == '-'))
      man[k++] = man[i];
  man[k] = '\0';
  int options = 0;
  for (size_t c = 0; c < sizeof commands / sizeof commands[0]; c++) {
    char cmd[512], help[1 << 14];
    snprintf(cmd, sizeof cmd, "%s/bin/ock %s", OCK_ROOT_BIN, commands[c]);
    out_of(cmd, "help", help, sizeof help);
    for (const char *p = help; *p; p++) {
      int starts = *p == '-' && (p == help || strchr(" \t\n[(", p[-1])) &&
                   (p[1] == '-' ? p[2] >= 'a' && p[2] <= 'z' : p[1] >= 'a' && p[1] <= 'z');
      if (!starts)
        continue;
      size_t len = strspn(p, "-abcdefghijklmnopqrstuvwxyz");
      char opt[64];
      snprintf(opt, sizeof opt, "%.*s", (int)(len < 63 ? len : 63), p);
      /* Found as a whole word in the man page. */
      int found = 0;
      for (const char *m = strstr(man, opt); m && !found; m = strstr(m + 1, opt))
        found = !strchr("-abcdefghijklmnopqrstuvwxyz", m[len]) &&
                (m == man || !strchr("-abcdefghijklmnopqrstuvwxyz", m[-1]));
      if (!found)
        ock_test_fail(__LINE__, __FILE__, "ock %s lists %s, man/ock.1 does not", commands[c], opt);
      else
        options++;
      p += len - 1;
    }
  }
  OCK_ASSERT_INT_GT(options, 40);
  /* Sections the help text cannot list. */
  static const char *const covers[] = {"ock fuzz",    "ock explain",    "CHECK-ID",
                                       "EXIT STATUS", "no event found", "OCK_FIXTURES"};
  for (size_t i = 0; i < sizeof covers / sizeof covers[0]; i++)
    OCK_ASSERT_CONTAINS(man, covers[i]);
}

/* A binary that finds no fixtures names every place it looked and how to name them. */
static void missing_fixtures_name_the_places_tried(void) {
  char cmd[1024], out[8192];
  snprintf(cmd, sizeof cmd,
           "mkdir -p %s/lonely/bin %s/lonely/cwd && cp %s/bin/ock %s/lonely/bin/ock && cd "
           "%s/lonely/cwd && env -u OCK_FIXTURES %s/lonely/bin/ock run --orchestrator true -o "
           "%s/lonely/out",
           tmp, tmp, OCK_ROOT_BIN, tmp, tmp, tmp, tmp);
  OCK_ASSERT_INT_EQ(out_of(cmd, "lonely", out, sizeof out), 2);
  char want[512];
  snprintf(want, sizeof want, "%s/lonely/bin/../share/ock/fixtures", tmp);
  OCK_ASSERT_CONTAINS(out, want);
  snprintf(want, sizeof want, "%s/lonely/bin/../../fixtures", tmp);
  OCK_ASSERT_CONTAINS(out, want);
  OCK_ASSERT_CONTAINS(out, "/lonely/cwd/fixtures");
  OCK_ASSERT_CONTAINS(out, "OCK_FIXTURES is not set");
  OCK_ASSERT_CONTAINS(out, "--fixtures DIR or OCK_FIXTURES=DIR");
  snprintf(cmd, sizeof cmd,
           "cd %s/lonely/cwd && env -u OCK_FIXTURES %s/lonely/bin/ock list scenarios", tmp, tmp);
  OCK_ASSERT_INT_EQ(out_of(cmd, "lonely-list", out, sizeof out), 2);
  OCK_ASSERT_CONTAINS(out, "--fixtures DIR or OCK_FIXTURES=DIR");
  snprintf(cmd, sizeof cmd,
           "cd %s/lonely/cwd && OCK_FIXTURES=%s/lonely/none %s/lonely/bin/ock run "
           "--orchestrator true",
           tmp, tmp, tmp);
  OCK_ASSERT_INT_EQ(out_of(cmd, "lonely-env", out, sizeof out), 2);
  OCK_ASSERT_CONTAINS(out, "/lonely/none, which is not a directory");
}

/* verdicts prints "id verdict" per scenario and the level counts of a report, sorted. */
static void verdicts(const char *report, char *out, size_t n) {
  cJSON *r = NULL;
  struct ock_jerr err;
  out[0] = '\0';
  if (ock_json_parse_file(report, 64 << 20, &r, &err))
    return;
  size_t used = 0;
  const cJSON *sc;
  cJSON_ArrayForEach(sc, cJSON_GetObjectItemCaseSensitive(r, "scenarios"))
    used += (size_t)snprintf(out + used, n - used, "%s %s\n", ock_json_str(sc, "id"),
                             ock_json_str(sc, "verdict"));
  char *levels = ock_json_print(
      cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "summary"), "levels"));
  snprintf(out + used, n - used, "%s %s", levels, ock_json_str(r, "verdict"));
  free(levels);
  cJSON_Delete(r);
}

/* Every wire the reference speaks: the wire-less scenarios play on each. */
#define REF_WIRES "openai,anthropic,responses,gemini"

/* The reference against the whole catalog on every wire, whole and in two shards: it passes
 * everything, and the merged shards equal the whole run. */
static void shards_merge_to_the_whole_run(void) {
  char cmd[2048];
  const char *base =
      OCK_BIN_DIR "/bin/ock run --orchestrator " OCK_BIN_DIR
                  "/bin/ock-orchestrator --capabilities core,streaming,parallel,scheduling,"
                  "lifecycle,resilience,cancellation --wires " REF_WIRES " --format jsonl --jobs 2 "
                  "--strict";
  snprintf(cmd, sizeof cmd,
           "%s --fixtures %s -o %s/whole >/dev/null 2>&1; "
           "%s --fixtures %s --shard 1/2 -o %s/s1 >/dev/null 2>&1; "
           "%s --fixtures %s --shard 2/2 -o %s/s2 >/dev/null 2>&1; "
           "%s/bin/ock report merge %s/s1/report.json %s/s2/report.json -o %s/merged >/dev/null",
           base, ock_test_path("fixtures"), tmp, base, ock_test_path("fixtures"), tmp, base,
           ock_test_path("fixtures"), tmp, OCK_BIN_DIR, tmp, tmp, tmp);
  int code = ock_test_sh(cmd);
  OCK_ASSERT_TRUE(code == 0 || code == 1);
  static char whole[1 << 16], merged[1 << 16];
  char path[256];
  snprintf(path, sizeof path, "%s/whole/report.json", tmp);
  /* The reference passes every scenario, every MUST and every SHOULD (--strict). */
  cJSON *w = NULL;
  struct ock_jerr err;
  if (ock_json_parse_file(path, 256 << 20, &w, &err) == 0) {
    OCK_ASSERT_STR_EQ(ock_json_str(w, "verdict"), "PASS");
    OCK_ASSERT_INT_EQ(ock_json_int(w, "exit_code", -1), 0);
    const cJSON *sc;
    cJSON_ArrayForEach(sc, cJSON_GetObjectItemCaseSensitive(w, "scenarios")) {
      if (strcmp(ock_json_str(sc, "verdict"), "PASS"))
        ock_test_fail(__LINE__, __FILE__, "the reference: %s is %s", ock_json_str(sc, "id"),
                      ock_json_str(sc, "verdict"));
    }
    cJSON_Delete(w);
  } else {
    ock_test_fail(__LINE__, __FILE__, "%s: %s", err.where, err.what);
  }
  verdicts(path, whole, sizeof whole);
  snprintf(path, sizeof path, "%s/merged/report.json", tmp);
  verdicts(path, merged, sizeof merged);
  OCK_ASSERT_INT_GT(strlen(whole), 20);
  /* Name the first line that differs: a whole report in a message is unreadable. */
  const char *a = whole, *b = merged;
  while (*a && *a == *b)
    a++, b++;
  int differ = *a != *b;
  while (a > whole && a[-1] != '\n')
    a--, b--;
  if (differ)
    ock_test_fail(__LINE__, __FILE__,
                  "merged shards differ from the whole run at \"%.120s\" vs "
                  "\"%.120s\"",
                  b, a);
  else
    CU_PASS("merge equals whole");
  /* Part of the set is refused, naming what is missing, and writes nothing; a shard twice is
   * not a set. */
  char text[4096];
  snprintf(cmd, sizeof cmd, "%s/bin/ock report merge %s/s1/report.json -o %s/part", OCK_BIN_DIR,
           tmp, tmp);
  OCK_ASSERT_INT_EQ(out_of(cmd, "merge-part", text, sizeof text), 3);
  OCK_ASSERT_CONTAINS(text, "missing 2/2");
  snprintf(path, sizeof path, "%s/part", tmp);
  OCK_ASSERT_INT_EQ(access(path, F_OK), -1);
  snprintf(cmd, sizeof cmd,
           "%s/bin/ock report merge %s/s2/report.json %s/s2/report.json -o %s/part", OCK_BIN_DIR,
           tmp, tmp, tmp);
  OCK_ASSERT_INT_EQ(out_of(cmd, "merge-twice", text, sizeof text), 2);
  OCK_ASSERT_CONTAINS(text, "shard 2/2, which is already given");
  /* The second shard of another capability set is refused, naming the member and both files. */
  snprintf(cmd, sizeof cmd,
           "mkdir -p %s/s3 && sed 's/\"capabilities\":[^]]*]/\"capabilities\": [\"core\", "
           "\"streaming\"]/' %s/s2/report.json >%s/s3/report.json && "
           "%s/bin/ock report merge %s/s1/report.json %s/s3/report.json -o %s/part",
           tmp, tmp, tmp, OCK_BIN_DIR, tmp, tmp, tmp);
  OCK_ASSERT_INT_EQ(out_of(cmd, "merge-other", text, sizeof text), 2);
  OCK_ASSERT_CONTAINS(text, "$.orchestrator.capabilities");
  OCK_ASSERT_CONTAINS(text, "s3/report.json has [\"core\",\"streaming\"] where ");
  OCK_ASSERT_CONTAINS(text, "s1/report.json has ");
  OCK_ASSERT_INT_EQ(access(path, F_OK), -1);
}

/* An orchestrator that plants a symbolic link and a forged summary in the report directory does
 * not stop the reports: both are replaced by the run's own, the link's target untouched. One
 * that plants a directory under a report's name stops it, and the console then points at no
 * report and the planted or stale ones are gone. */
static void planted_reports_are_replaced_or_disowned(void) {
  char cmd[3000], text[8192], out[200], victim[200];
  snprintf(out, sizeof out, "%s/planted", tmp);
  snprintf(victim, sizeof victim, "%s/victim.txt", tmp);
  snprintf(cmd, sizeof cmd,
           "mkdir -p %s && echo precious >%s && "
           "%s/bin/ock run --orchestrator 'ln -sf %s %s/report.json; "
           "printf FOR%%sGED x >%s/summary.md' --fixtures %s --case text-answer -o %s",
           out, victim, OCK_BIN_DIR, victim, out, out, ock_test_path("fixtures"), out);
  OCK_ASSERT_INT_EQ(out_of(cmd, "planted-link", text, sizeof text), 1);
  OCK_ASSERT_CONTAINS(text, "reports: ");
  snprintf(cmd, sizeof cmd,
           "grep -qx precious %s && test ! -L %s/report.json && grep -q '\"verdict\"' "
           "%s/report.json && ! grep -q FORxGED %s/summary.md",
           victim, out, out, out);
  OCK_ASSERT_INT_EQ(ock_test_sh(cmd), 0);
  /* Nor does a link planted where a journal goes make the journal overwrite its target. */
  snprintf(
      cmd, sizeof cmd,
      "%s/bin/ock run --journals --orchestrator 'ln -sf %s %s/journals/text-answer.journal.jsonl' "
      "--fixtures %s --case text-answer -o %s",
      OCK_BIN_DIR, victim, out, ock_test_path("fixtures"), out);
  OCK_ASSERT_INT_EQ(out_of(cmd, "planted-journal", text, sizeof text), 1);
  snprintf(cmd, sizeof cmd,
           "grep -qx precious %s && test ! -L %s/journals/text-answer.journal.jsonl && "
           "test -f %s/journals/text-answer.journal.jsonl",
           victim, out, out);
  OCK_ASSERT_INT_EQ(ock_test_sh(cmd), 0);
  snprintf(cmd, sizeof cmd,
           "%s/bin/ock run --orchestrator 'rm -f %s/report.html; mkdir -p %s/report.html/x' "
           "--fixtures %s --case text-answer -o %s",
           OCK_BIN_DIR, out, out, ock_test_path("fixtures"), out);
  OCK_ASSERT_INT_EQ(out_of(cmd, "planted-dir", text, sizeof text), 3);
  OCK_ASSERT_CONTAINS(text, "could not write the reports");
  OCK_ASSERT_CONTAINS(text, "report.html");
  OCK_ASSERT_CONTAINS(text, "the reports were NOT written");
  ASSERT_LACKS(text, "; reports: ");
}

/* `ock report render` of an edited report: a verdict that does not follow from the scenarios is
 * recomputed (never PASS beside a FAIL count), and a scenario verdict milder than its checks is
 * refused. */
static void render_recomputes_or_refuses(void) {
  char cmd[2048], text[8192], path[300];
  const char *sample = ock_test_path("tests/conformance/golden/sample-report.json");
  snprintf(cmd, sizeof cmd,
           "mkdir -p %s/edit && sed 's/^  \"verdict\": \"FAIL\",$/  \"verdict\": \"PASS\",/; "
           "s/^  \"exit_code\": 1,$/  \"exit_code\": 0,/' %s >%s/edit/verdict.json && "
           "grep -q '^  \"exit_code\": 0,$' %s/edit/verdict.json && "
           "%s/bin/ock report render %s/edit/verdict.json -o %s/edit/out1",
           tmp, sample, tmp, tmp, OCK_ROOT_BIN, tmp, tmp);
  OCK_ASSERT_INT_EQ(out_of(cmd, "render-verdict", text, sizeof text), 1);
  OCK_ASSERT_CONTAINS(text, "its verdict PASS does not follow from its scenarios");
  snprintf(path, sizeof path, "%s/edit/out1/summary.md", tmp);
  OCK_ASSERT_CONTAINS(slurp(path), "## OCK conformance: FAIL");
  snprintf(cmd, sizeof cmd,
           "sed 's/\"verdict\": \"FAIL\", \"duration_ms\": 530/\"verdict\": \"PASS\", "
           "\"duration_ms\": 530/' %s >%s/edit/scenario.json && ! cmp -s %s %s/edit/scenario.json "
           "&& %s/bin/ock report render %s/edit/scenario.json -o %s/edit/out2",
           sample, tmp, sample, tmp, OCK_ROOT_BIN, tmp, tmp);
  OCK_ASSERT_INT_EQ(out_of(cmd, "render-scenario", text, sizeof text), 2);
  OCK_ASSERT_CONTAINS(text, "scenario injection-payloads has verdict PASS but its check");
  snprintf(path, sizeof path, "%s/edit/out2", tmp);
  OCK_ASSERT_INT_EQ(access(path, F_OK), -1);
}

/* peak_rss_of_check runs `ock check -` on a generated log of executes*5 events, piped in,
 * and returns the peak RSS of the ock process alone (KiB), or -1. */
static long peak_rss_of_check(int executes, int *exit_code) {
  /* The child's peak counts the pages it was forked with: hand the heap this process freed
   * (earlier tests parse whole-run reports) back first, so the figure is ock's, not ours. */
  malloc_trim(0);
  int fd[2];
  if (pipe(fd))
    return -1;
  char gen[2048];
  snprintf(
      gen, sizeof gen,
      "awk 'BEGIN{for(e=0;e<%d;e++){"
      "print \"{\\\"event\\\":\\\"prompt:submit\\\",\\\"data\\\":{\\\"prompt\\\":\\\"hello\\\"}}\";"
      "print "
      "\"{\\\"event\\\":\\\"provider:request\\\",\\\"data\\\":{\\\"provider\\\":\\\"main\\\"}}\";"
      "print "
      "\"{\\\"event\\\":\\\"provider:response\\\",\\\"data\\\":{\\\"content\\\":\\\"hi\\\","
      "\\\"tool_calls\\\":[]}}\";"
      "print "
      "\"{\\\"event\\\":\\\"prompt:complete\\\",\\\"data\\\":{\\\"response\\\":\\\"hi\\\"}}\";"
      "print "
      "\"{\\\"event\\\":\\\"orchestrator:complete\\\",\\\"data\\\":{\\\"orchestrator\\\":\\\"x\\\","
      "\\\"turn_count\\\":1,\\\"status\\\":\\\"success\\\"}}\"}}'",
      executes);
  pid_t writer = fork();
  if (writer == 0) {
    dup2(fd[1], 1);
    close(fd[0]);
    close(fd[1]);
    execl("/bin/sh", "sh", "-c", gen, (char *)NULL);
    _exit(127);
  }
  char out[256];
  snprintf(out, sizeof out, "%s/check.out", tmp);
  pid_t checker = fork();
  if (checker == 0) {
    dup2(fd[0], 0);
    close(fd[0]);
    close(fd[1]);
    if (!freopen(out, "w", stdout))
      _exit(127);
    execl(OCK_BIN_DIR "/bin/ock", "ock", "check", "-", (char *)NULL);
    _exit(127);
  }
  close(fd[0]);
  close(fd[1]);
  int status;
  struct rusage ru;
  if (wait4(checker, &status, 0, &ru) != checker)
    return -1;
  waitpid(writer, NULL, 0);
  *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return ru.ru_maxrss;
}

static void check_streams_in_flat_memory(void) {
  int code_small = -1, code_big = -1;
  long small = peak_rss_of_check(2000, &code_small); /* 10,000 events */
  long big = peak_rss_of_check(200000, &code_big);   /* 1,000,000 events */
  OCK_ASSERT_INT_EQ(code_small, 0);
  OCK_ASSERT_INT_EQ(code_big, 0);
  char path[256];
  snprintf(path, sizeof path, "%s/check.out", tmp);
  OCK_ASSERT_CONTAINS(slurp(path), "1000000 event(s), 200000 execute(s), 0 violation(s)");
  /* Flat: a hundred times the events may not cost more than a little, and stays small.
   * (Under AddressSanitizer freed memory sits in a quarantine of up to 256 MB, so RSS says
   * nothing there; the counts above are still checked.) */
#if defined(__SANITIZE_ADDRESS__)
  OCK_SKIP("peak RSS not measured under AddressSanitizer (%ld and %ld KiB)", small, big);
#endif
  /* Under valgrind the child's peak includes the valgrind image it was forked from before exec:
   * flatness is what can be checked there, not the 20 MB bound. */
  long bound = getenv("OCK_UNDER_VALGRIND") ? big : 20 * 1024;
  if (small < 0 || big > small + 2048 || big > bound)
    ock_test_fail(__LINE__, __FILE__, "peak RSS %ld KiB at 10^4 events, %ld KiB at 10^6", small,
                  big);
  else
    CU_PASS("flat memory");
}

/* out_of runs cmd with its stdout and stderr into DIR/name.out and returns (exit code, text). */
static int out_of(const char *cmd, const char *name, char *text, size_t n) {
  char full[4096], path[256];
  snprintf(path, sizeof path, "%s/%s.out", tmp, name);
  snprintf(full, sizeof full, "%s >%s 2>&1", cmd, path);
  int code = ock_test_sh(full);
  FILE *f = fopen(path, "r");
  text[0] = '\0';
  if (f) {
    text[fread(text, 1, n - 1, f)] = '\0';
    fclose(f);
  }
  return code;
}

static void usage_errors_are_explained(void) {
  static const struct {
    const char *args, *says;
    int code;
  } cases[] = {
      {"", "usage: ock COMMAND", 2},
      {"--help", "run --orchestrator CMD", 0},
      {"version", "contract ock/1", 0},
      {"frobnicate", "unknown command", 2},
      {"run --help", "--expected-failures FILE", 0},
      {"run", "--orchestrator CMD is required", 2},
      {"run --orchestrator true --level sometimes", "--level: expected one of: must, should, may",
       2},
      {"run --orchestrator true --shard 3/2", "--shard: expected I/N", 2},
      {"run --orchestrator true --jobs 0", "--jobs: expected a whole number from 1 to 256", 2},
      {"run --orchestrator true --capabilities telepathy",
       "--capabilities: expected one of: core, streaming, parallel, scheduling, lifecycle, "
       "resilience, cancellation; got \"telepathy\"",
       2},
      {"run --orchestrator true --timeout x", "--timeout: expected seconds", 2},
      {"run --orchestrator true --timeout nan", "--timeout: expected seconds", 2},
      {"run --orchestrator true --time-scale nan", "--time-scale: expected a factor", 2},
      {"run --orchestrator true --shard 2/2x", "--shard: expected I/N", 2},
      {"run --orchestrator true --jobs 2x", "--jobs: expected a whole number", 2},
      {"run --orchestrator true --repeat 1.5", "--repeat: expected a whole number from 1 to 10000",
       2},
      {"fuzz --orchestrator true --timeout nan", "--timeout: expected seconds", 2},
      {"run --orchestrator true --format xml",
       "--format: expected one of: human, jsonl; got \"xml\"", 2},
      {"run --orchestrator true --expected-failures /nonexistent/x", "/nonexistent/x", 2},
      {"run --orchestrator true --manifest /nonexistent/m.json", "/nonexistent/m.json", 2},
      {"run --orchestrator true extra", "unexpected argument", 2},
      {"run --orchestrator ''", "--orchestrator CMD is required and not empty", 2},
      {"run --orchestrator ock-no-such-orchestrator --case text-answer --fixtures "
       "\"$OCK_ROOT/fixtures\"",
       "ock-no-such-orchestrator: not found", 2},
      {"list --help", "--requirement ID", 0},
      {"list nothing", "expected scenarios or requirements", 2},
      {"list --group NOPE", "--group: no requirement has the group \"NOPE\"", 2},
      {"list --capability telepathy", "--capability: expected one of: core, streaming", 2},
      {"list --level sometimes", "--level: expected one of: must, should, may", 2},
      {"explain", "usage: ock explain ID", 2},
      {"explain OCK-NOPE-001", "no requirement", 2},
      {"explain proc.exit", "check proc.exit reports under OCK-PROC-002", 0},
      {"explain ock-orphan-001", "OCK-ORPHAN-001  (MUST", 0},
      {"explain Proc.Exit", "check proc.exit reports under OCK-PROC-002", 0},
      {"explain proc.exit", "OCK-PROC-002; a black-box run grades it (SPEC.md 9.7)\n", 0},
      {"explain complete.once", "check complete.once reports under OCK-COMPLETE-001\n", 0},
      {"explain ock-complete-001/COMPLETE.ONCE", "OCK-COMPLETE-001/complete.once", 0},
      {"explain harness.mock", "an ERROR of the harness", 0},
      {"check", "usage: ock check", 2},
      {"check /nonexistent/log", "cannot open", 2},
      {"check --help", "prints nothing: the exit code tells", 0},
      {"check --help", "3 no event found", 0},
      {"report", "usage: ock report merge", 2},
      {"report render /nonexistent/r.json", "/nonexistent/r.json", 2},
      {"fuzz --help", "ock fuzz --orchestrator CMD", 0},
      {"fuzz", "usage: ock fuzz", 2},
      {"fuzz --orchestrator true --count x",
       "--count: expected a whole number from 1 to 1000000000", 2},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char cmd[1024], text[1 << 14];
    snprintf(cmd, sizeof cmd, "cd %s && %s/bin/ock %s -o %s/usage-out", tmp, OCK_ROOT_BIN,
             cases[i].args, tmp);
    if (!strncmp(cases[i].args, "list", 4) || !strncmp(cases[i].args, "explain", 7) ||
        !strncmp(cases[i].args, "check", 5) || !strncmp(cases[i].args, "version", 7) ||
        !strncmp(cases[i].args, "fuzz", 4) || !strcmp(cases[i].args, "") ||
        !strcmp(cases[i].args, "--help") || !strncmp(cases[i].args, "frob", 4))
      snprintf(cmd, sizeof cmd, "cd %s && %s/bin/ock %s", tmp, OCK_ROOT_BIN, cases[i].args);
    int code = out_of(cmd, "usage", text, sizeof text);
    if (code != cases[i].code || !strstr(text, cases[i].says))
      ock_test_fail(__LINE__, __FILE__, "ock %s: exit %d (expected %d), output \"%.200s\"",
                    cases[i].args, code, cases[i].code, text);
    else
      CU_PASS(cases[i].args);
  }
}

/* A bad OCK_TIME_SCALE is a usage error naming the variable, not a silent default. */
static void time_scale_variable_is_checked(void) {
  char cmd[1024], text[4096];
  snprintf(cmd, sizeof cmd,
           "cd %s && OCK_TIME_SCALE=garbage %s/bin/ock run --orchestrator true -o %s/ts", tmp,
           OCK_ROOT_BIN, tmp);
  OCK_ASSERT_INT_EQ(out_of(cmd, "ts", text, sizeof text), 2);
  OCK_ASSERT_CONTAINS(text, "OCK_TIME_SCALE: expected a factor from 0.01 to 1000, got \"garbage\"");
}

static void list_and_explain(void) {
  static char text[1 << 18]; /* ock list prints a line per scenario: room for a few hundred */
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "%s/bin/ock list --fixtures %s", OCK_ROOT_BIN,
           ock_test_path("fixtures"));
  OCK_ASSERT_INT_EQ(out_of(cmd, "list", text, sizeof text), 0);
  OCK_ASSERT_CONTAINS(text, "tool-unknown");
  OCK_ASSERT_CONTAINS(text, "OCK-ORPHAN-001     MUST   core");
  snprintf(cmd, sizeof cmd,
           "%s/bin/ock list requirements --group cancel --level must --format json", OCK_ROOT_BIN);
  OCK_ASSERT_INT_EQ(out_of(cmd, "list-json", text, sizeof text), 0);
  cJSON *j = cJSON_Parse(text);
  const cJSON *reqs = cJSON_GetObjectItemCaseSensitive(j, "requirements"), *r;
  OCK_ASSERT_INT_GE(cJSON_GetArraySize(reqs), 3);
  cJSON_ArrayForEach(r, reqs) {
    OCK_ASSERT_INT_EQ(strncmp(ock_json_str(r, "id"), "OCK-CANCEL-", 11), 0);
    OCK_ASSERT_STR_EQ(ock_json_str(r, "level"), "MUST");
  }
  cJSON_Delete(j);
  snprintf(cmd, sizeof cmd, "%s/bin/ock list scenarios --fixtures %s --requirement OCK-HOOK-011",
           OCK_ROOT_BIN, ock_test_path("fixtures"));
  OCK_ASSERT_INT_EQ(out_of(cmd, "list-req", text, sizeof text), 0);
  OCK_ASSERT_CONTAINS(text, "hook-selecting-deny");
  OCK_ASSERT_NULL(strstr(text, "text-answer "));
  snprintf(cmd, sizeof cmd, "%s/bin/ock explain OCK-COMPLETE-001 --fixtures %s", OCK_ROOT_BIN,
           ock_test_path("fixtures"));
  OCK_ASSERT_INT_EQ(out_of(cmd, "explain", text, sizeof text), 0);
  OCK_ASSERT_CONTAINS(text, "OCK-COMPLETE-001  (MUST, capability core, group COMPLETE)");
  OCK_ASSERT_CONTAINS(text, "What the check looks at:");
  OCK_ASSERT_CONTAINS(text, "Typical cause and fix:");
  OCK_ASSERT_CONTAINS(text, "text-answer");
}

/* A wire-less scenario runs on each declared wire as <id>@<wire> (SPEC.md 8.2); a baseline entry
 * <id> covers every wire, <id>@<wire> only that one. */
static void wireless_scenarios_run_on_each_wire(void) {
  char cmd[2048], text[1 << 14], path[256];
  snprintf(cmd, sizeof cmd,
           "%s/bin/ock run --orchestrator %s/bin/ock-orchestrator --wires anthropic,openai "
           "--capabilities streaming,parallel,scheduling,lifecycle,resilience,cancellation "
           "--fixtures %s --case text-answer -o %s/onwires",
           OCK_ROOT_BIN, OCK_ROOT_BIN, ock_test_path("fixtures"), tmp);
  OCK_ASSERT_INT_EQ(out_of(cmd, "onwires", text, sizeof text), 0);
  OCK_ASSERT_CONTAINS(text, "text-answer@anthropic");
  OCK_ASSERT_CONTAINS(text, "text-answer@openai");
  snprintf(path, sizeof path, "%s/onwires/report.json", tmp);
  cJSON *r = NULL;
  struct ock_jerr err;
  OCK_ASSERT_INT_EQ(ock_json_parse_file(path, 64 << 20, &r, &err), 0);
  const cJSON *sc;
  int n = 0;
  cJSON_ArrayForEach(sc, cJSON_GetObjectItemCaseSensitive(r, "scenarios")) {
    char want[64];
    snprintf(want, sizeof want, "text-answer@%s", ock_json_str(sc, "wire"));
    OCK_ASSERT_STR_EQ(ock_json_str(sc, "id"), want);
    OCK_ASSERT_STR_EQ(ock_json_str(sc, "fixture_id"), "text-answer");
    OCK_ASSERT_STR_EQ(ock_json_str(sc, "verdict"), "PASS");
    n++;
  }
  OCK_ASSERT_INT_EQ(n, 2);
  cJSON_Delete(r);
  /* false fails both; "text-answer" excuses both wires, "text-answer@anthropic" only one */
  const char *const entries[] = {"text-answer\n", "text-answer@anthropic\n"};
  const int want_exit[] = {0, 1};
  for (int k = 0; k < 2; k++) {
    snprintf(path, sizeof path, "%s/wire-baseline-%d.txt", tmp, k);
    FILE *f = fopen(path, "w");
    fputs(entries[k], f);
    fclose(f);
    char name[32];
    snprintf(name, sizeof name, "wirebase%d", k);
    snprintf(cmd, sizeof cmd,
             "%s/bin/ock run --orchestrator false --wires openai,anthropic --fixtures %s "
             "--case text-answer --expected-failures %s -o %s/%s",
             OCK_ROOT_BIN, ock_test_path("fixtures"), path, tmp, name);
    OCK_ASSERT_INT_EQ(out_of(cmd, name, text, sizeof text), want_exit[k]);
  }
}

/* A baseline is read whole: an entry after the first 256 still excuses (a framework's baseline on
 * four wires runs to hundreds), and one longer than the kit reads is refused, never cut short. */
static void baseline_is_read_whole(void) {
  char cmd[2048], text[1 << 14], path[256];
  const int lines[] = {300, OCK_OPTION_LIST_MAX + 1};
  const int want_exit[] = {0, 2};
  for (int k = 0; k < 2; k++) {
    snprintf(path, sizeof path, "%s/long-baseline-%d.txt", tmp, k);
    FILE *f = fopen(path, "w");
    for (int i = 0; i < lines[k]; i++)
      fputs("tool-single-call:OCK-PROC-002\n", f);
    fputs("text-answer\n", f); /* false fails text-answer: the last entry excuses it */
    fclose(f);
    char name[32];
    snprintf(name, sizeof name, "longbase%d", k);
    snprintf(cmd, sizeof cmd,
             "%s/bin/ock run --orchestrator false --fixtures %s --case text-answer "
             "--expected-failures %s -o %s/%s",
             OCK_ROOT_BIN, ock_test_path("fixtures"), path, tmp, name);
    OCK_ASSERT_INT_EQ(out_of(cmd, name, text, sizeof text), want_exit[k]);
  }
  OCK_ASSERT_CONTAINS(text, "expected-failures entries; the kit reads at most");
}

static void baseline_excuses_and_goes_stale(void) {
  char cmd[2048], text[1 << 14], path[256];
  /* false fails text-answer (it never runs the prompt); listing it excuses the failures. */
  snprintf(path, sizeof path, "%s/baseline.txt", tmp);
  FILE *f = fopen(path, "w");
  fputs("# known failures\ntext-answer\n- tool-single-call:OCK-PROC-002\n", f);
  fclose(f);
  snprintf(cmd, sizeof cmd,
           "%s/bin/ock run --orchestrator false --fixtures %s --case text-answer "
           "--expected-failures %s -o %s/base1",
           OCK_ROOT_BIN, ock_test_path("fixtures"), path, tmp);
  OCK_ASSERT_INT_EQ(out_of(cmd, "base1", text, sizeof text), 0);
  /* Exit 0, but the waived MUSTs are not counted as met (only proc.signal's is), listed apart. */
  OCK_ASSERT_CONTAINS(text, "WAIVED");
  OCK_ASSERT_CONTAINS(text, "MUST 1/10, 9 waived");
  OCK_ASSERT_CONTAINS(text, "Waived (--expected-failures; they do not fail the run):");
  ASSERT_LACKS(text, "Not met:");
  snprintf(path, sizeof path, "%s/base1/summary.md", tmp);
  OCK_ASSERT_CONTAINS(slurp(path), "### Waived");
  snprintf(path, sizeof path, "%s/baseline.txt", tmp);
  /* A scenario skipped for an undeclared capability stays SKIP under a baseline. */
  snprintf(cmd, sizeof cmd,
           "%s/bin/ock run --orchestrator false --fixtures %s --case text-answer "
           "--case cancel-during-tool --expected-failures %s -o %s/base-skip",
           OCK_ROOT_BIN, ock_test_path("fixtures"), path, tmp);
  OCK_ASSERT_INT_EQ(out_of(cmd, "base-skip", text, sizeof text), 0);
  /* The reference passes text-answer: the same entry is now stale and fails the run. */
  snprintf(cmd, sizeof cmd,
           "%s/bin/ock run --orchestrator %s/bin/ock-orchestrator --fixtures %s --case text-answer "
           "--capabilities core,streaming,parallel,scheduling,lifecycle,resilience,cancellation "
           "--expected-failures %s -o %s/base2",
           OCK_ROOT_BIN, OCK_ROOT_BIN, ock_test_path("fixtures"), path, tmp);
  OCK_ASSERT_INT_EQ(out_of(cmd, "base2", text, sizeof text), 1);
  snprintf(path, sizeof path, "%s/base2/report.json", tmp);
  OCK_ASSERT_CONTAINS(slurp(path), "remove the stale entry");
  /* A manifest gives the name, the capabilities and the baseline at once; --repeat runs twice. */
  snprintf(path, sizeof path, "%s/manifest.json", tmp);
  f = fopen(path, "w");
  fputs("{\"name\":\"ref\",\"capabilities\":[\"streaming\"],\"expected_failures\":[]}", f);
  fclose(f);
  snprintf(cmd, sizeof cmd,
           "%s/bin/ock run --orchestrator %s/bin/ock-orchestrator --fixtures %s --case stream-text "
           "--manifest %s --repeat 2 --format human -o %s/man",
           OCK_ROOT_BIN, OCK_ROOT_BIN, ock_test_path("fixtures"), path, tmp);
  OCK_ASSERT_INT_EQ(out_of(cmd, "man", text, sizeof text), 0);
  OCK_ASSERT_CONTAINS(text, "stream-text#2");
  snprintf(path, sizeof path, "%s/man/report.json", tmp);
  OCK_ASSERT_CONTAINS(slurp(path), "\"name\":\t\"ref\"");
}

static void check_reports_violations(void) {
  char path[256], cmd[1024], text[1 << 14];
  snprintf(path, sizeof path, "%s/bad.jsonl", tmp);
  FILE *f = fopen(path, "w");
  fputs("{\"event\":\"prompt:submit\",\"data\":{\"prompt\":\"x\"}}\n"
        "not json\n"
        "{\"event\":\"tool:post\",\"data\":{\"tool_call_id\":\"a\"}}\n"
        "{\"event\":\"orchestrator:complete\",\"data\":{\"orchestrator\":\"\",\"turn_count\":-1,"
        "\"status\":\"done\"}}\n"
        "{\"kind\":\"llm_request\"}\n",
        f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "%s/bin/ock check %s", OCK_ROOT_BIN, path);
  OCK_ASSERT_INT_EQ(out_of(cmd, "check-bad", text, sizeof text), 1);
  OCK_ASSERT_CONTAINS(text, "line 2: OCK-PROC-005: not a JSON object");
  OCK_ASSERT_CONTAINS(text, "line 3: OCK-ORDER-003");
  OCK_ASSERT_CONTAINS(text, "OCK-COMPLETE-003");
  OCK_ASSERT_CONTAINS(text, "OCK-COMPLETE-004");
  OCK_ASSERT_CONTAINS(text, "OCK-COMPLETE-005");
  snprintf(cmd, sizeof cmd, "%s/bin/ock check --quiet %s", OCK_ROOT_BIN, path);
  OCK_ASSERT_INT_EQ(out_of(cmd, "check-quiet", text, sizeof text), 1);
  OCK_ASSERT_STR_EQ(text, "");
}

static void fuzz_finds_shrinks_and_replays(void) {
  char cmd[2048], text[1 << 15];
  /* The reference meets the universal rules in every session. */
  snprintf(cmd, sizeof cmd,
           "%s/bin/ock fuzz --orchestrator %s/bin/ock-orchestrator --capabilities "
           "core,streaming,parallel,scheduling,lifecycle,resilience,cancellation --count 40 "
           "--seed 11 --jobs 2 -o %s/fz-ref",
           OCK_ROOT_BIN, OCK_ROOT_BIN, tmp);
  OCK_ASSERT_INT_EQ(out_of(cmd, "fz-ref", text, sizeof text), 0);
  OCK_ASSERT_CONTAINS(text, "40 sessions, no rule broken");
  /* A SUT that exits at once breaks them at once: a seed, a shrunk fixture, a replay line. */
  snprintf(cmd, sizeof cmd,
           "%s/bin/ock fuzz --orchestrator 'sh -c \"exit 3\"' --count 5 --seed 3 -o %s/fz-bad",
           OCK_ROOT_BIN, tmp);
  OCK_ASSERT_INT_EQ(out_of(cmd, "fz-bad", text, sizeof text), 1);
  OCK_ASSERT_CONTAINS(text, "FAIL in session 0, seed ");
  OCK_ASSERT_CONTAINS(text, "replay:   ock run");
  const char *id = strstr(text, "--case fuzz-");
  OCK_ASSERT_NOT_NULL_FATAL(id);
  char fixture[64];
  snprintf(fixture, sizeof fixture, "%.21s", id + 7);
  /* Shrunk: one prompt, one turn. */
  char path[256];
  snprintf(path, sizeof path, "%s/fz-bad/%s.json", tmp, fixture);
  cJSON *fx = NULL;
  struct ock_jerr err;
  OCK_ASSERT_OK(ock_json_parse_file(path, 1 << 20, &fx, &err));
  const cJSON *session = cJSON_GetObjectItemCaseSensitive(fx, "session");
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(session, "prompts")), 1);
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(
                        cJSON_GetObjectItemCaseSensitive(fx, "script"), "main")),
                    1);
  const char *req =
      ock_json_str(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(fx, "requirements"), 0), "");
  (void)req;
  cJSON_Delete(fx);
  /* The replay fails the same way. */
  snprintf(cmd, sizeof cmd,
           "%s/bin/ock run --orchestrator 'sh -c \"exit 3\"' --fixtures %s/fz-bad --case %s "
           "-o %s/fz-replay --capabilities core,streaming,parallel,scheduling,lifecycle,resilience,"
           "cancellation",
           OCK_ROOT_BIN, tmp, fixture, tmp);
  OCK_ASSERT_INT_EQ(out_of(cmd, "fz-replay", text, sizeof text), 1);
}

/* ock fuzz reads --wires and --manifest as ock run does: each session's provider speaks a declared
 * wire, the replay line declares the same, and a manifest that disagrees with --wires is refused
 * with ock run's words. */
static void fuzz_takes_wires_and_manifest(void) {
  char cmd[2048], text[1 << 15], path[256];
  snprintf(cmd, sizeof cmd,
           "%s/bin/ock fuzz --orchestrator %s/bin/ock-orchestrator --capabilities "
           "core,streaming,parallel --wires responses,gemini --count 8 --seed 5 --jobs 2 "
           "-o %s/fzw-ref",
           OCK_ROOT_BIN, OCK_ROOT_BIN, tmp);
  OCK_ASSERT_INT_EQ(out_of(cmd, "fzw-ref", text, sizeof text), 0);
  OCK_ASSERT_CONTAINS(text, "8 sessions, no rule broken");
  /* A failing session on the one wire declared: the fixture's provider speaks it. */
  snprintf(
      cmd, sizeof cmd,
      "%s/bin/ock fuzz --orchestrator 'sh -c \"exit 3\"' --wires gemini --count 2 -o %s/fzw-bad",
      OCK_ROOT_BIN, tmp);
  OCK_ASSERT_INT_EQ(out_of(cmd, "fzw-bad", text, sizeof text), 1);
  OCK_ASSERT_CONTAINS(text, " --wires gemini\n");
  const char *at = strstr(text, "fixture written to ");
  OCK_ASSERT_NOT_NULL_FATAL(at);
  snprintf(path, sizeof path, "%.*s", (int)strcspn(at + 19, "\n"), at + 19);
  OCK_ASSERT_CONTAINS(slurp(path), "\"api\":\t\"gemini\"");
  /* A manifest: its wires are the sessions', the replay line names it. */
  snprintf(path, sizeof path, "%s/fzw-manifest.json", tmp);
  FILE *f = fopen(path, "w");
  OCK_ASSERT_NOT_NULL_FATAL(f);
  fputs("{\"name\": \"x\", \"capabilities\": [\"core\"], \"wires\": [\"responses\"]}\n", f);
  fclose(f);
  snprintf(cmd, sizeof cmd,
           "%s/bin/ock fuzz --orchestrator 'sh -c \"exit 3\"' --manifest %s --count 2 -o %s/fzw-m",
           OCK_ROOT_BIN, path, tmp);
  OCK_ASSERT_INT_EQ(out_of(cmd, "fzw-m", text, sizeof text), 1);
  OCK_ASSERT_CONTAINS(text, " --manifest ");
  at = strstr(text, "fixture written to ");
  OCK_ASSERT_NOT_NULL_FATAL(at);
  char fixture[256];
  snprintf(fixture, sizeof fixture, "%.*s", (int)strcspn(at + 19, "\n"), at + 19);
  OCK_ASSERT_CONTAINS(slurp(fixture), "\"api\":\t\"responses\"");
  snprintf(cmd, sizeof cmd, "%s/bin/ock fuzz --orchestrator true --manifest %s --wires gemini",
           OCK_ROOT_BIN, path);
  OCK_ASSERT_INT_EQ(out_of(cmd, "fzw-differ", text, sizeof text), 2);
  OCK_ASSERT_CONTAINS(text, "--wires gemini differs from the wires of the manifest");
}

/* interrupted_runs_end_cleanly sends SIGTERM, SIGHUP and SIGINT to a running `ock run` whose SUT
 * sleeps: each ends with exit 3, no process of the SUT's group left, the cut-short scenario
 * ERROR (interrupted) and never a failure, and the console and summary.md say so. */
static void interrupted_runs_end_cleanly(void) {
  static const char *const sigs[] = {"TERM", "HUP", "INT"};
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
    char cmd[2048], d[128], path[256], text[1 << 14];
    snprintf(d, sizeof d, "%s/int-%s", tmp, sigs[i]);
    snprintf(cmd, sizeof cmd,
             "(mkdir -p %s && { %s/bin/ock run --orchestrator 'echo $$ > %s/pgid; sleep 60' "
             "--fixtures %s --case text-answer --timeout 120 -o %s/out & } ; ock=$!; "
             "for n in $(seq 200); do [ -s %s/pgid ] && break; sleep 0.05; done; "
             "kill -%s $ock; wait $ock; code=$?; g=$(cat %s/pgid); "
             "for n in $(seq 100); do pgrep -g \"$g\" >/dev/null || exit $code; sleep 0.05; done; "
             "exit 99)",
             d, OCK_ROOT_BIN, d, ock_test_path("fixtures"), d, d, sigs[i], d);
    int code = out_of(cmd, sigs[i], text, sizeof text);
    if (code != 3)
      ock_test_fail(__LINE__, __FILE__, "SIG%s: exit %d (expected 3; 99: the SUT survived): %.300s",
                    sigs[i], code, text);
    OCK_ASSERT_CONTAINS(text, "interrupted, not graded");
    OCK_ASSERT_CONTAINS(text, "The run was interrupted (SIG");
    snprintf(path, sizeof path, "%s/out/summary.md", d);
    OCK_ASSERT_CONTAINS(slurp(path), "The run was interrupted");
    snprintf(path, sizeof path, "%s/out/report.json", d);
    const char *report = slurp(path);
    OCK_ASSERT_CONTAINS(report, "harness.interrupted");
    OCK_ASSERT_CONTAINS(report, "\"interrupted\":\ttrue");
    ASSERT_LACKS(report, "SIGKILL");
    snprintf(path, sizeof path, "%s/out/junit.xml", d);
    const char *junit = slurp(path);
    OCK_ASSERT_CONTAINS(junit, "<error");
    ASSERT_LACKS(junit, "<failure");
  }
}

/* reports_go_only_where_named: a usage error writes its report to the -o directory wherever -o
 * stands, and nowhere (not reports/latest) without one; an unusable -o is refused up front. */
static void reports_go_only_where_named(void) {
  char cmd[2048], text[1 << 14], path[256];
  snprintf(cmd, sizeof cmd,
           "mkdir -p %s/cwd && cd %s/cwd && touch afile && %s/bin/ock run --orchestrator true "
           "--jobs 0 -o named",
           tmp, tmp, OCK_ROOT_BIN);
  OCK_ASSERT_INT_EQ(out_of(cmd, "o-named", text, sizeof text), 2);
  snprintf(path, sizeof path, "%s/cwd/named/report.json", tmp);
  OCK_ASSERT_CONTAINS(slurp(path), "--jobs: expected a whole number from 1 to 256");
  snprintf(cmd, sizeof cmd, "cd %s/cwd && %s/bin/ock run --orchestrator true --jobs 0", tmp,
           OCK_ROOT_BIN);
  OCK_ASSERT_INT_EQ(out_of(cmd, "o-none", text, sizeof text), 2);
  snprintf(path, sizeof path, "%s/cwd/reports", tmp);
  OCK_ASSERT_INT_EQ(access(path, F_OK), -1);
  static const struct {
    const char *o, *says;
  } bad[] = {{"''", "got an empty string"},
             {"/proc/self/ock", "cannot go under /proc"},
             {"afile", "exists and is not a directory"},
             {"afile/sub", "Not a directory"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snprintf(cmd, sizeof cmd, "cd %s/cwd && %s/bin/ock run --orchestrator true --case x -o %s", tmp,
             OCK_ROOT_BIN, bad[i].o);
    OCK_ASSERT_INT_EQ(out_of(cmd, "o-bad", text, sizeof text), 2);
    OCK_ASSERT_CONTAINS(text, bad[i].says);
  }
  snprintf(path, sizeof path, "%s/cwd/afile", tmp);
  struct stat st;
  OCK_ASSERT_INT_EQ(stat(path, &st), 0);
  OCK_ASSERT_INT_EQ(st.st_size, 0);
}

/* check_reads_lines_at_their_length: a NUL byte, a second object, invalid UTF-8, a missing
 * data and a line that is not an event are each a finding on their line, and /dev/zero stops
 * at the line cap instead of spinning. */
static void check_reads_lines_at_their_length(void) {
  char cmd[2048], text[1 << 14];
  snprintf(cmd, sizeof cmd,
           "printf '{\"event\":\"prompt:submit\",\"data\":{\"prompt\":\"hi\"}}\\000x\\n"
           "{\"event\":\"prompt:submit\",\"data\":{\"prompt\":\"hi\"}} {\"event\":\"tool:pre\","
           "\"data\":{}}\\n{\"event\":\"a\\377\",\"data\":{}}\\n{\"event\":\"y\"}\\n[1]\\n' > "
           "%s/hostile.jsonl && %s/bin/ock check %s/hostile.jsonl",
           tmp, OCK_ROOT_BIN, tmp);
  OCK_ASSERT_INT_EQ(out_of(cmd, "check-lines", text, sizeof text), 1);
  OCK_ASSERT_CONTAINS(text, "line 1: OCK-PROC-005: a NUL byte at column 49");
  OCK_ASSERT_CONTAINS(text, "line 2: OCK-PROC-005: content after the JSON object at column 50");
  OCK_ASSERT_CONTAINS(text, "line 3: OCK-PROC-005: 1 byte(s) of invalid UTF-8");
  OCK_ASSERT_CONTAINS(text, "line 4: OCK-PROC-005: an event without \"data\"");
  OCK_ASSERT_CONTAINS(text, "line 5: OCK-PROC-005: not an event");
  OCK_ASSERT_CONTAINS(text, "5 line(s), 2 event(s)");
  /* An event name that would clear the screen and set the window title is shown escaped. */
  snprintf(cmd, sizeof cmd,
           "printf '{\"event\":\"\\\\u001b]0;pwned\\\\u0007\\\\u001b[2J\",\"data\":{}}\\n' > "
           "%s/esc.jsonl && %s/bin/ock check %s/esc.jsonl",
           tmp, OCK_ROOT_BIN, tmp);
  OCK_ASSERT_INT_EQ(out_of(cmd, "check-esc", text, sizeof text), 1);
  OCK_ASSERT_CONTAINS(text, "\\x1b]0;pwned\\x07\\x1b[2J");
  ASSERT_LACKS(text, "\033");
  snprintf(cmd, sizeof cmd, "timeout 60 %s/bin/ock check /dev/zero", OCK_ROOT_BIN);
  OCK_ASSERT_INT_EQ(out_of(cmd, "check-zero", text, sizeof text), 3);
  OCK_ASSERT_CONTAINS(text, "line 1: OCK-PROC-005: line longer than 16 MiB; reading stopped");
}

/* check_refuses_what_readers_disagree_on: U+0000 in a string (cJSON would read the prefix)
 * and a member name given twice (cJSON reads the first, Python and JavaScript the last) are
 * findings and the line is not graded; a turn_count beyond any integer is no integer. */
static void check_refuses_what_readers_disagree_on(void) {
  char path[256], cmd[1024], text[1 << 14];
  snprintf(path, sizeof path, "%s/disagree.jsonl", tmp);
  write_text(path, "{\"event\":\"orchestrator:complete\",\"data\":{\"orchestrator\":\"o\","
                   "\"status\":\"success\\u0000-but-really-failed\",\"turn_count\":0}}\n"
                   "{\"event\":\"orchestrator:complete\",\"data\":{\"orchestrator\":\"o\","
                   "\"status\":\"success\",\"status\":\"cancelled\",\"turn_count\":0}}\n"
                   "{\"event\":\"orchestrator:complete\\u0000x\",\"data\":{}}\n"
                   "{\"event\":\"orchestrator:complete\",\"data\":{\"orchestrator\":\"o\","
                   "\"status\":\"success\",\"turn_count\":1e400}}\n"
                   "{\"event\":\"orchestrator:complete\",\"data\":{\"orchestrator\":\"o\","
                   "\"status\":\"success\",\"turn_count\":1e300}}\n");
  snprintf(cmd, sizeof cmd, "%s/bin/ock check %s", OCK_ROOT_BIN, path);
  OCK_ASSERT_INT_EQ(out_of(cmd, "check-disagree", text, sizeof text), 1);
  OCK_ASSERT_CONTAINS(text, "line 1: OCK-PROC-005: $.data.status: a string holds U+0000");
  OCK_ASSERT_CONTAINS(text, "line 2: OCK-PROC-005: $.data.status: duplicate key");
  OCK_ASSERT_CONTAINS(text, "line 3: OCK-PROC-005: $.event: a string holds U+0000");
  OCK_ASSERT_CONTAINS(text, "line 4: OCK-COMPLETE-005: turn_count is not a non-negative integer");
  OCK_ASSERT_CONTAINS(text, "line 5: OCK-COMPLETE-005: turn_count is not a non-negative integer");
  OCK_ASSERT_CONTAINS(text, "5 line(s), 2 event(s)");
}

/* The console's cause line explains the scenario's verdict: an ERROR scenario (its journal cut
 * at the cap) names the harness failure, not the first FAIL that the cut evidence produced. */
static void console_cause_explains_the_verdict(void) {
  cJSON *r = cJSON_Parse(
      "{\"verdict\":\"ERROR\",\"checks\":[{\"id\":\"proc.executes\",\"verdict\":\"FAIL\","
      "\"message\":\"1 prompts, 0 executes\"},{\"id\":\"harness.journal-cap\",\"verdict\":"
      "\"ERROR\",\"message\":\"the journal was cut\"}]}");
  OCK_ASSERT_STR_EQ(ock_json_str(ock_report_scenario_cause(r), "id"), "harness.journal-cap");
  cJSON_ReplaceItemInObject(r, "verdict", cJSON_CreateString("FAIL"));
  OCK_ASSERT_STR_EQ(ock_json_str(ock_report_scenario_cause(r), "id"), "proc.executes");
  cJSON_Delete(r);
  r = cJSON_Parse("{\"verdict\":\"PASS\",\"checks\":[{\"id\":\"a\",\"verdict\":\"PASS\"}]}");
  OCK_ASSERT_NULL(ock_report_scenario_cause(r));
  cJSON_Delete(r);
}

/* jsonl names each failed requirement once, however many of its checks failed: two checks of
 * OCK-PROC-006 fail under a fallback that keeps the first provider's model. */
static void jsonl_lists_a_requirement_once(void) {
  char cmd[1024], out[8192];
  snprintf(cmd, sizeof cmd,
           "%s/bin/ock run --orchestrator '%s/bin/ock-mutant fallback-keeps-model -- "
           "%s/bin/ock-orchestrator' --capabilities core,resilience --fixtures %s --case "
           "fallback-second-provider --format jsonl -o %s/jsonl-once 2>/dev/null",
           OCK_ROOT_BIN, OCK_ROOT_BIN, OCK_ROOT_BIN, ock_test_path("fixtures"), tmp);
  OCK_ASSERT_INT_EQ(out_of(cmd, "jsonl-once", out, sizeof out), 1);
  OCK_ASSERT_CONTAINS(out, "\"failed\":[\"OCK-PROC-006\",");
  ASSERT_LACKS(out, "\"OCK-PROC-006\",\"OCK-PROC-006\"");
}

static const struct ock_test tests[] = {
    {"bad_fixture_exits_2_naming_it", bad_fixture_exits_2_naming_it},
    {"jsonl_lists_a_requirement_once", jsonl_lists_a_requirement_once},
    {"console_cause_explains_the_verdict", console_cause_explains_the_verdict},
    {"check_refuses_what_readers_disagree_on", check_refuses_what_readers_disagree_on},
    {"a_sut_that_exits_is_graded", a_sut_that_exits_is_graded},
    {"the_sut_gets_the_mcp_url", the_sut_gets_the_mcp_url},
    /* Before the whole-catalog run: the checker is forked from this process and its peak RSS
     * includes ours, which parsing that run's report would raise. */
    {"check_streams_in_flat_memory", check_streams_in_flat_memory},
    {"shards_merge_to_the_whole_run", shards_merge_to_the_whole_run},
    {"planted_reports_are_replaced_or_disowned", planted_reports_are_replaced_or_disowned},
    {"render_recomputes_or_refuses", render_recomputes_or_refuses},
    {"usage_errors_are_explained", usage_errors_are_explained},
    {"time_scale_variable_is_checked", time_scale_variable_is_checked},
    {"list_and_explain", list_and_explain},
    {"baseline_excuses_and_goes_stale", baseline_excuses_and_goes_stale},
    {"baseline_is_read_whole", baseline_is_read_whole},
    {"wireless_scenarios_run_on_each_wire", wireless_scenarios_run_on_each_wire},
    {"check_reports_violations", check_reports_violations},
    {"fuzz_finds_shrinks_and_replays", fuzz_finds_shrinks_and_replays},
    {"fuzz_takes_wires_and_manifest", fuzz_takes_wires_and_manifest},
    {"interrupted_runs_end_cleanly", interrupted_runs_end_cleanly},
    {"reports_go_only_where_named", reports_go_only_where_named},
    {"check_reads_lines_at_their_length", check_reads_lines_at_their_length},
    {"wires_are_declared", wires_are_declared},
    {"fixture_values_and_duplicate_keys_are_errors", fixture_values_and_duplicate_keys_are_errors},
    {"manifest_and_baseline_errors", manifest_and_baseline_errors},
    {"manifest_emulated_reaches_every_report", manifest_emulated_reaches_every_report},
    {"console_shows_causes_escaped", console_shows_causes_escaped},
    {"help_options_are_in_the_man_page", help_options_are_in_the_man_page},
    {"missing_fixtures_name_the_places_tried", missing_fixtures_name_the_places_tried},
    {NULL, NULL}};
const struct ock_suite suite_cli = {"cli", tests, setup, teardown};
