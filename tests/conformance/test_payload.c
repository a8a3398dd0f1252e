/*
 * test_payload.c: event payload fields read by the registry's shape (conformance/model/
 * payload.h): a field sent with its type is read; a required one left out is MISSING and an
 * optional one ABSENT, neither read as ""; a field of the wrong JSON type is MISTYPED; a field
 * the event does not have, a custom event, a NULL or a non-event entry give NO_FIELD.
 */
#include <string.h>

#include "model/payload.h"
#include "runner.h"

/* entry parses a journal entry {kind: event, event, data} (tests only; the caller frees). */
static cJSON *entry(const char *text) {
  cJSON *e = cJSON_Parse(text);
  OCK_ASSERT_NOT_NULL(e);
  return e;
}

static void test_present_with_its_type(void) {
  cJSON *e = entry("{\"kind\":\"event\",\"event\":\"orchestrator:complete\",\"data\":"
                   "{\"orchestrator\":\"o\",\"turn_count\":2,\"status\":\"cancelled\"}}");
  OCK_ASSERT_INT_EQ(ock__payload(e, OCK_FIELD_STATUS).state, OCK_PAYLOAD_OK);
  OCK_ASSERT_STR_EQ(ock__pf_str(e, OCK_FIELD_STATUS), "cancelled");
  OCK_ASSERT_TRUE(ock__pf_is(e, OCK_FIELD_STATUS, "cancelled"));
  OCK_ASSERT_FALSE(ock__pf_is(e, OCK_FIELD_STATUS, "error"));
  OCK_ASSERT_FALSE(ock__pf_is(e, OCK_FIELD_STATUS, NULL));
  OCK_ASSERT_DOUBLE_EQ(ock__pf_num(e, OCK_FIELD_TURN_COUNT, -1), 2, 0);
  OCK_ASSERT_INT_EQ(ock__pf_int(e, OCK_FIELD_TURN_COUNT, -1), 2);
  OCK_ASSERT_INT_EQ(ock__pf_int(e, OCK_FIELD_STATUS, -1), -1);
  OCK_ASSERT_STR_EQ(ock__pf_show(e, OCK_FIELD_ORCHESTRATOR), "o");
  OCK_ASSERT_STR_EQ(ock__pf_show(e, OCK_FIELD_TURN_COUNT), "(not a string)");
  cJSON_Delete(e);
}

static void test_missing_and_absent(void) {
  cJSON *e = entry("{\"kind\":\"event\",\"event\":\"orchestrator:complete\",\"data\":{}}");
  OCK_ASSERT_INT_EQ(ock__payload(e, OCK_FIELD_STATUS).state, OCK_PAYLOAD_MISSING);
  OCK_ASSERT_NULL(ock__payload(e, OCK_FIELD_STATUS).json);
  OCK_ASSERT_NULL(ock__pf_str(e, OCK_FIELD_STATUS));
  OCK_ASSERT_FALSE(ock__pf_is(e, OCK_FIELD_STATUS, ""));
  OCK_ASSERT_STR_EQ(ock__pf_show(e, OCK_FIELD_STATUS), "(missing)");
  OCK_ASSERT_DOUBLE_EQ(ock__pf_num(e, OCK_FIELD_TURN_COUNT, -1), -1, 0);
  /* reason is optional for orchestrator:complete; trace_id is every event's with lifecycle */
  OCK_ASSERT_INT_EQ(ock__payload(e, OCK_FIELD_REASON).state, OCK_PAYLOAD_ABSENT);
  OCK_ASSERT_STR_EQ(ock__pf_show(e, OCK_FIELD_REASON), "(absent)");
  OCK_ASSERT_INT_EQ(ock__payload(e, OCK_FIELD_TRACE_ID).state, OCK_PAYLOAD_ABSENT);
  cJSON_Delete(e);
}

static void test_mistyped(void) {
  cJSON *e = entry("{\"kind\":\"event\",\"event\":\"provider:resolve\",\"data\":"
                   "{\"provider\":7,\"reason\":\"r\",\"fallback\":null}}");
  OCK_ASSERT_INT_EQ(ock__payload(e, OCK_FIELD_PROVIDER).state, OCK_PAYLOAD_MISTYPED);
  OCK_ASSERT_NULL(ock__pf_str(e, OCK_FIELD_PROVIDER));
  OCK_ASSERT_STR_EQ(ock__pf_show(e, OCK_FIELD_PROVIDER), "(mistyped)");
  OCK_ASSERT_TRUE(ock__pf_sent(e, OCK_FIELD_PROVIDER));
  OCK_ASSERT_TRUE(ock__pf_sent(e, OCK_FIELD_FALLBACK));
  OCK_ASSERT_FALSE(ock__pf_sent(e, OCK_FIELD_TRACE_ID));
  /* fallback may be null: OK, but no string */
  OCK_ASSERT_INT_EQ(ock__payload(e, OCK_FIELD_FALLBACK).state, OCK_PAYLOAD_OK);
  OCK_ASSERT_TRUE(cJSON_IsNull(ock__pf(e, OCK_FIELD_FALLBACK)));
  OCK_ASSERT_NULL(ock__pf_str(e, OCK_FIELD_FALLBACK));
  OCK_ASSERT_STR_EQ(ock__pf_show(e, OCK_FIELD_FALLBACK), "null");
  cJSON_Delete(e);
  /* an event's own override: tool:post's tool_input is an object, tool:pre's may be a string */
  e = entry("{\"kind\":\"event\",\"event\":\"tool:post\",\"data\":{\"tool_input\":\"{}\"}}");
  OCK_ASSERT_INT_EQ(ock__payload(e, OCK_FIELD_TOOL_INPUT).state, OCK_PAYLOAD_MISTYPED);
  cJSON_Delete(e);
  e = entry("{\"kind\":\"event\",\"event\":\"tool:pre\",\"data\":{\"tool_input\":\"{}\"}}");
  OCK_ASSERT_INT_EQ(ock__payload(e, OCK_FIELD_TOOL_INPUT).state, OCK_PAYLOAD_OK);
  cJSON_Delete(e);
}

/* Two events alike in one field: equal values, or both without it. */
static void test_same(void) {
  cJSON *a = entry("{\"kind\":\"event\",\"event\":\"provider:resolve\",\"data\":"
                   "{\"provider\":\"p\",\"fallback\":null}}");
  cJSON *b = entry("{\"kind\":\"event\",\"event\":\"provider:resolve\",\"data\":"
                   "{\"provider\":\"q\",\"fallback\":null}}");
  OCK_ASSERT_FALSE(ock__pf_same(a, b, OCK_FIELD_PROVIDER));
  OCK_ASSERT_TRUE(ock__pf_same(a, b, OCK_FIELD_FALLBACK));
  OCK_ASSERT_TRUE(ock__pf_same(a, b, OCK_FIELD_REASON));
  OCK_ASSERT_FALSE(ock__pf_same(a, NULL, OCK_FIELD_PROVIDER));
  cJSON_Delete(a);
  cJSON_Delete(b);
}

static void test_no_such_field(void) {
  cJSON *e = entry("{\"kind\":\"event\",\"event\":\"prompt:submit\",\"data\":"
                   "{\"prompt\":\"p\",\"status\":\"success\"}}");
  OCK_ASSERT_INT_EQ(ock__payload(e, OCK_FIELD_STATUS).state, OCK_PAYLOAD_NO_FIELD);
  OCK_ASSERT_NULL(ock__pf_str(e, OCK_FIELD_STATUS));
  OCK_ASSERT_STR_EQ(ock__pf_show(e, OCK_FIELD_STATUS), "(no such field)");
  OCK_ASSERT_INT_EQ(ock__payload(NULL, OCK_FIELD_PROMPT).state, OCK_PAYLOAD_NO_FIELD);
  OCK_ASSERT_INT_EQ(ock__payload(e, OCK_FIELD_COUNT).state, OCK_PAYLOAD_NO_FIELD);
  /* its data is no event entry */
  OCK_ASSERT_INT_EQ(
      ock__payload(cJSON_GetObjectItemCaseSensitive(e, "data"), OCK_FIELD_PROMPT).state,
      OCK_PAYLOAD_NO_FIELD);
  cJSON_Delete(e);
  e = entry("{\"kind\":\"event\",\"event\":\"my:custom\",\"data\":{\"trace_id\":\"t\"}}");
  OCK_ASSERT_INT_EQ(ock__payload(e, OCK_FIELD_PROVIDER).state, OCK_PAYLOAD_NO_FIELD);
  OCK_ASSERT_STR_EQ(ock__pf_str(e, OCK_FIELD_TRACE_ID), "t"); /* the lifecycle fields only */
  OCK_ASSERT_INT_EQ(ock__payload(e, OCK_FIELD_STAGE).state, OCK_PAYLOAD_ABSENT);
  cJSON_Delete(e);
}

/* The table agrees with the registry: every event's required fields are required. */
static void test_rules_follow_the_registry(void) {
  int types = 0;
  OCK_ASSERT_INT_EQ(ock__field_rule(OCK_EVENT_TOOL_PRE, OCK_FIELD_PARALLEL_GROUP_ID, &types), 1);
  OCK_ASSERT_INT_EQ(types, OCK_JT_STRING);
  OCK_ASSERT_INT_EQ(ock__field_rule(OCK_EVENT_PROVIDER_ERROR, OCK_FIELD_STATUS_CODE, &types), 1);
  OCK_ASSERT_INT_EQ(types, OCK_JT_INTEGER | OCK_JT_NULL);
  OCK_ASSERT_INT_EQ(ock__field_rule(OCK_EVENT_PROVIDER_STREAM, OCK_FIELD_TOOL_CALL_DELTA, NULL), 0);
  OCK_ASSERT_INT_EQ(ock__field_rule(OCK_EVENT_PROMPT_SUBMIT, OCK_FIELD_STATUS, &types), -1);
  OCK_ASSERT_INT_EQ(types, 0);
  OCK_ASSERT_STR_EQ(ock__field_name(OCK_FIELD_TOOL_CALL_ID), OCK_PF_TOOL_CALL_ID);
  OCK_ASSERT_STR_EQ(ock__field_name(OCK_FIELD_COUNT), "");
}

static const struct ock_test tests[] = {
    {"present_with_its_type", test_present_with_its_type},
    {"missing_and_absent", test_missing_and_absent},
    {"mistyped", test_mistyped},
    {"same", test_same},
    {"no_such_field", test_no_such_field},
    {"rules_follow_the_registry", test_rules_follow_the_registry},
    {NULL, NULL}};

const struct ock_suite suite_payload = {"payload", tests, NULL, NULL};
