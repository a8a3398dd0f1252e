/*
 * test_alloc_core.c: every allocation of the core's JSON helpers, ock_buf, the message model's
 * conversions, each provider wire's encoders and stream decoder, and the grammar fails once
 * (failmalloc.h), and each operation ends in its documented error with nothing leaked.
 */
#include "runner.h"

#include <stdlib.h>
#include <string.h>

#include "failmalloc.h"
#include "ock/buf.h"
#include "ock/grammar.h"
#include "ock/json.h"
#include "ock/message.h"
#include "ock/registry.h"
#include "ock/status.h"
#include "ock/wire.h"

/* An OpenAI history with every kind of message: system, user, assistant text with two tool
 * calls, their two results, and an answer. */
static const char openai_messages[] =
    "[{\"role\":\"system\",\"content\":\"be brief\"},"
    "{\"role\":\"user\",\"content\":\"weather and time?\"},"
    "{\"role\":\"assistant\",\"content\":\"checking\",\"tool_calls\":["
    "{\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\","
    "\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\"}},"
    "{\"id\":\"call_2\",\"type\":\"function\",\"function\":{\"name\":\"get_time\","
    "\"arguments\":\"{}\"}}]},"
    "{\"role\":\"tool\",\"tool_call_id\":\"call_1\",\"content\":\"15 C\"},"
    "{\"role\":\"tool\",\"tool_call_id\":\"call_2\",\"content\":\"Error: no clock\"},"
    "{\"role\":\"assistant\",\"content\":\"15 C, time unknown\"}]";

/* The same conversation on the Anthropic wire (its system is a separate field). */
static const char anthropic_messages[] =
    "[{\"role\":\"user\",\"content\":\"weather and time?\"},"
    "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"checking\"},"
    "{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"get_weather\","
    "\"input\":{\"city\":\"Paris\"}},"
    "{\"type\":\"tool_use\",\"id\":\"toolu_2\",\"name\":\"get_time\",\"input\":{}}]},"
    "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_1\","
    "\"content\":\"15 C\"},{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_2\","
    "\"is_error\":true,\"content\":[{\"type\":\"text\",\"text\":\"no clock\"}]},"
    "{\"type\":\"text\",\"text\":\"thanks\"}]},"
    "{\"role\":\"assistant\",\"content\":\"15 C, time unknown\"}]";

static const char openai_reply[] =
    "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"model\":\"m\",\"choices\":[{"
    "\"index\":0,\"finish_reason\":\"tool_calls\",\"message\":{\"role\":\"assistant\","
    "\"content\":\"checking\",\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\","
    "\"function\":{\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\"}}]}}],"
    "\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":5}}";

static const char anthropic_reply[] =
    "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\","
    "\"stop_reason\":\"tool_use\",\"content\":[{\"type\":\"text\",\"text\":\"checking\"},"
    "{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"get_weather\","
    "\"input\":{\"city\":\"Paris\"}}],\"usage\":{\"input_tokens\":10,\"output_tokens\":5}}";

/* A document with objects of several members, for the duplicate-key check's sorted copies. */
static const char document[] =
    "{\"a\":1,\"b\":[true,false,null,\"x\\u00e9\"],\"c\":{\"d\":1.5,\"e\":\"f\",\"g\":{"
    "\"h\":[1,2,3],\"i\":\"j\"}},\"k\":\"l\"}";

static void *parse_input(const char *text) {
  return cJSON_Parse(text);
}
static void *openai_messages_in(void) {
  return parse_input(openai_messages);
}
static void *anthropic_messages_in(void) {
  return parse_input(anthropic_messages);
}
static void *openai_reply_in(void) {
  return parse_input(openai_reply);
}
static void *anthropic_reply_in(void) {
  return parse_input(anthropic_reply);
}
static void *document_in(void) {
  return parse_input(document);
}
static void delete_input(void *input) {
  cJSON_Delete(input);
}

static int buf_grows(void *input) {
  (void)input;
  struct ock_buf b;
  ock_buf_init(&b, 1 << 20);
  int rc = OCK_OK;
  for (int i = 0; i < 200 && !rc; i++)
    rc = ock_buf_printf(&b, "%d:%s,", i, "some text to make it grow");
  char *text = rc ? NULL : ock_buf_take(&b);
  if (!rc && !text)
    rc = OCK_ENOMEM;
  free(text);
  ock_buf_free(&b);
  return rc;
}

static int json_parses_and_checks_keys(void *input) {
  (void)input;
  cJSON *v = NULL;
  struct ock_jerr err;
  int rc = ock_json_parse(document, sizeof document - 1, &v, &err);
  if (!rc)
    rc = ock_json_check_unique_keys(v, "$", &err);
  cJSON_Delete(v);
  return rc;
}

static int json_file_parses(void *input) {
  (void)input;
  cJSON *v = NULL;
  struct ock_jerr err;
  int rc = ock_json_parse_file(ock_test_path("tests/mock-provider/fixtures/tool_conversation.json"),
                               1 << 20, &v, &err);
  cJSON_Delete(v);
  return rc;
}

/* registry_loads: the requirement registry built into the binary (every part loads it). */
static int registry_loads(void *input) {
  (void)input;
  ock_registry *r = NULL;
  struct ock_jerr err;
  int rc = ock_registry_load_builtin(&r, &err);
  ock_registry_free(r);
  return rc;
}

static int json_writes(void *input) {
  struct ock_buf b;
  ock_buf_init(&b, 1 << 20);
  int rc = ock_json_write(&b, input);
  ock_buf_free(&b);
  char *text = rc ? NULL : ock_json_print(input);
  if (!rc && !text)
    rc = OCK_ENOMEM;
  free(text);
  return rc;
}

static int tool_result_renders(void *input) {
  (void)input;
  cJSON *result = cJSON_Parse("{\"success\":true,\"output\":{\"t\":[1,2]},\"error\":null}");
  if (!result)
    return OCK_ENOMEM;
  char *text = ock_tool_result_text(result);
  cJSON_Delete(result);
  free(text);
  return text ? OCK_OK : OCK_ENOMEM;
}

/* openai_history_round_trip: from the wire, a copy, and back, as tree and as text. */
static int openai_history_round_trip(void *input) {
  struct ock_history h, copy;
  ock_history_init(&h);
  ock_history_init(&copy);
  struct ock_jerr err;
  cJSON *wire = NULL;
  struct ock_buf text;
  ock_buf_init(&text, 1 << 20);
  int rc = ock_history_from_openai(input, &h, &err);
  if (!rc)
    rc = ock_history_copy(&h, &copy);
  if (!rc)
    rc = ock_history_to_openai(&copy, &wire);
  if (!rc)
    rc = ock_history_write_openai(&h, &text);
  cJSON_Delete(wire);
  ock_buf_free(&text);
  ock_history_free(&h);
  ock_history_free(&copy);
  return rc;
}

static int anthropic_history_from(void *input) {
  struct ock_history h;
  ock_history_init(&h);
  struct ock_jerr err;
  cJSON *system = cJSON_CreateString("be brief");
  int rc = system ? ock_history_from_anthropic(system, input, &h, &err) : OCK_ENOMEM;
  cJSON_Delete(system);
  ock_history_free(&h);
  return rc;
}

/* A history and a reply read from the Anthropic wire, for the conversions back to it. */
struct read_back {
  struct ock_history h;
  struct ock_reply r;
};

static void *anthropic_read(void) {
  struct read_back *in = calloc(1, sizeof *in);
  cJSON *messages = cJSON_Parse(anthropic_messages), *reply = cJSON_Parse(anthropic_reply);
  struct ock_jerr err;
  if (in) {
    ock_history_init(&in->h);
    ock_reply_init(&in->r);
    ock_history_from_anthropic(NULL, messages, &in->h, &err);
    ock_reply_from_anthropic(reply, &in->r, &err);
  }
  cJSON_Delete(messages);
  cJSON_Delete(reply);
  return in;
}

static void anthropic_read_free(void *input) {
  struct read_back *in = input;
  if (!in)
    return;
  ock_history_free(&in->h);
  ock_reply_clear(&in->r);
  free(in);
}

static int anthropic_history_to(void *input) {
  struct read_back *in = input;
  cJSON *wire = NULL;
  char *system = NULL;
  int rc = ock_history_to_anthropic(&in->h, &wire, &system);
  cJSON_Delete(wire);
  free(system);
  return rc;
}

static int anthropic_reply_to(void *input) {
  struct read_back *in = input;
  struct ock_wire_frame frame = {.model = "m", .chunk_size = 4};
  struct ock_buf body;
  struct ock_chunks events;
  ock_buf_init(&body, 1 << 20);
  ock_chunks_init(&events);
  int rc = ock_wire_anthropic.encode_reply(&in->r, &frame, &body);
  if (!rc)
    rc = ock_wire_anthropic.encode_events(&in->r, &frame, &events);
  ock_buf_free(&body);
  ock_chunks_free(&events);
  return rc;
}

static int openai_reply_round_trip(void *input) {
  struct ock_reply r;
  ock_reply_init(&r);
  struct ock_jerr err;
  struct ock_wire_frame frame = {.model = "m", .created = 1700000000, .chunk_size = 4};
  struct ock_buf back;
  ock_buf_init(&back, 1 << 20);
  int rc = ock_reply_from_openai(input, &r, &err);
  if (!rc)
    rc = ock_wire_openai.encode_reply(&r, &frame, &back);
  ock_buf_free(&back);
  ock_reply_clear(&r);
  return rc;
}

static int anthropic_reply_from(void *input) {
  struct ock_reply r;
  ock_reply_init(&r);
  struct ock_jerr err;
  int rc = ock_reply_from_anthropic(input, &r, &err);
  ock_reply_clear(&r);
  return rc;
}

/* What the encoders of one wire are given: a history with every kind of message, a reply with
 * text and a tool call, and two tools (one with a description and a schema, one without). */
struct encode_in {
  const struct ock_wire_ops *w;
  struct ock_history h;
  struct ock_reply r;
  cJSON *schema;
  struct ock_tool_spec tools[2];
};

static void *encode_read(const struct ock_wire_ops *w) {
  struct encode_in *in = calloc(1, sizeof *in);
  cJSON *messages = cJSON_Parse(openai_messages), *reply = cJSON_Parse(openai_reply);
  struct ock_jerr err;
  if (in) {
    in->w = w;
    ock_history_init(&in->h);
    ock_reply_init(&in->r);
    ock_history_from_openai(messages, &in->h, &err);
    ock_reply_from_openai(reply, &in->r, &err);
    in->schema = cJSON_Parse("{\"type\":\"object\",\"required\":[\"city\"]}");
    in->tools[0] = (struct ock_tool_spec){"get_weather", "the weather in a city", in->schema};
    in->tools[1] = (struct ock_tool_spec){"get_time", NULL, NULL};
  }
  cJSON_Delete(messages);
  cJSON_Delete(reply);
  return in;
}

static void *openai_encode_in(void) {
  return encode_read(&ock_wire_openai);
}
static void *anthropic_encode_in(void) {
  return encode_read(&ock_wire_anthropic);
}
static void *gemini_encode_in(void) {
  return encode_read(&ock_wire_gemini);
}

static void encode_free(void *input) {
  struct encode_in *in = input;
  if (!in)
    return;
  ock_history_free(&in->h);
  ock_reply_clear(&in->r);
  cJSON_Delete(in->schema);
  free(in);
}

static const struct ock_wire_frame encode_frame = {.model = "m",
                                                   .created = 1700000000,
                                                   .stop_sequence = "END",
                                                   .chunk_size = 4,
                                                   .include_usage = 1};

static int encode_request(void *input) {
  struct encode_in *in = input;
  struct ock_wire_request req = {"m", &in->h, in->tools, 2, 1, 1024};
  struct ock_buf body;
  ock_buf_init(&body, 1 << 20);
  int rc = in->w->encode_request(&req, &body);
  ock_buf_free(&body);
  return rc;
}

static int encode_reply(void *input) {
  struct encode_in *in = input;
  struct ock_buf body;
  ock_buf_init(&body, 1 << 20);
  int rc = in->w->encode_reply(&in->r, &encode_frame, &body);
  ock_buf_free(&body);
  return rc;
}

static int encode_events(void *input) {
  struct encode_in *in = input;
  struct ock_chunks events;
  ock_chunks_init(&events);
  int rc = in->w->encode_events(&in->r, &encode_frame, &events);
  ock_chunks_free(&events);
  return rc;
}

/* encode_errors: an error body with every field given, one with the defaults, and both kinds of
 * in-stream error event. */
static int encode_errors(void *input) {
  struct encode_in *in = input;
  struct ock_buf body;
  ock_buf_init(&body, 1 << 20);
  int rc = in->w->encode_error(400, "bad", "messages", "invalid", "req_1", &body);
  if (!rc)
    rc = in->w->encode_error(429, NULL, NULL, NULL, NULL, &body);
  if (!rc)
    rc = in->w->encode_error_event(0, NULL, &body);
  if (!rc)
    rc = in->w->encode_error_event(503, "busy", &body);
  ock_buf_free(&body);
  return rc;
}

/* A streamed reply of one wire as its SSE events: what encode_events sends, split into the
 * event names (NULL: none) and data lines the stream decoder is fed. */
struct stream_in {
  enum ock_wire wire;
  size_t n;
  char *names[64];
  char *data[64];
};

/* split_event reads "event: NAME\n" (optional) and "data: DATA\n\n" of one piece. */
static void split_event(const char *piece, char **name, char **data) {
  *name = NULL;
  if (!strncmp(piece, "event: ", 7)) {
    const char *nl = strchr(piece, '\n');
    *name = strndup(piece + 7, (size_t)(nl - piece - 7));
    piece = nl + 1;
  }
  piece += strlen("data: ");
  *data = strndup(piece, strlen(piece) - 2);
}

static void *stream_read(const struct ock_wire_ops *w) {
  struct encode_in *enc = encode_read(w);
  struct stream_in *in = calloc(1, sizeof *in);
  struct ock_chunks events;
  ock_chunks_init(&events);
  if (enc && in && !w->encode_events(&enc->r, &encode_frame, &events)) {
    in->wire = w->wire;
    for (size_t i = 0; i < events.n && in->n < 64; i++, in->n++)
      split_event(events.items[i], &in->names[in->n], &in->data[in->n]);
  }
  ock_chunks_free(&events);
  encode_free(enc);
  return in;
}

static void *openai_stream_in(void) {
  return stream_read(&ock_wire_openai);
}
static void *anthropic_stream_in(void) {
  return stream_read(&ock_wire_anthropic);
}
static void *gemini_stream_in(void) {
  return stream_read(&ock_wire_gemini);
}

static void stream_free(void *input) {
  struct stream_in *in = input;
  for (size_t i = 0; in && i < in->n; i++) {
    free(in->names[i]);
    free(in->data[i]);
  }
  free(in);
}

/* stream_decodes feeds every event to ock_wire_stream_event and takes the reply. */
static int stream_decodes(void *input) {
  struct stream_in *in = input;
  ock_wire_stream *s = NULL;
  struct ock_wire_error err;
  struct ock_reply r;
  ock_reply_init(&r);
  int rc = ock_wire_stream_new(in->wire, 1 << 20, &s);
  for (size_t i = 0; !rc && i < in->n; i++)
    rc = ock_wire_stream_event(s, in->names[i], in->data[i], NULL, NULL, &err);
  if (!rc)
    rc = ock_wire_stream_finish(s, &r, &err);
  if (!rc && (!r.msg.content || r.msg.n_calls != 1))
    rc = OCK_EPROTO;
  ock_reply_clear(&r);
  ock_wire_stream_free(s);
  return rc;
}

/* grammar_reads_an_execute: one execute with two parallel tool calls. */
static int grammar_reads_an_execute(void *input) {
  (void)input;
  static const struct {
    enum ock_event ev;
    const char *call;
  } run[] = {{OCK_EVENT_PROMPT_SUBMIT, NULL},     {OCK_EVENT_PROVIDER_REQUEST, NULL},
             {OCK_EVENT_PROVIDER_RESPONSE, NULL}, {OCK_EVENT_TOOL_SELECTING, "c1"},
             {OCK_EVENT_TOOL_SELECTING, "c2"},    {OCK_EVENT_TOOL_PRE, "c1"},
             {OCK_EVENT_TOOL_PRE, "c2"},          {OCK_EVENT_TOOL_POST, "c1"},
             {OCK_EVENT_TOOL_ERROR, "c2"},        {OCK_EVENT_ORCHESTRATOR_COMPLETE, NULL}};
  ock_grammar *g = NULL;
  int rc = ock_grammar_new(NULL, NULL, &g);
  if (rc)
    return rc;
  for (size_t i = 0; i < sizeof run / sizeof run[0]; i++)
    ock_grammar_symbol(g, (long)i + 1, run[i].ev, NULL, 0, run[i].call);
  ock_grammar_end(g, 99);
  ock_grammar_free(g);
  return OCK_OK;
}

static const struct alloc_op ops[] = {
    {"ock_buf_printf", NULL, buf_grows, NULL, FAILS_WITH(OCK_ENOMEM)},
    /* cJSON cannot tell a failed allocation from bad text: the parse reports OCK_EJSON */
    {"ock_json_parse", NULL, json_parses_and_checks_keys, NULL,
     FAILS_WITH(OCK_ENOMEM) | FAILS_WITH(OCK_EJSON)},
    {"ock_json_parse_file", NULL, json_file_parses, NULL,
     FAILS_WITH(OCK_ENOMEM) | FAILS_WITH(OCK_EJSON)},
    {"ock_registry_load_builtin", NULL, registry_loads, NULL,
     FAILS_WITH(OCK_ENOMEM) | FAILS_WITH(OCK_EJSON)},
    {"ock_json_write", document_in, json_writes, delete_input, FAILS_WITH(OCK_ENOMEM)},
    {"ock_tool_result_text", NULL, tool_result_renders, NULL, FAILS_WITH(OCK_ENOMEM)},
    {"openai history", openai_messages_in, openai_history_round_trip, delete_input,
     FAILS_WITH(OCK_ENOMEM)},
    {"anthropic history from", anthropic_messages_in, anthropic_history_from, delete_input,
     FAILS_WITH(OCK_ENOMEM)},
    {"openai reply", openai_reply_in, openai_reply_round_trip, delete_input,
     FAILS_WITH(OCK_ENOMEM)},
    {"anthropic reply from", anthropic_reply_in, anthropic_reply_from, delete_input,
     FAILS_WITH(OCK_ENOMEM)},
    /* A tool call's arguments go out as tool_use.input, parsed by cJSON, which cannot tell a
     * failed allocation from text that is not a JSON object: message.h documents that such
     * arguments are sent as {}, so these may succeed. */
    {"anthropic history to", anthropic_read, anthropic_history_to, anthropic_read_free,
     FAILS_WITH(OCK_ENOMEM) | MAY_SUCCEED},
    {"anthropic reply to", anthropic_read, anthropic_reply_to, anthropic_read_free,
     FAILS_WITH(OCK_ENOMEM) | MAY_SUCCEED},
    {"openai encode_request", openai_encode_in, encode_request, encode_free,
     FAILS_WITH(OCK_ENOMEM)},
    {"openai encode_reply", openai_encode_in, encode_reply, encode_free, FAILS_WITH(OCK_ENOMEM)},
    {"openai encode_events", openai_encode_in, encode_events, encode_free, FAILS_WITH(OCK_ENOMEM)},
    {"openai encode_error", openai_encode_in, encode_errors, encode_free, FAILS_WITH(OCK_ENOMEM)},
    /* tool_use.input is parsed from the arguments, as for "anthropic history to" */
    {"anthropic encode_request", anthropic_encode_in, encode_request, encode_free,
     FAILS_WITH(OCK_ENOMEM) | MAY_SUCCEED},
    {"anthropic encode_reply", anthropic_encode_in, encode_reply, encode_free,
     FAILS_WITH(OCK_ENOMEM) | MAY_SUCCEED},
    {"anthropic encode_events", anthropic_encode_in, encode_events, encode_free,
     FAILS_WITH(OCK_ENOMEM)},
    {"anthropic encode_error", anthropic_encode_in, encode_errors, encode_free,
     FAILS_WITH(OCK_ENOMEM)},
    /* args are parsed from the arguments, as for "anthropic history to" */
    {"gemini encode_request", gemini_encode_in, encode_request, encode_free,
     FAILS_WITH(OCK_ENOMEM) | MAY_SUCCEED},
    {"gemini encode_reply", gemini_encode_in, encode_reply, encode_free,
     FAILS_WITH(OCK_ENOMEM) | MAY_SUCCEED},
    {"gemini encode_events", gemini_encode_in, encode_events, encode_free,
     FAILS_WITH(OCK_ENOMEM) | MAY_SUCCEED},
    {"gemini encode_error", gemini_encode_in, encode_errors, encode_free, FAILS_WITH(OCK_ENOMEM)},
    /* each event's data is parsed by cJSON: a failed allocation there is a malformed chunk */
    {"openai stream", openai_stream_in, stream_decodes, stream_free,
     FAILS_WITH(OCK_ENOMEM) | FAILS_WITH(OCK_EPROTO)},
    {"anthropic stream", anthropic_stream_in, stream_decodes, stream_free,
     FAILS_WITH(OCK_ENOMEM) | FAILS_WITH(OCK_EPROTO)},
    {"gemini stream", gemini_stream_in, stream_decodes, stream_free,
     FAILS_WITH(OCK_ENOMEM) | FAILS_WITH(OCK_EPROTO)},
    /* a call the grammar cannot record is rejected, as grammar.c documents */
    {"grammar", NULL, grammar_reads_an_execute, NULL, FAILS_WITH(OCK_ENOMEM) | MAY_SUCCEED},
};

static void each_allocation_fails_once(void) {
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    failmalloc_check(&ops[i]);
}

static int setup(void) {
  failmalloc_init();
  return 0;
}

static const struct ock_test tests[] = {{"each_allocation_fails_once", each_allocation_fails_once},
                                        {NULL, NULL}};
const struct ock_suite suite_alloc_core = {"alloc_core", tests, setup, NULL};
