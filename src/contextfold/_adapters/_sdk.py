"""Accept the official SDKs' typed objects without importing the SDKs.

Rules:
1. Anything with a pydantic-style `model_dump` (openai and anthropic models) becomes the
   plain JSON the SDKs send for it as a request param: `model_dump(mode="json",
   exclude_unset=True, by_alias=True, exclude=obj.__api_exclude__)`, as in anthropic's
   `openapi_model_dump` and openai's `_transform`. So fields the API sent as null (citation
   `document_title`, `image_generation_call.result`) stay, defaults the object was never
   given stay out, and SDK-only fields (`parsed`, `parsed_arguments`) are dropped.
   Aliases give the wire names (`async`, `schema`; openai's `_transform` leaves them
   unset, which only differs for fields named after Python keywords).
2. Plain data comes back as the very same object (no copy): plain dicts and lists are
   only walked, and copied only when something inside converts.
3. The walk is where every entry point first meets a payload, so it also refuses what
   no layer after it could handle, with InvalidConversation: nesting deeper than
   MAX_DEPTH (recursive code further on would hit Python's recursion limit) and integers
   longer than MAX_DIGITS (Python refuses to turn them into text).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from .._errors import InvalidConversation

_LEAVES: Final = frozenset({str, float, bool, type(None)})
MAX_DEPTH: Final = 128
"""Deepest nesting of lists and objects accepted (real payloads stay far below it)."""
MAX_DIGITS: Final = 4300
"""Longest integer accepted, in decimal digits: Python's default limit for int <-> str."""
_MAX_BITS: Final = int(MAX_DIGITS * 3.3219280948873626) - 1  # below MAX_DIGITS digits


def to_plain(value: object, depth: int = 0) -> object:
    """Plain JSON data for `value`, converting SDK model objects found anywhere inside."""
    kind = type(value)
    if kind in _LEAVES:
        return value
    if kind is int:
        if value.bit_length() > _MAX_BITS:  # type: ignore[attr-defined]
            raise InvalidConversation(f"an integer has more than {MAX_DIGITS} digits")
        return value
    if depth >= MAX_DEPTH:
        raise InvalidConversation(
            f"the payload nests lists and objects more than {MAX_DEPTH} levels deep"
        )
    if kind is dict:
        return _plain_dict(value, depth + 1)  # type: ignore[arg-type]
    if kind is list:
        return _plain_list(value, depth + 1)  # type: ignore[arg-type]
    return _convert(value, depth + 1)


def _convert(value: object, depth: int) -> object:
    """An SDK object, a tuple or another mapping as plain data."""
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, type):
        exclude = getattr(value, "__api_exclude__", None)
        plain = dump(mode="json", exclude_unset=True, by_alias=True, exclude=exclude)
        return to_plain(plain, depth)
    if isinstance(value, Mapping):
        return {key: to_plain(item, depth) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [to_plain(item, depth) for item in value]
    if isinstance(value, int):  # int subclasses (bool is a leaf)
        return to_plain(int(value), depth)
    return value


def _plain_dict(value: dict[object, object], depth: int) -> dict[object, object]:
    for item in value.values():
        if type(item) not in _LEAVES and to_plain(item, depth) is not item:
            return {key: to_plain(item, depth) for key, item in value.items()}
    return value


def _plain_list(value: list[object], depth: int) -> list[object]:
    for item in value:
        if type(item) not in _LEAVES and to_plain(item, depth) is not item:
            return [to_plain(item, depth) for item in value]
    return value
