"""Invariants I1-I7 of `compact()` on wire payloads of all three formats (Hypothesis).

Conversations come from the neutral agent-shaped generator, rendered by the real
adapters; compaction goes through the public API and its output is checked with the
format's own validator.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

import contextfold as cf
from contextfold import Conversation, Message
from contextfold._adapters._sdk import to_plain
from contextfold._messages import MARKER_RE

from .conversations import conversation, shapes

COUNTER = cf.HeuristicCounter()


@dataclass(frozen=True)
class WireCase:
    format: str
    payload: object
    budget: int
    pins: frozenset[int]


def to_wire(messages: list[Message], fmt: str) -> object:
    lifted = fmt == "anthropic" and bool(messages) and messages[0].role == "system"
    return cf.render(Conversation(tuple(messages), shape="body" if lifted else "list"), fmt)


def wire_messages(payload: object) -> list[object]:
    if isinstance(payload, dict):
        inner = payload.get("messages", payload.get("input"))
        assert isinstance(inner, list)
        return inner
    assert isinstance(payload, list)
    return payload


@st.composite
def wire_cases(draw: st.DrawFn) -> WireCase:
    fmt = draw(shapes)
    payload = to_wire(draw(conversation(fmt)), fmt)
    total = cf.count_tokens(payload, format=fmt)
    budget = draw(st.integers(max(16, total // 20), max(17, total * 2)))
    n = len(wire_messages(payload))
    pins = draw(st.sets(st.integers(0, max(0, n - 1)), max_size=2)) if n else set()
    return WireCase(fmt, payload, budget, frozenset(pins))


def run(case: WireCase, payload: object | None = None) -> cf.CompactResult[object]:
    return cf.compact(
        case.payload if payload is None else payload,
        case.budget,
        format=case.format,
        pins=case.pins if payload is None else (),
    )


@given(wire_cases())
def test_i1_output_is_valid_in_its_format(case: WireCase) -> None:
    assert cf.validate(case.payload, format=case.format) == []
    result = run(case)
    assert cf.validate(result.payload, format=case.format) == [], result.report
    assert type(result.payload) is type(case.payload)


@given(wire_cases())
def test_output_is_plain_json(case: WireCase) -> None:
    """`compact` checks and counts the rendered output without walking it (`_compact` rule
    7): rendering gives plain JSON, which `to_plain` hands back as the same object."""
    result = run(case)
    assert to_plain(result.payload) is result.payload


@given(wire_cases())
def test_i2_survivors_keep_order_and_identity(case: WireCase) -> None:
    result = run(case)
    before = [json.dumps(m, sort_keys=True) for m in wire_messages(case.payload)]
    after = [json.dumps(m, sort_keys=True) for m in wire_messages(result.payload)]
    cursor = 0
    for message in after:
        try:
            cursor = before.index(message, cursor) + 1  # survivors in order, none twice
        except ValueError:
            assert "[cf:" in message, message  # anything else is a marked artifact


@given(wire_cases())
def test_i3_budget_or_an_honest_report(case: WireCase) -> None:
    result = run(case)
    report = result.report
    assert report.tokens_after == cf.count_tokens(result.payload, format=case.format)
    assert report.fits == (report.tokens_after <= case.budget)
    if not report.fits:
        assert report.protected_tokens > case.budget or "does not fit" in report.reason


@given(wire_cases())
def test_i4_system_prompt_and_pins_stay_verbatim(case: WireCase) -> None:
    result = run(case)
    if isinstance(case.payload, dict) and "system" in case.payload:
        assert isinstance(result.payload, dict)
        assert result.payload["system"] == case.payload["system"]
    before = wire_messages(case.payload)
    after = wire_messages(result.payload)
    for index in case.pins:
        if before[index] in after:
            continue
        # A pin covers its whole unit; the pinned message itself must survive verbatim.
        raise AssertionError(f"pinned message {index} did not survive: {before[index]}")
    first = before[0] if before else None
    if isinstance(first, dict) and first.get("role") in ("system", "developer"):
        assert after[0] == first


@given(wire_cases())
def test_i5_markers_recall_originals(case: WireCase) -> None:
    result = run(case)
    for ref in set(MARKER_RE.findall(json.dumps(result.payload))):
        assert ref in result.archive
    for ref in result.report.refs:
        assert result.recall(ref) is not None


@given(wire_cases())
def test_i6_i7_deterministic_and_stable(case: WireCase) -> None:
    first = run(case)
    second = run(case)
    assert json.dumps(first.payload) == json.dumps(second.payload)
    if first.report.fits:
        # pins name the input's messages: compacting the output again pins the same ones
        pins = _same_pins(case, first.payload)
        again = cf.compact(first.payload, case.budget, format=case.format, pins=pins)
        assert again.payload is first.payload


def _same_pins(case: WireCase, output: object) -> list[int]:
    """Where the messages `case` pins are in `output` (kept verbatim, in order)."""
    pinned = [m for i, m in enumerate(wire_messages(case.payload)) if i in case.pins]
    found: list[int] = []
    for index, message in enumerate(wire_messages(output)):
        if pinned and message == pinned[0]:
            found.append(index)
            pinned.pop(0)
    assert not pinned  # I4: every pinned message is kept verbatim
    return found
