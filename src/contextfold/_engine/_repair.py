"""Minimal repair of broken histories, so the output is valid (invariant I1).

Rules:
1. A tool call with no result (a run cut off mid-call) gets a synthetic error result,
   placed where the format expects it: its own message right after the exchange, or,
   when results travel in user messages, inside the exchange's result message.
2. A tool result no call asked for is removed from the conversation and archived.
3. Nothing else changes; every repair is described in a note for the report.
4. In an agent loop the last exchange may still be waiting for its results; those calls
   are left alone (`pending_tail`).
Message origins (the index each message had in the input) travel along, so pins and
droppable marks still find their messages.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .._messages import Message, Part, Text, ToolCall, ToolResult
from .._planning._units import Unit, UnitKind, carries_results, group_units
from ._shape import Shape

MISSING_RESULT = (
    "contextfold: this tool call has no recorded result (the run stopped before it "
    "returned); treat it as failed."
)


@dataclass(slots=True)
class Repaired:
    """Messages after repair, with their input origins and what was done."""

    messages: list[Message] = field(default_factory=list)
    origins: list[int | None] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    units: list[Unit] = field(default_factory=list)
    """Units of the input; they are the output's units too when nothing was repaired."""

    def add(self, message: Message, origin: int | None) -> None:
        self.messages.append(message)
        self.origins.append(origin)


def repair(
    messages: Sequence[Message],
    origins: Sequence[int | None],
    shape: Shape,
    archive: Callable[[Message | Part | str], str],
    *,
    pending_tail: bool = False,
) -> Repaired:
    """Repair dangling calls and stray results (rules 1-3).

    With `pending_tail`, calls of the last exchange are left unanswered: an agent loop
    is still waiting for their results.
    """
    out = Repaired(units=group_units(messages))
    units = list(out.units)
    if pending_tail and units and units[-1].dangling:
        units[-1] = dataclasses.replace(units[-1], dangling=())
    for unit in units:
        if unit.kind is UnitKind.ORPHAN:
            ref = archive(messages[unit.start])
            out.notes.append(
                f"message {origins[unit.start]}: removed a tool result with no call ({ref})"
            )
        elif unit.kind is UnitKind.EXCHANGE:
            _exchange(messages, origins, unit, shape=shape, archive=archive, out=out)
        else:
            for i in range(unit.start, unit.stop):
                out.add(messages[i], origins[i])
    return out


def _exchange(
    messages: Sequence[Message],
    origins: Sequence[int | None],
    unit: Unit,
    *,
    shape: Shape,
    archive: Callable[[Message | Part | str], str],
    out: Repaired,
) -> None:
    calls: Counter[str] = Counter(
        p.id for m in messages[unit.start : unit.stop] for p in m.parts if isinstance(p, ToolCall)
    )
    last_carrier: int | None = None
    for i in range(unit.start, unit.stop):
        message = _drop_strays(messages[i], calls, origins[i], archive, out)
        if message is None:
            continue
        if carries_results(message):
            last_carrier = len(out.messages)
        out.add(message, origins[i])
    if unit.dangling:
        _answer(unit.dangling, origins[unit.start], shape, last_carrier, out)


def _drop_strays(
    message: Message,
    calls: Counter[str],
    origin: int | None,
    archive: Callable[[Message | Part | str], str],
    out: Repaired,
) -> Message | None:
    if not carries_results(message):
        return message
    kept: list[Part] = []
    for part in message.parts:
        if isinstance(part, ToolResult):
            if calls[part.call_id] <= 0:
                ref = archive(part)
                out.notes.append(
                    f"message {origin}: removed a result for unknown call {part.call_id!r} ({ref})"
                )
                continue
            calls[part.call_id] -= 1
        kept.append(part)
    if len(kept) == len(message.parts):
        return message
    return dataclasses.replace(message, parts=tuple(kept)) if kept else None


def _answer(
    dangling: tuple[str, ...],
    origin: int | None,
    shape: Shape,
    last_carrier: int | None,
    out: Repaired,
) -> None:
    results = tuple(
        ToolResult(call_id, (Text(MISSING_RESULT),), is_error=True) for call_id in dangling
    )
    for call_id in dangling:
        out.notes.append(f"message {origin}: added an error result for unanswered call {call_id!r}")
    if shape.results_in_user:
        if last_carrier is not None:
            carrier = out.messages[last_carrier]
            out.messages[last_carrier] = dataclasses.replace(
                carrier, parts=_after_results(carrier.parts, results)
            )
        else:
            out.add(Message("user", results), None)
        return
    for result in results:
        out.add(Message("tool", (result,)), None)


def _after_results(parts: tuple[Part, ...], results: tuple[ToolResult, ...]) -> tuple[Part, ...]:
    """Insert `results` after the existing results, before any other content."""
    last = max((i for i, p in enumerate(parts) if isinstance(p, ToolResult)), default=-1)
    return (*parts[: last + 1], *results, *parts[last + 1 :])
