"""Summaries from the Anthropic Messages API, through the `anthropic` SDK.

Rules:
1. What every SDK backend does (lazy import, a client per call, the key from
   ANTHROPIC_API_KEY, sanitized failures) is `_sdk_backend`'s.
2. The body is a Messages request; the answer's text blocks are the summary, and cache
   reads and writes count as input.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._flow import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT,
    Answer,
    anthropic_body,
    parse_anthropic,
    sdk_arguments,
)
from ._protocol import SummaryRequest
from ._sdk_backend import SdkBackend

if TYPE_CHECKING:
    from anthropic import Anthropic, AsyncAnthropic

__all__ = ["AnthropicSummarizer"]


class AnthropicSummarizer(SdkBackend):
    """Summaries from a Claude model (or a server speaking the Anthropic Messages API)."""

    __slots__ = ()
    _PROVIDER = "anthropic"
    _ENV = "ANTHROPIC"
    _CLIENTS = ("Anthropic", "AsyncAnthropic")

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
        super().__init__(
            model,
            base_url=base_url,
            api_key=api_key,
            timeout=timeout,
            max_retries=max_retries,
            client=client,
            async_client=async_client,
            temperature=temperature,
        )

    def _arguments(self, request: SummaryRequest) -> dict[str, Any]:
        body = anthropic_body(self.model, request, temperature=self._temperature)
        return sdk_arguments(body, ("model", "max_tokens", "messages"))

    def _endpoint(self, client: Any) -> Any:
        return client.messages

    def _parse(self, data: object) -> Answer:
        return parse_anthropic(data, self.name)
