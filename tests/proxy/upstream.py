"""A real HTTP server on 127.0.0.1 speaking OpenAI Chat Completions, OpenAI Responses and
Anthropic Messages (streaming and not), strict the way the providers are.

It refuses, with the provider's own 400 error body, any request over its context window
(counted with `cf.count_tokens` for the model, plus the request's output limit) and any
request with invalid tool pairing (`cf.validate`). It plays a scripted agent: every
answer calls `read_file`, except that every `recall_every`-th answer, when the request
carries the recall tool and shows a `[cf:r...]` reference, calls the recall tool on it.
It records what it saw (never logging anything).
"""

from __future__ import annotations

import gzip
import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import contextfold as cf

from . import replies

FORMATS = {
    "/v1/chat/completions": "openai-chat",
    "/v1/responses": "openai-responses",
    "/v1/messages": "anthropic",
}
COOKIES = ("__cf_bm=abc; path=/; HttpOnly", "_cfuvid=def; path=/; HttpOnly")
"""The cookies every answer sets, in two `set-cookie` headers."""
_REF = re.compile(r"(?<![0-9a-z])(r[0-9a-f]{10})(?![0-9a-f])")


@dataclass
class Seen:
    """One request as the server saw it."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    tokens: int
    refused: str | None
    """Why it was refused, None when it was answered."""
    round: bool = False
    """Whether it answers a recall call (a round the proxy asked, not a client turn)."""
    raw: bytes = b""


@dataclass
class Upstream:
    """The server's script and record."""

    windows: dict[str, int]
    recall_every: int = 0
    """Every n-th answer recalls a reference it sees (0: never)."""
    recall_ref: str | None = None
    """The reference those answers recall (None: the first one the request shows)."""
    seen: list[Seen] = field(default_factory=list)
    recall_answers: list[tuple[str, bool]] = field(default_factory=list)
    """(text, is_error) of every recall result the server was sent."""
    answered: int = 0
    recall_ids: set[str] = field(default_factory=set)
    delay: float = 0.0
    """Seconds between two streamed events."""
    text_every: int = 0
    """Every n-th answer is text (streamed in several deltas) instead of a tool call."""
    text_before_recall: str = ""
    """Text a streamed chat answer says before its recall call (none when empty)."""
    reasoning: str = ""
    """When set, chat answers carry it as `reasoning_content` (as DeepSeek's thinking mode
    does), and a request with an assistant tool call message lacking one is refused;
    Responses answers open with a reasoning item."""
    ignores_tool_choice: bool = False
    """When set, `tool_choice` none does not stop the scripted calls (as Ollama's OpenAI
    API, which ignores `tool_choice`)."""
    break_after: int | None = None
    """When set, a streamed answer drops the connection after this many events."""
    lock: threading.Lock = field(default_factory=threading.Lock)
    url: str = ""

    @property
    def refused(self) -> list[Seen]:
        return [s for s in self.seen if s.refused]

    def handle(self, path: str, headers: dict[str, str], raw: bytes) -> tuple[int, Any]:
        """(status, answer): the answer is a dict, or a list of SSE events to stream."""
        fmt = FORMATS.get(path)
        if fmt is None:
            return 404, {"error": {"message": f"unknown path {path}", "type": "not_found"}}
        try:
            body = json.loads(raw)
        except ValueError as exc:
            why = f"invalid: the body is not JSON ({exc})"
            with self.lock:
                self.seen.append(Seen(path, headers, {}, 0, why, raw=raw))
            return 400, replies.error(fmt, why, 0, 0)
        model = str(body.get("model"))
        problems = self._problems(fmt, body, raw)
        tokens = 0 if problems else cf.count_tokens(body, model, format=fmt)
        window = self.windows.get(model, 128_000)
        limit = window - replies.max_output(body, fmt)
        items = body.get("input" if fmt == "openai-responses" else "messages")
        items = items if isinstance(items, list) else []
        answering = replies.answered_ids(fmt, items[-1]) if items else []
        round_ = bool(answering) and all(i in self.recall_ids for i in answering)
        refused = None
        if problems:
            refused = f"invalid: {problems[0]}"
        elif tokens > limit:
            refused = f"too long: {tokens} > {limit}"
        with self.lock:
            self.seen.append(Seen(path, headers, body, tokens, refused, round_, raw))
            if refused is None:
                self.answered += 1
                turn = self.answered
        if refused is not None:
            return 400, replies.error(fmt, refused, tokens, window)
        self._note_recall_results(fmt, items)
        call = self._choose(body, turn)
        if call[0] == cf.RECALL_TOOL_NAME:
            with self.lock:
                self.recall_ids.add(replies.call_id(fmt, turn))
        stream = body.get("stream") is True
        answer = replies.answer(
            fmt, body, call, turn, tokens, stream=stream, reasoning=self.reasoning
        )
        if self.text_before_recall and call[0] == cf.RECALL_TOOL_NAME and isinstance(answer, list):
            answer.insert(1, replies.chat_text_chunk(self.text_before_recall, turn))
        if self.reasoning and fmt == "openai-chat":
            replies.add_reasoning(answer, self.reasoning, turn)
        return 200, answer

    def _problems(self, fmt: str, body: dict[str, Any], raw: bytes) -> list[Any]:
        """Why the provider would refuse the request (empty when it would not)."""
        problems: list[Any] = [*cf.validate(body, fmt), *replies.breakpoint_problems(fmt, raw)]
        if fmt == "openai-responses":
            problems += replies.unstored_problems(body)
        if self.reasoning and fmt == "openai-chat":
            problems += replies.reasoning_problems(body)
        return problems

    def _choose(self, body: dict[str, Any], turn: int) -> tuple[str, dict[str, Any]]:
        """The tool call the scripted agent makes this turn."""
        none = body.get("tool_choice") in ("none", {"type": "none"})
        if none and not self.ignores_tool_choice:  # as the providers obey it
            return "", {}
        has_recall = cf.RECALL_TOOL_NAME in json.dumps(body.get("tools") or [])
        refs = _REF.findall(json.dumps(body.get("messages") or body.get("input") or []))
        ref = self.recall_ref or (refs[0] if refs else None)
        if self.recall_every and has_recall and ref and turn % self.recall_every == 0:
            return cf.RECALL_TOOL_NAME, {"ref": ref, "offset": None, "limit": None}
        if self.text_every and turn % self.text_every == 0:
            return "", {}
        return "read_file", {"path": f"f{turn}.py"}

    def _note_recall_results(self, fmt: str, items: list[Any]) -> None:
        """Remember what recall results said, to check them (the last turn's only)."""
        tail = items[-2:]
        for item in tail:
            for text, error in replies.tool_results(fmt, item):
                if text.startswith(f"{cf.RECALL_TOOL_NAME}:") or text.startswith("[cf:"):
                    with self.lock:
                        self.recall_answers.append((text, error))


def _get(path: str) -> tuple[int, Any]:
    """The models list, and a stored response's events (`GET /v1/responses/ID?stream=true`,
    as a background response is streamed again), each of its three text deltas alone."""
    if path.startswith("/v1/models"):
        return 200, {"object": "list", "data": [{"id": "gpt-4o", "object": "model"}]}
    if path.startswith("/v1/responses/") and path.endswith("?stream=true"):
        return 200, [replies.responses_text_event(piece, n) for n, piece in enumerate("abc")]
    return 404, {"error": {"message": "not found", "type": "not_found"}}


def _cookies(handler: BaseHTTPRequestHandler) -> None:
    for cookie in COOKIES:  # as the providers' edge sends them: one header each
        handler.send_header("set-cookie", cookie)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    upstream: Upstream
    """Set on the subclass `serve` makes for one server."""

    def setup(self) -> None:
        super().setup()  # headers and body go out in separate writes: no Nagle delay
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        headers = {k.lower(): v for k, v in self.headers.items()}
        if headers.get("content-encoding") == "gzip":  # read as a provider's edge reads it
            raw = gzip.decompress(raw)
        self._answer(*self.upstream.handle(self.path.split("?")[0], headers, raw))

    def do_GET(self) -> None:
        self._answer(*_get(self.path))

    def do_OPTIONS(self) -> None:  # a browser's CORS preflight, answered as the providers do
        self.send_response(204)
        self.send_header("access-control-allow-origin", self.headers.get("origin", "*"))
        self.send_header("access-control-allow-methods", "GET, POST, OPTIONS")
        self.end_headers()

    def _answer(self, status: int, answer: Any) -> None:
        """A body, or a list of events to stream."""
        if isinstance(answer, list):
            self._stream(answer)
        else:
            self._send(status, answer)

    def _send(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("x-upstream", "test")
        _cookies(self)
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, events: list[bytes]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        _cookies(self)
        self.end_headers()
        for sent, event in enumerate(events):
            if sent == self.upstream.break_after:  # the connection drops mid-stream
                self.close_connection = True
                self.request.shutdown(socket.SHUT_RDWR)
                return
            self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
            self.wfile.flush()
            time.sleep(self.upstream.delay)
        self.wfile.write(b"0\r\n\r\n")

    def log_message(self, *args: object) -> None:
        return


def serve(upstream: Upstream) -> Iterator[Upstream]:
    """Run `upstream` on a free port of 127.0.0.1 until the generator closes."""
    handler = type("Handler", (_Handler,), {"upstream": upstream})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    upstream.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield upstream
    finally:
        server.shutdown()
        server.server_close()
