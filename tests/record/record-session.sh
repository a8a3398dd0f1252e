#!/bin/sh
# record-session.sh BIN_DIR SOURCE_FIXTURE OUT_DIR CLIENT [RECORD_OPTION...]
# Serves SOURCE_FIXTURE with the mock, starts `ock record` in front of it writing to OUT_DIR,
# runs the shell command CLIENT with OCK_URL and the providers' base URLs (OPENAI_BASE_URL,
# ANTHROPIC_BASE_URL, GOOGLE_GEMINI_BASE_URL) pointing at the recorder, then
# stops the recorder (SIGINT: it writes its files) and the mock. Exits with CLIENT's status, or
# 90 when a server did not start. Nothing is left running.
set -u
BIN=$1 SRC=$2 OUT=$3 CLIENT=$4
shift 4
WORK="$OUT.servers"
mkdir -p "$WORK"
MP= RP=
stop() {
  [ -n "$RP" ] && kill -INT "$RP" 2>/dev/null && wait "$RP"
  [ -n "$MP" ] && kill -INT "$MP" 2>/dev/null && wait "$MP"
  RP= MP=
}
trap stop EXIT INT TERM
first_line() { # first_line FILE: waits up to 5 s for the URL a server prints first
  i=0
  while [ $i -lt 100 ] && ! grep -q . "$1" 2>/dev/null; do sleep 0.05; i=$((i + 1)); done
  head -n 1 "$1"
}
"$BIN/bin/ock-mock-provider" --fixture "$SRC" --journal "$WORK/mock.journal" \
  >"$WORK/mock.url" 2>"$WORK/mock.err" &
MP=$!
MOCK=$(first_line "$WORK/mock.url")
[ -n "$MOCK" ] || { cat "$WORK/mock.err" >&2; exit 90; }
"$BIN/bin/ock" record --upstream "$MOCK" -o "$OUT" "$@" >"$WORK/record.url" 2>"$WORK/record.err" &
RP=$!
REC=$(first_line "$WORK/record.url")
[ -n "$REC" ] || { cat "$WORK/record.err" >&2; exit 90; }
OCK_URL=$REC OCK_MCP_URL=$REC/mcp OPENAI_BASE_URL=$REC/v1 ANTHROPIC_BASE_URL=$REC \
  GOOGLE_GEMINI_BASE_URL=$REC sh -c "$CLIENT" >"$WORK/client.out" 2>&1
rc=$?
stop
exit $rc
