"""JSON form of the neutral model, for snapshots and the archive.

Rules:
1. A part dumps to a dict with its `kind` and its fields; empty extras and default values
   are left out, so the JSON stays small and stable.
2. Loading is the exact inverse: `load_message(dump_message(m)) == m` for every message.
3. Bad JSON raises InvalidConversation naming the field, never KeyError or TypeError.
4. `dump_json` writes the JSON text of that form in one pass, the same bytes as
   `json.dumps(dump_part(p), **JSON_OPTIONS)`: per class, its fields in sorted order with
   their keys written once; strings go through json's own escaper, every other value
   (extras, payloads, scalars) through one encoder with the same options: json's C
   encoder, made once, without its cycle check (a cycle hits the recursion limit, then
   the checked encoder raises what `json.dumps` raises).
5. The common shapes (a message, text, tool call and tool result whose fields hold what
   the model says: strings, a bool, a tuple of parts, dict or empty extras) are written
   whole by their own writer, the same text in a few calls; anything else in a field
   sends that object the general way (rule 4). Their long strings (texts, arguments) go
   through json's ASCII escaper when they are ASCII without DEL: the same text, sooner.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterable, Mapping
from json.encoder import encode_basestring, encode_basestring_ascii
from types import MappingProxyType
from typing import Any, Final, TypeAlias

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


def _layout(cls: type[Any]) -> tuple[tuple[str, object], ...]:
    """(name, default) of each field of a model class; MISSING when it has no default."""
    layout = _LAYOUTS.get(cls)
    if layout is None:
        layout = tuple((f.name, f.default) for f in dataclasses.fields(cls) if f.name != "_")
        _LAYOUTS[cls] = layout
    return layout


def model_fields(cls: type[Any]) -> tuple[str, ...]:
    """Names of the fields of a model class that `dump_json` may write."""
    return tuple(name for name, _ in _layout(cls))


def _dump_fields(obj: Any) -> dict[str, object]:
    out: dict[str, object] = {}
    for name, default in _layout(type(obj)):
        value = getattr(obj, name)
        if name != "kind" and default is not dataclasses.MISSING and _is_default(value, default):
            continue
        if isinstance(value, tuple):
            value = [_dump_fields(v) if type(v) in _MODEL else v for v in value]
        elif isinstance(value, Mapping):
            value = dict(value)
        out[name] = value
    return out


def _is_default(value: object, default: object) -> bool:
    """`value == default`, without Mapping.__eq__ copying both sides for the empty extras
    (equal to any empty mapping, unequal to anything else that is not a mapping)."""
    if value is default:
        return True
    if default is EMPTY:
        return isinstance(value, Mapping) and not value
    return bool(value == default)


_MODEL: Final = frozenset({*_PART_TYPES.values(), Message, ToolSpec, Conversation})
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


# --- JSON text in one pass (rule 4) --------------------------------------------------------


def plain(value: object) -> object:
    """JSON stand-in for read-only mappings nested in extras; anything else is refused."""
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"{type(value).__name__} is not JSON-serializable")


JSON_OPTIONS: Final[dict[str, Any]] = {
    "sort_keys": True,
    "separators": (",", ":"),
    "ensure_ascii": False,
    "default": plain,
}
"""The canonical encoding: sorted keys, no spaces, non-ASCII (and lone surrogates) as is."""

_encode_checked: Final = json.JSONEncoder(**JSON_OPTIONS).encode
_make_encoder: Callable[..., Callable[[object, int], Iterable[str]]] | None = getattr(
    json.encoder, "c_make_encoder", None
)
_encoder: Final = (
    None
    if _make_encoder is None
    else _make_encoder(None, plain, encode_basestring, None, ":", ",", True, False, True)
)
"""json's own C encoder with the canonical options, made once and without the cycle check
(`json.dumps` makes one per call: most of what a small value costs)."""


def _encode(value: object) -> str:
    """`json.dumps(value, **JSON_OPTIONS)` (rule 4): a cycle, which this encoder follows
    until it hits the recursion limit, is then reported by the checked encoder as
    `json.dumps` reports it."""
    if _encoder is None:
        return _encode_checked(value)
    try:
        return "".join(_encoder(value, 0))
    except RecursionError:
        return _encode_checked(value)


_KEEP: Final = object()
"""Default of a field that is always written (`kind`, and fields without a default)."""
_Keyed: TypeAlias = tuple[tuple[str, str, str, object], ...]
_KEYED: dict[type[Any], _Keyed] = {}


def _keyed(cls: type[Any]) -> _Keyed:
    """(name, key written first, key written after another, default or _KEEP) of each
    field of a model class, sorted by name."""
    keyed = _KEYED.get(cls)
    if keyed is None:
        fields = sorted(_layout(cls), key=lambda field: field[0])
        keyed = _KEYED[cls] = tuple(_keyed_field(name, default) for name, default in fields)
    return keyed


def _keyed_field(name: str, default: object) -> tuple[str, str, str, object]:
    key = encode_basestring(name) + ":"
    always = name == "kind" or default is dataclasses.MISSING  # as `_dump_fields` decides
    return name, "{" + key, "," + key, _KEEP if always else default


def dump_json(item: Message | Part) -> str:
    """`json.dumps(dump_message(item) or dump_part(item), **JSON_OPTIONS)`, written in one
    pass (rules 4 and 5); raises what that would (TypeError, ValueError)."""
    return _WRITERS.get(type(item), _general)(item)


def json_writer(cls: type[Any]) -> Callable[[Any], str]:
    """`dump_json` for items of class `cls` (its writer, looked up once)."""
    return _WRITERS.get(cls, _general)


def _general(value: object) -> str:
    """The JSON text of a model object field by field (rule 4), or of any other value."""
    if type(value) not in _MODEL:
        return _encode(value)
    out: list[str] = []
    _write(value, out)
    return "".join(out)


def _write(obj: object, out: list[str]) -> None:
    """Append the JSON text of `_dump_fields(obj)` to `out`."""
    first = True
    for name, first_key, next_key, default in _keyed(type(obj)):
        value = getattr(obj, name)
        if default is not _KEEP and (value is default or _is_default(value, default)):
            continue
        out.append(first_key if first else next_key)
        first = False
        if type(value) is str:
            out.append(encode_basestring(value))
        elif isinstance(value, tuple):
            out.append(_array(value))
        elif isinstance(value, Mapping):
            out.append(_encode(value if type(value) is dict else dict(value)))
        else:
            out.append(_encode(value))
    out.append("{}" if first else "}")


def _array(values: tuple[object, ...]) -> str:
    """The JSON array of a tuple field: model objects field by field, others as is."""
    if len(values) == 1:  # most often: written without a list
        value = values[0]
        return f"[{_WRITERS.get(type(value), _general)(value)}]"
    return f"[{','.join([_WRITERS.get(type(v), _general)(v) for v in values])}]"


# --- the common shapes, written whole (rule 5) ---------------------------------------------


def _extras_json(extras: object) -> str | None:
    """`"extras":<json>,` as `_write` writes it before the next key; "" when it is left
    out; None for anything but the empty default, a dict or a read-only mapping."""
    if extras is EMPTY:
        return ""
    kind = type(extras)
    if kind is not dict and kind is not MappingProxyType:
        return None
    if not extras:
        return ""
    return f'"extras":{_encode(extras if kind is dict else dict(extras))},'  # type: ignore[call-overload]


def quote(text: str) -> str:
    """`encode_basestring(text)`; by the faster ASCII escaper when both write the same (ASCII
    text without DEL, which only that one escapes): for the long strings, texts and
    arguments."""
    if text.isascii() and "\x7f" not in text:
        return encode_basestring_ascii(text)
    return encode_basestring(text)


def _text_like(kind: str) -> Callable[[Any], str]:
    """The writer of a class whose fields are `extras`, `kind` and `text` (Text, Summary,
    Card)."""
    head = f'"kind":{encode_basestring(kind)},"text":'

    def write(part: Text | Summary | Card) -> str:
        text, tag = part.text, part.kind
        extras = "" if part.extras is EMPTY else _extras_json(part.extras)
        if extras is None or type(text) is not str or type(tag) is not str or tag != kind:
            return _general(part)
        if text.isascii() and "\x7f" not in text:  # `quote`, without a call per part
            return f"{{{extras}{head}{encode_basestring_ascii(text)}}}"
        return f"{{{extras}{head}{encode_basestring(text)}}}"

    return write


def _tool_call(part: ToolCall) -> str:
    args, ident, name, tag = part.arguments, part.id, part.name, part.kind
    extras = "" if part.extras is EMPTY else _extras_json(part.extras)
    if extras is None or type(tag) is not str or tag != "tool_call":
        return _general(part)
    if type(args) is not str or type(ident) is not str or type(name) is not str:
        return _general(part)
    return (
        f'{{"arguments":{quote(args)},{extras}"id":{encode_basestring(ident)},'
        f'"kind":"tool_call","name":{encode_basestring(name)}}}'
    )


def _tool_result(part: ToolResult) -> str:
    call_id, parts, error, tag = part.call_id, part.parts, part.is_error, part.kind
    head = "" if part.extras is EMPTY else _extras_json(part.extras)
    if head is None or type(call_id) is not str or type(parts) is not tuple:
        return _general(part)
    if type(tag) is not str or tag != "tool_result" or (error is not False and error is not True):
        return _general(part)
    if error:
        head += '"is_error":true,'
    return (
        f'{{"call_id":{encode_basestring(call_id)},{head}"kind":"tool_result",'
        f'"parts":{_array(parts)}}}'
    )


def _message(message: Message) -> str:
    role, parts, name, extras = message.role, message.parts, message.name, message.extras
    head = "" if extras is EMPTY else _extras_json(extras)
    if head is None or type(role) is not str or type(parts) is not tuple:
        return _general(message)
    if name is not None:
        if type(name) is not str:
            return _general(message)
        head += f'"name":{encode_basestring(name)},'
    if len(parts) == 1:  # `_array(parts)`, without a call for the one part most hold
        part = parts[0]
        body = _WRITERS.get(type(part), _general)(part)
        return f'{{{head}"parts":[{body}],"role":{encode_basestring(role)}}}'
    return f'{{{head}"parts":{_array(parts)},"role":{encode_basestring(role)}}}'


_WRITERS: Final[dict[type[Any], Callable[[Any], str]]] = {
    Message: _message,
    Text: _text_like("text"),
    Summary: _text_like("summary"),
    Card: _text_like("card"),
    ToolCall: _tool_call,
    ToolResult: _tool_result,
}
"""The writer of each common shape; it sends anything else in its fields the general way."""


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
