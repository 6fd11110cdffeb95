"""JSON form of the neutral model, for snapshots and the archive.

Rules:
1. A part dumps to a dict with its `kind` and its fields; empty extras and default values
   are left out, so the JSON stays small and stable.
2. Loading is the exact inverse: `load_message(dump_message(m)) == m` for every message.
3. Bad JSON raises InvalidConversation naming the field, never KeyError or TypeError:
   a part's fields are checked for their types (`_messages_check`) as it is built.

The canonical JSON text of that form, in one pass, is written in `_serialize_json`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

from ._errors import InvalidConversation
from ._messages import (
    EMPTY,
    ROLES,
    Card,
    Conversation,
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
    ToolSpec,
)
from ._messages_check import check_part

_PART_TYPES: Final[dict[str, type[Any]]] = {
    "text": Text,
    "image": Image,
    "tool_call": ToolCall,
    "tool_result": ToolResult,
    "reasoning": Reasoning,
    "opaque": Opaque,
    "marker": Marker,
    "summary": Summary,
    "card": Card,
}


_LAYOUTS: dict[type[Any], tuple[tuple[str, object], ...]] = {}


def layout(cls: type[Any]) -> tuple[tuple[str, object], ...]:
    """(name, default) of each field of a model class; MISSING when it has no default."""
    layout = _LAYOUTS.get(cls)
    if layout is None:
        layout = tuple((f.name, f.default) for f in dataclasses.fields(cls) if f.name != "_")
        _LAYOUTS[cls] = layout
    return layout


def model_fields(cls: type[Any]) -> tuple[str, ...]:
    """Names of the fields of a model class that `_serialize_json.dump_json` may write."""
    return tuple(name for name, _ in layout(cls))


def _dump_fields(obj: Any) -> dict[str, object]:
    out: dict[str, object] = {}
    for name, default in layout(type(obj)):
        value = getattr(obj, name)
        if name != "kind" and default is not dataclasses.MISSING and is_default(value, default):
            continue
        if isinstance(value, tuple):
            value = [_dump_fields(v) if type(v) in MODEL else v for v in value]
        elif isinstance(value, Mapping):
            value = dict(value)
        out[name] = value
    return out


def is_default(value: object, default: object) -> bool:
    """`value == default`, without Mapping.__eq__ copying both sides for the empty extras
    (equal to any empty mapping, unequal to anything else that is not a mapping)."""
    if value is default:
        return True
    if default is EMPTY:
        return isinstance(value, Mapping) and not value
    return bool(value == default)


MODEL: Final = frozenset({*_PART_TYPES.values(), Message, ToolSpec, Conversation})
"""The model's classes: what `_dump_fields` dumps field by field inside a tuple."""


def dump_part(part: Part) -> dict[str, object]:
    """JSON-ready dict for one part."""
    return _dump_fields(part)


def dump_message(message: Message) -> dict[str, object]:
    """JSON-ready dict for one message."""
    return _dump_fields(message)


def dump_conversation(conversation: Conversation) -> dict[str, object]:
    """JSON-ready dict for a conversation."""
    return _dump_fields(conversation)


def plain(value: object) -> object:
    """JSON stand-in for read-only mappings nested in extras; anything else is refused."""
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"{type(value).__name__} is not JSON-serializable")


def _expect_mapping(value: object, where: str) -> Mapping[str, object]:
    if not isinstance(value, Mapping):
        raise InvalidConversation(f"expected an object, got {type(value).__name__}", field=where)
    return value


def _frozen(value: object, where: str) -> Mapping[str, object]:
    return MappingProxyType(dict(_expect_mapping(value, where)))


def load_part(data: object, where: str = "part") -> Part:
    """Inverse of dump_part."""
    obj = _expect_mapping(data, where)
    kind = obj.get("kind")
    cls = _PART_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise InvalidConversation(f"unknown part kind {kind!r}", field=f"{where}.kind")
    kwargs: dict[str, object] = {}
    for key, raw in obj.items():
        value = raw
        if key == "kind":
            continue
        if key == "parts":
            value = tuple(load_part(p, f"{where}.parts[{i}]") for i, p in enumerate(_seq(raw)))
        elif key in ("extras", "payload"):
            value = _frozen(raw, f"{where}.{key}")
        kwargs[key] = value
    part: Part = _construct(cls, kwargs, where)
    check_part(part, None, where)
    return part


def load_message(data: object, index: int | None = None) -> Message:
    """Inverse of dump_message."""
    obj = _expect_mapping(data, "message")
    role = obj.get("role")
    if role not in ROLES:
        raise InvalidConversation(f"unknown role {role!r}", index=index, field="role")
    parts = tuple(load_part(p, f"parts[{i}]") for i, p in enumerate(_seq(obj.get("parts", []))))
    name = obj.get("name")
    if name is not None and not isinstance(name, str):
        raise InvalidConversation("name must be a string", index=index, field="name")
    extras = _frozen(obj.get("extras", {}), "extras")
    return Message(role, parts, name=name, extras=extras)


def load_conversation(data: object) -> Conversation:
    """Inverse of dump_conversation."""
    obj = _expect_mapping(data, "conversation")
    messages = tuple(load_message(m, i) for i, m in enumerate(_seq(obj.get("messages", []))))
    tools = tuple(
        _construct(ToolSpec, dict(_expect_mapping(t, f"tools[{i}]")), f"tools[{i}]")
        for i, t in enumerate(_seq(obj.get("tools", [])))
    )
    shape = obj.get("shape", "list")
    if shape not in ("list", "body"):
        raise InvalidConversation(f"unknown shape {shape!r}", field="shape")
    extras = _frozen(obj.get("extras", {}), "extras")
    return Conversation(messages, shape=shape, tools=tools, extras=extras)


def _seq(value: object) -> list[object]:
    if not isinstance(value, list | tuple):
        raise InvalidConversation(f"expected a list, got {type(value).__name__}")
    return list(value)


def _construct(cls: type[Any], kwargs: dict[str, object], where: str) -> Any:
    try:
        return cls(**kwargs)
    except TypeError as exc:
        raise InvalidConversation(f"cannot build {cls.__name__}: {exc}", field=where) from None
