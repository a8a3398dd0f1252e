#!/bin/sh
# contract_lint_test.sh HEADER: scripts/contract_lint.sh catches what it is for and nothing else.
# It lints a sample conformance/ file in a scratch directory and compares the lines it names:
# a payload field spelled out (anywhere, or a word of another format read from an event's data)
# and an event name must be reported; the same words elsewhere, in comments, and the constants
# must not be. Run by make lint.
set -eu
header=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
lint=$(cd "$(dirname "$0")/../.." && pwd)/scripts/contract_lint.sh
dir=$(mktemp -d "${TMPDIR:-/tmp}/ock-lint-XXXXXX")
trap 'rm -rf "$dir"' EXIT INT TERM
mkdir -p "$dir/conformance/checks"
cat > "$dir/conformance/checks/sample.c" <<'C'
const char *a(const cJSON *d) { return ock_json_str(d, "parallel_group_id"); }
const char *b(const struct view_exec *x) { return ock__str_field(x->complete, "status"); }
const char *c(const cJSON *e) { return ock_json_str(ock__event_data(e), "content"); }
const char *d(const cJSON *m) { return ock__str_field(m, "content"); }
int e(const cJSON *x) { return ock__pf_is(x, OCK_FIELD_STATUS, "error"); }
/* "tool_name" in a comment */
const char *f(const cJSON *d) { return ock_json_str(d, OCK_PF_TOOL_NAME); }
int g(const cJSON *e) { return ock__is_event(e, "tool:pre"); }
const char *h(const struct view_exec *x) { return ock__pf_str(x->complete_entry, OCK_FIELD_REASON); }
C
got=$(cd "$dir" && sh "$lint" "$header" conformance/checks/sample.c | sed 's/: .*//' || true)
want="conformance/checks/sample.c:1
conformance/checks/sample.c:2
conformance/checks/sample.c:3
conformance/checks/sample.c:8"
if [ "$got" != "$want" ]; then
  echo "contract_lint_test: expected the lint to name" >&2
  echo "$want" >&2
  echo "but it named" >&2
  echo "$got" >&2
  exit 1
fi
if (cd "$dir" && sh "$lint" "$header" conformance/checks/sample.c > /dev/null); then
  echo "contract_lint_test: the lint passed a file with payload fields spelled out" >&2
  exit 1
fi
echo "contract_lint_test: the lint names the 4 literals of the sample and nothing else"
