/*
 * message.c: the neutral message model and its OpenAI / Anthropic wire forms (see message.h).
 *
 * Pure data mapping: no I/O. The wire readers are strict about shape (a user message whose
 * content is a number is an error naming its path) because the mock uses them to judge what a
 * SUT sent, and lenient about what the APIs allow (content null with tool calls, content as
 * an array of text parts).
 */
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

/* ---- to the wire --------------------------------------------------------------------------- */

/* add_str adds a string member, or null when s is NULL. Returns 0 when out of memory. */
static int add_str(cJSON *obj, const char *key, const char *s) {
  return s ? cJSON_AddStringToObject(obj, key, s) != NULL : cJSON_AddNullToObject(obj, key) != NULL;
}

/* put appends a fixed piece of JSON text; str a JSON string (NULL: null). Both return 0 on
 * success, so a message is written as one chain of ||. */
static int put(struct ock_buf *b, const char *text) {
  return ock_buf_puts(b, text);
}

static int str(struct ock_buf *b, const char *s) {
  return ock_json_write_string(b, s);
}

int ock_history_write_openai(const struct ock_history *h, struct ock_buf *out) {
  int rc = put(out, "[");
  for (size_t i = 0; !rc && i < h->len; i++) {
    const struct ock_message *m = &h->items[i];
    rc = (i && put(out, ",")) || put(out, "{\"role\":") || str(out, ock_role_name(m->role)) ||
         put(out, ",\"content\":");
    if (rc)
      break;
    if (m->role == OCK_ROLE_ASSISTANT && m->n_calls) {
      rc = str(out, m->content) || put(out, ",\"tool_calls\":[");
      for (size_t c = 0; !rc && c < m->n_calls; c++) {
        const struct ock_tool_call *tc = &m->calls[c];
        rc = (c && put(out, ",")) || put(out, "{\"id\":") || str(out, tc->id) ||
             put(out, ",\"type\":\"function\",\"function\":{\"name\":") || str(out, tc->name) ||
             put(out, ",\"arguments\":") || str(out, tc->arguments ? tc->arguments : "{}") ||
             put(out, "}}");
      }
      rc = rc || put(out, "]");
    } else {
      rc = str(out, m->content ? m->content : "");
      if (!rc && m->role == OCK_ROLE_TOOL)
        rc = put(out, ",\"tool_call_id\":") || str(out, m->tool_call_id);
    }
    rc = rc || put(out, "}");
  }
  rc = rc || put(out, "]");
  return rc ? OCK_ENOMEM : OCK_OK;
}

int ock_history_to_openai(const struct ock_history *h, cJSON **out) {
  struct ock_buf text;
  ock_buf_init(&text, (size_t)-1 / 2);
  int rc = ock_history_write_openai(h, &text);
  cJSON *arr = rc ? NULL : cJSON_ParseWithLength(text.data, text.len);
  ock_buf_free(&text);
  if (!arr)
    return OCK_ENOMEM;
  *out = arr;
  return OCK_OK;
}

/* tool_input parses a call's arguments into an object for Anthropic's tool_use.input. */
static cJSON *tool_input(const char *arguments) {
  cJSON *v = arguments ? cJSON_Parse(arguments) : NULL;
  if (cJSON_IsObject(v))
    return v;
  cJSON_Delete(v);
  return cJSON_CreateObject();
}

/* add_tool_uses appends a tool_use block per call to an Anthropic content array. Returns 1 on
 * success, 0 when out of memory. */
static int add_tool_uses(cJSON *content, const struct ock_tool_call *calls, size_t n) {
  int ok = 1;
  for (size_t c = 0; ok && c < n; c++) {
    cJSON *b = cJSON_CreateObject();
    ok = b && cJSON_AddItemToArray(content, b) && add_str(b, "type", "tool_use") &&
         add_str(b, "id", calls[c].id) && add_str(b, "name", calls[c].name);
    cJSON *in = ok ? tool_input(calls[c].arguments) : NULL;
    ok = in && cJSON_AddItemToObject(b, "input", in);
    if (!ok)
      cJSON_Delete(in); /* not taken by b */
  }
  return ok;
}

int ock_history_to_anthropic(const struct ock_history *h, cJSON **out, char **out_system) {
  cJSON *arr = cJSON_CreateArray();
  struct ock_buf sys;
  ock_buf_init(&sys, (size_t)1 << 30);
  int ok = arr != NULL;
  cJSON *open_results = NULL; /* content array of the user message collecting tool results */
  for (size_t i = 0; ok && i < h->len; i++) {
    const struct ock_message *m = &h->items[i];
    if (m->role == OCK_ROLE_SYSTEM) {
      ok = !(sys.len && ock_buf_puts(&sys, "\n\n")) &&
           !ock_buf_puts(&sys, m->content ? m->content : "");
      continue;
    }
    if (m->role == OCK_ROLE_TOOL) {
      if (!open_results) {
        cJSON *u = cJSON_CreateObject();
        ok = u && cJSON_AddItemToArray(arr, u) && add_str(u, "role", "user");
        open_results = ok ? cJSON_AddArrayToObject(u, "content") : NULL;
        ok = open_results != NULL;
      }
      cJSON *b = ok ? cJSON_CreateObject() : NULL;
      ok = b && cJSON_AddItemToArray(open_results, b) && add_str(b, "type", "tool_result") &&
           add_str(b, "tool_use_id", m->tool_call_id) &&
           add_str(b, "content", m->content ? m->content : "");
      if (ok && m->is_error)
        ok = cJSON_AddTrueToObject(b, "is_error") != NULL;
      continue;
    }
    open_results = NULL;
    cJSON *o = cJSON_CreateObject();
    ok = o && cJSON_AddItemToArray(arr, o) && add_str(o, "role", ock_role_name(m->role));
    if (!ok)
      break;
    if (m->role == OCK_ROLE_ASSISTANT && m->n_calls) {
      cJSON *content = cJSON_AddArrayToObject(o, "content");
      ok = content != NULL;
      if (ok && m->content && *m->content) {
        cJSON *t = cJSON_CreateObject();
        ok = t && cJSON_AddItemToArray(content, t) && add_str(t, "type", "text") &&
             add_str(t, "text", m->content);
      }
      ok = ok && add_tool_uses(content, m->calls, m->n_calls);
    } else {
      ok = add_str(o, "content", m->content ? m->content : "");
    }
  }
  if (!ok) {
    cJSON_Delete(arr);
    ock_buf_free(&sys);
    return OCK_ENOMEM;
  }
  *out = arr;
  *out_system = sys.len ? ock_buf_take(&sys) : NULL;
  ock_buf_free(&sys);
  return OCK_OK;
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
  ock_buf_init(&b, (size_t)1 << 30);
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

int ock_history_from_openai(const cJSON *messages, struct ock_history *out, struct ock_jerr *err) {
  if (!cJSON_IsArray(messages))
    return ock_jerr_set(err, OCK_ETYPE, "$.messages", "expected an array, got %s",
                        ock_json_type_name(messages));
  const cJSON *jm;
  int idx = 0;
  cJSON_ArrayForEach(jm, messages) {
    char path[OCK_JSON_PATH_MAX], cp[OCK_JSON_PATH_MAX];
    ock_jpath_index(path, sizeof path, "$.messages", idx);
    struct ock_message m = {.wire_index = idx++};
    const char *role = NULL, *tcid = NULL;
    int rc = ock_jcheck_object(jm, path, err);
    if (!rc)
      rc = ock_jget_string(jm, path, "role", OCK_REQUIRED, &role, err);
    if (!rc && ock_role_parse(role, &m.role)) {
      char rp[OCK_JSON_PATH_MAX];
      ock_jpath_key(rp, sizeof rp, path, "role");
      rc = ock_jerr_set(err, OCK_ETYPE, rp,
                        "expected one of \"system\", \"developer\", \"user\", \"assistant\", "
                        "\"tool\", got \"%.40s\"",
                        role);
    }
    ock_jpath_key(cp, sizeof cp, path, "content");
    if (!rc)
      rc = openai_text(cJSON_GetObjectItemCaseSensitive(jm, "content"), cp, &m.content, err);
    if (!rc && m.role == OCK_ROLE_TOOL) {
      rc = ock_jget_string(jm, path, "tool_call_id", OCK_REQUIRED, &tcid, err);
      if (!rc && !(m.tool_call_id = strdup(tcid)))
        rc = OCK_ENOMEM;
    }
    const cJSON *calls = NULL;
    if (!rc && m.role == OCK_ROLE_ASSISTANT)
      rc = ock_jget_array(jm, path, "tool_calls", OCK_OPTIONAL, &calls, err);
    if (!rc && calls && cJSON_GetArraySize(calls) > 0) {
      int n = cJSON_GetArraySize(calls);
      m.calls = calloc((size_t)n, sizeof *m.calls);
      rc = m.calls ? OCK_OK : OCK_ENOMEM;
      char tp[OCK_JSON_PATH_MAX], fp[OCK_JSON_PATH_MAX];
      ock_jpath_key(tp, sizeof tp, path, "tool_calls");
      const cJSON *tc = calls->child;
      for (int c = 0; !rc && c < n && tc; c++, tc = tc->next) {
        const cJSON *fn = NULL;
        const char *id = NULL, *name = NULL, *args = NULL;
        char ip[OCK_JSON_PATH_MAX];
        ock_jpath_index(ip, sizeof ip, tp, c);
        m.n_calls = (size_t)c + 1;
        rc = ock_jcheck_object(tc, ip, err);
        if (!rc)
          rc = ock_jget_string(tc, ip, "id", OCK_REQUIRED, &id, err);
        if (!rc)
          rc = ock_jget_object(tc, ip, "function", OCK_REQUIRED, &fn, err);
        ock_jpath_key(fp, sizeof fp, ip, "function");
        if (!rc)
          rc = ock_jget_string(fn, fp, "name", OCK_REQUIRED, &name, err);
        if (!rc)
          rc = ock_jget_string(fn, fp, "arguments", OCK_OPTIONAL, &args, err);
        if (!rc) {
          m.calls[c].id = strdup(id);
          m.calls[c].name = strdup(name);
          m.calls[c].arguments = strdup(args ? args : "{}");
          if (!m.calls[c].id || !m.calls[c].name || !m.calls[c].arguments)
            rc = OCK_ENOMEM;
        }
      }
    }
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

/* anthropic_block_text reads a tool_result's content: a string or an array of text blocks. */
static int anthropic_result_text(const cJSON *content, const char *path, char **out,
                                 struct ock_jerr *err) {
  return openai_text(content, path, out, err);
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
    char path[OCK_JSON_PATH_MAX], cp[OCK_JSON_PATH_MAX];
    int wire = idx;
    ock_jpath_index(path, sizeof path, "$.messages", idx++);
    const char *role = NULL;
    int is_user = 0;
    int is_assistant = 0;
    rc = ock_jcheck_object(jm, path, err);
    if (!rc)
      rc = ock_jget_string(jm, path, "role", OCK_REQUIRED, &role, err);
    if (!rc) {
      is_user = !strcmp(role, "user");
      is_assistant = !strcmp(role, "assistant");
      if (!is_user && !is_assistant) {
        char rp[OCK_JSON_PATH_MAX];
        ock_jpath_key(rp, sizeof rp, path, "role");
        rc = ock_jerr_set(err, OCK_ETYPE, rp, "expected \"user\" or \"assistant\", got \"%.40s\"",
                          role);
      }
    }
    if (rc)
      return rc;
    const cJSON *content = cJSON_GetObjectItemCaseSensitive(jm, "content");
    ock_jpath_key(cp, sizeof cp, path, "content");
    struct ock_message m = {.role = is_user ? OCK_ROLE_USER : OCK_ROLE_ASSISTANT,
                            .wire_index = wire};
    if (cJSON_IsString(content)) {
      m.content = strdup(content->valuestring);
      rc = m.content ? push(out, &m) : OCK_ENOMEM;
      if (rc)
        ock_message_clear(&m);
      if (rc)
        return rc;
      continue;
    }
    if (!cJSON_IsArray(content))
      return ock_jerr_set(err, OCK_ETYPE, cp, "expected a string or an array of blocks, got %s",
                          ock_json_type_name(content));
    struct ock_buf text;
    ock_buf_init(&text, (size_t)1 << 30);
    int nblocks = cJSON_GetArraySize(content);
    const cJSON *blk = content->child; /* walked in step with b: GetArrayItem(b) would be O(b) */
    for (int b = 0; !rc && blk; b++, blk = blk->next) {
      char bp[OCK_JSON_PATH_MAX];
      ock_jpath_index(bp, sizeof bp, cp, b);
      const char *type = NULL;
      rc = ock_jcheck_object(blk, bp, err);
      if (!rc)
        rc = ock_jget_string(blk, bp, "type", OCK_REQUIRED, &type, err);
      if (rc)
        break;
      if (!strcmp(type, "text")) {
        const char *t = NULL;
        rc = ock_jget_string(blk, bp, "text", OCK_REQUIRED, &t, err);
        if (!rc)
          rc = ock_buf_puts(&text, t);
      } else if (!strcmp(type, "tool_use") && is_assistant) {
        const char *id = NULL, *name = NULL;
        const cJSON *input = NULL;
        rc = ock_jget_string(blk, bp, "id", OCK_REQUIRED, &id, err);
        if (!rc)
          rc = ock_jget_string(blk, bp, "name", OCK_REQUIRED, &name, err);
        /* input is an object; the mock sends the raw text as a string when the model's
         * arguments were not a JSON object (SPEC.md 6.5), and that is what the call carries. */
        input = cJSON_GetObjectItemCaseSensitive(blk, "input");
        if (!rc && !cJSON_IsObject(input) && !cJSON_IsString(input)) {
          char ip[OCK_JSON_PATH_MAX];
          ock_jpath_key(ip, sizeof ip, bp, "input");
          rc = ock_jerr_set(err, input ? OCK_ETYPE : OCK_EMISSING, ip,
                            "expected an object (or the raw arguments as a string), got %s",
                            ock_json_type_name(input));
        }
        if (!rc) {
          struct ock_tool_call *calls = realloc(m.calls, (m.n_calls + 1) * sizeof *calls);
          if (!calls) {
            rc = OCK_ENOMEM;
            break;
          }
          m.calls = calls;
          struct ock_tool_call *tc = &m.calls[m.n_calls++];
          tc->id = strdup(id);
          tc->name = strdup(name);
          tc->arguments =
              cJSON_IsString(input) ? strdup(input->valuestring) : ock_json_print(input);
          if (!tc->id || !tc->name || !tc->arguments)
            rc = OCK_ENOMEM;
        }
      } else if (!strcmp(type, "tool_result") && is_user) {
        /* Text seen before a tool_result in the same message stays first, as the wire has it. */
        if (text.len) {
          struct ock_message u = {
              .role = OCK_ROLE_USER, .content = ock_buf_take(&text), .wire_index = wire};
          rc = u.content ? push(out, &u) : OCK_ENOMEM;
          if (rc)
            ock_message_clear(&u);
        }
        const char *id = NULL;
        if (!rc)
          rc = ock_jget_string(blk, bp, "tool_use_id", OCK_REQUIRED, &id, err);
        struct ock_message r = {.role = OCK_ROLE_TOOL, .wire_index = wire};
        char rp[OCK_JSON_PATH_MAX];
        ock_jpath_key(rp, sizeof rp, bp, "content");
        if (!rc)
          rc = anthropic_result_text(cJSON_GetObjectItemCaseSensitive(blk, "content"), rp,
                                     &r.content, err);
        if (!rc && !(r.tool_call_id = strdup(id)))
          rc = OCK_ENOMEM;
        r.is_error = ock_json_bool(blk, "is_error", 0);
        if (!rc)
          rc = push(out, &r);
        if (rc)
          ock_message_clear(&r);
      }
      /* Other block types (image, thinking, ...) carry no text or calls for this model. */
    }
    if (!rc && (text.len || m.n_calls || nblocks == 0 || !(is_user))) {
      if (text.len && !(m.content = ock_buf_take(&text)))
        rc = OCK_ENOMEM;
      if (!rc && (m.content || m.n_calls || nblocks == 0))
        rc = push(out, &m);
      else
        ock_message_clear(&m);
    } else {
      ock_message_clear(&m);
    }
    ock_buf_free(&text);
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

/* reply_names copies the reply's id and finish reason (each may be NULL) into r; when out of
 * memory it clears r and returns OCK_ENOMEM. */
static int reply_names(struct ock_reply *r, const char *id, const char *finish) {
  r->id = dup_or_null(id);
  r->finish_reason = dup_or_null(finish);
  if ((id && !r->id) || (finish && !r->finish_reason)) {
    ock_reply_clear(r);
    return OCK_ENOMEM;
  }
  return OCK_OK;
}

int ock_reply_from_openai(const cJSON *body, struct ock_reply *out, struct ock_jerr *err) {
  const cJSON *choices = NULL, *choice, *message = NULL, *usage = NULL;
  const char *id = NULL, *finish = NULL;
  int rc = ock_jcheck_object(body, "$", err);
  if (!rc)
    rc = ock_jget_array(body, "$", "choices", OCK_REQUIRED, &choices, err);
  if (!rc && cJSON_GetArraySize(choices) < 1)
    rc = ock_jerr_set(err, OCK_ETYPE, "$.choices", "expected at least one choice, got none");
  if (rc)
    return rc == OCK_ENOMEM ? rc : OCK_EPROTO;
  choice = cJSON_GetArrayItem(choices, 0);
  rc = ock_jcheck_object(choice, "$.choices[0]", err);
  if (!rc)
    rc = ock_jget_object(choice, "$.choices[0]", "message", OCK_REQUIRED, &message, err);
  if (!rc)
    rc = ock_jget_string(body, "$", "id", OCK_OPTIONAL, &id, err);
  if (!rc && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(choice, "finish_reason")))
    finish = cJSON_GetObjectItemCaseSensitive(choice, "finish_reason")->valuestring;
  if (rc)
    return rc == OCK_ENOMEM ? rc : OCK_EPROTO;
  /* Read the message as a one-element history, so both paths share one reader. */
  cJSON *arr = cJSON_CreateArray();
  cJSON *copy = cJSON_Duplicate(message, 1);
  if (!arr || !copy || !cJSON_AddItemToArray(arr, copy)) {
    cJSON_Delete(arr);
    cJSON_Delete(copy);
    return OCK_ENOMEM;
  }
  if (!cJSON_GetObjectItemCaseSensitive(copy, "role") &&
      !cJSON_AddStringToObject(copy, "role", "assistant")) {
    cJSON_Delete(arr);
    return OCK_ENOMEM;
  }
  struct ock_history h;
  ock_history_init(&h);
  rc = ock_history_from_openai(arr, &h, err);
  cJSON_Delete(arr);
  if (!rc && (h.len != 1 || h.items[0].role != OCK_ROLE_ASSISTANT))
    rc = ock_jerr_set(err, OCK_ETYPE, "$.choices[0].message.role", "expected \"assistant\"");
  if (rc) {
    ock_history_free(&h);
    return rc == OCK_ENOMEM ? rc : OCK_EPROTO;
  }
  struct ock_reply r;
  ock_reply_init(&r);
  r.msg = h.items[0];
  r.msg.wire_index = -1;
  h.len = 0;
  ock_history_free(&h);
  if (reply_names(&r, id, finish))
    return OCK_ENOMEM;
  usage = cJSON_GetObjectItemCaseSensitive(body, "usage");
  r.input_tokens = ock_json_int(usage, "prompt_tokens", -1);
  r.output_tokens = ock_json_int(usage, "completion_tokens", -1);
  *out = r;
  return OCK_OK;
}

/* assistant_messages: [{"role":"assistant","content": a copy of content}], or NULL when out of
 * memory, so that a reply's content is read by the history reader. */
static cJSON *assistant_messages(const cJSON *content) {
  cJSON *msgs = cJSON_CreateArray();
  cJSON *msg = cJSON_CreateObject();
  cJSON *copy = cJSON_Duplicate(content, 1);
  int ok = msgs && msg && copy && cJSON_AddStringToObject(msg, "role", "assistant") &&
           cJSON_AddItemToObject(msg, "content", copy);
  if (ok)
    copy = NULL; /* msg owns it */
  ok = ok && cJSON_AddItemToArray(msgs, msg);
  if (!ok) {
    cJSON_Delete(copy);
    cJSON_Delete(msg);
    cJSON_Delete(msgs);
    return NULL;
  }
  return msgs;
}

int ock_reply_from_anthropic(const cJSON *body, struct ock_reply *out, struct ock_jerr *err) {
  const char *id = NULL, *stop = NULL, *type = NULL;
  const cJSON *content = NULL;
  int rc = ock_jcheck_object(body, "$", err);
  if (!rc)
    rc = ock_jget_string(body, "$", "type", OCK_OPTIONAL, &type, err);
  if (!rc && type && strcmp(type, "message"))
    rc = ock_jerr_set(err, OCK_ETYPE, "$.type", "expected \"message\", got \"%.40s\"", type);
  if (!rc)
    rc = ock_jget_array(body, "$", "content", OCK_REQUIRED, &content, err);
  if (!rc)
    rc = ock_jget_string(body, "$", "id", OCK_OPTIONAL, &id, err);
  if (!rc && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(body, "stop_reason")))
    stop = cJSON_GetObjectItemCaseSensitive(body, "stop_reason")->valuestring;
  if (rc)
    return rc == OCK_ENOMEM ? rc : OCK_EPROTO;
  cJSON *msgs = assistant_messages(content);
  if (!msgs)
    return OCK_ENOMEM;
  struct ock_history h;
  ock_history_init(&h);
  rc = ock_history_from_anthropic(NULL, msgs, &h, err);
  cJSON_Delete(msgs);
  if (rc) {
    ock_history_free(&h);
    /* Paths in err refer to the synthetic wrapper; point at the body's content instead. */
    if (err && rc != OCK_ENOMEM) {
      char where[sizeof err->where];
      const char *tail = strstr(err->where, ".content");
      snprintf(where, sizeof where, "$%s", tail ? tail : "");
      memcpy(err->where, where, sizeof where);
    }
    return rc == OCK_ENOMEM ? rc : OCK_EPROTO;
  }
  struct ock_reply r;
  ock_reply_init(&r);
  if (h.len == 1) {
    r.msg = h.items[0];
    h.len = 0;
  }
  r.msg.wire_index = -1;
  ock_history_free(&h);
  if (reply_names(&r, id, stop))
    return OCK_ENOMEM;
  const cJSON *usage = cJSON_GetObjectItemCaseSensitive(body, "usage");
  r.input_tokens = ock_json_int(usage, "input_tokens", -1);
  r.output_tokens = ock_json_int(usage, "output_tokens", -1);
  *out = r;
  return OCK_OK;
}

int ock_reply_to_openai(const struct ock_reply *r, const char *model, long long created,
                        cJSON **out) {
  struct ock_history h = {.items = (struct ock_message *)&r->msg, .len = 1, .cap = 1};
  cJSON *msgs = NULL;
  int rc = ock_history_to_openai(&h, &msgs);
  if (rc)
    return rc;
  cJSON *message = cJSON_DetachItemFromArray(msgs, 0);
  cJSON_Delete(msgs);
  cJSON *body = cJSON_CreateObject();
  cJSON *choices = body ? cJSON_AddArrayToObject(body, "choices") : NULL;
  cJSON *choice = cJSON_CreateObject();
  const char *finish =
      r->finish_reason ? r->finish_reason : (r->msg.n_calls ? "tool_calls" : "stop");
  cJSON *usage = cJSON_CreateObject();
  long long in = r->input_tokens < 0 ? 0 : r->input_tokens;
  long long outt = r->output_tokens < 0 ? 0 : r->output_tokens;
  int ok = message && body && choices && choice && usage && add_str(body, "id", r->id) &&
           add_str(body, "object", "chat.completion") &&
           cJSON_AddNumberToObject(body, "created", (double)created) &&
           add_str(body, "model", model) && cJSON_AddItemToArray(choices, choice) &&
           cJSON_AddNumberToObject(choice, "index", 0) &&
           cJSON_AddItemToObject(choice, "message", message) &&
           cJSON_AddNullToObject(choice, "logprobs") && add_str(choice, "finish_reason", finish) &&
           cJSON_AddItemToObject(body, "usage", usage) &&
           cJSON_AddNumberToObject(usage, "prompt_tokens", (double)in) &&
           cJSON_AddNumberToObject(usage, "completion_tokens", (double)outt) &&
           cJSON_AddNumberToObject(usage, "total_tokens", (double)(in + outt));
  if (!ok) {
    if (!(choice && cJSON_GetObjectItem(choice, "message")))
      cJSON_Delete(message);
    if (!(choices && cJSON_GetArraySize(choices)))
      cJSON_Delete(choice);
    if (!(body && cJSON_GetObjectItem(body, "usage")))
      cJSON_Delete(usage);
    cJSON_Delete(body);
    return OCK_ENOMEM;
  }
  *out = body;
  return OCK_OK;
}

int ock_reply_to_anthropic(const struct ock_reply *r, const char *model, cJSON **out) {
  cJSON *body = cJSON_CreateObject();
  cJSON *content = body ? cJSON_CreateArray() : NULL;
  int ok = body && content && cJSON_AddItemToObject(body, "content", content);
  if (!ok)
    cJSON_Delete(content);
  if (ok && r->msg.content && *r->msg.content) {
    cJSON *t = cJSON_CreateObject();
    ok = t && cJSON_AddItemToArray(content, t) && add_str(t, "type", "text") &&
         add_str(t, "text", r->msg.content);
  }
  ok = ok && add_tool_uses(content, r->msg.calls, r->msg.n_calls);
  const char *stop =
      r->finish_reason ? r->finish_reason : (r->msg.n_calls ? "tool_use" : "end_turn");
  cJSON *usage = ok ? cJSON_CreateObject() : NULL;
  ok = ok && usage && add_str(body, "id", r->id) && add_str(body, "type", "message") &&
       add_str(body, "role", "assistant") && add_str(body, "model", model) &&
       add_str(body, "stop_reason", stop) && cJSON_AddNullToObject(body, "stop_sequence") &&
       cJSON_AddItemToObject(body, "usage", usage) &&
       cJSON_AddNumberToObject(usage, "input_tokens",
                               (double)(r->input_tokens < 0 ? 0 : r->input_tokens)) &&
       cJSON_AddNumberToObject(usage, "output_tokens",
                               (double)(r->output_tokens < 0 ? 0 : r->output_tokens));
  if (!ok) {
    if (usage && !cJSON_GetObjectItem(body, "usage"))
      cJSON_Delete(usage);
    cJSON_Delete(body);
    return OCK_ENOMEM;
  }
  /* Put content after the header fields, where the real API has it. */
  cJSON_DetachItemViaPointer(body, content);
  if (!cJSON_AddItemToObject(body, "content", content)) {
    cJSON_Delete(content);
    cJSON_Delete(body);
    return OCK_ENOMEM;
  }
  *out = body;
  return OCK_OK;
}

/* ---- tool results -------------------------------------------------------------------------- */

char *ock_tool_result_text(const cJSON *tr) {
  const cJSON *output = cJSON_GetObjectItemCaseSensitive(tr, "output");
  const cJSON *error = cJSON_GetObjectItemCaseSensitive(tr, "error");
  int success = ock_json_bool(tr, "success", 1);
  if (!success) {
    const char *msg = ock_json_str(error, "message");
    struct ock_buf b;
    ock_buf_init(&b, (size_t)1 << 30);
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
