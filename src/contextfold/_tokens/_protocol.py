"""The one seam every token counter fits: `count(message) -> int`."""

from __future__ import annotations

from abc import get_cache_token
from typing import Generic, Protocol, TypeGuard, runtime_checkable

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
    """`isinstance(counter, ConversationCounter)`, remembered per type (`_passes`)."""
    return _passes(counter, ConversationCounter)


def is_bounded(counter: object) -> TypeGuard[BoundedCounter]:
    """`isinstance(counter, BoundedCounter)`, remembered per type (`_passes`)."""
    return _passes(counter, BoundedCounter)


_PASSED: dict[type, set[type]] = {}
"""Per protocol, the types whose instances pass its runtime check: that check looks at
every member each time, and compaction asks it several times a call."""
_FAILED: dict[type, dict[type, tuple[str, object]]] = {}
"""Per protocol, the types whose instances failed it: a member the instance lacked, and
the ABC cache token of then."""


def _passes(counter: object, protocol: type) -> bool:
    """`isinstance(counter, protocol)`, remembered per type where that is sound: a pass
    for a type that has every member itself. A failure: an instance that lacks a member
    fails the check unless its class passes the class check, whose answer the ABC caches
    until a class is registered anywhere (a new cache token). So a type failed before, by
    an instance lacking `member`, fails again while the token is the same and this
    instance lacks that member too."""
    kind = type(counter)
    passed = _PASSED.setdefault(protocol, set())
    if kind in passed:
        return True
    failed = _FAILED.setdefault(protocol, {})
    known = failed.get(kind)
    token = get_cache_token()
    if known is not None and known[1] == token and not hasattr(counter, known[0]):
        return False
    if isinstance(counter, protocol):
        if all(hasattr(kind, m) for m in _members(protocol)):
            passed.add(kind)
        return True
    lacking = next((m for m in _members(protocol) if not hasattr(counter, m)), None)
    if lacking is not None:
        failed[kind] = lacking, token
    return False


def _members(protocol: type) -> tuple[str, ...]:
    """The members the runtime check of `protocol` looks for (typing leaves out only
    names that start with an underscore)."""
    return tuple(
        name
        for base in protocol.__mro__
        if base not in (object, Protocol, Generic)
        for name in (*vars(base), *getattr(base, "__annotations__", {}))
        if not name.startswith("_")
    )
