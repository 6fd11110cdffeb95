"""validate: every way the Responses API would reject an input, at the right index."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import contextfold as cf
from contextfold import Problem
from contextfold._adapters._openai_responses import validate
from tests.adapters.responses_strategies import broken_inputs, input_items, payloads

USER = {"role": "user", "content": "hi"}
REASONING = {"type": "reasoning", "id": "rs_1", "summary": []}


def call(call_id: str, kind: str = "function_call") -> dict[str, Any]:
    """A tool call item."""
    key = "arguments" if kind == "function_call" else "input"
    return {"type": kind, "call_id": call_id, "name": "f", key: "{}"}


def output(call_id: str, kind: str = "function_call_output") -> dict[str, Any]:
    """A tool output item."""
    return {"type": kind, "call_id": call_id, "output": "ok"}


def where(problems: list[Problem]) -> list[tuple[int | None, str | None]]:
    """(index, field) of each problem."""
    return [(p.index, p.field) for p in problems]


def test_a_valid_exchange_has_no_problems() -> None:
    items = [USER, REASONING, call("a"), call("b"), output("b"), output("a")]
    assert validate(items) == []
    assert validate({"model": "gpt-5", "input": items, "instructions": "x"}) == []


def test_unanswered_calls_are_reported_at_the_call() -> None:
    items = [USER, call("a"), call("b", "custom_tool_call"), output("a")]
    problems = validate(items)
    assert where(problems) == [(2, "call_id")]
    assert "No tool output found for custom_tool_call 'b'" in problems[0].reason


def test_orphan_outputs_are_reported_at_the_output() -> None:
    items = [USER, output("a"), call("b"), output("b", "custom_tool_call_output"), output("b")]
    problems = validate(items)
    assert where(problems) == [(1, "call_id"), (3, "call_id")]
    assert "no earlier unanswered function_call" in problems[0].reason


def test_an_output_before_its_call_is_an_orphan_and_the_call_unanswered() -> None:
    assert where(validate([output("a"), call("a")])) == [(0, "call_id"), (1, "call_id")]


def test_reused_call_ids_match_per_occurrence() -> None:
    assert validate([call("a"), output("a"), call("a"), output("a")]) == []
    assert where(validate([call("a"), call("a"), output("a")])) == [(1, "call_id")]
    assert where(validate([call("a"), output("a"), output("a")])) == [(2, "call_id")]


def test_outputs_may_answer_a_stored_response() -> None:
    body = {"previous_response_id": "resp_1", "input": [output("a")]}
    assert validate(body) == []
    assert where(validate({**body, "previous_response_id": None})) == [(0, "call_id")]
    assert validate({"conversation": "conv_1", "input": [output("a")]}) == []


def test_outputs_may_answer_a_call_behind_an_item_reference() -> None:
    # A stored function_call sent back by reference: its call_id is not in the input.
    items = [USER, {"type": "item_reference", "id": "fc_67ab12"}, output("a")]
    assert validate(items) == []
    assert validate([USER, {"id": "fc_67ab12"}, output("a")]) == []  # the type may be left out
    assert where(validate([USER, output("a"), items[1]])) == [(1, "call_id")]  # before it


@pytest.mark.parametrize(
    ("items", "index"),
    [
        ([USER, REASONING], 1),
        ([USER, REASONING, USER, call("a"), output("a")], 1),
        ([REASONING, output("a")], 0),
        ([REASONING, {"role": "developer", "content": "x"}], 0),
        ([REASONING, {"type": "local_shell_call_output", "id": "x", "output": ""}], 0),
    ],
)
def test_reasoning_needs_its_following_item(items: list[Any], index: int) -> None:
    problems = [p for p in validate(items) if "reasoning" in p.reason]
    assert [p.index for p in problems] == [index]
    assert "Item 'rs_1' of type 'reasoning' was provided without its required following item" in (
        problems[0].reason
    )


@pytest.mark.parametrize(
    "follower",
    [
        {"role": "assistant", "content": "done"},
        {"type": "message", "role": "assistant", "content": []},
        REASONING,
        {"type": "web_search_call", "id": "ws", "status": "completed"},
        {"type": "item_reference", "id": "msg_1"},
        {"id": "msg_1"},
    ],
)
def test_model_items_may_follow_reasoning(follower: dict[str, Any]) -> None:
    assert validate([REASONING, follower, {"role": "assistant", "content": "x"}]) == []


def test_reasoning_needs_id_and_summary() -> None:
    problems = validate([{"type": "reasoning", "encrypted_content": "e"}, call("a"), output("a")])
    assert where(problems) == [(0, "summary")]
    problems = validate([{"type": "reasoning", "summary": []}, call("a"), output("a")])
    assert where(problems) == [(0, "id")]


def test_assistant_content_must_be_output_text_or_refusal() -> None:
    content = [
        {"type": "output_text", "text": "a", "annotations": []},
        {"type": "input_text", "text": "b"},
        {"type": "refusal", "refusal": "no"},
    ]
    problems = validate([{"role": "assistant", "content": content}])
    assert where(problems) == [(0, "content[1].type")]
    assert "Invalid value: 'input_text'" in problems[0].reason


def test_malformed_items_are_all_reported() -> None:
    items = [
        {"role": "robot", "content": "x"},
        {"type": "function_call", "name": "f", "arguments": "{}"},
        {"type": "function_call", "call_id": "c", "name": "f", "arguments": {"a": 1}},
        {"role": "user", "content": [{"type": "input_text"}]},
        7,
    ]
    assert where(validate(items)) == [
        (0, "role"),
        (1, "call_id"),
        (2, "arguments"),
        (2, "call_id"),
        (3, "content[0].text"),
        (4, None),
    ]


def test_body_problems() -> None:
    body = {"input": 5, "instructions": 3, "tools": [{"type": "function"}, 2]}
    assert where(validate(body)) == [
        (None, "input"),
        (None, "instructions"),
        (None, "tools[0].name"),
        (None, "tools[1]"),
    ]
    assert where(validate({"tools": {}})) == [(None, "input"), (None, "tools")]
    assert where(validate("hello")) == [(None, None)]


@given(payloads)
def test_generated_valid_payloads_have_no_problems(payload: Any) -> None:
    assert validate(payload) == []


@given(broken_inputs())
def test_each_mutation_is_caught_at_its_index(broken: tuple[list[Any], int, str]) -> None:
    items, index, word = broken
    problems = validate(items)
    assert any(p.index == index and word in p.reason for p in problems), problems
    indexes = [p.index for p in problems]
    assert indexes == sorted(i for i in indexes if i is not None)  # in item order


def test_issue_reproduction_stateless_reasoning_without_encrypted_content() -> None:
    """Before: no problem, so compact passed on what the API refuses ("Item with id 'rs_1'
    not found. Items are not persisted when `store` is set to false")."""
    items = [USER, REASONING, {"role": "assistant", "content": "done"}, USER]
    assert where(validate({"model": "gpt-5", "store": False, "input": items})) == [
        (1, "encrypted_content")
    ]
    readable = {**REASONING, "encrypted_content": "gAAAAB"}
    assert validate({"model": "gpt-5", "store": False, "input": [USER, readable, *items[2:]]}) == []
    assert validate({"model": "gpt-5", "input": items}) == []  # stored: looked up by id
    assert validate({"store": False, "previous_response_id": "resp_1", "input": items}) == []
    with pytest.raises(cf.InvalidConversation) as raised:
        cf.compact({"model": "gpt-5", "store": False, "input": items}, 10_000)
    assert (raised.value.index, raised.value.field) == (1, "encrypted_content")


@given(input_items(), st.data())
def test_with_store_false_every_reasoning_item_needs_encrypted_content(
    items: list[Any], data: st.DataObject
) -> None:
    reasoning = [i for i, item in enumerate(items) if item.get("type") == "reasoning"]
    for i in reasoning:
        items[i] = {**items[i], "encrypted_content": "gAAAAB"}
    stripped = data.draw(st.sets(st.sampled_from(reasoning)) if reasoning else st.just(set()))
    for i in stripped:
        items[i] = {k: v for k, v in items[i].items() if k != "encrypted_content"}
    found = [
        p for p in validate({"store": False, "input": items}) if p.field == "encrypted_content"
    ]
    assert [p.index for p in found] == sorted(stripped)
    assert not [
        p for p in validate({"store": True, "input": items}) if p.field == "encrypted_content"
    ]
