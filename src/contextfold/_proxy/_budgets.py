"""Budgets per request: the model's context window minus the output it may write.

Rules:
1. The window comes from, in order: the request's `x-contextfold-window` header, the
   operator's per-model override (`--window MODEL=TOKENS`, exact name or a prefix ending
   in `*`), the table of known models (exact name, then the longest known prefix), and the
   operator's `--default-window`. No window at all means the request is forwarded as is.
2. The output reserve is the request's own limit (`max_completion_tokens`/`max_tokens`,
   `max_output_tokens`, Anthropic's `max_tokens`); without one, `DEFAULT_RESERVE` capped
   at an eighth of the window.
3. The budget (what the prompt may cost) is the window minus the reserve; the manager's
   high/low water marks are fractions of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

WINDOWS: Final[Mapping[str, int]] = {
    "gpt-3.5-turbo": 16_385,
    "gpt-4": 8_192,
    "gpt-4-32k": 32_768,
    "gpt-4-1106-preview": 128_000,
    "gpt-4-0125-preview": 128_000,
    "gpt-4-vision-preview": 128_000,
    "gpt-4-turbo": 128_000,
    "gpt-4o": 128_000,
    "gpt-4o-mini": 128_000,
    "gpt-4.1": 1_047_576,
    "gpt-4.1-mini": 1_047_576,
    "gpt-4.1-nano": 1_047_576,
    "gpt-4.5": 128_000,
    "gpt-5": 400_000,
    "gpt-5-mini": 400_000,
    "gpt-5-nano": 400_000,
    "gpt-5-chat": 128_000,
    "chatgpt-4o": 128_000,
    "o1": 200_000,
    "o1-mini": 128_000,
    "o1-preview": 128_000,
    "o3": 200_000,
    "o3-mini": 200_000,
    "o4-mini": 200_000,
    "claude-3": 200_000,
    "claude-3-5": 200_000,
    "claude-3-7": 200_000,
    "claude-sonnet-4": 200_000,
    "claude-opus-4": 200_000,
    "claude-haiku-4": 200_000,
    "qwen3": 32_768,
    "llama-3.1": 131_072,
    "llama-3.3": 131_072,
}
"""Context windows of known models; a dated or suffixed name matches by prefix."""

DEFAULT_RESERVE: Final = 4_096
WINDOW_HEADER: Final = "x-contextfold-window"

_OUTPUT_KEYS: Final[Mapping[str, tuple[str, ...]]] = {
    "openai-chat": ("max_completion_tokens", "max_tokens"),
    "openai-responses": ("max_output_tokens",),
    "anthropic": ("max_tokens",),
}


def _prefixed(table: Mapping[str, int], model: str) -> int | None:
    """The entry for `model` itself, else for the longest key that prefixes it."""
    if model in table:
        return table[model]
    best = max((k for k in table if model.startswith(k.rstrip("*"))), key=len, default=None)
    return None if best is None else table[best]


def window_for(
    model: str | None,
    overrides: Mapping[str, int],
    default: int | None,
    header: str | None = None,
) -> int | None:
    """The context window for `model` by rule 1 (None when nothing knows it)."""
    if header is not None and header.strip().isdigit() and int(header) > 0:
        return int(header)
    if model:
        for table in (overrides, WINDOWS):
            found = _prefixed(table, model)
            if found is not None:
                return found
    return default


def output_reserve(body: Mapping[str, object], format: str, window: int) -> int:
    """Tokens the request lets the model write (rule 2)."""
    for key in _OUTPUT_KEYS[format]:
        value = body.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return min(DEFAULT_RESERVE, window // 8)


def budget_for(body: Mapping[str, object], format: str, window: int) -> int | None:
    """The prompt's budget (rule 3), None when the reserve leaves no room at all."""
    room = window - output_reserve(body, format, window)
    return room if room > 0 else None
