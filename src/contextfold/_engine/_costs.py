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
   and each of its forms (pruned, masked, trimmed) only when the planner first reads it;
   its floor counts only what every form keeps, with the counter's cheap lower bound.
   The planner only asks whether a floor is over some room, so it starts from every
   message's framing (the floor of the message without its parts, read once per role and
   name) and adds the rest message by message only until it is over (what was added up
   is kept for the next ask).
5. With a counter whose parts add up (`_measure.packaged`), a floor is
   tighter, message by message: what every form keeps, counted exactly, plus the least of
   the rest's floor and REF_TOKENS_MAX (what a form leaves of a result or a long text is
   either all of it, or a marker whose reference an estimate prices at REF_TOKENS_MAX).
   The exact count is taken only when the cheap floor of that message does not already
   settle the ask, so a floor asked only whether it is over 0 still counts nothing.
6. With a counter that offers no floor (every cheap floor 0), nothing is known of how it
   counts a form's parts, but a message that every form keeps as it is (no tool result,
   image or maskable text) is the same message in every form and costs its own count
   there; any other message costs at least 0 (a count is never negative). So a floor adds
   up the counts of those messages, counted only until it is over the ask (kept, as by
   rule 4); it holds for any counter, monotone or not.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from functools import cached_property

from .._messages import Image, Message, Part, Text, ToolResult
from .._planning._plan import Protection, UnitFlags
from .._planning._rules import RULES
from .._planning._units import Unit, UnitKind
from .._strategies._steps import Chain, Mask, Prune
from .._tokens._protocol import TokenCounter
from ._cards import states_anything
from ._measure import BodyCounts, bounds_nothing
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
        "_exact_kept",
        "_flags",
        "_floors",
        "_framings",
        "_identity",
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
        self._exact_kept = parts_add_up
        """Whether a floor may count what every form keeps exactly (rule 5)."""
        self._identity = not parts_add_up and bounds_nothing(counts)
        """Whether a floor counts the messages every form keeps as they are (rule 6)."""
        self._messages = messages
        self._counts = counts
        self._prune = prune_size
        self._pruning = steps.get("prune") is not None
        mask_step = steps.get("mask")
        self._mask = mask_step is not None
        self._newest_output = _newest_output(units, messages)
        """The newest unit that holds tool output (rule 3: it offers a trim)."""
        self._prose_over = mask_step.prose_over if isinstance(mask_step, Mask) else 0
        self._floors: dict[int, tuple[int, int]] = {}
        """Per unit, its floor so far and the first message whose parts it lacks (rule 4)."""
        self._framings: dict[tuple[str, str | None], int] = {}
        """The floor of a message without parts, by role and name."""
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
        """A lower bound of the unit's tokens under any action but fold and drop: what
        every form keeps (rule 4), bounded without counting, and only until over `above`."""
        u = self._units[unit]
        found = self._floors.get(unit)
        if found is None:  # from the framings (with no counter floor, each is 0: rule 6)
            found = 0, u.start
            if not self._identity:
                found = sum(map(self._framing, self._messages[u.start : u.stop])), u.start
        total, at = found
        if total <= above and at < u.stop:
            if self._exact_kept:
                return self._exact_floor(unit, above, total, at)
            if self._identity:
                return self._identity_floor(unit, above, total, at)
            floor, prose, messages = self._counts.floor, self._prose_over, self._messages
            while total <= above and at < u.stop:
                message = messages[at]
                total += floor(_kept(message, prose)) - self._framing(message)
                at += 1
            found = total, at
        self._floors[unit] = found
        return total

    def _exact_floor(self, unit: int, above: int, total: int, at: int) -> int:
        """`floor` by rule 5 from `total` (every message before `at` added): a message's
        cheap floor first; its exact one only when the cheap one leaves the answer open
        (then it is added up and kept, as the cheap floor is by rule 4)."""
        stop = self._units[unit].stop
        counts, prose, messages = self._counts, self._prose_over, self._messages
        floor = counts.floor
        while total <= above and at < stop:
            message = messages[at]
            kept = _kept(message, prose)
            kept_floor = floor(kept)
            rest = min(floor(message) - kept_floor, REF_TOKENS_MAX) if kept is not message else 0
            cheap = kept_floor + rest - self._framing(message)
            if total + cheap > above:  # settled without counting; nothing kept for it
                self._floors[unit] = total, at
                return total + cheap
            exact = counts[at] if kept is message else counts.count(kept)
            total += exact + rest - self._framing(message)
            at += 1
        self._floors[unit] = total, at
        return total

    def _identity_floor(self, unit: int, above: int, total: int, at: int) -> int:
        """`floor` by rule 6 from `total` (every message before `at` added): the count of
        each message every form keeps as it is, nothing for the others (nor for framings:
        the counter's floors are all 0)."""
        stop = self._units[unit].stop
        counts, prose, messages = self._counts, self._prose_over, self._messages
        while total <= above and at < stop:
            if _kept_whole(messages[at], prose):
                total += counts[at]
            at += 1
        self._floors[unit] = total, at
        return total

    def _framing(self, message: Message) -> int:
        """The floor of `message` without its parts: no form of it costs less (parts only
        add tokens), and it reads no text."""
        key = (message.role, message.name)
        found = self._framings.get(key)
        if found is None:
            bare = Message(message.role, (), name=message.name)
            found = self._framings[key] = self._counts.floor(bare)
        return found


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


def _kept(message: Message, prose_over: int) -> Message:
    """The parts of `message` that pruning, masking and trimming all leave as they are:
    tool results without their content; no images, nor assistant text that may be masked."""
    parts: list[Part] = []
    for part in message.parts:
        match part:
            case ToolResult():
                parts.append(ToolResult(part.call_id, ()))
            case Image():
                continue
            case Text() if message.role == "assistant" and len(part.text) > prose_over:
                continue
            case _:
                parts.append(part)
    if len(parts) == len(message.parts) and all(map(operator.is_, parts, message.parts)):
        return message  # nothing left out: the message itself (every form keeps its extras)
    return Message(message.role, tuple(parts), name=message.name)


def _kept_whole(message: Message, prose_over: int) -> bool:
    """Whether every form keeps `message` as it is (`_kept(message) is message`): it has no
    tool result, no image and no assistant text that may be masked."""
    assistant = message.role == "assistant"
    for part in message.parts:
        match part:
            case ToolResult() | Image():
                return False
            case Text() if assistant and len(part.text) > prose_over:
                return False
    return True


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
