"""Which live sessions a body's bytes may continue, found without parsing the body.

Rules:
1. A live session remembers its last body's bytes up to the end of its last item (its
   prefix). A body continues it when it starts with those bytes.
2. Sessions are filed under a hash of their prefix's first `rung` bytes, for the longest
   rung the prefix reaches (`RUNGS`); a body is looked up under each rung it reaches.
   Prefixes shorter than the smallest rung are not filed: such a body costs little to
   parse whole. A hash that collides only adds a candidate; `startswith` decides.
"""

from __future__ import annotations

from typing import Final

RUNGS: Final = (65_536, 4_096)
"""Filing lengths, longest first."""


class Prefixes:
    """Session ids filed by their prefix's leading bytes (rule 2)."""

    __slots__ = ("_filed", "_where")

    def __init__(self) -> None:
        self._filed: dict[tuple[int, int], dict[str, None]] = {}
        self._where: dict[str, tuple[int, int]] = {}

    def file(self, sid: str, prefix: bytes) -> None:
        """File `sid` under `prefix` (or only forget it when the prefix is short)."""
        rung = next((r for r in RUNGS if len(prefix) >= r), None)
        key = None if rung is None else (rung, hash(prefix[:rung]))
        if self._where.get(sid) == key:
            return
        self.drop(sid)
        if key is not None:
            self._filed.setdefault(key, {})[sid] = None
            self._where[sid] = key

    def drop(self, sid: str) -> None:
        key = self._where.pop(sid, None)
        if key is None:
            return
        sids = self._filed[key]
        sids.pop(sid, None)
        if not sids:
            del self._filed[key]

    def candidates(self, raw: bytes) -> list[str]:
        """Sessions whose prefix may start `raw` (rule 2)."""
        found: list[str] = []
        for rung in RUNGS:
            if len(raw) > rung:
                found += self._filed.get((rung, hash(raw[:rung])), ())
        return found

    def __len__(self) -> int:
        return len(self._where)
