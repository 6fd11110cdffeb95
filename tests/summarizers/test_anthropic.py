"""AnthropicSummarizer through the real `anthropic` SDK against a real local HTTP server."""

from __future__ import annotations

import asyncio
import sys
import time
from typing import Any

import pytest

from contextfold import AnthropicSummarizer, ConfigurationError, SummarizerError

from .llm_server import (
    ANTHROPIC_PATH,
    TIMEOUT,
    Fault,
    LLMServer,
    sent_key,
    summary_text,
    timeout_for,
)
from .samples import request
from .test_openai import FAULT_MESSAGES

KEY = "sk-ant-test-0123456789"
MODEL = "claude-haiku-4-5"


def summarizer(server: LLMServer, **options: Any) -> AnthropicSummarizer:
    """A summarizer for `server` with short timeouts and no retries unless told."""
    settings: dict[str, Any] = {"api_key": KEY, "timeout": TIMEOUT, "max_retries": 0, **options}
    return AnthropicSummarizer(MODEL, base_url=server.url, **settings)


def test_summarize_sends_the_prompt_and_returns_text_and_usage(llm_server: LLMServer) -> None:
    result = summarizer(llm_server, temperature=0.0).summarize(request(max_tokens=700))
    (seen,) = llm_server.requests
    assert seen.path == ANTHROPIC_PATH
    assert sent_key(seen.headers) == KEY
    assert "anthropic-version" in seen.headers
    assert isinstance(seen.body["system"], str)
    assert seen.body["max_tokens"] == 700
    assert seen.body["temperature"] == 0.0
    assert result.text == summary_text(MODEL, seen.body)
    assert result.summarizer == f"anthropic:{MODEL}"
    assert result.input_tokens > 0
    assert result.output_tokens == len(result.text) // 4
    assert not result.cached


def test_asummarize_goes_through_the_async_client(llm_server: LLMServer) -> None:
    result = asyncio.run(summarizer(llm_server).asummarize(request()))
    (seen,) = llm_server.requests
    assert seen.headers["x-stainless-async"].startswith("async")
    assert result.text == summary_text(MODEL, seen.body)


@pytest.mark.parametrize("fault", sorted(FAULT_MESSAGES))
def test_each_fault_is_a_sanitized_summarizer_error(llm_server: LLMServer, fault: Fault) -> None:
    llm_server.script(MODEL, fault)
    started = time.monotonic()
    with pytest.raises(SummarizerError, match=FAULT_MESSAGES[fault]) as info:
        summarizer(llm_server, timeout=timeout_for(fault)).summarize(request())
    assert time.monotonic() - started < llm_server.hang_seconds / 2
    assert str(info.value).startswith(f"anthropic:{MODEL}: ")
    assert info.value.__context__ is None


@pytest.mark.parametrize("fault", ["429", "hang", "empty"])
def test_async_faults_are_summarizer_errors_too(llm_server: LLMServer, fault: Fault) -> None:
    llm_server.script(MODEL, fault)
    with pytest.raises(SummarizerError, match=FAULT_MESSAGES[fault]):
        asyncio.run(summarizer(llm_server, timeout=timeout_for(fault)).asummarize(request()))


def test_rate_limit_is_retried_after_the_servers_retry_after(llm_server: LLMServer) -> None:
    llm_server.retry_after = "0.6"  # above the SDK's own first backoff, so it shows
    llm_server.script(MODEL, "429")
    started = time.monotonic()
    summarizer(llm_server, max_retries=1).summarize(request())
    assert time.monotonic() - started >= 0.6
    assert llm_server.count(MODEL) == 2


def test_key_comes_from_the_environment(
    llm_server: LLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    AnthropicSummarizer(MODEL, base_url=llm_server.url, timeout=TIMEOUT).summarize(request())
    assert sent_key(llm_server.requests[0].headers) == KEY


def test_anthropic_itself_without_a_key_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="set ANTHROPIC_API_KEY or pass api_key="):
        AnthropicSummarizer(MODEL)
    with pytest.raises(ConfigurationError, match="model name"):
        AnthropicSummarizer("", api_key=KEY)


def test_missing_sdk_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "anthropic", None)
    with pytest.raises(ConfigurationError, match=r"pip install 'contextfold\[anthropic\]'"):
        AnthropicSummarizer(MODEL, api_key=KEY)


def test_clients_passed_in_are_used_and_left_open(llm_server: LLMServer) -> None:
    import anthropic

    with anthropic.Anthropic(api_key=KEY, base_url=llm_server.url) as client:
        AnthropicSummarizer(MODEL, client=client).summarize(request())
        assert not client.is_closed()

    async def run() -> bool:
        async with anthropic.AsyncAnthropic(api_key=KEY, base_url=llm_server.url) as client:
            await AnthropicSummarizer(MODEL, async_client=client).asummarize(request())
            return client.is_closed()

    assert asyncio.run(run()) is False
    assert llm_server.count(MODEL) == 2


def test_server_answers_parse_through_the_sdk_strict_models(llm_server: LLMServer) -> None:
    import anthropic

    with anthropic.Anthropic(
        api_key=KEY, base_url=llm_server.url, _strict_response_validation=True
    ) as client:
        message = client.messages.create(
            model=MODEL, max_tokens=64, messages=[{"role": "user", "content": "hi"}]
        )
    assert message.content[0].type == "text"
    assert message.stop_reason == "end_turn"
    assert message.usage.input_tokens > 0


def test_repr_names_model_and_server_only() -> None:
    chosen = AnthropicSummarizer(MODEL, base_url="https://proxy.example/a?token=x", api_key=KEY)
    assert repr(chosen) == (
        f"AnthropicSummarizer(model='{MODEL}', base_url='https://proxy.example/a')"
    )
