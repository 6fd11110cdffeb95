"""Invariants I1-I7 of the engine over generated agent conversations (neutral level)."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from contextfold import Archive, Card, Message, Policy, ToolCall, ToolResult
from contextfold._engine._drive import run
from contextfold._engine._flow import Marks, Outcome, Settings, compact_flow
from contextfold._engine._measure import Counts
from contextfold._engine._prepare import plan as plan_for
from contextfold._engine._prepare import prepare, prune_size
from contextfold._messages import MARKER_RE, message_text
from contextfold._planning._units import UnitKind, group_units
from contextfold._summarizers._ledger import LedgerSummarizer
from contextfold.testing import FixedCounter

from .checks import is_artifact, pairing_problems
from .conversations import conversation, shapes

COUNTER = FixedCounter()
POINTER = "[cf:rules] (see r0123456789)"


@dataclass(frozen=True)
class Case:
    shape: str
    messages: list[Message]
    budget: int
    pins: frozenset[int]


@st.composite
def cases(draw: st.DrawFn) -> Case:
    shape = draw(shapes)
    messages = draw(conversation(shape))
    total = sum(COUNTER.count(m) for m in messages)
    budget = draw(st.integers(max(8, total // 25), max(9, total * 2)))
    pins = draw(st.sets(st.integers(0, len(messages) - 1), max_size=2))
    return Case(shape, messages, budget, frozenset(pins))


def compact(
    case: Case,
    messages: list[Message] | None = None,
    archive: Archive | None = None,
    pins: frozenset[int] | None = None,
    target: int | None = None,
) -> Outcome:
    goal = int(0.6 * case.budget) if target is None else target
    settings = Settings(case.budget, goal, case.shape, Policy(), COUNTER, "fixed", 0)
    flow = compact_flow(
        messages if messages is not None else case.messages,
        settings,
        Marks(pinned=case.pins if pins is None else pins),
        archive if archive is not None else Archive(),
    )
    return run(flow, LedgerSummarizer())


def protected_indices(case: Case) -> set[int]:
    units = group_units(case.messages)
    users = [u for u in units if u.kind is UnitKind.USER]
    keep: set[int] = set()
    for unit in units:
        span = set(range(unit.start, unit.stop))
        if unit.kind is UnitKind.SYSTEM or span & case.pins or (users and unit == users[-1]):
            keep |= span
    return keep


@given(cases())
def test_i1_output_pairing_is_valid(case: Case) -> None:
    assert pairing_problems(case.messages, case.shape) == []  # the generator is sound
    out = compact(case)
    assert pairing_problems(out.messages, case.shape) == []


@given(cases())
def test_i2_order_and_identity(case: Case) -> None:
    out = compact(case)
    origins = [o for o in out.origins if o is not None]
    assert origins == sorted(set(origins)), "survivors reordered or duplicated"
    for message, origin in zip(out.messages, out.origins, strict=True):
        if origin is None:
            assert is_artifact(message) or _is_repair(message), message
            continue
        source = case.messages[origin]
        assert message.role == source.role
        kept_calls = [p for p in message.parts if isinstance(p, ToolCall)]
        assert kept_calls == [p for p in source.parts if isinstance(p, ToolCall)]
        kept_ids = [p.call_id for p in message.parts if isinstance(p, ToolResult)]
        assert kept_ids == [p.call_id for p in source.parts if isinstance(p, ToolResult)]


def _is_repair(message: Message) -> bool:
    return all(isinstance(p, ToolResult) and p.is_error for p in message.parts)


@given(cases())
def test_i3_fits_whenever_the_floor_fits(case: Case) -> None:
    """The floor (system prompt, pins, the latest user turn) is all that may not yield."""
    out = compact(case)
    protected = sum(COUNTER.count(case.messages[i]) for i in protected_indices(case))
    assert out.report.protected_tokens >= protected
    if out.report.protected_tokens <= case.budget:
        assert out.report.fits, out.report
    assert out.report.fits == (out.report.tokens_after <= case.budget)
    assert out.report.tokens_after == sum(COUNTER.count(m) for m in out.messages)


@given(cases())
def test_i4_protected_messages_stay_verbatim(case: Case) -> None:
    out = compact(case)
    survivors = dict(zip(out.origins, out.messages, strict=True))
    for index in protected_indices(case):
        assert survivors.get(index) == case.messages[index]


@given(cases())
def test_i5_every_reference_recalls_its_original(case: Case) -> None:
    archive = Archive()
    out = compact(case, archive=archive)
    for message in out.messages:
        for ref in MARKER_RE.findall(message_text(message)):
            assert ref in archive
    for ref in out.report.refs:
        assert ref in archive
    gone = set(range(len(case.messages))) - {o for o in out.origins if o is not None}
    archived = [archive.get(r) for r in out.report.refs]
    for index in gone:
        assert case.messages[index] in archived or not case.messages[index].parts


@given(cases())
def test_i6_determinism(case: Case) -> None:
    assert compact(case) == compact(case)


@given(cases())
def test_i7_compacting_the_output_again_changes_nothing(case: Case) -> None:
    out = compact(case)
    pins = frozenset(i for i, o in enumerate(out.origins) if o is not None and o in case.pins)
    # as compact() does: an input within the budget is compacted toward the budget itself
    again = compact(case, list(out.messages), pins=pins, target=case.budget)
    if out.report.fits:
        assert again.messages == out.messages
        assert not again.report.compacted


@given(cases())
def test_planner_estimates_bound_the_real_cost(case: Case) -> None:
    settings = Settings(
        case.budget, int(0.6 * case.budget), case.shape, Policy(), COUNTER, "fixed", 0
    )
    prep = prepare(case.messages, settings, Archive())
    counts = Counts(COUNTER, case.messages)
    plan, _ = plan_for(prep, settings, Marks(pinned=case.pins), prune_size(settings, prep), counts)
    out = compact(case)
    if out.report.compacted:
        # the card and summary fill the room the plan leaves, up to its goal; the card
        # alone may go on to the card ceiling (here the budget) rather than leave
        # statements out, and the summary never grows past the goal for it
        goal = settings.target if plan.on_target else settings.budget
        ceiling = max(goal, int(settings.card_ceiling * settings.budget))
        # an output over its budget anyway still carries a bare card header, the pointer
        # that keeps what it folded reachable (test_reachability)
        pointer = 0 if out.report.fits else COUNTER.count(Message("user", (Card(POINTER),)))
        assert out.report.tokens_after <= max(plan.ceiling, ceiling) + pointer
