/*
 * options.c: the table-driven option parser of options.h. One pass over argv: each option is
 * looked up in the table, its value checked and stored by its row's kind; arguments are kept
 * in order. The messages and the help text are made from the same rows, so a range, a list
 * of words and a metavar are written once.
 */
#include "ock/options.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define VALUE_SHOWN 300 /* bytes of a refused value quoted in a message */
#define HELP_COLUMN 28  /* widest "  -x, --name METAVAR" before the help moves to the next line */

static int is_end(const struct ock_option *o) {
  return !o->name && !o->short_name;
}

static int takes_value(const struct ock_option *o) {
  return o->kind != OCK_OPT_FLAG;
}

const struct ock_option *ock_option_find(const struct ock_option *table, const char *name) {
  for (const struct ock_option *o = table; !is_end(o); o++)
    if (o->name && !strcmp(o->name, name))
      return o;
  return NULL;
}

static const struct ock_option *find_long(const struct ock_option *table, const char *s,
                                          size_t len) {
  for (const struct ock_option *o = table; !is_end(o); o++)
    if (o->name && strlen(o->name) == len && !strncmp(o->name, s, len))
      return o;
  return NULL;
}

static const struct ock_option *find_short(const struct ock_option *table, char c) {
  for (const struct ock_option *o = table; !is_end(o); o++)
    if (o->short_name == c)
      return o;
  return NULL;
}

/* number: s is a whole decimal number (an integer when integer is set) from lo to hi. strtod
 * also takes white space, hexadecimal, nan and inf: a user never means them. */
static int number(const char *s, double lo, double hi, int integer, double *out) {
  if (!*s || strchr(" \t\n\v\f\r", *s) || strpbrk(s, "xXnNiIpP"))
    return -1;
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || *end || !isfinite(v) || v < lo || v > hi || (integer && v != floor(v)))
    return -1;
  *out = v;
  return 0;
}

static int u64(const char *s, unsigned long long *out) {
  if (!*s || strspn(s, "0123456789") != strlen(s))
    return -1;
  errno = 0;
  unsigned long long v = strtoull(s, NULL, 10);
  if (errno)
    return -1;
  *out = v;
  return 0;
}

/* join_values writes "a<sep>b<sep>c" into out (n bytes). */
static void join_values(const char *const *values, const char *sep, char *out, size_t n) {
  size_t used = 0;
  out[0] = '\0';
  for (size_t i = 0; values && values[i] && used < n; i++) {
    int w = snprintf(out + used, n - used, "%s%s", i ? sep : "", values[i]);
    if (w < 0)
      return;
    used += (size_t)w;
  }
}

static int word_index(const char *const *values, const char *s) {
  for (int i = 0; values[i]; i++)
    if (!strcasecmp(values[i], s))
      return i;
  return -1;
}

/* refuse writes into err why value, given as source, is not a value of o; returns -1. */
static int refuse(const struct ock_option *o, const char *source, const char *value, char *err,
                  size_t n) {
  char words[512];
  const char *unit = o->unit ? o->unit : o->kind == OCK_OPT_DOUBLE ? "a number" : "a whole number";
  if (o->kind == OCK_OPT_ENUM || o->kind == OCK_OPT_LIST) {
    join_values(o->values, ", ", words, sizeof words);
    snprintf(err, n, "%s: expected one of: %s; got \"%.*s\"", source, words, VALUE_SHOWN, value);
  } else if (o->kind == OCK_OPT_U64)
    snprintf(err, n, "%s: expected %s from 0 to %llu, got \"%.*s\"", source, unit, ~0ULL,
             VALUE_SHOWN, value);
  else if (o->kind == OCK_OPT_INT)
    snprintf(err, n, "%s: expected %s from %.0f to %.0f, got \"%.*s\"", source, unit, o->lo, o->hi,
             VALUE_SHOWN, value);
  else
    snprintf(err, n, "%s: expected %s from %g to %g, got \"%.*s\"", source, unit, o->lo, o->hi,
             VALUE_SHOWN, value);
  return -1;
}

/* set_list checks every part of value before it appends any, so a refused list leaves the
 * dest as it was. A part of a list of words is kept as the table spells it, whatever its case. */
static int set_list(const struct ock_option *o, char *value, const char *source, char *err,
                    size_t n) {
  struct ock_option_list *l = o->dest;
  const char *parts[OCK_OPTION_LIST_MAX];
  int k = 0;
  for (char *p = value; p;) {
    char *comma = strchr(p, ',');
    if (comma)
      *comma = '\0';
    if (*p && k < OCK_OPTION_LIST_MAX)
      parts[k++] = p;
    p = comma ? comma + 1 : NULL;
  }
  for (int i = 0; i < k && o->values; i++) {
    int w = word_index(o->values, parts[i]);
    if (w < 0)
      return refuse(o, source, parts[i], err, n);
    parts[i] = o->values[w];
  }
  for (int i = 0; i < k && l->n < OCK_OPTION_LIST_MAX; i++)
    l->items[l->n++] = parts[i];
  l->items[l->n] = NULL;
  return 0;
}

int ock_option_set(const struct ock_option *o, char *value, const char *source, char *err,
                   size_t n) {
  double v;
  unsigned long long u;
  int i;
  switch (o->kind) {
  case OCK_OPT_FLAG:
    *(int *)o->dest = 1;
    return 0;
  case OCK_OPT_STRING:
    *(const char **)o->dest = value;
    return 0;
  case OCK_OPT_INT:
  case OCK_OPT_DOUBLE:
    if (number(value, o->lo, o->hi, o->kind == OCK_OPT_INT, &v))
      return refuse(o, source, value, err, n);
    if (o->kind == OCK_OPT_INT)
      *(int *)o->dest = (int)v;
    else
      *(double *)o->dest = v;
    return 0;
  case OCK_OPT_U64:
    if (u64(value, &u))
      return refuse(o, source, value, err, n);
    *(unsigned long long *)o->dest = u;
    return 0;
  case OCK_OPT_ENUM:
    if ((i = word_index(o->values, value)) < 0)
      return refuse(o, source, value, err, n);
    *(int *)o->dest = i;
    return 0;
  case OCK_OPT_LIST:
    return set_list(o, value, source, err, n);
  }
  return -1;
}

/* The state of one pass over argv. */
struct pass {
  const struct ock_option *table;
  int argc, i;
  char **argv;
  char *err;
  size_t n;
  int failed; /* a mistake was written into err: later ones are not */
};

/* mistake keeps msg when it is the first of the pass. */
static void mistake(struct pass *p, const char *msg) {
  if (!p->failed)
    snprintf(p->err, p->n, "%s", msg);
  p->failed = 1;
}

/* apply stores the value of option o, written as source; inline_v is the value after '=' or
 * after a short option's letter, else the next argument is taken. */
static void apply(struct pass *p, const struct ock_option *o, const char *source, char *inline_v) {
  char *value = inline_v;
  char msg[1024];
  if (!takes_value(o) && inline_v) {
    snprintf(msg, sizeof msg, "%s: takes no value, got \"%.*s\"", source, VALUE_SHOWN, inline_v);
    mistake(p, msg);
    return;
  }
  if (takes_value(o) && !value && p->i + 1 < p->argc)
    value = p->argv[++p->i];
  if (takes_value(o) && !value) {
    snprintf(msg, sizeof msg, "%s: needs a value", source);
    mistake(p, msg);
  } else if (ock_option_set(o, value, source, msg, sizeof msg))
    mistake(p, msg);
}

static void long_option(struct pass *p, char *arg) {
  char *eq = strchr(arg + 2, '=');
  size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
  const struct ock_option *o = find_long(p->table, arg + 2, len);
  char source[128], msg[256];
  snprintf(source, sizeof source, "--%.*s", (int)(len < 100 ? len : 100), arg + 2);
  if (o) {
    apply(p, o, source, eq ? eq + 1 : NULL);
    return;
  }
  snprintf(msg, sizeof msg, "unknown option \"%s\"", source);
  mistake(p, msg);
}

static void short_option(struct pass *p, char *arg) {
  const struct ock_option *o = find_short(p->table, arg[1]);
  char source[3] = {'-', arg[1], '\0'}, msg[256];
  if (o) {
    apply(p, o, source, arg[2] ? arg + 2 : NULL);
    return;
  }
  snprintf(msg, sizeof msg, "unknown option \"%.100s\"", arg);
  mistake(p, msg);
}

int ock_options_parse(const struct ock_option *table, int argc, char **argv, int *npos, char *err,
                      size_t n) {
  struct pass p = {.table = table, .argc = argc, .argv = argv, .err = err, .n = n};
  int kept = 0, options_end = 0;
  for (p.i = 1; p.i < argc; p.i++) {
    char *arg = argv[p.i];
    if (options_end || arg[0] != '-' || !arg[1])
      argv[1 + kept++] = arg; /* never ahead of p.i: no argument is overwritten unread */
    else if (!strcmp(arg, "--"))
      options_end = 1;
    else if (arg[1] == '-')
      long_option(&p, arg);
    else
      short_option(&p, arg);
  }
  *npos = kept;
  return p.failed ? -1 : 0;
}

/* ---- --help ---------------------------------------------------------------------------------- */

/* left_part writes "  -x, --name METAVAR" of o into out (n bytes); returns its length. */
static size_t left_part(const struct ock_option *o, char *out, size_t n) {
  char meta[256];
  if (o->metavar)
    snprintf(meta, sizeof meta, "%s", o->metavar);
  else
    join_values(o->values, "|", meta, sizeof meta);
  char dash_x[8] = "";
  if (o->short_name)
    snprintf(dash_x, sizeof dash_x, "-%c%s", o->short_name, o->name ? ", " : "");
  int w = snprintf(out, n, "  %s%s%s%s%s", dash_x, o->name ? "--" : "", o->name ? o->name : "",
                   takes_value(o) ? " " : "", takes_value(o) ? meta : "");
  return w < 0 ? 0 : (size_t)w;
}

void ock_options_help(const struct ock_option *table, FILE *f) {
  size_t column = 0;
  char left[512];
  for (const struct ock_option *o = table; !is_end(o); o++) {
    size_t len = left_part(o, left, sizeof left);
    if (len <= HELP_COLUMN && len > column)
      column = len;
  }
  column += 2;
  for (const struct ock_option *o = table; !is_end(o); o++) {
    size_t len = left_part(o, left, sizeof left);
    fputs(left, f);
    if (len + 1 >= column)
      fprintf(f, "\n%*s", (int)column, "");
    else
      fprintf(f, "%*s", (int)(column - len), "");
    for (const char *h = o->help ? o->help : ""; *h; h++) {
      fputc(*h, f);
      if (*h == '\n')
        fprintf(f, "%*s", (int)column, "");
    }
    fputc('\n', f);
  }
}
