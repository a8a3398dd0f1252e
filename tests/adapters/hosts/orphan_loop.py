"""A loop that leaves an orphan the way a content-block-only store does (for
test_amplifier_host.py): it stores the reply's content blocks, a ToolCallBlock among them, with
no tool_calls key and no result, then asks again. The host must put the call on the wire."""

from amplifier_core.message_models import ChatRequest, Message


class OrphanLoop:
    def __init__(self, config):
        self.config = config

    async def execute(self, prompt, context, providers, tools, hooks, coordinator=None):
        await hooks.emit("prompt:submit", {"prompt": prompt})
        await context.add_message({"role": "user", "content": prompt})
        provider = next(iter(providers.values()))
        turns = 0
        text = ""
        for _ in range(2):
            turns += 1
            messages = [Message(**m) for m in await context.get_messages_for_request()]
            try:
                response = await provider.complete(ChatRequest(messages=messages))
            except Exception:  # noqa: BLE001 - the mock may refuse the broken history
                break
            text = "".join(b.text for b in response.content if b.type == "text")
            await context.add_message({"role": "assistant", "content": [b.model_dump() for b in response.content]})
            if not response.tool_calls:
                break
        await hooks.emit("prompt:complete", {"response": text})
        await hooks.emit("orchestrator:complete", {"orchestrator": "orphan", "turn_count": turns, "status": "success"})
        return text
