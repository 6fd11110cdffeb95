"""Spec strings: parsing, and the fallback chain (with cache) they build."""

from __future__ import annotations

from pathlib import Path

import pytest

from contextfold import ConfigurationError, FallbackSummarizer, summarizer_from_spec
from contextfold._summarizers._spec import BackendSpec, parse_spec
from contextfold.testing import FakeSummarizer

from .llm_server import TIMEOUT, LLMServer
from .samples import request

LEDGER = FakeSummarizer(lambda _: "ledger text", name="ledger")


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("openai:gpt-4o-mini", BackendSpec("openai", "gpt-4o-mini")),
        ("anthropic:claude-haiku-4-5", BackendSpec("anthropic", "claude-haiku-4-5")),
        (
            "openai:qwen3:32b@http://localhost:11434/v1",
            BackendSpec("openai", "qwen3:32b", "http://localhost:11434/v1"),
        ),
        (
            " anthropic:claude@https://proxy.example/anthropic ",
            BackendSpec("anthropic", "claude", "https://proxy.example/anthropic"),
        ),
        ("openai:org@team/model", BackendSpec("openai", "org@team/model")),
    ],
)
def test_parse_spec(spec: str, expected: BackendSpec) -> None:
    assert parse_spec(spec) == expected


@pytest.mark.parametrize(
    ("spec", "reason"),
    [
        ("", "needs a backend and a model"),
        ("gpt-4o", "needs a backend and a model"),
        ("openai:", "needs a model"),
        ("openai:@http://localhost:8080/v1", "needs a model"),
        ("ledger:v1", "unknown summarizer backend 'ledger'"),
    ],
)
def test_bad_specs_are_configuration_errors(spec: str, reason: str) -> None:
    with pytest.raises(ConfigurationError, match=reason):
        parse_spec(spec)


def test_errors_never_repeat_a_url_that_may_hold_credentials() -> None:
    with pytest.raises(ConfigurationError) as info:
        parse_spec("nope:m@https://user:sk-hidden@host/v1")
    assert "sk-hidden" not in str(info.value)


def test_spec_builds_a_fallback_chain_over_real_backends(llm_server: LLMServer) -> None:
    chain = summarizer_from_spec(
        "openai:primary",
        base_url=llm_server.openai_url,
        fallback=[f"anthropic:backup@{llm_server.url}"],
        last_resort=LEDGER,
        timeout=TIMEOUT,
        max_retries=0,
    )
    assert isinstance(chain, FallbackSummarizer)
    assert chain.summarize(request()).summarizer == "openai:primary"
    llm_server.script("primary", "500")
    assert chain.summarize(request()).summarizer == "anthropic:backup"
    llm_server.always("primary", "500")
    llm_server.always("backup", "500")
    assert chain.summarize(request()).summarizer == "ledger"


def test_spec_with_a_cache_path_caches_each_backend(llm_server: LLMServer, tmp_path: Path) -> None:
    chain = summarizer_from_spec(
        f"openai:primary@{llm_server.openai_url}",
        cache_path=tmp_path / "cache.sqlite",
        last_resort=LEDGER,
        timeout=TIMEOUT,
        max_retries=0,
        failure_threshold=1,
        cooldown=1.0,
    )
    first, second = chain.summarize(request()), chain.summarize(request())
    assert (first.cached, second.cached) == (False, True)
    assert llm_server.count() == 1
    assert (tmp_path / "cache.sqlite").exists()


def test_spec_mistakes_are_configuration_errors(llm_server: LLMServer) -> None:
    with pytest.raises(ConfigurationError, match="list of specs"):
        summarizer_from_spec("openai:m", fallback="openai:n", last_resort=LEDGER)
    with pytest.raises(ConfigurationError, match="base URL is given twice"):
        summarizer_from_spec(
            f"openai:m@{llm_server.openai_url}", base_url=llm_server.openai_url, last_resort=LEDGER
        )
    with pytest.raises(ConfigurationError, match="OPENAI_API_KEY"):
        summarizer_from_spec("openai:gpt-4o-mini", last_resort=LEDGER)
