"""Rendering to Responses input items: messages the compaction engine changed or created."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from contextfold import (
    Card,
    Conversation,
    Image,
    InvalidConversation,
    Marker,
    Message,
    Opaque,
    Reasoning,
    Summary,
    Text,
    ToolCall,
    ToolResult,
    ToolSpec,
)
from contextfold._adapters._openai_responses import from_conversation, to_conversation

MARKER = Marker("r0123456789", "[cf:r0123456789 tool output masked, 812 tokens]")
SUMMARY = Summary("[cf:summary]\nGoal: fix the build.")
CARD = Card("[cf:rules]\n- never push to main")


def render_list(*messages: Message) -> Any:
    """The items for a list-shaped conversation."""
    return from_conversation(Conversation(messages))


def replace_result_parts(item: dict[str, Any], *parts: Any) -> Any:
    """Parse one output item, swap its ToolResult parts as the engine would, render it."""
    (message,) = to_conversation([item]).messages
    (result,) = message.parts
    assert isinstance(result, ToolResult)
    edited = replace(message, parts=(replace(result, parts=parts),))
    return render_list(edited)[0]


def test_masked_string_output_stays_a_string() -> None:
    item = {"type": "function_call_output", "id": "fco_1", "call_id": "c", "output": "x" * 900}
    assert replace_result_parts(item, MARKER) == {**item, "output": MARKER.text}


def test_pruned_string_output_joins_head_marker_and_tail() -> None:
    item = {"type": "function_call_output", "call_id": "c", "output": "head...tail"}
    rendered = replace_result_parts(item, Text("head"), MARKER, Text("tail"))
    assert rendered == {**item, "output": f"head\n{MARKER.text}\ntail"}


def test_masked_list_output_becomes_a_string() -> None:
    output = [{"type": "input_image", "image_url": "https://x/p.png"}]
    item = {"type": "custom_tool_call_output", "call_id": "c", "output": output}
    assert replace_result_parts(item, MARKER) == {**item, "output": MARKER.text}


def test_output_mixing_new_text_and_an_image_becomes_typed_parts() -> None:
    item = {"type": "function_call_output", "call_id": "c", "output": "x"}
    rendered = replace_result_parts(item, MARKER, Image("https://x/p.png", detail="low"))
    assert rendered["output"] == [
        {"type": "input_text", "text": MARKER.text},
        {"type": "input_image", "image_url": "https://x/p.png", "detail": "low"},
    ]


def test_masked_assistant_text_keeps_its_part_fields() -> None:
    text_part = {"type": "output_text", "text": "long prose", "annotations": [], "logprobs": []}
    item = {"type": "message", "id": "m", "role": "assistant", "status": "completed"}
    (message,) = to_conversation([{**item, "content": [text_part]}]).messages
    masked = replace(message, parts=(replace(MARKER, extras=message.parts[0].extras),))
    assert render_list(masked) == [{**item, "content": [{**text_part, "text": MARKER.text}]}]


def test_new_card_and_summary_message_renders_typed_parts_that_parse_back() -> None:
    new = Message("user", (CARD, SUMMARY))
    rendered = render_list(new)
    assert rendered == [
        {
            "role": "user",
            "content": [
                {"type": "input_text", "text": CARD.text},
                {"type": "input_text", "text": SUMMARY.text},
            ],
        }
    ]
    again = to_conversation(rendered).messages[0]
    assert [p.text for p in again.parts if isinstance(p, Text)] == [CARD.text, SUMMARY.text]
    assert render_list(again) == rendered


def test_new_single_artifact_message_renders_string_content() -> None:
    assert render_list(Message("developer", (SUMMARY,))) == [
        {"role": "developer", "content": SUMMARY.text}
    ]


def test_new_assistant_text_gets_output_text_with_annotations() -> None:
    rendered = render_list(Message("assistant", (Text("a"), Text("b"))))
    part = {"type": "output_text", "text": "a", "annotations": []}
    assert rendered[0]["content"] == [part, {**part, "text": "b"}]


def test_new_error_result_renders_a_function_call_output() -> None:
    new = Message("tool", (ToolResult("call_9", (Text("tool failed: timeout"),), is_error=True),))
    assert render_list(new) == [
        {"type": "function_call_output", "call_id": "call_9", "output": "tool failed: timeout"}
    ]


def test_new_call_and_reasoning_render_as_items() -> None:
    call = Message("assistant", (ToolCall("c", "f", "{}"),))
    thought = Message("assistant", (Reasoning("plan", encrypted="enc"),))
    assert render_list(call, thought, Message("assistant", (Reasoning(""),))) == [
        {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"},
        {
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": "plan"}],
            "encrypted_content": "enc",
        },
        {"type": "reasoning", "summary": []},
    ]


def test_instructions_and_string_input_fall_back_to_items_when_messages_are_added() -> None:
    conversation = to_conversation({"instructions": "Be brief.", "input": "hello"})
    grown = replace(
        conversation, messages=(*conversation.messages, Message("assistant", (Text("hi"),)))
    )
    assert from_conversation(grown) == {
        "instructions": "Be brief.",
        "input": [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi"}],
    }


def test_instructions_replaced_by_other_parts_render_as_a_system_item() -> None:
    conversation = to_conversation({"instructions": "Be brief.", "input": []})
    first = conversation.messages[0]
    changed = replace(first, parts=(Text("a"), Text("b")))
    rendered = from_conversation(replace(conversation, messages=(changed,)))
    assert rendered == {
        "input": [
            {
                "role": "system",
                "content": [
                    {"type": "input_text", "text": "a"},
                    {"type": "input_text", "text": "b"},
                ],
            }
        ]
    }


def test_flags_are_dropped_in_list_shape() -> None:
    conversation = to_conversation({"instructions": "Be brief.", "input": "hello"})
    as_list = replace(conversation, shape="list", extras={})
    assert from_conversation(as_list) == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "hello"},
    ]


def test_new_tool_specs() -> None:
    conversation = Conversation(
        (), shape="body", tools=(ToolSpec("f", "F.", {"type": "object"}), ToolSpec("g"))
    )
    assert from_conversation(conversation) == {
        "input": [],
        "tools": [
            {
                "type": "function",
                "name": "f",
                "description": "F.",
                "parameters": {"type": "object"},
            },
            {"type": "function", "name": "g"},
        ],
    }


@pytest.mark.parametrize(
    "message",
    [
        Message("user", (ToolResult("c", (Text("x"),)),)),
        Message("user", (Text("see"), ToolResult("c", (Text("x"),)))),
        Message("assistant", (Text("calling"), ToolCall("c", "f", "{}"))),
        Message("assistant", (ToolCall("a", "f", "{}"), ToolCall("b", "f", "{}"))),
        Message("user", (ToolCall("c", "f", "{}"),)),
        Message("user", (Reasoning("x"),)),
        Message("tool", (Text("orphan text"),)),
        Message("tool", (ToolResult("c", (ToolResult("d", ()),)),)),
        Message("assistant", (ToolCall("c", "f", "{}"),), extras={"type": "message"}),
        Message("tool", (ToolResult("c", ()),), extras={"type": "function_call"}),
        Message("assistant", (Reasoning("x"),), extras={"type": "message"}),
        Message("assistant", (MARKER,), extras={"type": "web_search_call"}),
    ],
)
def test_shapes_the_wire_cannot_express_name_the_message(message: Message) -> None:
    ok = Message("user", (Text("hi"),))
    with pytest.raises(InvalidConversation) as caught:
        render_list(ok, message)
    assert caught.value.index == 1
    assert caught.value.format == "openai-responses"


def test_opaque_parts_render_as_plain_dicts() -> None:
    from types import MappingProxyType

    payload = MappingProxyType({"type": "input_file", "file_id": "file-1"})
    rendered = render_list(Message("user", (Opaque(payload),)))
    assert rendered == [{"role": "user", "content": [{"type": "input_file", "file_id": "file-1"}]}]
    assert type(rendered[0]["content"][0]) is dict
