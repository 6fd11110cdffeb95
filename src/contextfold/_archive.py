"""Placeholder archive (the real one is being written): content-addressed, in memory."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ._errors import UnknownReference
from ._messages import Message, Part
from ._serialize import dump_message, dump_part


class Archive:
    """Originals by reference."""

    def __init__(self) -> None:
        self._items: dict[str, Message | Part | str] = {}

    def put(self, item: Message | Part | str, *, label: str | None = None) -> str:
        """Store `item`; return its reference."""
        data: Any = (
            item
            if isinstance(item, str)
            else (dump_message(item) if isinstance(item, Message) else dump_part(item))
        )
        blob = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        ref = "r" + hashlib.sha256(blob.encode()).hexdigest()[:10]
        self._items.setdefault(ref, item)
        return ref

    def get(self, ref: str) -> Message | Part | str:
        """The original behind `ref`."""
        try:
            return self._items[ref]
        except KeyError:
            raise UnknownReference(ref) from None

    def __contains__(self, ref: object) -> bool:
        return ref in self._items

    def __len__(self) -> int:
        return len(self._items)
