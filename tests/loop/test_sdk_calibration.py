"""200-turn agent loops through the official SDKs against local provider-compatible servers
that count differently from us (issue 11): an Anthropic-compatible one that adds a hidden
346-token prompt to every request's usage, an OpenAI-compatible one that bills 1.3x our
estimate. With `observe_usage` each turn, no request is ever over the window.

The servers are real HTTP servers on 127.0.0.1 (stdlib `ThreadingHTTPServer`); a request
over the window gets the provider's own 400 error, and the test counts those.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

import contextfold as cf

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")
pytest.importorskip("tiktoken", reason="the tiktoken extra is not installed")

WINDOW = 8_192
TURNS = 200
HIDDEN = 346
OUTPUT_LINES = 180  # ~2,500-token tool outputs
POLICY = cf.Policy(high=0.98)
"""Budget = the window and a high-water mark near it: only the calibration keeps it in."""


class Provider:
    """What the fake provider saw: every prompt's billed size and every refusal."""

    def __init__(self, bill: Callable[[dict[str, Any]], int]) -> None:
        self.bill = bill
        self.billed: list[int] = []
        self.refused = 0
        self.turn = 0


def _handler(provider: Provider, reply: Callable[[Provider, int], dict[str, Any]]) -> type:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            tokens = provider.bill(body)
            if tokens > WINDOW:
                provider.refused += 1
                message = f"prompt is too long: {tokens} tokens > {WINDOW} maximum"
                self._send(
                    400,
                    {
                        "type": "error",
                        "error": {"type": "invalid_request_error", "message": message},
                    },
                )
                return
            provider.billed.append(tokens)
            provider.turn += 1
            self._send(200, reply(provider, tokens))

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            return

    return Handler


def _serve(provider: Provider, reply: Callable[[Provider, int], dict[str, Any]]) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(provider, reply))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _file(turn: int) -> str:
    return "".join(
        f"{turn:03d}:{i:04d}  value_{turn}_{i} = compute(alpha={i}, beta={turn})  # keep\n"
        for i in range(OUTPUT_LINES)
    )


def _openai_reply(provider: Provider, tokens: int) -> dict[str, Any]:
    call = {
        "id": f"call_{provider.turn}",
        "type": "function",
        "function": {
            "name": "read_file",
            "arguments": json.dumps({"path": f"f{provider.turn}.py"}),
        },
    }
    return {
        "id": f"chatcmpl-{provider.turn}",
        "object": "chat.completion",
        "created": 0,
        "model": "gpt-4o",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": None, "tool_calls": [call]},
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": tokens, "completion_tokens": 12, "total_tokens": tokens + 12},
    }


def _anthropic_reply(provider: Provider, tokens: int) -> dict[str, Any]:
    return {
        "id": f"msg_{provider.turn}",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-6",
        "content": [
            {
                "type": "tool_use",
                "id": f"toolu_{provider.turn:04d}",
                "name": "read_file",
                "input": {"path": f"f{provider.turn}.py"},
            }
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": tokens, "output_tokens": 12},
    }


TOOLS_OPENAI = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a file of the repository.",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
    }
]


def test_openai_loop_billed_at_1_3x_never_goes_over_the_window() -> None:
    provider = Provider(lambda body: round(1.3 * cf.count_tokens(body, "gpt-4o")))
    for base_url in _serve(provider, _openai_reply):
        client = openai.OpenAI(base_url=f"{base_url}/v1", api_key="test", max_retries=0)
        manager = cf.ContextManager(WINDOW, "gpt-4o", policy=POLICY)
        manager.add({"role": "system", "content": "You are a coding agent. Read every file."})
        manager.add({"role": "user", "content": "Audit the repository, file by file."})
        for turn in range(TURNS):
            try:
                response = client.chat.completions.create(
                    model="gpt-4o", messages=manager.view(), tools=TOOLS_OPENAI
                )
            except openai.BadRequestError:
                continue  # counted by the server; the loop goes on as an agent's would
            manager.observe_usage(response.usage.prompt_tokens)
            message = response.choices[0].message
            manager.add(message.model_dump(exclude_none=True))
            call = message.tool_calls[0]
            manager.add({"role": "tool", "tool_call_id": call.id, "content": _file(turn)})
    assert provider.refused == 0, f"{provider.refused} requests over the window"
    assert len(provider.billed) == TURNS
    assert max(provider.billed) > 0.6 * WINDOW  # the loop really ran near the window


def test_anthropic_loop_with_a_hidden_prompt_never_goes_over_the_window() -> None:
    def bill(body: dict[str, Any]) -> int:
        request = {"system": body.get("system"), "messages": body["messages"]}
        if request["system"] is None:
            del request["system"]
        return cf.count_tokens(request, "claude-sonnet-4-5", format="anthropic") + HIDDEN

    provider = Provider(bill)
    for base_url in _serve(provider, _anthropic_reply):
        client = anthropic.Anthropic(base_url=base_url, api_key="test", max_retries=0)
        manager = cf.ContextManager(
            WINDOW,
            "claude-sonnet-4-5",
            format="anthropic",
            system="You are a coding agent.",
            policy=POLICY,
        )
        manager.add({"role": "user", "content": "Audit the repository, file by file."})
        for turn in range(TURNS):
            system = manager.system_prompt()
            extra = {"system": system} if system is not None else {}
            try:
                response = client.messages.create(
                    model="claude-sonnet-4-6", max_tokens=256, messages=manager.view(), **extra
                )
            except anthropic.BadRequestError:
                continue
            manager.observe_usage(response.usage)  # cache reads and writes count too
            manager.add(
                {"role": "assistant", "content": [b.model_dump() for b in response.content]}
            )
            tool_use = response.content[0]
            manager.add(
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": tool_use.id, "content": _file(turn)}
                    ],
                }
            )
    assert provider.refused == 0, f"{provider.refused} requests over the window"
    assert len(provider.billed) == TURNS
    assert max(provider.billed) > 0.6 * WINDOW
