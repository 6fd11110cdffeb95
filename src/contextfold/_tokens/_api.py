"""Public entry points: pick a counter for a model and count a whole payload.

Rules:
1. `counter_for(model, format)`: an OpenAI model with packaged encoding data gets the exact
   TiktokenCounter; without the tiktoken extra it falls back to the heuristic and says so in
   the counter's name. Every other model (Claude, local models) gets the heuristic with the
   format's overheads; it counts o200k exactly, so for a tokenizer it does not know it adds
   a margin (10%; 15% for cl100k models without tiktoken; Claude's profile scales by 1.25).
   Counters are cached per (model, format), so their text caches persist
   across calls.
3. A model name close to a known OpenAI model but not one of them ("gtp-4o") warns once
   (UnknownModelWarning) naming the nearest; local models keep the estimate silently.
2. `count_tokens(payload, model, format=)` parses the payload (any supported wire format,
   list or request body) and returns the conversation total, fixed overhead included.
"""

from __future__ import annotations

import warnings
from functools import lru_cache
from typing import Final

from .._adapters import check_format, parse
from .._content_cache import on_clear
from .._errors import ConfigurationError, TokenizerError, UnknownModelWarning
from ._accounting import count_conversation
from ._counters import HeuristicCounter, TiktokenCounter
from ._models import close_model, encoding_for_model, is_anthropic
from ._protocol import ConversationCounter

__all__ = ["count_tokens", "counter_for"]

UNKNOWN_MARGIN: Final = 1.1
"""Scale for models of unknown tokenizer (local models): o200k plus 10%."""
OTHER_ENCODING_MARGIN: Final = 1.15
"""Scale for cl100k models counted with o200k (up to 14% under on the corpus)."""


def counter_for(model: str | None, format: str = "openai-chat") -> ConversationCounter:
    """The best counter available offline for `model` in wire format `format`."""
    if model is not None and not isinstance(model, str):
        raise ConfigurationError(
            f"model must be a model name (a string such as 'gpt-4o') or None, got {model!r}"
        )
    return _counter_for(model, format)


@lru_cache(maxsize=64)
def _counter_for(model: str | None, format: str) -> ConversationCounter:
    fmt = check_format(format)
    encoding = encoding_for_model(model) if model else None
    if encoding is None:
        # Not an OpenAI model: o200k is a stand-in for an unknown tokenizer, so err high.
        margin = 1.0 if fmt == "anthropic" else UNKNOWN_MARGIN  # Anthropic's profile scales
        if model:
            _warn_if_typo(model, _name(margin))
        return HeuristicCounter(format=fmt, model=model, margin=margin, name=_name(margin))
    try:
        return TiktokenCounter(encoding, format=fmt, model=model)
    except TokenizerError:
        margin = 1.0 if encoding == "o200k_base" else OTHER_ENCODING_MARGIN
        name = f"{_name(margin)} (tiktoken unavailable)"
        return HeuristicCounter(format=fmt, model=model, margin=margin, name=name)


on_clear(_counter_for.cache_clear)


def _warn_if_typo(model: str, counted_with: str) -> None:
    """Rule 3: a name close to a known OpenAI model is most likely a typo of it (once per
    name: `counter_for` is cached)."""
    if is_anthropic(model):
        return
    near = close_model(model)
    if near is not None:
        warnings.warn(
            UnknownModelWarning(
                f"unknown model {model!r} (did you mean {near!r}?): counting with "
                f"{counted_with}, an estimate"
            ),
            stacklevel=3,
        )


def _name(margin: float) -> str:
    return "heuristic" if margin == 1.0 else f"heuristic x{margin:.2f}"


def count_tokens(payload: object, model: str | None = None, *, format: str | None = None) -> int:
    """Prompt tokens of `payload` (messages or a request body) for `model`."""
    fmt, conversation = parse(payload, format)
    return count_conversation(conversation, counter_for(model, fmt))
