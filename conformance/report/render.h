/*
 * render.h: what every report renderer gets: the report model, read once, and the shared
 * document writer.
 *
 * A renderer (report_json.c, report_junit.c, report_markdown.c, report_html.c) is one function
 * from the model to a document: it never opens a file and never writes bytes of its own. The
 * model is report.json's tree (borrowed, never modified) with the members every renderer looks
 * up already found; the writer is an ock_buf capped at OCK_MAX_REPORT_OUT whose first error
 * sticks, so a renderer appends piece after piece and the error is checked once, when
 * ock_report_render writes the document out. Every string from the report goes through the
 * writer's escaping functions (escape.h), never through put.
 */
#ifndef OCK_REPORT_RENDER_H
#define OCK_REPORT_RENDER_H

#include <stddef.h>

#include <cJSON.h>

#include "ock/caps.h"
#include "ock/buf.h"

/* The index of each "id" in an array of the report (scenarios, requirements): the first
 * item's, found by binary search. Renderers link every scenario and requirement by index, and
 * with a linear search a run of a few hundred scenarios spent most of its report time there. */
struct ock_report_id {
  const char *id; /* borrowed from the tree */
  int at;
};
struct ock_report_ids {
  const cJSON *array;        /* what is indexed; searched linearly when ids is NULL */
  struct ock_report_id *ids; /* sorted by id, then at; owned by the model */
  size_t n;
};

/* The report, read once for every renderer. Every pointer is borrowed from the tree and may
 * be NULL when the member is absent. */
struct ock_report_model {
  const cJSON *report;
  const cJSON *orchestrator, *options, *kit, *summary;
  const cJSON *scenarios;    /* array */
  const cJSON *requirements; /* array */
  const char *verdict;       /* the run's verdict */
  const char *error;         /* why the run did not grade (exit code 2), or NULL */
  long long exit_code;       /* -1 when absent */
  int strict;                /* options.strict */
  struct ock_report_ids scenario_ids, requirement_ids;
};

/* ock_report_model_read fills m from report (borrowed for m's lifetime); free it with
 * ock_report_model_free. Out of memory, the id lookups fall back to a linear search. */
void ock_report_model_read(struct ock_report_model *m, const cJSON *report);
void ock_report_model_free(struct ock_report_model *m);

/* ock_report_index_of: the index in ix's array (&m->scenario_ids, &m->requirement_ids) of the
 * first item whose "id" is id, or -1 (id NULL: -1). Renderers link by index, never by a
 * report string. */
int ock_report_index_of(const struct ock_report_ids *ix, const char *id);

/* The document being rendered: the model it renders, its bytes, and the first error
 * (OCK_ETOOBIG past the cap, OCK_ENOMEM). Once rc is set, nothing more is appended. */
struct ock_doc {
  const struct ock_report_model *m; /* borrowed */
  struct ock_buf b;
  int rc;
};

/* ock_doc_put appends s as it is: only for the renderer's own markup, never a report string. */
void ock_doc_put(struct ock_doc *d, const char *s);
void ock_doc_putf(struct ock_doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* ock_doc_xml appends s escaped for XML/HTML (escape.h: limit in characters, 0 for all; flags
 * one of enum ock_escape_flags); ock_doc_md escaped for a Markdown table cell. */
void ock_doc_xml(struct ock_doc *d, const char *s, size_t limit, unsigned flags);
void ock_doc_md(struct ock_doc *d, const char *s, size_t limit);
/* ock_doc_text: ock_doc_xml of all of s as element content. */
void ock_doc_text(struct ock_doc *d, const char *s);
/* ock_doc_duration appends a duration for a person: "840 ms", or seconds with `decimals`
 * decimals from one second on ("1.25 s"). */
void ock_doc_duration(struct ock_doc *d, double ms, int decimals);
/* ock_doc_fail records rc (an OCK_E* code) unless an error is recorded already. */
void ock_doc_fail(struct ock_doc *d, int rc);

/* ock_report_scenario_cause: the check a scenario result (report.json's shape) names as the
 * cause of its verdict: the first FAIL or ERROR whose verdict is the scenario's own (an ERROR
 * scenario names its harness failure, such as a journal cut at its cap, not a FAIL that the
 * cut evidence produced), else the first FAIL or ERROR; NULL when none has a message. */
const cJSON *ock_report_scenario_cause(const cJSON *scenario);

#endif
