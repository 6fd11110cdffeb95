"""What a compaction did, in numbers: the report every result carries.

Rules:
1. Never silent: `fits` says whether the output is within the budget and `reason` says
   why (or why not).
2. Everything removed or shortened is listed by archive reference in `refs`.
3. `to_dict()` is plain JSON, stable across runs for the same input (determinism).
4. `tokens_before` is exact. A compaction that never needed to count all of its input
   hands over a function instead of the number, and the report counts it when it is
   first read (then remembers it): a caller that only sends the output never pays for
   counting what was folded away.
5. `reason` agrees with `fits` (`agreed_reason`): the plan's verdict is an estimate made
   before the artifacts were placed and the output counted, so a verdict that says the
   opposite of the count gives way to one the count supports, and so does one naming a
   figure over every figure the report shows (the plan's estimate of an artifact the
   output placed smaller).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Final

from ._messages import slot_init

NOT_FIT: Final = "does not fit"
"""How every reason of a report that does not fit begins."""


@dataclass(frozen=True, slots=True)
class SummaryInfo:
    """One summarizer call made during a compaction."""

    summarizer: str
    messages: int
    """Messages folded by this call."""
    input_tokens: int = 0
    output_tokens: int = 0
    cached: bool = False


@slot_init  # built once or twice a call: slots set directly (`_messages.slot_init`)
@dataclass(frozen=True, slots=True)
class Report:
    """Tokens before and after, whether the result fits, and what was done."""

    _tokens_before: int | Callable[[], int] = field(compare=False, repr=False)
    """The input's tokens, or how to count them (rule 4): read `tokens_before`."""
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
    newest turns, the constraint card, fixed overhead and, where turns must alternate, the
    bridges those turns need between them (at least one). Over the budget means no
    compaction can fit, short of keeping a turn that costs less than a bridge."""

    @property
    def tokens_before(self) -> int:
        """Tokens of the input, counted exactly (on first read, rule 4)."""
        value = self._tokens_before
        if not isinstance(value, int):
            value = value()
            object.__setattr__(self, "_tokens_before", value)
        return value

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Report):
            return NotImplemented
        return self.tokens_before == other.tokens_before and self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        names = [f.name for f in dataclasses.fields(self)[1:]]
        fields = ", ".join(f"{n}={v!r}" for n, v in zip(names, self._fields(), strict=True))
        return f"Report(tokens_before={self.tokens_before!r}, {fields})"

    def __getstate__(self) -> list[object]:
        return [self.tokens_before, *self._fields()]

    def __setstate__(self, state: list[object]) -> None:
        for f, value in zip(dataclasses.fields(self), state, strict=True):
            object.__setattr__(self, f.name, value)

    def _fields(self) -> tuple[object, ...]:
        return tuple(getattr(self, f.name) for f in dataclasses.fields(self)[1:])

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
        data: dict[str, object] = {"tokens_before": self.tokens_before}
        data.update((f.name, getattr(self, f.name)) for f in dataclasses.fields(self)[1:])
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


def agreed_reason(verdict: str, *, after: int, budget: int, target: int, protected: int) -> str:
    """The reason for an output of `after` tokens, from the plan's `verdict` (rule 5)."""
    if after > budget:
        return _over(verdict, after=after, budget=budget, protected=protected)
    if not verdict.startswith(NOT_FIT):
        return verdict
    if after <= target:
        return "compacted to the target"
    above = "compacted within the budget but above the target"
    if protected <= target:
        return above
    return f"{above}: what must stay needs {protected} tokens, over the target of {target}"


def _over(verdict: str, *, after: int, budget: int, protected: int) -> str:
    """The reason for an output over its budget (rule 5)."""
    if protected > budget:
        return (
            f"{NOT_FIT}: what must stay (the system prompt, pins, the latest user turn and "
            f"the opening step of a thinking turn in progress) needs {protected} tokens "
            f"at its smallest, over the budget of {budget}"
        )
    shown = max(after, budget, protected)
    if verdict.startswith(NOT_FIT) and all(
        int(n.replace(",", "")) <= shown for n in _FIGURE.findall(verdict)
    ):
        return verdict
    return f"{NOT_FIT}: {after} tokens after compaction, over the budget of {budget}"


_FIGURE: Final = re.compile(r"\d[\d,]*")
"""A figure in a reason."""


def recounted(report: Report, after: int) -> Report:
    """`report` for an output counted at `after` tokens: `fits` and `reason` agree with it."""
    reason = agreed_reason(
        report.reason,
        after=after,
        budget=report.budget,
        target=report.target,
        protected=report.protected_tokens,
    )
    return dataclasses.replace(
        report, tokens_after=after, fits=after <= report.budget, reason=reason
    )
