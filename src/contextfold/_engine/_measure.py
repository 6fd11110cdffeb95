"""Token counts of one compaction's input messages, counted when first asked.

Rules:
1. A message is counted exactly at most once per compaction, and only when something
   asks: the planner measures the units that decide where to cut, newest first, and the
   messages folded or dropped before anything needed their counts are never counted.
2. `over(limit)` says whether the messages total more than `limit`, counting newest
   first only until they do; `total()` counts them all (a report's `tokens_before`
   asks for it only when read).
3. As a TokenCounter, an input message (by identity) has its remembered count; any other
   message is counted by the inner counter. `floor` bounds a message from below without
   counting when the inner counter can (`BoundedCounter`), else it is 0.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .._messages import Message
from .._tokens._protocol import TokenCounter, is_bounded


class Counts:
    """Exact counts of `messages`, counted on demand (or given, when already known)."""

    __slots__ = ("_counts", "_index", "_inner", "_keep", "floor")

    def __init__(
        self, inner: TokenCounter, messages: Sequence[Message], known: Sequence[int] | None = None
    ) -> None:
        self._inner = inner
        self._keep = tuple(messages)  # keeps the ids below valid for the compaction's lifetime
        self._index = {id(m): i for i, m in enumerate(self._keep)}
        self._counts: list[int | None] = [None] * len(self._keep) if known is None else [*known]
        self.floor: Callable[[Message], int] = _floor_of(inner)
        """A lower bound of `count(message)` that counts nothing (rule 3)."""

    def __len__(self) -> int:
        return len(self._keep)

    def __getitem__(self, i: int) -> int:
        """The exact count of input message `i`."""
        known = self._counts[i]
        if known is None:
            known = self._counts[i] = self._inner.count(self._keep[i])
        return known

    def count(self, message: Message) -> int:
        """TokenCounter: an input message's count, or the inner counter's (rule 3)."""
        i = self._index.get(id(message))
        return self[i] if i is not None else self._inner.count(message)

    def over(self, limit: int) -> bool:
        """Whether the messages total more than `limit`, counted newest first until they do."""
        total = 0
        for i in range(len(self._keep) - 1, -1, -1):
            total += self[i]
            if total > limit:
                return True
        return False

    def total(self) -> int:
        """The exact total of every message."""
        return sum(self[i] for i in range(len(self._keep)))


def _floor_of(counter: TokenCounter) -> Callable[[Message], int]:
    if isinstance(counter, Counts):
        return counter.floor
    if is_bounded(counter):
        return counter.count_floor
    return _nothing


def _nothing(message: Message) -> int:
    return 0
