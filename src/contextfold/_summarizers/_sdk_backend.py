"""What the SDK backends share: connection settings, a client per call, one send.

Rules:
1. One flow: `_flow` builds the body and parses and validates the answer; `summarize`
   and `asummarize` only send the body and read the raw bytes back.
2. The SDK is imported lazily; without it, construction raises ConfigurationError saying
   how to install it. The SDK does the retries (honouring retry-after) and the timeouts.
3. A client is opened per call and closed after it (compaction is rare, so pooling gains
   nothing), which keeps the summarizer free of lifecycle and of event-loop binding.
   A client passed in is used as is and never closed: it belongs to the caller.
4. The key is read from the provider's environment variable when not given; a server at
   a custom base_url that needs no key gets a placeholder. The key is never in a repr, a
   message or a result.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any, ClassVar

from .._errors import ConfigurationError, SummarizerError
from ._flow import (
    Answer,
    accept,
    check_limits,
    decode,
    describe_failure,
    import_sdk,
    resolve_key,
    safe_url,
)
from ._protocol import SummaryRequest, SummaryResult


class SdkBackend:
    """A summarizer that sends one request through a provider's official SDK."""

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

    _PROVIDER: ClassVar[str]
    """The SDK module and extra, and the prefix of `name`: `openai`, `anthropic`."""
    _ENV: ClassVar[str]
    """The environment variables' prefix: `OPENAI`, `ANTHROPIC`."""
    _CLIENTS: ClassVar[tuple[str, str]]
    """The SDK's sync and async client classes."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None,
        api_key: str | None,
        timeout: float,
        max_retries: int,
        client: Any,
        async_client: Any,
        temperature: float | None,
    ) -> None:
        if not model:
            raise ConfigurationError(f"{type(self).__name__} needs a model name")
        check_limits(timeout, max_retries)
        self._sdk = import_sdk(self._PROVIDER, self._PROVIDER)
        self.model = model
        self._base_url = base_url or os.environ.get(f"{self._ENV}_BASE_URL") or None
        # A custom server may need no key; clients passed in carry their own.
        custom = bool(self._base_url) or client is not None or async_client is not None
        self._key = resolve_key(api_key, f"{self._ENV}_API_KEY", required=not custom)
        self._timeout = timeout
        self._max_retries = max_retries
        self._client = client
        self._async_client = async_client
        self._temperature = temperature

    @property
    def name(self) -> str:
        """Who writes the summaries, e.g. `openai:qwen3-32b`."""
        return f"{self._PROVIDER}:{self.model}"

    def __repr__(self) -> str:
        url = safe_url(self._base_url)
        return f"{type(self).__name__}(model={self.model!r}, base_url={url!r})"

    def _arguments(self, request: SummaryRequest) -> dict[str, Any]:
        """The SDK's keyword arguments for `request`."""
        raise NotImplementedError

    def _endpoint(self, client: Any) -> Any:
        """The client's resource whose `with_raw_response.create` sends the request."""
        raise NotImplementedError

    def _parse(self, data: object) -> Answer:
        """The answer in the decoded response."""
        raise NotImplementedError

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
        client: contextlib.AbstractContextManager[Any] = getattr(self._sdk, self._CLIENTS[0])(
            **self._options()
        )
        return client

    def _aopen(self) -> contextlib.AbstractAsyncContextManager[Any]:
        if self._async_client is not None:
            return contextlib.nullcontext(self._async_client)
        client: contextlib.AbstractAsyncContextManager[Any] = getattr(self._sdk, self._CLIENTS[1])(
            **self._options()
        )
        return client

    def _accept(self, request: SummaryRequest, content: bytes) -> SummaryResult:
        return accept(self.name, request, self._parse(decode(content, self.name)))

    def summarize(self, request: SummaryRequest) -> SummaryResult:
        """Ask the model for the summary of `request`."""
        arguments = self._arguments(request)
        try:
            with self._open() as client:
                raw = self._endpoint(client).with_raw_response.create(**arguments)
                content: bytes = raw.http_response.content
        except Exception as exc:  # any SDK failure becomes a sanitized SummarizerError
            failure = self._failure(exc)
        else:
            return self._accept(request, content)
        raise failure

    async def asummarize(self, request: SummaryRequest) -> SummaryResult:
        """Awaitable form of `summarize`, through the SDK's async client."""
        arguments = self._arguments(request)
        try:
            async with self._aopen() as client:
                raw = await self._endpoint(client).with_raw_response.create(**arguments)
                content: bytes = raw.http_response.content
        except Exception as exc:  # any SDK failure becomes a sanitized SummarizerError
            failure = self._failure(exc)
        else:
            return self._accept(request, content)
        raise failure
