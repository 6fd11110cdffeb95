"""The engine's seam to token accounting: pick a counter, measure fixed overhead."""

from __future__ import annotations

from .._messages import Conversation
from .._tokens._protocol import TokenCounter
from ..testing import FixedCounter


def resolve_counter(model: str | None, format: str, counter: TokenCounter | None) -> TokenCounter:
    """The caller's counter, or the best one for `model` (placeholder: a fixed rule)."""
    return counter if counter is not None else FixedCounter()


def counter_name(counter: TokenCounter) -> str:
    """A short name for reports."""
    return str(getattr(counter, "name", type(counter).__name__))


def fixed_overhead(conversation: Conversation, counter: TokenCounter) -> int:
    """Tokens outside the messages (placeholder: none)."""
    return 0
