"""Eviction policies: how many of the oldest foldable units to fold into the summary.

Rules:
1. A policy maps the number of candidate units (oldest first, outside the protected set
   and the recent tail) to how many of them to fold; the planner always folds at least
   what the budget needs, so a policy can only ask for bigger, rarer steps.
2. Policies are small frozen values with a readable repr, composed with `min_of`/`max_of`.
3. Tool calls and their results are never separated: policies count units, not messages.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

from .._errors import ConfigurationError


class Eviction(Protocol):
    """How many of `candidates` oldest units to fold."""

    def count(self, candidates: int) -> int:
        """Number of units to fold, 0..candidates."""
        ...


@dataclass(frozen=True, slots=True)
class _Fit:
    def count(self, candidates: int) -> int:
        return 0

    def __repr__(self) -> str:
        return "fit()"


@dataclass(frozen=True, slots=True)
class _EvictFraction:
    fraction: float

    def count(self, candidates: int) -> int:
        return min(candidates, math.ceil(self.fraction * candidates))

    def __repr__(self) -> str:
        return f"evict_fraction({self.fraction})"


@dataclass(frozen=True, slots=True)
class _RetainLast:
    units: int

    def count(self, candidates: int) -> int:
        return max(0, candidates - self.units)

    def __repr__(self) -> str:
        return f"retain_last({self.units})"


@dataclass(frozen=True, slots=True)
class _MinOf:
    first: Eviction
    second: Eviction

    def count(self, candidates: int) -> int:
        return min(self.first.count(candidates), self.second.count(candidates))

    def __repr__(self) -> str:
        return f"min_of({self.first!r}, {self.second!r})"


@dataclass(frozen=True, slots=True)
class _MaxOf:
    first: Eviction
    second: Eviction

    def count(self, candidates: int) -> int:
        return max(self.first.count(candidates), self.second.count(candidates))

    def __repr__(self) -> str:
        return f"max_of({self.first!r}, {self.second!r})"


def fit() -> Eviction:
    """Fold only what the budget needs (the default)."""
    return _Fit()


def evict_fraction(fraction: float) -> Eviction:
    """Fold at least this fraction (0..1] of the candidate units."""
    if not 0.0 < fraction <= 1.0:
        raise ConfigurationError(f"evict_fraction needs 0 < fraction <= 1, got {fraction}")
    return _EvictFraction(fraction)


def retain_last(units: int) -> Eviction:
    """Fold everything but the newest `units` candidate units."""
    if units < 0:
        raise ConfigurationError(f"retain_last needs units >= 0, got {units}")
    return _RetainLast(units)


def min_of(first: Eviction, second: Eviction) -> Eviction:
    """Fold the smaller of two policies' counts."""
    return _MinOf(first, second)


def max_of(first: Eviction, second: Eviction) -> Eviction:
    """Fold the larger of two policies' counts."""
    return _MaxOf(first, second)
