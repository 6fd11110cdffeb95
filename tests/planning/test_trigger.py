"""The agent loop's trigger: water marks, hysteresis, and the hard ceiling."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from contextfold._planning._trigger import Marks, Trigger, TriggerState, after, decide

MARKS = Marks(high=900, low=600, budget=1000, prune_at=700, slack=50)


def test_full_past_the_high_mark() -> None:
    assert decide(901, MARKS, TriggerState()) is Trigger.FULL


def test_stuck_waits_for_slack_below_the_budget() -> None:
    stuck = after(Trigger.FULL, 920, MARKS, TriggerState())
    assert stuck.stuck_at == 920
    assert decide(950, MARKS, stuck) is Trigger.NONE
    assert decide(971, MARKS, stuck) is Trigger.FULL


def test_stuck_never_waits_past_the_budget() -> None:
    stuck = after(Trigger.FULL, 990, MARKS, TriggerState())
    assert decide(1001, MARKS, stuck) is Trigger.FULL


def test_prune_tier_fires_once() -> None:
    assert decide(750, MARKS, TriggerState()) is Trigger.PRUNE
    quiet = after(Trigger.PRUNE, 740, MARKS, TriggerState())
    assert decide(760, MARKS, quiet) is Trigger.NONE


@given(
    totals=st.lists(st.integers(0, 3000), min_size=1, max_size=60),
    afters=st.lists(st.integers(0, 3000), min_size=1, max_size=60),
)
def test_a_view_over_the_budget_always_compacts(totals: list[int], afters: list[int]) -> None:
    """Whatever the trigger remembers, a view past the budget gets a full compaction."""
    state = TriggerState()
    for i, total in enumerate(totals):
        trigger = decide(total, MARKS, state)
        if total > MARKS.budget:
            assert trigger is Trigger.FULL
        state = after(trigger, afters[i % len(afters)], MARKS, state)
