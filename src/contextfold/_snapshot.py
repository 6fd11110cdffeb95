"""ContextManager snapshots: its state as plain JSON, and back.

Rules:
1. A snapshot holds the view (neutral JSON form), sequence numbers, pins, marks, the
   calibration observations and, when the archive lives in memory, the archive's raw
   entries (so references recall the same originals after a restore). An SQLite archive
   is not copied: pass it to `restore`.
2. Loading checks every field and raises InvalidConversation naming the bad one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from ._archive import Archive
from ._errors import InvalidConversation
from ._messages import Conversation, Message, ToolSpec
from ._serialize import dump_conversation, dump_message, load_conversation, load_message
from ._storage import MemoryStore

VERSION: Final = 1


@dataclass(frozen=True, slots=True)
class State:
    """What a snapshot restores."""

    budget: int
    model: str | None
    format: str
    tools: tuple[ToolSpec, ...]
    entries: list[tuple[Message, int | None]]
    next_seq: int
    pins: list[int]
    droppable: list[int]
    observed: list[tuple[int, int]]
    archive: Archive


def dump_state(
    *,
    budget: int,
    model: str | None,
    format: str,
    tools: tuple[ToolSpec, ...],
    entries: Sequence[tuple[Message, int | None]],
    next_seq: int,
    pins: Iterable[int],
    droppable: Iterable[int],
    observed: Sequence[tuple[int, int]],
    archive: Archive,
) -> dict[str, object]:
    """The snapshot dict (rule 1)."""
    store = archive.store
    memory = isinstance(store, MemoryStore)
    return {
        "version": VERSION,
        "budget": budget,
        "model": model,
        "format": format,
        "tools": dump_conversation(Conversation((), tools=tools)).get("tools", []),
        "view": [dump_message(m) for m, _ in entries],
        "seqs": [s for _, s in entries],
        "next": next_seq,
        "pins": sorted(pins),
        "droppable": sorted(droppable),
        "observed": [list(pair) for pair in observed],
        "archive": {ref: store.get(ref) for ref in store.refs()} if memory else None,
    }


def load_state(snapshot: object, archive: Archive | None) -> State:
    """The State in `snapshot` (rule 2)."""
    if not isinstance(snapshot, Mapping) or snapshot.get("version") != VERSION:
        raise InvalidConversation("not a contextfold snapshot (or an unsupported version)")
    view = _list(snapshot, "view")
    seqs = _list(snapshot, "seqs")
    if len(seqs) != len(view):
        raise InvalidConversation("seqs and view differ in length", field="seqs")
    entries = [
        (load_message(m, i), _optional_int(s, f"seqs[{i}]"))
        for i, (m, s) in enumerate(zip(view, seqs, strict=True))
    ]
    tools = load_conversation({"messages": [], "tools": _list(snapshot, "tools")}).tools
    return State(
        budget=_int(snapshot.get("budget"), "budget"),
        model=_optional_str(snapshot.get("model"), "model"),
        format=str(_optional_str(snapshot.get("format"), "format") or "openai-chat"),
        tools=tools,
        entries=entries,
        next_seq=_int(snapshot.get("next"), "next"),
        pins=[_int(p, "pins") for p in _list(snapshot, "pins")],
        droppable=[_int(p, "droppable") for p in _list(snapshot, "droppable")],
        observed=[_pair(p) for p in _list(snapshot, "observed")],
        archive=archive if archive is not None else _archive(snapshot.get("archive")),
    )


def _archive(data: object) -> Archive:
    store = MemoryStore()
    if isinstance(data, Mapping):
        for ref, raw in data.items():
            if not isinstance(ref, str) or not isinstance(raw, str):
                raise InvalidConversation("archive entries must be strings", field="archive")
            store.put(ref, raw)
    elif data is not None:
        raise InvalidConversation("archive must be an object or null", field="archive")
    return Archive(store)


def _list(snapshot: Mapping[str, object], key: str) -> list[object]:
    value = snapshot.get(key, [])
    if not isinstance(value, list):
        raise InvalidConversation("expected a list", field=key)
    return value


def _int(value: object, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidConversation("expected an integer", field=field)
    return value


def _optional_int(value: object, field: str) -> int | None:
    return None if value is None else _int(value, field)


def _optional_str(value: object, field: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise InvalidConversation("expected a string", field=field)
    return value


def _pair(value: object) -> tuple[int, int]:
    if not isinstance(value, list) or len(value) != 2:
        raise InvalidConversation("expected [estimated, actual]", field="observed")
    return _int(value[0], "observed"), _int(value[1], "observed")
