/*
 * json_write.c: compact JSON text of a cJSON value, appended to an ock_buf.
 *
 * The same bytes cJSON_PrintUnformatted prints (the same number rules, the same escapes), at a
 * fraction of its cost, because the mock prints every journal entry on its hot path. Two
 * passes: size() bounds the text (exact for everything but numbers, which get 32 bytes), the
 * buffer grows once, and emit() writes with no check per byte. Whole numbers are printed
 * without printf; a number printf must print is read back with strtod, not sscanf.
 */
#include "ock/caps.h"
#include "ock/json.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_scan.h"
#include "ock/status.h"

#define NUMBER_MAX 32 /* "%1.17g" of any double, and its sign */

/* escaped_size: the bytes of the escape of c, a byte that is not plain (json_scan.h). */
static size_t escaped_size(unsigned char c) {
  return c >= 32 || strchr("\b\f\n\r\t", c) ? 2 : 6;
}

/* string_size: the bytes of s printed as a JSON string, quotes included; plain runs are
 * skipped a word at a time. */
static size_t string_size(const char *s) {
  const char *p = s ? s : "", *end = p + strlen(p);
  size_t n = 2 + (size_t)(end - p);
  for (; (p = ock__plain_run(p, end)) < end; p++)
    n += escaped_size((unsigned char)*p) - 1;
  return n;
}

/* size bounds the text of v; SIZE_MAX when cJSON would not print it. */
static size_t size(const cJSON *v) {
  switch (v->type & 0xFF) {
  case cJSON_NULL:
  case cJSON_True:
    return 4;
  case cJSON_False:
    return 5;
  case cJSON_Number:
    return NUMBER_MAX;
  case cJSON_String:
    return string_size(v->valuestring);
  case cJSON_Raw:
    return v->valuestring ? strlen(v->valuestring) : SIZE_MAX;
  case cJSON_Array:
  case cJSON_Object: {
    size_t n = 2;
    for (const cJSON *c = v->child; c; c = c->next) {
      size_t k = size(c);
      if (k == SIZE_MAX)
        return SIZE_MAX;
      n += k + 1 + ((v->type & 0xFF) == cJSON_Object ? string_size(c->string) + 1 : 0);
    }
    return n;
  }
  default:
    return SIZE_MAX; /* cJSON_Invalid */
  }
}

/* emit_int writes v in decimal. */
static char *emit_int(char *out, long long v) {
  char digits[24];
  size_t n = sizeof digits;
  unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
  do {
    digits[--n] = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  if (v < 0)
    digits[--n] = '-';
  memcpy(out, digits + n, sizeof digits - n);
  return out + (sizeof digits - n);
}

/* emit_number prints as cJSON 1.7 does: "%1.15g", or "%1.17g" when that does not read back as
 * the same number by cJSON's comparison (relative, within DBL_EPSILON). Whole numbers below
 * 10^15 print the same digits either way. */
static char *emit_number(char *out, double d) {
  if (isnan(d) || isinf(d))
    return memcpy(out, "null", 4), out + 4;
  if (d == floor(d) && fabs(d) < 1e15 && !(d == 0 && signbit(d)))
    return emit_int(out, (long long)d);
  char t[NUMBER_MAX + 8];
  int n = snprintf(t, sizeof t, "%1.15g", d);
  double back = strtod(t, NULL);
  double max = fabs(back) > fabs(d) ? fabs(back) : fabs(d);
  if (!(fabs(back - d) <= max * DBL_EPSILON))
    n = snprintf(t, sizeof t, "%1.17g", d);
  memcpy(out, t, (size_t)n);
  return out + n;
}

static char *emit_string(char *out, const char *s) {
  static const char hex[] = "0123456789abcdef";
  *out++ = '"';
  const char *p = s ? s : "", *end = p + strlen(p);
  for (;; p++) {
    const char *run = p;
    p = ock__plain_run(p, end);
    memcpy(out, run, (size_t)(p - run));
    out += p - run;
    if (p == end)
      break;
    *out++ = '\\';
    switch ((unsigned char)*p) {
    case '"':
      *out++ = '"';
      break;
    case '\\':
      *out++ = '\\';
      break;
    case '\b':
      *out++ = 'b';
      break;
    case '\f':
      *out++ = 'f';
      break;
    case '\n':
      *out++ = 'n';
      break;
    case '\r':
      *out++ = 'r';
      break;
    case '\t':
      *out++ = 't';
      break;
    default:
      memcpy(out, "u00", 3);
      out[3] = hex[(unsigned char)*p >> 4];
      out[4] = hex[*p & 15];
      out += 5;
    }
  }
  *out++ = '"';
  return out;
}

/* emit writes v (size() said it is printable and how much room it needs). */
static char *emit(char *out, const cJSON *v) {
  switch (v->type & 0xFF) {
  case cJSON_NULL:
    return memcpy(out, "null", 4), out + 4;
  case cJSON_False:
    return memcpy(out, "false", 5), out + 5;
  case cJSON_True:
    return memcpy(out, "true", 4), out + 4;
  case cJSON_Number:
    return emit_number(out, v->valuedouble);
  case cJSON_String:
    return emit_string(out, v->valuestring);
  case cJSON_Raw: {
    size_t n = strlen(v->valuestring);
    return memcpy(out, v->valuestring, n), out + n;
  }
  default: { /* array or object */
    int object = (v->type & 0xFF) == cJSON_Object;
    *out++ = object ? '{' : '[';
    for (const cJSON *c = v->child; c; c = c->next) {
      if (c != v->child)
        *out++ = ',';
      if (object) {
        out = emit_string(out, c->string);
        *out++ = ':';
      }
      out = emit(out, c);
    }
    *out++ = object ? '}' : ']';
    return out;
  }
  }
}

/* ended_at: what was emitted into out's reserved room ends at end. */
static int ended_at(struct ock_buf *out, const char *end) {
  out->len = (size_t)(end - out->data);
  out->data[out->len] = '\0';
  return OCK_OK;
}

int ock_json_write(struct ock_buf *out, const cJSON *v) {
  if (!v)
    return OCK_OK; /* cJSON prints nothing for no value */
  size_t n = size(v);
  if (n == SIZE_MAX)
    return OCK_EINVAL;
  int rc = ock_buf_reserve(out, n);
  if (rc)
    return rc;
  return ended_at(out, emit(out->data + out->len, v));
}

int ock_json_write_string(struct ock_buf *out, const char *s) {
  if (!s)
    return ock_buf_append(out, "null", 4);
  int rc = ock_buf_reserve(out, string_size(s));
  if (rc)
    return rc;
  return ended_at(out, emit_string(out->data + out->len, s));
}

int ock_json_write_int(struct ock_buf *out, long long v) {
  int rc = ock_buf_reserve(out, 24);
  return rc ? rc : ended_at(out, emit_int(out->data + out->len, v));
}

char *ock_json_print(const cJSON *value) {
  struct ock_buf b;
  ock_buf_init(&b, OCK_MAX_OWN_TEXT);
  if (!value || ock_json_write(&b, value)) {
    ock_buf_free(&b);
    return NULL;
  }
  return ock_buf_take(&b);
}
