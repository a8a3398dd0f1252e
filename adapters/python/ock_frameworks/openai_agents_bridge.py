"""ock-openai-agents: the OpenAI Agents SDK for Python (``openai-agents``) under ock/1.

The agent is the SDK's ``Runner`` over an ``Agent`` whose model is the SDK's default model class,
``OpenAIResponsesModel`` (the Responses API) over an ``AsyncOpenAI`` client pointed at the
session's first provider, with the session's tools as ``FunctionTool``s that call the tools
endpoint and ``max_turns`` from max_iterations. What the framework does is reported as ock/1 events:

- prompt:submit, prompt:complete, orchestrator:complete: around each run;
- provider:request / provider:stream / provider:response / provider:error: a ``Model`` that wraps
  the Responses model; a deny raises before the request is built; with ``config.streaming`` the run
  is ``Runner.run_streamed`` and the wrapper reports the stream's text deltas;
- tool:pre / tool:error / tool:post: the tool's ``on_invoke_tool``, which the Runner hands the raw
  arguments string of every call to a known tool (a deny answers without running, a modify replaces
  the input, arguments that do not parse are answered by the bridge); unknown tools: the Runner's
  ``tool_not_found_behavior`` ``return_error_to_model`` and its ``tool_error_formatter``;
- parallel_tools false: the Runner's own ``tool_execution.max_function_tool_concurrency`` 1;
- cancellation: SIGINT cancels the asyncio task of the run; the wrapper and the tools close what
  was in flight, the history keeps what the run had stored (the SDK's ``run_data``).

manifests/openai-agents-python.json says what the bridge applies and what it does not.
"""
from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

from agents import (
    Agent,
    FunctionTool,
    MaxTurnsExceeded,
    ModelSettings,
    RunConfig,
    Runner,
    set_tracing_disabled,
)
from agents.models.interface import Model
from agents.models.openai_responses import OpenAIResponsesModel
from agents.run_config import ToolExecutionConfig
from openai import AsyncOpenAI

from ock_frameworks.common import (
    AsyncBridge,
    Denied,
    ToolFailed,
    arguments_problem,
    deny_reason,
    in_thread,
    injection,
    parse_arguments,
    provider_error,
    result_text,
    run_bridge,
)

ORCHESTRATOR = "openai-agents-python-bridge"
CANCELLED_TEXT = "The previous operation was cancelled."
# The Responses stream events that end a response unsuccessfully.
STREAM_FAILURES = ("response.failed", "response.incomplete", "error", "response.error")

# The SDK exports traces to OpenAI by default; a bridge under test talks to the mock only.
set_tracing_disabled(True)


def input_message(inj: dict) -> dict:
    """An inject_context text as an input item of the Responses API."""
    if inj["role"] == "assistant":
        return {"role": "assistant", "type": "message", "status": "completed",
                "content": [{"type": "output_text", "text": inj["text"], "annotations": []}]}
    return {"role": "user" if inj["role"] == "user" else "system", "content": inj["text"]}


def _field(item: Any, key: str) -> Any:
    return item.get(key) if isinstance(item, dict) else getattr(item, key, None)


def with_kept(items: list, kept: list[tuple[Any, dict]]) -> list:
    """The Runner's items with the run's kept injections in their places (SPEC.md 4.4, 5.3): one
    from tool:post after the results of its call's round, never between a call and a result; one
    from provider:request after the items that request was built from. kept holds (anchor, item):
    anchor is a tool_call_id, or the number of the Runner's items the request had."""
    places = []
    for seq, (anchor, item) in enumerate(kept):
        at = len(items)
        if isinstance(anchor, int):
            at = min(anchor, len(items))
        else:
            for i, it in enumerate(items):
                if _field(it, "type") == "function_call_output" and _field(it, "call_id") == anchor:
                    at = i + 1
                    while at < len(items) and _field(items[at], "type") == "function_call_output":
                        at += 1
                    break
        places.append((at, seq, item))
    out, last = [], 0
    for at, _, item in sorted(places, key=lambda p: (p[0], p[1])):
        out += items[last:at]
        out.append(item)
        last = at
    return out + items[last:]


def output_summary(output: list) -> tuple[str, list[dict]]:
    """The text and the function calls of a Responses output (SDK objects or plain dicts)."""
    text, calls = "", []
    for item in output:
        d = item if isinstance(item, dict) else item.model_dump()
        if d.get("type") == "message":
            text += "".join(c.get("text") or "" for c in d.get("content") or [] if c.get("type") == "output_text")
        elif d.get("type") == "function_call":
            calls.append({"id": d.get("call_id") or "", "name": d.get("name") or "",
                          "arguments": parse_arguments(d.get("arguments") or "")})
    return text, calls


class Run:
    """The counters of the running execute."""

    def __init__(self) -> None:
        self.turns = 0
        self.iteration = 0
        self.groups = 0
        self.ephemeral: list[dict] = []
        self.kept: list[tuple[Any, dict]] = []  # with_kept's (anchor, item) of this run's kept injections
        self.last_content = ""
        self.call_inputs: dict[str, Any] = {}
        self.cancelled = False
        self.open_request: int | None = None  # the iteration of the request in flight
        self.open_calls: dict[str, dict] = {}  # tool_call_id -> the ids of a call at the tools endpoint


class ReportingModel(Model):
    """Wraps the Responses model: provider:request before each request, then provider:stream,
    provider:response or provider:error."""

    def __init__(self, inner: Model, bridge: "Bridge"):
        self.inner = inner
        self.bridge = bridge

    def get_retry_advice(self, request):
        return self.inner.get_retry_advice(request)

    async def _request(self) -> int:
        b, run = self.bridge, self.bridge.run
        run.iteration += 1
        p = b.provider
        reply = await b.emit("provider:request", {"provider": p["name"], "model": p["model"],
                                                  "iteration": run.iteration, "attempt": 1})
        if b.client.denies(reply):
            raise Denied(deny_reason(reply))
        inj = injection(reply)
        if inj and inj["ephemeral"]:
            run.ephemeral.append(inj)
        elif inj:
            run.kept.append((None, input_message(inj)))  # anchored when _input sees the request's items
        run.open_request = run.iteration
        return run.iteration

    def _input(self, items):
        """The request's input: the Runner's items with the run's kept injections in their places,
        then the ephemeral ones, which this request alone carries."""
        run = self.bridge.run
        base = [{"role": "user", "content": items}] if isinstance(items, str) else list(items)
        run.kept = [(len(base) if anchor is None else anchor, item) for anchor, item in run.kept]
        extra = [input_message(i) for i in run.ephemeral]
        run.ephemeral.clear()
        if not extra and not run.kept:
            return items
        return with_kept(base, run.kept) + extra

    async def _failed(self, it: int, e: BaseException, in_stream: bool = False) -> None:
        """provider:error for the request; in_stream: the stream broke after it began (an error
        event, a broken chunk, a cut connection, no terminal event), which is retryable (SPEC.md 5.7)."""
        b = self.bridge
        if b.run.open_request != it:  # closed already, after a cancel
            return
        b.run.open_request = None
        b.run.turns += 1
        fields = provider_error(e)
        if in_stream and fields["status_code"] is None:
            fields = {**fields, "error": {"type": "stream_error", "message": fields["error"]["message"]},
                      "retryable": True}
        await b.emit("provider:error", {"provider": b.provider["name"], "iteration": it, "attempt": 1, **fields})

    async def _responded(self, it: int, output: list, usage: Any) -> None:
        b, run = self.bridge, self.bridge.run
        run.open_request = None
        run.turns += 1
        text, calls = output_summary(output)
        for c in calls:
            run.call_inputs[c["id"]] = c["arguments"]
        run.last_content = text
        await b.emit("provider:response", {
            "provider": b.provider["name"], "iteration": it, "content": text, "tool_calls": calls,
            "finish_reason": "completed",
            "usage": {"input_tokens": getattr(usage, "input_tokens", None),
                      "output_tokens": getattr(usage, "output_tokens", None)}})
        run.groups += 1

    async def get_response(self, system_instructions, input, model_settings, tools, output_schema,
                           handoffs, tracing, **kwargs):
        it = await self._request()
        try:
            res = await self.inner.get_response(system_instructions, self._input(input), model_settings, tools,
                                                output_schema, handoffs, tracing, **kwargs)
        except asyncio.CancelledError:
            raise  # the request stays open: the execute's cancel path closes it before cancel:completed
        except Exception as e:
            await self._failed(it, e)
            raise
        await self._responded(it, res.output, res.usage)
        return res

    async def stream_response(self, system_instructions, input, model_settings, tools, output_schema,
                              handoffs, tracing, **kwargs):
        it = await self._request()
        b = self.bridge
        done = None
        try:
            async for event in self.inner.stream_response(system_instructions, self._input(input), model_settings,
                                                          tools, output_schema, handoffs, tracing, **kwargs):
                kind = getattr(event, "type", "")
                if kind == "response.output_text.delta" and event.delta:
                    await b.emit("provider:stream", {"provider": b.provider["name"], "iteration": it,
                                                     "delta": event.delta})
                elif kind == "response.completed":
                    done = event.response
                elif kind in STREAM_FAILURES:
                    # The Runner raises on this event and closes this generator without the error
                    # passing through it: the request is reported failed here, before the event
                    # goes on. An error event is a broken stream; a failed or incomplete response
                    # is reported as the same response unstreamed is.
                    await self._failed(it, RuntimeError(f"the stream ended with {kind}"),
                                       in_stream=kind in ("error", "response.error"))
                yield event
        except asyncio.CancelledError:
            raise  # the request stays open: the execute's cancel path closes it before cancel:completed
        except Exception as e:
            await self._failed(it, e, in_stream=True)
            raise
        if done is None:
            e = RuntimeError("the stream ended without response.completed")
            await self._failed(it, e, in_stream=True)
            raise e
        await self._responded(it, done.output, done.usage)


class Bridge(AsyncBridge):
    """One session: the client, the agent, the history, the execute counter."""

    orchestrator = ORCHESTRATOR
    run_class = Run

    # ---- the tools --------------------------------------------------------------------------

    def _ids(self, call_id: str, name: str) -> dict:
        return {"tool_call_id": call_id, "tool_name": name,
                "parallel_group_id": f"pg-{self.executes}-{self.run.groups}"}

    def _tool(self, spec: dict) -> FunctionTool:
        name = spec["name"]

        async def invoke(ctx, raw: str):
            return await self._invoke(name, getattr(ctx, "tool_call_id", "") or "", raw)

        return FunctionTool(name=name, description=spec.get("description") or "",
                            params_json_schema=spec.get("input_schema") or {"type": "object"},
                            on_invoke_tool=invoke, strict_json_schema=False)

    async def _invoke(self, name: str, call_id: str, raw: str) -> str:
        """One call the Runner decided to run; open (for a cancel to close) from its tool:pre on."""
        self.run.open_calls[call_id] = self._ids(call_id, name)
        try:
            out = await self._invoke_call(name, call_id, raw)
        except asyncio.CancelledError:
            raise  # still open: the execute's cancel path closes it, in order, before cancel:completed
        except BaseException:
            self.run.open_calls.pop(call_id, None)
            raise
        self.run.open_calls.pop(call_id, None)
        return out

    async def _invoke_call(self, name: str, call_id: str, raw: str) -> str:
        """tool:pre, then denied, invalid, or the tools endpoint."""
        base = self._ids(call_id, name)
        tool_input = parse_arguments(raw)
        pre = await self.emit("tool:pre", {**base, "tool_input": tool_input})
        if self.client.denies(pre):
            reason = deny_reason(pre)
            self._closing(call_id)
            await self.emit("tool:error", {**base, "error": {"type": "denied", "message": reason}})
            return f"Error: denied: {reason}"
        if pre.get("action") == "modify" and isinstance((pre.get("data") or {}).get("tool_input"), dict):
            tool_input = pre["data"]["tool_input"]
        if not isinstance(tool_input, dict):
            message = arguments_problem(raw)
            self._closing(call_id)
            await self.emit("tool:error", {**base, "error": {"type": "invalid_arguments", "message": message}})
            return f"Error: invalid arguments: {message}"
        try:
            result = await in_thread(self.client.call_tool, name, call_id, tool_input,
                                     self.config.get("tool_timeout_ms", 30000))
        except ToolFailed as e:
            self._closing(call_id)
            await self.emit("tool:error", {**base, "error": {"type": e.type, "message": str(e)},
                                           "tool_input": tool_input})
            return f"Error: {e}"
        self._closing(call_id)
        post = await self.emit("tool:post", {**base, "result": result, "tool_input": tool_input})
        inj = injection(post)
        if inj and inj["ephemeral"]:
            self.run.ephemeral.append(inj)
        elif inj:
            self.run.kept.append((call_id, input_message(inj)))
        return result_text(result)

    async def _format_tool_error(self, args) -> str | None:
        """The Runner's tool_error_formatter: for a call to a tool the agent lacks, the only moment
        the Runner hands the call to the caller, tool:pre and tool:error are sent."""
        if args.kind != "tool_not_found":
            return None
        base = self._ids(args.call_id, args.tool_name)
        tool_input = self.run.call_inputs.get(args.call_id, {})
        pre = await self.emit("tool:pre", {**base, "tool_input": tool_input})
        if self.client.denies(pre):
            reason = deny_reason(pre)
            await self.emit("tool:error", {**base, "error": {"type": "denied", "message": reason}})
            return f"Error: denied: {reason}"
        message = f"tool '{args.tool_name}' not found"
        await self.emit("tool:error", {**base, "error": {"type": "not_found", "message": message}})
        return f"Error: {message}"

    # ---- one execute ------------------------------------------------------------------------

    def _agent(self) -> Agent:
        p = self.provider
        openai = AsyncOpenAI(api_key=os.environ.get("OPENAI_API_KEY") or "ock-dummy-key", base_url=p["base_url"],
                             max_retries=0, timeout=self.config.get("request_timeout_ms", 60000) / 1000,
                             default_headers={"X-OCK-Trace-Id": self.client.trace_id})
        model = ReportingModel(OpenAIResponsesModel(model=p["model"], openai_client=openai), self)
        tools = [self._tool(t) for t in self.session.get("tools") or []]
        return Agent(name=ORCHESTRATOR, model=model, tools=tools,
                     model_settings=ModelSettings(parallel_tool_calls=None))

    def _run_config(self) -> RunConfig:
        limit = None if self.config.get("parallel_tools", True) else 1
        return RunConfig(tracing_disabled=True, tool_not_found_behavior="return_error_to_model",
                         tool_error_formatter=self._format_tool_error,
                         tool_execution=ToolExecutionConfig(max_function_tool_concurrency=limit))

    async def _execute(self, prompt: str) -> None:
        submit = await self.emit("prompt:submit", {"prompt": prompt})
        if not prompt.strip():
            return await self._complete("error", error={"type": "invalid_input", "message": "the prompt is empty"})
        if self.provider is None or self.provider.get("api") != "responses":
            return await self._complete("error", error={"type": "no_provider",
                                                        "message": "the bridge speaks the responses wire only"})
        if self.client.denies(submit):
            await self.emit("prompt:complete", {"response": f"Denied: {deny_reason(submit)}"})
            return await self._complete("incomplete", reason="denied")
        items = self.history + [{"role": "user", "content": prompt}]
        inj = injection(submit)
        if inj and not inj["ephemeral"]:
            items.append(input_message(inj))
        elif inj:
            self.run.ephemeral.append(inj)
        try:
            self._start_work()
            result = await self._run(items)
        except asyncio.CancelledError:
            self._keep_history(None, items)
            await self._close_open()
            self.history.append(input_message({"role": "assistant", "text": CANCELLED_TEXT}))
            await self.emit("cancel:completed", {"orchestrator": ORCHESTRATOR, "turn_count": self.run.turns})
            return await self._complete("cancelled")
        except Exception as e:
            self._keep_history(e, items)
            return await self._raised(e, MaxTurnsExceeded)
        finally:
            self.task = None  # the answer is given: a SIGINT from here is ignored
        self.history = with_kept(result.to_input_list(), self.run.kept)
        out = result.final_output
        await self.emit("prompt:complete", {"response": out if isinstance(out, str) else json.dumps(out)})
        return await self._complete("success")

    async def _run(self, items: list):
        agent, cfg = self._agent(), self._run_config()
        turns = int(self.config.get("max_iterations", 10))
        if not self.config.get("streaming"):
            return await Runner.run(agent, items, max_turns=turns, run_config=cfg)
        streamed = Runner.run_streamed(agent, items, max_turns=turns, run_config=cfg)
        async for _ in streamed.stream_events():
            pass
        return streamed

    def _keep_history(self, e: BaseException | None, items: list) -> None:
        """What the context already holds stays (SPEC.md 5.14): the SDK's run_data at the failure."""
        data = getattr(e, "run_data", None)
        if data is None:
            self.history = items
            return
        base = [{"role": "user", "content": data.input}] if isinstance(data.input, str) else list(data.input)
        self.history = with_kept(base + [i.to_input_item() for i in data.new_items], self.run.kept)


def main() -> int:
    return run_bridge(Bridge)


if __name__ == "__main__":
    sys.exit(main())
