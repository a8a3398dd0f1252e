/*
 * scenarios.h: the scenario catalog: fixture files found, validated and selected.
 *
 * Every fixture is loaded into the one fixture model (ock/fixture.h) before anything runs (a bad
 * fixture is a usage error, exit 2, naming the file and the JSON path); the mock and the checks
 * read that model. Selection follows the best kits: --case and --exclude globs on the id (an
 * excluded case is never started), then --shard I/N over the selected cases sorted by id.
 */
#ifndef OCK_SCENARIOS_H
#define OCK_SCENARIOS_H

#include <stddef.h>

#include <cJSON.h>

#include "ock/fixture.h"
#include "ock/registry.h"

struct scenario {
  char *path;             /* the fixture file; owned */
  struct ock_fixture *fx; /* the fixture, loaded once (ock/fixture.h) as it is played; owned */
  const char *id;         /* borrowed: the fixture's id, or wire_id when played on several wires */
  const char *title;
  const char *proves;
  char *base;        /* a wire-less fixture's own id, else NULL; owned */
  char *wire_id;     /* a wire-less fixture's "<id>@<wire>", else NULL; owned */
  const char *wire;  /* the wire a wire-less fixture is played on (static), else NULL */
  const char *alias; /* the id it was known by on that wire ("aliases"), or NULL; borrowed */
};

struct scenario_set {
  struct scenario *items;
  size_t n;
};

/* ock__scenarios_load reads every *.json in dir, validates each against reg (sorted by id),
 * and keeps those whose id matches one of include (NULL or empty: all) and none of exclude.
 * On a bad fixture it returns OCK_ETYPE/OCK_EMISSING/OCK_EJSON/OCK_EIO with errbuf holding
 * "FILE: JSON-PATH: what was expected". */
int ock__scenarios_load(const char *dir, const ock_registry *reg, const char *const *include,
                        const char *const *exclude, struct scenario_set *out, char *errbuf,
                        size_t n);

/* ock__scenario_load: the model of one parsed fixture (borrowed), checked against reg, into *out
 * (free with ock_fixture_free); file names it in errors. */
int ock__scenario_load(const cJSON *fixture, const char *file, const ock_registry *reg,
                       struct ock_fixture **out, char *errbuf, size_t n);

/* ock__scenarios_select keeps the scenarios whose id matches one of include (NULL or empty: all)
 * and none of exclude, in order, as ock__scenarios_load does; the others are freed. A glob
 * matches one wire of a wire-less scenario through its id, "<id>" (every wire), "<id>@<wire>"
 * and its alias. */
void ock__scenarios_select(struct scenario_set *s, const char *const *include,
                           const char *const *exclude);

/* ock__scenarios_expand plays each wire-less scenario (a session provider without "api",
 * SPEC.md 8.2) on each of wires (NULL or empty: openai), the providers without "api" taking that
 * wire: as "<id>@<wire>" when there are several, else under its own id. Scenarios whose
 * providers all name their wire stay as they are. Re-sorts by id. OCK_OK or OCK_ENOMEM. */
int ock__scenarios_expand(struct scenario_set *s, const char *const *wires);

/* ock__scenario_names: name (a scenario id, no glob) names sc: its id, its fixture's id (every
 * wire of it), "<id>@<wire>", or its alias. */
int ock__scenario_names(const struct scenario *sc, const char *name);

/* ock__scenarios_find: 1 when the set holds a scenario that name names, else 0. */
int ock__scenarios_find(const struct scenario_set *s, const char *id);

/* ock__scenarios_shard keeps the scenarios of shard index (1-based) of count, by position. */
void ock__scenarios_shard(struct scenario_set *s, int index, int count);

void ock__scenarios_free(struct scenario_set *s);

#endif
