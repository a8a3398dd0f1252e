/*
 * manifest.h: what a SUT says about itself, read the same way by `ock run` and `ock fuzz`: the
 * manifest file of SPEC.md 7.9 and the --wires option.
 *
 * A manifest is {name, capabilities, wires, expected_failures, framework, emulated}; name and
 * capabilities are required, every list holds strings, capabilities and wires name known ones.
 * --capabilities or --wires given beside a manifest must say the same as it (which one the user
 * meant cannot be known); one not given takes the manifest's.
 */
#ifndef OCK_CLI_MANIFEST_H
#define OCK_CLI_MANIFEST_H

#include <stddef.h>

#include <cJSON.h>

#include "ock/options.h"

struct ock_manifest {
  cJSON *json; /* owns every string below; ock__manifest_free deletes it */
  const char *name, *framework;
  struct ock_option_list caps, wires, expected, emulated;
  int has_wires;    /* the manifest has a wires member */
  int has_emulated; /* the manifest has an emulated member */
};

/* ock__manifest_load reads the manifest at path into *m. Returns 0, or an OCK_E* code with err
 * (n bytes) saying where the file is wrong ("<path>: $.wires[1]: expected a wire name ..."). */
int ock__manifest_load(const char *path, struct ock_manifest *m, char *err, size_t n);

/* ock__manifest_merge: caps and wires (as given on the command line) agree with m, read from
 * path; an empty one takes the manifest's (wires only when the manifest has them). Returns 0, or
 * OCK_ETYPE with err naming the option, both lists and how to fix it. */
int ock__manifest_merge(const struct ock_manifest *m, const char *path,
                        struct ock_option_list *caps, struct ock_option_list *wires, char *err,
                        size_t n);

void ock__manifest_free(struct ock_manifest *m);

/* The wires a SUT that declares none is taken to speak: the two the kit had before the others
 * were added, so that a scenario pinned to a newer wire does not fail an existing user's run. */
extern const char *const ock__default_wires[];

/* ock__wire_option_names: every wire of the wire table, NULL-terminated, for the values of
 * --wires. ock__wire_option_help: its --help text, the wires and the default, then more (the
 * command's own words on what the wires do). Static storage, filled anew on each call. */
const char *const *ock__wire_option_names(void);
const char *ock__wire_option_help(const char *more);

#endif
