"""Real `anthropic` SDK objects go through the public parse/render/validate as plain JSON."""

from __future__ import annotations

import json
from typing import Any

import pytest

import contextfold
from contextfold import Reasoning, Text, ToolCall
from contextfold._adapters._sdk import to_plain

from ..summarizers.llm_server import LLMServer

anthropic_types = pytest.importorskip("anthropic.types")

RESPONSE = {
    "id": "msg_01",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5",
    "content": [
        {"type": "thinking", "thinking": "Need the weather tool.", "signature": "EqQBCkYI"},
        {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3p"},
        {"type": "text", "text": "Let me check."},
        {
            "type": "tool_use",
            "id": "toolu_01",
            "name": "weather",
            "input": {"city": "Paris", "unit": None},
        },
    ],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {"input_tokens": 12, "output_tokens": 34},
}


def _response() -> Any:
    """A Message as the SDK builds it from an API response."""
    return anthropic_types.Message.model_validate(RESPONSE)


def _history() -> list[Any]:
    """A tool loop whose assistant turn is the SDK response turned into a message param."""
    response = _response()
    return [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": response.role, "content": response.content},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "rainy"}],
        },
    ]


def test_sdk_blocks_parse_with_explicit_and_detected_format() -> None:
    history = _history()
    fmt, conversation = contextfold.parse(history, format="anthropic")
    assert (fmt, contextfold.detect(history)) == ("anthropic", "anthropic")
    assert contextfold.parse(history)[1] == conversation
    thinking, redacted, text, call = conversation.messages[1].parts
    assert thinking == Reasoning("Need the weather tool.", signature="EqQBCkYI")
    assert isinstance(redacted, Reasoning)
    assert redacted.encrypted == "EmwKAhgBEgy3va3p"
    assert text == Text("Let me check.")
    assert call == ToolCall("toolu_01", "weather", '{"city":"Paris","unit":null}')
    assert contextfold.validate(history) == []


def test_rendering_sdk_input_gives_plain_json_equal_to_the_wire_form() -> None:
    history = _history()
    rendered = contextfold.render(contextfold.parse(history, format="anthropic")[1], "anthropic")
    assert rendered == to_plain(history)
    assert json.loads(json.dumps(rendered)) == rendered
    assert isinstance(rendered, list)
    assert rendered[1]["content"] == RESPONSE["content"]


def test_a_whole_response_object_parses_and_keeps_its_response_fields() -> None:
    response = _response()
    payload = [{"role": "user", "content": "Weather in Paris?"}, response]
    conversation = contextfold.parse(payload, format="anthropic")[1]
    assert conversation.messages[1].extras["model"] == "claude-sonnet-4-5"
    assert contextfold.render(conversation, "anthropic") == to_plain(payload)


def test_typed_message_params_are_plain_dicts_and_round_trip() -> None:
    param = anthropic_types.UserMessageParam(
        role="user",
        content=[
            anthropic_types.TextBlockParam(
                type="text", text="hi", cache_control={"type": "ephemeral", "ttl": "1h"}
            )
        ],
    )
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 64,
        "system": "be brief",
        "messages": [param],
    }
    assert contextfold.render(contextfold.parse(body)[1], "anthropic") == body


CITED = {
    "type": "text",
    "text": "Paris is rainy.",
    "citations": [
        {
            "type": "char_location",
            "cited_text": "rainy",
            "document_index": 0,
            "document_title": None,
            "start_char_index": 0,
            "end_char_index": 5,
        }
    ],
}


def sent_by_sdk(messages: list[Any]) -> object:
    """The `messages` the anthropic SDK puts on the wire (a real request to 127.0.0.1)."""
    import anthropic

    with (
        LLMServer() as server,
        anthropic.Anthropic(api_key="k", base_url=server.url, max_retries=0) as client,
    ):
        client.messages.create(model="m", max_tokens=8, messages=messages)
        return server.requests[0].body["messages"]


def test_required_nullable_citation_fields_survive_to_plain() -> None:
    block = anthropic_types.TextBlock.model_validate(CITED)
    assert to_plain(block) == CITED


def test_history_with_sdk_blocks_renders_to_what_the_sdk_sends() -> None:
    response = anthropic_types.Message.model_validate({**RESPONSE, "content": [CITED]})
    history = [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": response.content},
        *_history()[:2],
    ]
    rendered = contextfold.render(contextfold.parse(history)[1], "anthropic")
    assert rendered == sent_by_sdk(history)


def test_sdk_only_fields_of_parsed_blocks_are_dropped() -> None:
    from anthropic.types.parsed_message import ParsedMessage, ParsedTextBlock

    block = ParsedTextBlock[dict[str, str]].model_validate(
        {"type": "text", "text": '{"city": "Paris"}', "parsed_output": {"city": "Paris"}}
    )
    assert block.parsed_output == {"city": "Paris"}
    assert to_plain(block) == {"type": "text", "text": '{"city": "Paris"}'}
    message = ParsedMessage[dict[str, str]].model_validate({**RESPONSE, "content": [block]})
    plain = to_plain(message)
    assert isinstance(plain, dict)
    assert plain["content"] == [{"type": "text", "text": '{"city": "Paris"}'}]
