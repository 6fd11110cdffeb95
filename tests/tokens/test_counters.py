"""The counters: names, exact tiktoken counts, a real tokenizer.json trained in the test."""

from __future__ import annotations

from pathlib import Path

import pytest

import contextfold as cf
from contextfold import Message, Text, TokenizerError

CORPUS_LINES = [
    "the quick brown fox jumps over the lazy dog",
    "context windows fill up quickly in long agent runs",
    "tool results are often the largest messages",
    "def count(text): return len(text.split())",
] * 20


@pytest.fixture(scope="module")
def tokenizer_json() -> str:
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import models, pre_tokenizers, trainers

    tokenizer = tokenizers.Tokenizer(models.BPE(unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    trainer = trainers.BpeTrainer(vocab_size=200, special_tokens=["[UNK]", "<s>"])
    tokenizer.train_from_iterator(CORPUS_LINES, trainer=trainer)
    return str(tokenizer.to_str())


def test_hf_counter_counts_like_the_tokenizer(tokenizer_json: str, tmp_path: Path) -> None:
    import tokenizers

    path = tmp_path / "tokenizer.json"
    path.write_text(tokenizer_json, encoding="utf-8")
    counter = cf.HFTokenizerCounter.from_file(path)
    reference = tokenizers.Tokenizer.from_str(tokenizer_json)
    text = "the lazy fox counts tool results"
    assert counter.name == "hf:tokenizer.json"
    assert counter.count_text(text) == len(reference.encode(text, add_special_tokens=False).ids)
    message = Message("user", (Text(text),))
    assert counter.count(message) == 3 + counter.count_text("user") + counter.count_text(text)
    assert isinstance(counter, cf.ConversationCounter)


def test_hf_counter_errors(tmp_path: Path) -> None:
    pytest.importorskip("tokenizers")
    with pytest.raises(TokenizerError, match="cannot read"):
        cf.HFTokenizerCounter.from_file(tmp_path / "missing.json")
    with pytest.raises(TokenizerError, match=r"tokenizer\.json"):
        cf.HFTokenizerCounter.from_str("{not json")


def test_tiktoken_counter_is_exact() -> None:
    counter = cf.TiktokenCounter("cl100k_base")
    assert counter.name == "tiktoken:cl100k_base"
    text = "Exactness matters: 12345 tokens, not 'about' that."
    assert counter.count_text(text) == len(counter.encoding.encode(text))
    assert counter.count_text("<|endoftext|>") == len(
        counter.encoding.encode("<|endoftext|>", disallowed_special=())
    )


def test_tiktoken_counter_accepts_an_encoding_object() -> None:
    encoding = cf.TiktokenCounter("o200k_base").encoding
    counter = cf.TiktokenCounter(encoding, format="openai-responses")
    assert counter.name == "tiktoken:o200k_base"
    assert "openai-responses" in repr(counter)


def test_unknown_format_is_a_configuration_error() -> None:
    with pytest.raises(cf.ConfigurationError):
        cf.HeuristicCounter(format="gemini")


@pytest.mark.parametrize(
    ("model", "format", "name"),
    [
        ("gpt-4o", "openai-chat", "tiktoken:o200k_base"),
        ("gpt-4o-2024-08-06", "openai-responses", "tiktoken:o200k_base"),
        ("openai/gpt-4.1-mini", "openai-chat", "tiktoken:o200k_base"),
        ("gpt-4-0613", "openai-chat", "tiktoken:cl100k_base"),
        ("claude-sonnet-4-5", "anthropic", "heuristic"),
        ("qwen3-32b", "openai-chat", "heuristic x1.10"),
        (None, "openai-chat", "heuristic x1.10"),
    ],
)
def test_counter_for(model: str | None, format: str, name: str) -> None:
    counter = cf.counter_for(model, format)
    assert counter.name == name
    assert cf.counter_for(model, format) is counter  # cached: its text cache persists


def test_unknown_tokenizers_get_a_margin_over_exact_o200k() -> None:
    text = "def fetch(url):\n    return requests.get(url, timeout=30).json()\n" * 20
    exact = cf.HeuristicCounter().count_text(text)
    assert cf.counter_for("qwen3-32b", "openai-chat").count_text(text) >= int(exact * 1.1)
    with pytest.raises(cf.ConfigurationError):
        cf.HeuristicCounter(margin=0.9)
