/*
 * event_map.c: a build tool that writes the event names of the registry as a C X-macro, so
 * the event model is typed once from its one source.
 *
 *   ock-gen-event-map core/requirements.json > event_map.h
 *
 * The output defines OCK_EVENT_MAP(X), one X(IDENT, "name") per event of the registry's
 * "events" array, in registry order; IDENT is the name upper-cased with ':' and '-' as '_'
 * ("tool:pre" -> TOOL_PRE). core/include/ock/events.h expands it into enum ock_event and its
 * name table. A renamed or removed event is then a compile error wherever the code names it.
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

/* valid_name: lower-case letters, digits, ':' and '-' only, so the identifier is sound. */
static int valid_name(const char *s) {
  if (!*s)
    return 0;
  for (; *s; s++)
    if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != ':' && *s != '-' &&
        *s != '_')
      return 0;
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s REGISTRY.json > event_map.h\n", argv[0]);
    return 2;
  }
  size_t len = 0;
  char *text = slurp(argv[1], &len);
  cJSON *reg = text ? cJSON_ParseWithLength(text, len) : NULL;
  free(text);
  const cJSON *events = cJSON_GetObjectItemCaseSensitive(reg, "events");
  if (!cJSON_IsArray(events) || !cJSON_GetArraySize(events)) {
    fprintf(stderr, "%s: $.events: expected a non-empty array of events\n", argv[1]);
    cJSON_Delete(reg);
    return 1;
  }
  printf("/* Generated from %s by core/gen/event_map.c; do not edit. */\n", argv[1]);
  printf("#ifndef OCK_EVENT_MAP_H\n#define OCK_EVENT_MAP_H\n\n#define OCK_EVENT_MAP(X)");
  int i = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, events) {
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "name");
    if (!cJSON_IsString(name) || !valid_name(name->valuestring)) {
      fprintf(stderr, "%s: $.events[%d].name: expected a name of a-z, 0-9, ':' and '-'\n", argv[1],
              i);
      cJSON_Delete(reg);
      return 1;
    }
    printf(" \\\n  X(");
    for (const char *p = name->valuestring; *p; p++)
      putchar(*p == ':' || *p == '-' ? '_' : toupper((unsigned char)*p));
    printf(", \"%s\")", name->valuestring);
    i++;
  }
  printf("\n\n#endif\n");
  cJSON_Delete(reg);
  return fflush(stdout) ? 1 : 0;
}
