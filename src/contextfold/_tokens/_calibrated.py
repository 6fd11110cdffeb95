"""A counter that learns how far another counter is from the provider's reported usage.

Rules:
1. `observe(estimated, actual)` records one pair: our count for a request and the
   provider's `usage.prompt_tokens` / `usage.input_tokens` for the same request.
2. The model is affine, actual = ratio x estimated + offset, so a hidden system or tool
   prompt the provider adds to every request (a fixed offset) is learned apart from a
   tokenizer that counts differently (the ratio). The fit is robust and recent-first: the
   ratio is the weighted median of the slopes between pairs of observations whose
   estimates differ by at least MIN_SPREAD, the offset the weighted median of what is
   left; weights halve every HALF_LIFE observations, so one wild observation (a 10x
   outlier) among normal ones cannot move the fit outside their range.
3. When the estimates are too alike to tell a slope from an offset, the ratio is the
   weighted median of actual/estimated and the offset 0 (right for prompts of that size).
   The ratio is clamped to [min_ratio, max_ratio]; the offset to [-estimate/2, max actual].
4. Until MIN_FIT observations exist, counts carry a MARGIN on top (a provider already
   disagreed with us and one point cannot say how); before any observation the counter
   is its inner counter.
5. Messages scale by the ratio (and margin); the offset goes into the fixed overhead, so
   the conversation total stays the sum of its parts and equals the fit, rounded up.
"""

from __future__ import annotations

import math
from collections import deque
from typing import Final

from .._errors import ConfigurationError
from .._messages import Conversation, Message
from ._accounting import fixed_overhead
from ._protocol import BoundedCounter, ConversationCounter, TokenCounter

__all__ = ["CalibratedCounter"]

MIN_SPREAD: Final = 0.1
"""Estimates must differ by this share of the larger one for their slope to count."""
HALF_LIFE: Final = 8.0
MIN_FIT: Final = 4
MARGIN: Final = 0.05


class CalibratedCounter:
    """Wraps any counter and corrects it by a fit of reported to estimated tokens."""

    __slots__ = ("_fit", "_pairs", "inner", "max_ratio", "min_ratio")

    def __init__(
        self,
        inner: TokenCounter,
        *,
        window: int = 32,
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
        self._pairs: deque[tuple[int, int]] = deque(maxlen=window)
        self._fit: tuple[float, float] = (1.0, 0.0)

    def __repr__(self) -> str:
        return f"CalibratedCounter({self.inner!r}, ratio={self.ratio:.3f}, offset={self.offset})"

    @property
    def name(self) -> str:
        """`calibrated(<inner name>)`, with the fit once something was observed."""
        inner = self.inner.name if isinstance(self.inner, ConversationCounter) else "custom"
        if not self._pairs:
            return f"calibrated({inner})"
        fit = f"{self.ratio:.3f}x{self.offset:+d}"
        if self.margin:
            fit += f" +{self.margin:.0%} margin"
        return f"calibrated({inner}: {fit} from {len(self._pairs)} requests)"

    @property
    def ratio(self) -> float:
        """The fitted slope (1.0 until something was observed)."""
        return self._fit[0]

    @property
    def offset(self) -> int:
        """The fitted fixed tokens per request (hidden prompts, framing), rounded up."""
        return math.ceil(self._fit[1])

    @property
    def margin(self) -> float:
        """The safety margin counts carry now (rule 4)."""
        return MARGIN if 0 < len(self._pairs) < MIN_FIT else 0.0

    @property
    def scale(self) -> float:
        """What each message's inner count is multiplied by: the ratio and any margin."""
        return self._scale()

    @property
    def window(self) -> int:
        """How many of the newest observations the fit uses."""
        return self._pairs.maxlen or 0

    @property
    def observations(self) -> int:
        """How many observations the current fit is based on."""
        return len(self._pairs)

    def observe(self, estimated: int, actual: int) -> None:
        """Record that a prompt we counted as `estimated` was billed as `actual` tokens."""
        if estimated < 0 or actual < 0:
            raise ConfigurationError(
                f"token counts cannot be negative (estimated={estimated}, actual={actual})"
            )
        if estimated == 0 or actual == 0:
            return  # nothing to learn from an empty prompt
        self._pairs.append((estimated, actual))
        self._fit = self._refit()

    def reset(self) -> None:
        """Forget every observation."""
        self._pairs.clear()
        self._fit = (1.0, 0.0)

    def estimate(self, raw: int) -> int:
        """The corrected count of a request the inner counter puts at `raw` tokens."""
        if not self._pairs:
            return raw
        return math.ceil(raw * self._scale() + self._fit[1])

    def count_text(self, text: str) -> int:
        """Tokens in `text` alone, corrected (the ratio only: no request offset)."""
        if not isinstance(self.inner, ConversationCounter):
            raise ConfigurationError(f"{self.inner!r} cannot count bare text")
        return math.ceil(self.inner.count_text(text) * self._scale())

    def count(self, message: Message) -> int:
        """Tokens `message` costs, corrected."""
        return math.ceil(self.inner.count(message) * self._scale())

    def count_floor(self, message: Message) -> int:
        """A lower bound of `count(message)`: the inner counter's, corrected (0 when the
        inner counter has none)."""
        if not isinstance(self.inner, BoundedCounter):
            return 0
        return math.ceil(self.inner.count_floor(message) * self._scale())

    def fixed_overhead(self, conversation: Conversation) -> int:
        """The inner counter's fixed overhead, corrected, plus the learned offset."""
        raw = fixed_overhead(conversation, self.inner)
        return max(min(raw, 1), math.ceil(raw * self._scale() + self._fit[1]))

    # --- the fit (rules 2-3) -------------------------------------------------------------

    def _scale(self) -> float:
        return self._fit[0] * (1.0 + self.margin)

    def _refit(self) -> tuple[float, float]:
        pairs = list(self._pairs)
        n = len(pairs)
        weights = [0.5 ** ((n - 1 - k) / HALF_LIFE) for k in range(n)]
        slopes: list[tuple[float, float]] = []
        for i in range(n):
            for j in range(i + 1, n):
                (xi, yi), (xj, yj) = pairs[i], pairs[j]
                if abs(xj - xi) >= MIN_SPREAD * max(xi, xj):
                    slopes.append(((yj - yi) / (xj - xi), weights[i] * weights[j]))
        if not slopes:
            ratios = [(y / x, w) for (x, y), w in zip(pairs, weights, strict=True)]
            return self._clamped(_weighted_median(ratios)), 0.0
        ratio = self._clamped(_weighted_median(slopes))
        rests = [(y - ratio * x, w) for (x, y), w in zip(pairs, weights, strict=True)]
        offset = _weighted_median(rests)
        low = -min(x for x, _ in pairs) / 2
        return ratio, min(max(offset, low), float(max(y for _, y in pairs)))

    def _clamped(self, ratio: float) -> float:
        return min(self.max_ratio, max(self.min_ratio, ratio))


def _weighted_median(values: list[tuple[float, float]]) -> float:
    """The value at half the total weight (the lower one on a tie)."""
    ordered = sorted(values)
    half = sum(w for _, w in ordered) / 2
    seen = 0.0
    for value, weight in ordered:
        seen += weight
        if seen >= half:
            return value
    return ordered[-1][0]
