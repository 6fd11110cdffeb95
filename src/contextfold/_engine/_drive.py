"""Pump the compaction flow with a summarizer: the sync and the async driver.

Rules:
1. The flow is written once (`_flow.compact_flow`); these drivers only answer its
   summary requests.
2. A summarizer that raises never loses a turn: the embedded ledger answers instead.
"""

from __future__ import annotations

from collections.abc import Generator

from .._summarizers._ledger import LedgerSummarizer
from .._summarizers._protocol import Summarizer, SummaryRequest, SummaryResult
from ._flow import Outcome

Flow = Generator[SummaryRequest, SummaryResult, Outcome]


def run(flow: Flow, summarizer: Summarizer) -> Outcome:
    """Drive `flow` to its outcome with a sync summarizer."""
    try:
        request = next(flow)
        while True:
            request = flow.send(_ask(summarizer, request))
    except StopIteration as stop:
        outcome: Outcome = stop.value
        return outcome


async def arun(flow: Flow, summarizer: Summarizer) -> Outcome:
    """Drive `flow` to its outcome, awaiting `asummarize` when the summarizer has it."""
    try:
        request = next(flow)
        while True:
            request = flow.send(await _aask(summarizer, request))
    except StopIteration as stop:
        outcome: Outcome = stop.value
        return outcome


def _ask(summarizer: Summarizer, request: SummaryRequest) -> SummaryResult:
    try:
        return summarizer.summarize(request)
    except Exception:
        return LedgerSummarizer().summarize(request)


async def _aask(summarizer: Summarizer, request: SummaryRequest) -> SummaryResult:
    asummarize = getattr(summarizer, "asummarize", None)
    if asummarize is None:
        return _ask(summarizer, request)
    try:
        result: SummaryResult = await asummarize(request)
        return result
    except Exception:
        return LedgerSummarizer().summarize(request)
