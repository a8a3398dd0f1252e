/*
 * contract_map.c: a build tool that writes the names of the contract, as the registry spells
 * them, into one C header, so every part names them through it and never as string literals.
 *
 *   ock-gen-contract-map core/requirements.json core/contract-shapes.json > contract_map.h
 *
 * For each list of names (the registry's "events", "journal.kinds", "verdicts",
 * "capabilities" and the requirements' ids) the output defines one string constant per name
 * and one X-macro over them, in registry order, the libuv UV_ERRNO_MAP pattern:
 *
 *   #define OCK_EV_TOOL_PRE "tool:pre"
 *   #define OCK_EVENT_MAP(X) ... X(TOOL_PRE, OCK_EV_TOOL_PRE) ...
 *
 * IDENT is the name upper-cased with ':' and '-' as '_'. The prefixes: OCK_EV_ (events,
 * OCK_EVENT_MAP), OCK_KIND_ (journal entry kinds, OCK_JOURNAL_KIND_MAP), OCK_V_ (verdicts,
 * OCK_VERDICT_MAP), OCK_CAP_ (capabilities, OCK_CAPABILITY_MAP); a requirement id is its own
 * identifier, "OCK-CANCEL-001" as OCK_CANCEL_001 (OCK_REQUIREMENT_MAP), so the check table
 * (conformance/checks/checks.def) names a requirement the registry lacks only as a compile
 * error. The journal's fields become
 * OCK_F_<KIND>_<FIELD> (and OCK_F_SEQ, OCK_F_T_MS, OCK_F_KIND for the members every entry has).
 * The session config's options (the registry's "config") become OCK_CFG_<OPT> name constants,
 * an enum per enum option and OCK_CONFIG_MAP(X) with each option's type, default and range
 * (see put_config), from which core/config.c makes the one typed config parser. The event
 * payloads' fields become OCK_PF_<FIELD> name constants, OCK_PAYLOAD_FIELD_MAP and
 * OCK_EVENT_FIELD_MAP (each event's fields, required or optional, with their JSON types from
 * core/contract-shapes.json; see put_payload), and each set of values a field may take (an
 * "enum" there) OCK_PV_<FIELD>_<VALUE> constants and an X-macro (see put_value_sets).
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

/* ident_into writes name as put_ident prints it into out (n bytes, NUL-terminated), after what
 * out already holds. */
static void ident_into(char *out, size_t n, const char *name) {
  size_t k = strlen(out);
  for (const char *p = name; *p && k + 1 < n; p++)
    out[k++] = *p == ':' || *p == '-' ? '_' : (char)toupper((unsigned char)*p);
  out[k] = '\0';
}

/* put_value_sets prints the value constants of every "enum" of strings that s holds, at any
 * depth: OCK_PV_<PATH>_<VALUE> and the X-macro OCK_PV_<PATH>_MAP, where PATH joins the names of
 * the members that lead to it, "properties", "allOf" and array indices left out:
 * field_types.status is OCK_PV_STATUS_CANCELLED, event_field_overrides' tool:error error
 * (allOf[1].properties.type) is OCK_PV_TOOL_ERROR_ERROR_TYPE_TIMEOUT, defs' hook_result action
 * is OCK_PV_HOOK_RESULT_ACTION_DENY. Returns 0, or 1 after a message. */
static int put_value_sets(const char *file, const cJSON *s, const char *path, const char *ident) {
  if (cJSON_IsArray(s)) {
    const cJSON *it;
    cJSON_ArrayForEach(it, s) {
      if (put_value_sets(file, it, path, ident))
        return 1;
    }
    return 0;
  }
  if (!cJSON_IsObject(s))
    return 0;
  const cJSON *en = cJSON_GetObjectItemCaseSensitive(s, "enum");
  if (cJSON_IsArray(en) && cJSON_IsString(cJSON_GetArrayItem(en, 0))) {
    char prefix[160] = "OCK_PV_", map[170];
    ident_into(prefix, sizeof prefix, ident);
    snprintf(map, sizeof map, "%s_MAP", prefix);
    ident_into(prefix, sizeof prefix, "_");
    if (put_constants(file, path, en, NULL, prefix, map))
      return 1;
  }
  const cJSON *m;
  cJSON_ArrayForEach(m, s) {
    if (!strcmp(m->string, "enum"))
      continue;
    int named = strcmp(m->string, "properties") && strcmp(m->string, "allOf");
    char sub_path[300], sub_ident[160];
    snprintf(sub_path, sizeof sub_path, "%s.%s", path, m->string);
    snprintf(sub_ident, sizeof sub_ident, "%s%s%s", ident, named && *ident ? "_" : "",
             named ? m->string : "");
    if (put_value_sets(file, m, sub_path, sub_ident))
      return 1;
  }
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

/* JSON types of a payload field, as the bits OCK_JT_* of the generated header. An integer is a
 * type of its own (a number without a fraction); "number" allows any number. */
enum {
  JT_STRING = 1,
  JT_NUMBER = 2,
  JT_BOOL = 4,
  JT_NULL = 8,
  JT_OBJECT = 16,
  JT_ARRAY = 32,
  JT_INTEGER = 64,
  JT_ANY = 127
};

/* type_bit: the bit of one JSON Schema type name; 0 when it is none the header knows. */
static int type_bit(const char *t) {
  static const struct {
    const char *name;
    int bit;
  } names[] = {{"string", JT_STRING}, {"integer", JT_INTEGER}, {"number", JT_NUMBER},
               {"boolean", JT_BOOL},  {"null", JT_NULL},       {"object", JT_OBJECT},
               {"array", JT_ARRAY}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strcmp(t, names[i].name))
      return names[i].bit;
  return 0;
}

/* resolve: the schema s stands for: a "$ref" into "defs" or the first schema of an "allOf"
 * followed (at most 4 deep), else s itself. NULL when a reference points nowhere. */
static const cJSON *resolve(const cJSON *shapes, const cJSON *s) {
  for (int depth = 0; s && depth < 5; depth++) {
    const char *ref = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "$ref"));
    const cJSON *all = cJSON_GetObjectItemCaseSensitive(s, "allOf");
    if (ref && !strncmp(ref, "#/$defs/", 8))
      s = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(shapes, "defs"),
                                           ref + 8);
    else if (cJSON_IsArray(all))
      s = cJSON_GetArrayItem(all, 0);
    else
      return s;
  }
  return NULL;
}

/* shape_types: the JSON types a schema of contract-shapes.json allows, as JT_* bits: its "type"
 * (a name or a list), an "enum" of strings (a string), an "anyOf" (the union of its schemas'),
 * after a "$ref" or "allOf" is followed (resolve). 0 when none of them says. */
static int shape_types(const cJSON *shapes, const cJSON *s, int depth) {
  s = resolve(shapes, s);
  const cJSON *type = cJSON_GetObjectItemCaseSensitive(s, "type"), *t;
  int bits = 0;
  if (!s || depth > 4)
    return 0;
  if (cJSON_IsString(type))
    return type_bit(type->valuestring);
  if (cJSON_IsArray(type)) {
    cJSON_ArrayForEach(t, type) {
      int b = cJSON_IsString(t) ? type_bit(t->valuestring) : 0;
      if (!b)
        return 0;
      bits |= b;
    }
    return bits;
  }
  const cJSON *en = cJSON_GetObjectItemCaseSensitive(s, "enum");
  if (cJSON_IsArray(en)) {
    cJSON_ArrayForEach(t, en) {
      if (!cJSON_IsString(t))
        return 0;
    }
    return JT_STRING;
  }
  cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(s, "anyOf")) {
    int b = shape_types(shapes, t, depth + 1);
    if (!b)
      return 0;
    bits |= b;
  }
  return bits;
}

/* put_types prints the bits as "OCK_JT_STRING | OCK_JT_NULL". */
static void put_types(int bits) {
  static const char *const names[] = {"STRING", "NUMBER", "BOOL",   "NULL",
                                      "OBJECT", "ARRAY",  "INTEGER"};
  const char *sep = "";
  for (int b = 0; b < 7; b++) {
    if (bits & (1 << b)) {
      printf("%sOCK_JT_%s", sep, names[b]);
      sep = " | ";
    }
  }
}

/* put_minimum prints an integer schema's "minimum", or OCK_NO_MINIMUM when it has none. Returns
 * 1 after a message for a minimum that is not a whole number. */
static int put_minimum(const char *file, const cJSON *shapes, const cJSON *s, const char *field) {
  const cJSON *mn = cJSON_GetObjectItemCaseSensitive(resolve(shapes, s), "minimum");
  if (!mn) {
    printf("OCK_NO_MINIMUM");
    return 0;
  }
  if (!cJSON_IsNumber(mn) || mn->valuedouble != (double)(long long)mn->valuedouble ||
      mn->valuedouble < -1e15 || mn->valuedouble > 1e15) {
    fprintf(stderr, "%s: field %s: expected a whole number as \"minimum\"\n", file, field);
    return 1;
  }
  printf("%lld", (long long)mn->valuedouble);
  return 0;
}

/* field_schema: the schema of field of event: its override for that event, else its
 * "field_types" entry; NULL when there is none. */
static const cJSON *field_schema(const cJSON *shapes, const char *event, const char *field) {
  const cJSON *over = cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(shapes, "event_field_overrides"), event ? event : "");
  const cJSON *s = cJSON_GetObjectItemCaseSensitive(over, field);
  return s ? s
           : cJSON_GetObjectItemCaseSensitive(
                 cJSON_GetObjectItemCaseSensitive(shapes, "field_types"), field);
}

/* field_type: the JT_* bits of field of event (its override for that event, else its type), or
 * 0 after a message when contract-shapes.json types it not. */
static int field_type(const char *file, const cJSON *shapes, const char *event, const char *field) {
  const cJSON *s = field_schema(shapes, event, field);
  int bits = s ? shape_types(shapes, s, 0) : 0;
  if (!bits)
    fprintf(stderr, "%s: field %s%s%s has no JSON type in $.field_types\n", file, field,
            event ? " of " : "", event ? event : "");
  return bits;
}

/* listed: 1 when the array list holds the string name. */
static int listed(const cJSON *list, const char *name) {
  const cJSON *it;
  cJSON_ArrayForEach(it, list) {
    if (cJSON_IsString(it) && !strcmp(it->valuestring, name))
      return 1;
  }
  return 0;
}

/* put_members prints the rows X(EVENT, FIELD, "member", REQUIRED, TYPES, MINIMUM) of an object
 * schema (a field's, or its array items'): each member it requires (of any type when its schema
 * gives none), and each member it types. Nothing deeper: a member's own members are not checked. */
static int put_members(const char *file, const cJSON *shapes, const char *event, const char *field,
                       const cJSON *obj) {
  const cJSON *props = cJSON_GetObjectItemCaseSensitive(obj, "properties");
  const cJSON *req = cJSON_GetObjectItemCaseSensitive(obj, "required"), *m;
  cJSON_ArrayForEach(m, req) {
    if (!cJSON_IsString(m) || !c_ident(m->valuestring)) {
      fprintf(stderr, "%s: field %s: expected member names in \"required\"\n", file, field);
      return 1;
    }
    if (!cJSON_GetObjectItemCaseSensitive(props, m->valuestring)) {
      printf(" \\\n  X(");
      put_ident(event);
      printf(", ");
      put_ident(field);
      printf(", \"%s\", 1, OCK_JT_ANY, OCK_NO_MINIMUM)", m->valuestring);
    }
  }
  cJSON_ArrayForEach(m, props) {
    int bits = shape_types(shapes, m, 0), required = listed(req, m->string);
    if (!c_ident(m->string)) {
      fprintf(stderr, "%s: field %s: member %s is no plain name\n", file, field, m->string);
      return 1;
    }
    if (!bits && !required)
      continue; /* any value, and it may be left out: nothing to check */
    printf(" \\\n  X(");
    put_ident(event);
    printf(", ");
    put_ident(field);
    printf(", \"%s\", %d, ", m->string, required);
    put_types(bits ? bits : JT_ANY);
    printf(", ");
    if (put_minimum(file, shapes, m, m->string))
      return 1;
    putchar(')');
  }
  return 0;
}

/* put_shapes prints, for every field of every event, what the two maps below the field map say
 * of its inside: OCK_EVENT_ITEM_MAP the type of an array's items, OCK_EVENT_MEMBER_MAP the
 * members of an object (or of each object item of an array). */
static int put_shapes(const char *file, const cJSON *reg, const cJSON *shapes) {
  static const char *const lists[] = {"required", "optional"};
  const cJSON *ev, *f;
  for (int pass = 0; pass < 2; pass++) {
    printf(pass ? "\n#define OCK_EVENT_MEMBER_MAP(X)" : "\n#define OCK_EVENT_ITEM_MAP(X)");
    cJSON_ArrayForEach(ev, cJSON_GetObjectItemCaseSensitive(reg, "events")) {
      const char *event = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev, "name"));
      for (int l = 0; l < 2; l++) {
        cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(ev, lists[l])) {
          const cJSON *s = resolve(shapes, field_schema(shapes, event, f->valuestring));
          const cJSON *items = resolve(shapes, cJSON_GetObjectItemCaseSensitive(s, "items"));
          int item_bits = items ? shape_types(shapes, items, 0) : 0;
          if (!pass && item_bits) {
            printf(" \\\n  X(");
            put_ident(event);
            printf(", ");
            put_ident(f->valuestring);
            printf(", ");
            put_types(item_bits);
            putchar(')');
          }
          if (pass && put_members(file, shapes, event, f->valuestring, items ? items : s))
            return 1;
        }
      }
    }
  }
  printf("\n");
  return 0;
}

/* add_name appends name to names[*n] unless it is there; 1 when the table is full. */
static int add_name(const char **names, int *n, int cap, const char *name) {
  for (int i = 0; i < *n; i++)
    if (!strcmp(names[i], name))
      return 0;
  if (*n >= cap)
    return 1;
  names[(*n)++] = name;
  return 0;
}

/* put_event_fields prints the rows X(EVENT, FIELD, REQUIRED, TYPES, MINIMUM) of one event's
 * "required" (REQUIRED 1) and "optional" (0) fields, collecting each field name into names. */
static int put_event_fields(const char *file, const cJSON *shapes, const cJSON *ev, int i,
                            const char **names, int *n, int cap) {
  static const char *const lists[] = {"required", "optional"};
  const char *event = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev, "name"));
  for (int l = 0; l < 2; l++) {
    const cJSON *fields = cJSON_GetObjectItemCaseSensitive(ev, lists[l]), *f;
    int j = 0;
    cJSON_ArrayForEach(f, fields) {
      if (!cJSON_IsString(f) || !c_ident(f->valuestring)) {
        fprintf(stderr, "%s: $.events[%d].%s[%d]: expected a field name\n", file, i, lists[l], j);
        return 1;
      }
      int bits = field_type(file, shapes, event, f->valuestring);
      if (!bits || add_name(names, n, cap, f->valuestring))
        return 1;
      printf(" \\\n  X(");
      put_ident(event);
      putchar(',');
      putchar(' ');
      put_ident(f->valuestring);
      printf(", %d, ", !l);
      put_types(bits);
      printf(", ");
      if (put_minimum(file, shapes, field_schema(shapes, event, f->valuestring), f->valuestring))
        return 1;
      putchar(')');
      j++;
    }
  }
  return 0;
}

/* put_payload prints the event payloads' fields (the registry's events with their "required" and
 * "optional" fields, typed by contract-shapes.json's "field_types", "event_field_overrides" and
 * "lifecycle_fields"):
 *
 *   #define OCK_PF_TOOL_CALL_ID "tool_call_id"            one name constant per field
 *   #define OCK_PAYLOAD_FIELD_MAP(X) ... X(TOOL_CALL_ID, OCK_PF_TOOL_CALL_ID) ...
 *   #define OCK_EVENT_FIELD_MAP(X) ... X(PROVIDER_REQUEST, ITERATION, 1, OCK_JT_INTEGER, 1) ...
 *   #define OCK_EVENT_ITEM_MAP(X) ... X(TOOL_SELECTING, AVAILABLE_TOOLS, OCK_JT_STRING) ...
 *   #define OCK_EVENT_MEMBER_MAP(X) ... X(PROVIDER_ERROR, ERROR, "type", 1, OCK_JT_STRING,
 *                                         OCK_NO_MINIMUM) ...
 *   #define OCK_LIFECYCLE_FIELD_MAP(X) X(TRACE_ID, OCK_JT_STRING) X(STAGE, OCK_JT_STRING)
 *
 * An event row says whether the field is required (1) or optional (0) for that event, the JSON
 * types it may have, as OCK_JT_* bits (OCK_JT_INTEGER: a number without a fraction), and an
 * integer's "minimum" (OCK_NO_MINIMUM when it has none). An item row gives the type of each item
 * of an array field; a member row one member of an object field (or of each object item of an
 * array field): required or not, its types and minimum, one level deep. What the schemas say
 * beyond that (enums, minLength, a member's own members) is not in the header. The lifecycle
 * fields are every event's with the lifecycle capability declared. conformance/model/payload.c
 * reads payloads through these maps, and core/events.c checks their types by them. */
static int put_payload(const char *file, const cJSON *reg, const cJSON *shapes) {
  const char *names[128];
  int n = 0, i = 0;
  const cJSON *ev, *f;
  printf("#define OCK_JT_STRING 0x01\n#define OCK_JT_NUMBER 0x02\n#define OCK_JT_BOOL 0x04\n"
         "#define OCK_JT_NULL 0x08\n#define OCK_JT_OBJECT 0x10\n#define OCK_JT_ARRAY 0x20\n"
         "#define OCK_JT_INTEGER 0x40\n#define OCK_JT_ANY 0x7f\n"
         "#define OCK_NO_MINIMUM (-0x7fffffffffffffffLL - 1)\n");
  printf("#define OCK_EVENT_FIELD_MAP(X)");
  cJSON_ArrayForEach(ev, cJSON_GetObjectItemCaseSensitive(reg, "events")) {
    if (put_event_fields(file, shapes, ev, i++, names, &n, 96))
      return 1;
  }
  if (put_shapes(file, reg, shapes))
    return 1;
  printf("#define OCK_LIFECYCLE_FIELD_MAP(X)");
  int lifecycle = n;
  cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(shapes, "lifecycle_fields")) {
    int bits = cJSON_IsString(f) && c_ident(f->valuestring)
                   ? field_type(file, shapes, NULL, f->valuestring)
                   : 0;
    if (!bits || add_name(names, &n, 128, f->valuestring))
      return 1;
    printf(" \\\n  X(");
    put_ident(f->valuestring);
    printf(", ");
    put_types(bits);
    putchar(')');
  }
  if (n == lifecycle) {
    fprintf(stderr, "%s: $.lifecycle_fields: expected field names\n", file);
    return 1;
  }
  printf("\n");
  for (i = 0; i < n; i++) {
    printf("#define OCK_PF_");
    put_ident(names[i]);
    printf(" \"%s\"\n", names[i]);
  }
  printf("#define OCK_PAYLOAD_FIELD_MAP(X)");
  for (i = 0; i < n; i++) {
    printf(" \\\n  X(");
    put_ident(names[i]);
    printf(", OCK_PF_");
    put_ident(names[i]);
    putchar(')');
  }
  printf("\n\n");
  return 0;
}

static int put_contract(const char *file, const cJSON *reg, const char *shapes_file,
                        const cJSON *shapes) {
  const cJSON *journal = cJSON_GetObjectItemCaseSensitive(reg, "journal");
  const cJSON *kinds = cJSON_GetObjectItemCaseSensitive(journal, "kinds");
  printf("/* Generated from %s and %s by core/gen/contract_map.c; do not edit. */\n", file,
         shapes_file);
  printf("#ifndef OCK_CONTRACT_MAP_H\n#define OCK_CONTRACT_MAP_H\n\n");
  if (put_constants(file, "events", cJSON_GetObjectItemCaseSensitive(reg, "events"), "name",
                    "OCK_EV_", "OCK_EVENT_MAP") ||
      put_constants(file, "journal.kinds", kinds, "kind", "OCK_KIND_", "OCK_JOURNAL_KIND_MAP") ||
      put_constants(file, "verdicts", cJSON_GetObjectItemCaseSensitive(reg, "verdicts"), NULL,
                    "OCK_V_", "OCK_VERDICT_MAP") ||
      put_constants(file, "capabilities", cJSON_GetObjectItemCaseSensitive(reg, "capabilities"),
                    NULL, "OCK_CAP_", "OCK_CAPABILITY_MAP") ||
      put_constants(file, "requirements", cJSON_GetObjectItemCaseSensitive(reg, "requirements"),
                    "id", "", "OCK_REQUIREMENT_MAP") ||
      put_constants(file, "journal.common", cJSON_GetObjectItemCaseSensitive(journal, "common"),
                    NULL, "OCK_F_", "OCK_JOURNAL_COMMON_MAP") ||
      put_fields(file, kinds) ||
      put_config(file, cJSON_GetObjectItemCaseSensitive(reg, "config")) ||
      put_payload(shapes_file, reg, shapes) ||
      put_value_sets(shapes_file, cJSON_GetObjectItemCaseSensitive(shapes, "field_types"),
                     "field_types", "") ||
      put_value_sets(shapes_file, cJSON_GetObjectItemCaseSensitive(shapes, "event_field_overrides"),
                     "event_field_overrides", "") ||
      put_value_sets(shapes_file, cJSON_GetObjectItemCaseSensitive(shapes, "defs"), "defs", ""))
    return 1;
  printf("#endif\n");
  return 0;
}

/* load reads a JSON file; NULL after a message. */
static cJSON *load(const char *path) {
  size_t len = 0;
  char *text = slurp(path, &len);
  cJSON *j = text ? cJSON_ParseWithLength(text, len) : NULL;
  free(text);
  if (!j)
    fprintf(stderr, "%s: not readable as JSON\n", path);
  return j;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s REGISTRY.json CONTRACT-SHAPES.json > contract_map.h\n", argv[0]);
    return 2;
  }
  cJSON *reg = load(argv[1]), *shapes = reg ? load(argv[2]) : NULL;
  int rc = !reg || !shapes || put_contract(argv[1], reg, argv[2], shapes);
  cJSON_Delete(reg);
  cJSON_Delete(shapes);
  return rc || fflush(stdout) ? 1 : 0;
}
