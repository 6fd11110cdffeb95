"""Many substring tests against one large text, answered from an index of its words.

Rules:
1. `Haystack(text).contains(needle)` is exactly `needle in text`, only faster when the same
   text is asked about many times.
2. A needle without whitespace lies, wherever it occurs, inside one whitespace-free run of
   the text (`text.split()`) at least as long as itself: it is looked for in the text's
   distinct runs, joined by a character it does not contain (NUL; a needle with NUL is
   searched in the text), shortest first, from the first run as long as the needle. A
   repetitive text has far fewer distinct runs than characters, the runs shorter than a
   needle are never read, and splitting and sorting are done in C.
3. A needle with whitespace can only occur where each of its inner runs (those with
   whitespace on both sides) is a whole run of the text, a run with whitespace after it
   ends a run of the text and one with whitespace before it begins one: when one is not
   (the distinct runs tell, each joined between two NULs), it is absent without a
   search; otherwise the text is searched, from `start` when the caller knows no
   occurrence can begin before it.
4. A small text is searched directly: indexing it costs more than it saves. (Sets of the
   runs' short slices once answered short needles; searching the joined distinct runs
   is as fast where it was measured and holds none of their memory.)
"""

from __future__ import annotations

from bisect import bisect_left
from itertools import accumulate
from typing import Final

SMALL: Final = 4_096
"""Texts up to this many characters are searched directly (rule 4)."""
_JOIN: Final = "\x00"


class Haystack:
    """One text and, built on first use, its distinct whitespace-free runs (rule 2)."""

    __slots__ = ("_joined", "_lengths", "_runs", "_starts", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._runs: frozenset[str] | None = None
        self._joined: str | None = None
        self._lengths: list[int] = []
        """The length of each run in `_joined`, shortest first."""
        self._starts: list[int] = []
        """Where each run begins in `_joined` (after the NUL before it)."""

    def contains(self, needle: str, start: int = 0) -> bool:
        """`needle in self.text` (rule 1), given that no occurrence begins before `start`."""
        if len(self.text) <= SMALL or not needle or _JOIN in needle:
            return self.text.find(needle, start) >= 0
        parts = needle.split()
        if len(parts) == 1 and parts[0] == needle:
            joined = self._index()
            first = bisect_left(self._lengths, len(needle))  # rule 2: long enough runs
            return first < len(self._starts) and joined.find(needle, self._starts[first]) >= 0
        runs = self._runs if self._runs is not None else self._build_runs()
        if any(part not in runs for part in parts[1:-1]):
            return False
        if parts and not self._ends(parts, needle):
            return False
        return self.text.find(needle, start) >= 0

    def _ends(self, parts: list[str], needle: str) -> bool:
        """Whether the needle's first run can end a run of the text and its last can begin
        one, where whitespace follows or precedes them in the needle (rule 3)."""
        joined, lengths, starts = self._index(), self._lengths, self._starts
        first, last = parts[0], parts[-1]
        if len(parts) > 1 or needle[-1].isspace():
            at = bisect_left(lengths, len(first))
            if at == len(starts) or joined.find(first + _JOIN, starts[at]) < 0:
                return False
        if len(parts) > 1 or needle[0].isspace():
            at = bisect_left(lengths, len(last))
            if at == len(starts) or joined.find(_JOIN + last, starts[at] - 1) < 0:
                return False
        return True

    def _build_runs(self) -> frozenset[str]:
        self._runs = frozenset(self.text.split())
        return self._runs

    def _index(self) -> str:
        if self._joined is None:
            runs = self._runs if self._runs is not None else self._build_runs()
            ordered = sorted(runs, key=len)  # any order of equal lengths: `find` is the same
            self._lengths = list(map(len, ordered))
            self._starts = list(accumulate((n + 1 for n in self._lengths), initial=1))[:-1]
            self._joined = f"{_JOIN}{_JOIN.join(ordered)}{_JOIN}"  # a NUL on each side of each
        return self._joined
