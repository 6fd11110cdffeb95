"""Leave out of the ledger what the card carries and what the user has superseded.

Rules:
1. A text entry (goal, decision, state, note) that is one of the carried or stale
   statements, or a part of one, is dropped: the card shows the current statement, and a
   superseded one is never shown as current.
2. A value entry is dropped when a carried or stale statement contains it: the card
   carries it in the user's own words, or it is no longer current.
3. A text entry that names a stale value (one only the superseded statements state, or
   one a statement names as replaced: "not 3.12", "(X is out of date)") is dropped too,
   wherever it came from, and so is that value itself.
4. The ledger's own note on the messages it did not read (`_ledger_reading.UNREAD`) is
   not a statement: it is never left out.
5. Speed never changes what is left out. A value is quoted verbatim from its statement
   (`_facts` rule 1), so a stale value is one a statement contains: rule 2 alone decides
   a value entry. The stale values are read only for a text entry that rule 1 keeps, one
   statement at a time, until one is in the entry (most entries are decided before, and
   an entry that names one names it early).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from itertools import accumulate

from .._content_cache import on_clear
from .._statements._facts import normalize
from .._statements._kinds import replaced_values
from .._statements._values import values
from ._ledger_reading import UNREAD
from ._ledger_text import VALUES, Entry
from ._substrings import Haystack

_TEXT_SECTIONS = frozenset({"goals", "decisions", "state", "notes"})
_ELLIPSIS = "\u2026"
_SEP = "\x00"
"""Joins the statements for one substring search: a needle without it cannot span two."""
_PREPARED = 2
"""Statement lists kept prepared: folds of one compaction share theirs."""


@dataclass(frozen=True, slots=True)
class _Said:
    """The carried and stale statements, prepared for many substring tests."""

    texts: tuple[str, ...]
    joined: Haystack
    folded: list[str]
    """Normalized statements, shortest first."""
    folded_joined: Haystack
    lengths: list[int]
    """len() of each of `folded`, for the ones short enough to sit inside an entry."""
    starts: list[int]
    """Where each of `folded` begins in `folded_joined`: a text sits only inside those
    at least as long as itself, which come last."""
    heads: list[str]
    """`folded` in sorted order: a text that begins one (a clipped statement) is inside
    it, and the first one not below the text is one such if any is."""

    @classmethod
    def of(cls, said: tuple[str, ...]) -> _Said:
        folded = sorted((f for f in (normalize(t) for t in said) if f), key=len)
        lengths = [len(f) for f in folded]
        return cls(
            said,
            Haystack(_SEP.join(said)),
            folded,
            Haystack(_SEP.join(folded)),
            lengths,
            list(accumulate((n + len(_SEP) for n in lengths), initial=0)),
            sorted(folded),
        )

    def contains(self, needle: str) -> bool:
        """Whether one statement contains `needle`."""
        if _SEP in needle:
            return any(needle in text for text in self.texts)
        return self.joined.contains(needle)

    def overlaps(self, text: str) -> bool:
        """Whether one normalized statement contains `text` or sits inside it."""
        heads = self.heads
        at = bisect_left(heads, text)
        if at < len(heads) and heads[at].startswith(text):
            return True
        if _SEP in text:
            inside = any(text in f for f in self.folded)
        else:
            start = self.starts[bisect_left(self.lengths, len(text))]
            inside = self.folded_joined.contains(text, start)
        if inside:
            return True
        shorter = self.folded[: bisect_right(self.lengths, len(text))]
        return any(f in text for f in shorter)


def without_carried(
    entries: list[Entry], carried: Sequence[str], stale: Sequence[str]
) -> list[Entry]:
    """`entries` without what rules 1-3 leave out."""
    covered = carried_test(carried, stale)
    return entries if covered is None else [e for e in entries if not covered(e)]


def carried_test(carried: Sequence[str], stale: Sequence[str]) -> Callable[[Entry], bool] | None:
    """Rules 1-3 as a test of one entry (True: left out); None when nothing is left out."""
    if not carried and not stale:
        return None
    said = _prepared(tuple(t for t in (*carried, *stale) if t))
    return partial(_covered, said=said, old=_Stale(tuple(carried), tuple(stale)))


class _Stale:
    """The stale values of rule 3, read as far as the entries asked about need (rule 5):
    the values of `stale` that `carried` does not state as current, and every value a
    statement names as replaced."""

    __slots__ = ("_carried", "_known", "_pending")

    def __init__(self, carried: tuple[str, ...], stale: tuple[str, ...]) -> None:
        self._carried = carried
        self._known: set[str] = set()
        """The stale values read so far."""
        self._pending = self._read(stale)

    def _read(self, stale: tuple[str, ...]) -> Iterator[frozenset[str]]:
        """The stale values, a statement's at a time."""
        carried = self._carried
        current = {v for t in carried for v in values(t)} - {
            v for t in carried for v in replaced_values(t)
        }
        for text in stale:
            yield values(text).difference(current)
        for text in (*carried, *stale):
            yield replaced_values(text)

    def named_in(self, text: str) -> bool:
        """Whether `text` holds a stale value."""
        known = self._known
        if any(value in text for value in known):
            return True
        for found in self._pending:
            if found <= known:
                continue
            known.update(found)
            if any(value in text for value in found):
                return True
        return False


@lru_cache(maxsize=_PREPARED)
def _prepared(said: tuple[str, ...]) -> _Said:
    return _Said.of(said)


on_clear(_prepared.cache_clear)


def _covered(entry: Entry, said: _Said, old: _Stale) -> bool:
    if entry.section in VALUES:
        return said.contains(entry.text)  # a stale value is one a statement contains (rule 5)
    if entry.section not in _TEXT_SECTIONS or entry.text.startswith(UNREAD):
        return False
    text = normalize(entry.text.rstrip(_ELLIPSIS))
    if text and said.overlaps(text):
        return True
    return old.named_in(entry.text)
