#!/usr/bin/env python3
"""A plain tool-calling agent on the OpenAI Responses API or the Gemini API, with no line of OCK
code (Python's standard library only), for the recording tests of `ock record`.

Usage: wire_agent.py --wire responses|gemini [--stream] [--drop-tool-results] [--key-in-query]
       [--v1]

It reads the prompts one a line from standard input and keeps one conversation, runs its one
tool (get_weather) itself, and retries a 429 or 5xx after its Retry-After (at most 3 times).

- responses: POST $OPENAI_BASE_URL/responses with $OPENAI_API_KEY as a bearer token. The server
  keeps the conversation: every request after the first names the last response in
  previous_response_id and carries only the new items (the user message, or the
  function_call_output items).
- gemini: POST $GOOGLE_GEMINI_BASE_URL/v1beta/models/M:generateContent (--v1: /v1/...), or
  :streamGenerateContent?alt=sse with --stream, the key ($GEMINI_API_KEY) in the x-goog-api-key
  header, or as ?key= with --key-in-query; the whole `contents` every time.

`--drop-tool-results` is the classic bug: the result of the last call of each reply is left out
of the next request, which the provider answers with HTTP 400.
"""
import json
import os
import sys
import time
import urllib.error
import urllib.request

ARGS = sys.argv[1:]
WIRE = ARGS[ARGS.index("--wire") + 1] if "--wire" in ARGS else "responses"
STREAM = "--stream" in ARGS
DROP = "--drop-tool-results" in ARGS
KEY_IN_QUERY = "--key-in-query" in ARGS
VERSION = "v1" if "--v1" in ARGS else "v1beta"
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
INSTRUCTIONS = "You are a helpful assistant."


def get_weather(args):
    return "15 degrees in " + str(args.get("city", "nowhere"))


def post(url, headers, body):
    """POSTs body; the reply's lines when streamed, else its JSON. Retries a 429 or 5xx."""
    data = json.dumps(body).encode()
    for attempt in range(4):
        req = urllib.request.Request(url, data=data, method="POST",
                                     headers=dict(headers, **{"Content-Type": "application/json"}))
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                if STREAM:
                    return [raw.decode().rstrip("\r\n") for raw in resp]
                return json.loads(resp.read())
        except urllib.error.HTTPError as err:
            text = err.read().decode(errors="replace")
            if attempt < 3 and (err.code == 429 or err.code >= 500):
                time.sleep(float(err.headers.get("Retry-After") or 1))
                continue
            sys.stderr.write("HTTP %d: %s\n" % (err.code, text))
            sys.exit(1)
    sys.exit(1)


def sse_data(lines):
    """The JSON data of each event of a streamed reply."""
    return [json.loads(l[6:]) for l in lines if l.startswith("data: ")]


# ---- the Responses API ---------------------------------------------------------------------

def responses_turn(state, items):
    base = os.environ["OPENAI_BASE_URL"].rstrip("/")
    body = {"model": os.environ.get("MODEL", "gpt-prod"), "instructions": INSTRUCTIONS,
            "input": items, "stream": STREAM,
            "tools": [{"type": "function", "name": "get_weather", "strict": False,
                       "description": "Current weather for a city", "parameters": SCHEMA}]}
    if state.get("previous"):
        body["previous_response_id"] = state["previous"]
    out = post(base + "/responses", {"Authorization": "Bearer " + os.environ.get(
        "OPENAI_API_KEY", "")}, body)
    if STREAM:
        done = [e for e in sse_data(out) if e.get("type") == "response.completed"]
        if not done:
            sys.stderr.write("the stream ended without response.completed\n")
            sys.exit(1)
        out = done[-1]["response"]
    state["previous"] = out["id"]
    return out


def run_responses(prompts):
    state = {}
    for prompt in prompts:
        items = [{"role": "user", "content": prompt}]
        for _ in range(8):
            resp = responses_turn(state, items)
            calls = [o for o in resp["output"] if o.get("type") == "function_call"]
            if not calls:
                text = "".join(p.get("text", "") for o in resp["output"]
                               if o.get("type") == "message" for p in o.get("content", []))
                print(text, flush=True)
                break
            items = [{"type": "function_call_output", "call_id": c["call_id"],
                      "output": get_weather(json.loads(c["arguments"] or "{}"))} for c in calls]
            if DROP:
                items = items[:-1]


# ---- the Gemini API ------------------------------------------------------------------------

def gemini_turn(contents):
    base = os.environ["GOOGLE_GEMINI_BASE_URL"].rstrip("/")
    key = os.environ.get("GEMINI_API_KEY", "")
    model = os.environ.get("MODEL", "gemini-prod")
    url = "%s/%s/models/%s:%s" % (base, VERSION, model,
                                  "streamGenerateContent?alt=sse" if STREAM else "generateContent")
    headers = {}
    if KEY_IN_QUERY:
        url += ("&" if "?" in url else "?") + "key=" + key
    else:
        headers["x-goog-api-key"] = key
    body = {"contents": contents,
            "systemInstruction": {"parts": [{"text": INSTRUCTIONS}]},
            "tools": [{"functionDeclarations": [{"name": "get_weather",
                                                 "description": "Current weather for a city",
                                                 "parametersJsonSchema": SCHEMA}]}]}
    out = post(url, headers, body)
    chunks = sse_data(out) if STREAM else [out]
    if STREAM and not any(c["candidates"][0].get("finishReason") for c in chunks):
        sys.stderr.write("the stream ended without a finishReason\n")
        sys.exit(1)
    parts, text = [], ""
    for c in chunks:
        for p in c["candidates"][0]["content"].get("parts", []):
            if "functionCall" in p:
                parts.append(p)
            elif p.get("text"):
                text += p["text"]
    return ([{"text": text}] if text else []) + parts


def run_gemini(prompts):
    contents = []
    for prompt in prompts:
        contents.append({"role": "user", "parts": [{"text": prompt}]})
        for _ in range(8):
            parts = gemini_turn(contents)
            contents.append({"role": "model", "parts": parts})
            calls = [p["functionCall"] for p in parts if "functionCall" in p]
            if not calls:
                print("".join(p.get("text", "") for p in parts), flush=True)
                break
            answers = [{"functionResponse": dict(
                {"name": c["name"], "response": {"output": get_weather(c.get("args") or {})}},
                **({"id": c["id"]} if c.get("id") else {}))} for c in calls]
            if DROP:
                answers = answers[:-1]
            if answers:
                contents.append({"role": "user", "parts": answers})


def main():
    prompts = [l.rstrip("\n") for l in sys.stdin if l.strip()]
    if WIRE == "responses":
        run_responses(prompts)
    elif WIRE == "gemini":
        run_gemini(prompts)
    else:
        sys.stderr.write("wire_agent.py: --wire responses or gemini\n")
        sys.exit(2)


if __name__ == "__main__":
    main()
