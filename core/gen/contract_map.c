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
 * core/include/ock/contract.h expands the maps into enums and name tables. A renamed or
 * removed name is then a compile error wherever the code names it.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

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
      put_fields(file, kinds))
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
