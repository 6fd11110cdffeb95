"""What the in-memory archive keeps of an item until its record is first read (the
archive's rule 5).

Rules:
1. Strings and the model's frozen objects cannot change; only containers inside extras and
   opaque payloads are the caller's, who may mutate them after the item is archived.
2. An item with none (every extra a plain scalar or a layout an adapter shares, which
   nothing changes: `_messages` rule 6; no opaque payload) is `unchanging`: it is kept as
   it is.
3. Otherwise it can be kept as a copy whose lists, tuples, dicts and read-only mappings in
   extras and payloads are new ones that nobody else holds (lists become tuples, which
   encode to the same JSON); strings and scalars are shared, never copied.
4. Anything else in an extra (another type, nesting past MAX_DEPTH) gives None: the
   archive then writes that item's record at once, as a text nothing can change.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from types import MappingProxyType
from typing import Any, Final, TypeAlias, cast

from ._messages import (
    EMPTY,
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
    shares_extras,
)

MAX_DEPTH: Final = 32
"""Nesting depth of extras copied; deeper ones (never seen on a wire) are written at once."""

Kept: TypeAlias = Message | Part | str
_SCALARS: Final = frozenset({str, int, float, bool, type(None)})
_NONE: Final = object()
"""What `_value` returns for a value it cannot copy."""


def unchanging(item: Kept) -> bool:
    """Whether nothing in `item` can change after it is archived (rule 2)."""
    if isinstance(item, str):
        return True
    if isinstance(item, Message):  # exactly a Message, as `private_copy` takes
        return (
            type(item) is Message
            and (item.extras is EMPTY or _plain_extras(item.extras))
            and all(map(_unchanging_part, item.parts))
        )
    return _unchanging_part(item)


def _unchanging_part(part: Part) -> bool:
    if type(part) is ToolResult:
        extras, parts = part.extras, part.parts
        return (extras is EMPTY or _plain_extras(extras)) and all(map(_unchanging_part, parts))
    return type(part) in _LEAVES and (part.extras is EMPTY or _plain_extras(part.extras))


def private_copy(item: Kept) -> Kept | None:
    """`item` itself, or a copy sharing nothing mutable with the caller; None when an extra
    holds something this cannot copy (rules 2-4)."""
    if isinstance(item, str):
        return item
    if type(item) is Message:
        if _plain_extras(item.extras) and all(map(_unchanging_part, item.parts)):
            return item  # `unchanging`: most messages are, and that walk builds nothing
        parts, extras = _parts(item.parts), _extras(item.extras)
        if parts is None or extras is None:
            return None
        if parts is item.parts and extras is item.extras:
            return item
        return Message(item.role, parts, name=item.name, extras=extras)  # faster than replace()
    return _part(item)


def _part(part: object) -> Part | None:
    copy = _PART_COPIES.get(type(part))
    return None if copy is None else copy(part)


def _parts(parts: tuple[Part, ...]) -> tuple[Part, ...] | None:
    """`parts` itself when every part is kept as it is, else their copies (or None)."""
    kept = [_part(part) for part in parts]
    if all(map(operator.is_, kept, parts)):
        return parts
    copies = tuple(k for k in kept if k is not None)
    return copies if len(copies) == len(parts) else None


def _leaf(part: Part) -> Part | None:
    extras = _extras(part.extras)
    if extras is None:
        return None
    if extras is part.extras:
        return part
    build = _WITH_EXTRAS.get(type(part))
    return replace(part, extras=extras) if build is None else build(part, extras)


_WITH_EXTRAS: Final[dict[type[Any], Callable[[Any, Mapping[str, object]], Part]]] = {
    Text: lambda p, e: Text(p.text, extras=e, kind=p.kind),
    ToolCall: lambda p, e: ToolCall(p.id, p.name, p.arguments, extras=e, kind=p.kind),
}
"""`dataclasses.replace(part, extras=e)` built directly, for the parts whose extras most
often hold layout lists (replace costs about twice the copy)."""


def _tool_result(part: ToolResult) -> ToolResult | None:
    parts, extras = _parts(part.parts), _extras(part.extras)
    if parts is None or extras is None:
        return None
    if parts is part.parts and extras is part.extras:
        return part
    return ToolResult(part.call_id, parts, is_error=part.is_error, extras=extras, kind=part.kind)


def _opaque(part: Opaque) -> Opaque | None:
    payload, extras = _value(part.payload, 0), _extras(part.extras)
    if not isinstance(payload, dict) or extras is None:
        return None
    return replace(part, payload=payload, extras=extras)


_LEAVES: Final = frozenset({Text, Image, ToolCall, Reasoning, Marker, Summary, Card})
_PART_COPIES: Final[dict[type[Any], Callable[[Any], Part | None]]] = {
    ToolResult: _tool_result,
    Opaque: _opaque,
    **dict.fromkeys(_LEAVES, _leaf),
}
"""How each part class is copied (exactly these classes: anything else is not copied)."""


def _extras(extras: Mapping[str, object]) -> Mapping[str, object] | None:
    """`extras` itself when every value is a plain scalar, else a private copy (or None)."""
    if _plain_extras(extras):
        return extras
    copied = _value(extras, 0)
    return copied if isinstance(copied, dict) else None


def _plain_extras(extras: Mapping[str, object]) -> bool:
    return extras is EMPTY or not extras or _plain(extras.values()) or shares_extras(extras)


def _plain(values: Iterable[object]) -> bool:
    return _SCALARS.issuperset(map(type, values))  # stops at the first other type


def _value(value: object, depth: int) -> object:
    """A private copy of a JSON value (_NONE when it holds anything else, rule 4)."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    if depth >= MAX_DEPTH:
        return _NONE
    if kind is list or kind is tuple:
        items = tuple(cast("Sequence[object]", value))
        if _plain(items):
            return items
        items = tuple(_value(v, depth + 1) for v in items)
        return _NONE if _NONE in items else items
    if kind is dict or kind is MappingProxyType:
        return _mapping(cast("Mapping[object, object]", value), depth)
    return _NONE


def _mapping(mapping: Mapping[object, object], depth: int) -> object:
    pairs: dict[object, object] = {}
    inner = depth + 1
    for key, value in mapping.items():
        kind = type(value)
        if type(key) not in _SCALARS:
            return _NONE
        if kind in _SCALARS:
            pairs[key] = value
            continue
        if kind is list and inner < MAX_DEPTH:  # `_value` of a layout's key order, at once
            items = tuple(cast("list[object]", value))
            if _plain(items):
                pairs[key] = items
                continue
        copied = _value(value, inner)
        if copied is _NONE:
            return _NONE
        pairs[key] = copied
    return pairs
