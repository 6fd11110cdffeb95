"""The one seam every archive backend fits: raw JSON text under a reference.

Rules:
1. A store never parses what it holds; the archive owns the record format.
2. Entries are write-once: `put` never replaces what a reference already holds, it
   returns the text the reference holds after the call (the caller's or the earlier one).
   That single atomic step is what lets the archive detect reference collisions, even
   between processes sharing one SQLite file.
3. `refs` yields references in insertion order. Every failure is an ArchiveError.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol, runtime_checkable


@runtime_checkable
class ArchiveStore(Protocol):
    """Write-once storage of JSON text by reference."""

    def put(self, ref: str, data: str) -> str:
        """Store `data` under `ref` unless it is taken; return what `ref` holds now."""
        ...

    def get(self, ref: str) -> str | None:
        """The text stored under `ref`, or None."""
        ...

    def refs(self) -> Iterator[str]:
        """Every stored reference, in insertion order."""
        ...

    def close(self) -> None:
        """Release the store's resources; later calls raise ArchiveError."""
        ...
