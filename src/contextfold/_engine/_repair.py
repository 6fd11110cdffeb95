"""Minimal repair of broken histories, so the output is valid (invariant I1).

Rules:
1. A tool call with no result (a run cut off mid-call) gets a synthetic error result,
   placed where the format expects it, next to the message that made the call: its own
   message after the results that follow that message, or, when results travel in user
   messages, inside the result message right after it (a new one if there is none).
2. A tool result no call asked for is removed from the conversation and archived (not
   an Opaque wire item in a tool message: its call may be one the model cannot see).
3. Where each result message must follow its call's message (OpenAI chat), a result
   that follows another assistant message moves up, next to the call it answers.
4. Where results travel in user messages (Anthropic), a call id used before is renamed
   (`id_2`, ...) together with the result that answers it, and results move before the
   other content of their message, as the API requires.
5. Where turns must alternate (Anthropic), a place where they do not is noted, so the
   engine bridges it (a first assistant turn, two user turns in a row ...). Only where
   the input itself did not alternate: turns that meet once compaction artifacts and
   their bridges are lifted out were no fault of the input (they are bridged anyway).
6. Nothing else changes; every repair is described in a note for the report. What a
   repair cannot fix (empty content, say) is left for validation to reject.
7. In an agent loop the last exchange may still be waiting for its results; those calls
   are left alone (`pending_tail`). A request continuing a stored response answers calls
   that are not in the messages; such results are left alone too (`outside_calls`).
Message origins (the index each message had in the input) travel along, so pins and
droppable marks still find their messages.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .._messages import Message, Part, Text, ToolCall, ToolResult
from .._planning._units import Unit, UnitKind, carries_results, grouped, holds_result
from ._shape import Shape, alternation_gaps

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
    outside_calls: bool = False,
    input_gaps: frozenset[int] | None = None,
) -> Repaired:
    """Repair dangling calls, stray results and (rule 3) reused ids and result order.

    With `pending_tail`, calls of the last exchange are left unanswered: an agent loop
    is still waiting for their results. With `outside_calls`, a result with no call
    before it stays: it answers a call of a stored response (rule 7). With `input_gaps`
    (the origins where the input as given did not alternate), only those places are
    noted (rule 5).
    """
    units, plain = grouped(messages)
    out = Repaired(units=units)
    units = list(units)
    waiting = pending_tail and bool(units) and bool(units[-1].dangling)
    if waiting:
        units[-1] = dataclasses.replace(units[-1], dangling=())
    used: set[str] = set()
    whole = 0  # messages from here to the unit at hand need no repair: they pass through
    sound_ok = not shape.results_in_user  # results in user turns need their ids checked
    for unit, simple in zip(units, plain, strict=True):
        if (
            unit.kind is UnitKind.ORPHAN
            and not outside_calls
            and holds_result(messages[unit.start])
        ):
            _pass(messages, origins, whole, unit.start, out)
            ref = archive(messages[unit.start])
            out.notes.append(
                f"message {origins[unit.start]}: removed a tool result with no call ({ref})"
            )
        elif unit.kind is UnitKind.EXCHANGE and not (simple and sound_ok):
            _pass(messages, origins, whole, unit.start, out)
            window = slice(unit.start, unit.stop)
            span = list(zip(messages[window], origins[window], strict=True))
            if shape.results_in_user:
                span = _unique_ids(span, used, out.notes)
            tail = waiting and unit is units[-1]
            _exchange(
                span,
                (bool(unit.dangling), tail, outside_calls),
                shape=shape,
                archive=archive,
                out=out,
            )
        else:  # nothing to repair (a plain exchange passes through whole)
            continue
        whole = unit.stop
    _pass(messages, origins, whole, len(messages), out)
    if shape.alternate:
        for k in alternation_gaps(out.messages):
            origin = out.origins[k]
            if input_gaps is None or origin is None or origin in input_gaps:
                out.notes.append(f"message {origin}: bridged turns that did not alternate")
    return out


def _pass(
    messages: Sequence[Message], origins: Sequence[int | None], start: int, stop: int, out: Repaired
) -> None:
    """Messages `start`..`stop` as they are: a run of units with nothing to repair."""
    if start < stop:
        out.messages += messages[start:stop]
        out.origins += origins[start:stop]


_Span = list[tuple[Message, int | None]]


def _exchange(
    span: _Span,
    flags: tuple[bool, bool, bool],
    *,
    shape: Shape,
    archive: Callable[[Message | Part | str], str],
    out: Repaired,
) -> None:
    """Repair one exchange; `flags`: it has dangling calls, it is the pending tail, and its
    results may answer calls the input does not show (rule 7)."""
    dangling, tail, outside = flags
    calls: Counter[str] = Counter(p.id for m, _ in span for p in m.parts if isinstance(p, ToolCall))
    kept: _Span = []
    for message, origin in span:
        fixed = message if outside else _drop_strays(message, calls, origin, archive, out)
        if fixed is not None:
            if shape.results_in_user:
                fixed = _results_first(fixed, origin, out.notes)
            kept.append((fixed, origin))
    immediate = shape.results_follow_calls and not shape.results_in_user
    if immediate:
        kept = _regrouped(kept, out.notes)
    owed = _owed(kept, immediate) if dangling or immediate else {}
    if tail:  # the loop still waits for the newest calls' results (rule 7)
        owed.pop(max(k for k, (m, _) in enumerate(kept) if m.role == "assistant"), None)
    for k, call_ids in sorted(owed.items(), reverse=True):
        _answer(kept, k, call_ids, shape, out.notes)
    for message, origin in kept:
        out.add(message, origin)


def _regrouped(kept: _Span, notes: list[str]) -> _Span:
    """Rule 3: each assistant message followed by the results of its own calls."""
    callers = [k for k, (m, _) in enumerate(kept) if m.role == "assistant"]
    if len(callers) < 2:
        return kept
    waiting: dict[str, list[int]] = {}
    for k in callers:
        for call in (p for p in kept[k][0].parts if isinstance(p, ToolCall)):
            waiting.setdefault(call.id, []).append(k)
    answers: dict[int, _Span] = {k: [] for k in callers}
    for message, origin in kept:
        if message.role == "assistant":
            continue
        ids = [p.call_id for p in message.parts if isinstance(p, ToolResult)]
        owner = waiting[ids[0]].pop(0) if ids and waiting.get(ids[0]) else callers[-1]
        answers[owner].append((message, origin))
    out: _Span = []
    for k in callers:
        out.append(kept[k])
        out.extend(answers[k])
    if out != kept:
        notes.append(f"message {kept[0][1]}: moved tool results next to the calls they answer")
    return out


def _owed(kept: _Span, immediate: bool) -> dict[int, list[str]]:
    """Calls no result answers, by the position of the message that made them; with
    `immediate`, a call is owed once another assistant message follows it unanswered."""
    pending: list[tuple[str, int]] = []
    owed: dict[int, list[str]] = {}
    for k, (message, _) in enumerate(kept):
        if message.role == "assistant":
            if immediate:
                for call_id, caller in pending:
                    owed.setdefault(caller, []).append(call_id)
                pending = []
            pending.extend((p.id, k) for p in message.parts if isinstance(p, ToolCall))
        for result in (p for p in message.parts if isinstance(p, ToolResult)):
            at = next((j for j, (c, _) in enumerate(pending) if c == result.call_id), None)
            if at is not None:
                del pending[at]
    for call_id, k in pending:
        owed.setdefault(k, []).append(call_id)
    return owed


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


def _answer(kept: _Span, k: int, call_ids: list[str], shape: Shape, notes: list[str]) -> None:
    """Put error results for `call_ids` (made by kept[k]) where the format wants them."""
    origin = kept[k][1]
    results = tuple(
        ToolResult(call_id, (Text(MISSING_RESULT),), is_error=True) for call_id in call_ids
    )
    for call_id in call_ids:
        notes.append(f"message {origin}: added an error result for unanswered call {call_id!r}")
    after = k + 1
    if shape.results_in_user:
        if after < len(kept) and carries_results(kept[after][0]):
            carrier, at = kept[after]
            kept[after] = (dataclasses.replace(carrier, parts=_after_results(carrier, results)), at)
        else:
            kept.insert(after, (Message("user", results), None))
        return
    while after < len(kept) and carries_results(kept[after][0]):
        after += 1
    for offset, result in enumerate(results):
        kept.insert(after + offset, (Message("tool", (result,)), None))


def _after_results(message: Message, results: tuple[ToolResult, ...]) -> tuple[Part, ...]:
    """Insert `results` after the existing results, before any other content."""
    parts = message.parts
    last = max((i for i, p in enumerate(parts) if isinstance(p, ToolResult)), default=-1)
    return (*parts[: last + 1], *results, *parts[last + 1 :])


def _results_first(message: Message, origin: int | None, notes: list[str]) -> Message:
    """Rule 3: tool results before the other content of a user message."""
    parts = message.parts
    first_other = next((i for i, p in enumerate(parts) if not isinstance(p, ToolResult)), None)
    if first_other is None or not any(isinstance(p, ToolResult) for p in parts[first_other:]):
        return message
    notes.append(f"message {origin}: moved tool results before the other content")
    results = tuple(p for p in parts if isinstance(p, ToolResult))
    return dataclasses.replace(
        message, parts=results + tuple(p for p in parts if not isinstance(p, ToolResult))
    )


def _unique_ids(span: _Span, used: set[str], notes: list[str]) -> _Span:
    """Rule 3: a call id used before is renamed, and so is the result answering it."""
    names: dict[str, list[str]] = {}
    """Per original id, the name of each of its calls in order (results follow in order)."""
    out: _Span = []
    for message, origin in span:
        parts = tuple(_fresh(p, used, names, origin, notes) for p in message.parts)
        parts = tuple(_follow(p, names) for p in parts)
        changed = any(a is not b for a, b in zip(parts, message.parts, strict=True))
        out.append((dataclasses.replace(message, parts=parts) if changed else message, origin))
    return out


def _fresh(
    part: Part, used: set[str], names: dict[str, list[str]], origin: int | None, notes: list[str]
) -> Part:
    if not isinstance(part, ToolCall):
        return part
    fresh, n = part.id, 2
    while fresh in used:
        fresh, n = f"{part.id}_{n}", n + 1
    used.add(fresh)
    names.setdefault(part.id, []).append(fresh)
    if fresh == part.id:
        return part
    notes.append(f"message {origin}: renamed reused tool call id {part.id!r} to {fresh!r}")
    return dataclasses.replace(part, id=fresh)


def _follow(part: Part, names: dict[str, list[str]]) -> Part:
    if not isinstance(part, ToolResult) or not names.get(part.call_id):
        return part
    fresh = names[part.call_id].pop(0)
    return part if fresh == part.call_id else dataclasses.replace(part, call_id=fresh)
