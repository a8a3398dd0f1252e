# The smallest orchestrator that passes `text-answer`: one LLM turn per prompt, its events, one
# conversation across prompts. No tools, hooks or errors: `ock run` grades what it lacks.
import json, os, urllib.request

def post(url, body, headers={}):
    req = urllib.request.Request(url, json.dumps(body).encode(), {"content-type": "application/json", **headers})
    return json.load(urllib.request.urlopen(req))

OCK = os.environ["OCK_URL"]
session = json.load(urllib.request.urlopen(f"{OCK}/ock/v1/session"))
trace = {"X-OCK-Trace-Id": session["trace_id"]}
emit = lambda event, data: post(f"{OCK}/ock/v1/events", {"event": event, "data": data}, trace)
provider, messages = session["providers"][0], []
for prompt in session["prompts"]:
    emit("prompt:submit", {"prompt": prompt})
    messages.append({"role": "user", "content": prompt})
    turn = {"provider": provider["name"], "model": provider["model"], "iteration": 1, "attempt": 1}
    emit("provider:request", {**turn, "messages": messages})
    auth = {"authorization": "Bearer " + os.environ["OPENAI_API_KEY"], **trace}
    choice = post(provider["base_url"] + "/chat/completions", {"model": provider["model"], "messages": messages}, auth)["choices"][0]
    text = choice["message"]["content"] or ""
    emit("provider:response", {**turn, "content": text, "tool_calls": [], "finish_reason": choice["finish_reason"]})
    if text:
        messages.append({"role": "assistant", "content": text})
    emit("prompt:complete", {"prompt": prompt, "response": text})
    emit("orchestrator:complete", {"orchestrator": "first-py", "turn_count": 1, "status": "success"})
