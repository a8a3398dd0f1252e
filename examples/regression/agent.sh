#!/bin/sh
# docs/regression.md, an unmodified agent: a production session that ended in an orphaned-call
# 400 becomes a committed scenario that fails on the broken build and passes on the fixed one.
# Run from the source tree after `make`; `make test` runs it and checks the page shows it.
set -eu
PATH="$PWD/build/bin:$PATH"
AGENT="python3 $PWD/examples/plain-agent/agent.py"
PROVIDER_FIXTURE="$PWD/examples/regression/provider.json"
WORK=$(mktemp -d) PROVIDER_PID= RECORD_PID=
trap 'kill $PROVIDER_PID $RECORD_PID 2>/dev/null || true; rm -rf "$WORK"' EXIT
cd "$WORK"

# 0. The provider. In production: UPSTREAM=https://api.openai.com. Here the mock plays it.
ock-mock-provider --fixture "$PROVIDER_FIXTURE" >provider.url &
PROVIDER_PID=$!
until [ -s provider.url ]; do sleep 0.1; done
UPSTREAM=$(head -n 1 provider.url)

# 1. Record: the broken build runs as in production, its provider behind `ock record`.
ock record --upstream "$UPSTREAM" -o incident >record.url &
RECORD_PID=$!
until [ -s record.url ]; do sleep 0.1; done
RECORD=$(head -n 1 record.url)
echo 'What is the weather in Paris?' |
  OPENAI_BASE_URL="$RECORD/v1" OPENAI_API_KEY=sk-prod-key $AGENT --drop-tool-results ||
  echo "the agent failed, as in production: HTTP 400"
kill -INT "$RECORD_PID" && wait "$RECORD_PID" && RECORD_PID=
kill -INT "$PROVIDER_PID" && wait "$PROVIDER_PID" && PROVIDER_PID=
! grep -r sk-prod-key incident # no secret reached the disk

# 2. Commit the scenario: its id is its file name.
mkdir -p scenarios
sed 's/"id":[[:space:]]*"fixture"/"id": "weather-orphan"/' incident/fixture.json \
  >scenarios/weather-orphan.json

# 3. The broken build fails the replay on OCK-ORPHAN-001 (exit 1) ...
status=0
ock run --blackbox --orchestrator "$AGENT --drop-tool-results" --fixtures scenarios \
  -o reports/broken || status=$?
[ "$status" -eq 1 ]
grep -q 'OCK-ORPHAN-001 | MUST | FAIL' reports/broken/summary.md

# 4. ... and the fixed build passes it (exit 0).
ock run --blackbox --orchestrator "$AGENT" --fixtures scenarios -o reports/fixed
