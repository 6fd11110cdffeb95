"""A request with no user turn is compacted, never emptied (`_flow` rule 7).

With no system prompt and no user message there is no floor: everything may leave. A
budget too small for the card's pointer then left no message at all, and `compact`
raised InvalidConversation ("a tool result has no call ... leaves no message") for valid
input. Now the pointer to what left goes in even over the budget, so the request keeps a
message, says it does not fit, and everything removed is recallable from it.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import contextfold as cf

from ..adapters.any_strategies import payloads as any_payloads

TEXT = "The build passed after the second retry, all green. " * 20
CALL = {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}

AGENT_ONLY: dict[str, Any] = {
    "openai-chat": [
        {"role": "system", "content": "Be brief."},
        {"role": "assistant", "content": None, "tool_calls": [CALL]},
        {"role": "tool", "tool_call_id": "c1", "content": "x\n" * 3000},
        {"role": "assistant", "content": TEXT},
    ],
    "anthropic": {
        "system": "Be brief.",
        "messages": [
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "ls", "input": {}}],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "x\n" * 3000}],
            },
            {"role": "assistant", "content": TEXT.strip()},
        ],
    },
    "openai-responses": {
        "instructions": "Be brief.",
        "input": [{"role": "assistant", "content": TEXT}],
    },
}


def _messages(payload: object, format: str | None = None) -> list[cf.Message]:
    return [m for m in cf.parse(payload, format)[1].messages if m.role != "system"]


@pytest.mark.parametrize("format", sorted(AGENT_ONLY))
@pytest.mark.parametrize("budget", [1, 5, 12, 20, 30, 60])
def test_a_budget_too_small_for_anything_keeps_the_pointer(format: str, budget: int) -> None:
    payload = AGENT_ONLY[format]
    result = cf.compact(payload, budget=budget, model="gpt-4o")
    assert cf.validate(result.payload, result.report.format) == []
    assert _messages(result.payload, result.report.format), "a request needs a message"
    assert result.report.fits == (result.report.tokens_after <= budget)
    shown = re.findall(r"\br[0-9a-f]{10}\b", str(result.payload))
    assert shown, "the output names the way back to what left"
    for ref in [*shown, *result.report.refs]:
        assert result.recall(ref)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(payload=any_payloads, budget=st.integers(1, 80))
def test_valid_input_never_comes_back_without_a_message(payload: Any, budget: int) -> None:
    assume(cf.validate(payload) == [])
    assume(_messages(payload))
    result = cf.compact(payload, budget=budget, model="gpt-4o")
    assert cf.validate(result.payload, result.report.format) == []
    assert _messages(result.payload, result.report.format)
