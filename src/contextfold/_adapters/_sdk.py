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
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

_LEAVES: Final = frozenset({str, int, float, bool, type(None)})


def to_plain(value: object) -> object:
    """Plain JSON data for `value`, converting SDK model objects found anywhere inside."""
    if type(value) is dict:
        return _plain_dict(value)
    if type(value) is list:
        return _plain_list(value)
    if type(value) in _LEAVES:
        return value
    return _convert(value)


def _convert(value: object) -> object:
    """An SDK object, a tuple or another mapping as plain data."""
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, type):
        exclude = getattr(value, "__api_exclude__", None)
        return to_plain(dump(mode="json", exclude_unset=True, by_alias=True, exclude=exclude))
    if isinstance(value, Mapping):
        return {key: to_plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [to_plain(item) for item in value]
    return value


def _plain_dict(value: dict[object, object]) -> dict[object, object]:
    for item in value.values():
        if type(item) not in _LEAVES and to_plain(item) is not item:
            return {key: to_plain(item) for key, item in value.items()}
    return value


def _plain_list(value: list[object]) -> list[object]:
    for item in value:
        if type(item) not in _LEAVES and to_plain(item) is not item:
            return [to_plain(item) for item in value]
    return value
