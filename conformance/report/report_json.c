/*
 * report_json.c: the "json" report writer: report.json, the report tree itself, pretty-printed.
 *
 * report.json is the document every other format is rendered from and the input of
 * `ock merge`, so this writer adds nothing and leaves nothing out.
 */
#include "report/report.h"
#include "report/render.h"

#include <stdlib.h>

#include "ock/status.h"

static void render_json(struct ock_doc *d) {
  char *text = cJSON_Print(d->m->report);
  if (!text) {
    ock_doc_fail(d, OCK_ENOMEM);
    return;
  }
  ock_doc_put(d, text);
  ock_doc_put(d, "\n");
  free(text);
}

const struct ock_report_writer ock_report_writer_json = {"json", "report.json", render_json};
