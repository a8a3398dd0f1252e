"""ock-cugar (pytest, in build/venv; make test runs it).

The translation of yielded stages is tested directly; end to end, the CUGAR-shaped
orchestrators of cugar_like.py run under ock-cugar against the mock on the scenarios of
fixtures/ (no LLM request): the lifecycle and trace checks pass for the one that keeps the
protocol, and fail where a variant breaks it (a FAIL_FAST that raises, a trace id of its own).
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ock_hosts import cugar

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cugar_like as cl  # noqa: E402

from test_amplifier_host import BUILD, ROOT, VENV_BIN, requirement  # noqa: E402

HERE = Path(__file__).resolve().parent
CTX = cl.ExecutionContext(trace_id="t-1")


def ev(stage, data=None, ctx=CTX):
    return {"stage": stage, "data": data if data is not None else {}, "context": ctx}


def test_translation_of_a_complete_run():
    out = cugar.translate("goal", [
        ev(cl.LifecycleStage.INITIALIZE, {"workers": ["w"]}),
        ev(cl.LifecycleStage.PLAN, {"plan": ["a"]}),
        ev(cl.LifecycleStage.ROUTE, {"decision": cl.RoutingDecision("w", "only one")}),
        ev(cl.LifecycleStage.EXECUTE, {"result": 1}),
        ev(cl.LifecycleStage.AGGREGATE, {"results": {"x": 1}, "count": 1}),
        ev(cl.LifecycleStage.COMPLETE, {"success": True}),
    ], name="n")
    assert [(name, d["stage"]) for name, d in out] == [
        ("execution:start", "initialize"), ("cugar:plan", "plan"), ("cugar:route", "route"),
        ("cugar:execute", "execute"), ("prompt:complete", "aggregate"), ("execution:end", "complete"),
        ("orchestrator:complete", "complete")]
    assert all(d["trace_id"] == "t-1" for _, d in out)
    assert out[0][1]["prompt"] == "goal"
    assert out[2][1]["cugar"]["decision"] == {"target": "w", "reason": "only one", "fallback": None}
    assert out[4][1]["response"] == '{"x":1}'
    assert out[5][1]["response"] == '{"x":1}' and out[5][1]["status"] == "completed"
    assert {k: out[6][1][k] for k in ("orchestrator", "turn_count", "status")} == \
        {"orchestrator": "n", "turn_count": 0, "status": "success"}


def test_translation_of_failed_cancelled_and_late_events():
    out = cugar.translate("g", [ev("initialize"), ev("failed", {"error": "boom"}), ev("complete")])
    assert [n for n, _ in out] == ["execution:start", "execution:end", "orchestrator:complete", "cugar:complete"]
    assert out[1][1]["status"] == "error" and out[1][1]["response"] is None
    assert out[2][1]["status"] == "error" and out[2][1]["error"] == {"type": "orchestration_error", "message": "boom"}
    out = cugar.translate("g", [ev("initialize"), ev("initialize"), ev("cancelled")])
    assert [n for n, _ in out] == ["execution:start", "cugar:initialize", "cancel:completed",
                                   "execution:end", "orchestrator:complete"]
    assert out[-1][1]["status"] == "cancelled"
    # nothing is added that was not yielded: no terminal stage, no orchestrator:complete
    out = cugar.translate("g", [ev("initialize"), ev("plan")])
    assert [n for n, _ in out] == ["execution:start", "cugar:plan"]
    # the trace id is the yielded context's, not the host's
    out = cugar.translate("g", [ev("initialize", ctx=cl.ExecutionContext(trace_id="other"))])
    assert out[0][1]["trace_id"] == "other"


def test_strategy_context_class_and_constructor():
    assert cugar._strategy(cl.CugarLike, "continue") is cl.ErrorPropagation.CONTINUE
    assert cugar._strategy(cl.CugarLike, "fail_fast") is cl.ErrorPropagation.FAIL_FAST
    with pytest.raises(ValueError):
        cugar._strategy(cl.CugarLike, "sometimes")
    assert cugar._context_class(cl.CugarLike) is cl.ExecutionContext
    assert cugar._construct(cl.CugarLike, {}, ["a", "b"]).workers == ["a", "b"]
    assert cugar._construct(cl.CugarLike, {"workers": ["z"]}, ["a"]).workers == ["z"]
    with pytest.raises(ImportError, match="MODULE:Class"):
        cugar.load_class("cugar_like", [str(HERE)])
    assert cugar.load_class("cugar_like:OwnTrace", [str(HERE)]).__name__ == "OwnTrace"


def run_cugar(cls, tmp_path):
    if not (BUILD / "bin" / "ock").exists():
        pytest.skip(f"{BUILD}/bin/ock is not built (make all)")
    out = tmp_path / cls
    cmd = [str(BUILD / "bin" / "ock"), "run", "--orchestrator",
           f"{VENV_BIN}/ock-cugar cugar_like:{cls} --path {HERE}", "--capabilities", "lifecycle",
           "--fixtures", str(HERE / "fixtures"), "-o", str(out), "--format", "jsonl", "--journals"]
    subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    report = json.loads((out / "report.json").read_text())
    return {s["id"]: s for s in report["scenarios"]}, out


def completes(out, scenario):
    lines = (out / "journals" / f"{scenario}.journal.jsonl").read_text().splitlines()
    events = [json.loads(x) for x in lines if '"kind":"event"' in x]
    return [e["data"]["status"] for e in events if e["event"] == "orchestrator:complete"], events


LIFECYCLE = ("OCK-LIFECYCLE-001", "OCK-LIFECYCLE-002", "OCK-LIFECYCLE-003", "OCK-LIFECYCLE-004", "OCK-TRACE-001")


def test_protocol_keeping_orchestrator_passes_lifecycle_and_trace(tmp_path):
    got, out = run_cugar("CugarLike", tmp_path)
    for scenario in ("cugar-continue", "cugar-fail-fast"):
        for rid in LIFECYCLE:
            assert requirement(got[scenario], rid) == "PASS", (scenario, rid)
    assert got["cugar-fail-fast"]["verdict"] == "PASS"
    # the session's error_strategy reached orchestrate(): continue completes, fail_fast fails
    statuses, events = completes(out, "cugar-continue")
    assert statuses == ["success", "success"]
    assert any(e["event"] == "cugar:execute" and "error" in e["data"]["cugar"] for e in events)
    assert completes(out, "cugar-fail-fast")[0] == ["error"]


def test_a_fail_fast_that_raises_has_no_orchestrator_complete(tmp_path):
    got, out = run_cugar("RaisesOnFailFast", tmp_path)
    assert requirement(got["cugar-fail-fast"], "OCK-COMPLETE-001") == "FAIL"
    assert completes(out, "cugar-fail-fast")[0] == []
    assert requirement(got["cugar-continue"], "OCK-LIFECYCLE-004") == "PASS"


def test_a_trace_id_of_its_own_fails_trace(tmp_path):
    got, _ = run_cugar("OwnTrace", tmp_path)
    assert requirement(got["cugar-fail-fast"], "OCK-TRACE-001") == "FAIL"
    assert requirement(got["cugar-continue"], "OCK-TRACE-001") == "FAIL"
