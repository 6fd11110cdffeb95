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
4. A small text is searched directly: indexing it costs more than it saves. (Sets of the
   runs' short slices once answered short needles; searching the joined distinct runs
   is as fast where it was measured and holds none of their memory.)
"""

from __future__ import annotations

from typing import Final

SMALL: Final = 4_096
"""Texts up to this many characters are searched directly (rule 5)."""
_JOIN: Final = "\x00"


class Haystack:
    """One text and, built on first use, its distinct whitespace-free runs (rule 2)."""

    __slots__ = ("_joined", "_runs", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._runs: frozenset[str] | None = None
        self._joined: str | None = None

    def contains(self, needle: str) -> bool:
        """`needle in self.text` (rule 1)."""
        if len(self.text) <= SMALL or not needle or _JOIN in needle:
            return needle in self.text
        parts = needle.split()
        if len(parts) == 1 and parts[0] == needle:
            return needle in self._index()
        runs = self._runs if self._runs is not None else self._build_runs()
        if any(part not in runs for part in parts[1:-1]):
            return False
        return needle in self.text

    def _build_runs(self) -> frozenset[str]:
        self._runs = frozenset(self.text.split())
        return self._runs

    def _index(self) -> str:
        if self._joined is None:
            runs = self._runs if self._runs is not None else self._build_runs()
            self._joined = _JOIN.join(sorted(runs))
        return self._joined
