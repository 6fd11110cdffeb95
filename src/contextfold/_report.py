"""What a compaction did, in numbers: the report every result carries.

Rules:
1. Never silent: `fits` says whether the output is within the budget and `reason` says
   why (or why not).
2. Everything removed or shortened is listed by archive reference in `refs`.
3. `to_dict()` is plain JSON, stable across runs for the same input (determinism).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SummaryInfo:
    """One summarizer call made during a compaction."""

    summarizer: str
    messages: int
    """Messages folded by this call."""
    input_tokens: int = 0
    output_tokens: int = 0
    cached: bool = False


@dataclass(frozen=True, slots=True)
class Report:
    """Tokens before and after, whether the result fits, and what was done."""

    tokens_before: int
    tokens_after: int
    budget: int
    target: int
    """The low-water mark compaction aimed for."""
    fits: bool
    reason: str
    format: str
    counter: str
    compacted: bool
    """False when the input was returned unchanged."""
    pruned: int = 0
    """Tool results cut to head and tail."""
    masked: int = 0
    """Payloads replaced by markers (tool results, images, long prose)."""
    summarized: int = 0
    """Messages folded into the summary."""
    dropped: int = 0
    """Messages removed without a summary (archived)."""
    repaired: tuple[str, ...] = ()
    refs: tuple[str, ...] = ()
    summarizer: str | None = None
    """Who wrote the summary this time (None when nothing was folded)."""
    summaries: tuple[SummaryInfo, ...] = ()
    card_rules: int = 0
    """Rules carried in the constraint card."""
    warnings: tuple[str, ...] = ()
    """What did not go as configured but was handled: a summarizer past the deadline
    (the ledger wrote its summary), an archive that had to be recreated or kept in memory."""
    protected_tokens: int = 0
    """Tokens compaction may not remove: system prompt, pins, the latest user turn, the
    newest turns, the constraint card, fixed overhead and, where turns must alternate, one
    bridge. Over the budget means no compaction can fit."""

    @property
    def actions(self) -> Mapping[str, int]:
        """Counts per action."""
        return {
            "pruned": self.pruned,
            "masked": self.masked,
            "summarized": self.summarized,
            "dropped": self.dropped,
            "repaired": len(self.repaired),
        }

    def to_dict(self) -> dict[str, object]:
        """The report as plain JSON data."""
        data = dataclasses.asdict(self)
        data["repaired"] = list(self.repaired)
        data["refs"] = list(self.refs)
        data["summaries"] = [dataclasses.asdict(s) for s in self.summaries]
        data["warnings"] = list(self.warnings)
        data["actions"] = dict(self.actions)
        return data

    def describe(self) -> str:
        """One human line, e.g. for a CLI's stderr."""
        done = ", ".join(f"{n:,} {k}" for k, n in self.actions.items() if n) or "nothing to do"
        status = "fits" if self.fits else "DOES NOT FIT"
        return (
            f"{self.tokens_before:,} -> {self.tokens_after:,} tokens "
            f"(budget {self.budget:,}, {status}); {done}"
        )
