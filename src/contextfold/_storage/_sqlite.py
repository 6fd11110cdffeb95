"""An ArchiveStore in one SQLite file (stdlib sqlite3), shared by threads and processes.

Rules:
1. Layout: `contextfold_schema(version)` holds one row, SCHEMA_VERSION;
   `contextfold_archive(seq, ref, data)` holds the entries, `seq` giving insertion order.
   A file with other tables and no schema table is foreign and refused, and so is any
   schema version other than SCHEMA_VERSION: we never guess at someone else's layout.
2. One connection per store, in autocommit mode, serialised by a lock, so any thread may
   use the store. Files use WAL journaling: a reader process can open the archive while a
   writer process holds it; a busy file is waited on for up to `timeout` seconds.
3. Rows are never updated or deleted, so `INSERT OR IGNORE` then `SELECT` is an atomic
   write-once put, even between processes.
4. Every sqlite3 error becomes an ArchiveError naming the file. A corrupt or foreign file
   fails when the store opens; later damage fails at the read that meets it.
5. Storage faults degrade, they do not end a turn. Before each write the store checks that
   its path still names the file it opened; when the file was deleted or replaced (writes
   would go to an unlinked file and vanish), or a write fails, it copies every entry it
   can still read into a new file at the same path, or, when that cannot be made, into
   memory (`:memory:`), and goes on. What happened is kept in `warnings` (the archive
   passes it to the report); entries that could not be read back are named there.
6. `readonly=True` (recall only) opens the file read-only and never writes, not even the
   journal mode, so an archive in a read-only directory can be read.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Final

from .._errors import ArchiveError

SCHEMA_VERSION: Final = 1
_SCHEMA: Final = "contextfold_schema"
_ENTRIES: Final = "contextfold_archive"
_SQLITE_OWN: Final = frozenset({"sqlite_sequence"})
_CREATE: Final = (
    f"CREATE TABLE {_SCHEMA} (version INTEGER NOT NULL)",
    f"INSERT INTO {_SCHEMA} (version) VALUES ({SCHEMA_VERSION})",
    f"CREATE TABLE {_ENTRIES} ("
    "seq INTEGER PRIMARY KEY AUTOINCREMENT, ref TEXT NOT NULL UNIQUE, data TEXT NOT NULL)",
)
_PUT: Final = f"INSERT OR IGNORE INTO {_ENTRIES} (ref, data) VALUES (?, ?)"
_GET: Final = f"SELECT data FROM {_ENTRIES} WHERE ref = ?"
_REFS: Final = f"SELECT ref FROM {_ENTRIES} ORDER BY seq"
_ALL: Final = f"SELECT ref, data FROM {_ENTRIES} ORDER BY seq"
_MISSING: Final = object()


class SqliteStore:
    """Archive entries in an SQLite file (or `:memory:`), safe across threads and processes."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        create: bool = True,
        readonly: bool = False,
        timeout: float = 30.0,
    ) -> None:
        """Open (or, with `create`, make) the archive at `path`; ArchiveError if unusable."""
        self.path = os.fspath(path)
        """The database file, or `:memory:`."""
        self.readonly = readonly
        self.warnings: list[str] = []
        """Storage faults this store degraded around (rule 5), oldest first."""
        self._lock = threading.Lock()
        self._closed = True
        self._timeout = timeout
        in_memory = self.path == ":memory:"
        if not self.path:  # SQLite would open a private temporary file, lost on close
            raise ArchiveError("an empty path names no archive file; give a file name")
        if (readonly or not create) and not in_memory and not os.path.exists(self.path):
            raise ArchiveError(f"no archive at {self.path!r}: the file does not exist")
        self._conn = _open(self.path, timeout, create=create and not readonly, readonly=readonly)
        self._identity = _identity(self.path)
        self._closed = False

    @property
    def in_memory(self) -> bool:
        """Whether the entries live in memory (`:memory:`, or moved there by rule 5), so
        they end with this process: a snapshot must carry them, not the path."""
        return self._identity is None

    def put(self, ref: str, data: str) -> str:
        """Store `data` under `ref` unless it is taken; return what `ref` holds now."""
        if self.readonly:
            raise ArchiveError(f"the SQLite archive {self.path!r} is open read-only")

        def write(conn: sqlite3.Connection) -> object:
            conn.execute(_PUT, (ref, data))
            row = conn.execute(_GET, (ref,)).fetchone()
            return None if row is None else row[0]

        held = self._do("write to", write)
        if not isinstance(held, str):
            raise ArchiveError(f"{self.path!r}: entry {ref} was not stored as text")
        return held

    def get(self, ref: str) -> str | None:
        """The text stored under `ref`, or None."""

        def read(conn: sqlite3.Connection) -> object:
            row = conn.execute(_GET, (ref,)).fetchone()
            return _MISSING if row is None else row[0]

        held = self._do("read", read)
        if held is _MISSING:
            return None
        if not isinstance(held, str):
            raise ArchiveError(f"{self.path!r}: entry {ref} is not stored as text")
        return held

    def refs(self) -> Iterator[str]:
        """Every stored reference, in insertion order (a snapshot)."""
        rows = self._do("read", lambda conn: conn.execute(_REFS).fetchall())
        assert isinstance(rows, list)
        return iter([str(row[0]) for row in rows])

    def _do(self, action: str, work: Callable[[sqlite3.Connection], object]) -> object:
        """Run `work` on the connection, degrading around a lost file first (rule 5)."""
        with self._lock:
            self._connection()
            lost = self._identity is not None and _identity(self.path) != self._identity
            if lost and not self.readonly:
                self._degrade("was deleted or replaced while in use")
            try:
                with self._errors(action):
                    return work(self._conn)
            except ArchiveError as exc:
                cause = exc.__cause__
                if self.readonly or not isinstance(cause, sqlite3.Error) or not _fault(cause):
                    raise
                self._degrade(f"failed to {action.split(maxsplit=1)[0]} ({cause})")
            with self._errors(action):
                return work(self._conn)

    def _degrade(self, what: str) -> None:
        """Rule 5: carry every readable entry to a new file at the path, else to memory."""
        old = self._conn
        rows: list[tuple[str, str]] = []
        with contextlib.suppress(sqlite3.Error):
            rows = [(str(r), str(d)) for r, d in old.execute(_ALL).fetchall()]
        with contextlib.suppress(sqlite3.Error):
            old.close()
        try:
            conn = _open(self.path, self._timeout, create=True, readonly=False)
            where, identity = f"recreated at {self.path!r}", _identity(self.path)
        except ArchiveError:
            conn = _open(":memory:", self._timeout, create=True, readonly=False)
            where, identity = "kept in memory from now on (they end with this process)", None
        with self._errors("copy to"):
            conn.executemany(_PUT, rows)
        self._conn, self._identity = conn, identity
        lost = "" if rows else "; earlier entries could not be read back and are lost"
        self.warnings.append(
            f"the SQLite archive {self.path!r} {what}; its {len(rows)} entries were {where}{lost}"
        )

    def close(self) -> None:
        """Close the connection; later calls raise ArchiveError. Closing twice is fine."""
        with self._lock:
            if not self._closed:
                self._closed = True
                with self._errors("close"):
                    self._conn.close()

    def __enter__(self) -> SqliteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SqliteStore({self.path!r}{', closed' if self._closed else ''})"

    def _connection(self) -> sqlite3.Connection:
        if self._closed:
            raise ArchiveError(f"the SQLite archive {self.path!r} is closed")
        return self._conn

    @contextmanager
    def _errors(self, action: str) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as exc:
            raise ArchiveError(
                f"cannot {action} the SQLite archive {self.path!r}: {exc}{_hint(exc)}"
            ) from exc
        except UnicodeEncodeError as exc:
            raise ArchiveError(f"cannot {action} the SQLite archive {self.path!r}: {exc}") from exc


def _open(path: str, timeout: float, *, create: bool, readonly: bool) -> sqlite3.Connection:
    """A checked connection to the archive at `path` (rule 1), read-only if asked (rule 6)."""
    in_memory = path == ":memory:"
    if not in_memory and os.path.isdir(path):  # SQLite would say "disk I/O error"
        raise ArchiveError(f"cannot open the SQLite archive {path!r}: it is a directory")
    try:
        if readonly and not in_memory:
            conn = _open_readonly(path, timeout)
        else:
            conn = sqlite3.connect(
                path, timeout=timeout, isolation_level=None, check_same_thread=False
            )
    except sqlite3.Error as exc:
        raise ArchiveError(f"cannot open the SQLite archive {path!r}: {exc}{_hint(exc)}") from exc
    try:
        _prepare(conn, path, create=create)
        if not in_memory and not readonly:
            _use_wal(conn)
    except sqlite3.Error as exc:
        conn.close()
        raise ArchiveError(f"cannot open the SQLite archive {path!r}: {exc}{_hint(exc)}") from exc
    except ArchiveError:
        conn.close()
        raise
    return conn


def _open_readonly(path: str, timeout: float) -> sqlite3.Connection:
    """Read-only; `immutable` when even the WAL index cannot be made (read-only folder)."""
    uri = "file:" + urllib.parse.quote(os.fsencode(os.path.abspath(path)))  # any file name
    conn = sqlite3.connect(
        uri + "?mode=ro", uri=True, timeout=timeout, isolation_level=None, check_same_thread=False
    )
    try:
        conn.execute("SELECT name FROM sqlite_master LIMIT 1").fetchall()
        return conn
    except sqlite3.OperationalError:
        conn.close()
    return sqlite3.connect(
        uri + "?mode=ro&immutable=1",
        uri=True,
        timeout=timeout,
        isolation_level=None,
        check_same_thread=False,
    )


def _identity(path: str) -> tuple[int, int] | None:
    """(device, inode) of the file at `path`; None for `:memory:` or a missing file."""
    if path == ":memory:":
        return None
    try:
        stat = os.stat(path)
    except OSError:
        return (-1, -1)
    return stat.st_dev, stat.st_ino


_FAULTS: Final = ("disk i/o error", "readonly database", "unable to open", "no such table")


def _fault(exc: sqlite3.Error) -> bool:
    """A storage fault to degrade around, as opposed to a corrupt file or a busy one."""
    text = str(exc).lower()
    return any(fault in text for fault in _FAULTS)


def _hint(exc: sqlite3.Error) -> str:
    text = str(exc)
    if "not a database" in text or "malformed" in text:
        return " (the file is corrupt or not a contextfold archive)"
    return ""


def _tables(conn: sqlite3.Connection) -> set[str]:
    rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    return {str(row[0]) for row in rows}


def _prepare(conn: sqlite3.Connection, path: str, *, create: bool) -> None:
    """Check the layout of an existing archive, or lay out an empty database."""
    tables = _tables(conn)
    if _SCHEMA not in tables:
        if tables - _SQLITE_OWN:
            found = ", ".join(sorted(tables - _SQLITE_OWN))
            raise ArchiveError(
                f"{path!r} is an SQLite database but not a contextfold archive "
                f"(it holds tables {found}); {_instead(path, tables)}"
            )
        if not create:
            raise ArchiveError(f"{path!r} is an empty database, not a contextfold archive")
        _lay_out(conn)
    _check_schema(conn, path)


_SESSION_STORE: Final = frozenset({"sessions", "snapshots", "log"})
"""The tables of `contextfold serve`'s session store, which keeps its archive beside it."""


def _instead(path: str, tables: set[str]) -> str:
    """What to open instead of a foreign database."""
    if tables >= _SESSION_STORE:
        return f"it is a `contextfold serve` session store: its archive is {path + '.archive'!r}"
    return "choose another file"


def _lay_out(conn: sqlite3.Connection) -> None:
    """Create the tables, unless another process did so first."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        if _SCHEMA not in _tables(conn):
            for statement in _CREATE:
                conn.execute(statement)
        conn.execute("COMMIT")
    finally:
        if conn.in_transaction:
            conn.execute("ROLLBACK")


def _check_schema(conn: sqlite3.Connection, path: str) -> None:
    rows = conn.execute(f"SELECT version FROM {_SCHEMA}").fetchall()
    versions = [row[0] for row in rows]
    if versions != [SCHEMA_VERSION]:
        shown = versions[0] if len(versions) == 1 else versions
        raise ArchiveError(
            f"{path!r} has archive schema version {shown!r}, but this contextfold reads "
            f"version {SCHEMA_VERSION}; open it with a matching contextfold version"
        )
    if _ENTRIES not in _tables(conn):
        raise ArchiveError(f"{path!r} is an incomplete contextfold archive (no entry table)")


def _use_wal(conn: sqlite3.Connection) -> None:
    """Switch a file archive to WAL journaling (a no-op when it already uses it). Processes
    that open one new file at once race to switch it, and SQLite answers the losers
    "database is locked" without waiting: the switch is retried for a while."""
    for delay in _WAL_RETRIES:
        try:
            mode = conn.execute("PRAGMA journal_mode").fetchone()
            if mode is None or str(mode[0]).lower() != "wal":
                conn.execute("PRAGMA journal_mode=WAL")
            break
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or delay is None:
                raise
            time.sleep(delay)
    conn.execute("PRAGMA synchronous=NORMAL")


_WAL_RETRIES: Final = (*[0.02] * 500, None)
"""Pauses between attempts at the WAL switch (about 10 s in all); None: the last attempt."""
