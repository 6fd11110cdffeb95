"""The one seam every token counter fits: `count(message) -> int`."""

from __future__ import annotations

from typing import Protocol, TypeGuard, runtime_checkable

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


def is_conversation_counter(counter: object) -> TypeGuard[ConversationCounter]:
    """`isinstance(counter, ConversationCounter)`, remembered for types that pass it."""
    return _passes(counter, ConversationCounter)


def is_bounded(counter: object) -> TypeGuard[BoundedCounter]:
    """`isinstance(counter, BoundedCounter)`, remembered for types that pass it."""
    return _passes(counter, BoundedCounter)


_PASSED: dict[type, set[type]] = {}
"""Per protocol, the types whose instances passed its runtime check: that check looks at
every member each time, and compaction asks it on every call."""


def _passes(counter: object, protocol: type) -> bool:
    passed = _PASSED.setdefault(protocol, set())
    if type(counter) in passed:
        return True
    if isinstance(counter, protocol):
        passed.add(type(counter))
        return True
    return False
