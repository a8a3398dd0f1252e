/*
 * wire_edit.c: history edits on the OpenAI and Anthropic wires (see wire_edit.h).
 *
 * Both wires are reduced to one list of "results": where a tool result sits (the array that
 * holds it and its index there) and which message holds it. OpenAI: a `role: "tool"` message
 * in `messages`, id in `tool_call_id`. Anthropic: a `tool_result` block in a user message's
 * `content`, id in `tool_use_id`. Calls likewise: OpenAI `tool_calls[].id` of an assistant
 * message, Anthropic `tool_use` blocks.
 */
#include "wire_edit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ref {
  cJSON *msg;       /* the message that holds the result */
  int msg_index;    /* its index in messages */
  cJSON *container; /* the array the result is an item of */
  int index;        /* its index there */
  cJSON *item;      /* the result: a message (OpenAI) or a block (Anthropic) */
};

static const char *id_key(enum mutant_wire w) {
  return w == MUTANT_WIRE_ANTHROPIC ? "tool_use_id" : "tool_call_id";
}

static const char *str_of(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) ? v->valuestring : "";
}

/* array_or_null: a, when it is an array (cJSON_ArrayForEach walks the children of anything). */
static const cJSON *array_or_null(const cJSON *a) {
  return cJSON_IsArray(a) ? a : NULL;
}

static cJSON *messages_of(const cJSON *body) {
  cJSON *m = cJSON_GetObjectItemCaseSensitive(body, "messages");
  return cJSON_IsArray(m) ? m : NULL;
}

/* collect lists the results in order; returns how many (at most max). */
static int collect(const cJSON *body, enum mutant_wire w, struct ref *out, int max) {
  cJSON *msgs = messages_of(body);
  int n = 0, i = 0;
  cJSON *m;
  cJSON_ArrayForEach(m, msgs) {
    if (w == MUTANT_WIRE_OPENAI && !strcmp(str_of(m, "role"), "tool") && n < max) {
      out[n++] = (struct ref){m, i, msgs, i, m};
    } else if (w == MUTANT_WIRE_ANTHROPIC && !strcmp(str_of(m, "role"), "user")) {
      cJSON *content = cJSON_GetObjectItemCaseSensitive(m, "content");
      int j = 0;
      cJSON *b;
      cJSON_ArrayForEach(b, array_or_null(content)) {
        if (!strcmp(str_of(b, "type"), "tool_result") && n < max)
          out[n++] = (struct ref){m, i, content, j, b};
        j++;
      }
    }
    i++;
  }
  return n;
}

/* same_group: two results answer the same assistant message. */
static int same_group(const struct ref *a, const struct ref *b, enum mutant_wire w) {
  if (w == MUTANT_WIRE_ANTHROPIC)
    return a->msg == b->msg;
  return b->msg_index == a->msg_index + 1;
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

static void set_string(cJSON *o, const char *key, const char *value) {
  cJSON *s = cJSON_CreateString(value);
  if (!s)
    return;
  if (cJSON_HasObjectItem(o, key))
    cJSON_ReplaceItemInObjectCaseSensitive(o, key, s);
  else
    cJSON_AddItemToObject(o, key, s);
}

int wire_result_count(const cJSON *body, enum mutant_wire w) {
  struct ref r[OCK_CAP_WIRE_REFS];
  return collect(body, w, r, OCK_CAP_WIRE_REFS);
}

int wire_drop_last_result(cJSON *body, enum mutant_wire w) {
  struct ref r[OCK_CAP_WIRE_REFS];
  int n = collect(body, w, r, OCK_CAP_WIRE_REFS);
  if (!n)
    return 0;
  struct ref *last = &r[n - 1];
  cJSON_DeleteItemFromArray(last->container, last->index);
  if (w == MUTANT_WIRE_ANTHROPIC && cJSON_GetArraySize(last->container) == 0)
    cJSON_DeleteItemFromArray(messages_of(body), last->msg_index);
  return 1;
}

int wire_rename_last_result(cJSON *body, enum mutant_wire w, const char *suffix) {
  struct ref r[OCK_CAP_WIRE_REFS];
  int n = collect(body, w, r, OCK_CAP_WIRE_REFS);
  if (!n)
    return 0;
  char id[512];
  snprintf(id, sizeof id, "%s%s", str_of(r[n - 1].item, id_key(w)), suffix);
  set_string(r[n - 1].item, id_key(w), id);
  return 1;
}

int wire_duplicate_last_result(cJSON *body, enum mutant_wire w) {
  struct ref r[OCK_CAP_WIRE_REFS];
  int n = collect(body, w, r, OCK_CAP_WIRE_REFS);
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

int wire_reverse_results(cJSON *body, enum mutant_wire w) {
  struct ref r[OCK_CAP_WIRE_REFS];
  int n = collect(body, w, r, OCK_CAP_WIRE_REFS);
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

/* calls_of: the array of calls of an assistant message, the id key, and whether an item of
 * it is a call (Anthropic mixes text and tool_use blocks). */
static cJSON *calls_of(cJSON *msg, enum mutant_wire w) {
  if (strcmp(str_of(msg, "role"), "assistant"))
    return NULL;
  cJSON *a =
      cJSON_GetObjectItemCaseSensitive(msg, w == MUTANT_WIRE_ANTHROPIC ? "content" : "tool_calls");
  if (!cJSON_IsArray(a))
    return NULL;
  cJSON *c;
  cJSON_ArrayForEach(c, a) if (w == MUTANT_WIRE_OPENAI ||
                               !strcmp(str_of(c, "type"), "tool_use")) return a;
  return NULL;
}

static int is_call(const cJSON *item, enum mutant_wire w) {
  return w == MUTANT_WIRE_OPENAI || !strcmp(str_of(item, "type"), "tool_use");
}

/* last_call_message: the index of the last assistant message with calls that is followed by
 * a result of one of them (or the last one with calls when none is answered), or -1. */
static int last_call_message(const cJSON *body, enum mutant_wire w) {
  cJSON *msgs = messages_of(body);
  int found = -1;
  for (int i = cJSON_GetArraySize(msgs) - 1; i >= 0 && found < 0; i--)
    if (calls_of(cJSON_GetArrayItem(msgs, i), w))
      found = i;
  return found;
}

/* first_stored_call: the first call of the last assistant message with calls (its index in
 * *at), or NULL when there is none. */
static cJSON *first_stored_call(cJSON *body, enum mutant_wire w, int *at) {
  *at = last_call_message(body, w);
  if (*at < 0)
    return NULL;
  cJSON *c;
  cJSON_ArrayForEach(c, calls_of(cJSON_GetArrayItem(messages_of(body), *at), w)) {
    if (is_call(c, w))
      return c;
  }
  return NULL;
}

int wire_rename_call(cJSON *body, enum mutant_wire w, const char *suffix) {
  int a;
  cJSON *call = first_stored_call(body, w, &a);
  if (!call)
    return 0;
  char old[512], renamed[512];
  snprintf(old, sizeof old, "%s", str_of(call, "id"));
  snprintf(renamed, sizeof renamed, "%s%s", old, suffix);
  set_string(call, "id", renamed);
  struct ref r[OCK_CAP_WIRE_REFS];
  int n = collect(body, w, r, OCK_CAP_WIRE_REFS);
  for (int i = 0; i < n; i++)
    if (r[i].msg_index > a && !strcmp(str_of(r[i].item, id_key(w)), old))
      set_string(r[i].item, id_key(w), renamed);
  return 1;
}

int wire_alter_call_arguments(cJSON *body, enum mutant_wire w) {
  int a;
  cJSON *call = first_stored_call(body, w, &a);
  if (!call)
    return 0;
  if (w == MUTANT_WIRE_ANTHROPIC) {
    cJSON *input = cJSON_GetObjectItemCaseSensitive(call, "input");
    if (!cJSON_IsObject(input))
      return 0;
    cJSON_AddTrueToObject(input, "ock_mutant");
    return 1;
  }
  cJSON *fn = cJSON_GetObjectItemCaseSensitive(call, "function");
  const char *text = str_of(fn, "arguments");
  cJSON *args = *text ? cJSON_Parse(text) : cJSON_CreateObject();
  char *printed = NULL;
  if (cJSON_IsObject(args) && cJSON_AddTrueToObject(args, "ock_mutant"))
    printed = cJSON_PrintUnformatted(args);
  if (printed)
    set_string(fn, "arguments", printed);
  cJSON_free(printed);
  cJSON_Delete(args);
  return printed != NULL;
}

int wire_rename_call_tool(cJSON *body, enum mutant_wire w, const char *suffix) {
  int a;
  cJSON *call = first_stored_call(body, w, &a);
  if (!call)
    return 0;
  cJSON *holder =
      w == MUTANT_WIRE_ANTHROPIC ? call : cJSON_GetObjectItemCaseSensitive(call, "function");
  char renamed[512];
  snprintf(renamed, sizeof renamed, "%s%s", str_of(holder, "name"), suffix);
  set_string(holder, "name", renamed);
  return 1;
}

static cJSON *user_message(const char *text) {
  cJSON *m = cJSON_CreateObject();
  if (!m)
    return NULL;
  cJSON_AddStringToObject(m, "role", "user");
  cJSON_AddStringToObject(m, "content", text);
  return m;
}

static cJSON *text_block(const char *text) {
  cJSON *b = cJSON_CreateObject();
  if (!b)
    return NULL;
  cJSON_AddStringToObject(b, "type", "text");
  cJSON_AddStringToObject(b, "text", text);
  return b;
}

int wire_split_call(cJSON *body, enum mutant_wire w, const char *text) {
  int a = last_call_message(body, w);
  if (a < 0)
    return 0;
  cJSON *msgs = messages_of(body);
  if (w == MUTANT_WIRE_ANTHROPIC) {
    cJSON *next = cJSON_GetArrayItem(msgs, a + 1);
    cJSON *content = cJSON_GetObjectItemCaseSensitive(next, "content");
    if (next && cJSON_IsArray(content))
      return insert_at(content, 0, text_block(text));
  }
  return insert_at(msgs, a + 1, user_message(text));
}

int wire_set_result_texts(cJSON *body, enum mutant_wire w, const char *text, int only_success) {
  struct ref r[OCK_CAP_WIRE_REFS];
  int n = collect(body, w, r, OCK_CAP_WIRE_REFS), changed = 0;
  char buf[64];
  for (int i = 0; i < n; i++) {
    if (only_success && !strncmp(wire_text_of(r[i].item, buf, sizeof buf), "Error:", 6))
      continue;
    set_string(r[i].item, "content", text);
    changed = 1;
  }
  return changed;
}

int wire_suffix_error_results(cJSON *body, enum mutant_wire w, const char *suffix) {
  struct ref r[OCK_CAP_WIRE_REFS];
  int n = collect(body, w, r, OCK_CAP_WIRE_REFS), changed = 0;
  char buf[4096], text[4096 + 64];
  for (int i = 0; i < n; i++) {
    if (strncmp(wire_text_of(r[i].item, buf, sizeof buf), "Error: ", 7))
      continue;
    snprintf(text, sizeof text, "%s%s", buf, suffix);
    set_string(r[i].item, "content", text);
    changed = 1;
  }
  return changed;
}

/* map_string puts fn's text for the string holder[key] in its place; 1 when it changed. */
static int map_string(cJSON *holder, const char *key, enum wire_text_kind kind, wire_text_fn fn) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(holder, key);
  if (!cJSON_IsString(v))
    return 0;
  char buf[OCK_CAP_WIRE_TEXT];
  const char *to = fn(kind, v->valuestring, buf, sizeof buf);
  if (!to)
    return 0;
  set_string(holder, key, to);
  return 1;
}

/* map_parts: the text parts of an array content, and the contents of its tool_result blocks. */
static int map_parts(cJSON *content, enum wire_text_kind kind, wire_text_fn fn) {
  int changed = 0;
  cJSON *parts = cJSON_IsArray(content) ? content : NULL;
  cJSON *part;
  cJSON_ArrayForEach(part, parts) {
    if (!strcmp(str_of(part, "type"), "tool_result")) {
      cJSON *inner = cJSON_GetObjectItemCaseSensitive(part, "content");
      changed |= map_string(part, "content", WIRE_TEXT_RESULT, fn);
      if (cJSON_IsArray(inner))
        changed |= map_parts(inner, WIRE_TEXT_RESULT, fn);
    } else {
      changed |= map_string(part, "text", kind, fn);
    }
  }
  return changed;
}

int wire_map_texts(cJSON *body, enum mutant_wire w, wire_text_fn fn) {
  (void)w; /* both wires keep texts in message contents, and in blocks or parts of them */
  int changed = 0;
  cJSON *m;
  cJSON_ArrayForEach(m, messages_of(body)) {
    const char *role = str_of(m, "role");
    enum wire_text_kind kind;
    if (!strcmp(role, "tool"))
      kind = WIRE_TEXT_RESULT;
    else if (!strcmp(role, "user"))
      kind = WIRE_TEXT_USER;
    else if (!strcmp(role, "assistant"))
      kind = WIRE_TEXT_ASSISTANT;
    else
      continue;
    changed |= map_string(m, "content", kind, fn);
    changed |= map_parts(cJSON_GetObjectItemCaseSensitive(m, "content"), kind, fn);
  }
  return changed;
}

const char *wire_text_of(const cJSON *message, char *buf, size_t n) {
  size_t len = 0;
  buf[0] = '\0';
  const cJSON *c = cJSON_GetObjectItemCaseSensitive(message, "content");
  if (cJSON_IsString(c)) {
    snprintf(buf, n, "%s", c->valuestring);
    return buf;
  }
  const cJSON *part;
  cJSON_ArrayForEach(part, array_or_null(c)) {
    const char *t = str_of(part, "text");
    if (!*t && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(part, "content")))
      t = str_of(part, "content");
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
  if (cJSON_IsString(c))
    return strstr(c->valuestring, needle) != NULL;
  const cJSON *part;
  cJSON_ArrayForEach(part, array_or_null(c)) {
    if (strstr(str_of(part, "text"), needle) || strstr(str_of(part, "content"), needle))
      return 1;
  }
  return 0;
}

int wire_find_message(const cJSON *body, const char *needle) {
  int i = 0;
  const cJSON *m;
  cJSON_ArrayForEach(m, messages_of(body)) {
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
  cJSON_ReplaceItemInObjectCaseSensitive(body, "system", cJSON_CreateString(rest));
  free(rest);
  return 1;
}

int wire_move_into_call(cJSON *body, enum mutant_wire w, const char *needle) {
  cJSON *msgs = messages_of(body);
  int m = wire_find_message(body, needle);
  if (m < 0) {
    if (w == MUTANT_WIRE_ANTHROPIC && cut_from_system(body, needle))
      return wire_split_call(body, w, needle);
    return 0;
  }
  int a = -1;
  for (int i = m - 1; i >= 0 && a < 0; i--)
    if (calls_of(cJSON_GetArrayItem(msgs, i), w))
      a = i;
  if (a < 0)
    return 0;
  cJSON *msg = cJSON_GetArrayItem(msgs, m);
  cJSON *content = cJSON_GetObjectItemCaseSensitive(msg, "content");
  if (w == MUTANT_WIRE_ANTHROPIC && cJSON_IsArray(content) && m == a + 1) {
    /* The text rides in the results' user message: put its block before the results. */
    int j = 0;
    cJSON *b;
    cJSON_ArrayForEach(b, content) {
      if (!strcmp(str_of(b, "type"), "text") && strstr(str_of(b, "text"), needle) && j > 0) {
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

int wire_drop_message(cJSON *body, const char *role, const char *text) {
  cJSON *msgs = messages_of(body);
  int changed = 0;
  char buf[512];
  for (int i = cJSON_GetArraySize(msgs) - 1; i >= 0; i--) {
    cJSON *m = cJSON_GetArrayItem(msgs, i);
    if (!strcmp(str_of(m, "role"), role) && !strcmp(wire_text_of(m, buf, sizeof buf), text)) {
      cJSON_DeleteItemFromArray(msgs, i);
      changed = 1;
    }
  }
  return changed;
}

int wire_insert_assistant_before_prompt(cJSON *body, const char *text) {
  cJSON *msgs = messages_of(body);
  int u = -1, i = 0;
  cJSON *m;
  cJSON_ArrayForEach(m, msgs) {
    if (!strcmp(str_of(m, "role"), "user"))
      u = i;
    i++;
  }
  if (u < 1 || !strcmp(str_of(cJSON_GetArrayItem(msgs, u - 1), "role"), "assistant"))
    return 0;
  cJSON *a = cJSON_CreateObject();
  if (!a)
    return 0;
  cJSON_AddStringToObject(a, "role", "assistant");
  cJSON_AddStringToObject(a, "content", text);
  return insert_at(msgs, u, a);
}

int wire_insert_user_first(cJSON *body, const char *text) {
  cJSON *msgs = messages_of(body);
  if (!msgs)
    return 0;
  int i = 0;
  while (i < cJSON_GetArraySize(msgs) &&
         !strcmp(str_of(cJSON_GetArrayItem(msgs, i), "role"), "system"))
    i++;
  return insert_at(msgs, i, user_message(text));
}

int wire_move_to_system(cJSON *body, enum mutant_wire w, const char *needle) {
  cJSON *msgs = messages_of(body);
  int m = wire_find_message(body, needle);
  if (m < 0)
    return 0;
  cJSON *msg = cJSON_GetArrayItem(msgs, m);
  if (w == MUTANT_WIRE_OPENAI) {
    set_string(msg, "role", "system");
    return 1;
  }
  /* Anthropic: take the text (a whole message, or one block of it) into "system". */
  char *text = malloc(OCK_CAP_MUTANT_BODY / 8);
  if (!text)
    return 0;
  cJSON *content = cJSON_GetObjectItemCaseSensitive(msg, "content");
  int j = 0, taken = 0;
  cJSON *b;
  cJSON_ArrayForEach(b, array_or_null(content)) {
    if (!strcmp(str_of(b, "type"), "text") && strstr(str_of(b, "text"), needle)) {
      snprintf(text, OCK_CAP_MUTANT_BODY / 8, "%s", str_of(b, "text"));
      cJSON_DeleteItemFromArray(content, j);
      taken = 1;
      break;
    }
    j++;
  }
  if (!taken) {
    wire_text_of(msg, text, OCK_CAP_MUTANT_BODY / 8);
    cJSON_DeleteItemFromArray(msgs, m);
  } else if (cJSON_GetArraySize(content) == 0) {
    cJSON_DeleteItemFromArray(msgs, m);
  }
  const char *old = str_of(body, "system");
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
