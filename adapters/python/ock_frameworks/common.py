"""What every Python framework bridge shares: the ock/1 client (session, events, tools endpoint)
and how a HookResult, tool arguments, a ToolResult and a provider exception become event fields
and result texts (SPEC.md 5.6, 5.11), and the session loop and cancel path of the asyncio bridges
(AsyncBridge). No framework is imported here."""
from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import signal
import threading
import urllib.error
import urllib.request
from typing import Any

RETRYABLE_STATUS = (408, 409, 429, 500, 502, 503, 504, 529)


class Denied(Exception):
    """A deny or ask_user reply to prompt:submit or provider:request, thrown out of the framework."""

    def __init__(self, reason: str):
        super().__init__(f"Denied: {reason}")
        self.reason = reason


class ToolFailed(Exception):
    """The tools endpoint failed: type is execution_failed or timeout."""

    def __init__(self, type_: str, message: str):
        super().__init__(message)
        self.type = type_


class OckClient:
    """$OCK_URL's session, events and tools endpoints, over plain HTTP."""

    def __init__(self, url: str):
        self.url = url.rstrip("/")
        self.trace_id = ""

    def _post(self, path: str, body: Any, timeout: float) -> tuple[int, Any]:
        req = urllib.request.Request(self.url + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json",
                                              "X-OCK-Trace-Id": self.trace_id})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return r.status, json.loads(r.read() or b"null")
        except urllib.error.HTTPError as e:
            data = e.read()
            try:
                return e.code, json.loads(data or b"null")
            except ValueError:
                return e.code, None

    def session(self) -> dict:
        with urllib.request.urlopen(self.url + "/ock/v1/session", timeout=30) as r:
            doc = json.loads(r.read())
        self.trace_id = doc.get("trace_id") or ""
        return doc

    def emit(self, event: str, data: dict) -> dict:
        """POST one event; its HookResult, or continue. The data carries no trace_id: the
        bridges declare no lifecycle capability, whose field it is (SPEC.md 1.3)."""
        status, reply = self._post("/ock/v1/events", {"event": event, "data": data}, 30)
        return reply if status == 200 and isinstance(reply, dict) else {"action": "continue"}

    @staticmethod
    def denies(reply: dict) -> bool:
        return reply.get("action") in ("deny", "ask_user")

    def call_tool(self, name: str, call_id: str, tool_input: dict, timeout_ms: int) -> dict:
        try:
            status, reply = self._post(f"/ock/v1/tools/{name}", {"tool_call_id": call_id, "input": tool_input},
                                       timeout_ms / 1000)
        except TimeoutError:
            raise ToolFailed("timeout", f"tool timed out after {timeout_ms} ms") from None
        except OSError as e:
            if "timed out" in str(e):
                raise ToolFailed("timeout", f"tool timed out after {timeout_ms} ms") from None
            raise ToolFailed("execution_failed", str(e)) from None
        if status >= 300 or not isinstance(reply, dict):
            raise ToolFailed("execution_failed", f"tool endpoint answered HTTP {status}")
        return reply


def deny_reason(reply: dict) -> str:
    if reply.get("action") == "ask_user":
        return "No approval system available"
    reason = reply.get("reason")
    return reason if isinstance(reason, str) and reason else "no reason given"


def injection(reply: dict) -> dict | None:
    if reply.get("action") != "inject_context":
        return None
    text = reply.get("context_injection")
    if not isinstance(text, str) or not text:
        return None
    return {"role": reply.get("context_injection_role") or "system", "text": text,
            "ephemeral": bool(reply.get("ephemeral"))}


def parse_arguments(raw: Any) -> Any:
    """Arguments as an event field: the object they parse to, {} for empty, else the raw string."""
    if not isinstance(raw, str):
        return raw
    if not raw.strip():
        return {}
    try:
        v = json.loads(raw)
    except ValueError:
        return raw
    return v if isinstance(v, dict) else raw


def arguments_problem(raw: Any) -> str:
    """Why arguments that are not an object cannot run: the message of tool:error invalid_arguments."""
    if isinstance(raw, str) and raw.strip():
        try:
            json.loads(raw)
        except ValueError:
            return f"not valid JSON: {raw[:120]}"
    return "arguments are not a JSON object"


def result_text(result: dict) -> str:
    if result.get("success") is False:
        msg = (result.get("error") or {}).get("message")
        return f"Error: {msg if isinstance(msg, str) and msg else 'unknown error'}"
    out = result.get("output")
    return out if isinstance(out, str) else json.dumps(out, separators=(",", ":"))


def first_provider(session: dict) -> dict | None:
    providers = sorted(session.get("providers") or [], key=lambda p: p.get("priority", 100))
    return providers[0] if providers else None


def provider_error(e: BaseException) -> dict:
    """provider:error's error, retryable and status_code for an exception of the openai client."""
    status = getattr(e, "status_code", None)
    name = type(e).__name__
    if isinstance(status, int):
        kind = "http_error"
    elif "Timeout" in name:
        kind = "timeout"
    elif "Connection" in name:
        kind = "connection_error"
    else:
        kind = "malformed_response"
    text = str(e) or name
    message = f"HTTP {status}: {text}" if isinstance(status, int) else text
    retryable = status in RETRYABLE_STATUS if isinstance(status, int) else kind in ("connection_error", "timeout")
    return {"error": {"type": kind, "message": message}, "retryable": retryable,
            "status_code": status if isinstance(status, int) else None}


CANCELLED = {"type": "cancelled", "message": "cancelled"}


async def in_thread(fn, *args):
    """fn(*args) in a daemon thread of its own, awaited. Unlike asyncio.to_thread, whose threads
    asyncio.run waits for before it returns, a call a cancel abandoned (a tool still at the
    tools endpoint) does not hold the process up after its last execute."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future = loop.create_future()

    def settle(value, error) -> None:
        if done.cancelled():
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(value)

    def work() -> None:
        try:
            value, error = fn(*args), None
        except Exception as e:  # noqa: BLE001 (handed to the awaiting task)
            value, error = None, e
        try:
            loop.call_soon_threadsafe(settle, value, error)
        except RuntimeError:  # the loop has closed: nobody waits any more
            pass

    threading.Thread(target=work, daemon=True).start()
    return await done


class AsyncBridge:
    """What the asyncio bridges (LangGraph, the Agents SDK, Pydantic AI) share: one session's client,
    config, provider and history, the ordered events thread, the cancel path, and how a run's
    exception ends the execute (_raised). A subclass sets ``orchestrator`` (its ORCHESTRATOR) and
    ``run_class`` (its Run: the counters of one execute, with turns, cancelled, open_request,
    open_calls and last_content) and implements ``_execute(prompt)``."""

    orchestrator = ""
    run_class: type = object

    def __init__(self, client: OckClient, session: dict):
        self.client = client
        self.session = session
        self.config = session.get("config") or {}
        self.provider = first_provider(session)
        self.run = self.run_class()
        self.executes = 0
        self.history: list = []
        self.task: asyncio.Task | None = None  # the execute's task while its run may be cancelled
        self.in_execute = False
        self.sigint_seen = False  # a SIGINT came while prompt:submit was out
        self.events = concurrent.futures.ThreadPoolExecutor(max_workers=1)

    async def emit(self, event: str, data: dict) -> dict:
        """One event, POSTed by the one events thread: the events reach the harness in the order they
        were sent, also when a cancelled task stops waiting for one whose POST goes on."""
        return await asyncio.get_running_loop().run_in_executor(self.events, self.client.emit, event, data)

    async def _complete(self, status: str, **extra) -> None:
        await self.emit("orchestrator:complete", {"orchestrator": self.orchestrator, "turn_count": self.run.turns,
                                                  "status": status, **extra})

    async def _execute(self, prompt: str) -> None:
        raise NotImplementedError

    async def execute(self, prompt: str) -> None:
        self.run = self.run_class()
        self.in_execute, self.sigint_seen = True, False
        try:
            await self._execute(prompt)
        finally:
            self.in_execute, self.task = False, None
            self.executes += 1

    async def _raised(self, e: Exception, limit_error: type) -> None:
        """The end of an execute whose run raised e: a deny (Denied) is prompt:complete with the
        reason and incomplete denied; the framework's iteration-limit exception (limit_error) is
        prompt:complete with the last content and incomplete max_iterations; anything else is
        error, with e's error as for provider:error."""
        self.task = None  # the outcome is decided: a SIGINT from here is ignored
        if isinstance(e, Denied):
            await self.emit("prompt:complete", {"response": f"Denied: {e.reason}"})
            return await self._complete("incomplete", reason="denied")
        if isinstance(e, limit_error):
            await self.emit("prompt:complete", {"response": self.run.last_content})
            return await self._complete("incomplete", reason="max_iterations")
        return await self._complete("error", error=provider_error(e)["error"])

    def _start_work(self) -> None:
        """Called by _execute inside the try that handles CancelledError, once prompt:submit's reply
        let the prompt run: from here a SIGINT cancels the task. One that arrived earlier (while
        prompt:submit was out) cancels it now; before this point it only waits, because a deny or
        an empty prompt decides the execute without a cancel (SPEC.md 5.10)."""
        self.task = asyncio.current_task()
        if self.sigint_seen:
            self._cancel()

    def _closing(self, call_id: str) -> None:
        """A call's tool:post or tool:error is about to go out: a cancel from now on leaves it be."""
        self.run.open_calls.pop(call_id, None)

    async def _close_open(self) -> None:
        """After a cancel: the request and the tool calls still open (the framework cancelled their
        tasks without waiting for them) are closed before cancel:completed (SPEC.md 5.10)."""
        run = self.run
        if run.open_request is not None:
            it, run.open_request = run.open_request, None
            run.turns += 1
            await self.emit("provider:error", {"provider": self.provider["name"], "iteration": it, "attempt": 1,
                                               "error": dict(CANCELLED), "retryable": False, "status_code": None})
        for ids in list(run.open_calls.values()):
            run.open_calls.pop(ids["tool_call_id"], None)
            await self.emit("tool:error", {**ids, "error": dict(CANCELLED)})

    def on_sigint(self) -> None:
        """SIGINT during a run: cancel:requested once, then the run's task is cancelled. Before the
        run starts it is kept for _start_work; after the run (the answer given) or between executes
        it is ignored."""
        if self.task is None:
            self.sigint_seen = self.in_execute
            return
        self._cancel()

    def _cancel(self) -> None:
        if self.task is None or self.run.cancelled:
            return
        self.run.cancelled = True
        self.events.submit(self.client.emit, "cancel:requested",
                           {"orchestrator": self.orchestrator, "turn_count": self.run.turns})
        self.task.cancel()


async def run_session(bridge: AsyncBridge) -> None:
    """Each prompt of the session in turn, each in its own task (the one SIGINT cancels)."""
    asyncio.get_running_loop().add_signal_handler(signal.SIGINT, bridge.on_sigint)
    for prompt in bridge.session.get("prompts") or []:
        await asyncio.create_task(bridge.execute(prompt))


def run_bridge(bridge_class: type) -> int:
    """A console script's main: the session of $OCK_URL, run to its end."""
    client = OckClient(os.environ["OCK_URL"])
    session = client.session()
    asyncio.run(run_session(bridge_class(client, session)))
    return 0
