"""An Amplifier orchestrator module that meets ock/1's core and cancellation requirements.

It is shaped like Amplifier's published loop modules, so that `make test` exercises, without
fetching them, every path of the host `ock-amplifier` that they use:

- `mount(coordinator, config)` mounts the orchestrator; the package imports its own `texts`
  module package-relative;
- `execute(prompt, context, providers, tools, hooks, coordinator)` is called by keyword;
- requests are amplifier-core `ChatRequest`s of `Message`s and `ToolSpec`s; replies are read by
  attribute (`response.content` blocks, `response.tool_calls` of `ToolCall`, `finish_reason`,
  `usage`), and the assistant message stores the content blocks (ToolCallBlock included) next
  to `tool_calls`, as loop-basic does;
- a call whose arguments are `{}` is run with `{}` (loop-basic crashes there);
- hook replies come through the kernel's HookRegistry; `ask_user` goes through the kernel's
  `coordinator.process_hook_result` (no approval system: denied);
- cancellation is the coordinator's token: the loop watches it and abandons what is in flight
  (the host also cancels the task on a second SIGINT);
- failures are amplifier-core's `LLMError` classes and the real `ToolResult`.

Run it:

    build/bin/ock run --capabilities core,cancellation \\
      --orchestrator "build/venv/bin/ock-amplifier examples/amplifier-loop"
"""

import asyncio
import uuid

from amplifier_core.message_models import ChatRequest, Message, ToolSpec

from .texts import (BLANK, CANCELLED_MESSAGE, FAIL_FAST_TYPES, ORCHESTRATOR, REMINDER, deny_reason,
                    error_type, result_text)

__amplifier_module_type__ = "orchestrator"


async def mount(coordinator, config=None):
    await coordinator.mount("orchestrator", ExampleOrchestrator(config or {}))


def is_deny(reply):
    return reply.action in ("deny", "ask_user")


class _Run:
    """What one execute has done so far, so that every exit can close it by the contract."""

    def __init__(self):
        self.turn_count = 0
        self.status = None           # success | incomplete | error | cancelled
        self.reason = None
        self.error = None
        self.response = None
        self.prompt_complete_sent = False
        self.open_request = None     # (provider, iteration) of a provider:request not yet closed
        self.pending = None          # (text, content, calls) of a reply with calls not yet stored
        self.unstored_prompt = None  # the valid prompt until it is stored (or denied)
        self.round = None            # the open tool round
        self.kept = []               # kept injections waiting for the tool round to close
        self.ephemeral = []          # injections for the next request only


class _Call:
    def __init__(self, call):
        self.id, self.name, self.arguments = call.id, call.name, call.arguments
        self.started = False         # tool:pre was sent
        self.closed = False          # tool:post or tool:error was sent
        self.text = None             # the result text, once known


class _ToolRound:
    def __init__(self, text, content, calls):
        self.calls = [_Call(c) for c in calls]
        self.group = f"pg-{uuid.uuid4().hex[:12]}"
        self.message = {"role": "assistant", "content": content or text,
                        "tool_calls": [{"id": c.id, "tool": c.name, "arguments": c.arguments} for c in calls]}


class ExampleOrchestrator:
    def __init__(self, config):
        self.max_iterations = int(config.get("max_iterations", 10))
        self.error_strategy = config.get("error_strategy", "continue")
        self.tool_timeout = config.get("tool_timeout_ms", 30000) / 1000.0
        self.request_timeout = config.get("request_timeout_ms", 60000) / 1000.0
        self._interrupted = False

    # ---- the execute and its cancellation ------------------------------------------------------

    async def execute(self, prompt, context, providers, tools, hooks, coordinator=None):
        self._context, self._hooks, self._coordinator = context, hooks, coordinator
        self._interrupted, self._last_reply = False, None
        inner = asyncio.ensure_future(self._guarded(prompt, context, providers, tools))
        token = coordinator.cancellation if coordinator is not None else None
        watch = asyncio.ensure_future(self._watch(token, inner)) if token is not None else None
        try:
            while True:
                try:
                    return await asyncio.shield(inner)
                except asyncio.CancelledError:
                    # The host cancels this task on an immediate cancel: the inner run stops the
                    # same way as on the token, and still ends by the contract.
                    asyncio.current_task().uncancel()
                    self._interrupt(inner)
        finally:
            if watch is not None:
                watch.cancel()

    def _interrupt(self, inner):
        if not self._interrupted and not inner.done():
            self._interrupted = True
            inner.cancel()

    async def _watch(self, token, inner):
        """Turns the coordinator's token (graceful or immediate) into stopping now: an LLM
        request or tool in flight is abandoned (SPEC.md 5.10)."""
        while not inner.done():
            if token.is_cancelled:
                self._interrupt(inner)
                return
            await asyncio.sleep(0.01)

    async def _guarded(self, prompt, context, providers, tools):
        run = _Run()
        try:
            await self._execute(run, prompt, context, providers, tools)
        except asyncio.CancelledError:
            asyncio.current_task().uncancel()  # handled: the execute ends by the contract
            if not run.prompt_complete_sent:   # after prompt:complete a SIGINT is ignored
                await self._cancel(run)
        except Exception as e:  # a bug of this loop: still end the execute by the contract
            await self._close_open(run, "execution_failed", f"internal error: {e}")
            run.status, run.error = "error", {"type": "internal_error", "message": str(e) or type(e).__name__}
            raise
        finally:
            data = {"orchestrator": ORCHESTRATOR, "turn_count": run.turn_count, "status": run.status or "error"}
            if run.status == "incomplete":
                data["reason"] = run.reason
            if run.status == "error" or run.status is None:
                data["error"] = run.error or {"type": "internal_error", "message": "execute ended without a status"}
            try:
                await self._emit("orchestrator:complete", data)
            except asyncio.CancelledError:
                pass  # it was sent (see _emit); the execute is over
        return run.response or ""

    async def _execute(self, run, prompt, context, providers, tools):
        if providers and prompt.strip(BLANK):
            run.unstored_prompt = prompt  # a cancel from here on still stores it
        try:
            reply = await self._emit("prompt:submit", {"prompt": prompt})
        except asyncio.CancelledError:
            # A SIGINT in an execute that sends no request by decision is ignored.
            reply = self._last_reply
            if providers and prompt.strip(BLANK) and not (reply is not None and is_deny(reply)):
                raise
            asyncio.current_task().uncancel()
        if not providers:
            run.status, run.error = "error", {"type": "no_provider", "message": "the session has no provider"}
            return
        if not prompt.strip(BLANK):
            run.status, run.error = "error", {"type": "invalid_input", "message": "the prompt is empty"}
            return
        if is_deny(reply):
            run.unstored_prompt = None
            await self._answer(run, "incomplete", f"Denied: {deny_reason(reply)}", reason="denied")
            return
        run.unstored_prompt = None
        await context.add_message({"role": "user", "content": prompt})
        await self._apply_injection(run, reply)

        provider = self._first_provider(providers)
        specs = [ToolSpec(name=t.name, description=t.description, parameters=t.input_schema)
                 for t in tools.values()]
        iteration = 0
        while True:
            iteration += 1
            wrap_up = iteration > self.max_iterations
            run.open_request = (provider, iteration)
            reply = await self._emit("provider:request", {
                "provider": provider.name, "model": provider.default_model, "iteration": iteration,
                "attempt": 1}, run=run)
            if is_deny(reply):
                run.open_request = None
                await self._answer(run, "incomplete", f"Denied: {deny_reason(reply)}", reason="denied")
                return
            await self._apply_injection(run, reply)

            messages = list(await context.get_messages_for_request(provider=provider)) + run.ephemeral
            run.ephemeral = []
            if wrap_up:
                messages.append({"role": "user", "content": REMINDER})  # this request only
            request = ChatRequest(messages=[Message(**m) for m in messages],
                                  tools=None if wrap_up else specs, timeout=self.request_timeout)
            run.turn_count += 1
            try:
                response = await provider.complete(request)
            except asyncio.CancelledError:
                raise
            except Exception as e:
                await self._provider_error(run, provider, iteration, e)
                return
            text = "".join(b.text for b in response.content if b.type == "text")
            calls = list(response.tool_calls or [])
            content = [b.model_dump() for b in response.content]
            run.open_request = None
            if calls and not wrap_up:
                run.pending = (text, content, calls)  # received, not stored: a cancel must answer them
            reply = await self._emit("provider:response", {
                "provider": provider.name, "iteration": iteration, "content": text,
                "tool_calls": [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in calls],
                "finish_reason": response.finish_reason or "",
                "usage": response.usage.model_dump() if response.usage is not None else {}})
            await self._apply_injection(run, reply)

            if wrap_up or not calls:
                if text:
                    await context.add_message({"role": "assistant", "content": text})
                if wrap_up:
                    await self._answer(run, "incomplete", text, reason="max_iterations")
                else:
                    await self._answer(run, "success", text)
                return

            self._open_round(run, text, content, calls)
            await context.add_message(run.round.message)
            failure = None
            for call in run.round.calls:
                if failure is not None:
                    call.text = "Error: skipped: an earlier tool call failed (fail_fast)"
                    continue
                failed_type, message = await self._run_call(run, call, tools)
                if failed_type in FAIL_FAST_TYPES and self.error_strategy == "fail_fast":
                    failure = {"type": failed_type, "message": message}
            await self._close_round(run)
            if failure is not None:
                run.status, run.error = "error", failure
                return

    @staticmethod
    def _open_round(run, text, content, calls):
        run.pending = None
        run.round = _ToolRound(text, content, calls)

    # ---- one tool call -------------------------------------------------------------------------

    async def _run_call(self, run, call, tools):
        """Runs one call to its result text. Returns (tool:error type or None, message)."""
        tool_input = call.arguments  # a dict: {} for a tool without parameters is run as {}
        call.started = True
        reply = await self._emit("tool:pre", {
            "tool_call_id": call.id, "tool_name": call.name, "tool_input": tool_input,
            "parallel_group_id": run.round.group})
        await self._apply_injection(run, reply)
        if is_deny(reply):
            reason = deny_reason(reply)
            return await self._tool_error(run, call, "denied", f"denied: {reason}", f"Error: denied: {reason}")
        # The registry hands a modify back as continue with the modified data: read it by value.
        if isinstance(reply.data, dict) and isinstance(reply.data.get("tool_input"), dict):
            tool_input = reply.data["tool_input"]
        tool = tools.get(call.name)
        if tool is None:
            message = f"tool '{call.name}' not found"
            return await self._tool_error(run, call, "not_found", message, f"Error: {message}")
        try:
            result = await asyncio.wait_for(tool.execute(tool_input), self.tool_timeout)
        except asyncio.CancelledError:
            raise
        except TimeoutError:
            message = f"tool timed out after {round(self.tool_timeout * 1000)} ms"
            return await self._tool_error(run, call, "timeout", message, f"Error: {message}")
        except Exception as e:
            message = str(e) or type(e).__name__
            return await self._tool_error(run, call, "execution_failed", message, f"Error: {message}")
        body = {"success": result.success, "output": result.output, "error": result.error}
        call.text = result_text(body)
        call.closed = True
        reply = await self._emit("tool:post", {
            "tool_call_id": call.id, "tool_name": call.name, "result": body,
            "parallel_group_id": run.round.group, "tool_input": tool_input})
        await self._apply_injection(run, reply)
        return None, ""

    async def _tool_error(self, run, call, kind, message, text):
        call.text, call.closed = text, True
        reply = await self._emit("tool:error", {
            "tool_call_id": call.id, "tool_name": call.name,
            "error": {"type": kind, "message": message}, "parallel_group_id": run.round.group})
        await self._apply_injection(run, reply)
        return kind, message

    async def _close_round(self, run):
        """Stores every result of the open round in call order, then the waiting injections."""
        for call in run.round.calls:
            await self._context.add_message({"role": "tool", "tool_call_id": call.id, "content": call.text})
        run.round = None
        for message in run.kept:
            await self._context.add_message(message)
        run.kept = []

    # ---- endings -------------------------------------------------------------------------------

    async def _answer(self, run, status, response, reason=None):
        run.status, run.reason, run.response = status, reason, response
        run.prompt_complete_sent = True
        await self._emit("prompt:complete", {"response": response})

    async def _provider_error(self, run, provider, iteration, e):
        kind = error_type(e)
        message = str(e) or type(e).__name__
        run.open_request = None
        run.status, run.error = "error", {"type": kind, "message": message}
        await self._emit("provider:error", {
            "provider": provider.name, "iteration": iteration, "attempt": 1,
            "error": {"type": kind, "message": message},
            "retryable": bool(getattr(e, "retryable", False)), "status_code": getattr(e, "status_code", None)})

    async def _close_open(self, run, tool_error_type, message):
        """Closes an open request and the started calls of an open round, then stores the round."""
        if run.open_request is not None:
            provider, iteration = run.open_request
            run.open_request = None
            await self._emit("provider:error", {
                "provider": provider.name, "iteration": iteration, "attempt": 1,
                "error": {"type": "cancelled" if tool_error_type == "cancelled" else "connection_error",
                          "message": message},
                "retryable": False, "status_code": None})
        if run.pending is not None:
            self._open_round(run, *run.pending)
            await self._context.add_message(run.round.message)
        if run.round is not None:
            for call in run.round.calls:
                if call.text is None:
                    call.text = "Error: cancelled" if tool_error_type == "cancelled" else f"Error: {message}"
                if call.started and not call.closed:
                    call.closed = True
                    await self._emit("tool:error", {
                        "tool_call_id": call.id, "tool_name": call.name,
                        "error": {"type": tool_error_type, "message": message},
                        "parallel_group_id": run.round.group})
            await self._close_round(run)

    async def _cancel(self, run):
        """SPEC.md 5.10: cancel:requested, close what is open, keep finished results, answer the
        rest with "Error: cancelled", store the closing assistant message, cancel:completed."""
        run.status = "cancelled"
        token = self._coordinator.cancellation if self._coordinator is not None else None
        await self._emit("cancel:requested", {"orchestrator": ORCHESTRATOR, "turn_count": run.turn_count,
                                              "state": str(token.state) if token is not None else "none"})
        if token is not None:
            await token.trigger_callbacks()
        if run.unstored_prompt is not None:
            await self._context.add_message({"role": "user", "content": run.unstored_prompt})
            run.unstored_prompt = None
        await self._close_open(run, "cancelled", "cancelled before it finished")
        for message in run.kept:
            await self._context.add_message(message)
        run.kept = []
        await self._context.add_message({"role": "assistant", "content": CANCELLED_MESSAGE})
        await self._emit("cancel:completed", {"orchestrator": ORCHESTRATOR, "turn_count": run.turn_count})

    # ---- hooks ---------------------------------------------------------------------------------

    async def _emit(self, event, data, run=None):
        """Sends one event through the registry and returns its result; ask_user goes through the
        kernel's process_hook_result. A cancellation meanwhile still lets the event out."""
        task = asyncio.ensure_future(self._hooks.emit(event, data))
        try:
            reply = await asyncio.shield(task)
        except asyncio.CancelledError:
            try:
                reply = await task
            except Exception:
                reply = None
            self._last_reply = reply
            if run is not None and event == "provider:request" and reply is not None and is_deny(reply):
                run.open_request = None  # denied: that request never opened
            raise
        if reply.action == "ask_user" and self._coordinator is not None:
            reply = await self._coordinator.process_hook_result(reply, event, ORCHESTRATOR)
        return reply

    async def _apply_injection(self, run, reply):
        """SPEC.md 5.6 inject_context: ephemeral -> the next request only; kept -> stored now, or
        after the open tool round's results."""
        if reply.action != "inject_context" or not reply.context_injection:
            return
        message = {"role": reply.context_injection_role or "system", "content": reply.context_injection}
        if reply.ephemeral:
            run.ephemeral.append(message)
        elif run.round is not None:
            run.kept.append(message)
        else:
            await self._context.add_message(message)

    @staticmethod
    def _first_provider(providers):
        """The provider with the lowest priority number, ties by session order (SPEC.md 5.9)."""
        ranked = sorted(enumerate(providers.values()), key=lambda p: (getattr(p[1], "priority", 100), p[0]))
        return ranked[0][1]
