"""The proxy's own errors, in the shape of the provider a request is for.

Rules:
1. A body: OpenAI `{"error": {"message", "type", "param", "code"}}`; Anthropic
   `{"type": "error", "error": {"type", "message"}}`.
2. An upstream that cannot be reached, refuses the connection or breaks off before its
   answer is 502 (OpenAI type `server_error`, Anthropic `api_error`); one that does not
   answer in time is 504 (Anthropic `timeout_error`, which its SDK raises as
   GatewayTimeoutError). The message names the upstream by its origin only (scheme, host
   and port: a path or query may carry a key) and what went wrong. Both SDKs retry 5xx.
3. A stream the upstream breaks off after it began ends with the provider's own error
   event: Chat Completions `data: {"error": {...}}` (the OpenAI SDK raises it as
   APIError), Responses `event: error` with `{"type": "error", "code", "message", "param",
   "sequence_number"}`, Anthropic `event: error` with its error body (its SDK raises it).
4. A recall round that the upstream refuses after the client's stream began (its 200 is
   sent) ends that stream with the same event, carrying the upstream's error: its body
   as the provider sent it (Chat, Anthropic), or its code and message in Responses'
   error event; a body that is not the provider's error JSON becomes its message.
"""

from __future__ import annotations

import json
from typing import Final
from urllib.parse import urlsplit

import contextfold as cf

TIMEOUT_CODE: Final = "upstream_timeout"
UNREACHABLE_CODE: Final = "upstream_unreachable"
BROKEN_CODE: Final = "upstream_disconnected"


def body(format: cf.Format, kind: str, message: str, code: str | None = None) -> dict[str, object]:
    """Rule 1: an error body; `kind` is the error type, `code` OpenAI's code (else `kind`)."""
    if format == "anthropic":
        return {"type": "error", "error": {"type": kind, "message": message}}
    return {"error": {"message": message, "type": kind, "param": None, "code": code or kind}}


def origin(url: str) -> str:
    """`scheme://host:port` of `url` (rule 2: never its path, query or credentials)."""
    parts = urlsplit(url)
    host = parts.hostname or "?"
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}"


def upstream_failed(format: cf.Format, exc: Exception, url: str) -> tuple[int, dict[str, object]]:
    """Rule 2: the status and body for an upstream exchange that raised `exc`."""
    where = origin(url)
    if isinstance(exc, TimeoutError):
        message = f"the upstream {where} did not answer in time ({type(exc).__name__})"
        kind = "timeout_error" if format == "anthropic" else "server_error"
        return 504, body(format, kind, message, TIMEOUT_CODE)
    message = f"the proxy could not get an answer from the upstream {where} ({_said(exc)})"
    kind = "api_error" if format == "anthropic" else "server_error"
    return 502, body(format, kind, message, UNREACHABLE_CODE)


def broken_event(format: cf.Format, exc: Exception, url: str, sequence: int) -> bytes:
    """Rule 3: the event ending a stream the upstream broke off; `sequence` is the number
    of events the client got (Responses numbers its events from 0)."""
    message = (
        f"the upstream {origin(url)} broke off the stream ({_said(exc)}); "
        "the answer is incomplete: ask again"
    )
    if format == "openai-responses":
        event = {
            "type": "error",
            "code": BROKEN_CODE,
            "message": message,
            "param": None,
            "sequence_number": sequence,
        }
        return b"event: error\ndata: " + json.dumps(event).encode() + b"\n\n"
    if format == "anthropic":
        return (
            b"event: error\ndata: "
            + json.dumps(body(format, "api_error", message)).encode()
            + b"\n\n"
        )
    return (
        b"data: "
        + json.dumps(body(format, "server_error", message, BROKEN_CODE)).encode()
        + b"\n\n"
    )


def refused_event(format: cf.Format, status: int, text: str, sequence: int) -> bytes:
    """Rule 4: the event ending a stream whose next round the upstream answered with
    `status` and body `text`; `sequence` as in `broken_event`."""
    try:
        given = json.loads(text)
    except ValueError:
        given = None
    inner = given.get("error") if isinstance(given, dict) else None
    if not isinstance(inner, dict):
        message = f"the upstream answered a recall round with {status}: {text[:2_000]}"
        kind = "api_error" if format == "anthropic" else "server_error"
        given = body(format, kind, message, f"upstream_{status}")
        inner = given["error"]
    assert isinstance(inner, dict)
    if format == "openai-responses":
        event = {
            "type": "error",
            "code": inner.get("code") or inner.get("type"),
            "message": str(inner.get("message") or text[:2_000]),
            "param": inner.get("param"),
            "sequence_number": sequence,
        }
        return b"event: error\ndata: " + json.dumps(event).encode() + b"\n\n"
    data = json.dumps(given).encode()
    return (b"event: error\ndata: " if format == "anthropic" else b"data: ") + data + b"\n\n"


def _said(exc: Exception) -> str:
    """The failure's type and, for a socket error, the system's words (never the text of
    an arbitrary exception: it may quote the URL, rule 2)."""
    said = exc.strerror if isinstance(exc, OSError) else None
    return f"{type(exc).__name__}: {said}" if said else type(exc).__name__
