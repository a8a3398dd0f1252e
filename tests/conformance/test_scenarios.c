/*
 * test_scenarios.c: the catalog. Every requirement of the registry has a scenario (the
 * traceability rule), bad fixtures are refused with the file and the JSON path, and shards
 * partition the selection.
 */
#include "runner.h"

#include <stdlib.h>
#include <unistd.h>

#include "ock/json.h"
#include "ock/status.h"
#include "run/scenarios.h"

static ock_registry *reg;
static char tmpdir[64];

static int setup(void) {
  struct ock_jerr err;
  return ock_registry_load_builtin(&reg, &err) || ock_test_tmpdir(tmpdir, "scn");
}

static int teardown(void) {
  ock_registry_free(reg);
  return ock_test_rmdir(tmpdir);
}

static void every_requirement_has_a_scenario(void) {
  struct scenario_set set;
  char err[1200] = "";
  int rc = ock__scenarios_load(ock_test_path("fixtures"), reg, NULL, NULL, &set, err, sizeof err);
  if (rc) {
    ock_test_fail(__LINE__, __FILE__, "fixtures/ does not load: %s", err);
    return;
  }
  for (size_t i = 0; i < ock_registry_count(reg); i++) {
    const char *id = ock_registry_at(reg, i)->id;
    int found = 0;
    for (size_t k = 0; k < set.n && !found; k++)
      found = ock_fixture_lists(set.items[k].fx, id);
    if (!found)
      ock_test_fail(__LINE__, __FILE__, "%s has no scenario in fixtures/", id);
    else
      CU_PASS(id);
  }
  ock__scenarios_free(&set);
}

/* one_bad writes text as the only fixture of a fresh directory and expects a load error
 * naming the file and where. */
static void one_bad(const char *name, const char *text, const char *where, const char *what) {
  char dir[128], path[256], cmd[300];
  snprintf(dir, sizeof dir, "%s/%s", tmpdir, name);
  snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
  OCK_ASSERT_INT_EQ(system(cmd), 0);
  snprintf(path, sizeof path, "%s/%s.json", dir, name);
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
  struct scenario_set set;
  char err[1200] = "";
  OCK_ASSERT_INT_NE(ock__scenarios_load(dir, reg, NULL, NULL, &set, err, sizeof err), OCK_OK);
  OCK_ASSERT_CONTAINS(err, path);
  OCK_ASSERT_CONTAINS(err, where);
  OCK_ASSERT_CONTAINS(err, what);
}

#define GOOD_SESSION                                                                               \
  "\"title\":\"t\",\"proves\":\"p\",\"session\":{\"prompts\":[\"hi\"],\"providers\":[{\"name\":"   \
  "\"m\",\"api\":\"openai\","                                                                      \
  "\"model\":\"x\"}]},\"script\":{\"m\":[{\"text\":\"ok\"}]}"

static void bad_fixtures_are_named(void) {
  one_bad("unknown-req",
          "{\"ock_fixture\":1,\"id\":\"a\",\"requirements\":[\"OCK-NOPE-001\"]," GOOD_SESSION "}",
          "$.requirements[0]", "unknown requirement");
  one_bad("typo",
          "{\"ock_fixture\":1,\"id\":\"a\",\"requirements\":[\"OCK-COMPLETE-001\"],\"promts\":[]"
          "," GOOD_SESSION "}",
          "$.promts", "unknown member");
  one_bad("syntax", "{\"ock_fixture\":1,\"id\":\"a\",\n\"requirements\": [,]}", "line 2",
          "not valid JSON");
  one_bad("no-proves",
          "{\"ock_fixture\":1,\"id\":\"no-proves\",\"title\":\"t\",\"requirements\":[\"OCK-"
          "COMPLETE-001\"]}",
          "$.proves", "required");
  one_bad("caps",
          "{\"ock_fixture\":1,\"id\":\"a\",\"requirements\":[\"OCK-COMPLETE-001\"],"
          "\"capabilities\":[\"telepathy\"]"
          "," GOOD_SESSION "}",
          "$.capabilities[0]", "telepathy");
  one_bad("expect",
          "{\"ock_fixture\":1,\"id\":\"a\",\"requirements\":[\"OCK-COMPLETE-001\"],\"expect\":{"
          "\"executes\":[{"
          "\"status\":\"fine\"}]}," GOOD_SESSION "}",
          "$.expect.executes[0].status", "\"success\"");
  /* A clause's own requirement (SPEC.md 8.8) must be a registry ID, in each of its forms. */
  one_bad("clause-req",
          "{\"ock_fixture\":1,\"id\":\"a\",\"requirements\":[\"OCK-COMPLETE-001\"],\"expect\":{"
          "\"tool_calls\":{"
          "\"get\":{\"count\":0,\"requirement\":\"OCK-NOPE-009\"}}}," GOOD_SESSION "}",
          "$.expect.tool_calls.get.requirement", "unknown requirement");
  one_bad("element-req",
          "{\"ock_fixture\":1,\"id\":\"a\",\"requirements\":[\"OCK-COMPLETE-001\"],\"expect\":{"
          "\"last_request_contains\":[\"ok\",{\"text\":\"x\",\"requirement\":\"TOOL-6\"}]}"
          "," GOOD_SESSION "}",
          "$.expect.last_request_contains[1].requirement", "unknown requirement");
  one_bad("element-shape",
          "{\"ock_fixture\":1,\"id\":\"a\",\"requirements\":[\"OCK-COMPLETE-001\"],\"expect\":{"
          "\"events_absent\":[{\"name\":\"tool:post\"}]}," GOOD_SESSION "}",
          "$.expect.events_absent[0]", "unknown member");
  /* A timing range is checked as the other clauses are: a misspelt bound is not a default. */
  one_bad("timing-key",
          "{\"ock_fixture\":1,\"id\":\"a\",\"requirements\":[\"OCK-ERROR-004\"],\"expect\":{"
          "\"timing\":{\"between_requests_ms\":[{\"min\":1},{\"mn\":100}]}}," GOOD_SESSION "}",
          "$.expect.timing.between_requests_ms[1]", "unknown member");
  one_bad("timing-range",
          "{\"ock_fixture\":1,\"id\":\"a\",\"requirements\":[\"OCK-ERROR-004\"],\"expect\":{"
          "\"timing\":{\"between_requests_ms\":{\"min\":300,\"max\":100}}}," GOOD_SESSION "}",
          "$.expect.timing.between_requests_ms", "min <= max");
  one_bad("count-shape",
          "{\"ock_fixture\":1,\"id\":\"a\",\"requirements\":[\"OCK-COMPLETE-001\"],\"expect\":{"
          "\"llm_requests\":\"two\"}," GOOD_SESSION "}",
          "$.expect.llm_requests", "expected an integer");
  one_bad(
      "mock-part",
      "{\"ock_fixture\":1,\"id\":\"a\",\"title\":\"t\",\"proves\":\"p\",\"requirements\":[\"OCK-"
      "COMPLETE-001\"],\"session\":{\"prompts\":[\"hi\"],"
      "\"providers\":[{\"name\":\"m\",\"api\":\"gpt\",\"model\":\"x\"}]},\"script\":{\"m\":[]}}",
      "$.session.providers[0].api", "openai");
}

static void symlinked_fixture_is_refused(void) {
  char dir[128], cmd[400], err[1200] = "";
  snprintf(dir, sizeof dir, "%s/links", tmpdir);
  snprintf(cmd, sizeof cmd, "mkdir -p %s && ln -sf /etc/hostname %s/outside.json", dir, dir);
  OCK_ASSERT_INT_EQ(system(cmd), 0);
  struct scenario_set set;
  OCK_ASSERT_INT_NE(ock__scenarios_load(dir, reg, NULL, NULL, &set, err, sizeof err), OCK_OK);
  OCK_ASSERT_CONTAINS(err, "outside.json: not a regular file");
}

static void shards_partition_the_selection(void) {
  struct scenario_set all, s1, s2;
  char err[1200];
  const char *dir = ock_test_path("fixtures");
  char path[4096];
  snprintf(path, sizeof path, "%s", dir);
  if (ock__scenarios_load(path, reg, NULL, NULL, &all, err, sizeof err)) {
    ock_test_fail(__LINE__, __FILE__, "%s", err);
    return;
  }
  OCK_ASSERT_OK(ock__scenarios_load(path, reg, NULL, NULL, &s1, err, sizeof err));
  OCK_ASSERT_OK(ock__scenarios_load(path, reg, NULL, NULL, &s2, err, sizeof err));
  ock__scenarios_shard(&s1, 1, 2);
  ock__scenarios_shard(&s2, 2, 2);
  OCK_ASSERT_INT_EQ(s1.n + s2.n, all.n);
  for (size_t i = 0; i < s1.n; i++)
    for (size_t k = 0; k < s2.n; k++)
      if (!strcmp(s1.items[i].id, s2.items[k].id))
        ock_test_fail(__LINE__, __FILE__, "%s is in both shards", s1.items[i].id);
  ock__scenarios_free(&all);
  ock__scenarios_free(&s1);
  ock__scenarios_free(&s2);
  const char *only[] = {"text-*", NULL};
  OCK_ASSERT_OK(ock__scenarios_load(path, reg, only, NULL, &s1, err, sizeof err));
  for (size_t i = 0; i < s1.n; i++)
    OCK_ASSERT_INT_EQ(strncmp(s1.items[i].id, "text-", 5), 0);
  OCK_ASSERT_INT_GT(s1.n, 0);
  ock__scenarios_free(&s1);
}

/* write_fixture writes text as dir/name.json. */
static void write_fixture(const char *dir, const char *name, const char *text) {
  char path[256];
  snprintf(path, sizeof path, "%s/%s.json", dir, name);
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
}

#define WIRELESS(id, extra)                                                                        \
  "{\"ock_fixture\":1,\"id\":\"" id "\",\"title\":\"t\",\"proves\":\"p\","                         \
  "\"requirements\":[\"OCK-COMPLETE-001\"]," extra                                                 \
  "\"session\":{\"prompts\":[\"hi\"],\"providers\":[{\"name\":\"m\",\"model\":\"x\"}]},"           \
  "\"script\":{\"m\":[{\"text\":\"ok\"}]}}"

/* api of the first provider of sc's fixture, as the scenario is played ("" when it names none:
 * the fixture left it to the run). */
static const char *api_of(const struct scenario *sc) {
  const struct ock_fx_provider *p = sc->fx->n_providers ? &sc->fx->providers[0] : NULL;
  return !p || p->wireless ? "" : ock_wire_name_at((int)p->api);
}

/* A scenario whose providers name no wire is written once and played on each declared wire as
 * "<id>@<wire>" (SPEC.md 8.2); on one wire (openai when none is declared) under its own id. A
 * glob selects it by its id, its fixture's id (every wire) or its alias; a pinned one stays one. */
static void wireless_scenarios_play_on_each_wire(void) {
  char dir[128], cmd[300], err[1200] = "";
  snprintf(dir, sizeof dir, "%s/wires", tmpdir);
  snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
  OCK_ASSERT_INT_EQ(system(cmd), 0);
  write_fixture(dir, "both", WIRELESS("both", "\"aliases\":{\"anthropic\":\"anthropic-both\"},"));
  write_fixture(
      dir, "pinned",
      "{\"ock_fixture\":1,\"id\":\"pinned\",\"requirements\":[\"OCK-COMPLETE-001\"]," GOOD_SESSION
      "}");
  struct scenario_set set;
  if (ock__scenarios_load(dir, reg, NULL, NULL, &set, err, sizeof err)) {
    ock_test_fail(__LINE__, __FILE__, "the fixtures do not load: %s", err);
    return;
  }
  OCK_ASSERT_OK(ock__scenarios_expand(&set, NULL));
  OCK_ASSERT_INT_EQ(set.n, 2);
  OCK_ASSERT_STR_EQ(set.items[0].id, "both");
  OCK_ASSERT_STR_EQ(api_of(&set.items[0]), "openai");
  ock__scenarios_free(&set);

  const char *const wires[] = {"openai", "anthropic", NULL};
  OCK_ASSERT_OK(ock__scenarios_load(dir, reg, NULL, NULL, &set, err, sizeof err));
  OCK_ASSERT_OK(ock__scenarios_expand(&set, wires));
  OCK_ASSERT_INT_EQ(set.n, 3);
  OCK_ASSERT_STR_EQ(set.items[0].id, "both@anthropic");
  OCK_ASSERT_STR_EQ(api_of(&set.items[0]), "anthropic");
  OCK_ASSERT_STR_EQ(set.items[0].alias, "anthropic-both");
  OCK_ASSERT_STR_EQ(set.items[1].id, "both@openai");
  OCK_ASSERT_STR_EQ(api_of(&set.items[1]), "openai");
  OCK_ASSERT_TRUE(set.items[1].alias == NULL);
  OCK_ASSERT_STR_EQ(set.items[1].fx->id, "both"); /* the mock's id */
  OCK_ASSERT_STR_EQ(set.items[2].id, "pinned");
  OCK_ASSERT_TRUE(ock__scenarios_find(&set, "anthropic-both"));
  OCK_ASSERT_TRUE(ock__scenarios_find(&set, "both"));
  OCK_ASSERT_FALSE(ock__scenarios_find(&set, "both@gemini-like"));
  const char *const by_alias[] = {"anthropic-both", NULL};
  ock__scenarios_select(&set, by_alias, NULL);
  OCK_ASSERT_INT_EQ(set.n, 1);
  OCK_ASSERT_STR_EQ(set.items[0].id, "both@anthropic");
  ock__scenarios_free(&set);

  /* one wire declared: played there, under its own id, still named by "<id>@<wire>" */
  const char *const one[] = {"anthropic", NULL};
  OCK_ASSERT_OK(ock__scenarios_load(dir, reg, NULL, NULL, &set, err, sizeof err));
  OCK_ASSERT_OK(ock__scenarios_expand(&set, one));
  OCK_ASSERT_INT_EQ(set.n, 2);
  OCK_ASSERT_STR_EQ(set.items[0].id, "both");
  OCK_ASSERT_STR_EQ(api_of(&set.items[0]), "anthropic");
  OCK_ASSERT_TRUE(ock__scenarios_find(&set, "both@anthropic"));
  OCK_ASSERT_FALSE(ock__scenarios_find(&set, "both@openai"));
  ock__scenarios_free(&set);

  OCK_ASSERT_OK(ock__scenarios_load(dir, reg, NULL, NULL, &set, err, sizeof err));
  OCK_ASSERT_OK(ock__scenarios_expand(&set, wires));
  const char *const by_base[] = {"both", NULL};
  ock__scenarios_select(&set, by_base, NULL);
  OCK_ASSERT_INT_EQ(set.n, 2);
  ock__scenarios_free(&set);

  one_bad("at-id", WIRELESS("at@id", ""), "$.id", "\"@\"");
  one_bad("alias-wire", WIRELESS("alias-wire", "\"aliases\":{\"carrier-pigeon\":\"x\"},"),
          "$.aliases.carrier-pigeon", "expected a wire name");
}

static const struct ock_test tests[] = {
    {"every_requirement_has_a_scenario", every_requirement_has_a_scenario},
    {"bad_fixtures_are_named", bad_fixtures_are_named},
    {"shards_partition_the_selection", shards_partition_the_selection},
    {"symlinked_fixture_is_refused", symlinked_fixture_is_refused},
    {"wireless_scenarios_play_on_each_wire", wireless_scenarios_play_on_each_wire},
    {NULL, NULL}};
const struct ock_suite suite_scenarios = {"scenarios", tests, setup, teardown};
