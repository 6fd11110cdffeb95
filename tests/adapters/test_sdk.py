"""Official openai SDK objects in a history parse like the wire JSON they stand for."""

from __future__ import annotations

import json
from typing import Any

from openai.types.chat import ChatCompletion, ChatCompletionMessage

import contextfold
from contextfold import Text, ToolCall, ToolResult
from contextfold._adapters._sdk import to_plain

CALL = {"id": "call_1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}


def completion(message: dict[str, Any]) -> ChatCompletion:
    """A ChatCompletion as the SDK builds it from an API response."""
    return ChatCompletion.model_validate(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1,
            "model": "gpt-4o",
            "choices": [
                {"index": 0, "finish_reason": "stop", "logprobs": None, "message": message}
            ],
        }
    )


def reply_with_call() -> ChatCompletionMessage:
    message = {"role": "assistant", "content": None, "refusal": None, "tool_calls": [CALL]}
    return completion(message).choices[0].message


def history() -> list[object]:
    return [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "list files"},
        reply_with_call(),
        {"role": "tool", "tool_call_id": "call_1", "content": "a.py"},
    ]


def test_sdk_message_with_tool_calls_parses() -> None:
    fmt, conv = contextfold.parse(history())
    assert fmt == "openai-chat"
    _, _, assistant, tool = conv.messages
    (call,) = assistant.parts
    assert isinstance(call, ToolCall)
    assert (call.id, call.name, call.arguments) == ("call_1", "ls", "{}")
    assert tool.parts == (ToolResult("call_1", (Text("a.py"),)),)


def test_render_gives_plain_json_dicts() -> None:
    fmt, conv = contextfold.parse(history())
    rendered = contextfold.render(conv, fmt)
    assert isinstance(rendered, list)
    assert all(type(message) is dict for message in rendered)
    assert rendered[2] == {"role": "assistant", "tool_calls": [CALL]}
    assert json.loads(json.dumps(rendered)) == rendered


def test_validate_accepts_sdk_objects() -> None:
    assert contextfold.validate(history()) == []


def test_sdk_tool_call_objects_inside_a_plain_message() -> None:
    message = {"role": "assistant", "tool_calls": reply_with_call().tool_calls}
    fmt, conv = contextfold.parse([message], format="openai-chat")
    assert contextfold.render(conv, fmt) == [{"role": "assistant", "tool_calls": [CALL]}]


def test_text_reply_object_round_trips_to_its_wire_json() -> None:
    reply = completion({"role": "assistant", "content": "hello"}).choices[0].message
    fmt, conv = contextfold.parse([{"role": "user", "content": "hi"}, reply])
    assert contextfold.render(conv, fmt) == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
    ]


def test_plain_data_is_returned_as_is() -> None:
    plain = [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]
    assert to_plain(plain) is plain
    assert to_plain(("a", {"b": 1})) == ["a", {"b": 1}]
