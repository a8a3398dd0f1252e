"""ock-pydantic-ai: Pydantic AI (``pydantic-ai-slim[openai]``) under ock/1.

The agent is a Pydantic AI ``Agent`` over ``OpenAIChatModel`` (Chat Completions) on an
``AsyncOpenAI`` client pointed at the session's first provider, with the session's tools as
``Tool.from_schema`` tools that call the tools endpoint, ``UsageLimits(request_limit=max_iterations)``
and the run's ``all_messages()`` as the next prompt's ``message_history``. What the framework does
is reported from the hooks of one capability (``AbstractCapability``) the agent is given:

- provider:request / provider:response / provider:error: ``wrap_model_request``; a deny raises
  before the request is built, an ephemeral injection is added to that request's messages only;
  with ``config.streaming`` the run takes an ``event_stream_handler`` (Pydantic AI then streams the
  requests) and the text deltas are provider:stream;
- tool:pre: ``before_tool_validate``, which sees the raw arguments of every call to a known tool
  before they are parsed; a deny, arguments that are not an object, a call of a reply cut at the
  output token limit (which Pydantic AI would run), and a modify are decided there and carried out
  by the tool function; tool:post / tool:error: the tool function, around the
  tools endpoint; calls to unknown tools: ``after_model_request`` (Pydantic AI answers them itself);
- inject_context kept on tool:post: ``RunContext.enqueue`` from the tool;
- parallel_tools false: the tools are ``sequential`` (Pydantic AI's own barrier);
- cancellation: SIGINT cancels the run's asyncio task.

manifests/pydantic-ai-python.json says what the bridge applies and what it does not.
"""
from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import sys
from typing import Any

from openai import AsyncOpenAI
from pydantic_ai import Agent, RunContext, Tool
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.exceptions import UsageLimitExceeded
from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    PartDeltaEvent,
    PartStartEvent,
    SystemPromptPart,
    TextPart,
    TextPartDelta,
    ToolCallPart,
    UserPromptPart,
)
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.profiles.openai import OpenAIModelProfile
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.usage import UsageLimits

from ock_frameworks.common import (
    AsyncBridge,
    Denied,
    OckClient,
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

ORCHESTRATOR = "pydantic-ai-python-bridge"
CANCELLED_TEXT = "The previous operation was cancelled."
# Pydantic AI's finish reasons back to the Chat Completions words the mock sent.
FINISH = {"stop": "stop", "length": "length", "tool_call": "tool_calls", "content_filter": "content_filter"}


def request_of(inj: dict):
    """An inject_context text as a Pydantic AI message."""
    if inj["role"] == "assistant":
        return ModelResponse(parts=[TextPart(inj["text"])])
    if inj["role"] == "user":
        return ModelRequest(parts=[UserPromptPart(inj["text"])])
    return ModelRequest(parts=[SystemPromptPart(inj["text"])])


def response_summary(response: ModelResponse) -> tuple[str, list[dict]]:
    """The text and the tool calls of a Pydantic AI model response."""
    text = "".join(p.content for p in response.parts if isinstance(p, TextPart))
    calls = [{"id": p.tool_call_id, "name": p.tool_name,
              "arguments": parse_arguments(p.args if p.args is not None else "")}
             for p in response.parts if isinstance(p, ToolCallPart)]
    return text, calls


def decide(pre: dict, raw: Any) -> tuple[str, Any]:
    """What tool:pre's reply and the raw arguments make of a call: ("deny", reason),
    ("invalid", message) or ("run", the input object)."""
    if pre.get("action") in ("deny", "ask_user"):
        return "deny", deny_reason(pre)
    if pre.get("action") == "modify" and isinstance((pre.get("data") or {}).get("tool_input"), dict):
        return "run", pre["data"]["tool_input"]
    value = parse_arguments(raw if raw is not None else "")
    if isinstance(value, dict):
        return "run", value
    return "invalid", arguments_problem(raw)


class Run:
    def __init__(self) -> None:
        self.turns = 0
        self.iteration = 0
        self.groups = 0
        self.ephemeral: list[dict] = []
        self.last_content = ""
        self.plans: dict[str, tuple[str, Any]] = {}
        self.cut: set[str] = set()  # the call ids of replies that stopped at the output token limit
        self.cancelled = False
        self.open_request: int | None = None  # the iteration of the request in flight
        self.open_calls: dict[str, dict] = {}  # tool_call_id -> the ids of a call at the tools endpoint
        self.messages: list = []
        self.request_len = 0  # how many of messages the request in flight was sent


class Reporting(AbstractCapability):
    """The hooks through which the bridge sees the agent's requests and calls."""

    def __init__(self, bridge: "Bridge"):
        self.bridge = bridge

    async def wrap_model_request(self, ctx, *, request_context, handler):
        b, run = self.bridge, self.bridge.run
        p = b.provider
        run.iteration += 1
        it = run.iteration
        run.messages = ctx.messages  # the run's own list: it grows with the reply and the tool results
        run.request_len = len(ctx.messages)
        reply = await b.emit("provider:request", {"provider": p["name"], "model": p["model"],
                                                  "iteration": it, "attempt": 1})
        if b.client.denies(reply):
            raise Denied(deny_reason(reply))
        inj = injection(reply)
        if inj and inj["ephemeral"]:
            run.ephemeral.append(inj)
        if run.ephemeral:
            extra = [request_of(i) for i in run.ephemeral]
            run.ephemeral.clear()
            request_context = dataclasses.replace(request_context, messages=list(request_context.messages) + extra)
        b.stream_iteration = it
        run.open_request = it
        try:
            response = await handler(request_context)
        except asyncio.CancelledError:
            raise  # the request stays open: the execute's cancel path closes it before cancel:completed
        except Exception as e:
            if run.open_request != it:  # closed already, after a cancel
                raise
            run.open_request = None
            run.turns += 1
            await b.emit("provider:error", {"provider": p["name"], "iteration": it, "attempt": 1,
                                            **b.request_error(e)})
            raise
        run.open_request = None
        run.turns += 1
        text, calls = response_summary(response)
        run.last_content = text
        finish = FINISH.get(response.finish_reason or "", response.finish_reason or "unknown")
        await b.emit("provider:response", {
            "provider": p["name"], "iteration": it, "content": text, "tool_calls": calls, "finish_reason": finish,
            "usage": {"input_tokens": response.usage.input_tokens, "output_tokens": response.usage.output_tokens}})
        run.groups += 1
        if response.finish_reason == "length":
            run.cut.update(c["id"] for c in calls)
        await self._unknown_calls(calls)
        return response

    async def _unknown_calls(self, calls: list[dict]) -> None:
        """Calls of tools the agent lacks: Pydantic AI answers them itself, with no hook per call,
        so tool:pre and tool:error are sent when the reply arrives."""
        b = self.bridge
        known = {t.get("name") for t in b.session.get("tools") or []}
        for c in calls:
            if c["name"] in known:
                continue
            base = b.ids(c["id"], c["name"])
            pre = await b.emit("tool:pre", {**base, "tool_input": c["arguments"]})
            if b.client.denies(pre):
                await b.emit("tool:error", {**base, "error": {"type": "denied", "message": deny_reason(pre)}})
                continue
            await b.emit("tool:error", {**base, "error": {"type": "not_found",
                                                           "message": f"tool '{c['name']}' not found"}})

    async def before_tool_validate(self, ctx, *, call, tool_def, args):
        """tool:pre for a call to a known tool, with its raw arguments, before Pydantic AI parses
        them; the decision is kept for the tool function, and the arguments it validates are {}
        whenever the call must not run as the model wrote it."""
        b = self.bridge
        base = b.ids(call.tool_call_id, call.tool_name)
        b.run.open_calls[call.tool_call_id] = base  # open, for a cancel to close, until the tool function ends
        pre = await b.emit("tool:pre", {**base, "tool_input": parse_arguments(args if args is not None else "")})
        plan = decide(pre, args)
        # Pydantic AI runs the calls of a reply cut at the output token limit like any other: the
        # bridge does not (SPEC.md 5.8), unless a modify replaced the arguments.
        modified = pre.get("action") == "modify" and isinstance((pre.get("data") or {}).get("tool_input"), dict)
        if call.tool_call_id in b.run.cut and plan[0] == "run" and not modified:
            plan = ("invalid", "the reply stopped at the output token limit")
        b.run.plans[call.tool_call_id] = plan
        return args if plan[0] == "run" and args == plan[1] else "{}"


class Bridge(AsyncBridge):
    """One session: the client, the agent, the message history, the execute counter."""

    orchestrator = ORCHESTRATOR
    run_class = Run

    def __init__(self, client: OckClient, session: dict):
        super().__init__(client, session)
        self.stream_iteration = 0

    def request_error(self, e: BaseException) -> dict:
        """provider:error's fields; streamed, a reply Pydantic AI could not read (a broken chunk, an
        error event, no finish_reason) is a stream_error, retryable (SPEC.md 5.7)."""
        fields = provider_error(e)
        if self.config.get("streaming") and fields["error"]["type"] == "malformed_response":
            fields = {**fields, "error": {"type": "stream_error", "message": fields["error"]["message"]},
                      "retryable": True}
        return fields

    def ids(self, call_id: str, name: str) -> dict:
        return {"tool_call_id": call_id or "", "tool_name": name or "",
                "parallel_group_id": f"pg-{self.executes}-{self.run.groups}"}

    def _tool(self, spec: dict) -> Tool:
        name = spec["name"]

        async def run_tool(ctx: RunContext, **kwargs):
            return await self._call(ctx, name)

        return Tool.from_schema(run_tool, name=name, description=spec.get("description") or "",
                                json_schema=spec.get("input_schema") or {"type": "object"}, takes_ctx=True,
                                sequential=not self.config.get("parallel_tools", True))

    async def _call(self, ctx: RunContext, name: str) -> str:
        try:
            out = await self._call_tool(ctx, name)
        except asyncio.CancelledError:
            raise  # still open: the execute's cancel path closes it, in order, before cancel:completed
        except BaseException:
            self.run.open_calls.pop(ctx.tool_call_id or "", None)
            raise
        self.run.open_calls.pop(ctx.tool_call_id or "", None)
        return out

    async def _call_tool(self, ctx: RunContext, name: str) -> str:
        call_id = ctx.tool_call_id or ""
        base = self.ids(call_id, name)
        kind, value = self.run.plans.pop(call_id, ("invalid", "the call was not seen"))
        if kind == "deny":
            self._closing(call_id)
            await self.emit("tool:error", {**base, "error": {"type": "denied", "message": value}})
            return f"Error: denied: {value}"
        if kind == "invalid":
            self._closing(call_id)
            await self.emit("tool:error", {**base, "error": {"type": "invalid_arguments", "message": value}})
            return f"Error: invalid arguments: {value}"
        try:
            result = await in_thread(self.client.call_tool, name, call_id, value,
                                     self.config.get("tool_timeout_ms", 30000))
        except ToolFailed as e:
            self._closing(call_id)
            await self.emit("tool:error", {**base, "error": {"type": e.type, "message": str(e)}, "tool_input": value})
            return f"Error: {e}"
        self._closing(call_id)
        post = await self.emit("tool:post", {**base, "result": result, "tool_input": value})
        inj = injection(post)
        if inj and inj["ephemeral"]:
            self.run.ephemeral.append(inj)
        elif inj:
            ctx.enqueue(request_of(inj).parts[0])
        return result_text(result)

    async def _stream_events(self, ctx, events) -> None:
        """With config.streaming: the text of the streamed requests is provider:stream, the text a
        part starts with (PartStartEvent) and each text delta after it."""
        async for ev in events:
            delta = ""
            if isinstance(ev, PartStartEvent) and isinstance(ev.part, TextPart):
                delta = ev.part.content
            elif isinstance(ev, PartDeltaEvent) and isinstance(ev.delta, TextPartDelta):
                delta = ev.delta.content_delta
            if delta:
                await self.emit("provider:stream", {"provider": self.provider["name"],
                                                    "iteration": self.stream_iteration, "delta": delta})

    def _agent(self) -> Agent:
        p = self.provider
        openai = AsyncOpenAI(api_key=os.environ.get("OPENAI_API_KEY") or "ock-dummy-key", base_url=p["base_url"],
                             max_retries=0, timeout=self.config.get("request_timeout_ms", 60000) / 1000,
                             default_headers={"X-OCK-Trace-Id": self.client.trace_id})
        # A stream that ends without a finish_reason is an error, not a reply cut short taken as whole
        # (Pydantic AI's own profile switch; by default it takes such a stream as finish_reason stop).
        model = OpenAIChatModel(p["model"], provider=OpenAIProvider(openai_client=openai),
                                profile=OpenAIModelProfile(openai_chat_streaming_requires_finish_reason=True))
        tools = [self._tool(t) for t in self.session.get("tools") or []]
        return Agent(model, tools=tools, capabilities=[Reporting(self)], retries=int(self.config.get("max_iterations", 10)))

    async def _execute(self, prompt: str) -> None:
        submit = await self.emit("prompt:submit", {"prompt": prompt})
        if not prompt.strip():
            return await self._complete("error", error={"type": "invalid_input", "message": "the prompt is empty"})
        if self.provider is None or self.provider.get("api", "openai") != "openai":
            return await self._complete("error", error={"type": "no_provider",
                                                        "message": "the bridge speaks the openai wire only"})
        if self.client.denies(submit):
            await self.emit("prompt:complete", {"response": f"Denied: {deny_reason(submit)}"})
            return await self._complete("incomplete", reason="denied")
        history = list(self.history)
        inj = injection(submit)
        user_prompt: Any = prompt
        if inj and not inj["ephemeral"]:
            history.append(ModelRequest(parts=[UserPromptPart(prompt)]))
            user_prompt = None
            history.append(request_of(inj))
        elif inj:
            self.run.ephemeral.append(inj)
        try:
            self._start_work()
            result = await self._agent().run(
                user_prompt, message_history=history,
                usage_limits=UsageLimits(request_limit=int(self.config.get("max_iterations", 10))),
                event_stream_handler=self._stream_events if self.config.get("streaming") else None)
        except asyncio.CancelledError:
            self._keep_history(history, prompt, user_prompt)
            await self._close_open()
            self.history.append(ModelResponse(parts=[TextPart(CANCELLED_TEXT)]))
            await self.emit("cancel:completed", {"orchestrator": ORCHESTRATOR, "turn_count": self.run.turns})
            return await self._complete("cancelled")
        except Exception as e:
            self._keep_history(history, prompt, user_prompt)
            return await self._raised(e, UsageLimitExceeded)
        finally:
            self.task = None  # the answer is given: a SIGINT from here is ignored
        self.history = result.all_messages()
        out = result.output
        await self.emit("prompt:complete", {"response": out if isinstance(out, str) else json.dumps(out)})
        return await self._complete("success")

    def _keep_history(self, history: list, prompt: str, user_prompt: Any) -> None:
        """What the context already holds stays (SPEC.md 5.14): the run's messages (the prompt and
        the completed tool rounds); when a cancel abandoned the request in flight, without what
        Pydantic AI kept of its reply (SPEC.md 5.10)."""
        run = self.run
        if run.messages:
            self.history = list(run.messages[:run.request_len] if run.open_request is not None else run.messages)
            return
        self.history = history + ([ModelRequest(parts=[UserPromptPart(prompt)])] if user_prompt is not None else [])


def main() -> int:
    return run_bridge(Bridge)


if __name__ == "__main__":
    sys.exit(main())
