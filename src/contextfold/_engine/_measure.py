"""Token counts of one compaction's input messages, counted when first asked.

Rules:
1. An input message is counted exactly only when something asks, and its count is kept:
   the planner measures the units that decide where to cut, newest first, and messages
   folded or dropped before anything needed their counts are never counted.
2. `over(limit)` says whether the messages total more than `limit`, taking what is
   already counted, then counting the system prefix (always protected: the plan counts
   it anyway), then newest first, only until they do; `total()` counts them all (a
   report's `tokens_before` asks for it only when read).
3. As a TokenCounter, a message is counted by the inner counter (the packaged counters
   cache per text, so an input message asked about again costs lookups). `floor` bounds
   a message from below without counting when the inner counter can (`BoundedCounter`),
   else it is 0.
4. `later()` is the total as a report keeps it: a number when every message is counted,
   else a callable holding only the messages not counted yet (a report outlives the
   call; the rest of the input need not).
5. A view's `over(limit)` (the messages a compaction plans over) takes what is already
   counted first, then counts the rest newest first, only until they are over: the same
   answer as summing them all, without counting what the answer does not need.
6. A packaged counter's parts add up (`packaged`): a message costs its framing plus
   each part's own count, and its floor is the framing plus each part's own floor, so
   what a message keeps of itself costs it no more than the whole does.
7. A packaged counter's floor (`packaged`) never falls when a line is added to a text
   of a message: it is the framing plus, per text, a token per run of non-space characters
   (scaled up) or nothing, and a line break ends a run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import chain, compress, repeat
from operator import is_
from typing import Final

from .._messages import Message
from .._tokens._counters import HeuristicCounter, HFTokenizerCounter, TiktokenCounter
from .._tokens._protocol import TokenCounter, is_bounded

_SYSTEM = frozenset({"system", "developer"})
"""Roles of the system prefix (`_planning/_units` rule 1): always protected, so counted."""


class Counts:
    """Exact counts of `messages`, counted on demand (or given, when already known)."""

    __slots__ = ("_counts", "_inner", "_keep", "count", "floor")

    def __init__(
        self, inner: TokenCounter, messages: Sequence[Message], known: Sequence[int] | None = None
    ) -> None:
        self._inner = inner
        self._keep = tuple(messages)
        self._counts: list[int | None] = [None] * len(self._keep) if known is None else [*known]
        self.count: Callable[[Message], int] = inner.count
        """TokenCounter: the inner counter's count (rule 3; counters cache per text, so
        asking again about an input message costs lookups, and no index of every input
        message by identity is kept). The inner method itself: no call in between."""
        self.floor: Callable[[Message], int] = _floor_of(inner)
        """A lower bound of `count(message)` that counts nothing (rule 3)."""

    def __len__(self) -> int:
        return len(self._keep)

    def view(self, messages: Sequence[Message], origins: Sequence[int | None]) -> BodyCounts:
        """Counts of `messages` (input message `origins[i]`, or a message the engine made
        when None), sharing these counts: no second index of every message."""
        return BodyCounts(self, messages, origins)

    def __getitem__(self, i: int) -> int:
        """The exact count of input message `i`."""
        known = self._counts[i]
        if known is None:
            known = self._counts[i] = self._inner.count(self._keep[i])
        return known

    def message(self, i: int) -> Message:
        """Input message `i`."""
        return self._keep[i]

    def over(self, limit: int) -> bool:
        """Whether the messages total more than `limit` (rule 2): what is already counted
        first, then the system prefix (the plan counts it anyway), then newest first."""
        counts, keep, count = self._counts, self._keep, self.count
        total = sum(filter(None, counts))  # the counts known (a 0 adds nothing): in C
        if total > limit:
            return True
        lead = next((i for i, m in enumerate(keep) if m.role not in _SYSTEM), len(keep))
        for i in chain(range(lead), range(len(keep) - 1, lead - 1, -1)):
            if counts[i] is None:  # `self[i]`, without a call per message
                known = counts[i] = count(keep[i])
                total += known
                if total > limit:
                    return True
        return False

    def tally(self, messages: Sequence[Message], origins: Sequence[int | None]) -> int:
        """The exact total of `messages` (input message `origins[i]`, or a message the
        engine made when None): an input message's count is read, or counted and kept."""
        counts, keep, count = self._counts, self._keep, self.count
        total = 0
        for message, origin in zip(messages, origins, strict=True):
            if origin is None or keep[origin] is not message:
                total += count(message)
                continue
            known = counts[origin]
            if known is None:
                known = counts[origin] = count(message)
            total += known
        return total

    def total(self) -> int:
        """The exact total of every message."""
        return sum(self[i] for i in range(len(self._keep)))

    def later(self, extra: int = 0) -> int | Callable[[], int]:
        """`extra` + the exact total: now when every message is counted, else a callable
        that counts the rest when first called (rule 4), holding only those messages and
        the inner counter, not the whole input."""
        counts = self._counts
        known = extra + sum(filter(None, counts))  # a 0 adds nothing: in C
        rest = tuple(compress(self._keep, map(is_, counts, repeat(None))))
        return _Rest(known, rest, self._inner.count) if rest else known


class _Rest:
    """A total still to count: what is known and the messages not counted yet."""

    __slots__ = ("count", "known", "rest")

    def __init__(
        self, known: int, rest: tuple[Message, ...], count: Callable[[Message], int]
    ) -> None:
        self.known, self.rest, self.count = known, rest, count

    def __call__(self) -> int:
        return self.known + sum(map(self.count, self.rest))


def packaged(counter: TokenCounter) -> bool:
    """Whether `counter`, directly or inside `Counts`, is one of the packaged counters
    (matched by exact type: a subclass may count otherwise), whose counts and floors add up
    part by part (rule 6) and whose floor never falls as a line is added (rule 7)."""
    inner = counter._inner if isinstance(counter, Counts) else counter
    return type(inner) in _PACKAGED


_PACKAGED: Final = frozenset({HeuristicCounter, HFTokenizerCounter, TiktokenCounter})
"""The counters whose counts and floors rules 6 and 7 describe (matched by exact type)."""


def _floor_of(counter: TokenCounter) -> Callable[[Message], int]:
    if is_bounded(counter):
        return counter.count_floor
    return _nothing


def _nothing(message: Message) -> int:
    return 0


def bounds_nothing(counts: BodyCounts) -> bool:
    """Whether `counts.floor` is 0 for every message: the counter offers no floor (rule 3)."""
    return counts.floor is _nothing


class BodyCounts:
    """The counts of the messages a compaction plans over, by their input messages."""

    __slots__ = ("_made", "_messages", "_origins", "_parent", "count", "floor")

    def __init__(
        self, parent: Counts, messages: Sequence[Message], origins: Sequence[int | None]
    ) -> None:
        self._parent = parent
        self._messages = messages
        self._origins = origins
        self._made: dict[int, int] = {}
        """Counts of the messages the engine made (repairs), by position."""
        self.count: Callable[[Message], int] = parent.count
        """TokenCounter: as the input's counts."""
        self.floor: Callable[[Message], int] = parent.floor
        """A lower bound of `count(message)` (the input's counts' floor)."""

    def __getitem__(self, i: int) -> int:
        origin = self._origins[i]
        parent = self._parent
        if origin is not None and parent._keep[origin] is self._messages[i]:
            known = parent._counts[origin]  # the input's count, if already counted
            return parent[origin] if known is None else known
        found = self._made.get(i)
        if found is None:
            found = self._made[i] = parent.count(self._messages[i])
        return found

    def over(self, limit: int) -> bool:
        """Whether these messages total more than `limit` (rule 5): the counts already
        known first, newest first, then the others newest first, counted only until they do."""
        parent, made, messages, origins = self._parent, self._made, self._messages, self._origins
        keep, counts = parent._keep, parent._counts
        total = 0
        unknown: list[int] = []
        for i in range(len(messages) - 1, -1, -1):
            origin = origins[i]
            if origin is not None and keep[origin] is messages[i]:
                known = counts[origin]
            else:
                known = made.get(i)
            if known is None:
                unknown.append(i)
                continue
            total += known
            if total > limit:
                return True
        for i in unknown:
            total += self[i]
            if total > limit:
                return True
        return total > limit  # no message at all: over a negative limit
