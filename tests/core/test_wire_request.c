/* test_wire_request.c: the tree-less request reader gives what the tree readers give for every
 * body it takes, and declines (OCK_EJSON) every body outside its subset, malformed or not. */
#include "runner.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "ock/buf.h"
#include "ock/gemini.h"
#include "ock/json.h"
#include "ock/message.h"
#include "ock/status.h"
#include "ock/wire_request.h"
#include "ock/wire_responses.h"

/* tree_history reads body as the mock's tree path does. */
static int tree_history(const char *body, int anthropic, struct ock_history *h) {
  cJSON *doc = cJSON_Parse(body);
  const cJSON *messages = cJSON_GetObjectItemCaseSensitive(doc, "messages");
  const cJSON *system = cJSON_GetObjectItemCaseSensitive(doc, "system");
  ock_history_init(h);
  int rc = anthropic ? ock_history_from_anthropic(system, messages, h, NULL)
                     : ock_history_from_openai(messages, h, NULL);
  cJSON_Delete(doc);
  return rc;
}

static void assert_same_history(const struct ock_history *a, const struct ock_history *b) {
  OCK_ASSERT_INT_EQ(a->len, b->len);
  for (size_t i = 0; i < a->len && i < b->len; i++) {
    const struct ock_message *x = &a->items[i], *y = &b->items[i];
    OCK_ASSERT_INT_EQ(x->role, y->role);
    OCK_ASSERT_INT_EQ(x->wire_index, y->wire_index);
    OCK_ASSERT_INT_EQ(x->is_error, y->is_error);
    OCK_ASSERT_INT_EQ(x->content == NULL, y->content == NULL);
    if (x->content && y->content)
      OCK_ASSERT_STR_EQ(x->content, y->content);
    OCK_ASSERT_INT_EQ(x->tool_call_id == NULL, y->tool_call_id == NULL);
    if (x->tool_call_id && y->tool_call_id)
      OCK_ASSERT_STR_EQ(x->tool_call_id, y->tool_call_id);
    OCK_ASSERT_INT_EQ(x->n_calls, y->n_calls);
    for (size_t c = 0; c < x->n_calls && c < y->n_calls; c++) {
      OCK_ASSERT_STR_EQ(x->calls[c].id, y->calls[c].id);
      OCK_ASSERT_STR_EQ(x->calls[c].name, y->calls[c].name);
      OCK_ASSERT_STR_EQ(x->calls[c].arguments, y->calls[c].arguments);
    }
  }
}

/* read_same: body is taken, and its history is the tree reader's. */
static void read_same(const char *body, int anthropic, struct ock_request_read *r) {
  struct ock_history tree;
  OCK_ASSERT_OK(ock_wire_request_read(body, strlen(body), anthropic, r));
  OCK_ASSERT_OK(tree_history(body, anthropic, &tree));
  assert_same_history(&r->history, &tree);
  ock_history_free(&tree);
}

static char *span(const char *body, struct ock_wire_span s) {
  static char out[4096];
  snprintf(out, sizeof out, "%.*s", (int)s.len, body + s.at);
  return out;
}

static void test_bench_request(void) {
  FILE *f = fopen(ock_test_path("bench/request.json"), "rb");
  OCK_ASSERT_INT_EQ(f != NULL, 1);
  char body[8192];
  size_t n = f ? fread(body, 1, sizeof body - 1, f) : 0;
  if (f)
    fclose(f);
  body[n] = '\0';
  struct ock_request_read r;
  read_same(body, 0, &r);
  OCK_ASSERT_STR_EQ(r.model, "gpt-ock");
  OCK_ASSERT_INT_EQ(r.stream, 0);
  OCK_ASSERT_INT_EQ(r.history.len, 5);
  OCK_ASSERT_INT_EQ(r.n_tools, 1);
  OCK_ASSERT_STR_EQ(span(body, r.tool_names[0]), "\"get_weather\"");
  OCK_ASSERT_INT_EQ(r.n_params, 4); /* model, tools, temperature, stream */
  OCK_ASSERT_STR_EQ(span(body, r.params[2].key), "\"temperature\"");
  OCK_ASSERT_STR_EQ(span(body, r.params[2].value), "0.2");
  OCK_ASSERT_INT_EQ(r.result_blocks == NULL, 1);
  ock_wire_request_free(&r);
}

static void test_openai_shapes(void) {
  const char *body =
      "{ \"stream\" : true, \"stream_options\": {\"include_usage\": true},\n"
      "  \"messages\": [{\"role\":\"developer\",\"content\":[{\"type\":\"text\",\"text\":\"a\"},"
      "{\"type\":\"image_url\"},{\"text\":\"b\\u00e9\\n\"}]},"
      "{\"content\":null,\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"c1\",\"type\":"
      "\"function\","
      "\"function\":{\"name\":\"f\"}},{\"id\":\"c2\",\"function\":{\"name\":\"g\",\"arguments\":"
      "\"{\\\"x\\\": 1}\"}}]},{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":[]},"
      "{\"role\":\"user\",\"tool_calls\":7,\"content\":\"\"}],"
      " \"model\": \"m\", \"tools\": [{\"type\":\"function\",\"function\":{\"name\":\"f\"}},"
      "{\"name\":\"g\"},{\"name\":3}], \"system\": 5 }  ";
  struct ock_request_read r;
  read_same(body, 0, &r);
  OCK_ASSERT_INT_EQ(r.stream, 1);
  OCK_ASSERT_INT_EQ(r.include_usage, 1);
  OCK_ASSERT_INT_EQ(r.n_tools, 3);
  OCK_ASSERT_STR_EQ(span(body, r.tool_names[1]), "\"g\"");
  OCK_ASSERT_INT_EQ(r.tool_names[2].len, 0);
  OCK_ASSERT_INT_EQ(r.n_params, 4); /* stream, stream_options, model, tools: not system */
  OCK_ASSERT_STR_EQ(span(body, r.system), "5");
  ock_wire_request_free(&r);
}

static void test_anthropic_shapes(void) {
  const char *body =
      "{\"model\":\"claude\",\"system\":[{\"type\":\"text\",\"text\":\"be brief\"}],"
      "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},"
      "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"on it\"},"
      "{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"w\",\"input\":{\"city\": \"Paris\", "
      "\"n\": [1, -2, {}]}},{\"type\":\"tool_use\",\"id\":\"t2\",\"name\":\"w\",\"input\":{}}]},"
      "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"before\"},"
      "{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":\"15\",\"is_error\":false},"
      "{\"type\":\"tool_result\",\"tool_use_id\":\"t2\",\"is_error\":true},"
      "{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":[{\"type\":\"text\","
      "\"text\":\"again\"}]}]},{\"role\":\"assistant\",\"content\":[]},"
      "{\"role\":\"assistant\",\"content\":[{\"type\":\"thinking\"}]}]}";
  struct ock_request_read r;
  read_same(body, 1, &r);
  OCK_ASSERT_STR_EQ(r.history.items[2].calls[0].arguments, "{\"city\":\"Paris\",\"n\":[1,-2,{}]}");
  OCK_ASSERT_INT_EQ(r.result_blocks != NULL, 1);
  /* system, user, assistant, user "before", t1 (block 1), t2 (block 2), t1 again (its first
   * block with that id: 1), the empty assistant */
  OCK_ASSERT_INT_EQ(r.history.len, 8);
  if (r.result_blocks && r.history.len == 8) {
    OCK_ASSERT_INT_EQ(r.result_blocks[4], 1);
    OCK_ASSERT_INT_EQ(r.result_blocks[5], 2);
    OCK_ASSERT_INT_EQ(r.result_blocks[6], 1);
    OCK_ASSERT_INT_EQ(r.result_blocks[3], -1);
  }
  ock_wire_request_free(&r);
}

/* Bodies the tree reader words a 400 for, or takes in a form this reader does not: each is
 * declined, never read differently. */
static void test_declined(void) {
  static const char *const openai[] = {
      "", "[]", "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]} trailing",
      "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}",
      "{\"model\":\"\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}",
      "{\"model\":\"m\",\"messages\":[]}", "{\"model\":\"m\",\"messages\":{}}",
      "{\"model\":\"m\",\"stream\":null,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}",
      "{\"mod\\u0065l\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}",
      "{\"model\":\"m\",\"model\":\"n\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}",
      /* a name given twice anywhere, also where the reader does not look */
      "{\"model\":\"m\",\"t\":1,\"t\":2,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}",
      "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"name\":\"a\",\"name\":\"b\","
      "\"content\":\"x\"}]}",
      "{\"model\":\"m\",\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\","
      "\"parameters\":{\"p\":1,\"p\":2}}}],\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}",
      "{\"model\":\"m\",\"x\":[{\"k\":{\"s\":1,\"s\":1}}],\"messages\":[{\"role\":\"user\","
      "\"content\":\"x\"}]}",
      "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"a\tb\"}]}",
      "{\"model\":\"m\",\"t\":1e3,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}",
      "{\"model\":\"m\",\"t\":1234567890123456,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]"
      "}",
      "{\"model\":\"m\",\"t\":01,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}",
      "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"\\ud83d\\ude00\"}]}",
      "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"a\\u0000b\"}]}",
      "{\"model\":\"m\",\"messages\":[{\"role\":\"robot\",\"content\":\"x\"}]}",
      "{\"model\":\"m\",\"messages\":[{\"content\":\"x\"}]}",
      "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":5}]}",
      "{\"model\":\"m\",\"messages\":[{\"role\":\"tool\",\"content\":\"x\"}]}",
      "{\"model\":\"m\",\"messages\":[{\"role\":\"assistant\",\"tool_calls\":null}]}",
      "{\"model\":\"m\",\"messages\":[{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"c\","
      "\"function\":{\"name\":\"f\",\"arguments\":{}}}]}]}",
      "{\"model\":\"m\",\"tools\":{},\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}",
      "{\"model\":\"m\",\"stream_options\":{\"include_usage\":1},\"messages\":[{\"role\":\"user\","
      "\"content\":\"x\"}]}",
      "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"},]}",
      "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]", NULL};
  static const char *const anthropic[] = {
      "{\"model\":\"m\",\"messages\":[{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\","
      "\"id\":\"t\",\"name\":\"w\",\"input\":\"{}\"}]}]}",
      "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"tool_use\"}]}]}",
      "{\"model\":\"m\",\"messages\":[{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\","
      "\"id\":\"t\",\"name\":\"w\",\"input\":{\"x\":0.5}}]}]}",
      "{\"model\":\"m\",\"messages\":[{\"role\":\"system\",\"content\":\"x\"}]}",
      "{\"model\":\"m\",\"system\":3,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}",
      "{\"model\":\"m\",\"messages\":[{\"role\":\"user\"}]}",
      "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\"}]}]}",
      "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":[\"x\"]}]}",
      NULL};
  struct ock_request_read r;
  for (size_t i = 0; openai[i]; i++)
    OCK_ASSERT_INT_EQ(ock_wire_request_read(openai[i], strlen(openai[i]), 0, &r), OCK_EJSON);
  for (size_t i = 0; anthropic[i]; i++)
    OCK_ASSERT_INT_EQ(ock_wire_request_read(anthropic[i], strlen(anthropic[i]), 1, &r), OCK_EJSON);
  char deep[400] = "{\"model\":\"m\",\"x\":";
  for (int i = 0; i < 100; i++)
    strncat(deep, "[", 2);
  for (int i = 0; i < 100; i++)
    strncat(deep, "]", 2);
  strncat(deep, ",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}", 60);
  OCK_ASSERT_INT_EQ(ock_wire_request_read(deep, strlen(deep), 0, &r), OCK_EJSON);
}

/* ---- the Responses API and Gemini: the corpus ------------------------------------------- */

/* The seeds of the wire_request fuzz target (fuzz/seeds/wire_request/) are this test's corpus:
 * the first byte picks the API as the target reads it (its low two bits: 0 Chat Completions,
 * 1 Anthropic, 2 the Responses API, 3 Gemini). ref-* are the Responses and Gemini bodies the
 * reference orchestrator sent in a run of the whole suite on both wires (one per shape), the
 * others the shapes the official SDKs send and those the tree reader refuses. A file named
 * declined-* must be declined (the mock then reads it with the tree reader, whose error or
 * reading it is); every other must be taken, with the tree reader's result. */
static const cJSON *member(const cJSON *doc, const char *name) {
  return cJSON_GetObjectItemCaseSensitive(doc, name);
}

/* tree_read: the history the mock's tree path reads from doc (before a chained conversation). */
static int tree_read(const cJSON *doc, enum ock_request_api api, struct ock_history *h) {
  const cJSON *instructions = member(doc, "instructions");
  ock_history_init(h);
  switch (api) {
  case OCK_REQUEST_RESPONSES:
    if (cJSON_IsString(instructions))
      OCK_ASSERT_OK(ock_history_add_text(h, OCK_ROLE_SYSTEM, instructions->valuestring));
    return ock_history_from_responses(member(doc, "input"), h, NULL);
  case OCK_REQUEST_GEMINI:
    return ock_history_from_gemini(member(doc, "systemInstruction"), member(doc, "contents"), h,
                                   NULL);
  case OCK_REQUEST_ANTHROPIC:
    return ock_history_from_anthropic(member(doc, "system"), member(doc, "messages"), h, NULL);
  default:
    return ock_history_from_openai(member(doc, "messages"), h, NULL);
  }
}

/* assert_span_is: span s of body is the JSON value v (absent: NULL). */
static void assert_span_is(const char *body, struct ock_wire_span s, const cJSON *v) {
  cJSON *got = s.len ? cJSON_ParseWithLength(body + s.at, s.len) : NULL;
  OCK_ASSERT_INT_EQ(got == NULL, v == NULL);
  if (got && v)
    OCK_ASSERT_INT_EQ(cJSON_Compare(got, v, 1), 1);
  cJSON_Delete(got);
}

static int is_history_member(const char *name) {
  static const char *const names[] = {"messages",          "system", "input", "contents",
                                      "systemInstruction", NULL};
  for (size_t i = 0; names[i]; i++)
    if (!strcmp(name, names[i]))
      return 1;
  return 0;
}

/* assert_params: the params are the body's other members, in order, value for value. */
static void assert_params(const char *body, const cJSON *doc, const struct ock_request_read *r) {
  size_t n = 0;
  const cJSON *m;
  cJSON_ArrayForEach(m, doc) {
    if (is_history_member(m->string))
      continue;
    OCK_ASSERT_INT_EQ(n < r->n_params, 1);
    if (n >= r->n_params)
      return;
    cJSON *key = cJSON_ParseWithLength(body + r->params[n].key.at, r->params[n].key.len);
    OCK_ASSERT_STR_EQ(cJSON_IsString(key) ? key->valuestring : "", m->string);
    cJSON_Delete(key);
    assert_span_is(body, r->params[n++].value, m);
  }
  OCK_ASSERT_INT_EQ(n, r->n_params);
}

/* tree_tool_names: the names the journal lists for the tree's tools (the mock's write_tools). */
static void tree_tool_names(const cJSON *doc, struct ock_buf *out) {
  const cJSON *t;
  cJSON_ArrayForEach(t, member(doc, "tools")) {
    const cJSON *decls = member(t, "functionDeclarations"), *d;
    const cJSON *listed = cJSON_IsArray(decls) ? decls : NULL;
    cJSON_ArrayForEach(d, listed) {
      const char *name = ock_json_str(d, "name");
      OCK_ASSERT_OK(ock_buf_printf(out, "[%s]", name ? name : ""));
    }
    if (decls)
      continue;
    const char *name = ock_json_str(t, "name");
    if (!name)
      name = ock_json_str(member(t, "function"), "name");
    OCK_ASSERT_OK(ock_buf_printf(out, "[%s]", name ? name : ""));
  }
}

static void assert_tool_names(const char *body, const cJSON *doc,
                              const struct ock_request_read *r) {
  struct ock_buf want, got;
  ock_buf_init(&want, 1 << 20);
  ock_buf_init(&got, 1 << 20);
  tree_tool_names(doc, &want);
  for (size_t i = 0; i < r->n_tools; i++) {
    cJSON *name = r->tool_names[i].len
                      ? cJSON_ParseWithLength(body + r->tool_names[i].at, r->tool_names[i].len)
                      : NULL;
    OCK_ASSERT_OK(ock_buf_printf(&got, "[%s]", cJSON_IsString(name) ? name->valuestring : ""));
    cJSON_Delete(name);
  }
  OCK_ASSERT_STR_EQ(got.data ? got.data : "", want.data ? want.data : "");
  ock_buf_free(&want);
  ock_buf_free(&got);
}

/* assert_like_tree: a body the reader took reads as the tree reader reads it, member by member
 * and message by message. */
static void assert_like_tree(const char *body, size_t len, enum ock_request_api api,
                             const struct ock_request_read *r) {
  cJSON *doc = cJSON_ParseWithLength(body, len);
  struct ock_history tree;
  OCK_ASSERT_INT_EQ(cJSON_IsObject(doc), 1);
  OCK_ASSERT_OK(tree_read(doc, api, &tree));
  assert_same_history(&r->history, &tree);
  ock_history_free(&tree);
  const char *history = api == OCK_REQUEST_RESPONSES ? "input"
                        : api == OCK_REQUEST_GEMINI  ? "contents"
                                                     : "messages";
  assert_span_is(body, r->messages, member(doc, history));
  if (api == OCK_REQUEST_GEMINI || api == OCK_REQUEST_ANTHROPIC)
    assert_span_is(body, r->system,
                   member(doc, api == OCK_REQUEST_GEMINI ? "systemInstruction" : "system"));
  assert_params(body, doc, r);
  assert_tool_names(body, doc, r);
  if (api == OCK_REQUEST_GEMINI) {
    OCK_ASSERT_INT_EQ(r->model == NULL && !r->stream, 1);
  } else {
    OCK_ASSERT_STR_EQ(r->model, ock_json_str(doc, "model"));
    OCK_ASSERT_INT_EQ(r->stream, cJSON_IsTrue(member(doc, "stream")));
  }
  if (api == OCK_REQUEST_RESPONSES) {
    const char *prev = ock_json_str(doc, "previous_response_id");
    OCK_ASSERT_INT_EQ(r->store, !cJSON_IsFalse(member(doc, "store")));
    OCK_ASSERT_INT_EQ(r->n_instructions, ock_json_str(doc, "instructions") != NULL);
    OCK_ASSERT_INT_EQ(r->previous_id == NULL, prev == NULL);
    if (prev && r->previous_id)
      OCK_ASSERT_STR_EQ(r->previous_id, prev);
  }
  cJSON_Delete(doc);
}

/* read_corpus_file: the file's body and API; 0 when it cannot be read. */
static int read_corpus_file(const char *path, struct ock_buf *b) {
  FILE *f = fopen(path, "rb");
  char chunk[4096];
  size_t n;
  if (!f)
    return 0;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
    OCK_ASSERT_OK(ock_buf_append(b, chunk, n));
  fclose(f);
  return b->len > 0;
}

static void check_corpus_file(const char *dir, const char *name, int *taken, int *declined) {
  char path[4096];
  struct ock_buf b;
  struct ock_request_read r;
  ock_buf_init(&b, (size_t)16 << 20);
  snprintf(path, sizeof path, "%s/%s", dir, name);
  OCK_ASSERT_INT_EQ(read_corpus_file(path, &b), 1);
  if (!b.len)
    return;
  enum ock_request_api api = (enum ock_request_api)((unsigned char)b.data[0] & 3);
  char *body = malloc(b.len); /* exactly the bytes, as the mock has them */
  OCK_ASSERT_INT_EQ(body != NULL, 1);
  memcpy(body, b.data + 1, b.len - 1);
  int rc = ock_wire_request_read(body, b.len - 1, api, &r);
  if (strncmp(name, "declined-", 9)) {
    if (rc)
      fprintf(stderr, "corpus %s: declined (%d)\n", name, rc);
    OCK_ASSERT_OK(rc);
    if (!rc) {
      assert_like_tree(body, b.len - 1, api, &r);
      ock_wire_request_free(&r);
    }
    (*taken)++;
  } else {
    OCK_ASSERT_INT_EQ(rc, OCK_EJSON);
    (*declined)++;
  }
  free(body);
  ock_buf_free(&b);
}

static void test_corpus(void) {
  const char *dir = ock_test_path("fuzz/seeds/wire_request");
  char d[4096];
  snprintf(d, sizeof d, "%s", dir);
  DIR *dh = opendir(d);
  OCK_ASSERT_INT_EQ(dh != NULL, 1);
  int taken = 0, declined = 0;
  struct dirent *e;
  while (dh && (e = readdir(dh)))
    if (e->d_name[0] != '.')
      check_corpus_file(d, e->d_name, &taken, &declined);
  if (dh)
    closedir(dh);
  OCK_ASSERT_INT_EQ(taken >= 20 && declined >= 15, 1); /* the corpus is there */
}

/* The bench's two other request bodies: taken, as the tree reads them. */
static void test_bench_requests_other_wires(void) {
  static const char *const files[] = {"bench/request-responses.json", "bench/request-gemini.json"};
  static const enum ock_request_api apis[] = {OCK_REQUEST_RESPONSES, OCK_REQUEST_GEMINI};
  for (size_t i = 0; i < 2; i++) {
    struct ock_buf b;
    struct ock_request_read r;
    ock_buf_init(&b, 1 << 20);
    OCK_ASSERT_INT_EQ(read_corpus_file(ock_test_path(files[i]), &b), 1);
    OCK_ASSERT_OK(ock_wire_request_read(b.data ? b.data : "", b.len, apis[i], &r));
    assert_like_tree(b.data ? b.data : "", b.len, apis[i], &r);
    OCK_ASSERT_INT_EQ(r.history.len, 5); /* system, user, call, result, user */
    OCK_ASSERT_INT_EQ(r.n_tools, 1);
    ock_wire_request_free(&r);
    ock_buf_free(&b);
  }
}

static void test_compact_and_object_text(void) {
  struct ock_buf b;
  ock_buf_init(&b, 1 << 20);
  const char *v = " [ 1 , \"a b\\\" \" ,\n{ \"k\" : null } ] ";
  OCK_ASSERT_OK(ock_wire_compact(&b, v, strlen(v)));
  OCK_ASSERT_STR_EQ(b.data, "[1,\"a b\\\" \",{\"k\":null}]");
  ock_buf_reset(&b);
  const char *o = " {\"a\": [true, false, null, -12, \"x\\n\"], \"b\": {}} ";
  OCK_ASSERT_OK(ock_wire_object_text(&b, o, strlen(o)));
  cJSON *tree = cJSON_Parse(o);
  char *printed = ock_json_print(tree);
  OCK_ASSERT_STR_EQ(b.data, printed);
  free(printed);
  cJSON_Delete(tree);
  static const char *const not_plain[] = {
      "[]", "{\"a\":1.5}", "{\"a\":\"\\/\"}", "{\"a\":-0}", "{\"a\":\"\\u0041\"}", "{} x",
      "{",  NULL};
  for (size_t i = 0; not_plain[i]; i++) {
    ock_buf_reset(&b);
    OCK_ASSERT_INT_EQ(ock_wire_object_text(&b, not_plain[i], strlen(not_plain[i])), OCK_EJSON);
    OCK_ASSERT_INT_EQ(b.len, 0);
  }
  ock_buf_free(&b);
}

static const struct ock_test tests[] = {
    {"bench_request", test_bench_request},
    {"openai_shapes", test_openai_shapes},
    {"anthropic_shapes", test_anthropic_shapes},
    {"declined", test_declined},
    {"compact_and_object_text", test_compact_and_object_text},
    {"corpus", test_corpus},
    {"bench_requests_other_wires", test_bench_requests_other_wires},
    {NULL, NULL}};

const struct ock_suite suite_wire_request = {"wire_request", tests, NULL, NULL};
