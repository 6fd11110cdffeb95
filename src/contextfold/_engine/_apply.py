"""Apply a plan to the grouped messages: keep, prune, mask, fold or drop each unit.

Rules:
1. Units are applied whole and in order, each run of units with one action in one step (a
   trimmed unit on its own); survivors keep their relative order (I2).
2. Every payload that leaves (fold, drop) or shrinks (prune, mask) is archived first,
   and its reference is recorded for the report (I5). Counts come from these actions
   (one per marker made), never from what the text happens to contain.
3. Folded messages are collected, with their references, for the summarizer.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import groupby
from typing import Protocol

from .._messages import Message, Part
from .._planning._plan import Action, Plan
from .._planning._units import Unit
from .._report import SummaryInfo
from .._tokens._protocol import TokenCounter
from ._transform import PruneSize, mask_message, prune_message
from ._trim import trim_span


class Archiver(Protocol):
    """Where originals go; `put` returns the reference shown in markers."""

    def put(self, item: Message | Part | str, *, label: str | None = None) -> str:
        """Store `item`; the same content always gets the same reference."""
        ...

    def holds(self, item: Message | Part | str) -> bool:
        """Whether `item` is stored (the proof that contextfold made an artifact)."""
        ...

    def get(self, ref: str) -> Message | Part | str:
        """The item stored under `ref`; UnknownReference when there is none."""
        ...


@dataclass(slots=True)
class Applied:
    """The result of applying a plan, before the preamble is rebuilt."""

    messages: list[Message] = field(default_factory=list)
    origins: list[int | None] = field(default_factory=list)
    """Input index of each output message (None for messages the engine made)."""
    folded: list[Message] = field(default_factory=list)
    first_folded: int | None = None
    """Input index of the first folded message: where the summary goes."""
    timeline: list[tuple[int, Message, str | None]] = field(default_factory=list)
    """(input index, message, archive ref) of every folded or dropped message (with its
    ref) and every kept user message (ref None), in input order: what the card reads."""
    folded_refs: list[str] = field(default_factory=list)
    dropped: list[Message] = field(default_factory=list)
    dropped_refs: list[str] = field(default_factory=list)
    refs: list[str] = field(default_factory=list)
    pruned: int = 0
    masked: int = 0
    summaries: list[SummaryInfo] = field(default_factory=list)

    @property
    def removed(self) -> bool:
        """True when some message was folded or dropped."""
        return bool(self.folded or self.dropped)


@dataclass(frozen=True, slots=True)
class Tools:
    """What applying a plan needs besides the plan."""

    prune: PruneSize
    prose_over: int
    counter: TokenCounter
    archive: Archiver


def apply_plan(
    body: Sequence[Message],
    origins: Sequence[int | None],
    units: Sequence[Unit],
    plan: Plan,
    tools: Tools,
) -> Applied:
    """Carry out `plan` (rules 1-3) on `units`, which partition `body` in order."""
    if len(units) != len(plan.actions):
        raise ValueError(f"{len(plan.actions)} actions for {len(units)} units")
    out = Applied()

    def ref(item: Part) -> str:
        value = tools.archive.put(item)
        out.refs.append(value)
        return value

    for action, start, stop, allowance in _runs(units, plan):
        span, where = body[start:stop], origins[start:stop]
        if action is Action.FOLD or action is Action.DROP:
            _remove(span, where, action is Action.FOLD, tools, out)
            continue
        if action is Action.KEEP:
            out.messages.extend(span)
        elif allowance is not None:
            _trim(span, allowance, tools, ref, out)
        else:
            for message in span:
                _apply_one(message, action, tools, ref, out)
        out.origins.extend(where)  # one message out per message in
        users = zip(span, where, strict=True)  # kept user messages: the card reads them
        out.timeline.extend([(o, m, None) for m, o in users if o is not None and m.role == "user"])
    return out


def _runs(units: Sequence[Unit], plan: Plan) -> Iterator[tuple[Action, int, int, int | None]]:
    """(action, start, stop, allowance) of each maximal run of units with one action, as
    message ranges, taken in one step; a unit the plan trims is a run of its own."""
    k = 0
    for action, run in groupby(plan.actions):
        first, k = k, k + len(list(run))
        if action is Action.TRIM and plan.allowances:
            for j in range(first, k):
                yield action, units[j].start, units[j].stop, plan.allowance(j)
        else:
            yield action, units[first].start, units[k - 1].stop, None


def _remove(
    messages: Sequence[Message],
    origins: Sequence[int | None],
    fold: bool,
    tools: Tools,
    out: Applied,
) -> None:
    """Archive a folded or dropped unit's messages; note each on the timeline with its ref."""
    values = list(map(tools.archive.put, messages))
    out.refs.extend(values)
    (out.folded if fold else out.dropped).extend(messages)
    (out.folded_refs if fold else out.dropped_refs).extend(values)
    out.timeline.extend(
        [(o, m, v) for m, o, v in zip(messages, origins, values, strict=True) if o is not None]
    )
    if fold and out.first_folded is None:
        out.first_folded = next((o for o in origins if o is not None), None)


def _trim(span: Sequence[Message], allowance: int, tools: Tools, ref: _RefFn, out: Applied) -> None:
    made = len(out.refs)
    prune = tools.prune
    trimmed = trim_span(span, ref, allowance, prune.head_share, tools.counter, recall=prune.recall)
    out.messages.extend(trimmed)
    out.pruned += len(out.refs) - made


def _apply_one(message: Message, action: Action, tools: Tools, ref: _RefFn, out: Applied) -> None:
    """Prune or mask one message (TRIM without an allowance prunes)."""
    made = len(out.refs)
    if action is Action.MASK:
        out.messages.append(mask_message(message, ref, tools.prose_over, tools.counter))
        out.masked += len(out.refs) - made
    else:
        out.messages.append(prune_message(message, ref, tools.prune, tools.counter))
        out.pruned += len(out.refs) - made  # one reference per marker this step made


class _RefFn(Protocol):
    def __call__(self, item: Part, /) -> str: ...
