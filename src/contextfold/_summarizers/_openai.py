"""Summaries from an OpenAI-compatible chat completions endpoint, through the `openai` SDK.

Rules:
1. What every SDK backend does (lazy import, a client per call, the key from
   OPENAI_API_KEY, sanitized failures) is `_sdk_backend`'s.
2. The body is a chat completions request, with `max_completion_tokens` for OpenAI itself
   and `max_tokens` for compatible servers; `<think>` blocks are stripped from answers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ._flow import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT,
    Answer,
    MaxTokensField,
    openai_body,
    parse_openai,
    sdk_arguments,
)
from ._protocol import SummaryRequest
from ._sdk_backend import SdkBackend

if TYPE_CHECKING:
    from openai import AsyncOpenAI, OpenAI

__all__ = ["OpenAISummarizer"]


class OpenAISummarizer(SdkBackend):
    """Summaries from OpenAI or any OpenAI-compatible server (vLLM, llama.cpp, Ollama).

    For Qwen3-style models that think before answering, turn thinking off on the server
    (e.g. `extra_body={"chat_template_kwargs": {"enable_thinking": False}}`), or the
    thinking spends the max-tokens bound; `<think>` blocks are stripped from answers.
    """

    __slots__ = ("_extra_body", "_max_tokens_field")
    _PROVIDER = "openai"
    _ENV = "OPENAI"
    _CLIENTS = ("OpenAI", "AsyncOpenAI")

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
        # OpenAI itself wants max_completion_tokens (reasoning models reject max_tokens);
        # compatible servers understand max_tokens.
        default_field: MaxTokensField = "max_tokens" if self._base_url else "max_completion_tokens"
        self._max_tokens_field = max_tokens_field or default_field
        self._extra_body = dict(extra_body) if extra_body else None

    def _arguments(self, request: SummaryRequest) -> dict[str, Any]:
        body = openai_body(
            self.model,
            request,
            max_tokens_field=self._max_tokens_field,
            temperature=self._temperature,
        )
        body.update(self._extra_body or {})
        return sdk_arguments(body, ("model", "messages"))

    def _endpoint(self, client: Any) -> Any:
        return client.chat.completions

    def _parse(self, data: object) -> Answer:
        return parse_openai(data, self.name)
