"""Archive storage backends behind one write-once protocol (internal; see `contextfold`).

`MemoryStore` keeps entries for the life of the process (the default); `SqliteStore`
keeps them in a file that a later process, such as `contextfold recall`, can read.
"""

from __future__ import annotations

from ._memory import MemoryStore
from ._protocol import ArchiveStore
from ._sqlite import SCHEMA_VERSION, SqliteStore

__all__ = ["SCHEMA_VERSION", "ArchiveStore", "MemoryStore", "SqliteStore"]
