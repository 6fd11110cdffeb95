"""SummaryCache and CachedSummarizer: keys, persistence, zero model calls on a hit."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contextfold import (
    ArchiveError,
    CachedSummarizer,
    Message,
    OpenAISummarizer,
    SummaryCache,
    SummaryRequest,
    SummaryResult,
    Text,
)
from contextfold._summarizers._cache import CacheKey, cache_key
from contextfold._summarizers._prompt import PROMPT_VERSION
from contextfold.testing import FakeSummarizer

from ..strategies import messages
from .llm_server import TIMEOUT, LLMServer
from .samples import request

MODEL = "qwen3-32b"


def test_key_names_summarizer_and_prompt_version_and_is_deterministic() -> None:
    key = cache_key("openai:m", request())
    assert (key.summarizer, key.prompt_version) == ("openai:m", PROMPT_VERSION)
    assert len(key.digest) == 64
    assert key == cache_key("openai:m", request())


def test_key_changes_with_everything_that_shapes_the_summary() -> None:
    base = request()
    variants = [
        dataclasses.replace(base, messages=base.messages[:-1], refs=base.refs[:-1]),
        dataclasses.replace(base, refs=tuple(reversed(base.refs))),
        dataclasses.replace(base, previous="older summary"),
        dataclasses.replace(base, max_tokens=base.max_tokens + 1),
    ]
    digests = {cache_key("openai:m", r).digest for r in [base, *variants]}
    assert len(digests) == 5
    assert cache_key("anthropic:m", base) != cache_key("openai:m", base)


@given(st.lists(messages, max_size=4), st.lists(messages, max_size=4))
def test_distinct_spans_get_distinct_keys(a: list[Message], b: list[Message]) -> None:
    same = cache_key("s", SummaryRequest(tuple(a))) == cache_key("s", SummaryRequest(tuple(b)))
    assert same == (a == b)


def test_cache_stores_and_returns_results_marked_cached() -> None:
    key = CacheKey("openai:m", PROMPT_VERSION, "d" * 64)
    with SummaryCache(":memory:") as cache:
        assert cache.get(key) is None
        cache.put(
            key, SummaryResult("text", summarizer="openai:m", input_tokens=9, output_tokens=3)
        )
        hit = cache.get(key)
        assert hit == SummaryResult("text", summarizer="openai:m", cached=True)
        assert len(cache) == 1


def test_cache_file_persists_across_reopening(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "summaries.sqlite"
    key = CacheKey("openai:m", PROMPT_VERSION, "e" * 64)
    with SummaryCache(path) as cache:
        cache.put(key, SummaryResult("kept", summarizer="openai:m"))
    with SummaryCache(path) as again:
        hit = again.get(key)
    assert hit is not None
    assert hit.text == "kept"


def test_an_unusable_path_is_an_archive_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(ArchiveError, match="cannot open the summary cache"):
        SummaryCache(blocker / "cache.sqlite")


def test_a_second_identical_request_does_not_reach_the_summarizer() -> None:
    inner = FakeSummarizer(lambda r: f"summary of {len(r.messages)}", name="fake:m")
    with SummaryCache(":memory:") as cache:
        cached = CachedSummarizer(inner, cache)
        first, second = cached.summarize(request()), cached.summarize(request())
        cached.summarize(request(salt="different"))
    assert len(inner.requests) == 2
    assert (first.cached, second.cached) == (False, True)
    assert second.text == first.text
    assert second.summarizer == "fake:m"
    assert cached.name == "fake:m"


def test_a_broken_cache_still_answers_through_the_model(
    caplog: pytest.LogCaptureFixture,
) -> None:
    inner = FakeSummarizer(lambda _: "fresh", name="fake:m")
    cache = SummaryCache(":memory:")
    cache.close()
    result = CachedSummarizer(inner, cache).summarize(request())
    assert (result.text, result.cached) == ("fresh", False)
    assert "summary cache read failed" in caplog.text
    assert "summary cache write failed" in caplog.text


def test_repr_shows_inner_and_path() -> None:
    with SummaryCache(":memory:") as cache:
        wrapped = CachedSummarizer(FakeSummarizer(lambda _: "x", name="f"), cache)
        assert repr(wrapped).endswith("SummaryCache(':memory:'))")


# --- against the real local server ---------------------------------------------------------


def backend(server: LLMServer) -> OpenAISummarizer:
    """An OpenAI-compatible backend on `server`."""
    return OpenAISummarizer(MODEL, base_url=server.openai_url, timeout=TIMEOUT, max_retries=0)


def test_second_identical_summarization_makes_zero_requests(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    with SummaryCache(tmp_path / "cache.sqlite") as cache:
        cached = CachedSummarizer(backend(llm_server), cache)
        first = cached.summarize(request())
        second = cached.summarize(request())
    assert llm_server.count() == 1
    assert first.input_tokens > 0
    assert not first.cached
    assert (second.cached, second.text, second.summarizer) == (True, first.text, first.summarizer)
    assert (second.input_tokens, second.output_tokens) == (0, 0)


def test_async_second_identical_summarization_makes_zero_requests(
    llm_server: LLMServer,
) -> None:
    with SummaryCache(":memory:") as cache:
        cached = CachedSummarizer(backend(llm_server), cache)

        async def twice() -> tuple[SummaryResult, SummaryResult]:
            return await cached.asummarize(request()), await cached.asummarize(request())

        first, second = asyncio.run(twice())
    assert llm_server.count() == 1
    assert (first.cached, second.cached) == (False, True)


def test_failures_are_not_cached(llm_server: LLMServer) -> None:
    llm_server.script(MODEL, "garbled")
    with SummaryCache(":memory:") as cache:
        cached = CachedSummarizer(backend(llm_server), cache)
        with pytest.raises(Exception, match="garbled"):
            cached.summarize(request())
        assert len(cache) == 0
        assert not cached.summarize(request()).cached
    assert llm_server.count() == 2


def test_sync_only_inner_is_awaited_in_a_thread() -> None:
    class SyncOnly:
        name = "sync:m"

        def summarize(self, request: SummaryRequest) -> SummaryResult:
            return SummaryResult("sync text", summarizer=self.name)

    with SummaryCache(":memory:") as cache:
        result = asyncio.run(CachedSummarizer(SyncOnly(), cache).asummarize(request()))
    assert result.text == "sync text"


def test_cache_logs_nothing_on_the_happy_path(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="contextfold")
    with SummaryCache(":memory:") as cache:
        CachedSummarizer(FakeSummarizer(lambda _: "x", name="f"), cache).summarize(
            SummaryRequest((Message("user", (Text("hi"),)),))
        )
    assert caplog.records == []
