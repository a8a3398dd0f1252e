"""Unit tests of the Python framework bridges' own logic (adapters/python/ock_frameworks) and of the
black-box MCP agent's (examples/python-mcp/agent.py): what the bridges make of the frameworks'
objects and of the events endpoint's replies, with a recording stand-in for the ock/1 client. No
network: the frameworks are imported, never run against a server (make test-frameworks does that).
"""
from __future__ import annotations

import asyncio
import importlib.util
import os
import types
import unittest

try:  # the frameworks live in the virtualenv make builds (build/venv), where make test runs pytest
    import agents  # noqa: F401
    import pydantic_ai  # noqa: F401
except ImportError as e:  # python3 -m unittest outside it (tests/conformance/test_examples.c)
    raise unittest.SkipTest(f"{e.name} is not installed here: these tests run in build/venv") from e

import pytest

from ock_frameworks import openai_agents_bridge as oab
from ock_frameworks import pydantic_ai_bridge as pab
from ock_frameworks.common import ToolFailed

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SESSION = {"trace_id": "ock-1", "prompts": ["hi"], "config": {"tool_timeout_ms": 1000, "parallel_tools": True},
           "providers": [{"name": "primary", "model": "m", "base_url": "http://127.0.0.1:9/v1", "api": "responses"}],
           "tools": [{"name": "get_weather", "input_schema": {"type": "object"}}]}


class FakeClient:
    """The ock/1 client's surface the bridges use: emit records, replies come from `replies`."""

    def __init__(self, replies=None, result=None, fail=None):
        self.trace_id = "ock-1"
        self.events: list[tuple[str, dict]] = []
        self.replies = replies or {}
        self.result = result if result is not None else {"success": True, "output": "sunny"}
        self.fail = fail
        self.calls: list[tuple[str, str, dict]] = []

    def emit(self, event, data):
        self.events.append((event, data))
        return self.replies.get(event, {"action": "continue"})

    @staticmethod
    def denies(reply):
        return reply.get("action") in ("deny", "ask_user")

    def call_tool(self, name, call_id, tool_input, timeout_ms):
        self.calls.append((name, call_id, tool_input))
        if self.fail:
            raise self.fail
        return self.result

    def names(self):
        return [e for e, _ in self.events]


# ---- the Agents SDK bridge --------------------------------------------------------------------

def test_agents_output_summary_reads_text_and_calls():
    text, calls = oab.output_summary([
        {"type": "message", "content": [{"type": "output_text", "text": "It is "}, {"type": "output_text", "text": "15"}]},
        {"type": "function_call", "call_id": "c1", "name": "get_weather", "arguments": '{"city":"Paris"}'},
        {"type": "function_call", "call_id": "c2", "name": "get_weather", "arguments": ""},
        {"type": "function_call", "call_id": "c3", "name": "get_weather", "arguments": "{broken"},
    ])
    assert text == "It is 15"
    assert [c["arguments"] for c in calls] == [{"city": "Paris"}, {}, "{broken"]
    assert [c["id"] for c in calls] == ["c1", "c2", "c3"]


def test_agents_input_message_roles():
    assert oab.input_message({"role": "user", "text": "u"}) == {"role": "user", "content": "u"}
    assert oab.input_message({"role": "system", "text": "s"}) == {"role": "system", "content": "s"}
    a = oab.input_message({"role": "assistant", "text": "a"})
    assert a["role"] == "assistant" and a["content"][0] == {"type": "output_text", "text": "a", "annotations": []}


def agents_bridge(client):
    return oab.Bridge(client, SESSION)


def test_agents_invoke_runs_the_tool_and_posts_tool_post():
    client = FakeClient()
    out = asyncio.run(agents_bridge(client)._invoke("get_weather", "c1", '{"city":"Paris"}'))
    assert out == "sunny"
    assert client.names() == ["tool:pre", "tool:post"]
    assert client.calls == [("get_weather", "c1", {"city": "Paris"})]


def test_agents_invoke_denied_never_calls_the_tool():
    client = FakeClient({"tool:pre": {"action": "deny", "reason": "no"}})
    out = asyncio.run(agents_bridge(client)._invoke("get_weather", "c1", "{}"))
    assert out == "Error: denied: no"
    assert client.names() == ["tool:pre", "tool:error"]
    assert client.events[1][1]["error"]["type"] == "denied"
    assert client.calls == []


@pytest.mark.parametrize("raw,message", [("{broken", "not valid JSON: {broken"),
                                         ('["Paris"]', "arguments are not a JSON object")])
def test_agents_invoke_invalid_arguments_are_answered_not_run(raw, message):
    client = FakeClient()
    out = asyncio.run(agents_bridge(client)._invoke("get_weather", "c1", raw))
    assert out == f"Error: invalid arguments: {message}"
    assert client.events[1][1]["error"]["type"] == "invalid_arguments"
    assert client.calls == []


def test_agents_invoke_modify_repairs_arguments():
    client = FakeClient({"tool:pre": {"action": "modify", "data": {"tool_input": {"city": "Oslo"}}}})
    asyncio.run(agents_bridge(client)._invoke("get_weather", "c1", "{broken"))
    assert client.calls == [("get_weather", "c1", {"city": "Oslo"})]


def test_agents_invoke_tool_failure_is_tool_error():
    client = FakeClient(fail=ToolFailed("timeout", "tool timed out after 1000 ms"))
    out = asyncio.run(agents_bridge(client)._invoke("get_weather", "c1", "{}"))
    assert out == "Error: tool timed out after 1000 ms"
    assert client.events[-1][0] == "tool:error" and client.events[-1][1]["error"]["type"] == "timeout"


def test_agents_unknown_tool_is_reported_through_the_formatter():
    client = FakeClient()
    bridge = agents_bridge(client)
    bridge.run.call_inputs["c9"] = {"x": 1}
    args = types.SimpleNamespace(kind="tool_not_found", call_id="c9", tool_name="nope")
    assert asyncio.run(bridge._format_tool_error(args)) == "Error: tool 'nope' not found"
    assert client.names() == ["tool:pre", "tool:error"]
    assert client.events[0][1]["tool_input"] == {"x": 1}
    assert client.events[1][1]["error"]["type"] == "not_found"
    other = types.SimpleNamespace(kind="tool_exception", call_id="c9", tool_name="get_weather")
    assert asyncio.run(bridge._format_tool_error(other)) is None


def test_agents_history_kept_from_run_data():
    bridge = agents_bridge(FakeClient())
    item = types.SimpleNamespace(to_input_item=lambda: {"type": "function_call_output", "call_id": "c1"})
    err = Exception("boom")
    err.run_data = types.SimpleNamespace(input="hi", new_items=[item])
    bridge._keep_history(err, [{"role": "user", "content": "ignored"}])
    assert bridge.history == [{"role": "user", "content": "hi"}, {"type": "function_call_output", "call_id": "c1"}]
    bridge._keep_history(Exception("no data"), [{"role": "user", "content": "kept"}])
    assert bridge.history == [{"role": "user", "content": "kept"}]


def test_agents_kept_injection_goes_after_its_round_in_every_later_request():
    note = {"role": "system", "content": "NOTE"}
    user = {"role": "user", "content": "hi"}
    calls = [{"type": "function_call", "call_id": c} for c in ("c1", "c2")]
    outs = [{"type": "function_call_output", "call_id": c} for c in ("c1", "c2")]
    later = {"type": "message", "role": "assistant", "content": []}
    # after both results of the round, though it was replied to the first call's tool:post
    assert oab.with_kept([user, *calls, *outs, later], [("c1", note)]) == [user, *calls, *outs, note, later]
    # a provider:request one after the items its request was built from
    assert oab.with_kept([user, *calls, *outs], [(1, note)]) == [user, note, *calls, *outs]
    # the call's result is not there yet: at the end
    assert oab.with_kept([user], [("c1", note)]) == [user, note]
    assert oab.with_kept([user], []) == [user]


def test_agents_kept_injection_on_tool_post_reaches_the_requests_and_the_history():
    reply = {"action": "inject_context", "context_injection": "KEPT", "context_injection_role": "user"}
    bridge = agents_bridge(FakeClient({"tool:post": reply}))
    asyncio.run(bridge._invoke("get_weather", "c1", '{"city":"Paris"}'))
    model = oab.ReportingModel(None, bridge)
    items = [{"role": "user", "content": "hi"}, {"type": "function_call", "call_id": "c1"},
             {"type": "function_call_output", "call_id": "c1"}]
    kept = {"role": "user", "content": "KEPT"}
    assert model._input(items) == items + [kept]
    assert model._input(items + [{"type": "message"}]) == items + [kept, {"type": "message"}]
    err = Exception("boom")
    err.run_data = types.SimpleNamespace(input="hi", new_items=[types.SimpleNamespace(to_input_item=lambda i=i: i)
                                                                for i in items[1:]])
    bridge._keep_history(err, [])
    assert bridge.history == items + [kept]


# ---- the Pydantic AI bridge -------------------------------------------------------------------

@pytest.mark.parametrize("reply,raw,expected", [
    ({"action": "deny", "reason": "r"}, "{}", ("deny", "r")),
    ({"action": "ask_user"}, "{}", ("deny", "No approval system available")),
    ({"action": "modify", "data": {"tool_input": {"a": 1}}}, "{broken", ("run", {"a": 1})),
    ({"action": "continue"}, '{"a": 2}', ("run", {"a": 2})),
    ({"action": "continue"}, {"a": 3}, ("run", {"a": 3})),
    ({"action": "continue"}, "", ("run", {})),
    ({"action": "continue"}, "{broken", ("invalid", "not valid JSON: {broken")),
    ({"action": "continue"}, '["Paris"]', ("invalid", "arguments are not a JSON object")),
])
def test_pydantic_decide(reply, raw, expected):
    assert pab.decide(reply, raw) == expected


def test_pydantic_response_summary_and_messages():
    from pydantic_ai.messages import ModelRequest, ModelResponse, SystemPromptPart, TextPart, ToolCallPart
    resp = ModelResponse(parts=[TextPart("a"), ToolCallPart("get_weather", '{"city":"Paris"}', tool_call_id="c1"),
                                ToolCallPart("get_weather", "{bad", tool_call_id="c2")])
    text, calls = pab.response_summary(resp)
    assert text == "a"
    assert calls == [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}},
                     {"id": "c2", "name": "get_weather", "arguments": "{bad"}]
    assert isinstance(pab.request_of({"role": "assistant", "text": "x"}), ModelResponse)
    sys_msg = pab.request_of({"role": "system", "text": "x"})
    assert isinstance(sys_msg, ModelRequest) and isinstance(sys_msg.parts[0], SystemPromptPart)
    assert pab.FINISH["tool_call"] == "tool_calls"


def pydantic_bridge(client, **config):
    session = {**SESSION, "config": {**SESSION["config"], **config},
               "providers": [{**SESSION["providers"][0], "api": "openai"}]}
    return pab.Bridge(client, session)


def test_pydantic_tool_function_carries_out_the_plan():
    client = FakeClient()
    bridge = pydantic_bridge(client)
    ctx = types.SimpleNamespace(tool_call_id="c1", enqueue=lambda *a: None)
    bridge.run.plans["c1"] = ("run", {"city": "Paris"})
    assert asyncio.run(bridge._call(ctx, "get_weather")) == "sunny"
    bridge.run.plans["c1"] = ("deny", "no")
    assert asyncio.run(bridge._call(ctx, "get_weather")) == "Error: denied: no"
    bridge.run.plans["c1"] = ("invalid", "not valid JSON: {x")
    assert asyncio.run(bridge._call(ctx, "get_weather")) == "Error: invalid arguments: not valid JSON: {x"
    assert client.calls == [("get_weather", "c1", {"city": "Paris"})]
    assert client.names() == ["tool:post", "tool:error", "tool:error"]


def test_pydantic_kept_injection_on_tool_post_is_enqueued():
    client = FakeClient({"tool:post": {"action": "inject_context", "context_injection": "note"}})
    bridge = pydantic_bridge(client)
    queued = []
    ctx = types.SimpleNamespace(tool_call_id="c1", enqueue=lambda *parts: queued.extend(parts))
    bridge.run.plans["c1"] = ("run", {})
    asyncio.run(bridge._call(ctx, "get_weather"))
    assert [p.content for p in queued] == ["note"]
    assert bridge.run.ephemeral == []


def test_pydantic_before_tool_validate_sends_tool_pre_and_hides_bad_arguments():
    client = FakeClient()
    bridge = pydantic_bridge(client)
    hooks = pab.Reporting(bridge)
    call = types.SimpleNamespace(tool_call_id="c1", tool_name="get_weather")
    assert asyncio.run(hooks.before_tool_validate(None, call=call, tool_def=None, args="{broken")) == "{}"
    assert client.events[0] == ("tool:pre", {"tool_call_id": "c1", "tool_name": "get_weather",
                                             "parallel_group_id": "pg-0-0", "tool_input": "{broken"})
    assert bridge.run.plans["c1"][0] == "invalid"


def test_pydantic_unknown_calls_are_reported():
    client = FakeClient()
    hooks = pab.Reporting(pydantic_bridge(client))
    asyncio.run(hooks._unknown_calls([{"id": "c1", "name": "get_weather", "arguments": {}},
                                      {"id": "c2", "name": "nope", "arguments": {}}]))
    assert client.names() == ["tool:pre", "tool:error"]
    assert client.events[1][1]["error"] == {"type": "not_found", "message": "tool 'nope' not found"}


def test_pydantic_sequential_tools_when_parallel_tools_false():
    assert pydantic_bridge(FakeClient(), parallel_tools=False)._tool(SESSION["tools"][0]).sequential is True
    assert pydantic_bridge(FakeClient(), parallel_tools=True)._tool(SESSION["tools"][0]).sequential is False


# ---- the black-box MCP agent ------------------------------------------------------------------

def mcp_agent():
    spec = importlib.util.spec_from_file_location("python_mcp_agent", os.path.join(ROOT, "examples/python-mcp/agent.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_mcp_agent_tools_and_results():
    agent = mcp_agent()
    listed = types.SimpleNamespace(tools=[types.SimpleNamespace(name="t", description=None, input_schema={"type": "object"})])
    assert agent.openai_tools(listed) == [{"type": "function", "function": {"name": "t", "description": "",
                                                                             "parameters": {"type": "object"}}}]
    text = types.SimpleNamespace(type="text", text="boom")
    assert agent.result_text(types.SimpleNamespace(content=[text], is_error=True)) == "Error: boom"
    assert agent.result_text(types.SimpleNamespace(content=[text], is_error=False)) == "boom"
    said = types.SimpleNamespace(type="text", text="Error: unknown error")
    assert agent.result_text(types.SimpleNamespace(content=[said], is_error=True)) == "Error: unknown error"


def test_mcp_agent_does_not_run_unparsable_arguments():
    agent = mcp_agent()

    class NoMcp:
        async def call_tool(self, *a):
            raise AssertionError("the tool must not be called")

    call = types.SimpleNamespace(function=types.SimpleNamespace(name="t", arguments="{bad"))
    assert asyncio.run(agent.run_tool(NoMcp(), call)).startswith("Error: invalid arguments: ")
    call.function.arguments = "[1]"
    assert asyncio.run(agent.run_tool(NoMcp(), call)) == "Error: invalid arguments: not a JSON object"


@pytest.mark.parametrize("module", [oab, pab])
def test_a_cancel_closes_what_the_framework_left_open(module):
    client = FakeClient()
    bridge = module.Bridge(client, SESSION)
    bridge.run.open_request = 2
    bridge.run.open_calls["c1"] = {"tool_call_id": "c1", "tool_name": "get_weather", "parallel_group_id": "pg-0-1"}
    asyncio.run(bridge._close_open())
    assert client.names() == ["provider:error", "tool:error"]
    assert client.events[0][1]["error"]["type"] == "cancelled" and client.events[0][1]["iteration"] == 2
    assert client.events[1][1]["tool_call_id"] == "c1" and client.events[1][1]["error"]["type"] == "cancelled"
    assert bridge.run.turns == 1 and bridge.run.open_request is None and bridge.run.open_calls == {}
    asyncio.run(bridge._close_open())
    assert len(client.events) == 2


@pytest.mark.parametrize("module", [oab, pab])
def test_a_sigint_while_prompt_submit_is_out_cancels_once_the_run_starts(module):
    client = FakeClient()
    bridge = module.Bridge(client, SESSION)

    async def go():
        bridge.in_execute = True
        bridge.on_sigint()  # prompt:submit is out: the SIGINT waits for its reply
        assert bridge.sigint_seen and bridge.task is None and not bridge.run.cancelled
        bridge._start_work()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.sleep(5)
        bridge.on_sigint()  # a second SIGINT: nothing more

    asyncio.run(go())
    bridge.events.shutdown(wait=True)
    assert client.names() == ["cancel:requested"] and bridge.run.cancelled


@pytest.mark.parametrize("module", [oab, pab])
def test_a_sigint_between_executes_or_after_the_answer_is_ignored(module):
    client = FakeClient()
    bridge = module.Bridge(client, SESSION)
    bridge.on_sigint()  # between executes
    assert not bridge.sigint_seen
    bridge.in_execute = True  # after the answer: task None again, the SIGINT is only noted
    bridge.on_sigint()
    bridge.events.shutdown(wait=True)
    assert client.names() == [] and not bridge.run.cancelled


def test_agents_a_call_is_closed_before_its_tool_post_goes_out():
    client = FakeClient()
    bridge = agents_bridge(client)
    open_at_post = []
    emit = client.emit

    def watch(event, data):
        if event == "tool:post":
            open_at_post.append(dict(bridge.run.open_calls))
        return emit(event, data)

    client.emit = watch
    asyncio.run(bridge._invoke("get_weather", "c1", '{"city":"Paris"}'))
    assert open_at_post == [{}]


def test_pydantic_stream_reports_the_text_a_part_starts_with():
    from pydantic_ai.messages import PartDeltaEvent, PartStartEvent, TextPart, TextPartDelta, ToolCallPart

    client = FakeClient()
    bridge = pydantic_bridge(client)

    async def events():
        yield PartStartEvent(index=0, part=TextPart("Che"))
        yield PartDeltaEvent(index=0, delta=TextPartDelta("cking both."))
        yield PartStartEvent(index=1, part=ToolCallPart("get_weather", "{}", "c1"))

    asyncio.run(bridge._stream_events(None, events()))
    assert [d["delta"] for e, d in client.events if e == "provider:stream"] == ["Che", "cking both."]


def test_pydantic_a_cancelled_request_leaves_its_reply_out_of_the_history():
    bridge = pydantic_bridge(FakeClient())
    bridge.run.messages = ["prompt", "calls", "results", "partial reply"]
    bridge.run.request_len = 3
    bridge.run.open_request = 2  # the request in flight was abandoned
    bridge._keep_history([], "hi", "hi")
    assert bridge.history == ["prompt", "calls", "results"]
    bridge.run.open_request = None  # the cancel came during a tool: everything stored stays
    bridge._keep_history([], "hi", "hi")
    assert bridge.history == ["prompt", "calls", "results", "partial reply"]


def test_agents_a_broken_stream_is_a_retryable_stream_error():
    client = FakeClient()
    bridge = agents_bridge(client)
    model = oab.ReportingModel(None, bridge)
    bridge.run.open_request = 1
    asyncio.run(model._failed(1, RuntimeError("the stream ended without response.completed"), in_stream=True))
    bridge.run.open_request = 2
    asyncio.run(model._failed(2, RuntimeError("bad reply")))
    (_, cut), (_, plain) = client.events
    assert cut["error"]["type"] == "stream_error" and cut["retryable"] is True
    assert plain["error"]["type"] == "malformed_response" and plain["retryable"] is False


class _Streams:
    """The Responses model's stream_response, as a list of events; the Runner stops reading at
    the first unsuccessful terminal event (it raises there and closes the generator)."""

    def __init__(self, events):
        self.events = events

    async def stream_response(self, *args, **kwargs):
        for e in self.events:
            yield e


@pytest.mark.parametrize("kind,error_type,retryable", [
    ("error", "stream_error", True),
    ("response.failed", "malformed_response", False),
    ("response.incomplete", "malformed_response", False),
])
def test_agents_an_unsuccessful_stream_event_is_reported_before_the_runner_stops(kind, error_type, retryable):
    client = FakeClient()
    bridge = agents_bridge(client)
    model = oab.ReportingModel(_Streams([types.SimpleNamespace(type=kind)]), bridge)

    async def runner_reads_until_the_failure():
        gen = model.stream_response(None, "hi", None, [], None, [], None)
        async for event in gen:
            if event.type == kind:
                await gen.aclose()
                return

    asyncio.run(runner_reads_until_the_failure())
    assert client.names() == ["provider:request", "provider:error"]
    error = client.events[1][1]
    assert error["error"]["type"] == error_type and error["retryable"] is retryable
    assert bridge.run.open_request is None


def test_pydantic_model_requires_a_finish_reason_and_a_broken_stream_is_retryable():
    bridge = pydantic_bridge(FakeClient(), streaming=True)
    assert bridge._agent().model.profile["openai_chat_streaming_requires_finish_reason"] is True
    fields = bridge.request_error(RuntimeError("Streamed response ended without a `finish_reason`"))
    assert fields["error"]["type"] == "stream_error" and fields["retryable"] is True
    assert pydantic_bridge(FakeClient()).request_error(RuntimeError("x"))["retryable"] is False


@pytest.mark.parametrize("module, limit", [(oab, oab.MaxTurnsExceeded("Max turns (2) exceeded")),
                                           (pab, pab.UsageLimitExceeded("The next request would exceed the request_limit of 2"))])
def test_how_a_run_exception_ends_the_execute(module, limit):
    """AsyncBridge._raised with the bridge's own limit exception: a deny, the iteration limit, and
    any other exception each end the execute their own way."""
    from ock_frameworks.common import Denied

    def ends(e):
        client = FakeClient()
        bridge = module.Bridge(client, SESSION)
        bridge.run.last_content = "last words"
        bridge.task = object()  # as while the run was cancellable
        asyncio.run(bridge._raised(e, type(limit)))
        bridge.events.shutdown(wait=True)
        assert bridge.task is None
        return [(ev, {k: v for k, v in d.items() if k in ("response", "status", "reason", "error")}) for ev, d in client.events]

    assert ends(Denied("policy")) == [("prompt:complete", {"response": "Denied: policy"}),
                                      ("orchestrator:complete", {"status": "incomplete", "reason": "denied"})]
    assert ends(limit) == [("prompt:complete", {"response": "last words"}),
                           ("orchestrator:complete", {"status": "incomplete", "reason": "max_iterations"})]
    out = ends(RuntimeError("boom"))
    assert [ev for ev, _ in out] == ["orchestrator:complete"]
    assert out[0][1]["status"] == "error" and out[0][1]["error"]["message"] == "boom"

def test_the_client_sends_events_without_lifecycle_fields(monkeypatch):
    """trace_id and stage are the lifecycle capability's fields (SPEC.md 1.3), which no Python
    bridge declares: an event carrying one is graded as that capability in use, undeclared."""
    from ock_frameworks.common import OckClient
    client, sent = OckClient("http://127.0.0.1:9"), []
    client.trace_id = "ock-1"
    monkeypatch.setattr(client, "_post", lambda path, body, timeout: (sent.append(body), (200, {"action": "continue"}))[1])
    assert client.emit("prompt:submit", {"prompt": "hi"}) == {"action": "continue"}
    assert sent == [{"event": "prompt:submit", "data": {"prompt": "hi"}}]
