"""A local OpenAI chat-completions model server that is as strict as the provider.

Rules:
1. It is a real HTTP server on 127.0.0.1 (any path ending in `/chat/completions`), so a
   framework's own client, retries and parsing run exactly as against the provider.
2. A request over the context window is refused with the provider's 400
   (`context_length_exceeded`), counted with `cf.count_tokens` over the messages and the
   tool schemas, as the provider counts both; a structured output's schema
   (`response_format` of type `json_schema`) counts as one more tool definition. A
   request the provider would reject for its tool pairing (`cf.validate`) is refused with
   the provider's 400 too. Refusals are recorded and never reach the script.
3. Accepted requests go to a script `(body) -> Reply`; the reply comes back as a
   `chat.completion`, or as `chat.completion.chunk` SSE events when `stream` is true.
4. `agent_script` is the scripted agent the integration tests share: it reads a file per
   turn (the framework runs the tool), recalls the first folded result it sees through the
   recall tool once, and finishes after the given number of tool turns.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

import contextfold as cf

Body = dict[str, Any]


@dataclass(frozen=True)
class Call:
    """One tool call the model makes."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Reply:
    """What the model answers: text, tool calls, or both."""

    text: str = ""
    calls: tuple[Call, ...] = ()


Script = Callable[[Body], Reply]


@dataclass
class Refusal:
    """A request the server refused, and why."""

    status: int
    code: str
    message: str


@dataclass
class Log:
    """Everything the server saw: accepted bodies, their counts, and refusals."""

    accepted: list[Body] = field(default_factory=list)
    tokens: list[int] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)


class ChatModelServer:
    """An OpenAI-compatible chat model on 127.0.0.1 with a context window of `window`."""

    def __init__(self, script: Script, *, window: int, model: str = "gpt-4o") -> None:
        self.script = script
        self.window = window
        self.model = model
        self.log = Log()
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        """The base URL an OpenAI client takes (ends in `/v1`)."""
        assert self._server is not None, "start the server with `with ChatModelServer(...)`"
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> ChatModelServer:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()

    def handle(self, body: Body) -> tuple[int, Body | None, Reply | None]:
        """Check a request as the provider would, then ask the script."""
        refusal = self._refusal(body)
        with self._lock:
            if refusal is not None:
                self.log.refusals.append(refusal)
                return refusal.status, _error_body(refusal), None
            tokens = self.count(body)
            self.log.accepted.append(body)
            self.log.tokens.append(tokens)
        return 200, None, self.script(body)

    def count(self, body: Body) -> int:
        """Prompt tokens of the messages and tool schemas, as the provider bills them."""
        request = {"model": self.model, "messages": body.get("messages", [])}
        tools = [*(body.get("tools") or []), *_output_schema(body)]
        if tools:
            request["tools"] = tools
        return cf.count_tokens(request, self.model, format="openai-chat")

    def _refusal(self, body: Body) -> Refusal | None:
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            return Refusal(400, "invalid_request_error", "'messages' must be a non-empty array")
        problems = cf.validate(messages, format="openai-chat")
        if problems:
            return Refusal(400, "invalid_request_error", str(problems[0]))
        tokens = self.count(body)
        if tokens > self.window:
            message = (
                f"This model's maximum context length is {self.window} tokens. However, your "
                f"messages resulted in {tokens} tokens. Please reduce the length of the messages."
            )
            return Refusal(400, "context_length_exceeded", message)
        return None


def _output_schema(body: Body) -> list[Body]:
    """A `json_schema` response format as the tool definition it is counted as."""
    form = body.get("response_format")
    if not isinstance(form, dict) or form.get("type") != "json_schema":
        return []
    spec = form.get("json_schema") or {}
    function = {
        "name": spec.get("name", "response"),
        "description": spec.get("description", ""),
        "parameters": spec.get("schema", {}),
    }
    return [{"type": "function", "function": function}]


def _error_body(refusal: Refusal) -> Body:
    return {
        "error": {
            "message": refusal.message,
            "type": "invalid_request_error",
            "param": "messages",
            "code": refusal.code,
        }
    }


def _handler(server: ChatModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._json(404, {"error": {"message": f"no route {self.path}", "type": "nf"}})
                return
            status, error, reply = server.handle(body)
            if reply is None:
                self._json(status, error or {})
            elif body.get("stream"):
                self._stream(_chunks(server, body, reply))
            else:
                self._json(200, _completion(server, body, reply))

        def _json(self, status: int, payload: Body) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _stream(self, chunks: Iterator[Body]) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            for chunk in chunks:
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
            self.close_connection = True

        def log_message(self, format: str, *args: object) -> None:
            return

    return Handler


def _tool_calls(reply: Reply, turn: int) -> list[Body]:
    return [
        {
            "id": f"call_{turn}_{i}",
            "type": "function",
            "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
        }
        for i, call in enumerate(reply.calls)
    ]


def _usage(server: ChatModelServer, body: Body, reply: Reply) -> Body:
    prompt = server.count(body)
    completion = max(1, len(reply.text) // 4 + 10 * len(reply.calls))
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def _completion(server: ChatModelServer, body: Body, reply: Reply) -> Body:
    turn = len(server.log.accepted)
    message: Body = {"role": "assistant", "content": reply.text or None, "refusal": None}
    if reply.calls:
        message["tool_calls"] = _tool_calls(reply, turn)
    return {
        "id": f"chatcmpl-{turn}",
        "object": "chat.completion",
        "created": 1_700_000_000 + turn,
        "model": body.get("model", server.model),
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": "tool_calls" if reply.calls else "stop",
            }
        ],
        "usage": _usage(server, body, reply),
    }


def _chunks(server: ChatModelServer, body: Body, reply: Reply) -> Iterator[Body]:
    turn = len(server.log.accepted)
    head = {
        "id": f"chatcmpl-{turn}",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000 + turn,
        "model": body.get("model", server.model),
    }

    def chunk(delta: Body, finish: str | None = None) -> Body:
        return {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    yield chunk({"role": "assistant", "content": ""})
    for piece in re.findall(r".{1,40}", reply.text, flags=re.DOTALL):
        yield chunk({"content": piece})
    for i, call in enumerate(_tool_calls(reply, turn)):
        yield chunk({"tool_calls": [{"index": i, **call}]})
    yield chunk({}, "tool_calls" if reply.calls else "stop")
    if (body.get("stream_options") or {}).get("include_usage"):
        yield {**head, "choices": [], "usage": _usage(server, body, reply)}


# --- the shared scripted agent -------------------------------------------------------

READ_FILE: Body = {
    "type": "function",
    "function": {
        "name": "read_file",
        "description": "Read a file of the repository.",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
        },
    },
}
"""The tool the scripted agent calls, as the Chat Completions request offers it."""

_REF = re.compile(r"\b(r[0-9a-f]{10})\b")
FINAL = "All files reviewed."


def _text_of(message: Body) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def offers(body: Body, name: str) -> bool:
    """Whether the request offers a tool called `name`."""
    return any((t.get("function") or {}).get("name") == name for t in body.get("tools") or [])


def folded_ref(body: Body) -> str | None:
    """The first archive reference a marker or summary in the request names, if any."""
    for message in body["messages"]:
        found = _REF.search(_text_of(message))
        if found:
            return found.group(1)
    return None


@dataclass
class AgentScript:
    """Read `turns` files with `tool`, recalling the first folded result once, then stop."""

    turns: int
    tool: str = "read_file"
    reads: int = 0
    """Files asked for so far (the script's own count: compaction hides old turns)."""
    recalled: list[str] = field(default_factory=list)
    """References the agent recalled (at most one)."""

    def __call__(self, body: Body) -> Reply:
        ref = folded_ref(body)
        if not self.recalled and ref and offers(body, cf.RECALL_TOOL_NAME):
            self.recalled.append(ref)
            arguments = {"ref": ref, "offset": 0, "limit": 2000}
            return Reply(calls=(Call(cf.RECALL_TOOL_NAME, arguments),))
        if self.reads >= self.turns:
            return Reply(text=FINAL)
        self.reads += 1
        return Reply(calls=(Call(self.tool, {"path": f"src/module_{self.reads:03d}.py"}),))


def source_file(path: str, lines: int = 180) -> str:
    """A deterministic source file of about 33 tokens a line (o200k), named by `path`."""
    stem = re.sub(r"\W", "_", path)
    return "\n".join(
        f"def {stem}_f{i}(value: int) -> int:  # line {i} of {path}: return value + {i * 7}"
        for i in range(lines)
    )


def rules_everywhere(log: Log, *needles: str) -> bool:
    """Whether every accepted request carried each needle in some message."""
    return all(
        all(any(n in _text_of(m) for m in body["messages"]) for n in needles)
        for body in log.accepted
    )
