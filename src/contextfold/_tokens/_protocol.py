"""The one seam every token counter fits: `count(message) -> int`."""

from __future__ import annotations

from functools import cache
from typing import Any, Protocol, TypeGuard, runtime_checkable

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
    """`isinstance(counter, ConversationCounter)`, remembered per type (`_implements`)."""
    kind: Any = type(counter)
    return _implements(kind, ConversationCounter) or isinstance(counter, ConversationCounter)


def is_bounded(counter: object) -> TypeGuard[BoundedCounter]:
    """`isinstance(counter, BoundedCounter)`, remembered per type (`_implements`)."""
    kind: Any = type(counter)
    return _implements(kind, BoundedCounter) or isinstance(counter, BoundedCounter)


@cache
def _implements(kind: Any, protocol: Any) -> bool:
    """Whether the type has every member of the protocol: the runtime check looks at every
    member each time, and compaction asks it on every call."""
    return all(hasattr(kind, name) for name in _members(protocol))


def _members(protocol: type) -> frozenset[str]:
    """The methods and properties a protocol asks for, its bases' included."""
    return frozenset(
        name
        for base in protocol.__mro__
        if base not in (object, Protocol) and base.__module__ == __name__
        for name, value in vars(base).items()
        if not name.startswith("_") and (callable(value) or isinstance(value, property))
    )
