/*
 * test_report_golden.c: the four report writers against golden files, and the properties
 * that must hold for any report: no SUT string becomes markup, output is valid UTF-8, counts
 * are right, a malformed report does not crash a writer.
 *
 * Every writer renders tests/conformance/golden/sample-report.json after normalisation
 * (timestamps and kit version fixed) and must produce exactly the file next to it
 * (report.json, junit.xml, summary.md, report.html). After an intended change, regenerate
 * them with `OCK_UPDATE_GOLDEN=1 build/tests/test-conformance report_golden` and review the
 * diff.
 */
#include <stdlib.h>
#include <string.h>

#include "report/escape.h"
#include "ock/status.h"
#include "report/report.h"
#include "runner.h"

#define GOLDEN "tests/conformance/golden/"

static cJSON *load_sample(void) {
  cJSON *j = NULL;
  struct ock_jerr err;
  if (ock_json_parse_file(ock_test_path(GOLDEN "sample-report.json"), 1 << 24, &j, &err))
    ock_test_fail(__LINE__, __FILE__, "cannot load the sample: %s: %s", err.where, err.what);
  return j;
}

/* normalise fixes what changes from run to run or release to release. */
static void normalise(cJSON *report) {
  cJSON_ReplaceItemInObjectCaseSensitive(report, "started_at",
                                         cJSON_CreateString("2000-01-01T00:00:00Z"));
  cJSON_ReplaceItemInObjectCaseSensitive(report, "finished_at",
                                         cJSON_CreateString("2000-01-01T00:00:09Z"));
  cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(report, "kit"), "version",
                                         cJSON_CreateString("0.0.0-golden"));
}

/* render runs one writer into memory; caller frees. */
static char *render(const struct ock_report_writer *w, const cJSON *report, int *rc) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) {
    *rc = OCK_ENOMEM;
    return NULL;
  }
  *rc = ock_report_render(w, report, f);
  fclose(f);
  return text;
}

static void check_golden(const char *writer) {
  const struct ock_report_writer *w = ock_report_writer_find(writer);
  cJSON *report = load_sample();
  normalise(report);
  int rc;
  char *got = render(w, report, &rc);
  OCK_ASSERT_OK(rc);
  char rel[256];
  snprintf(rel, sizeof rel, GOLDEN "%s", w->filename);
  const char *path = ock_test_path(rel);
  const char *update = getenv("OCK_UPDATE_GOLDEN");
  if (update && !strcmp(update, "1")) {
    FILE *f = fopen(path, "wb");
    if (!f || fputs(got, f) == EOF)
      ock_test_fail(__LINE__, __FILE__, "cannot write %s", path);
    if (f)
      fclose(f);
    fprintf(stderr, "\nupdated %s\n", rel);
  }
  char *want = ock_test_read_file(path);
  if (!want) {
    ock_test_fail(__LINE__, __FILE__,
                  "%s is missing; create it with OCK_UPDATE_GOLDEN=1 and review it", rel);
  } else if (strcmp(got, want)) {
    int line = 1;
    size_t i = 0, start = 0;
    for (; got[i] && got[i] == want[i]; i++)
      if (got[i] == '\n') {
        line++;
        start = i + 1;
      }
    ock_test_fail(__LINE__, __FILE__,
                  "%s differs from the %s writer's output at line %d:\n  got:  %.*s\n  want: %.*s"
                  "\n(after an intended change: OCK_UPDATE_GOLDEN=1, then review the diff)",
                  rel, writer, line, (int)strcspn(got + start, "\n"), got + start,
                  (int)strcspn(want + start, "\n"), want + start);
  } else {
    CU_PASS("golden");
  }
  free(want);
  free(got);
  cJSON_Delete(report);
}

static void test_golden_json(void) {
  check_golden("json");
}

static void test_golden_junit(void) {
  check_golden("junit");
}

static void test_golden_markdown(void) {
  check_golden("markdown");
}

static void test_golden_html(void) {
  check_golden("html");
}

/* assert_only_tags: every '<' in text starts one of the allowed tags (or a closing one), so no
 * string from the report became markup. */
static void assert_only_tags(const char *text, const char *const *allowed, int line) {
  for (const char *p = strchr(text, '<'); p; p = strchr(p + 1, '<')) {
    const char *name = p + 1 + (p[1] == '/');
    size_t len = strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789-?!ABCDEFGHIJKLMNOPQRSTUVWXYZ");
    int ok = 0;
    for (int i = 0; allowed[i] && !ok; i++)
      ok = strlen(allowed[i]) == len && !strncmp(name, allowed[i], len);
    if (!ok) {
      ock_test_fail(line, __FILE__, "unexpected markup: \"%.60s\"", p);
      return;
    }
  }
  CU_PASS("tags");
}

static void test_html_shows_payloads_as_text(void) {
  static const char *const tags[] = {
      "!DOCTYPE", "html",   "head",     "meta", "title", "style",   "body",    "header",
      "h1",       "h2",     "h3",       "h4",   "p",     "span",    "b",       "table",
      "tr",       "th",     "td",       "a",    "main",  "section", "details", "summary",
      "div",      "pre",    "svg",      "text", "line",  "rect",    "polygon", "circle",
      "g",        "footer", "clipPath", "code", "br",    NULL};
  cJSON *report = load_sample();
  int rc;
  char *html = render(&ock_report_writer_html, report, &rc);
  OCK_ASSERT_OK(rc);
  assert_only_tags(html, tags, __LINE__);
  OCK_ASSERT_NULL(strstr(html, "<script"));
  OCK_ASSERT_NULL(strstr(html, "<img"));
  OCK_ASSERT_CONTAINS(html, "&lt;script&gt;alert(1)&lt;/script&gt;");
  OCK_ASSERT_CONTAINS(html, "&lt;/pre&gt;&lt;img src=x onerror=alert(2)&gt;");
  /* Inside the SVG too: the timeline detail of injection-payloads, seq 6. */
  OCK_ASSERT_CONTAINS(html, "<text class=\"d\" x=\"995\" y=\"164\">tool_name "
                            "&lt;script&gt;alert(1)&lt;/script&gt;" OCK_ESCAPE_REPLACEMENT);
  OCK_ASSERT_CONTAINS(html, "Content-Security-Policy");
  OCK_ASSERT_TRUE(ock_utf8_valid(html, strlen(html)));
  free(html);
  cJSON_Delete(report);
}

static void test_html_is_self_contained(void) {
  cJSON *report = load_sample();
  int rc;
  char *html = render(&ock_report_writer_html, report, &rc);
  OCK_ASSERT_OK(rc);
  /* The only URL is the SVG namespace, which is a name, not a fetch. */
  const char *p = html;
  int urls = 0;
  while ((p = strstr(p, "://"))) {
    urls++;
    OCK_ASSERT_INT_EQ(strncmp(p - 4, "http://www.w3.org/2000/svg", 26), 0);
    p += 3;
  }
  /* One per drawn timeline (stream-text has none), and one per first cause: the timeline of
   * its simplest scenario, drawn again at the top. */
  OCK_ASSERT_INT_EQ(urls, 4 + 3);
  OCK_ASSERT_NULL(strstr(html, " src=\""));
  OCK_ASSERT_NULL(strstr(html, "<link"));
  free(html);
  cJSON_Delete(report);
}

static void test_junit_counts_and_markup(void) {
  static const char *const tags[] = {"?xml",     "testsuites", "testsuite",  "properties",
                                     "property", "testcase",   "failure",    "error",
                                     "skipped",  "system-out", "system-err", NULL};
  cJSON *report = load_sample();
  int rc;
  char *xml = render(&ock_report_writer_junit, report, &rc);
  OCK_ASSERT_OK(rc);
  assert_only_tags(xml, tags, __LINE__);
  /* 12 check and scenario testcases and 3 first causes: the ERROR and the FAIL cause fail;
   * complete.once, which the SIGSEGV explains, is skipped in its scenario. */
  OCK_ASSERT_CONTAINS(xml, "tests=\"15\" failures=\"2\" errors=\"2\" skipped=\"2\"");
  OCK_ASSERT_CONTAINS(xml, "<testsuite name=\"first causes\" tests=\"3\" failures=\"1\" "
                           "errors=\"1\" skipped=\"0\"");
  OCK_ASSERT_CONTAINS(xml, "<skipped message=\"FAIL, a consequence of OCK-PROC-003/proc.signal");
  OCK_ASSERT_CONTAINS(xml, "]]&gt;");
  OCK_ASSERT_NULL(strstr(xml, "]]>"));
  OCK_ASSERT_NULL(strchr(xml, '\x1b'));
  OCK_ASSERT_TRUE(ock_utf8_valid(xml, strlen(xml)));
  free(xml);
  /* Under --strict a WARN check is a failure. */
  cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(report, "options"),
                                         "strict", cJSON_CreateTrue());
  xml = render(&ock_report_writer_junit, report, &rc);
  OCK_ASSERT_CONTAINS(xml, "tests=\"15\" failures=\"4\" errors=\"2\" skipped=\"2\"");
  free(xml);
  cJSON_Delete(report);
}

static void test_junit_scenario_verdict_never_hidden(void) {
  /* A scenario that errored before any check ran still shows as an error. */
  cJSON *report = load_sample();
  cJSON *s = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(report, "scenarios"), 0);
  cJSON_ReplaceItemInObjectCaseSensitive(s, "checks", cJSON_CreateArray());
  int rc;
  char *xml = render(&ock_report_writer_junit, report, &rc);
  OCK_ASSERT_OK(rc);
  OCK_ASSERT_CONTAINS(xml, "<testcase classname=\"cancel-during-tool\" name=\"scenario\"");
  OCK_ASSERT_CONTAINS(xml, "<error message=\"scenario verdict ERROR\">");
  OCK_ASSERT_CONTAINS(xml, "tests=\"15\" failures=\"2\" errors=\"2\" skipped=\"2\"");
  free(xml);
  cJSON_Delete(report);
}

/* unescaped_pipes counts the '|' of one Markdown line that are not escaped. */
static int unescaped_pipes(const char *line, size_t len) {
  int n = 0;
  for (size_t i = 0; i < len; i++) {
    if (line[i] == '\\')
      i++;
    else if (line[i] == '|')
      n++;
  }
  return n;
}

static void test_markdown_tables_hold(void) {
  cJSON *report = load_sample();
  int rc;
  char *text = render(&ock_report_writer_markdown, report, &rc);
  OCK_ASSERT_OK(rc);
  OCK_ASSERT_NULL(strchr(text, '<'));
  OCK_ASSERT_CONTAINS(text, "**FAIL** (exit code 1) · MUST 1/4 · SHOULD 1/2 · MAY 0/0");
  OCK_ASSERT_CONTAINS(text, "&lt;script&gt;alert(1)&lt;/script&gt;");
  /* Every row of a table has as many cell separators as its header. */
  int header = -1;
  for (const char *line = text; *line;) {
    size_t len = strcspn(line, "\n");
    if (len && line[0] == '|') {
      int pipes = unescaped_pipes(line, len);
      if (header < 0)
        header = pipes;
      else
        OCK_ASSERT_INT_EQ(pipes, header);
    } else {
      header = -1;
    }
    line += len + (line[len] == '\n');
  }
  free(text);
  cJSON_Delete(report);
}

static void test_invalid_utf8_is_replaced(void) {
  cJSON *report = load_sample();
  cJSON *s = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(report, "scenarios"), 1);
  cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(s, "checks"), 0);
  cJSON_ReplaceItemInObjectCaseSensitive(c, "actual", cJSON_CreateString("bad \xff\xfe bytes"));
  cJSON_ReplaceItemInObjectCaseSensitive(c, "message", cJSON_CreateString("msg \xc3("));
  for (int i = 1; ock_report_writers[i]; i++) { /* the JSON writer copies strings as they are */
    int rc;
    char *out = render(ock_report_writers[i], report, &rc);
    OCK_ASSERT_OK(rc);
    OCK_ASSERT_TRUE(ock_utf8_valid(out, strlen(out)));
    OCK_ASSERT_CONTAINS(out, OCK_ESCAPE_REPLACEMENT);
    free(out);
  }
  cJSON_Delete(report);
}

static void test_writers_survive_malformed_reports(void) {
  static const char *const docs[] = {
      "{}", "[]",
      "{\"scenarios\":[{}, 1, null, {\"checks\":[{}, 2], \"timeline\":[{}, \"x\"]}],"
      "\"requirements\":[{}, 3], \"summary\": 7, \"options\": []}",
      "{\"scenarios\":[{\"id\":\"x\",\"verdict\":\"WHAT\",\"checks\":[{\"verdict\":\"NO\"}],"
      "\"timeline\":[{\"lane\":\"moon\",\"label\":\"<x>\",\"t_ms\":\"soon\"}],"
      "\"process\":{\"stdout\":5,\"exit_code\":\"x\"}}]}",
      NULL};
  for (int d = 0; docs[d]; d++) {
    cJSON *j = cJSON_Parse(docs[d]);
    for (int i = 0; ock_report_writers[i]; i++) {
      int rc;
      char *out = render(ock_report_writers[i], j, &rc);
      OCK_ASSERT_OK(rc);
      OCK_ASSERT_NOT_NULL(out);
      if (out && i > 0)
        OCK_ASSERT_NULL(strstr(out, "<x>"));
      free(out);
    }
    cJSON_Delete(j);
  }
}

static void test_long_timeline_is_capped(void) {
  cJSON *report = load_sample();
  cJSON *s = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(report, "scenarios"), 4);
  cJSON *tl = cJSON_GetObjectItemCaseSensitive(s, "timeline");
  for (int i = 0; i < 1000; i++) {
    cJSON *e = cJSON_CreateObject();
    cJSON_AddNumberToObject(e, "seq", 100 + i);
    cJSON_AddNumberToObject(e, "t_ms", 10 + i);
    cJSON_AddStringToObject(e, "lane", "sut");
    cJSON_AddStringToObject(e, "label", "provider:stream");
    cJSON_AddItemToArray(tl, e);
  }
  int rc;
  char *html = render(&ock_report_writer_html, report, &rc);
  OCK_ASSERT_OK(rc);
  OCK_ASSERT_CONTAINS(html, "614 more timeline entries not drawn");
  free(html);
  cJSON_Delete(report);
}

/* before: needle a occurs in text, and before needle b (which must occur too). */
static void assert_before(const char *text, const char *a, const char *b, int line) {
  const char *pa = text ? strstr(text, a) : NULL, *pb = text ? strstr(text, b) : NULL;
  if (!pa || !pb || pa > pb)
    ock_test_fail(line, __FILE__, "expected \"%.80s\" (%s) before \"%.80s\" (%s)", a,
                  pa ? "found" : "missing", b, pb ? "found" : "missing");
  else
    CU_PASS("before");
}

static void test_html_failures_first(void) {
  cJSON *report = load_sample();
  int rc;
  char *html = render(&ock_report_writer_html, report, &rc);
  OCK_ASSERT_OK(rc);
  /* Above the run's metadata and the matrix: each failing check with its scenario,
   * requirement, check id and cause, and the crashed SUT's exit status and stderr. */
  const char *row = "<td class=\"mono\"><a href=\"#req-7\">OCK-PROC-003</a></td><td "
                    "class=\"mono\">proc.signal</td><td><span class=\"v v-FAIL\">FAIL</span></td>"
                    "<td>the SUT crashed (SIGSEGV)</td>";
  assert_before(html, "<section id=\"failures\">", "<section id=\"run\">", __LINE__);
  assert_before(html, row, "<section id=\"run\">", __LINE__);
  assert_before(html,
                "href=\"#sc-1\">injection-payloads</a></td><td class=\"mono\"><a "
                "href=\"#req-0\">OCK-COMPLETE-001</a></td><td class=\"mono\">complete.once",
                "<section id=\"requirements\">", __LINE__);
  assert_before(html, "<b>SUT process: killed by SIGSEGV</b>", "<section id=\"run\">", __LINE__);
  assert_before(html, "<pre class=\"tail\">Segmentation fault &lt;/pre&gt;&lt;img src=x",
                "<section id=\"run\">", __LINE__);
  /* An ERROR scenario is listed with its cause; the WARN and PASS ones are not. */
  assert_before(html,
                "cancel.status</td><td><span class=\"v v-ERROR\">ERROR</span></td><td>the "
                "scenario could not be graded",
                "<section id=\"run\">", __LINE__);
  OCK_ASSERT_CONTAINS(html, "3 failing checks in 2 scenarios");
  char *fails = strstr(html, "<section id=\"failures\">"),
       *end = strstr(html, "<section id=\"run\">");
  if (fails && end) {
    *end = '\0';
    OCK_ASSERT_NULL(strstr(fails, "tool.result_text"));
    OCK_ASSERT_NULL(strstr(fails, "tool-single-call"));
  }
  free(html);

  /* A shell's 139 and a long stderr: the status in words, the last lines only, escaped; a long
   * cause is cut with the whole in a title attribute. */
  cJSON *s = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(report, "scenarios"), 1);
  cJSON *p = cJSON_GetObjectItemCaseSensitive(s, "process");
  cJSON_ReplaceItemInObjectCaseSensitive(p, "signal", cJSON_CreateNull());
  cJSON_ReplaceItemInObjectCaseSensitive(p, "exit_code", cJSON_CreateNumber(139));
  struct ock_buf err;
  ock_buf_init(&err, 1 << 20);
  for (int i = 1; i <= 30; i++)
    OCK_ASSERT_OK(ock_buf_printf(&err, "line %d of the log\n", i));
  OCK_ASSERT_OK(ock_buf_puts(&err, "Segmentation fault <b>core dumped</b>\n"));
  cJSON_ReplaceItemInObjectCaseSensitive(p, "stderr", cJSON_CreateString(err.data));
  cJSON_ReplaceItemInObjectCaseSensitive(p, "stderr_bytes", cJSON_CreateNumber((double)err.len));
  ock_buf_free(&err);
  cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(s, "checks"), 1);
  char longmsg[600];
  memset(longmsg, 'x', sizeof longmsg - 8);
  memcpy(longmsg + sizeof longmsg - 8, "<end>\"", 7);
  cJSON_ReplaceItemInObjectCaseSensitive(c, "message", cJSON_CreateString(longmsg));
  html = render(&ock_report_writer_html, report, &rc);
  OCK_ASSERT_OK(rc);
  assert_before(html,
                "<b>SUT process: exit code 139 (128 + 11: a process under the shell was "
                "killed by SIGSEGV)</b>",
                "<section id=\"run\">", __LINE__);
  assert_before(html, "line 24 of the log\nline 25", "<section id=\"run\">", __LINE__);
  assert_before(html, "line 30 of the log\nSegmentation fault &lt;b&gt;core dumped&lt;/b&gt;</pre>",
                "<section id=\"run\">", __LINE__);
  fails = strstr(html, "<section id=\"failures\">");
  end = strstr(html, "<section id=\"run\">");
  if (fails && end) {
    *end = '\0';
    OCK_ASSERT_NULL(strstr(fails, "line 23 of the log"));
    OCK_ASSERT_CONTAINS(fails, "<span title=\"xxxx");
    OCK_ASSERT_CONTAINS(fails, "xxx&lt;end&gt;&quot;\">xxxx"); /* the whole, in the title */
    OCK_ASSERT_NULL(strstr(fails, "&lt;end&gt;&quot;</td>"));
  }
  free(html);

  /* A run where nothing failed says so in the same place. */
  const cJSON *sc;
  cJSON_ArrayForEach(sc, cJSON_GetObjectItemCaseSensitive(report, "scenarios")) {
    cJSON_ReplaceItemInObjectCaseSensitive((cJSON *)sc, "verdict", cJSON_CreateString("PASS"));
  }
  html = render(&ock_report_writer_html, report, &rc);
  assert_before(html, "No scenario failed or errored.", "<section id=\"run\">", __LINE__);
  free(html);
  cJSON_Delete(report);
}

/* The HTML entities count as one character each. */
static size_t shown_chars(const char *s, size_t n) {
  size_t chars = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '&') {
      const char *semi = memchr(s + i, ';', n - i);
      i = semi ? (size_t)(semi - s) : n;
    } else if (((unsigned char)s[i] & 0xC0) == 0x80) {
      continue;
    }
    chars++;
  }
  return chars;
}

static void test_html_diagram_arrows_and_labels(void) {
  cJSON *report = load_sample();
  int rc;
  char *html = render(&ock_report_writer_html, report, &rc);
  OCK_ASSERT_OK(rc);
  /* tool-result-text: the request goes from the SUT (x 385) to the LLM (x 555), its reply comes
   * back with the arrowhead at the SUT; the same for a tool and its result. */
  OCK_ASSERT_CONTAINS(html, "<line x1=\"385\" y1=\"72\" x2=\"548\" y2=\"72\"");
  OCK_ASSERT_CONTAINS(html, "<line x1=\"555\" y1=\"94\" x2=\"392\" y2=\"94\" stroke=\"#1a7f37\" "
                            "stroke-width=\"1.5\"/><polygon points=\"386,94 393,90 393,98\"");
  OCK_ASSERT_CONTAINS(html, "<line x1=\"385\" y1=\"160\" x2=\"718\" y2=\"160\"");
  OCK_ASSERT_CONTAINS(html, "<line x1=\"725\" y1=\"182\" x2=\"392\" y2=\"182\"");
  free(html);

  /* Long labels on every lane and on an unknown one: no label reaches the detail column (at
   * x 995, minus a gap), each is clipped before it whatever its glyphs, and a cut label keeps
   * its whole text in the row's title. */
  static const char *const lanes[] = {"harness", "sut",   "llm",
                                      "tool",    "fault", "a-lane-of-the-moon"};
  static const char *const prefixes[] = {"", "", "reply ", "tool done ", "", ""};
  cJSON *s = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(report, "scenarios"), 4);
  cJSON *tl = cJSON_CreateArray();
  for (int i = 0; i < 12; i++) {
    char label[200];
    snprintf(label, sizeof label,
             "%s%s-label-that-goes-on-and-on-%d-and-on-and-on-past-every-lane<>", prefixes[i % 6],
             i < 6 ? "a" : "\xe5\x90\x8d", i);
    cJSON *e = cJSON_CreateObject();
    cJSON_AddNumberToObject(e, "seq", i + 1);
    cJSON_AddNumberToObject(e, "t_ms", i);
    cJSON_AddStringToObject(e, "lane", lanes[i % 6]);
    cJSON_AddStringToObject(e, "label", label);
    cJSON_AddStringToObject(e, "detail", "d");
    cJSON_AddItemToArray(tl, e);
  }
  cJSON_ReplaceItemInObjectCaseSensitive(s, "timeline", tl);
  html = render(&ock_report_writer_html, report, &rc);
  OCK_ASSERT_OK(rc);
  int labels = 0;
  for (const char *t = strstr(html, "<text x=\""); t; t = strstr(t + 1, "<text x=\"")) {
    int x = (int)strtol(t + 9, NULL, 10);
    const char *open = strchr(t, '>'), *close = strstr(t, "</text>");
    if (!open || !close)
      break;
    OCK_ASSERT_CONTAINS(t, "clip-path=\"url(#lc-");
    size_t chars = shown_chars(open + 1, (size_t)(close - open - 1));
    if (x + (double)chars * 7.3 > 995 - 8 + 0.01)
      ock_test_fail(__LINE__, __FILE__,
                    "label at x %d with %zu characters reaches the detail "
                    "column: %.*s",
                    x, chars, (int)(close - open - 1), open + 1);
    labels++;
  }
  OCK_ASSERT_INT_GE(labels, 12);
  OCK_ASSERT_CONTAINS(html, "<clipPath id=\"lc-4\"><rect x=\"0\" y=\"0\" width=\"991\"");
  OCK_ASSERT_CONTAINS(html, "· fault · a-label-that-goes-on-and-on-4-and-on-and-on-past-every-lane"
                            "&lt;&gt; · d</title>");
  OCK_ASSERT_CONTAINS(html, "<text x=\"904\" y=\"142\" clip-path=\"url(#lc-4)\">a-label-th"
                            "\xe2\x80\xa6</text>");
  free(html);
  cJSON_Delete(report);
}

/* exit2_report: the sample as `ock run` leaves it after a fixture error: no scenario, the
 * reason in "error", exit code 2. */
static cJSON *exit2_report(void) {
  cJSON *report = load_sample();
  cJSON_ReplaceItemInObjectCaseSensitive(report, "scenarios", cJSON_CreateArray());
  OCK_ASSERT_OK(ock_report_summarize(report, NULL));
  cJSON_ReplaceItemInObjectCaseSensitive(report, "exit_code", cJSON_CreateNumber(2));
  cJSON_ReplaceItemInObjectCaseSensitive(report, "verdict", cJSON_CreateString("INCOMPLETE"));
  cJSON_AddStringToObject(report, "error",
                          "fixtures/x.json: $.session.providers[0].priority: expected one of "
                          "\"primary\", got \"<b>high</b>\"");
  return report;
}

static void test_exit2_run_in_every_format(void) {
  cJSON *report = exit2_report();
  int rc;
  const char *escaped = "fixtures/x.json: $.session.providers[0].priority: expected one of "
                        "&quot;primary&quot;, got &quot;&lt;b&gt;high&lt;/b&gt;&quot;";
  /* junit.xml: one <error> testcase, not an empty green suite. */
  char *xml = render(&ock_report_writer_junit, report, &rc);
  OCK_ASSERT_OK(rc);
  OCK_ASSERT_CONTAINS(xml, "tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\"");
  OCK_ASSERT_CONTAINS(xml, "<testcase classname=\"ock\" name=\"run\" time=\"0\">\n      <error "
                           "message=\"fixtures/x.json: $.session.providers[0].priority");
  OCK_ASSERT_CONTAINS(xml, "type=\"exit code 2\">The run did not grade the orchestrator");
  OCK_ASSERT_CONTAINS(xml, escaped);
  OCK_ASSERT_NULL(strstr(xml, "<b>"));
  free(xml);
  /* summary.md and report.html: why the run did not grade, first. */
  char *md = render(&ock_report_writer_markdown, report, &rc);
  OCK_ASSERT_OK(rc);
  OCK_ASSERT_CONTAINS(md, "**The run did not grade the orchestrator** (exit code 2: usage or "
                          "fixture error)");
  OCK_ASSERT_CONTAINS(md, "got \"&lt;b&gt;high&lt;/b&gt;\"");
  OCK_ASSERT_CONTAINS(md, "No requirement was tested.");
  OCK_ASSERT_NULL(strstr(md, "no scenario ran (none selected"));
  free(md);
  char *html = render(&ock_report_writer_html, report, &rc);
  OCK_ASSERT_OK(rc);
  assert_before(html,
                "<div class=\"runerr\" id=\"run-error\"><b>The run did not grade the "
                "orchestrator</b> (exit code 2: usage or fixture error)",
                "<section id=\"failures\">", __LINE__);
  assert_before(html, escaped, "<section id=\"failures\">", __LINE__);
  OCK_ASSERT_NULL(strstr(html, "Incomplete: no scenario ran"));
  OCK_ASSERT_CONTAINS(html, "<h2>Failures</h2>\n<p class=\"note\">No scenario ran.</p>");
  free(html);
  /* report.json: the exit code and the reason. */
  char *json = render(&ock_report_writer_json, report, &rc);
  OCK_ASSERT_OK(rc);
  cJSON *back = cJSON_Parse(json);
  OCK_ASSERT_INT_EQ(ock_json_int(back, "exit_code", -1), 2);
  OCK_ASSERT_STR_EQ(ock_json_str(back, "error"), ock_json_str(report, "error"));
  struct ock_jerr err;
  OCK_ASSERT_OK(ock_report_validate(back, &err));
  cJSON_Delete(back);
  free(json);
  /* Without the error, none of it. */
  cJSON_DeleteItemFromObjectCaseSensitive(report, "error");
  xml = render(&ock_report_writer_junit, report, &rc);
  OCK_ASSERT_CONTAINS(xml, "tests=\"0\" failures=\"0\" errors=\"0\"");
  free(xml);
  cJSON_Delete(report);
}

/* find_item: the item of array whose key is value. */
static cJSON *find_item(const cJSON *array, const char *key, const char *value) {
  cJSON *it;
  cJSON_ArrayForEach(it, array) {
    const char *v = ock_json_str(it, key);
    if (v && !strcmp(v, value))
      return it;
  }
  return NULL;
}

/* A failure the expected-failures baseline waived passes the run, and every format counts it
 * apart: not under PASS, not in "passed", listed on its own, a junit <skipped> that says so. */
static void test_waived_counted_apart(void) {
  cJSON *report = load_sample();
  cJSON *sc =
      find_item(cJSON_GetObjectItemCaseSensitive(report, "scenarios"), "id", "tool-single-call");
  cJSON *check =
      find_item(cJSON_GetObjectItemCaseSensitive(sc, "checks"), "id", "hook.modify_by_value");
  OCK_ASSERT_NOT_NULL_FATAL(check);
  cJSON_AddStringToObject(check, "waived", "WARN");
  cJSON_AddBoolToObject(check, "expected_failure", 1);
  cJSON_ReplaceItemInObjectCaseSensitive(sc, "expected_failure", cJSON_CreateBool(1));
  OCK_ASSERT_OK(ock_report_summarize(report, NULL));
  const cJSON *summary = cJSON_GetObjectItemCaseSensitive(report, "summary");
  const cJSON *counts = cJSON_GetObjectItemCaseSensitive(summary, "scenarios");
  const cJSON *should = cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(summary, "levels"), "SHOULD");
  OCK_ASSERT_INT_EQ(ock_json_int(counts, "PASS", -1), 0);
  OCK_ASSERT_INT_EQ(ock_json_int(counts, "waived", -1), 1);
  OCK_ASSERT_INT_EQ(ock_json_int(should, "passed", -1), 0);
  OCK_ASSERT_INT_EQ(ock_json_int(should, "total", -1), 2);
  OCK_ASSERT_INT_EQ(ock_json_int(should, "waived", -1), 1);
  const cJSON *req =
      find_item(cJSON_GetObjectItemCaseSensitive(report, "requirements"), "id", "OCK-HOOK-006");
  OCK_ASSERT_STR_EQ(ock_json_str(req, "verdict"), "WARN");
  OCK_ASSERT_TRUE(ock_json_bool(req, "waived", 0));
  struct ock_jerr err;
  OCK_ASSERT_OK(ock_report_validate(report, &err));
  int rc;
  char *md = render(&ock_report_writer_markdown, report, &rc);
  OCK_ASSERT_CONTAINS(md, "SHOULD 0/2, 1 waived");
  OCK_ASSERT_CONTAINS(md, "### Waived");
  OCK_ASSERT_CONTAINS(md, "| OCK-HOOK-006 | SHOULD | WARN |");
  OCK_ASSERT_CONTAINS(md, "| tool-single-call | PASS (waived) |");
  OCK_ASSERT_CONTAINS(md, "1 waived");
  free(md);
  char *html = render(&ock_report_writer_html, report, &rc);
  OCK_ASSERT_CONTAINS(html, "<section id=\"waived\">");
  OCK_ASSERT_CONTAINS(html, ", 1 waived");
  OCK_ASSERT_TRUE(strstr(html, "id=\"waived\"") < strstr(html, "id=\"requirements\""));
  free(html);
  char *xml = render(&ock_report_writer_junit, report, &rc);
  OCK_ASSERT_CONTAINS(xml, "<skipped message=\"WAIVED WARN (listed in --expected-failures)");
  OCK_ASSERT_CONTAINS(xml, "<property name=\"waived\" value=\"true\"/>");
  free(xml);
  cJSON_Delete(report);
}

static const struct ock_test tests[] = {
    {"golden_json", test_golden_json},
    {"golden_junit", test_golden_junit},
    {"golden_markdown", test_golden_markdown},
    {"golden_html", test_golden_html},
    {"html_shows_payloads_as_text", test_html_shows_payloads_as_text},
    {"html_is_self_contained", test_html_is_self_contained},
    {"junit_counts_and_markup", test_junit_counts_and_markup},
    {"junit_scenario_verdict_never_hidden", test_junit_scenario_verdict_never_hidden},
    {"markdown_tables_hold", test_markdown_tables_hold},
    {"invalid_utf8_is_replaced", test_invalid_utf8_is_replaced},
    {"writers_survive_malformed_reports", test_writers_survive_malformed_reports},
    {"long_timeline_is_capped", test_long_timeline_is_capped},
    {"html_failures_first", test_html_failures_first},
    {"html_diagram_arrows_and_labels", test_html_diagram_arrows_and_labels},
    {"exit2_run_in_every_format", test_exit2_run_in_every_format},
    {"waived_counted_apart", test_waived_counted_apart},
    {NULL, NULL}};

const struct ock_suite suite_report_golden = {"report_golden", tests, NULL, NULL};
