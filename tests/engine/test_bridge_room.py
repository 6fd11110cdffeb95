"""The room for card and summary counts the card's own bridge when they are placed apart.

Found by the I3 property: with the first turns pinned, the card goes at the top and the
summary where the folded run was; where turns must alternate, each needs a bridge, and
the room had counted one bridge per removed run only (275 tokens for a budget of 271).
"""

from __future__ import annotations

from contextfold import Archive, Image, Message, Policy, Text, ToolCall, ToolResult
from contextfold._engine._drive import run
from contextfold._engine._flow import Marks, Settings, compact_flow
from contextfold._engine._prepare import bridge_cost
from contextfold._summarizers._ledger import LedgerSummarizer
from contextfold.testing import FixedCounter

COUNTER = FixedCounter()
PICTURE = Image("data:image/png;base64,iVBORw0KGgo=")


def _user(text: str) -> Message:
    return Message("user", (Text(text), PICTURE))


def _said(text: str) -> Message:
    return Message("assistant", (Text(text),))


def _calls(*ids: str) -> Message:
    return Message("assistant", tuple(ToolCall(i, "bash", '{"arg": "the"}') for i in ids))


def _results(results: dict[str, str], *, failed: bool = False) -> Message:
    return Message(
        "user", tuple(ToolResult(i, (Text(t),), is_error=failed) for i, t in results.items())
    )


def test_pinned_first_turns_leave_room_for_the_cards_own_bridge() -> None:
    messages = [
        Message("system", (Text("You are a careful agent. the"),)),
        _user("the"),
        _calls("call_a", "call_a_0_1"),
        _results({"call_a": "the", "call_a_0_1": "the the the the the"}),
        _calls("call_a_2_0", "call_a_2_1"),
        _results({"call_a_2_0": "the", "call_a_2_1": "the"}),
        _said("Understood."),
        _user("the"),
        _said("Understood."),
        _user("/src/app.py"),
        _calls("call_a_4_0", "call_a_4_1", "call_a_4_2"),
        _results(
            {
                "call_a_4_0": "the line\n" * 50,
                "call_a_4_1": "file line\n" * 50,
                "call_a_4_2": "the",
            },
            failed=True,
        ),
        _said("Understood."),
        _user("the the the the the"),
        _said("the"),
    ]
    budget = 271
    settings = Settings(budget, int(0.6 * budget), "anthropic", Policy(), COUNTER, "fixed", 0)
    flow = compact_flow(messages, settings, Marks(pinned=frozenset({1, 2})), Archive())
    out = run(flow, LedgerSummarizer())
    assert out.report.protected_tokens <= budget
    assert out.report.tokens_after == sum(COUNTER.count(m) for m in out.messages)
    assert out.report.tokens_after <= budget, out.report
    assert out.report.fits


def test_a_pin_in_the_middle_counts_a_bridge_on_each_side_in_the_floor() -> None:
    """Found by the I3 property: the floor counted one bridge; a pinned exchange between the
    system prompt and the latest user turn needs a user turn before its call and an
    assistant turn after its result, so the floor (82) said a budget of 92 fits, and the
    output came to 93."""
    messages = [
        Message("system", (Text("You are a careful agent. the the the the the"),)),
        *[_user("the") if k % 2 == 0 else _said("Understood.") for k in range(7)],
        Message("assistant", (Text("the"), ToolCall("c1", "str_replace_editor", "{}"))),
        _results({"c1": "the the the the the the the the the the the the path"}),
        _said("Understood."),
        _user("the"),
        _said("the"),
        Message("user", (Text("the the the the the the the the the the the the the"),)),
    ]
    pinned, hard = frozenset({9}), (0, 8, 9, 13)
    bridge = bridge_cost(COUNTER)
    floor = sum(COUNTER.count(messages[i]) for i in hard) + 2 * bridge
    for budget in range(floor - 12, floor + 12):
        settings = Settings(budget, int(0.6 * budget), "anthropic", Policy(), COUNTER, "fixed", 0)
        flow = compact_flow(messages, settings, Marks(pinned=pinned), Archive())
        out = run(flow, LedgerSummarizer())
        assert out.report.protected_tokens == floor
        assert out.report.tokens_after == sum(COUNTER.count(m) for m in out.messages)
        if budget >= floor:
            assert out.report.fits, (budget, out.report)
