/*
 * cmd_list.c: `ock list` (the scenarios and the requirements, filterable) and `ock explain ID`
 * (one requirement in full, with the scenarios that exercise it).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "checks/checklist.h"
#include "cli/cli.h"
#include "report/escape.h"
#include "ock/contract.h"
#include "ock/json.h"
#include "ock/registry.h"
#include "run/scenarios.h"

static const char list_usage[] =
    "usage: ock list [scenarios|requirements] [options]\n"
    "\n"
    "Lists the scenarios (id, requirements, what it proves) and the requirements (id, level,\n"
    "capability, text). With no argument, both.\n"
    "\n"
    "  --fixtures DIR       the scenarios (default: $OCK_FIXTURES, the installed ones, or "
    "./fixtures)\n"
    "  --group G            only requirements of group G (COMPLETE, ORDER, ORPHAN, ...)\n"
    "  --capability C       only requirements and scenarios of capability C\n"
    "  --level L            only requirements of level L (must, should, may)\n"
    "  --requirement ID     only scenarios that name requirement ID\n"
    "  --format human|json  output format (default human)\n";

struct filter {
  const char *fixtures, *group, *capability, *level, *requirement, *format;
};

static int has_string(const cJSON *arr, const char *s) {
  const cJSON *it;
  cJSON_ArrayForEach(it, arr) if (cJSON_IsString(it) && !strcmp(it->valuestring, s)) return 1;
  return 0;
}

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
  if (cli_fixtures_missing(f->fixtures, err, sizeof err) ||
      scenarios_load(f->fixtures, reg, NULL, NULL, &set, err, sizeof err)) {
    fprintf(stderr, "ock: %s\n", ock_escape_terminal(safe, sizeof safe, err));
    return -1;
  }
  int shown = 0;
  for (size_t i = 0; i < set.n; i++) {
    const struct scenario *sc = &set.items[i];
    const cJSON *reqs = cJSON_GetObjectItemCaseSensitive(sc->fixture, "requirements");
    const cJSON *caps = scenario_capabilities(sc);
    if ((f->requirement && !has_string(reqs, f->requirement)) ||
        (f->capability && strcmp(f->capability, OCK_CAP_CORE) && !has_string(caps, f->capability)))
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
  scenarios_free(&set);
  return shown;
}

int cmd_list(int argc, char **argv) {
  static const struct option longs[] = {{"fixtures", required_argument, 0, 'f'},
                                        {"group", required_argument, 0, 'g'},
                                        {"capability", required_argument, 0, 'c'},
                                        {"level", required_argument, 0, 'l'},
                                        {"requirement", required_argument, 0, 'r'},
                                        {"format", required_argument, 0, 'F'},
                                        {"help", no_argument, 0, 'h'},
                                        {0, 0, 0, 0}};
  struct filter f = {.format = "human"};
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
    switch (c) {
    case 'f':
      f.fixtures = optarg;
      break;
    case 'g':
      f.group = optarg;
      break;
    case 'c':
      f.capability = optarg;
      break;
    case 'l':
      f.level = optarg;
      break;
    case 'r':
      f.requirement = optarg;
      break;
    case 'F':
      f.format = optarg;
      break;
    case 'h':
      fputs(list_usage, stdout);
      return EXIT_PASS;
    default:
      fputs(list_usage, stderr);
      return EXIT_USAGE;
    }
  }
  const char *what = optind < argc ? argv[optind] : "all";
  if (strcmp(what, "all") && strcmp(what, "scenarios") && strcmp(what, "requirements")) {
    fprintf(stderr, "ock list: expected scenarios or requirements, got \"%s\"\n", what);
    return EXIT_USAGE;
  }
  if (!f.fixtures)
    f.fixtures = default_fixtures_dir();
  ock_registry *reg = NULL;
  struct ock_jerr je;
  if (ock_registry_load_builtin(&reg, &je))
    return EXIT_INCOMPLETE;
  /* A filter that can match nothing is a typo: say so instead of listing nothing. */
  int group_known = !f.group;
  for (size_t i = 0; !group_known && i < ock_registry_count(reg); i++)
    group_known = !strcasecmp(f.group, ock_registry_at(reg, i)->group);
  const char *bad = NULL, *got = NULL;
  if (!group_known)
    bad = "--group: no requirement has the group", got = f.group;
  else if (f.capability && !ock_capability_known(f.capability))
    bad = "--capability: expected core, streaming, parallel, scheduling, lifecycle, "
          "resilience or cancellation, got",
    got = f.capability;
  else if (f.level && strcasecmp(f.level, "must") && strcasecmp(f.level, "should") &&
           strcasecmp(f.level, "may"))
    bad = "--level: expected must, should or may, got", got = f.level;
  else if (strcmp(f.format, "human") && strcmp(f.format, "json"))
    bad = "--format: expected human or json, got", got = f.format;
  if (bad) {
    fprintf(stderr, "ock list: %s \"%s\"\n", bad, got);
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

int cmd_explain(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    printf(
        "usage: ock explain ID\n\nPrints a requirement of the contract (e.g. OCK-ORPHAN-001, or\n"
        "a check id such as proc.exit for the requirement it grades):\n"
        "its level and capability, the sentence, what the check looks at, and a typical\n"
        "cause and fix. The scenarios of ./fixtures (or --fixtures DIR) that exercise it are\n"
        "listed too.\n");
    return argc < 2 ? EXIT_USAGE : EXIT_PASS;
  }
  ock_registry *reg = NULL;
  struct ock_jerr je;
  if (ock_registry_load_builtin(&reg, &je))
    return EXIT_INCOMPLETE;
  const char *id = argv[1];
  const struct ock_requirement *r = ock_registry_find(reg, id);
  /* A check id (as report lines and JUnit name them) explains the requirement it grades. */
  const struct check_entry *check = r ? NULL : checklist_find(id);
  if (check && check->requirement && (r = ock_registry_find(reg, check->requirement)) != NULL) {
    printf("check %s reports under %s%s\n\n", check->id, r->id,
           check->kind == CHECK_HARNESS ? " (an ERROR of the harness, not a finding on the SUT)"
                                        : "");
    id = r->id;
  }
  if (!r) {
    fprintf(stderr,
            "ock explain: no requirement or check \"%s\"; `ock list requirements` lists the "
            "requirements\n",
            id);
    ock_registry_free(reg);
    return EXIT_USAGE;
  }
  printf("%s  (%s, capability %s, group %s)\n\n%s\n\n", r->id, ock_level_name(r->level),
         r->capability, r->group, r->text);
  printf("What the check looks at:\n  %s\n\n", r->checked_by);
  if (r->fix && *r->fix)
    printf("Typical cause and fix:\n  %s\n\n", r->fix);
  const char *fixtures =
      argc > 3 && !strcmp(argv[2], "--fixtures") ? argv[3] : default_fixtures_dir();
  struct scenario_set set;
  char err[1200];
  if (!scenarios_load(fixtures, reg, NULL, NULL, &set, err, sizeof err)) {
    int n = 0;
    for (size_t i = 0; i < set.n; i++)
      if (has_string(cJSON_GetObjectItemCaseSensitive(set.items[i].fixture, "requirements"), id))
        printf("%s %s\n", n++ ? "   " : "Scenarios:", set.items[i].id);
    if (!n)
      printf("Scenarios: none in %s\n", fixtures);
    scenarios_free(&set);
  }
  printf("\nSpecification: SPEC.md, section 2, %s\n", r->id);
  ock_registry_free(reg);
  return EXIT_PASS;
}
