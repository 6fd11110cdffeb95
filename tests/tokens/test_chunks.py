"""Long texts counted in chunks: the counts (and the pieces) add up to the whole text's."""

from __future__ import annotations

import tracemalloc
from collections.abc import Iterator
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import contextfold as cf
from contextfold._tokens._chunks import CHUNK_CHARS, chunks, splits_at_cuts
from contextfold._tokens._load import CL100K_PAT, O200K_PAT
from contextfold._tokens._load import encoding as load_encoding
from tests import corpus

tiktoken = pytest.importorskip("tiktoken")
regex = pytest.importorskip("regex")  # tiktoken's own dependency: the reference engine

ENCODINGS = ("o200k_base", "cl100k_base")
PATTERNS = (regex.compile(O200K_PAT), regex.compile(CL100K_PAT))
R50K_PAT = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
"""r50k_base, p50k_base and gpt2's pattern (tiktoken_ext.openai_public)."""

parts = st.sampled_from(
    [
        *"\n\n\n\r\t  /''-#*.,:;|`_()[]{}\"!?=<>+~@$%&^\\09aZsStTdDlLrRvVmM",
        *("\r\n", "\n\n", " \n", "\n ", "\n/", "/\n", "'s", "'LL", "\t\n", "\n\t", "\x0b"),
        *("\x85", "\xa0", "\u2028", "\u3000", "\x1c", "é", "ß", "Ω", "\u0301", "²", "½"),
        *("東京", "한국어", "мир", "😀", "𝐀", "\ud800", "\udc00", "\ud83d\ude00"),
        *("word", "Word", "WORD", "123456", "  - item", "## Head", "x = 1;", "path/to/f.py"),
    ]
)
"""Newlines, CRLF, punctuation, "/", spaces, digits, unicode, surrogates, markdown lines."""
texts = st.lists(parts, max_size=80).map("".join)


def encode_len(encoding: str, text: str) -> int:
    return len(load_encoding(encoding).encode(text, disallowed_special=()))


@settings(max_examples=300)
@given(texts, st.integers(0, 12))
def test_hyp_chunked_counts_equal_whole_counts(text: str, size: int) -> None:
    pieces = list(chunks(text, size))
    assert "".join(pieces) == text
    for encoding in ENCODINGS:
        assert sum(encode_len(encoding, p) for p in pieces) == encode_len(encoding, text)


@settings(max_examples=300)
@given(texts)
def test_hyp_every_cut_is_a_piece_boundary(text: str) -> None:
    pieces = list(chunks(text, 0))  # cut at every cut
    for pattern in PATTERNS:
        assert [x for p in pieces for x in pattern.findall(p)] == pattern.findall(text)


def test_each_chunk_ends_at_a_cut() -> None:
    text = "# Title\n\n" + "- item one\n  - nested /path\n/root\n" * 200 + "1. last\n"
    pieces = list(chunks(text, 100))
    assert "".join(pieces) == text
    assert len(pieces) > 10
    for piece, following in pairwise(pieces):
        assert len(piece) > 100
        assert piece.endswith("\n")
        assert following[0] not in " \t\r\n/"
    assert list(chunks("no line breaks " * 500, 10)) == ["no line breaks " * 500]


def test_older_patterns_split_differently_at_a_cut() -> None:
    """Why r50k, p50k and gpt2 are counted whole (rule 3)."""
    pattern = regex.compile(R50K_PAT)
    text = "a \nb"
    left, right = chunks(text, 0)
    assert pattern.findall(left) + pattern.findall(right) != pattern.findall(text)


def test_only_the_proven_patterns_are_chunked() -> None:
    for name in ENCODINGS:
        assert splits_at_cuts(cf.TiktokenCounter(name).encoding)
    bytes_only = tiktoken.Encoding(
        "bytes", pat_str=R50K_PAT, mergeable_ranks={bytes([i]): i for i in range(256)},
        special_tokens={},
    )  # fmt: skip
    assert not splits_at_cuts(bytes_only)
    text = "a \nb \n" * 1000
    assert cf.TiktokenCounter(bytes_only).count_text(text) == len(bytes_only.encode(text))


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_long_text_counts_exactly_with_little_memory(encoding: str) -> None:
    line = "src/app/module.py:120: def handler(request): return process(request, retries=3)\n"
    text = line * 5000  # 415,000 characters, about 100,000 tokens
    counter = cf.TiktokenCounter(encoding)
    tracemalloc.start()
    try:
        count = counter.count_text(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert count == encode_len(encoding, text)
    assert peak < 40 * CHUNK_CHARS  # the whole text at once: about 3.6 MB


def strings(value: object) -> Iterator[str]:
    """Every string inside a JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


@pytest.mark.corpus
@pytest.mark.parametrize("encoding", ENCODINGS)
def test_corpus_texts_count_alike_in_chunks(encoding: str) -> None:
    counter = cf.TiktokenCounter(encoding)
    encode = counter.encoding.encode
    long_texts = 0
    for _, messages in corpus.conversations():
        for text in strings(messages):
            if len(text) > 64:
                whole = len(encode(text, disallowed_special=()))
                assert sum(len(encode(p, disallowed_special=())) for p in chunks(text, 0)) == whole
            long_texts += len(text) > CHUNK_CHARS
            assert counter.count_text(text) == len(encode(text, disallowed_special=()))
    assert long_texts > 100
