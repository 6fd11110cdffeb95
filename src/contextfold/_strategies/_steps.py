"""Compaction steps and their chain, cheapest first: prune, mask, summarize, drop.

Rules:
1. Each step is a small frozen value built by a public factory; `chain` orders them.
2. The planner applies the steps of the chain in order and stops as soon as the
   conversation fits; a step missing from the chain is never applied (so
   `chain(mask(), drop())` is mask-only with dropping as the last resort).
3. Sizes left as None are derived from the budget when planning (see `resolve`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from .._errors import ConfigurationError
from ._eviction import Eviction, fit


@dataclass(frozen=True, slots=True)
class Prune:
    """Cut tool results over `over` tokens to about `keep` tokens of head and tail."""

    over: int | None = None
    keep: int | None = None
    head_share: float = 0.4
    kind: Literal["prune"] = "prune"


@dataclass(frozen=True, slots=True)
class Mask:
    """Replace old tool results, images and assistant prose over `prose_over` by markers."""

    prose_over: int = 300
    kind: Literal["mask"] = "mask"


@dataclass(frozen=True, slots=True)
class Summarize:
    """Fold the oldest span into one summary of at most `reserve` tokens."""

    reserve: int | None = None
    eviction: Eviction = field(default_factory=fit)
    chunk_tokens: int | None = None
    """Largest span sent in one summarizer request; None means the budget, or the whole
    span for the embedded ledger (it bounds its own reading)."""
    kind: Literal["summarize"] = "summarize"


@dataclass(frozen=True, slots=True)
class Drop:
    """Last resort: drop (and archive) whole units, oldest first."""

    kind: Literal["drop"] = "drop"


Step: TypeAlias = Prune | Mask | Summarize | Drop
_ORDER = ("prune", "mask", "summarize", "drop")


@dataclass(frozen=True, slots=True)
class Chain:
    """The steps compaction may use, cheapest first."""

    steps: tuple[Step, ...]
    _kinds: dict[str, Step] = field(init=False, repr=False, compare=False)
    """The first step of each kind (`get` is asked on every planning decision)."""

    def __post_init__(self) -> None:
        kinds: dict[str, Step] = {}
        for step in self.steps:
            kinds.setdefault(step.kind, step)
        object.__setattr__(self, "_kinds", kinds)

    def get(self, kind: str) -> Step | None:
        """The step of this kind, if the chain has one."""
        return self._kinds.get(kind)

    def __repr__(self) -> str:
        return f"chain({', '.join(repr(s) for s in self.steps)})"


def prune(over: int | None = None, keep: int | None = None, head_share: float = 0.4) -> Prune:
    """Prune tool results over `over` tokens to `keep` tokens (head and tail)."""
    if over is not None and over < 1:
        raise ConfigurationError(f"prune(over=) must be positive, got {over}")
    if keep is not None and keep < 1:
        raise ConfigurationError(f"prune(keep=) must be positive, got {keep}")
    if not 0.0 <= head_share <= 1.0:
        raise ConfigurationError(f"prune(head_share=) must be in [0, 1], got {head_share}")
    return Prune(over, keep, head_share)


def mask(prose_over: int = 300) -> Mask:
    """Mask old tool results, images and assistant prose longer than `prose_over` tokens."""
    if prose_over < 1:
        raise ConfigurationError(f"mask(prose_over=) must be positive, got {prose_over}")
    return Mask(prose_over)


def summarize(
    reserve: int | None = None,
    eviction: Eviction | None = None,
    chunk_tokens: int | None = None,
) -> Summarize:
    """Fold the oldest span into a summary; `eviction` can ask for bigger steps."""
    if reserve is not None and reserve < 16:
        raise ConfigurationError(f"summarize(reserve=) must be at least 16, got {reserve}")
    if chunk_tokens is not None and chunk_tokens < 64:
        raise ConfigurationError(f"summarize(chunk_tokens=) must be >= 64, got {chunk_tokens}")
    return Summarize(reserve, eviction if eviction is not None else fit(), chunk_tokens)


def drop() -> Drop:
    """Drop whole units (archived) when nothing else fits."""
    return Drop()


def chain(*steps: Step) -> Chain:
    """Order steps cheapest first; each kind at most once."""
    kinds = [s.kind for s in steps]
    if len(set(kinds)) != len(kinds):
        raise ConfigurationError(f"chain() got a step kind twice: {kinds}")
    return Chain(tuple(sorted(steps, key=lambda s: _ORDER.index(s.kind))))


DEFAULT_CHAIN = chain(prune(), mask(), summarize(), drop())
