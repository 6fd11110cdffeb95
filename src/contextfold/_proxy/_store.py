"""Where sessions live between requests: the seam both backends fit.

Rules:
1. A session is its `Meta` (small, read on every request), a manager snapshot, and a log
   of what came after the snapshot: batches of new items and usage observations, in order.
   Restoring the snapshot and replaying the log (extend + view per batch) rebuilds the
   exact manager the last request left, so a turn writes O(new) and a replica that did not
   see the turn continues it the same way.
2. `save` is one atomic step: the meta, then either a new snapshot (the log cleared) or
   the log's new record. Meta carries a version that grows by one per save, so a replica
   knows when the copy it holds in memory is stale.
3. Stores expire sessions left idle for `ttl` seconds. `archive_for` gives a session's
   archive: in Redis the session's own entries, which expire with it; in SQLite one file
   shared by every session (content-addressed and write-once), kept on disk.
4. Every backend failure becomes a StoreError (a ContextFoldError); the proxy then
   forwards the request as the client sent it.
5. A stored session that cannot be read back (a meta or snapshot written by another
   contextfold version, or damaged) is a lost session, not a failure: `readable` gives
   None for its meta, the backends leave it out, and `_sessions` starts over from the
   client's history (sessions are derived state). Otherwise every request of that
   conversation would fail, and go out uncompacted, until the session expired.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, fields
from typing import Protocol

import contextfold as cf

log = logging.getLogger("contextfold.proxy")


class StoreError(cf.ContextFoldError):
    """The session store failed (unreachable Redis, a locked SQLite file ...)."""


@dataclass(slots=True)
class Meta:
    """What a request needs to know about a session before touching its manager."""

    sid: str
    root: str
    """Digest shared by every request of the conversation (see `_wire.root_of`)."""
    length: int
    """Client items the session holds."""
    last: str
    """Digest of the client's item number `length - 1`."""
    middle: str
    """Digest of the client's item number `(length - 1) // 2`."""
    version: int
    folded: bool
    """Whether the view has ever differed from the client's items."""
    skip: int
    """Leading view items the body carries elsewhere (Responses' `instructions`)."""
    touched: float

    def dump(self) -> str:
        return json.dumps({name: getattr(self, name) for name in _META_FIELDS})

    @classmethod
    def load(cls, text: str | bytes) -> Meta:
        """The meta in `text`; StoreError when it is not one this version writes."""
        try:
            data = json.loads(text)
            meta = cls(**data)
        except (ValueError, TypeError) as exc:
            raise StoreError(f"an unreadable session record ({exc})") from None
        wrong = [name for name, kinds in _KINDS.items() if type(data[name]) not in kinds]
        if wrong:
            raise StoreError(f"an unreadable session record ({', '.join(wrong)} of a wrong type)")
        return meta


_META_FIELDS = tuple(f.name for f in fields(Meta))
_KINDS: dict[str, tuple[type, ...]] = {
    "sid": (str,),
    "root": (str,),
    "length": (int,),
    "last": (str,),
    "middle": (str,),
    "version": (int,),
    "folded": (bool,),
    "skip": (int,),
    "touched": (float, int),
}


def readable(text: str | bytes) -> Meta | None:
    """The meta in `text`, or None (logged) when it cannot be read back (rule 5)."""
    try:
        return Meta.load(text)
    except StoreError as exc:
        log.warning("session store: %s; the session starts over", exc)
        return None


@dataclass(frozen=True, slots=True)
class Saved:
    """A session as stored: its meta, snapshot and the log after it (JSON texts)."""

    meta: Meta
    snapshot: str
    log: list[str]

    def rebuilt(self, archive: cf.Archive) -> cf.ContextManager:
        """The manager this session holds: its snapshot restored, its log replayed (rule 1)."""
        manager = cf.ContextManager.restore(json.loads(self.snapshot), archive=archive)
        for text in self.log:
            record = json.loads(text)
            manager.budget = int(record["budget"])
            manager.extend(record["items"])
            manager.view()
        return manager


class SessionStore(Protocol):
    """Sessions by id, found by root digest (rule 1)."""

    def archive_for(self, sid: str) -> cf.ArchiveStore:
        """Where the session's folded items are archived (rule 3)."""
        ...

    def candidates(self, root: str) -> list[Meta]:
        """Live sessions with this root, most recently used first."""
        ...

    def meta(self, sid: str) -> Meta | None:
        """The session's meta, None when it is unknown or expired."""
        ...

    def load(self, sid: str) -> Saved | None:
        """Everything needed to rebuild the session's manager."""
        ...

    def save(self, meta: Meta, *, snapshot: str | None, record: str | None) -> None:
        """Write the meta with a new snapshot or one more log record (rule 2)."""
        ...

    def close(self) -> None:
        """Release connections."""
        ...
