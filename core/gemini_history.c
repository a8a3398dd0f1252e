/*
 * gemini_history.c: a conversation as the Gemini API's `contents`, both ways (see gemini.h).
 *
 * The neutral history pairs a result with its call by id. Gemini 3 models issue an id with
 * every functionCall and expect it back in the functionResponse, but older models and many
 * clients send neither; the API then pairs a turn's responses with the calls of the turn right
 * before it by name and in order. The reader gives such parts the ids that pairing implies, so
 * the validator (mock-provider/validate.c) judges every history with one set of rules.
 */
#include "ock/caps.h"
#include "ock/gemini.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ock/status.h"
#include "wire_impl.h"

/* ---- writing -------------------------------------------------------------------------------- */

/* call_name: the name of the call that id answers, searched backwards from message `before`;
 * "" when no call has that id. */
static const char *call_name(const struct ock_history *h, size_t before, const char *id) {
  for (size_t i = before; id && i-- > 0;) {
    const struct ock_message *m = &h->items[i];
    for (size_t c = 0; c < m->n_calls; c++)
      if (m->calls[c].id && !strcmp(m->calls[c].id, id))
        return m->calls[c].name ? m->calls[c].name : "";
  }
  return "";
}

static cJSON *text_part(const char *text) {
  cJSON *p = cJSON_CreateObject();
  return ock__wire_built(p, cJSON_AddStringToObject(p, "text", text ? text : "") != NULL);
}

/* args_object: a call's arguments as an args object ({} for text that is not one). */
static cJSON *args_object(const char *arguments) {
  cJSON *v = arguments ? cJSON_Parse(arguments) : NULL;
  if (cJSON_IsObject(v))
    return v;
  cJSON_Delete(v);
  return cJSON_CreateObject();
}

static cJSON *turn(cJSON *contents, const char *role) {
  cJSON *t = cJSON_CreateObject();
  int ok = ock__wire_add(contents, NULL, t) && cJSON_AddStringToObject(t, "role", role);
  return ok ? cJSON_AddArrayToObject(t, "parts") : NULL;
}

/* model_turn: an assistant message as a model turn of text and functionCall parts. */
static int model_turn(cJSON *contents, const struct ock_message *m) {
  cJSON *parts = turn(contents, "model");
  int ok = parts != NULL;
  if (ok && ((m->content && *m->content) || !m->n_calls))
    ok = ock__wire_add(parts, NULL, text_part(m->content));
  for (size_t c = 0; ok && c < m->n_calls; c++) {
    cJSON *part = cJSON_CreateObject();
    cJSON *fc =
        ock__wire_add(parts, NULL, part) ? cJSON_AddObjectToObject(part, "functionCall") : NULL;
    ok = fc != NULL && (!m->calls[c].id || cJSON_AddStringToObject(fc, "id", m->calls[c].id)) &&
         ock__wire_add_str(fc, "name", m->calls[c].name ? m->calls[c].name : "") &&
         ock__wire_add(fc, "args", args_object(m->calls[c].arguments));
  }
  return ok;
}

/* add_response adds tool result i as a functionResponse part to *open (the parts of the user
 * turn collecting results, made on the first one). */
static int add_response(cJSON *contents, cJSON **open, const struct ock_history *h, size_t i) {
  const struct ock_message *m = &h->items[i];
  if (!*open && !(*open = turn(contents, "user")))
    return 0;
  cJSON *part = cJSON_CreateObject();
  cJSON *fr =
      ock__wire_add(*open, NULL, part) ? cJSON_AddObjectToObject(part, "functionResponse") : NULL;
  int ok = fr && (!m->tool_call_id || cJSON_AddStringToObject(fr, "id", m->tool_call_id)) &&
           cJSON_AddStringToObject(fr, "name", call_name(h, i, m->tool_call_id));
  cJSON *resp = ok ? cJSON_AddObjectToObject(fr, "response") : NULL;
  return resp && cJSON_AddStringToObject(resp, m->is_error ? "error" : "output",
                                         m->content ? m->content : "");
}

int ock_history_to_gemini(const struct ock_history *h, cJSON **out, cJSON **out_system) {
  cJSON *contents = cJSON_CreateArray();
  struct ock_buf sys;
  ock_buf_init(&sys, OCK_MAX_DERIVED_TEXT);
  int ok = contents != NULL;
  cJSON *open = NULL; /* the parts of the user turn collecting tool results */
  for (size_t i = 0; ok && i < h->len; i++) {
    const struct ock_message *m = &h->items[i];
    if (m->role == OCK_ROLE_SYSTEM) {
      ok = !(sys.len && ock_buf_puts(&sys, "\n\n")) &&
           !ock_buf_puts(&sys, m->content ? m->content : "");
    } else if (m->role == OCK_ROLE_TOOL) {
      ok = add_response(contents, &open, h, i);
    } else {
      open = NULL;
      cJSON *parts = m->role == OCK_ROLE_USER ? turn(contents, "user") : NULL;
      ok = m->role == OCK_ROLE_USER ? ock__wire_add(parts, NULL, text_part(m->content))
                                    : model_turn(contents, m);
    }
  }
  cJSON *system = NULL;
  if (ok && sys.len) {
    system = cJSON_CreateObject();
    cJSON *parts = system ? cJSON_AddArrayToObject(system, "parts") : NULL;
    ok = ock__wire_add(parts, NULL, text_part(sys.data));
  }
  ock_buf_free(&sys);
  if (!ok) {
    cJSON_Delete(contents);
    cJSON_Delete(system);
    return OCK_ENOMEM;
  }
  *out = contents;
  *out_system = system;
  return OCK_OK;
}

/* ---- reading -------------------------------------------------------------------------------- */

char *ock_gemini_response_text(const cJSON *response, int *is_error) {
  const cJSON *output = cJSON_GetObjectItemCaseSensitive(response, "output");
  const cJSON *error = cJSON_GetObjectItemCaseSensitive(response, "error");
  *is_error = 0;
  if (cJSON_IsString(error) && !output) {
    *is_error = 1;
    return strdup(error->valuestring);
  }
  if (cJSON_IsString(output) && !error)
    return strdup(output->valuestring);
  return response ? ock_json_print(response) : strdup("");
}

/* One turn being read. */
struct reader {
  const char *path;  /* $.contents[i] */
  int index;         /* i */
  const cJSON *prev; /* the turn before, or NULL */
  struct ock_history *out;
  struct ock_jerr *err;
};

/* texts appends the text of a part (not a thought) to buf. */
static int add_text(struct ock_buf *buf, const cJSON *part, int *has) {
  const cJSON *t = cJSON_GetObjectItemCaseSensitive(part, "text");
  if (!cJSON_IsString(t) || cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(part, "thought")))
    return OCK_OK;
  *has = 1;
  return ock_buf_puts(buf, t->valuestring);
}

/* part_object: the member key of a part when it is an object, checked; NULL when absent. */
static int part_object(const cJSON *part, const char *path, const char *key, const cJSON **out,
                       struct ock_jerr *err) {
  return ock_jget_object(part, path, key, OCK_OPTIONAL, out, err);
}

/* read_call reads a functionCall into c (k: its number among the turn's calls). */
static int read_call(const struct reader *r, const cJSON *fc, const char *path, int k,
                     struct ock_tool_call *c) {
  const char *name = NULL, *id = NULL;
  int rc = ock_jget_nonempty(fc, path, "name", OCK_REQUIRED, &name, r->err);
  if (!rc)
    rc = ock_jget_string(fc, path, "id", OCK_OPTIONAL, &id, r->err);
  if (rc)
    return rc;
  char made[64];
  if (!id || !*id) {
    snprintf(made, sizeof made, "ock-fc:%d.%d", r->index, k);
    id = made;
  }
  const cJSON *args = cJSON_GetObjectItemCaseSensitive(fc, "args");
  c->id = strdup(id);
  c->name = strdup(name);
  c->arguments = cJSON_IsString(args) ? strdup(args->valuestring)
                 : args               ? ock_json_print(args)
                                      : strdup("{}");
  return c->id && c->name && c->arguments ? OCK_OK : OCK_ENOMEM;
}

/* model_message reads a model turn as one assistant message. */
static int model_message(const struct reader *r, const cJSON *parts) {
  struct ock_message m = {.role = OCK_ROLE_ASSISTANT, .wire_index = r->index};
  struct ock_buf text;
  ock_buf_init(&text, OCK_MAX_DERIVED_TEXT);
  int rc = OCK_OK, has = 0, n = cJSON_GetArraySize(parts), k = 0;
  m.calls = calloc((size_t)(n ? n : 1), sizeof *m.calls);
  if (!m.calls)
    rc = OCK_ENOMEM;
  const cJSON *part;
  cJSON_ArrayForEach(part, parts) {
    char pp[OCK_JSON_PATH_MAX], fp[OCK_JSON_PATH_MAX];
    const cJSON *fc = NULL;
    ock_jpath_index(pp, sizeof pp, r->path, k + (int)m.n_calls);
    ock_jpath_key(fp, sizeof fp, pp, "functionCall");
    if (!rc)
      rc = part_object(part, pp, "functionCall", &fc, r->err);
    if (!rc && fc)
      rc = read_call(r, fc, fp, (int)m.n_calls, &m.calls[m.n_calls]);
    if (fc)
      m.n_calls++;
    else
      k++;
    if (!rc && !fc)
      rc = add_text(&text, part, &has);
  }
  if (!rc && has && !(m.content = ock_buf_take(&text)))
    rc = OCK_ENOMEM;
  ock_buf_free(&text);
  if (!m.n_calls) {
    free(m.calls);
    m.calls = NULL;
  }
  if (!rc)
    rc = ock_history_append_message(r->out, &m);
  ock_message_clear(&m);
  return rc;
}

/* answered: the effective id of the call of the turn before that a functionResponse without
 * an id answers (by name, the first not taken yet), or NULL. taken marks the calls used. */
static const char *answered(const struct reader *r, const char *name, unsigned char *taken,
                            char *buf, size_t n) {
  const cJSON *parts = cJSON_GetObjectItemCaseSensitive(r->prev, "parts");
  const char *role = ock_json_str(r->prev, "role");
  if (!role || strcmp(role, "model"))
    return NULL;
  int k = 0;
  const cJSON *part;
  cJSON_ArrayForEach(part, parts) {
    const cJSON *fc = cJSON_GetObjectItemCaseSensitive(part, "functionCall");
    if (!cJSON_IsObject(fc))
      continue;
    const char *cname = ock_json_str(fc, "name"), *id = ock_json_str(fc, "id");
    if (k < 256 && !taken[k] && cname && !strcmp(cname, name)) {
      taken[k] = 1;
      if (id && *id)
        return id;
      snprintf(buf, n, "ock-fc:%d.%d", r->index - 1, k);
      return buf;
    }
    k++;
  }
  return NULL;
}

/* read_response appends a functionResponse as a tool message (k: its number in the turn). */
static int read_response(const struct reader *r, const cJSON *fr, const char *path, int k,
                         unsigned char *taken) {
  const char *name = NULL, *id = NULL;
  const cJSON *response = NULL;
  int rc = ock_jget_nonempty(fr, path, "name", OCK_REQUIRED, &name, r->err);
  if (!rc)
    rc = ock_jget_string(fr, path, "id", OCK_OPTIONAL, &id, r->err);
  if (!rc)
    rc = ock_jget_object(fr, path, "response", OCK_OPTIONAL, &response, r->err);
  if (rc)
    return rc;
  char buf[64];
  if (!id || !*id)
    id = answered(r, name, taken, buf, sizeof buf);
  if (!id) {
    snprintf(buf, sizeof buf, "ock-fr:%d.%d", r->index, k);
    id = buf;
  }
  struct ock_message m = {.role = OCK_ROLE_TOOL, .wire_index = r->index};
  m.content = ock_gemini_response_text(response, &m.is_error);
  m.tool_call_id = strdup(id);
  rc = m.content && m.tool_call_id ? ock_history_append_message(r->out, &m) : OCK_ENOMEM;
  ock_message_clear(&m);
  return rc;
}

/* flush_text appends the text read so far as a user message. */
static int flush_text(const struct reader *r, struct ock_buf *text, int *has) {
  if (!*has)
    return OCK_OK;
  *has = 0;
  struct ock_message m = {.role = OCK_ROLE_USER, .wire_index = r->index, .content = text->data};
  int rc = ock_history_append_message(r->out, &m);
  text->len = 0;
  if (text->data)
    text->data[0] = '\0';
  return rc;
}

/* user_messages reads a user turn: runs of text as user messages, each functionResponse as a
 * tool message, in part order. */
static int user_messages(const struct reader *r, const cJSON *parts) {
  struct ock_buf text;
  ock_buf_init(&text, OCK_MAX_DERIVED_TEXT);
  unsigned char taken[256] = {0};
  int rc = OCK_OK, has = 0, i = 0, k = 0;
  const cJSON *part;
  cJSON_ArrayForEach(part, parts) {
    char pp[OCK_JSON_PATH_MAX], fp[OCK_JSON_PATH_MAX];
    const cJSON *fr = NULL;
    ock_jpath_index(pp, sizeof pp, r->path, i++);
    ock_jpath_key(fp, sizeof fp, pp, "functionResponse");
    if (!rc)
      rc = part_object(part, pp, "functionResponse", &fr, r->err);
    if (!rc && fr) {
      rc = flush_text(r, &text, &has);
      if (!rc)
        rc = read_response(r, fr, fp, k++, taken);
    } else if (!rc) {
      rc = add_text(&text, part, &has);
    }
  }
  if (!rc)
    rc = flush_text(r, &text, &has);
  ock_buf_free(&text);
  return rc;
}

static int read_turn(struct reader *r, const cJSON *c) {
  static const char *const roles[] = {"user", "model", NULL};
  char parts_path[OCK_JSON_PATH_MAX];
  const cJSON *parts = NULL;
  int role = 0;
  int rc = ock_jcheck_object(c, r->path, r->err);
  if (!rc && cJSON_GetObjectItemCaseSensitive(c, "role"))
    rc = ock_jget_enum(c, r->path, "role", OCK_REQUIRED, roles, &role, r->err);
  if (!rc)
    rc = ock_jget_array(c, r->path, "parts", OCK_REQUIRED, &parts, r->err);
  if (rc)
    return rc;
  ock_jpath_key(parts_path, sizeof parts_path, r->path, "parts");
  if (!cJSON_GetArraySize(parts))
    return ock_jerr_set(r->err, OCK_EINVAL, parts_path, "contents.parts must not be empty.");
  r->path = parts_path;
  return role ? model_message(r, parts) : user_messages(r, parts);
}

static int read_system(const cJSON *system, struct ock_history *out, struct ock_jerr *err) {
  const cJSON *parts = cJSON_GetObjectItemCaseSensitive(system, "parts");
  if (!cJSON_IsArray(parts))
    return ock_jerr_set(err, OCK_ETYPE, "$.systemInstruction.parts", "expected an array of parts");
  struct ock_buf text;
  ock_buf_init(&text, OCK_MAX_DERIVED_TEXT);
  int has = 0, rc = OCK_OK;
  const cJSON *part;
  cJSON_ArrayForEach(part, parts) {
    if (!rc)
      rc = add_text(&text, part, &has);
  }
  struct ock_message m = {.role = OCK_ROLE_SYSTEM, .wire_index = -1, .content = text.data};
  if (!rc && has)
    rc = ock_history_append_message(out, &m);
  ock_buf_free(&text);
  return rc;
}

int ock_history_from_gemini(const cJSON *system, const cJSON *contents, struct ock_history *out,
                            struct ock_jerr *err) {
  int rc = system ? read_system(system, out, err) : OCK_OK;
  const cJSON *c, *prev = NULL;
  int i = 0;
  cJSON_ArrayForEach(c, contents) {
    char path[OCK_JSON_PATH_MAX];
    ock_jpath_index(path, sizeof path, "$.contents", i);
    struct reader r = {path, i, prev, out, err};
    if (!rc)
      rc = read_turn(&r, c);
    prev = c;
    i++;
  }
  return rc;
}
