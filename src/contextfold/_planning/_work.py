"""The planner's working state: the action chosen for each unit so far and the running
token estimate, measuring units only when first needed.

Rules:
1. A unit kept whole and not measured yet is open: its tokens are not in `known` (at
   least 0), so `fits()` measures open units newest first (protected units first: every
   plan measures them) only until the measured ones alone are over the goal.
2. A unit folded or dropped while open leaves unmeasured: its tokens are never counted.
3. `runs` counts maximal runs of removed units (each may need a bridge); `remove` takes a
   batch in one pass and counts the runs once at the end.
4. `hopeless` marks a plan that cannot fit whatever is removed (the planner sets it):
   `fits()` is False at once.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import groupby

from ._plan import Action, Costs, Measured, PlanBudget, Protection

_KEEP, _PRUNE, _MASK, _FOLD, _DROP = (
    Action.KEEP,
    Action.PRUNE,
    Action.MASK,
    Action.FOLD,
    Action.DROP,
)
GONE = (_FOLD, _DROP)
"""The actions that remove a unit."""
_GONE = GONE
_NONE = Protection.NONE


class Work:
    """Actions chosen so far and the running token estimate (rule 1: units are measured
    when first needed; until then a unit kept whole counts as open, at least 0 tokens)."""

    def __init__(self, costs: Costs, budget: PlanBudget) -> None:
        n = len(costs)
        self.costs = costs
        self.flags = list(map(costs.flags, range(n)))
        self.budget = budget
        self.actions = [_KEEP] * n
        self._measured: list[Measured | None] = [None] * n
        self._open = [True] * n
        """Kept whole and not yet measured: its tokens are not in `known`."""
        self._n_open = n
        self._newest_open = n - 1
        self._protected = [i for i in range(n - 1, -1, -1) if self.flags[i].protection is not _NONE]
        """Protected units not measured yet, the oldest last: measured first (rule 1)."""
        self.known = 0
        """Exact tokens of every unit that is not open, under its action."""
        self.folded = 0
        self.dropped = 0
        self.runs = 0
        """Maximal runs of removed (folded or dropped) units."""
        self.small = False
        """Whether folds use the small summary reserve."""
        self.hopeless = False
        """The floor alone with the smallest overhead is over the limit: nothing ever fits."""
        self.goal = budget.available
        self.limit = (
            budget.available if budget.limit is None else max(budget.limit, budget.available)
        )

    def measure(self, i: int) -> Measured:
        measured = self._measured[i]
        if measured is None:
            measured = self._measured[i] = self.costs.measure(i)
            if self._open[i]:
                self._open[i] = False
                self._n_open -= 1
                self.known += measured.tokens
        return measured

    def unmeasured(self, i: int) -> bool:
        """Whether unit i is kept whole and not measured yet."""
        return self._open[i]

    def cost(self, i: int, action: Action) -> int | None:
        """Tokens of unit i under `action`, None when the action does not apply."""
        if action is _FOLD:
            return 0 if self.flags[i].foldable else None
        if action is _DROP:
            return 0 if self.flags[i].foldable else None
        c = self._measured[i]
        if c is None:
            c = self.measure(i)
        if action is _KEEP:
            return c.tokens
        if action is _PRUNE:
            return c.pruned
        return c.masked if action is _MASK else c.trimmed

    @property
    def body(self) -> int:
        """Exact tokens of the messages under the chosen actions (measures open units)."""
        while self._n_open:
            self.measure(self._next_open())
        return self.known

    def _next_open(self) -> int:
        """The oldest open protected unit (every plan measures them), else the newest."""
        protected = self._protected
        while protected:
            if self._open[protected[-1]]:
                return protected[-1]
            protected.pop()
        while not self._open[self._newest_open]:
            self._newest_open -= 1
        return self._newest_open

    def set(self, i: int, action: Action) -> None:
        old = self.actions[i]
        new_cost = self.cost(i, action)
        assert new_cost is not None
        if self._open[i] and action in _GONE:  # leaves unmeasured: its tokens never counted
            self._open[i] = False
            self._n_open -= 1
        else:
            old_cost = self.cost(i, old)
            assert old_cost is not None
            self.known += new_cost - old_cost
        if action is old:  # measured now, if it was not: nothing else changes
            return
        self.folded += (action is _FOLD) - (old is _FOLD)
        self.dropped += (action is _DROP) - (old is _DROP)
        gone = action in _GONE
        if gone != (old in _GONE):
            neighbours = self._gone_beside(i)
            self.runs += (1 - neighbours) if gone else (neighbours - 1)
        self.actions[i] = action

    def remove(self, units: Iterable[int], action: Action) -> None:
        """`set(i, action)` for each of `units`, `action` a removal (fold or drop; each unit
        must allow it): the same state, the runs counted once at the end."""
        actions, is_open = self.actions, self._open
        for i in units:
            old = actions[i]
            if old is action:
                continue
            if is_open[i]:  # leaves unmeasured: its tokens never counted
                is_open[i] = False
                self._n_open -= 1
            else:
                old_cost = self.cost(i, old)
                assert old_cost is not None
                self.known -= old_cost
            self.folded += (action is _FOLD) - (old is _FOLD)
            self.dropped += (action is _DROP) - (old is _DROP)
            actions[i] = action
        self.runs = sum(gone for gone, _ in groupby(actions, _GONE.__contains__))

    def try_set(self, i: int, action: Action) -> bool:
        """Give unit i `action` if the messages then fit; whether they do."""
        old = self.actions[i]
        self.set(i, action)
        if self.fits():
            return True
        self.set(i, old)
        return False

    def _gone_beside(self, i: int) -> int:
        """How many of unit i's two neighbours are removed."""
        actions = self.actions
        before = i > 0 and actions[i - 1] in _GONE
        return before + (i + 1 < len(actions) and actions[i + 1] in _GONE)

    def preamble(self, folded: int | None = None, dropped: int | None = None) -> int:
        """The preamble now, or with `folded` and `dropped` units instead."""
        folded = self.folded if folded is None else folded
        dropped = self.dropped if dropped is None else dropped
        if folded:
            small = self.budget.preamble_folded_small
            return small if self.small and small is not None else self.budget.preamble_folded
        if dropped:
            return self.budget.preamble_dropped
        return self.budget.preamble_kept

    def overhead(self) -> int:
        """Tokens beside the messages: the preamble and a bridge per removed run."""
        return self.preamble() + self.runs * self.budget.bridge

    def estimate(self) -> int:
        return self.body + self.overhead()

    def fits(self) -> bool:
        """Whether the estimate is within the goal, measuring the protected units first,
        then newest first, only until the measured units alone are over it (rule 1)."""
        if self.hopeless:
            return False
        extra = self.overhead()
        while self.known + extra <= self.goal:
            if not self._n_open:
                return True
            self.measure(self._next_open())
        return False

    def overhead_if_kept(self, i: int) -> int:
        """The overhead if removed unit `i` came back: its run shrinks, vanishes or splits."""
        action = self.actions[i]
        folded = self.folded - (action is _FOLD)
        dropped = self.dropped - (action is _DROP)
        runs = self.runs - 1 + self._gone_beside(i)
        return self.preamble(folded, dropped) + runs * self.budget.bridge
