"""OpenAISummarizer through the real `openai` SDK against a real local HTTP server."""

from __future__ import annotations

import asyncio
import sys
import time
from typing import Any

import pytest

from contextfold import ConfigurationError, OpenAISummarizer, SummarizerError

from .llm_server import OPENAI_PATH, TIMEOUT, Fault, LLMServer, summary_text, timeout_for
from .samples import request

KEY = "sk-test-openai-0123456789"
MODEL = "qwen3-32b"

FAULT_MESSAGES: dict[Fault, str] = {
    "500": "request failed: HTTP 500",
    "429": r"request failed: rate limited \(HTTP 429\)",
    "401": "request failed: HTTP 401",
    "hang": "request failed: timed out",
    "malformed": "not valid JSON",
    "empty": "answer is empty",
    "garbled": "garbled",
    "cut_off": "cut off",
}


def summarizer(server: LLMServer, **options: Any) -> OpenAISummarizer:
    """A summarizer for `server` with short timeouts and no retries unless told."""
    settings: dict[str, Any] = {"api_key": KEY, "timeout": TIMEOUT, "max_retries": 0, **options}
    return OpenAISummarizer(MODEL, base_url=server.openai_url, **settings)


def test_summarize_sends_the_prompt_and_returns_text_and_usage(llm_server: LLMServer) -> None:
    result = summarizer(llm_server).summarize(request())
    (seen,) = llm_server.requests
    assert seen.path == OPENAI_PATH
    assert seen.headers["authorization"] == f"Bearer {KEY}"
    messages = seen.body["messages"]
    assert isinstance(messages, list)
    assert [m["role"] for m in messages] == ["system", "user"]
    assert seen.body["max_tokens"] == 512
    assert result.text == summary_text(MODEL, seen.body)
    assert result.summarizer == f"openai:{MODEL}"
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
    assert str(info.value).startswith(f"openai:{MODEL}: ")
    assert info.value.__context__ is None
    assert info.value.__cause__ is None


@pytest.mark.parametrize("fault", ["500", "hang", "garbled"])
def test_async_faults_are_summarizer_errors_too(llm_server: LLMServer, fault: Fault) -> None:
    llm_server.script(MODEL, fault)
    with pytest.raises(SummarizerError, match=FAULT_MESSAGES[fault]):
        asyncio.run(summarizer(llm_server, timeout=timeout_for(fault)).asummarize(request()))


def test_rate_limit_is_retried_after_the_servers_retry_after(llm_server: LLMServer) -> None:
    llm_server.retry_after = "0.6"  # above the SDK's own first backoff, so it shows
    llm_server.script(MODEL, "429")
    started = time.monotonic()
    result = summarizer(llm_server, max_retries=1).summarize(request())
    assert time.monotonic() - started >= 0.6
    assert llm_server.count(MODEL) == 2
    assert result.text.startswith("## Task and goals")


def test_server_specific_fields_and_the_bound_field_reach_the_server(
    llm_server: LLMServer,
) -> None:
    extra = {"chat_template_kwargs": {"enable_thinking": False}}
    chosen = summarizer(llm_server, extra_body=extra, max_tokens_field="max_completion_tokens")
    chosen.summarize(request(max_tokens=300))
    (seen,) = llm_server.requests
    assert seen.body["chat_template_kwargs"] == {"enable_thinking": False}
    assert seen.body["max_completion_tokens"] == 300
    assert "max_tokens" not in seen.body


def test_a_local_server_needs_no_key(llm_server: LLMServer) -> None:
    OpenAISummarizer(MODEL, base_url=llm_server.openai_url, timeout=TIMEOUT).summarize(request())
    assert llm_server.requests[0].headers["authorization"] == "Bearer sk-no-key-required"


def test_key_and_base_url_come_from_the_environment(
    llm_server: LLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", llm_server.openai_url)
    OpenAISummarizer(MODEL, timeout=TIMEOUT).summarize(request())
    assert llm_server.requests[0].headers["authorization"] == f"Bearer {KEY}"


def test_openai_itself_without_a_key_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="set OPENAI_API_KEY or pass api_key="):
        OpenAISummarizer("gpt-4o-mini")
    with pytest.raises(ConfigurationError, match="model name"):
        OpenAISummarizer("", api_key=KEY)


def test_missing_sdk_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "openai", None)
    with pytest.raises(ConfigurationError, match=r"pip install 'contextfold\[openai\]'"):
        OpenAISummarizer(MODEL, api_key=KEY)


def test_a_client_passed_in_is_used_and_left_open(llm_server: LLMServer) -> None:
    import openai

    with openai.OpenAI(api_key=KEY, base_url=llm_server.openai_url, max_retries=0) as client:
        OpenAISummarizer(MODEL, client=client).summarize(request())
        assert not client.is_closed()
    assert llm_server.count(MODEL) == 1


def test_an_async_client_passed_in_is_used_and_left_open(llm_server: LLMServer) -> None:
    import openai

    async def run() -> bool:
        async with openai.AsyncOpenAI(api_key=KEY, base_url=llm_server.openai_url) as client:
            await OpenAISummarizer(MODEL, async_client=client).asummarize(request())
            return client.is_closed()

    assert asyncio.run(run()) is False
    assert llm_server.count(MODEL) == 1


def test_server_answers_parse_through_the_sdk_strict_models(llm_server: LLMServer) -> None:
    import openai

    with openai.OpenAI(
        api_key=KEY, base_url=llm_server.openai_url, _strict_response_validation=True
    ) as client:
        completion = client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": "hi"}], max_tokens=64
        )
    assert completion.choices[0].message.content is not None
    assert completion.choices[0].finish_reason == "stop"
    assert completion.usage is not None
    assert completion.usage.prompt_tokens > 0


def test_repr_names_model_and_server_only() -> None:
    chosen = OpenAISummarizer(MODEL, base_url="http://u:p@127.0.0.1:9/v1?k=1", api_key=KEY)
    assert repr(chosen) == f"OpenAISummarizer(model='{MODEL}', base_url='http://127.0.0.1:9/v1')"
