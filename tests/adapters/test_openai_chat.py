"""OpenAI chat parsing: what each wire shape becomes, exact round-trips, totality."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given

from contextfold import (
    Conversation,
    Image,
    InvalidConversation,
    Message,
    Opaque,
    Text,
    ToolCall,
    ToolResult,
    ToolSpec,
)
from contextfold._adapters._openai_chat import from_conversation, to_conversation
from contextfold._serialize import dump_conversation, load_conversation

from .. import corpus
from .chat_strategies import json_values, near_bodies, near_chat, near_messages, payloads

MARKER = "[cf:r0123456789 tool result masked, 812 tokens]"


def roundtrip(payload: Any) -> Any:
    return from_conversation(to_conversation(payload))


def parse_or_error(payload: object) -> Conversation | InvalidConversation:
    try:
        return to_conversation(payload)
    except InvalidConversation as error:
        return error


def test_plain_messages_map_one_to_one_with_empty_extras() -> None:
    conv = to_conversation(
        [
            {"role": "system", "content": "be brief"},
            {"role": "developer", "content": "use tools"},
            {"role": "user", "name": "alice", "content": "hi"},
            {"role": "assistant", "content": "hello"},
        ]
    )
    assert conv == Conversation(
        (
            Message("system", (Text("be brief"),)),
            Message("developer", (Text("use tools"),)),
            Message("user", (Text("hi"),), name="alice"),
            Message("assistant", (Text("hello"),)),
        )
    )


def test_list_content_parts_and_their_extras() -> None:
    audio = {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}
    original = {"type": "image_url", "image_url": {"url": "data:,", "detail": "original"}}
    message = {
        "role": "user",
        "content": [
            {"type": "text", "text": "look", "cache_control": {"type": "ephemeral"}},
            {"type": "image_url", "image_url": {"url": "https://x.test/a.png", "detail": "low"}},
            audio,
            original,
        ],
    }
    (parsed,) = to_conversation([message]).messages
    assert parsed.parts == (
        Text("look", extras={"cache_control": {"type": "ephemeral"}}),
        Image("https://x.test/a.png", detail="low"),
        Opaque(audio),
        Image("data:,", detail="original"),
    )
    assert roundtrip([message]) == [message]


def test_artifact_texts_read_back_as_text() -> None:
    conv = to_conversation(
        [
            {"role": "user", "content": "[cf:rules]\n- never push to main"},
            {"role": "user", "content": [{"type": "text", "text": "[cf:summary] earlier"}]},
            {"role": "tool", "tool_call_id": "c1", "content": MARKER},
        ]
    )
    card, summary, tool = conv.messages
    assert card.parts == (Text("[cf:rules]\n- never push to main"),)
    assert summary.parts[0] == Text("[cf:summary] earlier")
    assert tool.parts == (ToolResult("c1", (Text(MARKER),)),)


def test_tool_calls_keep_unknown_keys_and_order() -> None:
    call = {
        "index": 0,
        "function": {"arguments": "{}", "name": "ls"},
        "id": "c1",
        "type": "function",
    }
    messages = [
        {"content": None, "role": "assistant", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "name": "ls", "content": "a.py"},
    ]
    conv = to_conversation(messages)
    assistant, tool = conv.messages
    (parsed,) = assistant.parts
    assert isinstance(parsed, ToolCall)
    assert (parsed.id, parsed.name, parsed.arguments) == ("c1", "ls", "{}")
    assert parsed.extras["index"] == 0
    assert assistant.extras["content"] is None
    assert tool == Message("tool", (ToolResult("c1", (Text("a.py"),)),), name="ls")
    assert json.dumps(roundtrip(messages)) == json.dumps(messages)


def test_custom_tool_calls_are_tool_calls() -> None:
    call = {"id": "c9", "type": "custom", "custom": {"name": "patch", "input": "*** Begin"}}
    conv = to_conversation([{"role": "assistant", "tool_calls": [call]}])
    (parsed,) = conv.messages[0].parts
    assert isinstance(parsed, ToolCall)
    assert (parsed.id, parsed.name, parsed.arguments) == ("c9", "patch", "*** Begin")
    assert roundtrip([{"role": "assistant", "tool_calls": [call]}]) == [
        {"role": "assistant", "tool_calls": [call]}
    ]


def test_legacy_function_call_pairs_with_the_next_function_message() -> None:
    messages = [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": None, "function_call": {"name": "w", "arguments": "{}"}},
        {"role": "function", "name": "w", "content": "sunny"},
    ]
    _, assistant, result = to_conversation(messages).messages
    (call,) = assistant.parts
    assert isinstance(call, ToolCall)
    assert result.role == "tool"
    assert result.name == "w"
    assert result.parts == (ToolResult(call.id, (Text("sunny"),)),)
    assert roundtrip(messages) == messages


def test_body_fields_and_tools() -> None:
    body = {
        "model": "gpt-4o",
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [
            {
                "type": "function",
                "function": {"name": "ls", "description": "list", "parameters": {}, "strict": True},
            },
            {"type": "custom", "custom": {"name": "patch", "description": "apply a patch"}},
        ],
        "tool_choice": "auto",
        "temperature": 0,
    }
    conv = to_conversation(body)
    assert conv.shape == "body"
    wire_keys = [key for key in conv.extras if not key.startswith("openai-chat:")]
    assert wire_keys == ["model", "tool_choice", "temperature"]
    function, custom = conv.tools
    assert function == ToolSpec("ls", "list", {}, extras={"strict": True})
    assert (custom.name, custom.description) == ("patch", "apply a patch")
    assert json.dumps(roundtrip(body)) == json.dumps(body)


def test_legacy_functions_field_round_trips() -> None:
    body = {
        "messages": [{"role": "user", "content": "hi"}],
        "functions": [{"name": "w", "parameters": {"type": "object"}}],
        "function_call": "auto",
    }
    (spec,) = to_conversation(body).tools
    assert (spec.name, spec.parameters) == ("w", {"type": "object"})
    assert roundtrip(body) == body


@pytest.mark.parametrize(
    ("payload", "index", "field"),
    [
        ("hello", None, None),
        ({"model": "gpt-4o"}, None, "messages"),
        ([1], 0, None),
        ([{"role": "robot", "content": "x"}], 0, "role"),
        ([{"role": "user", "content": 3}], 0, "content"),
        ([{"role": "user", "content": ["x"]}], 0, "content[0]"),
        ([{"role": "tool", "content": "x"}], 0, "tool_call_id"),
        ([{"role": "assistant", "tool_calls": {}}], 0, "tool_calls"),
        (
            [{"role": "assistant", "tool_calls": [{"id": "c", "type": "x"}]}],
            0,
            "tool_calls[0].type",
        ),
        (
            [{"role": "assistant", "tool_calls": [{"type": "function", "function": {}}]}],
            0,
            "tool_calls[0].id",
        ),
        (
            [
                {
                    "role": "assistant",
                    "tool_calls": [
                        {"id": "c", "type": "function", "function": {"name": "f", "arguments": {}}}
                    ],
                }
            ],
            0,
            "tool_calls[0].function.arguments",
        ),
        ([{"role": "assistant", "function_call": "auto"}], 0, "function_call"),
    ],
)
def test_unreadable_input_names_index_and_field(
    payload: object, index: int | None, field: str | None
) -> None:
    with pytest.raises(InvalidConversation) as caught:
        to_conversation(payload)
    assert (caught.value.index, caught.value.field, caught.value.format) == (
        index,
        field,
        "openai-chat",
    )


@pytest.mark.corpus
def test_corpus_round_trips_byte_for_byte() -> None:
    for conversation_id, messages in corpus.conversations():
        again = roundtrip(messages)
        assert json.dumps(again) == json.dumps(messages), conversation_id


@given(payloads)
def test_generated_payloads_round_trip_with_key_order(payload: Any) -> None:
    out = roundtrip(payload)
    assert json.dumps(out) == json.dumps(payload)
    messages = out["messages"] if isinstance(out, dict) else out
    original = payload["messages"] if isinstance(payload, dict) else payload
    assert all(a is not b for a, b in zip(messages, original, strict=True))


@given(payloads)
def test_parsed_layout_survives_the_neutral_json_form(payload: Any) -> None:
    conversation = to_conversation(payload)
    again = load_conversation(json.loads(json.dumps(dump_conversation(conversation))))
    assert again == conversation
    assert json.dumps(from_conversation(again)) == json.dumps(payload)


@given(json_values | near_chat | near_messages | near_bodies)
def test_parse_is_total_and_exact_on_anything(payload: Any) -> None:
    result = parse_or_error(payload)
    if isinstance(result, InvalidConversation):
        assert result.format == "openai-chat"
    else:
        assert from_conversation(result) == payload
