"""What compaction may do to each kind of unit: one table, read in one place.

Rules:
1. SYSTEM is never touched.
2. An EXCHANGE (assistant turn + its tool results) may be pruned, masked, folded or dropped.
3. A USER turn is never pruned; only its images may be masked; it may be folded or dropped
   (its rules move to the constraint card first).
4. A NOTE (a system message mid-conversation) may only be folded or dropped.
5. PREAMBLE and BRIDGE units are the engine's business: they are regenerated on every
   compaction. ORPHAN units are repaired; one that repair leaves answers a call made
   before the messages (a stored response's): it never leaves the view, but its result
   may be pruned or masked like any other (its call id stays).
Protection (pins, the latest user turn, the tail) overrides every row.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from ._units import UnitKind


@dataclass(frozen=True, slots=True)
class Rule:
    """The compaction actions allowed on a unit kind."""

    prune: bool
    mask: bool
    fold: bool
    drop: bool


_NOTHING: Final = Rule(prune=False, mask=False, fold=False, drop=False)

RULES: Final[Mapping[UnitKind, Rule]] = {
    UnitKind.SYSTEM: _NOTHING,
    UnitKind.EXCHANGE: Rule(prune=True, mask=True, fold=True, drop=True),
    UnitKind.USER: Rule(prune=False, mask=True, fold=True, drop=True),
    UnitKind.NOTE: Rule(prune=False, mask=False, fold=True, drop=True),
    UnitKind.PREAMBLE: _NOTHING,
    UnitKind.BRIDGE: _NOTHING,
    UnitKind.ORPHAN: Rule(prune=True, mask=True, fold=False, drop=False),
}
