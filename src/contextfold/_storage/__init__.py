"""Archive storage backends behind one write-once protocol (internal; see `contextfold`).

`MemoryStore` keeps entries for the life of the process (the default); `SqliteStore`
keeps them in a file that a later process, such as `contextfold recall`, can read. The
SQLite backend (and `sqlite3` with it) is imported on first use: an in-memory archive,
the default of every compaction, never needs it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._memory import MemoryStore
from ._protocol import ArchiveStore

if TYPE_CHECKING:
    from ._sqlite import SCHEMA_VERSION, SqliteStore

__all__ = ["SCHEMA_VERSION", "ArchiveStore", "MemoryStore", "SqliteStore"]


def __getattr__(name: str) -> object:
    if name in ("SCHEMA_VERSION", "SqliteStore"):
        from . import _sqlite  # noqa: PLC0415 - on first use (see the docstring)

        return getattr(_sqlite, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
