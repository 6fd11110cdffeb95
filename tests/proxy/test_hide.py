"""Recall calls taken out of streams: an answer that starts with text (or mixes tools) and
then calls recall reaches the client without the recall call, and what it gets still
accumulates in the official SDKs' own stream accumulators."""

from __future__ import annotations

import json
from typing import Any

import pytest

import contextfold as cf
from contextfold._proxy._hide import Hider
from contextfold._proxy._sse import data_of

RECALL = cf.RECALL_TOOL_NAME


def _sse(data: Any, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data)}\n\n".encode()


def _through(format: cf.Format, events: list[bytes]) -> list[bytes]:
    hide = Hider(format)
    shown = [hide(e) for e in events]
    return [e for e in shown if e]


# --- Chat Completions ---------------------------------------------------------------------


def _chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    choice = {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
    chunk = {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "m"}
    return _sse({**chunk, "choices": [choice]})


def _call(index: int, name: str, args: str) -> list[bytes]:
    start = {"index": index, "id": f"call_{index}", "type": "function"}
    return [
        _chunk({"tool_calls": [{**start, "function": {"name": name, "arguments": ""}}]}),
        _chunk({"tool_calls": [{"index": index, "function": {"arguments": args}}]}),
    ]


def _chat_final(events: list[bytes]) -> Any:
    from openai.lib.streaming.chat._completions import ChatCompletionStreamState
    from openai.types.chat import ChatCompletionChunk

    state: Any = ChatCompletionStreamState()
    for event in events:
        data = data_of(event)
        if data is not None:
            state.handle_chunk(ChatCompletionChunk.model_validate(data))
    return state.get_final_completion().choices[0]


@pytest.mark.parametrize("other", [False, True])
def test_a_chat_stream_loses_its_recall_call_after_text(other: bool) -> None:
    events = [_chunk({"role": "assistant", "content": "Let me look."})]
    events += _call(0, RECALL, '{"ref": "r1"}')
    events += _call(1, "read_file", '{"path": "a.py"}') if other else []
    events += [_chunk({}, "tool_calls"), b"data: [DONE]\n\n"]
    shown = _through("openai-chat", events)
    assert RECALL.encode() not in b"".join(shown)
    assert shown[0] == events[0]  # untouched events pass byte for byte
    choice = _chat_final(shown)
    assert choice.message.content == "Let me look."
    if other:
        calls = choice.message.tool_calls
        assert [(c.function.name, c.function.arguments) for c in calls] == [
            ("read_file", '{"path": "a.py"}')
        ]
        assert choice.finish_reason == "tool_calls"
    else:
        assert not choice.message.tool_calls
        assert choice.finish_reason == "stop"


# --- Anthropic ------------------------------------------------------------------------------


def _block(index: int, block: dict[str, Any], delta: dict[str, Any]) -> list[bytes]:
    return [
        _sse(
            {"type": "content_block_start", "index": index, "content_block": block},
            "content_block_start",
        ),
        _sse(
            {"type": "content_block_delta", "index": index, "delta": delta}, "content_block_delta"
        ),
        _sse({"type": "content_block_stop", "index": index}, "content_block_stop"),
    ]


def _anthropic_events(other: bool) -> list[bytes]:
    message: dict[str, Any] = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1},
    }
    events = [_sse({"type": "message_start", "message": message}, "message_start")]
    events += _block(0, {"type": "text", "text": ""}, {"type": "text_delta", "text": "Checking."})
    recall = {"type": "tool_use", "id": "toolu_1", "name": RECALL, "input": {}}
    events += _block(1, recall, {"type": "input_json_delta", "partial_json": '{"ref": "r1"}'})
    if other:
        read = {"type": "tool_use", "id": "toolu_2", "name": "read_file", "input": {}}
        events += _block(2, read, {"type": "input_json_delta", "partial_json": '{"path": "a"}'})
    stop = {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None}}
    events += [_sse({**stop, "usage": {"output_tokens": 5}}, "message_delta")]
    return [*events, _sse({"type": "message_stop"}, "message_stop")]


@pytest.mark.parametrize("other", [False, True])
def test_an_anthropic_stream_loses_its_recall_block_and_keeps_dense_indexes(other: bool) -> None:
    from anthropic._models import construct_type
    from anthropic.lib.streaming._messages import accumulate_event
    from anthropic.types import RawMessageStreamEvent

    shown = _through("anthropic", _anthropic_events(other))
    assert RECALL.encode() not in b"".join(shown)
    assert all(e.startswith(b"event: ") for e in shown)
    snapshot: Any = None
    buffers: dict[int, bytes] = {}
    for event in shown:
        parsed: Any = construct_type(type_=RawMessageStreamEvent, value=data_of(event))
        snapshot = accumulate_event(event=parsed, current_snapshot=snapshot, json_bufs=buffers)
    assert snapshot.content[0].text == "Checking."
    if other:
        assert [(b.name, b.input) for b in snapshot.content[1:]] == [("read_file", {"path": "a"})]
        assert snapshot.stop_reason == "tool_use"
    else:
        assert len(snapshot.content) == 1
        assert snapshot.stop_reason == "end_turn"


# --- Responses ------------------------------------------------------------------------------


def test_a_responses_stream_loses_its_recall_item_and_keeps_dense_output_indexes() -> None:
    message: dict[str, Any] = {"type": "message", "id": "m1", "role": "assistant", "content": []}
    recall = {"type": "function_call", "id": "fc1", "call_id": "c1", "name": RECALL}
    read = {"type": "function_call", "id": "fc2", "call_id": "c2", "name": "read_file"}
    events: list[dict[str, Any]] = [
        {"type": "response.output_item.added", "output_index": 0, "item": message},
        {"type": "response.output_text.delta", "output_index": 0, "item_id": "m1", "delta": "Hm."},
        {"type": "response.output_item.added", "output_index": 1, "item": recall},
        {"type": "response.function_call_arguments.delta", "output_index": 1, "delta": "{}"},
        {"type": "response.output_item.done", "output_index": 1, "item": recall},
        {"type": "response.output_item.added", "output_index": 2, "item": read},
        {"type": "response.output_item.done", "output_index": 2, "item": read},
        {"type": "response.completed", "response": {"output": [message, recall, read]}},
    ]
    shown = _through("openai-responses", [_sse(e, e["type"]) for e in events])
    assert RECALL.encode() not in b"".join(shown)
    data = [data_of(e) for e in shown]
    assert [d.get("output_index") for d in data] == [0, 0, 1, 1, None]
    assert data[-1]["response"]["output"] == [message, read]
