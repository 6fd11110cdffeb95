"""Rendering what the compaction engine changed or created, and what Anthropic refuses."""

from __future__ import annotations

from typing import Any

import pytest

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
from contextfold._adapters._anthropic import from_conversation, to_conversation, validate
from tests.adapters.anthropic_strategies import assistant, result, text, use, user

MARK = "[cf:r0123456789 tool result masked, 812 tokens]"


def _conversation() -> Conversation:
    return to_conversation(
        {
            "model": "m",
            "system": "rules",
            "messages": [
                user("hi"),
                assistant(
                    [text("looking", cache_control={"type": "ephemeral"}), use("t1"), use("t2")]
                ),
                user([result("t1", "long output"), result("t2", [text("line")], is_error=False)]),
            ],
        }
    )


def _replace(conversation: Conversation, index: int, message: Message) -> Conversation:
    messages = list(conversation.messages)
    messages[index] = message
    return Conversation(
        tuple(messages),
        shape=conversation.shape,
        tools=conversation.tools,
        extras=conversation.extras,
    )


def _results(conversation: Conversation) -> tuple[ToolResult, ToolResult]:
    first, second = conversation.messages[3].parts
    assert isinstance(first, ToolResult)
    assert isinstance(second, ToolResult)
    return first, second


def test_masked_tool_results_keep_their_content_form() -> None:
    conversation = _conversation()
    first, second = _results(conversation)
    marker = Marker("r0123456789", MARK)
    masked = Message(
        "user",
        (
            ToolResult(first.call_id, (marker,), extras=first.extras),
            ToolResult(second.call_id, (marker,), extras=second.extras),
        ),
        extras=conversation.messages[3].extras,
    )
    body = from_conversation(_replace(conversation, 3, masked))
    assert isinstance(body, dict)
    assert body["messages"][2]["content"] == [
        result("t1", MARK),
        result("t2", [text(MARK)], is_error=False),
    ]
    assert to_conversation(body).messages[3].parts[0] == ToolResult(
        "t1", (Text(MARK),), extras=first.extras
    )


def test_pruned_tool_results_join_head_marker_tail_in_string_form() -> None:
    conversation = _conversation()
    first, second = _results(conversation)
    pruned = (Text("head"), Marker("r0123456789", "[cf:r0123456789 3,000 chars cut]"), Text("tail"))
    message = Message(
        "user",
        (
            ToolResult(first.call_id, pruned, extras=first.extras),
            ToolResult(second.call_id, pruned, extras=second.extras),
        ),
    )
    body = from_conversation(_replace(conversation, 3, message))
    assert isinstance(body, dict)
    string_form, list_form = body["messages"][2]["content"]
    assert string_form["content"] == "head\n[cf:r0123456789 3,000 chars cut]\ntail"
    assert list_form["content"] == [
        text("head"),
        text("[cf:r0123456789 3,000 chars cut]"),
        text("tail"),
    ]
    assert list_form["is_error"] is False


def test_masked_assistant_text_keeps_its_block_extras() -> None:
    conversation = _conversation()
    message = conversation.messages[2]
    original = message.parts[0]
    assert isinstance(original, Text)
    masked = Message(
        "assistant", (Marker("r0123456789", MARK, extras=original.extras), *message.parts[1:])
    )
    body = from_conversation(_replace(conversation, 2, masked))
    assert isinstance(body, dict)
    assert body["messages"][1]["content"][0] == text(MARK, cache_control={"type": "ephemeral"})


def test_new_artifact_and_error_messages_render_as_user_blocks() -> None:
    card = Card("[cf:rules]\n- never push to main")
    summary = Summary("[cf:summary] the user wants a refund")
    conversation = Conversation(
        (
            Message("user", (card, summary)),
            Message("assistant", (ToolCall("t9", "f", '{"a":1}'),)),
            Message("user", (ToolResult("t9", (Text("boom"),), is_error=True),)),
        )
    )
    assert from_conversation(conversation) == [
        user([text(card.text), text(summary.text)]),
        assistant([use("t9", a=1)]),
        user([{"type": "tool_result", "tool_use_id": "t9", "content": "boom", "is_error": True}]),
    ]
    assert validate(from_conversation(conversation)) == []


def test_neutral_system_and_tools_render_at_the_top_level() -> None:
    conversation = Conversation(
        (
            Message("system", (Text("be brief"),)),
            Message("user", (Text("hi"), Image("data:image/gif;base64,R0lG"))),
        ),
        shape="body",
        tools=(ToolSpec("f", "does f", {"type": "object"}),),
        extras={"model": "m", "max_tokens": 5, "stream": False},
    )
    body = from_conversation(conversation)
    assert body == {
        "model": "m",
        "max_tokens": 5,
        "system": "be brief",
        "messages": [
            user(
                [
                    text("hi"),
                    {
                        "type": "image",
                        "source": {"type": "base64", "media_type": "image/gif", "data": "R0lG"},
                    },
                ]
            )
        ],
        "tools": [{"name": "f", "description": "does f", "input_schema": {"type": "object"}}],
        "stream": False,
    }
    assert isinstance(body, dict)
    assert list(body) == ["model", "max_tokens", "system", "messages", "tools", "stream"]
    two = Conversation(
        (
            Message("system", (Text("a"),)),
            Message("developer", (Text("b"),)),
            Message("user", (Text("c"),)),
        ),
        shape="body",
    )
    assert from_conversation(two) == {
        "system": [text("a"), text("b")],
        "messages": [user([text("c")])],
    }


@pytest.mark.parametrize(
    ("message", "shape", "index", "field"),
    [
        (Message("tool", (ToolResult("t", (Text("x"),)),)), "body", 1, "role"),
        (Message("system", (Text("late"),)), "body", 1, "role"),
        (Message("developer", (Text("late"),)), "body", 1, "role"),
        (Message("user", (Text("x"),), name="bob"), "body", 1, "name"),
        (Message("assistant", (ToolCall("t", "f", "{not json"),)), "body", 1, "content[0].input"),
        (Message("user", (Image("data:image/png,raw"),)), "body", 1, "content[0].source"),
        (Message("assistant", (Reasoning("", encrypted="gAAA"),)), "body", 1, "content[0]"),
        (Message("system", (Text("lead"),)), "list", 0, None),
    ],
)
def test_shapes_anthropic_cannot_express_are_refused(
    message: Message, shape: Any, index: int, field: str | None
) -> None:
    messages = (message,) if shape == "list" else (Message("user", (Text("hi"),)), message)
    with pytest.raises(InvalidConversation) as info:
        from_conversation(Conversation(messages, shape=shape))
    assert (info.value.index, info.value.field, info.value.format) == (index, field, "anthropic")
