#!/bin/sh
# screenshots.sh: what a person sees first in report.html, proved in a real browser.
#
#   tests/report/screenshots.sh [OUTDIR]      (default: $BUILD/report-screens, BUILD=build)
#
# Runs three real `ock run`s of one scenario each: a passing one (the reference orchestrator),
# a failing one (the reference behind the ock-mutant lie turn-count-plus-one) and a crashing one
# (a SUT that writes to stderr and dies of SIGSEGV). Each report.html is rendered by headless
# Chromium at 1280x800 into OUTDIR/{pass,fail,crash}.png, to be looked at; the script fails when
# the first screen of the failing run lacks its first cause (SPEC.md 9.8), or of the crashing run
# lacks its first cause, the SUT's exit status and the end of its stderr.
#
# "The first screen" is measured, not guessed: a copy of report.html, with its CSP meta removed
# and a probe script appended, is loaded by the same browser at the same window size with
# --dump-dom; the probe writes the viewport height and the bounding boxes (and text) of the
# elements that must be seen into an attribute of <html>, which the dumped DOM carries back. The
# probe only reads the layout, so the copy lays out exactly as the report does. --dump-dom's
# viewport is shorter than --screenshot's (657 against 800 px at 1280x800 in Chromium 156: the
# headless window keeps room for browser UI), so "visible to the probe" is the stricter test.
# Chromium runs with a throw-away profile and no background networking; the reports load
# nothing. Installs the Debian package chromium when it is missing and we are root (via
# scripts/screenshot-report.sh).
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
out=${1:-$build/report-screens}
mkdir -p "$out"
out=$(cd "$out" && pwd)
ock=$build/bin/ock
ref=$build/bin/ock-orchestrator
mutant=$build/bin/ock-mutant
for b in "$ock" "$ref" "$mutant"; do
  [ -x "$b" ] || { echo "$0: $b is missing; run make first" >&2; exit 2; }
done
caps=core,streaming,parallel,scheduling,lifecycle,resilience,cancellation
case_id=text-answer
failed=0
fail() {
  echo "$0: FAIL: $*" >&2
  failed=1
}

# run NAME WANT_EXIT ORCHESTRATOR: one `ock run` into $out/NAME.
run() {
  rm -rf "${out:?}/$1"
  set +e
  "$ock" run --orchestrator "$3" --capabilities "$caps" --fixtures "$root/fixtures" \
    --case "$case_id" -o "$out/$1" >"$out/$1.console" 2>&1
  code=$?
  set -e
  if [ "$code" != "$2" ]; then
    cat "$out/$1.console" >&2
    fail "the $1 run exited $code, expected $2"
  fi
}

cat >"$out/crashing-sut.sh" <<'SUT'
#!/bin/sh
# A SUT that crashes: a few lines on stderr, then SIGSEGV.
echo "crashing-sut: loading 3 tools" >&2
echo "crashing-sut: connecting to $OCK_URL" >&2
echo "crashing-sut: fatal: null tool table in dispatch <at> 0x0" >&2
kill -SEGV $$
SUT
chmod +x "$out/crashing-sut.sh"

run pass 0 "$ref"
run fail 1 "$mutant turn-count-plus-one -- $ref"
run crash 1 "$out/crashing-sut.sh"

# The PNGs, for a person (this also installs chromium when it is missing).
for r in pass fail crash; do
  "$root/scripts/screenshot-report.sh" "$out/$r/report.html" "$out/$r.png" 1280x800 >/dev/null
done
browser=
for b in chromium chromium-browser google-chrome; do
  if command -v "$b" >/dev/null 2>&1; then browser=$b; break; fi
done
[ -n "$browser" ] || { echo "$0: no chromium" >&2; exit 1; }

# probe NAME: the dumped DOM's probe attribute for $out/NAME/report.html, one "key=value" per
# line: vh (the viewport height) and, per selector, "top,bottom|text" or "none".
probe() {
  python3 - "$out/$1/report.html" "$out/$1.probe.html" <<'PY'
import re, sys
html = open(sys.argv[1], encoding="utf-8").read()
html = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", html, count=1)
script = """<script>
(function () {
  var out = ["vh=" + window.innerHeight];
  ["h1 .v", "#run-error", "#causes tr.r-FAIL", "#causes tr.crash b",
   "#causes tr.crash pre", "#failures p.note"].forEach(function (sel) {
    var e = document.querySelector(sel), r;
    if (!e) { out.push(sel + "=none"); return; }
    r = e.getBoundingClientRect();
    out.push(sel + "=" + Math.round(r.top) + "," + Math.round(r.bottom) + "|" +
             e.textContent.replace(/\\s+/g, " ").slice(0, 300));
  });
  document.documentElement.setAttribute("data-probe", out.join("\\n"));
})();
</script>"""
open(sys.argv[2], "w", encoding="utf-8").write(html.replace("</body>", script + "</body>", 1))
PY
  profile=$(mktemp -d)
  "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --disable-default-apps --hide-scrollbars --user-data-dir="$profile" \
    --window-size=1280,800 --virtual-time-budget=3000 --dump-dom "file://$out/$1.probe.html" \
    2>/dev/null | python3 -c '
import html, re, sys
m = re.search(r"data-probe=\"([^\"]*)\"", sys.stdin.read())
print(html.unescape(m.group(1)) if m else "vh=none")' >"$out/$1.probe"
  rm -rf "$profile"
}

# seen NAME SELECTOR TEXT: the element is wholly on the first screen and its text has TEXT.
seen() {
  vh=$(sed -n 's/^vh=//p' "$out/$1.probe")
  line=$(grep -F "$2=" "$out/$1.probe" | head -n 1)
  box=${line#*=}
  box=${box%%|*}
  text=${line#*|}
  case $vh in '' | none | *[!0-9]*) fail "$1: the probe did not run (see $out/$1.probe)"; return ;; esac
  case $box in
  none | '' | *[!0-9,-]*) fail "$1: no \"$2\" in report.html"; return ;;
  esac
  bottom=${box#*,}
  if [ "$bottom" -gt "$vh" ]; then
    fail "$1: \"$2\" ends at ${bottom}px, below the first screen (${vh}px)"
  fi
  case $text in
  *"$3"*) ;;
  *) fail "$1: \"$2\" reads \"$text\", expected it to contain \"$3\"" ;;
  esac
}

# first_cause NAME: the id of the first cause in the run's report.json.
first_cause() {
  python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
for c in r.get("causes", []):
    print(c["id"]); sys.exit(0)
' "$out/$1/report.json"
}

for r in pass fail crash; do probe "$r"; done
seen pass "h1 .v" PASS
seen pass "#failures p.note" "No scenario failed"
seen fail "h1 .v" FAIL
cause=$(first_cause fail)
[ -n "$cause" ] || fail "fail: report.json has no cause"
seen fail "#causes tr.r-FAIL" "$cause"
seen crash "#causes tr.crash b" "SUT process: "
grep -E '^#causes tr.crash b=.*(killed by SIGSEGV|exit code 139)' "$out/crash.probe" >/dev/null ||
  fail "crash: the exit status is not SIGSEGV (see $out/crash.probe)"
seen crash "#causes tr.crash pre" "fatal: null tool table in dispatch <at> 0x0"
seen crash "#causes tr.r-FAIL" "$(first_cause crash)"

if [ "$failed" != 0 ]; then
  echo "$0: the first screen lacks what it must show; look at $out/*.png" >&2
  exit 1
fi
echo "screenshots: $out/pass.png $out/fail.png $out/crash.png (first screens checked)"
