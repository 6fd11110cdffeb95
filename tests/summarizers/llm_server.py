"""A real HTTP server on 127.0.0.1 that speaks just enough OpenAI and Anthropic for tests.

It answers `POST /v1/chat/completions` (a chat.completion object with usage) and
`POST /v1/messages` (an Anthropic message object with content blocks and usage). The
answer is a well-formed summary derived from the request (model and a digest of the
prompt), so it is deterministic. It records every request (path, model, headers, body)
and plays faults scripted per model: HTTP 500, 429 with retry-after, 401 that echoes the
key (as some providers do), a hang past the client timeout, malformed JSON, empty text,
garbled text, and an answer cut off at the bound. It logs nothing.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import defaultdict, deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Literal

from contextfold._summarizers._prompt import SECTIONS

Fault = Literal["ok", "500", "429", "401", "hang", "malformed", "empty", "garbled", "cut_off"]
FAULTS: tuple[Fault, ...] = (
    "500",
    "429",
    "401",
    "hang",
    "malformed",
    "empty",
    "garbled",
    "cut_off",
)
TIMEOUT = 5.0
"""Client timeout for requests the server answers: generous, so a loaded machine never flakes."""
HANG_TIMEOUT = 0.3
"""Client timeout for requests the server holds (`hang`): the test waits this long."""
OPENAI_PATH = "/v1/chat/completions"
ANTHROPIC_PATH = "/v1/messages"


@dataclass(frozen=True)
class Recorded:
    """One request as the server saw it."""

    path: str
    model: str
    headers: dict[str, str]
    """Header names lower-cased."""
    body: dict[str, object]


def timeout_for(fault: Fault) -> float:
    """The client timeout to use when the server will answer with `fault`."""
    return HANG_TIMEOUT if fault == "hang" else TIMEOUT


def sent_key(headers: dict[str, str]) -> str:
    """The API key a request carried (`x-api-key`, or a bearer token as newer SDKs send)."""
    return headers.get("x-api-key") or headers.get("authorization", "").removeprefix("Bearer ")


def summary_text(model: str, body: dict[str, object]) -> str:
    """The deterministic summary the server answers for a request body."""
    digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:12]
    lines = [f"## {SECTIONS[0][0]}", f"Summary by {model} of request {digest}."]
    for title, _ in SECTIONS[1:]:
        lines += [f"## {title}", "None."]
    return "\n".join(lines)


@dataclass
class LLMServer:
    """The server, its recordings and its fault scripts; use as a context manager."""

    hang_seconds: float = 30.0
    """How long a `hang` holds the request (ended early when the server stops)."""
    retry_after: str = "0.01"
    """Seconds sent in `retry-after` with a 429."""
    requests: list[Recorded] = field(default_factory=list)
    _scripts: dict[str, deque[Fault]] = field(default_factory=lambda: defaultdict(deque))
    _always: dict[str, Fault] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _stop: threading.Event = field(default_factory=threading.Event)
    _httpd: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """Base URL of the server, e.g. for the Anthropic SDK."""
        assert self._httpd is not None, "the server is not running"
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def openai_url(self) -> str:
        """Base URL for the OpenAI SDK (it appends `/chat/completions`)."""
        return f"{self.url}/v1"

    def script(self, model: str, *faults: Fault) -> None:
        """Answer the next requests for `model` with these faults, then normally."""
        with self._lock:
            self._scripts[model].extend(faults)

    def always(self, model: str, fault: Fault) -> None:
        """Answer every request for `model` with `fault` (after any scripted ones)."""
        with self._lock:
            self._always[model] = fault

    def count(self, model: str | None = None) -> int:
        """Requests received, for one model or in all."""
        with self._lock:
            return sum(1 for r in self.requests if model is None or r.model == model)

    def take(self, recorded: Recorded) -> Fault:
        """Record a request and say how to answer it."""
        with self._lock:
            self.requests.append(recorded)
            queue = self._scripts[recorded.model]
            return queue.popleft() if queue else self._always.get(recorded.model, "ok")

    def hang(self) -> None:
        """Hold the request until `hang_seconds` pass or the server stops."""
        self._stop.wait(self.hang_seconds)

    def __enter__(self) -> LLMServer:
        server = self

        class Handler(_Handler):
            owner = server

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        assert self._httpd is not None
        assert self._thread is not None
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)


class _Handler(BaseHTTPRequestHandler):
    owner: LLMServer

    def log_message(self, format: str, *args: object) -> None:
        """Log nothing: headers carry credentials."""

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length", "0"))
        try:
            body = json.loads(self.rfile.read(length))
        except ValueError:
            self._send(400, b'{"error": {"message": "bad json"}}')
            return
        if self.path not in (OPENAI_PATH, ANTHROPIC_PATH) or not isinstance(body, dict):
            self._send(404, b'{"error": {"message": "not found"}}')
            return
        headers = {k.lower(): v for k, v in self.headers.items()}
        model = str(body.get("model", ""))
        fault = self.owner.take(Recorded(self.path, model, headers, body))
        if fault == "hang":
            self.owner.hang()
            return
        status, payload, extra = _answer(
            self.path, model=model, body=body, fault=fault, headers=headers, owner=self.owner
        )
        self._send(status, payload, extra)

    def _send(self, status: int, payload: bytes, extra: dict[str, str] | None = None) -> None:
        try:
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            for name, value in (extra or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)
        except OSError:
            pass  # the client gave up (timeout); nothing to answer


def _answer(
    path: str,
    *,
    model: str,
    body: dict[str, object],
    fault: Fault,
    headers: dict[str, str],
    owner: LLMServer,
) -> tuple[int, bytes, dict[str, str]]:
    """Status, body and extra headers for a request under `fault`."""
    if fault in ("500", "429", "401"):
        key = sent_key(headers)
        return _error(path, int(fault), key, owner.retry_after)
    if fault == "malformed":
        return 200, b'{"id": "x", "choices": [{"message": ', {}
    text = {
        "empty": "",
        "garbled": "I am sorry, I cannot help with that",
        "cut_off": "## Task and goals\nThe user wants",
    }.get(fault, summary_text(model, body))
    make = _openai_answer if path == OPENAI_PATH else _anthropic_answer
    prompt_tokens = len(json.dumps(body)) // 4
    return 200, json.dumps(make(model, text, prompt_tokens, fault == "cut_off")).encode(), {}


def _error(path: str, status: int, key: str, retry_after: str) -> tuple[int, bytes, dict[str, str]]:
    message = {
        500: "The server had an error while processing your request.",
        429: "Rate limit reached. Please try again later.",
        401: f"Incorrect API key provided: {key}.",
    }[status]
    extra = {"retry-after": retry_after} if status == 429 else {}
    if path == OPENAI_PATH:
        error: dict[str, object] = {
            "error": {"message": message, "type": "server_error", "param": None, "code": None}
        }
    else:
        error = {"type": "error", "error": {"type": "api_error", "message": message}}
    return status, json.dumps(error).encode(), extra


def _openai_answer(model: str, text: str, prompt_tokens: int, cut: bool) -> dict[str, object]:
    completion_tokens = len(text) // 4
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1700000000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text, "refusal": None},
                "logprobs": None,
                "finish_reason": "length" if cut else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def _anthropic_answer(model: str, text: str, prompt_tokens: int, cut: bool) -> dict[str, object]:
    return {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": text}] if text else [],
        "stop_reason": "max_tokens" if cut else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": prompt_tokens, "output_tokens": len(text) // 4},
    }
