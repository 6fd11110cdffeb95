"""How the OpenAI chat adapter remembers wire layout the neutral model does not hold.

Rules:
1. A wire key the adapter does not map (`cache_control`, litellm's `index`, a `null`
   `content`, an empty `tool_calls` list, unknown fields) stays in the part's, message's
   or conversation's `extras` under its own name, verbatim and in order.
2. Layout lives in `extras` under the private keys below, all plain JSON, and only when
   rendering would not reproduce it on its own: key order (`KEYS`), list-shaped content
   (`FORM`), the legacy `function` role (`ROLE`), custom and legacy tool calls, the nested
   `function` object's own extras (`INNER`) and tools kept whole (`RAW`).
3. Rendering builds mapped keys in canonical order, adds the verbatim extras after them,
   then restores the recorded key order; keys the engine added go last.
   Values kept verbatim are shared with the input, not copied.
4. Extras that hold nothing but layout (scalars, the key order this adapter recorded and
   a nested `function` object's extras of the same kind) are one mapping per distinct
   layout (`_messages.share_extras`): a conversation's tool messages and calls mostly
   share one layout, and a copy of it per message cost about 400 bytes each.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, cast

from .._errors import InvalidConversation
from .._messages import EMPTY, Extras, share_extras, shares_extras

FORMAT: Final = "openai-chat"

KEYS: Final = "openai-chat:keys"
"""The wire object's key order, when it differs from the order rendering produces."""
FORM: Final = "openai-chat:content"
"""`"list"` when the message content was a (non-empty) list of parts."""
ROLE: Final = "openai-chat:role"
"""`"function"` on a tool message that was a legacy `function` role message."""
LEGACY: Final = "openai-chat:legacy"
"""True on a ToolCall read from `function_call`, and on a ToolSpec read from `functions`."""
KIND: Final = "openai-chat:type"
"""`"custom"` on a ToolCall read from a custom tool call."""
INNER: Final = "openai-chat:inner"
"""Extras of a tool call's nested `function` (or `custom`) object."""
RAW: Final = "openai-chat:raw"
"""A tool definition this adapter does not map, kept whole."""

PRIVATE: Final = frozenset({KEYS, FORM, ROLE, LEGACY, KIND, INNER, RAW})


def invalid(reason: str, index: int | None = None, field: str | None = None) -> InvalidConversation:
    """An InvalidConversation for this format."""
    return InvalidConversation(reason, index=index, field=field, format=FORMAT)


def leftovers(obj: Mapping[str, object], mapped: list[str]) -> dict[str, object]:
    """The keys of `obj` not in `mapped` (canonical order), plus the key order if needed."""
    keys = list(obj)
    if keys == mapped:
        return {}
    extras = dict(obj)  # a copy in C, then the few mapped keys out: the same dict, faster
    for key in mapped:
        extras.pop(key, None)
    if keys != mapped + list(extras):
        extras[KEYS] = keys
    return extras


def freeze(extras: dict[str, object]) -> Extras:
    """`extras`, the shared empty mapping when there are none, or the mapping shared by
    every part or message with the same layout (rule 4); never changed afterwards."""
    if not extras:
        return EMPTY
    key = _layout_key(extras)
    return extras if key is None else share_extras(extras, key)


_SCALAR_KINDS: Final = frozenset({str, int, bool, type(None)})
"""Values a layout key holds as they are (a float is not: `0.0 == -0.0`)."""


def _layout_key(extras: dict[str, object]) -> tuple[object, ...] | None:
    """A hashable form of `extras` when it holds only layout (rule 4), else None. Each
    value is keyed with its type, so `1` and `True` never share."""
    key: list[object] = []
    for name, value in extras.items():
        kind = type(value)
        if kind in _SCALAR_KINDS:
            key.append((name, kind, value))
        elif name == KEYS and (order := _order(value)) is not None:
            key.append((name, list, order))  # the list `leftovers` made
        elif name == INNER and shares_extras(value):
            key.append((name, dict, id(value)))  # shared for the life of the process
        else:
            return None
    return tuple(key)


def _order(value: object) -> tuple[object, ...] | None:
    """A recorded key order (a list of strings) as a tuple; None for anything else."""
    if type(value) is not list:
        return None
    order = tuple(cast("list[object]", value))
    return order if all(type(k) is str for k in order) else None


def assemble(fields: dict[str, object], extras: Extras) -> dict[str, object]:
    """`fields` plus the verbatim extras, in the recorded key order (rule 3)."""
    if not extras:
        return fields
    for key, value in extras.items():
        if key not in fields and key not in PRIVATE:
            fields[key] = value
    order = extras.get(KEYS)
    if not isinstance(order, list | tuple):
        return fields
    ordered = {key: fields[key] for key in order if key in fields}
    if len(ordered) < len(fields):
        ordered.update(fields)
    return ordered
