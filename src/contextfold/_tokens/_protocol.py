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
class BoundedCounter(TokenCounter, Protocol):
    """A TokenCounter that can also bound a message's count from below, cheaply: compaction
    then counts exactly only the messages whose counts decide where to cut."""

    def count_floor(self, message: Message) -> int:
        """A lower bound of `count(message)`, much cheaper than counting."""
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
