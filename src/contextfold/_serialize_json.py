"""The canonical JSON text of the neutral model's JSON form (`_serialize`), in one pass.

Rules:
1. `dump_json` writes the JSON text of that form in one pass, the same bytes as
   `json.dumps(dump_part(p), **JSON_OPTIONS)`: per class, its fields in sorted order with
   their keys written once; strings go through json's own escaper, every other value
   (extras, payloads, scalars) through one encoder with the same options: json's C
   encoder, made once, without its cycle check (a cycle hits the recursion limit, then
   the checked encoder raises what `json.dumps` raises).
2. The common shapes (a message, text, tool call and tool result whose fields hold what
   the model says: strings, a bool, a tuple of parts, dict or empty extras) are written
   whole by their own writer, the same text in a few calls; anything else in a field
   sends that object the general way (rule 1). Their long strings (texts, arguments) go
   through json's ASCII escaper when they are ASCII without DEL: the same text, sooner.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterable, Mapping
from json.encoder import encode_basestring, encode_basestring_ascii
from types import MappingProxyType
from typing import Any, Final, TypeAlias

from ._messages import EMPTY, Card, Message, Part, Summary, Text, ToolCall, ToolResult
from ._serialize import MODEL, is_default, layout, plain

__all__ = ["JSON_OPTIONS", "dump_json", "json_writer", "quote"]

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
    """`json.dumps(value, **JSON_OPTIONS)` (rule 1): a cycle, which this encoder follows
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
        fields = sorted(layout(cls), key=lambda field: field[0])
        keyed = _KEYED[cls] = tuple(_keyed_field(name, default) for name, default in fields)
    return keyed


def _keyed_field(name: str, default: object) -> tuple[str, str, str, object]:
    key = encode_basestring(name) + ":"
    always = name == "kind" or default is dataclasses.MISSING  # as `_dump_fields` decides
    return name, "{" + key, "," + key, _KEEP if always else default


def dump_json(item: Message | Part) -> str:
    """`json.dumps(dump_message(item) or dump_part(item), **JSON_OPTIONS)`, written in one
    pass (rules 1 and 2); raises what that would (TypeError, ValueError)."""
    return _WRITERS.get(type(item), _general)(item)


def json_writer(cls: type[Any]) -> Callable[[Any], str]:
    """`dump_json` for items of class `cls` (its writer, looked up once)."""
    return _WRITERS.get(cls, _general)


def _general(value: object) -> str:
    """The JSON text of a model object field by field (rule 1), or of any other value."""
    if type(value) not in MODEL:
        return _encode(value)
    out: list[str] = []
    _write(value, out)
    return "".join(out)


def _write(obj: object, out: list[str]) -> None:
    """Append the JSON text of `_dump_fields(obj)` to `out`."""
    first = True
    for name, first_key, next_key, default in _keyed(type(obj)):
        value = getattr(obj, name)
        if default is not _KEEP and (value is default or is_default(value, default)):
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


# --- the common shapes, written whole (rule 2) ---------------------------------------------


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
