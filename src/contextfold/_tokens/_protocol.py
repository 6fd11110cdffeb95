"""The one seam every token counter fits: `count(message) -> int`."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from .._messages import Message


@runtime_checkable
class TokenCounter(Protocol):
    """Counts the tokens one message costs in a prompt, its per-message overhead included."""

    def count(self, message: Message) -> int:
        """Tokens `message` costs."""
        ...
