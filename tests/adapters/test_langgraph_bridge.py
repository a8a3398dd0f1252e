"""Unit tests of the LangGraph bridge (adapters/python/ock_frameworks/langgraph_bridge.py): its
streaming wrapper, its tool hook (sequential when parallel_tools is false), the cancel path's
repair of the thread's state, and a cancelled graph run end to end, with a recording stand-in for
the ock/1 client and a scripted model in place of the HTTP request. No network.
"""
from __future__ import annotations

import asyncio
import threading
import time
import types
import unittest

try:  # the framework lives in the virtualenv make builds (build/venv), where make test runs pytest
    import langgraph  # noqa: F401
except ImportError as e:  # python3 -m unittest outside it
    raise unittest.SkipTest(f"{e.name} is not installed here: these tests run in build/venv") from e

import pytest
from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage, RemoveMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult

from ock_frameworks import langgraph_bridge as lgb
from ock_frameworks.common import Denied

TOOLS = [{"name": "get_weather", "input_schema": {"type": "object"}},
         {"name": "fetch_report", "input_schema": {"type": "object"}}]


def session(**config):
    return {"trace_id": "ock-1", "prompts": ["hi"], "tools": TOOLS,
            "config": {"tool_timeout_ms": 1000, "parallel_tools": True, **config},
            "providers": [{"name": "primary", "model": "m", "base_url": "http://127.0.0.1:9/v1", "api": "openai"}]}


class FakeClient:
    """The ock/1 client's surface the bridge uses: emit records (thread-safe), replies come from
    `replies`; call_tool records start and end times and waits `delay[name]` seconds."""

    def __init__(self, replies=None, delay=None):
        self.trace_id = "ock-1"
        self.events: list[tuple[str, dict]] = []
        self.replies = replies or {}
        self.delay = delay or {}
        self.spans: list[tuple[str, float, float]] = []
        self.lock = threading.Lock()

    def emit(self, event, data):
        with self.lock:
            self.events.append((event, data))
        return self.replies.get(event, {"action": "continue"})

    @staticmethod
    def denies(reply):
        return reply.get("action") in ("deny", "ask_user")

    def call_tool(self, name, call_id, tool_input, timeout_ms):
        start = time.monotonic()
        time.sleep(self.delay.get(name, 0))
        with self.lock:
            self.spans.append((call_id, start, time.monotonic()))
        return {"success": True, "output": f"{name} done"}

    def names(self):
        return [e for e, _ in self.events]


def bridge_of(client=None, **config):
    return lgb.Bridge(client or FakeClient(), session(**config))


def call(call_id, name="get_weather", args=None):
    return {"id": call_id, "name": name, "args": args if args is not None else {"city": "Paris"}, "type": "tool_call"}


# ---- the cancel path's repair -----------------------------------------------------------------

def test_repair_answers_every_call_of_the_round_and_closes():
    prompt = [HumanMessage("hi")]
    new = [HumanMessage("hi"), AIMessage("", tool_calls=[call("c1"), call("c2", "fetch_report")])]
    out = lgb.repair(new, prompt, None, {"c1": "sunny"})
    assert [(type(m).__name__, m.content) for m in out] == [
        ("ToolMessage", "sunny"), ("ToolMessage", "Error: cancelled"), ("AIMessage", lgb.CANCELLED_TEXT)]
    assert [m.tool_call_id for m in out[:2]] == ["c1", "c2"]


def test_repair_keeps_results_the_checkpoint_has_and_adds_the_rest_in_call_order():
    new = [HumanMessage("hi"), AIMessage("", tool_calls=[call("c1"), call("c2")]),
           ToolMessage("stored", tool_call_id="c1")]
    out = lgb.repair(new, [], None, {"c1": "stored", "c2": "late"})
    assert [(m.tool_call_id, m.content) for m in out if isinstance(m, ToolMessage)] == [("c2", "late")]


def test_repair_removes_a_final_answer_the_user_never_got():
    new = [HumanMessage("hi"), AIMessage("15 degrees", id="a1", response_metadata={"finish_reason": "stop"})]
    out = lgb.repair(new, [], None, {})
    assert isinstance(out[0], RemoveMessage) and out[0].id == "a1"
    assert out[1].content == lgb.CANCELLED_TEXT and len(out) == 2
    injected = [HumanMessage("hi"), AIMessage("a kept injection", id="i1")]  # no finish_reason: stays
    assert [m.content for m in lgb.repair(injected, [], None, {})] == [lgb.CANCELLED_TEXT]


def test_repair_stores_the_prompt_when_langgraph_had_not():
    prompt = [HumanMessage("hi")]
    out = lgb.repair([], prompt, None, {})
    assert [type(m).__name__ for m in out] == ["HumanMessage", "AIMessage"]
    assert out[0] is prompt[0] and out[1].content == lgb.CANCELLED_TEXT


def test_repair_stores_a_reported_reply_the_node_did_not_finish_storing():
    reply = AIMessage("", tool_calls=[call("c1")])
    out = lgb.repair([HumanMessage("hi")], [], reply, {})
    assert isinstance(out[0], AIMessage) and [c["id"] for c in out[0].tool_calls] == ["c1"]
    assert out[1].tool_call_id == "c1" and out[1].content == "Error: cancelled"
    assert out[2].content == lgb.CANCELLED_TEXT


# ---- the model wrappers -----------------------------------------------------------------------

def chunk(text="", finish=None, tool_chunks=None):
    msg = AIMessageChunk(content=text, tool_call_chunks=tool_chunks or [])
    return ChatGenerationChunk(message=msg, generation_info={"finish_reason": finish} if finish else None)


async def drain(bridge, chunks, error=None):
    async def stream(messages, stop=None, run_manager=None, **kwargs):
        for c in chunks:
            yield c
        if error is not None:
            raise error

    return [c async for c in bridge._astream(stream, [HumanMessage("hi")], None, None)]


def test_stream_reports_each_text_chunk_then_the_whole_reply():
    client = FakeClient()
    bridge = bridge_of(client, streaming=True)
    tool = [{"name": "get_weather", "args": '{"city":', "id": "c1", "index": 0}]
    more = [{"name": None, "args": '"Paris"}', "id": None, "index": 0}]
    asyncio.run(drain(bridge, [chunk("It is "), chunk("sunny", tool_chunks=tool), chunk(tool_chunks=more),
                               chunk(finish="tool_calls")]))
    assert client.names() == ["provider:request", "provider:stream", "provider:stream", "provider:response"]
    assert [d["delta"] for e, d in client.events if e == "provider:stream"] == ["It is ", "sunny"]
    response = client.events[-1][1]
    assert response["content"] == "It is sunny" and response["finish_reason"] == "tool_calls"
    assert response["tool_calls"] == [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]
    assert bridge.run.open_request is None and bridge.run.turns == 1


def test_a_stream_that_just_stops_is_reported_as_langchain_takes_it():
    # langchain-openai takes a stream without a finish_reason as the whole reply; the bridge
    # reports that (provider:response, finish_reason "unknown"), it does not correct the framework
    client = FakeClient()
    bridge = bridge_of(client, streaming=True)
    asyncio.run(drain(bridge, [chunk("It is ")]))
    assert client.names() == ["provider:request", "provider:stream", "provider:response"]
    response = client.events[-1][1]
    assert response["content"] == "It is " and response["finish_reason"] == "unknown"


def test_a_stream_that_breaks_is_a_stream_error_not_a_response():
    client = FakeClient()
    bridge = bridge_of(client, streaming=True)
    with pytest.raises(ValueError):
        asyncio.run(drain(bridge, [chunk("It")], error=ValueError("bad chunk")))
    assert "provider:response" not in client.names()
    assert client.events[-1][1]["error"] == {"type": "stream_error", "message": "bad chunk"}


def test_a_denied_request_is_not_sent():
    client = FakeClient({"provider:request": {"action": "deny", "reason": "no"}})
    bridge = bridge_of(client)

    async def generate(*a, **kw):
        raise AssertionError("the request must not be sent")

    with pytest.raises(Denied):
        asyncio.run(bridge._agenerate(generate, [HumanMessage("hi")], None, None))
    assert client.names() == ["provider:request"] and bridge.run.open_request is None


def test_a_plain_request_reports_its_reply():
    client = FakeClient()
    bridge = bridge_of(client)

    async def generate(messages, stop=None, run_manager=None, **kw):
        msg = AIMessage("15 degrees", response_metadata={"finish_reason": "stop"})
        return ChatResult(generations=[ChatGeneration(message=msg)])

    asyncio.run(bridge._agenerate(generate, [HumanMessage("hi")], None, None))
    assert client.names() == ["provider:request", "provider:response"]
    assert client.events[1][1]["content"] == "15 degrees" and client.events[1][1]["finish_reason"] == "stop"


# ---- the tool hook ----------------------------------------------------------------------------

def request_of(c, known=True):
    return types.SimpleNamespace(tool_call=c, tool=object() if known else None)


def test_a_call_runs_at_the_endpoint_and_its_result_is_kept():
    client = FakeClient()
    bridge = bridge_of(client)
    msg = asyncio.run(bridge._awrap_tool_call(request_of(call("c1")), None))
    assert msg.content == "get_weather done" and msg.tool_call_id == "c1"
    assert client.names() == ["tool:pre", "tool:post"]
    assert bridge.run.results == {"c1": "get_weather done"} and bridge.run.open_calls == {}


def test_an_unknown_tool_and_a_denied_call_are_answered_without_the_endpoint():
    client = FakeClient()
    bridge = bridge_of(client)
    msg = asyncio.run(bridge._awrap_tool_call(request_of(call("c1", "nope"), known=False), None))
    assert msg.content == "Error: tool 'nope' not found"
    denier = FakeClient({"tool:pre": {"action": "deny", "reason": "no"}})
    msg = asyncio.run(bridge_of(denier)._awrap_tool_call(request_of(call("c2")), None))
    assert msg.content == "Error: denied: no"
    assert client.spans == [] and denier.spans == []
    errors = [d["error"]["type"] for e, d in client.events + denier.events if e == "tool:error"]
    assert errors == ["not_found", "denied"]


@pytest.mark.parametrize("parallel", [True, False])
def test_the_calls_of_one_message_overlap_only_with_parallel_tools(parallel):
    client = FakeClient(delay={"get_weather": 0.2, "fetch_report": 0.2})
    bridge = bridge_of(client, parallel_tools=parallel)

    async def round_():
        return await asyncio.gather(bridge._awrap_tool_call(request_of(call("c1")), None),
                                    bridge._awrap_tool_call(request_of(call("c2", "fetch_report")), None))

    asyncio.run(round_())
    (a, a0, a1), (b, b0, b1) = sorted(client.spans, key=lambda s: s[1])
    assert (b0 < a1) is parallel
    if not parallel:
        assert (a, b) == ("c1", "c2")
        assert client.names() == ["tool:pre", "tool:post", "tool:pre", "tool:post"]


def test_a_call_cancelled_at_the_endpoint_stays_open_for_the_cancel_path():
    client = FakeClient(delay={"fetch_report": 2})
    bridge = bridge_of(client)

    async def go():
        task = asyncio.ensure_future(bridge._awrap_tool_call(request_of(call("c1", "fetch_report")), None))
        await asyncio.sleep(0.2)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert list(bridge.run.open_calls) == ["c1"]
        await bridge._close_open()

    start = time.monotonic()
    asyncio.run(go())
    assert time.monotonic() - start < 1.5  # the endpoint's reply is not waited for
    assert client.names() == ["tool:pre", "tool:error"]
    assert client.events[-1][1]["error"]["type"] == "cancelled" and "c1" not in bridge.run.results


def test_an_unparsable_call_is_answered_after_the_reply_and_a_modify_runs_it():
    client = FakeClient()
    bridge = bridge_of(client)
    bad = {"id": "c1", "name": "get_weather", "args": "{broken", "error": "x", "type": "invalid_tool_call"}
    state = {"messages": [AIMessage("", invalid_tool_calls=[bad])]}
    out = asyncio.run(bridge._post_model_hook(state))["messages"]
    assert out[0].content == "Error: invalid arguments: not valid JSON: {broken" and client.spans == []
    fixer = FakeClient({"tool:pre": {"action": "modify", "data": {"tool_input": {"city": "Oslo"}}}})
    out = asyncio.run(bridge_of(fixer)._post_model_hook(state))["messages"]
    assert out[0].content == "get_weather done" and [s[0] for s in fixer.spans] == ["c1"]


# ---- a cancelled graph run, end to end --------------------------------------------------------

def scripted_bridge(client, replies, **config):
    """The bridge with its ChatOpenAI's request replaced by the scripted replies (no HTTP)."""
    bridge = bridge_of(client, **config)
    script = list(replies)
    seen: list[list] = []

    class Scripted(lgb.ChatOpenAI):
        async def _agenerate(self, messages, stop=None, run_manager=None, **kwargs):
            async def generate(sent, stop=None, run_manager=None, **kw):
                seen.append(list(sent))
                return ChatResult(generations=[ChatGeneration(message=script.pop(0))])

            return await bridge._agenerate(generate, messages, stop, run_manager, **kwargs)

    bridge._model = lambda: Scripted(model="m", api_key="k", base_url="http://127.0.0.1:9/v1")
    return bridge, seen


def test_a_cancel_during_a_tool_round_leaves_a_valid_history_for_the_next_prompt():
    """The finished call's result is a pending write of a super-step the cancel cut short:
    LangGraph's live state shows it, aupdate_state drops it; the next request must carry it."""
    client = FakeClient(delay={"fetch_report": 1})
    calls = [call("c1"), call("c2", "fetch_report")]
    bridge, seen = scripted_bridge(client, [
        AIMessage("", tool_calls=calls, response_metadata={"finish_reason": "tool_calls"}),
        AIMessage("20 degrees", response_metadata={"finish_reason": "stop"})])

    async def go():
        first = asyncio.create_task(bridge.execute("weather and report"))
        while not any(e == "tool:post" for e, _ in client.events):
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)
        bridge.on_sigint()
        await first
        await bridge.execute("just the weather")

    asyncio.run(go())
    bridge.events.shutdown(wait=True)
    names = client.names()
    assert names.count("cancel:requested") == 1 and names.count("cancel:completed") == 1
    completes = [d["status"] for e, d in client.events if e == "orchestrator:complete"]
    assert completes == ["cancelled", "success"]
    history = [(type(m).__name__, m.content, getattr(m, "tool_call_id", None)) for m in seen[1]]
    assert history == [("HumanMessage", "weather and report", None), ("AIMessage", "", None),
                       ("ToolMessage", "get_weather done", "c1"), ("ToolMessage", "Error: cancelled", "c2"),
                       ("AIMessage", lgb.CANCELLED_TEXT, None), ("HumanMessage", "just the weather", None)]


def test_the_calls_of_a_reply_cut_at_the_token_limit_are_answered_not_run():
    """SPEC.md 5.8: a reply that stopped at the output token limit has cut arguments, though
    they parse; the post_model_hook answers its calls (raw text, tool:error invalid_arguments),
    so the ToolNode never runs them, and the next request carries their results."""
    client = FakeClient()
    cut = AIMessage("", tool_calls=[call("c1", args={"city": "Par"})],
                    additional_kwargs={"tool_calls": [{"id": "c1", "type": "function",
                                                       "function": {"name": "get_weather", "arguments": '{"city": "Par'}}]},
                    response_metadata={"finish_reason": "length"})
    bridge, seen = scripted_bridge(client, [cut, AIMessage("sorry", response_metadata={"finish_reason": "stop"})])
    asyncio.run(bridge.execute("weather"))
    bridge.events.shutdown(wait=True)
    assert client.spans == [], "the tools endpoint was called for a cut call"
    pre = [d for e, d in client.events if e == "tool:pre"]
    err = [d for e, d in client.events if e == "tool:error"]
    assert [d["tool_input"] for d in pre] == ['{"city": "Par']
    assert [d["error"]["type"] for d in err] == ["invalid_arguments"]
    results = [m.content for m in seen[1] if isinstance(m, ToolMessage)]
    assert len(results) == 1 and results[0].startswith("Error: invalid arguments: ")


def test_rounds_only_the_post_model_hook_answers_stop_at_max_iterations_model_calls():
    """A round of unparsable calls has no ToolNode superstep, so the recursion limit alone would
    let the graph call the model past max_iterations (OCK-ITER-001)."""
    client = FakeClient()
    bad = lambda i: AIMessage("", invalid_tool_calls=[{"id": f"c{i}", "name": "get_weather", "args": "{bad",
                                                         "error": "x", "type": "invalid_tool_call"}],
                              response_metadata={"finish_reason": "tool_calls"})
    bridge, seen = scripted_bridge(client, [bad(i) for i in range(6)], max_iterations=2)
    asyncio.run(bridge.execute("weather"))
    bridge.events.shutdown(wait=True)
    assert client.names().count("provider:request") == 2 and len(seen) == 2
    done = [d for e, d in client.events if e == "orchestrator:complete"][-1]
    assert done["status"] == "incomplete" and done["reason"] == "max_iterations"


def test_graph_recursion_error_ends_the_execute_incomplete_max_iterations():
    """AsyncBridge._raised with GraphRecursionError, the LangGraph bridge's limit exception; an
    exception of another class is an error, not the limit."""
    limit = (lgb.GraphRecursionError("Recursion limit of 30 reached"), {"status": "incomplete", "reason": "max_iterations"},
             ["prompt:complete", "orchestrator:complete"])
    other = (ValueError("boom"), {"status": "error"}, ["orchestrator:complete"])
    for e, want, names in (limit, other):
        client = FakeClient()
        bridge = bridge_of(client)
        bridge.run.last_content = "last words"
        asyncio.run(bridge._raised(e, lgb.GraphRecursionError))
        bridge.events.shutdown(wait=True)
        done = client.events[-1][1]
        assert client.events[-1][0] == "orchestrator:complete"
        assert {k: done[k] for k in want} == want
        assert client.names() == names
        if names[0] == "prompt:complete":
            assert client.events[0][1]["response"] == "last words"
