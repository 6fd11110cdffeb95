"""Measure each unit for the planner: its tokens now, pruned and masked, and its protection.

Rules:
1. Costs are upper bounds of what the executor will produce: masks and prunes are built
   with an empty reference and REF_TOKENS_MAX added per marker.
2. Only units the planner may change are measured beyond their plain count.
3. Protection: the system prefix, units holding a pinned message and the latest user
   turn are HARD (the floor); the `keep_last` newest units are TAIL: they may be trimmed
   (cut to an allowance, measured here at their smallest), masked or folded as a last
   resort. The unit opening a thinking turn in progress (`stays`) and orphans (repair
   leaves one only when it answers a call made before the messages: the request cannot
   go without it) are TAIL at least and never leave (not foldable): their results still
   yield.
   The newest unit that may hold tool output offers a trim too, wherever it is: the
   newest output is cut only as much as the room requires, not to the prune size.
4. A unit is measured only when the planner asks (its messages are counted then, once),
   and each of its forms (pruned, masked, trimmed) only when the planner first reads it.
   Its floor, what every form keeps, is bounded by `_floors`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

from .._messages import Message, Part, ToolResult
from .._planning._plan import Protection, UnitFlags
from .._planning._rules import RULES
from .._planning._units import Unit, UnitKind
from .._strategies._steps import Chain, Mask, Prune
from .._tokens._protocol import TokenCounter
from ._cards import states_anything
from ._floors import Floors
from ._measure import BodyCounts
from ._transform import REF_TOKENS_MAX, PruneSize, mask_message, prune_message
from ._trim import trim_span


def resolve_prune(step: Prune, budget: int, *, recall: bool = True) -> PruneSize:
    """Fill in the sizes a `prune()` step left to the budget; `recall`: its markers name
    the recall call (`Policy.recall_hints`)."""
    over = step.over if step.over is not None else max(256, min(4000, budget // 8))
    keep = step.keep if step.keep is not None else max(64, over // 2)
    return PruneSize(over, min(keep, over), step.head_share, recall)


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
    first = {UnitKind.SYSTEM: Protection.HARD, UnitKind.ORPHAN: Protection.TAIL}
    out = [first.get(unit.kind, Protection.NONE) for unit in units]  # an orphan stays, yields
    if any(pinned):
        for k, unit in enumerate(units):
            if any(pinned[unit.start : unit.stop]):
                out[k] = Protection.HARD
    if protect_latest_user:
        for k in range(len(units) - 1, -1, -1):
            if units[k].kind is UnitKind.USER:
                out[k] = Protection.HARD
                break
    for k in range(max(0, len(units) - keep_last), len(units)):
        if out[k] is Protection.NONE:
            out[k] = Protection.TAIL
    return out


class UnitCosts:
    """The planner's view of every unit (rules 1-4): flags at once, tokens when asked."""

    __slots__ = (
        "_counts",
        "_flags",
        "_floors",
        "_mask",
        "_messages",
        "_newest_output",
        "_prose_over",
        "_prune",
        "_pruning",
        "_units",
    )

    def __init__(
        self,
        units: Sequence[Unit],
        *,
        messages: Sequence[Message],
        counts: BodyCounts,
        protection: Sequence[Protection],
        droppable: Sequence[bool],
        steps: Chain,
        prune_size: PruneSize,
        parts_add_up: bool = False,
        stays: int | None = None,
    ) -> None:
        self._units = units
        self._messages = messages
        self._counts = counts
        self._prune = prune_size
        self._pruning = steps.get("prune") is not None
        mask_step = steps.get("mask")
        self._mask = mask_step is not None
        self._newest_output = _newest_output(units, messages)
        """The newest unit that holds tool output (rule 3: it offers a trim)."""
        self._prose_over = mask_step.prose_over if isinstance(mask_step, Mask) else 0
        self._floors = Floors(units, messages, counts, self._prose_over, exact=parts_add_up)
        self._flags = _flags(units, messages, protection, droppable, stays)

    def __len__(self) -> int:
        return len(self._units)

    def flags(self, unit: int) -> UnitFlags:
        """Protection, marks and what the unit states (no counting)."""
        return self._flags[unit]

    def measure(self, unit: int) -> _Measured:
        """The unit's tokens whole; pruned, masked and at its smallest trim when read
        (rules 1-2, 4)."""
        u, protection = self._units[unit], self._flags[unit].protection
        rule = RULES[u.kind]
        changeable = protection is not Protection.HARD
        prunes = changeable and rule.prune and self._pruning
        return _Measured(
            self,
            self._messages[u.start : u.stop],
            [self._counts[i] for i in range(u.start, u.stop)],
            protection,
            prunes=prunes,
            masks=changeable and rule.mask and self._mask,
            trims=prunes and (protection is Protection.TAIL or unit == self._newest_output),
        )

    def floor(self, unit: int, above: int) -> int:
        """A lower bound of the unit's tokens under any action but fold and drop (rule 4),
        known only until it is over `above`."""
        return self._floors.floor(unit, above)


class _Measured:
    """One unit's costs (a planner `Measured`): its tokens at once, a form that does not
    apply None at once, each other form built and counted when first read (rule 4)."""

    def __init__(
        self,
        owner: UnitCosts,
        span: Sequence[Message],
        counts: list[int],
        protection: Protection,
        *,
        prunes: bool,
        masks: bool,
        trims: bool,
    ) -> None:
        self.tokens = sum(counts)
        self.protection = protection
        self._owner = owner
        self._span = span
        self._counts = counts
        if not prunes:  # set on the instance: the cached property is never asked
            self.pruned = None
        if not masks:
            self.masked = None
        if not trims:
            self.trimmed = None

    @cached_property
    def pruned(self) -> int | None:
        """Tokens after pruning; None when pruning does not apply."""
        return _cost(self._span, self._counts, self._owner._counts, prune=self._owner._prune)

    @cached_property
    def masked(self) -> int | None:
        """Tokens after masking; None when masking does not apply."""
        owner = self._owner
        return _cost(self._span, self._counts, owner._counts, prose_over=owner._prose_over)

    @cached_property
    def trimmed(self) -> int | None:
        """Tokens at the smallest trim; None when trimming does not apply."""
        return _trimmed(self._span, self._owner._prune.head_share, self._owner._counts)


def _flags(
    units: Sequence[Unit],
    messages: Sequence[Message],
    protection: Sequence[Protection],
    droppable: Sequence[bool],
    stays: int | None = None,
) -> list[UnitFlags]:
    """Each unit's flags; equal flags are one shared (frozen) value. Unit `stays` never
    leaves the view (not foldable: neither folded nor dropped)."""
    marked = any(droppable)
    user, hard = UnitKind.USER, Protection.HARD
    made: dict[tuple[Protection, bool, bool, bool], UnitFlags] = {}
    out: list[UnitFlags] = []
    for k, (unit, held) in enumerate(zip(units, protection, strict=True)):
        key = (
            held,
            marked and any(droppable[unit.start : unit.stop]),
            _FOLDS[unit.kind] and k != stays,
            unit.kind is user
            and held is not hard  # never leaves: never asked
            and any(map(states_anything, messages[unit.start : unit.stop])),
        )
        found = made.get(key)
        if found is None:
            found = made[key] = UnitFlags(*key)
        out.append(found)
    return out


_FOLDS = {kind: rule.fold for kind, rule in RULES.items()}
"""Whether each unit kind may fold (the rules table's column, read once per unit)."""


def _newest_output(units: Sequence[Unit], messages: Sequence[Message]) -> int | None:
    """The newest unit that may be pruned and holds a tool result (rule 3)."""
    for k in range(len(units) - 1, -1, -1):
        unit = units[k]
        if RULES[unit.kind].prune and any(
            isinstance(part, ToolResult)
            for message in messages[unit.start : unit.stop]
            for part in message.parts
        ):
            return k
    return None


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
    ref = _NoRef()  # one for the span: each message's markers are what it adds to `made`
    for message, count in zip(span, counts, strict=True):
        made = ref.made
        if prune is not None:
            new = prune_message(message, ref, prune, counter)
        else:
            new = mask_message(message, ref, prose_over, counter)
        if new is message:
            total += count
            continue
        changed = True
        total += counter.count(new) + REF_TOKENS_MAX * (ref.made - made)
    return total if changed else None
