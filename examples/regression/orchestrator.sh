#!/bin/sh
# docs/regression.md, an instrumented orchestrator: the same incident from an orchestrator that
# posts ock/1 events, so the recording also holds its event log, the contract `ock diff`
# compares from build to build. Run from the source tree after `make`; `make test` runs it.
set -eu
PATH="$PWD/build/bin:$PATH"
FIXED=ock-orchestrator
BROKEN="ock-mutant result-dropped -- ock-orchestrator" # a build that drops a tool result
PROVIDER_FIXTURE="$PWD/examples/regression/provider.json"
WORK=$(mktemp -d) PROVIDER_PID= RECORD_PID=
trap 'kill $PROVIDER_PID $RECORD_PID 2>/dev/null || true; rm -rf "$WORK"' EXIT
cd "$WORK"

# 0. The provider (the mock plays it; it also serves this orchestrator's session document).
ock-mock-provider --fixture "$PROVIDER_FIXTURE" >provider.url &
PROVIDER_PID=$!
until [ -s provider.url ]; do sleep 0.1; done
UPSTREAM=$(head -n 1 provider.url)

# 1. Record: events posted to $OCK_URL are recorded and answered {"action":"continue"}.
ock record --upstream "$UPSTREAM" -o incident >record.url &
RECORD_PID=$!
until [ -s record.url ]; do sleep 0.1; done
OCK_URL=$(head -n 1 record.url) OPENAI_API_KEY=sk-prod-key $BROKEN ||
  echo "the orchestrator failed, as in production"
kill -INT "$RECORD_PID" && wait "$RECORD_PID" && RECORD_PID=
kill -INT "$PROVIDER_PID" && wait "$PROVIDER_PID" && PROVIDER_PID=
ock check incident/events.jsonl # the production event log, graded offline

# 2. Commit the scenario.
mkdir -p scenarios
sed 's/"id":[[:space:]]*"fixture"/"id": "weather-orphan"/' incident/fixture.json \
  >scenarios/weather-orphan.json

# 3. The broken build fails the replay (exit 1); the fixed build passes it (exit 0).
CAPS=$(ock-orchestrator --capabilities)
status=0
ock run --orchestrator "$BROKEN" --capabilities "$CAPS" --fixtures scenarios \
  -o reports/broken || status=$?
[ "$status" -eq 1 ]
grep -q 'OCK-ORPHAN-001 | MUST | FAIL' reports/broken/summary.md
ock run --orchestrator "$FIXED" --capabilities "$CAPS" --fixtures scenarios -o reports/fixed \
  --journals

# 4. The fixed build's events are the new golden log: the incident's differ (exit 1), and the
#    next build is compared with the golden one (exit 0 while the contract holds).
cp reports/fixed/journals/weather-orphan.journal.jsonl golden.jsonl
status=0
ock diff incident/events.jsonl golden.jsonl || status=$?
[ "$status" -eq 1 ]
ock run --orchestrator "$FIXED" --capabilities "$CAPS" --fixtures scenarios -o reports/next \
  --journals
ock diff golden.jsonl reports/next/journals/weather-orphan.journal.jsonl
