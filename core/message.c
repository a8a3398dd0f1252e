/*
 * message.c: the neutral message model, and the readers of its OpenAI / Anthropic wire forms
 * (see message.h; writing them is wire_openai.c and wire_anthropic.c).
 *
 * Pure data mapping: no I/O. The wire readers are strict about shape (a user message whose
 * content is a number is an error naming its path) because the mock uses them to judge what a
 * SUT sent, and lenient about what the APIs allow (content null with tool calls, content as
 * an array of text parts).
 */
#include "ock/caps.h"
#include "ock/message.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ock/buf.h"
#include "ock/status.h"

static const char *const role_names[] = {"system", "user", "assistant", "tool", NULL};

const char *ock_role_name(enum ock_role role) {
  return (unsigned)role < 4 ? role_names[role] : "?";
}

int ock_role_parse(const char *name, enum ock_role *out) {
  for (int i = 0; name && role_names[i]; i++) {
    if (!strcmp(name, role_names[i])) {
      *out = (enum ock_role)i;
      return OCK_OK;
    }
  }
  if (name && !strcmp(name, "developer")) { /* OpenAI's newer name for system */
    *out = OCK_ROLE_SYSTEM;
    return OCK_OK;
  }
  return OCK_EINVAL;
}

static char *dup_or_null(const char *s) {
  return s ? strdup(s) : NULL;
}

/* ---- history ----------------------------------------------------------------------------- */

int ock_finish_is_token_limit(const char *finish_reason) {
  static const char *const limits[] = {"length", "max_tokens", "max_output_tokens", "MAX_TOKENS"};
  for (size_t i = 0; finish_reason && i < sizeof limits / sizeof *limits; i++)
    if (!strcmp(finish_reason, limits[i]))
      return 1;
  return 0;
}

void ock_history_init(struct ock_history *h) {
  h->items = NULL;
  h->len = 0;
  h->cap = 0;
}

void ock_message_clear(struct ock_message *m) {
  free(m->content);
  for (size_t i = 0; i < m->n_calls; i++) {
    free(m->calls[i].id);
    free(m->calls[i].name);
    free(m->calls[i].arguments);
  }
  free(m->calls);
  free(m->tool_call_id);
  memset(m, 0, sizeof *m);
  m->wire_index = -1;
}

void ock_history_free(struct ock_history *h) {
  for (size_t i = 0; i < h->len; i++)
    ock_message_clear(&h->items[i]);
  free(h->items);
  ock_history_init(h);
}

int ock_message_copy(const struct ock_message *src, struct ock_message *dst) {
  struct ock_message m = {
      .role = src->role, .is_error = src->is_error, .wire_index = src->wire_index};
  m.content = dup_or_null(src->content);
  m.tool_call_id = dup_or_null(src->tool_call_id);
  int bad = (src->content && !m.content) || (src->tool_call_id && !m.tool_call_id);
  if (src->n_calls && !bad) {
    m.calls = calloc(src->n_calls, sizeof *m.calls);
    bad = !m.calls;
    for (size_t i = 0; !bad && i < src->n_calls; i++) {
      m.n_calls = i + 1;
      m.calls[i].id = dup_or_null(src->calls[i].id);
      m.calls[i].name = dup_or_null(src->calls[i].name);
      m.calls[i].arguments = strdup(src->calls[i].arguments ? src->calls[i].arguments : "{}");
      bad = (src->calls[i].id && !m.calls[i].id) || (src->calls[i].name && !m.calls[i].name) ||
            !m.calls[i].arguments;
    }
  }
  if (bad) {
    ock_message_clear(&m);
    return OCK_ENOMEM;
  }
  *dst = m;
  return OCK_OK;
}

/* push takes ownership of *m: moved in on success, cleared on failure (so a caller that clears
 * it again after a failure does no harm). */
static int push(struct ock_history *h, struct ock_message *m) {
  if (h->len == h->cap) {
    size_t cap = h->cap ? h->cap * 2 : 8;
    struct ock_message *p = realloc(h->items, cap * sizeof *p);
    if (!p) {
      ock_message_clear(m);
      return OCK_ENOMEM;
    }
    h->items = p;
    h->cap = cap;
  }
  h->items[h->len++] = *m;
  return OCK_OK;
}

int ock_history_append_message(struct ock_history *h, const struct ock_message *src) {
  struct ock_message m;
  int rc = ock_message_copy(src, &m);
  if (rc)
    return rc;
  rc = push(h, &m);
  if (rc)
    ock_message_clear(&m);
  return rc;
}

int ock_history_copy(const struct ock_history *src, struct ock_history *dst) {
  struct ock_history tmp;
  ock_history_init(&tmp);
  for (size_t i = 0; i < src->len; i++) {
    int rc = ock_history_append_message(&tmp, &src->items[i]);
    if (rc) {
      ock_history_free(&tmp);
      return rc;
    }
  }
  ock_history_free(dst);
  *dst = tmp;
  return OCK_OK;
}

int ock_history_add_text(struct ock_history *h, enum ock_role role, const char *text) {
  struct ock_message m = {.role = role, .content = (char *)text, .wire_index = -1};
  return ock_history_append_message(h, &m);
}

int ock_history_add_assistant(struct ock_history *h, const char *text,
                              const struct ock_tool_call *calls, size_t n_calls) {
  struct ock_message m = {.role = OCK_ROLE_ASSISTANT,
                          .content = (char *)text,
                          .calls = (struct ock_tool_call *)calls,
                          .n_calls = n_calls,
                          .wire_index = -1};
  return ock_history_append_message(h, &m);
}

int ock_history_add_tool_result(struct ock_history *h, const char *tool_call_id, const char *text,
                                int is_error) {
  struct ock_message m = {.role = OCK_ROLE_TOOL,
                          .content = (char *)text,
                          .tool_call_id = (char *)tool_call_id,
                          .is_error = is_error,
                          .wire_index = -1};
  return ock_history_append_message(h, &m);
}

/* ---- from the wire ------------------------------------------------------------------------- */

/* text_of reads OpenAI content: a string, null, or an array of {type:"text",text} parts. The
 * result is a new string, or NULL for null/empty-array content. */
static int openai_text(const cJSON *content, const char *path, char **out, struct ock_jerr *err) {
  *out = NULL;
  if (!content || cJSON_IsNull(content))
    return OCK_OK;
  if (cJSON_IsString(content)) {
    *out = strdup(content->valuestring);
    return *out ? OCK_OK : OCK_ENOMEM;
  }
  if (!cJSON_IsArray(content))
    return ock_jerr_set(err, OCK_ETYPE, path,
                        "expected a string, null or an array of parts, got %s",
                        ock_json_type_name(content));
  struct ock_buf b;
  ock_buf_init(&b, OCK_MAX_DERIVED_TEXT);
  const cJSON *part;
  int i = 0;
  cJSON_ArrayForEach(part, content) {
    char pp[OCK_JSON_PATH_MAX];
    ock_jpath_index(pp, sizeof pp, path, i++);
    const char *t = NULL;
    int rc = ock_jcheck_object(part, pp, err);
    if (!rc)
      rc = ock_jget_string(part, pp, "text", OCK_OPTIONAL, &t, err);
    if (!rc && t)
      rc = ock_buf_puts(&b, t);
    if (rc) {
      ock_buf_free(&b);
      return rc;
    }
  }
  *out = ock_buf_take(&b);
  return *out ? OCK_OK : OCK_ENOMEM;
}

/* openai_call reads one entry of tool_calls (at path ip) into *out. */
static int openai_call(const cJSON *tc, const char *ip, struct ock_tool_call *out,
                       struct ock_jerr *err) {
  const cJSON *fn = NULL;
  const char *id = NULL, *name = NULL, *args = NULL;
  char fp[OCK_JSON_PATH_MAX];
  int rc = ock_jcheck_object(tc, ip, err);
  if (!rc)
    rc = ock_jget_string(tc, ip, "id", OCK_REQUIRED, &id, err);
  if (!rc)
    rc = ock_jget_object(tc, ip, "function", OCK_REQUIRED, &fn, err);
  ock_jpath_key(fp, sizeof fp, ip, "function");
  if (!rc)
    rc = ock_jget_string(fn, fp, "name", OCK_REQUIRED, &name, err);
  if (!rc)
    rc = ock_jget_string(fn, fp, "arguments", OCK_OPTIONAL, &args, err);
  if (rc)
    return rc;
  out->id = strdup(id);
  out->name = strdup(name);
  out->arguments = strdup(args ? args : "{}");
  return out->id && out->name && out->arguments ? OCK_OK : OCK_ENOMEM;
}

static int openai_calls(const cJSON *calls, const char *path, struct ock_message *m,
                        struct ock_jerr *err) {
  int n = cJSON_GetArraySize(calls);
  if (n <= 0)
    return OCK_OK;
  m->calls = calloc((size_t)n, sizeof *m->calls);
  if (!m->calls)
    return OCK_ENOMEM;
  char tp[OCK_JSON_PATH_MAX];
  ock_jpath_key(tp, sizeof tp, path, "tool_calls");
  const cJSON *tc = calls->child; /* walked in step with c: GetArrayItem(c) would be O(c) */
  int rc = OCK_OK;
  for (int c = 0; !rc && c < n && tc; c++, tc = tc->next) {
    char ip[OCK_JSON_PATH_MAX];
    ock_jpath_index(ip, sizeof ip, tp, c);
    m->n_calls = (size_t)c + 1;
    rc = openai_call(tc, ip, &m->calls[c], err);
  }
  return rc;
}

/* openai_message reads messages[idx] into *m (zeroed by the caller). */
static int openai_message(const cJSON *jm, int idx, struct ock_message *m, struct ock_jerr *err) {
  char path[OCK_JSON_PATH_MAX], cp[OCK_JSON_PATH_MAX];
  ock_jpath_index(path, sizeof path, "$.messages", idx);
  const char *role = NULL, *tcid = NULL;
  int rc = ock_jcheck_object(jm, path, err);
  if (!rc)
    rc = ock_jget_string(jm, path, "role", OCK_REQUIRED, &role, err);
  if (!rc && ock_role_parse(role, &m->role)) {
    char rp[OCK_JSON_PATH_MAX];
    ock_jpath_key(rp, sizeof rp, path, "role");
    rc = ock_jerr_set(err, OCK_ETYPE, rp,
                      "expected one of \"system\", \"developer\", \"user\", \"assistant\", "
                      "\"tool\", got \"%.40s\"",
                      role);
  }
  ock_jpath_key(cp, sizeof cp, path, "content");
  if (!rc)
    rc = openai_text(cJSON_GetObjectItemCaseSensitive(jm, "content"), cp, &m->content, err);
  if (!rc && m->role == OCK_ROLE_TOOL) {
    rc = ock_jget_string(jm, path, "tool_call_id", OCK_REQUIRED, &tcid, err);
    if (!rc && !(m->tool_call_id = strdup(tcid)))
      rc = OCK_ENOMEM;
  }
  const cJSON *calls = NULL;
  if (!rc && m->role == OCK_ROLE_ASSISTANT)
    rc = ock_jget_array(jm, path, "tool_calls", OCK_OPTIONAL, &calls, err);
  if (!rc && calls)
    rc = openai_calls(calls, path, m, err);
  return rc;
}

int ock_history_from_openai(const cJSON *messages, struct ock_history *out, struct ock_jerr *err) {
  if (!cJSON_IsArray(messages))
    return ock_jerr_set(err, OCK_ETYPE, "$.messages", "expected an array, got %s",
                        ock_json_type_name(messages));
  const cJSON *jm;
  int idx = 0;
  cJSON_ArrayForEach(jm, messages) {
    struct ock_message m = {.wire_index = idx};
    int rc = openai_message(jm, idx++, &m, err);
    if (!rc)
      rc = push(out, &m);
    if (rc) {
      ock_message_clear(&m);
      return rc;
    }
  }
  return OCK_OK;
}

/* anthropic_system appends the top-level system prompt (string or text blocks) as a message. */
static int anthropic_system(const cJSON *system, struct ock_history *out, struct ock_jerr *err) {
  if (!system || cJSON_IsNull(system))
    return OCK_OK;
  char *text = NULL;
  int rc = openai_text(system, "$.system", &text, err); /* same string-or-text-blocks shape */
  if (rc)
    return rc;
  struct ock_message m = {.role = OCK_ROLE_SYSTEM, .content = text, .wire_index = -1};
  rc = push(out, &m);
  if (rc)
    ock_message_clear(&m);
  return rc;
}

/* push_or_clear moves m into out, or clears it when that fails. */
static int push_or_clear(struct ock_history *out, struct ock_message *m) {
  int rc = push(out, m);
  if (rc)
    ock_message_clear(m);
  return rc;
}

/* One Anthropic message being read: the message (user or assistant) with its calls, the
 * text of its text blocks so far, and where it sits in the wire's messages. */
struct anthropic_read {
  struct ock_history *out;
  struct ock_message m;
  struct ock_buf text;
  int is_user;
  struct ock_jerr *err;
};

/* anthropic_tool_use adds a tool_use block (at path bp) as a call. */
static int anthropic_tool_use(struct anthropic_read *r, const cJSON *blk, const char *bp) {
  const char *id = NULL, *name = NULL;
  int rc = ock_jget_string(blk, bp, "id", OCK_REQUIRED, &id, r->err);
  if (!rc)
    rc = ock_jget_string(blk, bp, "name", OCK_REQUIRED, &name, r->err);
  /* input is an object; the mock sends the raw text as a string when the model's arguments
   * were not a JSON object (SPEC.md 6.5), and that is what the call carries. */
  const cJSON *input = cJSON_GetObjectItemCaseSensitive(blk, "input");
  if (!rc && !cJSON_IsObject(input) && !cJSON_IsString(input)) {
    char ip[OCK_JSON_PATH_MAX];
    ock_jpath_key(ip, sizeof ip, bp, "input");
    rc = ock_jerr_set(r->err, input ? OCK_ETYPE : OCK_EMISSING, ip,
                      "expected an object (or the raw arguments as a string), got %s",
                      ock_json_type_name(input));
  }
  if (rc)
    return rc;
  struct ock_tool_call *calls = realloc(r->m.calls, (r->m.n_calls + 1) * sizeof *calls);
  if (!calls)
    return OCK_ENOMEM;
  r->m.calls = calls;
  struct ock_tool_call *tc = &r->m.calls[r->m.n_calls++];
  tc->id = strdup(id);
  tc->name = strdup(name);
  tc->arguments = cJSON_IsString(input) ? strdup(input->valuestring) : ock_json_print(input);
  return tc->id && tc->name && tc->arguments ? OCK_OK : OCK_ENOMEM;
}

/* anthropic_tool_result adds a tool_result block as a tool message. Text seen before it in the
 * same message goes first, as its own user message: the wire's order is what the validator
 * judges. */
static int anthropic_tool_result(struct anthropic_read *r, const cJSON *blk, const char *bp) {
  int rc = OCK_OK;
  if (r->text.len) {
    struct ock_message u = {
        .role = OCK_ROLE_USER, .content = ock_buf_take(&r->text), .wire_index = r->m.wire_index};
    rc = u.content ? push_or_clear(r->out, &u) : OCK_ENOMEM;
  }
  const char *id = NULL;
  if (!rc)
    rc = ock_jget_string(blk, bp, "tool_use_id", OCK_REQUIRED, &id, r->err);
  struct ock_message t = {.role = OCK_ROLE_TOOL, .wire_index = r->m.wire_index};
  char rp[OCK_JSON_PATH_MAX];
  ock_jpath_key(rp, sizeof rp, bp, "content");
  if (!rc) /* a string or an array of text blocks, as OpenAI's content */
    rc = openai_text(cJSON_GetObjectItemCaseSensitive(blk, "content"), rp, &t.content, r->err);
  if (!rc && !(t.tool_call_id = strdup(id)))
    rc = OCK_ENOMEM;
  t.is_error = ock_json_bool(blk, "is_error", 0);
  if (rc) {
    ock_message_clear(&t);
    return rc;
  }
  return push_or_clear(r->out, &t);
}

static int anthropic_block(struct anthropic_read *r, const cJSON *blk, const char *bp) {
  const char *type = NULL;
  int rc = ock_jcheck_object(blk, bp, r->err);
  if (!rc)
    rc = ock_jget_string(blk, bp, "type", OCK_REQUIRED, &type, r->err);
  if (rc)
    return rc;
  if (!strcmp(type, "text")) {
    const char *t = NULL;
    rc = ock_jget_string(blk, bp, "text", OCK_REQUIRED, &t, r->err);
    return rc ? rc : ock_buf_puts(&r->text, t);
  }
  if (!strcmp(type, "tool_use") && !r->is_user)
    return anthropic_tool_use(r, blk, bp);
  if (!strcmp(type, "tool_result") && r->is_user)
    return anthropic_tool_result(r, blk, bp);
  return OCK_OK; /* other block types (image, thinking, ...) carry no text or calls here */
}

/* anthropic_blocks reads an array content; the message itself is pushed last, when it has
 * text or calls left (or no blocks at all). */
static int anthropic_blocks(struct anthropic_read *r, const cJSON *content, const char *cp) {
  int rc = OCK_OK;
  const cJSON *blk = content->child; /* walked in step with b: GetArrayItem(b) would be O(b) */
  for (int b = 0; !rc && blk; b++, blk = blk->next) {
    char bp[OCK_JSON_PATH_MAX];
    ock_jpath_index(bp, sizeof bp, cp, b);
    rc = anthropic_block(r, blk, bp);
  }
  if (!rc && r->text.len && !(r->m.content = ock_buf_take(&r->text)))
    rc = OCK_ENOMEM;
  if (!rc && (r->m.content || r->m.n_calls || !content->child))
    return push_or_clear(r->out, &r->m);
  ock_message_clear(&r->m);
  return rc;
}

static int anthropic_role(const cJSON *jm, const char *path, int *is_user, struct ock_jerr *err) {
  const char *role = NULL;
  int rc = ock_jcheck_object(jm, path, err);
  if (!rc)
    rc = ock_jget_string(jm, path, "role", OCK_REQUIRED, &role, err);
  if (rc)
    return rc;
  *is_user = !strcmp(role, "user");
  if (*is_user || !strcmp(role, "assistant"))
    return OCK_OK;
  char rp[OCK_JSON_PATH_MAX];
  ock_jpath_key(rp, sizeof rp, path, "role");
  return ock_jerr_set(err, OCK_ETYPE, rp, "expected \"user\" or \"assistant\", got \"%.40s\"",
                      role);
}

static int anthropic_message(const cJSON *jm, int idx, struct ock_history *out,
                             struct ock_jerr *err) {
  char path[OCK_JSON_PATH_MAX], cp[OCK_JSON_PATH_MAX];
  ock_jpath_index(path, sizeof path, "$.messages", idx);
  struct anthropic_read r = {.out = out, .err = err};
  int rc = anthropic_role(jm, path, &r.is_user, err);
  if (rc)
    return rc;
  r.m.role = r.is_user ? OCK_ROLE_USER : OCK_ROLE_ASSISTANT;
  r.m.wire_index = idx;
  const cJSON *content = cJSON_GetObjectItemCaseSensitive(jm, "content");
  ock_jpath_key(cp, sizeof cp, path, "content");
  if (cJSON_IsString(content)) {
    r.m.content = strdup(content->valuestring);
    rc = r.m.content ? push(out, &r.m) : OCK_ENOMEM;
    if (rc)
      ock_message_clear(&r.m);
    return rc;
  }
  if (!cJSON_IsArray(content))
    return ock_jerr_set(err, OCK_ETYPE, cp, "expected a string or an array of blocks, got %s",
                        ock_json_type_name(content));
  ock_buf_init(&r.text, OCK_MAX_DERIVED_TEXT);
  rc = anthropic_blocks(&r, content, cp);
  ock_buf_free(&r.text);
  return rc;
}

int ock_history_from_anthropic(const cJSON *system, const cJSON *messages, struct ock_history *out,
                               struct ock_jerr *err) {
  int rc = anthropic_system(system, out, err);
  if (rc)
    return rc;
  if (!cJSON_IsArray(messages))
    return ock_jerr_set(err, OCK_ETYPE, "$.messages", "expected an array, got %s",
                        ock_json_type_name(messages));
  const cJSON *jm;
  int idx = 0;
  cJSON_ArrayForEach(jm, messages) {
    rc = anthropic_message(jm, idx++, out, err);
    if (rc)
      return rc;
  }
  return OCK_OK;
}

/* ---- replies --------------------------------------------------------------------------------- */

void ock_reply_init(struct ock_reply *r) {
  memset(r, 0, sizeof *r);
  r->msg.role = OCK_ROLE_ASSISTANT;
  r->msg.wire_index = -1;
  r->input_tokens = -1;
  r->output_tokens = -1;
}

void ock_reply_clear(struct ock_reply *r) {
  ock_message_clear(&r->msg);
  free(r->id);
  free(r->finish_reason);
  ock_reply_init(r);
}

/* ---- tool results -------------------------------------------------------------------------- */

char *ock_tool_result_text(const cJSON *tr) {
  const cJSON *output = cJSON_GetObjectItemCaseSensitive(tr, "output");
  const cJSON *error = cJSON_GetObjectItemCaseSensitive(tr, "error");
  int success = ock_json_bool(tr, "success", 1);
  if (!success) {
    const char *msg = ock_json_str(error, "message");
    struct ock_buf b;
    ock_buf_init(&b, OCK_MAX_DERIVED_TEXT);
    if (ock_buf_printf(&b, "Error: %s", msg && *msg ? msg : "unknown error")) {
      ock_buf_free(&b);
      return NULL;
    }
    return ock_buf_take(&b);
  }
  if (cJSON_IsString(output))
    return strdup(output->valuestring);
  if (!output)
    return strdup("null"); /* absent output is null, and null is compact JSON too */
  return ock_json_print(output);
}
