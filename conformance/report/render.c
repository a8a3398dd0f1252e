/*
 * render.c: the report model and the shared document writer (see render.h), and
 * ock_report_render, which runs one renderer over them and writes the document out.
 */
#include "report/render.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ock/caps.h"
#include "ock/contract.h"
#include "ock/json.h"
#include "ock/status.h"
#include "report/escape.h"
#include "report/report.h"

static int id_cmp(const void *a, const void *b) {
  const struct ock_report_id *x = a, *y = b;
  int c = strcmp(x->id, y->id);
  return c ? c : (x->at > y->at) - (x->at < y->at);
}

/* ids_build indexes array's items that have an "id"; leaves ix->ids NULL out of memory. */
static void ids_build(struct ock_report_ids *ix, const cJSON *array) {
  memset(ix, 0, sizeof *ix);
  ix->array = array;
  int n = cJSON_GetArraySize(array);
  if (n <= 0 || !(ix->ids = malloc((size_t)n * sizeof *ix->ids)))
    return;
  const cJSON *e;
  int i = 0;
  cJSON_ArrayForEach(e, array) {
    const char *id = ock_json_str(e, "id");
    if (id)
      ix->ids[ix->n++] = (struct ock_report_id){id, i};
    i++;
  }
  qsort(ix->ids, ix->n, sizeof *ix->ids, id_cmp);
}

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
  ids_build(&m->scenario_ids, m->scenarios);
  ids_build(&m->requirement_ids, m->requirements);
}

void ock_report_model_free(struct ock_report_model *m) {
  free(m->scenario_ids.ids);
  free(m->requirement_ids.ids);
  m->scenario_ids.ids = m->requirement_ids.ids = NULL;
}

int ock_report_index_of(const struct ock_report_ids *ix, const char *id) {
  if (!id)
    return -1;
  if (!ix->ids) {
    const cJSON *e;
    int i = 0;
    cJSON_ArrayForEach(e, ix->array) {
      const char *eid = ock_json_str(e, "id");
      if (eid && !strcmp(eid, id))
        return i;
      i++;
    }
    return -1;
  }
  size_t lo = 0, hi = ix->n; /* the first entry whose id is not below id */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (strcmp(ix->ids[mid].id, id) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < ix->n && !strcmp(ix->ids[lo].id, id) ? ix->ids[lo].at : -1;
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
  ock_report_model_free(&m);
  return rc;
}

const cJSON *ock_report_scenario_cause(const cJSON *r) {
  const char *verdict = ock_json_str(r, "verdict");
  const cJSON *c, *first = NULL;
  cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(r, "checks")) {
    const char *v = ock_json_str(c, "verdict");
    if (!v || !ock_json_str(c, "message") || (strcmp(v, OCK_V_FAIL) && strcmp(v, OCK_V_ERROR)))
      continue;
    if (verdict && !strcmp(v, verdict))
      return c;
    if (!first)
      first = c;
  }
  return first;
}
