"""How much of a span the ledger reads: what its bound can show, newest first.

Rules:
1. The reading scales with `max_tokens`, not with the span. Each source of a span has its
   own allowance of characters (`Reading`): the user's text, the agent's text and tool
   calls, tool output. One pass over the span, newest first, gives each source its newest
   parts until its allowance is spent (at least its newest part); that is many times what
   the bound can show, so a span that fits is read whole and gives the same ledger as
   before, and a longer one costs about what that much reading costs, whatever its length.
2. A part costs the characters the reader looks at, at most `PART_CHARS` (a tool output
   is read at its head and tail only); reasoning, images and opaque parts cost nothing,
   since they are never read.
3. The user's allowance goes to the span's first user text first (it states the task),
   then newest first. Earlier summaries inside the span (bounded ledgers already) are
   read at no cost as far back as the pass goes.
4. What was not read is said, not hidden (`unread_entry`): one short note names how many
   older messages the ledger did not read, in whole or in part; the span's archive entry
   (named in the summary's intro) lists every folded message, so they stay recallable.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import repeat
from typing import Final

from .._messages import Message, Summary, Text, ToolCall, ToolResult, part_text
from ._ledger_text import Entry
from ._ledger_values import AGENT, TOOL, USER

__all__ = ["UNREAD", "Reading", "Window", "reading", "source", "unread_entry", "window"]

PART_CHARS: Final = 8_000
"""No part costs more: `text_facts` reads a tool output's head and tail only."""
_CHARS_PER_TOKEN: Final = (8, 24, 24)
"""Characters read per token of the bound, by source: user, agent, tool (rule 1)."""
_MIN_CHARS: Final = (8_192, 8_192, 8_192)
"""What even the smallest ledger reads of each source."""
ALWAYS: Final = 3
"""The source of an earlier summary: read at no cost while the pass goes on (rule 3)."""
UNREAD: Final = "Not read: "
"""How the note about unread messages starts (rule 4); `_ledger_bound` ranks it by this."""


@dataclass(frozen=True, slots=True)
class Reading:
    """Characters the ledger reads from a span, by source: user, agent, tool (rule 1)."""

    chars: tuple[int, int, int]


def reading(max_tokens: int) -> Reading:
    """The reading of a ledger of `max_tokens` (rule 1)."""
    user, agent, tool = (
        max(least, per_token * max_tokens)
        for per_token, least in zip(_CHARS_PER_TOKEN, _MIN_CHARS, strict=True)
    )
    return Reading((user, agent, tool))


def source(message: Message, part: object) -> int | None:
    """Whose words `part` of `message` holds: USER, AGENT, TOOL, or ALWAYS for an earlier
    summary; None for what is never read."""
    match part:
        case Text():
            return _TEXT_SOURCES.get(message.role)
        case ToolCall():
            return AGENT
        case ToolResult():
            return TOOL
        case Summary():
            return ALWAYS
        case _:
            return None


_TEXT_SOURCES: Final = {"user": USER, "assistant": AGENT, "tool": TOOL}


@dataclass(frozen=True, slots=True)
class Window:
    """What a span's reading covers: the user's texts and earlier summaries of `extra`,
    the agent's parts from message `agent` on, tool output from message `tool` on."""

    agent: int
    tool: int
    extra: frozenset[int]
    unread: tuple[int, ...]
    """Messages with a part not read, oldest first."""

    @property
    def start(self) -> int:
        """The oldest message whose agent or tool parts are read."""
        return min(self.agent, self.tool)

    def indexes(self, size: int) -> list[int]:
        """The messages read in whole or in part, oldest first."""
        return sorted(i for i in self.extra if i < self.start) + list(range(self.start, size))

    def reads(self, index: int, kind: int | None) -> bool:
        """Whether a part of message `index` from source `kind` is read."""
        if kind == AGENT:
            return index >= self.agent
        if kind == TOOL:
            return index >= self.tool
        return kind is not None and index in self.extra


class _Walk:
    """The pass newest first: what each source has left, where it stopped (rules 1-3)."""

    __slots__ = ("extra", "left", "missed", "oldest", "open", "size")

    def __init__(self, size: int, limit: Reading) -> None:
        self.size = size
        self.left = list(limit.chars)
        self.oldest = [size, size, size]
        self.open = [True, True, True]
        self.extra: set[int] = set()
        self.missed: list[int] = []

    def take(self, index: int, costs: tuple[int, int, int], summary: bool) -> None:
        """Read what message `index` has for each source that can still pay for it."""
        missed = False
        for kind in (USER, AGENT, TOOL):
            cost = costs[kind]
            if not cost or (kind == USER and index in self.extra):
                continue
            newest = kind != USER and self.oldest[kind] == self.size
            if self.open[kind] and (cost <= self.left[kind] or newest):
                self.left[kind] -= cost
                self.oldest[kind] = index
                if kind == USER:
                    self.extra.add(index)
            else:
                self.open[kind] = False
                missed = True
        if summary and self.open[USER]:
            self.extra.add(index)
        elif summary:
            missed = True
        if missed:
            self.missed.append(index)


_SUMMARY: Final = repeat(Summary)
"""`isinstance`'s second argument for every part (`map`)."""


def window(messages: tuple[Message, ...], limit: Reading) -> Window:
    """The parts a ledger within `limit` reads (rules 1-3): one pass, newest first."""
    size = len(messages)
    walk = _Walk(size, limit)
    users = ((i, _costs(m)[USER]) for i, m in enumerate(messages) if m.role == "user")
    first, cost = next((found for found in users if found[1]), (None, 0))
    if first is not None and cost <= limit.chars[USER]:
        walk.left[USER] -= cost  # rule 3: the task first
        walk.extra.add(first)
    stop = 0
    for index in range(size - 1, -1, -1):
        if not any(walk.open):
            stop = index + 1
            break
        message = messages[index]
        if not (walk.open[AGENT] or walk.open[TOOL]) and message.role != "user":
            walk.missed.append(index)
            continue
        walk.take(index, _costs(message), any(map(isinstance, message.parts, _SUMMARY)))
    agent, tool = (walk.oldest[k] if not walk.open[k] else 0 for k in (AGENT, TOOL))
    unread = sorted(set(walk.missed) | (set(range(stop)) - walk.extra))
    return Window(agent, tool, frozenset(walk.extra), tuple(unread))


def _costs(message: Message) -> tuple[int, int, int]:
    """The characters the reader looks at in `message`, by source (rule 2): what `source`
    says of each part, told apart once."""
    costs = [0, 0, 0]
    text_kind = _TEXT_SOURCES.get(message.role)
    for part in message.parts:
        if isinstance(part, Text):
            if text_kind is not None:
                costs[text_kind] += min(PART_CHARS, len(part.text))
        elif isinstance(part, ToolCall):
            costs[AGENT] += min(PART_CHARS, len(part.arguments))
        elif isinstance(part, ToolResult):
            costs[TOOL] += min(PART_CHARS, sum(map(len, map(part_text, part.parts))))
    return costs[USER], costs[AGENT], costs[TOOL]


def unread_entry(unread: tuple[int, ...]) -> Entry | None:
    """The note naming how many messages were not read (rule 4), or None when all were."""
    if not unread:
        return None
    count = len(unread)
    noun = "message" if count == 1 else "messages"
    return Entry(
        "notes",
        f"{UNREAD}{count:,} older {noun}, in whole or in part (listed with every folded message)",
    )
