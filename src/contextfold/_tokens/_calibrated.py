"""A counter that learns how far another counter is from the provider's reported usage.

Rules:
1. `observe(estimated, actual)` records one ratio actual/estimated (from a request's
   `usage.prompt_tokens` or `usage.input_tokens` and our count for the same request).
2. The correction is the median of the last `window` ratios, clamped to [min_ratio,
   max_ratio]: one wild observation (a 10x outlier) among normal ones cannot move it outside
   the range of the normal ones. Before any observation the ratio is 1.
3. Counts scale every message and the fixed overhead by the same ratio, rounded up, so the
   conversation total stays the sum of its parts.
"""

from __future__ import annotations

import math
from collections import deque
from statistics import median

from .._errors import ConfigurationError
from .._messages import Conversation, Message
from ._accounting import fixed_overhead
from ._protocol import ConversationCounter, TokenCounter

__all__ = ["CalibratedCounter"]


class CalibratedCounter:
    """Wraps any counter and scales it by the median ratio of reported to estimated tokens."""

    __slots__ = ("_ratios", "inner", "max_ratio", "min_ratio")

    def __init__(
        self,
        inner: TokenCounter,
        *,
        window: int = 16,
        min_ratio: float = 0.25,
        max_ratio: float = 4.0,
    ) -> None:
        if window < 1:
            raise ConfigurationError(f"window must be at least 1, got {window}")
        if not 0 < min_ratio <= 1 <= max_ratio:
            raise ConfigurationError(
                f"need 0 < min_ratio <= 1 <= max_ratio, got {min_ratio} and {max_ratio}"
            )
        self.inner = inner
        self.min_ratio = min_ratio
        self.max_ratio = max_ratio
        self._ratios: deque[float] = deque(maxlen=window)

    def __repr__(self) -> str:
        return f"CalibratedCounter({self.inner!r}, ratio={self.ratio:.3f})"

    @property
    def name(self) -> str:
        """`calibrated(<inner name>)`."""
        inner = self.inner.name if isinstance(self.inner, ConversationCounter) else "custom"
        return f"calibrated({inner})"

    @property
    def ratio(self) -> float:
        """The current correction factor (1.0 until something was observed)."""
        if not self._ratios:
            return 1.0
        return min(self.max_ratio, max(self.min_ratio, median(self._ratios)))

    @property
    def observations(self) -> int:
        """How many ratios the current correction is based on."""
        return len(self._ratios)

    def observe(self, estimated: int, actual: int) -> None:
        """Record that a prompt we counted as `estimated` was billed as `actual` tokens."""
        if estimated < 0 or actual < 0:
            raise ConfigurationError(
                f"token counts cannot be negative (estimated={estimated}, actual={actual})"
            )
        if estimated == 0 or actual == 0:
            return  # nothing to learn from an empty prompt
        self._ratios.append(actual / estimated)

    def reset(self) -> None:
        """Forget every observation."""
        self._ratios.clear()

    def count_text(self, text: str) -> int:
        """Tokens in `text` alone, corrected."""
        if not isinstance(self.inner, ConversationCounter):
            raise ConfigurationError(f"{self.inner!r} cannot count bare text")
        return math.ceil(self.inner.count_text(text) * self.ratio)

    def count(self, message: Message) -> int:
        """Tokens `message` costs, corrected."""
        return math.ceil(self.inner.count(message) * self.ratio)

    def fixed_overhead(self, conversation: Conversation) -> int:
        """The inner counter's fixed overhead, corrected."""
        return math.ceil(fixed_overhead(conversation, self.inner) * self.ratio)
