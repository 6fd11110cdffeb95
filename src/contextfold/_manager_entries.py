"""The manager's view as entries: each message with what it costs and how it renders.

Rules:
1. A turn costs O(new messages): every entry keeps its token count (by the uncalibrated
   counter) and its rendered wire form, so the view is neither recounted nor re-rendered.
2. The rendered view is kept in step with the entries between compactions; a compaction
   replaces the entries (a survivor keeps its entry, count and wire form) and the
   rendered view is made again once.
3. Anthropic's system prompt is not a message: its entries render to nothing, and
   `system_prompt()` gives the body's top-level `system` instead.
4. A compaction that would leave nothing to send raises (`emptied`): repair would have
   to remove everything.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ._adapters import Format, emptied, render
from ._messages import Conversation, Message, Text

_SKIP = object()


@dataclass(slots=True)
class Entry:
    """One message of the view with what it costs and how it renders."""

    message: Message
    seq: int | None
    """The number `add` gave it; None for messages compaction made."""
    raw: int
    """Tokens by the uncalibrated counter."""
    wire: object = None


class Entries:
    """The view's entries, their raw total and their rendered wire forms (rules 1-3)."""

    __slots__ = ("_count", "_wires", "format", "items", "raw_total")

    def __init__(self, format: Format, count: Callable[[Message], int]) -> None:
        self.format = format
        self._count = count
        self.items: list[Entry] = []
        self.raw_total = 0
        self._wires: list[object] | None = None

    def __len__(self) -> int:
        return len(self.items)

    def append(self, message: Message, seq: int | None) -> None:
        """Count one message and add it at the end (its wire form too, rule 2)."""
        entry = Entry(message, seq, self._count(message))
        self.items.append(entry)
        self.raw_total += entry.raw
        if self._wires is not None and (wire := self._wire(entry)) is not _SKIP:
            self._wires.append(wire)

    def messages(self) -> list[Message]:
        return [e.message for e in self.items]

    def indexes(self, seqs: Iterable[int]) -> frozenset[int]:
        """Positions in the view of the messages numbered `seqs`."""
        wanted = set(seqs)
        return frozenset(i for i, e in enumerate(self.items) if e.seq in wanted)

    def replace(self, messages: Sequence[Message], origins: Sequence[int | None]) -> None:
        """The view after a compaction: `origins[i]` is the old position of `messages[i]`,
        None for a message the compaction made (rules 2 and 4)."""
        sent = [m for m in messages if self.format != "anthropic" or m.role != "system"]
        if not sent and (wires := self.wires()):
            raise emptied(wires, self.format)  # repair would leave nothing to send
        old = self.items
        self.items = [
            old[o] if o is not None and old[o].message is m else self._made(m, o, old)
            for m, o in zip(messages, origins, strict=True)
        ]
        self.raw_total = sum(e.raw for e in self.items)
        self._wires = None

    def _made(self, message: Message, origin: int | None, old: list[Entry]) -> Entry:
        seq = old[origin].seq if origin is not None else None
        return Entry(message, seq, self._count(message))

    def wires(self) -> list[object]:
        """The rendered view (rule 2)."""
        if self._wires is None:
            self._wires = [w for w in map(self._wire, self.items) if w is not _SKIP]
        return self._wires

    def _wire(self, entry: Entry) -> object:
        """The entry's wire form, rendered once; Anthropic's system prompt is not a message."""
        if self.format == "anthropic" and entry.message.role == "system":
            return _SKIP  # carried outside the messages: see system_prompt()
        if entry.wire is None:
            rendered = render(Conversation((entry.message,)), self.format)
            assert isinstance(rendered, list)
            entry.wire = rendered[0]
        return entry.wire

    def system_prompt(self) -> str | list[Any] | None:
        """Anthropic's top-level `system` for the view (None for other formats, rule 3)."""
        system = tuple(e.message for e in self.items if e.message.role == "system")
        if self.format != "anthropic" or not system:
            return None
        probe = (*system, Message("user", (Text("."),)))
        body = render(Conversation(probe, shape="body"), self.format)
        return body.get("system") if isinstance(body, dict) else None
