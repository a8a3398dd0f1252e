#!/bin/sh
# include_lint.sh: the includes between conformance/'s stages (run, model, checks, report,
# record, cli), listed one edge a line with how many #include lines make it, and refused when
# they form a cycle or when a stage other than cli/ includes run/ (the runner: processes, the
# mock, the sentinel) or anything includes cli/ (the command line). The model, the checks and
# the reports then build and test without the runner, and the library without main().
#
#   sh scripts/include_lint.sh        (make lint runs it; exit 1 on a finding)
set -eu
edges=$(git ls-files --cached --others --exclude-standard 'conformance/*/*.c' 'conformance/*/*.h' | while read -r f; do
  from=${f#conformance/}
  from=${from%%/*}
  sed -n 's|^#include "\([a-z_]*\)/[^"]*".*|\1|p' "$f" | while read -r to; do
    if [ -d "conformance/$to" ] && [ "$to" != "$from" ]; then echo "$from $to"; fi
  done
done | sort | uniq -c | awk '{print $2, $3, $1}')
status=0
echo "include_lint: includes between conformance/ stages (from to lines):"
echo "$edges" | sed 's/^/  /'
bad=$(echo "$edges" | awk '($2 == "run" && $1 != "cli") || $2 == "cli" {print "  " $1 " includes " $2 "/ (" $3 " lines)"}')
if [ -n "$bad" ]; then
  echo "include_lint: a back-edge into run/ or cli/:"
  echo "$bad"
  status=1
fi
if ! echo "$edges" | awk '{print $1, $2}' | tsort >/dev/null 2>/tmp/include_lint.$$; then
  echo "include_lint: the stages include each other in a cycle:"
  sed 's/^/  /' /tmp/include_lint.$$
  status=1
fi
rm -f /tmp/include_lint.$$
exit $status
