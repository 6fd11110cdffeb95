"""Pure-Python byte-pair merges: tiktoken's counts, fast on long runs, a bounded cache."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import contextfold as cf
from contextfold._tokens import _bpe
from contextfold._tokens._bpe import PieceCounts, merged_length, o200k_ranks

pytest.importorskip("tiktoken")

ENCODING = cf.TiktokenCounter("o200k_base").encoding
RANKS = o200k_ranks()


def exact(data: bytes) -> int:
    """tiktoken's merge of one piece, with no pre-tokenizer split."""
    return len(ENCODING._encode_single_piece(data))


def test_the_vocabulary_is_o200k() -> None:
    assert len(RANKS) == 199_998
    for token in (b"hello", b" world", b"\n\n", "東京".encode()):
        assert RANKS[token] == ENCODING.encode_single_token(token)
    assert o200k_ranks() is RANKS  # loaded once


@given(st.binary(min_size=1, max_size=64))
def test_hyp_any_bytes_merge_like_tiktoken(data: bytes) -> None:
    assert merged_length(data, RANKS) == exact(data)


def test_nothing_merges_to_nothing() -> None:
    assert merged_length(b"", RANKS) == 0


words = st.text("abcdefghijklmnopqrstuvwxyz_ -./=", min_size=1, max_size=40)


@given(words)
def test_hyp_text_pieces_merge_like_tiktoken(text: str) -> None:
    assert merged_length(text.encode(), RANKS) == exact(text.encode())


@pytest.mark.parametrize("unit", ["-", ".", " ", "=", "ab", "\t", "é", "😀", "0"])
def test_long_runs_are_exact(unit: str) -> None:
    """Long runs of one unit (the worst case for merging; its speed is in bench/)."""
    data = (unit * 5000).encode()
    assert merged_length(data, RANKS) == exact(data)


def test_piece_counts_are_cached_and_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    counts = PieceCounts(RANKS)
    assert counts["hello"] == 1
    assert counts[" sympy"] == 2
    assert dict(counts) == {"hello": 1, " sympy": 2}
    monkeypatch.setattr(_bpe, "MAX_PIECES", 10)
    for i in range(25):
        assert counts[f" word{i}"] >= 1
    assert 0 < len(counts) <= 10


def test_a_long_piece_is_merged_natively_with_the_same_count() -> None:
    """Rule 5: a piece of NATIVE_BYTES or more goes to tiktoken's own merge of the same
    ranks (seconds in Python for a million blanks); the count is the Python merge's."""
    counts = PieceCounts(RANKS)
    for piece in (" " * _bpe.NATIVE_BYTES, "ab" * (_bpe.NATIVE_BYTES // 2 + 3)):
        assert counts[piece] == merged_length(piece.encode(), RANKS) == exact(piece.encode())
    assert _bpe._native(RANKS) is not None
    assert _bpe._native(dict(RANKS)) is None  # other ranks: merged here


def test_without_tiktoken_a_long_piece_is_merged_here(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_bpe, "_native", lambda ranks: None)
    piece = "x" * _bpe.NATIVE_BYTES
    assert PieceCounts(RANKS)[piece] == exact(piece.encode())
