/*
 * contract.c: the name tables of the contract's enums (see contract.h), expanded from the
 * X-macros generated from the registry; lookups are linear over a handful of names.
 */
#include "ock/contract.h"

#include <string.h>

#include "ock/status.h"

#define OCK_NAME_OF(ident, name) name,
static const char *const kind_names[OCK_ENTRY_KNOWN] = {OCK_JOURNAL_KIND_MAP(OCK_NAME_OF)};
static const char *const verdict_names[OCK_VERDICT_COUNT] = {OCK_VERDICT_MAP(OCK_NAME_OF)};
static const char *const capability_names[OCK_CAPABILITY_COUNT] = {OCK_CAPABILITY_MAP(OCK_NAME_OF)};
#undef OCK_NAME_OF

/* index_of: the position of name in a table of n names, or -1 (also for NULL). */
static int index_of(const char *const *table, int n, const char *name) {
  for (int i = 0; name && i < n; i++)
    if (!strcmp(name, table[i]))
      return i;
  return -1;
}

enum ock_journal_kind ock_journal_kind_parse(const char *name) {
  int i = index_of(kind_names, OCK_ENTRY_KNOWN, name);
  return i < 0 ? OCK_ENTRY_OTHER : (enum ock_journal_kind)i;
}

const char *ock_journal_kind_name(enum ock_journal_kind k) {
  return (unsigned)k < OCK_ENTRY_KNOWN ? kind_names[k] : "";
}

const char *ock_verdict_name(enum ock_verdict v) {
  return (unsigned)v < OCK_VERDICT_COUNT ? verdict_names[v] : OCK_V_ERROR;
}

int ock_verdict_parse(const char *name, enum ock_verdict *out) {
  int i = index_of(verdict_names, OCK_VERDICT_COUNT, name);
  if (i < 0)
    return OCK_EINVAL;
  *out = (enum ock_verdict)i;
  return OCK_OK;
}

const char *ock_capability_name(enum ock_capability c) {
  return (unsigned)c < OCK_CAPABILITY_COUNT ? capability_names[c] : "";
}

int ock_capability_parse(const char *name, enum ock_capability *out) {
  int i = index_of(capability_names, OCK_CAPABILITY_COUNT, name);
  if (i < 0)
    return OCK_EINVAL;
  *out = (enum ock_capability)i;
  return OCK_OK;
}
