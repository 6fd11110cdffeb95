"""The word index answers exactly as `in` does."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from contextfold._summarizers._ledger_carried import _Said
from contextfold._summarizers._substrings import SMALL, Haystack

NEEDLE = 18

_ALPHABET = "abc _\x00é\t\n\u3000"


@given(
    st.lists(st.text(_ALPHABET, min_size=1, max_size=8), min_size=1),
    st.integers(0, 2**32),
    st.data(),
)
def test_contains_is_in(words: list[str], seed: int, data: st.DataObject) -> None:
    """Needles cut from the text, near misses and random ones: the same answer as `in`."""
    rng = random.Random(seed)
    pieces: list[str] = []
    size = 0
    while size <= SMALL:
        pieces.append(rng.choice(words))
        size += len(pieces[-1])
    text = "".join(pieces)
    haystack = Haystack(text)
    start = data.draw(st.integers(0, len(text) - 1))
    size = data.draw(st.integers(0, NEEDLE))
    cut = text[start : start + size]
    for needle in (cut, cut + "\x01", "é" + cut, data.draw(st.text(_ALPHABET, max_size=20))):
        assert haystack.contains(needle) == (needle in text)
    for needle in data.draw(st.lists(st.text(_ALPHABET, max_size=NEEDLE), max_size=8)):
        assert haystack.contains(needle) == (needle in text)


def test_needles_with_spaces_need_whole_inner_words() -> None:
    """Rule 3: an inner word that is not a whole word of the text rules a needle out."""
    text = " ".join(f"w{i} x{i % 7}" for i in range(2_000))
    haystack = Haystack(text)
    for needle in ("1 x1 w2", "w1999 x", " x", "1 x1 w352 x"):
        assert haystack.contains(needle)
    for needle in ("1 x9 w2", "w1 x w2", "w1  x1", "w2 x3"):
        assert not haystack.contains(needle)


def test_needles_with_spaces_need_run_ends() -> None:
    """Rule 3: a run with whitespace after it ends a run of the text, one with whitespace
    before it begins one."""
    text = " ".join(f"w{i} x{i % 7}" for i in range(2_000))
    haystack = Haystack(text)
    for needle in ("w1 x", "1 x1", "99 x", "x3 ", " w19", " x3 ", "w1999 x", "\tw1"):
        assert haystack.contains(needle) == (needle in text)
    for needle in ("w x1", "w1 1", "x3 x", "w ", " 1", " x9 ", "x1 y", "y x1"):
        assert not haystack.contains(needle)
        assert needle not in text


def test_statements_begun_by_a_text_hold_it() -> None:
    """A text that begins a statement (a clipped one) sits inside it: found by `heads`."""
    filler = [f"w{i} x{i % 7}" for i in range(SMALL // 4)]
    prepared = _Said.of(("My flight leaves Monday at 9", "Book it", *filler))
    assert prepared.overlaps("my flight leaves")
    assert prepared.overlaps("book it")
    assert prepared.overlaps("w12 x")
    assert not prepared.overlaps("my flight leaves tuesday")


def test_small_text_is_searched_directly() -> None:
    haystack = Haystack("a short text")
    assert haystack.contains("short")
    assert not haystack.contains("long")


def test_short_needles_at_the_end_and_absent() -> None:
    """Needles at the very end of the text and ones across no word boundary."""
    text = "ab" * (SMALL // 2) + "xyzw"
    haystack = Haystack(text)
    for size in range(1, 7):
        for start in range(len(text) - 8, len(text) - size + 1):
            assert haystack.contains(text[start : start + size])
    assert not haystack.contains("zz")
    assert not haystack.contains("wa")
    assert haystack.contains("bx")


@given(
    st.lists(st.text(_ALPHABET, min_size=1, max_size=40), min_size=1, max_size=60),
    st.lists(st.text(_ALPHABET, min_size=1, max_size=30), max_size=8),
)
def test_statements_overlap_as_the_plain_tests(said: list[str], texts: list[str]) -> None:
    """`_Said.overlaps` searches only the statements long enough: the plain answer."""
    filler = [f"w{i} é\tx{i % 7}" for i in range(SMALL // 8)]  # over SMALL: the index is used
    prepared = _Said.of((*said, *filler))
    assert len(prepared.folded_joined.text) > SMALL
    for text in [*texts, *(f[1:-1] for f in prepared.folded), *prepared.folded]:
        if not text:
            continue
        plain = any(text in f for f in prepared.folded) or any(f in text for f in prepared.folded)
        assert prepared.overlaps(text) == plain
