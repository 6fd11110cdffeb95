"""The flow's input prepared and planned: artifacts lifted, input repaired and grouped,
the plan made with room held for the preamble.

Rules:
1. Preparing lifts the preamble's artifacts and bridges off, then repairs the body if the
   policy asks; grouping runs once unless repair changed something (repair passes the
   system prefix through as its own unit, so its units are the body's).
2. The plan's budget holds room for the preamble: the card up to `CARD_SHARE` of the room
   (at least its rules, at most all of it), the summary message with its reserve and,
   where turns must alternate, a bridge; a preamble kept as it is holds room for every
   bridge the output then needs (after it, and where earlier compactions left them), and
   a folded or dropped one also for the bridges the body itself needs (between pinned
   user turns an earlier compaction left, which the plan's bridge per removed run does
   not count).
3. What the plan may not remove costs the overhead, the hard-protected units (with an
   Anthropic prefill, `_shape` rule 6), the unit
   opening a thinking turn in progress at its smallest (`_shape` rule 5) and, where turns
   must alternate, the bridges those units need between them with everything else gone
   (none when they alternate already: a card or pointer that needs one gives way first).
4. `fits_whole` is the planner's first test (the body and the preamble's artifacts within
   `target - overhead`), counted only until the answer is known (`_flow` rule 8).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from .._messages import Message, Summary, ToolCall
from .._planning._plan import Plan, PlanBudget, Protection
from .._planning._planner import plan as make_plan
from .._planning._units import Unit, UnitKind, group_units
from .._recall_tool import RECALL_TOOL_NAME
from .._strategies._steps import Prune
from .._tokens._protocol import TokenCounter
from ._apply import Archiver
from ._cards import card_bounds
from ._costs import UnitCosts, protections, resolve_prune
from ._measure import Counts, packaged
from ._preamble import Split, insert, split
from ._repair import repair
from ._settings import Marks, Settings
from ._shape import (
    BRIDGE_REF,
    SHAPES,
    alternation_gaps,
    bridges_needed,
    prefill,
    turn_opening,
)
from ._shape import bridge as bridge_message
from ._summary import reserve_for, summary_cap
from ._transform import PruneSize

__all__ = [
    "CARD_SHARE",
    "Prepared",
    "bridge_cost",
    "fits_whole",
    "opening_of",
    "plan",
    "prepare",
    "protected_tokens",
    "protection_of",
    "prune_size",
]

CARD_SHARE = 0.35
"""Share of the target the planned card may take beyond its rules (it fills the room)."""


@dataclass(slots=True)
class Prepared:
    """The input ready to plan: its preamble split off, its body repaired and grouped."""

    parts: Split
    body: list[Message]
    origins: list[int | None]
    units: list[Unit]
    notes: tuple[str, ...]
    recalls: frozenset[str] = frozenset()
    """Ids of the body's recall calls (`prune_size`)."""


def bridge_cost(counter: TokenCounter) -> int:
    """The tokens of one bridge message."""
    return counter.count(bridge_message("assistant", BRIDGE_REF))


def prepare(messages: Sequence[Message], settings: Settings, archive: Archiver) -> Prepared:
    """Artifacts lifted, input repaired and grouped (grouping runs once unless repaired;
    repair passes the system prefix through as its own unit, so its units are the body's)."""
    parts = split(messages, archive, alternate=SHAPES[settings.format].alternate)
    body = parts.system + parts.body
    origins: list[int | None] = [*range(len(parts.system)), *parts.origins]
    if not settings.policy.repair:
        return Prepared(parts, body, origins, group_units(body), (), _recall_calls(body))
    shape = SHAPES[settings.format]
    fixed = repair(
        body,
        origins,
        shape,
        archive.put,
        pending_tail=settings.pending_tail,
        outside_calls=settings.outside_calls,
        input_gaps=frozenset(alternation_gaps(messages)) if shape.alternate else None,
    )
    units = group_units(fixed.messages) if fixed.notes else fixed.units
    recalls = _recall_calls(fixed.messages)
    return Prepared(parts, fixed.messages, fixed.origins, units, tuple(fixed.notes), recalls)


def prune_size(settings: Settings, prep: Prepared) -> PruneSize:
    """The policy's prune step (or the default one) resolved for the budget; only results
    of the body's recall calls may be recalled pages (`_transform` rule 2)."""
    step = settings.policy.steps.get("prune")
    chosen = step if isinstance(step, Prune) else Prune()
    size = resolve_prune(chosen, settings.budget, recall=settings.policy.recall_hints)
    return dataclasses.replace(size, recalls=prep.recalls) if prep.recalls else size


def _recall_calls(body: Sequence[Message]) -> frozenset[str]:
    """Ids of the calls to the recall tool in `body`."""
    return frozenset(
        part.id
        for message in body
        if message.role == "assistant"
        for part in message.parts
        if isinstance(part, ToolCall) and part.name == RECALL_TOOL_NAME
    )


def plan(
    prep: Prepared, settings: Settings, marks: Marks, prune: PruneSize, counts: Counts
) -> tuple[Plan, int]:
    """The plan, and the tokens of what it may not remove (protected units and the card);
    `counts` are the input's (`settings.counter` is they)."""
    policy, counter = settings.policy, settings.counter
    droppable = _marked(prep.origins, marks.droppable)
    protection = protection_of(prep, settings, marks)
    costs = UnitCosts(
        prep.units,
        messages=prep.body,
        counts=counts.view(prep.body, prep.origins),
        protection=protection,
        droppable=droppable,
        steps=policy.steps,
        prune_size=prune,
        parts_add_up=packaged(counter),
        stays=opening_unit(prep, settings),
    )
    bounds = card_bounds(prep.parts.card, prep.body, prep.units, protection, counter)
    available = settings.target - settings.overhead
    card = min(bounds.full, max(bounds.rules, int(CARD_SHARE * available)))
    summary = prep.parts.summary
    current = counter.count(Message("user", (Summary(summary),))) if summary else 0
    reserve = reserve_for(policy, settings.budget)
    small = reserve_for(policy, settings.budget, small=True)
    bridge = bridge_cost(counter) if SHAPES[settings.format].alternate else 0
    inner = bridge * bridges_needed(prep.body[len(prep.parts.system) :]) if bridge else 0
    cap = summary_cap(0, counter)  # the summary message without its reserve
    budget = PlanBudget(
        available=available,
        limit=settings.budget - settings.overhead,
        preamble_kept=_kept_preamble(prep, counter, bridge),
        preamble_folded=card + cap + reserve + bridge + inner,
        preamble_folded_small=min(card, max(bounds.rules, bounds.dense))
        + cap
        + small
        + bridge
        + inner,
        preamble_dropped=card + current + bridge + inner,
        bridge=bridge,
    )
    the_plan = make_plan(costs, budget, policy.steps, policy.tail_share)
    return the_plan, protected_tokens(prep, settings, protection, counts)


def _kept_preamble(prep: Prepared, counter: TokenCounter, bridge: int) -> int:
    """The preamble's artifacts as they are and, where turns must alternate, the bridges
    the output needs when every unit is kept (rule 2)."""
    tokens = sum(counter.count(m) for _, m in prep.parts.artifacts)
    if not bridge:
        return tokens
    n = len(prep.parts.system)
    body, _ = insert(prep.body[n:], prep.origins[n:], prep.parts.artifacts)
    return tokens + bridge * bridges_needed(body)


def protection_of(prep: Prepared, settings: Settings, marks: Marks) -> list[Protection]:
    """Each unit's protection, from the caller's pins and the policy; the unit opening a
    thinking turn in progress is at least TAIL (`_shape` rule 5: it stays, and its results
    yield only as the tail's do)."""
    policy = settings.policy
    pinned = _marked(prep.origins, marks.pinned)
    out = protections(prep.units, prep.body, pinned, policy.keep_last, policy.protect_latest_user)
    stays = opening_unit(prep, settings)
    if stays is not None and out[stays] is Protection.NONE:
        out[stays] = Protection.TAIL
    if prep.units and SHAPES[settings.format].continues_last and prefill(prep.body):
        out[-1] = Protection.HARD  # the request's own last message (`_shape` rule 6)
    return out


def opening_unit(prep: Prepared, settings: Settings) -> int | None:
    """The unit holding the message that opens the turn in progress, if one must
    (`opening_of`): it never leaves the view."""
    opening = opening_of(prep, settings)
    if opening is None:
        return None
    units = prep.units  # the turn in progress is at the end: look from there
    return next(k for k in range(len(units) - 1, -1, -1) if units[k].start <= opening)


def opening_of(prep: Prepared, settings: Settings) -> int | None:
    """The body index of the message that must open the turn in progress, if one must
    (`_shape` rule 5): it is kept, and nothing folded goes in after it."""
    return turn_opening(prep.body) if SHAPES[settings.format].thinking_opens_turn else None


def protected_tokens(
    prep: Prepared, settings: Settings, protection: Sequence[Protection], counts: Counts
) -> int:
    """The tokens the plan may not remove (`counts` are the input's): the overhead, the
    hard-protected units and, where turns must alternate, the bridges those units need
    between them with everything else gone (none when they alternate already)."""
    body, origins = prep.body, prep.origins
    hard = [u for u, p in zip(prep.units, protection, strict=True) if p is Protection.HARD]
    tokens = settings.overhead + sum(
        counts.tally(body[u.start : u.stop], origins[u.start : u.stop]) for u in hard
    )
    stays = opening_unit(prep, settings)
    staying = [
        unit
        for k, unit in enumerate(prep.units)
        if protection[k] is not Protection.HARD
        and (k == stays or unit.kind is UnitKind.ORPHAN)  # never leave (`_costs` rule 3)
    ]
    for unit in staying:
        tokens += _least(prep, settings, counts, unit)
    if staying:
        hard = sorted([*hard, *staying], key=lambda u: u.start)
    if not SHAPES[settings.format].alternate:
        return tokens
    kept = [m for u in hard for m in body[u.start : u.stop]]
    return tokens + bridges_needed(kept) * bridge_cost(settings.counter)


def _least(prep: Prepared, settings: Settings, counts: Counts, unit: Unit) -> int:
    """Tokens of a unit that stays at its smallest: whole, masked or trimmed (rule 3)."""
    span, origins = prep.body[unit.start : unit.stop], prep.origins[unit.start : unit.stop]
    alone = UnitCosts(
        [Unit(unit.kind, 0, len(span), unit.dangling)],
        messages=span,
        counts=counts.view(span, origins),
        protection=[Protection.TAIL],
        droppable=[False],
        steps=settings.policy.steps,
        prune_size=prune_size(settings, prep),
        parts_add_up=packaged(settings.counter),
        stays=0,
    ).measure(0)
    return min(n for n in (alone.tokens, alone.masked, alone.trimmed) if n is not None)


def fits_whole(prep: Prepared, settings: Settings, counts: Counts) -> bool:
    """Whether the plan would keep every unit as it is (its first test: the body and the
    preamble's artifacts within `target - overhead`), what is counted already first, then
    counting newest first only until they are over (`_flow` rule 8)."""
    counter = settings.counter
    room = settings.target - settings.overhead
    room -= sum(counter.count(m) for _, m in prep.parts.artifacts)
    return not counts.view(prep.body, prep.origins).over(room)


def _marked(origins: Sequence[int | None], marked: frozenset[int]) -> list[bool]:
    """Whether each message's input index is in `marked`."""
    if not marked:
        return [False] * len(origins)
    return [o is not None and o in marked for o in origins]
