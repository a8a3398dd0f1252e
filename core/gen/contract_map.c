/*
 * contract_map.c: a build tool that writes the names of the contract, as the registry spells
 * them, into one C header, so every part names them through it and never as string literals.
 *
 *   ock-gen-contract-map core/requirements.json > contract_map.h
 *
 * For each list of names (the registry's "events", "journal.kinds", "verdicts" and
 * "capabilities") the output defines one string constant per name and one X-macro over them,
 * in registry order, the libuv UV_ERRNO_MAP pattern:
 *
 *   #define OCK_EV_TOOL_PRE "tool:pre"
 *   #define OCK_EVENT_MAP(X) ... X(TOOL_PRE, OCK_EV_TOOL_PRE) ...
 *
 * IDENT is the name upper-cased with ':' and '-' as '_'. The prefixes: OCK_EV_ (events,
 * OCK_EVENT_MAP), OCK_KIND_ (journal entry kinds, OCK_JOURNAL_KIND_MAP), OCK_V_ (verdicts,
 * OCK_VERDICT_MAP), OCK_CAP_ (capabilities, OCK_CAPABILITY_MAP). The journal's fields become
 * OCK_F_<KIND>_<FIELD> (and OCK_F_SEQ, OCK_F_T_MS, OCK_F_KIND for the members every entry has).
 * The session config's options (the registry's "config") become OCK_CFG_<OPT> name constants,
 * an enum per enum option and OCK_CONFIG_MAP(X) with each option's type, default and range
 * (see put_config), from which core/config.c makes the one typed config parser.
 * core/include/ock/contract.h expands the maps into enums and name tables. A renamed or
 * removed name is then a compile error wherever the code names it.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  size_t cap = 1 << 16, n = 0, got;
  char *buf = malloc(cap);
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n < cap)
      continue;
    char *bigger = realloc(buf, cap * 2);
    if (!bigger)
      free(buf);
    buf = bigger;
    cap *= 2;
  }
  fclose(f);
  *len = n;
  return buf;
}

/* valid_name: letters, digits, ':', '-' and '_' only, so the identifier is sound. */
static int valid_name(const char *s) {
  if (!*s)
    return 0;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != ':' && *s != '-' && *s != '_')
      return 0;
  return 1;
}

/* put_ident prints name as an identifier: upper case, ':' and '-' as '_'. */
static void put_ident(const char *name) {
  for (const char *p = name; *p; p++)
    putchar(*p == ':' || *p == '-' ? '_' : toupper((unsigned char)*p));
}

/* name_at: the name of item i of a list: the item itself when key is NULL, else its member
 * key. NULL (after a message naming the JSON path) when it is not a valid name. */
static const char *name_at(const char *file, const char *list, const cJSON *item, int i,
                           const char *key) {
  const cJSON *name = key ? cJSON_GetObjectItemCaseSensitive(item, key) : item;
  if (cJSON_IsString(name) && valid_name(name->valuestring))
    return name->valuestring;
  fprintf(stderr, "%s: $.%s[%d]%s%s: expected a name of letters, digits, ':', '-' and '_'\n", file,
          list, i, key ? "." : "", key ? key : "");
  return NULL;
}

/* put_constants prints "#define PREFIX<IDENT> "name"" for each name of the list, then
 * "#define MAP(X)" with X(IDENT, PREFIX<IDENT>) for each. Returns 0, or 1 after a message. */
static int put_constants(const char *file, const char *list, const cJSON *items, const char *key,
                         const char *prefix, const char *map) {
  if (!cJSON_IsArray(items) || !cJSON_GetArraySize(items)) {
    fprintf(stderr, "%s: $.%s: expected a non-empty array\n", file, list);
    return 1;
  }
  const cJSON *it;
  int i = 0;
  cJSON_ArrayForEach(it, items) {
    const char *name = name_at(file, list, it, i++, key);
    if (!name)
      return 1;
    printf("#define %s", prefix);
    put_ident(name);
    printf(" \"%s\"\n", name);
  }
  printf("#define %s(X)", map);
  cJSON_ArrayForEach(it, items) {
    const char *name =
        key ? cJSON_GetObjectItemCaseSensitive(it, key)->valuestring : it->valuestring;
    printf(" \\\n  X(");
    put_ident(name);
    printf(", %s", prefix);
    put_ident(name);
    printf(")");
  }
  printf("\n\n");
  return 0;
}

/* put_fields prints OCK_F_<KIND>_<FIELD> for every field of every journal kind. */
static int put_fields(const char *file, const cJSON *kinds) {
  const cJSON *k;
  int i = 0;
  cJSON_ArrayForEach(k, kinds) {
    const char *kind = cJSON_GetObjectItemCaseSensitive(k, "kind")->valuestring;
    const cJSON *fields = cJSON_GetObjectItemCaseSensitive(k, "fields"), *f;
    if (!cJSON_IsArray(fields)) {
      fprintf(stderr, "%s: $.journal.kinds[%d].fields: expected an array of names\n", file, i);
      return 1;
    }
    int j = 0;
    cJSON_ArrayForEach(f, fields) {
      if (!cJSON_IsString(f) || !valid_name(f->valuestring)) {
        fprintf(stderr, "%s: $.journal.kinds[%d].fields[%d]: expected a field name\n", file, i, j);
        return 1;
      }
      printf("#define OCK_F_");
      put_ident(kind);
      putchar('_');
      put_ident(f->valuestring);
      printf(" \"%s\"\n", f->valuestring);
      j++;
    }
    i++;
  }
  printf("\n");
  return 0;
}

/* c_ident: lower-case letters, digits and '_', not starting with a digit: a config option's
 * name is also its C member name. */
static int c_ident(const char *s) {
  if (!*s || isdigit((unsigned char)*s))
    return 0;
  for (; *s; s++)
    if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '_')
      return 0;
  return 1;
}

/* config_error prints "file: $.config[i]: what" and returns 1. */
static int config_error(const char *file, int i, const char *what) {
  fprintf(stderr, "%s: $.config[%d]: %s\n", file, i, what);
  return 1;
}

/* put_config_enum prints the string constant of each value of an enum option, its X-macro
 * OCK_CFG_<OPT>_VALUES and the C enum ock_<opt> { OCK_<OPT>_<VALUE>, ..., OCK_<OPT>_COUNT }.
 * *dflt is set to the index of the default among the values (-1 when it is not one). */
static int put_config_enum(const char *file, int i, const char *name, const cJSON *values,
                           const cJSON *dflt, int *dflt_index) {
  const cJSON *v;
  int j = 0;
  *dflt_index = -1;
  if (!cJSON_IsArray(values) || !cJSON_GetArraySize(values))
    return config_error(file, i, "an enum needs a non-empty array \"values\"");
  cJSON_ArrayForEach(v, values) {
    if (!cJSON_IsString(v) || !valid_name(v->valuestring))
      return config_error(file, i, "expected each of \"values\" a name of letters, digits, '_'");
    if (cJSON_IsString(dflt) && !strcmp(dflt->valuestring, v->valuestring))
      *dflt_index = j;
    printf("#define OCK_CFG_");
    put_ident(name);
    putchar('_');
    put_ident(v->valuestring);
    printf(" \"%s\"\n", v->valuestring);
    j++;
  }
  if (*dflt_index < 0)
    return config_error(file, i, "the default of an enum must be one of its values");
  printf("#define OCK_CFG_");
  put_ident(name);
  printf("_VALUES(X)");
  cJSON_ArrayForEach(v, values) {
    printf(" \\\n  X(");
    put_ident(v->valuestring);
    printf(", OCK_CFG_");
    put_ident(name);
    putchar('_');
    put_ident(v->valuestring);
    printf(")");
  }
  printf("\nenum ock_%s {\n", name);
  cJSON_ArrayForEach(v, values) {
    printf("  OCK_");
    put_ident(name);
    putchar('_');
    put_ident(v->valuestring);
    printf(",\n");
  }
  printf("  OCK_");
  put_ident(name);
  printf("_COUNT\n};\n");
  return 0;
}

/* config_bounds reads an option's "minimum" and "maximum" (both required for integer and
 * number) and checks that the default lies between them. */
static int config_bounds(const char *file, int i, const cJSON *o, int integer, double *lo,
                         double *hi) {
  const cJSON *mn = cJSON_GetObjectItemCaseSensitive(o, "minimum");
  const cJSON *mx = cJSON_GetObjectItemCaseSensitive(o, "maximum");
  const cJSON *d = cJSON_GetObjectItemCaseSensitive(o, "default");
  if (!cJSON_IsNumber(mn) || !cJSON_IsNumber(mx) || !cJSON_IsNumber(d))
    return config_error(file, i, "expected numbers \"minimum\", \"maximum\" and \"default\"");
  *lo = mn->valuedouble;
  *hi = mx->valuedouble;
  if (integer && (*lo != (double)(long long)*lo || *hi != (double)(long long)*hi ||
                  d->valuedouble != (double)(long long)d->valuedouble))
    return config_error(file, i, "an integer option needs integer bounds and default");
  if (*lo > *hi || d->valuedouble < *lo || d->valuedouble > *hi)
    return config_error(file, i, "the default must lie within [minimum, maximum]");
  return 0;
}

/* put_config_row writes into row the X(...) row of one option (after its enum, for an enum). */
static int put_config_row(const char *file, int i, const cJSON *o, char *row, size_t n) {
  const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "name"));
  const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "type"));
  const cJSON *d = cJSON_GetObjectItemCaseSensitive(o, "default");
  double lo = 0, hi = 1;
  char ident[128];
  if (!name || !c_ident(name) || strlen(name) >= sizeof ident)
    return config_error(file, i, "expected \"name\" of lower-case letters, digits and '_'");
  for (size_t k = 0; name[k]; k++)
    ident[k] = (char)toupper((unsigned char)name[k]), ident[k + 1] = 0;
  if (type && !strcmp(type, "integer")) {
    if (config_bounds(file, i, o, 1, &lo, &hi))
      return 1;
    snprintf(row, n, "X(%s, %s, INT, %lld, %lld, %lld)", ident, name, (long long)d->valuedouble,
             (long long)lo, (long long)hi);
  } else if (type && !strcmp(type, "number")) {
    if (config_bounds(file, i, o, 0, &lo, &hi))
      return 1;
    snprintf(row, n, "X(%s, %s, NUMBER, %.17g, %.17g, %.17g)", ident, name, d->valuedouble, lo, hi);
  } else if (type && !strcmp(type, "boolean")) {
    if (!cJSON_IsBool(d))
      return config_error(file, i, "a boolean option needs a boolean \"default\"");
    snprintf(row, n, "X(%s, %s, BOOL, %d, 0, 1)", ident, name, cJSON_IsTrue(d));
  } else if (type && !strcmp(type, "enum")) {
    int at = -1;
    const cJSON *values = cJSON_GetObjectItemCaseSensitive(o, "values");
    if (put_config_enum(file, i, name, values, d, &at))
      return 1;
    /* the default as its enum constant: OCK_<OPT>_<VALUE> */
    char value[128];
    size_t k = 0;
    for (const char *p = d->valuestring; *p && k + 1 < sizeof value; p++)
      value[k++] = *p == ':' || *p == '-' ? '_' : (char)toupper((unsigned char)*p);
    value[k] = 0;
    snprintf(row, n, "X(%s, %s, ENUM, OCK_%s_%s, 0, %d)", ident, name, ident, value,
             cJSON_GetArraySize(values) - 1);
  } else {
    return config_error(file, i, "expected \"type\" integer, number, boolean or enum");
  }
  printf("#define OCK_CFG_%s \"%s\"\n", ident, name);
  /* The default as JSON text, for --help lines and messages; an integer's bounds for option
   * tables. */
  char *text = cJSON_PrintUnformatted(d);
  if (!text)
    return 1;
  if (cJSON_IsString(d))
    printf("#define OCK_CFG_%s_DEFAULT_TEXT \"%s\"\n", ident, d->valuestring);
  else
    printf("#define OCK_CFG_%s_DEFAULT_TEXT \"%s\"\n", ident, text);
  cJSON_free(text);
  if (!strcmp(type, "integer"))
    printf("#define OCK_CFG_%s_MIN %lld\n#define OCK_CFG_%s_MAX %lld\n", ident, (long long)lo,
           ident, (long long)hi);
  return 0;
}

/* put_config prints the session config's options (the registry's "config", SPEC.md 7.4): a
 * name constant OCK_CFG_<OPT> per option, the value constants, X-macro and C enum of each enum
 * option, OCK_CONFIG_ENUMS(X) over the enum options as X(IDENT, member), and
 *
 *   #define OCK_CONFIG_MAP(X) ... X(IDENT, member, TYPE, default, minimum, maximum) ...
 *
 * with TYPE one of INT, NUMBER, BOOL, ENUM (an enum's default is its C constant, its bounds
 * 0 and the last value's index). core/config.c expands it into the one typed parser. */
static int put_config(const char *file, const cJSON *cfg) {
  if (!cJSON_IsArray(cfg) || !cJSON_GetArraySize(cfg)) {
    fprintf(stderr, "%s: $.config: expected a non-empty array of options\n", file);
    return 1;
  }
  int n = cJSON_GetArraySize(cfg);
  char(*rows)[512] = calloc((size_t)n, sizeof *rows);
  if (!rows)
    return 1;
  const cJSON *o;
  int i = 0, rc = 0;
  cJSON_ArrayForEach(o, cfg) {
    if ((rc = put_config_row(file, i, o, rows[i], sizeof rows[i])) != 0)
      break;
    i++;
  }
  if (!rc) {
    printf("#define OCK_CONFIG_ENUMS(X)");
    cJSON_ArrayForEach(o, cfg) {
      const char *name = cJSON_GetObjectItemCaseSensitive(o, "name")->valuestring;
      if (strcmp(cJSON_GetObjectItemCaseSensitive(o, "type")->valuestring, "enum"))
        continue;
      printf(" \\\n  X(");
      put_ident(name);
      printf(", %s)", name);
    }
    printf("\n#define OCK_CONFIG_MAP(X)");
    for (i = 0; i < n; i++)
      printf(" \\\n  %s", rows[i]);
    printf("\n\n");
  }
  free(rows);
  return rc;
}

static int put_contract(const char *file, const cJSON *reg) {
  const cJSON *journal = cJSON_GetObjectItemCaseSensitive(reg, "journal");
  const cJSON *kinds = cJSON_GetObjectItemCaseSensitive(journal, "kinds");
  printf("/* Generated from %s by core/gen/contract_map.c; do not edit. */\n", file);
  printf("#ifndef OCK_CONTRACT_MAP_H\n#define OCK_CONTRACT_MAP_H\n\n");
  if (put_constants(file, "events", cJSON_GetObjectItemCaseSensitive(reg, "events"), "name",
                    "OCK_EV_", "OCK_EVENT_MAP") ||
      put_constants(file, "journal.kinds", kinds, "kind", "OCK_KIND_", "OCK_JOURNAL_KIND_MAP") ||
      put_constants(file, "verdicts", cJSON_GetObjectItemCaseSensitive(reg, "verdicts"), NULL,
                    "OCK_V_", "OCK_VERDICT_MAP") ||
      put_constants(file, "capabilities", cJSON_GetObjectItemCaseSensitive(reg, "capabilities"),
                    NULL, "OCK_CAP_", "OCK_CAPABILITY_MAP") ||
      put_constants(file, "journal.common", cJSON_GetObjectItemCaseSensitive(journal, "common"),
                    NULL, "OCK_F_", "OCK_JOURNAL_COMMON_MAP") ||
      put_fields(file, kinds) || put_config(file, cJSON_GetObjectItemCaseSensitive(reg, "config")))
    return 1;
  printf("#endif\n");
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s REGISTRY.json > contract_map.h\n", argv[0]);
    return 2;
  }
  size_t len = 0;
  char *text = slurp(argv[1], &len);
  cJSON *reg = text ? cJSON_ParseWithLength(text, len) : NULL;
  free(text);
  if (!reg) {
    fprintf(stderr, "%s: not readable as JSON\n", argv[1]);
    return 1;
  }
  int rc = put_contract(argv[1], reg);
  cJSON_Delete(reg);
  return rc || fflush(stdout) ? 1 : 0;
}
