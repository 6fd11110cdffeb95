"""The single rules of cross-format conversion, one example each (see _convert_turns.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest

import contextfold
from contextfold import ConfigurationError, InvalidConversation
from contextfold._adapters._convert import normalize
from contextfold._adapters._convert_turns import PLACEHOLDER, Change

CALL = {"id": "call_1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
PNG = "data:image/png;base64,iVBORw0KGgo="
ANTHROPIC: dict[str, Any] = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 100,
    "system": "be brief",
    "messages": [
        {"role": "user", "content": "weather?"},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "use the tool", "signature": "c2ln"},
                {"type": "text", "text": "checking"},
                {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {"city": "Oslo"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_1",
                    "content": [
                        {"type": "text", "text": "4 C"},
                        {
                            "type": "image",
                            "source": {"type": "base64", "media_type": "image/png", "data": "AA"},
                        },
                    ],
                },
                {"type": "text", "text": "and tomorrow?"},
            ],
        },
    ],
}


def chat(*messages: dict[str, Any]) -> list[dict[str, Any]]:
    return list(messages)


def user(content: Any) -> dict[str, Any]:
    return {"role": "user", "content": content}


def changes_of(payload: Any, target: str) -> tuple[Change, ...]:
    source, conversation = contextfold.parse(payload)
    return normalize(conversation, source, contextfold._adapters.check_format(target))[1]


# --- OpenAI chat ---------------------------------------------------------------------------


def test_anthropic_tool_results_become_tool_messages_then_a_user_message() -> None:
    converted = contextfold.convert(ANTHROPIC, "openai-chat")
    assert converted == {
        "messages": [
            {"role": "system", "content": "be brief"},
            user("weather?"),
            {
                "role": "assistant",
                "content": "checking",
                "tool_calls": [
                    {
                        "id": "toolu_1",
                        "type": "function",
                        "function": {"name": "weather", "arguments": '{"city":"Oslo"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "toolu_1", "content": "4 C"},
            user(
                [
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA"}},
                    {"type": "text", "text": "and tomorrow?"},
                ]
            ),
        ],
        "model": "claude-sonnet-4-5",
        "max_completion_tokens": 100,
    }


def test_responses_calls_in_a_row_join_one_assistant_message_without_reasoning() -> None:
    items = [
        user("list and count"),
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAA"},
        {"type": "function_call", "call_id": "c1", "name": "ls", "arguments": "{}"},
        {"type": "function_call", "call_id": "c2", "name": "wc", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c2", "output": []},
        {"type": "function_call_output", "call_id": "c1", "output": "a.py"},
    ]
    converted = contextfold.convert(items, "openai-chat")
    assert converted == [
        user("list and count"),
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}},
                {"id": "c2", "type": "function", "function": {"name": "wc", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "tool_call_id": "c2", "content": ""},
        {"role": "tool", "tool_call_id": "c1", "content": "a.py"},
    ]
    assert Change(1, "dropped", "reasoning part in an assistant message") in changes_of(
        items, "openai-chat"
    )


def test_several_text_parts_stay_several_parts() -> None:
    anthropic = [user([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}])]
    assert contextfold.convert(anthropic, "openai-chat") == [
        user([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}])
    ]


# --- Anthropic -----------------------------------------------------------------------------


def test_leading_system_messages_become_the_system_field_or_user_text() -> None:
    messages = chat(
        {"role": "system", "content": "be brief"},
        {"role": "developer", "content": "use tools"},
        user("hi"),
    )
    body = contextfold.convert({"model": "gpt-4o", "messages": messages}, "anthropic")
    assert body == {
        "model": "gpt-4o",
        "system": [{"type": "text", "text": "be brief"}, {"type": "text", "text": "use tools"}],
        "messages": [user("hi")],
    }
    with pytest.raises(contextfold.InvalidConversation, match="request body") as raised:
        contextfold.convert(messages, "anthropic")  # a bare list has no place for them
    assert (raised.value.index, raised.value.field) == (0, "role")
    later = [user("hi"), {"role": "assistant", "content": "ok"}, messages[0], user("go")]
    assert contextfold.convert(later, "anthropic") == [
        user("hi"),
        {"role": "assistant", "content": "ok"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "<system-reminder>\nbe brief\n</system-reminder>"},
                {"type": "text", "text": "go"},
            ],
        },
    ]


def test_tool_messages_and_the_next_user_message_join_one_turn_results_first() -> None:
    messages = chat(
        user("go"),
        {"role": "assistant", "content": None, "tool_calls": [CALL]},
        {"role": "tool", "tool_call_id": "call_1", "content": "a.py"},
        user("thanks"),
        user("and now?"),
    )
    assert contextfold.convert(messages, "anthropic") == [
        user("go"),
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "call_1", "name": "ls", "input": {}}],
        },
        user(
            [
                {"type": "tool_result", "tool_use_id": "call_1", "content": "a.py"},
                {"type": "text", "text": "thanks"},
                {"type": "text", "text": "and now?"},
            ]
        ),
    ]


def test_a_conversation_starting_with_the_assistant_gets_a_placeholder_user_turn() -> None:
    converted = contextfold.convert([{"role": "assistant", "content": "hello"}], "anthropic")
    assert converted == [user(PLACEHOLDER), {"role": "assistant", "content": "hello"}]
    nothing_left = contextfold.convert([user("   ")], "anthropic")
    assert nothing_left == [user(PLACEHOLDER)]
    assert contextfold.convert([], "anthropic") == []


def test_repeated_and_invalid_call_ids_are_renamed_with_their_results() -> None:
    def turn(call_id: str) -> list[dict[str, Any]]:
        call = {**CALL, "id": call_id}
        return [
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": call_id, "content": "ok"},
        ]

    messages = [user("go"), *turn("call_1"), *turn("call_1"), *turn("call:1")]
    converted = contextfold.convert(messages, "anthropic")
    assert isinstance(converted, list)
    uses = [m["content"][0]["id"] for m in converted if m["role"] == "assistant"]
    answers = [m["content"][0]["tool_use_id"] for m in converted[2:] if m["role"] == "user"]
    assert uses == answers == ["call_1", "call_1_2", "call_1_3"]
    assert contextfold.validate(converted, "anthropic") == []
    assert Change(3, "changed", "tool call id 'call_1' sent as 'call_1_2'") in changes_of(
        messages, "anthropic"
    )


def test_arguments_that_are_not_a_json_object_are_wrapped() -> None:
    custom = {"id": "c", "type": "custom", "custom": {"name": "patch", "input": "*** Begin"}}
    messages = chat(
        user("go"),
        {"role": "assistant", "tool_calls": [custom]},
        {"role": "tool", "tool_call_id": "c", "content": "done"},
    )
    converted = contextfold.convert(messages, "anthropic")
    assert isinstance(converted, list)
    assert converted[1]["content"][0]["input"] == {"input": "*** Begin"}
    not_json = {**CALL, "function": {"name": "f", "arguments": '{"x": NaN}'}}
    messages[1] = {"role": "assistant", "tool_calls": [not_json]}
    messages[2] = {"role": "tool", "tool_call_id": "call_1", "content": "done"}
    converted = contextfold.convert(messages, "anthropic")
    assert isinstance(converted, list)
    assert converted[1]["content"][0]["input"] == {"input": '{"x": NaN}'}


def test_whitespace_images_and_trailing_space_anthropic_rejects() -> None:
    messages = chat(
        user(
            [{"type": "text", "text": " "}, {"type": "image_url", "image_url": {"url": "data:,"}}]
        ),
        user([{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": PNG}}]),
        {"role": "assistant", "content": "It is a cat.\n"},
    )
    image = {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}
    assert contextfold.convert(messages, "anthropic") == [
        user([{"type": "text", "text": "look"}, {"type": "image", "source": image}]),
        {"role": "assistant", "content": "It is a cat."},
    ]


def test_a_later_system_message_becomes_user_text_in_place() -> None:
    messages = chat(
        user("hi"),
        {"role": "assistant", "content": "hello"},
        {"role": "system", "content": "now answer in French"},
        user("bye"),
    )
    assert contextfold.convert(messages, "anthropic") == [
        user("hi"),
        {"role": "assistant", "content": "hello"},
        user(
            [
                {
                    "type": "text",
                    "text": "<system-reminder>\nnow answer in French\n</system-reminder>",
                },
                {"type": "text", "text": "bye"},
            ]
        ),
    ]


def test_reasoning_from_another_provider_is_dropped() -> None:
    items = [
        user("hi"),
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "t"}]},
        {"role": "assistant", "content": "hello"},
    ]
    assert contextfold.convert(items, "anthropic") == [
        user("hi"),
        {"role": "assistant", "content": "hello"},
    ]


# --- OpenAI Responses ----------------------------------------------------------------------


def test_mixed_messages_become_several_items_and_system_becomes_instructions() -> None:
    converted = contextfold.convert(ANTHROPIC, "openai-responses")
    assert isinstance(converted, dict)
    assert converted["instructions"] == "be brief"
    assert converted["input"] == [
        user("weather?"),
        {"role": "assistant", "content": "checking"},
        {
            "type": "function_call",
            "call_id": "toolu_1",
            "name": "weather",
            "arguments": '{"city":"Oslo"}',
        },
        {
            "type": "function_call_output",
            "call_id": "toolu_1",
            "output": [
                {"type": "input_text", "text": "4 C"},
                {"type": "input_image", "image_url": "data:image/png;base64,AA"},
            ],
        },
        user("and tomorrow?"),
    ]
    assert (converted["model"], converted["max_output_tokens"]) == ("claude-sonnet-4-5", 100)


def test_a_system_prompt_of_several_blocks_stays_a_system_message() -> None:
    body = {**ANTHROPIC, "system": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}
    converted = contextfold.convert(body, "openai-responses")
    assert isinstance(converted, dict)
    assert "instructions" not in converted
    assert converted["input"][0] == {
        "role": "system",
        "content": [{"type": "input_text", "text": "a"}, {"type": "input_text", "text": "b"}],
    }


def test_tool_output_text_parts_stay_separate() -> None:
    messages = chat(
        user("go"),
        {"role": "assistant", "tool_calls": [CALL]},
        {
            "role": "tool",
            "tool_call_id": "call_1",
            "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
        },
    )
    converted = contextfold.convert(messages, "openai-responses")
    assert isinstance(converted, list)
    assert converted[2]["output"] == [
        {"type": "input_text", "text": "a"},
        {"type": "input_text", "text": "b"},
    ]


# --- tools and body fields -----------------------------------------------------------------

WEATHER_SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}}
CHAT_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {"name": "weather", "description": "Get it", "parameters": WEATHER_SCHEMA},
}
ANTHROPIC_TOOL = {"name": "weather", "description": "Get it", "input_schema": WEATHER_SCHEMA}
RESPONSES_TOOL = {
    "type": "function",
    "strict": False,
    "name": "weather",
    "description": "Get it",
    "parameters": WEATHER_SCHEMA,
}


@pytest.mark.parametrize(
    ("source", "tools", "built_in"),
    [
        ("openai-chat", [CHAT_TOOL], {"type": "custom", "custom": {"name": "patch"}}),
        ("anthropic", [ANTHROPIC_TOOL], {"type": "web_search_20250305", "name": "web_search"}),
        ("openai-responses", [RESPONSES_TOOL], {"type": "web_search"}),
    ],
)
def test_function_tools_convert_between_the_three_schemas(
    source: str, tools: list[dict[str, Any]], built_in: dict[str, Any]
) -> None:
    key = "input" if source == "openai-responses" else "messages"
    body = {"model": "m", key: [user("hi")], "tools": [*tools, built_in, *tools]}
    strict = {"strict": False} if source == "openai-responses" else {}  # carried when stated
    expected = {
        "openai-chat": [{**CHAT_TOOL, "function": {**CHAT_TOOL["function"], **strict}}],
        "anthropic": [{**ANTHROPIC_TOOL, **strict}],
        "openai-responses": [RESPONSES_TOOL],
    }
    for target, wanted in expected.items():
        converted = contextfold.convert(body, target, format=source)
        assert isinstance(converted, dict)
        assert converted["tools"] == (body["tools"] if target == source else wanted)


def test_a_tool_without_parameters_gets_an_empty_object_schema() -> None:
    body = {
        "model": "m",
        "messages": [user("hi")],
        "tools": [{"type": "function", "function": {"name": "now"}}],
    }
    converted = contextfold.convert(body, "anthropic")
    assert isinstance(converted, dict)
    assert converted["tools"] == [
        {"name": "now", "input_schema": {"type": "object", "properties": {}}}
    ]


def test_body_fields_carry_over_or_are_dropped() -> None:
    body = {
        "model": "gpt-4o",
        "messages": [user("hi")],
        "max_tokens": 64,
        "temperature": 1.5,
        "tool_choice": "auto",
        "stream": True,
    }
    assert contextfold.convert(body, "anthropic") == {
        "model": "gpt-4o",
        "max_tokens": 64,
        "messages": [user("hi")],
        "stream": True,
    }
    responses = contextfold.convert(body, "openai-responses")
    assert responses == {
        "model": "gpt-4o",
        "stream": True,
        "temperature": 1.5,
        "max_output_tokens": 64,
        "input": [user("hi")],
    }
    reported = changes_of(body, "anthropic")
    assert Change(None, "dropped", "body field 'tool_choice'") in reported
    assert Change(None, "dropped", "body field 'temperature'") in reported
    no_limit = contextfold.convert({"model": "m", "messages": [user("hi")]}, "anthropic")
    assert no_limit == {"model": "m", "messages": [user("hi")]}


# --- the call itself -----------------------------------------------------------------------


def test_same_format_is_parsed_and_rendered_back() -> None:
    assert contextfold.convert(ANTHROPIC, "anthropic") == ANTHROPIC


def test_format_can_be_given_and_errors_are_typed() -> None:
    plain = [user("hi")]
    assert contextfold.convert(plain, "anthropic", format="openai-chat") == plain
    with pytest.raises(ConfigurationError):
        contextfold.convert(plain, "gemini")
    with pytest.raises(InvalidConversation):
        contextfold.convert([{"role": "robot"}], "anthropic")
    with pytest.raises(InvalidConversation):
        contextfold.convert("hello", "anthropic")


def test_sdk_objects_convert_like_their_wire_json() -> None:
    from openai.types.chat import ChatCompletionMessage

    reply = ChatCompletionMessage.model_validate(
        {"role": "assistant", "content": None, "refusal": None, "tool_calls": [CALL]}
    )
    messages = [user("go"), reply, {"role": "tool", "tool_call_id": "call_1", "content": "a"}]
    plain = json.loads(json.dumps([user("go"), reply.model_dump(exclude_unset=True), messages[2]]))
    assert contextfold.convert(messages, "anthropic") == contextfold.convert(plain, "anthropic")
