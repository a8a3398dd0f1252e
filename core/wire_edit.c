/*
 * wire_edit.c: history edits on a request body of either wire (see "history edits" in wire.h).
 *
 * The wires' tables say where things sit (find_results, find_calls, is_call, result_id_key);
 * the edits here work on those places, so one edit makes the same broken shape on both wires.
 * Where the shapes differ beyond that (a text block inside the results' user message, the
 * top-level system field, an arguments text against an input object) the edit says so.
 */
#include "wire_impl.h"
#include "ock/caps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The most text moved into Anthropic's system field at once. */
#define SYSTEM_TEXT_MAX ((size_t)1 << 20)

const char *ock__wire_str(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) ? v->valuestring : "";
}

/* array_or_null: a, when it is an array (cJSON_ArrayForEach walks the children of anything). */
static const cJSON *array_or_null(const cJSON *a) {
  return cJSON_IsArray(a) ? a : NULL;
}

cJSON *ock__wire_messages(const cJSON *body) {
  cJSON *m = cJSON_GetObjectItemCaseSensitive(body, "messages");
  if (!m) /* the Responses API: its message items sit in input, between the call items */
    m = cJSON_GetObjectItemCaseSensitive(body, "input");
  if (!m) /* Gemini's turns */
    m = cJSON_GetObjectItemCaseSensitive(body, "contents");
  return cJSON_IsArray(m) ? m : NULL;
}

/* result_text: a result's text into buf (a Responses output may be a string or parts). */
static const char *result_text(const struct ock_wire_result *r, const struct ock_wire_ops *w,
                               char *buf, size_t n) {
  if (w->wire != OCK_WIRE_RESPONSES)
    return ock_wire_text_of(r->item, buf, n);
  snprintf(buf, n, "%s", ock__wire_str(r->item, "output"));
  return buf;
}

/* is_gemini: the body is a Gemini request (its turns are "contents" of "parts"). */
static int is_gemini(const cJSON *body) {
  return cJSON_HasObjectItem(body, "contents") && !cJSON_HasObjectItem(body, "messages");
}

/* role_is: message m has role; Gemini's "model" is the role "assistant". */
static int role_is(const cJSON *m, const char *role) {
  const char *r = ock__wire_str(m, "role");
  return !strcmp(r, role) || (!strcmp(role, "assistant") && !strcmp(r, "model"));
}

/* same_group: two results answer the same assistant message. */
static int same_group(const struct ock_wire_result *a, const struct ock_wire_result *b,
                      const struct ock_wire_ops *w) {
  if (w->wire == OCK_WIRE_ANTHROPIC || w->wire == OCK_WIRE_GEMINI) /* blocks of one message */
    return a->msg == b->msg;
  return b->msg_index == a->msg_index + 1; /* messages or items in a row */
}

/* insert_at puts item at index i of arr (or at its end), taking it. It does not use
 * cJSON_InsertItemInArray: Debian 12's libcjson 1.7.15-1+deb12u4 returns false there for any
 * index inside the array and inserts nothing. */
static int insert_at(cJSON *arr, int i, cJSON *item) {
  if (!arr || !item) {
    cJSON_Delete(item);
    return 0;
  }
  cJSON *tail = cJSON_CreateArray();
  if (!tail) {
    cJSON_Delete(item);
    return 0;
  }
  while (i >= 0 && cJSON_GetArraySize(arr) > i)
    cJSON_AddItemToArray(tail, cJSON_DetachItemFromArray(arr, i));
  cJSON_AddItemToArray(arr, item);
  while (cJSON_GetArraySize(tail) > 0)
    cJSON_AddItemToArray(arr, cJSON_DetachItemFromArray(tail, 0));
  cJSON_Delete(tail);
  return 1;
}

/* set_string: when out of memory the member is left as it was. */
static void set_string(cJSON *o, const char *key, const char *value) {
  cJSON *s = cJSON_CreateString(value);
  if (!s)
    return;
  if (!cJSON_HasObjectItem(o, key))
    ock__wire_add(o, key, s);
  else if (!cJSON_ReplaceItemInObjectCaseSensitive(o, key, s))
    cJSON_Delete(s); /* its key could not be copied */
}

int ock_wire_result_count(const cJSON *body, const struct ock_wire_ops *w) {
  if (!w)
    return 0;
  struct ock_wire_result r[OCK_MAX_WIRE_REFS];
  return w->find_results(body, r, OCK_MAX_WIRE_REFS);
}

int ock_wire_drop_last_result(cJSON *body, const struct ock_wire_ops *w) {
  if (!w)
    return 0;
  struct ock_wire_result r[OCK_MAX_WIRE_REFS];
  int n = w->find_results(body, r, OCK_MAX_WIRE_REFS);
  if (!n)
    return 0;
  struct ock_wire_result *last = &r[n - 1];
  cJSON_DeleteItemFromArray(last->container, last->index);
  if ((w->wire == OCK_WIRE_ANTHROPIC || w->wire == OCK_WIRE_GEMINI) &&
      cJSON_GetArraySize(last->container) == 0) /* a message of result blocks, now empty */
    cJSON_DeleteItemFromArray(ock__wire_messages(body), last->msg_index);
  return 1;
}

int ock_wire_rename_last_result(cJSON *body, const struct ock_wire_ops *w, const char *suffix) {
  if (!w)
    return 0;
  struct ock_wire_result r[OCK_MAX_WIRE_REFS];
  int n = w->find_results(body, r, OCK_MAX_WIRE_REFS);
  if (!n)
    return 0;
  char id[512];
  snprintf(id, sizeof id, "%s%s", ock__wire_str(r[n - 1].item, w->result_id_key), suffix);
  set_string(r[n - 1].item, w->result_id_key, id);
  return 1;
}

int ock_wire_duplicate_last_result(cJSON *body, const struct ock_wire_ops *w) {
  if (!w)
    return 0;
  struct ock_wire_result r[OCK_MAX_WIRE_REFS];
  int n = w->find_results(body, r, OCK_MAX_WIRE_REFS);
  if (!n)
    return 0;
  cJSON *copy = cJSON_Duplicate(r[n - 1].item, 1);
  return copy && insert_at(r[n - 1].container, r[n - 1].index + 1, copy);
}

/* swap exchanges two items of one array (by copies: cJSON has no in-place swap). */
static void swap_items(cJSON *arr, int a, int b) {
  cJSON *ca = cJSON_Duplicate(cJSON_GetArrayItem(arr, a), 1);
  cJSON *cb = cJSON_Duplicate(cJSON_GetArrayItem(arr, b), 1);
  if (!ca || !cb) {
    cJSON_Delete(ca);
    cJSON_Delete(cb);
    return;
  }
  cJSON_ReplaceItemInArray(arr, a, cb);
  cJSON_ReplaceItemInArray(arr, b, ca);
}

int ock_wire_reverse_results(cJSON *body, const struct ock_wire_ops *w) {
  if (!w)
    return 0;
  struct ock_wire_result r[OCK_MAX_WIRE_REFS];
  int n = w->find_results(body, r, OCK_MAX_WIRE_REFS);
  /* Find the last group: walk back from the end while results belong together. */
  for (int end = n - 1; end > 0; end--) {
    int start = end;
    while (start > 0 && same_group(&r[start - 1], &r[start], w))
      start--;
    if (end - start >= 1) {
      for (int a = start, b = end; a < b; a++, b--)
        swap_items(r[a].container, r[a].index, r[b].index);
      return 1;
    }
    end = start;
  }
  return 0;
}

/* last_call_message: the index of the last assistant message with calls that is followed by
 * a result of one of them (or the last one with calls when none is answered), or -1. */
static int last_call_message(const cJSON *body, const struct ock_wire_ops *w) {
  cJSON *msgs = ock__wire_messages(body);
  int found = -1;
  for (int i = cJSON_GetArraySize(msgs) - 1; i >= 0 && found < 0; i--)
    if (w->find_calls(cJSON_GetArrayItem(msgs, i)))
      found = i;
  return found;
}

/* first_stored_call: the first call of the last assistant message with calls (its index in
 * *at), or NULL when there is none. */
static cJSON *first_stored_call(cJSON *body, const struct ock_wire_ops *w, int *at) {
  *at = last_call_message(body, w);
  if (*at < 0)
    return NULL;
  cJSON *c;
  cJSON_ArrayForEach(c, w->find_calls(cJSON_GetArrayItem(ock__wire_messages(body), *at))) {
    if (w->is_call(c))
      return c;
  }
  return NULL;
}

int ock_wire_rename_call(cJSON *body, const struct ock_wire_ops *w, const char *suffix) {
  if (!w)
    return 0;
  int a;
  cJSON *call = first_stored_call(body, w, &a);
  if (!call)
    return 0;
  char old[512], renamed[512];
  snprintf(old, sizeof old, "%s", ock__wire_str(call, "id"));
  snprintf(renamed, sizeof renamed, "%s%s", old, suffix);
  set_string(call, "id", renamed);
  struct ock_wire_result r[OCK_MAX_WIRE_REFS];
  int n = w->find_results(body, r, OCK_MAX_WIRE_REFS);
  for (int i = 0; i < n; i++)
    if (r[i].msg_index > a && !strcmp(ock__wire_str(r[i].item, w->result_id_key), old))
      set_string(r[i].item, w->result_id_key, renamed);
  return 1;
}

int ock_wire_alter_call_arguments(cJSON *body, const struct ock_wire_ops *w, const char *member) {
  if (!w)
    return 0;
  int a;
  cJSON *call = first_stored_call(body, w, &a);
  if (!call)
    return 0;
  if (w->wire == OCK_WIRE_ANTHROPIC) {
    cJSON *input = cJSON_GetObjectItemCaseSensitive(call, "input");
    if (!cJSON_IsObject(input))
      return 0;
    cJSON_AddTrueToObject(input, member);
    return 1;
  }
  cJSON *fn = cJSON_GetObjectItemCaseSensitive(call, "function");
  const char *text = ock__wire_str(fn, "arguments");
  cJSON *args = *text ? cJSON_Parse(text) : cJSON_CreateObject();
  char *printed = NULL;
  if (cJSON_IsObject(args) && cJSON_AddTrueToObject(args, member))
    printed = cJSON_PrintUnformatted(args);
  if (printed)
    set_string(fn, "arguments", printed);
  cJSON_free(printed);
  cJSON_Delete(args);
  return printed != NULL;
}

int ock_wire_rename_call_tool(cJSON *body, const struct ock_wire_ops *w, const char *suffix) {
  if (!w)
    return 0;
  int a;
  cJSON *call = first_stored_call(body, w, &a);
  if (!call)
    return 0;
  cJSON *holder =
      w->wire == OCK_WIRE_ANTHROPIC ? call : cJSON_GetObjectItemCaseSensitive(call, "function");
  char renamed[512];
  snprintf(renamed, sizeof renamed, "%s%s", ock__wire_str(holder, "name"), suffix);
  set_string(holder, "name", renamed);
  return 1;
}

/* keep_only leaves in arr its item number k alone. */
static void keep_only(cJSON *arr, int k) {
  for (int i = cJSON_GetArraySize(arr) - 1; i >= 0; i--)
    if (i != k)
      cJSON_DeleteItemFromArray(arr, i);
}

/* member_holding: the name of the member of o whose value is child, or NULL. */
static const char *member_holding(const cJSON *o, const cJSON *child) {
  const cJSON *c;
  cJSON_ArrayForEach(c, o) {
    if (c == child)
      return c->string;
  }
  return NULL;
}

/* result_copy: a copy of the message that holds result r, holding only that result, renamed
 * to id; NULL when out of memory or its shape is not known. */
static cJSON *result_copy(const struct ock_wire_result *r, const struct ock_wire_ops *w,
                          const char *id) {
  if (r->item == r->msg) { /* OpenAI: the result is a message of its own */
    cJSON *copy = cJSON_Duplicate(r->item, 1);
    if (copy)
      set_string(copy, w->result_id_key, id);
    return copy;
  }
  const char *key = member_holding(r->msg, r->container);
  cJSON *copy = key ? cJSON_Duplicate(r->msg, 1) : NULL;
  cJSON *arr = cJSON_GetObjectItemCaseSensitive(copy, key ? key : "");
  if (!cJSON_IsArray(arr)) {
    cJSON_Delete(copy);
    return NULL;
  }
  keep_only(arr, r->index);
  set_string(cJSON_GetArrayItem(arr, 0), w->result_id_key, id);
  return copy;
}

int ock_wire_copy_call_turn(cJSON *body, const struct ock_wire_ops *w, const char *id) {
  int a;
  cJSON *call = w && id ? first_stored_call(body, w, &a) : NULL;
  if (!call)
    return 0;
  cJSON *msgs = ock__wire_messages(body);
  const char *old = ock__wire_str(call, "id");
  struct ock_wire_result r[OCK_MAX_WIRE_REFS];
  int n = w->find_results(body, r, OCK_MAX_WIRE_REFS), res = -1, last = -1, k = 0;
  for (int i = 0; i < n && res < 0; i++)
    if (r[i].msg_index > a && !strcmp(ock__wire_str(r[i].item, w->result_id_key), old))
      res = i;
  for (int i = cJSON_GetArraySize(msgs) - 1; i >= 0 && last < 0; i--)
    if (role_is(cJSON_GetArrayItem(msgs, i), "assistant"))
      last = i;
  if (res < 0 || last <= r[res].msg_index)
    return 0;
  for (cJSON *c = w->find_calls(cJSON_GetArrayItem(msgs, a))->child; c && c != call; c = c->next)
    k++;
  cJSON *turn = cJSON_Duplicate(cJSON_GetArrayItem(msgs, a), 1);
  cJSON *answer = result_copy(&r[res], w, id);
  cJSON *calls = turn ? w->find_calls(turn) : NULL;
  if (!calls || !answer) {
    cJSON_Delete(turn);
    cJSON_Delete(answer);
    return 0;
  }
  keep_only(calls, k);
  set_string(cJSON_GetArrayItem(calls, 0), "id", id);
  return insert_at(msgs, last, turn) && insert_at(msgs, last + 1, answer);
}

/* text_message: {"role": role, "content": text}, or Gemini's {"role", "parts": [{"text"}]}
 * (role "assistant" is "model" there) in a Gemini body; NULL when out of memory. */
static cJSON *text_message(const cJSON *body, const char *role, const char *text) {
  cJSON *m = cJSON_CreateObject();
  if (!is_gemini(body)) {
    int ok =
        cJSON_AddStringToObject(m, "role", role) && cJSON_AddStringToObject(m, "content", text);
    return ock__wire_built(m, ok);
  }
  cJSON *parts = cJSON_AddArrayToObject(m, "parts"), *part = cJSON_CreateObject();
  int ok = ock__wire_add(parts, NULL, part) && cJSON_AddStringToObject(part, "text", text) &&
           cJSON_AddStringToObject(m, "role", strcmp(role, "assistant") ? role : "model");
  return ock__wire_built(m, ok);
}

/* result_holder: where a result's text sits: the item itself ("content"; "output" on the
 * Responses API), or for Gemini the functionResponse's "response" object (its "output" or
 * "error"); *key names the member. */
static cJSON *result_holder(cJSON *item, const struct ock_wire_ops *w, const char **key) {
  *key = w->wire == OCK_WIRE_RESPONSES ? "output" : "content";
  if (w->wire != OCK_WIRE_GEMINI)
    return item;
  cJSON *resp = cJSON_GetObjectItemCaseSensitive(item, "response");
  *key = cJSON_HasObjectItem(resp, "error") ? "error" : "output";
  return resp;
}

static cJSON *text_block(const char *text) {
  cJSON *b = cJSON_CreateObject();
  int ok = cJSON_AddStringToObject(b, "type", "text") && cJSON_AddStringToObject(b, "text", text);
  return ock__wire_built(b, ok);
}

int ock_wire_split_call(cJSON *body, const struct ock_wire_ops *w, const char *text) {
  if (!w)
    return 0;
  int a = last_call_message(body, w);
  if (a < 0)
    return 0;
  cJSON *msgs = ock__wire_messages(body);
  if (w->wire == OCK_WIRE_ANTHROPIC) {
    cJSON *next = cJSON_GetArrayItem(msgs, a + 1);
    cJSON *content = cJSON_GetObjectItemCaseSensitive(next, "content");
    if (next && cJSON_IsArray(content))
      return insert_at(content, 0, text_block(text));
  }
  return insert_at(msgs, a + 1, text_message(body, "user", text));
}

int ock_wire_set_result_texts(cJSON *body, const struct ock_wire_ops *w, const char *text,
                              int only_success) {
  if (!w)
    return 0;
  struct ock_wire_result r[OCK_MAX_WIRE_REFS];
  int n = w->find_results(body, r, OCK_MAX_WIRE_REFS), changed = 0;
  char buf[64];
  for (int i = 0; i < n; i++) {
    if (only_success && !strncmp(result_text(&r[i], w, buf, sizeof buf), "Error:", 6))
      continue;
    const char *key;
    cJSON *holder = result_holder(r[i].item, w, &key);
    if (holder)
      set_string(holder, key, text);
    changed = holder != NULL;
  }
  return changed;
}

int ock_wire_suffix_error_results(cJSON *body, const struct ock_wire_ops *w, const char *suffix) {
  if (!w)
    return 0;
  struct ock_wire_result r[OCK_MAX_WIRE_REFS];
  int n = w->find_results(body, r, OCK_MAX_WIRE_REFS), changed = 0;
  char buf[4096], text[4096 + 64];
  for (int i = 0; i < n; i++) {
    if (strncmp(result_text(&r[i], w, buf, sizeof buf), "Error: ", 7))
      continue;
    snprintf(text, sizeof text, "%s%s", buf, suffix);
    const char *key;
    cJSON *holder = result_holder(r[i].item, w, &key);
    if (holder)
      set_string(holder, key, text);
    changed = holder != NULL;
  }
  return changed;
}

/* The most text one rewritten string may hold; a longer rewrite is cut there. */
#define TEXT_CAP 16384

/* map_string puts fn's text for the string holder[key] in its place; 1 when it changed. */
static int map_string(cJSON *holder, const char *key, enum ock_wire_text_kind kind,
                      ock_wire_text_fn fn) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(holder, key);
  if (!cJSON_IsString(v))
    return 0;
  char buf[TEXT_CAP];
  const char *to = fn(kind, v->valuestring, buf, sizeof buf);
  if (!to)
    return 0;
  set_string(holder, key, to);
  return 1;
}

/* map_parts: the text parts of an array content, and the contents of its tool_result blocks. */
static int map_parts(cJSON *content, enum ock_wire_text_kind kind, ock_wire_text_fn fn) {
  int changed = 0;
  cJSON *parts = cJSON_IsArray(content) ? content : NULL;
  cJSON *part;
  cJSON_ArrayForEach(part, parts) {
    if (!strcmp(ock__wire_str(part, "type"), "tool_result")) {
      cJSON *inner = cJSON_GetObjectItemCaseSensitive(part, "content");
      changed |= map_string(part, "content", OCK_WIRE_TEXT_RESULT, fn);
      if (cJSON_IsArray(inner))
        changed |= map_parts(inner, OCK_WIRE_TEXT_RESULT, fn);
    } else {
      changed |= map_string(part, "text", kind, fn);
    }
  }
  return changed;
}

/* map_gemini_parts: a Gemini turn's text parts, and its functionResponses' output or error. */
static int map_gemini_parts(cJSON *parts, enum ock_wire_text_kind kind, ock_wire_text_fn fn) {
  int changed = 0;
  cJSON *part;
  if (!cJSON_IsArray(parts))
    return 0;
  cJSON_ArrayForEach(part, parts) {
    cJSON *fr = cJSON_GetObjectItemCaseSensitive(part, "functionResponse");
    cJSON *resp = cJSON_GetObjectItemCaseSensitive(fr, "response");
    if (fr)
      changed |= map_string(resp, "output", OCK_WIRE_TEXT_RESULT, fn) |
                 map_string(resp, "error", OCK_WIRE_TEXT_RESULT, fn);
    else
      changed |= map_string(part, "text", kind, fn);
  }
  return changed;
}

int ock_wire_map_texts(cJSON *body, const struct ock_wire_ops *w, ock_wire_text_fn fn) {
  (void)w; /* texts sit in message contents, in blocks or parts of them, or in outputs */
  int changed = 0;
  cJSON *m;
  cJSON_ArrayForEach(m, ock__wire_messages(body)) {
    const char *role = ock__wire_str(m, "role");
    enum ock_wire_text_kind kind;
    if (!strcmp(ock__wire_str(m, "type"), "function_call_output")) {
      changed |= map_string(m, "output", OCK_WIRE_TEXT_RESULT, fn); /* the Responses API */
      continue;
    }
    if (!strcmp(role, "tool"))
      kind = OCK_WIRE_TEXT_RESULT;
    else if (!strcmp(role, "user"))
      kind = OCK_WIRE_TEXT_USER;
    else if (role_is(m, "assistant"))
      kind = OCK_WIRE_TEXT_ASSISTANT;
    else
      continue;
    changed |= map_string(m, "content", kind, fn);
    changed |= map_parts(cJSON_GetObjectItemCaseSensitive(m, "content"), kind, fn);
    changed |= map_gemini_parts(cJSON_GetObjectItemCaseSensitive(m, "parts"), kind, fn);
  }
  return changed;
}

const char *ock_wire_text_of(const cJSON *message, char *buf, size_t n) {
  size_t len = 0;
  buf[0] = '\0';
  const cJSON *c = cJSON_GetObjectItemCaseSensitive(message, "content");
  const cJSON *resp = cJSON_GetObjectItemCaseSensitive(message, "response");
  if (!c && resp) { /* a Gemini functionResponse */
    const char *t = ock__wire_str(resp, "error");
    snprintf(buf, n, "%s", *t ? t : ock__wire_str(resp, "output"));
    return buf;
  }
  if (!c) /* a Gemini turn */
    c = cJSON_GetObjectItemCaseSensitive(message, "parts");
  if (cJSON_IsString(c)) {
    snprintf(buf, n, "%s", c->valuestring);
    return buf;
  }
  const cJSON *part;
  cJSON_ArrayForEach(part, array_or_null(c)) {
    const char *t = ock__wire_str(part, "text");
    if (!*t && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(part, "content")))
      t = ock__wire_str(part, "content");
    int k = snprintf(buf + len, len < n ? n - len : 0, "%s", t);
    if (k > 0)
      len += (size_t)k;
    if (len >= n)
      break;
  }
  return buf;
}

/* text_contains: some text of the message (a string content, a text part, or a block's own
 * string content) contains needle. */
static int text_contains(const cJSON *message, const char *needle) {
  const cJSON *c = cJSON_GetObjectItemCaseSensitive(message, "content");
  if (!c) /* a Gemini turn */
    c = cJSON_GetObjectItemCaseSensitive(message, "parts");
  if (cJSON_IsString(c))
    return strstr(c->valuestring, needle) != NULL;
  const cJSON *part;
  cJSON_ArrayForEach(part, array_or_null(c)) {
    if (strstr(ock__wire_str(part, "text"), needle) ||
        strstr(ock__wire_str(part, "content"), needle))
      return 1;
  }
  return 0;
}

int ock_wire_find_message(const cJSON *body, const char *needle) {
  int i = 0;
  const cJSON *m;
  cJSON_ArrayForEach(m, ock__wire_messages(body)) {
    if (text_contains(m, needle))
      return i;
    i++;
  }
  return -1;
}

/* cut_from_system removes needle from an Anthropic top-level system string; 1 if it did. */
static int cut_from_system(cJSON *body, const char *needle) {
  cJSON *sys = cJSON_GetObjectItemCaseSensitive(body, "system");
  if (!cJSON_IsString(sys))
    return 0;
  char *at = strstr(sys->valuestring, needle);
  if (!at)
    return 0;
  size_t keep = (size_t)(at - sys->valuestring), nl = strlen(needle);
  char *rest = malloc(strlen(sys->valuestring) + 1);
  if (!rest)
    return 0;
  memcpy(rest, sys->valuestring, keep);
  snprintf(rest + keep, strlen(sys->valuestring) + 1 - keep, "%s", at + nl);
  set_string(body, "system", rest);
  free(rest);
  return 1;
}

int ock_wire_move_into_call(cJSON *body, const struct ock_wire_ops *w, const char *needle) {
  if (!w)
    return 0;
  cJSON *msgs = ock__wire_messages(body);
  int m = ock_wire_find_message(body, needle);
  if (m < 0) {
    if (w->wire == OCK_WIRE_ANTHROPIC && cut_from_system(body, needle))
      return ock_wire_split_call(body, w, needle);
    return 0;
  }
  int a = -1;
  for (int i = m - 1; i >= 0 && a < 0; i--)
    if (w->find_calls(cJSON_GetArrayItem(msgs, i)))
      a = i;
  if (a < 0)
    return 0;
  cJSON *msg = cJSON_GetArrayItem(msgs, m);
  cJSON *content = cJSON_GetObjectItemCaseSensitive(msg, "content");
  if (w->wire == OCK_WIRE_ANTHROPIC && cJSON_IsArray(content) && m == a + 1) {
    /* The text rides in the results' user message: put its block before the results. */
    int j = 0;
    cJSON *b;
    cJSON_ArrayForEach(b, content) {
      if (!strcmp(ock__wire_str(b, "type"), "text") && strstr(ock__wire_str(b, "text"), needle) &&
          j > 0) {
        cJSON *moved = cJSON_DetachItemFromArray(content, j);
        return insert_at(content, 0, moved);
      }
      j++;
    }
    return 0;
  }
  if (m == a + 1)
    return 0; /* already right after the call message */
  cJSON *moved = cJSON_DetachItemFromArray(msgs, m);
  return insert_at(msgs, a + 1, moved);
}

int ock_wire_drop_message(cJSON *body, const char *role, const char *text) {
  cJSON *msgs = ock__wire_messages(body);
  int changed = 0;
  char buf[512];
  for (int i = cJSON_GetArraySize(msgs) - 1; i >= 0; i--) {
    cJSON *m = cJSON_GetArrayItem(msgs, i);
    if (role_is(m, role) && !strcmp(ock_wire_text_of(m, buf, sizeof buf), text)) {
      cJSON_DeleteItemFromArray(msgs, i);
      changed = 1;
    }
  }
  return changed;
}

int ock_wire_insert_assistant_before_prompt(cJSON *body, const char *text) {
  cJSON *msgs = ock__wire_messages(body);
  int u = -1, i = 0;
  cJSON *m;
  cJSON_ArrayForEach(m, msgs) {
    if (!strcmp(ock__wire_str(m, "role"), "user"))
      u = i;
    i++;
  }
  if (u < 1 || role_is(cJSON_GetArrayItem(msgs, u - 1), "assistant"))
    return 0;
  return insert_at(msgs, u, text_message(body, "assistant", text));
}

int ock_wire_insert_user_first(cJSON *body, const char *text) {
  cJSON *msgs = ock__wire_messages(body);
  if (!msgs)
    return 0;
  int i = 0;
  while (i < cJSON_GetArraySize(msgs) &&
         !strcmp(ock__wire_str(cJSON_GetArrayItem(msgs, i), "role"), "system"))
    i++;
  return insert_at(msgs, i, text_message(body, "user", text));
}

int ock_wire_move_to_system(cJSON *body, const struct ock_wire_ops *w, const char *needle) {
  if (!w)
    return 0;
  cJSON *msgs = ock__wire_messages(body);
  int m = ock_wire_find_message(body, needle);
  if (m < 0)
    return 0;
  cJSON *msg = cJSON_GetArrayItem(msgs, m);
  if (w->wire == OCK_WIRE_OPENAI) {
    set_string(msg, "role", "system");
    return 1;
  }
  /* Anthropic: take the text (a whole message, or one block of it) into "system". */
  char *text = malloc(SYSTEM_TEXT_MAX);
  if (!text)
    return 0;
  cJSON *content = cJSON_GetObjectItemCaseSensitive(msg, "content");
  int j = 0, taken = 0;
  cJSON *b;
  cJSON_ArrayForEach(b, array_or_null(content)) {
    if (!strcmp(ock__wire_str(b, "type"), "text") && strstr(ock__wire_str(b, "text"), needle)) {
      snprintf(text, SYSTEM_TEXT_MAX, "%s", ock__wire_str(b, "text"));
      cJSON_DeleteItemFromArray(content, j);
      taken = 1;
      break;
    }
    j++;
  }
  if (!taken) {
    ock_wire_text_of(msg, text, SYSTEM_TEXT_MAX);
    cJSON_DeleteItemFromArray(msgs, m);
  } else if (cJSON_GetArraySize(content) == 0) {
    cJSON_DeleteItemFromArray(msgs, m);
  }
  const char *old = ock__wire_str(body, "system");
  size_t n = strlen(old) + strlen(text) + 3;
  char *joined = malloc(n);
  if (joined) {
    snprintf(joined, n, "%s%s%s", old, *old ? "\n\n" : "", text);
    set_string(body, "system", joined);
  }
  free(joined);
  free(text);
  return 1;
}
