#!/bin/sh
# screenshot-report.sh: render an OCK report.html to a PNG with headless Chromium.
#
#   scripts/screenshot-report.sh REPORT.html OUT.png [WIDTHxHEIGHT]
#
# Used to check by eye that the page renders (requirement matrix, SVG sequence diagrams) and
# that hostile strings from a SUT show as text. The browser runs with a throw-away profile and
# with every background network feature off: the page itself loads nothing (its CSP forbids
# it), and neither should the browser. Installs the Debian package `chromium` when it is
# missing and we are root.
set -eu

usage() {
  echo "usage: $0 REPORT.html OUT.png [WIDTHxHEIGHT]" >&2
  exit 2
}
[ $# -ge 2 ] && [ $# -le 3 ] || usage
report=$1
out=$2
size=${3:-1400x2000}
[ -f "$report" ] || { echo "$0: $report: no such file" >&2; exit 1; }
case $size in
*x*) width=${size%x*}; height=${size#*x} ;;
*) usage ;;
esac

browser=
for b in chromium chromium-browser google-chrome; do
  if command -v "$b" >/dev/null 2>&1; then browser=$b; break; fi
done
if [ -z "$browser" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "$0: installing chromium (apt-get)" >&2
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >&2
    browser=chromium
  else
    echo "$0: no chromium found; install the Debian package chromium (as root: apt-get install chromium)" >&2
    exit 1
  fi
fi

abs_report=$(cd "$(dirname "$report")" && pwd)/$(basename "$report")
case $out in
/*) abs_out=$out ;;
*) abs_out=$(pwd)/$out ;;
esac
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT INT TERM

# Chromium writes the PNG itself; its own chatter goes to a log shown only on failure.
log=$profile/chromium.log
if ! "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --disable-default-apps --hide-scrollbars --user-data-dir="$profile" \
  --screenshot="$abs_out" --window-size="$width,$height" "file://$abs_report" >"$log" 2>&1; then
  cat "$log" >&2
  echo "$0: chromium failed" >&2
  exit 1
fi
if [ ! -s "$abs_out" ]; then
  cat "$log" >&2
  echo "$0: chromium wrote no screenshot to $abs_out" >&2
  exit 1
fi
echo "$abs_out"
