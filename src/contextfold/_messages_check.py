"""Whether a neutral Message (or Part) built by hand, or read back from JSON, is well formed.

Rules:
1. The model's frozen dataclasses take any value, so the places where a Message or Part
   comes in from outside (`ContextManager.add` and `extend`, snapshots, archive records)
   check it here: a field of the wrong type is InvalidConversation naming the message
   index and the field path (`parts[1].arguments`) and what it must be, never a
   TypeError deep inside compaction or a payload the provider would reject.
2. What each field must be is a table (`_FIELDS`): one line per class.
3. `parts` is a tuple (the model is frozen: a list could change under the archive).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

from ._errors import InvalidConversation
from ._messages import (
    DETAILS,
    ROLES,
    Card,
    Image,
    Marker,
    Message,
    Opaque,
    Reasoning,
    Summary,
    Text,
    ToolCall,
    ToolResult,
)

_Check = tuple[Callable[[object], bool], str]
"""A test of a field's value, and what the value must be (for the message)."""

_STR: Final[_Check] = (lambda v: isinstance(v, str), "a string")
_OPTIONAL_STR: Final[_Check] = (lambda v: v is None or isinstance(v, str), "a string or None")
_BOOL: Final[_Check] = (lambda v: isinstance(v, bool), "True or False")
_MAPPING: Final[_Check] = (lambda v: isinstance(v, Mapping), "a mapping (dict)")
_DETAIL: Final[_Check] = (lambda v: v is None or v in DETAILS, f"None or one of {DETAILS}")
_PARTS: Final[_Check] = (lambda v: isinstance(v, tuple), "a tuple of parts, e.g. (Text('hi'),)")

_FIELDS: Final[dict[type, tuple[tuple[str, _Check], ...]]] = {
    Text: (("text", _STR),),
    Image: (("source", _STR), ("detail", _DETAIL)),
    ToolCall: (("id", _STR), ("name", _STR), ("arguments", _STR)),
    ToolResult: (("call_id", _STR), ("parts", _PARTS), ("is_error", _BOOL)),
    Reasoning: (("text", _STR), ("signature", _OPTIONAL_STR), ("encrypted", _OPTIONAL_STR)),
    Opaque: (("payload", _MAPPING),),
    Marker: (("ref", _STR), ("text", _STR)),
    Summary: (("text", _STR),),
    Card: (("text", _STR),),
}
_PART_NAMES: Final = ", ".join(cls.__name__ for cls in _FIELDS)


def check_message(message: object, index: int | None = None) -> None:
    """InvalidConversation naming `index` and the field when `message` is malformed."""
    if not isinstance(message, Message):
        raise InvalidConversation(f"expected a Message, got {type(message).__name__}", index=index)
    if message.role not in ROLES:
        raise InvalidConversation(
            f"unknown role {message.role!r}; use one of {', '.join(ROLES)}",
            index=index,
            field="role",
        )
    _field(message.parts, _PARTS, index, "parts")
    _field(message.name, _OPTIONAL_STR, index, "name")
    _field(message.extras, _MAPPING, index, "extras")
    for i, part in enumerate(message.parts):
        check_part(part, index, f"parts[{i}]")


def check_part(part: object, index: int | None, where: str) -> None:
    """InvalidConversation naming `index` and `where` when `part` is malformed."""
    fields = _FIELDS.get(type(part))
    if fields is None:
        raise InvalidConversation(
            f"expected a part ({_PART_NAMES}), got {type(part).__name__}",
            index=index,
            field=where,
        )
    for name, check in fields:
        _field(getattr(part, name), check, index, f"{where}.{name}")
    _field(getattr(part, "extras", None), _MAPPING, index, f"{where}.extras")
    if isinstance(part, ToolResult):
        for i, inner in enumerate(part.parts):
            check_part(inner, index, f"{where}.parts[{i}]")


def _field(value: object, check: _Check, index: int | None, where: str) -> None:
    test, wanted = check
    if not test(value):
        raise InvalidConversation(
            f"must be {wanted}, got {type(value).__name__} {_shown(value)}",
            index=index,
            field=where,
        )


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
