"""validate() for OpenAI chat: pairing per occurrence (I1) and malformed fields."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contextfold import Problem
from contextfold._adapters._openai_chat import validate

from .. import corpus
from .chat_strategies import (
    json_values,
    message_lists,
    near_bodies,
    near_chat,
    near_messages,
    payloads,
    tool_turn,
    turn,
)

Where = set[tuple[int | None, str | None]]


def where(problems: list[Problem]) -> Where:
    return {(p.index, p.field) for p in problems}


def call(call_id: str, name: str = "ls") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}


def result(call_id: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": "ok"}


USER = {"role": "user", "content": "go"}


@pytest.mark.corpus
def test_every_corpus_conversation_is_valid() -> None:
    bad = {cid: validate(messages) for cid, messages in corpus.conversations()}
    assert {cid: problems for cid, problems in bad.items() if problems} == {}


@given(payloads)
def test_generated_conversations_are_valid(payload: Any) -> None:
    assert validate(payload) == []


def test_reused_ids_across_turns_match_per_occurrence() -> None:
    messages = [
        USER,
        {"role": "assistant", "content": None, "tool_calls": [call("call_1", "send")]},
        result("call_1"),
        {"role": "assistant", "content": None, "tool_calls": [call("call_1", "calculate")]},
        result("call_1"),
        {"role": "assistant", "content": "done"},
    ]
    assert validate(messages) == []


def test_parallel_results_may_come_in_any_order() -> None:
    messages = [
        USER,
        {"role": "assistant", "tool_calls": [call("a"), call("b")]},
        result("b"),
        result("a"),
    ]
    assert validate(messages) == []


@st.composite
def mutated(draw: st.DrawFn) -> tuple[list[dict[str, Any]], Where]:
    """A valid list with one tool exchange broken, and where validate must point."""
    prefix = draw(message_lists())
    block = draw(tool_turn())
    suffix = [m for chunk in draw(st.lists(turn(), max_size=2)) for m in chunk]
    at, calls = len(prefix), block[0]["tool_calls"]
    slot = {c["id"]: f"tool_calls[{j}].id" for j, c in enumerate(calls)}
    r = draw(st.integers(0, len(calls) - 1))
    victim = block[1 + r]
    kind = draw(st.sampled_from(["drop", "swap", "orphan", "insert"]))
    expected: Where
    if kind == "drop":
        del block[1 + r]
        expected = {(at, slot[victim["tool_call_id"]])}
    elif kind == "swap":
        block[0], block[1] = block[1], block[0]
        expected = {(at, "tool_call_id"), (at + 1, slot[block[0]["tool_call_id"]])}
    elif kind == "orphan":
        block[1 + r] = {**victim, "tool_call_id": "call_zzz"}
        expected = {(at + 1 + r, "tool_call_id"), (at, slot[victim["tool_call_id"]])}
    else:
        block.insert(1, USER)
        expected = {(at, s) for s in slot.values()}
        expected |= {(at + 2 + i, "tool_call_id") for i in range(len(calls))}
    return prefix + block + suffix, expected


@given(mutated())
def test_broken_pairing_is_caught_at_the_right_index(case: tuple[list[Any], Where]) -> None:
    messages, expected = case
    assert where(validate(messages)) == expected


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        ([result("a")], {(0, "tool_call_id")}),
        ([USER, {"role": "assistant", "tool_calls": [call("a")]}], {(1, "tool_calls[0].id")}),
        (
            [USER, {"role": "assistant", "tool_calls": [call("a"), call("a")]}, result("a")],
            {(1, "tool_calls[1].id")},
        ),
        (
            [USER, {"role": "assistant", "tool_calls": [call("a")]}, result("a"), result("a")],
            {(3, "tool_call_id")},
        ),
        ([{"role": "tool", "content": "x"}], {(0, "tool_call_id")}),
        ([{"role": "robot", "content": "x"}], {(0, "role")}),
        (["hello"], {(0, None)}),
        ([{"role": "user", "content": 3}], {(0, "content")}),
        ([{"role": "user", "content": []}], {(0, "content")}),
        ([{"role": "user"}], {(0, "content")}),
        ([{"role": "assistant", "content": None}], {(0, "content")}),
        ([{"role": "user", "content": "x", "name": 1}], {(0, "name")}),
        ([{"role": "system", "content": [{"type": "image_url"}]}], {(0, "content[0]")}),
        ([{"role": "user", "content": [{"type": "text"}]}], {(0, "content[0].text")}),
        ([{"role": "user", "content": "x", "tool_calls": [call("a")]}], {(0, "tool_calls")}),
        ([{"role": "assistant", "tool_calls": []}], {(0, "tool_calls"), (0, "content")}),
        (
            [{"role": "assistant", "tool_calls": [{"type": "function", "function": {}}]}],
            {(0, "tool_calls[0].id"), (0, "tool_calls[0].function")},
        ),
        (
            [
                {
                    "role": "assistant",
                    "tool_calls": [
                        {"id": "a", "type": "function", "function": {"name": "f", "arguments": {}}}
                    ],
                },
                result("a"),
            ],
            {(0, "tool_calls[0].function")},
        ),
        (
            [{"role": "assistant", "tool_calls": [{"id": "a"}]}, result("a")],
            {(0, "tool_calls[0].type")},
        ),
        ([{"role": "function", "name": "w", "content": "sunny"}], {(0, "role")}),
        ([{"role": "function", "content": 1}], {(0, "name"), (0, "content"), (0, "role")}),
        (
            [
                {"role": "assistant", "function_call": {"name": "w"}},
                {"role": "function", "name": "w", "content": None},
            ],
            {(0, "function_call")},
        ),
    ],
)
def test_malformed_messages(messages: list[Any], expected: Where) -> None:
    assert where(validate(messages)) == expected


def test_an_assistant_turn_given_back_as_its_audio_id_needs_no_content() -> None:
    # The audio guide's multi-turn pattern: the model's spoken answer is sent back by its
    # audio id alone (the API reads the audio and its transcript from that id).
    spoken = {"role": "assistant", "audio": {"id": "audio_6823c1a2f0e08190"}}
    messages = [USER, spoken, {"role": "user", "content": "Why is that?"}]
    assert validate(messages) == []
    assert where(validate([USER, {**spoken, "audio": None}])) == {(1, "content")}
    assert where(validate([USER, {**spoken, "audio": {"id": 3}}])) == {(1, "audio"), (1, "content")}


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        ([], {(None, "messages")}),
        ({"model": "gpt-4o"}, {(None, "messages")}),
        ({"messages": "hi"}, {(None, "messages")}),
        ("hi", {(None, None)}),
    ],
)
def test_payloads_that_are_not_conversations(payload: object, expected: Where) -> None:
    assert where(validate(payload)) == expected


def test_problems_come_in_message_order() -> None:
    messages = [result("x"), USER, {"role": "assistant", "tool_calls": [call("a")]}, USER]
    assert [p.index for p in validate(messages)] == [0, 2]


@given(json_values | near_chat | near_messages | near_bodies)
def test_validate_never_raises(payload: Any) -> None:
    assert all(isinstance(p, Problem) for p in validate(payload))
