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

#include "escape.h"
#include "ock/status.h"
#include "report.h"
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
  *rc = w->write(report, f);
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
      "!DOCTYPE", "html", "head", "meta",    "title",   "style",   "body",   "header", "h1",
      "h2",       "h3",   "h4",   "p",       "span",    "b",       "table",  "tr",     "th",
      "td",       "a",    "main", "section", "details", "summary", "div",    "pre",    "svg",
      "text",     "line", "rect", "polygon", "circle",  "g",       "footer", NULL};
  cJSON *report = load_sample();
  int rc;
  char *html = render(&ock_report_writer_html, report, &rc);
  OCK_ASSERT_OK(rc);
  assert_only_tags(html, tags, __LINE__);
  OCK_ASSERT_INT_EQ(strstr(html, "<script") == NULL, 1);
  OCK_ASSERT_INT_EQ(strstr(html, "<img") == NULL, 1);
  OCK_ASSERT_CONTAINS(html, "&lt;script&gt;alert(1)&lt;/script&gt;");
  OCK_ASSERT_CONTAINS(html, "&lt;/pre&gt;&lt;img src=x onerror=alert(2)&gt;");
  /* Inside the SVG too: the timeline detail of injection-payloads, seq 6. */
  OCK_ASSERT_CONTAINS(html, "<text class=\"d\" x=\"995\" y=\"164\">tool_name "
                            "&lt;script&gt;alert(1)&lt;/script&gt;" OCK_ESCAPE_REPLACEMENT);
  OCK_ASSERT_CONTAINS(html, "Content-Security-Policy");
  OCK_ASSERT_INT_EQ(ock_utf8_valid(html, strlen(html)), 1);
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
  OCK_ASSERT_INT_EQ(urls, 4); /* one per drawn timeline: stream-text has none */
  OCK_ASSERT_INT_EQ(strstr(html, " src=\"") == NULL, 1);
  OCK_ASSERT_INT_EQ(strstr(html, "<link") == NULL, 1);
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
  OCK_ASSERT_CONTAINS(xml, "tests=\"12\" failures=\"2\" errors=\"1\" skipped=\"1\"");
  OCK_ASSERT_CONTAINS(xml, "]]&gt;");
  OCK_ASSERT_INT_EQ(strstr(xml, "]]>") == NULL, 1);
  OCK_ASSERT_INT_EQ(strchr(xml, '\x1b') == NULL, 1);
  OCK_ASSERT_INT_EQ(ock_utf8_valid(xml, strlen(xml)), 1);
  free(xml);
  /* Under --strict a WARN check is a failure. */
  cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(report, "options"),
                                         "strict", cJSON_CreateTrue());
  xml = render(&ock_report_writer_junit, report, &rc);
  OCK_ASSERT_CONTAINS(xml, "tests=\"12\" failures=\"3\" errors=\"1\" skipped=\"1\"");
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
  OCK_ASSERT_CONTAINS(xml, "tests=\"12\" failures=\"2\" errors=\"1\" skipped=\"1\"");
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
  OCK_ASSERT_INT_EQ(strchr(text, '<') == NULL, 1);
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
    OCK_ASSERT_INT_EQ(ock_utf8_valid(out, strlen(out)), 1);
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
      OCK_ASSERT_INT_EQ(out != NULL, 1);
      if (out && i > 0)
        OCK_ASSERT_INT_EQ(strstr(out, "<x>") == NULL, 1);
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
    {NULL, NULL}};

const struct ock_suite suite_report_golden = {"report_golden", tests, NULL, NULL};
