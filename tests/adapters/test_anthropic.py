"""The Anthropic Messages adapter: exact round trips, engine edits, validation (I1), fuzz."""

from __future__ import annotations

import copy
import json
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
    Opaque,
    Reasoning,
    Summary,
    Text,
    ToolCall,
    ToolResult,
    ToolSpec,
)
from contextfold._adapters._anthropic import from_conversation, to_conversation, validate
from tests import corpus
from tests.adapters.anthropic_strategies import (
    Mutation,
    json_values,
    mutations,
    payloads,
    quirky_payloads,
)

MARK = "[cf:r0123456789 tool result masked, 812 tokens]"


def roundtrip(payload: Any) -> Any:
    return from_conversation(to_conversation(payload))


def user(content: Any, **extra: Any) -> dict[str, Any]:
    return {"role": "user", "content": content, **extra}


def assistant(content: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": content}


def use(call_id: str, name: str = "f", **input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": input}


def result(call_id: str, content: Any = "ok", **extra: Any) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call_id, "content": content, **extra}


def text(value: str, **extra: Any) -> dict[str, Any]:
    return {"type": "text", "text": value, **extra}


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


def where(problems: list[Any]) -> set[tuple[int | None, str | None]]:
    return {(p.index, p.field) for p in problems}


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


@given(mutations())
def test_each_mutation_is_caught_at_the_right_index(mutation: Mutation) -> None:
    problems = validate(mutation.payload)
    flagged = {p.index for p in problems}
    assert mutation.indices <= flagged, (mutation.name, problems)
    hinted = [p for p in problems if p.index in mutation.indices and mutation.reason in p.reason]
    assert hinted, (mutation.name, problems)


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


def test_compaction_artifacts_are_recognised_wherever_text_is() -> None:
    messages = [
        user("[cf:rules]\n- never push to main"),
        assistant([text("[cf:summary] earlier work"), use("t1")]),
        user([result("t1", MARK)]),
    ]
    first, second, third = to_conversation(messages).messages
    assert isinstance(first.parts[0], Card)
    assert isinstance(second.parts[0], Summary)
    assert isinstance(third.parts[0], ToolResult)
    assert third.parts[0].parts == (Marker("r0123456789", MARK),)


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


# --- rendering what the engine changed or created ----------------------------------------------


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
        "t1", (marker,), extras=first.extras
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


# --- validation rules (examples) -------------------------------------------------------------


def test_validate_accepts_a_typical_tool_loop() -> None:
    messages = [
        user("weather in Paris?"),
        assistant(
            [
                {"type": "thinking", "thinking": "use the tool", "signature": "s"},
                text("checking"),
                use("t1", city="Paris"),
            ]
        ),
        user([result("t1", "rainy"), text("thanks")]),
        assistant("It is rainy."),
    ]
    assert validate(messages) == []
    assert (
        validate(
            {"model": "m", "max_tokens": 9, "messages": messages, "thinking": {"type": "enabled"}}
        )
        == []
    )


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        ([assistant("hi")], {(0, "role")}),
        ([user("a"), user("b")], {(1, "role")}),
        ([user("a"), assistant([use("t1")])], {(1, "content[0]")}),
        ([user("a"), assistant([use("t1")]), user([text("x"), result("t1")])], {(2, "content[1]")}),
        ([user([result("t1")])], {(0, "content[0].tool_use_id")}),
        (
            [user("a"), assistant([use("t1")]), user([result("t1"), result("t1")])],
            {(2, "content[1].tool_use_id")},
        ),
        (
            [
                user("a"),
                assistant([use("t1")]),
                user([result("t1")]),
                assistant([use("t1")]),
                user([result("t1")]),
            ],
            {(3, "content[0].id")},
        ),
        (
            [
                user("a"),
                assistant([use("t1"), {"type": "thinking", "thinking": "x", "signature": "s"}]),
                user([result("t1")]),
            ],
            {(1, "content[1]")},
        ),
        (
            [user("a"), assistant([text("x"), {"type": "redacted_thinking", "data": "d"}])],
            {(1, "content[1]")},
        ),
        ([user("  ")], {(0, "content")}),
        ([user([]), assistant("x")], {(0, "content")}),
        ([user("a"), assistant("trailing ")], {(1, "content")}),
        ([user("a"), {"role": "robot", "content": "x"}], {(1, "role")}),
        (
            [
                user(
                    [
                        {
                            "type": "image",
                            "source": {"type": "base64", "media_type": "image/bmp", "data": "x"},
                        }
                    ]
                )
            ],
            {(0, "content[0].source.media_type")},
        ),
        ([user([{"type": "image", "source": {"type": "ftp"}}])], {(0, "content[0].source.type")}),
        (
            [user("a"), assistant([use("bad id!")]), user([result("bad id!")])],
            {(1, "content[0].id")},
        ),
        (
            [user("a"), assistant([{"type": "thinking", "thinking": "x"}])],
            {(1, "content[0].signature")},
        ),
        ([user([use("t1")])], {(0, "content[0]")}),
        ([user("a"), assistant([result("t1")])], {(1, "content[0]")}),
        ({"messages": []}, {(None, "messages")}),
        ({"messages": [user("a")], "system": [{"type": "image"}]}, {(None, "system[0]")}),
        (
            {"messages": [user("a")], "tools": [{"name": "f"}, {"name": "f", "input_schema": {}}]},
            {(None, "tools[0].input_schema"), (None, "tools[1].name")},
        ),
        (42, {(None, None)}),
    ],
)
def test_validate_reports_each_rule_at_its_place(
    payload: Any, expected: set[tuple[int | None, str | None]]
) -> None:
    assert where(validate(payload)) == expected


def test_validate_with_thinking_enabled_needs_thinking_on_the_turn_in_progress() -> None:
    messages = [
        user("go"),
        assistant([use("t1")]),
        user([result("t1")]),
        assistant([use("t2")]),
        user([result("t2")]),
    ]
    body = {"messages": messages, "thinking": {"type": "enabled", "budget_tokens": 1024}}
    assert where(validate(body)) == {(1, "content[0]")}
    messages[1]["content"].insert(0, {"type": "redacted_thinking", "data": "d"})
    assert validate(body) == []
    assert validate(messages) == []


def test_thinking_after_a_server_tool_result_is_interleaved_not_misplaced() -> None:
    server = [
        {"type": "thinking", "thinking": "a", "signature": "s"},
        text("let me search"),
        {
            "type": "server_tool_use",
            "id": "srvtoolu_1",
            "name": "web_search",
            "input": {"query": "q"},
        },
        {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
        {"type": "thinking", "thinking": "b", "signature": "s"},
        text("found it"),
    ]
    assert validate([user("q"), assistant(server)]) == []


# --- the real corpus, converted to Anthropic -------------------------------------------------


def _openai_to_anthropic(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """A plain OpenAI chat -> Anthropic conversion, as an agent would do it by hand."""
    body: dict[str, Any] = {"model": "claude-sonnet-4-5", "max_tokens": 4096, "messages": []}
    out: list[dict[str, Any]] = body["messages"]
    for message in messages:
        role, content = message["role"], message.get("content")
        texts = (
            [text(p["text"]) for p in content]
            if isinstance(content, list)
            else [text(content)]
            if content
            else []
        )
        texts = [t for t in texts if t["text"].strip()]
        if role == "system":
            body["system"] = content
        elif role == "assistant":
            calls = [
                use(c["id"], c["function"]["name"], **json.loads(c["function"]["arguments"]))
                for c in message.get("tool_calls", [])
            ]
            out.append(assistant(texts + calls))
        else:
            block = result(message["tool_call_id"], content) if role == "tool" else None
            if block is not None and "cache_control" in message:
                block["cache_control"] = message["cache_control"]
            blocks = [block] if block else texts
            if out and out[-1]["role"] == "user":
                out[-1]["content"] += blocks
            else:
                out.append(user(blocks))
    return body


@pytest.mark.corpus
def test_corpus_conversations_round_trip_and_only_duplicate_ids_are_flagged() -> None:
    flagged: set[str] = set()
    expected: set[str] = set()
    for record in corpus.require():
        body = _openai_to_anthropic(record["messages"])  # type: ignore[arg-type]
        assert roundtrip(body) == body, record["id"]
        problems = validate(body)
        assert all("already used" in p.reason for p in problems), (record["id"], problems[:3])
        if problems:
            flagged.add(str(record["id"]))
        meta = record["meta"]
        if isinstance(meta, dict) and meta.get("duplicate_tool_call_ids"):
            expected.add(str(record["id"]))
    assert flagged == expected
    assert len(flagged) == 49
