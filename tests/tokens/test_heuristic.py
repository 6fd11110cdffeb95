"""The heuristic: errs high against exact o200k counts on realistic samples of every class."""

from __future__ import annotations

import random
import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import contextfold as cf
from contextfold._tokens import _heuristic
from contextfold._tokens._heuristic import CLASSES, content_class, count_text

pytest.importorskip("tiktoken")

SAMPLES = Path(__file__).parent / "samples"


def samples(klass: str) -> list[str]:
    text = (SAMPLES / f"{klass}.txt").read_text(encoding="utf-8")
    return [s.strip("\n") for s in text.split("\n---8<---\n") if s.strip("\n")]


EXACT = cf.TiktokenCounter("o200k_base")
HEURISTIC = cf.HeuristicCounter()


def error(text: str) -> float:
    message = cf.Message("user", (cf.Text(text),))
    return HEURISTIC.count(message) / EXACT.count(message) - 1


@pytest.mark.parametrize("klass", CLASSES)
def test_samples_are_never_undercounted_by_more_than_5_percent(klass: str) -> None:
    errors = [error(s) for s in samples(klass)]
    assert len(errors) >= 8
    assert min(errors) >= -0.05, klass


@pytest.mark.parametrize("klass", CLASSES)
def test_samples_are_mostly_classified_as_their_class(klass: str) -> None:
    found = Counter(content_class(s) for s in samples(klass))
    assert found.most_common(1)[0][0] == klass, found


@pytest.mark.parametrize("klass", CLASSES)
@settings(max_examples=25)
@given(data=st.data())
def test_hyp_mixed_sample_lines_err_high(klass: str, data: st.DataObject) -> None:
    """Text built from a random selection of a class's real lines is never under by >5%."""
    lines = [line for s in samples(klass) for line in s.splitlines() if line.strip()]
    picked = data.draw(st.lists(st.sampled_from(lines), min_size=10, max_size=40, unique=True))
    assert error("\n".join(picked)) >= -0.05


@given(st.sampled_from(["hex", "b64"]), st.integers(32, 400), st.integers(0, 2**32))
def test_hyp_random_ids_err_high(alphabet: str, size: int, seed: int) -> None:
    """Random strings (hashes, base64, ids) are where chars/4 fails worst."""
    rng = random.Random(seed)
    chars = (
        "0123456789abcdef"
        if alphabet == "hex"
        else ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
    )
    text = "".join(rng.choice(chars) for _ in range(size))
    assert error(text) >= -0.05


def test_beats_chars_over_4_where_it_fails() -> None:
    listing = samples("listing")[0]
    cjk = samples("cjk")[0]
    for text in (listing, cjk):
        exact = EXACT.count_text(text)
        assert len(text) / 4 < 0.7 * exact  # chars/4 undercounts these badly
        assert count_text(text) >= exact * 0.95


def test_edge_cases() -> None:
    assert count_text("") == 0
    assert count_text("assistant") == 1
    assert count_text(" ") == 1
    assert count_text("-" * 80) >= 2
    assert content_class("") == "prose"
    assert content_class("   \n ") == "prose"


_OLD_PATHLIKE = re.compile(r"\S*[/\\]\S*[/\\]\S*|\S+:\S+:\S+")
_WORDY = st.text(alphabet=st.sampled_from("ab1/\\:_. \t\n\u00a0\u2003\u3000x"), max_size=60)


@given(text=st.one_of(_WORDY, st.text(max_size=60)))
def test_hyp_pathlike_chars_match_the_backtracking_scan_they_replace(text: str) -> None:
    assert _heuristic._pathlike_chars(text) == sum(map(len, _OLD_PATHLIKE.findall(text)))


def test_random_runs_are_the_same_for_stripped_text() -> None:
    text = "  aB3xZ9qLmN0pQ7rS and deadbeefcafef00d1234  \n"
    assert _heuristic._random_runs(text) == _heuristic._random_runs(text.strip())
    assert len(_heuristic._random_runs(text)) == 2
