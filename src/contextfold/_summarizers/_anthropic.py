"""Summaries from the Anthropic Messages API, through the `anthropic` SDK.

Rules:
1. One flow: `_flow` builds the body and parses and validates the answer; `summarize`
   and `asummarize` only send the body and read the raw bytes back.
2. The SDK is imported lazily; without it, construction raises ConfigurationError saying
   how to install it. The SDK does the retries (honouring retry-after) and the timeouts.
3. A client is opened per call and closed after it; a client passed in is the caller's
   and is never closed.
4. The key is read from ANTHROPIC_API_KEY when not given; a server at a custom base_url
   that needs no key gets a placeholder. The key is never in a repr, a message or a result.
"""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING, Any

from .._errors import ConfigurationError, SummarizerError
from ._flow import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT,
    accept,
    anthropic_body,
    check_limits,
    decode,
    describe_failure,
    import_sdk,
    parse_anthropic,
    resolve_key,
    safe_url,
    sdk_arguments,
)
from ._protocol import SummaryRequest, SummaryResult

if TYPE_CHECKING:
    from anthropic import Anthropic, AsyncAnthropic

__all__ = ["AnthropicSummarizer"]


class AnthropicSummarizer:
    """Summaries from a Claude model (or a server speaking the Anthropic Messages API)."""

    __slots__ = (
        "_async_client",
        "_base_url",
        "_client",
        "_key",
        "_max_retries",
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
        client: Anthropic | None = None,
        async_client: AsyncAnthropic | None = None,
        temperature: float | None = None,
    ) -> None:
        if not model:
            raise ConfigurationError("AnthropicSummarizer needs a model name")
        check_limits(timeout, max_retries)
        self._sdk = import_sdk("anthropic", "anthropic")
        self.model = model
        self._base_url = base_url or os.environ.get("ANTHROPIC_BASE_URL") or None
        # A custom server may need no key; clients passed in carry their own.
        custom = bool(self._base_url) or client is not None or async_client is not None
        self._key = resolve_key(api_key, "ANTHROPIC_API_KEY", required=not custom)
        self._timeout = timeout
        self._max_retries = max_retries
        self._client = client
        self._async_client = async_client
        self._temperature = temperature

    @property
    def name(self) -> str:
        """Who writes the summaries, e.g. `anthropic:claude-haiku-4-5`."""
        return f"anthropic:{self.model}"

    def __repr__(self) -> str:
        url = safe_url(self._base_url)
        return f"AnthropicSummarizer(model={self.model!r}, base_url={url!r})"

    def _arguments(self, request: SummaryRequest) -> dict[str, Any]:
        body = anthropic_body(self.model, request, temperature=self._temperature)
        return sdk_arguments(body, ("model", "max_tokens", "messages"))

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
        client: contextlib.AbstractContextManager[Any] = self._sdk.Anthropic(**self._options())
        return client

    def _aopen(self) -> contextlib.AbstractAsyncContextManager[Any]:
        if self._async_client is not None:
            return contextlib.nullcontext(self._async_client)
        client: contextlib.AbstractAsyncContextManager[Any] = self._sdk.AsyncAnthropic(
            **self._options()
        )
        return client

    def summarize(self, request: SummaryRequest) -> SummaryResult:
        """Ask the model for the summary of `request`."""
        arguments = self._arguments(request)
        try:
            with self._open() as client:
                raw = client.messages.with_raw_response.create(**arguments)
                content: bytes = raw.http_response.content
        except Exception as exc:  # any SDK failure becomes a sanitized SummarizerError
            failure = self._failure(exc)
        else:
            data = decode(content, self.name)
            return accept(self.name, request, parse_anthropic(data, self.name))
        raise failure

    async def asummarize(self, request: SummaryRequest) -> SummaryResult:
        """Awaitable form of `summarize`, through the SDK's async client."""
        arguments = self._arguments(request)
        try:
            async with self._aopen() as client:
                raw = await client.messages.with_raw_response.create(**arguments)
                content: bytes = raw.http_response.content
        except Exception as exc:  # any SDK failure becomes a sanitized SummarizerError
            failure = self._failure(exc)
        else:
            data = decode(content, self.name)
            return accept(self.name, request, parse_anthropic(data, self.name))
        raise failure
