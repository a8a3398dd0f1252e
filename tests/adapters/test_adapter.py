"""Unit tests of adapters/python/ock_adapter.py (stdlib unittest, no mock binary needed).

    python3 -m unittest discover -s tests/adapters

The pure parts (message conversion to the OpenAI and Anthropic wires, ToolResult text,
HookResult parsing, session parsing, argument parsing, stream accumulation, orchestrator
loading) are tested directly; one end-to-end test runs examples/basic_orchestrator_corrected.py
through run() against a tiny in-process stand-in for the mock.
"""

import contextlib
import http.server
import io
import json
import os
import signal
import sys
import tempfile
import threading
import unittest

sys.dont_write_bytecode = True
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "adapters", "python"))

import ock_adapter as oa  # noqa: E402


def session_doc(**over):
    doc = {"protocol": "ock/1", "scenario": "t", "trace_id": "ock-1", "prompts": ["hi"],
           "config": {"max_iterations": 3},
           "providers": [{"name": "p", "api": "openai", "base_url": "http://127.0.0.1:1/p/p/v1",
                          "model": "m", "priority": 1}],
           "tools": [{"name": "get_weather", "description": "d", "input_schema": {"type": "object"}}]}
    doc.update(over)
    return doc


class OpenAIMessages(unittest.TestCase):
    def test_user_and_text_assistant(self):
        wire = oa.messages_to_openai([{"role": "user", "content": "hi"},
                                      {"role": "assistant", "content": [{"type": "text", "text": "a"},
                                                                        {"type": "text", "text": "b"}]}])
        self.assertEqual(wire, [{"role": "user", "content": "hi"},
                                {"role": "assistant", "content": "a\nb"}])

    def test_tool_calls_in_the_shapes_loops_store(self):
        msg = {"role": "assistant", "content": [{"type": "text", "text": "Checking"},
                                                {"type": "tool_call", "id": "x", "name": "y", "input": {}}],
               "tool_calls": [{"id": "c1", "tool": "get_weather", "arguments": {"city": "Paris"}},
                              {"id": "c2", "name": "t2", "input": {"a": [1, 2]}},
                              {"id": "c3", "type": "function", "function": {"name": "t3", "arguments": "{\"z\": 1}"}},
                              {"id": "c4", "name": "t4", "arguments": "{not json"}]}
        (wire,) = oa.messages_to_openai([msg])
        self.assertEqual(wire["content"], "Checking")  # the text of text blocks only
        # A tool_call content block whose id no tool_calls entry has is a call too: it goes last.
        self.assertEqual(wire["tool_calls"], [
            {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}},
            {"id": "c2", "type": "function", "function": {"name": "t2", "arguments": "{\"a\":[1,2]}"}},
            {"id": "c3", "type": "function", "function": {"name": "t3", "arguments": "{\"z\": 1}"}},
            {"id": "c4", "type": "function", "function": {"name": "t4", "arguments": "{not json"}},
            {"id": "x", "type": "function", "function": {"name": "y", "arguments": "{}"}}])

    def test_calls_stored_only_as_content_blocks_reach_the_wire(self):
        # Amplifier providers put every call in content as a tool_call block; a loop that stores
        # only the blocks (loop-basic's max-iterations reply) still made the call, and the
        # provider must see it, with no result after it: the orphan is not hidden.
        msgs = [{"role": "user", "content": "q"},
                {"role": "assistant", "content": [
                    {"type": "text", "text": "Let me look"},
                    {"type": "tool_call", "id": "call_1", "name": "get_weather", "input": {"city": "Paris"}}]},
                {"role": "user", "content": "and?"}]
        wire = oa.messages_to_openai(msgs)
        self.assertEqual(wire[1], {"role": "assistant", "content": "Let me look", "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]})
        _, awire = oa.messages_to_anthropic(msgs)
        self.assertEqual(awire[1]["content"][1],
                         {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "Paris"}})
        # A block that repeats a tool_calls entry (same id) is not sent twice.
        dup = {"role": "assistant", "content": [{"type": "tool_call", "id": "c1", "name": "t", "input": {}}],
               "tool_calls": [{"id": "c1", "tool": "t", "arguments": {}}]}
        self.assertEqual(len(oa.messages_to_openai([dup])[0]["tool_calls"]), 1)

    def test_calls_without_text_have_null_content(self):
        (wire,) = oa.messages_to_openai([{"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "name": "t", "arguments": {}}]}])
        self.assertIsNone(wire["content"])
        self.assertEqual(wire["tool_calls"][0]["function"]["arguments"], "{}")

    def test_nothing_is_repaired(self):
        # The faithful example stores the assistant message without its calls: it stays so.
        msgs = [{"role": "user", "content": "q"}, {"role": "assistant", "content": []},
                {"role": "tool", "tool_call_id": "c1", "content": "15 degrees"}]
        self.assertEqual(oa.messages_to_openai(msgs), [
            {"role": "user", "content": "q"}, {"role": "assistant", "content": ""},
            {"role": "tool", "tool_call_id": "c1", "content": "15 degrees"}])

    def test_tool_content_that_is_not_a_string(self):
        (wire,) = oa.messages_to_openai([{"role": "tool", "tool_call_id": "c", "content": {"a": 1}}])
        self.assertEqual(wire["content"], "{\"a\":1}")


class AnthropicMessages(unittest.TestCase):
    def test_system_calls_and_grouped_results(self):
        system, wire = oa.messages_to_anthropic([
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": "x", "tool_calls": [
                {"id": "a", "name": "t", "arguments": {"k": 1}}, {"id": "b", "name": "t", "arguments": "[1]"}]},
            {"role": "tool", "tool_call_id": "a", "content": "r1"},
            {"role": "tool", "tool_call_id": "b", "content": "r2"},
            {"role": "user", "content": "more"}])
        self.assertEqual(system, "be brief")
        self.assertEqual(wire[1], {"role": "assistant", "content": [
            {"type": "text", "text": "x"},
            {"type": "tool_use", "id": "a", "name": "t", "input": {"k": 1}},
            {"type": "tool_use", "id": "b", "name": "t", "input": {}}]})
        self.assertEqual(wire[2], {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "a", "content": "r1"},
            {"type": "tool_result", "tool_use_id": "b", "content": "r2"}]})
        self.assertEqual(wire[3], {"role": "user", "content": "more"})


class ToolResultText(unittest.TestCase):
    def text(self, **kw):
        return oa.ToolResult.from_dict(kw).get_serialized_output()

    def test_amplifier_serialisation(self):
        self.assertEqual(self.text(success=True, output="15 degrees", error=None), "15 degrees")
        self.assertEqual(self.text(success=True, output={"t": 15, "u": "C"}), '{"t": 15, "u": "C"}')
        self.assertEqual(self.text(success=True, output=[1, 2]), "[1, 2]")
        self.assertEqual(self.text(success=True, output=15), "15")
        self.assertEqual(self.text(success=True, output=None), "Success")
        # The four failure cases, as amplifier-core 2.0.2's ToolResult gives them (tests/adapters/
        # hosts/test_amplifier_host.py compares these with the real class): a message is copied
        # into output, so it is the whole text.
        self.assertEqual(self.text(success=False, output=None, error={"type": "x", "message": "down"}), "down")
        self.assertEqual(self.text(success=False, error={"type": "x"}), "Error: Unknown error")
        self.assertEqual(self.text(success=False), "Error: Failed")
        self.assertEqual(self.text(success=False, error={}), "Error: Failed")
        self.assertEqual(self.text(success=True, output="a\x85b"), "ab")
        self.assertEqual(self.text(success=False, output="partial", error={"message": "m"}), "partial")
        self.assertEqual(self.text(success=True, output="a\x00b\x1bc\td"), "abc\td")

    def test_body_kept_unchanged(self):
        body = {"success": False, "output": None, "error": {"type": "u", "message": "m"}, "extra": 1}
        r = oa.ToolResult.from_dict(body)
        self.assertEqual(r.to_dict(), body)
        self.assertEqual(json.loads(oa.dumps({"result": r})), {"result": body})
        self.assertTrue(oa.ToolResult.is_tool_result(body))
        self.assertFalse(oa.ToolResult.is_tool_result({"output": "x"}))


class HookResults(unittest.TestCase):
    def test_replies(self):
        r = oa.HookResult.from_reply({"action": "deny", "reason": "Cost"})
        self.assertEqual((r.action, r.reason), ("deny", "Cost"))
        r = oa.HookResult.from_reply({"action": "inject_context", "context_injection": "x"})
        self.assertEqual((r.context_injection_role, r.ephemeral), ("system", False))
        r = oa.HookResult.from_reply({"action": "modify", "data": {"tool_input": {"a": 1}}, "zz": 1})
        self.assertEqual(r.data, {"tool_input": {"a": 1}})
        self.assertEqual(r.extra, {"zz": 1})

    def test_unusable_replies_are_continue(self):
        for reply in ({"action": "explode"}, [], "x", None, {"reason": "r"}):
            r = oa.HookResult.from_reply(reply)
            self.assertEqual(r.action, "continue")
            self.assertEqual(r.raw, reply)


class Sessions(unittest.TestCase):
    def test_valid(self):
        s = oa.parse_session(json.dumps(session_doc()).encode())
        self.assertEqual((s.trace_id, s.prompts, s.config["max_iterations"]), ("ock-1", ["hi"], 3))
        self.assertEqual(s.providers[0]["name"], "p")
        self.assertEqual(s.tools[0]["name"], "get_weather")

    def test_empty_providers_are_valid(self):
        self.assertEqual(oa.parse_session(session_doc(providers=[])).providers, [])

    def test_errors(self):
        bad = [b"not json", [], session_doc(protocol="ock/2"), session_doc(prompts="hi"),
               session_doc(prompts=[1]), session_doc(config=[]),
               session_doc(providers=[{"name": "p", "api": "gemini", "base_url": "u", "model": "m"}]),
               session_doc(providers=[{"name": "p", "api": "openai", "model": "m"}]),
               session_doc(tools=[{"description": "no name"}])]
        for doc in bad:
            with self.assertRaises(oa.SessionError, msg=repr(doc)):
                oa.parse_session(doc)


class Arguments(unittest.TestCase):
    def test_parse(self):
        self.assertEqual(oa.parse_arguments(""), {})
        self.assertEqual(oa.parse_arguments("  "), {})
        self.assertEqual(oa.parse_arguments('{"a": 1}'), {"a": 1})
        self.assertEqual(oa.parse_arguments("[1]"), "[1]")
        self.assertEqual(oa.parse_arguments("{bad"), "{bad")
        self.assertEqual(oa.parse_arguments({"a": 1}), {"a": 1})


class Providers(unittest.TestCase):
    def setUp(self):
        self.p = oa.make_provider(session_doc()["providers"][0], trace_id="ock-1")

    def test_request_body(self):
        body = self.p.build_request({"messages": [{"role": "user", "content": "q"}]})
        self.assertEqual(body, {"model": "m", "messages": [{"role": "user", "content": "q"}], "stream": False})
        tool = oa.OckTool(session_doc()["tools"][0], "http://x")
        body = self.p.build_request({"messages": [], "tools": [tool]}, stream=True)
        self.assertEqual(body["tools"], [{"type": "function", "function": {
            "name": "get_weather", "description": "d", "parameters": {"type": "object"}}}])
        self.assertTrue(body["stream"])

    def test_response(self):
        resp = self.p.parse_response({"id": "x", "choices": [{"message": {"role": "assistant", "content": None,
            "tool_calls": [{"id": "c", "type": "function", "function": {"name": "t", "arguments": "{\"a\":1}"}}]},
            "finish_reason": "tool_calls"}], "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}})
        self.assertEqual(resp["content"], [])
        self.assertEqual(resp["text"], "")
        self.assertEqual(resp["finish_reason"], "tool_calls")
        self.assertEqual(resp["tool_calls"], [{"id": "c", "name": "t", "arguments": {"a": 1}}])
        self.assertEqual(self.p.parse_tool_calls(resp), [{"id": "c", "name": "t", "arguments": {"a": 1}, "input": {"a": 1}}])

    def test_openai_stream_accumulation(self):
        acc = self.p._stream_state()
        chunks = [{"choices": [{"delta": {"role": "assistant", "content": ""}}]},
                  {"choices": [{"delta": {"content": "Hel"}}]},
                  {"choices": [{"delta": {"content": "lo"}}]},
                  {"choices": [{"delta": {"tool_calls": [{"index": 0, "id": "c", "type": "function",
                                                          "function": {"name": "t", "arguments": ""}}]}}]},
                  {"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{\"a\":"}}]}}]},
                  {"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": "1}"}}]}}]},
                  {"choices": [{"delta": {}, "finish_reason": "tool_calls"}]}]
        out = []
        for c in chunks:
            out += self.p._stream_event(acc, None, json.dumps(c))
        self.p._stream_event(acc, None, "[DONE]")
        self.assertTrue(acc["done"])
        self.assertEqual([o["delta"] for o in out if o["type"] == "text_delta"], ["Hel", "lo"])
        resp = self.p._stream_response(acc)
        self.assertEqual(resp["text"], "Hello")
        self.assertEqual(resp["tool_calls"], [{"id": "c", "name": "t", "arguments": {"a": 1}}])
        with self.assertRaises(oa.ProviderError) as cm:
            self.p._stream_event(acc, None, "{broken")
        self.assertEqual((cm.exception.type, cm.exception.retryable), ("stream_error", True))

    def test_sse_event_lines(self):
        self.assertEqual(oa._sse_events(["event: message_stop", 'data: {"type":"message_stop"}']),
                         ("message_stop", '{"type":"message_stop"}'))
        self.assertEqual(oa._sse_events([": comment", "data: a", "data: b"]), (None, "a\nb"))

    def test_ledger_gives_the_call_id(self):
        ledger = oa._CallLedger()
        ledger.issue([{"id": "c1", "name": "t", "arguments": {"a": 1}}, {"id": "c2", "name": "t", "arguments": {"a": 2}}])
        self.assertEqual(ledger.claim("t", {"a": 2}), "c2")
        self.assertEqual(ledger.claim("t", {"a": 9}), "c1")
        self.assertIsNone(ledger.claim("t", {"a": 1}))


class Loading(unittest.TestCase):
    def test_first_class_with_async_execute(self):
        src = ("from amplifier_core.models import HookResult\n"
               "class Helper:\n    def execute(self): pass\n"
               "class First:\n    def __init__(self, config): self.config = config\n"
               "    async def execute(self, prompt, context, providers, tools, hooks): return prompt\n"
               "class Second(First): pass\n")
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "my_orch.py")
            with open(path, "w") as f:
                f.write(src)
            self.assertEqual(oa.load_orchestrator(path).__name__, "First")
            self.assertEqual(oa.load_orchestrator(path, "Second").__name__, "Second")
            with self.assertRaises(ImportError):
                oa.load_orchestrator(path, "Helper")


class _StandIn(http.server.BaseHTTPRequestHandler):
    """Just enough of the mock: a session, events, one tool and a two-turn OpenAI script."""
    server_version = "standin"

    def log_message(self, *args):
        pass

    def _send(self, obj, status=200):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._send(session_doc(prompts=["What is the weather?", "   "], providers=[
            {"name": "p", "api": "openai", "base_url": base + "/p/p/v1", "model": "m", "priority": 1}]))

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        log = self.server.log
        if self.path == "/ock/v1/events":
            log.append(("event", body["event"], body["data"]))
            return self._send({"action": "continue"})
        if self.path.startswith("/ock/v1/tools/"):
            log.append(("tool", self.path.rsplit("/", 1)[1], body))
            return self._send({"success": True, "output": {"t": 15}, "error": None})
        log.append(("llm", body))
        if len([e for e in log if e[0] == "llm"]) == 1:
            msg = {"role": "assistant", "content": None, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}},
                {"id": "c2", "type": "function", "function": {"name": "nope", "arguments": "{}"}}]}
        else:
            msg = {"role": "assistant", "content": "15 degrees"}
        self._send({"id": "x", "choices": [{"index": 0, "message": msg, "finish_reason": "stop"}]})


class EndToEnd(unittest.TestCase):
    def test_corrected_example_through_run(self):
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _StandIn)
        server.log = []
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            cls = oa.load_orchestrator(os.path.join(ROOT, "examples", "basic_orchestrator_corrected.py"))
            previous = signal.getsignal(signal.SIGINT)
            with open(os.devnull, "w") as out, contextlib.redirect_stderr(io.StringIO()) as err:
                rc = oa.run(cls, f"http://127.0.0.1:{server.server_address[1]}", out=out)
        finally:
            signal.signal(signal.SIGINT, previous)  # run() leaves SIGINT ignored, as a SUT must
            server.shutdown()
            server.server_close()
        self.assertIn("2 prompt(s)", err.getvalue())
        self.assertEqual(rc, 0)
        events = [e[1] for e in server.log if e[0] == "event"]
        self.assertEqual(events, [
            "prompt:submit", "provider:request", "provider:response", "tool:pre", "tool:post",
            "tool:pre", "tool:error", "provider:request", "provider:response", "prompt:complete",
            "orchestrator:complete", "prompt:submit", "orchestrator:complete"])
        tool = [e for e in server.log if e[0] == "tool"]
        self.assertEqual(tool, [("tool", "get_weather", {"tool_call_id": "c1", "input": {"city": "Paris"}})])
        second = [e[1] for e in server.log if e[0] == "llm"][1]["messages"]
        self.assertEqual(second[-2:], [{"role": "tool", "tool_call_id": "c1", "content": "{\"t\":15}"},
                                      {"role": "tool", "tool_call_id": "c2", "content": "Error: tool 'nope' not found"}])
        done = [e[2] for e in server.log if e[0] == "event" and e[1] == "orchestrator:complete"]
        self.assertEqual([(d["status"], d["turn_count"]) for d in done], [("success", 2), ("error", 0)])
        self.assertEqual(done[1]["error"]["type"], "invalid_input")


if __name__ == "__main__":
    unittest.main()
