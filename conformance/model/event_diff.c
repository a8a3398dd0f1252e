/*
 * event_diff.c: two runs' event contracts compared, execute by execute (see event_diff.h).
 */
#include "model/event_diff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ock/contract.h"
#include "ock/json.h"

/* Past this many events in an execute the names are compared by position, not aligned: the
 * alignment table is (n+1)*(m+1) cells. */
#define ALIGN_MAX 4000
/* How deep the shape of a payload is followed. */
#define SHAPE_DEPTH 8

static const char *event_name(const cJSON *e) {
  const char *n = ock_json_str(e, "event");
  return n ? n : "";
}

static const cJSON *event_data(const cJSON *e) {
  return cJSON_GetObjectItemCaseSensitive(e, "data");
}

cJSON *ock__diff_split(const cJSON *events) {
  cJSON *log = cJSON_CreateArray(), *cur = NULL;
  const cJSON *e;
  if (!log)
    return NULL;
  cJSON_ArrayForEach(e, events) {
    if (!cur || !strcmp(event_name(e), OCK_EV_PROMPT_SUBMIT)) {
      cur = cJSON_CreateArray();
      if (!cur || !cJSON_AddItemToArray(log, cur)) {
        cJSON_Delete(cur);
        cJSON_Delete(log);
        return NULL;
      }
    }
    if (!cJSON_AddItemReferenceToArray(cur, (cJSON *)e)) {
      cJSON_Delete(log);
      return NULL;
    }
  }
  return log;
}

/* ---- changes ------------------------------------------------------------------------------- */

struct diff {
  cJSON *changes;
  const char *scope;
  int execute; /* 1-based */
  int oom;
};

/* add appends one change; old_v and new_v are taken (either may be NULL). */
static void add(struct diff *d, const char *kind, const char *what, cJSON *old_v, cJSON *new_v,
                int breaking) {
  char key[512];
  snprintf(key, sizeof key, "%s%s%s", kind, what && *what ? " " : "", what ? what : "");
  cJSON *c = cJSON_CreateObject();
  if (!c || !cJSON_AddStringToObject(c, "scope", d->scope) ||
      !cJSON_AddNumberToObject(c, "execute", d->execute) ||
      !cJSON_AddStringToObject(c, "kind", kind) || !cJSON_AddStringToObject(c, "key", key) ||
      !cJSON_AddItemToObject(c, "old", old_v ? old_v : cJSON_CreateNull()) ||
      !cJSON_AddItemToObject(c, "new", new_v ? new_v : cJSON_CreateNull()) ||
      !cJSON_AddBoolToObject(c, "breaking", breaking) || !cJSON_AddItemToArray(d->changes, c)) {
    cJSON_Delete(c);
    d->oom = 1;
  }
}

static cJSON *num(double v) {
  return cJSON_CreateNumber(v);
}

/* ---- the shape of a payload ---------------------------------------------------------------- */

/* shape_add records that path holds type in shape ({path: [types...]}). */
static void shape_add(cJSON *shape, const char *path, const char *type) {
  cJSON *types = cJSON_GetObjectItemCaseSensitive(shape, path);
  if (!types) {
    types = cJSON_AddArrayToObject(shape, path);
    if (!types)
      return;
  }
  const cJSON *t;
  cJSON_ArrayForEach(t, types)
    if (!strcmp(t->valuestring, type))
      return;
  cJSON_AddItemToArray(types, cJSON_CreateString(type));
}

/* shape_walk records v (at path) and everything under it. Array items share the path
 * "<path>[]". */
static void shape_walk(cJSON *shape, const cJSON *v, const char *path, int depth) {
  shape_add(shape, path, ock_json_type_name(v));
  if (depth >= SHAPE_DEPTH)
    return;
  char sub[512];
  const cJSON *c;
  if (cJSON_IsObject(v)) {
    cJSON_ArrayForEach(c, v) {
      snprintf(sub, sizeof sub, "%s.%s", path, c->string);
      shape_walk(shape, c, sub, depth + 1);
    }
  } else if (cJSON_IsArray(v)) {
    snprintf(sub, sizeof sub, "%s[]", path);
    cJSON_ArrayForEach(c, v)
      shape_walk(shape, c, sub, depth + 1);
  }
}

/* types_text: the types at a path as "string|null", sorted, for messages and comparison. */
static void types_text(const cJSON *types, char *out, size_t n) {
  const char *names[8];
  int k = 0;
  const cJSON *t;
  cJSON_ArrayForEach(t, types)
    if (k < 8)
      names[k++] = t->valuestring;
  for (int i = 1; i < k; i++)
    for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
      const char *x = names[j];
      names[j] = names[j - 1];
      names[j - 1] = x;
    }
  size_t at = 0;
  out[0] = '\0';
  for (int i = 0; i < k && at < n; i++)
    at += (size_t)snprintf(out + at, n - at, "%s%s", i ? "|" : "", names[i]);
}

/* compare_shapes reports the fields of one aligned event pair that were removed, changed type
 * or added. */
static void compare_shapes(struct diff *d, const cJSON *old_e, const cJSON *new_e) {
  cJSON *a = cJSON_CreateObject(), *b = cJSON_CreateObject();
  if (!a || !b) {
    d->oom = 1;
  } else {
    if (event_data(old_e))
      shape_walk(a, event_data(old_e), "data", 0);
    if (event_data(new_e))
      shape_walk(b, event_data(new_e), "data", 0);
    const cJSON *f;
    char what[600], ta[128], tb[128];
    cJSON_ArrayForEach(f, a) {
      const cJSON *g = cJSON_GetObjectItemCaseSensitive(b, f->string);
      snprintf(what, sizeof what, "%s %s", event_name(old_e), f->string);
      types_text(f, ta, sizeof ta);
      if (!g) {
        add(d, "field-removed", what, cJSON_CreateString(ta), NULL, 1);
        continue;
      }
      types_text(g, tb, sizeof tb);
      if (strcmp(ta, tb))
        add(d, "field-type", what, cJSON_CreateString(ta), cJSON_CreateString(tb), 1);
    }
    cJSON_ArrayForEach(f, b) {
      if (cJSON_GetObjectItemCaseSensitive(a, f->string))
        continue;
      snprintf(what, sizeof what, "%s %s", event_name(new_e), f->string);
      types_text(f, tb, sizeof tb);
      add(d, "field-added", what, NULL, cJSON_CreateString(tb), 0);
    }
  }
  cJSON_Delete(a);
  cJSON_Delete(b);
}

/* ---- the sequence of events ---------------------------------------------------------------- */

/* align fills match_a[i] with the index in b of a's event i in a longest common subsequence of
 * the two name sequences, or -1. Returns 0, or -1 out of memory. */
static int align(const cJSON *const *a, int n, const cJSON *const *b, int m, int *match_a) {
  for (int i = 0; i < n; i++)
    match_a[i] = -1;
  if (n > ALIGN_MAX || m > ALIGN_MAX) { /* by position */
    for (int i = 0; i < n && i < m; i++)
      if (!strcmp(event_name(a[i]), event_name(b[i])))
        match_a[i] = i;
    return 0;
  }
  int *t = calloc((size_t)(n + 1) * (size_t)(m + 1), sizeof *t);
  if (!t)
    return -1;
#define T(i, j) t[(size_t)(i) * (size_t)(m + 1) + (size_t)(j)]
  for (int i = n - 1; i >= 0; i--)
    for (int j = m - 1; j >= 0; j--)
      T(i, j) = !strcmp(event_name(a[i]), event_name(b[j]))
                    ? T(i + 1, j + 1) + 1
                    : (T(i + 1, j) > T(i, j + 1) ? T(i + 1, j) : T(i, j + 1));
  for (int i = 0, j = 0; i < n && j < m;) {
    if (!strcmp(event_name(a[i]), event_name(b[j])) && T(i, j) == T(i + 1, j + 1) + 1)
      match_a[i++] = j++;
    else if (T(i + 1, j) >= T(i, j + 1))
      i++;
    else
      j++;
  }
#undef T
  free(t);
  return 0;
}

/* take_unmatched: the first event of list (n) named name that is not yet taken, or -1. */
static int take_unmatched(const cJSON *const *list, int n, char *taken, const char *name) {
  for (int i = 0; i < n; i++)
    if (!taken[i] && !strcmp(event_name(list[i]), name)) {
      taken[i] = 1;
      return i;
    }
  return -1;
}

/* compare_sequences reports removed, added and moved events, and compares the shapes of the
 * aligned ones. */
static void compare_sequences(struct diff *d, const cJSON *const *a, int n, const cJSON *const *b,
                              int m) {
  int *match = calloc((size_t)n + 1, sizeof *match);
  char *in_b = calloc((size_t)m + 1, 1), *left_b = calloc((size_t)m + 1, 1);
  if (!match || !in_b || !left_b || align(a, n, b, m, match)) {
    d->oom = 1;
  } else {
    for (int i = 0; i < n; i++)
      if (match[i] >= 0) {
        in_b[match[i]] = 1;
        compare_shapes(d, a[i], b[match[i]]);
      }
    memcpy(left_b, in_b, (size_t)m);
    for (int i = 0; i < n; i++) {
      if (match[i] >= 0)
        continue;
      int j = take_unmatched(b, m, left_b, event_name(a[i]));
      if (j >= 0) {
        add(d, "event-moved", event_name(a[i]), num(i + 1), num(j + 1), 1);
        compare_shapes(d, a[i], b[j]);
      } else {
        add(d, "event-removed", event_name(a[i]), num(i + 1), NULL, 1);
      }
    }
    for (int j = 0; j < m; j++)
      if (!left_b[j])
        add(d, "event-added", event_name(b[j]), NULL, num(j + 1), 1);
  }
  free(match);
  free(in_b);
  free(left_b);
}

/* ---- pairing and outcome ------------------------------------------------------------------- */

/* pairing_text writes the execute's tool-call pairing: one "name:terminals" per call, in order
 * of its first tool event, where terminals is what closed it ("post", "error", "post+error",
 * or "none"). Calls are told apart by tool_call_id; events without one each count as a call of
 * their own pre, closed by the next terminal of the same tool name. */
static void pairing_text(const cJSON *ex, char *out, size_t n) {
  enum { CALLS = 256 };
  const char *ids[CALLS], *names[CALLS];
  char closed[CALLS][24];
  int k = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, ex) {
    const char *ev = event_name(e), *id = ock_json_str(event_data(e), OCK_PF_TOOL_CALL_ID);
    const char *tool = ock_json_str(event_data(e), OCK_PF_TOOL_NAME);
    int pre = !strcmp(ev, OCK_EV_TOOL_PRE), post = !strcmp(ev, OCK_EV_TOOL_POST),
        err = !strcmp(ev, OCK_EV_TOOL_ERROR);
    if (!pre && !post && !err)
      continue;
    int at = -1;
    for (int i = 0; i < k && at < 0; i++)
      if (id ? ids[i] && !strcmp(ids[i], id)
             : (!pre && !ids[i] && !strcmp(closed[i], "none") && names[i] && tool &&
                !strcmp(names[i], tool)))
        at = i;
    if (at < 0 && k < CALLS) {
      at = k++;
      ids[at] = id;
      names[at] = tool;
      snprintf(closed[at], sizeof closed[at], "none");
    }
    if (at < 0 || pre)
      continue;
    const char *what = post ? "post" : "error";
    if (!strcmp(closed[at], "none"))
      snprintf(closed[at], sizeof closed[at], "%s", what);
    else if (strlen(closed[at]) + strlen(what) + 2 < sizeof closed[at])
      snprintf(closed[at] + strlen(closed[at]), sizeof closed[at] - strlen(closed[at]), "+%s",
               what);
  }
  size_t used = 0;
  out[0] = '\0';
  for (int i = 0; i < k && used < n; i++)
    used += (size_t)snprintf(out + used, n - used, "%s%s:%s", i ? "," : "",
                             names[i] ? names[i] : "?", closed[i]);
}

/* complete_field: a copy of field of the execute's last orchestrator:complete, or NULL. */
static cJSON *complete_field(const cJSON *ex, const char *field) {
  const cJSON *e, *last = NULL;
  cJSON_ArrayForEach(e, ex)
    if (!strcmp(event_name(e), OCK_EV_ORCHESTRATOR_COMPLETE))
      last = e;
  const cJSON *v = last ? cJSON_GetObjectItemCaseSensitive(event_data(last), field) : NULL;
  return v ? cJSON_Duplicate(v, 1) : NULL;
}

static void compare_outcome(struct diff *d, const cJSON *a, const cJSON *b) {
  static const char *const fields[] = {OCK_PF_STATUS, OCK_PF_REASON, OCK_PF_TURN_COUNT};
  for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
    cJSON *x = complete_field(a, fields[i]), *y = complete_field(b, fields[i]);
    if ((x || y) && !(x && y && cJSON_Compare(x, y, 1)))
      add(d, fields[i], "", x, y, 1);
    else {
      cJSON_Delete(x);
      cJSON_Delete(y);
    }
  }
  char pa[2048], pb[2048];
  pairing_text(a, pa, sizeof pa);
  pairing_text(b, pb, sizeof pb);
  if (strcmp(pa, pb))
    add(d, "pairing", "", cJSON_CreateString(pa), cJSON_CreateString(pb), 1);
}

/* as_list: the execute's events as an array of pointers (caller frees); NULL when empty or out
 * of memory (*n tells). */
static const cJSON **as_list(const cJSON *ex, int *n) {
  *n = cJSON_GetArraySize(ex);
  const cJSON **list = calloc((size_t)*n + 1, sizeof *list);
  int i = 0;
  const cJSON *e;
  if (list)
    cJSON_ArrayForEach(e, ex)
      list[i++] = e;
  return list;
}

int ock__diff_executes(const cJSON *old_log, const cJSON *new_log, const char *scope,
                       cJSON *changes) {
  struct diff d = {.changes = changes, .scope = scope ? scope : ""};
  int na = cJSON_GetArraySize(old_log), nb = cJSON_GetArraySize(new_log);
  if (na != nb)
    add(&d, "executes", "", num(na), num(nb), 1);
  for (int x = 0; x < na && x < nb && !d.oom; x++) {
    const cJSON *a = cJSON_GetArrayItem(old_log, x), *b = cJSON_GetArrayItem(new_log, x);
    int n = 0, m = 0;
    const cJSON **la = as_list(a, &n), **lb = as_list(b, &m);
    d.execute = x + 1;
    if (!la || !lb)
      d.oom = 1;
    else {
      compare_sequences(&d, la, n, lb, m);
      compare_outcome(&d, a, b);
    }
    free(la);
    free(lb);
  }
  return d.oom ? -1 : 0;
}
