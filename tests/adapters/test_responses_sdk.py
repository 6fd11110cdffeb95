"""Real `openai` SDK objects from a Response's `output`, fed back as Responses input."""

from __future__ import annotations

import json
from typing import Any

import pytest

import contextfold
from contextfold import Reasoning, Text, ToolCall
from contextfold._adapters._sdk import to_plain

openai_responses = pytest.importorskip("openai.types.responses")

OUTPUT: list[dict[str, Any]] = [
    {
        "type": "reasoning",
        "id": "rs_1",
        "summary": [{"type": "summary_text", "text": "**Weather** Look it up."}],
        "encrypted_content": "gAAAAABo...",
    },
    {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "get_weather",
        "arguments": '{"city": "Oslo"}',
        "status": "completed",
    },
    {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "Checking.", "annotations": []}],
    },
]


def response(output: list[dict[str, Any]]) -> Any:
    """A `Response` as the SDK builds it from the API's JSON."""
    return openai_responses.Response.model_validate(
        {
            "id": "resp_1",
            "created_at": 1.0,
            "model": "gpt-5",
            "object": "response",
            "output": output,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
        }
    )


def sdk_input() -> list[object]:
    """The usual agent loop: input, then `response.output`, then the tool's output."""
    output = response(OUTPUT).output
    assert [type(item).__name__ for item in output] == [
        "ResponseReasoningItem",
        "ResponseFunctionToolCall",
        "ResponseOutputMessage",
    ]
    result = {"type": "function_call_output", "call_id": "call_1", "output": "4 C"}
    return [{"role": "user", "content": "Weather in Oslo?"}, *output, result]


@pytest.mark.parametrize("fmt", ["openai-responses", None])
def test_output_items_parse_explicitly_and_by_detection(fmt: str | None) -> None:
    found, conversation = contextfold.parse(sdk_input(), format=fmt)
    assert found == "openai-responses"
    assert [m.parts[0] for m in conversation.messages[1:3]] == [
        Reasoning("**Weather** Look it up.", encrypted="gAAAAABo..."),
        ToolCall("call_1", "get_weather", '{"city": "Oslo"}'),
    ]
    assert conversation.messages[3].parts[0] == Text(
        "Checking.", extras={"annotations": [], "type": "output_text"}
    )


def test_rendering_gives_plain_dicts_equal_to_the_api_json() -> None:
    _, conversation = contextfold.parse(sdk_input())
    rendered = contextfold.render(conversation, "openai-responses")
    assert isinstance(rendered, list)
    assert all(type(item) is dict for item in rendered)
    assert rendered[1:4] == OUTPUT
    assert json.loads(json.dumps(rendered)) == rendered


def test_sdk_input_validates() -> None:
    assert contextfold.validate(sdk_input()) == []
    without_result = sdk_input()[:-1]
    assert [p.index for p in contextfold.validate(without_result)] == [2]


def transform_item(item: object) -> object:
    """What the openai SDK sends for `item` given as an input item."""
    from openai._utils._transform import transform

    return transform(item, openai_responses.ResponseInputItemParam)


def test_to_plain_matches_what_the_sdk_sends_for_common_items() -> None:
    for item in response(OUTPUT).output:
        assert to_plain(item) == transform_item(item)


def test_to_plain_drops_sdk_only_fields_of_parsed_results() -> None:
    from openai.types.responses.parsed_response import ParsedResponseFunctionToolCall

    call = ParsedResponseFunctionToolCall.model_validate(
        {**OUTPUT[1], "parsed_arguments": {"city": "Oslo"}}
    )
    assert to_plain(call) == OUTPUT[1]


def test_to_plain_drops_parsed_content_of_a_parsed_message() -> None:
    from openai.types.responses.parsed_response import ParsedResponseOutputMessage

    message = ParsedResponseOutputMessage[dict[str, str]].model_validate(
        {**OUTPUT[2], "content": [{**OUTPUT[2]["content"][0], "parsed": {"a": "b"}}]}
    )
    assert to_plain(message) == OUTPUT[2]
    assert to_plain(message) == transform_item(message)


@pytest.mark.parametrize(
    "item",
    [
        {"type": "image_generation_call", "id": "ig_1", "status": "completed", "result": None},
        {
            "type": "code_interpreter_call",
            "id": "ci_1",
            "status": "completed",
            "container_id": "cntr_1",
            "code": None,
            "outputs": None,
        },
    ],
    ids=["image_generation_call", "code_interpreter_call"],
)
def test_to_plain_keeps_required_nulls(item: dict[str, Any]) -> None:
    sdk_item = response([item]).output[0]
    assert to_plain(sdk_item) == item
    assert to_plain(sdk_item) == transform_item(sdk_item)
    _, conversation = contextfold.parse([sdk_item], format="openai-responses")
    assert contextfold.render(conversation, "openai-responses") == [item]


def test_to_plain_uses_wire_names_for_aliased_fields() -> None:
    call = response([{**OUTPUT[1], "async": True}]).output[0]
    assert to_plain(call) == {**OUTPUT[1], "async": True}
