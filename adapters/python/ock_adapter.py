#!/usr/bin/env python3
"""ock_adapter: run an Amplifier-style Python orchestrator under the OCK SUT protocol ock/1.

One stdlib-only file (Python 3.11+), for orchestrators that need no framework: replies are plain
dicts. An Amplifier module written against amplifier-core (ChatResponse attributes, the
coordinator, its HookRegistry) runs under `ock-amplifier` instead (ock_hosts/amplifier.py).
Copy this file next to your orchestrator, or run it from here:

    python3 ock_adapter.py path/to/orchestrator.py [ClassName] [--config JSON]

or, from your own code:

    from ock_adapter import run
    raise SystemExit(run(MyOrchestrator))

What it does (SPEC.md section 7): it fetches `$OCK_URL/ock/v1/session`, builds the objects an
Amplifier orchestrator's `execute(prompt, context, providers, tools, hooks)` expects, and calls
`execute()` once per session prompt, in order, with one context kept across them:

- providers: one per session provider, speaking the OpenAI Chat Completions wire (or the
  Anthropic Messages wire) to the mock. `await provider.complete(request)` returns an
  Amplifier-like ChatResponse dict; `provider.parse_tool_calls(response)` its tool calls;
  `provider.stream_complete(request)` is an async iterator of delta chunks whose last item is
  the ChatResponse (server-sent events). Errors raise `ProviderError`.
- tools: one per session tool; `await tool.execute(input, tool_call_id=None, timeout=None)`
  POSTs `$OCK_URL/ock/v1/tools/{name}` and returns a `ToolResult`. An endpoint failure raises
  `ToolEndpointError` (a timeout: `ToolTimeoutError`).
- hooks: `await hooks.emit(event, data)` POSTs `$OCK_URL/ock/v1/events` with exactly
  `{"event": event, "data": data}` and returns the mock's reply as a `HookResult`.
- context: an in-memory message list (`add_message`, `get_messages`,
  `get_messages_for_request`, `set_messages`, `clear`).

The adapter never emits an event, never adds a message or a tool result, never retries and
never repairs a history: what OCK grades is what the orchestrator did. An exception escaping
`execute()` is printed to stderr and the next prompt runs. SIGINT cancels the running
`execute()` task (once per execute; later SIGINTs of that execute and SIGINTs between executes
are ignored). After the last prompt the process exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import copy
import http.client
import importlib.util
import inspect
import json
import os
import re
import signal
import socket
import sys
import threading
import traceback
import types
import urllib.parse
from typing import Any, AsyncIterator, Callable

__all__ = [
    "run", "load_orchestrator", "parse_session", "Session", "SessionError",
    "OpenAIProvider", "AnthropicProvider", "ProviderError",
    "OckTool", "ToolResult", "ToolEndpointError", "ToolTimeoutError", "tool_call_id_var",
    "OckHooks", "HookResult", "InMemoryContext",
    "messages_to_openai", "messages_to_anthropic", "assistant_calls", "tool_specs", "parse_arguments",
]

ADAPTER_VERSION = "0.1.0"
PROTOCOL = "ock/1"

#: HTTP statuses SPEC.md section 5.7 calls retryable (the adapter never retries by itself).
RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504, 529})

#: The session of the running adapter (None before it is fetched), for orchestrators that want
#: more than the config: `ock_adapter.SESSION.trace_id`, `.scenario`, `.providers`, `.tools`.
SESSION: "Session | None" = None

#: Set this around `tool.execute(input)` to pass the call id without the keyword argument.
tool_call_id_var: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "ock_tool_call_id", default=None)


def _log(msg: str) -> None:
    print(f"[ock-adapter] {msg}", file=sys.stderr, flush=True)


def report_execute(task: "asyncio.Task[Any]", i: int, name: str, out: Any) -> None:
    """Say how execute number i (a finished task) ended: a cancellation or an exception that
    escaped execute() on stderr, else its return value on `out`; `name` prefixes the lines."""
    if task.cancelled():
        print(f"[{name}] execute {i}: CancelledError escaped execute()", file=sys.stderr, flush=True)
    elif task.exception() is not None:
        e = task.exception()
        print(f"[{name}] execute {i}: exception escaped execute():\n"
              + "".join(traceback.format_exception(type(e), e, e.__traceback__)),
              file=sys.stderr, flush=True)
    else:
        print(f"[{name}] execute {i} returned: {task.result()!r}", file=out, flush=True)


# ---- JSON ----------------------------------------------------------------------------------------

def _jsonable(obj: Any) -> Any:
    """json.dumps default: pydantic-like objects and the adapter's own result objects."""
    for name in ("model_dump", "to_dict", "dict"):
        fn = getattr(obj, name, None)
        if callable(fn):
            return fn()
    if isinstance(obj, (set, frozenset, tuple)):
        return list(obj)
    if isinstance(obj, bytes):
        return obj.decode("utf-8", "replace")
    return str(obj)


def dumps(obj: Any) -> str:
    """Compact JSON (no whitespace outside strings), members in insertion order."""
    return json.dumps(obj, default=_jsonable, ensure_ascii=False, separators=(",", ":"))


def _field(obj: Any, key: str, default: Any = None) -> Any:
    """obj[key] for dicts, obj.key otherwise (Amplifier passes dicts or pydantic models)."""
    if isinstance(obj, dict):
        return obj.get(key, default)
    return getattr(obj, key, default)


# ---- HTTP in daemon threads (cancellable, never blocks the exit) ---------------------------------

class HttpReply:
    def __init__(self, status: int, headers: dict[str, str], body: bytes):
        self.status, self.headers, self.body = status, headers, body

    def json(self) -> Any:
        return json.loads(self.body.decode("utf-8"))


class _Exchange:
    """One HTTP request run in a daemon thread; abort() shuts its socket down."""

    def __init__(self, method: str, url: str, body: bytes | None, headers: dict[str, str]):
        u = urllib.parse.urlsplit(url)
        if u.scheme not in ("http", "https"):
            raise ValueError(f"unsupported URL {url!r}")
        self.https = u.scheme == "https"
        self.host, self.port = u.hostname or "127.0.0.1", u.port
        self.path = (u.path or "/") + (f"?{u.query}" if u.query else "")
        self.method, self.body, self.headers = method, body, headers
        self.conn: http.client.HTTPConnection | None = None
        self.aborted = False
        self.lock = threading.Lock()

    def open(self) -> http.client.HTTPResponse:
        cls = http.client.HTTPSConnection if self.https else http.client.HTTPConnection
        conn = cls(self.host, self.port)
        with self.lock:
            self.conn = conn
            if self.aborted:
                raise ConnectionAbortedError("request aborted")
        conn.request(self.method, self.path, body=self.body, headers=self.headers)
        return conn.getresponse()

    def abort(self) -> None:
        with self.lock:
            self.aborted = True
            conn = self.conn
        if conn is not None and conn.sock is not None:
            try:
                conn.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            try:
                conn.close()
            except OSError:
                pass

    def close(self) -> None:
        if self.conn is not None:
            try:
                self.conn.close()
            except OSError:
                pass


def _deliver(loop: asyncio.AbstractEventLoop, fn: Callable, *args: Any) -> None:
    try:
        loop.call_soon_threadsafe(fn, *args)
    except RuntimeError:  # the loop is closed: nobody waits any more
        pass


def _settle(fut: asyncio.Future, value: Any, exc: BaseException | None) -> None:
    if fut.done():
        return
    if exc is not None:
        fut.set_exception(exc)
    else:
        fut.set_result(value)


async def http_request(method: str, url: str, body: Any = None, headers: dict[str, str] | None = None,
                       timeout: float | None = None, abort_on_cancel: bool = True) -> HttpReply:
    """One HTTP request. `body` (not bytes) is sent as JSON. Raises OSError-family errors on
    connection problems and TimeoutError after `timeout` seconds (the socket is then closed).
    On cancellation the socket is shut down unless abort_on_cancel is false (then the request
    completes in the background)."""
    hdrs = {"Connection": "close"}
    data = None
    if body is not None:
        data = body if isinstance(body, bytes) else dumps(body).encode("utf-8")
        hdrs["Content-Type"] = "application/json"
    hdrs.update(headers or {})
    ex = _Exchange(method, url, data, hdrs)
    loop = asyncio.get_running_loop()
    fut = loop.create_future()

    def work() -> None:
        try:
            resp = ex.open()
            payload = resp.read()
            reply = HttpReply(resp.status, {k.lower(): v for k, v in resp.getheaders()}, payload)
            _deliver(loop, _settle, fut, reply, None)
        except BaseException as e:  # noqa: BLE001 - handed to the awaiting task
            _deliver(loop, _settle, fut, None, e)
        finally:
            ex.close()

    threading.Thread(target=work, name=f"ock-http {method} {url}", daemon=True).start()
    try:
        if timeout is None:
            return await fut
        return await asyncio.wait_for(fut, timeout)
    except asyncio.CancelledError:
        if abort_on_cancel:
            ex.abort()
        raise
    except TimeoutError:
        ex.abort()
        raise


class _LineStream:
    """A streamed HTTP reply read line by line in a daemon thread."""

    def __init__(self, ex: _Exchange, loop: asyncio.AbstractEventLoop):
        self.ex, self.loop = ex, loop
        self.queue: asyncio.Queue = asyncio.Queue()

    def start(self) -> None:
        threading.Thread(target=self._work, name="ock-sse", daemon=True).start()

    def _put(self, item: tuple) -> None:
        _deliver(self.loop, self.queue.put_nowait, item)

    def _work(self) -> None:
        try:
            resp = self.ex.open()
            headers = {k.lower(): v for k, v in resp.getheaders()}
            if resp.status != 200:
                self._put(("error_reply", HttpReply(resp.status, headers, resp.read())))
                return
            self._put(("open", headers))
            while True:
                line = resp.readline()
                if not line:
                    break
                self._put(("line", line.decode("utf-8", "replace").rstrip("\r\n")))
            self._put(("eof",))
        except BaseException as e:  # noqa: BLE001
            self._put(("exc", e))
        finally:
            self.ex.close()

    async def get(self, deadline: float | None) -> tuple:
        if deadline is None:
            return await self.queue.get()
        left = deadline - self.loop.time()
        if left <= 0:
            raise TimeoutError
        return await asyncio.wait_for(self.queue.get(), left)


def _sse_events(lines: list[str]) -> tuple[str | None, str]:
    """(event name, data) of one server-sent event given its lines (without the blank line)."""
    name, data = None, []
    for line in lines:
        if line.startswith(":"):
            continue
        key, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if key == "event":
            name = value
        elif key == "data":
            data.append(value)
    return name, "\n".join(data)


# ---- Data shapes: ToolResult, HookResult ---------------------------------------------------------

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")


class ToolResult:
    """What a tool endpoint returned (SPEC.md section 6.2), shaped like Amplifier's ToolResult.

    `to_dict()` gives the reply body unchanged; `get_serialized_output()` gives the text
    amplifier-core 2.0's ToolResult gives: output given -> dict/list as JSON, anything else as
    str(); failed without output but with an error message -> the message itself (Amplifier
    copies error.message into output); failed with an error object without message ->
    "Error: Unknown error"; failed with no error (or an empty one) -> "Error: Failed"; no
    output and success -> "Success". Control characters and lone surrogates are stripped as
    Amplifier does. (These are Amplifier's texts, not SPEC.md 5.11's: an orchestrator that
    wants the SPEC texts builds them itself.)"""

    def __init__(self, success: bool = True, output: Any = None, error: Any = None,
                 raw: dict | None = None):
        self.success, self.output, self.error = success, output, error
        self._raw = raw

    @classmethod
    def from_dict(cls, d: dict) -> "ToolResult":
        return cls(success=d.get("success"), output=d.get("output"), error=d.get("error"), raw=d)

    @staticmethod
    def is_tool_result(body: Any) -> bool:
        return isinstance(body, dict) and isinstance(body.get("success"), bool)

    def to_dict(self) -> dict:
        if self._raw is not None:
            return copy.deepcopy(self._raw)
        return {"success": self.success, "output": self.output, "error": self.error}

    model_dump = to_dict

    def get(self, key: str, default: Any = None) -> Any:
        return self.to_dict().get(key, default)

    def __getitem__(self, key: str) -> Any:
        return self.to_dict()[key]

    def _effective_output(self) -> Any:
        """Amplifier's model_post_init: a failed result without output takes error.message."""
        if self.output is None and not self.success and self.error and isinstance(self.error, dict):
            message = self.error.get("message")
            if message:
                return message
        return self.output

    def get_serialized_output(self) -> str:
        output = self._effective_output()
        if output is not None:
            text = json.dumps(output) if isinstance(output, (dict, list)) else str(output)
            return _SURROGATE.sub("", _CONTROL.sub("", text))
        if not self.success:
            if self.error and isinstance(self.error, dict):
                return f"Error: {self.error.get('message', 'Unknown error')}"
            return "Error: Failed"
        return "Success"

    def __str__(self) -> str:
        """Amplifier's ToolResult.__str__ (not the same text as get_serialized_output)."""
        if self.success:
            output = self._effective_output()
            return str(output) if output else "Success"
        if self.error and isinstance(self.error, dict):
            return f"Error: {self.error.get('message', 'Unknown error')}"
        return "Failed"

    def __repr__(self) -> str:
        return f"ToolResult({self.to_dict()!r})"


HOOK_ACTIONS = ("continue", "deny", "modify", "inject_context", "ask_user")


class HookResult:
    """A HookResult (SPEC.md section 6.3) with Amplifier's attribute names and defaults.

    A reply that is not an object with a known action becomes `continue` (SPEC.md 5.14);
    the reply as received is kept in `raw` (None when the events request failed)."""

    def __init__(self, action: str = "continue", data: Any = None, reason: str | None = None,
                 context_injection: str | None = None, context_injection_role: str = "system",
                 ephemeral: bool = False, raw: Any = None, **extra: Any):
        self.action = action
        self.data = data
        self.reason = reason
        self.context_injection = context_injection
        self.context_injection_role = context_injection_role
        self.ephemeral = ephemeral
        self.append_to_last_tool_result = bool(extra.pop("append_to_last_tool_result", False))
        self.approval_prompt = extra.pop("approval_prompt", None)
        self.approval_options = extra.pop("approval_options", None)
        self.approval_timeout = extra.pop("approval_timeout", 300.0)
        self.approval_default = extra.pop("approval_default", "deny")
        self.suppress_output = bool(extra.pop("suppress_output", False))
        self.user_message = extra.pop("user_message", None)
        self.user_message_level = extra.pop("user_message_level", "info")
        self.user_message_source = extra.pop("user_message_source", None)
        self.extra = extra
        self.raw = raw

    @classmethod
    def from_reply(cls, reply: Any) -> "HookResult":
        if not isinstance(reply, dict) or reply.get("action") not in HOOK_ACTIONS:
            return cls(raw=reply)
        fields = {k: v for k, v in reply.items() if k != "raw"}
        if fields.get("context_injection_role") is None:
            fields.pop("context_injection_role", None)
        fields["ephemeral"] = fields.get("ephemeral") is True
        return cls(raw=reply, **fields)

    def to_dict(self) -> dict:
        if isinstance(self.raw, dict):
            return copy.deepcopy(self.raw)
        return {"action": self.action}

    model_dump = to_dict

    def get(self, key: str, default: Any = None) -> Any:
        return getattr(self, key, default)

    def __repr__(self) -> str:
        return f"HookResult({self.to_dict()!r})"


# ---- Session -------------------------------------------------------------------------------------

class SessionError(ValueError):
    pass


class Session:
    """The session document (SPEC.md section 7.3). Unknown fields are kept in `doc`."""

    def __init__(self, doc: dict):
        self.doc = doc
        self.protocol: str = doc.get("protocol", "")
        self.scenario: str = doc.get("scenario", "")
        self.trace_id: str | None = doc.get("trace_id")
        self.prompts: list[str] = doc["prompts"]
        self.config: dict = doc.get("config") or {}
        self.providers: list[dict] = doc.get("providers") or []
        self.tools: list[dict] = doc.get("tools") or []


def parse_session(doc: Any) -> Session:
    """Checks the shape the adapter relies on; raises SessionError naming the first problem."""
    if isinstance(doc, (bytes, str)):
        try:
            doc = json.loads(doc)
        except ValueError as e:
            raise SessionError(f"session document is not JSON: {e}") from None
    if not isinstance(doc, dict):
        raise SessionError("session document is not a JSON object")
    if doc.get("protocol") != PROTOCOL:
        raise SessionError(f"protocol is {doc.get('protocol')!r}, expected {PROTOCOL!r}")
    prompts = doc.get("prompts")
    if not isinstance(prompts, list) or not all(isinstance(p, str) for p in prompts):
        raise SessionError("prompts must be an array of strings")
    if not isinstance(doc.get("config", {}), dict):
        raise SessionError("config must be an object")
    for i, p in enumerate(doc.get("providers") or []):
        if not isinstance(p, dict):
            raise SessionError(f"providers[{i}] is not an object")
        for k in ("name", "api", "base_url", "model"):
            if not isinstance(p.get(k), str) or not p.get(k):
                raise SessionError(f"providers[{i}].{k} must be a non-empty string")
        if p["api"] not in ("openai", "anthropic"):
            raise SessionError(f"providers[{i}].api {p['api']!r} is not openai or anthropic")
    for i, t in enumerate(doc.get("tools") or []):
        if not isinstance(t, dict) or not isinstance(t.get("name"), str) or not t.get("name"):
            raise SessionError(f"tools[{i}].name must be a non-empty string")
    return Session(doc)


# ---- Message conversion --------------------------------------------------------------------------

def _block_text(block: Any) -> str | None:
    """The text of a content block, or None for blocks that carry none (tool_call, thinking)."""
    if isinstance(block, str):
        return block
    if _field(block, "type") == "text":
        t = _field(block, "text", "")
        return t if isinstance(t, str) else ""
    return None


def content_text(content: Any) -> str:
    """All text of a message content: a string as is, text blocks joined with "\\n"."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(t for t in (_block_text(b) for b in content) if t is not None)
    if _field(content, "type") is not None:
        t = _block_text(content)
        return t or ""
    return dumps(content)


def _call_fields(call: Any) -> tuple[Any, Any, Any]:
    """(id, name, arguments) of a stored tool call in any of the shapes loops use:
    {id, name, arguments}, {id, tool, arguments}, {id, name, input}, OpenAI {id, function}."""
    fn = _field(call, "function")
    cid = _field(call, "id")
    name = _field(call, "name") or _field(call, "tool") or (_field(fn, "name") if fn else None)
    if fn is not None and _field(fn, "arguments") is not None:
        args = _field(fn, "arguments")
    elif (isinstance(call, dict) and "arguments" in call) or _field(call, "arguments") is not None:
        args = _field(call, "arguments")
    else:
        args = _field(call, "input")
    return cid, name, args


def assistant_calls(message: Any) -> list:
    """The tool calls of a stored assistant message: its `tool_calls`, then every `tool_call`
    content block whose id none of them has. A provider may hand calls over only as content
    blocks (Amplifier's ToolCallBlock), and a loop may store just those blocks: they are calls
    the model made, so they go on the wire, where a call without its result is then seen."""
    calls = list(_field(message, "tool_calls") or [])
    seen = {_call_fields(c)[0] for c in calls}
    content = _field(message, "content")
    for block in content if isinstance(content, list) else []:
        if _field(block, "type") == "tool_call" and _field(block, "id") not in seen:
            seen.add(_field(block, "id"))
            calls.append(block)
    return calls


def _arguments_text(args: Any) -> str:
    """Wire arguments: a string as received, anything else as compact JSON (None -> {})."""
    if args is None:
        return "{}"
    if isinstance(args, str):
        return args
    return dumps(args)


def _tool_content(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return content_text(content)
    return dumps(content)


def messages_to_openai(messages: list) -> list[dict]:
    """Context messages -> OpenAI Chat Completions `messages` (SPEC.md 6.4). Nothing is added,
    dropped or reordered: a broken history stays broken. An assistant message's calls are
    those of `assistant_calls()`: content blocks of type tool_call count."""
    out: list[dict] = []
    for m in messages:
        role = _field(m, "role")
        if role == "tool":
            out.append({"role": "tool", "tool_call_id": _field(m, "tool_call_id"),
                        "content": _tool_content(_field(m, "content"))})
        elif role == "assistant":
            calls = assistant_calls(m)
            text = content_text(_field(m, "content"))
            msg: dict = {"role": "assistant", "content": text if (text or not calls) else None}
            if calls:
                wire = []
                for c in calls:
                    cid, name, args = _call_fields(c)
                    wire.append({"id": cid, "type": "function",
                                 "function": {"name": name, "arguments": _arguments_text(args)}})
                msg["tool_calls"] = wire
            out.append(msg)
        else:
            out.append({"role": role, "content": content_text(_field(m, "content"))})
    return out


def _anthropic_input(args: Any) -> Any:
    if isinstance(args, dict):
        return args
    if isinstance(args, str):
        try:
            parsed = json.loads(args) if args.strip() else {}
        except ValueError:
            return {}
        return parsed if isinstance(parsed, dict) else {}
    return {}


def messages_to_anthropic(messages: list) -> tuple[str | None, list[dict]]:
    """Context messages -> (system, Anthropic `messages`) (SPEC.md 6.5). System messages go to
    the top-level system field; consecutive tool messages become one user message of
    tool_result blocks; a call whose arguments are not an object is sent with input {}."""
    system: list[str] = []
    out: list[dict] = []
    results: list[dict] | None = None
    for m in messages:
        role = _field(m, "role")
        if role == "tool":
            block = {"type": "tool_result", "tool_use_id": _field(m, "tool_call_id"),
                     "content": _tool_content(_field(m, "content"))}
            if results is None:
                results = []
                out.append({"role": "user", "content": results})
            results.append(block)
            continue
        results = None
        if role in ("system", "developer"):
            system.append(content_text(_field(m, "content")))
        elif role == "assistant":
            blocks: list[dict] = []
            text = content_text(_field(m, "content"))
            if text:
                blocks.append({"type": "text", "text": text})
            for c in assistant_calls(m):
                cid, name, args = _call_fields(c)
                blocks.append({"type": "tool_use", "id": cid, "name": name,
                               "input": _anthropic_input(args)})
            out.append({"role": "assistant", "content": blocks if blocks else ""})
        else:
            out.append({"role": role, "content": content_text(_field(m, "content"))})
    return ("\n\n".join(system) if system else None), out


def tool_specs(tools: Any) -> list[dict]:
    """[{name, description, input_schema}] from tool objects, ToolSpec dicts
    ({name, parameters}) or a {name: tool} dict."""
    if tools is None:
        return []
    if isinstance(tools, dict):
        tools = list(tools.values())
    specs = []
    for t in tools:
        schema = _field(t, "input_schema")
        if schema is None:
            schema = _field(t, "parameters")
        specs.append({"name": _field(t, "name"), "description": _field(t, "description") or "",
                      "input_schema": schema if schema is not None else {"type": "object"}})
    return specs


def parse_arguments(raw: Any) -> Any:
    """Tool-call arguments as the provider hands them over: the JSON object they parse to
    ({} for an empty string), else the raw value unchanged."""
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        if not raw.strip():
            return {}
        try:
            parsed = json.loads(raw)
        except ValueError:
            return raw
        return parsed if isinstance(parsed, dict) else raw
    return raw


# ---- Providers -----------------------------------------------------------------------------------

class ProviderError(Exception):
    """A failed LLM request, shaped like Amplifier's LLMError. `type` is one of SPEC.md 4.3.7's
    error types; `retryable` follows SPEC.md 5.7; `retry_after` is in seconds or None."""

    def __init__(self, message: str, *, type: str = "http_error", status_code: int | None = None,
                 retryable: bool = False, retry_after: float | None = None, provider: str | None = None,
                 model: str | None = None, body: Any = None):
        super().__init__(message)
        self.message, self.type, self.status_code = message, type, status_code
        self.retryable, self.retry_after = retryable, retry_after
        self.provider, self.model, self.body = provider, model, body

    def to_dict(self) -> dict:
        return {"type": self.type, "message": self.message}


def _retry_after(headers: dict[str, str]) -> float | None:
    for key, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        v = headers.get(key)
        if v is not None:
            try:
                return float(v) * scale
            except ValueError:
                pass
    return None


class _CallLedger:
    """The tool calls of the latest provider response, so that a tool executed without an id
    (`tool.execute(call["input"])`, as Amplifier's Tool interface has none) can send the id of
    the call it runs to the tool endpoint: the first unclaimed call with that name and equal
    input, else the first unclaimed call with that name."""

    def __init__(self) -> None:
        self.calls: list[dict] = []
        self.claimed: set[int] = set()

    def issue(self, calls: list[dict]) -> None:
        if calls:
            self.calls, self.claimed = list(calls), set()

    def claim(self, name: str, tool_input: Any) -> str | None:
        for exact in (True, False):
            for i, c in enumerate(self.calls):
                if i in self.claimed or c.get("name") != name:
                    continue
                if exact and c.get("arguments") != tool_input:
                    continue
                self.claimed.add(i)
                return c.get("id")
        return None


def _response(text: str, calls: list[dict], finish_reason: Any, usage: dict, raw_id: Any = None,
              model: Any = None) -> dict:
    return {"content": [{"type": "text", "text": text}] if text else [],
            "tool_calls": calls, "usage": usage, "finish_reason": finish_reason, "text": text,
            "id": raw_id, "model": model}


class _BaseProvider:
    api = ""

    def __init__(self, spec: dict, *, trace_id: str | None = None, ledger: _CallLedger | None = None):
        self.spec = spec
        self.name: str = spec["name"]
        self.model: str = spec["model"]
        self.priority: int = spec.get("priority", 100)
        self.base_url: str = spec["base_url"].rstrip("/")
        self.trace_id = trace_id
        self.ledger = ledger or _CallLedger()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} {self.model}>"

    def get_info(self) -> dict:
        return {"id": self.name, "api": self.api, "model": self.model, "priority": self.priority}

    def _headers(self) -> dict[str, str]:
        h = {}
        if self.trace_id:
            h["X-OCK-Trace-Id"] = self.trace_id
        return h

    def parse_tool_calls(self, response: Any) -> list[dict]:
        """[{id, name, arguments, input}] of a ChatResponse; input is arguments (the seed's key)."""
        calls = _field(response, "tool_calls") or []
        out = []
        for c in calls:
            cid, name, args = _call_fields(c)
            out.append({"id": cid, "name": name, "arguments": args, "input": args})
        return out

    def _error(self, reply: HttpReply) -> ProviderError:
        message = reply.body.decode("utf-8", "replace")[:500]
        body = None
        try:
            body = reply.json()
            err = body.get("error") if isinstance(body, dict) else None
            if isinstance(err, dict) and isinstance(err.get("message"), str):
                message = err["message"]
        except ValueError:
            pass
        return ProviderError(f"HTTP {reply.status}: {message}", type="http_error",
                             status_code=reply.status, retryable=reply.status in RETRYABLE_STATUS,
                             retry_after=_retry_after(reply.headers), provider=self.name,
                             model=self.model, body=body)

    def _fail(self, type_: str, message: str, retryable: bool, status: int | None = None) -> ProviderError:
        return ProviderError(message, type=type_, status_code=status, retryable=retryable,
                             provider=self.name, model=self.model)

    async def complete(self, request: Any, **kwargs: Any) -> dict:
        """One LLM request. `request`: {messages, tools?, stream?, timeout? (seconds), model?,
        max_output_tokens?}. No tools are offered unless the request lists them."""
        if _field(request, "stream"):
            final = None
            async for item in self.stream_complete(request, **kwargs):
                final = item
            return final  # type: ignore[return-value]
        timeout = _field(request, "timeout", kwargs.get("timeout"))
        url, body, headers = self._post(request, stream=False)
        try:
            reply = await http_request("POST", url, body, headers, timeout=timeout)
        except TimeoutError:
            raise self._fail("timeout", f"no reply within {timeout} s", True) from None
        except OSError as e:
            raise self._fail("connection_error", f"connection failed: {e}", True) from None
        if not 200 <= reply.status < 300:
            raise self._error(reply)
        try:
            response = self.parse_response(reply.json())
        except (ValueError, KeyError, TypeError, IndexError, AttributeError) as e:
            raise self._fail("malformed_response", f"malformed reply: {e}", False, reply.status) from None
        self.ledger.issue(response["tool_calls"])
        return response

    async def stream_complete(self, request: Any, **kwargs: Any) -> AsyncIterator[dict]:
        """Streams one LLM request: yields {"type": "text_delta", "delta": str} per chunk with
        text and {"type": "tool_call_delta", "delta": "", "tool_call_delta": {...}} per
        tool-call fragment, then the ChatResponse (no "type" key) when the stream ended
        normally. A cut, malformed or failed stream raises ProviderError (stream_error)."""
        timeout = _field(request, "timeout", kwargs.get("timeout"))
        url, body, headers = self._post(request, stream=True)
        headers = dict(headers, Accept="text/event-stream")
        data = dumps(body).encode("utf-8")
        ex = _Exchange("POST", url, data, {"Connection": "close", "Content-Type": "application/json",
                                           **headers})
        loop = asyncio.get_running_loop()
        stream = _LineStream(ex, loop)
        deadline = loop.time() + timeout if timeout else None
        acc = self._stream_state()
        stream.start()
        pending: list[str] = []
        try:
            while True:
                try:
                    item = await stream.get(deadline)
                except TimeoutError:
                    raise self._fail("timeout", f"no complete reply within {timeout} s", True) from None
                kind = item[0]
                if kind == "error_reply":
                    raise self._error(item[1])
                if kind == "exc":
                    e = item[1]
                    raise self._fail("connection_error", f"connection failed: {e}", True) from None
                if kind == "open":
                    continue
                if kind == "eof":
                    if pending:
                        for out in self._stream_event(acc, *_sse_events(pending)):
                            yield out
                        pending = []
                    if not acc["done"]:
                        raise self._fail("stream_error", "the stream ended before its terminator", True)
                    break
                line = item[1]
                if line == "":
                    if pending:
                        for out in self._stream_event(acc, *_sse_events(pending)):
                            yield out
                        pending = []
                        if acc["done"]:
                            break
                    continue
                pending.append(line)
        finally:
            ex.abort()
        response = self._stream_response(acc)
        self.ledger.issue(response["tool_calls"])
        yield response

    # subclasses: _post, parse_response, _stream_state, _stream_event, _stream_response


class OpenAIProvider(_BaseProvider):
    """OpenAI Chat Completions: POST {base_url}/chat/completions."""

    api = "openai"

    def build_request(self, request: Any, stream: bool = False) -> dict:
        body: dict = {"model": _field(request, "model") or self.model,
                      "messages": messages_to_openai(_field(request, "messages") or [])}
        specs = tool_specs(_field(request, "tools"))
        if specs:
            body["tools"] = [{"type": "function",
                              "function": {"name": s["name"], "description": s["description"],
                                           "parameters": s["input_schema"]}} for s in specs]
        body["stream"] = bool(stream)
        return body

    def _post(self, request: Any, stream: bool) -> tuple[str, dict, dict]:
        key = os.environ.get("OPENAI_API_KEY", "ock-dummy-key")
        return (f"{self.base_url}/chat/completions", self.build_request(request, stream),
                dict(self._headers(), Authorization=f"Bearer {key}"))

    def parse_response(self, body: dict) -> dict:
        choice = body["choices"][0]
        msg = choice["message"]
        text = msg.get("content") or ""
        if not isinstance(text, str):
            text = content_text(text)
        calls = []
        for tc in msg.get("tool_calls") or []:
            fn = tc["function"]
            calls.append({"id": tc["id"], "name": fn["name"],
                          "arguments": parse_arguments(fn.get("arguments", ""))})
        usage = body.get("usage") or {}
        return _response(text, calls, choice.get("finish_reason"),
                         {"input_tokens": usage.get("prompt_tokens"),
                          "output_tokens": usage.get("completion_tokens"),
                          "total_tokens": usage.get("total_tokens")}, body.get("id"), body.get("model"))

    def _stream_state(self) -> dict:
        return {"text": [], "calls": {}, "finish": None, "usage": {}, "id": None, "model": None,
                "done": False}

    def _stream_event(self, acc: dict, _name: str | None, data: str) -> list[dict]:
        if data == "[DONE]":
            acc["done"] = True
            return []
        try:
            chunk = json.loads(data)
        except ValueError:
            raise self._fail("stream_error", f"malformed stream chunk: {data[:200]}", True) from None
        if not isinstance(chunk, dict) or "error" in chunk:
            raise self._fail("stream_error", f"error in stream: {data[:200]}", True)
        acc["id"] = acc["id"] or chunk.get("id")
        acc["model"] = acc["model"] or chunk.get("model")
        if chunk.get("usage"):
            u = chunk["usage"]
            acc["usage"] = {"input_tokens": u.get("prompt_tokens"),
                            "output_tokens": u.get("completion_tokens"),
                            "total_tokens": u.get("total_tokens")}
        out = []
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            text = delta.get("content")
            if isinstance(text, str) and text:
                acc["text"].append(text)
                out.append({"type": "text_delta", "delta": text})
            for tc in delta.get("tool_calls") or []:
                idx = tc.get("index", 0)
                fn = tc.get("function") or {}
                slot = acc["calls"].setdefault(idx, {"id": None, "name": None, "arguments": []})
                if tc.get("id"):
                    slot["id"] = tc["id"]
                if fn.get("name"):
                    slot["name"] = fn["name"]
                frag = fn.get("arguments") or ""
                slot["arguments"].append(frag)
                d = {"index": idx, "arguments": frag}
                if tc.get("id"):
                    d["id"] = tc["id"]
                if fn.get("name"):
                    d["name"] = fn["name"]
                out.append({"type": "tool_call_delta", "delta": "", "tool_call_delta": d})
            if choice.get("finish_reason"):
                acc["finish"] = choice["finish_reason"]
        return out

    def _stream_response(self, acc: dict) -> dict:
        calls = [{"id": s["id"], "name": s["name"], "arguments": parse_arguments("".join(s["arguments"]))}
                 for _, s in sorted(acc["calls"].items())]
        return _response("".join(acc["text"]), calls, acc["finish"], acc["usage"], acc["id"], acc["model"])


class AnthropicProvider(_BaseProvider):
    """Anthropic Messages: POST {base_url}/v1/messages."""

    api = "anthropic"

    def build_request(self, request: Any, stream: bool = False) -> dict:
        system, msgs = messages_to_anthropic(_field(request, "messages") or [])
        body: dict = {"model": _field(request, "model") or self.model,
                      "max_tokens": _field(request, "max_output_tokens") or 1024}
        if system is not None:
            body["system"] = system
        body["messages"] = msgs
        specs = tool_specs(_field(request, "tools"))
        if specs:
            body["tools"] = specs
        body["stream"] = bool(stream)
        return body

    def _post(self, request: Any, stream: bool) -> tuple[str, dict, dict]:
        key = os.environ.get("ANTHROPIC_API_KEY", "ock-dummy-key")
        return (f"{self.base_url}/v1/messages", self.build_request(request, stream),
                dict(self._headers(), **{"x-api-key": key, "anthropic-version": "2023-06-01"}))

    def parse_response(self, body: dict) -> dict:
        texts, calls = [], []
        for block in body["content"]:
            if block.get("type") == "text":
                texts.append(block.get("text") or "")
            elif block.get("type") == "tool_use":
                calls.append({"id": block["id"], "name": block["name"],
                              "arguments": parse_arguments(block.get("input"))})
        usage = body.get("usage") or {}
        return _response("".join(texts), calls, body.get("stop_reason"),
                         {"input_tokens": usage.get("input_tokens"),
                          "output_tokens": usage.get("output_tokens")}, body.get("id"), body.get("model"))

    def _stream_state(self) -> dict:
        return {"blocks": {}, "finish": None, "usage": {}, "id": None, "model": None, "done": False}

    def _stream_event(self, acc: dict, name: str | None, data: str) -> list[dict]:
        try:
            ev = json.loads(data) if data else {}
        except ValueError:
            raise self._fail("stream_error", f"malformed stream event: {data[:200]}", True) from None
        kind = ev.get("type", name) if isinstance(ev, dict) else name
        if kind == "error" or name == "error":
            raise self._fail("stream_error", f"error in stream: {data[:200]}", True)
        out: list[dict] = []
        if kind == "message_start":
            m = ev.get("message") or {}
            acc["id"], acc["model"] = m.get("id"), m.get("model")
            acc["usage"] = dict(m.get("usage") or {})
        elif kind == "content_block_start":
            cb = ev.get("content_block") or {}
            acc["blocks"][ev.get("index", 0)] = {"type": cb.get("type"), "text": [cb.get("text") or ""],
                                                 "id": cb.get("id"), "name": cb.get("name"), "json": []}
            if cb.get("type") == "tool_use":
                out.append({"type": "tool_call_delta", "delta": "", "tool_call_delta": {
                    "index": ev.get("index", 0), "id": cb.get("id"), "name": cb.get("name"),
                    "arguments": ""}})
        elif kind == "content_block_delta":
            b = acc["blocks"].setdefault(ev.get("index", 0), {"type": None, "text": [], "id": None,
                                                               "name": None, "json": []})
            d = ev.get("delta") or {}
            if d.get("type") == "text_delta" and d.get("text"):
                b["text"].append(d["text"])
                out.append({"type": "text_delta", "delta": d["text"]})
            elif d.get("type") == "input_json_delta":
                b["json"].append(d.get("partial_json") or "")
                out.append({"type": "tool_call_delta", "delta": "", "tool_call_delta": {
                    "index": ev.get("index", 0), "arguments": d.get("partial_json") or ""}})
        elif kind == "message_delta":
            acc["finish"] = (ev.get("delta") or {}).get("stop_reason")
            if ev.get("usage"):
                acc["usage"].update(ev["usage"])
        elif kind == "message_stop":
            acc["done"] = True
        return out

    def _stream_response(self, acc: dict) -> dict:
        texts, calls = [], []
        for _, b in sorted(acc["blocks"].items()):
            if b["type"] == "text":
                texts.append("".join(b["text"]))
            elif b["type"] == "tool_use":
                calls.append({"id": b["id"], "name": b["name"],
                              "arguments": parse_arguments("".join(b["json"]))})
        usage = {"input_tokens": acc["usage"].get("input_tokens"),
                 "output_tokens": acc["usage"].get("output_tokens")}
        return _response("".join(texts), calls, acc["finish"], usage, acc["id"], acc["model"])


def make_provider(spec: dict, *, trace_id: str | None = None, ledger: _CallLedger | None = None) -> _BaseProvider:
    cls = AnthropicProvider if spec.get("api") == "anthropic" else OpenAIProvider
    return cls(spec, trace_id=trace_id, ledger=ledger)


# ---- Tools ---------------------------------------------------------------------------------------

class ToolEndpointError(Exception):
    """The tool endpoint did not answer with a ToolResult: `type` is execution_failed or
    timeout (SPEC.md 4.3.13); `status` the HTTP status or None."""

    def __init__(self, message: str, *, type: str = "execution_failed", status: int | None = None,
                 body: Any = None):
        super().__init__(message)
        self.message, self.type, self.status, self.body = message, type, status, body


class ToolTimeoutError(ToolEndpointError, TimeoutError):
    def __init__(self, message: str):
        ToolEndpointError.__init__(self, message, type="timeout")


class OckTool:
    """A session tool. `execute(input, tool_call_id=None, timeout=None)` POSTs
    {tool_call_id, input} to the tool endpoint. The id is, in this order: the argument,
    `tool_call_id_var`, or the matching call of the latest provider response."""

    def __init__(self, spec: dict, ock_url: str, *, trace_id: str | None = None,
                 ledger: _CallLedger | None = None):
        self.spec = spec
        self.name: str = spec["name"]
        self.description: str = spec.get("description", "")
        self.input_schema: dict = spec.get("input_schema") or {"type": "object"}
        self.url = f"{ock_url}/ock/v1/tools/{urllib.parse.quote(self.name, safe='')}"
        self.trace_id = trace_id
        self.ledger = ledger or _CallLedger()

    @property
    def parameters(self) -> dict:
        return self.input_schema

    def __repr__(self) -> str:
        return f"<OckTool {self.name}>"

    async def execute(self, input: Any, tool_call_id: str | None = None, *,
                      timeout: float | None = None) -> ToolResult:
        if tool_call_id is None:
            tool_call_id = tool_call_id_var.get()
        if tool_call_id is None:
            tool_call_id = self.ledger.claim(self.name, input)
        headers = {"X-OCK-Trace-Id": self.trace_id} if self.trace_id else {}
        try:
            reply = await http_request("POST", self.url, {"tool_call_id": tool_call_id, "input": input},
                                       headers, timeout=timeout)
        except TimeoutError:
            raise ToolTimeoutError(f"tool timed out after {round(timeout * 1000)} ms") from None
        except OSError as e:
            raise ToolEndpointError(f"tool endpoint connection failed: {e}") from None
        body = None
        try:
            body = reply.json()
        except ValueError:
            pass
        if not 200 <= reply.status < 300:
            raise ToolEndpointError(f"tool endpoint returned HTTP {reply.status}", status=reply.status,
                                    body=body)
        if not ToolResult.is_tool_result(body):
            raise ToolEndpointError("tool endpoint reply is not a ToolResult", status=reply.status,
                                    body=body)
        return ToolResult.from_dict(body)


# ---- Hooks and context ---------------------------------------------------------------------------

class OckHooks:
    """The hook registry: every emit is one POST of {"event", "data"}; the reply is the result.
    Nothing is added to the data. A failed request counts as continue (SPEC.md 5.14). If the
    caller is cancelled while the POST is in flight, the POST still completes in the background."""

    def __init__(self, ock_url: str):
        self.url = f"{ock_url}/ock/v1/events"
        self.emitted = 0

    async def emit(self, event: str, data: Any) -> HookResult:
        self.emitted += 1
        try:
            reply = await http_request("POST", self.url, {"event": event, "data": data},
                                       abort_on_cancel=False)
        except OSError as e:
            _log(f"event {event!r}: request failed ({e}); treated as continue")
            return HookResult()
        if reply.status != 200:
            _log(f"event {event!r}: HTTP {reply.status} {reply.body[:200]!r}; treated as continue")
            return HookResult()
        try:
            return HookResult.from_reply(reply.json())
        except ValueError:
            return HookResult()

    async def emit_and_collect(self, event: str, data: Any, timeout: float = 1.0) -> list:
        await self.emit(event, data)
        return []


class InMemoryContext:
    """The conversation: a list of message dicts, stored and returned as deep copies."""

    def __init__(self, messages: list | None = None):
        self.messages: list = copy.deepcopy(messages) if messages else []

    async def add_message(self, message: Any) -> None:
        self.messages.append(copy.deepcopy(message))

    async def get_messages(self) -> list:
        return copy.deepcopy(self.messages)

    async def get_messages_for_request(self, token_budget: int | None = None, provider: Any = None) -> list:
        return copy.deepcopy(self.messages)

    async def set_messages(self, messages: list) -> None:
        self.messages = copy.deepcopy(list(messages))

    async def clear(self) -> None:
        self.messages = []

    async def should_compact(self) -> bool:
        return False

    async def compact(self) -> None:
        return None


# ---- Loading an orchestrator ---------------------------------------------------------------------

def _install_amplifier_shim() -> None:
    """Make `from amplifier_core.models import HookResult, ToolResult` work when amplifier_core
    is not installed, so Amplifier orchestrators run unchanged."""
    try:
        if importlib.util.find_spec("amplifier_core") is not None:
            return
    except (ImportError, ValueError):
        pass
    pkg = types.ModuleType("amplifier_core")
    pkg.__path__ = []  # a package, so submodules import
    models = types.ModuleType("amplifier_core.models")
    models.HookResult, models.ToolResult = HookResult, ToolResult
    pkg.models = models
    pkg.HookResult, pkg.ToolResult = HookResult, ToolResult
    sys.modules.setdefault("amplifier_core", pkg)
    sys.modules.setdefault("amplifier_core.models", models)


def _has_async_execute(obj: Any) -> bool:
    return inspect.iscoroutinefunction(getattr(obj, "execute", None))


def load_orchestrator(path: str, class_name: str | None = None) -> type:
    """The orchestrator class in the Python file `path`: `class_name`, or the first class
    defined there that has an async `execute`."""
    _install_amplifier_shim()
    path = os.path.abspath(path)
    stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0]) or "orchestrator"
    spec = importlib.util.spec_from_file_location(stem, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[stem] = module
    sys.path.insert(0, os.path.dirname(path))
    spec.loader.exec_module(module)
    if class_name:
        cls = getattr(module, class_name, None)
        if not inspect.isclass(cls) or not _has_async_execute(cls):
            raise ImportError(f"{path} has no class {class_name} with an async execute()")
        return cls
    for value in vars(module).values():
        if inspect.isclass(value) and value.__module__ == module.__name__ and _has_async_execute(value):
            return value
    raise ImportError(f"{path} defines no class with an async execute()")


def _instantiate(orchestrator: Any, config: dict) -> Any:
    if inspect.isclass(orchestrator):
        return orchestrator(config)
    if _has_async_execute(orchestrator):
        return orchestrator
    if callable(orchestrator):
        return orchestrator(config)
    raise TypeError("orchestrator must be a class, an instance with async execute(), or a factory")


# ---- The run -------------------------------------------------------------------------------------

class _Runner:
    def __init__(self, orchestrator: Any, url: str, extra_config: dict | None, out: Any):
        self.orchestrator, self.url, self.extra = orchestrator, url.rstrip("/"), extra_config or {}
        self.out = out
        self.task: asyncio.Task | None = None
        self.cancel_sent = False
        self.index = 0

    def on_sigint(self) -> None:
        task = self.task
        if task is None or task.done():
            _log("SIGINT between executes: ignored")
            return
        if self.cancel_sent:
            _log(f"SIGINT: execute {self.index} is already being cancelled; ignored")
            return
        self.cancel_sent = True
        _log(f"SIGINT: cancelling execute {self.index}")
        task.cancel()

    async def fetch_session(self) -> Session:
        reply = await http_request("GET", f"{self.url}/ock/v1/session")
        if reply.status != 200:
            raise SessionError(f"GET /ock/v1/session returned HTTP {reply.status}")
        return parse_session(reply.body)

    async def main(self) -> int:
        loop = asyncio.get_running_loop()
        try:
            loop.add_signal_handler(signal.SIGINT, self.on_sigint)
        except (NotImplementedError, RuntimeError, ValueError):
            signal.signal(signal.SIGINT, lambda *_: _deliver(loop, self.on_sigint))
        try:
            session = await self.fetch_session()
        except (OSError, SessionError, ValueError) as e:
            _log(f"cannot read the session from {self.url}: {e}")
            return 2
        global SESSION
        SESSION = session
        config = dict(session.config)
        config.update(self.extra)
        try:
            orch = _instantiate(self.orchestrator, config)
        except Exception:  # noqa: BLE001 - reported, then the run ends
            _log("constructing the orchestrator failed:\n" + traceback.format_exc())
            return 2
        ledger = _CallLedger()
        providers = {p["name"]: make_provider(p, trace_id=session.trace_id, ledger=ledger)
                     for p in session.providers}
        tools = {t["name"]: OckTool(t, self.url, trace_id=session.trace_id, ledger=ledger)
                 for t in session.tools}
        hooks = OckHooks(self.url)
        context = InMemoryContext()
        _log(f"scenario {session.scenario or '?'}: {len(session.prompts)} prompt(s), "
             f"orchestrator {type(orch).__name__}")
        for i, prompt in enumerate(session.prompts, 1):
            self.index, self.cancel_sent = i, False
            self.task = asyncio.ensure_future(orch.execute(prompt, context, providers, tools, hooks))
            await asyncio.wait([self.task])
            task, self.task = self.task, None
            report_execute(task, i, "ock-adapter", self.out)
        return 0


def run(orchestrator: Any, url: str | None = None, config: dict | None = None, out: Any = None) -> int:
    """Run `orchestrator` (a class constructed with the session config, an instance, or a
    factory taking the config) for every prompt of the session at `url` (default $OCK_URL).
    `config` entries override the session's. Returns the exit status (0 after the last prompt;
    2 when the session or the orchestrator cannot be set up). SIGINT stays ignored after it
    returns, so that a late SIGINT cannot end the process with a non-zero status."""
    url = url or os.environ.get("OCK_URL")
    if not url:
        _log("OCK_URL is not set")
        return 2
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # until the loop's handler is in place
    runner = _Runner(orchestrator, url, config, out or sys.stdout)
    try:
        return asyncio.run(runner.main())
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a trailing SIGINT must not end us non-zero


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="ock_adapter.py",
                                 description="Run an Amplifier-style orchestrator under ock/1.")
    ap.add_argument("orchestrator", help="Python file that defines the orchestrator class")
    ap.add_argument("class_name", nargs="?", help="class to run (default: the first with an async execute)")
    ap.add_argument("--config", default=None, help="JSON object merged over the session config")
    ap.add_argument("--url", default=None, help="mock root URL (default: $OCK_URL)")
    args = ap.parse_args(argv)
    extra = None
    if args.config:
        try:
            extra = json.loads(args.config)
        except ValueError as e:
            ap.error(f"--config is not JSON: {e}")
        if not isinstance(extra, dict):
            ap.error("--config must be a JSON object")
    sys.dont_write_bytecode = True
    try:
        cls = load_orchestrator(args.orchestrator, args.class_name)
    except Exception:  # noqa: BLE001
        _log("loading the orchestrator failed:\n" + traceback.format_exc())
        return 2
    return run(cls, args.url, extra)


if __name__ == "__main__":
    # One module object, whether run as a script or imported by the orchestrator.
    sys.modules.setdefault("ock_adapter", sys.modules[__name__])
    sys.exit(main())
