"""UnitCosts: the planner's view of each unit, measured on demand.

A floor adds up message by message only until it is over what the planner asks about, so
whatever is asked, in whatever order, it says "over" exactly when the whole floor is, and
the whole floor stays a lower bound of every form the unit can take but fold and drop,
whether it counts what every form keeps exactly (rule 5) or only bounds it cheaply.
"""

from __future__ import annotations

import zlib

from hypothesis import given
from hypothesis import strategies as st

import contextfold as cf
from contextfold import Message, Text
from contextfold._engine._cards import _user_text, states_anything
from contextfold._engine._costs import UnitCosts, protections, resolve_prune
from contextfold._engine._measure import Counts
from contextfold._messages import Card, Part
from contextfold._planning._plan import PlanBudget, UnitCost
from contextfold._planning._planner import plan
from contextfold._planning._units import group_units
from contextfold._statements._statement import text_states_anything
from contextfold._strategies._steps import DEFAULT_CHAIN, Prune
from contextfold._tokens._protocol import TokenCounter

from ..planning import reference_planner
from .conversations import conversation, shapes

_ALL = 1 << 60


class Scrambled:
    """A counter that offers no floor and counts a message as anything (a hash of it): a
    part more may cost less, so nothing but a message itself tells what it costs."""

    def count(self, message: Message) -> int:
        return zlib.crc32(repr(message).encode()) % 97


def _costs(
    messages: list[Message], shape: str, exact: bool = False, counter: TokenCounter | None = None
) -> UnitCosts:
    """Costs with the packaged heuristic counter (or `counter`); `exact`: floors by rule 5
    (what every form keeps counted exactly), else by rule 4 (cheap floors only), or by
    rule 6 with a counter that offers no floor."""
    counter = cf.HeuristicCounter(format=shape) if counter is None else counter
    units = group_units(messages)
    n = len(messages)
    return UnitCosts(
        units,
        messages=messages,
        counts=Counts(counter, messages).view(messages, range(n)),
        protection=protections(units, messages, [False] * n, 2, True),
        droppable=[False] * n,
        steps=DEFAULT_CHAIN,
        prune_size=resolve_prune(Prune(), 1000),
        parts_add_up=exact,
    )


cases = shapes.flatmap(lambda shape: st.tuples(st.just(shape), conversation(shape)))


@given(cases, st.lists(st.integers(-1, 300), max_size=6), st.booleans())
def test_a_floor_is_over_what_is_asked_exactly_when_the_whole_floor_is(
    case: tuple[str, list[Message]], asks: list[int], exact: bool
) -> None:
    shape, messages = case
    whole = _costs(messages, shape, exact)
    floors = [whole.floor(u, _ALL) for u in range(len(whole))]
    drawn, rising, falling = (_costs(messages, shape, exact) for _ in range(3))
    for unit, floor in enumerate(floors):
        every = range(-1, floor + 1)  # each partial sum is asked about, whatever the order
        for lazy, order in ((drawn, asks), (rising, every), (falling, reversed(every))):
            for above in order:
                got = lazy.floor(unit, above)
                assert (got > above) == (floor > above)
                assert got <= floor
            assert lazy.floor(unit, _ALL) == floor


@given(cases, st.booleans())
def test_the_whole_floor_bounds_every_form_but_fold_and_drop(
    case: tuple[str, list[Message]], exact: bool
) -> None:
    shape, messages = case
    costs = _costs(messages, shape, exact)
    for unit in range(len(costs)):
        cost = costs.measure(unit)
        forms = (cost.tokens, cost.pruned, cost.masked, cost.trimmed)
        assert costs.floor(unit, _ALL) <= min(x for x in forms if x is not None)


@given(cases, st.lists(st.integers(-1, 300), max_size=6))
def test_without_a_counter_floor_a_floor_counts_only_what_every_form_keeps_as_it_is(
    case: tuple[str, list[Message]], asks: list[int]
) -> None:
    """Rule 6: with a counter that offers no floor and counts parts any way at all, the
    floor (over what is asked exactly when the whole floor is) bounds every form but fold
    and drop, and is over 0 for a unit with a message every form keeps."""
    shape, messages = case
    whole = _costs(messages, shape, counter=Scrambled())
    lazy = _costs(messages, shape, counter=Scrambled())
    for unit in range(len(whole)):
        floor = whole.floor(unit, _ALL)
        for above in asks:
            got = lazy.floor(unit, above)
            assert (got > above) == (floor > above)
            assert got <= floor
        cost = whole.measure(unit)
        forms = (cost.tokens, cost.pruned, cost.masked, cost.trimmed)
        assert floor <= min(x for x in forms if x is not None)


def test_without_a_counter_floor_a_message_every_form_keeps_counts_in_full() -> None:
    """Rule 6: a user turn is kept as it is by every form, so its floor is its count."""
    messages = [Message("user", (Text("Never deploy on Fridays."),))]
    costs = _costs(messages, "openai-chat", counter=Scrambled())
    assert costs.floor(0, _ALL) == Scrambled().count(messages[0]) == costs.measure(0).tokens


@given(cases)
def test_a_floor_that_counts_what_every_form_keeps_is_no_lower(
    case: tuple[str, list[Message]],
) -> None:
    """Rule 5 only tightens rule 4's floor: each message's share is at least as high."""
    shape, messages = case
    cheap, exact = _costs(messages, shape), _costs(messages, shape, True)
    for unit in range(len(cheap)):
        assert exact.floor(unit, _ALL) >= cheap.floor(unit, _ALL)


_PARTS = st.lists(
    st.sampled_from(
        [Text("Never deploy on Fridays."), Text("My user id is mia_li_3668."), Card("x"), Text("")]
    ),
    max_size=3,
)


@given(_PARTS)
def test_a_user_message_states_what_its_text_parts_joined_state(parts: list[Part]) -> None:
    message = Message("user", tuple(parts))
    joined = "\n".join(p.text for p in parts if isinstance(p, Text))
    assert _user_text(message) == joined
    assert states_anything(message) == (bool(joined) and text_states_anything(joined))


def _known(costs: UnitCosts) -> list[UnitCost]:
    """Every cost of every unit, measured up front (the reference planner's input)."""
    out = []
    for unit in range(len(costs)):
        c, f = costs.measure(unit), costs.flags(unit)
        out.append(
            UnitCost(
                c.tokens,
                c.pruned,
                c.masked,
                c.trimmed,
                f.protection,
                f.droppable,
                f.foldable,
                f.states,
            )
        )
    return out


@given(cases, st.sampled_from(["cheap", "exact", "scrambled"]), st.data())
def test_the_plan_over_unit_costs_is_the_plan_with_every_cost_known(
    case: tuple[str, list[Message]], floors: str, data: st.DataObject
) -> None:
    """Whatever the floors (rules 4-6), planning over `UnitCosts` chooses the plan the
    reference planner makes with every cost measured up front."""
    shape, messages = case
    counter = Scrambled() if floors == "scrambled" else None

    def fresh() -> UnitCosts:
        return _costs(messages, shape, floors == "exact", counter)

    total = sum(c.tokens for c in _known(fresh()))
    available = int(total * data.draw(st.floats(0, 1.2)))
    dropped = data.draw(st.integers(0, 60))
    budget = PlanBudget(
        available,
        available + data.draw(st.integers(0, 200)),
        preamble_kept=data.draw(st.integers(0, 60)),
        preamble_folded=dropped + data.draw(st.integers(0, 120)),
        preamble_dropped=dropped,
    )
    expected = reference_planner.plan(_known(fresh()), budget, DEFAULT_CHAIN)
    assert plan(fresh(), budget, DEFAULT_CHAIN) == expected
