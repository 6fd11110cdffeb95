"""Every corpus conversation compacted at 10%, 25% and 50% of its tokens (issue must-show).

For each: the output validates, fits (or the report says it cannot and why: the floor,
the system prompt and the latest user message, alone is over the budget), is
deterministic, is stable under a second compaction, and every marker's reference
recalls its original.
"""

from __future__ import annotations

import json

import pytest

import contextfold as cf
from contextfold._messages import MARKER_RE
from contextfold._planning._units import UnitKind, group_units

from ..corpus import records

FRACTIONS = (0.10, 0.25, 0.50)
MODEL = "gpt-4o"


def _ids() -> list[str]:
    return [str(r["id"]) for r in records()] or ["corpus-absent"]


def _record(record_id: str) -> list[object]:
    for record in records():
        if record["id"] == record_id:
            messages = record["messages"]
            assert isinstance(messages, list)
            return messages
    pytest.skip("corpus not found")


def protected_tokens(messages: list[object]) -> int:
    """The floor: system prompt + latest user turn, all that may never yield."""
    _, conversation = cf.parse(messages, format="openai-chat")
    counter = cf.counter_for(MODEL, "openai-chat")
    body = conversation.messages
    units = group_units(body)
    users = [u for u in units if u.kind is UnitKind.USER]
    keep = {u for u in units if u.kind is UnitKind.SYSTEM}
    keep |= {users[-1]} if users else set()
    total = cf.fixed_overhead(conversation, counter)
    return total + sum(counter.count(body[i]) for u in keep for i in range(u.start, u.stop))


@pytest.mark.parametrize("record_id", _ids())
def test_corpus_conversation_compacts_validly(record_id: str) -> None:
    messages = _record(record_id)
    total = cf.count_tokens(messages, MODEL)
    for fraction in FRACTIONS:
        budget = int(total * fraction)
        result = cf.compact(messages, budget, MODEL)
        report = result.report
        assert cf.validate(result.payload, format="openai-chat") == [], (fraction, report)
        assert report.tokens_after == cf.count_tokens(result.payload, MODEL)
        if report.fits:
            assert report.tokens_after <= budget
        else:
            assert protected_tokens(messages) > budget, (fraction, report)
            assert protected_tokens(messages) <= report.protected_tokens
            assert "does not fit" in report.reason
        again = cf.compact(messages, budget, MODEL)
        assert json.dumps(again.payload) == json.dumps(result.payload), "not deterministic"
        twice = cf.compact(result.payload, budget, MODEL)
        if report.fits:
            assert twice.payload is result.payload, "compacting the output changed it"
        text = json.dumps(result.payload)
        for ref in set(MARKER_RE.findall(text)):
            assert ref in result.archive
            assert result.recall(ref) is not None
