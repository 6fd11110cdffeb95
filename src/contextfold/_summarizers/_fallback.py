"""A fallback chain of summarizers, each behind a circuit breaker, and a last resort.

Rules:
1. Members are tried in order. Any exception (or an empty text) from a member is a
   failure: the next member is tried, and the last resort answers when all have failed,
   so a turn is never lost because a summarizer failed.
2. Circuit breaker per member: after `failure_threshold` consecutive failures the circuit
   opens and the member is skipped until `cooldown` seconds pass on the injected clock;
   then it is half-open and one trial call decides: success closes it, failure reopens it
   for another cooldown. A success always resets the count.
3. The result says who wrote the text (`SummaryResult.summarizer`); every failure is
   logged on the `contextfold` logger with its sanitized message, never with secrets.
4. The order of attempts is decided by the same `_Breaker` code for `summarize` and
   `asummarize`; only the calls differ.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

from .._errors import ConfigurationError, SummarizerError
from ._flow import acall
from ._protocol import Summarizer, SummaryRequest, SummaryResult

__all__ = ["CircuitState", "FallbackSummarizer"]

log = logging.getLogger("contextfold")

CircuitState: TypeAlias = Literal["closed", "open", "half-open"]


@dataclass(slots=True)
class _Breaker:
    """Consecutive failures of one member and when its circuit opened."""

    threshold: int
    cooldown: float
    failures: int = 0
    opened_at: float | None = None
    trial: bool = False
    """A half-open trial call is in flight."""

    def state(self, now: float) -> CircuitState:
        if self.opened_at is None:
            return "closed"
        return "half-open" if now - self.opened_at >= self.cooldown else "open"

    def admit(self, now: float) -> bool:
        """Whether to call the member now; claims the trial when half-open."""
        state = self.state(now)
        if state == "half-open" and not self.trial:
            self.trial = True
            return True
        return state == "closed"

    def succeeded(self) -> None:
        self.failures, self.opened_at, self.trial = 0, None, False

    def failed(self, now: float) -> None:
        self.failures += 1
        if self.trial or self.failures >= self.threshold:
            self.opened_at = now
        self.trial = False


def _label(member: object) -> str:
    name = getattr(member, "name", None)
    return name if isinstance(name, str) else type(member).__name__


def _reason(exc: Exception) -> str:
    """A failure's text, only when it is ours (sanitized); else its type alone."""
    return str(exc) if isinstance(exc, SummarizerError) else type(exc).__name__


class FallbackSummarizer:
    """Try each summarizer in order behind a circuit breaker; the last resort never skips."""

    __slots__ = ("_breakers", "_chain", "_clock", "_last_resort", "_lock")

    def __init__(
        self,
        chain: Sequence[Summarizer],
        *,
        last_resort: Summarizer,
        failure_threshold: int = 3,
        cooldown: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if failure_threshold < 1:
            raise ConfigurationError("failure_threshold must be at least 1")
        if cooldown < 0:
            raise ConfigurationError("cooldown must not be negative")
        self._chain = tuple(chain)
        self._last_resort = last_resort
        self._clock = clock
        self._breakers = [_Breaker(failure_threshold, cooldown) for _ in self._chain]
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        chain = ", ".join(_label(m) for m in self._chain)
        return f"FallbackSummarizer([{chain}], last_resort={_label(self._last_resort)})"

    @property
    def circuits(self) -> tuple[CircuitState, ...]:
        """The circuit state of each chain member, in order, at the clock's current time."""
        now = self._clock()
        with self._lock:
            return tuple(b.state(now) for b in self._breakers)

    def _admit(self, index: int) -> bool:
        with self._lock:
            return self._breakers[index].admit(self._clock())

    def _release(self, index: int) -> None:
        with self._lock:
            self._breakers[index].trial = False

    def _record(self, index: int, result: SummaryResult | Exception) -> SummaryResult | None:
        """Book the outcome of a call; the result when it is usable, else None."""
        if isinstance(result, SummaryResult) and not result.text.strip():
            result = SummarizerError(f"{_label(self._chain[index])}: empty summary")
        with self._lock:
            breaker = self._breakers[index]
            if isinstance(result, SummaryResult):
                breaker.succeeded()
                return result
            breaker.failed(self._clock())
            opened = breaker.opened_at is not None
        log.warning(
            "summarizer %s failed (%s)%s",
            _label(self._chain[index]),
            _reason(result),
            "; circuit open" if opened else "",
        )
        return None

    def summarize(self, request: SummaryRequest) -> SummaryResult:
        """The first member's summary that succeeds, else the last resort's."""
        for index, member in enumerate(self._chain):
            if not self._admit(index):
                continue
            try:
                outcome: SummaryResult | Exception = member.summarize(request)
            except Exception as exc:  # every failure falls through to the next member
                outcome = exc
            except BaseException:  # cancelled or interrupted: not the member's failure
                self._release(index)
                raise
            result = self._record(index, outcome)
            if result is not None:
                return result
        return self._last_resort.summarize(request)

    async def asummarize(self, request: SummaryRequest) -> SummaryResult:
        """Awaitable form of `summarize`; sync-only members run in a worker thread."""
        for index, member in enumerate(self._chain):
            if not self._admit(index):
                continue
            try:
                outcome: SummaryResult | Exception = await acall(member, request)
            except Exception as exc:  # every failure falls through to the next member
                outcome = exc
            except BaseException:  # cancelled or interrupted: not the member's failure
                self._release(index)
                raise
            result = self._record(index, outcome)
            if result is not None:
                return result
        return await acall(self._last_resort, request)
