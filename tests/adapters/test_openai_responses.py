"""The Responses adapter as a whole: exact round trips, totality, real conversations."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any, TypeVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

import contextfold
from contextfold import Conversation, InvalidConversation
from contextfold._adapters._openai_responses import from_conversation, to_conversation, validate
from tests import corpus
from tests.adapters.responses_strategies import near_valid_inputs, payloads
from tests.strategies import messages

T = TypeVar("T")

# --- round trips ---------------------------------------------------------------------------


@given(payloads)
def test_render_of_parse_is_the_input(payload: Any) -> None:
    before = copy.deepcopy(payload)
    conversation = to_conversation(payload)
    rendered = from_conversation(conversation)
    assert rendered == payload
    assert payload == before  # parsing and rendering never mutate the input
    assert json.loads(json.dumps(rendered)) == rendered  # plain JSON data
    assert to_conversation(rendered) == conversation


# --- totality ------------------------------------------------------------------------------

_KEYS = st.sampled_from(
    [
        "type",
        "role",
        "content",
        "call_id",
        "name",
        "arguments",
        "input",
        "output",
        "summary",
        "encrypted_content",
        "id",
        "text",
        "refusal",
        "image_url",
        "detail",
        "instructions",
        "tools",
        "previous_response_id",
    ]
)
_WORDS = st.sampled_from(
    [
        "message",
        "user",
        "assistant",
        "tool",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "reasoning",
        "summary_text",
        "input_text",
        "output_text",
        "refusal",
        "input_image",
        "web_search_call",
        "item_reference",
        "function",
        "custom",
    ]
)
_SCALARS = st.none() | st.booleans() | st.integers() | st.text(max_size=6) | _WORDS
json_like = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS | st.text(max_size=4), inner),
    max_leaves=25,
)


@given(
    json_like
    | st.fixed_dictionaries({"input": json_like}, optional={"tools": json_like})
    | near_valid_inputs()
)
def test_any_json_parses_exactly_or_raises_invalid_conversation(payload: Any) -> None:
    parsed = attempt(to_conversation, payload)
    problems = validate(payload)
    if isinstance(parsed, InvalidConversation):
        assert parsed.format == "openai-responses"
        assert problems  # whatever cannot be parsed is reported by validate too
    else:
        assert from_conversation(parsed) == payload


@given(st.lists(messages, max_size=5), st.sampled_from(["list", "body"]))
def test_any_neutral_conversation_renders_or_raises_invalid_conversation(
    neutral: list[contextfold.Message], shape: Any
) -> None:
    rendered = attempt(from_conversation, Conversation(tuple(neutral), shape=shape))
    if isinstance(rendered, InvalidConversation):
        assert rendered.index is not None


def attempt(function: Callable[[Any], T], argument: Any) -> T | InvalidConversation:
    """`function(argument)`, or the InvalidConversation it raised."""
    try:
        return function(argument)
    except InvalidConversation as error:
        return error


# --- the public entry points ---------------------------------------------------------------


def test_detection_and_dispatch() -> None:
    body = {"model": "gpt-5", "input": "hi"}
    assert contextfold.detect(body) == "openai-responses"
    items = [{"role": "user", "content": "hi"}, {"type": "reasoning", "id": "r", "summary": []}]
    fmt, conversation = contextfold.parse(items)
    assert fmt == "openai-responses"
    assert contextfold.render(conversation, fmt) == items
    assert [str(p) for p in contextfold.validate(items)] == [
        "message 1: Item 'r' of type 'reasoning' was provided without its required following "
        "item: it is the last input item; keep a reasoning item directly before the call or "
        "message it produced"
    ]


# --- real conversations --------------------------------------------------------------------


def _content(content: object, part_type: str) -> object:
    if isinstance(content, list):
        return [{"type": part_type, "text": p["text"]} for p in content]
    return content


def responses_from_chat(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The request body a Responses client would send for a chat-format conversation."""
    body: dict[str, Any] = {"model": "gpt-4o", "input": []}
    for message in messages:
        role, content = message["role"], message.get("content")
        if role == "system" and "instructions" not in body:
            body["instructions"] = content
        elif role == "tool":
            output = _content(content, "input_text")
            item = {"type": "function_call_output", "call_id": message["tool_call_id"]}
            body["input"].append({**item, "output": output})
        elif role == "assistant":
            if content:
                text = content if isinstance(content, str) else content[0]["text"]
                part: dict[str, Any] = {"type": "output_text", "text": text, "annotations": []}
                body["input"].append({"type": "message", "role": role, "content": [part]})
            for call in message.get("tool_calls") or []:
                function = call["function"]
                body["input"].append(
                    {
                        "type": "function_call",
                        "call_id": call["id"],
                        "name": function["name"],
                        "arguments": function["arguments"],
                    }
                )
        else:
            body["input"].append({"role": role, "content": _content(content, "input_text")})
    return body


@pytest.mark.corpus
def test_corpus_conversations_round_trip_and_validate() -> None:
    count = 0
    for conversation_id, chat in corpus.conversations():
        body = responses_from_chat(chat)
        conversation = to_conversation(body)
        assert from_conversation(conversation) == body, conversation_id
        assert validate(body) == [], conversation_id
        assert len(conversation.messages) == len(body["input"]) + 1
        count += 1
    assert count == 243
