"""Fakes for testing code that uses contextfold: a scripted summarizer, a fixed counter, a clock.

Like httpx's MockTransport: real objects that satisfy the protocols, with behaviour
supplied by the test, so no test needs a model, a tokenizer or the network.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ._messages import Message, message_text
from ._summarizers._protocol import SummaryRequest, SummaryResult

__all__ = ["FakeClock", "FakeSummarizer", "FixedCounter"]


@dataclass(slots=True)
class FakeSummarizer:
    """A Summarizer whose text comes from `fn(request)`; records every request it gets."""

    fn: Callable[[SummaryRequest], str]
    name: str = "fake"
    requests: list[SummaryRequest] = field(default_factory=list)

    def summarize(self, request: SummaryRequest) -> SummaryResult:
        """Record `request` and answer with `fn(request)`."""
        self.requests.append(request)
        return SummaryResult(self.fn(request), summarizer=self.name)

    async def asummarize(self, request: SummaryRequest) -> SummaryResult:
        """Awaitable form of `summarize`."""
        return self.summarize(request)


@dataclass(frozen=True, slots=True)
class FixedCounter:
    """A TokenCounter: `per_message` plus one token per `chars_per_token` characters."""

    per_message: int = 4
    chars_per_token: int = 4
    name: str = "fixed"

    def count(self, message: Message) -> int:
        """Tokens for `message` under this fixed rule."""
        chars = len(message_text(message))
        return self.per_message + -(-chars // self.chars_per_token)


@dataclass(slots=True)
class FakeClock:
    """A monotonic clock that moves only when told: pass it as `clock=`, never sleep."""

    now: float = 0.0

    def __call__(self) -> float:
        """The current time in seconds."""
        return self.now

    def advance(self, seconds: float) -> None:
        """Move the clock forward by `seconds`."""
        self.now += seconds
