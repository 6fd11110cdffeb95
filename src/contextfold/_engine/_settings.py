"""What one compaction is given: its settings, already resolved, and the caller's marks.

Rules:
1. Both are frozen and typed, with their defaults set here once; the flow resolves nothing
   (budget, target, format, policy, counter and overhead arrive decided).
2. Marks name input messages by their index in the input.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .._policy import Policy
from .._tokens._protocol import TokenCounter

__all__ = ["Marks", "Settings"]


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything one compaction needs, already resolved."""

    budget: int
    target: int
    format: str
    policy: Policy
    counter: TokenCounter
    counter_name: str
    overhead: int
    """Fixed tokens outside the messages: reply priming and tool schemas."""
    pending_tail: bool = False
    """Leave the last exchange's unanswered calls alone (an agent loop awaits them)."""
    outside_calls: bool = False
    """Results may answer calls made before the messages (a Responses body continuing a
    stored response): a result with no call in the messages is kept, not removed."""
    card_ceiling: float = 1.0
    """Share of the budget the card may fill up to when the target's room cannot show every
    statement: the whole budget for one-shot calls; an agent loop passes its high-water
    mark, so its next turn does not compact again at once."""
    whole_spans: bool = False
    """The summarizer takes a whole folded span in one request (the embedded ledger bounds
    its own reading): unless the policy sets `chunk_tokens`, the span is neither cut into
    chunks nor counted for them."""


@dataclass(frozen=True, slots=True)
class Marks:
    """Caller marks on input messages, by index."""

    pinned: frozenset[int] = field(default_factory=frozenset)
    droppable: frozenset[int] = field(default_factory=frozenset)
