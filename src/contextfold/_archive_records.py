"""Canonical text and stored records of archived items (the archive's rules 1, 3, 4 and 6).

Rules:
1. The canonical text of an item is `{"item": <_serialize form>, "kind": "message" |
   "part" | "text"}` with sorted keys, `,`/`:` separators, written in one pass over the
   item (`_serialize_json.dump_json`: the same text as `json.dumps` of its form). Only a
   Message, one of the model's Part classes or a str has one; anything else, or an item
   JSON cannot hold, is InvalidConversation.
2. A record is the canonical text plus the entry's label and probe (when not 0), as
   sorted-key ASCII JSON: derived from the canonical text, never by encoding the item again.
3. A record read back is checked field by field; anything malformed is ArchiveError, never
   a wrong item. Its canonical bytes are recomputed from the parsed JSON.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Final, Literal, NamedTuple, TypeAlias, assert_never

from ._errors import ArchiveError, InvalidConversation
from ._messages import (
    Card,
    Image,
    Marker,
    Message,
    Opaque,
    Part,
    Reasoning,
    Summary,
    Text,
    ToolCall,
    ToolResult,
)
from ._serialize import load_message, load_part
from ._serialize_json import JSON_OPTIONS, json_writer, quote

EntryKind: TypeAlias = Literal["message", "part", "text"]
Archivable: TypeAlias = Message | Part | str

MAX_PROBES: Final = 8
"""Candidate references tried per item; running out means something is badly wrong."""


class Record(NamedTuple):
    """A stored record as read back: its kind, its item as parsed JSON, label and probe."""

    kind: EntryKind
    data: object
    label: str | None
    probe: int


_ARCHIVABLE: Final = (
    Message,
    Text,
    Image,
    ToolCall,
    ToolResult,
    Reasoning,
    Opaque,
    Marker,
    Summary,
    Card,
)


def canonical(item: object) -> bytes:
    """The canonical bytes of `item` (UTF-8, lone surrogates passed through)."""
    return canonical_text(item)[1].encode("utf-8", "surrogatepass")


def canonical_text(item: object) -> tuple[EntryKind, str]:
    """The entry kind of `item` and its canonical text (rule 1), the item encoded once."""
    if isinstance(item, str):
        return "text", f'{{"item":{quote(item)},"kind":"text"}}'
    known = _WRITES.get(type(item))
    kind, write = (_kind(item), json_writer(type(item))) if known is None else known
    try:
        data = write(item)  # a Message or a Part, as `kind` says
    except (TypeError, ValueError) as exc:
        raise InvalidConversation(
            f"cannot archive this {kind}: not JSON-serializable ({exc})"
        ) from None
    return kind, f'{{"item":{data},"kind":"{kind}"}}'  # sorted keys as json.dumps; one copy


def _kind(item: object) -> EntryKind:
    """The entry kind of an item of any other class; InvalidConversation when it has none."""
    if isinstance(item, _ARCHIVABLE):
        return "message" if isinstance(item, Message) else "part"
    raise InvalidConversation(
        f"cannot archive a {type(item).__name__}; pass a Message, a Part or a str"
    )


_WRITES: Final[dict[type, tuple[EntryKind, Callable[[Any], str]]]] = {
    cls: ("message" if cls is Message else "part", json_writer(cls)) for cls in _ARCHIVABLE
}
"""The entry kind of each class archived and its JSON writer (exactly these classes:
`_kind` and `json_writer` take the others)."""


def record_canonical(record: Record) -> bytes:
    """Canonical bytes of a record read back (its item as parsed JSON)."""
    text = json.dumps({"item": record.data, "kind": record.kind}, **JSON_OPTIONS)
    return text.encode("utf-8", "surrogatepass")


_NOT_PRINTABLE_ASCII: Final = re.compile("[^\x00-\x7e]")


def record_text(canonical: str, label: str | None, probe: int) -> str:
    """The stored record (sorted-key ASCII JSON) of the item with this canonical text,
    without encoding the item again: keys sort item, kind, label, probe, and `ensure_ascii`
    only escapes what lies past `~` (inside strings) as `\\uXXXX`, astral ones as pairs."""
    tail = ""
    if label is not None:
        tail += ',"label":' + json.dumps(label)
    if probe:
        tail += f',"probe":{probe}'
    text = f"{canonical[:-1]}{tail}}}" if tail else canonical
    if text.isascii() and "\x7f" not in text:
        return text
    return _NOT_PRINTABLE_ASCII.sub(_escaped, text)


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 | (code >> 10):04x}\\u{0xDC00 | (code & 0x3FF):04x}"


def parse_record(ref: str, raw: str) -> Record:
    """The record stored under `ref`; ArchiveError when it is malformed."""
    try:
        obj = json.loads(raw)
    except ValueError:
        raise _corrupt(ref, "not JSON") from None
    if not isinstance(obj, dict) or "item" not in obj:
        raise _corrupt(ref, "not an archive record")
    kind, label, probe = obj.get("kind"), obj.get("label"), obj.get("probe", 0)
    if kind not in ("message", "part", "text"):
        raise _corrupt(ref, f"unknown kind {kind!r}")
    if label is not None and not isinstance(label, str):
        raise _corrupt(ref, "label is not text")
    if not isinstance(probe, int) or isinstance(probe, bool) or not 0 <= probe < MAX_PROBES:
        raise _corrupt(ref, f"bad probe {probe!r}")
    return Record(kind, obj["item"], label, probe)


def canonical_or_none(ref: str, raw: str) -> bytes | None:
    """Canonical bytes of the record `raw`, or None when it cannot be read."""
    try:
        record = parse_record(ref, raw)
    except ArchiveError:
        return None
    return record_canonical(record)


def load_item(ref: str, record: Record) -> Archivable:
    try:
        match record.kind:
            case "text":
                if not isinstance(record.data, str):
                    raise _corrupt(ref, "text entry does not hold text")
                return record.data
            case "message":
                return load_message(record.data)
            case "part":
                return load_part(record.data)
            case _:
                assert_never(record.kind)
    except InvalidConversation as exc:
        raise _corrupt(ref, str(exc)) from None


def _corrupt(ref: str, why: str) -> ArchiveError:
    return ArchiveError(f"archive entry {ref} is corrupt: {why}")
