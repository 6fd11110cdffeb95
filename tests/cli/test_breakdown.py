"""Where the tokens go: the numbers add up and agree with `count_tokens` and `compact`."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import contextfold as cf
from contextfold._cli._breakdown import UNKNOWN_TOOL, breakdown

from ..adapters import anthropic_strategies, chat_strategies, responses_strategies
from .conftest import ANTHROPIC_EXAMPLE, CHAT_EXAMPLE

PAYLOADS = st.one_of(
    chat_strategies.message_lists(),
    chat_strategies.bodies(),
    anthropic_strategies.payloads(),
    responses_strategies.bodies(),
)


@settings(max_examples=50)
@given(payload=PAYLOADS, model=st.sampled_from([None, "gpt-4o", "claude-sonnet-4-5"]))
def test_totals_add_up(payload: Any, model: str | None) -> None:
    found = breakdown(payload, model, None)
    assert found.tokens == cf.count_tokens(payload, model)
    assert found.tokens == found.fixed + sum(r.tokens for r in found.by_role)
    assert found.messages == sum(r.messages for r in found.by_role)
    assert found.framing <= sum(r.tokens for r in found.by_role)
    tool_tokens = sum(t.call_tokens + t.result_tokens for t in found.by_tool)
    assert tool_tokens <= sum(r.tokens for r in found.by_role)
    sizes = [m.tokens for m in found.largest]
    assert sizes == sorted(sizes, reverse=True)
    json.dumps(found.to_dict())


def test_example_by_tool_and_largest() -> None:
    payload = json.loads(CHAT_EXAMPLE.read_text())
    found = breakdown(payload, "gpt-4o", None, top=3)
    assert found.tool_definitions == 3
    assert {t.name for t in found.by_tool} == {"bash", "view_file", "edit_file"}
    calls = [c for m in payload["messages"] for c in m.get("tool_calls") or ()]
    assert sum(t.calls for t in found.by_tool) == len(calls)
    assert all(t.calls == t.results for t in found.by_tool)
    assert len(found.largest) == 3
    for row in found.largest:
        assert row.index is not None
        assert payload["messages"][row.index]["role"] == row.role
    biggest = found.largest[0]
    assert biggest.tools == "bash"
    assert biggest.preview.startswith("M src/invoicer/invoice.py")
    report = cf.compact(payload, 6000, "gpt-4o").report
    assert report.tokens_before == found.tokens


def test_lifted_system_prompt_has_no_wire_index() -> None:
    payload = json.loads(ANTHROPIC_EXAMPLE.read_text())
    found = breakdown(payload, None, None, top=100)
    system = [m for m in found.largest if m.role == "system"]
    assert len(system) == 1
    assert system[0].index is None
    first_user = next(m for m in found.largest if m.index == 0)
    assert first_user.role == "user"
    assert first_user.preview.startswith("Our accounting team reports")


def test_a_result_without_its_call_counts_under_unknown() -> None:
    payload = [
        {"role": "user", "content": "go"},
        {"role": "tool", "tool_call_id": "call_x", "content": "output"},
    ]
    found = breakdown(payload, None, "openai-chat")
    assert [(t.name, t.calls, t.results) for t in found.by_tool] == [(UNKNOWN_TOOL, 0, 1)]
    assert found.largest[0].tools == UNKNOWN_TOOL
