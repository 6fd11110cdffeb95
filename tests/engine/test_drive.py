"""The flow drivers: a summarizer that fails never loses a turn, sync or async."""

from __future__ import annotations

import asyncio

import contextfold as cf
from contextfold import SummaryRequest, SummaryResult
from contextfold.testing import FakeSummarizer


def _payload() -> list[object]:
    messages: list[object] = [{"role": "user", "content": "Plan the trip to Lisbon, budget $900."}]
    for i in range(20):
        messages.append({"role": "assistant", "content": f"Option {i}: " + "details " * 80})
        messages.append({"role": "user", "content": f"Tell me more about option {i}."})
    return messages


class Broken:
    """A summarizer whose every call raises."""

    def summarize(self, request: SummaryRequest) -> SummaryResult:
        raise RuntimeError("model down")

    async def asummarize(self, request: SummaryRequest) -> SummaryResult:
        raise RuntimeError("model down")


class SyncOnly:
    """A summarizer without `asummarize`."""

    def summarize(self, request: SummaryRequest) -> SummaryResult:
        return SummaryResult("## Goals\nsync only", summarizer="sync-only")


def test_failing_summarizer_falls_back_to_the_ledger() -> None:
    result = cf.compact(_payload(), 800, summarizer=Broken())
    assert result.report.fits
    assert result.report.summarizer == "ledger"
    again = asyncio.run(cf.acompact(_payload(), 800, summarizer=Broken()))
    assert again.report.summarizer == "ledger"


def test_async_driver_uses_sync_summarizers_too() -> None:
    result = asyncio.run(cf.acompact(_payload(), 800, summarizer=SyncOnly()))
    assert result.report.summarizer == "sync-only"


def test_fake_summarizer_sees_the_span_refs_and_previous_summary() -> None:
    fake = FakeSummarizer(lambda req: f"{len(req.messages)} messages, previous={req.previous!r}")
    first = cf.compact(_payload(), 800, summarizer=fake)
    assert fake.requests
    request = fake.requests[0]
    assert len(request.refs) == len(request.messages)
    assert all(first.recall(ref) is not None for ref in request.refs)
    longer = [*first.payload, *_payload()[1:9]] if isinstance(first.payload, list) else []
    cf.compact(longer, 800, summarizer=fake)
    assert fake.requests[-1].previous is not None  # the earlier summary is merged, not redone


def test_report_serializes_and_describes() -> None:
    report = cf.compact(_payload(), 800).report
    data = report.to_dict()
    assert data["actions"] == dict(report.actions)
    assert isinstance(data["refs"], list)
    assert "budget 800" in report.describe()
    assert (
        cf.compact([{"role": "user", "content": "hi"}], 800)
        .report.describe()
        .endswith("nothing to do")
    )


def test_an_empty_archive_passed_in_is_the_one_used() -> None:
    archive = cf.Archive()  # empty, hence falsy: it must still be used
    result = cf.compact(_payload(), 800, archive=archive)
    assert result.archive is archive
    assert result.report.refs
    assert all(ref in archive for ref in result.report.refs)
