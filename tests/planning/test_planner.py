"""Properties of the pure planner: partition, protection, budget, no needless compaction."""

from __future__ import annotations

from hypothesis import assume, example, given
from hypothesis import strategies as st

from contextfold import chain, drop, evict_fraction, mask, prune, summarize
from contextfold._planning._plan import Action, Plan, PlanBudget, Protection, UnitCost
from contextfold._planning._planner import plan
from contextfold._strategies._steps import Chain

DEFAULT = chain(prune(), mask(), summarize(), drop())


@st.composite
def unit_costs(draw: st.DrawFn) -> UnitCost:
    tokens = draw(st.integers(1, 3000))
    pruned = draw(st.none() | st.integers(1, tokens))
    masked = draw(st.none() | st.integers(1, pruned if pruned is not None else tokens))
    protection = draw(st.sampled_from([Protection.NONE] * 6 + [Protection.TAIL, Protection.HARD]))
    trimmed = None
    if protection is Protection.TAIL and pruned is not None:
        trimmed = draw(st.integers(1, pruned))
    elif protection is Protection.NONE and pruned is not None:  # the newest output offers one
        trimmed = draw(st.none() | st.integers(1, pruned))
    return UnitCost(
        tokens,
        pruned=pruned,
        masked=masked,
        trimmed=trimmed,
        protection=protection,
        droppable=draw(st.booleans()),
    )


@st.composite
def budgets(draw: st.DrawFn) -> PlanBudget:
    available = draw(st.integers(0, 20000))
    limit = available + draw(st.integers(0, 10000))
    kept = draw(st.integers(0, 500))
    dropped = draw(st.integers(0, 500))
    folded = dropped + draw(st.integers(0, 2000))
    bridge = draw(st.sampled_from([0, 0, 18]))
    small = draw(st.none() | st.integers(dropped, folded))
    return PlanBudget(available, limit, kept, folded, dropped, bridge, small)


chains = st.sampled_from(
    [
        DEFAULT,
        chain(mask(), drop()),
        chain(drop()),
        chain(prune(), summarize()),
        chain(summarize(), drop()),
        chain(mask()),
    ]
)
cases = st.tuples(st.lists(unit_costs(), max_size=40), budgets(), chains)


def cost(c: UnitCost, action: Action) -> int:
    table = {
        Action.KEEP: c.tokens,
        Action.PRUNE: c.pruned,
        Action.MASK: c.masked,
        Action.TRIM: c.trimmed,
        Action.FOLD: 0,
        Action.DROP: 0,
    }
    value = table[action]
    assert value is not None, f"{action} chosen where it does not apply"
    return value


def estimate(
    costs: list[UnitCost], actions: tuple[Action, ...], budget: PlanBudget, small: bool = False
) -> int:
    body = sum(cost(c, a) for c, a in zip(costs, actions, strict=True))
    gone = [a in (Action.FOLD, Action.DROP) for a in actions]
    runs = sum(1 for i, g in enumerate(gone) if g and (i == 0 or not gone[i - 1]))
    body += runs * budget.bridge
    if Action.FOLD in actions:
        if small:
            assert budget.preamble_folded_small is not None
            return body + budget.preamble_folded_small
        return body + budget.preamble_folded
    if Action.DROP in actions:
        return body + budget.preamble_dropped
    return body + budget.preamble_kept


def run(case: tuple[list[UnitCost], PlanBudget, Chain]) -> Plan:
    costs, budget, steps = case
    return plan(costs, budget, steps)


@given(cases)
def test_spans_partition_the_units(case: tuple[list[UnitCost], PlanBudget, Chain]) -> None:
    result = run(case)
    spans = result.spans()
    assert [s.start for s in spans] == [0, *[s.stop for s in spans]][: len(spans)]
    assert (spans[-1].stop if spans else 0) == len(case[0])
    rebuilt = [s.action for s in spans for _ in range(s.start, s.stop)]
    assert tuple(rebuilt) == result.actions
    assert all(spans[i].action is not spans[i + 1].action for i in range(len(spans) - 1))


@given(cases)
def test_expected_tokens_are_exact_and_fits_is_honest(
    case: tuple[list[UnitCost], PlanBudget, Chain],
) -> None:
    costs, budget, _ = case
    result = run(case)
    assert result.expected == estimate(costs, result.actions, budget, result.small_summary)
    assert result.fits == (result.expected <= (budget.limit or budget.available))
    assert result.on_target == (result.expected <= budget.available)


@given(cases)
def test_only_allowed_actions_and_hard_protection(
    case: tuple[list[UnitCost], PlanBudget, Chain],
) -> None:
    costs, _, steps = case
    result = run(case)
    kinds = {s.kind for s in steps.steps}
    for c, action in zip(costs, result.actions, strict=True):
        if c.protection is Protection.HARD:
            assert action is Action.KEEP
        if c.protection is Protection.TAIL:
            assert action is not Action.PRUNE, "the tail trims to the room, never to a fixed size"
        elif c.trimmed is None:
            assert action is not Action.TRIM, "only the tail and the newest output trim"
        if action is Action.FOLD:
            assert "summarize" in kinds
        if action is Action.DROP:
            assert "drop" in kinds or c.droppable
        if action is Action.MASK:
            assert "mask" in kinds


@given(cases)
def test_fits_whenever_the_protected_set_fits(
    case: tuple[list[UnitCost], PlanBudget, Chain],
) -> None:
    costs, budget, steps = case
    assume(steps.get("drop") is not None)
    floor = sum(c.tokens for c in costs if c.protection is Protection.HARD)
    free = [c.protection is not Protection.HARD for c in costs]
    runs = sum(1 for i, f in enumerate(free) if f and (i == 0 or not free[i - 1]))
    floor += runs * budget.bridge  # dropping every free run may need a bridge each
    assume(floor + max(budget.preamble_dropped, budget.preamble_kept) <= (budget.limit or 0))
    assert run(case).fits


@given(cases)
def test_allowances_fill_the_room_newest_first(
    case: tuple[list[UnitCost], PlanBudget, Chain],
) -> None:
    costs, budget, _ = case
    result = run(case)
    trims = [i for i, a in enumerate(result.actions) if a is Action.TRIM]
    if not trims:
        assert result.allowances == ()
        return
    limit = budget.limit if budget.limit is not None else budget.available
    extra = 0
    for i in trims:
        allowance = result.allowance(i)
        trimmed = costs[i].trimmed
        assert allowance is not None
        assert trimmed is not None
        assert trimmed <= allowance <= max(trimmed, costs[i].tokens)
        extra += allowance - trimmed
    assert result.expected + extra <= max(limit, result.expected)
    assert result.ceiling == result.expected + extra
    newest = trims[-1]
    if (result.allowance(newest) or 0) < costs[newest].tokens:
        if costs[newest].protection is Protection.TAIL:
            assert result.expected + extra >= limit  # only the budget's room stopped it
        else:  # the newest output outside the tail: the target's room, or the budget's
            assert result.expected + extra >= min(limit, budget.available)


_T = Protection.TAIL


@given(cases)
@example(  # a unit folded for nothing: keeping it frees the folded preamble (a trim in the tail)
    case=(
        [
            UnitCost(1, droppable=True),
            UnitCost(1, protection=_T),
            UnitCost(199, protection=_T),
            UnitCost(203, protection=_T),
            UnitCost(1, masked=1, droppable=True),
            UnitCost(405, pruned=1, trimmed=1, protection=_T),
            UnitCost(1),
        ],
        PlanBudget(available=808, limit=808, preamble_folded=404),
        DEFAULT,
    )
)
@example(  # the same, the fold freed only once the relax repeats past an older trim
    case=(
        [
            UnitCost(2, pruned=1, trimmed=1),
            UnitCost(1),
            UnitCost(1),
            UnitCost(49),
            UnitCost(63, pruned=1, trimmed=1, protection=_T, droppable=True),
        ],
        PlanBudget(available=114, limit=114, preamble_folded=110),
        DEFAULT,
    )
)
def test_no_needless_compaction(case: tuple[list[UnitCost], PlanBudget, Chain]) -> None:
    costs, budget, _ = case
    result = run(case)
    assume(result.on_target)
    changed = [
        i for i, a in enumerate(result.actions) if a is not Action.KEEP and not costs[i].droppable
    ]
    assume(changed)
    newest = changed[-1]
    restored = list(result.actions)
    restored[newest] = Action.KEEP
    # the room a trimmed newest output is given beyond its smallest trim is not free
    extra = sum(
        a - (costs[i].trimmed or 0)
        for i, a in enumerate(result.allowances)
        if a is not None and i != newest
    )
    assert estimate(costs, tuple(restored), budget) + extra > budget.available


@given(cases)
def test_recent_tail_fits_its_share(case: tuple[list[UnitCost], PlanBudget, Chain]) -> None:
    costs, budget, steps = case
    result = plan(costs, budget, steps, tail_share=0.5)
    tail = [c.tokens for c in costs[result.tail_start :] if c.protection is Protection.NONE]
    assert sum(tail) <= max(0, int(0.5 * budget.available))


@given(cases)
def test_planning_is_deterministic(case: tuple[list[UnitCost], PlanBudget, Chain]) -> None:
    assert run(case) == run(case)


def test_input_that_fits_is_kept_whole() -> None:
    costs = [UnitCost(100), UnitCost(200)]
    result = plan(costs, PlanBudget(300), DEFAULT)
    assert result.actions == (Action.KEEP, Action.KEEP)
    assert result.reason == "fits without compaction"


def test_cheapest_step_first() -> None:
    costs = [UnitCost(1000, pruned=400, masked=50), UnitCost(1000, pruned=400, masked=50)]
    # Pruning the oldest is enough: nothing is masked or folded.
    result = plan(costs, PlanBudget(1500, preamble_folded=100), DEFAULT)
    assert result.actions == (Action.PRUNE, Action.KEEP)


def test_fold_takes_the_oldest_span_and_keeps_pinned_units() -> None:
    costs = [
        UnitCost(500),
        UnitCost(500, protection=Protection.HARD),
        UnitCost(500),
        UnitCost(500),
        UnitCost(100, protection=Protection.TAIL),
    ]
    result = plan(costs, PlanBudget(1300, preamble_folded=200), DEFAULT)
    assert result.actions == (Action.FOLD, Action.KEEP, Action.FOLD, Action.KEEP, Action.KEEP)


def test_eviction_policy_asks_for_bigger_steps() -> None:
    costs = [UnitCost(100) for _ in range(10)]
    steps = chain(summarize(eviction=evict_fraction(0.8)))
    result = plan(costs, PlanBudget(900, preamble_folded=50), steps, tail_share=0.0)
    assert result.actions.count(Action.FOLD) == 8


def test_droppable_units_go_first() -> None:
    costs = [UnitCost(300), UnitCost(300, droppable=True), UnitCost(300)]
    result = plan(costs, PlanBudget(600), DEFAULT)
    assert result.actions == (Action.KEEP, Action.DROP, Action.KEEP)


def test_eviction_policies_compose() -> None:
    from contextfold import max_of, min_of, retain_last

    assert retain_last(3).count(10) == 7
    assert retain_last(30).count(10) == 0
    assert evict_fraction(0.25).count(10) == 3
    assert min_of(retain_last(3), evict_fraction(0.25)).count(10) == 3
    assert max_of(retain_last(3), evict_fraction(0.25)).count(10) == 7
    assert repr(max_of(retain_last(3), evict_fraction(0.25))) == (
        "max_of(retain_last(3), evict_fraction(0.25))"
    )
    costs = [UnitCost(100) for _ in range(10)]
    steps = chain(summarize(eviction=retain_last(2)))
    result = plan(costs, PlanBudget(900, preamble_folded=50), steps, tail_share=0.0)
    assert result.actions.count(Action.FOLD) == 8


def test_the_tail_yields_to_fit_the_floor() -> None:
    costs = [
        UnitCost(300),
        UnitCost(100, protection=Protection.HARD),
        UnitCost(5000, pruned=900, masked=40, trimmed=120, protection=Protection.TAIL),
    ]
    result = plan(costs, PlanBudget(1000, limit=2000, preamble_folded=50), DEFAULT)
    assert result.actions == (Action.FOLD, Action.KEEP, Action.TRIM)
    assert result.fits
    # The newest output gets everything the floor and the preamble leave under the limit.
    assert result.allowance(2) == 2000 - 100 - 50


def test_a_tail_that_cannot_trim_enough_is_masked_then_folded() -> None:
    costs = [
        UnitCost(100, protection=Protection.HARD),
        UnitCost(5000, pruned=900, masked=40, trimmed=300, protection=Protection.TAIL),
    ]
    result = plan(costs, PlanBudget(200, preamble_folded=50), DEFAULT)
    assert result.actions == (Action.KEEP, Action.MASK)
    result = plan(costs, PlanBudget(120, preamble_folded=10), DEFAULT)
    assert result.actions == (Action.KEEP, Action.FOLD)
    assert result.fits


def test_a_small_summary_before_dropping_the_span() -> None:
    costs = [UnitCost(500), UnitCost(500), UnitCost(100, protection=Protection.TAIL)]
    # The full summary reserve (400) does not fit beside the tail; a small one (100) does.
    budget = PlanBudget(250, preamble_folded=400, preamble_folded_small=100)
    result = plan(costs, budget, DEFAULT)
    assert result.actions == (Action.FOLD, Action.FOLD, Action.KEEP)
    assert result.small_summary
    assert result.fits
    assert result.expected == 200
    # Without the small reserve the span is dropped, as before.
    result = plan(costs, PlanBudget(250, preamble_folded=400), DEFAULT)
    assert result.actions == (Action.DROP, Action.DROP, Action.KEEP)
    assert not result.small_summary


def test_the_newest_output_takes_the_room_before_older_units() -> None:
    """An unprotected unit that offers a trim (the newest output, a user turn after it) is
    cut to the room left under the budget, not to the prune size, and older units are not
    relaxed at its expense."""
    older = UnitCost(900, pruned=300, masked=40)
    newest = UnitCost(50_000, pruned=2_000, masked=40, trimmed=200)
    user = UnitCost(30, protection=Protection.HARD)
    budget = PlanBudget(available=6_000, limit=10_000, preamble_folded=500)
    result = plan([older, newest, user], budget, DEFAULT)
    assert result.actions[1] is Action.TRIM
    assert result.actions[0] is not Action.KEEP
    allowance = result.allowance(1)
    assert allowance is not None
    assert allowance > (newest.pruned or 0)  # more than the prune size
    assert result.ceiling <= (budget.limit or budget.available)
    offered = plan([older, newest_without_trim(newest), user], budget, DEFAULT)
    assert offered.actions[1] is Action.PRUNE  # no trim offered: the fixed prune size


def newest_without_trim(c: UnitCost) -> UnitCost:
    return UnitCost(c.tokens, pruned=c.pruned, masked=c.masked)
