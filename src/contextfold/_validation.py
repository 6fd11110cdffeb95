"""A problem found by `validate`: where it is and what is wrong (invariant I1)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Problem:
    """One way a payload would be rejected by its provider."""

    index: int | None
    """Message (or item) index in the wire payload; None for the payload as a whole."""
    field: str | None
    """Field path inside that message, e.g. `tool_calls[1].id`."""
    reason: str

    def __str__(self) -> str:
        where = [] if self.index is None else [f"message {self.index}"]
        if self.field is not None:
            where.append(f"field {self.field!r}")
        return f"{', '.join(where)}: {self.reason}" if where else self.reason
