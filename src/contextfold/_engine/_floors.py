"""The floor of a unit: a lower bound of its tokens in any form but folded or dropped.

Rules:
1. A unit's floor counts only what every form keeps, with the counter's cheap lower bound.
   The planner only asks whether a floor is over some room, so it starts from every
   message's framing (the floor of the message without its parts, read once per role and
   name) and adds the rest message by message only until it is over (what was added up
   is kept for the next ask).
2. With a counter whose parts add up (`_measure.packaged`), a floor is
   tighter, message by message: what every form keeps, counted exactly, plus the least of
   the rest's floor and REF_TOKENS_MAX (what a form leaves of a result or a long text is
   either all of it, or a marker whose reference an estimate prices at REF_TOKENS_MAX).
   The exact count is taken only when the cheap floor of that message does not already
   settle the ask, so a floor asked only whether it is over 0 still counts nothing.
3. With a counter that offers no floor (every cheap floor 0), nothing is known of how it
   counts a form's parts, but a message that every form keeps as it is (no tool result,
   image or maskable text) is the same message in every form and costs its own count
   there; any other message costs at least 0 (a count is never negative). So a floor adds
   up the counts of those messages, counted only until it is over the ask (kept, as by
   rule 1); it holds for any counter, monotone or not.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence

from .._messages import Image, Message, Part, Text, ToolResult
from .._planning._units import Unit
from ._measure import BodyCounts, bounds_nothing
from ._transform import REF_TOKENS_MAX


class Floors:
    """Each unit's floor, added up only as far as the planner has asked (rule 1)."""

    __slots__ = (
        "_counts",
        "_exact_kept",
        "_floors",
        "_framings",
        "_identity",
        "_messages",
        "_prose_over",
        "_units",
    )

    def __init__(
        self,
        units: Sequence[Unit],
        messages: Sequence[Message],
        counts: BodyCounts,
        prose_over: int,
        *,
        exact: bool,
    ) -> None:
        self._units = units
        self._messages = messages
        self._counts = counts
        self._prose_over = prose_over
        self._exact_kept = exact
        """Whether a floor may count what every form keeps exactly (rule 2)."""
        self._identity = not exact and bounds_nothing(counts)
        """Whether a floor counts the messages every form keeps as they are (rule 3)."""
        self._floors: dict[int, tuple[int, int]] = {}
        """Per unit, its floor so far and the first message whose parts it lacks (rule 1)."""
        self._framings: dict[tuple[str, str | None], int] = {}
        """The floor of a message without parts, by role and name."""

    def floor(self, unit: int, above: int) -> int:
        """A lower bound of the unit's tokens under any action but fold and drop: what
        every form keeps (rule 1), bounded without counting, and only until over `above`."""
        u = self._units[unit]
        found = self._floors.get(unit)
        if found is None:  # from the framings (with no counter floor, each is 0: rule 3)
            found = 0, u.start
            if not self._identity:
                found = sum(map(self._framing, self._messages[u.start : u.stop])), u.start
        total, at = found
        if total <= above and at < u.stop:
            if self._exact_kept:
                return self._exact_floor(unit, above, total, at)
            if self._identity:
                return self._identity_floor(unit, above, total, at)
            floor, prose, messages = self._counts.floor, self._prose_over, self._messages
            while total <= above and at < u.stop:
                message = messages[at]
                total += floor(_kept(message, prose)) - self._framing(message)
                at += 1
            found = total, at
        self._floors[unit] = found
        return total

    def _exact_floor(self, unit: int, above: int, total: int, at: int) -> int:
        """`floor` by rule 2 from `total` (every message before `at` added): a message's
        cheap floor first; its exact one only when the cheap one leaves the answer open
        (then it is added up and kept, as the cheap floor is by rule 1)."""
        stop = self._units[unit].stop
        counts, prose, messages = self._counts, self._prose_over, self._messages
        floor = counts.floor
        while total <= above and at < stop:
            message = messages[at]
            kept = _kept(message, prose)
            kept_floor = floor(kept)
            rest = min(floor(message) - kept_floor, REF_TOKENS_MAX) if kept is not message else 0
            cheap = kept_floor + rest - self._framing(message)
            if total + cheap > above:  # settled without counting; nothing kept for it
                self._floors[unit] = total, at
                return total + cheap
            exact = counts[at] if kept is message else counts.count(kept)
            total += exact + rest - self._framing(message)
            at += 1
        self._floors[unit] = total, at
        return total

    def _identity_floor(self, unit: int, above: int, total: int, at: int) -> int:
        """`floor` by rule 3 from `total` (every message before `at` added): the count of
        each message every form keeps as it is, nothing for the others (nor for framings:
        the counter's floors are all 0)."""
        stop = self._units[unit].stop
        counts, prose, messages = self._counts, self._prose_over, self._messages
        while total <= above and at < stop:
            if _kept_whole(messages[at], prose):
                total += counts[at]
            at += 1
        self._floors[unit] = total, at
        return total

    def _framing(self, message: Message) -> int:
        """The floor of `message` without its parts: no form of it costs less (parts only
        add tokens), and it reads no text."""
        key = (message.role, message.name)
        found = self._framings.get(key)
        if found is None:
            bare = Message(message.role, (), name=message.name)
            found = self._framings[key] = self._counts.floor(bare)
        return found


def _kept(message: Message, prose_over: int) -> Message:
    """The parts of `message` that pruning, masking and trimming all leave as they are:
    tool results without their content; no images, nor assistant text that may be masked."""
    parts: list[Part] = []
    for part in message.parts:
        match part:
            case ToolResult():
                parts.append(ToolResult(part.call_id, ()))
            case Image():
                continue
            case Text() if message.role == "assistant" and len(part.text) > prose_over:
                continue
            case _:
                parts.append(part)
    if len(parts) == len(message.parts) and all(map(operator.is_, parts, message.parts)):
        return message  # nothing left out: the message itself (every form keeps its extras)
    return Message(message.role, tuple(parts), name=message.name)


def _kept_whole(message: Message, prose_over: int) -> bool:
    """Whether every form keeps `message` as it is (`_kept(message) is message`): it has no
    tool result, no image and no assistant text that may be masked."""
    assistant = message.role == "assistant"
    for part in message.parts:
        match part:
            case ToolResult() | Image():
                return False
            case Text() if assistant and len(part.text) > prose_over:
                return False
    return True
