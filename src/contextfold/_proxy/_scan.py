"""Reading a request body once, and a continuing one only past what was read before.

Rules:
1. `scan` reads a body into exactly what `json.loads` gives, and also says where, in the
   body's bytes, the last of its items ends (the byte after that item's closing brace)
   and which members came before the items. Anything it does not follow (not UTF-8, not
   an object, the items key twice) it leaves to `json.loads` and reports no end.
2. `scan_rest` reads a body that starts with a known prefix, the bytes of an earlier
   body up to the end of its last item: only the bytes after the prefix are decoded and
   parsed (the new items, then the members after the items). It gives up (None) on
   anything but `, item, ...] , "key": value ...}` or `] ...}` there.
3. Both parse with the standard library's decoder, so values are exactly `json.loads`'s
   (big integers stay integers, key order and duplicates resolve the same way).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Final

_DECODER: Final = json.JSONDecoder()
_WS: Final = re.compile(r"[ \t\n\r]*")
_BLANK: Final = " \t\n\r"


@dataclass(frozen=True, slots=True)
class Scan:
    """A body as data, with where its items end (rule 1)."""

    body: Any
    head: dict[str, Any]
    """The members before the items key."""
    end: int | None
    """Bytes up to the end of the last item, None when unknown or there are no items."""


@dataclass(frozen=True, slots=True)
class Rest:
    """What follows a known prefix (rule 2)."""

    items: list[Any]
    """The new items."""
    after: dict[str, Any]
    """The members after the items."""
    end: int
    """Bytes up to the end of the last item (the prefix's length when none are new)."""


def _ws(text: str, at: int) -> int:
    match = _WS.match(text, at)
    return at if match is None else match.end()


def _members(
    text: str, at: int, key: str, out: dict[str, Any], head: dict[str, Any] | None
) -> tuple[int, list[tuple[int, int]]]:
    """Read object members from `at` (just past `{` or `,`) through the closing `}`: the
    position after it, and the spans of `key`'s values. Members before `key` also go to
    `head`."""
    spans: list[tuple[int, int]] = []
    at = _ws(text, at)
    while True:
        name, at = _DECODER.raw_decode(text, at)
        at = _ws(text, at)
        if not isinstance(name, str) or text[at : at + 1] != ":":
            raise ValueError("expected a member name and a colon")
        start = _ws(text, at + 1)
        value, at = _DECODER.raw_decode(text, start)
        if name == key:
            spans.append((start, at))
        elif head is not None and not spans:
            head[name] = value
        out[name] = value
        at = _ws(text, at)
        mark = text[at : at + 1]
        if mark == "}":
            return at + 1, spans
        if mark != ",":
            raise ValueError("expected a comma or a closing brace")
        at = _ws(text, at + 1)


def _last_item_end(text: str, span: tuple[int, int]) -> int | None:
    """Where the array at `span` has its last item end, None when it is not a non-empty array."""
    start, close = span
    if text[start] != "[":
        return None
    end = close - 1
    while text[end - 1] in _BLANK:
        end -= 1
    return None if end - 1 == start else end


def _bytes_at(text: str, index: int) -> int:
    return index if text.isascii() else len(text[:index].encode("utf-8"))


def scan(raw: bytes, key: str) -> Scan:
    """Rule 1; raises ValueError for what is not JSON."""
    try:
        text = raw.decode("utf-8")
        at = _ws(text, 0)
        if text[at : at + 1] != "{":
            raise ValueError("not an object")
        body: dict[str, Any] = {}
        head: dict[str, Any] = {}
        spans: list[tuple[int, int]] = []
        at = _ws(text, at + 1)
        if text[at : at + 1] == "}":
            at += 1
        else:
            at, spans = _members(text, at, key, body, head)
        if _ws(text, at) != len(text):
            raise ValueError("extra data")
    except (ValueError, IndexError):
        return Scan(json.loads(raw), {}, None)
    end = _last_item_end(text, spans[0]) if len(spans) == 1 else None
    return Scan(body, head, None if end is None else _bytes_at(text, end))


def scan_rest(raw: bytes, start: int, key: str) -> Rest | None:
    """Rule 2: `raw[:start]` is a known prefix ending with an item."""
    try:
        text = raw[start:].decode("utf-8")
        items: list[Any] = []
        end, at = 0, _ws(text, 0)
        while text[at : at + 1] == ",":
            item, end = _DECODER.raw_decode(text, _ws(text, at + 1))
            items.append(item)
            at = _ws(text, end)
        if text[at : at + 1] != "]":
            return None
        after: dict[str, Any] = {}
        at = _ws(text, at + 1)
        if text[at : at + 1] == ",":
            at, spans = _members(text, at + 1, key, after, None)
            if spans:
                return None
        elif text[at : at + 1] == "}":
            at += 1
        else:
            return None
        if _ws(text, at) != len(text):
            return None
    except (ValueError, IndexError):
        return None
    return Rest(items, after, start + _bytes_at(text, end))
