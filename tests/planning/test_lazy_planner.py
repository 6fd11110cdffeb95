"""Measured on demand, the same plan: the planner against its reference with every cost known.

`reference_planner.py` is the planner as it was before it measured lazily (costs as a
list, every unit measured up front). Given any costs and any floors no larger than a
unit's cheapest cost, the lazy planner must choose exactly the same plan, and a plan that
folds deep into a long history must measure only the units near the cut.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from contextfold import chain, drop, evict_fraction, mask, prune, retain_last, summarize
from contextfold._planning._plan import (
    Action,
    KnownCosts,
    PlanBudget,
    Protection,
    UnitCost,
    UnitFlags,
)
from contextfold._planning._planner import plan
from contextfold._planning._scan import over, over_bounded
from contextfold._planning._work import Work
from contextfold._strategies._steps import Chain

from . import reference_planner
from .test_planner import budgets


class Recorded:
    """Costs measured on demand, with floors drawn at or below each unit's cheapest cost."""

    def __init__(self, costs: list[UnitCost], floors: list[int]) -> None:
        self.costs = costs
        self.floors = floors
        self.measured: list[int] = []

    def __len__(self) -> int:
        return len(self.costs)

    def flags(self, unit: int) -> UnitFlags:
        c = self.costs[unit]
        return UnitFlags(c.protection, c.droppable, c.foldable, c.states)

    def measure(self, unit: int) -> UnitCost:
        assert unit not in self.measured, f"unit {unit} measured twice"
        self.measured.append(unit)
        return self.costs[unit]

    def floor(self, unit: int, above: int) -> int:
        """The drawn floor, or the least value over `above` when it is over (as a floor
        that stops adding up there may answer)."""
        floor = self.floors[unit]
        return above + 1 if floor > above else floor


@st.composite
def unit_costs(draw: st.DrawFn) -> UnitCost:
    """Any costs: a pruned or masked unit may even cost more than the whole one."""
    tokens = draw(st.integers(0, 3000))
    protection = draw(st.sampled_from([Protection.NONE] * 6 + [Protection.TAIL, Protection.HARD]))
    trimmed = None  # the tail offers a trim, and so does the newest output (any other unit)
    if protection is not Protection.HARD:
        trimmed = draw(st.none() | st.integers(0, 3000))
    return UnitCost(
        tokens,
        pruned=draw(st.none() | st.integers(0, 3500)),
        masked=draw(st.none() | st.integers(0, 3500)),
        trimmed=trimmed,
        protection=protection,
        droppable=draw(st.booleans() if draw(st.booleans()) else st.just(False)),
        states=draw(st.booleans()),
    )


chains = st.sampled_from(
    [
        chain(prune(), mask(), summarize(), drop()),
        chain(prune(), summarize()),
        chain(mask(), summarize(eviction=evict_fraction(0.5)), drop()),
        chain(prune(), mask(), summarize(eviction=retain_last(3))),
        chain(summarize(), drop()),
        chain(prune(), drop(), summarize()),
        chain(mask(), drop()),
        chain(drop()),
    ]
)


def _cheapest(c: UnitCost) -> int:
    return min(x for x in (c.tokens, c.pruned, c.masked, c.trimmed) if x is not None)


@given(
    st.lists(unit_costs(), max_size=40),
    budgets(),
    chains,
    st.floats(0, 1),
    st.data(),
)
def test_the_lazy_plan_is_the_reference_plan(
    costs: list[UnitCost], budget: PlanBudget, steps: Chain, tail: float, data: st.DataObject
) -> None:
    floors = [data.draw(st.integers(0, _cheapest(c))) for c in costs]
    lazy = Recorded(costs, floors)
    assert plan(lazy, budget, steps, tail) == reference_planner.plan(costs, budget, steps, tail)
    assert plan(costs, budget, steps, tail) == reference_planner.plan(costs, budget, steps, tail)


def test_a_deep_fold_measures_only_the_units_near_the_cut() -> None:
    old = [UnitCost(900, pruned=400, masked=60) for _ in range(2_000)]
    tail = [UnitCost(900, pruned=400, masked=60, protection=Protection.TAIL)]
    costs = [UnitCost(500, protection=Protection.HARD), *old, *tail]
    budget = PlanBudget(available=30_000, limit=50_000, preamble_folded=2_000)
    lazy = Recorded(costs, [30] * len(costs))
    steps = chain(prune(), mask(), summarize(), drop())
    result = plan(lazy, budget, steps)
    assert result == reference_planner.plan(costs, budget, steps)
    assert result.folds
    assert len(lazy.measured) < 600  # of 2,002: the kept units and the cut, not the history
    # asking whether the fold undoes the prune and mask passes measures nothing the fold
    # does not: of the units it folds, only the cut (the floors answer past it)
    assert sum(result.actions[i] is Action.FOLD for i in lazy.measured) == 1


_FOLDING = [
    chain(prune(), mask(), summarize(), drop()),
    chain(prune(), summarize()),
    chain(mask(), summarize(eviction=evict_fraction(0.5)), drop()),
    chain(prune(), mask(), summarize(eviction=retain_last(3))),
    chain(summarize(), drop()),
]
"""Chains whose prune and mask passes a fold follows at once."""


@given(
    st.lists(unit_costs(), max_size=40),
    budgets(),
    st.one_of(chains, st.sampled_from(_FOLDING)),
    st.floats(0, 1),
    st.data(),
)
def test_a_plan_that_cannot_fit_is_the_reference_plan(
    costs: list[UnitCost], budget: PlanBudget, steps: Chain, tail: float, data: st.DataObject
) -> None:
    """The floor over the limit (with the smallest preamble): the planner skips what cannot
    change the plan (the relax passes, the tail's lighter forms, measuring what leaves), and
    with a chain that folds it measures only protected units and units whose floor is 0."""
    preambles = [budget.preamble_kept, budget.preamble_folded, budget.preamble_dropped]
    if budget.preamble_folded_small is not None:
        preambles.append(budget.preamble_folded_small)
    limit = budget.available if budget.limit is None else max(budget.limit, budget.available)
    over = data.draw(st.integers(1, 4000))
    hard = UnitCost(max(0, limit - min(preambles)) + over, protection=Protection.HARD)
    costs = [hard, *costs]
    floors = [data.draw(st.integers(0, _cheapest(c))) for c in costs]
    lazy = Recorded(costs, floors)
    result = plan(lazy, budget, steps, tail)
    assert result == reference_planner.plan(costs, budget, steps, tail)
    assert not result.fits
    if steps in _FOLDING:
        for i in lazy.measured:
            assert costs[i].protection is not Protection.NONE or floors[i] == 0


@given(
    st.lists(unit_costs(), min_size=1, max_size=30),
    budgets(),
    st.sampled_from([[Action.PRUNE], [Action.MASK], [Action.PRUNE, Action.MASK]]),
    st.data(),
)
def test_the_bounded_scan_gives_the_exact_answer(
    costs: list[UnitCost], budget: PlanBudget, actions: list[Action], data: st.DataObject
) -> None:
    """Floors past `exact` (never above a unit's cheapest) answer as the exact scan does,
    whatever the units' current actions (a removed unit costs nothing now)."""
    room, exact = data.draw(st.integers(-100, 20_000)), data.draw(st.integers(-100, 20_000))
    floors = [data.draw(st.integers(0, _cheapest(c))) for c in costs]
    now = [
        data.draw(st.sampled_from([a for a in _NOW if a in _ALWAYS or _has(c, a)])) for c in costs
    ]
    units = sorted(set(data.draw(st.lists(st.integers(0, len(costs) - 1)))))
    bounded, full = Work(Recorded(costs, floors), budget), Work(KnownCosts(costs), budget)
    bounded.actions, full.actions = list(now), list(now)
    expected = over(full, units, actions, room, now=True) is not None
    assert over_bounded(bounded, units, actions, room, exact=exact) == expected


_NOW = (Action.KEEP, Action.PRUNE, Action.MASK, Action.FOLD, Action.DROP)
_ALWAYS = (Action.KEEP, Action.FOLD, Action.DROP)


def _has(cost: UnitCost, action: Action) -> bool:
    return (cost.pruned if action is Action.PRUNE else cost.masked) is not None
