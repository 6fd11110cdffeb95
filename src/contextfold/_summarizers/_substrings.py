"""Many substring tests against one large text, answered from an index of its n-grams.

Rules:
1. `Haystack(text).contains(needle)` is exactly `needle in text`, only faster when the same
   text is asked about many times.
2. A needle of at most GRAM characters is answered by one lookup in the set of the text's
   slices of the needle's length (built on first use). A longer needle is absent when one
   of its GRAM-character slices (end to end, and the last) is absent from the text's;
   otherwise the text is searched.
3. A small text is searched directly: indexing it costs more than it saves.
4. The slices shorter than GRAM are built from the distinct GRAM-slices (their prefixes)
   plus the few that start too near the end to have one: a repetitive text has far fewer
   distinct slices than positions.
"""

from __future__ import annotations

from typing import Final

GRAM: Final = 6
SMALL: Final = 4_096
"""Texts up to this many characters are searched directly (rule 3)."""


class Haystack:
    """One text and lazily built sets of its short slices."""

    __slots__ = ("_grams", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._grams: dict[int, frozenset[str]] = {}

    def contains(self, needle: str) -> bool:
        """`needle in self.text` (rule 1)."""
        if len(self.text) <= SMALL or not needle:
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
        """Rule 4: the GRAM-slices' prefixes, and the slices too near the end to have one."""
        text = self.text
        tail = (
            text[p : p + size] for p in range(max(0, len(text) - GRAM + 1), len(text) - size + 1)
        )
        return frozenset({gram[:size] for gram in self._slices(GRAM)}.union(tail))
