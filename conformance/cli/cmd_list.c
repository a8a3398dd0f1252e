/*
 * cmd_list.c: `ock list` (the scenarios and the requirements, filterable) and `ock explain ID`
 * (one requirement in full, with the scenarios that exercise it).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "checks/checklist.h"
#include "cli/cli.h"
#include "report/causes.h"
#include "report/escape.h"
#include "ock/caps.h"
#include "ock/contract.h"
#include "ock/json.h"
#include "ock/options.h"
#include "ock/registry.h"
#include "run/scenarios.h"

static const char list_usage_head[] =
    "usage: ock list [scenarios|requirements] [options]\n"
    "\n"
    "Lists the scenarios (id, requirements, what it proves) and the requirements (id, level,\n"
    "capability, text). With no argument, both.\n"
    "\n";

static const char *const level_names[] = {"must", "should", "may", NULL};
static const char *const formats[] = {"human", "json", NULL};

struct filter {
  const char *fixtures, *group, *capability, *level, *requirement, *format;
  int capability_i, level_i, format_i, help; /* the enums' indexes; -1: not given */
};

static int list_requirements(const ock_registry *reg, const struct filter *f, cJSON *json) {
  int shown = 0;
  for (size_t i = 0; i < ock_registry_count(reg); i++) {
    const struct ock_requirement *r = ock_registry_at(reg, i);
    if ((f->group && strcasecmp(f->group, r->group)) ||
        (f->capability && strcmp(f->capability, r->capability)) ||
        (f->level && strcasecmp(f->level, ock_level_name(r->level))))
      continue;
    shown++;
    if (json) {
      cJSON *o = cJSON_CreateObject();
      cJSON_AddStringToObject(o, "id", r->id);
      cJSON_AddStringToObject(o, "level", ock_level_name(r->level));
      cJSON_AddStringToObject(o, "capability", r->capability);
      cJSON_AddStringToObject(o, "text", r->text);
      cJSON_AddItemToArray(json, o);
    } else {
      printf("%-18s %-6s %-12s %s\n", r->id, ock_level_name(r->level), r->capability, r->text);
    }
  }
  return shown;
}

static int list_scenarios(const ock_registry *reg, const struct filter *f, cJSON *json) {
  struct scenario_set set;
  char err[1200], safe[4 * sizeof err];
  if (ock__cli_fixtures_missing(f->fixtures, err, sizeof err) ||
      ock__scenarios_load(f->fixtures, reg, NULL, NULL, &set, err, sizeof err)) {
    fprintf(stderr, "ock: %s\n", ock_escape_terminal(safe, sizeof safe, err));
    return -1;
  }
  int shown = 0;
  for (size_t i = 0; i < set.n; i++) {
    const struct scenario *sc = &set.items[i];
    /* shown as the fixture lists them */
    const cJSON *reqs = cJSON_GetObjectItemCaseSensitive(sc->fx->json, "requirements");
    const cJSON *caps = cJSON_GetObjectItemCaseSensitive(sc->fx->json, "capabilities");
    enum ock_capability cap = OCK_CAPABILITY_CORE;
    if ((f->requirement && !ock_fixture_lists(sc->fx, f->requirement)) ||
        (f->capability && !ock_capability_parse(f->capability, &cap) &&
         cap != OCK_CAPABILITY_CORE && !(sc->fx->capabilities & 1u << cap)))
      continue;
    shown++;
    if (json) {
      cJSON *o = cJSON_CreateObject();
      cJSON_AddStringToObject(o, "id", sc->id);
      cJSON_AddStringToObject(o, "file", sc->path);
      cJSON_AddStringToObject(o, "proves", sc->proves ? sc->proves : "");
      cJSON_AddItemToObject(o, "requirements", cJSON_Duplicate(reqs, 1));
      cJSON_AddItemToObject(o, "capabilities",
                            caps ? cJSON_Duplicate(caps, 1) : cJSON_CreateArray());
      cJSON_AddItemToArray(json, o);
    } else {
      char *r = ock_json_print(reqs);
      printf("%-40s %s\n    %s\n", sc->id, r ? r : "", sc->proves ? sc->proves : "");
      free(r);
    }
  }
  ock__scenarios_free(&set);
  return shown;
}

enum { LIST_OPTIONS = 8 };

/* list_options fills t with the options of ock list, stored into f. */
static void list_options(struct filter *f, struct ock_option t[LIST_OPTIONS]) {
  const struct ock_option rows[] = {
      {"fixtures", 0, OCK_OPT_STRING, &f->fixtures, .metavar = "DIR",
       .help = "the scenarios (default: $OCK_FIXTURES, the installed ones, or ./fixtures)"},
      {"group", 0, OCK_OPT_STRING, &f->group, .metavar = "G",
       .help = "only requirements of group G (COMPLETE, ORDER, ORPHAN, ...)"},
      {"capability", 0, OCK_OPT_ENUM, &f->capability_i, .values = ock_capabilities, .metavar = "C",
       .help = "only requirements and scenarios of capability C"},
      {"level", 0, OCK_OPT_ENUM, &f->level_i, .values = level_names, .metavar = "L",
       .help = "only requirements of level L (must, should, may)"},
      {"requirement", 0, OCK_OPT_STRING, &f->requirement, .metavar = "ID",
       .help = "only scenarios that name requirement ID"},
      {"format", 0, OCK_OPT_ENUM, &f->format_i, .values = formats,
       .help = "output format (default human)"},
      {"help", 'h', OCK_OPT_FLAG, &f->help, .help = "print this and exit"},
      {0}};
  _Static_assert(sizeof rows / sizeof rows[0] <= LIST_OPTIONS, "LIST_OPTIONS too small");
  memcpy(t, rows, sizeof rows);
}

static void list_usage(FILE *out) {
  struct filter f = {0};
  struct ock_option t[LIST_OPTIONS];
  list_options(&f, t);
  fputs(list_usage_head, out);
  ock_options_help(t, out);
}

/* parse_list_options returns 1 for --help, 0 with *what set, or -1 after the message. */
static int parse_list_options(int argc, char **argv, struct filter *f, const char **what) {
  *f = (struct filter){.capability_i = -1, .level_i = -1, .format_i = 0};
  struct ock_option t[LIST_OPTIONS];
  char err[1024];
  int npos = 0;
  list_options(f, t);
  int rc = ock_options_parse(t, argc, argv, &npos, err, sizeof err);
  if (f->help)
    return 1;
  *what = npos ? argv[1] : "all";
  if (!rc && (npos > 1 || (strcmp(*what, "all") && strcmp(*what, "scenarios") &&
                           strcmp(*what, "requirements"))))
    snprintf(err, sizeof err, "expected scenarios or requirements, got \"%s\"",
             argv[npos > 1 ? 2 : 1]),
        rc = -1;
  if (rc) {
    fprintf(stderr, "ock list: %s (see ock list --help)\n", err);
    return -1;
  }
  f->capability = f->capability_i < 0 ? NULL : ock_capabilities[f->capability_i];
  f->level = f->level_i < 0 ? NULL : level_names[f->level_i];
  f->format = formats[f->format_i];
  if (!f->fixtures)
    f->fixtures = ock__default_fixtures_dir();
  return 0;
}

/* group_unknown: a --group no requirement has can match nothing: a typo, said as such. */
static int group_unknown(const ock_registry *reg, const char *group) {
  for (size_t i = 0; group && i < ock_registry_count(reg); i++)
    if (!strcasecmp(group, ock_registry_at(reg, i)->group))
      return 0;
  if (group)
    fprintf(stderr, "ock list: --group: no requirement has the group \"%s\"\n", group);
  return group != NULL;
}

int ock__cmd_list(int argc, char **argv) {
  struct filter f;
  const char *what = NULL;
  int pr = parse_list_options(argc, argv, &f, &what);
  if (pr)
    return pr > 0 ? (list_usage(stdout), EXIT_PASS) : EXIT_USAGE;
  ock_registry *reg = NULL;
  struct ock_jerr je;
  if (ock_registry_load_builtin(&reg, &je))
    return EXIT_INCOMPLETE;
  if (group_unknown(reg, f.group)) {
    ock_registry_free(reg);
    return EXIT_USAGE;
  }
  int json = !strcmp(f.format, "json");
  cJSON *out = json ? cJSON_CreateObject() : NULL;
  int rc = EXIT_PASS;
  if (strcmp(what, "requirements")) {
    if (!json)
      printf("Scenarios (%s):\n", f.fixtures);
    int n = list_scenarios(reg, &f, json ? cJSON_AddArrayToObject(out, "scenarios") : NULL);
    if (n < 0)
      rc = EXIT_USAGE;
    else if (!json)
      printf("%d scenario(s)\n\n", n);
  }
  if (strcmp(what, "scenarios") && rc == EXIT_PASS) {
    if (!json)
      printf("Requirements (%s):\n", ock_registry_contract_version(reg));
    int n = list_requirements(reg, &f, json ? cJSON_AddArrayToObject(out, "requirements") : NULL);
    if (!json)
      printf("%d requirement(s)\n", n);
  }
  if (json && rc == EXIT_PASS) {
    char *text = cJSON_Print(out);
    printf("%s\n", text);
    free(text);
  }
  cJSON_Delete(out);
  ock_registry_free(reg);
  return rc;
}

/* print_exercising lists the scenarios of fixtures that name requirement id. */
static void print_exercising(const ock_registry *reg, const char *fixtures, const char *id) {
  struct scenario_set set;
  char err[1200];
  if (ock__scenarios_load(fixtures, reg, NULL, NULL, &set, err, sizeof err))
    return;
  int n = 0;
  for (size_t i = 0; i < set.n; i++)
    if (ock_fixture_lists(set.items[i].fx, id))
      printf("%s %s\n", n++ ? "   " : "Scenarios:", set.items[i].id);
  if (!n)
    printf("Scenarios: none in %s\n", fixtures);
  ock__scenarios_free(&set);
}

/* print_cause says what the first cause "<requirement>/<check>" of a report is, and which
 * failing checks of its scenario it explains (the rule table of report/causes.c). */
static void print_cause(const struct check_entry *check, const struct ock_requirement *r) {
  printf("cause %s/%s: check %s failed on requirement %s, and nothing earlier in its scenario "
         "explains it.\nIn the same scenario it explains a failure of:",
         r->id, check->id, check->id, r->id);
  int n = 0;
  for (size_t i = 0; i < ock__checklist_count(); i++) {
    const char *other = ock__checklist_at(i)->id;
    if (ock_cause_explains(check->id, other))
      printf("%s%s", n++ % 6 ? ", " : (n > 1 ? ",\n  " : "\n  "), other);
  }
  printf("%s\n\n", n ? "" : " nothing else");
}

/* find_cause: the checklist row of cause id "<requirement>/<check>" and its requirement in
 * *r, or NULL when id is not a cause of a known check under a known requirement. */
static const struct check_entry *find_cause(const ock_registry *reg, const char *id,
                                            const struct ock_requirement **r) {
  char req[128], check[128], cased[300];
  /* Any case, as for the other ids: the requirement upper case, the check id lower case. */
  size_t n = strlen(id) < sizeof cased - 1 ? strlen(id) : sizeof cased - 1;
  int after_slash = 0;
  for (size_t i = 0; i < n; i++) {
    after_slash |= id[i] == '/';
    cased[i] = (char)(after_slash ? tolower((unsigned char)id[i]) : toupper((unsigned char)id[i]));
  }
  cased[n] = '\0';
  if (ock_cause_parse(cased, req, check, sizeof req))
    return NULL;
  const struct check_entry *c = ock__checklist_find(check);
  *r = ock_registry_find(reg, req);
  if (!c || !*r || (c->requirement && strcmp(c->requirement, req))) {
    *r = NULL;
    return NULL;
  }
  return c;
}

static const char explain_usage_head[] =
    "usage: ock explain ID [--fixtures DIR]\n"
    "\n"
    "Prints a requirement of the contract (e.g. OCK-ORPHAN-001, or a check id such as\n"
    "proc.exit for the requirement it grades, or a first cause of a report such as\n"
    "OCK-COMPLETE-001/complete.once with the failures it explains; ids in any case): its level\n"
    "and capability, the sentence, what the check looks at, and a typical cause and fix, and the "
    "scenarios\n"
    "that exercise it.\n"
    "\n";

int ock__cmd_explain(int argc, char **argv) {
  const char *fixtures = NULL;
  int help = 0, npos = 0;
  const struct ock_option t[] = {
      {"fixtures", 0, OCK_OPT_STRING, &fixtures, .metavar = "DIR",
       .help = "the scenarios (default: $OCK_FIXTURES, the installed ones, or ./fixtures)"},
      {"help", 'h', OCK_OPT_FLAG, &help, .help = "print this and exit"},
      {0}};
  char err[1024];
  int bad = ock_options_parse(t, argc, argv, &npos, err, sizeof err);
  if (help || bad || npos != 1) {
    if (bad && !help)
      fprintf(stderr, "ock explain: %s\n\n", err);
    fputs(explain_usage_head, help ? stdout : stderr);
    ock_options_help(t, help ? stdout : stderr);
    return help ? EXIT_PASS : EXIT_USAGE;
  }
  if (!fixtures)
    fixtures = ock__default_fixtures_dir();
  ock_registry *reg = NULL;
  struct ock_jerr je;
  if (ock_registry_load_builtin(&reg, &je))
    return EXIT_INCOMPLETE;
  const char *id = argv[1];
  /* Any case: requirement ids are upper case (ock-orphan-001 is OCK-ORPHAN-001), check ids
   * lower case (PROC.EXIT is proc.exit). */
  char upper[128], lower[128];
  size_t n = strlen(id) < sizeof upper - 1 ? strlen(id) : sizeof upper - 1;
  for (size_t i = 0; i < n; i++) {
    upper[i] = (char)toupper((unsigned char)id[i]);
    lower[i] = (char)tolower((unsigned char)id[i]);
  }
  upper[n] = lower[n] = '\0';
  const struct ock_requirement *r = ock_registry_find(reg, upper);
  if (r)
    id = r->id;
  /* A check id (as report lines and JUnit name them) explains the requirement it grades. */
  const struct check_entry *check = r ? NULL : ock__checklist_find(lower);
  const struct check_entry *cause = r || check ? NULL : find_cause(reg, id, &r);
  if (cause) {
    print_cause(cause, r);
    id = r->id;
  } else if (check && check->requirement &&
             (r = ock_registry_find(reg, check->requirement)) != NULL) {
    printf("check %s reports under %s%s%s\n\n", check->id, r->id,
           check->kind == CHECK_HARNESS ? " (an ERROR of the harness, not a finding on the SUT)"
                                        : "",
           check->flags & CHECK_BLACKBOX ? "; a black-box run grades it (SPEC.md 9.7)" : "");
    id = r->id;
  }
  if (!r) {
    fprintf(stderr,
            "ock explain: no requirement, check or cause \"%s\"; `ock list requirements` lists "
            "the requirements, report.json's causes the causes\n",
            id);
    ock_registry_free(reg);
    return EXIT_USAGE;
  }
  printf("%s  (%s, capability %s, group %s)\n\n%s\n\n", r->id, ock_level_name(r->level),
         r->capability, r->group, r->text);
  printf("What the check looks at:\n  %s\n\n", r->checked_by);
  if (r->fix && *r->fix)
    printf("Typical cause and fix:\n  %s\n\n", r->fix);
  print_exercising(reg, fixtures, id);
  printf("\nSpecification: SPEC.md, section 2, %s\n", r->id);
  ock_registry_free(reg);
  return EXIT_PASS;
}
