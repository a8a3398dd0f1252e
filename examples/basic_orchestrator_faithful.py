"""The BasicOrchestrator example of the Amplifier orchestrator contract, ported faithfully.

Source: the "Example Implementation" of the Amplifier Orchestrator Contract
(microsoft/amplifier-core docs/contracts/ORCHESTRATOR_CONTRACT.md). The logic, the events and their payloads are the example's, defects
included, so that OCK shows what the example gets wrong. The only changes are the comments:
each `# DEFECT:` line names, in one sentence, what breaks at that line and the SPEC.md
requirement it violates. It runs unchanged under adapters/python/ock_adapter.py, which provides
`amplifier_core.models` when Amplifier is not installed and gives the tools'
`get_serialized_output()` Amplifier's behaviour.

    build/bin/ock run --orchestrator \
        "python3 adapters/python/ock_adapter.py examples/basic_orchestrator_faithful.py" \
        --capabilities core
"""

from amplifier_core.models import HookResult  # noqa: F401 - imported and never used, as in the example


class BasicOrchestrator:
    def __init__(self, config):
        self.max_iterations = config.get("max_iterations", 10)
        self.parallel_tools = config.get("parallel_tools", False)

    async def execute(self, prompt, context, providers, tools, hooks):
        # DEFECT: no check for an empty prompt or an empty provider list: such an execute stores the prompt, then fails or asks the model anyway (OCK-VALID-001, OCK-VALID-002).
        # DEFECT: no try/finally, so any exception below leaves the execute without orchestrator:complete (OCK-COMPLETE-001).
        # DEFECT: a SIGINT's CancelledError escapes too: no cancel:requested/cancel:completed, no cancelled results, no closing message (OCK-CANCEL-001..003).
        # Emit prompt received
        # DEFECT: the hook reply is ignored, so a deny on prompt:submit is not honoured (OCK-HOOK-001); inject_context replies are dropped everywhere (OCK-HOOK-004, OCK-HOOK-005).
        await hooks.emit("prompt:submit", {"prompt": prompt})

        # Add user message
        await context.add_message({"role": "user", "content": prompt})

        # Get first provider
        # DEFECT: with no provider this raises IndexError: no orchestrator:complete with error no_provider (OCK-VALID-002, OCK-COMPLETE-001).
        provider = list(providers.values())[0]
        iteration = 0

        # DEFECT: after max_iterations turns the loop stops without the one wrap-up request SPEC.md 5.5 requires (OCK-COMPLETE-006 then sees no reason max_iterations).
        for iteration in range(self.max_iterations):
            # Get messages with dynamic token budget from provider
            messages = await context.get_messages_for_request(provider=provider)

            # Emit request event
            # DEFECT: the payload lacks provider, model and attempt and counts iteration from 0 (OCK-PROC-005); a deny reply is not honoured (OCK-HOOK-002).
            await hooks.emit("provider:request", {
                "messages": messages,
                "iteration": iteration
            })

            # Call provider
            # DEFECT: the session's tools are never offered to the model (SPEC.md 7.3: every request but the wrap-up offers them).
            # DEFECT: a provider error escapes: no provider:error and no orchestrator:complete with status error (OCK-ERROR-001, OCK-ORDER-002, OCK-COMPLETE-001).
            response = await provider.complete({"messages": messages})

            # Emit response event
            # DEFECT: the payload lacks provider, iteration, content, tool_calls and finish_reason (OCK-ORDER-008, OCK-PROC-005).
            await hooks.emit("provider:response", {
                "response": response,
                "usage": response.get("usage", {})
            })

            # Add response to context
            # DEFECT: the assistant message is stored without its tool_calls, so the next request carries results for calls it never issued (OCK-ORPHAN-006, OCK-ORPHAN-002).
            # DEFECT: an empty reply is stored as an empty assistant message (SPEC.md 5.14).
            await context.add_message({
                "role": "assistant",
                "content": response["content"]
            })

            # Parse tool calls
            tool_calls = provider.parse_tool_calls(response)

            if not tool_calls:
                # No tools - complete successfully
                final_text = self._extract_text(response)

                await hooks.emit("prompt:complete", {"response": final_text})
                await hooks.emit("orchestrator:complete", {
                    "orchestrator": "basic",
                    "turn_count": iteration + 1,
                    "status": "success"
                })

                return final_text

            # Execute tools
            # DEFECT: parallel_tools is read but the calls always run one after another (OCK-PARALLEL-002 if parallel were declared).
            for call in tool_calls:
                tool = tools.get(call["name"])
                # DEFECT: an unknown tool is skipped silently: no tool:pre, no tool:error not_found and no result, leaving its call orphaned (OCK-TOOL-001, OCK-ORPHAN-001).
                if tool:
                    # Emit pre-execution
                    # DEFECT: no tool_call_id and no parallel_group_id, and the input key is "input", not "tool_input" (OCK-TOOL-007, OCK-ORDER-007, OCK-PROC-005); a deny or modify reply is ignored (OCK-HOOK-003, OCK-HOOK-006).
                    await hooks.emit("tool:pre", {
                        "tool_name": call["name"],
                        "input": call["input"]
                    })

                    # Execute tool
                    # DEFECT: arguments that are not a JSON object are sent to the tool anyway (OCK-TOOL-005).
                    # DEFECT: an endpoint failure raises out of execute(): no tool:error, no result, no orchestrator:complete (OCK-TOOL-003, OCK-COMPLETE-001).
                    # DEFECT: no tool_timeout_ms: a slow tool is awaited as long as it takes, never ended with tool:error timeout (OCK-TOOL-003).
                    result = await tool.execute(call["input"])

                    # Emit post-execution
                    # DEFECT: no tool_call_id and no parallel_group_id (OCK-TOOL-007, OCK-ORDER-007, OCK-PROC-005).
                    await hooks.emit("tool:post", {
                        "tool_name": call["name"],
                        "result": result
                    })

                    # Add result to context
                    # DEFECT: a failed ToolResult that carries output is fed back as that output, not "Error: <message>" (OCK-TOOL-002).
                    # DEFECT: JSON output is fed back with json.dumps' spaced separators, not as compact JSON (OCK-TOOL-006).
                    await context.add_message({
                        "role": "tool",
                        "tool_call_id": call["id"],
                        "content": result.get_serialized_output()
                    })

        # Max iterations reached
        # DEFECT: status incomplete without prompt:complete and without reason max_iterations (OCK-ORDER-004, OCK-COMPLETE-006).
        # DEFECT: the last turn's tool results stay in the context after an assistant message without tool_calls, which breaks the next execute's history (OCK-ORPHAN-007).
        await hooks.emit("orchestrator:complete", {
            "orchestrator": "basic",
            "turn_count": iteration + 1,
            "status": "incomplete"
        })

        return "Max iterations reached"

    def _extract_text(self, response):
        for block in response.get("content", []):
            if block.get("type") == "text":
                return block.get("text", "")
        return ""
