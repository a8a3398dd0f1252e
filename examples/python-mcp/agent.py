"""A plain Python agent: the official openai client (Chat Completions) with its tools from an MCP
server through the official mcp client, one conversation, prompts read one a line from stdin.
No line of it knows about OCK: `ock run --blackbox` grades it as it is (SPEC.md 9.7), which is
how make test-frameworks runs it.

Environment: OPENAI_BASE_URL and OPENAI_API_KEY (read by the openai client), MCP_URL or
OCK_MCP_URL (the MCP server), MODEL (default gpt-4o-mini), MAX_STEPS (default 10)."""
from __future__ import annotations

import asyncio
import json
import os
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from openai import AsyncOpenAI

MODEL = os.environ.get("MODEL", "gpt-4o-mini")
MAX_STEPS = int(os.environ.get("MAX_STEPS", "10"))


def openai_tools(listed) -> list[dict]:
    """The MCP server's tools as Chat Completions function tools."""
    return [{"type": "function", "function": {"name": t.name, "description": t.description or "",
                                               "parameters": t.input_schema or {"type": "object"}}}
            for t in listed.tools]


def result_text(result) -> str:
    """An MCP tool result as the tool message's text; a failed call says so."""
    text = "".join(c.text for c in result.content if getattr(c, "type", "") == "text")
    return f"Error: {text}" if result.is_error and not text.startswith("Error") else text


async def run_tool(mcp: ClientSession, call) -> str:
    try:
        arguments = json.loads(call.function.arguments or "{}")
    except ValueError as e:
        return f"Error: invalid arguments: {e}"
    if not isinstance(arguments, dict):
        return "Error: invalid arguments: not a JSON object"
    try:
        return result_text(await mcp.call_tool(call.function.name, arguments))
    except Exception as e:  # the server's error answer, or a broken connection
        return f"Error: {e}"


async def answer(openai: AsyncOpenAI, mcp: ClientSession, tools: list[dict], messages: list) -> str:
    """One prompt: requests and tool rounds until a reply without tool calls, at most MAX_STEPS."""
    for _ in range(MAX_STEPS):
        offered = {"tools": tools} if tools else {}  # no tools: no tools field at all
        reply = await openai.chat.completions.create(model=MODEL, messages=messages, **offered)
        message = reply.choices[0].message
        calls = message.tool_calls or []
        if not calls:
            if message.content:  # an empty reply is an empty answer, not a message to keep
                messages.append({"role": "assistant", "content": message.content})
            return message.content or ""
        messages.append({"role": "assistant", "content": message.content or "",
                         "tool_calls": [c.model_dump(exclude_none=True) for c in calls]})
        for call in calls:
            if reply.choices[0].finish_reason == "length":  # cut at the token limit: its arguments are too
                text = "Error: invalid arguments: the reply was cut at the token limit"
            else:
                text = await run_tool(mcp, call)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": text})
    return ""


async def main() -> int:
    openai = AsyncOpenAI()
    url = os.environ.get("MCP_URL") or os.environ["OCK_MCP_URL"]
    async with streamable_http_client(url) as streams:
        async with ClientSession(streams[0], streams[1]) as mcp:
            await mcp.initialize()
            tools = openai_tools(await mcp.list_tools())
            messages: list = []
            for line in sys.stdin:
                prompt = line.rstrip("\n").replace("\\n", "\n")
                if not prompt.strip():
                    continue
                messages.append({"role": "user", "content": prompt})
                try:
                    print(await answer(openai, mcp, tools, messages), flush=True)
                except Exception as e:
                    print(f"error: {e}", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
