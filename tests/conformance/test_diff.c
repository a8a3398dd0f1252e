/*
 * test_diff.c: `ock diff` and the comparison under it (model/event_diff.h). Each kind of change
 * is made once, by editing a known-good log, and must be found with its key, and only it; run-to-
 * run values (ids, trace ids, timestamps) must never show as a change.
 */
#include "runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/event_diff.h"
#include "ock/json.h"

#ifndef OCK_BIN_DIR
#define OCK_BIN_DIR "build"
#endif

/* One execute with a tool call: the log the edits start from. %s: the call id, the trace id. */
static const char good[] =
    "["
    "{\"event\":\"prompt:submit\",\"data\":{\"prompt\":\"hi\",\"trace_id\":\"%s\"}},"
    "{\"event\":\"provider:request\",\"data\":{\"provider\":\"p\",\"iteration\":1}},"
    "{\"event\":\"provider:response\",\"data\":{\"content\":\"\",\"tool_calls\":[{\"id\":\"%s\","
    "\"name\":\"t\"}],\"usage\":{\"input_tokens\":3}}},"
    "{\"event\":\"tool:pre\",\"data\":{\"tool_call_id\":\"%s\",\"tool_name\":\"t\"}},"
    "{\"event\":\"tool:post\",\"data\":{\"tool_call_id\":\"%s\",\"tool_name\":\"t\",\"result\":"
    "{\"output\":\"ok\"}}},"
    "{\"event\":\"provider:request\",\"data\":{\"provider\":\"p\",\"iteration\":2}},"
    "{\"event\":\"provider:response\",\"data\":{\"content\":\"done\",\"tool_calls\":[],"
    "\"usage\":{\"input_tokens\":9}}},"
    "{\"event\":\"prompt:complete\",\"data\":{\"prompt\":\"hi\",\"response\":\"done\"}},"
    "{\"event\":\"orchestrator:complete\",\"data\":{\"orchestrator\":\"o\",\"turn_count\":2,"
    "\"status\":\"success\"}}"
    "]";

/* parse_log: good with the given ids, then edit applied (a function of the events), split. */
static cJSON *events_with(const char *call, const char *trace) {
  char text[4096];
  snprintf(text, sizeof text, good, trace, call, call, call);
  cJSON *events = NULL;
  struct ock_jerr err;
  OCK_ASSERT_OK(ock_json_parse(text, strlen(text), &events, &err));
  return events;
}

/* changes_between compares two event lists (the caller's) and returns the changes. */
static cJSON *changes_between(const cJSON *a, const cJSON *b) {
  cJSON *la = ock__diff_split(a), *lb = ock__diff_split(b), *changes = cJSON_CreateArray();
  OCK_ASSERT_INT_EQ(ock__diff_executes(la, lb, "s", changes), 0);
  cJSON_Delete(la);
  cJSON_Delete(lb);
  return changes;
}

/* keys: the changes' keys joined with "; " (breaking ones marked !). */
static const char *keys(const cJSON *changes) {
  static char out[2048];
  size_t at = 0;
  const cJSON *c;
  out[0] = '\0';
  cJSON_ArrayForEach(c, changes) {
    at += (size_t)snprintf(out + at, sizeof out - at, "%s%s%s", at ? "; " : "",
                           cJSON_IsTrue(cJSON_GetObjectItem(c, "breaking")) ? "!" : "",
                           ock_json_str(c, "key"));
    if (at >= sizeof out)
      break;
  }
  return out;
}

static cJSON *data_of(cJSON *events, int i) {
  return cJSON_GetObjectItem(cJSON_GetArrayItem(events, i), "data");
}

static void fresh_ids_and_trace_are_no_change(void) {
  cJSON *a = events_with("call_1", "ock-aaaa"), *b = events_with("call_zz9", "ock-bbbb");
  cJSON *c = changes_between(a, b);
  OCK_ASSERT_STR_EQ(keys(c), "");
  cJSON_Delete(c);
  cJSON_Delete(a);
  cJSON_Delete(b);
}

static void removed_added_and_moved_events(void) {
  cJSON *a = events_with("c", "t"), *b = events_with("c", "t");
  cJSON_DeleteItemFromArray(b, 8); /* orchestrator:complete */
  cJSON *c = changes_between(a, b);
  OCK_ASSERT_STR_EQ(keys(c), "!event-removed orchestrator:complete; !status; !turn_count");
  cJSON_Delete(c);
  cJSON_Delete(b);
  b = events_with("c", "t");
  cJSON_AddItemToArray(b, cJSON_Duplicate(cJSON_GetArrayItem(b, 7), 1)); /* prompt:complete */
  c = changes_between(a, b);
  OCK_ASSERT_STR_EQ(keys(c), "!event-added prompt:complete");
  cJSON_Delete(c);
  cJSON_Delete(b);
  b = events_with("c", "t");
  cJSON *pc = cJSON_DetachItemFromArray(b, 7); /* prompt:complete after orchestrator:complete */
  cJSON_AddItemToArray(b, pc);
  c = changes_between(a, b);
  OCK_ASSERT_STR_EQ(keys(c), "!event-moved prompt:complete");
  cJSON_Delete(c);
  cJSON_Delete(a);
  cJSON_Delete(b);
}

static void fields_removed_retyped_and_added(void) {
  cJSON *a = events_with("c", "t"), *b = events_with("c", "t");
  cJSON_DeleteItemFromObject(data_of(b, 3), "tool_call_id");
  cJSON_ReplaceItemInObject(data_of(b, 8), "turn_count", cJSON_CreateString("2"));
  cJSON_AddStringToObject(data_of(b, 1), "model", "m");
  cJSON *c = changes_between(a, b);
  OCK_ASSERT_STR_EQ(keys(c), "field-added provider:request data.model; "
                             "!field-removed tool:pre data.tool_call_id; "
                             "!field-type orchestrator:complete data.turn_count; !turn_count; "
                             "!pairing"); /* a tool:pre without its id pairs with nothing */
  cJSON_Delete(c);
  cJSON_Delete(a);
  cJSON_Delete(b);
}

static void nested_field_removed(void) {
  cJSON *a = events_with("c", "t"), *b = events_with("c", "t");
  cJSON_DeleteItemFromObject(cJSON_GetObjectItem(data_of(b, 6), "usage"), "input_tokens");
  cJSON *c = changes_between(a, b);
  OCK_ASSERT_STR_EQ(keys(c), "!field-removed provider:response data.usage.input_tokens");
  cJSON_Delete(c);
  cJSON_Delete(a);
  cJSON_Delete(b);
}

static void pairing_and_outcome_values(void) {
  cJSON *a = events_with("c", "t"), *b = events_with("c", "t");
  cJSON *post = cJSON_GetArrayItem(b, 4);
  cJSON_ReplaceItemInObject(post, "event", cJSON_CreateString("tool:error"));
  cJSON_ReplaceItemInObject(data_of(b, 8), "status", cJSON_CreateString("error"));
  cJSON *c = changes_between(a, b);
  OCK_ASSERT_STR_EQ(keys(c), "!event-removed tool:post; !event-added tool:error; !status; "
                             "!pairing");
  const cJSON *pairing = cJSON_GetArrayItem(c, 3);
  OCK_ASSERT_STR_EQ(ock_json_str(pairing, "old"), "t:post");
  OCK_ASSERT_STR_EQ(ock_json_str(pairing, "new"), "t:error");
  cJSON_Delete(c);
  cJSON_Delete(a);
  cJSON_Delete(b);
}

static void execute_count(void) {
  cJSON *a = events_with("c", "t"), *b = events_with("c", "t"), *two = events_with("d", "t");
  cJSON *e;
  cJSON_ArrayForEach(e, two)
    cJSON_AddItemToArray(b, cJSON_Duplicate(e, 1));
  cJSON *c = changes_between(a, b);
  OCK_ASSERT_STR_EQ(keys(c), "!executes");
  cJSON_Delete(c);
  cJSON_Delete(a);
  cJSON_Delete(b);
  cJSON_Delete(two);
}

/* ---- the command ----------------------------------------------------------------------------- */

static char dir[64];

static int setup(void) {
  return ock_test_tmpdir(dir, "diff");
}

static int teardown(void) {
  return ock_test_rmdir(dir);
}

/* write_log writes events as JSON Lines to dir/name. */
static void write_log(const char *name, const cJSON *events) {
  char path[128];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  const cJSON *e;
  cJSON_ArrayForEach(e, events) {
    char *t = cJSON_PrintUnformatted(e);
    fprintf(f, "%s\n", t);
    free(t);
  }
  fclose(f);
}

/* ock_diff runs `ock diff ARGS` in dir; returns its exit code and its stdout+stderr in out. */
static int ock_diff(const char *args, char **out) {
  char cmd[1024], path[128];
  snprintf(path, sizeof path, "%s/out.txt", dir);
  snprintf(cmd, sizeof cmd, "%s/bin/ock diff %s >%s 2>&1", OCK_BIN_DIR, args, path);
  int code = ock_test_sh(cmd);
  *out = ock_test_read_file(path);
  return code;
}

static void command_exit_codes_and_allow_list(void) {
  cJSON *a = events_with("c1", "t1"), *b = events_with("c2", "t2");
  write_log("old.jsonl", a);
  write_log("same.jsonl", b);
  cJSON_DeleteItemFromArray(b, 8);
  write_log("new.jsonl", b);
  char args[512], *out = NULL;
  snprintf(args, sizeof args, "%s/old.jsonl %s/same.jsonl", dir, dir);
  OCK_ASSERT_INT_EQ(ock_diff(args, &out), 0);
  OCK_ASSERT_CONTAINS(out, "same contract");
  free(out);
  snprintf(args, sizeof args, "%s/old.jsonl %s/new.jsonl", dir, dir);
  OCK_ASSERT_INT_EQ(ock_diff(args, &out), 1);
  OCK_ASSERT_CONTAINS(out, "BREAKING execute 1: event-removed orchestrator:complete");
  OCK_ASSERT_CONTAINS(out, "REGRESSION");
  free(out);
  char allow[128];
  snprintf(allow, sizeof allow, "%s/allow.txt", dir);
  FILE *f = fopen(allow, "w");
  fputs("# the new build ends without orchestrator:complete, on purpose\n"
        "event-removed orchestrator:*\nstatus\n",
        f);
  fclose(f);
  snprintf(args, sizeof args, "%s/old.jsonl %s/new.jsonl --allow %s", dir, dir, allow);
  OCK_ASSERT_INT_EQ(ock_diff(args, &out), 1); /* turn_count is not allowed */
  OCK_ASSERT_CONTAINS(out, "BREAKING execute 1: turn_count");
  OCK_ASSERT_CONTAINS(out, "allowed  execute 1: status");
  free(out);
  f = fopen(allow, "a");
  fputs("[*] turn_count\n", f);
  fclose(f);
  snprintf(args, sizeof args, "%s/old.jsonl %s/new.jsonl --allow %s --format json", dir, dir,
           allow);
  OCK_ASSERT_INT_EQ(ock_diff(args, &out), 0);
  cJSON *j = cJSON_Parse(out);
  OCK_ASSERT_STR_EQ(ock_json_str(j, "verdict"), "compatible");
  OCK_ASSERT_INT_EQ((int)ock_json_num(j, "allowed", -1), 3);
  cJSON_Delete(j);
  free(out);
  cJSON_Delete(a);
  cJSON_Delete(b);
}

static void bad_input_names_the_file_and_line(void) {
  char path[128], args[512], *out = NULL;
  snprintf(path, sizeof path, "%s/bad.jsonl", dir);
  FILE *f = fopen(path, "w");
  fputs("{\"event\":\"prompt:submit\",\"data\":{}}\n{\"event\":\"x\"}\n", f);
  fclose(f);
  snprintf(args, sizeof args, "%s %s", path, path);
  OCK_ASSERT_INT_EQ(ock_diff(args, &out), 2);
  OCK_ASSERT_CONTAINS(out, "bad.jsonl:2: $.event (a string) and $.data (an object) are expected");
  free(out);
  cJSON *good_log = events_with("c", "t");
  write_log("good.jsonl", good_log);
  cJSON_Delete(good_log);
  snprintf(args, sizeof args, "%s/good.jsonl %s/nowhere.jsonl", dir, dir);
  OCK_ASSERT_INT_EQ(ock_diff(args, &out), 2);
  OCK_ASSERT_CONTAINS(out, "nowhere.jsonl: cannot be read");
  free(out);
  snprintf(args, sizeof args, "%s/good.jsonl %s", dir, dir); /* a directory with no report */
  OCK_ASSERT_INT_EQ(ock_diff(args, &out), 2);
  OCK_ASSERT_CONTAINS(out, "report.json");
  free(out);
}

static const struct ock_test tests[] = {
    {"fresh_ids_and_trace_are_no_change", fresh_ids_and_trace_are_no_change},
    {"removed_added_and_moved_events", removed_added_and_moved_events},
    {"fields_removed_retyped_and_added", fields_removed_retyped_and_added},
    {"nested_field_removed", nested_field_removed},
    {"pairing_and_outcome_values", pairing_and_outcome_values},
    {"execute_count", execute_count},
    {"command_exit_codes_and_allow_list", command_exit_codes_and_allow_list},
    {"bad_input_names_the_file_and_line", bad_input_names_the_file_and_line},
    {NULL, NULL}};
const struct ock_suite suite_diff = {"diff", tests, setup, teardown};
