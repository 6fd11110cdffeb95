"""Pump the compaction flow with a summarizer: the sync and the async driver.

Rules:
1. The flow is written once (`_flow.compact_flow`); these drivers only answer its
   summary requests.
2. A summarizer that raises never loses a turn: the embedded ledger answers instead.
3. Deadline: a compaction gets `deadline` seconds for all its summary requests together
   (Policy.deadline). A request still unanswered when the time is up is abandoned and the
   ledger writes that summary, and every later one; the report says so in `warnings`.
   The planner never reads a clock: only these drivers do.
4. The ledger itself is local and quick: it runs inline. Any other sync summarizer runs in
   a daemon thread that is waited on until the deadline, so a server that accepts the
   request and never answers cannot hold the turn (nor, being a daemon, the process's
   exit); an async one is awaited with a timeout and cancelled.
5. Storage warnings the archive raised during the compaction join the report's warnings.
6. Each step of the flow, and the ledger, runs with the garbage collector paused
   (`_collector`); a summarizer's call and its wait do not.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
import time
from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Final, Protocol

from .._summarizers._ledger import LedgerSummarizer
from .._summarizers._protocol import Summarizer, SummaryRequest, SummaryResult
from ._collector import paused
from ._flow import Outcome

if TYPE_CHECKING:
    import asyncio

Flow = Generator[SummaryRequest, SummaryResult, Outcome]
Clock = Callable[[], float]
NO_DEADLINE: Final = float("inf")


class Warner(Protocol):
    """An archive that reports storage faults it degraded around (Archive has it)."""

    @property
    def warnings(self) -> tuple[str, ...]: ...


class _Budget:
    """The time left for one compaction's summaries, and what happened when it ran out."""

    __slots__ = ("_archive", "_clock", "_end", "_seen", "deadline", "warnings")

    def __init__(self, deadline: float, clock: Clock, archive: Warner | None) -> None:
        self._clock = clock
        self._end = clock() + deadline
        self._archive = archive
        self._seen = len(archive.warnings) if archive is not None else 0
        self.deadline = deadline
        self.warnings: list[str] = []

    def storage(self) -> list[str]:
        """Storage warnings the archive raised during this compaction."""
        return [] if self._archive is None else list(self._archive.warnings[self._seen :])

    def left(self) -> float:
        return self._end - self._clock()

    def missed(self, summarizer: Summarizer, request: SummaryRequest) -> SummaryResult:
        """The ledger's answer, and a warning naming the summarizer that ran out of time."""
        name = getattr(summarizer, "name", None) or repr(summarizer)
        note = (
            f"summarizer {name} did not answer within the {self.deadline:g} s deadline; "
            "the ledger wrote the summary"
        )
        if note not in self.warnings:
            self.warnings.append(note)
        return LedgerSummarizer().summarize(request)


def _finish(outcome: Outcome, budget: _Budget) -> Outcome:
    new = budget.warnings + budget.storage()
    if not new:
        return outcome
    warnings = outcome.report.warnings + tuple(new)
    report = dataclasses.replace(outcome.report, warnings=warnings)
    return dataclasses.replace(outcome, report=report)


def run(
    flow: Flow,
    summarizer: Summarizer,
    deadline: float = NO_DEADLINE,
    clock: Clock = time.monotonic,
    archive: Warner | None = None,
) -> Outcome:
    """Drive `flow` to its outcome with a sync summarizer, within `deadline` seconds."""
    budget = _Budget(deadline, clock, archive)
    try:
        with paused():
            request = next(flow)
        while True:
            answer = _ask(summarizer, request, budget)
            with paused():
                request = flow.send(answer)
    except StopIteration as stop:
        outcome: Outcome = stop.value
        return _finish(outcome, budget)


async def arun(
    flow: Flow,
    summarizer: Summarizer,
    deadline: float = NO_DEADLINE,
    clock: Clock = time.monotonic,
    archive: Warner | None = None,
) -> Outcome:
    """Drive `flow`, awaiting `asummarize` when the summarizer has it, within `deadline`."""
    budget = _Budget(deadline, clock, archive)
    try:
        with paused():
            request = next(flow)
        while True:
            answer = await _aask(summarizer, request, budget)
            with paused():
                request = flow.send(answer)
    except StopIteration as stop:
        outcome: Outcome = stop.value
        return _finish(outcome, budget)


def _ask(summarizer: Summarizer, request: SummaryRequest, budget: _Budget) -> SummaryResult:
    try:
        if isinstance(summarizer, LedgerSummarizer):
            with paused():
                return summarizer.summarize(request)
        if budget.left() <= 0:
            return budget.missed(summarizer, request)
        if budget.left() == NO_DEADLINE:
            return summarizer.summarize(request)
        return _in_thread(summarizer, request, budget)
    except Exception:
        return LedgerSummarizer().summarize(request)


def _in_thread(summarizer: Summarizer, request: SummaryRequest, budget: _Budget) -> SummaryResult:
    """Rule 4: wait for the answer until the deadline, then give up on it."""
    box: list[SummaryResult | BaseException] = []

    def call() -> None:
        try:
            box.append(summarizer.summarize(request))
        except BaseException as exc:  # handed to the waiting thread, which decides
            box.append(exc)

    worker = threading.Thread(target=call, name="contextfold-summarizer", daemon=True)
    worker.start()
    worker.join(max(0.0, budget.left()))
    if not box:
        return budget.missed(summarizer, request)
    answer = box[0]
    if isinstance(answer, BaseException):
        raise answer
    return answer


async def _aask(summarizer: Summarizer, request: SummaryRequest, budget: _Budget) -> SummaryResult:
    import asyncio  # noqa: PLC0415 - lazily: sync callers and the CLI never load it

    asummarize = getattr(summarizer, "asummarize", None)
    if asummarize is None:
        return await _athread(summarizer, request, budget)
    try:
        if budget.left() <= 0:
            return budget.missed(summarizer, request)
        left = budget.left()
        result: SummaryResult = await asyncio.wait_for(
            asummarize(request), None if left == NO_DEADLINE else left
        )
        return result
    except TimeoutError:
        return budget.missed(summarizer, request)
    except Exception:
        return LedgerSummarizer().summarize(request)


async def _athread(
    summarizer: Summarizer, request: SummaryRequest, budget: _Budget
) -> SummaryResult:
    """A sync summarizer from the async driver, in a daemon thread (rule 4)."""
    if isinstance(summarizer, LedgerSummarizer) or budget.left() == NO_DEADLINE:
        return _ask(summarizer, request, budget)
    import asyncio  # noqa: PLC0415 - lazily: sync callers and the CLI never load it

    loop = asyncio.get_running_loop()
    future: asyncio.Future[SummaryResult] = loop.create_future()

    def call() -> None:
        answer: SummaryResult | BaseException
        try:
            answer = summarizer.summarize(request)
        except BaseException as exc:  # handed to the awaiting task
            answer = exc
        with contextlib.suppress(RuntimeError):  # the loop is gone: nobody waits any more
            loop.call_soon_threadsafe(_settle, future, answer)

    if budget.left() <= 0:
        return budget.missed(summarizer, request)
    threading.Thread(target=call, name="contextfold-summarizer", daemon=True).start()
    try:
        return await asyncio.wait_for(future, budget.left())
    except TimeoutError:
        return budget.missed(summarizer, request)
    except Exception:
        return LedgerSummarizer().summarize(request)


def _settle(future: asyncio.Future[SummaryResult], answer: SummaryResult | BaseException) -> None:
    if future.done():
        return
    if isinstance(answer, BaseException):
        future.set_exception(answer)
    else:
        future.set_result(answer)
