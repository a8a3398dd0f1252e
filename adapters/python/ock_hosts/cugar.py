"""ock-cugar: a CUGAR OrchestratorProtocol implementation, unchanged, under ock/1.

    ock-cugar MODULE:Class [--path DIR] [--workers a,b] [--kwargs JSON]

`Class` is constructed with `--kwargs` (a JSON object), plus `workers` (default
`worker-1,worker-2`) when its constructor takes that parameter. For each session prompt the
host builds an `ExecutionContext` (the class `orchestrate()` annotates its `context` with)
carrying the session's `trace_id`, calls `orchestrate(prompt, context, error_strategy=...)` with
the session's `config.error_strategy` as the orchestrator's own `ErrorPropagation` member, and
turns every event the async generator yields into one ock/1 event, in order:

| yielded stage | ock/1 event |
|---|---|
| (before orchestrate() is called) | `prompt:submit {prompt}` |
| INITIALIZE, the first event | `execution:start {prompt}` |
| PLAN, ROUTE, EXECUTE | `cugar:plan`, `cugar:route`, `cugar:execute` (custom events) |
| AGGREGATE | `prompt:complete {response}` (the aggregated output as compact JSON) |
| COMPLETE | `execution:end {status: completed}`, then `orchestrator:complete {status: success}` |
| FAILED | `execution:end {status: error}`, then `orchestrator:complete {status: error, error}` |
| CANCELLED | `cancel:completed`, `execution:end {status: cancelled}`, `orchestrator:complete {status: cancelled}` |
| anything else (a second INITIALIZE, an event after a terminal stage) | `cugar:<stage>` |

Every event's `data` carries `stage` (the yielded stage's value), `trace_id` (the yielded
event's `context.trace_id`, never the host's), and `cugar`, the yielded `data` as JSON. The host
adds nothing the orchestrator did not yield: an exception escaping the generator, or a generator
that ends without a terminal stage, leaves the execute without `orchestrator:complete`, and OCK
reports it. SIGINT during an execute cancels the task running the generator (CUGAR's protocol
has no cancellation); between executes it is ignored. Hook replies are not applied (CUGAR's
orchestrators delegate policy). The orchestrator makes no LLM request through the host.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import enum
import importlib
import inspect
import json
import os
import signal
import sys
import traceback
import typing
from typing import Any

import ock_adapter as oa

__all__ = ["main", "run", "jsonable", "translate", "load_class"]

ORCHESTRATOR_DEFAULT_WORKERS = "worker-1,worker-2"
TERMINAL = ("complete", "failed", "cancelled")


def _log(msg: str) -> None:
    print(f"[ock-cugar] {msg}", file=sys.stderr, flush=True)


def jsonable(value: Any, depth: int = 0) -> Any:
    """A yielded value as JSON: enums by value, dataclasses by field, objects by str()."""
    if depth > 32:
        return str(value)
    if isinstance(value, enum.Enum):
        return jsonable(value.value, depth + 1)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name), depth + 1) for f in dataclasses.fields(value)
                if f.name != "parent_context"}
    if isinstance(value, dict):
        return {str(k): jsonable(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [jsonable(v, depth + 1) for v in value]
    return str(value)


def _stage(event: Any) -> str | None:
    stage = event.get("stage") if isinstance(event, dict) else None
    if isinstance(stage, enum.Enum):
        stage = stage.value
    return stage if isinstance(stage, str) else None


class Translator:
    """Turns the yielded events of one execute into ock/1 events (see the module docstring)."""

    def __init__(self, prompt: str, name: str):
        self.prompt, self.name = prompt, name
        self.started = False
        self.ended = False
        self.response: str | None = None

    def translate(self, event: Any) -> list[tuple[str, dict]]:
        stage = _stage(event) or "unknown"
        context = event.get("context") if isinstance(event, dict) else None
        data = event.get("data") if isinstance(event, dict) else None
        base: dict[str, Any] = {"stage": stage, "trace_id": getattr(context, "trace_id", None),
                                "cugar": jsonable(data)}
        if self.ended or stage not in ("initialize", "aggregate", *TERMINAL) or \
                (stage == "initialize" and self.started):
            return [(f"cugar:{stage}", base)]
        if stage == "initialize":
            self.started = True
            return [("execution:start", dict(base, prompt=self.prompt))]
        if stage == "aggregate":
            output = data.get("results") if isinstance(data, dict) and "results" in data else data
            self.response = json.dumps(jsonable(output), ensure_ascii=False, separators=(",", ":"))
            return [("prompt:complete", dict(base, response=self.response))]
        self.ended = True
        status = {"complete": "success", "failed": "error", "cancelled": "cancelled"}[stage]
        end_status = {"complete": "completed", "failed": "error", "cancelled": "cancelled"}[stage]
        done = {"orchestrator": self.name, "turn_count": 0, "status": status}
        out: list[tuple[str, dict]] = []
        if stage == "failed":
            message = data.get("error") if isinstance(data, dict) else None
            done["error"] = {"type": "orchestration_error", "message": str(message or "failed")}
        if stage == "cancelled":
            out.append(("cancel:completed", dict(base, orchestrator=self.name, turn_count=0)))
        response = self.response if stage == "complete" else None
        out.append(("execution:end", dict(base, response=response, status=end_status)))
        out.append(("orchestrator:complete", dict(base, **done)))
        return out


def translate(prompt: str, events: list, name: str = "cugar") -> list[tuple[str, dict]]:
    """All ock/1 events for a list of yielded events (for tests and for reading)."""
    t = Translator(prompt, name)
    return [e for ev in events for e in t.translate(ev)]


def load_class(spec: str, paths: list[str]) -> type:
    module_name, _, class_name = spec.partition(":")
    if not class_name:
        raise ImportError(f"{spec}: expected MODULE:Class")
    for p in reversed(paths):
        sys.path.insert(0, os.path.abspath(p))
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    cls = getattr(importlib.import_module(module_name), class_name, None)
    if not inspect.isclass(cls) or not inspect.isasyncgenfunction(getattr(cls, "orchestrate", None)):
        raise ImportError(f"{spec}: no class with an async generator orchestrate()")
    return cls


def _context_class(cls: type) -> type:
    hints = typing.get_type_hints(cls.orchestrate)
    ctx = hints.get("context")
    if not inspect.isclass(ctx):
        raise TypeError(f"{cls.__name__}.orchestrate() does not annotate its context with a class")
    return ctx


def _strategy(cls: type, value: Any) -> Any:
    """The orchestrator's own ErrorPropagation member for the session's error_strategy."""
    param = inspect.signature(cls.orchestrate).parameters.get("error_strategy")
    if param is None:
        return None
    default = param.default
    if isinstance(value, str) and isinstance(default, enum.Enum):
        return type(default)(value)
    return default if value is None else value


def _construct(cls: type, kwargs: dict, workers: list[str]) -> Any:
    params = inspect.signature(cls).parameters
    if "workers" in params and "workers" not in kwargs:
        kwargs = dict(kwargs, workers=workers)
    return cls(**kwargs)


class _Host:
    def __init__(self, cls: type, url: str, kwargs: dict, workers: list[str], out: Any):
        self.cls, self.url, self.kwargs, self.workers, self.out = cls, url.rstrip("/"), kwargs, workers, out
        self.task: asyncio.Task | None = None

    def on_sigint(self) -> None:
        if self.task is None or self.task.done():
            _log("SIGINT between executes: ignored")
            return
        _log("SIGINT: cancelling the running orchestrate()")
        self.task.cancel()

    async def emit(self, event: str, data: dict) -> None:
        try:
            await oa.http_request("POST", f"{self.url}/ock/v1/events", {"event": event, "data": data},
                                  abort_on_cancel=False)
        except OSError as e:
            _log(f"event {event!r}: request failed ({e})")

    async def one(self, orch: Any, prompt: str, context: Any, strategy: Any) -> None:
        t = Translator(prompt, f"{type(orch).__module__}.{type(orch).__name__}")
        await self.emit("prompt:submit", {"prompt": prompt, "stage": "initialize",
                                          "trace_id": getattr(context, "trace_id", None)})
        kwargs = {} if strategy is None else {"error_strategy": strategy}
        async for event in orch.orchestrate(prompt, context, **kwargs):
            for name, data in t.translate(event):
                await self.emit(name, data)
        if not t.ended:
            _log("orchestrate() ended without a terminal stage")

    async def main(self) -> int:
        asyncio.get_running_loop().add_signal_handler(signal.SIGINT, self.on_sigint)
        try:
            reply = await oa.http_request("GET", f"{self.url}/ock/v1/session")
            session = oa.parse_session(reply.body)
            ctx_cls = _context_class(self.cls)
            strategy = _strategy(self.cls, session.config.get("error_strategy", "continue"))
            orch = _construct(self.cls, self.kwargs, self.workers)
        except Exception:  # noqa: BLE001 - reported, then the run ends
            _log("setting up failed:\n" + traceback.format_exc())
            return 2
        for i, prompt in enumerate(session.prompts, 1):
            context = ctx_cls(trace_id=session.trace_id or "", user_intent=prompt)
            self.task = asyncio.ensure_future(self.one(orch, prompt, context, strategy))
            await asyncio.wait([self.task])
            task, self.task = self.task, None
            if task.cancelled():
                _log(f"execute {i}: cancelled")
            elif task.exception() is not None:
                e = task.exception()
                _log(f"execute {i}: exception escaped orchestrate():\n"
                     + "".join(traceback.format_exception(type(e), e, e.__traceback__)))
        return 0


def run(cls: type, url: str | None = None, kwargs: dict | None = None,
        workers: list[str] | None = None, out: Any = None) -> int:
    url = url or os.environ.get("OCK_URL")
    if not url:
        _log("OCK_URL is not set")
        return 2
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    host = _Host(cls, url, kwargs or {}, workers or ORCHESTRATOR_DEFAULT_WORKERS.split(","), out or sys.stdout)
    try:
        return asyncio.run(host.main())
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="ock-cugar", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 2)[2])
    ap.add_argument("orchestrator", help="MODULE:Class, e.g. cuga.orchestrator.reference:ReferenceOrchestrator")
    ap.add_argument("--path", action="append", default=[], help="a folder put on sys.path first (repeatable)")
    ap.add_argument("--workers", default=ORCHESTRATOR_DEFAULT_WORKERS,
                    help=f"comma-separated worker ids for a constructor that takes workers (default {ORCHESTRATOR_DEFAULT_WORKERS})")
    ap.add_argument("--kwargs", default=None, help="JSON object of constructor keyword arguments")
    ap.add_argument("--url", default=None, help="mock root URL (default: $OCK_URL)")
    args = ap.parse_args(argv)
    kwargs: dict = {}
    if args.kwargs is not None:
        try:
            kwargs = json.loads(args.kwargs)
        except ValueError as e:
            ap.error(f"--kwargs is not JSON: {e}")
        if not isinstance(kwargs, dict):
            ap.error("--kwargs must be a JSON object")
    sys.dont_write_bytecode = True
    try:
        cls = load_class(args.orchestrator, args.path)
    except Exception:  # noqa: BLE001
        _log("loading the orchestrator failed:\n" + traceback.format_exc())
        return 2
    return run(cls, args.url, kwargs, [w for w in args.workers.split(",") if w])


if __name__ == "__main__":
    sys.exit(main())
