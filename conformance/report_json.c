/*
 * report_json.c: the "json" report writer: report.json, the report tree itself, pretty-printed.
 *
 * report.json is the document every other format is rendered from and the input of
 * `ock merge`, so this writer adds nothing and leaves nothing out.
 */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include "ock/status.h"

static int write_json(const cJSON *report, FILE *out) {
  char *text = cJSON_Print(report);
  if (!text)
    return OCK_ENOMEM;
  size_t len = strlen(text);
  int rc = OCK_OK;
  if (len > OCK_CAP_REPORT_OUT)
    rc = OCK_ETOOBIG;
  else if (fwrite(text, 1, len, out) != len || fputc('\n', out) == EOF)
    rc = OCK_EIO;
  free(text);
  return rc;
}

const struct ock_report_writer ock_report_writer_json = {"json", "report.json", write_json};
