/*
 * wire.c: what both provider wires share (see wire.h): the piece list, SSE framing,
 * UTF-8-safe splitting, the table lookup, error bodies, and the stream decoder's bookkeeping
 * (wire_impl.h); the wire files map their own events onto it.
 */
#include "wire_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ock/caps.h"
#include "ock/status.h"
#include "ock/wire_responses.h"

/* ---- pieces ------------------------------------------------------------------------------- */

void ock_chunks_init(struct ock_chunks *c) {
  memset(c, 0, sizeof *c);
}

void ock_chunks_free(struct ock_chunks *c) {
  for (size_t i = 0; i < c->n; i++)
    free(c->items[i]);
  free(c->items);
  free(c->lens);
  ock_chunks_init(c);
}

static int chunks_grow(struct ock_chunks *c) {
  size_t cap = c->cap ? c->cap * 2 : 16;
  char **items = realloc(c->items, cap * sizeof *items);
  if (!items)
    return OCK_ENOMEM;
  c->items = items;
  size_t *lens = realloc(c->lens, cap * sizeof *lens);
  if (!lens)
    return OCK_ENOMEM;
  c->lens = lens;
  c->cap = cap;
  return OCK_OK;
}

int ock_chunks_insert(struct ock_chunks *c, size_t at, const char *p, size_t n) {
  if (at > c->n)
    at = c->n;
  if (c->n == c->cap && chunks_grow(c))
    return OCK_ENOMEM;
  char *copy = malloc(n + 1);
  if (!copy)
    return OCK_ENOMEM;
  if (n)
    memcpy(copy, p, n);
  copy[n] = '\0';
  memmove(c->items + at + 1, c->items + at, (c->n - at) * sizeof *c->items);
  memmove(c->lens + at + 1, c->lens + at, (c->n - at) * sizeof *c->lens);
  c->items[at] = copy;
  c->lens[at] = n;
  c->n++;
  return OCK_OK;
}

int ock_chunks_push(struct ock_chunks *c, const char *p, size_t n) {
  return ock_chunks_insert(c, c->n, p, n);
}

void ock_chunks_truncate(struct ock_chunks *c, size_t n) {
  while (c->n > n)
    free(c->items[--c->n]);
}

size_t ock_chunks_total(const struct ock_chunks *c) {
  size_t t = 0;
  for (size_t i = 0; i < c->n; i++)
    t += c->lens[i];
  return t;
}

/* ---- framing ------------------------------------------------------------------------------ */

int ock_sse_frame(struct ock_chunks *out, const char *name, const char *data, size_t len) {
  struct ock_buf b;
  ock_buf_init(&b, OCK_MAX_DERIVED_TEXT);
  int rc = name ? ock_buf_printf(&b, "event: %s\n", name) : OCK_OK;
  if (!rc)
    rc = ock_buf_puts(&b, "data: ");
  if (!rc)
    rc = ock_buf_append(&b, data, len);
  if (!rc)
    rc = ock_buf_puts(&b, "\n\n");
  if (!rc)
    rc = ock_chunks_push(out, b.data, b.len);
  ock_buf_free(&b);
  return rc;
}

int ock_sse_is_ping(const char *piece) {
  return !strncmp(piece, "event: ping\n", 12);
}

size_t ock_utf8_prefix(const char *s, size_t len, long long chars) {
  size_t i = 0;
  long long seen = 0;
  while (i < len) {
    if (((unsigned char)s[i] & 0xC0) != 0x80) {
      if (seen == chars)
        break;
      seen++;
    }
    i++;
  }
  return i;
}

int ock__wire_status(const struct ock_buf *out, int failed) {
  return !failed ? OCK_OK : out->err ? out->err : OCK_ENOMEM;
}

int ock__wire_add(cJSON *obj, const char *key, cJSON *item) {
  int ok = obj && item &&
           (key ? cJSON_AddItemToObject(obj, key, item) : cJSON_AddItemToArray(obj, item));
  if (!ok)
    cJSON_Delete(item);
  return ok;
}

int ock__wire_add_str(cJSON *obj, const char *key, const char *s) {
  return s ? cJSON_AddStringToObject(obj, key, s) != NULL : cJSON_AddNullToObject(obj, key) != NULL;
}

cJSON *ock__wire_built(cJSON *v, int ok) {
  if (ok)
    return v;
  cJSON_Delete(v);
  return NULL;
}

int ock__wire_print_to(struct ock_buf *out, cJSON *v) {
  if (!v)
    return OCK_ENOMEM;
  int rc = ock_json_write(out, v);
  cJSON_Delete(v);
  return rc;
}

int ock__wire_event(struct ock_chunks *out, const char *name, cJSON *data) {
  struct ock_buf b;
  ock_buf_init(&b, OCK_MAX_DERIVED_TEXT);
  int rc = ock__wire_print_to(&b, data);
  if (!rc)
    rc = ock_sse_frame(out, name, b.data, b.len);
  ock_buf_free(&b);
  return rc;
}

int ock__wire_fragments(const char *s, long long chunk_size,
                        int (*emit)(void *ctx, const char *frag, size_t len), void *ctx) {
  size_t len = strlen(s), off = 0;
  int rc = OCK_OK;
  while (!rc && off < len) {
    size_t n = ock_utf8_prefix(s + off, len - off, chunk_size);
    if (n == 0) /* a chunk size below 1 sends the rest whole */
      n = len - off;
    rc = emit(ctx, s + off, n);
    off += n;
  }
  return rc;
}

cJSON *ock__wire_schema(const struct ock_tool_spec *t) {
  if (t->input_schema)
    return cJSON_Duplicate(t->input_schema, 1);
  cJSON *schema = cJSON_CreateObject();
  return ock__wire_built(schema, cJSON_AddStringToObject(schema, "type", "object") != NULL);
}

cJSON *ock__wire_strn(const char *p, size_t len) {
  char *copy = strndup(p, len);
  cJSON *s = copy ? cJSON_CreateString(copy) : NULL;
  free(copy);
  return s;
}

int ock__wire_reply_names(struct ock_reply *r, const char *id, const char *finish) {
  r->id = id ? strdup(id) : NULL;
  r->finish_reason = finish ? strdup(finish) : NULL;
  if ((id && !r->id) || (finish && !r->finish_reason)) {
    ock_reply_clear(r);
    return OCK_ENOMEM;
  }
  return OCK_OK;
}

/* ---- the table, error bodies -------------------------------------------------------------- */

const struct ock_wire_ops *ock_wire_get(enum ock_wire wire) {
  if (wire == OCK_WIRE_RESPONSES)
    return &ock_wire_responses;
  return wire == OCK_WIRE_ANTHROPIC ? &ock_wire_anthropic
         : wire == OCK_WIRE_GEMINI  ? &ock_wire_gemini
                                    : &ock_wire_openai;
}

int ock_wire_decode_error(const char *body, size_t len, struct ock_wire_error *out) {
  cJSON *j = len ? cJSON_ParseWithLength(body, len) : NULL;
  const cJSON *e = cJSON_GetObjectItemCaseSensitive(j, "error");
  const char *type = ock_json_str(e, "type"), *msg = ock_json_str(e, "message");
  if (!type)
    type = ock_json_str(e, "status");
  if (msg) {
    snprintf(out->type, sizeof out->type, "%s", type ? type : "");
    snprintf(out->message, sizeof out->message, "%s", msg);
  }
  cJSON_Delete(j);
  return msg ? OCK_OK : OCK_EPROTO;
}

/* ---- stream decoding ---------------------------------------------------------------------- */

int ock_wire_stream_new(enum ock_wire wire, size_t max, ock_wire_stream **out) {
  ock_wire_stream *s = calloc(1, sizeof *s);
  if (!s)
    return OCK_ENOMEM;
  s->ops = ock_wire_get(wire);
  s->max = max;
  ock_buf_init(&s->text, max);
  s->in_tokens = s->out_tokens = -1;
  *out = s;
  return OCK_OK;
}

void ock_wire_stream_free(ock_wire_stream *s) {
  if (!s)
    return;
  ock_buf_free(&s->text);
  for (size_t i = 0; i < s->n_slots; i++) {
    free(s->slots[i].id);
    free(s->slots[i].name);
    free(s->slots[i].initial);
    ock_buf_free(&s->slots[i].args);
  }
  free(s->blocks);
  free(s->id);
  free(s->finish);
  free(s);
}

int ock_wire_stream_done(const ock_wire_stream *s) {
  return s->done;
}

int ock__wire_fail(ock_wire_stream *s, struct ock_wire_error *err, int code, const char *fmt, ...) {
  s->failed = 1;
  if (err) {
    snprintf(err->type, sizeof err->type, "%s",
             code == OCK_ECANCELLED ? "cancelled" : "stream_error");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
  }
  return code;
}

/* grow accounts for n more bytes against the cap. */
static int grow(ock_wire_stream *s, size_t n) {
  if (n > s->max - s->used)
    return OCK_ETOOBIG;
  s->used += n;
  return OCK_OK;
}

/* hold_failed reports bytes the stream could not hold: past the cap, or out of memory. */
static int hold_failed(ock_wire_stream *s, struct ock_wire_error *err, int rc) {
  if (rc == OCK_ENOMEM)
    return ock__wire_fail(s, err, rc, "out of memory");
  return ock__wire_fail(s, err, OCK_ETOOBIG, "the streamed reply passed %zu bytes", s->max);
}

int ock__wire_set(char **dst, const char *s) {
  if (!s || *dst)
    return OCK_OK;
  *dst = strdup(s);
  return *dst ? OCK_OK : OCK_ENOMEM;
}

int ock__wire_replace(char **dst, const char *s) {
  char *copy = strdup(s);
  if (!copy)
    return OCK_ENOMEM;
  free(*dst);
  *dst = copy;
  return OCK_OK;
}

/* emit calls on_delta; a non-zero answer means "stop". */
static int emit(ock_wire_stream *s, const struct ock_delta *d, struct ock_wire_error *err) {
  if (s->on_delta && s->on_delta(s->user, d))
    return ock__wire_fail(s, err, OCK_ECANCELLED, "the stream was abandoned");
  return OCK_OK;
}

int ock__wire_text(ock_wire_stream *s, const char *t, struct ock_wire_error *err) {
  size_t n = strlen(t);
  if (n == 0)
    return OCK_OK;
  int rc = grow(s, n);
  if (!rc)
    rc = ock_buf_append(&s->text, t, n);
  if (rc)
    return hold_failed(s, err, rc);
  s->has_text = 1;
  struct ock_delta d = {.text = t, .tool_index = -1};
  return emit(s, &d, err);
}

int ock__wire_slot(ock_wire_stream *s, int key, int create, struct ock_wire_error *err,
                   size_t *ordinal) {
  for (size_t i = 0; i < s->n_slots; i++) {
    if (s->slots[i].key == key) {
      *ordinal = i;
      return OCK_OK;
    }
  }
  if (!create)
    return ock__wire_fail(s, err, OCK_EPROTO, "malformed chunk: fragment of unknown tool call %d",
                          key);
  if (s->n_slots == OCK__WIRE_MAX_SLOTS)
    return ock__wire_fail(s, err, OCK_ETOOBIG, "more than %d tool calls in one reply",
                          OCK__WIRE_MAX_SLOTS);
  struct ock__wire_slot *slot = &s->slots[s->n_slots];
  memset(slot, 0, sizeof *slot);
  slot->key = key;
  ock_buf_init(&slot->args, s->max);
  *ordinal = s->n_slots++;
  return OCK_OK;
}

int ock__wire_call(ock_wire_stream *s, size_t ordinal, const char *id, const char *name,
                   const char *args, struct ock_wire_error *err) {
  struct ock__wire_slot *slot = &s->slots[ordinal];
  size_t n = args ? strlen(args) : 0;
  int rc = grow(s, n + (id ? strlen(id) : 0) + (name ? strlen(name) : 0));
  if (!rc)
    rc = ock_buf_append(&slot->args, args ? args : "", n);
  if (rc)
    return hold_failed(s, err, rc);
  if (ock__wire_set(&slot->id, id) || ock__wire_set(&slot->name, name))
    return ock__wire_fail(s, err, OCK_ENOMEM, "out of memory");
  struct ock_delta d = {.text = "",
                        .tool_index = (int)ordinal,
                        .tool_id = id,
                        .tool_name = name,
                        .tool_args = args ? args : ""};
  return emit(s, &d, err);
}

int ock__wire_index(const cJSON *obj, int dflt) {
  const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, "index");
  if (!j)
    return dflt;
  if (!cJSON_IsNumber(j) || j->valuedouble < 0 || j->valuedouble > OCK__WIRE_MAX_INDEX ||
      j->valuedouble != (double)(int)j->valuedouble)
    return -1;
  return (int)j->valuedouble;
}

/* The error's own type goes into the message: the stream's error type is "stream_error". */
int ock__wire_error_event(ock_wire_stream *s, const cJSON *error, struct ock_wire_error *err) {
  const char *type = ock_json_str(error, "type");
  const char *msg = ock_json_str(error, "message");
  return ock__wire_fail(s, err, OCK_EPROTO, "error event mid-stream: %s: %s", type ? type : "error",
                        msg ? msg : "(no message)");
}

int ock_wire_stream_event(ock_wire_stream *s, const char *name, const char *data,
                          ock_delta_fn on_delta, void *user, struct ock_wire_error *err) {
  if (s->failed)
    return ock__wire_fail(s, err, OCK_EPROTO, "the stream already failed");
  if (s->done)
    return OCK_OK;
  if (s->ops->wire == OCK_WIRE_OPENAI && !strcmp(data, "[DONE]")) {
    s->done = 1;
    return OCK_OK;
  }
  cJSON *j = cJSON_Parse(data);
  if (!cJSON_IsObject(j)) {
    cJSON_Delete(j);
    return ock__wire_fail(s, err, OCK_EPROTO, "malformed chunk: not a JSON object: %.80s", data);
  }
  s->on_delta = on_delta;
  s->user = user;
  int rc = s->ops->decode_event(s, name, j, err);
  cJSON_Delete(j);
  return rc;
}

/* take_calls moves the slots into the reply's calls; 1 when out of memory. */
static int take_calls(ock_wire_stream *s, struct ock_message *msg) {
  msg->calls = calloc(s->n_slots, sizeof *msg->calls);
  if (!msg->calls)
    return 1;
  for (size_t i = 0; i < s->n_slots; i++) {
    struct ock__wire_slot *slot = &s->slots[i];
    struct ock_tool_call *c = &msg->calls[i];
    msg->n_calls = i + 1;
    c->id = strdup(slot->id ? slot->id : "");
    c->name = strdup(slot->name ? slot->name : "");
    c->arguments =
        slot->args.len ? ock_buf_take(&slot->args) : strdup(slot->initial ? slot->initial : "{}");
    if (!c->id || !c->name || !c->arguments)
      return 1;
  }
  return 0;
}

int ock_wire_stream_finish(ock_wire_stream *s, struct ock_reply *out, struct ock_wire_error *err) {
  if (s->failed)
    return ock__wire_fail(s, err, OCK_EPROTO, "the stream failed");
  if (!s->done)
    return ock__wire_fail(s, err, OCK_EPROTO, "the stream ended before %s", s->ops->end_marker);
  struct ock_reply r;
  ock_reply_init(&r);
  int bad = 0;
  if (s->has_text)
    bad = !(r.msg.content = ock_buf_take(&s->text));
  if (!bad && s->n_slots)
    bad = take_calls(s, &r.msg);
  r.id = s->id;
  s->id = NULL;
  r.finish_reason = s->finish;
  s->finish = NULL;
  r.input_tokens = s->in_tokens;
  r.output_tokens = s->out_tokens;
  if (bad) {
    ock_reply_clear(&r);
    return ock__wire_fail(s, err, OCK_ENOMEM, "out of memory");
  }
  *out = r;
  return OCK_OK;
}
