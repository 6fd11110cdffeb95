"""The planner's input (unit costs, budget) and output (a Plan): plain frozen data.

Rules:
1. A Plan gives one Action per unit; its spans are the maximal runs of equal actions and
   concatenated in order they reproduce the units exactly (invariant I8).
2. Costs are token counts the engine measures (or bounds from above); the planner itself
   never counts, reads or writes anything. A unit's flags are known up front, its token
   costs may be measured when the planner first asks (`Costs.measure`; each form of a
   unit, pruned, masked or trimmed, may be counted only when first read), and
   `Costs.floor` bounds them from below without measuring: the planner asks only for what
   decides (and of a floor only whether it is over some room, so a floor may stop adding
   up there).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Protocol

from .._messages import slot_init


class Action(Enum):
    """What happens to one unit."""

    __hash__ = object.__hash__  # members are singletons: hashed in C, not by name

    KEEP = "keep"
    PRUNE = "prune"
    MASK = "mask"
    FOLD = "fold"
    TRIM = "trim"
    """Cut the unit's tool results to the token allowance the plan gives it (the newest
    output, sized to the room left rather than to a fixed head and tail)."""
    DROP = "drop"


class Protection(Enum):
    """How strongly a unit is protected from compaction."""

    __hash__ = object.__hash__  # members are singletons: hashed in C, not by name

    NONE = "none"
    TAIL = "tail"
    """The configured newest units: verbatim while they fit; past that they yield (trimmed
    to the room left, then masked, then folded) before the budget is exceeded."""
    HARD = "hard"
    """System prompt, pins, the latest user turn: the floor, always verbatim."""


@slot_init
@dataclass(frozen=True, slots=True)
class UnitCost:
    """Tokens of one unit as it is and after each action that applies to it."""

    tokens: int
    pruned: int | None = None
    """Tokens after pruning; None when pruning does not apply (nothing oversized)."""
    masked: int | None = None
    """Tokens after masking; None when masking does not apply."""
    trimmed: int | None = None
    """Tokens at the smallest trim (every result cut to its minimum); None when trimming
    does not apply. A trimmed unit costs at least this and at most its allowance."""
    protection: Protection = Protection.NONE
    droppable: bool = False
    """Marked droppable by the caller: dropped first when over budget."""
    foldable: bool = True
    """Whether the unit may leave the view (be folded or dropped). A unit that may not still
    yields its results when it is not HARD: the message opening an Anthropic thinking turn
    in progress (TAIL) is kept, its results trimmed or masked."""
    states: bool = False
    """A user turn that states something the card carries once it leaves: it stays in view
    only while no newer such turn has left, so every user turn in view is newer than what
    the card holds (a restatement in view may then retire the card's older value)."""


@slot_init
@dataclass(frozen=True, slots=True)
class UnitFlags:
    """What the planner knows of a unit before measuring it (see UnitCost)."""

    protection: Protection = Protection.NONE
    droppable: bool = False
    foldable: bool = True
    states: bool = False


class Measured(Protocol):
    """A unit's costs as the planner reads them: a UnitCost, or an object that counts
    each form only when it is first read (what it reads is all it pays for)."""

    @property
    def tokens(self) -> int: ...

    @property
    def pruned(self) -> int | None: ...

    @property
    def masked(self) -> int | None: ...

    @property
    def trimmed(self) -> int | None: ...

    @property
    def protection(self) -> Protection: ...


class Costs(Protocol):
    """The units' costs as the planner reads them: flags at once, tokens on demand."""

    def __len__(self) -> int:
        """Number of units."""
        ...

    def flags(self, unit: int) -> UnitFlags:
        """The unit's protection and marks (cheap)."""
        ...

    def measure(self, unit: int) -> Measured:
        """The unit's exact costs (may count; asked at most once per unit and plan)."""
        ...

    def floor(self, unit: int, above: int) -> int:
        """A lower bound of the unit's tokens under any action but fold and drop (cheap);
        once it is over `above`, any lower bound over `above` will do."""
        ...


class KnownCosts:
    """Costs measured beforehand: a plain list of UnitCost seen through `Costs`."""

    __slots__ = ("_costs",)

    def __init__(self, costs: Sequence[UnitCost]) -> None:
        self._costs = costs

    def __len__(self) -> int:
        return len(self._costs)

    def flags(self, unit: int) -> UnitFlags:
        c = self._costs[unit]
        return UnitFlags(c.protection, c.droppable, c.foldable, c.states)

    def measure(self, unit: int) -> UnitCost:
        return self._costs[unit]

    def floor(self, unit: int, above: int) -> int:
        c = self._costs[unit]
        return min(x for x in (c.tokens, c.pruned, c.masked, c.trimmed) if x is not None)


@dataclass(frozen=True, slots=True)
class PlanBudget:
    """Token room for the messages and the cost of the preamble in each outcome."""

    available: int
    """Tokens the messages should use: the target minus fixed overhead (priming, tools)."""
    limit: int | None = None
    """Tokens the messages must not exceed (the budget minus overhead); None: `available`.
    Only the last resort works toward it, when `available` cannot be reached."""
    preamble_kept: int = 0
    """The current preamble (card + summary), kept as is when nothing leaves."""
    preamble_folded: int = 0
    """Upper bound of the preamble after a fold: new card + summary reserve."""
    preamble_dropped: int = 0
    """The preamble when units are dropped but none folded: new card + current summary."""
    bridge: int = 0
    """Tokens of one bridge message, for formats whose turns must alternate: each run of
    removed (folded or dropped) units may need one."""
    preamble_folded_small: int | None = None
    """`preamble_folded` with a small summary reserve: the last resort before dropping the
    folded span. None: no small summary."""


@dataclass(frozen=True, slots=True)
class Span:
    """A maximal run of units `start`..`stop` (exclusive) with the same action."""

    action: Action
    start: int
    stop: int


@dataclass(frozen=True, slots=True)
class Plan:
    """One action per unit, with the expected outcome."""

    actions: tuple[Action, ...]
    expected: int
    """Upper bound of the message tokens after the plan is applied."""
    fits: bool
    """The expected tokens are within the limit."""
    on_target: bool
    """The expected tokens are within `available` (the low-water target)."""
    reason: str
    tail_start: int
    """Index of the first unit of the verbatim recent tail."""
    small_summary: bool = False
    """Fold with the small summary reserve (the full one did not fit)."""
    allowances: tuple[int | None, ...] = ()
    """Token allowance of each TRIM unit (None for the others); empty when none trims."""
    ceiling: int = 0
    """Upper bound of the message tokens once trimmed units use their allowances."""

    def allowance(self, unit: int) -> int | None:
        """The token allowance of unit `unit` if the plan trims it."""
        return self.allowances[unit] if self.allowances else None

    @property
    def folds(self) -> bool:
        """True when some unit is folded into the summary."""
        return Action.FOLD in self.actions

    @property
    def changes(self) -> bool:
        """True when some unit is not kept as is."""
        return any(a is not Action.KEEP for a in self.actions)

    def spans(self) -> list[Span]:
        """Maximal runs of equal actions, in order (they partition the units)."""
        spans: list[Span] = []
        for i, action in enumerate(self.actions):
            if spans and spans[-1].action is action:
                last = spans[-1]
                spans[-1] = Span(action, last.start, i + 1)
            else:
                spans.append(Span(action, i, i + 1))
        return spans
