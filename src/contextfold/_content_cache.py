"""Bounded caches keyed by content, shared across calls (compact, ContextManager, proxy).

Rules:
1. A value is a pure function of one text, so it is keyed by the text's content: the text
   itself when short, else its length and 128-bit BLAKE2b digest, as one int (a key never
   keeps a large text alive, and costs one object). Same content, same value, in any
   call: a stateless caller that re-sends a history pays for the new messages only.
2. Each cache holds at most `size` values and forgets the least recently used first (an
   eighth of them at once when full).
3. Values must be immutable (tuples of frozen dataclasses): callers share them.
4. A value of a short key read again and again (a word, a sentence, a statement) is kept
   in a `Memo`, keyed by the key itself: a plain dict, so a hit is one lookup in C and an
   entry costs no LRU links; a full memo forgets everything at once (still bounded). A
   `WordMemo` keeps its words interned: memos of words share their strings.
5. A counter's per-text counts are a `TextMemo`: keyed by the texts themselves (a hit is
   one lookup in C, the text's hash already cached on it), so it is bounded in characters
   as well as texts: a counter kept for the life of a process (`counter_for`, a proxy's)
   holds at most `chars` characters of texts alive, the oldest counted forgotten first (an
   eighth of the bound at once). It belongs to its counter: `clear_caches` does not hold it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Hashable
from contextlib import suppress
from itertools import islice
from sys import intern
from typing import Final, Generic, TypeVar, cast

V = TypeVar("V")
K = TypeVar("K", bound=Hashable)

SHORT: Final = 64
"""Texts up to this length are their own key."""

_ALL: list[ContentCache[object]] = []
_CLEARERS: list[Callable[[], None]] = []


def content_key(text: str) -> Hashable:
    """Rule 1: the key for `text`."""
    if len(text) <= SHORT:
        return text
    data = text.encode("utf-8", "surrogatepass")
    digest = hashlib.blake2b(data, digest_size=16).digest()
    return len(text) << 128 | int.from_bytes(digest, "big")


class ContentCache(Generic[V]):
    """At most `size` values of `make(text)`, by content (rules 1-2)."""

    __slots__ = ("_data", "_make", "size")

    def __init__(self, make: Callable[[str], V], size: int) -> None:
        self._make = make
        self._data: dict[Hashable, V] = {}
        """In use order, oldest first (a plain dict: no per-entry links)."""
        self.size = size
        _ALL.append(self)  # type: ignore[arg-type]

    def __call__(self, text: str) -> V:
        key = content_key(text)
        data = self._data
        found = data.pop(key, _MISSING)
        if found is not _MISSING:
            hit = cast(V, found)
            data[key] = hit  # now the most recently used
            return hit
        value = self._make(text)
        data[key] = value
        if len(data) > self.size:
            _forget_oldest(data, len(data) - self.size + self.size // 8)
        return value

    def __len__(self) -> int:
        return len(self._data)

    def clear(self) -> None:
        """Forget every value."""
        self._data.clear()


_MISSING: Final = object()


def _forget_oldest(data: dict[Hashable, V], count: int) -> None:
    """Forget the `count` least recently used values (rule 2), an eighth of the cache at a
    time: a dict reaches its oldest key past every slot freed before it, so one pass per
    miss would cost the whole front of the table each time. A thread that changes the dict
    meanwhile stops the pass; the next miss goes on."""
    with suppress(RuntimeError):
        for key in list(islice(data, count)):
            data.pop(key, None)


class Memo(dict[K, V]):
    """`make(key)` by the key itself, at most `size` of them (rule 4); call it through
    `memo.__getitem__` (a C method: a hit runs no Python code)."""

    __slots__ = ("_make", "size")

    def __init__(self, make: Callable[[K], V], size: int) -> None:
        super().__init__()
        self._make = make
        self.size = size
        _CLEARERS.append(self.clear)

    def __missing__(self, key: K) -> V:
        value = self._make(key)
        if len(self) >= self.size:
            self.clear()
        self[key] = value
        return value


class WordMemo(Memo[str, V]):
    """A `Memo` of words (rule 4): each key is kept as `sys.intern` gives it, so a word that
    several memos hold is one string, and `make` reads that string (a value that quotes
    the word shares it too)."""

    __slots__ = ()

    def __missing__(self, key: str) -> V:
        key = intern(key)
        value = self._make(key)
        if len(self) >= self.size:
            self.clear()
        self[key] = value
        return value


class TextMemo(dict[str, V]):
    """`make(text)` by the text itself, at most `size` texts and `chars` characters of them
    (rule 5); call it through `memo.__getitem__` (a C method: a hit runs no Python code)."""

    __slots__ = ("_held", "_make", "chars", "size")

    def __init__(self, make: Callable[[str], V], size: int, chars: int) -> None:
        super().__init__()
        self._make = make
        self.size = size
        self.chars = chars
        self._held = 0
        """Characters of the texts held (recounted whenever texts are forgotten)."""

    def __missing__(self, text: str) -> V:
        value = self._make(text)
        self[text] = value
        self._held += len(text)
        if len(self) > self.size or self._held > self.chars:
            self._forget()
        return value

    def clear(self) -> None:
        """Forget every text."""
        super().clear()
        self._held = 0

    def _forget(self) -> None:
        """The oldest counted first, until an eighth of each bound is free. A thread that
        changes the memo meanwhile stops the pass (the next miss goes on)."""
        with suppress(RuntimeError):
            over = len(self) - self.size
            texts = over + self.size // 8 if over > 0 else 0
            over = self._held - self.chars
            chars = over + self.chars // 8 if over > 0 else 0
            gone: list[str] = []
            for text in self:
                if texts <= 0 and chars <= 0:
                    break
                gone.append(text)
                texts -= 1
                chars -= len(text)
            for text in gone:
                self.pop(text, None)
            self._held = sum(map(len, list(self)))


def on_clear(clear: Callable[[], None]) -> None:
    """Have `clear_caches` call `clear` too (other caches that outlive a call)."""
    _CLEARERS.append(clear)


def clear_caches() -> None:
    """Forget what is remembered across calls: everything read per text (facts, statements,
    their kinds and subjects), and the counters `counter_for` keeps per model (with their
    per-text counts). Tokenizer data stays loaded."""
    for cache in _ALL:
        cache.clear()
    for clear in _CLEARERS:
        clear()
