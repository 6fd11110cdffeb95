"""The one seam every token counter fits: `count(message) -> int`."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from .._messages import Conversation, Message


@runtime_checkable
class TokenCounter(Protocol):
    """Counts the tokens one message costs in a prompt, its per-message overhead included."""

    def count(self, message: Message) -> int:
        """Tokens `message` costs."""
        ...


@runtime_checkable
class ConversationCounter(TokenCounter, Protocol):
    """A TokenCounter that also knows its per-request overhead and names itself in reports."""

    @property
    def name(self) -> str:
        """What counts the tokens, e.g. `tiktoken:o200k_base` or `heuristic`."""
        ...

    def count_text(self, text: str) -> int:
        """Tokens `text` alone costs, without any message overhead."""
        ...

    def fixed_overhead(self, conversation: Conversation) -> int:
        """Tokens the request costs besides its messages: reply priming and tool definitions."""
        ...
