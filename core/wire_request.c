/*
 * wire_request.c: an LLM request body read from its bytes (see wire_request.h).
 *
 * A scanner over the body that validates as it skips, plus one reader per shape: the top-level
 * object, the tools' names, OpenAI messages, Anthropic messages and their blocks. Each object
 * is read in two steps: collect() records the spans of the members the reader looks at (and
 * checks the syntax of all of them), then the reader interprets those spans, so the members
 * may come in any order, as they may in the tree. Every refusal is OCK_EJSON and sends the
 * request to the tree reader, which has the words for it.
 */
#include "ock/caps.h"
#include "ock/wire_request.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_scan.h"
#include "ock/status.h"

#define DEPTH_MAX 64  /* deeper values are declined (cJSON's own limit is 1000) */
#define DIGITS_MAX 15 /* a number of at most 15 digits reads back as cJSON prints it */
#define NAME_MAX 32   /* roles and block types are short; a longer one is declined */
#define KEYS_MAX 32   /* an object with more members is declined */

struct scan {
  const char *base; /* the text spans count from */
  const char *p;
  const char *end;
  int canonical; /* also decline what cJSON would print in other bytes */
};

static int is_ws(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* peek: the next byte after white space, or -1 at the end. */
static int peek(struct scan *s) {
  while (s->p < s->end && is_ws(*s->p))
    s->p++;
  return s->p < s->end ? (unsigned char)*s->p : -1;
}

static int eat(struct scan *s, char c) {
  if (peek(s) != (unsigned char)c)
    return OCK_EJSON;
  s->p++;
  return OCK_OK;
}

static struct scan sub_scan(const struct scan *s, struct ock_wire_span v) {
  struct scan t = {s->base, s->base + v.at, s->base + v.at + v.len, s->canonical};
  return t;
}

static int first_byte(const struct scan *s, struct ock_wire_span v) {
  return v.len ? (unsigned char)s->base[v.at] : -1;
}

static int hex4(const char *p, unsigned *out) {
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    char c = p[i];
    int d = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                   : -1;
    if (d < 0)
      return OCK_EJSON;
    v = v * 16 + (unsigned)d;
  }
  *out = v;
  return OCK_OK;
}

/* scan_string: the string at s->p; tok gets its bytes, quotes included. */
static int scan_string(struct scan *s, struct ock_wire_span *tok, int *escaped) {
  if (peek(s) != '"')
    return OCK_EJSON;
  const char *start = s->p, *p = s->p + 1, *end = s->end;
  *escaped = 0;
  for (;;) {
    p = ock__plain_run(p, end);
    if (p >= end || (unsigned char)*p < 0x20)
      return OCK_EJSON; /* cJSON takes a control character, and prints it escaped */
    if (*p == '"')
      break;
    *escaped = 1;
    char e = end - p >= 2 ? p[1] : '\0';
    unsigned u = 0;
    if (e == 'u') {
      if (s->canonical || end - p < 6 || hex4(p + 2, &u) || u == 0 || (u >= 0xD800 && u <= 0xDFFF))
        return OCK_EJSON;
      p += 6;
    } else if (e && strchr(s->canonical ? "\"\\bfnrt" : "\"\\/bfnrt", e)) {
      p += 2;
    } else {
      return OCK_EJSON;
    }
  }
  s->p = p + 1;
  tok->at = (size_t)(start - s->base);
  tok->len = (size_t)(s->p - start);
  return OCK_OK;
}

/* unescape writes the string between p and end (validated by scan_string) to o; returns the
 * bytes written, never more than end - p. */
static size_t unescape(const char *p, const char *end, char *o) {
  char *start = o;
  if (!memchr(p, '\\', (size_t)(end - p))) {
    memcpy(o, p, (size_t)(end - p));
    return (size_t)(end - p);
  }
  while (p < end) {
    if (*p != '\\') {
      *o++ = *p++;
      continue;
    }
    char e = p[1];
    p += 2;
    unsigned u = 0;
    switch (e) {
    case 'b':
      *o++ = '\b';
      break;
    case 'f':
      *o++ = '\f';
      break;
    case 'n':
      *o++ = '\n';
      break;
    case 'r':
      *o++ = '\r';
      break;
    case 't':
      *o++ = '\t';
      break;
    case 'u':
      hex4(p, &u);
      p += 4;
      if (u < 0x80) {
        *o++ = (char)u;
      } else if (u < 0x800) {
        *o++ = (char)(0xC0 | u >> 6);
        *o++ = (char)(0x80 | (u & 0x3F));
      } else {
        *o++ = (char)(0xE0 | u >> 12);
        *o++ = (char)(0x80 | (u >> 6 & 0x3F));
        *o++ = (char)(0x80 | (u & 0x3F));
      }
      break;
    default:
      *o++ = e;
    }
  }
  return (size_t)(o - start);
}

/* string_of: the string value v, decoded into a new string; OCK_EJSON when v is absent or not
 * a string. */
static int string_of(const struct scan *s, struct ock_wire_span v, char **out) {
  if (first_byte(s, v) != '"')
    return OCK_EJSON;
  char *d = malloc(v.len);
  if (!d)
    return OCK_ENOMEM;
  d[unescape(s->base + v.at + 1, s->base + v.at + v.len - 1, d)] = '\0';
  *out = d;
  return OCK_OK;
}

/* name_of: a short string value (a role, a block type) decoded into out[NAME_MAX]. */
static int name_of(const struct scan *s, struct ock_wire_span v, char *out) {
  if (first_byte(s, v) != '"' || v.len > NAME_MAX)
    return OCK_EJSON;
  out[unescape(s->base + v.at + 1, s->base + v.at + v.len - 1, out)] = '\0';
  return OCK_OK;
}

/* append_string appends the decoded string value v to b. */
static int append_string(const struct scan *s, struct ock_wire_span v, struct ock_buf *b) {
  if (ock_buf_reserve(b, v.len))
    return OCK_ENOMEM;
  b->len += unescape(s->base + v.at + 1, s->base + v.at + v.len - 1, b->data + b->len);
  b->data[b->len] = '\0';
  return OCK_OK;
}

static int is_digit(const struct scan *s, const char *p) {
  return p < s->end && *p >= '0' && *p <= '9';
}

static int scan_number(struct scan *s) {
  const char *p = s->p;
  int whole = 1, negative = p < s->end && *p == '-';
  p += negative;
  const char *digits = p;
  if (!is_digit(s, p))
    return OCK_EJSON;
  if (*p == '0')
    p++;
  else
    while (is_digit(s, p))
      p++;
  if (p < s->end && *p == '.') {
    whole = 0;
    if (!is_digit(s, ++p))
      return OCK_EJSON;
    while (is_digit(s, p))
      p++;
  }
  if (p < s->end && (*p == 'e' || *p == 'E'))
    return OCK_EJSON;
  if (p - digits - !whole > DIGITS_MAX ||
      (s->canonical && (!whole || (negative && *digits == '0'))))
    return OCK_EJSON;
  s->p = p;
  return OCK_OK;
}

static int scan_word(struct scan *s, const char *w) {
  size_t n = strlen(w);
  if ((size_t)(s->end - s->p) < n || memcmp(s->p, w, n))
    return OCK_EJSON;
  s->p += n;
  return OCK_OK;
}

/* next steps into the next element of an open object or array: *more 0 after its closing
 * byte; n counts the elements before. */
static int next(struct scan *s, char close, int n, int *more) {
  int c = peek(s);
  *more = c != (unsigned char)close;
  if (!*more) {
    s->p++;
    return OCK_OK;
  }
  if (n && c != ',')
    return OCK_EJSON;
  s->p += n != 0;
  return OCK_OK;
}

static int skip_value(struct scan *s, int depth);

/* The member names of one object so far: a name given twice is declined, since readers
 * disagree on which value wins (the tree reader refuses it, naming its path). */
struct names_seen {
  struct ock_wire_span at[KEYS_MAX];
  int n;
};

/* name_new records key (a name without escapes, quotes included); OCK_EJSON when the object
 * already has it, or has KEYS_MAX names (the tree reader checks such an object). */
static int name_new(const struct scan *s, struct names_seen *seen, struct ock_wire_span key) {
  if (seen->n == KEYS_MAX)
    return OCK_EJSON;
  for (int i = 0; i < seen->n; i++)
    if (seen->at[i].len == key.len && !memcmp(s->base + seen->at[i].at, s->base + key.at, key.len))
      return OCK_EJSON;
  seen->at[seen->n++] = key;
  return OCK_OK;
}

static int skip_container(struct scan *s, int depth) {
  int object = *s->p == '{';
  if (depth >= DEPTH_MAX)
    return OCK_EJSON;
  s->p++;
  struct names_seen seen;
  seen.n = 0;
  int rc = OCK_OK, more = 1;
  for (int n = 0; !rc; n++) {
    rc = next(s, object ? '}' : ']', n, &more);
    if (rc || !more)
      break;
    struct ock_wire_span key;
    int escaped;
    if (object) {
      rc = scan_string(s, &key, &escaped);
      if (!rc)
        rc = escaped ? OCK_EJSON : name_new(s, &seen, key);
      if (!rc)
        rc = eat(s, ':');
    }
    if (!rc)
      rc = skip_value(s, depth + 1);
  }
  return rc;
}

static int skip_value(struct scan *s, int depth) {
  struct ock_wire_span tok;
  int escaped;
  switch (peek(s)) {
  case '"':
    return scan_string(s, &tok, &escaped);
  case '{':
  case '[':
    return skip_container(s, depth);
  case 't':
    return scan_word(s, "true");
  case 'f':
    return scan_word(s, "false");
  case 'n':
    return scan_word(s, "null");
  default:
    return scan_number(s);
  }
}

/* A list of every member of an object, for the top level's params. */
struct members {
  struct ock_wire_member *items;
  size_t n;
  size_t cap;
};

static int grow(void **items, size_t *cap, size_t n, size_t size) {
  if (n < *cap)
    return OCK_OK;
  size_t c = *cap ? *cap * 2 : 8;
  void *p = realloc(*items, c * size);
  if (!p)
    return OCK_ENOMEM;
  *items = p;
  *cap = c;
  return OCK_OK;
}

/* collect scans the object at s->p: vals[i] gets the value of the member named names[i]
 * (NULL-terminated; len 0 when absent), all (when not NULL) every member. Any name given
 * twice, or with an escape, is declined. */
static int collect(struct scan *s, const char *const *names, struct ock_wire_span *vals, int depth,
                   struct members *all) {
  for (size_t i = 0; names[i]; i++)
    vals[i] = (struct ock_wire_span){0, 0};
  if (peek(s) != '{' || depth >= DEPTH_MAX)
    return OCK_EJSON;
  s->p++;
  struct names_seen seen;
  seen.n = 0;
  int rc = OCK_OK, more = 1;
  for (int n = 0; !rc; n++) {
    rc = next(s, '}', n, &more);
    if (rc || !more)
      break;
    struct ock_wire_span key, val;
    int escaped;
    rc = scan_string(s, &key, &escaped);
    if (!rc)
      rc = escaped ? OCK_EJSON : name_new(s, &seen, key);
    if (!rc)
      rc = eat(s, ':');
    if (rc)
      break;
    peek(s);
    val.at = (size_t)(s->p - s->base);
    rc = skip_value(s, depth + 1);
    val.len = (size_t)(s->p - s->base) - val.at;
    for (size_t i = 0; !rc && names[i]; i++) {
      if (names[i][0] == s->base[key.at + 1] && strlen(names[i]) == key.len - 2 &&
          !memcmp(s->base + key.at + 1, names[i], key.len - 2))
        rc = vals[i].len ? OCK_EJSON : (vals[i] = val, OCK_OK);
    }
    if (!rc && all && !(rc = grow((void **)&all->items, &all->cap, all->n, sizeof *all->items)))
      all->items[all->n++] = (struct ock_wire_member){key, val};
  }
  return rc;
}

/* ---- the neutral history --------------------------------------------------------------- */

/* push moves *m into h (on failure m is still the caller's); block is its result_blocks entry
 * when blocks is not NULL, an array kept as long as h's: a failure ends the whole read, so the
 * two never part. */
static int push(struct ock_history *h, struct ock_message *m, int **blocks, int block) {
  size_t cap = h->cap;
  if (grow((void **)&h->items, &h->cap, h->len, sizeof *h->items))
    return OCK_ENOMEM;
  if (blocks && h->cap != cap) {
    int *b = realloc(*blocks, h->cap * sizeof *b);
    if (!b)
      return OCK_ENOMEM; /* h->items grew; that is harmless */
    *blocks = b;
  }
  if (blocks)
    (*blocks)[h->len] = block;
  h->items[h->len++] = *m;
  return OCK_OK;
}

static int push_or_clear(struct ock_history *h, struct ock_message *m, int **blocks, int block) {
  int rc = push(h, m, blocks, block);
  if (rc)
    ock_message_clear(m);
  return rc;
}

/* text_of reads content as message.c's openai_text does: absent or null is NULL, a string,
 * or an array of parts whose "text" strings are joined ("" when none has one). */
static int text_of(const struct scan *s, struct ock_wire_span v, char **out) {
  static const char *const keys[] = {"text", NULL};
  int c = first_byte(s, v);
  *out = NULL;
  if (c == -1 || c == 'n')
    return OCK_OK;
  if (c == '"')
    return string_of(s, v, out);
  if (c != '[')
    return OCK_EJSON;
  struct ock_buf b;
  ock_buf_init(&b, OCK_MAX_DERIVED_TEXT);
  struct scan t = sub_scan(s, v);
  t.p++;
  int rc = OCK_OK, more = 1;
  for (int n = 0; !rc; n++) {
    struct ock_wire_span text;
    rc = next(&t, ']', n, &more);
    if (rc || !more)
      break;
    rc = collect(&t, keys, &text, 2, NULL);
    if (!rc && text.len)
      rc = first_byte(s, text) == '"' ? append_string(s, text, &b) : OCK_EJSON;
  }
  if (!rc && !(*out = ock_buf_take(&b)))
    rc = OCK_ENOMEM;
  ock_buf_free(&b);
  return rc;
}

/* openai_calls reads an assistant's tool_calls array into m. */
static int openai_calls(const struct scan *s, struct ock_wire_span v, struct ock_message *m) {
  static const char *const call_keys[] = {"id", "function", NULL};
  static const char *const fn_keys[] = {"name", "arguments", NULL};
  if (first_byte(s, v) != '[')
    return OCK_EJSON;
  struct scan t = sub_scan(s, v);
  t.p++;
  size_t cap = 0;
  int rc = OCK_OK, more = 1;
  for (int n = 0; !rc; n++) {
    struct ock_wire_span call[2], fn[2];
    rc = next(&t, ']', n, &more);
    if (rc || !more)
      break;
    rc = collect(&t, call_keys, call, 3, NULL);
    struct scan f = sub_scan(s, call[1]);
    if (!rc)
      rc = collect(&f, fn_keys, fn, 4, NULL);
    if (!rc)
      rc = grow((void **)&m->calls, &cap, m->n_calls, sizeof *m->calls);
    if (rc)
      break;
    struct ock_tool_call *tc = &m->calls[m->n_calls++];
    memset(tc, 0, sizeof *tc);
    rc = string_of(s, call[0], &tc->id);
    if (!rc)
      rc = string_of(s, fn[0], &tc->name);
    if (!rc && fn[1].len)
      rc = string_of(s, fn[1], &tc->arguments);
    else if (!rc && !(tc->arguments = strdup("{}")))
      rc = OCK_ENOMEM;
  }
  return rc;
}

static int openai_message(const struct scan *s, struct scan *t, int index, struct ock_history *h) {
  static const char *const keys[] = {"role", "content", "tool_call_id", "tool_calls", NULL};
  struct ock_wire_span v[4];
  char role[NAME_MAX];
  struct ock_message m = {.wire_index = index};
  int rc = collect(t, keys, v, 2, NULL);
  if (!rc)
    rc = name_of(s, v[0], role);
  if (!rc && ock_role_parse(role, &m.role))
    rc = OCK_EJSON;
  if (!rc)
    rc = text_of(s, v[1], &m.content);
  if (!rc && m.role == OCK_ROLE_TOOL)
    rc = string_of(s, v[2], &m.tool_call_id);
  if (!rc && m.role == OCK_ROLE_ASSISTANT && v[3].len)
    rc = openai_calls(s, v[3], &m);
  if (!rc)
    return push_or_clear(h, &m, NULL, -1);
  ock_message_clear(&m);
  return rc;
}

/* ---- Anthropic ----------------------------------------------------------------------------- */

enum { B_TYPE, B_TEXT, B_ID, B_NAME, B_INPUT, B_TOOL_USE_ID, B_CONTENT, B_IS_ERROR };

/* One wire message being read: its text so far and its tool calls. */
struct anthropic_msg {
  struct ock_message m;
  struct ock_buf text;
  size_t calls_cap;
  int is_user;
};

static int anthropic_call(const struct scan *s, const struct ock_wire_span *v,
                          struct anthropic_msg *a) {
  struct ock_message *m = &a->m;
  if (grow((void **)&m->calls, &a->calls_cap, m->n_calls, sizeof *m->calls))
    return OCK_ENOMEM;
  struct ock_tool_call *tc = &m->calls[m->n_calls++];
  memset(tc, 0, sizeof *tc);
  int rc = string_of(s, v[B_ID], &tc->id);
  if (!rc)
    rc = string_of(s, v[B_NAME], &tc->name);
  if (rc)
    return rc;
  /* the arguments are the input as cJSON prints it: only the canonical form is taken here */
  struct ock_buf b;
  ock_buf_init(&b, OCK_MAX_DERIVED_TEXT);
  rc = ock_wire_object_text(&b, s->base + v[B_INPUT].at, v[B_INPUT].len);
  if (!rc && !(tc->arguments = ock_buf_take(&b)))
    rc = OCK_ENOMEM;
  ock_buf_free(&b);
  return rc;
}

static int anthropic_result(const struct scan *s, const struct ock_wire_span *v, int wire,
                            int block, struct anthropic_msg *a, struct ock_history *h,
                            int **blocks) {
  int rc = OCK_OK;
  if (a->text.len) { /* text before a tool_result stays before it, as the wire has it */
    struct ock_message u = {.role = OCK_ROLE_USER, .wire_index = wire};
    rc = (u.content = ock_buf_take(&a->text)) ? push_or_clear(h, &u, blocks, -1) : OCK_ENOMEM;
  }
  struct ock_message r = {.role = OCK_ROLE_TOOL, .wire_index = wire};
  if (!rc)
    rc = string_of(s, v[B_TOOL_USE_ID], &r.tool_call_id);
  if (!rc)
    rc = text_of(s, v[B_CONTENT], &r.content);
  r.is_error = first_byte(s, v[B_IS_ERROR]) == 't';
  if (!rc)
    return push_or_clear(h, &r, blocks, block);
  ock_message_clear(&r);
  return rc;
}

static int anthropic_block(const struct scan *s, struct scan *t, int wire, int block,
                           struct anthropic_msg *a, struct ock_history *h, int **blocks) {
  static const char *const keys[] = {
      "type",        "text",    "id",       "name", "input",
      "tool_use_id", "content", "is_error", NULL}; /* in the order of the B_ names */
  struct ock_wire_span v[8];
  char type[NAME_MAX];
  int rc = collect(t, keys, v, 4, NULL);
  if (!rc)
    rc = name_of(s, v[B_TYPE], type);
  if (rc)
    return rc;
  if (!strcmp(type, "tool_use") && first_byte(s, v[B_INPUT]) != '{')
    return OCK_EJSON; /* the mock answers it with the API's own 400 (llm.c) */
  if (!strcmp(type, "text"))
    return first_byte(s, v[B_TEXT]) == '"' ? append_string(s, v[B_TEXT], &a->text) : OCK_EJSON;
  if (!strcmp(type, "tool_use") && !a->is_user)
    return anthropic_call(s, v, a);
  if (!strcmp(type, "tool_result") && a->is_user)
    return anthropic_result(s, v, wire, block, a, h, blocks);
  return OCK_OK; /* other blocks (image, thinking, ...) carry no text or calls */
}

/* anthropic_blocks reads a content array the way ock_history_from_anthropic does. */
static int anthropic_blocks(const struct scan *s, struct ock_wire_span v, int wire,
                            struct anthropic_msg *a, struct ock_history *h, int **blocks) {
  struct scan t = sub_scan(s, v);
  t.p++;
  int rc = OCK_OK, more = 1, n = 0;
  for (; !rc; n++) {
    rc = next(&t, ']', n, &more);
    if (rc || !more)
      break;
    rc = anthropic_block(s, &t, wire, n, a, h, blocks);
  }
  if (rc)
    return rc;
  struct ock_message *m = &a->m;
  if (a->text.len || m->n_calls || n == 0 || !a->is_user) {
    if (a->text.len && !(m->content = ock_buf_take(&a->text)))
      return OCK_ENOMEM;
    if (m->content || m->n_calls || n == 0)
      return push(h, m, blocks, -1);
  }
  ock_message_clear(m);
  return OCK_OK;
}

static int anthropic_message(const struct scan *s, struct scan *t, int wire, struct ock_history *h,
                             int **blocks) {
  static const char *const keys[] = {"role", "content", NULL};
  struct ock_wire_span v[2];
  char role[NAME_MAX];
  struct anthropic_msg a = {.m = {.wire_index = wire}};
  ock_buf_init(&a.text, OCK_MAX_DERIVED_TEXT);
  int rc = collect(t, keys, v, 2, NULL);
  if (!rc)
    rc = name_of(s, v[0], role);
  if (!rc && strcmp(role, "user") && strcmp(role, "assistant"))
    rc = OCK_EJSON;
  if (rc) {
    ock_buf_free(&a.text);
    return rc;
  }
  a.is_user = !strcmp(role, "user");
  a.m.role = a.is_user ? OCK_ROLE_USER : OCK_ROLE_ASSISTANT;
  int c = first_byte(s, v[1]);
  if (c == '"') {
    rc = string_of(s, v[1], &a.m.content);
    if (!rc)
      rc = push(h, &a.m, blocks, -1);
  } else {
    rc = c == '[' ? anthropic_blocks(s, v[1], wire, &a, h, blocks) : OCK_EJSON;
  }
  if (rc)
    ock_message_clear(&a.m);
  ock_buf_free(&a.text);
  return rc;
}

/* result_blocks_first makes each tool result's entry the block of the first tool_result of
 * its wire message with the same id (what the tree reader finds by looking the id up). */
static void result_blocks_first(const struct ock_history *h, int *blocks) {
  for (size_t i = 0; i < h->len; i++) {
    const struct ock_message *m = &h->items[i];
    for (size_t j = i; m->role == OCK_ROLE_TOOL && j-- > 0;) {
      const struct ock_message *o = &h->items[j];
      if (o->wire_index != m->wire_index)
        break;
      if (o->role == OCK_ROLE_TOOL && !strcmp(o->tool_call_id, m->tool_call_id))
        blocks[i] = blocks[j];
    }
  }
}

/* ---- the request --------------------------------------------------------------------------- */

enum { K_MODEL, K_MESSAGES, K_SYSTEM, K_STREAM, K_TOOLS, K_STREAM_OPTIONS, K_N };

static int read_bool(const struct scan *s, struct ock_wire_span v, int *out) {
  int c = first_byte(s, v);
  if (c != -1 && c != 't' && c != 'f')
    return OCK_EJSON;
  *out = c == 't';
  return OCK_OK;
}

/* tool_name: the name of a tool object (its "name", or its function's), or absent. */
static int tool_name(const struct scan *s, const struct ock_wire_span *tool,
                     struct ock_wire_span *name) {
  static const char *const fn_keys[] = {"name", NULL};
  *name = (struct ock_wire_span){0, 0};
  if (first_byte(s, tool[0]) == '"') {
    *name = tool[0];
  } else if (first_byte(s, tool[1]) == '{') {
    struct scan f = sub_scan(s, tool[1]);
    int rc = collect(&f, fn_keys, name, 3, NULL);
    if (rc)
      return rc;
    if (first_byte(s, *name) != '"')
      name->len = 0;
  }
  return OCK_OK;
}

/* add_tool_name records one offered tool's name (absent: len 0). */
static int add_tool_name(struct ock_request_read *r, size_t *cap, struct ock_wire_span name) {
  int rc = grow((void **)&r->tool_names, cap, r->n_tools, sizeof *r->tool_names);
  if (!rc)
    r->tool_names[r->n_tools++] = name;
  return rc;
}

/* declarations: each of a Gemini tool's functionDeclarations is an offered tool. */
static int declarations(const struct scan *s, struct ock_wire_span v, struct ock_request_read *r,
                        size_t *cap) {
  static const char *const keys[] = {"name", NULL};
  if (first_byte(s, v) != '[')
    return OCK_EJSON;
  struct scan t = sub_scan(s, v);
  t.p++;
  int rc = OCK_OK, more = 1;
  for (int n = 0; !rc; n++) {
    struct ock_wire_span name;
    rc = next(&t, ']', n, &more);
    if (rc || !more)
      break;
    rc = collect(&t, keys, &name, 3, NULL);
    if (!rc && first_byte(s, name) != '"')
      name.len = 0;
    if (!rc)
      rc = add_tool_name(r, cap, name);
  }
  return rc;
}

static int read_tools(const struct scan *s, struct ock_wire_span v, struct ock_request_read *r) {
  static const char *const keys[] = {"name", "function", "functionDeclarations", NULL};
  struct scan t = sub_scan(s, v);
  size_t cap = 0;
  t.p++;
  int rc = OCK_OK, more = 1;
  for (int n = 0; !rc; n++) {
    struct ock_wire_span tool[3], name;
    rc = next(&t, ']', n, &more);
    if (rc || !more)
      break;
    rc = collect(&t, keys, tool, 2, NULL);
    if (!rc && tool[2].len)
      rc = declarations(s, tool[2], r, &cap);
    else if (!rc && !(rc = tool_name(s, tool, &name)))
      rc = add_tool_name(r, &cap, name);
  }
  return rc;
}

/* is_history_member: a member the journal keeps apart from the params (any API's). */
static int is_history_member(const struct scan *s, struct ock_wire_span key) {
  static const char *const names[] = {
      "\"messages\"", "\"system\"", "\"input\"", "\"contents\"", "\"systemInstruction\"", NULL};
  for (size_t i = 0; names[i]; i++)
    if (key.len == strlen(names[i]) && !memcmp(s->base + key.at, names[i], key.len))
      return 1;
  return 0;
}

/* keep_params: the body's members but those of the history, as r's params. */
static void keep_params(const struct scan *s, struct members *all, struct ock_request_read *r) {
  size_t n = 0;
  for (size_t i = 0; i < all->n; i++)
    if (!is_history_member(s, all->items[i].key))
      all->items[n++] = all->items[i];
  r->params = all->items;
  r->n_params = n;
}

/* read_top reads the body object's members and the values that are not messages. */
static int read_top(struct scan *s, int anthropic, struct ock_request_read *r,
                    struct ock_wire_span *v) {
  static const char *const keys[] = {"model", "messages",       "system", "stream",
                                     "tools", "stream_options", NULL};
  static const char *const so_keys[] = {"include_usage", NULL};
  struct members all = {0};
  int rc = collect(s, keys, v, 0, &all);
  if (!rc && peek(s) != -1)
    rc = OCK_EJSON; /* cJSON would ignore what follows; this reader does not guess */
  if (!rc && (rc = string_of(s, v[K_MODEL], &r->model)) == OCK_OK && !r->model[0])
    rc = OCK_EJSON;
  if (!rc && first_byte(s, v[K_MESSAGES]) != '[')
    rc = OCK_EJSON;
  if (!rc)
    rc = read_bool(s, v[K_STREAM], &r->stream);
  if (!rc && v[K_TOOLS].len)
    rc = first_byte(s, v[K_TOOLS]) == '[' ? read_tools(s, v[K_TOOLS], r) : OCK_EJSON;
  if (!rc && !anthropic && v[K_STREAM_OPTIONS].len) {
    struct ock_wire_span usage;
    struct scan t = sub_scan(s, v[K_STREAM_OPTIONS]);
    rc = collect(&t, so_keys, &usage, 1, NULL);
    if (!rc)
      rc = read_bool(s, usage, &r->include_usage);
  }
  keep_params(s, &all, r);
  r->messages = v[K_MESSAGES];
  r->system = v[K_SYSTEM];
  return rc;
}

static int read_messages(const struct scan *s, int anthropic, struct ock_request_read *r) {
  struct scan t = sub_scan(s, r->messages);
  t.p++;
  int rc = OCK_OK, more = 1, n = 0;
  for (; !rc; n++) {
    rc = next(&t, ']', n, &more);
    if (rc || !more)
      break;
    rc = anthropic ? anthropic_message(s, &t, n, &r->history, &r->result_blocks)
                   : openai_message(s, &t, n, &r->history);
  }
  return rc ? rc : n == 0 ? OCK_EJSON : OCK_OK; /* no messages: both APIs' own 400 */
}

/* anthropic_system puts the system prompt (string or text blocks) first, as a message. */
static int anthropic_system(const struct scan *s, struct ock_request_read *r) {
  int c = first_byte(s, r->system);
  if (c == -1 || c == 'n')
    return OCK_OK;
  if (c != '"' && c != '[')
    return OCK_EJSON;
  struct ock_message m = {.role = OCK_ROLE_SYSTEM, .wire_index = -1};
  int rc = text_of(s, r->system, &m.content);
  if (!rc)
    return push_or_clear(&r->history, &m, &r->result_blocks, -1);
  return rc;
}

/* ---- the Responses API ---------------------------------------------------------------------- */

/* resp_text reads a message's content or an output as wire_responses.c's content_text does: a
 * string, or an array of part objects whose "text" strings are joined ("" when none has one). */
static int resp_text(const struct scan *s, struct ock_wire_span v, char **out) {
  int c = first_byte(s, v);
  *out = NULL;
  if (c != '"' && c != '[')
    return OCK_EJSON;
  return text_of(s, v, out);
}

enum { I_TYPE, I_ROLE, I_CONTENT, I_CALL_ID, I_NAME, I_ARGUMENTS, I_OUTPUT, I_N };

/* One input array being read: the assistant message function_call items join (-1: the next
 * call starts one). */
struct input_read {
  struct ock_history *h;
  long long join;
};

static int resp_message(const struct scan *s, const struct ock_wire_span *v, int index,
                        struct input_read *in) {
  char role[NAME_MAX];
  struct ock_message m = {.wire_index = index};
  int rc = name_of(s, v[I_ROLE], role);
  if (rc)
    return rc;
  if (!strcmp(role, "user"))
    m.role = OCK_ROLE_USER;
  else if (!strcmp(role, "system") || !strcmp(role, "developer"))
    m.role = OCK_ROLE_SYSTEM;
  else if (!strcmp(role, "assistant"))
    m.role = OCK_ROLE_ASSISTANT;
  else
    return OCK_EJSON;
  rc = resp_text(s, v[I_CONTENT], &m.content);
  if (!rc)
    rc = push_or_clear(in->h, &m, NULL, -1);
  else
    ock_message_clear(&m);
  in->join = m.role == OCK_ROLE_ASSISTANT ? (long long)in->h->len - 1 : -1;
  return rc;
}

static int resp_call(const struct scan *s, const struct ock_wire_span *v, int index,
                     struct input_read *in) {
  struct ock_tool_call c = {0};
  int rc = string_of(s, v[I_CALL_ID], &c.id);
  if (!rc)
    rc = string_of(s, v[I_NAME], &c.name);
  if (!rc)
    rc = string_of(s, v[I_ARGUMENTS], &c.arguments);
  struct ock_message *to = !rc && in->join >= 0 ? &in->h->items[in->join] : NULL;
  struct ock_tool_call *calls = NULL;
  if (to && !(calls = realloc(to->calls, (to->n_calls + 1) * sizeof *calls)))
    rc = OCK_ENOMEM;
  if (calls) {
    to->calls = calls;
    calls[to->n_calls++] = c;
    return OCK_OK;
  }
  if (!rc && !(calls = malloc(sizeof *calls)))
    rc = OCK_ENOMEM;
  if (rc) {
    free(c.id);
    free(c.name);
    free(c.arguments);
    return rc; /* cppcheck-suppress memleak ; calls is NULL here, or kept by to */
  }
  *calls = c;
  struct ock_message m = {.role = OCK_ROLE_ASSISTANT, .calls = calls, .n_calls = 1};
  m.wire_index = index;
  rc = push_or_clear(in->h, &m, NULL, -1);
  in->join = (long long)in->h->len - 1;
  return rc;
}

static int resp_output(const struct scan *s, const struct ock_wire_span *v, int index,
                       struct input_read *in) {
  struct ock_message m = {.role = OCK_ROLE_TOOL, .wire_index = index};
  int rc = string_of(s, v[I_CALL_ID], &m.tool_call_id);
  if (!rc)
    rc = resp_text(s, v[I_OUTPUT], &m.content);
  in->join = -1;
  if (!rc)
    return push_or_clear(in->h, &m, NULL, -1);
  ock_message_clear(&m);
  return rc;
}

/* resp_item reads one input item the way ock_history_from_responses does. */
static int resp_item(const struct scan *s, struct scan *t, int index, struct input_read *in) {
  static const char *const keys[] = {"type", "role",      "content", "call_id",
                                     "name", "arguments", "output",  NULL}; /* the I_ order */
  struct ock_wire_span v[I_N];
  char type[NAME_MAX] = "message";
  int rc = collect(t, keys, v, 2, NULL);
  if (!rc && v[I_TYPE].len)
    rc = name_of(s, v[I_TYPE], type);
  if (rc)
    return rc;
  if (!strcmp(type, "message"))
    return resp_message(s, v, index, in);
  if (!strcmp(type, "function_call"))
    return resp_call(s, v, index, in);
  if (!strcmp(type, "function_call_output"))
    return resp_output(s, v, index, in);
  if (!strcmp(type, "item_reference"))
    return OCK_EJSON; /* the tree path reads what it refers to */
  return OCK_OK;      /* reasoning and other items pass through, and keep a pending join */
}

static int read_input(const struct scan *s, struct ock_request_read *r) {
  if (first_byte(s, r->messages) == '"') {
    struct ock_message m = {.role = OCK_ROLE_USER, .wire_index = 0};
    int rc = string_of(s, r->messages, &m.content);
    return rc ? rc : push_or_clear(&r->history, &m, NULL, -1);
  }
  if (first_byte(s, r->messages) != '[')
    return OCK_EJSON;
  struct input_read in = {&r->history, -1};
  struct scan t = sub_scan(s, r->messages);
  t.p++;
  int rc = OCK_OK, more = 1;
  for (int n = 0; !rc; n++) {
    rc = next(&t, ']', n, &more);
    if (rc || !more)
      break;
    rc = resp_item(s, &t, n, &in);
  }
  return rc;
}

enum { R_MODEL, R_INPUT, R_STREAM, R_TOOLS, R_INSTRUCTIONS, R_PREVIOUS, R_STORE, R_N };

/* responses_top reads a Responses API body's members, the instructions first in the history. */
static int responses_top(struct scan *s, struct ock_request_read *r) {
  static const char *const keys[] = {
      "model", "input", "stream", "tools", "instructions", "previous_response_id", "store", NULL};
  struct ock_wire_span v[R_N];
  struct members all = {0};
  int rc = collect(s, keys, v, 0, &all);
  keep_params(s, &all, r);
  r->messages = v[R_INPUT];
  r->store = 1;
  if (!rc && peek(s) != -1)
    rc = OCK_EJSON;
  if (!rc && (rc = string_of(s, v[R_MODEL], &r->model)) == OCK_OK && !r->model[0])
    rc = OCK_EJSON;
  if (!rc)
    rc = read_bool(s, v[R_STREAM], &r->stream);
  if (!rc && v[R_STORE].len)
    rc = read_bool(s, v[R_STORE], &r->store);
  if (!rc && v[R_TOOLS].len)
    rc = first_byte(s, v[R_TOOLS]) == '[' ? read_tools(s, v[R_TOOLS], r) : OCK_EJSON;
  if (!rc && v[R_PREVIOUS].len)
    rc = string_of(s, v[R_PREVIOUS], &r->previous_id);
  if (!rc && v[R_INSTRUCTIONS].len) {
    struct ock_message m = {.role = OCK_ROLE_SYSTEM, .wire_index = -1};
    rc = string_of(s, v[R_INSTRUCTIONS], &m.content);
    if (!rc && !(rc = push_or_clear(&r->history, &m, NULL, -1)))
      r->n_instructions = 1;
  }
  return rc;
}

/* ---- the Gemini API ------------------------------------------------------------------------- */

enum { P_TEXT, P_THOUGHT, P_CALL, P_RESPONSE, P_N };

/* part_text appends a part's text (not a thought's) to b, as gemini_history.c's add_text. */
static int part_text(const struct scan *s, const struct ock_wire_span *v, struct ock_buf *b,
                     int *has) {
  int t = first_byte(s, v[P_THOUGHT]);
  if ((t != -1 && t != 't' && t != 'f') || (v[P_TEXT].len && first_byte(s, v[P_TEXT]) != '"'))
    return OCK_EJSON;
  if (!v[P_TEXT].len || t == 't')
    return OCK_OK;
  *has = 1;
  return append_string(s, v[P_TEXT], b);
}

/* read_part collects a part's members. */
static int read_part(struct scan *t, struct ock_wire_span *v) {
  static const char *const keys[] = {"text", "thought", "functionCall", "functionResponse", NULL};
  return collect(t, keys, v, 4, NULL);
}

/* object_text: an object value as cJSON prints it (only the canonical form is taken). */
static int object_text(const struct scan *s, struct ock_wire_span v, char **out) {
  struct ock_buf b;
  ock_buf_init(&b, OCK_MAX_DERIVED_TEXT);
  int rc = ock_wire_object_text(&b, s->base + v.at, v.len);
  if (!rc && !(*out = ock_buf_take(&b)))
    rc = OCK_ENOMEM;
  ock_buf_free(&b);
  return rc;
}

/* gemini_call reads a functionCall (k: its number among the turn's calls) into c. */
static int gemini_call(const struct scan *s, struct ock_wire_span fc, int index, size_t k,
                       struct ock_tool_call *c) {
  static const char *const keys[] = {"id", "name", "args", NULL};
  struct ock_wire_span v[3];
  struct scan t = sub_scan(s, fc);
  int rc = first_byte(s, fc) == '{' ? collect(&t, keys, v, 5, NULL) : OCK_EJSON;
  if (!rc && (rc = string_of(s, v[1], &c->name)) == OCK_OK && !c->name[0])
    rc = OCK_EJSON;
  if (!rc && v[0].len)
    rc = string_of(s, v[0], &c->id);
  if (!rc && (!c->id || !c->id[0])) {
    char made[64];
    snprintf(made, sizeof made, "ock-fc:%d.%zu", index, k);
    free(c->id);
    rc = (c->id = strdup(made)) ? OCK_OK : OCK_ENOMEM;
  }
  int a = first_byte(s, v[2]);
  if (!rc && a == -1)
    rc = (c->arguments = strdup("{}")) ? OCK_OK : OCK_ENOMEM;
  else if (!rc)
    rc = a == '"'   ? string_of(s, v[2], &c->arguments)
         : a == '{' ? object_text(s, v[2], &c->arguments)
                    : OCK_EJSON;
  return rc;
}

/* gemini_model reads a model turn as one assistant message. */
static int gemini_model(const struct scan *s, struct scan *t, int index, struct ock_history *h) {
  struct ock_message m = {.role = OCK_ROLE_ASSISTANT, .wire_index = index};
  struct ock_buf text;
  ock_buf_init(&text, OCK_MAX_DERIVED_TEXT);
  size_t cap = 0;
  int rc = OCK_OK, more = 1, has = 0;
  for (int n = 0; !rc; n++) {
    struct ock_wire_span v[P_N];
    rc = next(t, ']', n, &more);
    if (rc || !more)
      break;
    rc = read_part(t, v);
    if (!rc && !v[P_CALL].len)
      rc = part_text(s, v, &text, &has);
    else if (!rc && !(rc = grow((void **)&m.calls, &cap, m.n_calls, sizeof *m.calls))) {
      struct ock_tool_call *c = &m.calls[m.n_calls];
      memset(c, 0, sizeof *c);
      m.n_calls++; /* counted before it is read: ock_message_clear frees what it got */
      rc = gemini_call(s, v[P_CALL], index, m.n_calls - 1, c);
    }
  }
  if (!rc && has && !(m.content = ock_buf_take(&text)))
    rc = OCK_ENOMEM;
  ock_buf_free(&text);
  if (!rc)
    return push_or_clear(h, &m, NULL, -1);
  ock_message_clear(&m);
  return rc;
}

/* One user turn being read: the history, the index in it of the previous turn's model message
 * (-1 when that was not one), the calls of it its id-less responses took, the text so far. */
struct user_turn {
  const struct ock_history *h;
  long long prev;
  unsigned char taken[256];
  struct ock_buf text;
  int has;
  int index;
  int k; /* functionResponse parts so far */
};

/* answered: the id of the previous turn's first call not taken yet with this name (the
 * pairing gemini_history.c's answered() makes), or NULL. */
static const char *answered(struct user_turn *u, const char *name) {
  const struct ock_message *m = u->prev >= 0 ? &u->h->items[u->prev] : NULL;
  for (size_t k = 0; m && k < m->n_calls && k < 256; k++) {
    const struct ock_tool_call *c = &m->calls[k];
    if (!u->taken[k] && !strcmp(c->name, name)) {
      u->taken[k] = 1;
      return c->id;
    }
  }
  return NULL;
}

static int flush_user(struct user_turn *u, struct ock_history *h) {
  if (!u->has)
    return OCK_OK;
  u->has = 0;
  struct ock_message m = {.role = OCK_ROLE_USER, .wire_index = u->index};
  if (!(m.content = ock_buf_take(&u->text)))
    return OCK_ENOMEM;
  return push_or_clear(h, &m, NULL, -1);
}

/* response_text: a functionResponse's response as ock_gemini_response_text gives it. */
static int response_text(const struct scan *s, struct ock_wire_span resp, struct ock_message *m) {
  static const char *const keys[] = {"output", "error", NULL};
  struct ock_wire_span v[2] = {{0, 0}, {0, 0}};
  struct scan t = sub_scan(s, resp);
  int c = first_byte(s, resp);
  if (c == -1)
    return (m->content = strdup("")) ? OCK_OK : OCK_ENOMEM;
  int rc = c == '{' ? collect(&t, keys, v, 6, NULL) : OCK_EJSON;
  if (rc)
    return rc;
  if (first_byte(s, v[1]) == '"' && !v[0].len) {
    m->is_error = 1;
    return string_of(s, v[1], &m->content);
  }
  if (first_byte(s, v[0]) == '"' && !v[1].len)
    return string_of(s, v[0], &m->content);
  return object_text(s, resp, &m->content);
}

/* gemini_response appends a functionResponse as a tool message. */
static int gemini_response(const struct scan *s, struct ock_wire_span fr, struct user_turn *u,
                           struct ock_history *h) {
  static const char *const keys[] = {"id", "name", "response", NULL};
  struct ock_wire_span v[3];
  struct scan t = sub_scan(s, fr);
  struct ock_message m = {.role = OCK_ROLE_TOOL, .wire_index = u->index};
  char *name = NULL;
  int k = u->k++, rc = first_byte(s, fr) == '{' ? collect(&t, keys, v, 5, NULL) : OCK_EJSON;
  if (!rc && (rc = string_of(s, v[1], &name)) == OCK_OK && !name[0])
    rc = OCK_EJSON;
  if (!rc && v[0].len)
    rc = string_of(s, v[0], &m.tool_call_id);
  if (!rc && (!m.tool_call_id || !m.tool_call_id[0])) {
    const char *id = answered(u, name);
    char made[64];
    snprintf(made, sizeof made, "ock-fr:%d.%d", u->index, k);
    free(m.tool_call_id);
    rc = (m.tool_call_id = strdup(id ? id : made)) ? OCK_OK : OCK_ENOMEM;
  }
  free(name);
  if (!rc)
    rc = response_text(s, v[2], &m);
  if (!rc)
    return push_or_clear(h, &m, NULL, -1);
  ock_message_clear(&m);
  return rc;
}

/* gemini_user reads a user turn: runs of text as user messages, each functionResponse as a
 * tool message, in part order. */
static int gemini_user(const struct scan *s, struct scan *t, int index, long long prev,
                       struct ock_history *h) {
  struct user_turn u = {.h = h, .prev = prev, .index = index};
  ock_buf_init(&u.text, OCK_MAX_DERIVED_TEXT);
  int rc = OCK_OK, more = 1;
  for (int n = 0; !rc; n++) {
    struct ock_wire_span v[P_N];
    rc = next(t, ']', n, &more);
    if (rc || !more)
      break;
    rc = read_part(t, v);
    if (!rc && v[P_RESPONSE].len) {
      rc = flush_user(&u, h);
      if (!rc)
        rc = gemini_response(s, v[P_RESPONSE], &u, h);
    } else if (!rc) {
      rc = part_text(s, v, &u.text, &u.has);
    }
  }
  if (!rc)
    rc = flush_user(&u, h);
  ock_buf_free(&u.text);
  return rc;
}

/* gemini_turn reads one of contents; *prev_model is the history index of the model message of
 * the turn before (-1: that was not a model turn), and becomes this turn's. */
static int gemini_turn(const struct scan *s, struct scan *t, int index, struct ock_history *h,
                       long long *prev_model) {
  static const char *const keys[] = {"role", "parts", NULL};
  struct ock_wire_span v[2];
  char role[NAME_MAX] = "user";
  int rc = collect(t, keys, v, 2, NULL);
  if (!rc && v[0].len && !(rc = name_of(s, v[0], role)) && strcmp(role, "user") &&
      strcmp(role, "model"))
    rc = OCK_EJSON;
  if (!rc && first_byte(s, v[1]) != '[')
    rc = OCK_EJSON;
  if (rc)
    return rc;
  struct scan p = sub_scan(s, v[1]);
  p.p++;
  if (peek(&p) == ']')
    return OCK_EJSON; /* the API's own 400: the tree path words it */
  int model = !strcmp(role, "model") && v[0].len;
  rc = model ? gemini_model(s, &p, index, h) : gemini_user(s, &p, index, *prev_model, h);
  *prev_model = model ? (long long)h->len - 1 : -1;
  return rc;
}

static int read_contents(const struct scan *s, struct ock_request_read *r) {
  if (first_byte(s, r->messages) != '[')
    return OCK_EJSON;
  struct scan t = sub_scan(s, r->messages);
  t.p++;
  long long prev_model = -1;
  int rc = OCK_OK, more = 1, n = 0;
  for (; !rc; n++) {
    rc = next(&t, ']', n, &more);
    if (rc || !more)
      break;
    rc = gemini_turn(s, &t, n, &r->history, &prev_model);
  }
  return rc ? rc : n == 0 ? OCK_EJSON : OCK_OK; /* no contents: the API's own 400 */
}

/* gemini_system puts systemInstruction's text first, as a message, when it has any. */
static int gemini_system(const struct scan *s, struct ock_request_read *r) {
  static const char *const keys[] = {"parts", NULL};
  struct ock_wire_span parts;
  struct scan t = sub_scan(s, r->system);
  int rc = first_byte(s, r->system) == '{' ? collect(&t, keys, &parts, 1, NULL) : OCK_EJSON;
  if (!rc && first_byte(s, parts) != '[')
    rc = OCK_EJSON;
  if (rc)
    return rc;
  struct ock_buf text;
  ock_buf_init(&text, OCK_MAX_DERIVED_TEXT);
  struct scan p = sub_scan(s, parts);
  p.p++;
  int more = 1, has = 0;
  for (int n = 0; !rc; n++) {
    struct ock_wire_span v[P_N];
    rc = next(&p, ']', n, &more);
    if (rc || !more)
      break;
    rc = read_part(&p, v);
    if (!rc)
      rc = part_text(s, v, &text, &has);
  }
  struct ock_message m = {.role = OCK_ROLE_SYSTEM, .wire_index = -1};
  if (!rc && has)
    rc = (m.content = ock_buf_take(&text)) ? push_or_clear(&r->history, &m, NULL, -1) : OCK_ENOMEM;
  ock_buf_free(&text);
  return rc;
}

/* gemini_top reads a Gemini body's members (the model and the method are in the URL). */
static int gemini_top(struct scan *s, struct ock_request_read *r) {
  static const char *const keys[] = {"contents", "systemInstruction", "tools", NULL};
  struct ock_wire_span v[3];
  struct members all = {0};
  int rc = collect(s, keys, v, 0, &all);
  keep_params(s, &all, r);
  r->messages = v[0];
  r->system = v[1];
  if (!rc && peek(s) != -1)
    rc = OCK_EJSON;
  if (!rc && v[2].len)
    rc = first_byte(s, v[2]) == '[' ? read_tools(s, v[2], r) : OCK_EJSON;
  if (!rc && v[1].len)
    rc = gemini_system(s, r);
  return rc;
}

/* read_chat reads a Chat Completions or Messages body. */
static int read_chat(struct scan *s, int anthropic, struct ock_request_read *r) {
  struct ock_wire_span v[K_N];
  int rc = read_top(s, anthropic, r, v);
  if (!rc && anthropic)
    rc = anthropic_system(s, r);
  if (!rc)
    rc = read_messages(s, anthropic, r);
  if (!rc && anthropic)
    result_blocks_first(&r->history, r->result_blocks);
  return rc;
}

int ock_wire_request_read(const char *body, size_t len, enum ock_request_api api,
                          struct ock_request_read *out) {
  struct ock_request_read r;
  memset(&r, 0, sizeof r);
  ock_history_init(&r.history);
  struct scan s = {body, body, body + len, 0};
  int rc;
  if (api == OCK_REQUEST_RESPONSES) {
    rc = responses_top(&s, &r);
    if (!rc)
      rc = read_input(&s, &r);
  } else if (api == OCK_REQUEST_GEMINI) {
    rc = gemini_top(&s, &r);
    if (!rc)
      rc = read_contents(&s, &r);
  } else {
    rc = read_chat(&s, api == OCK_REQUEST_ANTHROPIC, &r);
  }
  if (rc) {
    ock_wire_request_free(&r);
    return rc;
  }
  *out = r;
  return OCK_OK;
}

void ock_wire_request_free(struct ock_request_read *r) {
  free(r->model);
  free(r->params);
  free(r->tool_names);
  free(r->result_blocks);
  free(r->previous_id);
  ock_history_free(&r->history);
  memset(r, 0, sizeof *r);
  ock_history_init(&r->history);
}

int ock_wire_compact(struct ock_buf *out, const char *text, size_t len) {
  int rc = ock_buf_reserve(out, len);
  if (rc)
    return rc;
  char *o = out->data + out->len;
  int in_string = 0;
  for (size_t i = 0; i < len; i++) {
    char c = text[i];
    if (in_string) {
      size_t n = (size_t)(ock__plain_run(text + i, text + len) - (text + i));
      memcpy(o, text + i, n); /* the string's plain run, then the byte that ends it */
      o += n;
      i += n;
      if (i >= len)
        break;
      *o++ = text[i];
      if (text[i] == '\\')
        *o++ = text[++i];
      else if (text[i] == '"')
        in_string = 0;
    } else if (!is_ws(c)) {
      *o++ = c;
      in_string = c == '"';
    }
  }
  out->len = (size_t)(o - out->data);
  out->data[out->len] = '\0';
  return OCK_OK;
}

int ock_wire_object_text(struct ock_buf *out, const char *text, size_t len) {
  struct scan s = {text, text, text + len, 1};
  if (peek(&s) != '{' || skip_value(&s, 0) || peek(&s) != -1)
    return OCK_EJSON;
  return ock_wire_compact(out, text, len);
}
