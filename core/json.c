/*
 * json.c: path-aware JSON getters over cJSON (see json.h).
 *
 * cJSON's own errors are a pointer into the text; here every failure becomes a path and a
 * sentence, because the reader is a person fixing a fixture or a SUT author reading a report.
 */
#define _GNU_SOURCE /* memmem */
#include "ock/json.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ock/buf.h"
#include "ock/status.h"

int ock_jerr_set(struct ock_jerr *err, int code, const char *where, const char *fmt, ...) {
  if (!err)
    return code;
  snprintf(err->where, sizeof err->where, "%s", where ? where : "$");
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->what, sizeof err->what, fmt, ap);
  va_end(ap);
  return code;
}

void ock_jerr_format(const struct ock_jerr *err, char *out, size_t n) {
  snprintf(out, n, "%s: %s", err->where, err->what);
}

const char *ock_json_type_name(const cJSON *v) {
  if (!v)
    return "missing";
  if (cJSON_IsString(v))
    return "string";
  if (cJSON_IsNumber(v))
    return "number";
  if (cJSON_IsBool(v))
    return "boolean";
  if (cJSON_IsNull(v))
    return "null";
  if (cJSON_IsArray(v))
    return "array";
  if (cJSON_IsObject(v))
    return "object";
  return "invalid";
}

/* ---- strings that hold U+0000 ----------------------------------------------------------- */

/* cJSON keeps strings as C strings: "a\u0000b" reads back as "a", and a grade of that string
 * would be a grade of its prefix. So the reader refuses such a string; the walk below only
 * runs when the text holds "\u0000" or a NUL byte at all, and only to name the path. */

#define NUL_PATH_LEVELS 32 /* deeper levels are left out of the path */

struct nul_level {
  char kind;       /* '{' or '[' */
  int index;       /* of the current element, in an array */
  const char *key; /* the current member's name as it is in the text, in an object */
  size_t key_len;
};

/* string_end: the closing quote of the string whose body starts at p; *nul set when the body
 * holds U+0000, escaped or as a byte. */
static const char *string_end(const char *p, const char *end, int *nul) {
  for (; p < end && *p != '"'; p++) {
    if (*p == '\0')
      *nul = 1;
    if (*p == '\\' && end - p >= 6 && p[1] == 'u' && !memcmp(p + 2, "0000", 4))
      *nul = 1;
    if (*p == '\\')
      p++;
  }
  return p;
}

/* nul_path writes the JSON path of a string (value or member name) that holds U+0000 into out;
 * the text is one value cJSON has read. Returns 0 when there is none. */
static int nul_path(const char *text, const char *end, char *out, size_t n) {
  struct nul_level lv[NUL_PATH_LEVELS];
  int depth = 0, key_next = 0;
  for (const char *p = text; p < end; p++) {
    struct nul_level *top = depth > 0 && depth <= NUL_PATH_LEVELS ? &lv[depth - 1] : NULL;
    if (*p == '{' || *p == '[') {
      if (depth < NUL_PATH_LEVELS)
        lv[depth] = (struct nul_level){*p, 0, "", 0};
      depth++;
      key_next = *p == '{';
    } else if (*p == '}' || *p == ']') {
      depth--;
    } else if (*p == ',' && top) {
      top->index++;
      key_next = top->kind == '{';
    } else if (*p == ':') {
      key_next = 0;
    } else if (*p == '"') {
      int nul = 0;
      const char *s = p + 1;
      p = string_end(s, end, &nul);
      if (top && top->kind == '{' && key_next) {
        top->key = s;
        top->key_len = (size_t)(p - s);
      }
      if (nul) {
        snprintf(out, n, "$");
        for (int i = 0; i < depth && i < NUL_PATH_LEVELS; i++) {
          char key[80], at[OCK_JSON_PATH_MAX];
          snprintf(key, sizeof key, "%.*s", (int)(lv[i].key_len < 64 ? lv[i].key_len : 64),
                   lv[i].key);
          if (lv[i].kind == '{')
            ock_jpath_key(at, sizeof at, out, key);
          else
            ock_jpath_index(at, sizeof at, out, lv[i].index);
          snprintf(out, n, "%s", at);
        }
        return 1;
      }
    }
  }
  return 0;
}

/* refuse_nul: OCK_EJSON naming the string when text[0..end) holds one with U+0000. */
static int refuse_nul(const char *text, const char *end, struct ock_jerr *err) {
  size_t len = (size_t)(end - text);
  if (!memchr(text, '\0', len) && !memmem(text, len, "\\u0000", 6))
    return OCK_OK;
  char path[OCK_JSON_PATH_MAX];
  if (!nul_path(text, end, path, sizeof path))
    return OCK_OK; /* the match was "\\u0000": an escaped backslash, then "u0000" */
  return ock_jerr_set(err, OCK_EJSON, path,
                      "a string holds U+0000 (\\u0000): refused, because a reader that ends "
                      "strings at NUL would take its prefix for it");
}

int ock_json_check_read(const char *text, size_t len, const cJSON *v, struct ock_jerr *err) {
  int rc = refuse_nul(text, text + len, err);
  return rc ? rc : ock_json_check_unique_keys(v, "$", err);
}

int ock_json_parse(const char *text, size_t len, cJSON **out, struct ock_jerr *err) {
  const char *end = NULL;
  cJSON *v = cJSON_ParseWithLengthOpts(text, len, &end, 0);
  if (!v) {
    /* Name the line and column of the first byte cJSON could not take. */
    size_t off = end && end >= text && (size_t)(end - text) <= len ? (size_t)(end - text) : 0;
    int line = 1, col = 1;
    for (size_t i = 0; i < off; i++) {
      if (text[i] == '\n') {
        line++;
        col = 1;
      } else {
        col++;
      }
    }
    return ock_jerr_set(err, OCK_EJSON, "$",
                        "not valid JSON (line %d, column %d; or nested deeper than %d levels)",
                        line, col, CJSON_NESTING_LIMIT);
  }
  size_t used = end && end >= text && end <= text + len ? (size_t)(end - text) : len;
  size_t rest = used;
  while (rest < len &&
         (text[rest] == ' ' || text[rest] == '\t' || text[rest] == '\n' || text[rest] == '\r'))
    rest++;
  /* cJSON stops after the first value; other readers refuse what follows it */
  int rc = rest < len
               ? ock_jerr_set(err, OCK_EJSON, "$",
                              "content after the JSON value, at byte %zu: one value only", rest)
               : ock_json_check_read(text, used, v, err);
  if (rc) {
    cJSON_Delete(v);
    return rc == OCK_ENOMEM ? rc : OCK_EJSON;
  }
  *out = v;
  return OCK_OK;
}

int ock_json_parse_file(const char *path, size_t max, cJSON **out, struct ock_jerr *err) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return ock_jerr_set(err, OCK_EIO, path, "cannot open: %s", strerror(errno));
  struct ock_buf b;
  ock_buf_init(&b, max);
  char chunk[8192];
  size_t n;
  int rc = OCK_OK;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
    rc = ock_buf_append(&b, chunk, n);
    if (rc)
      break;
  }
  if (!rc && ferror(f))
    rc = OCK_EIO;
  fclose(f);
  if (rc) {
    ock_buf_free(&b);
    return ock_jerr_set(err, rc, path,
                        rc == OCK_ETOOBIG ? "file larger than %zu bytes" : "read failed", max);
  }
  rc = ock_json_parse(b.data ? b.data : "", b.len, out, err);
  ock_buf_free(&b);
  if (rc && err) {
    char where[sizeof err->where];
    snprintf(where, sizeof where, "%s: %s", path, err->where);
    memcpy(err->where, where, sizeof where);
  }
  return rc;
}

static int by_key(const void *a, const void *b) {
  return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

#define PAIRWISE_MAX 16 /* objects up to this many members are compared pairwise, no malloc */

/* repeated_member: the name of a member obj has twice, or NULL; *rc OCK_ENOMEM when the check
 * could not be made. Larger objects are checked on sorted copies of the member pointers, so an
 * object of a million members costs n log n, not n squared. */
static const char *repeated_member(const cJSON *obj, int *rc) {
  size_t n = 0;
  const cJSON *m, *o;
  cJSON_ArrayForEach(m, obj)
    n++;
  if (n <= PAIRWISE_MAX) {
    for (m = obj->child; m; m = m->next)
      for (o = m->next; o; o = o->next)
        if (!strcmp(m->string, o->string))
          return o->string;
    return NULL;
  }
  const cJSON **members = malloc(n * sizeof *members);
  if (!members) {
    *rc = OCK_ENOMEM;
    return NULL;
  }
  size_t i = 0;
  cJSON_ArrayForEach(m, obj)
    members[i++] = m;
  qsort(members, n, sizeof *members, by_key);
  const char *dup = NULL;
  for (i = 1; i < n && !dup; i++)
    if (!strcmp(members[i - 1]->string, members[i]->string))
      dup = members[i]->string;
  free(members);
  return dup;
}

/* The members and elements from the root down to a value, so that a path is only written for
 * an error. */
struct chain {
  const struct chain *up;
  const cJSON *item; /* a member (its key is item->string) or an element */
  int index;         /* of an element */
};

static void chain_path(const struct chain *c, const char *root, char *out, size_t n) {
  if (!c) {
    snprintf(out, n, "%s", root ? root : "$");
    return;
  }
  char up[OCK_JSON_PATH_MAX];
  chain_path(c->up, root, up, sizeof up);
  if (c->item->string)
    ock_jpath_key(out, n, up, c->item->string);
  else
    ock_jpath_index(out, n, up, c->index);
}

static int unique_keys(const cJSON *value, const struct chain *at, const char *root,
                       struct ock_jerr *err) {
  if (!cJSON_IsObject(value) && !cJSON_IsArray(value))
    return OCK_OK;
  int rc = OCK_OK;
  const char *dup = cJSON_IsObject(value) ? repeated_member(value, &rc) : NULL;
  if (rc)
    return ock_jerr_set(err, rc, root, "out of memory checking member names");
  if (dup) {
    char path[OCK_JSON_PATH_MAX], mp[OCK_JSON_PATH_MAX];
    chain_path(at, root, path, sizeof path);
    ock_jpath_key(mp, sizeof mp, path, dup);
    return ock_jerr_set(err, OCK_ETYPE, mp,
                        "duplicate key: a member name appears once per object (JSON readers "
                        "disagree on which value wins)");
  }
  struct chain c = {at, NULL, 0};
  for (const cJSON *m = value->child; m && !rc; m = m->next, c.index++) {
    c.item = m;
    rc = unique_keys(m, &c, root, err);
  }
  return rc;
}

int ock_json_check_unique_keys(const cJSON *value, const char *path, struct ock_jerr *err) {
  return unique_keys(value, NULL, path, err);
}

/* join writes the k parts one after the other into out (n bytes), cut as snprintf would cut
 * them. The parsers build a path for every message they read, so this stays off printf. */
static void join(char *out, size_t n, const char *const *parts, size_t k) {
  size_t at = 0;
  for (size_t i = 0; i < k && n; i++) {
    size_t len = strlen(parts[i]);
    if (len > n - 1 - at)
      len = n - 1 - at;
    memcpy(out + at, parts[i], len);
    at += len;
  }
  if (n)
    out[at] = '\0';
}

void ock_jpath_key(char *out, size_t n, const char *path, const char *key) {
  const char *parts[] = {path ? path : "$", ".", key};
  join(out, n, parts, 3);
}

void ock_jpath_index(char *out, size_t n, const char *path, int i) {
  char digits[16];
  char *d = digits + sizeof digits;
  unsigned int u = i < 0 ? 0u - (unsigned int)i : (unsigned int)i;
  *--d = '\0';
  do {
    *--d = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  if (i < 0)
    *--d = '-';
  const char *parts[] = {path ? path : "$", "[", d, "]"};
  join(out, n, parts, 4);
}

/* Where a member is: its object's path and its key. The full path is only formatted for an
 * error, so a lookup that succeeds costs no snprintf. */
struct where {
  const char *path;
  const char *key; /* NULL: the value at path itself */
};

static int fail_at(struct ock_jerr *err, int code, const struct where *w, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail_at(struct ock_jerr *err, int code, const struct where *w, const char *fmt, ...) {
  if (!err)
    return code;
  char mp[OCK_JSON_PATH_MAX], msg[400];
  if (w->key)
    ock_jpath_key(mp, sizeof mp, w->path, w->key);
  else
    snprintf(mp, sizeof mp, "%s", w->path ? w->path : "$");
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return ock_jerr_set(err, code, mp, "%s", msg);
}

static int absent(enum ock_jneed need, const struct where *w, const char *expected,
                  struct ock_jerr *err) {
  if (need == OCK_REQUIRED)
    return fail_at(err, OCK_EMISSING, w, "required; expected %s", expected);
  return OCK_OK;
}

static int wrong(const cJSON *v, const struct where *w, const char *expected,
                 struct ock_jerr *err) {
  return fail_at(err, OCK_ETYPE, w, "expected %s, got %s", expected, ock_json_type_name(v));
}

int ock_jcheck_object(const cJSON *value, const char *path, struct ock_jerr *err) {
  const struct where w = {path, NULL};
  if (!cJSON_IsObject(value))
    return wrong(value, &w, "an object", err);
  return OCK_OK;
}

int ock_jget_string(const cJSON *obj, const char *path, const char *key, enum ock_jneed need,
                    const char **out, struct ock_jerr *err) {
  const struct where w = {path, key};
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v)
    return absent(need, &w, "a string", err);
  if (!cJSON_IsString(v))
    return wrong(v, &w, "a string", err);
  *out = v->valuestring;
  return OCK_OK;
}

int ock_jget_nonempty(const cJSON *obj, const char *path, const char *key, enum ock_jneed need,
                      const char **out, struct ock_jerr *err) {
  const char *s = NULL;
  int rc = ock_jget_string(obj, path, key, need, &s, err);
  if (rc || !s)
    return rc;
  if (!*s) {
    char mp[OCK_JSON_PATH_MAX];
    ock_jpath_key(mp, sizeof mp, path, key);
    return ock_jerr_set(err, OCK_ETYPE, mp, "expected a non-empty string, got \"\"");
  }
  *out = s;
  return OCK_OK;
}

int ock_jget_int(const cJSON *obj, const char *path, const char *key, enum ock_jneed need,
                 long long lo, long long hi, long long *out, struct ock_jerr *err) {
  const struct where w = {path, key};
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v)
    return absent(need, &w, "an integer", err);
  double d = cJSON_IsNumber(v) ? v->valuedouble : NAN;
  if (!cJSON_IsNumber(v) || d != floor(d))
    return fail_at(err, OCK_ETYPE, &w, "expected an integer, got %s",
                   cJSON_IsNumber(v) ? "a fraction" : ock_json_type_name(v));
  if (!(d >= (double)lo && d <= (double)hi))
    return fail_at(err, OCK_ETYPE, &w, "expected an integer from %lld to %lld, got %.0f", lo, hi,
                   d);
  *out = (long long)d;
  return OCK_OK;
}

int ock_jget_number(const cJSON *obj, const char *path, const char *key, enum ock_jneed need,
                    double lo, double hi, double *out, struct ock_jerr *err) {
  const struct where w = {path, key};
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v)
    return absent(need, &w, "a number", err);
  if (!cJSON_IsNumber(v))
    return wrong(v, &w, "a number", err);
  if (v->valuedouble < lo || v->valuedouble > hi)
    return fail_at(err, OCK_ETYPE, &w, "expected a number from %g to %g, got %g", lo, hi,
                   v->valuedouble);
  *out = v->valuedouble;
  return OCK_OK;
}

int ock_jget_bool(const cJSON *obj, const char *path, const char *key, enum ock_jneed need,
                  int *out, struct ock_jerr *err) {
  const struct where w = {path, key};
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v)
    return absent(need, &w, "true or false", err);
  if (!cJSON_IsBool(v))
    return wrong(v, &w, "true or false", err);
  *out = cJSON_IsTrue(v);
  return OCK_OK;
}

int ock_jget_object(const cJSON *obj, const char *path, const char *key, enum ock_jneed need,
                    const cJSON **out, struct ock_jerr *err) {
  const struct where w = {path, key};
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v)
    return absent(need, &w, "an object", err);
  if (!cJSON_IsObject(v))
    return wrong(v, &w, "an object", err);
  *out = v;
  return OCK_OK;
}

int ock_jget_array(const cJSON *obj, const char *path, const char *key, enum ock_jneed need,
                   const cJSON **out, struct ock_jerr *err) {
  const struct where w = {path, key};
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v)
    return absent(need, &w, "an array", err);
  if (!cJSON_IsArray(v))
    return wrong(v, &w, "an array", err);
  *out = v;
  return OCK_OK;
}

/* name_list writes the NULL-ended names as "a, b, c" into out (n bytes, cut to fit), each
 * between quote marks (quote: "" for none). For error messages only. */
static void name_list(char *out, size_t n, const char *const *names, const char *quote) {
  size_t used = 0;
  out[0] = '\0';
  for (int i = 0; names[i] && used < n; i++) {
    int w = snprintf(out + used, n - used, "%s%s%s%s", i ? ", " : "", quote, names[i], quote);
    if (w < 0)
      break;
    used += (size_t)w;
  }
}

int ock_jget_enum(const cJSON *obj, const char *path, const char *key, enum ock_jneed need,
                  const char *const *choices, int *out, struct ock_jerr *err) {
  const char *s = NULL;
  int rc = ock_jget_string(obj, path, key, need, &s, err);
  if (rc || !s)
    return rc;
  for (int i = 0; choices[i]; i++) {
    if (!strcmp(s, choices[i])) {
      *out = i;
      return OCK_OK;
    }
  }
  char list[256];
  name_list(list, sizeof list, choices, "\"");
  char mp[OCK_JSON_PATH_MAX];
  ock_jpath_key(mp, sizeof mp, path, key);
  return ock_jerr_set(err, OCK_ETYPE, mp, "expected one of %s, got \"%.80s\"", list, s);
}

int ock_jcheck_keys(const cJSON *obj, const char *path, const char *const *allowed,
                    struct ock_jerr *err) {
  const cJSON *m;
  cJSON_ArrayForEach(m, obj) {
    int ok = 0;
    for (int i = 0; allowed[i] && !ok; i++)
      ok = m->string && !strcmp(m->string, allowed[i]);
    if (!ok) {
      char list[400]; /* the allowed names, so the fix is in the message */
      name_list(list, sizeof list, allowed, "");
      char mp[OCK_JSON_PATH_MAX];
      ock_jpath_key(mp, sizeof mp, path, m->string ? m->string : "?");
      return ock_jerr_set(err, OCK_ETYPE, mp, "unknown member (a typo?); allowed here: %s", list);
    }
  }
  return OCK_OK;
}

const char *ock_json_str(const cJSON *obj, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

long long ock_json_int(const cJSON *obj, const char *key, long long dflt) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  /* A peer may send 1e300: a cast out of range is undefined, so such a value is absent. */
  if (!cJSON_IsNumber(v) || !(v->valuedouble > -9.2e18 && v->valuedouble < 9.2e18))
    return dflt;
  return (long long)v->valuedouble;
}

double ock_json_num(const cJSON *obj, const char *key, double dflt) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

int ock_json_bool(const cJSON *obj, const char *key, int dflt) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  return cJSON_IsBool(v) ? cJSON_IsTrue(v) : dflt;
}
