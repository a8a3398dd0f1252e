#!/usr/bin/env python3
"""Sends requests that carry secrets every way a client can, through $OCK_URL.

Usage: secret_requests.py KEY... (at least 6 keys): the x-api-key, x-goog-api-key, api-key and
cookie headers, a key= query parameter, and a body field the recorder is told to redact
($.metadata.user_id). The answers do not matter; the recording does.
"""
import json
import os
import sys
import urllib.error
import urllib.request

BASE = os.environ["OCK_URL"]
k = sys.argv[1:]


def send(path, headers, body):
    req = urllib.request.Request(BASE + path, data=json.dumps(body).encode(), method="POST",
                                 headers=dict(headers, **{"Content-Type": "application/json"}))
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            resp.read()
    except urllib.error.HTTPError as err:
        err.read()


send("/v1/messages?key=" + k[4] + "&beta=true",
     {"x-api-key": k[0], "x-goog-api-key": k[1], "api-key": k[2], "Cookie": "session=" + k[3]},
     {"model": "claude-ock", "max_tokens": 64, "metadata": {"user_id": k[5]},
      "messages": [{"role": "user", "content": "hello"}]})
send("/ock/v1/events", {"Authorization": "Bearer " + k[0]},
     {"event": "prompt:submit", "data": {"prompt": "hello", "user": k[5]}})
