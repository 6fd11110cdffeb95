"""Public entry points: pick a counter for a model and count a whole payload.

Rules:
1. `counter_for(model, format)`: an OpenAI model with packaged encoding data gets the exact
   TiktokenCounter; without the tiktoken extra it falls back to the heuristic and says so in
   the counter's name. Every other model (Claude, local models) gets the heuristic with the
   format's overheads. Counters are cached per (model, format), so their text caches persist
   across calls.
2. `count_tokens(payload, model, format=)` parses the payload (any supported wire format,
   list or request body) and returns the conversation total, fixed overhead included.
"""

from __future__ import annotations

from functools import lru_cache

from .._adapters import check_format, parse
from .._errors import TokenizerError
from ._accounting import count_conversation
from ._counters import HeuristicCounter, TiktokenCounter
from ._models import encoding_for_model
from ._protocol import ConversationCounter

__all__ = ["count_tokens", "counter_for"]


@lru_cache(maxsize=64)
def counter_for(model: str | None, format: str = "openai-chat") -> ConversationCounter:
    """The best counter available offline for `model` in wire format `format`."""
    fmt = check_format(format)
    encoding = encoding_for_model(model) if model else None
    if encoding is None:
        return HeuristicCounter(format=fmt, model=model)
    try:
        return TiktokenCounter(encoding, format=fmt, model=model)
    except TokenizerError:
        return HeuristicCounter(format=fmt, model=model, name="heuristic (tiktoken unavailable)")


def count_tokens(payload: object, model: str | None = None, *, format: str | None = None) -> int:
    """Prompt tokens of `payload` (messages or a request body) for `model`."""
    fmt, conversation = parse(payload, format)
    return count_conversation(conversation, counter_for(model, fmt))
