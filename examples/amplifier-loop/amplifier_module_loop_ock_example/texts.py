"""The texts and small pure helpers of the example loop (imported package-relative, as
loop-streaming imports its steering module, so a host that loads the package by file path
fails here)."""

import json

ORCHESTRATOR = "loop-ock-example"
CANCELLED_MESSAGE = "The previous operation was cancelled."
REMINDER = (
    '<system-reminder source="orchestrator-loop-limit">\n'
    "You have reached the maximum number of iterations for this turn. Please provide a response "
    "to the user now, summarizing your progress and noting what remains to be done.\n"
    "</system-reminder>"
)
FAIL_FAST_TYPES = ("execution_failed", "timeout", "invalid_arguments")
# SPEC.md 5.12: what an empty prompt may consist of, the Unicode White_Space characters
BLANK = (
    " \t\r\n\v\f\u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


def compact(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def result_text(body):
    """SPEC.md 5.11: the text fed back for a ToolResult the endpoint returned."""
    if body.get("success") is True:
        output = body.get("output")
        return output if isinstance(output, str) else compact(output)
    error = body.get("error")
    message = error.get("message") if isinstance(error, dict) else None
    return f"Error: {message}" if isinstance(message, str) and message else "Error: unknown error"


def deny_reason(reply):
    return reply.reason if isinstance(reply.reason, str) and reply.reason else "no reason given"


def error_type(e):
    """The SPEC.md 4.3.7 error type of an amplifier-core LLMError (or of any exception)."""
    name = type(e).__name__
    if name == "LLMTimeoutError":
        return "timeout"
    if name == "NetworkError":
        return "connection_error"
    if name == "StreamError":
        return "stream_error"
    status = getattr(e, "status_code", None)
    if isinstance(status, int) and 200 <= status < 300:
        return "malformed_response"
    return "http_error" if status is not None else "connection_error"
