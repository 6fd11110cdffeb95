"""No API key ever leaks: not in results, reprs, errors, logs, stdout/stderr or the cache.

A recognizable canary key is planted; every success and fault path runs through the real
SDKs against the local server (whose 401 echoes the key back, as some providers do);
then everything produced is searched for the key and for its distinctive middle.
"""

from __future__ import annotations

import asyncio
import logging
import traceback
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest

from contextfold import (
    AnthropicSummarizer,
    CachedSummarizer,
    ConfigurationError,
    FallbackSummarizer,
    OpenAISummarizer,
    SummaryCache,
    SummaryResult,
    summarizer_from_spec,
)
from contextfold.testing import FakeSummarizer

from .llm_server import FAULTS, TIMEOUT, Fault, LLMServer, sent_key, timeout_for
from .samples import request

MIDDLE = "c4n4ry7f3a9c1e5b"
OPENAI_KEY = f"sk-canary-{MIDDLE}-openai"
ANTHROPIC_KEY = f"sk-ant-canary-{MIDDLE}-anthropic"
OPENAI_MODEL = "qwen3-32b"
ANTHROPIC_MODEL = "claude-haiku-4-5"


class Evidence:
    """Everything the code under test produced that a person or a log could see."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def add(self, *items: object) -> None:
        self.texts.extend(repr(item) for item in items)
        self.texts.extend(str(item) for item in items)

    def outcome(self, call: Callable[[], SummaryResult]) -> None:
        """Run `call` and keep its result or its exception, traceback included."""
        try:
            self.add(call())
        except Exception as exc:  # every failure's text is evidence
            self.add(exc, exc.args)
            self.texts.append("".join(traceback.format_exception(exc)))


def backends(
    server: LLMServer, timeout: float = TIMEOUT
) -> tuple[OpenAISummarizer, AnthropicSummarizer]:
    """Both backends on the server with the canary keys and no retries."""
    return (
        OpenAISummarizer(
            OPENAI_MODEL,
            base_url=server.openai_url,
            api_key=OPENAI_KEY,
            timeout=timeout,
            max_retries=0,
        ),
        AnthropicSummarizer(
            ANTHROPIC_MODEL,
            base_url=server.url,
            api_key=ANTHROPIC_KEY,
            timeout=timeout,
            max_retries=0,
        ),
    )


def exercise_every_path(server: LLMServer, cache: SummaryCache, evidence: Evidence) -> None:
    """Success and every fault, sync and async, direct and through fallback and cache."""
    openai_backend, anthropic_backend = backends(server)
    ledger = FakeSummarizer(lambda _: "ledger text", name="ledger")
    chain = FallbackSummarizer(
        [CachedSummarizer(openai_backend, cache), CachedSummarizer(anthropic_backend, cache)],
        last_resort=ledger,
        failure_threshold=1000,
    )
    evidence.add(openai_backend, anthropic_backend, chain, cache, *chain.circuits)
    faults: tuple[Fault, ...] = ("ok", *FAULTS)
    for index, fault in enumerate(faults):
        timed_openai, timed_anthropic = backends(server, timeout_for(fault))
        pairs: tuple[tuple[str, OpenAISummarizer | AnthropicSummarizer], ...] = (
            (OPENAI_MODEL, timed_openai),
            (ANTHROPIC_MODEL, timed_anthropic),
        )
        for model, backend in pairs:
            server.script(model, fault, fault)
            evidence.outcome(partial(backend.summarize, request(salt=f"s{index}")))
            evidence.outcome(partial(asyncio.run, backend.asummarize(request(salt=f"a{index}"))))
    for fault in ("ok", "401", "500"):  # the chain's own paths: log, fall back, cache
        server.script(OPENAI_MODEL, fault, fault)
        server.script(ANTHROPIC_MODEL, fault, fault)
        evidence.outcome(partial(chain.summarize, request(salt=f"c{fault}")))
        evidence.outcome(partial(asyncio.run, chain.asummarize(request(salt=f"d{fault}"))))
        evidence.outcome(partial(chain.summarize, request(salt=f"c{fault}")))  # cache hit
    retrying = OpenAISummarizer(
        OPENAI_MODEL, base_url=server.openai_url, api_key=OPENAI_KEY, timeout=TIMEOUT, max_retries=1
    )
    server.script(OPENAI_MODEL, "429")
    evidence.outcome(lambda: retrying.summarize(request(salt="retry")))


def exercise_configuration(
    server: LLMServer, tmp_path: Path, evidence: Evidence, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Keys from the environment, summarizers from specs, and configuration errors."""
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    built = summarizer_from_spec(
        f"openai:{OPENAI_MODEL}@{server.openai_url}",
        fallback=[f"anthropic:{ANTHROPIC_MODEL}@{server.url}"],
        cache_path=tmp_path / "spec-cache.sqlite",
        last_resort=FakeSummarizer(lambda _: "ledger text", name="ledger"),
        timeout=TIMEOUT,
        max_retries=0,
    )
    evidence.add(built, OpenAISummarizer("gpt-4o-mini"), AnthropicSummarizer("claude"))
    evidence.outcome(lambda: built.summarize(request(salt="spec")))
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(ConfigurationError) as info:
        summarizer_from_spec(f"nope:m@https://u:{OPENAI_KEY}@h", last_resort=built)
    evidence.add(info.value)


def test_no_api_key_appears_in_anything_produced(
    llm_server: LLMServer,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    caplog.set_level(logging.DEBUG)  # every logger, the SDKs' and httpx's debug logs too
    evidence = Evidence()
    db = tmp_path / "cache.sqlite"
    with SummaryCache(db) as cache:
        exercise_every_path(llm_server, cache, evidence)
        assert len(cache) > 0
    exercise_configuration(llm_server, tmp_path, evidence, monkeypatch)

    keys_sent = {sent_key(r.headers) for r in llm_server.requests}
    assert {OPENAI_KEY, ANTHROPIC_KEY} <= keys_sent  # the keys really were in play
    assert len(evidence.texts) > 100
    assert len(caplog.records) > 50

    captured = capsys.readouterr()
    records = [
        f"{r.getMessage()}\n{r.exc_text or ''}\n{r.args!r}\n{r.__dict__!r}" for r in caplog.records
    ]
    databases = [p.read_bytes().decode("latin-1") for p in tmp_path.glob("*.sqlite*")]
    haystacks = [*evidence.texts, caplog.text, *records, captured.out, captured.err, *databases]
    for needle in (OPENAI_KEY, ANTHROPIC_KEY, MIDDLE):
        leaks = [h[:200] for h in haystacks if needle in h]
        assert leaks == [], f"{needle!r} leaked"
