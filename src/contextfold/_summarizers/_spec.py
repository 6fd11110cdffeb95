"""Build a summarizer from spec strings, as the CLI and config files name them.

Rules:
1. A spec is `BACKEND:MODEL` or `BACKEND:MODEL@BASE_URL`, BACKEND being `openai` (any
   OpenAI-compatible server) or `anthropic`. The model keeps any colons of its own
   (`openai:qwen3:32b@http://localhost:11434/v1` is Ollama's `qwen3:32b`).
2. The result is always a FallbackSummarizer: the primary, then each fallback, then the
   last resort, which the caller provides (the engine passes its embedded ledger).
3. With a cache path, each model backend is wrapped in a CachedSummarizer sharing one
   SummaryCache; the last resort is not cached.
4. Error messages never repeat the spec itself: a base URL can carry credentials.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Final, Literal, TypeAlias, assert_never

from .._errors import ConfigurationError
from ._anthropic import AnthropicSummarizer
from ._cache import CachedSummarizer, NamedSummarizer, SummaryCache
from ._fallback import FallbackSummarizer
from ._flow import DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT
from ._ledger import LedgerSummarizer
from ._openai import OpenAISummarizer
from ._protocol import Summarizer

__all__ = ["BackendSpec", "parse_spec", "summarizer_from_spec"]

Backend: TypeAlias = Literal["openai", "anthropic"]
BACKENDS: Final[tuple[Backend, ...]] = ("openai", "anthropic")
_SHAPE: Final = "expected BACKEND:MODEL or BACKEND:MODEL@BASE_URL, e.g. 'openai:gpt-4o-mini'"


@dataclass(frozen=True, slots=True)
class BackendSpec:
    """One model backend named by a spec string."""

    backend: Backend
    model: str
    base_url: str | None = None


def parse_spec(spec: str) -> BackendSpec:
    """The backend, model and base URL named by `spec`."""
    backend, colon, rest = spec.strip().partition(":")
    if not colon:
        raise ConfigurationError(f"a summarizer spec needs a backend and a model: {_SHAPE}")
    model, base_url = rest, None
    for scheme in ("@http://", "@https://"):
        at = rest.find(scheme)
        if at >= 0:
            model, base_url = rest[:at], rest[at + 1 :]
            break
    if not model:
        raise ConfigurationError(f"a summarizer spec needs a model: {_SHAPE}")
    for known in BACKENDS:
        if backend == known:
            return BackendSpec(known, model, base_url)
    raise ConfigurationError(
        f"unknown summarizer backend {backend[:20]!r}: use one of {', '.join(BACKENDS)}"
    )


def _build(spec: BackendSpec, timeout: float, max_retries: int) -> NamedSummarizer:
    match spec.backend:
        case "openai":
            return OpenAISummarizer(
                spec.model, base_url=spec.base_url, timeout=timeout, max_retries=max_retries
            )
        case "anthropic":
            return AnthropicSummarizer(
                spec.model, base_url=spec.base_url, timeout=timeout, max_retries=max_retries
            )
        case _:
            assert_never(spec.backend)


def summarizer_from_spec(
    spec: str,
    *,
    last_resort: Summarizer | None = None,
    base_url: str | None = None,
    fallback: Sequence[str] = (),
    cache_path: str | os.PathLike[str] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    max_retries: int = DEFAULT_MAX_RETRIES,
    failure_threshold: int = 3,
    cooldown: float = 60.0,
) -> FallbackSummarizer:
    """The summarizer named by `spec`, falling back through `fallback`, then `last_resort`
    (the embedded ledger unless given).

    `base_url` applies to the primary only; a fallback names its own with `@BASE_URL`.
    """
    if isinstance(fallback, str):
        raise ConfigurationError("fallback is a list of specs, not a single string")
    primary = parse_spec(spec)
    if base_url is not None:
        if primary.base_url is not None:
            raise ConfigurationError("the base URL is given twice: in the spec and base_url=")
        primary = replace(primary, base_url=base_url)
    backends = [_build(s, timeout, max_retries) for s in (primary, *map(parse_spec, fallback))]
    chain: list[Summarizer] = list(backends)
    if cache_path is not None:
        cache = SummaryCache(cache_path)
        chain = [CachedSummarizer(b, cache) for b in backends]
    return FallbackSummarizer(
        chain,
        last_resort=last_resort if last_resort is not None else LedgerSummarizer(),
        failure_threshold=failure_threshold,
        cooldown=cooldown,
    )
