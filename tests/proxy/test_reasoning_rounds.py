"""Recall rounds with an OpenAI-compatible thinking model (DeepSeek's thinking mode): the
assistant turn a round sends back keeps the answer's `reasoning_content`, which such a
server requires on every assistant message with tool calls (HTTP 400 without it)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

import contextfold as cf

from .conftest import ProxyFactory
from .histories import long_session
from .upstream import Upstream

THOUGHT = "The summary names f3.py; I should read what was folded before answering."


def _history() -> dict[str, Any]:
    """A thinking agent's session, every tool call turn with its reasoning, too long for
    the window."""
    return long_session(reasoning=True)


@pytest.mark.parametrize("stream", [False, True])
def test_a_recall_round_sends_the_answers_reasoning_back(
    stream: bool, upstream: Upstream, make_proxy: ProxyFactory
) -> None:
    running = make_proxy()
    upstream.reasoning = THOUGHT
    upstream.recall_every, upstream.answered = 2, 1  # recall first, then read a file
    body = {**_history(), "stream": stream}
    with httpx.stream("POST", f"{running.url}/v1/chat/completions", json=body) as answer:
        text = answer.read().decode()
        status = answer.status_code
    assert [s.refused for s in upstream.seen] == [None, None], text[:300]
    assert status == 200
    rounds = upstream.seen[-1].body["messages"]
    recalled = next(m for m in rounds if m["role"] == "assistant" and _calls_recall(m))
    assert recalled["reasoning_content"] == THOUGHT
    assert "read_file" in text
    assert cf.RECALL_TOOL_NAME not in text


def _calls_recall(message: dict[str, Any]) -> bool:
    calls = message.get("tool_calls") or []
    return any(c["function"]["name"] == cf.RECALL_TOOL_NAME for c in calls)


def _anthropic_events() -> list[dict[str, Any]]:
    """A streamed answer that thinks, searches the web (a server tool whose input streams
    in pieces, as the API sends it), says something and then calls the recall tool."""
    search = {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {}}
    found = {
        "type": "web_search_tool_result",
        "tool_use_id": "srvtoolu_01",
        "content": [
            {
                "type": "web_search_result",
                "url": "https://e.com",
                "title": "E",
                "encrypted_content": "Eq0x",
                "page_age": None,
            }
        ],
    }
    recall = {"type": "tool_use", "id": "toolu_01", "name": cf.RECALL_TOOL_NAME, "input": {}}
    message: dict[str, Any] = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-6",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1},
    }
    thinking = {"type": "thinking", "thinking": "", "signature": ""}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": message}]
    deltas: list[tuple[dict[str, Any], list[dict[str, Any]]]] = [
        (
            thinking,
            [
                {"type": "thinking_delta", "thinking": "Search first."},
                {"type": "signature_delta", "signature": "EqQBsig"},
            ],
        ),
        (
            search,
            [
                {"type": "input_json_delta", "partial_json": '{"query": "pytest'},
                {"type": "input_json_delta", "partial_json": ' fixtures"}'},
            ],
        ),
        (found, []),
        ({"type": "text", "text": ""}, [{"type": "text_delta", "text": "Let me recall."}]),
        (recall, [{"type": "input_json_delta", "partial_json": '{"ref": "r0123456789"}'}]),
    ]
    for index, (block, pieces) in enumerate(deltas):
        events.append({"type": "content_block_start", "index": index, "content_block": block})
        events += [{"type": "content_block_delta", "index": index, "delta": d} for d in pieces]
        events.append({"type": "content_block_stop", "index": index})
    stop = {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None}}
    return [*events, {**stop, "usage": {"output_tokens": 20}}, {"type": "message_stop"}]


def test_an_anthropic_stream_is_assembled_as_the_sdk_accumulates_it() -> None:
    from anthropic.lib.streaming._messages import accumulate_event

    from contextfold._proxy import _sse

    assembler = _sse.assembler("anthropic")
    snapshot: Any = None
    buffers: dict[int, bytes] = {}
    for event in _anthropic_events():
        assembler.feed(event)
        snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=buffers)  # type: ignore[arg-type]
    expected = [block.model_dump(exclude_none=True) for block in snapshot.content]
    content = assembler.response()["content"]
    assert _without_none(content) == expected


def _without_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_none(v) for v in value]
    return value


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("encrypted", [False, True])
def test_a_stateless_responses_round_sends_back_only_reasoning_it_can_read(
    encrypted: bool, stream: bool, upstream: Upstream, make_proxy: ProxyFactory
) -> None:
    running = make_proxy()
    upstream.reasoning = THOUGHT
    upstream.recall_every, upstream.answered = 2, 1  # recall first, then read a file
    converted = cf.convert(_history(), "openai-responses")
    assert isinstance(converted, dict)
    body: dict[str, Any] = {**converted, "store": False, "stream": stream}
    if encrypted:
        body["include"] = ["reasoning.encrypted_content"]
    with httpx.stream("POST", f"{running.url}/v1/responses", json=body) as answer:
        text = answer.read().decode()
        status = answer.status_code
    assert [s.refused for s in upstream.seen] == [None, None], text[:300]
    assert status == 200
    sent = upstream.seen[-1].body["input"]
    reasoning = [item for item in sent if item.get("type") == "reasoning"]
    assert len(reasoning) == encrypted  # the round's, when the API can read it back
    assert "read_file" in text
    assert cf.RECALL_TOOL_NAME not in text
