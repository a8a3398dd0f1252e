/*
 * ock/config.h: the session config (SPEC.md 7.4), typed from the registry.
 *
 * core/requirements.json lists each option of the session document's "config" with its type,
 * range or values, and default; the build writes them into OCK_CONFIG_MAP (ock/contract_map.h),
 * and this header and core/config.c expand that map into one struct, its defaults, its reader
 * and its writer. The mock provider reads a fixture's config and serves it with these, the
 * reference orchestrator reads the session document with them, and the checks read the config
 * the mock served. A default or a range changed in the registry changes all three at once.
 */
#ifndef OCK_CONFIG_H
#define OCK_CONFIG_H

#include <cJSON.h>

#include "ock/contract_map.h"
#include "ock/json.h"

/* The C type of each TYPE of OCK_CONFIG_MAP. */
#define OCK__CFG_CTYPE_INT(member) long long member;
#define OCK__CFG_CTYPE_NUMBER(member) double member;
#define OCK__CFG_CTYPE_BOOL(member) int member;
#define OCK__CFG_CTYPE_ENUM(member) enum ock_##member member;

/* The bit of each option in struct ock_config.present. */
enum ock_config_option {
#define OCK__CFG_OPTION(ident, member, type, dflt, lo, hi) OCK_CONFIG_##ident,
  OCK_CONFIG_MAP(OCK__CFG_OPTION)
#undef OCK__CFG_OPTION
      OCK_CONFIG_COUNT
};

/* One member per option, named as the option: long long for an integer, double for a number,
 * int (0 or 1) for a boolean, enum ock_<option> for an enum (enum ock_error_strategy,
 * enum ock_mode). */
#define OCK__CFG_MEMBER(ident, member, type, dflt, lo, hi) OCK__CFG_CTYPE_##type(member)
/* OCK_CONFIG_MEMBERS: the members alone, for a struct of a part's own that carries the session
 * config beside other settings (the reference's struct ock_orchestrator_config). */
#define OCK_CONFIG_MEMBERS OCK_CONFIG_MAP(OCK__CFG_MEMBER)
struct ock_config {
  OCK_CONFIG_MEMBERS
  unsigned long present; /* bit (1UL << OCK_CONFIG_<OPT>): the option was in the JSON read */
};

/* ock_config_default fills c with the registry's defaults; present is 0. */
void ock_config_default(struct ock_config *c);

enum ock_config_read_flags {
  OCK_CONFIG_LENIENT = 0, /* a session document: members the registry does not name are
                             ignored (SPEC.md 7.3: later versions MAY add some) */
  OCK_CONFIG_FIXTURE = 1  /* a fixture: an unknown member is an error, and mode "streaming"
                             needs "streaming": true (SPEC.md 7.4) */
};

/* ock_config_read reads the options present in obj (its JSON path is path; obj may be NULL:
 * nothing is read) over the values already in *c, each checked against its type and range,
 * and sets their bits in c->present. Returns OCK_OK, or OCK_ETYPE / OCK_EINVAL with err naming
 * the member and what was expected; on an error *c is untouched. */
int ock_config_read(const cJSON *obj, const char *path, enum ock_config_read_flags flags,
                    struct ock_config *c, struct ock_jerr *err);

/* ock_config_to_json: every option of c as a JSON object in registry order (the session
 * document's "config"). NULL when out of memory; the caller frees with cJSON_Delete. */
cJSON *ock_config_to_json(const struct ock_config *c);

/* The names of an enum option's values, and back. A name function returns "" for a value out
 * of range; a parse function returns OCK_OK and sets *out, or OCK_EINVAL (NULL or an unknown
 * name; *out untouched). */
const char *ock_error_strategy_name(enum ock_error_strategy v);
int ock_error_strategy_parse(const char *name, enum ock_error_strategy *out);
const char *ock_mode_name(enum ock_mode v);
int ock_mode_parse(const char *name, enum ock_mode *out);

#endif
