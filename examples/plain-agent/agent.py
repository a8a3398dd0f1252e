#!/usr/bin/env python3
"""A plain tool-calling agent with no line of OCK code: Python's standard library only.

It speaks OpenAI Chat Completions to $OPENAI_BASE_URL (with $OPENAI_API_KEY), runs its one tool
(get_weather) itself, keeps one conversation, and reads the prompts one a line from standard
input. `--mcp` runs the tool over MCP at $OCK_MCP_URL (JSON-RPC over HTTP) instead of itself.
`--stream` asks for streamed replies (Server-Sent Events). A 429 or 5xx is retried after its Retry-After (at most 3 times). `--drop-tool-results`
is the classic bug: the result of the last call of each reply is left out of the next request,
which a provider answers with HTTP 400.
"""
import json
import os
import sys
import time
import urllib.error
import urllib.request

BASE = os.environ["OPENAI_BASE_URL"].rstrip("/")
KEY = os.environ.get("OPENAI_API_KEY", "")
MODEL = os.environ.get("MODEL", "gpt-4o-mini")
DROP = "--drop-tool-results" in sys.argv
STREAM = "--stream" in sys.argv
MCP = "--mcp" in sys.argv
MCP_VERSION = "2025-06-18"
mcp_session = {}
TOOLS = [{
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                       "required": ["city"]},
    },
}]


def get_weather(args):
    return "15 degrees in " + str(args.get("city", "nowhere"))


def mcp(method, params):
    """One JSON-RPC request to the MCP server; its result."""
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": MCP_VERSION}
    headers.update(mcp_session)
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    req = urllib.request.Request(os.environ["OCK_MCP_URL"], data=body, method="POST",
                                 headers=headers)
    with urllib.request.urlopen(req, timeout=60) as resp:
        if resp.headers.get("Mcp-Session-Id"):
            mcp_session["Mcp-Session-Id"] = resp.headers["Mcp-Session-Id"]
        text = resp.read().decode()
    if text.startswith("event:") or text.startswith("data:"):
        text = next(l[6:] for l in text.splitlines() if l.startswith("data: "))
    return json.loads(text)["result"]


def run_tool(name, args):
    if not MCP:
        return get_weather(args)
    if not mcp_session:
        mcp("initialize", {"protocolVersion": MCP_VERSION, "capabilities": {},
                           "clientInfo": {"name": "plain-agent", "version": "1.0"}})
    result = mcp("tools/call", {"name": name, "arguments": args})
    return "\n".join(c.get("text", "") for c in result.get("content", []))


def read_stream(resp):
    """The message of a streamed reply: its text and tool calls put back together."""
    text, calls = "", {}
    for raw in resp:
        line = raw.decode().strip()
        if not line.startswith("data: ") or line == "data: [DONE]":
            continue
        choices = json.loads(line[6:]).get("choices") or [{}]
        delta = choices[0].get("delta") or {}
        text += delta.get("content") or ""
        for part in delta.get("tool_calls") or []:
            call = calls.setdefault(part["index"], {"id": "", "type": "function",
                                                    "function": {"name": "", "arguments": ""}})
            call["id"] += part.get("id") or ""
            call["function"]["name"] += part.get("function", {}).get("name") or ""
            call["function"]["arguments"] += part.get("function", {}).get("arguments") or ""
    return {"role": "assistant", "content": text or None,
            "tool_calls": [calls[i] for i in sorted(calls)]}


def chat(messages):
    body = json.dumps({"model": MODEL, "messages": messages, "tools": TOOLS,
                       "stream": STREAM}).encode()
    for attempt in range(4):
        req = urllib.request.Request(BASE + "/chat/completions", data=body, method="POST",
                                     headers={"Content-Type": "application/json",
                                              "Authorization": "Bearer " + KEY})
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                return read_stream(resp) if STREAM else json.load(resp)["choices"][0]["message"]
        except urllib.error.HTTPError as err:
            if err.code != 429 and err.code < 500 or attempt == 3:
                raise
            time.sleep(float(err.headers.get("Retry-After") or 1))
    raise RuntimeError("unreachable")


def main():
    messages = []
    for line in sys.stdin:
        prompt = line.rstrip("\n").replace("\\n", "\n").replace("\\\\", "\\")
        messages.append({"role": "user", "content": prompt})
        while True:
            message = chat(messages)
            calls = message.get("tool_calls") or []
            kept = {"role": "assistant", "content": message.get("content")}
            if calls:
                kept["tool_calls"] = calls
            messages.append(kept)
            if not calls:
                print(message.get("content") or "", flush=True)
                break
            for i, call in enumerate(calls):
                if DROP and i == len(calls) - 1:
                    continue
                args = json.loads(call["function"]["arguments"] or "{}")
                messages.append({"role": "tool", "tool_call_id": call["id"],
                                 "content": run_tool(call["function"]["name"], args)})


if __name__ == "__main__":
    main()
