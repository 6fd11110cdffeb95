"""The Anthropic Messages adapter: exact round trips, what each block parses to, fuzz."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contextfold import (
    Image,
    InvalidConversation,
    Opaque,
    Reasoning,
    Text,
    ToolCall,
    ToolResult,
    ToolSpec,
)
from contextfold._adapters._anthropic import from_conversation, to_conversation, validate
from tests.adapters.anthropic_strategies import (
    assistant,
    json_values,
    payloads,
    quirky_payloads,
    result,
    text,
    use,
    user,
)

MARK = "[cf:r0123456789 tool result masked, 812 tokens]"


def roundtrip(payload: Any) -> Any:
    return from_conversation(to_conversation(payload))


def assert_exact_or_refused(payload: Any) -> None:
    """Only InvalidConversation may escape parsing; whatever parses renders back exactly."""
    refused: InvalidConversation | None = None
    try:
        conversation = to_conversation(payload)
    except InvalidConversation as exc:
        refused = exc
    if refused is None:
        assert from_conversation(conversation) == payload
    else:
        assert refused.format == "anthropic"


# --- round trips (properties) ----------------------------------------------------------------


@given(payloads())
def test_valid_payloads_round_trip_exactly_and_validate_clean(payload: Any) -> None:
    original = copy.deepcopy(payload)
    conversation = to_conversation(payload)
    assert from_conversation(conversation) == original
    assert payload == original, "parsing must not mutate its input"
    assert to_conversation(from_conversation(conversation)) == conversation
    assert validate(payload) == []


@given(quirky_payloads())
def test_odd_but_parseable_shapes_round_trip_exactly(payload: Any) -> None:
    assert roundtrip(payload) == payload


@given(json_values)
def test_arbitrary_json_only_raises_invalid_conversation(value: Any) -> None:
    assert isinstance(validate(value), list)
    assert_exact_or_refused(value)


_fields = st.sampled_from(
    [
        "type",
        "text",
        "id",
        "name",
        "input",
        "tool_use_id",
        "content",
        "is_error",
        "source",
        "thinking",
        "signature",
        "data",
        "cache_control",
        "citations",
        "anthropic:content",
    ]
)
_types = st.sampled_from(
    ["text", "image", "tool_use", "tool_result", "thinking", "redacted_thinking", "document"]
)
_noise_blocks = st.dictionaries(_fields, json_values | _types, max_size=5) | st.builds(
    lambda kind, rest: {**rest, "type": kind},
    _types,
    st.dictionaries(_fields, json_values, max_size=4),
)
_noise_messages = st.dictionaries(
    st.sampled_from(["role", "content", "x"]),
    st.sampled_from(["user", "assistant", "system", "tool"])
    | st.lists(_noise_blocks, max_size=3)
    | json_values,
    max_size=3,
)


@given(
    st.lists(_noise_messages, max_size=4)
    | st.dictionaries(
        st.sampled_from(["messages", "system", "tools", "model", "thinking"]),
        st.lists(_noise_messages, max_size=3) | json_values,
        max_size=4,
    )
)
def test_anthropic_shaped_noise_parses_exactly_or_is_refused(payload: Any) -> None:
    assert isinstance(validate(payload), list)
    assert_exact_or_refused(payload)


# --- parsing: what each block becomes --------------------------------------------------------


def test_body_fields_system_and_tools() -> None:
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "system": [text("be brief", cache_control={"type": "ephemeral"})],
        "messages": [user("hi")],
        "tools": [
            {"name": "f", "description": "d", "input_schema": {"type": "object"}},
            {"type": "web_search_20250305", "name": "web_search", "max_uses": 5},
        ],
        "temperature": 0.2,
    }
    conversation = to_conversation(body)
    assert conversation.shape == "body"
    assert dict(conversation.extras) == {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "temperature": 0.2,
    }
    assert list(conversation.extras) == ["model", "max_tokens", "temperature"]
    system, first = conversation.messages
    assert system.role == "system"
    assert system.parts == (Text("be brief", extras={"cache_control": {"type": "ephemeral"}}),)
    assert first.parts == (Text("hi"),)
    assert conversation.tools == (
        ToolSpec("f", "d", {"type": "object"}),
        ToolSpec("web_search", extras={"type": "web_search_20250305", "max_uses": 5}),
    )
    assert from_conversation(conversation) == body


def test_blocks_map_to_neutral_parts() -> None:
    image64 = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"},
    }
    image_url = {"type": "image", "source": {"type": "url", "url": "https://e.com/a.png"}}
    image_file = {"type": "image", "source": {"type": "file", "file_id": "file_1"}}
    document = {
        "type": "document",
        "source": {"type": "text", "media_type": "text/plain", "data": "x"},
    }
    messages = [
        user([image64, image_url, image_file, document]),
        assistant(
            [
                {"type": "thinking", "thinking": "hmm", "signature": "sig"},
                {"type": "redacted_thinking", "data": "enc"},
                text("cited", citations=[{"type": "char_location", "cited_text": "x"}]),
                use("toolu_1", "search", q="café", n=[1, None]),
            ]
        ),
        user([result("toolu_1", [text("a"), image_url], is_error=True)]),
    ]
    first, second, third = to_conversation(messages).messages
    assert first.parts == (
        Image("data:image/png;base64,iVBO"),
        Image("https://e.com/a.png"),
        Opaque(image_file),
        Opaque(document),
    )
    thinking, redacted, cited, call = second.parts
    assert thinking == Reasoning("hmm", signature="sig")
    assert isinstance(redacted, Reasoning)
    assert (redacted.text, redacted.encrypted, redacted.signature) == ("", "enc", None)
    assert cited == Text(
        "cited", extras={"citations": [{"type": "char_location", "cited_text": "x"}]}
    )
    assert call == ToolCall("toolu_1", "search", '{"q":"café","n":[1,null]}')
    (tool_result,) = third.parts
    assert isinstance(tool_result, ToolResult)
    assert (tool_result.call_id, tool_result.is_error) == ("toolu_1", True)
    assert tool_result.parts == (Text("a"), Image("https://e.com/a.png"))
    assert roundtrip(messages) == messages


def test_artifact_shaped_texts_parse_as_text_the_engine_decides() -> None:
    messages = [
        user("[cf:rules]\n- never push to main"),
        assistant([text("[cf:summary] earlier work"), use("t1")]),
        user([result("t1", MARK)]),
    ]
    first, second, third = to_conversation(messages).messages
    assert first.parts[0] == Text("[cf:rules]\n- never push to main")
    assert second.parts[0] == Text("[cf:summary] earlier work")
    assert isinstance(third.parts[0], ToolResult)
    assert third.parts[0].parts == (Text(MARK),)


def test_tool_result_content_form_and_is_error_presence_round_trip() -> None:
    blocks = [
        {"type": "tool_result", "tool_use_id": "a"},
        result("b", ""),
        result("c", []),
        result("d", "x", is_error=False),
        result("e", [text("y")], is_error=True),
    ]
    messages = [user("go"), assistant([use(i) for i in "abcde"]), user(blocks)]
    assert roundtrip(messages) == messages


@pytest.mark.parametrize(
    ("payload", "index", "field"),
    [
        ("text", None, None),
        ({"system": "s"}, None, "messages"),
        ({"messages": [], "system": 3}, None, "system"),
        ({"messages": [], "tools": [{"description": "no name"}]}, None, "tools[0].name"),
        ([user("a"), 7], 1, None),
        ([{"role": "tool", "content": "x"}], 0, "role"),
        ([{"role": "user"}], 0, "content"),
        ([user(None)], 0, "content"),
        ([user(["just a string"])], 0, "content[0]"),
        ([user([{"text": "no type"}])], 0, "content[0].type"),
        ([user([{"type": "text", "text": 5}])], 0, "content[0].text"),
        ([assistant([{"type": "tool_use", "name": "f", "input": {}}])], 0, "content[0].id"),
        ([assistant([{"type": "tool_use", "id": "a", "name": "f"}])], 0, "content[0].input"),
        ([assistant([use("a", x=object())])], 0, "content[0].input"),
        ([user([{"type": "tool_result", "content": "x"}])], 0, "content[0].tool_use_id"),
        ([user([result("a", 3)])], 0, "content[0].content"),
        ([user([result("a", [{"type": "text"}])])], 0, "content[0].content[0].text"),
        ([assistant([{"type": "thinking", "signature": "s"}])], 0, "content[0].thinking"),
        ([assistant([{"type": "redacted_thinking"}])], 0, "content[0].data"),
        ([user([text("a", **{"anthropic:content": "string"})])], 0, "content[0]"),
        ([user("a", **{"anthropic:system": "top"})], 0, None),
    ],
)
def test_malformed_payloads_name_index_and_field(
    payload: Any, index: int | None, field: str | None
) -> None:
    with pytest.raises(InvalidConversation) as info:
        to_conversation(payload)
    assert (info.value.index, info.value.field, info.value.format) == (index, field, "anthropic")
