"""Which tokenizer a model name uses: two plain tables and a prefix fallback.

Rules:
1. An exact entry in MODEL_TO_ENCODING wins; otherwise the longest matching prefix in
   MODEL_PREFIX_TO_ENCODING (as `tiktoken/model.py` does, so dated snapshots such as
   `gpt-4o-2024-08-06` need no new entry).
2. Only encodings whose data ships with contextfold are listed (o200k_base, cl100k_base).
   An unknown model gets None, and the caller falls back to the heuristic.
3. `is_anthropic` recognises Claude models, which have no public tokenizer.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Final

__all__ = [
    "MODEL_PREFIX_TO_ENCODING",
    "MODEL_TO_ENCODING",
    "close_model",
    "encoding_for_model",
    "is_anthropic",
]

MODEL_TO_ENCODING: Final[Mapping[str, str]] = {
    # reasoning
    "o1": "o200k_base",
    "o3": "o200k_base",
    "o4-mini": "o200k_base",
    # chat
    "gpt-5": "o200k_base",
    "gpt-4.1": "o200k_base",
    "gpt-4.5": "o200k_base",
    "gpt-4o": "o200k_base",
    "chatgpt-4o-latest": "o200k_base",
    "gpt-4": "cl100k_base",
    "gpt-3.5-turbo": "cl100k_base",
    "gpt-3.5": "cl100k_base",
    "gpt-35-turbo": "cl100k_base",
    # base and embeddings
    "davinci-002": "cl100k_base",
    "babbage-002": "cl100k_base",
    "text-embedding-ada-002": "cl100k_base",
    "text-embedding-3-small": "cl100k_base",
    "text-embedding-3-large": "cl100k_base",
}

MODEL_PREFIX_TO_ENCODING: Final[Mapping[str, str]] = {
    "o1-": "o200k_base",
    "o3-": "o200k_base",
    "o4-mini-": "o200k_base",
    "gpt-5": "o200k_base",
    "gpt-4.5-": "o200k_base",
    "gpt-4.1-": "o200k_base",
    "chatgpt-4o-": "o200k_base",
    "gpt-4o-": "o200k_base",
    "gpt-4-": "cl100k_base",
    "gpt-3.5-turbo-": "cl100k_base",
    "gpt-35-turbo-": "cl100k_base",
    "ft:gpt-4o": "o200k_base",
    "ft:gpt-4.1": "o200k_base",
    "ft:gpt-4": "cl100k_base",
    "ft:gpt-3.5-turbo": "cl100k_base",
    "ft:davinci-002": "cl100k_base",
    "ft:babbage-002": "cl100k_base",
}

_PREFIXES_LONGEST_FIRST: Final = sorted(MODEL_PREFIX_TO_ENCODING, key=len, reverse=True)


def encoding_for_model(model: str) -> str | None:
    """The tiktoken encoding name for `model`, or None when it is not an OpenAI model we know."""
    name = _strip_provider(model)
    found = MODEL_TO_ENCODING.get(name)
    if found is not None:
        return found
    for prefix in _PREFIXES_LONGEST_FIRST:
        if name.startswith(prefix):
            return MODEL_PREFIX_TO_ENCODING[prefix]
    return None


def close_model(model: str) -> str | None:
    """The known OpenAI model `model` is a likely typo of, or None."""
    name = _strip_provider(model)
    found = difflib.get_close_matches(name, list(MODEL_TO_ENCODING), n=1, cutoff=0.8)
    return found[0] if found else None


def is_anthropic(model: str) -> bool:
    """Whether `model` names a Claude model."""
    return _strip_provider(model).startswith("claude")


def _strip_provider(model: str) -> str:
    """`openai/gpt-4o` and `anthropic/claude-...` (router style) name the same models."""
    return model.strip().lower().rpartition("/")[2]
