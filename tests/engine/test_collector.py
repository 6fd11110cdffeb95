"""The garbage collector is paused while a compaction computes, and only then."""

from __future__ import annotations

import asyncio
import gc
import threading
from collections.abc import Iterator

import pytest

import contextfold as cf
from contextfold import SummaryRequest, SummaryResult
from contextfold._engine._collector import _Paused, paused
from contextfold.testing import FakeSummarizer


@pytest.fixture(autouse=True)
def _collector_back_on() -> Iterator[None]:
    yield
    gc.enable()


def _payload() -> list[object]:
    messages: list[object] = [{"role": "system", "content": "Be brief."}]
    for i in range(30):
        messages.append({"role": "user", "content": f"Question {i}: what about item {i}?"})
        messages.append({"role": "assistant", "content": f"Answer {i}: " + "details " * 60})
    return messages


def test_a_compaction_leaves_the_collector_as_it_found_it() -> None:
    assert gc.isenabled()
    assert cf.compact(_payload(), 600).report.compacted
    assert gc.isenabled()
    gc.disable()
    cf.compact(_payload(), 600)
    asyncio.run(cf.acompact(_payload(), 600))
    assert not gc.isenabled()


def test_it_is_paused_inside_the_work_but_not_during_a_summarizer_call() -> None:
    seen: list[bool] = []

    class Watching:
        def count(self, message: cf.Message) -> int:
            seen.append(gc.isenabled())
            return cf.HeuristicCounter().count(message)

    calls: list[bool] = []

    def write(request: SummaryRequest) -> str:
        calls.append(gc.isenabled())
        return "## Goals\nsummary"

    result = cf.compact(_payload(), 600, summarizer=FakeSummarizer(write), counter=Watching())
    assert result.report.compacted
    assert calls
    assert all(calls)  # rule 2: a summarizer's call is the caller's time
    assert seen
    assert not any(seen)  # the counting inside the flow ran paused
    assert gc.isenabled()

    class Async:
        async def asummarize(self, request: SummaryRequest) -> SummaryResult:
            calls.append(gc.isenabled())
            return SummaryResult("## Goals\nasync", summarizer="async")

        def summarize(self, request: SummaryRequest) -> SummaryResult:
            raise AssertionError("the async driver awaits asummarize")

    calls.clear()
    asyncio.run(cf.acompact(_payload(), 600, summarizer=Async()))
    assert calls
    assert all(calls)
    assert gc.isenabled()


def test_an_error_inside_still_restores_it() -> None:
    with pytest.raises(cf.InvalidConversation):
        cf.compact([{"role": "tool", "content": "x", "tool_call_id": 3}], 100)
    assert gc.isenabled()

    def fail() -> None:
        with paused():
            assert not gc.isenabled()
            raise ZeroDivisionError

    with pytest.raises(ZeroDivisionError):
        fail()
    assert gc.isenabled()


def test_overlapping_pauses_restore_it_when_the_last_one_ends() -> None:
    inside, release = threading.Event(), threading.Event()

    def hold() -> None:
        with paused():
            inside.set()
            release.wait(10)

    other = threading.Thread(target=hold)
    other.start()
    inside.wait(10)
    with paused():
        assert not gc.isenabled()
    assert not gc.isenabled()  # the other thread is still inside
    release.set()
    other.join(10)
    assert gc.isenabled()
    with paused(), paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_overlapping_pauses_that_never_end_still_collect() -> None:
    held = _Paused(longest=-1.0)  # rule 4, no grace: every overlapped exit collects
    runs: list[str] = []

    def watch(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            runs.append(phase)

    gc.callbacks.append(watch)
    try:
        with held:
            with held:
                assert not gc.isenabled()
            assert runs  # the inner exit collected, the outer step still inside
            assert not gc.isenabled()
        assert gc.isenabled()
        runs.clear()
        with held, held:
            pass
        long_enough = _Paused()
        with long_enough, long_enough:
            pass
    finally:
        gc.callbacks.remove(watch)
    assert len(runs) == 1  # only the rule-4 pause collected; a short overlap does not
