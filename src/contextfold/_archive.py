"""The archive: compaction is a view, never a loss (invariant I5).

Rules:
1. Before compaction masks, prunes, folds or drops a payload, it stores the original
   here: a Message, a Part or a plain string. The reference is `r` + the first 10 hex
   digits of the sha256 of the item's canonical JSON, `{"item": <_serialize form>,
   "kind": "message" | "part" | "text"}` with sorted keys, `,`/`:` separators and UTF-8
   (lone surrogates passed through). Same content, same reference, in every run (I6);
   storing it twice stores it once, and the first label wins.
2. Collisions (40 bits, so p ~ n^2 / 2^41 for n entries) are detected, never ignored:
   when a reference already holds other content, the next candidate hashes the canonical
   bytes + `#1`, `#2`, ... (up to MAX_PROBES). The probe is kept with the entry. So a
   reference never names two payloads; only the later of two colliding items moves, and
   its reference then depends on what the archive held first.
3. Reads verify: an entry that does not parse, or whose content does not hash to its
   reference, raises ArchiveError. A wrong payload is never returned.
4. Stores hold JSON text, written in ASCII so every string survives every backend.
   Thread safety comes from the stores: each operation is atomic and puts are write-once.
5. The in-memory store is handed the item, to write its record when it is read (the
   reference is computed at once): the item itself when nothing in it can change
   afterwards, else, when its record would be longer than COPY_OVER, a copy of it sharing
   nothing mutable with the caller (`_archive_copy`). So the record written later is the
   one hashed now. Other items (short, or that cannot be copied so) are written at once.
6. The canonical text is written in one pass over the item (`_serialize_json.dump_json`, the
   same bytes as `json.dumps` of its `_serialize` form); the record is derived from it.
7. A memory store is handed what an item's content made the last time (its kind, probe-0
   reference, and what rule 5 keeps), from a bounded cache across archives and calls keyed
   by content (`_archive_keys`; an item is keyed from its second sighting on, and the
   cache holds at most KNOWN_SIZE items and KNOWN_CHARS characters): a stateless caller
   re-sending a history serializes and hashes only what is new. Anything but a clean
   probe 0 goes the whole way (rules 1-5).

Canonical text and records are written and read in `_archive_records`, an item's private
copy made in `_archive_copy`, its content key in `_archive_keys`, and recall's readable
text in `_archive_readable`.
"""

from __future__ import annotations

import hashlib
from dataclasses import KW_ONLY, dataclass
from typing import Final, NamedTuple, cast

from ._archive_copy import private_copy, unchanging
from ._archive_keys import KeyedCache, Seen, key_of
from ._archive_readable import readable
from ._archive_records import (
    MAX_PROBES,
    Archivable,
    EntryKind,
    canonical,
    canonical_or_none,
    canonical_text,
    load_item,
    parse_record,
    record_canonical,
    record_text,
)
from ._errors import ArchiveError, ConfigurationError, UnknownReference
from ._storage import ArchiveStore, MemoryStore

__all__ = [
    "MAX_PROBES",
    "Archivable",
    "Archive",
    "ArchiveEntry",
    "EntryKind",
    "readable",
    "ref_of",
    "reference",
]

COPY_OVER: Final = 512
"""Canonical characters past which a record costs more memory than a private copy of its
item (about 560 bytes on the corpus) takes; shorter items are written at once (rule 5)."""
KNOWN_SIZE: Final = 1 << 14
"""Items whose reference the cache keeps (rule 7): a re-sent history of 10,000 messages
archives about 8,000."""
KNOWN_CHARS: Final = 1 << 25
"""Canonical characters of the items the cache keeps, at most (rule 7): what it holds alive
stays near 32 MiB however large the items (the 10,000-message history: about 8 Mi)."""


@dataclass(frozen=True, slots=True)
class ArchiveEntry:
    """One archived payload: its reference, what it is, and the original itself."""

    ref: str
    kind: EntryKind
    item: Archivable
    """The original Message, Part or text, exactly as it was stored."""
    _: KW_ONLY
    label: str | None = None
    """Free text given to `put`, e.g. the tool name or the original token count."""


class Archive:
    """Originals of everything compaction removed, by content-addressed reference."""

    __slots__ = ("_store",)

    def __init__(self, store: ArchiveStore | None = None) -> None:
        if store is not None and not isinstance(store, ArchiveStore):
            raise ConfigurationError(
                f"an Archive keeps its entries in an ArchiveStore (put, get, refs, close), got "
                f"{type(store).__name__} {store!r:.40}; pass cf.SqliteStore('archive.db') or "
                "cf.MemoryStore()"
            )
        self._store: ArchiveStore = MemoryStore() if store is None else store

    @property
    def store(self) -> ArchiveStore:
        """The backend holding the entries."""
        return self._store

    def put(self, item: Archivable, *, label: str | None = None) -> str:
        """Store `item` (once) and return its reference."""
        store = self._store
        if not isinstance(store, MemoryStore):
            return self._put(item, label, None)
        if _SEEN.again(item):
            known = _known(item)
            if known is not None:
                ref = _put_known(store, known, label)
                if ref is not None:
                    return ref
        return self._put(item, label, store)

    def _put(self, item: Archivable, label: str | None, memory: MemoryStore | None) -> str:
        """`put`, every candidate reference in turn (rules 1, 2 and 5); `memory` is the
        store when it is a memory store."""
        kind, text = canonical_text(item)
        encoded = text.encode("utf-8", "surrogatepass")
        store = self._store
        kept = None if memory is None else _kept(item, len(text))
        if memory is not None and kept is not None:  # the common case: a new deferred record
            ref = reference(encoded)
            made = _Deferred(kind, kept, label, 0)
            if memory.put_deferred(ref, made) is made:
                return ref
        for probe in range(MAX_PROBES):
            ref = reference(encoded, probe)
            if memory is not None and kept is not None:
                made = _Deferred(kind, kept, label, probe)
                found = memory.put_deferred(ref, made)
                if found is made or (isinstance(found, _Deferred) and found.same(made)):
                    return ref
                held = found if isinstance(found, str) else found()
            else:
                mine = record_text(text, label, probe)
                held = store.put(ref, mine)
                if held == mine:
                    return ref
            if canonical_or_none(ref, held) == encoded:
                return ref
        raise ArchiveError(
            f"{MAX_PROBES} candidate references for one {kind} all hold other content; "
            "the archive is probably corrupt"
        )

    @property
    def warnings(self) -> tuple[str, ...]:
        """Storage faults the store degraded around (an SQLite file deleted, say)."""
        found = getattr(self._store, "warnings", ())
        return tuple(w for w in found if isinstance(w, str)) if isinstance(found, list) else ()

    def holds(self, item: Archivable) -> bool:
        """Whether this archive stores `item` (the same content under its reference)."""
        mine = canonical(item)
        for probe in range(MAX_PROBES):
            ref = reference(mine, probe)
            held = self._store.get(ref)
            if held is None:
                return False
            if canonical_or_none(ref, held) == mine:
                return True
        return False

    def entry(self, ref: str) -> ArchiveEntry:
        """The entry under `ref`; UnknownReference if there is none."""
        raw = self._store.get(ref)
        if raw is None:
            raise UnknownReference(ref)
        record = parse_record(ref, raw)
        if reference(record_canonical(record), record.probe) != ref:
            raise ArchiveError(
                f"archive entry {ref} does not match its reference; the archive is corrupt"
            )
        return ArchiveEntry(ref, record.kind, load_item(ref, record), label=record.label)

    def get(self, ref: str) -> Archivable:
        """The original item under `ref`; UnknownReference if there is none."""
        return self.entry(ref).item

    def recall_text(self, ref: str) -> str:
        """The item under `ref` as readable text for a model (see `readable`)."""
        return readable(self.get(ref))

    def refs(self) -> list[str]:
        """Every reference, in insertion order."""
        return list(self._store.refs())

    def close(self) -> None:
        """Close the store."""
        self._store.close()

    def __contains__(self, ref: object) -> bool:
        return isinstance(ref, str) and self._store.get(ref) is not None

    def __len__(self) -> int:
        return sum(1 for _ in self._store.refs())

    def __enter__(self) -> Archive:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Archive({self._store!r})"


# --- references and records ----------------------------------------------------------------


class _Deferred:
    """A record written when it is first read (rule 5)."""

    __slots__ = ("item", "kind", "label", "probe")

    def __init__(self, kind: EntryKind, item: Archivable, label: str | None, probe: int) -> None:
        self.kind, self.item, self.label, self.probe = kind, item, label, probe

    def __call__(self) -> str:
        return record_text(canonical_text(self.item)[1], self.label, self.probe)

    def same(self, other: _Deferred) -> bool:
        """Whether `other` holds the same content (and so the same canonical text)."""
        return self.kind == other.kind and self.item == other.item


def _kept(item: Archivable, size: int) -> Archivable | None:
    """What the memory store keeps of `item` until its record is read; None to write the
    record at once (rule 5). A long item goes straight to `private_copy`, which gives the
    item itself when nothing in it can change (one walk, not `unchanging`'s and its own)."""
    if size > COPY_OVER:
        return private_copy(item)
    return item if unchanging(item) else None


class _Known(NamedTuple):
    """What an item's content makes in a memory store at probe 0 (rule 7)."""

    kind: EntryKind
    ref: str
    kept: Archivable | None
    """What `_kept` gives; None to write `text` at once."""
    text: str | None
    """The canonical text when `kept` is None (a short item)."""


_KNOWN: Final[KeyedCache[_Known]] = KeyedCache(KNOWN_SIZE, KNOWN_CHARS)
_SEEN: Final = Seen(2 * KNOWN_SIZE)


def _known(item: Archivable) -> _Known | None:
    """`item`'s entry in the cache (rule 7), made when missing; None when it has no key."""
    key = key_of(item)
    if key is None:
        return None
    known = _KNOWN.get(key)
    if known is None:
        kind, text = canonical_text(item)
        kept = _kept(item, len(text))
        ref = reference(text.encode("utf-8", "surrogatepass"))
        known = _Known(kind, ref, kept, text if kept is None else None)
        _KNOWN.add(key, known, len(text))
    return known


def _put_known(store: MemoryStore, known: _Known, label: str | None) -> str | None:
    """Store a known item under its probe-0 reference; None when that holds anything but
    this very record (a collision, or the same content written otherwise): then `_put`."""
    if known.kept is None:
        mine = record_text(cast(str, known.text), label, 0)
        return known.ref if store.put(known.ref, mine) == mine else None
    made = _Deferred(known.kind, known.kept, label, 0)
    found = store.put_deferred(known.ref, made)
    if found is made or (isinstance(found, _Deferred) and found.same(made)):
        return known.ref
    return None


def reference(canonical: bytes, probe: int = 0) -> str:
    """The reference candidate number `probe` for canonical item bytes (rules 1 and 2)."""
    data = canonical if probe == 0 else canonical + b"#%d" % probe
    return "r" + hashlib.sha256(data).hexdigest()[:10]


def ref_of(item: Archivable) -> str:
    """The reference `item` gets in an archive where no collision moved it (probe 0)."""
    return reference(canonical(item))
