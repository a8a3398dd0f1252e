/*
 * spec.c: a build tool that writes the requirement texts of the registry into the two documents
 * that show them, so that the registry is their one source.
 *
 *   ock-gen-spec [--check] core/requirements.json SPEC.md docs/requirements.md
 *
 * SPEC.md: the region between the marker lines BEGIN_MARK and END_MARK (Section 2) is replaced
 * by the registry's "spec.section_2" lines and, per group of "groups", the group's intro and one
 * block per requirement (the ID, then its level, capability, black-box mark and sentence). The
 * rest of SPEC.md is left as it is. docs/requirements.md is written whole: "spec.page_intro",
 * the journal table ("spec.journal_head", one row per "journal.kinds" entry from its "doc" and
 * "written", "spec.journal_after"), then per group its intro and "notes" and the full blocks
 * (with the rationale and the "Checked by" line).
 *
 * --check writes nothing: it exits 1 naming the first line where a file differs from what it
 * would write (make lint and make test run it; make spec writes). Exit 2: a usage error or a
 * registry the documents cannot be made from, named by its JSON path.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#define BEGIN_MARK                                                                                 \
  "<!-- Section 2 is written by make spec from core/requirements.json: edit the registry, not "    \
  "this text. -->\n"
#define END_MARK "<!-- End of the text written by make spec. -->\n"
/* No document the tool writes or reads comes near this. */
#define DOC_MAX (4u << 20)

struct text {
  char *s;
  size_t n, cap;
  int failed;
};

static void put_n(struct text *t, const char *s, size_t n) {
  if (t->failed)
    return;
  if (t->n + n + 1 > t->cap) {
    size_t cap = t->cap ? t->cap : 1 << 16;
    while (cap < t->n + n + 1)
      cap *= 2;
    char *bigger = cap <= DOC_MAX ? realloc(t->s, cap) : NULL;
    if (!bigger) {
      t->failed = 1;
      return;
    }
    t->s = bigger;
    t->cap = cap;
  }
  memcpy(t->s + t->n, s, n);
  t->n += n;
  t->s[t->n] = '\0';
}

static void put(struct text *t, const char *s) {
  put_n(t, s, strlen(s));
}

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  struct text t = {0};
  char chunk[1 << 14];
  size_t got;
  while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
    put_n(&t, chunk, got);
  int bad = ferror(f) || t.failed;
  fclose(f);
  if (bad || !t.s) {
    free(t.s);
    return bad ? NULL : calloc(1, 1);
  }
  *len = t.n;
  return t.s;
}

/* str: member key of o when it is a string without a line break, else NULL. */
static const char *str(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) && !strchr(v->valuestring, '\n') ? v->valuestring : NULL;
}

/* put_lines puts each string of the array member key of o as one line. Returns 0, or 1 after
 * naming path.key when the member is there and is not an array of strings without line
 * breaks; an absent member puts nothing. */
static int put_lines(struct text *t, const cJSON *o, const char *path, const char *key) {
  const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key), *line;
  if (!a)
    return 0;
  int ok = cJSON_IsArray(a);
  cJSON_ArrayForEach(line, a)
    ok = ok && cJSON_IsString(line) && !strchr(line->valuestring, '\n');
  if (!ok) {
    fprintf(stderr, "$.%s.%s: expected an array of lines (strings without a line break)\n", path,
            key);
    return 1;
  }
  cJSON_ArrayForEach(line, a) {
    put(t, line->valuestring);
    put(t, "\n");
  }
  return 0;
}

static void put_field(struct text *t, const char *name, const char *value) {
  put(t, "- **");
  put(t, name);
  put(t, ":** ");
  put(t, value);
  put(t, "\n");
}

/* put_block puts one requirement's block: for SPEC.md the ID, then one line with the level,
 * the capability, the black-box mark and the sentence; for the page (full) the ID and a list of
 * level, capability, black-box, the sentence, the rationale and Checked by. Returns 0, or 1 after
 * naming the member that is missing. */
static int put_block(struct text *t, const cJSON *r, int i, int full) {
  static const char *const need[] = {"id", "level", "capability", "text", "checked_by"};
  for (size_t k = 0; k < sizeof need / sizeof need[0]; k++)
    if (!str(r, need[k])) {
      fprintf(stderr, "$.requirements[%d].%s: expected a string without a line break\n", i,
              need[k]);
      return 1;
    }
  put(t, "### ");
  put(t, str(r, "id"));
  put(t, "\n");
  int blackbox = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "blackbox"));
  if (!full) { /* "**MUST**, `core`, black-box. The sentence." */
    put(t, "**");
    put(t, str(r, "level"));
    put(t, "**, `");
    put(t, str(r, "capability"));
    put(t, blackbox ? "`, black-box. " : "`. ");
    put(t, str(r, "text"));
    put(t, "\n\n");
    return 0;
  }
  put_field(t, "Level", str(r, "level"));
  put_field(t, "Capability", str(r, "capability"));
  if (blackbox)
    put_field(t, "Black-box", "yes");
  put_field(t, "Requirement", str(r, "text"));
  if (str(r, "rationale"))
    put_field(t, "Rationale", str(r, "rationale"));
  put_field(t, "Checked by", str(r, "checked_by"));
  put(t, "\n");
  return 0;
}

/* put_groups puts "## 2.N GROUP" for each entry of $.groups, its intro (and, full, its notes),
 * and the blocks of its requirements. The requirements of a group stand together in the
 * registry, in the order of $.groups, and every requirement's group is listed: else 1. */
static int put_groups(struct text *t, const cJSON *reg, int full) {
  const cJSON *groups = cJSON_GetObjectItemCaseSensitive(reg, "groups");
  const cJSON *reqs = cJSON_GetObjectItemCaseSensitive(reg, "requirements");
  int n = cJSON_GetArraySize(reqs), at = 0, g = 0;
  const cJSON *group;
  cJSON_ArrayForEach(group, groups) {
    const char *name = str(group, "name");
    char path[32], head[96];
    snprintf(path, sizeof path, "groups[%d]", g);
    if (!name) {
      fprintf(stderr, "$.%s.name: expected a group name\n", path);
      return 1;
    }
    snprintf(head, sizeof head, "## 2.%d %s\n\n", ++g, name);
    put(t, head);
    int intro = cJSON_GetObjectItemCaseSensitive(group, "intro") != NULL;
    int notes = full && cJSON_GetObjectItemCaseSensitive(group, "notes");
    if (put_lines(t, group, path, "intro"))
      return 1;
    if (intro && notes)
      put(t, "\n");
    if (notes && put_lines(t, group, path, "notes"))
      return 1;
    if (intro || notes)
      put(t, "\n");
    for (; at < n; at++) {
      const cJSON *r = cJSON_GetArrayItem(reqs, at);
      const char *rg = str(r, "group");
      if (!rg || strcmp(rg, name))
        break;
      if (put_block(t, r, at, full))
        return 1;
    }
  }
  if (at < n) {
    fprintf(stderr, "$.requirements[%d].group: not the group $.groups lists next\n", at);
    return 1;
  }
  return 0;
}

/* put_journal puts the journal table of the page: one row per kind, whose "doc" names each of
 * its fields in backquotes (so the generated field constants and the prose never drift). */
static int put_journal(struct text *t, const cJSON *reg) {
  const cJSON *kinds =
      cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(reg, "journal"), "kinds");
  const cJSON *k, *f;
  int i = 0;
  cJSON_ArrayForEach(k, kinds) {
    const char *kind = str(k, "kind"), *doc = str(k, "doc"), *written = str(k, "written");
    if (!kind || !doc || !written) {
      fprintf(stderr, "$.journal.kinds[%d]: expected the strings kind, doc and written\n", i);
      return 1;
    }
    cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(k, "fields")) {
      char quoted[96];
      snprintf(quoted, sizeof quoted, "`%s`", cJSON_IsString(f) ? f->valuestring : "");
      if (!strstr(doc, quoted)) {
        fprintf(stderr, "$.journal.kinds[%d].doc: does not name the field %s\n", i, quoted);
        return 1;
      }
    }
    put(t, "| `");
    put(t, kind);
    put(t, "` | ");
    put(t, doc);
    put(t, " | ");
    put(t, written);
    put(t, " |\n");
    i++;
  }
  return 0;
}

/* make_region: Section 2 of SPEC.md, markers included. */
static int make_region(struct text *t, const cJSON *reg) {
  const cJSON *spec = cJSON_GetObjectItemCaseSensitive(reg, "spec");
  put(t, BEGIN_MARK);
  put(t, "# 2. Requirements\n\n");
  if (put_lines(t, spec, "spec", "section_2"))
    return 1;
  put(t, "\n");
  if (put_groups(t, reg, 0))
    return 1;
  put(t, END_MARK);
  return 0;
}

/* make_page: docs/requirements.md, whole. */
static int make_page(struct text *t, const cJSON *reg) {
  const cJSON *spec = cJSON_GetObjectItemCaseSensitive(reg, "spec");
  if (put_lines(t, spec, "spec", "page_intro"))
    return 1;
  put(t, "\n");
  if (put_lines(t, spec, "spec", "journal_head") || put_journal(t, reg) ||
      put_lines(t, spec, "spec", "journal_after"))
    return 1;
  put(t, "\n");
  if (put_groups(t, reg, 1))
    return 1;
  if (t->n > 1 && !strcmp(t->s + t->n - 2, "\n\n"))
    t->s[--t->n] = '\0'; /* one line break at the end, not a blank line */
  return 0;
}

/* splice: SPEC.md's text with its region replaced by region. NULL (after a message) when the
 * markers are not there once each, in order. */
static char *splice(const char *path, const char *old, const char *region) {
  const char *b = strstr(old, BEGIN_MARK), *e = b ? strstr(b, END_MARK) : NULL;
  if (!b || !e || strstr(e + strlen(END_MARK), BEGIN_MARK) ||
      strstr(b + strlen(BEGIN_MARK), BEGIN_MARK)) {
    fprintf(stderr, "%s: expected the line \"%.40s...\" once, then \"%.30s...\"\n", path,
            BEGIN_MARK, END_MARK);
    return NULL;
  }
  struct text t = {0};
  put_n(&t, old, (size_t)(b - old));
  put(&t, region);
  put(&t, e + strlen(END_MARK));
  if (t.failed) {
    free(t.s);
    return NULL;
  }
  return t.s;
}

/* first_difference: the 1-based line number where a and b first differ, 0 when equal. */
static long first_difference(const char *a, const char *b) {
  long line = 1;
  for (; *a && *a == *b; a++, b++)
    line += *a == '\n';
  return *a == *b ? 0 : line;
}

/* settle writes text to path, or under check compares: 0 when path holds text. */
static int settle(const char *path, const char *old, const char *text, int check) {
  long line = old ? first_difference(old, text) : 1;
  if (!line)
    return 0;
  if (check) {
    fprintf(stderr,
            "%s: line %ld differs from what make spec writes from the registry; run make spec\n",
            path, line);
    return 1;
  }
  FILE *f = fopen(path, "wb");
  if (!f || fputs(text, f) == EOF || fclose(f)) {
    fprintf(stderr, "%s: cannot write\n", path);
    return 2;
  }
  fprintf(stderr, "%s: written\n", path);
  return 0;
}

static int run(const cJSON *reg, const char *spec_path, const char *page_path, int check) {
  struct text region = {0}, page = {0};
  size_t len = 0;
  char *spec = slurp(spec_path, &len), *old_page = slurp(page_path, &len), *new_spec = NULL;
  int rc = 2;
  if (!spec)
    fprintf(stderr, "%s: cannot read\n", spec_path);
  else if (!make_region(&region, reg) && !make_page(&page, reg) && !region.failed && !page.failed &&
           (new_spec = splice(spec_path, spec, region.s))) {
    rc = settle(spec_path, spec, new_spec, check);
    int rc2 = settle(page_path, old_page, page.s, check);
    rc = rc > rc2 ? rc : rc2;
  }
  free(spec);
  free(old_page);
  free(new_spec);
  free(region.s);
  free(page.s);
  return rc;
}

int main(int argc, char **argv) {
  int check = argc > 1 && !strcmp(argv[1], "--check");
  if (argc - check != 4) {
    fprintf(stderr, "usage: %s [--check] REGISTRY.json SPEC.md docs/requirements.md\n", argv[0]);
    return 2;
  }
  size_t len = 0;
  char *text = slurp(argv[1 + check], &len);
  cJSON *reg = text ? cJSON_ParseWithLength(text, len) : NULL;
  free(text);
  if (!reg) {
    fprintf(stderr, "%s: not readable as JSON\n", argv[1 + check]);
    return 2;
  }
  int rc = run(reg, argv[2 + check], argv[3 + check], check);
  cJSON_Delete(reg);
  return rc;
}
