"""Newest-first scans of the planner's units at their cheapest, measuring only what the
answer needs.

Rules:
1. `over` finds, newest first, where a suffix of units at their cheapest (under the given
   lighter actions) first exceeds a room: only the units up to there are measured.
2. `over_bounded` answers only whether the whole list exceeds the room, as `over` does,
   measuring only as far as a given threshold (what a later exact scan measures anyway),
   then adding floors (never above a unit's cheapest; a removed unit costs 0): first asked
   only whether each is over 0, so they count little (with the packaged counters,
   nothing), then in full; exactly again only when the floors leave the answer open.
"""

from __future__ import annotations

from collections.abc import Sequence

from ._plan import Action
from ._work import GONE as _GONE
from ._work import Work

_KEEP = Action.KEEP


def cheapest(work: Work, i: int, actions: Sequence[Action], now: bool = False) -> int:
    """Unit i's tokens whole (or, with `now`, under its current action) or under the
    cheapest of `actions` that applies."""
    best = work.cost(i, work.actions[i] if now else _KEEP)
    assert best is not None  # a unit's action applies to it, and keeping always does
    for action in actions:
        cost = work.cost(i, action)
        if cost is not None and cost < best:
            best = cost
    return best


def outside(work: Work, units: list[int]) -> int:
    """Exact tokens of every unit outside `units`, under its action."""
    inside = set(units)
    total = 0
    for i, action in enumerate(work.actions):
        if i not in inside:
            cost = work.cost(i, action)
            assert cost is not None
            total += cost
    return total


def over(
    work: Work, units: list[int], actions: Sequence[Action], room: int, now: bool = False
) -> int | None:
    """Newest first, the first position in `units` whose suffix at its cheapest under
    `actions` is over `room` (None when the whole suffix fits): only these are measured."""
    total = 0
    for j in range(len(units) - 1, -1, -1):
        total += cheapest(work, units[j], actions, now)
        if total > room:
            return j
    return None


def over_bounded(
    work: Work, units: list[int], actions: Sequence[Action], room: int, *, exact: int
) -> bool:
    """Whether `units` at their cheapest under `actions` (or under their current action)
    total more than `room`: `over(..., now=True) is not None`, measuring newest first only
    while the suffix is within `exact` (what the fold's own scan measures anyway), then
    adding floors (never above the cheapest) until over: asked first only whether each is
    over 0 (a floor then counts little), then in full; exactly again only when the floors
    leave it open (rule 2)."""
    total, j = 0, len(units) - 1
    while j >= 0 and total <= exact:
        total += cheapest(work, units[j], actions, now=True)
        if total > room:
            return True
        j -= 1
    for cheap in (True, False):  # floors over 0 first (they count little), then in full
        bound = total
        for k in range(j, -1, -1):
            i = units[k]
            if work.actions[i] not in _GONE:  # a removed unit costs 0 now: no floor to add
                bound += work.costs.floor(i, 0 if cheap else room - bound)
            if bound > room:
                return True
    for k in range(j, -1, -1):
        total += cheapest(work, units[k], actions, now=True)
        if total > room:
            return True
    return False
