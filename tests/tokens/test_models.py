"""Model name -> encoding: exact table, longest prefix, unknown models."""

from __future__ import annotations

import pytest

from contextfold._tokens._models import encoding_for_model, is_anthropic


@pytest.mark.parametrize(
    ("model", "encoding"),
    [
        ("gpt-4o", "o200k_base"),
        ("gpt-4o-mini-2024-07-18", "o200k_base"),
        ("gpt-4.1-nano", "o200k_base"),
        ("gpt-5", "o200k_base"),
        ("gpt-5-mini-2025-08-07", "o200k_base"),
        ("o1", "o200k_base"),
        ("o3-mini", "o200k_base"),
        ("o4-mini-2025-04-16", "o200k_base"),
        ("chatgpt-4o-latest", "o200k_base"),
        ("ft:gpt-4o-2024-08-06:acme::abc123", "o200k_base"),
        ("gpt-4", "cl100k_base"),
        ("gpt-4-turbo-2024-04-09", "cl100k_base"),
        ("gpt-3.5-turbo-0125", "cl100k_base"),
        ("gpt-35-turbo", "cl100k_base"),
        ("text-embedding-3-small", "cl100k_base"),
        ("GPT-4o", "o200k_base"),
        ("openai/gpt-4o", "o200k_base"),
        ("claude-sonnet-4-5", None),
        ("llama-3.1-8b", None),
        ("", None),
    ],
)
def test_encoding_for_model(model: str, encoding: str | None) -> None:
    assert encoding_for_model(model) == encoding


def test_is_anthropic() -> None:
    assert is_anthropic("claude-3-5-haiku-latest")
    assert is_anthropic("anthropic/claude-opus-4-1")
    assert not is_anthropic("gpt-4o")
