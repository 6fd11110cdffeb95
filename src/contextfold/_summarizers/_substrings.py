"""Many substring tests against one large text, answered from an index of its words.

Rules:
1. `Haystack(text).contains(needle)` is exactly `needle in text`, only faster when the same
   text is asked about many times.
2. A needle without whitespace lies, wherever it occurs, inside one whitespace-free run of
   the text (`text.split()`): it is looked for in the text's distinct runs, joined by a
   character it does not contain (NUL; a needle with NUL is searched in the text). A
   repetitive text has far fewer distinct runs than characters, and splitting is done in C.
3. A needle with whitespace can only occur where each of its inner runs (those with
   whitespace on both sides) is a whole run of the text: when one is not, it is absent
   without a search; otherwise the text is searched.
4. The distinct runs, when still long, answer short needles from sets of their slices:
   a needle of at most GRAM characters is one lookup in the set of slices of its length
   (built on first use); a longer one is absent when one of its GRAM-character slices
   (end to end, and the last) is absent; otherwise the runs are searched.
5. A small text is searched directly: indexing it costs more than it saves.
"""

from __future__ import annotations

from typing import Final

GRAM: Final = 6
SMALL: Final = 4_096
"""Texts up to this many characters are searched directly (rule 5)."""
_JOIN: Final = "\x00"


class Haystack:
    """One text and, built on first use, its distinct whitespace-free runs (rule 2)."""

    __slots__ = ("_runs", "_words", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._runs: frozenset[str] | None = None
        self._words: _Grams | None = None

    def contains(self, needle: str) -> bool:
        """`needle in self.text` (rule 1)."""
        if len(self.text) <= SMALL or not needle or _JOIN in needle:
            return needle in self.text
        parts = needle.split()
        if len(parts) == 1 and parts[0] == needle:
            return self._index().contains(needle)
        runs = self._runs if self._runs is not None else self._build_runs()
        if any(part not in runs for part in parts[1:-1]):
            return False
        return needle in self.text

    def _build_runs(self) -> frozenset[str]:
        self._runs = frozenset(self.text.split())
        return self._runs

    def _index(self) -> _Grams:
        if self._words is None:
            runs = self._runs if self._runs is not None else self._build_runs()
            self._words = _Grams(_JOIN.join(sorted(runs)))
        return self._words


class _Grams:
    """A text and lazily built sets of its short slices (rule 4)."""

    __slots__ = ("_grams", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._grams: dict[int, frozenset[str]] = {}

    def contains(self, needle: str) -> bool:
        """`needle in self.text`."""
        if len(self.text) <= SMALL:
            return needle in self.text
        size = len(needle)
        if size <= GRAM:
            return needle in self._slices(size)
        grams = self._slices(GRAM)
        starts = (*range(0, size - GRAM, GRAM), size - GRAM)
        if any(needle[i : i + GRAM] not in grams for i in starts):
            return False
        return needle in self.text

    def _slices(self, size: int) -> frozenset[str]:
        found = self._grams.get(size)
        if found is None:
            found = self._all_slices() if size == GRAM else self._shorter(size)
            self._grams[size] = found
        return found

    def _all_slices(self) -> frozenset[str]:
        text = self.text
        ends = range(GRAM, len(text) + 1)
        return frozenset(map(text.__getitem__, map(slice, range(len(ends)), ends)))

    def _shorter(self, size: int) -> frozenset[str]:
        """The GRAM-slices' prefixes, and the slices too near the end to have one."""
        text = self.text
        tail = (
            text[p : p + size] for p in range(max(0, len(text) - GRAM + 1), len(text) - size + 1)
        )
        return frozenset({gram[:size] for gram in self._slices(GRAM)}.union(tail))
