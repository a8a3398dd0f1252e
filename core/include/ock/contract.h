/*
 * contract.h: the names of the contract typed once: journal entry kinds, verdicts and
 * capabilities as enums with name tables (the events are in events.h, from the same source).
 *
 * ock/contract_map.h is generated from the registry (core/requirements.json) by
 * core/gen/contract_map.c. It gives each name a string constant, which is what code that
 * writes or compares a name uses, and one X-macro per list, expanded here into an enum, a
 * name function and a parse function (libuv's UV_ERRNO_MAP). The constants:
 *
 *   OCK_EV_<EVENT>         event names           "tool:pre"      OCK_EV_TOOL_PRE
 *   OCK_KIND_<KIND>        journal entry kinds   "llm_request"   OCK_KIND_LLM_REQUEST
 *   OCK_F_<KIND>_<FIELD>   journal entry fields  "request_seq"   OCK_F_LLM_REPLY_REQUEST_SEQ
 *   OCK_F_SEQ, OCK_F_T_MS, OCK_F_KIND            the members every entry has
 *   OCK_V_<VERDICT>        verdicts              "PASS"          OCK_V_PASS
 *   OCK_CAP_<CAPABILITY>   capabilities          "streaming"     OCK_CAP_STREAMING
 *   OCK_PF_<FIELD>         event payload fields  "tool_call_id"  OCK_PF_TOOL_CALL_ID
 *
 * OCK_EVENT_FIELD_MAP gives each event's payload fields, required or optional, with their JSON
 * types (OCK_JT_*, from core/contract-shapes.json) and an integer's minimum; OCK_EVENT_ITEM_MAP and
 * OCK_EVENT_MEMBER_MAP the items of an array field and the members of an object field.
 * conformance/model/payload.h reads by them, and ock_event_bad_field (events.h) checks by them.
 *
 * A name removed or renamed in the registry is then a compile error wherever code uses it,
 * never a check that silently finds nothing. `make lint` refuses these names spelled as
 * string literals outside the generated header and tests/.
 */
#ifndef OCK_CONTRACT_H
#define OCK_CONTRACT_H

#include "ock/caps.h"
#include "ock/contract_map.h"

/* The kinds of the mock's journal entries (SPEC.md 2, "The journal"). */
enum ock_journal_kind {
#define OCK_ENTRY_ENUM(ident, name) OCK_ENTRY_##ident,
  OCK_JOURNAL_KIND_MAP(OCK_ENTRY_ENUM)
#undef OCK_ENTRY_ENUM
      OCK_ENTRY_OTHER,
  OCK_ENTRY_KNOWN = OCK_ENTRY_OTHER /* how many known kinds there are */
};

/* ock_journal_kind_parse: the kind with this name, or OCK_ENTRY_OTHER (also for NULL). */
enum ock_journal_kind ock_journal_kind_parse(const char *name);
/* ock_journal_kind_name: the name of a known kind; "" for OCK_ENTRY_OTHER or a value out of
 * range (no entry has that kind). Static storage. */
const char *ock_journal_kind_name(enum ock_journal_kind k);

/* The verdicts of a check (SPEC.md 9.2), in order of severity: the registry lists them so, and
 * a scenario's verdict is its most severe check's (a PASS outranks a SKIP). */
enum ock_verdict {
#define OCK_VERDICT_ENUM(ident, name) OCK_VERDICT_##ident,
  OCK_VERDICT_MAP(OCK_VERDICT_ENUM)
#undef OCK_VERDICT_ENUM
      OCK_VERDICT_COUNT
};

/* ock_verdict_name: the verdict's name; OCK_V_ERROR for a value out of range. Static. */
const char *ock_verdict_name(enum ock_verdict v);
/* ock_verdict_parse: OCK_OK and *out set, or OCK_EINVAL (NULL or an unknown name; *out
 * untouched). */
int ock_verdict_parse(const char *name, enum ock_verdict *out);

/* The capabilities a SUT may declare (SPEC.md 1.3), in the order SPEC.md lists them. */
enum ock_capability {
#define OCK_CAPABILITY_ENUM(ident, name) OCK_CAPABILITY_##ident,
  OCK_CAPABILITY_MAP(OCK_CAPABILITY_ENUM)
#undef OCK_CAPABILITY_ENUM
      OCK_CAPABILITY_COUNT
};

/* ock_capability_name: the capability's name; "" for a value out of range. Static. */
const char *ock_capability_name(enum ock_capability c);
/* ock_capability_parse: OCK_OK and *out set, or OCK_EINVAL (NULL or an unknown name). */
int ock_capability_parse(const char *name, enum ock_capability *out);

#endif
