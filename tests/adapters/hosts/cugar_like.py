"""A CUGAR-shaped orchestrator (OrchestratorProtocol's shape: LifecycleStage, a frozen
ExecutionContext, ErrorPropagation, an async generator orchestrate()) for
test_cugar_host.py, since the tests cannot fetch CUGAR itself. The goal names its steps:
"a b! c" plans three steps, and the step with "!" fails.

`CugarLike` keeps CUGAR's canonical order and ends every path with one terminal stage.
`RaisesOnFailFast` raises out of the generator under FAIL_FAST, as CUGAR's
ReferenceOrchestrator does. `OwnTrace` yields its events with a context of another trace id.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any, AsyncIterator, Dict, List


class LifecycleStage(str, Enum):
    INITIALIZE = "initialize"
    PLAN = "plan"
    ROUTE = "route"
    EXECUTE = "execute"
    AGGREGATE = "aggregate"
    COMPLETE = "complete"
    FAILED = "failed"
    CANCELLED = "cancelled"


class ErrorPropagation(str, Enum):
    FAIL_FAST = "fail_fast"
    CONTINUE = "continue"
    RETRY = "retry"
    FALLBACK = "fallback"


@dataclass(frozen=True)
class ExecutionContext:
    trace_id: str
    profile: str = "default"
    user_intent: str = ""
    metadata: Dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class RoutingDecision:
    target: str
    reason: str
    fallback: str | None = None


class StepFailed(Exception):
    pass


class CugarLike:
    def __init__(self, workers: List[str]):
        self.workers = workers
        self.strategies: list[str] = []

    def context_for(self, context: ExecutionContext) -> ExecutionContext:
        return context

    async def orchestrate(self, goal: str, context: ExecutionContext, *,
                          error_strategy: ErrorPropagation = ErrorPropagation.FAIL_FAST
                          ) -> AsyncIterator[Dict[str, Any]]:
        self.strategies.append(error_strategy.value)
        ctx = self.context_for(context)
        yield {"stage": LifecycleStage.INITIALIZE, "data": {"workers": self.workers}, "context": ctx}
        steps = goal.split()
        yield {"stage": LifecycleStage.PLAN, "data": {"plan": steps, "strategy": error_strategy.value}, "context": ctx}
        results = []
        for i, step in enumerate(steps):
            decision = RoutingDecision(self.workers[0], f"step {i} goes to the first worker")
            yield {"stage": LifecycleStage.ROUTE, "data": {"decision": decision, "step": step}, "context": ctx}
            await asyncio.sleep(0)
            if "!" in step:
                error = StepFailed(f"step {step} failed")
                if error_strategy == ErrorPropagation.FAIL_FAST:
                    async for event in self.on_fail_fast(error, ctx):
                        yield event
                    return
                yield {"stage": LifecycleStage.EXECUTE, "data": {"step": step, "error": str(error)}, "context": ctx}
                continue
            results.append(f"did {step}")
            yield {"stage": LifecycleStage.EXECUTE, "data": {"step": step, "result": results[-1]}, "context": ctx}
        yield {"stage": LifecycleStage.AGGREGATE, "data": {"results": results, "count": len(results)}, "context": ctx}
        yield {"stage": LifecycleStage.COMPLETE, "data": {"success": True, "output": results}, "context": ctx}

    async def on_fail_fast(self, error: Exception, ctx: ExecutionContext) -> AsyncIterator[Dict[str, Any]]:
        yield {"stage": LifecycleStage.FAILED, "data": {"error": str(error)}, "context": ctx}


class RaisesOnFailFast(CugarLike):
    async def on_fail_fast(self, error: Exception, ctx: ExecutionContext) -> AsyncIterator[Dict[str, Any]]:
        raise error
        yield  # an async generator


class OwnTrace(CugarLike):
    def context_for(self, context: ExecutionContext) -> ExecutionContext:
        return replace(context, trace_id="trace-of-its-own")
