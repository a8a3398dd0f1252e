"""ock-langgraph: LangGraph for Python's prebuilt ReAct agent under ock/1.

The agent is ``create_react_agent`` over langchain-openai's ``ChatOpenAI`` (Chat Completions),
pointed at the session's first provider, with the session's tools as LangChain tools that call the
tools endpoint, a ``ToolNode`` and a ``MemorySaver`` thread per session (so each prompt is one
``ainvoke`` with the new user message). What the framework does is reported as ock/1 events:

- prompt:submit, prompt:complete, orchestrator:complete: around each invoke;
- provider:request / provider:response / provider:error: ``ChatOpenAI._agenerate``, subclassed; a
  deny stops the request before it is built; with ``config.streaming`` the model is
  ``ChatOpenAI(streaming=True)``, LangChain then calls its ``_astream``, subclassed too, whose text
  chunks are provider:stream; a stream that just stops is the whole reply to langchain-openai, and
  the bridge reports what it got (it could see that no finish_reason came and report a
  provider:error: a bridge defect in the baseline, as on the JavaScript LangGraph row);
- tool:pre / tool:error / tool:post: the ``ToolNode``'s ``awrap_tool_call`` hook, which sees every
  call the model made with a parsed object, unknown tools included; a deny answers the call
  without running it, a modify replaces its input; the ``ToolNode`` runs the calls of one message
  at once (with parallel_tools false the hook runs them one after another: emulated);
- calls whose arguments did not parse: langchain-openai keeps them in ``invalid_tool_calls``, which
  the ``ToolNode`` never sees; the bridge reports and answers them from a ``post_model_hook``;
- cancellation: SIGINT cancels the asyncio task of the invoke; the wrappers close what was in
  flight, and the thread's state (its last checkpoint) gets the results of the calls that finished,
  ``Error: cancelled`` for the others and the closing message through ``aupdate_state``.

What the framework has no hook for, the bridge does not do either: manifests/langgraph-python.json
says what it applies and what it does not.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from typing import Any

# What ChatOpenAI's clients import on their first use, imported with the bridge instead: under
# ock-warm the server then holds it, and no scenario's worker imports it again (about 0.15 s of
# CPU a scenario). Nothing is built or read from the environment here.
import anyio.streams.tls  # noqa: F401
import h11  # noqa: F401
import httpcore2  # noqa: F401
import openai.lib.streaming.chat  # noqa: F401
import openai.resources.chat  # noqa: F401
from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, SystemMessage, ToolMessage
from langchain_core.tools import StructuredTool
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import MemorySaver
from langgraph.errors import GraphRecursionError
from langgraph.prebuilt import ToolNode, create_react_agent

from ock_frameworks.common import (
    AsyncBridge,
    Denied,
    ToolFailed,
    deny_reason,
    in_thread,
    injection,
    parse_arguments,
    provider_error,
    result_text,
    run_bridge,
)

ORCHESTRATOR = "langgraph-python-bridge"
CANCELLED_TEXT = "The previous operation was cancelled."


class Run:
    """The counters of the running execute."""

    def __init__(self) -> None:
        self.turns = 0
        self.iteration = 0
        self.groups = 0
        self.ephemeral: list[dict] = []
        self.last_content = ""
        self.cancelled = False
        self.open_request: int | None = None  # the iteration of the request in flight
        self.open_calls: dict[str, dict] = {}  # tool_call_id -> the ids of a call not closed yet
        self.results: dict[str, str] = {}  # tool_call_id -> the result text of a call that finished
        self.reply: AIMessage | None = None  # the last reply reported with provider:response
        self.cut: dict[str, str] = {}  # tool_call_id -> raw arguments, of a reply cut at the token limit


def message_of(inj: dict):
    if inj["role"] == "user":
        return HumanMessage(inj["text"])
    if inj["role"] == "assistant":
        return AIMessage(inj["text"])
    return SystemMessage(inj["text"])


def text_of(message: Any) -> str:
    content = getattr(message, "content", "")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    return ""


def raw_arguments(msg: Any) -> dict[str, str]:
    """tool_call_id -> the arguments text the model sent, for the message's parsed calls: from
    the wire's tool_calls (a whole reply) or the stream's tool_call_chunks (a streamed one)."""
    raw = {c.get("id"): (c.get("function") or {}).get("arguments") or ""
           for c in (getattr(msg, "additional_kwargs", None) or {}).get("tool_calls") or []}
    for c in getattr(msg, "tool_call_chunks", None) or []:
        raw.setdefault(c.get("id"), c.get("args") or "")
    return {c["id"]: raw.get(c["id"], json.dumps(c["args"], separators=(",", ":")))
            for c in getattr(msg, "tool_calls", [])}


def calls_of(msg: Any) -> list[dict]:
    """provider:response's tool_calls: the parsed calls, then those whose arguments did not parse."""
    calls = [{"id": c["id"], "name": c["name"], "arguments": c["args"]} for c in getattr(msg, "tool_calls", [])]
    calls += [{"id": c.get("id"), "name": c.get("name"), "arguments": parse_arguments(c.get("args") or "")}
              for c in getattr(msg, "invalid_tool_calls", [])]
    return calls


def repair(new: list, prompt: list, reply: AIMessage | None, results: dict[str, str]) -> list:
    """The messages a cancelled invoke's state needs (SPEC.md 5.10): ``new`` is what the thread
    stored in this execute, ``prompt`` the invoke's input (stored here when the cancel came before
    LangGraph stored it). A final answer (a reply of the model: it has a finish_reason, unlike an
    injected assistant message) stored before prompt:complete is removed; every call of
    the last reply (stored, or reported and not stored yet) gets its real result or
    ``Error: cancelled``; then the closing message."""
    out: list = [] if new else list(prompt)
    answer = new[-1] if new and isinstance(new[-1], AIMessage) else None
    if answer is not None and not calls_of(answer) and answer.response_metadata.get("finish_reason"):
        out.append(RemoveMessage(id=new[-1].id))
        new = new[:-1]
    stored = {c["id"] for m in new if isinstance(m, AIMessage) for c in calls_of(m)}
    last = next((m for m in reversed(new) if isinstance(m, AIMessage)), None)
    if reply is not None and calls_of(reply) and not any(c["id"] in stored for c in calls_of(reply)):
        last = AIMessage(content=reply.content, tool_calls=reply.tool_calls,
                         invalid_tool_calls=reply.invalid_tool_calls)
        out.append(last)
        new = new + [last]
    if last is not None:
        answered = {m.tool_call_id for m in new if isinstance(m, ToolMessage)}
        for c in calls_of(last):
            if c["id"] not in answered:
                out.append(ToolMessage(content=results.get(c["id"], "Error: cancelled"), name=c["name"] or "",
                                       tool_call_id=c["id"] or ""))
    out.append(AIMessage(CANCELLED_TEXT))
    return out


class Bridge(AsyncBridge):
    """One session: the client, the agent (built on the first execute), the execute counter."""

    orchestrator = ORCHESTRATOR
    run_class = Run

    def __init__(self, client, session: dict):
        super().__init__(client, session)
        self.agent = None
        self.sequential = asyncio.Lock() if not self.config.get("parallel_tools", True) else None

    # ---- the model ------------------------------------------------------------------------

    def _model(self):
        bridge = self

        class ReportingChatOpenAI(ChatOpenAI):
            async def _agenerate(self, messages, stop=None, run_manager=None, **kwargs):
                return await bridge._agenerate(super()._agenerate, messages, stop, run_manager, **kwargs)

            async def _astream(self, messages, stop=None, run_manager=None, **kwargs):
                async for chunk in bridge._astream(super()._astream, messages, stop, run_manager, **kwargs):
                    yield chunk

        p = self.provider
        extra = {"streaming": True} if self.config.get("streaming") else {}
        return ReportingChatOpenAI(
            model=p["model"], base_url=p["base_url"],
            api_key=os.environ.get("OPENAI_API_KEY", "ock-dummy-key"),
            max_retries=0, timeout=self.config.get("request_timeout_ms", 60000) / 1000,
            default_headers={"X-OCK-Trace-Id": self.client.trace_id}, use_responses_api=False, **extra)

    async def _request(self, messages) -> tuple[int, list]:
        """provider:request; a deny raises, an ephemeral injection joins this request's messages."""
        run, p = self.run, self.provider
        # The recursion limit counts three supersteps a round, but a round the post_model_hook
        # answered whole has no ToolNode superstep: past max_iterations model calls the graph
        # would still call the model. The limit stands for max_iterations calls, so the request
        # past them ends the graph the way the limit does, before it is sent.
        limit = int(self.config.get("max_iterations", 10))
        if run.iteration >= limit:
            raise GraphRecursionError(f"max_iterations ({limit}) model calls made")
        run.iteration += 1
        it = run.iteration
        reply = await self.emit("provider:request",
                                {"provider": p["name"], "model": p["model"], "iteration": it, "attempt": 1})
        if self.client.denies(reply):
            raise Denied(deny_reason(reply))
        inj = injection(reply)
        if inj and inj["ephemeral"]:
            run.ephemeral.append(inj)
        sent = list(messages) + [message_of(i) for i in run.ephemeral]
        run.ephemeral.clear()
        run.open_request = it
        return it, sent

    def request_error(self, e: BaseException, in_stream: bool) -> dict:
        """provider:error's fields; a stream that broke after it began (cut, dropped, an error event, a
        malformed chunk) is a stream_error, retryable (SPEC.md 5.7, 5.13)."""
        fields = provider_error(e)
        if in_stream and fields["status_code"] is None:
            fields = {**fields, "error": {"type": "stream_error", "message": fields["error"]["message"]},
                      "retryable": True}
        return fields

    async def _failed(self, it: int, e: BaseException, in_stream: bool = False) -> None:
        run = self.run
        if run.open_request != it:  # closed already, after a cancel
            return
        run.open_request = None
        run.turns += 1
        await self.emit("provider:error", {"provider": self.provider["name"], "iteration": it, "attempt": 1,
                                           **self.request_error(e, in_stream)})

    async def _responded(self, it: int, msg: Any, finish: str | None) -> None:
        run = self.run
        run.open_request = None  # closed by the provider:response below, even if a cancel cuts its wait
        run.turns += 1
        calls = calls_of(msg)
        run.last_content = text_of(msg)
        run.reply = AIMessage(content=msg.content, tool_calls=msg.tool_calls,
                              invalid_tool_calls=msg.invalid_tool_calls) if calls else None
        # A reply cut at the output token limit: its calls' arguments are what the model had
        # written when it was stopped (SPEC.md 5.8), answered by the post_model_hook, never run.
        run.cut = raw_arguments(msg) if finish == "length" else {}
        usage = msg.usage_metadata or {}
        await self.emit("provider:response", {
            "provider": self.provider["name"], "iteration": it, "content": run.last_content, "tool_calls": calls,
            "finish_reason": finish or "unknown",
            "usage": {"input_tokens": usage.get("input_tokens"), "output_tokens": usage.get("output_tokens")}})
        run.groups += 1

    async def _agenerate(self, generate, messages, stop, run_manager, **kwargs):
        it, sent = await self._request(messages)
        try:
            result = await generate(sent, stop=stop, run_manager=run_manager, **kwargs)
        except asyncio.CancelledError:
            raise  # the request stays open: the execute's cancel path closes it before cancel:completed
        except Exception as e:
            await self._failed(it, e)
            raise
        gen = result.generations[0]
        finish = (gen.generation_info or {}).get("finish_reason") or gen.message.response_metadata.get("finish_reason")
        await self._responded(it, gen.message, finish)
        return result

    async def _astream(self, stream, messages, stop, run_manager, **kwargs):
        """A streamed request: provider:stream per text chunk, then provider:response for what
        LangChain got. langchain-openai and the openai client take a stream that just stops as the
        whole reply; the bridge does not check it for them, though it sees that no finish_reason came
        (a bridge defect in the baseline)."""
        it, sent = await self._request(messages)
        whole = None
        try:
            async for chunk in stream(sent, stop=stop, run_manager=run_manager, **kwargs):
                delta = text_of(chunk.message)
                if delta:
                    await self.emit("provider:stream", {"provider": self.provider["name"], "iteration": it,
                                                        "delta": delta})
                whole = chunk if whole is None else whole + chunk
                yield chunk
        except asyncio.CancelledError:
            raise  # the request stays open: the execute's cancel path closes it before cancel:completed
        except Exception as e:
            await self._failed(it, e, in_stream=True)
            raise
        finish = (whole.generation_info or {}).get("finish_reason") if whole is not None else None
        await self._responded(it, whole.message if whole is not None else AIMessage(""), finish)

    # ---- the tools --------------------------------------------------------------------------

    def _ids(self, call: dict) -> dict:
        return {"tool_call_id": call.get("id") or "", "tool_name": call.get("name") or "",
                "parallel_group_id": f"pg-{self.executes}-{self.run.groups}"}

    def _tool(self, spec: dict) -> StructuredTool:
        def run_tool(**kwargs):  # never run: awrap_tool_call calls the tools endpoint itself
            raise RuntimeError("called without awrap_tool_call")

        return StructuredTool.from_function(func=run_tool, name=spec["name"],
                                            description=spec.get("description") or "",
                                            args_schema=spec.get("input_schema") or {"type": "object"})

    async def _awrap_tool_call(self, request, execute):
        """Every call the ToolNode got, open (for a cancel to close) from its tool:pre on; with
        parallel_tools false one at a time, in call order (the ToolNode starts them all at once)."""
        call = request.tool_call
        call_id = call.get("id") or ""
        async with self.sequential or contextlib.nullcontext():
            self.run.open_calls[call_id] = self._ids(call)
            try:
                text = await self._run_call(call, request.tool is not None)
            except asyncio.CancelledError:
                raise  # still open: the execute's cancel path closes it, in order, before cancel:completed
            except BaseException:
                self.run.open_calls.pop(call_id, None)
                raise
        self.run.open_calls.pop(call_id, None)
        return ToolMessage(content=text, name=call["name"], tool_call_id=call["id"])

    async def _finished(self, call_id: str, event: str, data: dict, text: str) -> dict:
        """The call's result is text: kept for a cancel from now on, and reported with event."""
        self.run.results[call_id] = text
        self._closing(call_id)
        return await self.emit(event, data)

    async def _run_call(self, call: dict, known: bool) -> str:
        """tool:pre, then denied, not found, invalid, or the tools endpoint: the result text."""
        base, call_id = self._ids(call), call.get("id") or ""
        tool_input = call.get("args")
        pre = await self.emit("tool:pre", {**base, "tool_input": tool_input})
        if self.client.denies(pre):
            reason = deny_reason(pre)
            text = f"Error: denied: {reason}"
            await self._finished(call_id, "tool:error", {**base, "error": {"type": "denied", "message": reason}}, text)
            return text
        if pre.get("action") == "modify" and isinstance((pre.get("data") or {}).get("tool_input"), dict):
            tool_input = pre["data"]["tool_input"]
        if not known:
            message = f"tool '{call['name']}' not found"
            await self._finished(call_id, "tool:error", {**base, "error": {"type": "not_found", "message": message}},
                                 f"Error: {message}")
            return f"Error: {message}"
        if not isinstance(tool_input, dict):
            message = "arguments are not a JSON object"
            text = f"Error: invalid arguments: {message}"
            await self._finished(call_id, "tool:error",
                                 {**base, "error": {"type": "invalid_arguments", "message": message}}, text)
            return text
        return await self._endpoint(call, base, tool_input)

    async def _endpoint(self, call: dict, base: dict, tool_input: dict) -> str:
        call_id = call.get("id") or ""
        try:
            result = await in_thread(self.client.call_tool, call["name"], call_id, tool_input,
                                     self.config.get("tool_timeout_ms", 30000))
        except ToolFailed as e:
            await self._finished(call_id, "tool:error", {**base, "error": {"type": e.type, "message": str(e)},
                                                         "tool_input": tool_input}, f"Error: {e}")
            return f"Error: {e}"
        text = result_text(result)
        post = await self._finished(call_id, "tool:post", {**base, "result": result, "tool_input": tool_input}, text)
        inj = injection(post)
        if inj and inj["ephemeral"]:
            self.run.ephemeral.append(inj)
        return text

    async def _post_model_hook(self, state):
        """Calls whose arguments did not parse (invalid_tool_calls): the ToolNode never sees them,
        so they are reported and answered here, after the model's message. So are the calls of a
        reply cut at the output token limit, though their arguments parse: answered here, they
        have a ToolMessage, and the graph's router sends to the ToolNode only calls without one."""
        last = state["messages"][-1]
        out = []
        for c in getattr(last, "invalid_tool_calls", None) or []:
            out.append(await self._invalid_call(c))
        for c in getattr(last, "tool_calls", None) or []:
            if c.get("id") in self.run.cut:
                out.append(await self._invalid_call({**c, "args": self.run.cut[c["id"]]}, cut=True))
        return {"messages": out} if out else {}

    async def _invalid_call(self, c: dict, cut: bool = False) -> ToolMessage:
        """A call whose raw arguments are its input: tool:pre with them, then only a modify that
        supplies an object runs it; else tool:error (invalid_arguments, or denied)."""
        base, call_id, name = self._ids(c), c.get("id") or "", c.get("name") or ""
        raw = c.get("args") or ""
        self.run.open_calls[call_id] = base
        pre = await self.emit("tool:pre", {**base, "tool_input": raw})
        repaired = (pre.get("data") or {}).get("tool_input") if pre.get("action") == "modify" else None
        if self.client.denies(pre):
            message, kind, text = deny_reason(pre), "denied", f"Error: denied: {deny_reason(pre)}"
        elif isinstance(repaired, dict):  # SPEC.md 5.8: a modify that supplies an object runs it
            known = any(t.get("name") == name for t in self.session.get("tools") or [])
            if known:
                text = await self._endpoint(c, base, repaired)
                return ToolMessage(content=text, name=name, tool_call_id=call_id)
            message, kind, text = f"tool '{name}' not found", "not_found", f"Error: tool '{name}' not found"
        else:
            why = "the reply stopped at the output token limit" if cut else "not valid JSON"
            message = f"{why}: {raw[:120]}"
            kind, text = "invalid_arguments", f"Error: invalid arguments: {message}"
        await self._finished(call_id, "tool:error", {**base, "error": {"type": kind, "message": message}}, text)
        return ToolMessage(content=text, name=name, tool_call_id=call_id)

    def _build(self):
        tools = [self._tool(t) for t in self.session.get("tools") or []]
        node = ToolNode(tools, awrap_tool_call=self._awrap_tool_call)
        self.agent = create_react_agent(self._model(), node, checkpointer=MemorySaver(),
                                        post_model_hook=self._post_model_hook)

    # ---- one execute ------------------------------------------------------------------------

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
        if self.agent is None:
            self._build()
        messages = [HumanMessage(prompt)]
        inj = injection(submit)
        if inj and not inj["ephemeral"]:
            messages.append(message_of(inj))
        elif inj:
            self.run.ephemeral.append(inj)
        cfg = {"configurable": {"thread_id": self.client.trace_id}}
        before = len(await self._stored(cfg))
        try:
            self._start_work()
            result = await self.agent.ainvoke(
                {"messages": messages}, {**cfg, "recursion_limit": 3 * int(self.config.get("max_iterations", 10))})
        except asyncio.CancelledError as e:
            await self._cancelled(e, cfg, before, messages)
            return None
        except Exception as e:
            return await self._raised(e, GraphRecursionError)
        finally:
            self.task = None  # the answer is given: a SIGINT from here is ignored
        last = result["messages"][-1]
        await self.emit("prompt:complete", {"response": text_of(last) if isinstance(last, AIMessage) else ""})
        return await self._complete("success")

    async def _stored(self, cfg: dict) -> list:
        """The messages of the thread's last checkpoint. Not its live state: that also shows the
        writes of the tasks that finished in a super-step a cancel cut short (the results of the
        calls that had finished), which aupdate_state drops; the bridge adds those from its own
        record (Run.results)."""
        live = await self.agent.aget_state(cfg)
        if not live.config:
            return []
        saved = await self.agent.aget_state(live.config)
        return list(saved.values.get("messages") or [])

    async def _cancelled(self, e: asyncio.CancelledError, cfg: dict, before: int, prompt: list) -> None:
        """The cancel path: LangGraph's own exit (its checkpoint writes, handed over in the
        CancelledError's args) is awaited, what was in flight is closed, and the thread's state is
        repaired before cancel:completed."""
        for pending in e.args:
            if isinstance(pending, asyncio.Future):
                with contextlib.suppress(BaseException):
                    await pending
        await self._close_open()
        stored = await self._stored(cfg)
        fix = repair(stored[before:], prompt, self.run.reply, self.run.results)
        await self.agent.aupdate_state(cfg, {"messages": fix}, as_node="post_model_hook")
        await self.emit("cancel:completed", {"orchestrator": ORCHESTRATOR, "turn_count": self.run.turns})
        await self._complete("cancelled")


def main() -> int:
    return run_bridge(Bridge)


if __name__ == "__main__":
    sys.exit(main())
