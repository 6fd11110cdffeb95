"""Faults 2 and 3 of issue 12 as reported: repair must give what the provider accepts, and
the "already fits" path repairs or raises, never returns what `validate` rejects."""

from __future__ import annotations

from typing import Any

import pytest

import contextfold as cf


def call(i: str) -> dict[str, Any]:
    return {"id": i, "type": "function", "function": {"name": "bash", "arguments": "{}"}}


def use(i: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": i, "name": "bash", "input": {}}


def result(i: str, text: str = "ok") -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": i, "content": text}


def body(*messages: dict[str, Any]) -> dict[str, Any]:
    return {"model": "claude-sonnet-4-5", "max_tokens": 100, "messages": list(messages)}


def compacted(payload: Any, fmt: str, budget: int = 100_000) -> cf.CompactResult[Any]:
    result = cf.compact(payload, budget, format=fmt)
    assert cf.validate(result.payload, fmt) == []
    return result


def test_chat_second_call_answered_before_the_next_assistant_message() -> None:
    payload = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [call("c1"), call("c2")]},
        {"role": "tool", "tool_call_id": "c1", "content": "r1"},
        {"role": "assistant", "content": "done"},
        {"role": "user", "content": "next"},
        {"role": "assistant", "content": "ok"},
    ]
    out = compacted(payload, "openai-chat").payload
    assert isinstance(out, list)
    assert [m.get("tool_call_id") for m in out[2:4]] == ["c1", "c2"]
    assert out[4] == payload[3]


def test_anthropic_missing_tool_result_goes_right_after_the_call() -> None:
    payload = body(
        {"role": "user", "content": "do it"},
        {"role": "assistant", "content": [use("t1")]},
        {"role": "assistant", "content": "I could not run it."},
        {"role": "user", "content": "ok, next"},
    )
    out = compacted(payload, "anthropic").payload
    assert isinstance(out, dict)
    messages = out["messages"]
    assert messages[2]["content"][0]["tool_use_id"] == "t1"
    assert messages[3] == payload["messages"][2]


def test_anthropic_reused_tool_use_ids_are_renamed_with_their_results() -> None:
    payload = body(
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": [use("t1")]},
        {"role": "user", "content": [result("t1", "x")]},
        {"role": "assistant", "content": [use("t1")]},
        {"role": "user", "content": [result("t1", "y")]},
    )
    result_ = compacted(payload, "anthropic")
    out = result_.payload
    assert isinstance(out, dict)
    assert out["messages"][3]["content"][0]["id"] == "t1_2"
    assert out["messages"][4]["content"][0] == result("t1_2", "y")
    assert any("renamed" in note for note in result_.report.repaired)


@pytest.mark.parametrize(
    "payload",
    [
        body({"role": "assistant", "content": "hi"}, {"role": "user", "content": "x"}),
        body(
            {"role": "user", "content": "a"},
            {"role": "assistant", "content": [use("t1")]},
            {"role": "user", "content": [{"type": "text", "text": "hi"}, result("t1")]},
        ),
        body(
            {"role": "user", "content": "a"},
            {"role": "user", "content": "b"},
        ),
    ],
    ids=["first from the assistant", "text before tool_result", "two user turns"],
)
def test_fits_path_repairs_what_it_can(payload: dict[str, Any]) -> None:
    assert cf.validate(payload, "anthropic") != []
    result = compacted(payload, "anthropic")
    assert result.report.repaired


@pytest.mark.parametrize(
    ("payload", "fmt", "index", "field"),
    [
        (body({"role": "user", "content": ""}), "anthropic", 0, "content"),
        ([{"role": "user"}], "openai-chat", 0, "content"),
        ([], "openai-chat", None, "messages"),
        (body(), "anthropic", None, "messages"),
    ],
    ids=["empty user content", "chat user without content", "no messages", "no turns"],
)
def test_fits_path_raises_what_it_cannot_repair(
    payload: Any, fmt: str, index: int | None, field: str | None
) -> None:
    assert cf.validate(payload, fmt) != []
    with pytest.raises(cf.InvalidConversation) as info:
        cf.compact(payload, 100_000, format=fmt)
    assert info.value.index == index
    assert info.value.field == field
