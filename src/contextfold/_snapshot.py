"""ContextManager snapshots: its state as plain JSON, and back.

Rules:
1. A snapshot (VERSION 2) holds the view (neutral JSON form), the request's fields that
   cost tokens (`request`, only when there are any), sequence numbers, pins,
   marks, the calibration observations, the policy and the trigger's memory (so a restore
   compacts the same way, at the same turns)
   and where the archive is: its raw entries when it lives in memory (an SQLite store that
   lost its file and went on in memory too), the file's path for SQLite (opened again on
   restore), or the store's name for any other store (then
   `restore` needs `archive=`). A checksum over all of it comes last.
2. Loading checks everything and raises a typed error naming what is wrong: the version,
   the checksum (a snapshot changed after it was taken: a field removed, the format
   switched ...), every field's type, messages that are empty or that the format cannot
   carry, sequence numbers that repeat or reach `next`, and an archive that does not hold
   the references the view shows.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, cast

from ._adapters import check_format, render
from ._archive import Archive
from ._errors import ArchiveError, ConfigurationError, InvalidConversation
from ._messages import (
    CARD_HEADER,
    REF_PATTERN,
    SUMMARY_HEADER,
    Conversation,
    Message,
    ToolSpec,
    message_text,
    refs_in,
)
from ._planning._trigger import TriggerState
from ._policy import Policy
from ._policy_json import dump_policy, load_policy
from ._serialize import dump_conversation, dump_message, load_conversation, load_message
from ._storage import MemoryStore, SqliteStore

VERSION: Final = 2


@dataclass(frozen=True, slots=True)
class State:
    """What a snapshot restores."""

    budget: int
    model: str | None
    format: str
    tools: tuple[ToolSpec, ...]
    request_fields: Mapping[str, object]
    entries: list[tuple[Message, int | None]]
    next_seq: int
    pins: list[int]
    droppable: list[int]
    observed: list[tuple[int, int]]
    archive: Archive
    policy: Policy
    trigger: dict[str, object]
    """The water-mark trigger's memory (TriggerState fields)."""


def dump_state(
    *,
    budget: int,
    model: str | None,
    format: str,
    tools: tuple[ToolSpec, ...],
    request_fields: Mapping[str, object],
    entries: Sequence[tuple[Message, int | None]],
    next_seq: int,
    pins: Iterable[int],
    droppable: Iterable[int],
    observed: Sequence[tuple[int, int]],
    archive: Archive,
    policy: Policy,
    trigger: Mapping[str, object],
) -> dict[str, object]:
    """The snapshot dict (rule 1)."""
    data: dict[str, object] = {
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
        "policy": dump_policy(policy),
        "trigger": dict(trigger),
        "archive": _dump_archive(archive),
    }
    if request_fields:  # only then: a snapshot without them reads as it always did
        data["request"] = dict(request_fields)
    data["checksum"] = _checksum(data)
    return data


def _dump_archive(archive: Archive) -> dict[str, object]:
    store = archive.store
    if type(store) is SqliteStore and not store.in_memory:  # a file (else: its entries)
        return {"kind": "sqlite", "path": os.path.abspath(store.path)}
    if type(store) in (MemoryStore, SqliteStore):
        return {"kind": "memory", "entries": {ref: store.get(ref) for ref in store.refs()}}
    return {"kind": "external", "store": repr(store)}


def _checksum(data: Mapping[str, object]) -> str:
    body = {key: value for key, value in data.items() if key != "checksum"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def load_state(snapshot: object, archive: Archive | None, policy: Policy | None) -> State:
    """The State in `snapshot` (rule 2)."""
    if not isinstance(snapshot, Mapping):
        raise InvalidConversation("not a contextfold snapshot (expected an object)")
    if snapshot.get("version") != VERSION:
        raise InvalidConversation(
            f"unsupported snapshot version {snapshot.get('version')!r} (this contextfold "
            f"reads version {VERSION}); take a new snapshot",
            field="version",
        )
    try:
        matches = snapshot.get("checksum") == _checksum(snapshot)
    except (TypeError, ValueError):
        matches = False
    if not matches:
        raise InvalidConversation(
            "the snapshot was changed after it was taken (its checksum does not match)",
            field="checksum",
        )
    fmt = _format(snapshot.get("format"))
    view = _list(snapshot, "view")
    seqs = _list(snapshot, "seqs")
    if len(seqs) != len(view):
        raise InvalidConversation("seqs and view differ in length", field="seqs")
    entries = [
        (load_message(m, i), _optional_int(s, f"seqs[{i}]"))
        for i, (m, s) in enumerate(zip(view, seqs, strict=True))
    ]
    _check_view([m for m, _ in entries], fmt)
    next_seq = _int(snapshot.get("next"), "next")
    pins = [_int(p, "pins") for p in _list(snapshot, "pins")]
    droppable = [_int(p, "droppable") for p in _list(snapshot, "droppable")]
    _check_seqs([s for _, s in entries], next_seq, pins, droppable)
    tools = load_conversation({"messages": [], "tools": _list(snapshot, "tools")}).tools
    store = archive if archive is not None else _archive(snapshot.get("archive"))
    _check_refs([m for m, _ in entries], store)
    return State(
        budget=_int(snapshot.get("budget"), "budget"),
        model=_optional_str(snapshot.get("model"), "model"),
        format=fmt,
        tools=tools,
        request_fields=_mapping(snapshot.get("request", {}), "request"),
        entries=entries,
        next_seq=next_seq,
        pins=pins,
        droppable=droppable,
        observed=[_pair(p) for p in _list(snapshot, "observed")],
        archive=store,
        policy=policy if policy is not None else load_policy(snapshot.get("policy")),
        trigger=dict(_mapping(snapshot.get("trigger"), "trigger")),
    )


def load_trigger(data: Mapping[str, object]) -> tuple[TriggerState, list[int], int]:
    """The trigger's memory, the recent turns' sizes and the tokens not yet sent."""
    trigger = dict(data)
    turns, unseen = trigger.pop("turns", []), trigger.pop("unseen", 0)
    plain = all(v is None or isinstance(v, int | float) for v in trigger.values())
    if not isinstance(turns, list) or not all(_count(t) for t in turns) or not _count(unseen):
        plain = False
    try:
        state = TriggerState(**trigger)  # type: ignore[arg-type]
    except TypeError:
        plain = False
    if not plain:
        raise InvalidConversation("not a trigger state", field="trigger")
    return state, cast(list[int], turns), cast(int, unseen)


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _mapping(value: object, field: str) -> Mapping[str, object]:
    if not isinstance(value, Mapping):
        raise InvalidConversation("expected an object", field=field)
    return value


def _format(value: object) -> str:
    try:
        return check_format(value if isinstance(value, str) else "")
    except ConfigurationError:
        raise InvalidConversation(f"unknown format {value!r}", field="format") from None


def _check_view(messages: Sequence[Message], fmt: str) -> None:
    """Every message has content and is one the format can carry."""
    leading = True
    for i, message in enumerate(messages):
        if not message.parts:
            raise InvalidConversation("a message without content", index=i, field="view")
        system = message.role in ("system", "developer")
        if fmt == "anthropic" and system:
            if not leading:
                raise InvalidConversation("a system message after the first turn", index=i)
            continue
        leading = leading and system
        try:
            render(Conversation((message,)), fmt)
        except InvalidConversation as exc:
            raise InvalidConversation(exc.reason, index=i, field="view", format=fmt) from None
        except (TypeError, ValueError, LookupError, AttributeError) as exc:  # extras tampered
            raise InvalidConversation(
                f"the message cannot be rendered ({type(exc).__name__}: {exc}); its extras "
                "are not what the adapter wrote",
                index=i,
                field="view",
                format=fmt,
            ) from None


def _check_seqs(
    seqs: Sequence[int | None], next_seq: int, pins: Sequence[int], droppable: Sequence[int]
) -> None:
    """Sequence numbers name one message each: those in the view are distinct, and every
    one given out (pins and droppable marks too) is below `next`, the next one to give."""
    given = [s for s in seqs if s is not None]
    if len(set(given)) != len(given):
        raise InvalidConversation("two messages of the view have one sequence number", field="seqs")
    for field, numbers in (("seqs", given), ("pins", pins), ("droppable", droppable)):
        if any(not 0 <= n < next_seq for n in numbers):
            raise InvalidConversation(
                f"a sequence number outside 0 .. next - 1 (next is {next_seq})", field=field
            )


_ANY_REF = re.compile(r"(?<![0-9a-z])(" + REF_PATTERN + r")(?![0-9a-f])")


def _check_refs(messages: Sequence[Message], archive: Archive) -> None:
    """The archive holds every reference the view's markers, card and summary show."""
    for message in messages:
        text = message_text(message)
        shown = refs_in(text)
        if text.startswith((SUMMARY_HEADER, CARD_HEADER)):
            shown += _ANY_REF.findall(text)
        for ref in shown:
            if ref not in archive:
                raise ArchiveError(
                    f"the archive does not hold {ref}, which the view shows; restore with "
                    "the archive the snapshot was taken with (archive=)"
                )


def _archive(data: object) -> Archive:
    if not isinstance(data, Mapping):
        raise InvalidConversation("expected the archive's kind and place", field="archive")
    kind = data.get("kind")
    if kind == "sqlite":
        path = data.get("path")
        if not isinstance(path, str):
            raise InvalidConversation("expected the SQLite file's path", field="archive.path")
        return Archive(SqliteStore(path, create=False))
    if kind == "external":
        raise ConfigurationError(
            f"the snapshot's archive is {data.get('store')}; pass it as restore(archive=...)"
        )
    entries = data.get("entries")
    if kind != "memory" or not isinstance(entries, Mapping):
        raise InvalidConversation("unknown archive kind", field="archive")
    store = MemoryStore()
    for ref, raw in entries.items():
        if not isinstance(ref, str) or not isinstance(raw, str):
            raise InvalidConversation("archive entries must be strings", field="archive")
        store.put(ref, raw)
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
