"""Rendering to OpenAI chat what the compaction engine edited or created."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contextfold import (
    Card,
    Conversation,
    Image,
    InvalidConversation,
    Marker,
    Message,
    Reasoning,
    Summary,
    Text,
    ToolCall,
    ToolResult,
    ToolSpec,
)
from contextfold._adapters._openai_chat import from_conversation, to_conversation, validate

from ..strategies import messages
from .chat_strategies import payloads

MARKER = Marker("r0123456789", "[cf:r0123456789 tool result masked, 812 tokens]")
CALL = {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}


def with_result_parts(message: Message, *parts: Text | Marker) -> Message:
    (result,) = message.parts
    assert isinstance(result, ToolResult)
    return replace(message, parts=(replace(result, parts=parts),))


def render(*messages: Message) -> Any:
    return from_conversation(Conversation(messages))


def test_masked_string_tool_result_keeps_its_layout() -> None:
    wire = {"role": "tool", "tool_call_id": "c1", "name": "ls", "content": "a.py\nb.py"}
    (message,) = to_conversation([wire]).messages
    masked = render(with_result_parts(message, MARKER))
    assert json.dumps(masked) == json.dumps([{**wire, "content": MARKER.text}])


def test_pruned_string_tool_result_joins_head_marker_tail() -> None:
    wire = {"role": "tool", "content": "long output", "tool_call_id": "c1"}
    (message,) = to_conversation([wire]).messages
    pruned = render(with_result_parts(message, Text("head"), MARKER, Text("tail")))
    assert pruned == [{**wire, "content": f"head\n\n{MARKER.text}\n\ntail"}]
    assert list(pruned[0]) == ["role", "content", "tool_call_id"]


def test_pruned_list_tool_result_stays_a_list_and_keeps_message_extras() -> None:
    wire = {
        "role": "tool",
        "content": [{"type": "text", "text": "OBSERVATION:\r\nlong"}],
        "tool_call_id": "c1",
        "cache_control": {"type": "ephemeral"},
    }
    (message,) = to_conversation([wire]).messages
    pruned = render(with_result_parts(message, Text("head"), MARKER, Text("tail")))
    assert pruned == [
        {
            **wire,
            "content": [
                {"type": "text", "text": "head"},
                {"type": "text", "text": MARKER.text},
                {"type": "text", "text": "tail"},
            ],
        }
    ]


def test_masked_assistant_text_keeps_its_tool_calls() -> None:
    wire = {"role": "assistant", "content": "I will look around first.", "tool_calls": [CALL]}
    (message,) = to_conversation([wire]).messages
    edited = replace(message, parts=(MARKER, *message.parts[1:]))
    assert render(edited) == [{**wire, "content": MARKER.text}]


def test_new_artifact_message_is_one_string() -> None:
    card = Card("[cf:rules]\n- never push to main")
    summary = Summary("[cf:summary] the user wants a refund")
    assert render(Message("user", (card, summary))) == [
        {"role": "user", "content": f"{card.text}\n\n{summary.text}"}
    ]


def test_new_error_result_keeps_its_text() -> None:
    result = ToolResult("c1", (Text("tool failed: timeout"),), is_error=True)
    assert render(Message("tool", (result,))) == [
        {"role": "tool", "tool_call_id": "c1", "content": "tool failed: timeout"}
    ]


def test_new_assistant_and_image_messages() -> None:
    call = ToolCall("c1", "ls", "{}")
    image = Image("https://x.test/a.png", detail="high")
    assert render(
        Message("assistant", (call,)),
        Message("assistant", (Text("running ls"), call)),
        Message("user", (Text("see"), image)),
    ) == [
        {"role": "assistant", "tool_calls": [CALL]},
        {"role": "assistant", "content": "running ls", "tool_calls": [CALL]},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "see"},
                {"type": "image_url", "image_url": {"url": image.source, "detail": "high"}},
            ],
        },
    ]


def test_new_body_with_tools() -> None:
    conv = Conversation(
        (Message("user", (Text("hi"),)),),
        shape="body",
        tools=(ToolSpec("ls", "list files", {"type": "object"}),),
        extras={"model": "gpt-4o"},
    )
    assert from_conversation(conv) == {
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "ls",
                    "description": "list files",
                    "parameters": {"type": "object"},
                },
            }
        ],
        "model": "gpt-4o",
    }


@pytest.mark.parametrize(
    ("message", "field"),
    [
        (Message("user", (Text("x"), ToolResult("c1", (Text("out"),)))), "content[1]"),
        (Message("assistant", (Reasoning("thinking"), Text("x"))), "content[0]"),
        (Message("tool", (ToolResult("a", ()), ToolResult("b", ()))), "content"),
        (Message("tool", (Text("no result"),)), "content"),
    ],
)
def test_what_chat_cannot_express_raises_with_the_index(message: Message, field: str) -> None:
    with pytest.raises(InvalidConversation) as caught:
        render(Message("system", (Text("s"),)), message)
    assert (caught.value.index, caught.value.field) == (1, field)


def mask_every_result(conversation: Conversation, *parts: Text | Marker) -> Conversation:
    messages = tuple(
        with_result_parts(m, *parts) if m.role == "tool" else m for m in conversation.messages
    )
    return replace(conversation, messages=messages)


@given(payloads)
def test_compacted_payloads_stay_valid_stable_and_readable(payload: Any) -> None:
    conversation = to_conversation(payload)
    pruned = from_conversation(mask_every_result(conversation, Text("head"), MARKER))
    assert validate(pruned) == []
    assert json.dumps(from_conversation(to_conversation(pruned))) == json.dumps(pruned)
    masked = from_conversation(mask_every_result(conversation, MARKER))
    again = to_conversation(masked)
    results = [m.parts[0] for m in again.messages if m.role == "tool"]
    assert all(isinstance(r, ToolResult) and r.parts == (Text(MARKER.text),) for r in results)


def render_or_error(conversation: Conversation) -> object:
    try:
        return from_conversation(conversation)
    except InvalidConversation as error:
        return error


@given(st.lists(messages, max_size=5), st.sampled_from(["list", "body"]))
def test_rendering_any_neutral_conversation_is_total(items: list[Message], shape: str) -> None:
    out = render_or_error(Conversation(tuple(items), shape="body" if shape == "body" else "list"))
    if isinstance(out, InvalidConversation):
        assert (out.format, isinstance(out.index, int)) == ("openai-chat", True)
    else:
        assert json.loads(json.dumps(out)) == out
