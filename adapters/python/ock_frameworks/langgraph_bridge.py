"""ock-langgraph: LangGraph for Python's prebuilt ReAct agent under ock/1.

The agent is ``create_react_agent`` over langchain-openai's ``ChatOpenAI`` (Chat Completions),
pointed at the session's first provider, with the session's tools as LangChain tools that call the
tools endpoint, a ``ToolNode`` and a ``MemorySaver`` thread per session (so each prompt is one
invoke with the new user message). What the framework does is reported as ock/1 events:

- prompt:submit, prompt:complete, orchestrator:complete: around each invoke;
- provider:request / provider:response / provider:error: ``ChatOpenAI._generate``, subclassed; a
  deny stops the request before it is built;
- tool:pre / tool:error / tool:post: the ``ToolNode``'s ``wrap_tool_call`` hook, which sees every
  call the model made with a parsed object, unknown tools included; a deny answers the call
  without running it, a modify replaces its input;
- calls whose arguments did not parse: langchain-openai keeps them in ``invalid_tool_calls``, which
  the ``ToolNode`` never sees; the bridge reports and answers them from a ``post_model_hook``.

What the framework has no hook for, the bridge does not do either: manifests/langgraph-python.json
says what it applies and what it does not.
"""
from __future__ import annotations

import os
import sys
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import StructuredTool
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import MemorySaver
from langgraph.errors import GraphRecursionError
from langgraph.prebuilt import ToolNode, create_react_agent

from ock_frameworks.common import (
    Denied,
    OckClient,
    ToolFailed,
    deny_reason,
    first_provider,
    injection,
    parse_arguments,
    provider_error,
    result_text,
)

ORCHESTRATOR = "langgraph-python-bridge"


class _Run:
    """The counters of the running execute."""

    def __init__(self) -> None:
        self.turns = 0
        self.iteration = 0
        self.groups = 0
        self.ephemeral: list[dict] = []
        self.last_content = ""


def _message_of(inj: dict):
    if inj["role"] == "user":
        return HumanMessage(inj["text"])
    if inj["role"] == "assistant":
        return AIMessage(inj["text"])
    return SystemMessage(inj["text"])


def _text_of(message: Any) -> str:
    content = getattr(message, "content", "")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    return ""


class Bridge:
    """One session: the client, the agent (built on the first execute), the execute counter."""

    def __init__(self, client: OckClient, session: dict):
        self.client = client
        self.session = session
        self.config = session.get("config") or {}
        self.provider = first_provider(session)
        self.run = _Run()
        self.executes = 0
        self.agent = None

    # ---- the model ------------------------------------------------------------------------

    def _model(self):
        bridge = self

        class ReportingChatOpenAI(ChatOpenAI):
            def _generate(self, messages, stop=None, run_manager=None, **kwargs):
                return bridge._generate(super()._generate, messages, stop, run_manager, **kwargs)

        p = self.provider
        return ReportingChatOpenAI(
            model=p["model"], base_url=p["base_url"],
            api_key=os.environ.get("OPENAI_API_KEY", "ock-dummy-key"),
            max_retries=0, timeout=self.config.get("request_timeout_ms", 60000) / 1000,
            default_headers={"X-OCK-Trace-Id": self.client.trace_id}, use_responses_api=False)

    def _generate(self, generate, messages, stop, run_manager, **kwargs):
        run, p = self.run, self.provider
        run.iteration += 1
        it = run.iteration
        reply = self.client.emit("provider:request",
                                 {"provider": p["name"], "model": p["model"], "iteration": it, "attempt": 1})
        if self.client.denies(reply):
            raise Denied(deny_reason(reply))
        inj = injection(reply)
        if inj and inj["ephemeral"]:
            run.ephemeral.append(inj)
        sent = list(messages) + [_message_of(i) for i in run.ephemeral]
        run.ephemeral.clear()
        try:
            result = generate(sent, stop=stop, run_manager=run_manager, **kwargs)
        except Exception as e:
            run.turns += 1
            self.client.emit("provider:error", {"provider": p["name"], "iteration": it, "attempt": 1,
                                                **provider_error(e)})
            raise
        run.turns += 1
        gen = result.generations[0]
        msg = gen.message
        calls = [{"id": c["id"], "name": c["name"], "arguments": c["args"]} for c in msg.tool_calls]
        calls += [{"id": c.get("id"), "name": c.get("name"), "arguments": parse_arguments(c.get("args") or "")}
                  for c in msg.invalid_tool_calls]
        run.last_content = _text_of(msg)
        finish = (gen.generation_info or {}).get("finish_reason") or msg.response_metadata.get("finish_reason")
        usage = msg.usage_metadata or {}
        self.client.emit("provider:response", {
            "provider": p["name"], "iteration": it, "content": run.last_content, "tool_calls": calls,
            "finish_reason": finish or "unknown",
            "usage": {"input_tokens": usage.get("input_tokens"), "output_tokens": usage.get("output_tokens")}})
        run.groups += 1
        return result

    # ---- the tools --------------------------------------------------------------------------

    def _ids(self, call: dict) -> dict:
        return {"tool_call_id": call.get("id") or "", "tool_name": call.get("name") or "",
                "parallel_group_id": f"pg-{self.executes}-{self.run.groups}"}

    def _tool(self, spec: dict) -> StructuredTool:
        def run_tool(**kwargs):  # the ToolNode passes the call's id through the config below
            raise RuntimeError("called without wrap_tool_call")

        return StructuredTool.from_function(func=run_tool, name=spec["name"],
                                            description=spec.get("description") or "",
                                            args_schema=spec.get("input_schema") or {"type": "object"})

    def _wrap_tool_call(self, request, execute):
        """Every call the ToolNode got: tool:pre, then not found, denied, or the tools endpoint."""
        call = request.tool_call
        base = self._ids(call)
        tool_input = call.get("args")
        pre = self.client.emit("tool:pre", {**base, "tool_input": tool_input})
        answer = lambda text: ToolMessage(content=text, name=call["name"], tool_call_id=call["id"])  # noqa: E731
        if self.client.denies(pre):
            reason = deny_reason(pre)
            self.client.emit("tool:error", {**base, "error": {"type": "denied", "message": reason}})
            return answer(f"Error: denied: {reason}")
        if pre.get("action") == "modify" and isinstance((pre.get("data") or {}).get("tool_input"), dict):
            tool_input = pre["data"]["tool_input"]
        if request.tool is None:
            message = f"tool '{call['name']}' not found"
            self.client.emit("tool:error", {**base, "error": {"type": "not_found", "message": message}})
            return answer(f"Error: {message}")
        if not isinstance(tool_input, dict):
            message = "arguments are not a JSON object"
            self.client.emit("tool:error", {**base, "error": {"type": "invalid_arguments", "message": message}})
            return answer(f"Error: invalid arguments: {message}")
        try:
            result = self.client.call_tool(call["name"], call["id"], tool_input,
                                           self.config.get("tool_timeout_ms", 30000))
        except ToolFailed as e:
            self.client.emit("tool:error", {**base, "error": {"type": e.type, "message": str(e)},
                                            "tool_input": tool_input})
            return answer(f"Error: {e}")
        post = self.client.emit("tool:post", {**base, "result": result, "tool_input": tool_input})
        inj = injection(post)
        if inj and inj["ephemeral"]:
            self.run.ephemeral.append(inj)
        return answer(result_text(result))

    def _post_model_hook(self, state):
        """Calls whose arguments did not parse (invalid_tool_calls): the ToolNode never sees them,
        so they are reported and answered here, after the model's message."""
        last = state["messages"][-1]
        bad = getattr(last, "invalid_tool_calls", None) or []
        out = []
        for c in bad:
            base = self._ids(c)
            raw = c.get("args") or ""
            pre = self.client.emit("tool:pre", {**base, "tool_input": raw})
            repaired = (pre.get("data") or {}).get("tool_input") if pre.get("action") == "modify" else None
            if self.client.denies(pre):
                message, kind, text = deny_reason(pre), "denied", f"Error: denied: {deny_reason(pre)}"
            elif isinstance(repaired, dict):  # SPEC.md 5.8: a modify that supplies an object runs it
                out.append(self._run_repaired(c, base, repaired))
                continue
            else:
                message = f"not valid JSON: {raw[:120]}"
                kind, text = "invalid_arguments", f"Error: invalid arguments: {message}"
            self.client.emit("tool:error", {**base, "error": {"type": kind, "message": message}})
            out.append(ToolMessage(content=text, name=c.get("name") or "", tool_call_id=c.get("id") or ""))
        return {"messages": out} if out else {}

    def _run_repaired(self, call: dict, base: dict, tool_input: dict) -> ToolMessage:
        """A call whose unparsable arguments a tool:pre modify replaced: the tool runs with them."""
        name, call_id = call.get("name") or "", call.get("id") or ""
        known = any(t.get("name") == name for t in self.session.get("tools") or [])
        if not known:
            message = f"tool '{name}' not found"
            self.client.emit("tool:error", {**base, "error": {"type": "not_found", "message": message}})
            return ToolMessage(content=f"Error: {message}", name=name, tool_call_id=call_id)
        try:
            result = self.client.call_tool(name, call_id, tool_input, self.config.get("tool_timeout_ms", 30000))
        except ToolFailed as e:
            self.client.emit("tool:error", {**base, "error": {"type": e.type, "message": str(e)}})
            return ToolMessage(content=f"Error: {e}", name=name, tool_call_id=call_id)
        self.client.emit("tool:post", {**base, "result": result, "tool_input": tool_input})
        return ToolMessage(content=result_text(result), name=name, tool_call_id=call_id)

    def _build(self):
        tools = [self._tool(t) for t in self.session.get("tools") or []]
        node = ToolNode(tools, wrap_tool_call=self._wrap_tool_call)
        self.agent = create_react_agent(self._model(), node, checkpointer=MemorySaver(),
                                        post_model_hook=self._post_model_hook)

    # ---- one execute ------------------------------------------------------------------------

    def _complete(self, status: str, **extra) -> None:
        self.client.emit("orchestrator:complete", {"orchestrator": ORCHESTRATOR, "turn_count": self.run.turns,
                                                   "status": status, **extra})

    def execute(self, prompt: str) -> None:
        self.run = _Run()
        try:
            self._execute(prompt)
        finally:
            self.executes += 1

    def _execute(self, prompt: str) -> None:
        submit = self.client.emit("prompt:submit", {"prompt": prompt})
        if not prompt.strip():
            return self._complete("error", error={"type": "invalid_input", "message": "the prompt is empty"})
        if self.provider is None or self.provider.get("api", "openai") != "openai":
            return self._complete("error", error={"type": "no_provider",
                                                  "message": "the bridge speaks the openai wire only"})
        if self.client.denies(submit):
            self.client.emit("prompt:complete", {"response": f"Denied: {deny_reason(submit)}"})
            return self._complete("incomplete", reason="denied")
        if self.agent is None:
            self._build()
        messages = [HumanMessage(prompt)]
        inj = injection(submit)
        if inj and not inj["ephemeral"]:
            messages.append(_message_of(inj))
        elif inj:
            self.run.ephemeral.append(inj)
        try:
            result = self.agent.invoke({"messages": messages}, {
                "configurable": {"thread_id": self.client.trace_id},
                "recursion_limit": 3 * int(self.config.get("max_iterations", 10))})
        except Denied as e:
            self.client.emit("prompt:complete", {"response": f"Denied: {e.reason}"})
            return self._complete("incomplete", reason="denied")
        except GraphRecursionError:
            self.client.emit("prompt:complete", {"response": self.run.last_content})
            return self._complete("incomplete", reason="max_iterations")
        except Exception as e:  # the provider's error, reported by _generate already
            return self._complete("error", error=provider_error(e)["error"])
        last = result["messages"][-1]
        self.client.emit("prompt:complete", {"response": _text_of(last) if isinstance(last, AIMessage) else ""})
        return self._complete("success")


def main() -> int:
    client = OckClient(os.environ["OCK_URL"])
    session = client.session()
    bridge = Bridge(client, session)
    for prompt in session.get("prompts") or []:
        bridge.execute(prompt)
    return 0


if __name__ == "__main__":
    sys.exit(main())
