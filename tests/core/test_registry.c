/*
 * test_registry.c: the registry loads, rejects bad entries with their path, and agrees with
 * SPEC.md Section 2 and docs/requirements.md (both written from it by make spec) on every
 * requirement's ID, level and capability, and on the journal's kinds and fields. Renaming an ID
 * in one and not the other fails `spec_and_registry_agree`; `spec_check_finds_an_edit` shows
 * that the --check of make lint and make test refuses a hand edit of a generated text.
 */
#include "runner.h"

#include <stdlib.h>

#ifndef OCK_BIN_DIR
#define OCK_BIN_DIR "build"
#endif

#include "ock/json.h"
#include "ock/registry.h"
#include "ock/status.h"

static ock_registry *reg;

static int setup(void) {
  char *text = ock_test_read_file(ock_test_path("core/requirements.json"));
  struct ock_jerr err;
  int rc = text ? ock_registry_load(text, strlen(text), &reg, &err) : -1;
  if (rc)
    fprintf(stderr, "registry: %s: %s\n", text ? err.where : "unreadable", text ? err.what : "");
  free(text);
  return rc ? 1 : 0;
}

static int teardown(void) {
  ock_registry_free(reg);
  return 0;
}

/* One requirement block of SPEC.md. */
struct spec_req {
  char id[64];
  char level[16];
  char capability[32];
  int has_checked_by;
  int blackbox; /* "- **Black-box:** yes" */
};

/* field_value: if line is "- **<name>:** value", copy value (trimmed) and return 1. */
static int field_value(const char *line, const char *name, char *out, size_t n) {
  char prefix[64];
  snprintf(prefix, sizeof prefix, "- **%s:** ", name);
  if (strncmp(line, prefix, strlen(prefix)))
    return 0;
  snprintf(out, n, "%s", line + strlen(prefix));
  size_t len = strlen(out);
  while (len && (out[len - 1] == '\n' || out[len - 1] == '\r' || out[len - 1] == ' '))
    out[--len] = '\0';
  return 1;
}

/* short_line: SPEC.md's line after the ID, "**MUST**, `core`, black-box. The sentence.", into
 * cur's level, capability and black-box mark. */
static void short_line(const char *line, struct spec_req *cur) {
  const char *end = strncmp(line, "**", 2) ? NULL : strstr(line + 2, "**, `");
  const char *cap = end ? end + 5 : NULL, *cap_end = cap ? strchr(cap, '`') : NULL;
  if (!cap_end)
    return;
  snprintf(cur->level, sizeof cur->level, "%.*s", (int)(end - line - 2), line + 2);
  snprintf(cur->capability, sizeof cur->capability, "%.*s", (int)(cap_end - cap), cap);
  cur->blackbox = !strncmp(cap_end, "`, black-box. ", 14) ? 1 : strncmp(cap_end, "`. ", 3) ? -1 : 0;
}

/* parse_spec reads the "### OCK-..." blocks of SPEC.md into reqs; returns the count. */
static size_t parse_spec(char *text, struct spec_req *reqs, size_t max) {
  size_t n = 0;
  struct spec_req *cur = NULL;
  char *save = NULL;
  for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    if (!strncmp(line, "### OCK-", 8)) {
      cur = n < max ? &reqs[n++] : NULL;
      if (cur) {
        memset(cur, 0, sizeof *cur);
        snprintf(cur->id, sizeof cur->id, "%s", line + 4);
      }
      continue;
    }
    if (!strncmp(line, "#", 1)) {
      cur = NULL;
      continue;
    }
    if (!cur)
      continue;
    char dummy[8];
    short_line(line, cur);
    field_value(line, "Level", cur->level, sizeof cur->level);
    field_value(line, "Capability", cur->capability, sizeof cur->capability);
    char tier[16] = "";
    if (field_value(line, "Black-box", tier, sizeof tier))
      cur->blackbox = !strcmp(tier, "yes") ? 1 : -1; /* anything else is a typo */
    if (!strncmp(line, "- **Checked by:** ", 18) && strlen(line) > 20)
      cur->has_checked_by = 1;
    (void)dummy;
  }
  return n;
}

/* requirement_blocks_agree: the blocks of the document at rel (SPEC.md's short ones, or the
 * page's with a "Checked by" line when checked_by) name every requirement of the registry once,
 * with its level, capability and black-box mark. */
static void requirement_blocks_agree(const char *rel, int checked_by) {
  char *text = ock_test_read_file(ock_test_path(rel));
  OCK_ASSERT_NOT_NULL_FATAL(text);
  static struct spec_req reqs[1000];
  size_t n = parse_spec(text, reqs, 1000);
  free(text);
  OCK_ASSERT_INT_GT(n, 0);
  for (size_t i = 0; i < n; i++) {
    const struct ock_requirement *r = ock_registry_find(reg, reqs[i].id);
    if (!r) {
      ock_test_fail(__LINE__, __FILE__, "SPEC.md has %s, the registry does not", reqs[i].id);
      continue;
    }
    if (strcmp(reqs[i].level, ock_level_name(r->level)))
      ock_test_fail(__LINE__, __FILE__, "%s: SPEC.md level \"%s\", registry \"%s\"", reqs[i].id,
                    reqs[i].level, ock_level_name(r->level));
    if (strcmp(reqs[i].capability, r->capability))
      ock_test_fail(__LINE__, __FILE__, "%s: SPEC.md capability \"%s\", registry \"%s\"",
                    reqs[i].id, reqs[i].capability, r->capability);
    if (reqs[i].blackbox != r->blackbox)
      ock_test_fail(__LINE__, __FILE__, "%s: SPEC.md black-box %s, registry \"blackbox\": %s",
                    reqs[i].id,
                    reqs[i].blackbox > 0 ? "yes"
                    : reqs[i].blackbox   ? "(not yes)"
                                         : "(none)",
                    r->blackbox ? "true" : "false");
    if (reqs[i].has_checked_by != checked_by)
      ock_test_fail(__LINE__, __FILE__, "%s: %s %s a \"Checked by\" line", reqs[i].id, rel,
                    checked_by ? "lacks" : "has");
    for (size_t j = 0; j < i; j++)
      if (!strcmp(reqs[i].id, reqs[j].id))
        ock_test_fail(__LINE__, __FILE__, "SPEC.md defines %s twice", reqs[i].id);
  }
  for (size_t k = 0; k < ock_registry_count(reg); k++) {
    const char *id = ock_registry_at(reg, k)->id;
    int found = 0;
    for (size_t i = 0; i < n && !found; i++)
      found = !strcmp(reqs[i].id, id);
    if (!found)
      ock_test_fail(__LINE__, __FILE__, "the registry has %s, SPEC.md does not", id);
  }
  OCK_ASSERT_INT_EQ(n, ock_registry_count(reg));
}

static void spec_and_registry_agree(void) {
  requirement_blocks_agree("SPEC.md", 0);
  requirement_blocks_agree("docs/requirements.md", 1);
}

static void every_group_is_covered(void) {
  static const char *const groups[] = {"COMPLETE", "ORDER",  "ORPHAN",   "TOOL",      "HOOK",
                                       "ITER",     "STREAM", "PARALLEL", "LIFECYCLE", "TRACE",
                                       "ERROR",    "VALID",  "PROC",     "TEXT",      NULL};
  for (int g = 0; groups[g]; g++) {
    int found = 0;
    for (size_t k = 0; k < ock_registry_count(reg) && !found; k++)
      found = !strcmp(ock_registry_at(reg, k)->group, groups[g]);
    if (!found)
      ock_test_fail(__LINE__, __FILE__, "no requirement in group %s", groups[g]);
  }
}

static void builtin_copy_is_the_file(void) {
  ock_registry *b = NULL;
  struct ock_jerr err;
  OCK_ASSERT_OK(ock_registry_load_builtin(&b, &err));
  OCK_ASSERT_INT_EQ(ock_registry_count(b), ock_registry_count(reg));
  OCK_ASSERT_INT_EQ(ock_registry_event_count(b), ock_registry_event_count(reg));
  for (size_t k = 0; k < ock_registry_count(reg); k++)
    OCK_ASSERT_STR_EQ(ock_registry_at(b, k)->id, ock_registry_at(reg, k)->id);
  ock_registry_free(b);
}

static void events_have_stages(void) {
  OCK_ASSERT_INT_GE(ock_registry_event_count(reg), 18);
  const struct ock_event_def *e = ock_registry_event(reg, "orchestrator:complete");
  OCK_ASSERT_NOT_NULL_FATAL(e);
  int seen = 0;
  for (size_t i = 0; e->required[i]; i++)
    seen += !strcmp(e->required[i], "turn_count") || !strcmp(e->required[i], "status") ||
            !strcmp(e->required[i], "orchestrator");
  OCK_ASSERT_INT_EQ(seen, 3);
  e = ock_registry_event(reg, "tool:pre");
  OCK_ASSERT_NOT_NULL_FATAL(e);
  OCK_ASSERT_STR_EQ(e->stage, "execute");
  OCK_ASSERT_NULL(ock_registry_event(reg, "custom:thing"));
}

static void bad_registries_are_named(void) {
  static const struct {
    const char *text, *where, *what;
  } cases[] = {
      {"{\"contract_version\":\"ock/1\",\"requirements\":[{\"id\":\"OCK-X-001\",\"group\":\"X\","
       "\"level\":\"MUST\",\"capability\":\"core\",\"text\":\"t\",\"checked_by\":\"c\"},"
       "{\"id\":\"OCK-X-001\",\"group\":\"X\",\"level\":\"MUST\",\"capability\":\"core\","
       "\"text\":\"t\",\"checked_by\":\"c\"}],\"events\":[]}",
       "$.requirements[1]", "listed twice"},
      {"{\"contract_version\":\"ock/1\",\"requirements\":[{\"id\":\"OCK-X-001\",\"group\":\"X\","
       "\"level\":\"MUSTN'T\",\"capability\":\"core\",\"text\":\"t\",\"checked_by\":\"c\"}],"
       "\"events\":[]}",
       "$.requirements[0].level", "expected \"MUST\""},
      {"{\"contract_version\":\"ock/1\",\"requirements\":[{\"id\":\"OCK-Y-1\",\"group\":\"X\","
       "\"level\":\"MAY\",\"capability\":\"core\",\"text\":\"t\",\"checked_by\":\"c\"}],"
       "\"events\":[]}",
       "$.requirements[0].id", "OCK-X-NNN"},
      {"{\"contract_version\":\"ock/1\",\"requirements\":[{\"id\":\"OCK-X-001\",\"group\":\"X\","
       "\"level\":\"MAY\",\"capability\":\"telepathy\",\"text\":\"t\",\"checked_by\":\"c\"}],"
       "\"events\":[]}",
       "$.requirements[0].capability", "telepathy"},
      {"{\"contract_version\":\"ock/1\",\"requirements\":[],\"events\":[{\"name\":\"a\","
       "\"stage\":\"plan\",\"required\":[1]}]}",
       "$.events[0].required", "field names"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ock_registry *r = NULL;
    struct ock_jerr err;
    OCK_ASSERT_INT_NE(ock_registry_load(cases[i].text, strlen(cases[i].text), &r, &err), OCK_OK);
    OCK_ASSERT_NULL(r);
    OCK_ASSERT_STR_EQ(err.where, cases[i].where);
    OCK_ASSERT_CONTAINS(err.what, cases[i].what);
  }
}

/* spec_journal_row: the line of SPEC.md's journal table for kind, or NULL. */
static const char *spec_journal_row(const char *spec, const char *kind) {
  char head[80];
  snprintf(head, sizeof head, "\n| `%s` |", kind);
  const char *row = strstr(spec, head);
  return row ? row + 1 : NULL;
}

/* The journal table of docs/requirements.md names every kind of the registry's "journal" and
 * each of its fields, in backquotes on the kind's row: the generated field constants and the
 * prose never drift. */
static void spec_journal_table_is_the_registry(void) {
  char *spec = ock_test_read_file(ock_test_path("docs/requirements.md"));
  char *text = ock_test_read_file(ock_test_path("core/requirements.json"));
  cJSON *root = text ? cJSON_Parse(text) : NULL;
  OCK_ASSERT_NOT_NULL_FATAL(spec);
  OCK_ASSERT_NOT_NULL_FATAL(root);
  const cJSON *kinds =
      cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "journal"), "kinds");
  const cJSON *k, *f;
  OCK_ASSERT_INT_EQ(cJSON_GetArraySize(kinds), 13);
  cJSON_ArrayForEach(k, kinds) {
    const char *kind = ock_json_str(k, "kind");
    const char *row = kind ? spec_journal_row(spec, kind) : NULL;
    if (!row) {
      ock_test_fail(__LINE__, __FILE__, "SPEC.md's journal table has no row for kind %s", kind);
      continue;
    }
    size_t len = strcspn(row, "\n");
    cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(k, "fields")) {
      char quoted[80];
      snprintf(quoted, sizeof quoted, "`%s`", f->valuestring);
      const char *at = strstr(row, quoted);
      if (!at || at > row + len)
        ock_test_fail(__LINE__, __FILE__, "SPEC.md's journal row %s lacks field %s", kind,
                      f->valuestring);
    }
  }
  cJSON_Delete(root);
  free(text);
  free(spec);
}

/* spec_check: the exit status of make spec's --check over the registry and the copies of
 * SPEC.md and docs/requirements.md in dir; its message in dir/check.err. */
static int spec_check(const char *dir) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd,
           "%s/tools/ock-gen-spec --check %s %s/SPEC.md %s/requirements.md 2>%s/check.err",
           OCK_BIN_DIR, ock_test_path("core/requirements.json"), dir, dir, dir);
  return ock_test_sh(cmd);
}

/* A copy of the generated texts passes the check; one word changed in a requirement sentence of
 * either fails it, naming the file and the line; so does a copy of SPEC.md without its
 * markers. */
static void spec_check_finds_an_edit(void) {
  char dir[64], cmd[1024];
  OCK_ASSERT_OK(ock_test_tmpdir(dir, "spec"));
  /* ock_test_path's answer lasts until its next call: one path per command. */
  snprintf(cmd, sizeof cmd, "cp %s %s/SPEC.md", ock_test_path("SPEC.md"), dir);
  OCK_ASSERT_INT_EQ(ock_test_sh(cmd), 0);
  snprintf(cmd, sizeof cmd, "cp %s %s/requirements.md", ock_test_path("docs/requirements.md"), dir);
  OCK_ASSERT_INT_EQ(ock_test_sh(cmd), 0);
  OCK_ASSERT_INT_EQ(spec_check(dir), 0);
  static const char *const files[] = {"SPEC.md", "requirements.md"};
  for (int i = 0; i < 2; i++) {
    snprintf(cmd, sizeof cmd,
             "cp %s/%s %s/keep && sed -i 's/exactly one orchestrator:complete event/one or more "
             "orchestrator:complete events/' %s/%s && ! cmp -s %s/keep %s/%s",
             dir, files[i], dir, dir, files[i], dir, dir, files[i]);
    OCK_ASSERT_INT_EQ(ock_test_sh(cmd), 0);
    OCK_ASSERT_INT_EQ(spec_check(dir), 1);
    snprintf(cmd, sizeof cmd, "%s/check.err", dir);
    char *err = ock_test_read_file(cmd);
    OCK_ASSERT_NOT_NULL_FATAL(err);
    OCK_ASSERT_CONTAINS(err, files[i]);
    OCK_ASSERT_CONTAINS(err, "differs from what make spec writes");
    free(err);
    snprintf(cmd, sizeof cmd, "mv %s/keep %s/%s", dir, dir, files[i]);
    OCK_ASSERT_INT_EQ(ock_test_sh(cmd), 0);
  }
  snprintf(cmd, sizeof cmd, "sed -i '/^<!-- Section 2 is written by make spec/d' %s/SPEC.md", dir);
  OCK_ASSERT_INT_EQ(ock_test_sh(cmd), 0);
  OCK_ASSERT_INT_EQ(spec_check(dir), 2);
  ock_test_rmdir(dir);
}

static const struct ock_test tests[] = {
    {"spec_and_registry_agree", spec_and_registry_agree},
    {"every_group_is_covered", every_group_is_covered},
    {"builtin_copy_is_the_file", builtin_copy_is_the_file},
    {"events_have_stages", events_have_stages},
    {"bad_registries_are_named", bad_registries_are_named},
    {"spec_journal_table_is_the_registry", spec_journal_table_is_the_registry},
    {"spec_check_finds_an_edit", spec_check_finds_an_edit},
    {NULL, NULL}};
const struct ock_suite suite_registry = {"registry", tests, setup, teardown};
