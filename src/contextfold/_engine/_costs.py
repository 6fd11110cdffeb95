"""Measure each unit for the planner: its tokens now, pruned and masked, and its protection.

Rules:
1. Costs are upper bounds of what the executor will produce: masks and prunes are built
   with an empty reference and REF_TOKENS_MAX added per marker.
2. Only units the planner may change are measured beyond their plain count.
3. Protection: the system prefix, units holding a pinned message and the latest user turn
   are HARD (the floor); the `keep_last` newest units are TAIL: they may be trimmed (cut
   to an allowance, measured here at their smallest), masked or folded as a last resort.
"""

from __future__ import annotations

from collections.abc import Sequence

from .._messages import Message, Part
from .._planning._plan import Protection, UnitCost
from .._planning._rules import RULES
from .._planning._units import Unit, UnitKind
from .._strategies._steps import Chain, Mask, Prune
from .._tokens._protocol import TokenCounter
from ._cards import states_anything
from ._transform import REF_TOKENS_MAX, PruneSize, mask_message, prune_message
from ._trim import trim_span


def resolve_prune(step: Prune, budget: int) -> PruneSize:
    """Fill in the sizes a `prune()` step left to the budget."""
    over = step.over if step.over is not None else max(256, min(4000, budget // 8))
    keep = step.keep if step.keep is not None else max(64, over // 2)
    return PruneSize(over, min(keep, over), step.head_share)


class _NoRef:
    """A reference callback for estimates: no archive, it only counts the markers made."""

    __slots__ = ("made",)

    def __init__(self) -> None:
        self.made = 0

    def __call__(self, _: Part) -> str:
        self.made += 1
        return ""


def protections(
    units: Sequence[Unit],
    messages: Sequence[Message],
    pinned: Sequence[bool],
    keep_last: int,
    protect_latest_user: bool,
) -> list[Protection]:
    """Protection of each unit (rule 3)."""
    out = [Protection.NONE] * len(units)
    latest_user = max((k for k, u in enumerate(units) if u.kind is UnitKind.USER), default=None)
    for k, unit in enumerate(units):
        if unit.kind is UnitKind.SYSTEM or any(pinned[unit.start : unit.stop]):
            out[k] = Protection.HARD
    if protect_latest_user and latest_user is not None:
        out[latest_user] = Protection.HARD
    for k in range(max(0, len(units) - keep_last), len(units)):
        if out[k] is Protection.NONE:
            out[k] = Protection.TAIL
    return out


def unit_costs(
    units: Sequence[Unit],
    *,
    messages: Sequence[Message],
    counts: Sequence[int],
    protection: Sequence[Protection],
    droppable: Sequence[bool],
    steps: Chain,
    prune_size: PruneSize,
    counter: TokenCounter,
) -> list[UnitCost]:
    """The planner's view of every unit (rules 1-2)."""
    mask_step = steps.get("mask")
    prose_over = mask_step.prose_over if isinstance(mask_step, Mask) else 0
    out: list[UnitCost] = []
    for k, unit in enumerate(units):
        rule = RULES[unit.kind]
        tokens = sum(counts[unit.start : unit.stop])
        span = messages[unit.start : unit.stop]
        pruned = masked = trimmed = None
        may_prune = rule.prune and protection[k] is not Protection.HARD
        if may_prune and steps.get("prune"):
            pruned = _cost(span, counts[unit.start : unit.stop], counter, prune=prune_size)
            if protection[k] is Protection.TAIL:
                trimmed = _trimmed(span, prune_size.head_share, counter)
        if rule.mask and protection[k] is not Protection.HARD and mask_step is not None:
            masked = _cost(span, counts[unit.start : unit.stop], counter, prose_over=prose_over)
        out.append(
            UnitCost(
                tokens,
                pruned=pruned,
                masked=masked,
                trimmed=trimmed,
                protection=protection[k],
                droppable=any(droppable[unit.start : unit.stop]),
                foldable=rule.fold,
                states=unit.kind is UnitKind.USER and any(map(states_anything, span)),
            )
        )
    return out


def _trimmed(span: Sequence[Message], head_share: float, counter: TokenCounter) -> int | None:
    """Tokens of `span` at its smallest trim, None when it has no result to cut."""
    ref = _NoRef()
    out = trim_span(span, ref, 0, head_share, counter)
    if all(a is b for a, b in zip(out, span, strict=True)):
        return None
    return sum(counter.count(m) for m in out) + REF_TOKENS_MAX * ref.made


def _cost(
    span: Sequence[Message],
    counts: Sequence[int],
    counter: TokenCounter,
    *,
    prune: PruneSize | None = None,
    prose_over: int = 0,
) -> int | None:
    """Tokens of `span` after pruning (or masking), None when nothing would change."""
    total = 0
    changed = False
    for message, count in zip(span, counts, strict=True):
        ref = _NoRef()
        if prune is not None:
            new = prune_message(message, ref, prune, counter)
        else:
            new = mask_message(message, ref, prose_over, counter)
        if new is message:
            total += count
            continue
        changed = True
        total += counter.count(new) + REF_TOKENS_MAX * ref.made
    return total if changed else None
