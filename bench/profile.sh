#!/bin/bash
# profile.sh: the profiles behind bench/RESULTS.md, to re-check them after a fix.
#
#   bash bench/profile.sh [BUILD]      (after `make bench`, or at least `make` and the helpers)
#
# 1. the mock under the item-1 load, with perf (DWARF call graphs), into BUILD/bench/prof/;
# 2. ock run's wait after each SUT exit, from report.json's timeline;
# 3. the reference orchestrator's system calls for a 31-turn tool loop (strace -c).
# Needs perf and strace (apt-get install linux-perf strace). Every process it starts is stopped
# on exit; every load is bounded in time.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
OUT=$BUILD/bench/prof
mkdir -p "$OUT"
pids=()
cleanup() { for p in "${pids[@]}"; do kill -INT "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM

start_mock() { # start_mock FIXTURE [PREFIX...]: sets MOCK_PID, URL
  rm -f "$OUT/url"
  "${@:2}" "$BUILD/bin/ock-mock-provider" --fixture "$1" >"$OUT/url" 2>"$OUT/mock.stderr" &
  MOCK_PID=$!
  pids+=("$MOCK_PID")
  for _ in $(seq 600); do [ -s "$OUT/url" ] && break; sleep 0.1; done
  URL=$(head -1 "$OUT/url")
}

python3 - "$OUT" <<'EOF'
import json, sys
out = sys.argv[1]
def fx(name, providers, turns, turn, **session):
    s = {"prompts": ["What is the weather in Paris?"],
         "providers": [{"name": "m%d" % i, "api": "openai", "model": "gpt-ock"} for i in range(providers)]}
    s.update(session)
    json.dump({"ock_fixture": 1, "id": name, "title": name, "proves": "a load",
               "requirements": ["OCK-COMPLETE-001"], "session": s,
               "script": {"m%d" % i: [turn] * turns for i in range(providers)}},
              open("%s/%s.json" % (out, name), "w"), separators=(",", ":"))
fx("prof-chat", 1, 250000, {"text": "It is 15 degrees in Paris."})
tools = [{"name": "get_weather", "description": "weather",
          "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}]
loop = {"ock_fixture": 1, "id": "prof-loop", "title": "loop", "proves": "a load",
        "requirements": ["OCK-COMPLETE-001"],
        "session": {"prompts": ["Weather?"], "tools": tools,
                    "config": {"max_iterations": 31, "parallel_tools": False},
                    "providers": [{"name": "m0", "api": "openai", "model": "gpt-ock"}]},
        "script": {"m0": [{"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}] * 30
                   + [{"text": "15 degrees."}]}}
json.dump(loop, open("%s/prof-loop.json" % out, "w"))
EOF

echo "== 1. the mock under wrk -t2 -c16 for 4 s (perf, DWARF call graphs)"
start_mock "$OUT/prof-chat.json" perf record -q -F 999 --call-graph dwarf,16384 -o "$OUT/mock.perf" --
wrk -t2 -c16 -d4s -s bench/wrk_chat.lua "$URL" -- bench/request.json 1 120000 | grep RESULT
kill -INT "$(pgrep -P "$MOCK_PID" ock-mock-provid || echo "$MOCK_PID")"
wait "$MOCK_PID" || true
perf report -i "$OUT/mock.perf" --children --stdio --sort symbol -g none >"$OUT/mock.txt" 2>/dev/null
grep -E '%' "$OUT/mock.txt" | grep -vE '0x0000' | sed -n 1,45p

echo "== 2. ock run: time from the SUT's last event to the harness seeing it exit"
"$BUILD/bin/ock" run --orchestrator "$BUILD/bench/min_sut" --capabilities core \
  --fixtures fixtures --case text-answer --repeat 100 --jobs 1 -o "$OUT/run" >/dev/null
python3 - "$OUT/run/report.json" <<'EOF'
import collections, json, sys
s = json.load(open(sys.argv[1]))["scenarios"]
gaps = [x["process"]["wall_ms"] - x["timeline"][-1]["t_ms"] for x in s]
h = collections.Counter(int(g // 5) * 5 for g in gaps)
print("ms after the last event until the SUT is seen to exit (bucket: scenarios):",
      dict(sorted(h.items())))
EOF

echo "== 3. the reference orchestrator, 31 LLM turns: system calls"
start_mock "$OUT/prof-loop.json"
OCK_URL=$URL OPENAI_BASE_URL=$URL/v1 OPENAI_API_KEY=ock-dummy-key \
  strace -f -c -o "$OUT/ref.strace" "$BUILD/bin/ock-orchestrator" >/dev/null 2>&1
kill -INT "$MOCK_PID"
wait "$MOCK_PID" || true
head -14 "$OUT/ref.strace"
