/*
 * test_alloc_mock.c: every allocation of the mock's request path (ock__serve_llm, from the
 * parsed request to the planned reply and its journal entries, and the journal read back, which
 * prints the llm_request entry) fails once (failmalloc.h). The
 * mock answers what it can: a failed allocation ends in OCK_ENOMEM, or in a reply planned
 * without what could not be allocated; never a crash and never a leak.
 */
#include "runner.h"

#include <stdlib.h>
#include <string.h>

#include "failmalloc.h"
#include "ock/fixture.h"
#include "ock/status.h"
#include "plan.h"
#include "state.h"

/* One request to one provider of tests/mock-provider/fixtures/tool_conversation.json, or of
 * GEMINI_FIXTURE. */
struct llm_case {
  const char *provider; /* "oa" (OpenAI), "an" (Anthropic) or "gm" (Gemini) */
  const char *body;
  const char *path; /* Gemini: the path (it names the model and streaming); else NULL */
};

static cJSON *fixture_json; /* parsed once, before the allocator fails */
static cJSON *gemini_json;

static const char GEMINI_FIXTURE[] =
    "{\"ock_fixture\":1,\"id\":\"alloc-gemini\",\"session\":{\"prompts\":[\"q\"],"
    "\"providers\":[{\"name\":\"gm\",\"api\":\"gemini\",\"model\":\"gemini-test\"}]},"
    "\"script\":{\"gm\":[{\"text\":\"Let me check.\",\"chunk_size\":5,\"tool_calls\":[{"
    "\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\"}}]}]}}";

static const struct llm_case openai_text = {
    "oa", "{\"model\":\"gpt-test\",\"stream\":false,\"messages\":[{\"role\":\"user\","
          "\"content\":\"What is the weather in Paris?\"}]}"};
static const struct llm_case openai_stream = {
    "oa", "{\"model\":\"gpt-test\",\"stream\":true,\"stream_options\":{\"include_usage\":true},"
          "\"messages\":[{\"role\":\"user\",\"content\":\"What is the weather in Paris?\"}]}"};
static const struct llm_case anthropic_stream = {
    "an", "{\"model\":\"claude-test\",\"max_tokens\":256,\"stream\":true,\"messages\":[{"
          "\"role\":\"user\",\"content\":\"What is the weather in Paris?\"}]}"};
/* A tool result that answers no call: the validator's finding and a 400 envelope. */
static const struct llm_case openai_orphan = {
    "oa",
    "{\"model\":\"gpt-test\",\"stream\":false,\"messages\":[{\"role\":\"user\","
    "\"content\":\"hi\"},{\"role\":\"tool\",\"tool_call_id\":\"call_x\",\"content\":\"r\"}]}"};
static const struct llm_case anthropic_history = {
    "an", "{\"model\":\"claude-test\",\"max_tokens\":256,\"stream\":false,\"system\":\"brief\","
          "\"messages\":[{\"role\":\"user\",\"content\":\"What is the weather in Paris?\"},{"
          "\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"Let me check.\"},{"
          "\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"get_weather\",\"input\":{"
          "\"city\":\"Paris\"}}]},{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\","
          "\"tool_use_id\":\"toolu_1\",\"content\":\"15 degrees\"}]}]}"};
/* A Gemini history without ids (paired by name) answered by a streamed call. */
static const char GEMINI_HISTORY[] =
    "{\"systemInstruction\":{\"parts\":[{\"text\":\"brief\"}]},\"contents\":[{\"role\":"
    "\"user\",\"parts\":[{\"text\":\"q\"}]},{\"role\":\"model\",\"parts\":[{\"functionCall\":"
    "{\"name\":\"get_weather\",\"args\":{\"city\":\"Paris\"}}}]},{\"role\":\"user\",\"parts\":["
    "{\"functionResponse\":{\"name\":\"get_weather\",\"response\":{\"output\":\"15\"}}}]}],"
    "\"tools\":[{\"functionDeclarations\":[{\"name\":\"get_weather\"}]}]}";
static const struct llm_case gemini_stream = {"gm", GEMINI_HISTORY,
                                              "/v1beta/models/gemini-test:streamGenerateContent"};
/* A call turn answered by a user text: the API's count text and a finding. */
static const struct llm_case gemini_orphan = {
    "gm",
    "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"q\"}]},{\"role\":\"model\","
    "\"parts\":[{\"functionCall\":{\"id\":\"c1\",\"name\":\"f\"}}]},{\"role\":\"user\","
    "\"parts\":[{\"text\":\"r\"}]}]}",
    "/v1/models/gemini-test:generateContent"};

/* The input of one run: a fresh mock state (so the script starts again) and the case. */
struct llm_input {
  struct mock_state *st;
  const struct llm_case *c;
};

static const struct llm_case *current; /* the case the next setup builds */

static void *state_in(void) {
  struct llm_input *in = calloc(1, sizeof *in);
  struct ock_fixture *fx = NULL;
  struct ock_jerr err;
  if (!in || ock_fixture_load(current->path ? gemini_json : fixture_json, NULL, &fx, &err) ||
      ock__state_new(fx, fx, 0, 1, 1 << 20, 64, &in->st)) {
    free(in);
    return NULL;
  }
  in->c = current;
  return in;
}

static void state_out(void *input) {
  struct llm_input *in = input;
  if (in)
    ock__state_free(in->st);
  free(in);
}

static const char *no_header(void *conn, const char *name) {
  (void)conn;
  (void)name;
  return NULL;
}

static int serve(void *input) {
  struct llm_input *in = input;
  if (!in)
    return OCK_EINVAL;
  const struct ock_fx_provider *p = ock_fixture_provider(in->st->fx, in->c->provider);
  if (!p)
    return OCK_EINVAL;
  struct mock_request rq = {.method = "POST",
                            .path = in->c->path                    ? in->c->path
                                    : p->api == OCK_WIRE_ANTHROPIC ? "/v1/messages"
                                                                   : "/v1/chat/completions",
                            .body = in->c->body,
                            .body_len = strlen(in->c->body),
                            .trace_id = "trace-1",
                            .header = no_header};
  struct mock_plan plan;
  ock__plan_init(&plan);
  int rc = ock__serve_llm(in->st, &rq, p, &plan);
  ock__plan_free(&plan);
  if (!rc) { /* reading the journal prints the llm_request entry from the request's bytes */
    struct ock_buf all;
    ock_buf_init(&all, (size_t)-1 / 2);
    rc = ock__journal_array_text(in->st->journal, &all);
    ock_buf_free(&all);
  }
  return rc;
}

static const struct {
  const char *name;
  const struct llm_case *c;
} cases[] = {{"openai text", &openai_text},
             {"openai stream", &openai_stream},
             {"anthropic stream", &anthropic_stream},
             {"openai orphan result", &openai_orphan},
             {"anthropic tool history", &anthropic_history},
             {"gemini history, streamed", &gemini_stream},
             {"gemini orphan call", &gemini_orphan}};

/* Every case, each allocation failing once: OCK_ENOMEM or a reply, nothing left allocated. */
static void each_allocation_fails_once(void) {
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    current = cases[i].c;
    struct alloc_op op = {cases[i].name, state_in, serve, state_out,
                          FAILS_WITH(OCK_ENOMEM) | MAY_SUCCEED};
    failmalloc_check(&op);
  }
}

static int setup(void) {
  failmalloc_init();
  char *text =
      ock_test_read_file(ock_test_path("tests/mock-provider/fixtures/tool_conversation.json"));
  fixture_json = text ? cJSON_Parse(text) : NULL;
  gemini_json = cJSON_Parse(GEMINI_FIXTURE);
  free(text);
  if (!fixture_json)
    ock_test_fail(__LINE__, __FILE__,
                  "tests/mock-provider/fixtures/tool_conversation.json: cannot read");
  return fixture_json && gemini_json ? 0 : 1;
}

static int cleanup(void) {
  cJSON_Delete(fixture_json);
  cJSON_Delete(gemini_json);
  return 0;
}

static const struct ock_test tests[] = {{"each_allocation_fails_once", each_allocation_fails_once},
                                        {NULL, NULL}};
const struct ock_suite suite_alloc_mock = {"alloc_mock", tests, setup, cleanup};
