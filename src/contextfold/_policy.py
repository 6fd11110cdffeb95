"""Compaction policy: when to compact, how deep, what to protect, which steps to use.

Rules:
1. One frozen, typed value; defaults live here and nowhere else.
2. `high`/`low` are water marks as fractions of the budget: an agent loop compacts when
   its history passes `high` and compacts down to `low`, rarely and in big steps, so the
   provider's prompt cache keeps paying. One-shot `compact()` leaves fitting input alone
   and otherwise compacts down to `low`.
3. `prune_at` is the lower first tier: from this fraction on, oversized old tool results
   are pruned before anything else (the agent loop only).
4. `keep_last` newest units (a turn with all its tool results is one unit) stay verbatim,
   as do the system prompt, pins and the latest user turn.
5. `deadline` bounds the seconds one compaction waits for its summaries; after it the
   embedded ledger writes them (the drivers keep the clock, the planner never reads one).
6. `adapt` (agent loop): the low-water mark adapts to the typical turn, so a forced
   compaction leaves room for up to three more turns under `high`: low' = min(low, high -
   k x median turn), never below a quarter of the budget nor 1.2 turns; with no room for
   even one more turn (k < 1) the mark stays `low`.
7. `recall_hints`: summaries and pruned results tell the model to fetch what was folded
   with the recall tool (`contextfold_recall`). Turn it off when the model is not offered
   that tool (the integrations do, from the tools a request offers): the texts then keep
   their references but name no tool.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ._errors import ConfigurationError
from ._strategies._steps import DEFAULT_CHAIN, Chain


@dataclass(frozen=True, slots=True)
class Policy:
    """How contextfold compacts; see the module rules."""

    steps: Chain = DEFAULT_CHAIN
    high: float = 0.9
    low: float = 0.6
    prune_at: float = 0.7
    keep_last: int = 1
    tail_share: float = 0.5
    """Share of the target the verbatim recent tail may take."""
    protect_latest_user: bool = True
    repair: bool = True
    """Repair dangling tool calls and stray results instead of rejecting the input."""
    deadline: float = 20.0
    """Seconds one compaction may wait for its summaries before the ledger writes them."""
    adapt: bool = True
    """Agent loop: compact below `low` when turns are big, so the next few turns fit."""
    recall_hints: bool = True
    """Summaries and pruned results name the recall tool (rule 7)."""

    def __post_init__(self) -> None:
        _check_kinds(self)
        if not 0.0 < self.low <= self.high <= 1.0:
            raise ConfigurationError(
                f"need 0 < low <= high <= 1, got low={self.low}, high={self.high}"
            )
        if not 0.0 < self.prune_at <= 1.0:
            raise ConfigurationError(f"prune_at must be in (0, 1], got {self.prune_at}")
        if self.keep_last < 0:
            raise ConfigurationError(f"keep_last must be >= 0, got {self.keep_last}")
        if not self.deadline > 0:
            raise ConfigurationError(f"deadline must be positive (seconds), got {self.deadline}")
        if not 0.0 <= self.tail_share <= 1.0:
            raise ConfigurationError(f"tail_share must be in [0, 1], got {self.tail_share}")

    def replace(self, **changes: object) -> Policy:
        """A copy with `changes`; unknown names raise ConfigurationError."""
        names = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(set(changes) - names)
        if unknown:
            raise ConfigurationError(
                f"unknown policy option(s) {', '.join(unknown)}; known: {', '.join(sorted(names))}"
            )
        try:
            return dataclasses.replace(self, **changes)  # type: ignore[arg-type]
        except TypeError as exc:
            raise ConfigurationError(str(exc)) from None


def _check_kinds(policy: Policy) -> None:
    """Numbers are numbers (`keep_last` a whole one), switches booleans, steps a chain."""
    for name in ("high", "low", "prune_at", "tail_share", "keep_last", "deadline"):
        value = getattr(policy, name)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigurationError(f"{name} must be a number, got {value!r}")
    if not isinstance(policy.keep_last, int):
        raise ConfigurationError(
            f"keep_last must be a whole number of units, got {policy.keep_last!r}"
        )
    for name in ("protect_latest_user", "repair", "adapt", "recall_hints"):
        if not isinstance(getattr(policy, name), bool):
            raise ConfigurationError(f"{name} must be True or False, got {getattr(policy, name)!r}")
    if not isinstance(policy.steps, Chain):
        raise ConfigurationError("steps must come from contextfold.chain(...)")
