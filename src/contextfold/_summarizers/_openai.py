"""Summaries from an OpenAI-compatible chat completions endpoint, through the `openai` SDK.

Rules:
1. One flow: `_flow` builds the body and parses and validates the answer; `summarize`
   and `asummarize` only send the body and read the raw bytes back.
2. The SDK is imported lazily; without it, construction raises ConfigurationError saying
   how to install it. The SDK does the retries (honouring retry-after) and the timeouts.
3. A client is opened per call and closed after it (compaction is rare, so pooling gains
   nothing), which keeps the summarizer free of lifecycle and of event-loop binding.
   A client passed in is used as is and never closed: it belongs to the caller.
4. The key is read from OPENAI_API_KEY when not given; a server at a custom base_url that
   needs no key gets a placeholder. The key is never in a repr, a message or a result.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._errors import ConfigurationError, SummarizerError
from ._flow import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT,
    MaxTokensField,
    accept,
    check_limits,
    decode,
    describe_failure,
    import_sdk,
    openai_body,
    parse_openai,
    resolve_key,
    safe_url,
    sdk_arguments,
)
from ._protocol import SummaryRequest, SummaryResult

if TYPE_CHECKING:
    from openai import AsyncOpenAI, OpenAI

__all__ = ["OpenAISummarizer"]


class OpenAISummarizer:
    """Summaries from OpenAI or any OpenAI-compatible server (vLLM, llama.cpp, Ollama).

    For Qwen3-style models that think before answering, turn thinking off on the server
    (e.g. `extra_body={"chat_template_kwargs": {"enable_thinking": False}}`), or the
    thinking spends the max-tokens bound; `<think>` blocks are stripped from answers.
    """

    __slots__ = (
        "_async_client",
        "_base_url",
        "_client",
        "_extra_body",
        "_key",
        "_max_retries",
        "_max_tokens_field",
        "_sdk",
        "_temperature",
        "_timeout",
        "model",
    )

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        client: OpenAI | None = None,
        async_client: AsyncOpenAI | None = None,
        max_tokens_field: MaxTokensField | None = None,
        temperature: float | None = None,
        extra_body: Mapping[str, object] | None = None,
    ) -> None:
        if not model:
            raise ConfigurationError("OpenAISummarizer needs a model name")
        check_limits(timeout, max_retries)
        self._sdk = import_sdk("openai", "openai")
        self.model = model
        self._base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
        # A custom server may need no key; clients passed in carry their own.
        custom = bool(self._base_url) or client is not None or async_client is not None
        self._key = resolve_key(api_key, "OPENAI_API_KEY", required=not custom)
        self._timeout = timeout
        self._max_retries = max_retries
        self._client = client
        self._async_client = async_client
        # OpenAI itself wants max_completion_tokens (reasoning models reject max_tokens);
        # compatible servers understand max_tokens.
        default_field: MaxTokensField = "max_tokens" if self._base_url else "max_completion_tokens"
        self._max_tokens_field = max_tokens_field or default_field
        self._temperature = temperature
        self._extra_body = dict(extra_body) if extra_body else None

    @property
    def name(self) -> str:
        """Who writes the summaries, e.g. `openai:qwen3-32b`."""
        return f"openai:{self.model}"

    def __repr__(self) -> str:
        return f"OpenAISummarizer(model={self.model!r}, base_url={safe_url(self._base_url)!r})"

    def _arguments(self, request: SummaryRequest) -> dict[str, Any]:
        body = openai_body(
            self.model,
            request,
            max_tokens_field=self._max_tokens_field,
            temperature=self._temperature,
        )
        body.update(self._extra_body or {})
        return sdk_arguments(body, ("model", "messages"))

    def _options(self) -> dict[str, Any]:
        return {
            "api_key": self._key.value,
            "base_url": self._base_url,
            "timeout": self._timeout,
            "max_retries": self._max_retries,
        }

    def _failure(self, exc: Exception) -> SummarizerError:
        reason = describe_failure(
            exc, timeout=self._sdk.APITimeoutError, connection=self._sdk.APIConnectionError
        )
        return SummarizerError(f"{self.name}: request failed: {reason}")

    def _open(self) -> contextlib.AbstractContextManager[Any]:
        if self._client is not None:
            return contextlib.nullcontext(self._client)
        client: contextlib.AbstractContextManager[Any] = self._sdk.OpenAI(**self._options())
        return client

    def _aopen(self) -> contextlib.AbstractAsyncContextManager[Any]:
        if self._async_client is not None:
            return contextlib.nullcontext(self._async_client)
        client: contextlib.AbstractAsyncContextManager[Any] = self._sdk.AsyncOpenAI(
            **self._options()
        )
        return client

    def summarize(self, request: SummaryRequest) -> SummaryResult:
        """Ask the model for the summary of `request`."""
        arguments = self._arguments(request)
        try:
            with self._open() as client:
                raw = client.chat.completions.with_raw_response.create(**arguments)
                content: bytes = raw.http_response.content
        except Exception as exc:  # any SDK failure becomes a sanitized SummarizerError
            failure = self._failure(exc)
        else:
            return accept(self.name, request, parse_openai(decode(content, self.name), self.name))
        raise failure

    async def asummarize(self, request: SummaryRequest) -> SummaryResult:
        """Awaitable form of `summarize`, through the SDK's async client."""
        arguments = self._arguments(request)
        try:
            async with self._aopen() as client:
                raw = await client.chat.completions.with_raw_response.create(**arguments)
                content: bytes = raw.http_response.content
        except Exception as exc:  # any SDK failure becomes a sanitized SummarizerError
            failure = self._failure(exc)
        else:
            return accept(self.name, request, parse_openai(decode(content, self.name), self.name))
        raise failure
