"""The Amplifier contract's BasicOrchestrator example, corrected to meet ock/1 (SPEC.md).

Same shape as examples/basic_orchestrator_faithful.py (one provider, a loop of LLM turns, tools
run in call order), with what the example lacks added: input validation, every core event with
its SPEC.md section 4 payload, the hook replies of section 5.6 (deny, ask_user, modify,
inject_context kept and ephemeral), tool results for every call (unknown tool, denied,
invalid arguments, endpoint failure, timeout), the assistant message with its tool calls stored
before the tools run, the max_iterations wrap-up request of section 5.5, the fail_fast and
continue error strategies, cancellation by SIGINT (section 5.10), and exactly one
orchestrator:complete on every path.

Capabilities it meets: core, cancellation. It does not stream, run tools concurrently, retry,
fall back, schedule or report lifecycle stages, so it declares nothing else:

    build/bin/ock run --orchestrator \
        "python3 adapters/python/ock_adapter.py examples/basic_orchestrator_corrected.py" \
        --capabilities core,cancellation
"""

import asyncio
import json
import uuid

ORCHESTRATOR = "basic-corrected"
CAPABILITIES = ("core", "cancellation")

REMINDER = (
    '<system-reminder source="orchestrator-loop-limit">\n'
    "You have reached the maximum number of iterations for this turn. Please provide a response "
    "to the user now, summarizing your progress and noting what remains to be done.\n"
    "</system-reminder>"
)
CANCELLED_MESSAGE = "The previous operation was cancelled."
FAIL_FAST_TYPES = ("execution_failed", "timeout", "invalid_arguments")
# SPEC.md 5.8 step 1: the finish reasons of a reply stopped at the output token limit, per wire
TOKEN_LIMIT_REASONS = ("length", "max_tokens", "max_output_tokens", "MAX_TOKENS")
TOKEN_LIMIT_DETAIL = "the reply stopped at the output token limit; the arguments may be cut short"
# SPEC.md 5.12: what an empty prompt may consist of, the Unicode White_Space characters
BLANK = (
    " \t\r\n\v\f\u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


def compact(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def result_text(result):
    """SPEC.md 5.11: the text fed back for a ToolResult the endpoint returned."""
    if result.get("success") is True:
        output = result.get("output")
        return output if isinstance(output, str) else compact(output)
    error = result.get("error")
    message = error.get("message") if isinstance(error, dict) else None
    return f"Error: {message}" if isinstance(message, str) and message else "Error: unknown error"


def deny_reason(reply):
    if reply.action == "ask_user":
        return "No approval system available"
    return reply.reason if isinstance(reply.reason, str) and reply.reason else "no reason given"


def is_deny(reply):
    return reply.action in ("deny", "ask_user")


class _Run:
    """What one execute has done so far, so that every exit can close it by the contract."""

    def __init__(self):
        self.turn_count = 0
        self.status = None          # success | incomplete | error | cancelled
        self.reason = None
        self.error = None
        self.response = None
        self.prompt_complete_sent = False
        self.cancel_requested = False
        self.open_request = None    # (provider, iteration) of a provider:request not yet closed
        self.pending = None         # (text, calls) of a reply with calls not yet stored
        self.unstored_prompt = None # the valid prompt until it is stored (or denied)
        self.round = None           # the open tool round, see _ToolRound
        self.kept = []              # kept injections waiting for the tool round to close
        self.ephemeral = []         # injections for the next request only


class _Call:
    def __init__(self, call):
        self.id = call["id"]
        self.name = call["name"]
        self.arguments = call.get("arguments")
        self.started = False        # tool:pre was sent
        self.closed = False         # tool:post or tool:error was sent
        self.text = None            # the result text, once known


class _ToolRound:
    def __init__(self, calls, group):
        self.calls = [_Call(c) for c in calls]
        self.group = group
        self.message = None         # the assistant message that issued the calls
        self.cut = False            # the reply stopped at the output token limit


class BasicOrchestrator:
    def __init__(self, config):
        self.max_iterations = int(config.get("max_iterations", 10))
        self.error_strategy = config.get("error_strategy", "continue")
        self.tool_timeout = config.get("tool_timeout_ms", 30000) / 1000.0
        self.request_timeout = config.get("request_timeout_ms", 60000) / 1000.0

    # ---- the execute -----------------------------------------------------------------------------

    async def execute(self, prompt, context, providers, tools, hooks):
        run = _Run()
        self._context, self._hooks = context, hooks
        try:
            await self._execute(run, prompt, context, providers, tools)
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None:
                current.uncancel()  # handled here: the execute ends by the contract and returns
            if not run.prompt_complete_sent:  # after prompt:complete a SIGINT is ignored (SPEC.md 5.10)
                await self._cancel(run)
        except Exception as e:  # a bug of this orchestrator: still end the execute by the contract
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
            run.unstored_prompt = prompt  # a cancel from here on still stores it (SPEC.md 5.10 step 5)
        try:
            reply = await self._emit("prompt:submit", {"prompt": prompt})
        except asyncio.CancelledError:
            # SPEC.md 5.10: a SIGINT in an execute that sends no request by decision (no provider,
            # a blank prompt, a denied prompt:submit) is ignored; the refusal decides the end.
            reply = self._last_reply
            if providers and prompt.strip(BLANK) and not (reply is not None and is_deny(reply)):
                raise
            asyncio.current_task().uncancel()
        # Invalid input first, whatever the reply (SPEC.md 5.2, 5.12): nothing is stored.
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
        specs = [{"name": t.name, "description": t.description, "input_schema": t.input_schema}
                 for t in tools.values()]
        iteration = 0
        while True:
            iteration += 1
            wrap_up = iteration > self.max_iterations
            run.open_request = (provider, iteration)  # open as soon as the event is out
            reply = await self._emit("provider:request", {
                "provider": provider.name, "model": provider.model, "iteration": iteration, "attempt": 1},
                run=run)
            if is_deny(reply):
                run.open_request = None
                await self._answer(run, "incomplete", f"Denied: {deny_reason(reply)}", reason="denied")
                return
            await self._apply_injection(run, reply)

            messages = await context.get_messages_for_request(provider=provider)
            messages += run.ephemeral
            run.ephemeral = []
            if wrap_up:
                messages.append({"role": "user", "content": REMINDER})  # this request only, never stored
            request = {"messages": messages, "timeout": self.request_timeout}
            if not wrap_up:
                request["tools"] = specs
            run.turn_count += 1
            try:
                response = await provider.complete(request)
            except asyncio.CancelledError:
                raise
            except Exception as e:
                await self._provider_error(run, provider, iteration, e)
                return
            calls = provider.parse_tool_calls(response)
            text = response.get("text")
            if not isinstance(text, str):
                text = "".join(b.get("text", "") for b in response.get("content", []) if b.get("type") == "text")
            run.open_request = None
            if calls and not wrap_up:
                run.pending = (text, calls)  # received, not stored yet: a cancel must still answer them
            reply = await self._emit("provider:response", {
                "provider": provider.name, "iteration": iteration, "content": text,
                "tool_calls": [{"id": c["id"], "name": c["name"], "arguments": c["arguments"]} for c in calls],
                "finish_reason": response.get("finish_reason") or "", "usage": response.get("usage") or {}})
            await self._apply_injection(run, reply)

            if wrap_up or not calls:
                # A final answer; a wrap-up reply's tool calls are discarded. An empty answer is not stored.
                if text:
                    await context.add_message({"role": "assistant", "content": text})
                if wrap_up:
                    await self._answer(run, "incomplete", text, reason="max_iterations")
                else:
                    await self._answer(run, "success", text)
                return

            # The assistant message with all its calls goes in before any tool runs.
            self._open_round(run, text, calls)
            run.round.cut = response.get("finish_reason") in TOKEN_LIMIT_REASONS
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
    def _open_round(run, text, calls):
        run.pending = None
        run.round = _ToolRound(calls, f"pg-{uuid.uuid4().hex[:12]}")
        run.round.message = {"role": "assistant", "content": text, "tool_calls": [
            {"id": c["id"], "name": c["name"], "arguments": c["arguments"]} for c in calls]}

    # ---- one tool call (SPEC.md 5.8) ---------------------------------------------------------------

    async def _run_call(self, run, call, tools):
        """Runs one call to its result text. Returns (tool:error type or None, message)."""
        tool_input = self._parse_arguments(call.arguments)
        if run.round.cut and isinstance(tool_input, dict):
            # SPEC.md 5.8 step 1: a reply stopped at the token limit may have cut the arguments
            # where they still parse; they are invalid unless a modify replaces them.
            tool_input = call.arguments if isinstance(call.arguments, str) else json.dumps(tool_input)
        call.started = True
        reply = await self._emit("tool:pre", {
            "tool_call_id": call.id, "tool_name": call.name, "tool_input": tool_input,
            "parallel_group_id": run.round.group})
        await self._apply_injection(run, reply)
        if is_deny(reply):
            reason = deny_reason(reply)
            return await self._tool_error(run, call, "denied", f"denied: {reason}", f"Error: denied: {reason}")
        if reply.action == "modify" and isinstance(reply.data, dict) and isinstance(reply.data.get("tool_input"), dict):
            tool_input = reply.data["tool_input"]  # by value; the stored call keeps the model's arguments
        tool = tools.get(call.name)
        if tool is None:
            message = f"tool '{call.name}' not found"
            return await self._tool_error(run, call, "not_found", message, f"Error: {message}")
        if not isinstance(tool_input, dict):
            detail = (TOKEN_LIMIT_DETAIL if run.round.cut and isinstance(self._parse_arguments(tool_input), dict)
                      else self._argument_problem(tool_input))
            return await self._tool_error(run, call, "invalid_arguments", f"invalid arguments: {detail}",
                                          f"Error: invalid arguments: {detail}")
        try:
            result = await tool.execute(tool_input, tool_call_id=call.id, timeout=self.tool_timeout)
        except asyncio.CancelledError:
            raise
        except TimeoutError:
            message = f"tool timed out after {round(self.tool_timeout * 1000)} ms"
            return await self._tool_error(run, call, "timeout", message, f"Error: {message}")
        except Exception as e:
            message = str(e) or type(e).__name__
            return await self._tool_error(run, call, "execution_failed", message, f"Error: {message}")
        body = result.to_dict()
        call.text = result_text(body)
        call.closed = True
        reply = await self._emit("tool:post", {
            "tool_call_id": call.id, "tool_name": call.name, "result": body,
            "parallel_group_id": run.round.group, "tool_input": tool_input})
        await self._apply_injection(run, reply)
        return None, ""

    async def _tool_error(self, run, call, error_type, message, text):
        call.text = text
        call.closed = True
        reply = await self._emit("tool:error", {
            "tool_call_id": call.id, "tool_name": call.name,
            "error": {"type": error_type, "message": message}, "parallel_group_id": run.round.group})
        await self._apply_injection(run, reply)
        return error_type, message

    @staticmethod
    def _parse_arguments(arguments):
        """The call's input: a JSON object, {} for empty arguments, else the raw text (invalid)."""
        if isinstance(arguments, dict):
            return arguments
        if arguments is None:
            return {}
        if isinstance(arguments, str):
            if not arguments.strip():
                return {}
            try:
                parsed = json.loads(arguments)
            except ValueError:
                return arguments
            return parsed if isinstance(parsed, dict) else arguments
        return arguments

    @staticmethod
    def _argument_problem(raw):
        if isinstance(raw, str):
            try:
                value = json.loads(raw)
            except ValueError as e:
                return f"not JSON ({e})"
            return f"a JSON {type(value).__name__}, not an object"
        return f"a {type(raw).__name__}, not an object"

    async def _close_round(self, run):
        """Stores every result of the open round in call order, then the waiting injections."""
        for call in run.round.calls:
            await self._context.add_message({"role": "tool", "tool_call_id": call.id, "content": call.text})
        run.round = None
        for message in run.kept:
            await self._context.add_message(message)
        run.kept = []

    # ---- endings ---------------------------------------------------------------------------------

    async def _answer(self, run, status, response, reason=None):
        run.status, run.reason, run.response = status, reason, response
        run.prompt_complete_sent = True
        await self._emit("prompt:complete", {"response": response})

    async def _provider_error(self, run, provider, iteration, e):
        error_type = getattr(e, "type", None) or "connection_error"
        message = getattr(e, "message", None) or str(e) or type(e).__name__
        run.open_request = None
        run.status, run.error = "error", {"type": error_type, "message": message}
        await self._emit("provider:error", {
            "provider": provider.name, "iteration": iteration, "attempt": 1,
            "error": {"type": error_type, "message": message},
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
        if run.pending is not None:  # a reply with calls was reported but not stored yet
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
        run.cancel_requested = True
        run.status = "cancelled"
        await self._emit("cancel:requested", {"orchestrator": ORCHESTRATOR, "turn_count": run.turn_count})
        if run.unstored_prompt is not None:  # cancelled while prompt:submit was out
            await self._context.add_message({"role": "user", "content": run.unstored_prompt})
            run.unstored_prompt = None
        await self._close_open(run, "cancelled", "cancelled before it finished")
        for message in run.kept:
            await self._context.add_message(message)
        run.kept = []
        await self._context.add_message({"role": "assistant", "content": CANCELLED_MESSAGE})
        await self._emit("cancel:completed", {"orchestrator": ORCHESTRATOR, "turn_count": run.turn_count})

    # ---- hooks -----------------------------------------------------------------------------------

    async def _emit(self, event, data, run=None):
        """Sends one event and waits for its reply. If a cancellation arrives meanwhile, the event
        is still delivered (so the journal holds what this run believes it sent), then the
        cancellation is raised."""
        task = asyncio.ensure_future(self._hooks.emit(event, data))
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            try:
                reply = await task
            except Exception:
                reply = None
            self._last_reply = reply  # the reply the cancellation interrupted, for _execute
            if run is not None and event == "provider:request" and reply is not None and is_deny(reply):
                run.open_request = None  # denied: that request never opened
            raise

    async def _apply_injection(self, run, reply):
        """SPEC.md 5.6 inject_context: ephemeral -> the next request only; kept -> stored now, or
        after the open tool round's results."""
        if reply.action != "inject_context" or not isinstance(reply.context_injection, str) \
                or not reply.context_injection:
            return
        role = reply.context_injection_role if reply.context_injection_role in ("system", "user", "assistant") else "system"
        message = {"role": role, "content": reply.context_injection}
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
