"""Parsing Responses input items into the neutral model, item kind by item kind."""

from __future__ import annotations

from typing import Any

import pytest

from contextfold import (
    Conversation,
    Image,
    InvalidConversation,
    Message,
    Opaque,
    Reasoning,
    Role,
    Text,
    ToolCall,
    ToolResult,
    ToolSpec,
)
from contextfold._adapters._openai_responses import to_conversation
from contextfold._adapters._openai_responses_parse import INPUT_STRING, INSTRUCTIONS


def one(item: dict[str, Any]) -> Message:
    """The single message parsed from a one-item input list."""
    (message,) = to_conversation([item]).messages
    return message


def test_easy_input_message_with_string_content() -> None:
    assert one({"role": "user", "content": "hi"}) == Message("user", (Text("hi"),))


def test_full_message_keeps_item_fields_and_part_fields() -> None:
    item = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [
            {"type": "output_text", "text": "Done.", "annotations": [], "logprobs": []},
            {"type": "refusal", "refusal": "I can't help with that."},
        ],
    }
    assert one(item) == Message(
        "assistant",
        (
            Text("Done.", extras={"type": "output_text", "annotations": [], "logprobs": []}),
            Text("I can't help with that.", extras={"type": "refusal"}),
        ),
        extras={"type": "message", "id": "msg_1", "status": "completed"},
    )


@pytest.mark.parametrize("role", ["user", "assistant", "system", "developer"])
def test_every_message_role(role: str) -> None:
    assert one({"role": role, "content": []}).role == role


def test_artifact_shaped_text_parts_stay_text() -> None:
    content = [
        {"type": "input_text", "text": "[cf:r0123456789 tool output masked]"},
        {"type": "input_text", "text": "[cf:summary]\nGoal: ship"},
        {"type": "input_text", "text": "[cf:rules]\n- be brief"},
    ]
    parts = one({"role": "user", "content": content}).parts
    typed = {"type": "input_text"}
    assert parts == tuple(Text(str(c["text"]), extras=typed) for c in content)


def test_images_and_files() -> None:
    by_url = {"type": "input_image", "image_url": "https://x/a.png", "detail": "low"}
    original = {
        "type": "input_image",
        "image_url": "data:image/png;base64,AA",
        "detail": "original",
    }
    by_file = {"type": "input_image", "file_id": "file-1", "detail": "auto"}
    pdf = {"type": "input_file", "file_id": "file-2"}
    parts = one({"role": "user", "content": [by_url, original, by_file, pdf]}).parts
    assert parts == (
        Image("https://x/a.png", detail="low", extras={"type": "input_image"}),
        Image("data:image/png;base64,AA", detail="original", extras={"type": "input_image"}),
        Opaque(by_file),
        Opaque(pdf),
    )


def test_function_call_and_output() -> None:
    call = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "get_weather",
        "arguments": '{"city": "Oslo"}',
        "status": "completed",
    }
    assert one(call) == Message(
        "assistant",
        (ToolCall("call_1", "get_weather", '{"city": "Oslo"}'),),
        extras={"type": "function_call", "id": "fc_1", "status": "completed"},
    )
    output = {"type": "function_call_output", "call_id": "call_1", "output": "4 C"}
    assert one(output) == Message(
        "tool", (ToolResult("call_1", (Text("4 C"),)),), extras={"type": "function_call_output"}
    )


def test_function_output_as_a_list_of_parts() -> None:
    output = [
        {"type": "input_text", "text": "see image"},
        {"type": "input_image", "image_url": "https://x/p.png"},
    ]
    message = one({"type": "function_call_output", "call_id": "c", "output": output})
    assert message.parts == (
        ToolResult(
            "c",
            (
                Text("see image", extras={"type": "input_text"}),
                Image("https://x/p.png", extras={"type": "input_image"}),
            ),
        ),
    )


def test_custom_tool_call_and_output_keep_their_kind() -> None:
    call = one({"type": "custom_tool_call", "call_id": "c", "name": "patch", "input": "*** diff"})
    assert call == Message(
        "assistant", (ToolCall("c", "patch", "*** diff"),), extras={"type": "custom_tool_call"}
    )
    output = one({"type": "custom_tool_call_output", "call_id": "c", "output": "ok"})
    assert output.parts == (ToolResult("c", (Text("ok"),)),)
    assert output.extras == {"type": "custom_tool_call_output"}


def test_reasoning_is_opaque_with_its_summary_text() -> None:
    item = {
        "type": "reasoning",
        "id": "rs_1",
        "summary": [
            {"type": "summary_text", "text": "**Plan**"},
            {"type": "summary_text", "text": "Call the tool."},
        ],
        "encrypted_content": "gAAAA==",
    }
    message = one(item)
    assert message.role == "assistant"
    assert message.parts == (Reasoning("**Plan**\n\nCall the tool.", encrypted="gAAAA=="),)
    assert message.extras == {"type": "reasoning", "id": "rs_1", "summary": item["summary"]}


def test_reasoning_with_null_encrypted_content_keeps_the_null() -> None:
    message = one({"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": None})
    assert message.parts == (Reasoning(""),)
    assert message.extras["encrypted_content"] is None


@pytest.mark.parametrize(
    ("item", "role"),
    [
        ({"type": "web_search_call", "id": "ws_1", "status": "completed"}, "assistant"),
        ({"type": "image_generation_call", "id": "ig_1", "result": None}, "assistant"),
        ({"type": "computer_call_output", "call_id": "c", "output": {}}, "tool"),
        ({"type": "local_shell_call_output", "id": "x", "output": "ok"}, "tool"),
        ({"type": "mcp_approval_response", "approval_request_id": "a", "approve": True}, "tool"),
        ({"type": "item_reference", "id": "msg_1"}, "assistant"),
        ({"type": "brand_new_item", "x": [1]}, "assistant"),
    ],
)
def test_other_items_are_opaque(item: dict[str, Any], role: Role) -> None:
    assert one(item) == Message(role, (Opaque(item),), extras={"type": item["type"]})


def test_untyped_item_reference() -> None:
    item = {"id": "msg_1"}
    assert one(item) == Message("assistant", (Opaque(item),), extras={"type": "item_reference"})


def test_body_with_string_input_instructions_tools_and_other_fields() -> None:
    function = {
        "type": "function",
        "name": "f",
        "description": "F.",
        "parameters": {},
        "strict": True,
    }
    search = {"type": "web_search"}
    body = {
        "model": "gpt-5",
        "instructions": "Be brief.",
        "input": "hello",
        "tools": [function, search],
        "store": False,
        "include": ["reasoning.encrypted_content"],
    }
    assert to_conversation(body) == Conversation(
        (
            Message("system", (Text("Be brief."),), extras={INSTRUCTIONS: True}),
            Message("user", (Text("hello"),), extras={INPUT_STRING: True}),
        ),
        shape="body",
        tools=(
            ToolSpec("f", "F.", {}, extras={"type": "function", "strict": True}),
            ToolSpec("web_search", extras=search),
        ),
        extras={"model": "gpt-5", "store": False, "include": ["reasoning.encrypted_content"]},
    )


def test_empty_or_null_tools_and_null_instructions_stay_body_fields() -> None:
    body: dict[str, object] = {"input": [], "tools": [], "instructions": None}
    conversation = to_conversation(body)
    assert conversation.messages == ()
    assert conversation.tools == ()
    assert conversation.extras == {"tools": [], "instructions": None}


@pytest.mark.parametrize(
    ("payload", "index", "field"),
    [
        ("text", None, None),
        ({"model": "gpt-5"}, None, "input"),
        ({"input": 3}, None, "input"),
        ({"input": [], "tools": [3]}, None, "tools[0]"),
        ({"input": [], "tools": [{"name": "f"}]}, None, "tools[0].type"),
        ({"input": [], "tools": [{"type": "function"}]}, None, "tools[0].name"),
        ([1], 0, None),
        ([{"content": "x"}], 0, "type"),
        ([{"type": 5}], 0, "type"),
        ([{"role": "tool", "content": "x"}], 0, "role"),
        ([{"role": "user", "content": None}], 0, "content"),
        ([{"role": "user", "content": "x", INSTRUCTIONS: True}], 0, None),
        ([{"role": "user", "content": ["x"]}], 0, "content[0]"),
        ([{"role": "user", "content": [{"text": "x"}]}], 0, "content[0].type"),
        ([{"role": "user", "content": [{"type": "input_text"}]}], 0, "content[0].text"),
        ([{"role": "assistant", "content": [{"type": "refusal"}]}], 0, "content[0].refusal"),
        ([{"type": "function_call", "name": "f", "arguments": "{}"}], 0, "call_id"),
        ([{"type": "function_call", "call_id": "c", "name": "f", "arguments": {}}], 0, "arguments"),
        ([{"type": "custom_tool_call", "call_id": "c", "name": "f"}], 0, "input"),
        ([{"type": "function_call_output", "call_id": "c"}], 0, "output"),
        ([{"type": "function_call_output", "call_id": "c", "output": [1]}], 0, "output[0]"),
        ([{"type": "reasoning", "summary": "x"}], 0, "summary"),
        ([{"type": "reasoning", "id": "rs_1"}], 0, "summary"),
        ([{"type": "function_call", INPUT_STRING: True}], 0, None),
        ([{"type": "reasoning", "summary": [{}]}], 0, "summary[0].text"),
    ],
)
def test_bad_input_names_the_item_and_field(
    payload: object, index: int | None, field: str | None
) -> None:
    with pytest.raises(InvalidConversation) as caught:
        to_conversation(payload)
    assert (caught.value.index, caught.value.field) == (index, field)
    assert caught.value.format == "openai-responses"
