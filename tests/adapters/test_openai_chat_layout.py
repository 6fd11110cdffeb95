"""Layout extras shared by the messages and calls that have the same wire layout."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contextfold import Message, ToolCall
from contextfold._adapters import _openai_chat_layout as layout
from contextfold._adapters._openai_chat import from_conversation, to_conversation
from contextfold._archive_copy import private_copy, unchanging
from contextfold._messages import shares_extras

from .chat_strategies import message_lists


def _turns(n: int, **extra: Any) -> list[dict[str, Any]]:
    """`n` call-and-result turns whose keys are in a non-canonical order."""
    out: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    for i in range(n):
        function = {"arguments": "{}", "name": "read"}  # not the canonical name, arguments
        call = {"function": function, "id": f"c{i}", "type": "function", "index": 0}
        out.append({"tool_calls": [call], "role": "assistant", "content": None})
        out.append({"role": "tool", "content": f"out {i}", "tool_call_id": f"c{i}", **extra})
    return out


def _calls(messages: Sequence[Message]) -> list[ToolCall]:
    return [p for m in messages for p in m.parts if isinstance(p, ToolCall)]


def test_one_layout_is_one_mapping() -> None:
    payload = _turns(30)
    messages = to_conversation(copy.deepcopy(payload)).messages
    tools = [m for m in messages if m.role == "tool"]
    calls = _calls(messages)
    assert len({id(m.extras) for m in tools}) == 1
    assert len({id(c.extras) for c in calls}) == 1
    assert shares_extras(tools[0].extras)
    assert shares_extras(calls[0].extras)
    assert shares_extras(calls[0].extras[layout.INNER])
    assert from_conversation(to_conversation(payload)) == payload


def test_a_callers_container_is_never_shared() -> None:
    payload = _turns(5, cache_control={"type": "ephemeral"})
    messages = to_conversation(payload).messages
    tools = [m for m in messages if m.role == "tool"]
    assert len({id(m.extras) for m in tools}) == len(tools)
    assert not any(shares_extras(m.extras) for m in tools)
    for message, raw in zip(tools, payload[2::2], strict=True):
        assert message.extras["cache_control"] is raw["cache_control"]  # the caller's own


def test_values_equal_across_types_do_not_share() -> None:
    ones, trues = _turns(2), _turns(2)
    for message in trues[1::2]:
        message["tool_calls"][0]["index"] = True
    parsed = _calls(to_conversation(ones).messages) + _calls(to_conversation(trues).messages)
    assert parsed[0].extras is parsed[1].extras
    assert parsed[0].extras is not parsed[2].extras
    assert from_conversation(to_conversation(trues)) == trues
    rendered: Any = from_conversation(to_conversation(trues))
    assert type(rendered[1]["tool_calls"][0]["index"]) is bool


@given(message_lists(), message_lists())
def test_a_later_parse_never_changes_an_earlier_one(
    first: list[dict[str, Any]], second: list[dict[str, Any]]
) -> None:
    """Shared layouts are never changed: what was parsed first renders as it came."""
    kept = copy.deepcopy(first)
    earlier = to_conversation(first)
    to_conversation(second)
    assert from_conversation(earlier) == kept


def test_past_the_bound_nothing_more_is_shared(monkeypatch: pytest.MonkeyPatch) -> None:
    from contextfold import _messages

    monkeypatch.setattr(_messages, "_SHARED", {})
    monkeypatch.setattr(_messages, "_SHARED_IDS", set())
    monkeypatch.setattr(_messages, "SHARED_MAX", 1)
    payload = _turns(4)
    messages = to_conversation(payload).messages
    tools = [m for m in messages if m.role == "tool"]
    assert len({id(m.extras) for m in tools}) == len(tools)  # the calls took the one slot
    assert not any(shares_extras(m.extras) for m in tools)
    assert from_conversation(to_conversation(payload)) == payload


@given(st.integers(1, 8))
def test_the_archive_keeps_a_shared_layout_as_it_is(n: int) -> None:
    """Nothing in a shared layout changes, so the archive keeps the message itself (no copy
    of its text, no copy of its extras)."""
    for message in to_conversation(_turns(n)).messages:
        assert unchanging(message)
        assert private_copy(message) is message
