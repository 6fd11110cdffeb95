"""Content keys of archivable items: what the archive's reference cache is keyed by.

Rules:
1. A key is a nested tuple of the item's class and field values, strictly typed: equal
   keys mean the same class and the same values, so the same canonical text. JSON tells
   apart what Python calls equal (`True`, `1` and `1.0`; `0.0` and `-0.0`), so booleans
   become sentinels and floats their repr; lists and tuples (the same JSON array) one tag,
   every mapping another, with its pairs in order (two orders: two keys, one text).
2. Only immutable objects go into a key (strings, ints, None, tuples, sentinels), never a
   caller's container: a key cannot change after it is made.
3. An item holding anything else (another type or subclass, a non-string mapping key, a
   model object where JSON has none, nesting past MAX_DEPTH) has no key (None): it is
   archived as before, uncached. Nothing here raises past `key_of`.
4. A string is its own key (no tuple is ever equal to it).
5. `KeyedCache` holds values by key, bounded in number and in weight (the archive weighs
   an item by its characters) and emptied by `clear_caches`, thread-safe as
   `ContentCache` is: values are immutable, a race only computes one twice.
6. A key costs about half what it saves, so the archive makes one only for what it met
   before: `Seen` marks a cheap fingerprint (`glance`) of every item it is shown in a
   fixed bitmap, and an item is looked up by key from its second sighting on (a first
   compaction pays next to nothing; a re-sent history hits from its third call).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from contextlib import suppress
from operator import attrgetter
from types import MappingProxyType
from typing import Any, Final, Generic, TypeVar

from ._content_cache import _forget_oldest, on_clear
from ._messages import (
    EMPTY,
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
from ._serialize import model_fields

V = TypeVar("V")

MAX_DEPTH: Final = 32
"""Nesting followed into extras and payloads; deeper items (never seen on a wire) get no key."""

_TRUE: Final = object()
_FALSE: Final = object()
_FLOAT: Final = object()
_ARRAY: Final = object()
_OBJECT: Final = object()
_FLAT: Final = frozenset({str, type(None), type(EMPTY)})
"""Field value types a key holds as they are (EMPTY: immutable, equal only to itself)."""
_MAPPINGS: Final = frozenset({dict, MappingProxyType, type(EMPTY)})
_PLAIN: Final = frozenset({str, int, type(None)})
"""JSON value types a key holds as they are (bool is not int here: `type(True) is bool`)."""
_KEYS: Final = frozenset({str})


class _NoKey(Exception):
    """Raised inside a key: the item has none (rule 3)."""


def _getter(cls: type[Any]) -> Callable[[Any], tuple[object, ...]]:
    return attrgetter(*model_fields(cls))


_CLASSES: Final = (Message, Text, Image, ToolCall, ToolResult, Reasoning, Opaque, Marker)
_GETTERS: Final[dict[type[Any], Callable[[Any], tuple[object, ...]]]] = {
    cls: _getter(cls) for cls in (*_CLASSES, Summary, Card)
}
"""The fields of each class keyed (exactly these classes, as the archive takes)."""


def key_of(item: object) -> Hashable | None:
    """The key of an archivable item; None when it has none (rules 1-4)."""
    if type(item) is str:
        return item
    try:
        if type(item) is Message:
            return _message(item)
        return _model(item, 0)
    except _NoKey:
        return None


def _message(message: Message) -> tuple[object, ...]:
    """`_model(message, 0)`, shaped the same, without its generic steps."""
    role, parts, name, extras = message.role, message.parts, message.name, message.extras
    if type(role) is not str or type(parts) is not tuple:
        return _model(message, 0)
    if name is not None and type(name) is not str:
        return _model(message, 0)
    return (
        Message,
        role,
        (_ARRAY, *[_model(part, 1) for part in parts]),
        name,
        extras if type(extras) in _FLAT else _value(extras, 1),
    )


def _model(obj: object, depth: int) -> tuple[object, ...]:
    cls = type(obj)
    getter = _GETTERS.get(cls)
    if getter is None or depth >= MAX_DEPTH:
        raise _NoKey
    values = getter(obj)
    if set(map(type, values)) <= _FLAT:
        return (cls, *values)
    if cls is ToolResult:
        return _tool_result(values, depth)
    return (cls, *[v if type(v) in _FLAT else _field(v, depth + 1) for v in values])


def _tool_result(values: tuple[object, ...], depth: int) -> tuple[object, ...]:
    """`_model` of a tool result (its fields `values`), without its generic steps."""
    call_id, parts, is_error, extras, kind = values
    if type(parts) is not tuple or type(is_error) is not bool:
        return (ToolResult, *[_field(value, depth + 1) for value in values])
    return (
        ToolResult,
        call_id if type(call_id) in _FLAT else _value(call_id, depth + 1),
        (_ARRAY, *[_model(part, depth + 1) for part in parts]),
        _TRUE if is_error else _FALSE,
        extras if type(extras) in _FLAT else _value(extras, depth + 1),
        kind if type(kind) in _FLAT else _value(kind, depth + 1),
    )


def _field(value: object, depth: int) -> object:
    """A field's key: tuples hold model objects (written field by field) or JSON values."""
    kind = type(value)
    if kind in _FLAT:
        return value
    if kind is tuple:
        items: tuple[object, ...] = value  # type: ignore[assignment]
        return (
            _ARRAY,
            *[_model(v, depth) if type(v) in _GETTERS else _value(v, depth) for v in items],
        )
    return _value(value, depth)


def _value(value: object, depth: int) -> object:
    """The key of a JSON value (rule 1)."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is bool:
        return _TRUE if value else _FALSE
    if kind is float:
        return (_FLOAT, repr(value))
    if depth >= MAX_DEPTH:
        raise _NoKey
    if kind is list or kind is tuple:
        items: list[object] = value  # type: ignore[assignment]
        if set(map(type, items)) <= _PLAIN:
            return (_ARRAY, *items)
        return (_ARRAY, *[_value(v, depth + 1) for v in items])
    if kind in _MAPPINGS:
        return _mapping(value, depth)  # type: ignore[arg-type]
    raise _NoKey


def _mapping(mapping: Mapping[object, object], depth: int) -> tuple[object, ...]:
    if not set(map(type, mapping)) <= _KEYS:
        raise _NoKey
    if set(map(type, mapping.values())) <= _PLAIN:
        return (_OBJECT, tuple(mapping.items()))
    return (_OBJECT, tuple([(k, _value(v, depth + 1)) for k, v in mapping.items()]))


_GLANCES: Final[dict[type[Any], Callable[[Any], object]]] = {
    **dict.fromkeys((Text, Marker, Summary, Card, Reasoning), attrgetter("text")),
    ToolCall: attrgetter("id", "arguments"),
    Image: attrgetter("source"),
}


def glance(item: object) -> int:
    """A cheap fingerprint of an item's content, for `Seen`: equal content, equal glance
    (unequal content mostly differs, which only saves work)."""
    if type(item) is str:
        return hash(item)
    try:
        if type(item) is Message:  # the first part and the last (an assistant turn's
            parts = item.parts  # text is often empty or alike; its call is not)
            size = len(parts)
            if size > 1:
                return hash((item.role, size, _look(parts[0]), _look(parts[-1])))
            return hash((item.role, size, _look(parts[0]) if parts else None))
        return hash(_look(item))
    except (TypeError, LookupError):  # a field of the wrong type: a glance only saves work
        return 0


def _look(part: object) -> object:
    if type(part) is ToolResult:
        return (part.call_id, _look(part.parts[0]) if part.parts else None)
    kind = type(part)
    look = _GLANCES.get(kind)
    return kind if look is None else (kind, look(part))


class Seen:
    """Glances of items met before, as bits of a fixed bitmap (`BITS` of them: 128 KiB,
    whatever the items): a glance is met again when its bit is set; two glances may share
    a bit, which only makes a key where none was needed. After `size` new glances every
    bit is cleared at once (still bounded, and the shared bits stay few)."""

    __slots__ = ("_bits", "_count", "size")

    def __init__(self, size: int) -> None:
        self._bits = bytearray(_BITS >> 3)
        self._count = 0
        self.size = size
        on_clear(self.clear)

    def again(self, item: object) -> bool:
        """Whether an item with `item`'s glance was met before; notes it if not."""
        mark = glance(item) & (_BITS - 1)
        index, bit = mark >> 3, 1 << (mark & 7)
        bits = self._bits
        if bits[index] & bit:
            return True
        if self._count >= self.size:
            self.clear()
        bits[index] |= bit  # a race may lose a bit: one key not made, nothing else
        self._count += 1
        return False

    def clear(self) -> None:
        """Forget every glance: the one block is zeroed in place (clearing allocates
        nothing), copied from a zero block made once (`bytes(n)` made anew each time cost
        about 180 us, paid by every `clear_caches`; the copy about 15 us), and only when
        a glance was noted."""
        if self._count:
            self._bits[:] = _ZEROS
            self._count = 0


_BITS: Final = 1 << 20
"""Bits of the `Seen` bitmap: 8,000 glances (a 10,000-message history) share about 0.8%."""
_ZEROS: Final = bytes(_BITS >> 3)
"""A zeroed bitmap, copied over the one in use to clear it."""


class KeyedCache(Generic[V]):
    """At most `size` values by key and at most `limit` weight in all (each value weighs
    what `add` is told: the archive gives characters, so a few huge items cannot hold a
    process's memory), the least recently used forgotten first (an eighth of them at once
    when full, as `ContentCache`); `clear_caches` empties it."""

    __slots__ = ("_data", "_weight", "limit", "size")

    def __init__(self, size: int, limit: int | None = None) -> None:
        self._data: dict[Hashable, tuple[V, int]] = {}
        """Value and weight by key, in use order, oldest first."""
        self._weight = 0
        """The weights in `_data`, summed (recounted whenever weight is forgotten)."""
        self.size = size
        self.limit = size if limit is None else limit
        on_clear(self.clear)

    def get(self, key: Hashable) -> V | None:
        """The value under `key` (now the most recently used), or None."""
        data = self._data
        found = data.pop(key, None)
        if found is None:
            return None
        data[key] = found
        return found[0]

    def add(self, key: Hashable, value: V, weight: int = 1) -> None:
        """Keep `value` under `key`, weighing `weight`."""
        data = self._data
        old = data.pop(key, None)  # a value added again moves to the newest end
        data[key] = (value, weight)
        self._weight += weight - (0 if old is None else old[1])
        if len(data) > self.size or self._weight > self.limit:
            self._forget()

    def _forget(self) -> None:
        """Over `size`, the oldest eighth; over `limit`, the oldest until the weight is at
        most seven eighths of it. A thread that changes the dict meanwhile stops the pass
        (the next `add` goes on); the weight is recounted."""
        data = self._data
        with suppress(RuntimeError):
            if len(data) > self.size:
                _forget_oldest(data, len(data) - self.size + self.size // 8)
            excess = sum(w for _, w in data.values()) - self.limit * 7 // 8
            if excess > 0:
                for key, (_, weight) in list(data.items()):
                    if excess <= 0:
                        break
                    data.pop(key, None)
                    excess -= weight
            self._weight = sum(w for _, w in list(data.values()))

    def __len__(self) -> int:
        return len(self._data)

    def weight(self) -> int:
        """The weight held."""
        return self._weight

    def clear(self) -> None:
        """Forget every value."""
        self._data.clear()
        self._weight = 0
