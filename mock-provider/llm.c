/*
 * llm.c: the LLM endpoints: one request in, the scripted answer (or the right error) out.
 *
 * For each request, in this order: read the body (model, messages as the neutral history,
 * tools' names) with core's tree-less reader (ock/wire_request.h), or, for a body outside its
 * subset, with cJSON and the tree readers of core/message.c, which word every 400 in the
 * provider's envelope; validate the history (validate.c); pack the request for its llm_request
 * journal entry, which the journal prints from the body's bytes when it is read (the entry is
 * read once per scenario, and printing it was a third of a request's work); under the state
 * lock decide() the answer (the request's 400,
 * the history's 400 unless observe-only, a seeded random fault, the scripted turn with its
 * fault, or "unmatched") and journal_decision() journals it in that order and fires a cancel
 * trigger; then, outside the lock, build the bytes through the provider's wire (wire.h). The
 * reply's journal entry is deferred until the reply has really gone out (or was abandoned:
 * fault client_gone).
 *
 * Deterministic ids (SPEC 6.6): with H the FNV-1a hash of the scenario id and T the 1-based
 * number of the scripted turn played, counted over all providers, tool calls are call_H_T_I /
 * toolu_H_T_I, the reply id chatcmpl-H-T / msg_H_T, "created" is 1700000000 + T, and the
 * request id (header, and Anthropic's error body) is req_ock_H_S with S the journal seq of the
 * request.
 */
#include "state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "faults.h"
#include "gemini.h"
#include "ock/gemini.h"
#include "ock/caps.h"
#include "ock/contract.h"
#include "ock/message.h"
#include "ock/wire_request.h"
#include "ock/status.h"
#include "script.h"
#include "validate.h"

/* What the Responses API's store held when a request arrived, so that the journal reads the
 * request again (print_request) as it was read then: the items it could name, the generations
 * dropped (stored.h), and whether a lookup missed. again: 0 when the request is read as it
 * arrives. */
struct store_mark {
  int again;
  size_t seen, drops;
  int missed;
};

/* One request, read: by the tree-less reader (core/wire_request.c) when the body is in its
 * subset, else by the tree reader, which also words every 400. */
struct llm_in {
  int fast;                    /* read by the tree-less reader: req holds it */
  struct ock_request_read req; /* fast: the spans, tool names, model, history */
  const char *text;            /* fast: the body the spans count in */
  cJSON *body;                 /* tree: owned */
  const cJSON *messages;       /* tree: in body */
  const cJSON *system;         /* tree: Anthropic's "system", or NULL */
  const cJSON *tools;          /* tree: in body, or NULL */
  const char *model;           /* in req or body; NULL when missing */
  int stream;
  int include_usage;
  struct ock_history hist; /* the neutral history (moved out of req when fast) */
  int hist_ok;
  char problem[900];         /* non-empty: the request is malformed (400) */
  const char *problem_param; /* OpenAI "param" of the problem, or NULL */
  const char *problem_code;  /* OpenAI "code" of the problem, or NULL */
  int problem_status;        /* the problem's HTTP status; 0: 400 */
  /* Responses API: what goes before input in hist (instructions, then the conversation
   * previous_response_id names), and whether the reply is kept for a later request */
  size_t n_instructions;
  const char *previous_id;
  int store;
  struct store_mark mark; /* what the store held when the request arrived (below) */
  int missed;             /* a stored conversation or item the request named was not found */
  int context_dropped;    /* read again: what it named was found then, and dropped since */
  cJSON *resolved; /* owned: input with its item references replaced, or NULL when it has none */
  char model_buf[256]; /* Gemini: the model named in the URL */
};

enum llm_outcome { OUT_TURN, OUT_INVALID, OUT_HISTORY, OUT_RANDOM, OUT_UNMATCHED };

/* The provider's 400 text for a history finding, made before the lock is taken. */
struct finding_text {
  char message[1400];
  char param[64];
  char code[64]; /* "" : null */
};

/* What was decided under the lock. */
struct llm_decision {
  enum llm_outcome outcome;
  int turn;                         /* the turn's index in the provider's script, or -1 */
  unsigned long long index;         /* the request's number over all providers, from 1 */
  unsigned long long position;      /* ... among its provider's requests, from 1 */
  unsigned long long reply_no;      /* T of the ids: 1-based over all played turns; 0: none */
  const struct ock_fx_fault *fault; /* scripted or random; NULL: none */
  int random_rule;                  /* the random rule that fired, or -1 */
  long long request_seq;            /* the journal seq of the llm_request entry */
  char message[1400];               /* error text for INVALID, HISTORY, UNMATCHED */
  char param[64];                   /* OpenAI "param" for HISTORY and INVALID */
  char code[64];                    /* OpenAI "code" for HISTORY and INVALID ("" : null) */
  int status;                       /* INVALID: the HTTP status */
  char expected[1400];              /* UNMATCHED: what the script expected */
};

/* anthropic_input_not_object: the Messages API rejects an assistant tool_use block whose
 * input is not an object (a string of raw arguments, an array, null) with this 400 text, and
 * the mock must accept nothing the real API rejects (SPEC.md 6.5). Returns 1 and writes the
 * text into problem for the first such block. */
static int anthropic_input_not_object(const cJSON *messages, char *problem, size_t n) {
  int i = 0;
  const cJSON *m;
  cJSON_ArrayForEach(m, messages) {
    const cJSON *content = cJSON_GetObjectItemCaseSensitive(m, "content");
    int b = 0;
    const cJSON *blk;
    if (!cJSON_IsArray(content))
      content = NULL;
    cJSON_ArrayForEach(blk, content) {
      const char *type = ock_json_str(blk, "type");
      if (type && !strcmp(type, "tool_use") &&
          !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(blk, "input"))) {
        snprintf(problem, n,
                 "messages.%d.content.%d.tool_use.input: Input should be a valid "
                 "dictionary",
                 i, b);
        return 1;
      }
      b++;
    }
    i++;
  }
  return 0;
}

/* read_fields: the members both APIs share, from the tree (a failed getter leaves rc set). */
static int read_fields(const struct ock_fx_provider *p, struct llm_in *in, struct ock_jerr *jerr) {
  const char *path = "$";
  int rc = ock_jcheck_object(in->body, path, jerr);
  if (!rc)
    rc = ock_jget_nonempty(in->body, path, "model", OCK_REQUIRED, &in->model, jerr);
  if (!rc)
    rc = ock_jget_array(in->body, path, "messages", OCK_REQUIRED, &in->messages, jerr);
  if (!rc)
    rc = ock_jget_bool(in->body, path, "stream", OCK_OPTIONAL, &in->stream, jerr);
  if (!rc)
    rc = ock_jget_array(in->body, path, "tools", OCK_OPTIONAL, &in->tools, jerr);
  if (!rc && p->api == OCK_WIRE_OPENAI) {
    const cJSON *so = NULL;
    rc = ock_jget_object(in->body, path, "stream_options", OCK_OPTIONAL, &so, jerr);
    if (!rc && so)
      rc = ock_jget_bool(so, "$.stream_options", "include_usage", OCK_OPTIONAL, &in->include_usage,
                         jerr);
  }
  return rc;
}

/* read_tree reads a body the tree-less reader declined, and words what is wrong with it. */
static void read_tree(const struct mock_request *rq, const struct ock_fx_provider *p,
                      struct llm_in *in) {
  struct ock_jerr jerr;
  int rc = ock_json_parse(rq->body, rq->body_len, &in->body, &jerr);
  if (!rc)
    rc = read_fields(p, in, &jerr);
  if (!rc && !cJSON_GetArraySize(in->messages)) {
    /* both APIs refuse a request without messages, each in its own words */
    if (p->api == OCK_WIRE_OPENAI) {
      snprintf(in->problem, sizeof in->problem,
               "Invalid 'messages': empty array. Expected an array with minimum length 1, but "
               "got an empty array instead.");
      in->problem_param = "messages";
      in->problem_code = "empty_array";
    } else {
      snprintf(in->problem, sizeof in->problem, "messages: at least one message is required");
    }
    return;
  }
  if (!rc && p->api == OCK_WIRE_ANTHROPIC) {
    in->system = cJSON_GetObjectItemCaseSensitive(in->body, "system");
    if (anthropic_input_not_object(in->messages, in->problem, sizeof in->problem))
      return;
  }
  if (!rc) {
    rc = p->api == OCK_WIRE_OPENAI
             ? ock_history_from_openai(in->messages, &in->hist, &jerr)
             : ock_history_from_anthropic(in->system, in->messages, &in->hist, &jerr);
    in->hist_ok = rc == OCK_OK;
  }
  if (rc)
    snprintf(in->problem, sizeof in->problem, "%s: %s", jerr.where, jerr.what);
}

/* responses_fields: the members of a Responses API body, from the tree. */
static int responses_fields(struct llm_in *in, const char **instructions, struct ock_jerr *jerr) {
  const char *path = "$";
  int rc = ock_jcheck_object(in->body, path, jerr);
  if (!rc)
    rc = ock_jget_nonempty(in->body, path, "model", OCK_REQUIRED, &in->model, jerr);
  if (!rc)
    rc = ock_jget_bool(in->body, path, "stream", OCK_OPTIONAL, &in->stream, jerr);
  if (!rc)
    rc = ock_jget_array(in->body, path, "tools", OCK_OPTIONAL, &in->tools, jerr);
  if (!rc)
    rc = ock_jget_string(in->body, path, "instructions", OCK_OPTIONAL, instructions, jerr);
  if (!rc)
    rc = ock_jget_string(in->body, path, "previous_response_id", OCK_OPTIONAL, &in->previous_id,
                         jerr);
  if (!rc)
    rc = ock_jget_bool(in->body, path, "store", OCK_OPTIONAL, &in->store, jerr);
  in->messages = cJSON_GetObjectItemCaseSensitive(in->body, "input");
  if (!rc && !in->messages)
    rc = ock_jerr_set(jerr, OCK_EMISSING, "$.input", "required member is missing");
  return rc;
}

/* dropped_since: a lookup that misses now, read again for the journal, found what it looked for
 * when the request arrived, and the store has dropped a generation since (sets
 * in->context_dropped). */
static int dropped_since(struct mock_store *store, struct llm_in *in) {
  if (in->mark.again && !in->mark.missed && ock__store_drops(store) > in->mark.drops)
    in->context_dropped = 1;
  return in->context_dropped;
}

/* The API's texts for an item_reference it cannot resolve: 404, type invalid_request_error,
 * param "input", code null, with the second sentence when the request itself says store false
 * (openai/openai-agents-python#2020 without it, #2265 and home-assistant/core#150251 with it). */
static const char *const ITEM_NOT_FOUND = "Item with id '%.200s' not found.";
static const char *const NOT_PERSISTED =
    " Items are not persisted when `store` is set to false. Try again with `store` set to true, "
    "or remove this item from your input.";

static int is_reference(const cJSON *item) {
  const char *type = ock_json_str(item, "type");
  return type && !strcmp(type, "item_reference");
}

/* resolve_one puts the stored item that reference names in its place in in->resolved, or words
 * the API's refusal of it; reference is then gone. OCK_OK (also when refused), else the error. */
static int resolve_one(struct mock_store *store, struct llm_in *in, cJSON *reference, int index,
                       struct ock_jerr *jerr) {
  char path[OCK_JSON_PATH_MAX];
  const char *id = NULL;
  cJSON *item = NULL;
  ock_jpath_index(path, sizeof path, "$.input", index);
  int rc = ock_jget_string(reference, path, "id", OCK_REQUIRED, &id, jerr);
  if (!rc)
    rc = ock__store_item(store, id, in->mark.seen, &item);
  if (rc == OCK_ENOTFOUND && dropped_since(store, in)) {
    cJSON_Delete(cJSON_DetachItemViaPointer(in->resolved, reference));
    return OCK_OK;
  }
  if (rc == OCK_ENOTFOUND) {
    in->missed = 1;
    int n = snprintf(in->problem, sizeof in->problem, ITEM_NOT_FOUND, id);
    if (!in->store && n > 0 && (size_t)n < sizeof in->problem)
      snprintf(in->problem + n, sizeof in->problem - (size_t)n, "%s", NOT_PERSISTED);
    in->problem_param = "input";
    in->problem_status = 404;
    return OCK_OK;
  }
  if (!rc && !cJSON_ReplaceItemViaPointer(in->resolved, reference, item)) {
    cJSON_Delete(item);
    rc = OCK_ENOMEM;
  }
  return rc;
}

/* resolve_references: when input names stored items by item_reference, in->resolved is a copy
 * of it with each reference replaced, in place, by the item (so the neutral history, validated
 * and journaled, is the conversation the API sees; wire indexes stay those of input). */
static int resolve_references(struct mock_store *store, struct llm_in *in, struct ock_jerr *jerr) {
  const cJSON *item;
  int any = 0;
  if (cJSON_IsArray(in->messages))
    cJSON_ArrayForEach(item, in->messages)
      any |= is_reference(item);
  if (!any)
    return OCK_OK;
  if (!(in->resolved = cJSON_Duplicate(in->messages, 1)))
    return OCK_ENOMEM;
  int i = 0, rc = OCK_OK;
  for (cJSON *it = in->resolved->child, *next; it && !rc && !in->problem[0]; it = next, i++) {
    next = it->next;
    if (is_reference(it))
      rc = resolve_one(store, in, it, i, jerr);
  }
  return rc;
}

/* unknown_previous: the API's own 400 for a previous_response_id it does not know. */
static void unknown_previous(struct llm_in *in) {
  in->missed = 1;
  snprintf(in->problem, sizeof in->problem, "Previous response with id '%.200s' not found.",
           in->previous_id);
  in->problem_param = "previous_response_id";
  in->problem_code = "previous_response_not_found";
}

/* responses_tree reads a Responses API body the tree-less reader declined, and words what is
 * wrong with it: the neutral history is the instructions (a system message), the stored
 * conversation previous_response_id continues, then the input items. */
static void responses_tree(const struct mock_request *rq, struct mock_store *store,
                           struct llm_in *in) {
  struct ock_jerr jerr = {0};
  const char *instructions = NULL;
  in->store = 1; /* the API's default */
  int rc = ock_json_parse(rq->body, rq->body_len, &in->body, &jerr);
  if (!rc)
    rc = responses_fields(in, &instructions, &jerr);
  if (!rc && instructions) {
    rc = ock_history_add_text(&in->hist, OCK_ROLE_SYSTEM, instructions);
    if (!rc) {
      in->hist.items[0].wire_index = -1;
      in->n_instructions = 1;
    }
  }
  if (!rc && in->previous_id &&
      ock__store_chain(store, in->previous_id, &in->hist) == OCK_ENOTFOUND &&
      !dropped_since(store, in)) {
    unknown_previous(in);
    return;
  }
  if (!rc)
    rc = resolve_references(store, in, &jerr);
  if (!rc && in->problem[0])
    return;
  if (!rc) {
    rc = ock_history_from_responses(in->resolved ? in->resolved : in->messages, &in->hist, &jerr);
    in->hist_ok = rc == OCK_OK;
  }
  if (rc)
    snprintf(in->problem, sizeof in->problem, "%s: %s", jerr.where, jerr.what);
}

/* take_fast: what the tree-less reader read, into in. */
static void take_fast(const struct mock_request *rq, struct llm_in *in) {
  in->fast = 1;
  in->text = rq->body;
  in->stream = in->req.stream;
  in->include_usage = in->req.include_usage;
}

/* move_from appends the messages of from from index at on to to, without copying them; from
 * keeps the ones before. */
static int move_from(struct ock_history *to, struct ock_history *from, size_t at) {
  size_t n = from->len - at;
  if (to->len + n > to->cap) {
    struct ock_message *items = realloc(to->items, (to->len + n) * sizeof *items);
    if (!items)
      return OCK_ENOMEM;
    to->items = items;
    to->cap = to->len + n;
  }
  if (n)
    memcpy(to->items + to->len, from->items + at, n * sizeof *to->items);
  to->len += n;
  from->len = at;
  return OCK_OK;
}

/* read_responses reads a Responses API body: the neutral history is the instructions (a system
 * message), the stored conversation previous_response_id continues, then the input items, each
 * item_reference as the stored item it names (a body with one is read by responses_tree). An
 * unknown previous_response_id is the API's own 400, an unknown item_reference its 404. in->mark
 * says what the store held when the request arrived. */
static int read_responses(const struct mock_request *rq, struct mock_store *store,
                          struct llm_in *in) {
  int rc = ock_wire_request_read(rq->body, rq->body_len, OCK_REQUEST_RESPONSES, &in->req);
  if (rc == OCK_EJSON)
    responses_tree(rq, store, in);
  if (rc)
    return rc == OCK_EJSON ? OCK_OK : rc;
  take_fast(rq, in);
  in->model = in->req.model;
  in->store = in->req.store;
  in->previous_id = in->req.previous_id;
  in->n_instructions = in->req.n_instructions;
  struct ock_history *read = &in->req.history;
  if (!in->previous_id) {
    in->hist = *read;
    ock_history_init(read);
    in->hist_ok = 1;
    return OCK_OK;
  }
  for (size_t i = 0; !rc && i < in->n_instructions; i++)
    rc = ock_history_append_message(&in->hist, &read->items[i]);
  if (!rc && ock__store_chain(store, in->previous_id, &in->hist) == OCK_ENOTFOUND &&
      !dropped_since(store, in)) {
    unknown_previous(in);
    return OCK_OK;
  }
  if (!rc)
    rc = move_from(&in->hist, read, in->n_instructions);
  in->hist_ok = rc == OCK_OK;
  return rc;
}

/* not_sse: the mock's 400 for a streamed Gemini request without ?alt=sse. */
static void not_sse(struct llm_in *in) {
  snprintf(in->problem, sizeof in->problem,
           "ock: :streamGenerateContent is served as SSE only; add ?alt=sse");
}

/* gemini_tree reads a Gemini body the tree-less reader declined with the tree readers, and
 * words what the API would refuse as it does. */
static void gemini_tree(const struct mock_request *rq, struct llm_in *in) {
  struct ock_jerr jerr;
  int rc = ock_json_parse(rq->body, rq->body_len, &in->body, &jerr);
  if (!rc)
    rc = ock_jcheck_object(in->body, "$", &jerr);
  if (!rc)
    rc = ock_jget_array(in->body, "$", "contents", OCK_OPTIONAL, &in->messages, &jerr);
  if (!rc)
    rc = ock_jget_object(in->body, "$", "systemInstruction", OCK_OPTIONAL, &in->system, &jerr);
  if (!rc)
    rc = ock_jget_array(in->body, "$", "tools", OCK_OPTIONAL, &in->tools, &jerr);
  if (!rc && !cJSON_GetArraySize(in->messages)) {
    /* the API's own text, newline and all */
    snprintf(in->problem, sizeof in->problem,
             "* GenerateContentRequest.contents: contents is not specified\n");
    return;
  }
  if (!rc && in->stream && !ock__gemini_sse(rq)) {
    not_sse(in);
    return;
  }
  if (!rc) {
    rc = ock_history_from_gemini(in->system, in->messages, &in->hist, &jerr);
    in->hist_ok = rc == OCK_OK;
  }
  if (rc == OCK_EINVAL && !strcmp(jerr.what, "contents.parts must not be empty."))
    snprintf(in->problem, sizeof in->problem, "* GenerateContentRequest%s: %s\n", jerr.where + 1,
             jerr.what);
  else if (rc)
    snprintf(in->problem, sizeof in->problem, "%s: %s", jerr.where, jerr.what);
}

/* read_gemini reads a Gemini request: the model and streaming from the path, then the body. */
static int read_gemini(const struct mock_request *rq, struct llm_in *in) {
  const char *model = NULL;
  size_t model_len = 0;
  int stream = 0;
  ock__gemini_route(rq->path, &model, &model_len, &stream);
  snprintf(in->model_buf, sizeof in->model_buf, "%.*s", (int)(model_len % sizeof in->model_buf),
           model ? model : "");
  in->model = in->model_buf;
  in->stream = stream;
  int rc = ock_wire_request_read(rq->body, rq->body_len, OCK_REQUEST_GEMINI, &in->req);
  if (rc == OCK_EJSON)
    gemini_tree(rq, in);
  if (rc)
    return rc == OCK_EJSON ? OCK_OK : rc;
  take_fast(rq, in);
  in->stream = stream;
  if (stream && !ock__gemini_sse(rq)) {
    not_sse(in);
    return OCK_OK;
  }
  in->hist = in->req.history;
  ock_history_init(&in->req.history);
  in->hist_ok = 1;
  return OCK_OK;
}

/* read_request: OCK_OK (in filled; free with free_request, also on failure) or OCK_ENOMEM.
 * again: what the store held when the request arrived, when the journal reads it again; NULL
 * as it arrives (then in->mark is taken now). */
static int read_request(const struct mock_request *rq, const struct ock_fx_provider *p,
                        struct mock_store *store, const struct store_mark *again,
                        struct llm_in *in) {
  memset(in, 0, sizeof *in);
  ock_history_init(&in->hist);
  if (again)
    in->mark = *again;
  if (p->api == OCK_WIRE_RESPONSES && !again) { /* drops first: a drop during the read counts */
    in->mark.drops = ock__store_drops(store);
    in->mark.seen = ock__store_items(store);
  }
  if (p->api == OCK_WIRE_RESPONSES)
    return read_responses(rq, store, in);
  if (p->api == OCK_WIRE_GEMINI)
    return read_gemini(rq, in);
  int rc = ock_wire_request_read(
      rq->body, rq->body_len,
      p->api == OCK_WIRE_ANTHROPIC ? OCK_REQUEST_ANTHROPIC : OCK_REQUEST_OPENAI, &in->req);
  if (rc == OCK_ENOMEM)
    return rc;
  if (rc) {
    read_tree(rq, p, in);
    return OCK_OK;
  }
  take_fast(rq, in);
  in->model = in->req.model;
  in->hist = in->req.history;
  ock_history_init(&in->req.history);
  in->hist_ok = 1;
  return OCK_OK;
}

static void free_request(struct llm_in *in) {
  ock_history_free(&in->hist);
  ock_wire_request_free(&in->req);
  cJSON_Delete(in->body);
  cJSON_Delete(in->resolved);
}

/* raw_messages: the request's "messages" as a tree, for what only a finding needs (the
 * provider's text names wire messages). Caller frees with cJSON_Delete when *owned. */
static const cJSON *raw_messages(const struct llm_in *in, int *owned) {
  *owned = in->fast;
  if (!in->fast)
    return in->messages;
  return cJSON_ParseWithLength(in->text + in->req.messages.at, in->req.messages.len);
}

/* result_blocks: for each Anthropic tool message of a history read from the tree, the index
 * of its tool_result block in its wire message (what the fast reader gives as result_blocks);
 * NULL when out of memory or for OpenAI. Caller frees. */
static int *result_blocks(const struct llm_in *in) {
  int *blocks = malloc((in->hist.len ? in->hist.len : 1) * sizeof *blocks);
  const cJSON *wire = in->messages ? in->messages->child : NULL;
  int wire_at = 0;
  for (size_t i = 0; blocks && i < in->hist.len; i++) {
    const struct ock_message *m = &in->hist.items[i];
    while (wire && m->wire_index >= 0 && wire_at < m->wire_index) {
      wire = wire->next;
      wire_at++;
    }
    blocks[i] = -1;
    const cJSON *content = wire && wire_at == m->wire_index && m->role == OCK_ROLE_TOOL
                               ? cJSON_GetObjectItemCaseSensitive(wire, "content")
                               : NULL;
    const cJSON *b = cJSON_IsArray(content) ? content->child : NULL;
    for (int k = 0; b && blocks[i] < 0; b = b->next, k++) {
      const char *type = ock_json_str(b, "type"), *id = ock_json_str(b, "tool_use_id");
      if (type && !strcmp(type, "tool_result") && id && m->tool_call_id &&
          !strcmp(id, m->tool_call_id))
        blocks[i] = k;
    }
  }
  return blocks;
}

/* write_arguments writes a call's arguments: an object goes in as an object, anything else
 * as the string it is (also an object that readers read differently, with U+0000 in a string
 * or a member name twice: cJSON's tree of it would not be what was sent). */
static int write_arguments(struct ock_buf *out, const char *args) {
  int rc = ock_wire_object_text(out, args, strlen(args));
  if (rc != OCK_EJSON)
    return rc;
  cJSON *parsed = NULL; /* outside the plain subset: as the kit's reader reads it */
  if (ock_json_parse(args, strlen(args), &parsed, NULL))
    parsed = NULL;
  rc = cJSON_IsObject(parsed) ? ock_json_write(out, parsed) : ock_json_write_string(out, args);
  cJSON_Delete(parsed);
  return rc;
}

static int write_calls(struct ock_buf *out, const struct ock_message *m) {
  int rc = ock_buf_puts(out, ",\"tool_calls\":[");
  for (size_t c = 0; !rc && c < m->n_calls; c++) {
    rc = (c && ock_buf_puts(out, ",")) || ock_buf_puts(out, "{\"id\":") ||
         ock_json_write_string(out, m->calls[c].id ? m->calls[c].id : "") ||
         ock_buf_puts(out, ",\"name\":") ||
         ock_json_write_string(out, m->calls[c].name ? m->calls[c].name : "") ||
         ock_buf_puts(out, ",\"arguments\":") ||
         write_arguments(out, m->calls[c].arguments ? m->calls[c].arguments : "") ||
         ock_buf_puts(out, "}");
  }
  return rc || ock_buf_puts(out, "]");
}

/* neutral_text writes the history in the neutral form of SPEC 6.1 as JSON text; blocks (NULL
 * for OpenAI) gives each Anthropic tool message its wire_block. */
static int neutral_text(const struct ock_history *h, const int *blocks, struct ock_buf *out) {
  int rc = ock_buf_puts(out, "[");
  for (size_t i = 0; !rc && i < h->len; i++) {
    const struct ock_message *m = &h->items[i];
    rc = (i && ock_buf_puts(out, ",")) || ock_buf_puts(out, "{\"role\":") ||
         ock_json_write_string(out, ock_role_name(m->role)) || ock_buf_puts(out, ",\"content\":") ||
         ock_json_write_string(out, m->content ? m->content : "");
    if (!rc && m->n_calls)
      rc = write_calls(out, m);
    if (!rc && m->role == OCK_ROLE_TOOL)
      rc = ock_buf_puts(out, ",\"tool_call_id\":") ||
           ock_json_write_string(out, m->tool_call_id ? m->tool_call_id : "") ||
           (m->is_error && ock_buf_puts(out, ",\"is_error\":true"));
    rc = rc || ock_buf_puts(out, ",\"wire_index\":") || ock_json_write_int(out, m->wire_index);
    if (!rc && blocks && m->role == OCK_ROLE_TOOL)
      rc = ock_buf_puts(out, ",\"wire_block\":") || ock_json_write_int(out, blocks[i]);
    rc = rc || ock_buf_puts(out, "}");
  }
  return rc || ock_buf_puts(out, "]") ? OCK_ENOMEM : OCK_OK;
}

/* write_neutral: the neutral history, or null when the history did not parse. */
static int write_neutral(struct ock_buf *out, const struct llm_in *in, int anthropic) {
  if (!in->hist_ok)
    return ock_buf_puts(out, "null");
  int *tree_blocks = anthropic && !in->fast ? result_blocks(in) : NULL;
  if (anthropic && !in->fast && !tree_blocks)
    return OCK_ENOMEM;
  int rc = neutral_text(&in->hist, in->fast ? in->req.result_blocks : tree_blocks, out);
  free(tree_blocks);
  return rc;
}

/* write_value: a member's value as it was sent (compact), or null when absent. */
static int write_value(struct ock_buf *out, const struct llm_in *in, struct ock_wire_span span,
                       const cJSON *tree) {
  if (in->fast)
    return span.len ? ock_wire_compact(out, in->text + span.at, span.len)
                    : ock_buf_puts(out, "null");
  return tree ? ock_json_write(out, tree) : ock_buf_puts(out, "null");
}

/* write_tools: the names of the tools a request offers, in either wire's shape, and their
 * count. */
static int write_tools(struct ock_buf *out, const struct llm_in *in) {
  int rc = ock_buf_puts(out, ",\"" OCK_F_LLM_REQUEST_TOOLS "\":["), n = 0;
  for (size_t i = 0; in->fast && !rc && i < in->req.n_tools; i++, n++) {
    struct ock_wire_span name = in->req.tool_names[i];
    rc = (i && ock_buf_puts(out, ",")) ||
         (name.len ? ock_buf_append(out, in->text + name.at, name.len) : ock_buf_puts(out, "\"\""));
  }
  const cJSON *t, *tools = in->fast ? NULL : in->tools;
  cJSON_ArrayForEach(t, tools) {
    const cJSON *decls = cJSON_GetObjectItemCaseSensitive(t, "functionDeclarations"), *d;
    const cJSON *listed = cJSON_IsArray(decls) ? decls : NULL;
    cJSON_ArrayForEach(d, listed) { /* Gemini's */
      const char *dname = ock_json_str(d, "name");
      rc = rc || (n++ && ock_buf_puts(out, ",")) || ock_json_write_string(out, dname ? dname : "");
    }
    if (decls)
      continue;
    const char *name = ock_json_str(t, "name");
    if (!name)
      name = ock_json_str(cJSON_GetObjectItemCaseSensitive(t, "function"), "name");
    rc = rc || (n++ && ock_buf_puts(out, ",")) || ock_json_write_string(out, name ? name : "");
  }
  return rc || ock_buf_puts(out, "],\"" OCK_F_LLM_REQUEST_TOOLS_OFFERED "\":") ||
         ock_json_write_int(out, n);
}

/* write_params: the rest of the body, so the entry holds the whole request without repeating
 * messages. */
static int write_params(struct ock_buf *out, const struct llm_in *in) {
  int rc = ock_buf_puts(out, ",\"" OCK_F_LLM_REQUEST_PARAMS "\":{"), n = 0;
  for (size_t i = 0; in->fast && !rc && i < in->req.n_params; i++, n++) {
    const struct ock_wire_member *m = &in->req.params[i];
    rc = (i && ock_buf_puts(out, ",")) || ock_buf_append(out, in->text + m->key.at, m->key.len) ||
         ock_buf_puts(out, ":") || ock_wire_compact(out, in->text + m->value.at, m->value.len);
  }
  const cJSON *m, *body = !in->fast && cJSON_IsObject(in->body) ? in->body : NULL;
  cJSON_ArrayForEach(m, body) {
    if (strcmp(m->string, "messages") && strcmp(m->string, "system") &&
        strcmp(m->string, "input") && strcmp(m->string, "contents") &&
        strcmp(m->string, "systemInstruction"))
      rc = rc || (n++ && ock_buf_puts(out, ",")) || ock_json_write_string(out, m->string) ||
           ock_buf_puts(out, ":") || ock_json_write(out, m);
  }
  return rc || ock_buf_puts(out, "}");
}

/* write_request appends the llm_request journal entry, without what the lock decides (decide()
 * gives turn, request_index and position, written after these members). Returns OCK_OK or
 * ock_buf_append's error. */
static int write_request(struct ock_buf *out, const struct mock_request *rq,
                         const struct ock_fx_provider *p, const struct llm_in *in) {
  int anthropic = p->api == OCK_WIRE_ANTHROPIC;
  int system = p->api == OCK_WIRE_ANTHROPIC || p->api == OCK_WIRE_GEMINI; /* its own member */
  struct ock_buf *b = out;
  /* The entry holds the messages twice (as sent, and neutral): room for that at once, instead
   * of a realloc for every doubling. */
  int rc =
      ock_buf_reserve(b, 2 * rq->body_len + 512) ||
      ock_buf_puts(b, "{\"" OCK_F_LLM_REQUEST_PROVIDER "\":") ||
      ock_json_write_string(b, p->name) || ock_buf_puts(b, ",\"" OCK_F_LLM_REQUEST_API "\":") ||
      ock_json_write_string(b, ock_wire_name_at(p->api)) ||
      ock_buf_puts(b, ",\"" OCK_F_LLM_REQUEST_METHOD "\":") ||
      ock_json_write_string(b, rq->method) || ock_buf_puts(b, ",\"" OCK_F_LLM_REQUEST_PATH "\":") ||
      ock_json_write_string(b, rq->path) ||
      ock_buf_puts(b, in->stream ? ",\"" OCK_F_LLM_REQUEST_STREAM "\":true"
                                 : ",\"" OCK_F_LLM_REQUEST_STREAM "\":false") ||
      ock_buf_puts(b, ",\"" OCK_F_LLM_REQUEST_MODEL "\":") || ock_json_write_string(b, in->model) ||
      ock_buf_puts(b, ",\"" OCK_F_LLM_REQUEST_MESSAGES "\":") ||
      write_value(b, in, in->req.messages, in->messages) ||
      (system && (ock_buf_puts(b, ",\"" OCK_F_LLM_REQUEST_SYSTEM "\":") ||
                  write_value(b, in, in->req.system, in->system))) ||
      ock_buf_puts(b, ",\"" OCK_F_LLM_REQUEST_NEUTRAL "\":") || write_neutral(b, in, anthropic) ||
      write_tools(b, in) || write_params(b, in) ||
      ock_buf_puts(b, ",\"" OCK_F_LLM_REQUEST_HEADERS "\":{") ||
      (rq->trace_id &&
       (ock_buf_puts(b, "\"x-ock-trace-id\":") || ock_json_write_string(b, rq->trace_id))) ||
      ock_buf_puts(b, "}") ||
      (in->problem[0] && (ock_buf_puts(b, ",\"" OCK_F_LLM_REQUEST_ERROR "\":") ||
                          ock_json_write_string(b, in->problem))) ||
      (in->context_dropped && ock_buf_puts(b, ",\"" OCK_F_LLM_REQUEST_CONTEXT_DROPPED "\":true")) ||
      ock_buf_puts(b, "}");
  return rc ? b->err ? b->err : OCK_ENOMEM : OCK_OK;
}

/* What an llm_request entry is printed from when the journal is read: the request as it
 * arrived (read_request reads it again, to the same result). */
struct request_blob {
  const struct ock_fx_provider *p;
  struct mock_store *store;
  struct store_mark mark; /* what the store held when it arrived, and whether a lookup missed */
  size_t method_len, path_len, trace_len, body_len; /* trace_len SIZE_MAX: no trace header */
  char bytes[];                                     /* method, path, trace id, body; each + NUL */
};

/* request_blob packs what print_request needs into one allocation; NULL when out of memory. */
static struct request_blob *request_blob(const struct mock_request *rq,
                                         const struct ock_fx_provider *p, struct mock_store *store,
                                         const struct store_mark *mark, size_t *len) {
  size_t m = strlen(rq->method), pa = strlen(rq->path);
  size_t t = rq->trace_id ? strlen(rq->trace_id) : SIZE_MAX;
  *len = sizeof(struct request_blob) + m + pa + (rq->trace_id ? t : 0) + rq->body_len + 4;
  struct request_blob *b = malloc(*len);
  if (!b)
    return NULL;
  *b = (struct request_blob){p, store, *mark, m, pa, t, rq->body_len};
  b->mark.again = 1;
  char *at = b->bytes;
  memcpy(at, rq->method, m + 1);
  at += m + 1;
  memcpy(at, rq->path, pa + 1);
  at += pa + 1;
  if (rq->trace_id) {
    memcpy(at, rq->trace_id, t + 1);
    at += t + 1;
  } else {
    *at++ = '\0';
  }
  memcpy(at, rq->body, rq->body_len);
  at[rq->body_len] = '\0';
  return b;
}

/* print_request: the ock_journal_print_fn of llm_request entries. */
static int print_request(const void *blob, struct ock_buf *out) {
  const struct request_blob *b = blob;
  struct mock_request rq = {.method = b->bytes};
  rq.path = rq.method + b->method_len + 1;
  const char *trace = rq.path + b->path_len + 1;
  rq.trace_id = b->trace_len == SIZE_MAX ? NULL : trace;
  rq.body = trace + (b->trace_len == SIZE_MAX ? 0 : b->trace_len) + 1;
  rq.body_len = b->body_len;
  struct llm_in in;
  int rc = read_request(&rq, b->p, b->store, &b->mark, &in);
  if (!rc)
    rc = write_request(out, &rq, b->p, &in);
  free_request(&in);
  return rc;
}

/* fault_json: {"kind", and the fault's parameters} as the journal shows a fault. */
static cJSON *fault_json(const struct ock_fx_fault *f) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "kind", ock_fx_fault_kind_name(f->kind));
  if (f->kind == OCK_FX_FAULT_STATUS || f->status)
    cJSON_AddNumberToObject(o, "status", f->status);
  if (f->kind == OCK_FX_FAULT_STATUS && f->retry_after >= 0)
    cJSON_AddNumberToObject(o, "retry_after", f->retry_after);
  if (f->kind == OCK_FX_FAULT_STATUS && f->retry_after_ms >= 0)
    cJSON_AddNumberToObject(o, "retry_after_ms", (double)f->retry_after_ms);
  if (f->kind == OCK_FX_FAULT_DROP_CONNECTION)
    cJSON_AddNumberToObject(o, "after_bytes", (double)f->after);
  else if (f->kind != OCK_FX_FAULT_STATUS)
    cJSON_AddNumberToObject(o, "after_chunks", (double)f->after);
  if (f->message)
    cJSON_AddStringToObject(o, "message", f->message);
  return o;
}

/* finding_text_of words a finding as the provider would (before the lock: it reads the
 * request's messages as they were sent). */
static void finding_text_of(const struct ock_fx_provider *p, const struct llm_in *in,
                            const struct mock_finding *f, struct finding_text *ft) {
  ft->message[0] = ft->param[0] = ft->code[0] = '\0';
  if (f->shape == MOCK_SHAPE_NONE)
    return;
  int owned;
  const cJSON *raw = raw_messages(in, &owned);
  struct ock_buf why, param, code;
  ock_buf_init(&why, sizeof ft->message - 1);
  ock_buf_init(&param, sizeof ft->param - 1);
  ock_buf_init(&code, sizeof ft->code - 1);
  ock__history_error(p->api, f, raw, &param, &code, &why);
  snprintf(ft->message, sizeof ft->message, "%s", why.data ? why.data : "");
  snprintf(ft->param, sizeof ft->param, "%s", param.data ? param.data : "");
  snprintf(ft->code, sizeof ft->code, "%s", code.data ? code.data : "");
  ock_buf_free(&why);
  ock_buf_free(&param);
  ock_buf_free(&code);
  if (owned)
    cJSON_Delete((cJSON *)raw);
}

/* random_fault: does one of the fixture's random LLM faults fire on this request? */
static int random_fault(struct mock_state *st, const struct ock_fx_provider *p,
                        struct llm_decision *d) {
  const struct ock_fixture *fx = st->fx;
  for (size_t i = 0; i < fx->n_randoms; i++) {
    const struct ock_fx_random *x = &fx->randoms[i];
    if (x->on != OCK_FX_RANDOM_LLM || (x->target && strcmp(x->target, p->name)))
      continue;
    unsigned long long k = ++st->random_counts[i];
    if (ock__fault_roll(st->seed, i, k, x->probability)) {
      d->outcome = OUT_RANDOM;
      d->random_rule = (int)i;
      d->fault = &x->fault;
      return 1;
    }
  }
  return 0;
}

/* play_turn picks the scripted turn that answers, or decides "unmatched". */
static void play_turn(struct mock_state *st, const struct ock_fx_provider *p,
                      const struct llm_in *in, struct llm_decision *d) {
  size_t pi = (size_t)(p - st->fx->providers);
  struct mock_match_input mi;
  struct ock_buf why;
  ock_buf_init(&why, sizeof d->expected - 1);
  ock__match_input_from(&in->hist, (long long)d->position, &mi);
  d->outcome = OUT_TURN;
  d->turn = ock__script_pick(p, &st->plays[pi], &mi, &why);
  if (d->turn < 0) {
    d->outcome = OUT_UNMATCHED;
    snprintf(d->message, sizeof d->message,
             "ock: no scripted turn matches this request (provider %s, request %llu)", p->name,
             d->position);
    snprintf(d->expected, sizeof d->expected, "%s", why.data ? why.data : "");
  } else {
    d->reply_no = ++st->replies;
    if (p->turns[d->turn].fault.kind != OCK_FX_FAULT_NONE)
      d->fault = &p->turns[d->turn].fault;
  }
  ock_buf_free(&why);
}

/* decide chooses the answer: the request's own 400, the history's (unless observe-only), a
 * random fault, the scripted turn, or "unmatched". It counts the request and the turns it
 * plays in st (so the caller holds st->lock) and journals nothing. */
static void decide(struct mock_state *st, const struct ock_fx_provider *p, const struct llm_in *in,
                   const struct mock_finding *finding, const struct finding_text *ft,
                   struct llm_decision *d) {
  d->turn = -1;
  d->random_rule = -1;
  d->reply_no = 0;
  d->fault = NULL;
  d->request_seq = 0;
  d->message[0] = d->param[0] = d->code[0] = d->expected[0] = '\0';
  d->status = 400;
  d->index = ++st->llm_requests;
  d->position = ++st->provider_requests[p - st->fx->providers];
  if (in->problem[0]) {
    d->outcome = OUT_INVALID;
    snprintf(d->message, sizeof d->message, "%s", in->problem);
    snprintf(d->param, sizeof d->param, "%s", in->problem_param ? in->problem_param : "");
    snprintf(d->code, sizeof d->code, "%s", in->problem_code ? in->problem_code : "");
    d->status = in->problem_status ? in->problem_status : 400;
  } else if (finding->shape != MOCK_SHAPE_NONE && !st->observe_only &&
             finding->shape != MOCK_A08_PARALLEL_WRONG_ORDER &&
             !(p->api == OCK_WIRE_RESPONSES && (finding->shape == MOCK_A03_INTERLEAVED_USER_MSG ||
                                                finding->shape == MOCK_A04_INTERLEAVED_ASST_MSG))) {
    /* Results out of call order are journaled but answered: the real APIs accept them
     * (SPEC.md 6.7), and the Responses API pairs outputs with calls by call_id wherever they
     * sit. Every other shape is a 400 there, so it is one here. */
    d->outcome = OUT_HISTORY;
    memcpy(d->message, ft->message, sizeof d->message);
    memcpy(d->param, ft->param, sizeof d->param);
    memcpy(d->code, ft->code, sizeof d->code);
  } else if (!random_fault(st, p, d)) {
    play_turn(st, p, in, d);
  }
}

static cJSON *finding_entry(const struct ock_fx_provider *p, const struct mock_finding *f,
                            const struct finding_text *ft, const struct llm_decision *d) {
  cJSON *e = cJSON_CreateObject();
  cJSON_AddStringToObject(e, OCK_F_FINDING_PROVIDER, p->name);
  cJSON_AddStringToObject(e, OCK_F_FINDING_SHAPE, ock__shape_name(f->shape));
  cJSON_AddNumberToObject(e, OCK_F_FINDING_MESSAGE_INDEX, f->message_index);
  cJSON_AddStringToObject(e, OCK_F_FINDING_TOOL_CALL_ID, f->tool_call_id);
  cJSON_AddStringToObject(e, OCK_F_FINDING_MESSAGE, ft->message);
  cJSON_AddNumberToObject(e, OCK_F_FINDING_REQUEST_SEQ, (double)d->request_seq);
  cJSON_AddBoolToObject(e, OCK_F_FINDING_REJECTED, d->outcome == OUT_HISTORY);
  return e;
}

static cJSON *unmatched_entry(const struct ock_fx_provider *p, const struct llm_decision *d) {
  cJSON *u = cJSON_CreateObject();
  cJSON_AddStringToObject(u, OCK_F_UNMATCHED_PROVIDER, p->name);
  cJSON_AddStringToObject(u, OCK_F_UNMATCHED_EXPECTED, d->expected);
  cJSON_AddNumberToObject(u, OCK_F_UNMATCHED_POSITION, (double)d->position);
  cJSON_AddNumberToObject(u, OCK_F_UNMATCHED_REQUEST_SEQ, (double)d->request_seq);
  return u;
}

static cJSON *fault_entry(const struct ock_fx_provider *p, const struct llm_decision *d) {
  cJSON *f = cJSON_CreateObject();
  cJSON_AddItemToObject(f, OCK_F_FAULT_FAULT, fault_json(d->fault));
  cJSON_AddStringToObject(f, OCK_F_FAULT_PROVIDER, p->name);
  cJSON_AddNumberToObject(f, OCK_F_FAULT_REQUEST_SEQ, (double)d->request_seq);
  cJSON_AddNumberToObject(f, OCK_F_FAULT_TURN, d->turn);
  cJSON_AddBoolToObject(f, OCK_F_FAULT_RANDOM, d->random_rule >= 0);
  if (d->random_rule >= 0)
    cJSON_AddNumberToObject(f, OCK_F_FAULT_RULE, d->random_rule);
  return f;
}

/* journal_decision journals the request's arrival and what decide() chose, in order, and
 * fires a cancel trigger on it; under st->lock, right after decide(), so the journal's order
 * is the order of the decisions. Sets d->request_seq. */
static void journal_decision(struct mock_state *st, const struct ock_fx_provider *p,
                             const struct request_blob *blob, size_t blob_len,
                             const struct mock_finding *finding, const struct finding_text *ft,
                             struct llm_decision *d, struct mock_plan *plan) {
  char decided[128];
  snprintf(decided, sizeof decided,
           "\"" OCK_F_LLM_REQUEST_TURN "\":%d,\"" OCK_F_LLM_REQUEST_REQUEST_INDEX
           "\":%llu,\"" OCK_F_LLM_REQUEST_POSITION "\":%llu",
           d->turn, d->index, d->position);
  d->request_seq = ock__journal_append_later(st->journal, OCK_KIND_LLM_REQUEST, print_request, blob,
                                             blob_len, decided);
  ock__cancel_on_arrival(st, OCK_FX_CANCEL_LLM_REQUEST, NULL, d->index, plan);
  if (finding->shape != MOCK_SHAPE_NONE)
    ock__journal_append(st->journal, OCK_KIND_FINDING, finding_entry(p, finding, ft, d));
  if (d->outcome == OUT_UNMATCHED)
    ock__journal_append(st->journal, OCK_KIND_UNMATCHED, unmatched_entry(p, d));
  if (d->fault)
    ock__journal_append(st->journal, OCK_KIND_FAULT, fault_entry(p, d));
}

/* write_answer writes what was played: text, tool_calls and finish_reason (null, [] and
 * null when nothing was). */
static int write_answer(struct ock_buf *b, const struct mock_answer *a) {
  int rc = ock_buf_puts(b, ",\"" OCK_F_LLM_REPLY_TEXT "\":") ||
           (a ? ock_json_write_string(b, a->text ? a->text : "") : ock_buf_puts(b, "null")) ||
           ock_buf_puts(b, ",\"" OCK_F_LLM_REPLY_TOOL_CALLS "\":[");
  for (size_t i = 0; !rc && a && i < a->n_calls; i++)
    rc = (i && ock_buf_puts(b, ",")) || ock_buf_puts(b, "{\"id\":") ||
         ock_json_write_string(b, a->calls[i].id) || ock_buf_puts(b, ",\"name\":") ||
         ock_json_write_string(b, a->calls[i].name) || ock_buf_puts(b, ",\"arguments\":") ||
         ock_json_write_string(b, a->calls[i].arguments) || ock_buf_puts(b, "}");
  return rc || ock_buf_puts(b, "],\"" OCK_F_LLM_REPLY_FINISH_REASON "\":") ||
         (a ? ock_json_write_string(b, a->finish) : ock_buf_puts(b, "null"));
}

/* write_sent writes the headers that matter and the bytes (the body as JSON when it is, or the
 * SSE events). */
static int write_sent(struct ock_buf *b, const struct mock_plan *plan) {
  int rc = ock_buf_puts(b, ",\"" OCK_F_LLM_REPLY_HEADERS "\":{\"content-type\":") ||
           ock_json_write_string(b, plan->content_type);
  for (size_t i = 0; !rc && i < plan->n_headers; i++)
    rc = ock_buf_puts(b, ",") || ock_json_write_string(b, plan->headers[i].name) ||
         ock_buf_puts(b, ":") || ock_json_write_string(b, plan->headers[i].value);
  rc = rc || ock_buf_puts(b, "}") ||
       (plan->drop_after >= 0 && (ock_buf_puts(b, ",\"" OCK_F_LLM_REPLY_DROP_AFTER_BYTES "\":") ||
                                  ock_json_write_int(b, plan->drop_after)));
  if (rc || plan->stream) {
    rc = rc || ock_buf_puts(b, ",\"" OCK_F_LLM_REPLY_SSE "\":[");
    for (size_t i = 0; !rc && i < plan->body.n; i++)
      rc = (i && ock_buf_puts(b, ",")) || ock_json_write_string(b, plan->body.items[i]);
    return rc || ock_buf_puts(b, "]");
  }
  rc = ock_buf_puts(b, ",\"" OCK_F_LLM_REPLY_BODY "\":");
  if (rc || (plan->body_json && plan->body.n)) /* printed by the mock: JSON already */
    return rc || ock_buf_puts(b, plan->body.items[0]);
  cJSON *parsed =
      plan->body.n ? cJSON_ParseWithLength(plan->body.items[0], plan->body.lens[0]) : NULL;
  rc = parsed ? ock_json_write(b, parsed)
              : ock_json_write_string(b, plan->body.n ? plan->body.items[0] : "");
  cJSON_Delete(parsed);
  return rc;
}

/* reply_text: the llm_reply journal entry (a is NULL when no answer was played), printed;
 * NULL when out of memory. */
static char *reply_text(const struct ock_fx_provider *p, const struct llm_decision *d,
                        const struct mock_answer *a, const struct mock_plan *plan) {
  struct ock_buf b;
  ock_buf_init(&b, OCK_MAX_OWN_TEXT);
  cJSON *fault = d->fault ? fault_json(d->fault) : NULL;
  size_t body = plan->body.n && !plan->stream ? plan->body.lens[0] : 0;
  int rc = ock_buf_reserve(&b, 2 * body + 512) || /* the reply's text, and its body */
           ock_buf_puts(&b, "{\"" OCK_F_LLM_REPLY_PROVIDER "\":") ||
           ock_json_write_string(&b, p->name) ||
           ock_buf_puts(&b, ",\"" OCK_F_LLM_REPLY_STATUS "\":") ||
           ock_json_write_int(&b, plan->status) ||
           ock_buf_puts(&b, ",\"" OCK_F_LLM_REPLY_TURN "\":") || ock_json_write_int(&b, d->turn) ||
           ock_buf_puts(&b, ",\"" OCK_F_LLM_REPLY_REQUEST_SEQ "\":") ||
           ock_json_write_int(&b, d->request_seq) ||
           ock_buf_puts(&b, plan->stream ? ",\"" OCK_F_LLM_REPLY_STREAM "\":true"
                                         : ",\"" OCK_F_LLM_REPLY_STREAM "\":false") ||
           write_answer(&b, a) ||
           (fault &&
            (ock_buf_puts(&b, ",\"" OCK_F_LLM_REPLY_FAULT "\":") || ock_json_write(&b, fault))) ||
           (d->outcome != OUT_TURN && d->outcome != OUT_RANDOM &&
            (ock_buf_puts(&b, ",\"" OCK_F_LLM_REPLY_ERROR "\":") ||
             ock_json_write_string(&b, d->message))) ||
           write_sent(&b, plan) || ock_buf_puts(&b, "}");
  cJSON_Delete(fault);
  char *text = rc ? NULL : ock_buf_take(&b);
  ock_buf_free(&b);
  return text;
}

/* gone_entry: the entry for a reply the client stopped reading (SPEC 8.4). */
static cJSON *gone_entry(const cJSON *sent) {
  cJSON *e = cJSON_Duplicate(sent, 1);
  cJSON *scripted = cJSON_DetachItemFromObjectCaseSensitive(e, "fault");
  if (scripted)
    cJSON_AddItemToObject(e, OCK_F_LLM_REPLY_SCRIPTED_FAULT, scripted);
  cJSON *f = cJSON_AddObjectToObject(e, OCK_F_LLM_REPLY_FAULT);
  cJSON_AddStringToObject(f, "kind", "client_gone");
  return e;
}

static int error_reply(const struct ock_fx_provider *p, const char *request_id, int status,
                       const char *message, const char *param, const char *code,
                       const struct ock_fx_fault *f, struct mock_plan *plan) {
  const struct ock_wire_ops *w = ock__wire_for(p->api);
  struct ock_buf b;
  ock_buf_init(&b, OCK_MAX_ERROR_BODY);
  int rc = w->encode_error(status, message, param, code, request_id, &b);
  if (!rc)
    rc = ock__plan_bytes(plan, status, "application/json", b.data, b.len);
  plan->body_json = 1;
  ock_buf_free(&b);
  char value[32];
  if (!rc && f && f->kind == OCK_FX_FAULT_STATUS && f->retry_after >= 0) {
    if (f->retry_after == (double)(long long)f->retry_after)
      snprintf(value, sizeof value, "%lld", (long long)f->retry_after);
    else
      snprintf(value, sizeof value, "%g", f->retry_after);
    rc = ock__plan_header(plan, "retry-after", value);
  }
  if (!rc && f && f->kind == OCK_FX_FAULT_STATUS && f->retry_after_ms >= 0) {
    snprintf(value, sizeof value, "%lld", f->retry_after_ms);
    rc = ock__plan_header(plan, "retry-after-ms", value);
  }
  return rc;
}

/* answer_reply plays an answer (scripted, or empty for a random fault) into the plan, with
 * its fault (not a status fault: the caller sends those). */
static int answer_reply(const struct ock_fx_provider *p, const struct llm_in *in,
                        const char *request_id, const struct ock_fx_fault *f,
                        const struct mock_answer *a, struct mock_plan *plan) {
  const struct ock_wire_ops *w = ock__wire_for(p->api);
  int rc = OCK_OK;
  if (in->stream) {
    plan->stream = 1;
    rc = ock__answer_events(w, a, &plan->body);
    if (!rc && f)
      rc = ock__fault_apply_stream(f, w, &plan->body);
    if (f && f->kind != OCK_FX_FAULT_STATUS)
      plan->close = 1; /* a faulted stream ends the connection (SPEC 6.6) */
    if (f && f->kind == OCK_FX_FAULT_DROP_CONNECTION)
      plan->drop_after = f->after;
    plan->status = 200;
    plan->content_type = "text/event-stream; charset=utf-8";
    if (!rc)
      rc = ock__plan_header(plan, "cache-control", "no-cache");
    return rc;
  }
  struct ock_buf b;
  ock_buf_init(&b, OCK_MAX_DERIVED_TEXT);
  rc = ock__answer_body(w, a, &b);
  struct mock_body_fault bf = {0, -1, 0};
  if (f)
    ock__fault_for_body(f, b.len, &bf);
  if (!rc && bf.status) {
    rc =
        error_reply(p, request_id, bf.status,
                    f->message ? f->message : "ock: scripted stream error", NULL, NULL, NULL, plan);
  } else if (!rc) {
    rc = ock__plan_bytes(plan, 200, "application/json", b.data, bf.truncate ? b.len / 2 : b.len);
    plan->body_json = !bf.truncate;
    plan->drop_after = bf.drop_after;
  }
  ock_buf_free(&b);
  return rc;
}

/* The answer's strings, built from the turn and the decision. */
void ock__id_text(char *out, const char *prefix, unsigned hash, char sep,
                  const unsigned long long *ns, int count) {
  size_t len = strlen(prefix);
  memcpy(out, prefix, len);
  for (int i = 7; i >= 0; i--)
    out[len++] = "0123456789abcdef"[hash >> (4 * i) & 15];
  for (int k = 0; k < count; k++) {
    char digits[20];
    int d = 0;
    unsigned long long n = ns[k];
    do
      digits[d++] = (char)('0' + n % 10);
    while (n /= 10);
    out[len++] = sep;
    while (d)
      out[len++] = digits[--d];
  }
  out[len] = '\0';
}

struct answer_ids {
  char id[64];
  char (*call_ids)[64];
  struct mock_answer_call *calls;
};

static int build_answer(const struct ock_fixture *fx, const struct ock_fx_provider *p,
                        const struct ock_fx_turn *t, const struct llm_in *in, size_t body_len,
                        unsigned long long reply_no, struct answer_ids *ids,
                        struct mock_answer *a) {
  const struct ock_wire_ops *w = ock__wire_for(p->api);
  size_t n = t ? t->n_calls : 0;
  ids->calls = calloc(n ? n : 1, sizeof *ids->calls);
  ids->call_ids = calloc(n ? n : 1, sizeof *ids->call_ids);
  if (!ids->calls || !ids->call_ids)
    return OCK_ENOMEM;
  size_t out_len = t && t->text ? strlen(t->text) : 0;
  for (size_t i = 0; i < n; i++) {
    ock__id_text(ids->call_ids[i], w->call_prefix, fx->hash, '_',
                 (unsigned long long[]){reply_no, i}, 2);
    ids->calls[i].id = ids->call_ids[i];
    ids->calls[i].name = t->calls[i].name;
    ids->calls[i].arguments = t->calls[i].arguments;
    ids->calls[i].raw = t->calls[i].raw;
    out_len += strlen(t->calls[i].arguments);
  }
  int openai = p->api == OCK_WIRE_OPENAI;
  ock__id_text(ids->id,
               openai                         ? "chatcmpl-"
               : p->api == OCK_WIRE_RESPONSES ? "resp_"
               : p->api == OCK_WIRE_GEMINI    ? "resp_"
                                              : "msg_",
               fx->hash, openai ? '-' : '_', &reply_no, 1);
  memset(a, 0, sizeof *a);
  a->id = ids->id;
  a->model = in->model;
  a->created = 1700000000LL + (long long)reply_no;
  a->text = t ? t->text : NULL;
  a->calls = ids->calls;
  a->n_calls = n;
  a->finish = t && t->finish ? t->finish : n ? w->finish_tools : w->finish_text;
  a->stop_sequence = t ? t->stop_sequence : NULL;
  a->input_tokens = (long long)(body_len / 4 + 1);
  a->output_tokens = (long long)(out_len / 4 + 1);
  a->chunk_size = t ? t->chunk_size : 8;
  a->include_usage = in->include_usage;
  return OCK_OK;
}

/* reply_bytes puts the decided answer's bytes into the plan. */
static int reply_bytes(const struct ock_fx_provider *p, const struct llm_in *in,
                       const struct llm_decision *d, const char *request_id, int played,
                       const struct mock_answer *a, struct mock_plan *plan) {
  int openai = p->api == OCK_WIRE_OPENAI || p->api == OCK_WIRE_RESPONSES; /* param, code */
  switch (d->outcome) {
  case OUT_INVALID:
    return error_reply(p, request_id, d->status, d->message,
                       openai && d->param[0] ? d->param : NULL,
                       openai && d->code[0] ? d->code : NULL, NULL, plan);
  case OUT_UNMATCHED:
    return error_reply(p, request_id, 400, d->message, NULL, NULL, NULL, plan);
  case OUT_HISTORY:
    return error_reply(p, request_id, 400, d->message, openai ? d->param : NULL,
                       openai && d->code[0] ? d->code : NULL, NULL, plan);
  case OUT_RANDOM:
  case OUT_TURN:
    break;
  }
  if (played)
    return answer_reply(p, in, request_id, d->fault, a, plan);
  return error_reply(p, request_id, d->fault->status, d->fault->message, NULL, NULL, d->fault,
                     plan);
}

/* keep_items keeps each item of items that carries an id, for a later item_reference. */
static int keep_items(struct mock_store *store, const cJSON *items) {
  const cJSON *item;
  int rc = OCK_OK;
  if (!cJSON_IsArray(items))
    return OCK_OK;
  cJSON_ArrayForEach(item, items) {
    const char *id = ock_json_str(item, "id");
    if (!id || is_reference(item))
      continue;
    char *json = cJSON_PrintUnformatted(item);
    rc = json ? ock__store_put_item(store, id, json) : OCK_ENOMEM;
    free(json);
    if (rc)
      break;
  }
  return rc;
}

/* store_items keeps the items of a stored response by id: the input items that carry one (a
 * reference as the item it named) and the reply's output items. */
static int store_items(struct mock_state *st, const struct llm_in *in,
                       const struct mock_answer *a) {
  int rc = keep_items(&st->responses, in->resolved ? in->resolved : in->messages);
  struct ock_buf json;
  ock_buf_init(&json, OCK_MAX_OWN_TEXT);
  for (size_t k = 0; !rc && k < ock__answer_items(a); k++) {
    char id[160];
    ock_buf_reset(&json);
    rc = ock__answer_item(a, k, id, sizeof id, &json);
    if (!rc)
      rc = ock__store_put_item(&st->responses, id, json.data);
  }
  ock_buf_free(&json);
  return rc;
}

/* store_reply keeps a Responses API reply's conversation (input after the instructions, and
 * the reply) under its id, for a later previous_response_id. The store copies what it keeps, so
 * the conversation handed to it borrows every string. */
static int store_reply(struct mock_state *st, const struct llm_in *in,
                       const struct mock_answer *a) {
  size_t n = in->hist.len - in->n_instructions;
  struct ock_message *view = calloc(n + 1, sizeof *view);
  struct ock_tool_call *calls = calloc(a->n_calls ? a->n_calls : 1, sizeof *calls);
  int rc = view && calls ? OCK_OK : OCK_ENOMEM;
  for (size_t i = 0; !rc && i < a->n_calls; i++)
    calls[i] = (struct ock_tool_call){(char *)a->calls[i].id, (char *)a->calls[i].name,
                                      (char *)a->calls[i].arguments};
  if (!rc) {
    memcpy(view, in->hist.items + in->n_instructions, n * sizeof *view);
    view[n] = (struct ock_message){.role = OCK_ROLE_ASSISTANT,
                                   .content = a->text && *a->text ? (char *)a->text : NULL,
                                   .calls = calls,
                                   .n_calls = a->n_calls,
                                   .wire_index = -1};
    const struct ock_history conversation = {view, n + 1, n + 1};
    rc = ock__store_put(&st->responses, a->id, &conversation);
  }
  if (!rc)
    rc = store_items(st, in, a);
  free(calls);
  free(view);
  return rc;
}

/* plan_reply builds the reply the decision calls for, and defers its journal entry until it
 * has gone out. */
static int plan_reply(struct mock_state *st, const struct mock_request *rq,
                      const struct ock_fx_provider *p, const struct llm_in *in,
                      const struct llm_decision *d, struct mock_plan *plan) {
  char request_id[64];
  ock__id_text(request_id, "req_ock_", st->fx->hash, '_',
               (unsigned long long[]){(unsigned long long)d->request_seq}, 1);
  const struct ock_fx_turn *t = d->turn >= 0 ? &p->turns[d->turn] : NULL;
  struct answer_ids ids = {0};
  struct mock_answer a;
  int answering = d->outcome == OUT_TURN || d->outcome == OUT_RANDOM;
  int played = answering && !(d->fault && d->fault->kind == OCK_FX_FAULT_STATUS);
  int rc = OCK_OK;
  if (answering) {
    rc = build_answer(st->fx, p, t, in, rq->body_len, d->reply_no, &ids, &a);
    if (t) {
      plan->delay_ms += t->delay_ms;
      plan->chunk_delay_ms = t->chunk_delay_ms;
    }
  }
  if (!rc)
    rc = reply_bytes(p, in, d, request_id, played, &a, plan);
  if (!rc && played && !d->fault && p->api == OCK_WIRE_RESPONSES && in->store)
    rc = store_reply(st, in, &a);
  if (!rc)
    rc = ock__plan_header(plan, ock__wire_for(p->api)->request_id_header, request_id);
  if (!rc && plan->close)
    rc = ock__plan_header(plan, "connection", "close");
  char *entry = rc ? NULL : reply_text(p, d, played ? &a : NULL, plan);
  if (entry)
    ock__plan_defer_text(plan, OCK_KIND_LLM_REPLY, entry, gone_entry);
  else if (!rc)
    rc = OCK_ENOMEM;
  free(ids.calls);
  free(ids.call_ids);
  return rc;
}

int ock__serve_llm(struct mock_state *st, const struct mock_request *rq,
                   const struct ock_fx_provider *p, struct mock_plan *plan) {
  struct llm_in in;
  struct mock_finding finding;
  struct finding_text ft;
  struct llm_decision d;
  struct request_blob *blob = NULL; /* the llm_request entry, packed before the lock is taken */
  size_t blob_len = 0;
  memset(&finding, 0, sizeof finding);
  int rc = read_request(rq, p, &st->responses, NULL, &in);
  if (!rc && !in.problem[0])
    rc = p->api == OCK_WIRE_GEMINI
             ? ock__validate_gemini(&in.hist, &finding)
             : ock__validate_first(&in.hist, p->api == OCK_WIRE_ANTHROPIC, &finding);
  if (!rc) {
    finding_text_of(p, &in, &finding, &ft);
    in.mark.missed = in.missed;
    if (!(blob = request_blob(rq, p, &st->responses, &in.mark, &blob_len)))
      rc = OCK_ENOMEM;
  }
  if (!rc) {
    pthread_mutex_lock(&st->lock);
    decide(st, p, &in, &finding, &ft, &d);
    journal_decision(st, p, blob, blob_len, &finding, &ft, &d, plan);
    pthread_mutex_unlock(&st->lock);
    rc = plan_reply(st, rq, p, &in, &d, plan);
  }
  free(blob);
  ock__finding_clear(&finding);
  free_request(&in);
  return rc;
}
