/*
 * stream_map.c: streamed chunks -> deltas -> one reply, for both wires (see stream_map.h).
 *
 * Tool calls are kept in "slots" in the order they first appear; the slot's ordinal is the
 * tool_index of its deltas and its place in the reply. OpenAI names a call by its "index" in
 * every fragment; Anthropic by the content block index, so a block table maps block -> slot.
 */
#include "stream_map.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ock/caps.h"
#include "ock/buf.h"
#include "ock/status.h"

struct slot {
  int key; /* OpenAI tool_calls[].index, or the Anthropic block index */
  char *id;
  char *name;
  struct ock_buf args; /* concatenated argument fragments */
  char *initial;       /* Anthropic: a non-empty input given whole in content_block_start */
};

enum { BLOCK_TEXT = -1, BLOCK_OTHER = -2 };

struct block {
  int index; /* the Anthropic content block index */
  int slot;  /* a slot ordinal, BLOCK_TEXT or BLOCK_OTHER */
};

struct ock__stream_map {
  enum ock_wire wire;
  size_t max, used; /* bytes of text and arguments held, against the cap */
  struct ock_buf text;
  int has_text;
  struct slot slots[OCK_CAP_STREAM_SLOTS];
  size_t n_slots;
  struct block *blocks;
  size_t n_blocks;
  char *id, *finish;
  long long in_tokens, out_tokens;
  int done, failed;
};

int ock__stream_map_new(enum ock_wire wire, size_t max, ock__stream_map **out) {
  ock__stream_map *m = calloc(1, sizeof *m);
  if (!m)
    return OCK_ENOMEM;
  m->wire = wire;
  m->max = max;
  ock_buf_init(&m->text, max);
  m->in_tokens = m->out_tokens = -1;
  *out = m;
  return OCK_OK;
}

void ock__stream_map_free(ock__stream_map *m) {
  if (!m)
    return;
  ock_buf_free(&m->text);
  for (size_t i = 0; i < m->n_slots; i++) {
    free(m->slots[i].id);
    free(m->slots[i].name);
    free(m->slots[i].initial);
    ock_buf_free(&m->slots[i].args);
  }
  free(m->blocks);
  free(m->id);
  free(m->finish);
  free(m);
}

int ock__stream_map_done(const ock__stream_map *m) {
  return m->done;
}

static int fail(ock__stream_map *m, struct ock_llm_error *err, int code, const char *type,
                const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int fail(ock__stream_map *m, struct ock_llm_error *err, int code, const char *type,
                const char *fmt, ...) {
  m->failed = 1;
  if (err) {
    err->kind = code == OCK_ECANCELLED ? OCK_LLM_CANCELLED : OCK_LLM_STREAM;
    err->status = 0;
    err->retry_after_ms = -1;
    snprintf(err->type, sizeof err->type, "%s", type);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
  }
  return code;
}

/* grow accounts for n more bytes against the cap. */
static int grow(ock__stream_map *m, size_t n) {
  if (n > m->max - m->used)
    return OCK_ETOOBIG;
  m->used += n;
  return OCK_OK;
}

static int set_str(char **dst, const char *s) {
  if (!s || *dst)
    return OCK_OK;
  *dst = strdup(s);
  return *dst ? OCK_OK : OCK_ENOMEM;
}

/* emit calls on_delta; a non-zero answer means "stop". */
static int emit(ock__stream_map *m, ock_delta_fn on_delta, void *user, const struct ock_delta *d,
                struct ock_llm_error *err) {
  if (on_delta && on_delta(user, d))
    return fail(m, err, OCK_ECANCELLED, "cancelled", "the stream was abandoned");
  return OCK_OK;
}

static int add_text(ock__stream_map *m, const char *t, ock_delta_fn on_delta, void *user,
                    struct ock_llm_error *err) {
  size_t n = strlen(t);
  if (n == 0)
    return OCK_OK;
  if (grow(m, n) || ock_buf_append(&m->text, t, n))
    return fail(m, err, OCK_ETOOBIG, "stream_error", "the streamed reply passed %zu bytes", m->max);
  m->has_text = 1;
  struct ock_delta d = {.text = t, .tool_index = -1};
  return emit(m, on_delta, user, &d, err);
}

/* slot_for finds the slot with key, or makes one (in order of first appearance). */
static int slot_for(ock__stream_map *m, int key, int create, struct ock_llm_error *err,
                    size_t *ordinal) {
  for (size_t i = 0; i < m->n_slots; i++) {
    if (m->slots[i].key == key) {
      *ordinal = i;
      return OCK_OK;
    }
  }
  if (!create)
    return fail(m, err, OCK_EPROTO, "stream_error",
                "malformed chunk: fragment of unknown tool call %d", key);
  if (m->n_slots == OCK_CAP_STREAM_SLOTS)
    return fail(m, err, OCK_ETOOBIG, "stream_error", "more than %d tool calls in one reply",
                OCK_CAP_STREAM_SLOTS);
  struct slot *s = &m->slots[m->n_slots];
  memset(s, 0, sizeof *s);
  s->key = key;
  ock_buf_init(&s->args, m->max);
  *ordinal = m->n_slots++;
  return OCK_OK;
}

/* add_call_fragment records a fragment of call `ordinal` and reports it as a delta. */
static int add_call_fragment(ock__stream_map *m, size_t ordinal, const char *id, const char *name,
                             const char *args, ock_delta_fn on_delta, void *user,
                             struct ock_llm_error *err) {
  struct slot *s = &m->slots[ordinal];
  size_t n = args ? strlen(args) : 0;
  if (grow(m, n + (id ? strlen(id) : 0) + (name ? strlen(name) : 0)) ||
      ock_buf_append(&s->args, args ? args : "", n))
    return fail(m, err, OCK_ETOOBIG, "stream_error", "the streamed reply passed %zu bytes", m->max);
  if (set_str(&s->id, id) || set_str(&s->name, name))
    return fail(m, err, OCK_ENOMEM, "stream_error", "out of memory");
  struct ock_delta d = {.text = "",
                        .tool_index = (int)ordinal,
                        .tool_id = id,
                        .tool_name = name,
                        .tool_args = args ? args : ""};
  return emit(m, on_delta, user, &d, err);
}

/* block_index reads an "index" member as a small non-negative integer: the wires count blocks
 * and calls from 0, and anything else (a fraction, 1e300, -1) is a malformed chunk. dflt is
 * used when the member is absent; -1 means it is required. Returns the index or -1. */
static int block_index(const cJSON *obj, int dflt) {
  const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, "index");
  if (!j)
    return dflt;
  if (!cJSON_IsNumber(j) || j->valuedouble < 0 || j->valuedouble > OCK_CAP_STREAM_INDEX ||
      j->valuedouble != (double)(int)j->valuedouble)
    return -1;
  return (int)j->valuedouble;
}

/* error_event reports an "error" object sent inside the stream (its own type goes into the
 * message: the error's type is the contract's "stream_error"). */
static int error_event(ock__stream_map *m, const cJSON *error, struct ock_llm_error *err) {
  const char *type = ock_json_str(error, "type");
  const char *msg = ock_json_str(error, "message");
  return fail(m, err, OCK_EPROTO, "stream_error", "error event mid-stream: %s: %s",
              type ? type : "error", msg ? msg : "(no message)");
}

static int openai_chunk(ock__stream_map *m, const cJSON *j, ock_delta_fn on_delta, void *user,
                        struct ock_llm_error *err) {
  const cJSON *error = cJSON_GetObjectItemCaseSensitive(j, "error");
  if (cJSON_IsObject(error))
    return error_event(m, error, err);
  if (set_str(&m->id, ock_json_str(j, "id")))
    return fail(m, err, OCK_ENOMEM, "stream_error", "out of memory");
  const cJSON *usage = cJSON_GetObjectItemCaseSensitive(j, "usage");
  if (cJSON_IsObject(usage)) {
    m->in_tokens = ock_json_int(usage, "prompt_tokens", m->in_tokens);
    m->out_tokens = ock_json_int(usage, "completion_tokens", m->out_tokens);
  }
  const cJSON *choices = cJSON_GetObjectItemCaseSensitive(j, "choices");
  if (!choices || cJSON_IsNull(choices))
    return OCK_OK;
  if (!cJSON_IsArray(choices))
    return fail(m, err, OCK_EPROTO, "stream_error",
                "malformed chunk: choices is %s, expected an array", ock_json_type_name(choices));
  const cJSON *choice = cJSON_GetArrayItem(choices, 0);
  if (!choice)
    return OCK_OK; /* the usage chunk has no choices */
  const cJSON *delta = cJSON_GetObjectItemCaseSensitive(choice, "delta");
  int rc = OCK_OK;
  if (cJSON_IsObject(delta)) {
    const cJSON *content = cJSON_GetObjectItemCaseSensitive(delta, "content");
    if (cJSON_IsString(content))
      rc = add_text(m, content->valuestring, on_delta, user, err);
    const cJSON *calls = cJSON_GetObjectItemCaseSensitive(delta, "tool_calls");
    if (!cJSON_IsArray(calls))
      calls = NULL;
    const cJSON *tc;
    int pos = 0;
    cJSON_ArrayForEach(tc, calls) {
      if (rc)
        return rc;
      const cJSON *fn = cJSON_GetObjectItemCaseSensitive(tc, "function");
      int key = block_index(tc, pos);
      pos++;
      size_t ord = 0;
      rc = key < 0 ? fail(m, err, OCK_EPROTO, "stream_error",
                          "malformed chunk: tool_calls[].index is not a small whole number")
                   : slot_for(m, key, 1, err, &ord);
      if (!rc)
        rc = add_call_fragment(m, ord, ock_json_str(tc, "id"), ock_json_str(fn, "name"),
                               ock_json_str(fn, "arguments"), on_delta, user, err);
    }
  } else if (delta && !cJSON_IsNull(delta)) {
    return fail(m, err, OCK_EPROTO, "stream_error",
                "malformed chunk: delta is %s, expected an object", ock_json_type_name(delta));
  }
  const char *finish = ock_json_str(choice, "finish_reason");
  if (!rc && finish) {
    free(m->finish);
    m->finish = strdup(finish);
  }
  return rc;
}

static int block_add(ock__stream_map *m, int index, int slot, struct ock_llm_error *err) {
  struct block *b = realloc(m->blocks, (m->n_blocks + 1) * sizeof *b);
  if (!b)
    return fail(m, err, OCK_ENOMEM, "stream_error", "out of memory");
  m->blocks = b;
  m->blocks[m->n_blocks].index = index;
  m->blocks[m->n_blocks].slot = slot;
  m->n_blocks++;
  return OCK_OK;
}

static const struct block *block_find(const ock__stream_map *m, int index) {
  for (size_t i = 0; i < m->n_blocks; i++)
    if (m->blocks[i].index == index)
      return &m->blocks[i];
  return NULL;
}

static int anthropic_event(ock__stream_map *m, const char *name, const cJSON *j,
                           ock_delta_fn on_delta, void *user, struct ock_llm_error *err) {
  const char *type = ock_json_str(j, "type");
  if (!type)
    type = name ? name : "";
  if (!strcmp(type, "error"))
    return error_event(m, cJSON_GetObjectItemCaseSensitive(j, "error"), err);
  if (!strcmp(type, "message_start")) {
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(j, "message");
    if (set_str(&m->id, ock_json_str(msg, "id")))
      return fail(m, err, OCK_ENOMEM, "stream_error", "out of memory");
    m->in_tokens = ock_json_int(cJSON_GetObjectItemCaseSensitive(msg, "usage"), "input_tokens", -1);
    return OCK_OK;
  }
  if (!strcmp(type, "message_stop")) {
    m->done = 1;
    return OCK_OK;
  }
  if (!strcmp(type, "message_delta")) {
    const char *stop = ock_json_str(cJSON_GetObjectItemCaseSensitive(j, "delta"), "stop_reason");
    if (stop) {
      free(m->finish);
      m->finish = strdup(stop);
    }
    const cJSON *usage = cJSON_GetObjectItemCaseSensitive(j, "usage");
    m->out_tokens = ock_json_int(usage, "output_tokens", m->out_tokens);
    return OCK_OK;
  }
  int index = block_index(j, -1);
  if ((!strcmp(type, "content_block_start") || !strcmp(type, "content_block_delta")) && index < 0)
    return fail(m, err, OCK_EPROTO, "stream_error",
                "malformed chunk: %s without an index that is a small whole number", type);
  if (!strcmp(type, "content_block_start")) {
    if (block_find(m, index))
      return fail(m, err, OCK_EPROTO, "stream_error",
                  "malformed chunk: content block %d started twice", index);
    const cJSON *cb = cJSON_GetObjectItemCaseSensitive(j, "content_block");
    const char *btype = ock_json_str(cb, "type");
    if (btype && !strcmp(btype, "text")) {
      int rc = block_add(m, index, BLOCK_TEXT, err);
      const char *t = ock_json_str(cb, "text");
      return rc ? rc : add_text(m, t ? t : "", on_delta, user, err);
    }
    if (btype && !strcmp(btype, "tool_use")) {
      size_t ord = 0;
      int rc = slot_for(m, index, 1, err, &ord);
      if (!rc)
        rc = block_add(m, index, (int)ord, err);
      const cJSON *input = cJSON_GetObjectItemCaseSensitive(cb, "input");
      if (!rc && cJSON_IsObject(input) && input->child) {
        m->slots[ord].initial = ock_json_print(input);
        if (!m->slots[ord].initial)
          return fail(m, err, OCK_ENOMEM, "stream_error", "out of memory");
      }
      const char *id = ock_json_str(cb, "id"), *tname = ock_json_str(cb, "name");
      return rc ? rc
                : add_call_fragment(m, ord, id ? id : "", tname ? tname : "", "", on_delta, user,
                                    err);
    }
    return block_add(m, index, BLOCK_OTHER, err); /* thinking and other blocks carry no text */
  }
  if (!strcmp(type, "content_block_delta")) {
    const struct block *b = block_find(m, index);
    if (!b)
      return fail(m, err, OCK_EPROTO, "stream_error",
                  "malformed chunk: delta for content block %d, "
                  "which never started",
                  index);
    const cJSON *delta = cJSON_GetObjectItemCaseSensitive(j, "delta");
    const char *dtype = ock_json_str(delta, "type");
    if (dtype && !strcmp(dtype, "text_delta") && b->slot == BLOCK_TEXT) {
      const char *t = ock_json_str(delta, "text");
      return add_text(m, t ? t : "", on_delta, user, err);
    }
    if (dtype && !strcmp(dtype, "input_json_delta") && b->slot >= 0) {
      const char *pj = ock_json_str(delta, "partial_json");
      return add_call_fragment(m, (size_t)b->slot, NULL, NULL, pj ? pj : "", on_delta, user, err);
    }
    if (dtype && (!strcmp(dtype, "text_delta") || !strcmp(dtype, "input_json_delta")))
      return fail(m, err, OCK_EPROTO, "stream_error",
                  "malformed chunk: %s for a block of another type", dtype);
    return OCK_OK; /* thinking_delta, signature_delta, ... */
  }
  return OCK_OK; /* content_block_stop, ping, and event types added later */
}

int ock__stream_map_event(ock__stream_map *m, const char *name, const char *data,
                          ock_delta_fn on_delta, void *user, struct ock_llm_error *err) {
  if (m->failed)
    return fail(m, err, OCK_EPROTO, "stream_error", "the stream already failed");
  if (m->done)
    return OCK_OK;
  if (m->wire == OCK_WIRE_OPENAI && !strcmp(data, "[DONE]")) {
    m->done = 1;
    return OCK_OK;
  }
  cJSON *j = cJSON_Parse(data);
  if (!cJSON_IsObject(j)) {
    cJSON_Delete(j);
    return fail(m, err, OCK_EPROTO, "stream_error", "malformed chunk: not a JSON object: %.80s",
                data);
  }
  int rc = m->wire == OCK_WIRE_OPENAI ? openai_chunk(m, j, on_delta, user, err)
                                      : anthropic_event(m, name, j, on_delta, user, err);
  cJSON_Delete(j);
  return rc;
}

int ock__stream_map_finish(ock__stream_map *m, struct ock_reply *out, struct ock_llm_error *err) {
  if (m->failed)
    return fail(m, err, OCK_EPROTO, "stream_error", "the stream failed");
  if (!m->done)
    return fail(m, err, OCK_EPROTO, "stream_error", "the stream ended before %s",
                m->wire == OCK_WIRE_OPENAI ? "data: [DONE]" : "message_stop");
  struct ock_reply r;
  ock_reply_init(&r);
  int bad = 0;
  if (m->has_text)
    bad = !(r.msg.content = ock_buf_take(&m->text));
  if (!bad && m->n_slots) {
    r.msg.calls = calloc(m->n_slots, sizeof *r.msg.calls);
    bad = !r.msg.calls;
    for (size_t i = 0; !bad && i < m->n_slots; i++) {
      struct slot *s = &m->slots[i];
      struct ock_tool_call *c = &r.msg.calls[i];
      r.msg.n_calls = i + 1;
      c->id = strdup(s->id ? s->id : "");
      c->name = strdup(s->name ? s->name : "");
      c->arguments = s->args.len ? ock_buf_take(&s->args) : strdup(s->initial ? s->initial : "{}");
      bad = !c->id || !c->name || !c->arguments;
    }
  }
  r.id = m->id;
  m->id = NULL;
  r.finish_reason = m->finish;
  m->finish = NULL;
  r.input_tokens = m->in_tokens;
  r.output_tokens = m->out_tokens;
  if (bad) {
    ock_reply_clear(&r);
    return fail(m, err, OCK_ENOMEM, "stream_error", "out of memory");
  }
  *out = r;
  return OCK_OK;
}
