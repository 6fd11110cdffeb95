"""When an agent loop compacts: high/low water marks with hysteresis (pure).

Rules:
1. Full compaction when the view passes the high-water mark, down to the low-water mark.
2. If a compaction could not get below the high-water mark (the protected set is too big),
   the next one waits until the view has grown by `slack` of the budget, so a loop that
   cannot shrink does not recompact on every turn; but that wait is capped at the budget:
   a view over the budget always compacts (the hard ceiling).
3. The prune tier fires once when the view crosses `prune_at` from below: it prunes
   oversized old tool results and then stays quiet until the view drops under the mark
   again (after a full compaction), so the prefix is not rewritten turn after turn.
4. An agent loop's low-water mark adapts to its typical turn (Policy rule 6): it leaves
   room for the next AHEAD turns under the high-water mark, never below MIN_LOW of the
   budget nor below what the newest turn needs (NEWEST times it); it stays as it is when
   not even one more turn would fit.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

_AHEAD = 3
"""Turns a forced compaction leaves room for under the high-water mark (Policy rule 6)."""
_MIN_LOW = 0.25
_NEWEST = 1.2
"""A compaction keeps the newest turn: the adapted mark leaves it this much room."""


class Trigger(Enum):
    """What the loop should do now."""

    NONE = "none"
    PRUNE = "prune"
    FULL = "full"


@dataclass(frozen=True, slots=True)
class Marks:
    """Water marks in tokens."""

    high: int
    low: int
    budget: int
    """The ceiling: a view over it always compacts."""
    prune_at: int | None
    """None when the steps have no prune step."""
    slack: int


@dataclass(frozen=True, slots=True)
class TriggerState:
    """What the trigger remembers between turns."""

    stuck_at: int | None = None
    """Tokens after the last full compaction when it stayed above the high mark."""
    prune_armed: bool = True


def decide(total: int, marks: Marks, state: TriggerState) -> Trigger:
    """The action for a view of `total` tokens (rules 1-3)."""
    if total > marks.budget:
        return Trigger.FULL
    if total > marks.high and (state.stuck_at is None or total > state.stuck_at + marks.slack):
        return Trigger.FULL
    if marks.prune_at is not None and total > marks.prune_at and state.prune_armed:
        return Trigger.PRUNE
    return Trigger.NONE


def after(trigger: Trigger, total_after: int, marks: Marks, state: TriggerState) -> TriggerState:
    """The state once `trigger` ran and left the view at `total_after` tokens."""
    match trigger:
        case Trigger.FULL:
            stuck = total_after if total_after > marks.high else None
            armed = marks.prune_at is None or total_after <= marks.prune_at
            return TriggerState(stuck, armed)
        case Trigger.PRUNE:
            return TriggerState(state.stuck_at, prune_armed=False)
        case Trigger.NONE:
            rearm = marks.prune_at is not None and total_after <= marks.prune_at
            return TriggerState(state.stuck_at, state.prune_armed or rearm)


def adapted_low(low: int, high: int, budget: int, turn: int) -> int:
    """The low-water mark that leaves room for the next few turns of size `turn` under
    `high` (Policy rule 6): at most `low`, never below MIN_LOW of the budget nor below what
    the newest turn itself needs; `low` unchanged when not even one more turn would fit."""
    floor = max(int(_MIN_LOW * budget), int(_NEWEST * turn))
    ahead = min(_AHEAD, (high - floor) // turn) if turn > 0 else 0
    return low if ahead < 1 else min(low, high - ahead * turn)
