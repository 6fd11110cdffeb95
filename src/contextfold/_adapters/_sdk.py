"""Accept the official SDKs' typed objects without importing the SDKs.

Rule: anything with a pydantic-style `model_dump` (openai and anthropic models) becomes
plain JSON data, recursively; fields the SDK left None are dropped, so the result is the
wire JSON the object stands for. Plain data comes back as the very same object (no copy).
"""

from __future__ import annotations

from collections.abc import Mapping


def to_plain(value: object) -> object:
    """Plain JSON data for `value`, converting SDK model objects found anywhere inside."""
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, type):
        return to_plain(dump(mode="json", exclude_none=True, by_alias=True))
    if isinstance(value, Mapping):
        items = {key: to_plain(item) for key, item in value.items()}
        same = isinstance(value, dict) and all(items[k] is value[k] for k in items)
        return value if same else items
    if isinstance(value, list | tuple):
        converted = [to_plain(item) for item in value]
        same = isinstance(value, list) and all(
            a is b for a, b in zip(converted, value, strict=True)
        )
        return value if same else converted
    return value
