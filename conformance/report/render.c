/*
 * render.c: the report model and the shared document writer (see render.h), and
 * ock_report_render, which runs one renderer over them and writes the document out.
 */
#include "report/render.h"

#include <stdarg.h>
#include <string.h>

#include "ock/caps.h"
#include "ock/json.h"
#include "ock/status.h"
#include "report/escape.h"
#include "report/report.h"

void ock_report_model_read(struct ock_report_model *m, const cJSON *report) {
  memset(m, 0, sizeof *m);
  m->report = report;
  m->orchestrator = cJSON_GetObjectItemCaseSensitive(report, "orchestrator");
  m->options = cJSON_GetObjectItemCaseSensitive(report, "options");
  m->kit = cJSON_GetObjectItemCaseSensitive(report, "kit");
  m->summary = cJSON_GetObjectItemCaseSensitive(report, "summary");
  m->scenarios = cJSON_GetObjectItemCaseSensitive(report, "scenarios");
  m->requirements = cJSON_GetObjectItemCaseSensitive(report, "requirements");
  m->verdict = ock_json_str(report, "verdict");
  m->error = ock_json_str(report, "error");
  m->exit_code = ock_json_int(report, "exit_code", -1);
  m->strict = ock_json_bool(m->options, "strict", 0);
}

int ock_report_index_of(const cJSON *array, const char *id) {
  const cJSON *e;
  int i = 0;
  cJSON_ArrayForEach(e, array) {
    const char *eid = ock_json_str(e, "id");
    if (id && eid && !strcmp(eid, id))
      return i;
    i++;
  }
  return -1;
}

void ock_doc_fail(struct ock_doc *d, int rc) {
  if (!d->rc)
    d->rc = rc;
}

void ock_doc_put(struct ock_doc *d, const char *s) {
  if (!d->rc)
    d->rc = ock_buf_puts(&d->b, s);
}

void ock_doc_putf(struct ock_doc *d, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (!d->rc)
    d->rc = ock_buf_vprintf(&d->b, fmt, ap);
  va_end(ap);
}

void ock_doc_xml(struct ock_doc *d, const char *s, size_t limit, unsigned flags) {
  if (!d->rc)
    d->rc = ock_escape_xml(&d->b, s, limit, flags);
}

void ock_doc_md(struct ock_doc *d, const char *s, size_t limit) {
  if (!d->rc)
    d->rc = ock_escape_markdown(&d->b, s, limit);
}

void ock_doc_text(struct ock_doc *d, const char *s) {
  ock_doc_xml(d, s, 0, OCK_ESC_TEXT);
}

void ock_doc_duration(struct ock_doc *d, double ms, int decimals) {
  if (ms < 1000)
    ock_doc_putf(d, "%.0f ms", ms < 0 ? 0 : ms);
  else
    ock_doc_putf(d, "%.*f s", decimals, ms / 1000.0);
}

int ock_report_render(const struct ock_report_writer *w, const cJSON *report, FILE *out) {
  struct ock_report_model m;
  struct ock_doc d = {.m = &m, .rc = OCK_OK};
  ock_report_model_read(&m, report);
  ock_buf_init(&d.b, OCK_MAX_REPORT_OUT);
  w->render(&d);
  int rc = d.rc;
  if (!rc && d.b.len && fwrite(d.b.data, 1, d.b.len, out) != d.b.len)
    rc = OCK_EIO;
  ock_buf_free(&d.b);
  return rc;
}
