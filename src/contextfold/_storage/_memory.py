"""An in-process ArchiveStore: a dict guarded by a lock (the default backend).

Rules:
1. Write-once, like every store: `put` keeps the first text stored under a reference.
2. Dicts keep insertion order, so `refs` needs no sequence column.
3. Closing empties the store; using it afterwards raises ArchiveError.
4. `put_deferred` stores a record that is written only when read: a function that makes
   the text (the archive passes one holding the original item, whose strings are the
   caller's own, so a compaction that archives a large history copies none of it).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

from .._errors import ArchiveError


class MemoryStore:
    """Archive entries kept in memory for the life of the process."""

    __slots__ = ("_closed", "_data", "_lock")

    def __init__(self) -> None:
        self._data: dict[str, str | Callable[[], str]] = {}
        self._lock = threading.Lock()
        self._closed = False

    def put(self, ref: str, data: str) -> str:
        """Store `data` under `ref` unless it is taken; return what `ref` holds now."""
        with self._lock:
            self._check_open()
            held = self._data.setdefault(ref, data)
        return held if isinstance(held, str) else held()

    def put_deferred(self, ref: str, make: Callable[[], str]) -> str | Callable[[], str]:
        """Store the record `make()` will write unless `ref` is taken (rule 4); return what
        `ref` holds now: `make` itself when it was stored."""
        with self._lock:
            if self._closed:  # `_check_open`, without a call per archived item
                self._check_open()
            return self._data.setdefault(ref, make)

    def get(self, ref: str) -> str | None:
        """The text stored under `ref`, or None."""
        with self._lock:
            self._check_open()
            held = self._data.get(ref)
        return held if held is None or isinstance(held, str) else held()

    def refs(self) -> Iterator[str]:
        """Every stored reference, in insertion order (a snapshot)."""
        with self._lock:
            self._check_open()
            snapshot = list(self._data)
        return iter(snapshot)

    def close(self) -> None:
        """Drop every entry; later calls raise ArchiveError."""
        with self._lock:
            self._closed = True
            self._data.clear()

    def __enter__(self) -> MemoryStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else f"{len(self._data)} entries"
        return f"MemoryStore({state})"

    def _check_open(self) -> None:
        if self._closed:
            raise ArchiveError("the memory archive store is closed")
