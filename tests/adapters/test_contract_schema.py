"""contract.schema.json (scripts/contract_schema.py) against real documents (pytest; make test).

The schema is generated afresh from the registry for the test. Valid: every fixture, every
manifest, the session documents the mock serves for fixtures on each wire, the events the reference
orchestrator emits (with the HookResults the mock replied) and the report.json of that run, all
read from the journals of `ock run --journals`. Refused: a broken copy of each kind, so the
schema and the validator are shown to tell them apart.
"""

import copy
import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = Path(os.environ.get("OCK_ROOT", HERE.parents[1]))
BUILD = ROOT / os.environ.get("OCK_BUILD", "build")
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "scripts"))

import contract_schema  # noqa: E402
import schema_check  # noqa: E402

CONTRACT = contract_schema.build()
SESSION_FIXTURES = ["tool-single-call", "anthropic-stream-text", "responses-deny-tool-pre",
                    "gemini-deny-tool-pre", "hook-deny-tool-pre", "fallback-cross-wire"]
REFERENCE_CASES = ["tool-single-call", "hook-*", "stream-text", "cancel-during-tool",
                   "tool-selecting-modify", "tool-unknown", "error-500-fail-fast", "iter-*"]
ALL_CAPABILITIES = "core,streaming,parallel,scheduling,lifecycle,resilience,cancellation"


def errors(definition, value):
    return schema_check.errors({"$ref": f"#/$defs/{definition}"}, value, CONTRACT)


def test_the_generated_schema_is_what_the_generator_writes_to_stdout():
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "contract_schema.py")],
                         capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == CONTRACT
    assert set(CONTRACT["$defs"]) >= {"session", "config", "event", "hook_result", "tool_result", "manifest", "fixture", "report"}


def test_every_fixture_is_valid():
    paths = sorted((ROOT / "fixtures").glob("*.json"))
    assert len(paths) > 100
    bad = {p.name: errors("fixture", json.loads(p.read_text()))[:3] for p in paths}
    assert {k: v for k, v in bad.items() if v} == {}


def test_every_manifest_is_valid():
    paths = sorted(ROOT.glob("adapters/*/manifests/*.json")) + sorted(ROOT.glob("examples/*/manifest.json"))
    assert paths
    for p in paths:
        assert errors("manifest", json.loads(p.read_text())) == [], p


def need(binary):
    path = BUILD / "bin" / binary
    if not path.exists():
        pytest.skip(f"{path} is not built (make all)")
    return path


@pytest.mark.parametrize("fixture", SESSION_FIXTURES)
def test_the_session_the_mock_serves_is_valid(fixture):
    mock = subprocess.Popen([str(need("ock-mock-provider")), "--fixture", str(ROOT / "fixtures" / f"{fixture}.json")],
                            stdout=subprocess.PIPE, text=True)
    try:
        url = mock.stdout.readline().strip()
        with urllib.request.urlopen(f"{url}/ock/v1/session", timeout=10) as res:
            doc = json.load(res)
    finally:
        mock.terminate()
        mock.wait(timeout=10)
    assert doc["scenario"] == fixture
    assert errors("session", doc) == []


@pytest.fixture(scope="module")
def reference_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("contract") / "run"
    cases = [a for c in REFERENCE_CASES for a in ("--case", c)]
    cmd = [str(need("ock")), "run", "--orchestrator", str(need("ock-orchestrator")), "--capabilities", ALL_CAPABILITIES,
           "--fixtures", str(ROOT / "fixtures"), *cases, "-o", str(out), "--journals", "--format", "jsonl", "--jobs", "2"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return out


def test_the_events_the_reference_emits_are_valid(reference_run):
    seen = set()
    for journal in sorted((reference_run / "journals").glob("*.journal.jsonl")):
        for line in journal.read_text().splitlines():
            entry = json.loads(line)
            if entry["kind"] != "event":
                continue
            seen.add(entry["event"])
            assert errors("event", {"event": entry["event"], "data": entry["data"]}) == [], (journal.name, entry)
            assert errors("hook_result", entry["reply"]) == [], (journal.name, entry)
    # the run covers most of the registry's events, each checked against its own data schema
    assert len(seen) >= 14, seen


def test_the_report_of_the_run_is_valid(reference_run):
    assert errors("report", json.loads((reference_run / "report.json").read_text())) == []


def test_broken_documents_are_refused():
    fixture = json.loads((ROOT / "fixtures" / "tool-single-call.json").read_text())
    session = {"protocol": "ock/1", "scenario": "x", "trace_id": "t", "prompts": ["p"], "config": {},
               "providers": [], "tools": []}
    broken = [
        ("session", dict(session, protocol="ock/2")),
        ("session", {k: v for k, v in session.items() if k != "trace_id"}),
        ("session", dict(session, providers=[{"name": "p", "api": "grpc", "base_url": "u", "model": "m", "priority": 1}])),
        ("event", {"event": "provider:request", "data": {"provider": "p", "model": "m", "iteration": 0, "attempt": 1}}),
        ("event", {"event": "tool:error", "data": {"tool_call_id": "c", "tool_name": "t", "parallel_group_id": "g",
                                                   "error": {"type": "oops", "message": "m"}}}),
        ("event", {"event": "orchestrator:complete", "data": {"orchestrator": "o", "turn_count": 1}}),
        ("event", {"event": "execution:end", "data": {"response": None, "status": "success"}}),
        ("event", {"event": "tool:pre", "data": []}),
        ("hook_result", {"action": "allow"}),
        ("tool_result", {"output": "no success"}),
        ("manifest", {"name": "m", "capabilities": ["telepathy"]}),
        ("fixture", dict(fixture, requirements=["OCK-NOPE-001"])),
        ("fixture", {k: v for k, v in fixture.items() if k != "id"}),
        ("report", {"schema_version": 1}),
    ]
    for definition, doc in broken:
        assert errors(definition, doc), (definition, doc)
    # and a custom event carries any object
    assert errors("event", {"event": "my:custom", "data": {"anything": [1]}}) == []
    assert errors("fixture", copy.deepcopy(fixture)) == []
