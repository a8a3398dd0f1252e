#!/bin/sh
# funclen.sh: the length in lines of every function in the kit's C sources outside tests/,
# fuzz/ and bench/ (STYLE.md: short functions), longest first; with --check, exit 1 when one is
# longer than FUNCLEN_MAX (100) or more than FUNCLEN_LONG_MAX (10) are longer than
# FUNCLEN_LONG (60). Uses Universal Ctags's end: field; make lint runs it with --check.
set -eu
cd "$(dirname "$0")/.."
MAX=${FUNCLEN_MAX:-100}
LONG=${FUNCLEN_LONG:-60}
LONG_MAX=${FUNCLEN_LONG_MAX:-10}
files=$(git ls-files '*.c' | grep -v -e '^tests/' -e '^fuzz/' -e '^bench/')
# shellcheck disable=SC2086
table=$(ctags --kinds-C=f --fields=+ne -o - $files | awk -F'\t' '{
  line = ""; end = ""
  for (i = 4; i <= NF; i++) {
    if ($i ~ /^line:/) line = substr($i, 6)
    if ($i ~ /^end:/) end = substr($i, 5)
  }
  if (line != "" && end != "") printf "%d\t%s:%s\t%s\n", end - line + 1, $2, line, $1
}' | sort -rn)
if [ "${1:-}" != "--check" ]; then
  printf '%s\n' "$table"
  exit 0
fi
over=$(printf '%s\n' "$table" | awk -v m="$MAX" '$1 > m')
long=$(printf '%s\n' "$table" | awk -v m="$LONG" '$1 > m' | wc -l)
status=0
if [ -n "$over" ]; then
  echo "funclen: functions over $MAX lines:"
  printf '%s\n' "$over"
  status=1
fi
if [ "$long" -gt "$LONG_MAX" ]; then
  echo "funclen: $long functions over $LONG lines (at most $LONG_MAX):"
  printf '%s\n' "$table" | awk -v m="$LONG" '$1 > m'
  status=1
fi
exit $status
