"""Sessions in one SQLite file (stdlib sqlite3) and the archive in a second one beside it.

Rules:
1. `PATH` holds the sessions; `PATH.archive` the archive (a `cf.SqliteStore`).
2. WAL journaling with `synchronous=OFF`: a save is one transaction that never waits for
   the disk, so a turn stays well under a millisecond. Sessions are derived state: after a
   crash a lost turn only means the next request rebuilds from an older point (the client
   sends its whole history), while the archive (`cf.SqliteStore`) keeps its own
   durability. Snapshots sit in their own table, so a turn's small meta update never
   rewrites a large snapshot row.
3. Expiry runs on save, at most once a minute: sessions idle past `ttl` are deleted.
4. Several server workers may open one new file at once: switching it to WAL is retried
   while another worker holds the lock (a CI run saw one worker die of "database is
   locked" at start-up).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from typing import Final

import contextfold as cf

from ._store import Meta, Saved, StoreError, readable

_SCHEMA: Final = (
    "CREATE TABLE IF NOT EXISTS sessions ("
    "sid TEXT PRIMARY KEY, root TEXT NOT NULL, meta TEXT NOT NULL, touched REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS snapshots (sid TEXT PRIMARY KEY, snapshot TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS sessions_root ON sessions (root, touched)",
    "CREATE TABLE IF NOT EXISTS log ("
    "sid TEXT NOT NULL, seq INTEGER PRIMARY KEY AUTOINCREMENT, record TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS log_sid ON log (sid, seq)",
)
_CANDIDATES: Final = 16
_SWEEP_EVERY: Final = 60.0
_OPENING: Final = 10.0
"""Seconds a worker retries switching a new store to WAL while another one does (rule 4)."""


def _use_wal(db: sqlite3.Connection) -> None:
    """WAL journaling (rule 4): workers that open a new file at once race to switch it, and
    SQLite answers the losers "database is locked" without waiting, so the switch retries."""
    deadline = time.monotonic() + _OPENING
    while True:
        try:
            mode = db.execute("PRAGMA journal_mode").fetchone()
            if mode is None or str(mode[0]).lower() != "wal":
                db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


class SqliteSessions:
    """A SessionStore in SQLite."""

    def __init__(self, path: str, ttl: float) -> None:
        self.ttl = ttl
        self._lock = threading.Lock()
        self._swept = 0.0
        try:
            self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            _use_wal(self._db)
            self._db.execute("PRAGMA synchronous=OFF")
            for statement in _SCHEMA:
                self._db.execute(statement)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open the session store {path!r}: {exc}") from exc
        self.archive: cf.ArchiveStore = cf.SqliteStore(path + ".archive")

    def archive_for(self, sid: str) -> cf.ArchiveStore:
        return self.archive

    def _rows(self, sql: str, *args: object) -> list[tuple[object, ...]]:
        try:
            with self._lock:
                return self._db.execute(sql, args).fetchall()
        except sqlite3.Error as exc:
            raise StoreError(f"session store: {exc}") from exc

    def candidates(self, root: str) -> list[Meta]:
        since = time.time() - self.ttl
        rows = self._rows(
            "SELECT meta FROM sessions WHERE root = ? AND touched >= ? "
            "ORDER BY touched DESC LIMIT ?",
            root,
            since,
            _CANDIDATES,
        )
        return [meta for r in rows if (meta := readable(str(r[0]))) is not None]

    def meta(self, sid: str) -> Meta | None:
        rows = self._rows("SELECT meta, touched FROM sessions WHERE sid = ?", sid)
        if not rows or float(str(rows[0][1])) < time.time() - self.ttl:
            return None
        return readable(str(rows[0][0]))

    def load(self, sid: str) -> Saved | None:
        rows = self._rows(
            "SELECT meta, snapshot FROM sessions JOIN snapshots USING (sid) WHERE sid = ?", sid
        )
        meta = readable(str(rows[0][0])) if rows else None
        if meta is None:
            return None
        log = self._rows("SELECT record FROM log WHERE sid = ? ORDER BY seq", sid)
        return Saved(meta, str(rows[0][1]), [str(r[0]) for r in log])

    def save(self, meta: Meta, *, snapshot: str | None, record: str | None) -> None:
        try:
            with self._lock, self._db:
                self._db.execute("BEGIN")
                if snapshot is not None:
                    self._db.execute("DELETE FROM log WHERE sid = ?", (meta.sid,))
                    self._db.execute(
                        "INSERT OR REPLACE INTO snapshots VALUES (?, ?)", (meta.sid, snapshot)
                    )
                self._db.execute(
                    "INSERT OR REPLACE INTO sessions VALUES (?, ?, ?, ?)",
                    (meta.sid, meta.root, meta.dump(), meta.touched),
                )
                if record is not None:
                    self._db.execute(
                        "INSERT INTO log (sid, record) VALUES (?, ?)", (meta.sid, record)
                    )
        except sqlite3.Error as exc:
            raise StoreError(f"session store: {exc}") from exc
        self._sweep(meta.touched)

    def _sweep(self, now: float) -> None:
        """Rule 3."""
        if now - self._swept < _SWEEP_EVERY:
            return
        self._swept = now
        gone = "SELECT sid FROM sessions WHERE touched < ?"
        with self._lock, self._db:
            self._db.execute("BEGIN")
            self._db.execute(f"DELETE FROM log WHERE sid IN ({gone})", (now - self.ttl,))
            self._db.execute(f"DELETE FROM snapshots WHERE sid IN ({gone})", (now - self.ttl,))
            self._db.execute("DELETE FROM sessions WHERE touched < ?", (now - self.ttl,))

    def close(self) -> None:
        with self._lock:
            self._db.close()
        self.archive.close()
