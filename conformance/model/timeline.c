/* timeline.c: the sequence diagram's rows from a journal (see timeline.h). */
#include "model/timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/view.h"
#include "ock/contract.h"
#include "ock/json.h"
#include "ock/utf8.h"

#define DETAIL_MAX 160 /* bytes of a row's detail before "..." */

/* failing_seq: seq is evidence of a check in checks that did not pass. */
static int failing_seq(const cJSON *checks, long seq) {
  const cJSON *c, *ev;
  cJSON_ArrayForEach(c, checks) {
    const char *v = ock_json_str(c, "verdict");
    if (!v || (strcmp(v, OCK_V_FAIL) && strcmp(v, OCK_V_WARN) && strcmp(v, OCK_V_ERROR)))
      continue;
    cJSON_ArrayForEach(ev, cJSON_GetObjectItemCaseSensitive(c, "evidence")) {
      if (cJSON_IsNumber(ev) && (long)ev->valuedouble == seq)
        return 1;
    }
  }
  return 0;
}

struct row {
  const char *lane;
  char label[200];
  const char *detail; /* borrowed, or text below */
  char *text;         /* owned detail, or NULL */
};

static void add_row(cJSON *rows, const cJSON *e, const struct row *r, int failed) {
  cJSON *row = cJSON_CreateObject();
  if (!row || !cJSON_AddItemToArray(rows, row)) {
    cJSON_Delete(row);
    return;
  }
  cJSON_AddNumberToObject(row, "seq", ock_json_num(e, OCK_F_SEQ, 0));
  cJSON_AddNumberToObject(row, "t_ms", ock_json_num(e, OCK_F_T_MS, 0));
  cJSON_AddStringToObject(row, "lane", r->lane);
  char l[sizeof r->label], d[DETAIL_MAX + 4];
  const char *detail = r->text ? r->text : r->detail ? r->detail : "";
  snprintf(l, sizeof l, "%s", r->label);
  ock_utf8_scrub(l);
  cJSON_AddStringToObject(row, "label", l);
  snprintf(d, sizeof d, "%.*s%s", DETAIL_MAX, detail, strlen(detail) > DETAIL_MAX ? "..." : "");
  ock_utf8_scrub(d); /* the cut may have split a character */
  cJSON_AddStringToObject(row, "detail", d);
  cJSON_AddBoolToObject(row, "failed", failed);
}

static const char *s_or(const cJSON *o, const char *k, const char *dflt) {
  const char *s = ock_json_str(o, k);
  return s ? s : dflt;
}

/* event_row: an event POST, labelled with a reply other than continue. */
static void event_row(const cJSON *e, struct row *r) {
  const char *action = ock__event_action(e);
  int plain = !strcmp(action, OCK_PV_HOOK_RESULT_ACTION_CONTINUE);
  r->lane = "sut";
  r->text = ock_json_print(cJSON_GetObjectItemCaseSensitive(e, OCK_F_EVENT_DATA));
  snprintf(r->label, sizeof r->label, "%s%s%s", s_or(e, OCK_F_EVENT_EVENT, "?"),
           plain ? "" : " -> ", plain ? "" : action);
}

static void request_row(const cJSON *e, struct row *r) {
  const cJSON *hist = cJSON_GetObjectItemCaseSensitive(e, OCK_F_LLM_REQUEST_NEUTRAL);
  const cJSON *last = cJSON_GetArrayItem(hist, cJSON_GetArraySize(hist) - 1);
  r->lane = "llm";
  snprintf(r->label, sizeof r->label, "request %s%s (%d messages)",
           s_or(e, OCK_F_LLM_REQUEST_PROVIDER, "?"),
           ock_json_bool(e, OCK_F_LLM_REQUEST_STREAM, 0) ? " stream" : "",
           cJSON_GetArraySize(hist));
  r->detail = s_or(last, "content", "");
}

static void reply_row(const cJSON *e, struct row *r) {
  const cJSON *calls = cJSON_GetObjectItemCaseSensitive(e, OCK_F_LLM_REPLY_TOOL_CALLS);
  const char *fault = ock_json_str(e, OCK_F_LLM_REPLY_FAULT);
  r->lane = "llm";
  snprintf(
      r->label, sizeof r->label, "reply %lld%s%s%s", ock_json_int(e, OCK_F_LLM_REPLY_STATUS, 0),
      cJSON_GetArraySize(calls) ? " tool calls" : "", fault ? " fault " : "", fault ? fault : "");
  r->text = cJSON_GetArraySize(calls) ? ock_json_print(calls) : NULL;
  r->detail = s_or(e, OCK_F_LLM_REPLY_TEXT, "");
}

/* entry_row: the lane, label and detail of one journal entry. */
static void entry_row(const cJSON *e, struct row *r) {
  r->lane = "fault";
  switch (ock_journal_kind_parse(ock__entry_kind(e))) {
  case OCK_ENTRY_EVENT:
    event_row(e, r);
    break;
  case OCK_ENTRY_LLM_REQUEST:
    request_row(e, r);
    break;
  case OCK_ENTRY_LLM_REPLY:
    reply_row(e, r);
    break;
  case OCK_ENTRY_TOOL_START:
    r->lane = "tool";
    snprintf(r->label, sizeof r->label, "tool %s", s_or(e, OCK_F_TOOL_START_NAME, "?"));
    r->text = ock_json_print(cJSON_GetObjectItemCaseSensitive(e, OCK_F_TOOL_START_INPUT));
    break;
  case OCK_ENTRY_TOOL_END:
    r->lane = "tool";
    snprintf(r->label, sizeof r->label, "tool done %s", s_or(e, OCK_F_TOOL_END_NAME, "?"));
    r->text = ock_json_print(cJSON_GetObjectItemCaseSensitive(e, OCK_F_TOOL_END_REPLY));
    break;
  case OCK_ENTRY_CANCEL:
    r->lane = "harness";
    snprintf(r->label, sizeof r->label, "SIGINT");
    r->detail = s_or(e, OCK_F_CANCEL_TRIGGER, "");
    break;
  case OCK_ENTRY_SESSION:
    r->lane = "sut";
    snprintf(r->label, sizeof r->label, "GET session");
    break;
  case OCK_ENTRY_MCP_SESSION:
    r->lane = "sut";
    snprintf(r->label, sizeof r->label, "%s",
             ock_json_bool(e, OCK_F_MCP_SESSION_CLOSED, 0) ? "MCP session ended" : "MCP session");
    r->detail = s_or(e, OCK_F_MCP_SESSION_PROTOCOL_VERSION, "");
    break;
  default:
    snprintf(r->label, sizeof r->label, "%s %s", ock__entry_kind(e),
             s_or(e, OCK_F_FINDING_SHAPE, ""));
    r->text = ock_json_print(e);
    break;
  }
}

cJSON *ock__timeline_build(const cJSON *journal, const cJSON *checks, size_t max) {
  cJSON *rows = cJSON_CreateArray();
  size_t n = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, journal) {
    if (!rows || n++ >= max)
      break;
    struct row r = {0};
    entry_row(e, &r);
    add_row(rows, e, &r, failing_seq(checks, ock__entry_seq(e)));
    free(r.text);
  }
  return rows;
}
