"""The proxy when the upstream fails, and at the edges of its own endpoints, driven through
the official SDKs: an unreachable upstream is 502 and a silent one 504, in the provider's
shape and naming the upstream; a stream the upstream breaks off ends with the provider's
error event and no traceback; `count_tokens` refuses what the API refuses; a one-message
first request and its next turn are one session."""

from __future__ import annotations

import json
import logging
import socket
import threading
from collections.abc import Iterator
from typing import Any

import anthropic
import httpx
import openai
import pytest

from . import agents
from .conftest import ProxyFactory
from .upstream import Upstream

CLOSED = "http://127.0.0.1:9/v1"
"""Nothing listens on port 9 (discard): connections are refused."""
USER: Any = {"role": "user", "content": "Say hi."}
CLAUDE: Any = {"model": "claude-sonnet-4-6", "max_tokens": 64}
TOOLS_CHAT: Any = agents.TOOLS_CHAT
TOOLS_RESPONSES: Any = agents.TOOLS_RESPONSES
TOOLS_ANTHROPIC: Any = agents.TOOLS_ANTHROPIC
"""The SDKs' parameter types, loosened: these tests send plain JSON as an agent would."""


_CLIENTS: list[openai.OpenAI | anthropic.Anthropic] = []


def _openai(url: str) -> openai.OpenAI:
    client = openai.OpenAI(base_url=url + "/v1", api_key="k", max_retries=0)
    _CLIENTS.append(client)
    return client


def _anthropic(url: str) -> anthropic.Anthropic:
    client = anthropic.Anthropic(base_url=url, api_key="k", max_retries=0)
    _CLIENTS.append(client)
    return client


@pytest.fixture(autouse=True)
def _closed_clients() -> Iterator[None]:
    """Every SDK client a test made is closed after it (no socket left to the collector)."""
    yield
    while _CLIENTS:
        _CLIENTS.pop().close()


@pytest.fixture
def silent() -> Iterator[str]:
    """An upstream on 127.0.0.1 that takes connections and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                return

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}/v1"
    stop.set()
    server.close()
    for connection in held:
        connection.close()


def test_an_unreachable_upstream_is_a_named_502_both_sdks_read(make_proxy: ProxyFactory) -> None:
    running = make_proxy(openai_upstream=CLOSED, anthropic_upstream=CLOSED)
    with pytest.raises(openai.InternalServerError) as chat:
        _openai(running.url).chat.completions.create(model="gpt-4o", messages=[USER])
    assert chat.value.status_code == 502
    error: Any = chat.value.body
    assert error["type"] == "server_error"
    assert error["code"] == "upstream_unreachable"
    assert "upstream http://127.0.0.1:9 " in error["message"]
    with pytest.raises(anthropic.InternalServerError) as claude:
        _anthropic(running.url).messages.create(**CLAUDE, messages=[USER])
    assert claude.value.status_code == 502
    body: Any = claude.value.body
    assert body["type"] == "error"
    assert body["error"]["type"] == "api_error"
    assert "upstream http://127.0.0.1:9 " in body["error"]["message"]


def test_an_upstream_that_does_not_answer_is_a_504(make_proxy: ProxyFactory, silent: str) -> None:
    running = make_proxy(openai_upstream=silent, anthropic_upstream=silent, timeout=0.5)
    with pytest.raises(anthropic.GatewayTimeoutError) as claude:
        _anthropic(running.url).messages.create(**CLAUDE, messages=[USER])
    body: Any = claude.value.body
    assert body["error"]["type"] == "timeout_error"
    assert silent.removesuffix("/v1") in body["error"]["message"]
    with pytest.raises(openai.InternalServerError) as chat:
        _openai(running.url).chat.completions.create(model="gpt-4o", messages=[USER])
    assert chat.value.status_code == 504
    error: Any = chat.value.body
    assert error["code"] == "upstream_timeout"


@pytest.fixture
def asgi_errors(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    """Log records of the server (uvicorn's 'Exception in ASGI application' among them)."""
    caplog.set_level(logging.WARNING)
    return caplog


def _tracebacks(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.exc_info or r.name.startswith("uvicorn")]


def test_a_chat_stream_broken_off_ends_with_the_error_event(
    upstream: Upstream, make_proxy: ProxyFactory, asgi_errors: pytest.LogCaptureFixture
) -> None:
    running = make_proxy()
    upstream.break_after = 2
    stream = _openai(running.url).chat.completions.create(
        model="gpt-4o",
        messages=[USER],
        stream=True,
    )
    got: list[Any] = []
    with pytest.raises(openai.APIError, match="broke off the stream"):
        got.extend(stream)
    assert len(got) == 2  # what came before the break reached the client
    assert not _tracebacks(asgi_errors)
    assert any("broke off a stream" in r.getMessage() for r in asgi_errors.records)


def test_a_responses_stream_broken_off_ends_with_its_error_event(
    upstream: Upstream, make_proxy: ProxyFactory, asgi_errors: pytest.LogCaptureFixture
) -> None:
    running = make_proxy()
    upstream.break_after = 3
    events = list(
        _openai(running.url).responses.create(
            model="gpt-4o",
            input="Read f1.py.",
            tools=TOOLS_RESPONSES,
            stream=True,
        )
    )
    assert [e.type for e in events][:3] == [
        "response.created",
        "response.output_item.added",
        "response.function_call_arguments.delta",
    ]
    last: Any = events[-1]
    assert (last.type, last.code, last.sequence_number) == ("error", "upstream_disconnected", 3)
    assert "broke off the stream" in last.message
    assert not _tracebacks(asgi_errors)


def test_a_stored_response_streamed_again_and_broken_off_ends_with_its_error_event(
    upstream: Upstream, make_proxy: ProxyFactory, asgi_errors: pytest.LogCaptureFixture
) -> None:
    running = make_proxy()
    upstream.break_after = 1
    with httpx.stream("GET", f"{running.url}/v1/responses/resp_1?stream=true") as answer:
        text = answer.read().decode()
    events = [block for block in text.split("\n\n") if block.strip()]
    assert len(events) == 2
    assert events[-1].startswith("event: error\ndata: ")
    error = json.loads(events[-1].partition("data: ")[2])
    assert (error["type"], error["code"], error["sequence_number"]) == (
        "error",
        "upstream_disconnected",
        1,
    )
    assert not _tracebacks(asgi_errors)


def test_an_anthropic_stream_broken_off_ends_with_its_error_event(
    upstream: Upstream, make_proxy: ProxyFactory, asgi_errors: pytest.LogCaptureFixture
) -> None:
    running = make_proxy()
    upstream.break_after = 2
    stream = _anthropic(running.url).messages.create(
        **CLAUDE,
        messages=[USER],
        tools=TOOLS_ANTHROPIC,
        stream=True,
    )
    with pytest.raises(anthropic.APIStatusError, match="broke off the stream") as caught:
        list(stream)
    body: Any = caught.value.body
    assert body["error"]["type"] == "api_error"
    assert not _tracebacks(asgi_errors)


def test_a_compacted_stream_broken_off_ends_with_the_error_event(
    upstream: Upstream, make_proxy: ProxyFactory, asgi_errors: pytest.LogCaptureFixture
) -> None:
    running = make_proxy()
    client = _openai(running.url)
    run = agents.chat(client, 4)  # past the window: the session is compacted
    assert running.proxy.metrics.compactions._value.get() >= 1
    upstream.break_after = 1
    stream = client.chat.completions.create(**agents.chat_args(run), stream=True)
    with pytest.raises(openai.APIError, match="broke off the stream"):
        list(stream)
    assert not _tracebacks(asgi_errors)


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ({"model": "claude-sonnet-4-6", "messages": []}, "at least one message"),
        ({"messages": [USER]}, "model"),
        ({"model": "", "messages": [USER]}, "model"),
        ({"model": "claude-sonnet-4-6"}, "'messages'"),
        (
            {"model": "claude-sonnet-4-6", "messages": [{"role": "assistant", "content": "x"}]},
            "user",
        ),
    ],
)
def test_count_tokens_refuses_what_the_api_refuses(
    make_proxy: ProxyFactory, body: dict[str, Any], said: str
) -> None:
    running = make_proxy()
    answer = httpx.post(f"{running.url}/v1/messages/count_tokens", json=body)
    assert answer.status_code == 400
    error = answer.json()
    assert error["type"] == "error"
    assert error["error"]["type"] == "invalid_request_error"
    assert said in error["error"]["message"]


def test_count_tokens_through_the_sdk(make_proxy: ProxyFactory) -> None:
    client = _anthropic(make_proxy().url)
    counted = client.messages.count_tokens(model="claude-sonnet-4-6", messages=[USER])
    assert counted.input_tokens > 0
    with pytest.raises(anthropic.BadRequestError, match="at least one message"):
        client.messages.count_tokens(model="claude-sonnet-4-6", messages=[])


def _sessions(running: Any) -> int:
    return int(httpx.get(f"{running.url}/healthz").json()["sessions"])


def test_a_one_message_first_request_and_its_next_turn_are_one_session(
    upstream: Upstream, make_proxy: ProxyFactory
) -> None:
    running = make_proxy()
    client = _openai(running.url)
    items: list[Any] = [{"role": "user", "content": agents.TASK}]
    for _ in range(3):
        reply = client.chat.completions.create(
            model="gpt-4o",
            messages=items,
            tools=TOOLS_CHAT,
        )
        calls = [c.model_dump(exclude_none=True) for c in reply.choices[0].message.tool_calls or []]
        items.append({"role": "assistant", "content": None, "tool_calls": calls})
        items += [{"role": "tool", "tool_call_id": c["id"], "content": "ok"} for c in calls]
        assert _sessions(running) == 1


def test_a_one_message_first_request_continues_in_every_format(
    upstream: Upstream, make_proxy: ProxyFactory
) -> None:
    running = make_proxy()
    claude = _anthropic(running.url)
    first = claude.messages.create(**CLAUDE, messages=[USER], tools=TOOLS_ANTHROPIC)
    call = next(b for b in first.content if b.type == "tool_use")
    result: Any = {"type": "tool_result", "tool_use_id": call.id, "content": "ok"}
    turn: list[Any] = [
        USER,
        {"role": "assistant", "content": [b.model_dump() for b in first.content]},
    ]
    later = [*turn, {"role": "user", "content": [result]}]
    claude.messages.create(**CLAUDE, messages=later, tools=TOOLS_ANTHROPIC)
    assert _sessions(running) == 1
    client = _openai(running.url)
    answer = client.responses.create(model="gpt-4o", input=[USER], tools=TOOLS_RESPONSES)
    made: list[Any] = [item.model_dump(exclude_none=True) for item in answer.output]
    output: Any = {"type": "function_call_output", "call_id": made[0]["call_id"], "output": "ok"}
    client.responses.create(model="gpt-4o", input=[USER, *made, output], tools=TOOLS_RESPONSES)
    assert _sessions(running) == 2  # one per conversation
