/* broken_histories.c: the table of broken_histories.h. */
#include "broken_histories.h"

#include <stddef.h>

#define OA_USER "{\"role\":\"user\",\"content\":\"hi\"}"
#define OA_CALLS1                                                                                  \
  "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"call_1\",\"type\":"          \
  "\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}"
#define OA_CALLS2                                                                                  \
  "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"call_1\",\"type\":"          \
  "\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}},{\"id\":\"call_2\",\"type\":"  \
  "\"function\",\"function\":{\"name\":\"g\",\"arguments\":\"{}\"}}]}"
#define OA_RESULT(id) "{\"role\":\"tool\",\"tool_call_id\":\"" id "\",\"content\":\"ok\"}"

#define AN_USER "{\"role\":\"user\",\"content\":\"hi\"}"
#define AN_USE(id) "{\"type\":\"tool_use\",\"id\":\"" id "\",\"name\":\"f\",\"input\":{}}"
#define AN_CALLS1 "{\"role\":\"assistant\",\"content\":[" AN_USE("toolu_1") "]}"
#define AN_CALLS2                                                                                  \
  "{\"role\":\"assistant\",\"content\":[" AN_USE("toolu_1") "," AN_USE("toolu_2") "]}"
#define AN_RES(id) "{\"type\":\"tool_result\",\"tool_use_id\":\"" id "\",\"content\":\"ok\"}"
#define AN_RESULTS(blocks) "{\"role\":\"user\",\"content\":[" blocks "]}"

#define ERR1                                                                                       \
  "An assistant message with 'tool_calls' must be followed by tool messages responding to "        \
  "each 'tool_call_id'. The following tool_call_ids did not have response messages: "
#define ERR2                                                                                       \
  "Invalid parameter: messages with role 'tool' must be a response to a preceeding message "       \
  "with 'tool_calls'."
#define ERR3(i, ids)                                                                               \
  "messages." i ": `tool_use` ids were found without `tool_result` blocks immediately after: " ids \
  ". Each `tool_use` block must have a corresponding `tool_result` block in the next "             \
  "message."
#define ERR4(i, k, id)                                                                             \
  "messages." i ".content." k ": unexpected `tool_use_id` found in `tool_result` blocks: " id      \
  ". Each `tool_result` block must have a corresponding `tool_use` block in the previous "         \
  "message."

const struct broken_history BROKEN_HISTORIES[] = {
    /* OpenAI */
    {"A01_UNMATCHED_TOOL_USE", 0,
     "[" OA_USER "," OA_CALLS1 ",{\"role\":\"user\",\"content\":\"next\"}]", 1, "call_1",
     ERR1 "call_1", "messages.[1].role", NULL},
    {"A02_UNMATCHED_TOOL_RESULT", 0, "[" OA_USER "," OA_RESULT("call_9") "]", 1, "call_9", ERR2,
     "messages.[1].role", NULL},
    {"A03_INTERLEAVED_USER_MSG", 0,
     "[" OA_USER "," OA_CALLS1 ",{\"role\":\"user\",\"content\":\"wait\"}," OA_RESULT("call_1") "]",
     1, "call_1", ERR1 "call_1", "messages.[1].role", NULL},
    {"A04_INTERLEAVED_ASST_MSG", 0,
     "[" OA_USER "," OA_CALLS1
     ",{\"role\":\"assistant\",\"content\":\"hmm\"}," OA_RESULT("call_1") "]",
     1, "call_1", ERR1 "call_1", "messages.[1].role", NULL},
    {"A05_DUPLICATE_TOOL_CALL_ID", 0,
     "[" OA_USER "," OA_CALLS1 "," OA_RESULT("call_1") "," OA_RESULT("call_1") "]", 3, "call_1",
     "Invalid parameter: Duplicate value for 'tool_call_id' of 'call_1', in messages[2] and "
     "messages[3].",
     "messages.[3].tool_call_id", NULL},
    {"A06_WRONG_TOOL_CALL_ID", 0, "[" OA_USER "," OA_CALLS1 "," OA_RESULT("call_2") "]", 2,
     "call_2", ERR2, "messages.[2].role", NULL},
    {"A07_PARALLEL_MISSING_RESULT", 0, "[" OA_USER "," OA_CALLS2 "," OA_RESULT("call_1") "]", 1,
     "call_2", ERR1 "call_2", "messages.[1].role", NULL},
    {"A08_PARALLEL_WRONG_ORDER", 0,
     "[" OA_USER "," OA_CALLS2 "," OA_RESULT("call_2") "," OA_RESULT("call_1") "]", 2, "call_1",
     "ock: tool messages must answer 'tool_calls' in order. Expected a response to 'call_1' at "
     "messages.[2], found 'call_2'.",
     "messages.[2].tool_call_id", "ock_tool_result_order"},
    /* Anthropic */
    {"A01_UNMATCHED_TOOL_USE", 1,
     "[" AN_USER "," AN_CALLS1 ",{\"role\":\"user\",\"content\":\"next\"}]", 1, "toolu_1",
     ERR3("1", "toolu_1"), NULL, NULL},
    {"A02_UNMATCHED_TOOL_RESULT", 1, "[" AN_RESULTS(AN_RES("toolu_9")) "]", 0, "toolu_9",
     ERR4("0", "0", "toolu_9"), NULL, NULL},
    {"A03_INTERLEAVED_USER_MSG", 1,
     "[" AN_USER "," AN_CALLS1
     "," AN_RESULTS("{\"type\":\"text\",\"text\":\"wait\"}," AN_RES("toolu_1")) "]",
     1, "toolu_1", ERR3("1", "toolu_1"), NULL, NULL},
    {"A04_INTERLEAVED_ASST_MSG", 1,
     "[" AN_USER "," AN_CALLS1
     ",{\"role\":\"assistant\",\"content\":\"hmm\"}," AN_RESULTS(AN_RES("toolu_1")) "]",
     1, "toolu_1", ERR3("1", "toolu_1"), NULL, NULL},
    {"A05_DUPLICATE_TOOL_CALL_ID", 1,
     "[" AN_USER "," AN_CALLS1 "," AN_RESULTS(AN_RES("toolu_1") "," AN_RES("toolu_1")) "]", 2,
     "toolu_1",
     "messages.2.content.1: each tool_use must have a single result. Found multiple "
     "`tool_result` blocks with id: toolu_1",
     NULL, NULL},
    {"A06_WRONG_TOOL_CALL_ID", 1, "[" AN_USER "," AN_CALLS1 "," AN_RESULTS(AN_RES("toolu_2")) "]",
     2, "toolu_2", ERR4("2", "0", "toolu_2"), NULL, NULL},
    {"A07_PARALLEL_MISSING_RESULT", 1,
     "[" AN_USER "," AN_CALLS2 "," AN_RESULTS(AN_RES("toolu_1")) "]", 1, "toolu_2",
     ERR3("1", "toolu_2"), NULL, NULL},
    {"A08_PARALLEL_WRONG_ORDER", 1,
     "[" AN_USER "," AN_CALLS2 "," AN_RESULTS(AN_RES("toolu_2") "," AN_RES("toolu_1")) "]", 2,
     "toolu_1",
     "messages.2.content.0: ock: `tool_result` blocks must follow the order of the `tool_use` "
     "blocks. Expected `toolu_1`, found `toolu_2`.",
     NULL, NULL},
    {NULL, 0, NULL, 0, NULL, NULL, NULL, NULL}};
