"""The calibrated wrapper: an affine fit (ratio and offset), robust to one wild observation,
with a margin until it has enough points."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import contextfold as cf
from contextfold import Conversation, Message, Text
from contextfold.testing import FixedCounter

MESSAGE = Message("user", (Text("x" * 400),))


def test_starts_neutral_and_learns_the_ratio() -> None:
    counter = cf.CalibratedCounter(cf.HeuristicCounter())
    base = cf.HeuristicCounter().count(MESSAGE)
    assert counter.ratio == 1.0
    assert counter.count(MESSAGE) == base
    for _ in range(3):
        counter.observe(1000, 1200)
    assert counter.ratio == pytest.approx(1.2)
    assert counter.count(MESSAGE) >= base * 1.2
    assert counter.name == "calibrated(heuristic: 1.200x+0 +5% margin from 3 requests)"
    assert counter.observations == 3
    counter.observe(1000, 1200)
    assert counter.name == "calibrated(heuristic: 1.200x+0 from 4 requests)"  # no margin
    counter.reset()
    assert counter.ratio == 1.0


def test_empty_and_negative_observations() -> None:
    counter = cf.CalibratedCounter(FixedCounter())
    counter.observe(0, 100)
    counter.observe(100, 0)
    assert counter.observations == 0
    with pytest.raises(cf.ConfigurationError):
        counter.observe(-1, 10)
    assert counter.name == "calibrated(custom)"
    with pytest.raises(cf.ConfigurationError):
        counter.count_text("plain text needs a ConversationCounter inside")


@pytest.mark.parametrize("kwargs", [{"window": 0}, {"min_ratio": 0}, {"max_ratio": 0.5}])
def test_bad_options(kwargs: dict[str, float]) -> None:
    with pytest.raises(cf.ConfigurationError):
        cf.CalibratedCounter(FixedCounter(), **kwargs)  # type: ignore[arg-type]


def test_ratio_is_clamped() -> None:
    counter = cf.CalibratedCounter(FixedCounter(), min_ratio=0.5, max_ratio=2.0)
    counter.observe(10, 1000)
    assert counter.ratio == 2.0


normal_ratio = st.floats(0.6, 1.6)


@given(
    ratios=st.lists(normal_ratio, min_size=2, max_size=15),
    outlier_factor=st.sampled_from([0.1, 10.0]),
    position=st.integers(0, 15),
)
def test_one_outlier_stays_within_the_normal_range(
    ratios: list[float], outlier_factor: float, position: int
) -> None:
    counter = cf.CalibratedCounter(cf.HeuristicCounter(), window=16)
    observations = [round(1000 * r) for r in ratios]
    observations.insert(min(position, len(observations)), round(1000 * outlier_factor))
    for actual in observations:
        counter.observe(1000, actual)
    normal = [round(1000 * r) / 1000 for r in ratios]
    assert min(normal) <= counter.ratio <= max(normal)


@given(st.lists(st.tuples(st.integers(1, 10**6), st.integers(1, 10**6)), max_size=40))
def test_totals_stay_additive(observations: list[tuple[int, int]]) -> None:
    counter = cf.CalibratedCounter(cf.HeuristicCounter())
    for estimated, actual in observations:
        counter.observe(estimated, actual)
    conv = Conversation((MESSAGE, MESSAGE))
    assert cf.count_conversation(conv, counter) == cf.fixed_overhead(conv, counter) + 2 * (
        counter.count(MESSAGE)
    )
    assert counter.fixed_overhead(conv) >= 1


@given(
    ratio=st.floats(0.8, 1.5),
    hidden=st.integers(0, 2_000),
    sizes=st.lists(st.integers(200, 60_000), min_size=4, max_size=30, unique=True).filter(
        lambda sizes: max(sizes) - min(sizes) >= 100
    ),
)
def test_a_hidden_prompt_and_a_ratio_are_learned_apart(
    ratio: float, hidden: int, sizes: list[int]
) -> None:
    """A provider adding `hidden` tokens to every request and counting `ratio` x ours: the
    fit predicts every request it saw within two tokens per thousand (the weighted median
    of pairwise slopes, over counts rounded to whole tokens). (Prompts a few
    tokens apart cannot tell a ratio from an offset once counts are rounded to whole
    tokens; an agent's prompts grow by whole turns, so the sizes span 100 tokens or more.)"""
    counter = cf.CalibratedCounter(cf.HeuristicCounter())
    for size in sizes:
        counter.observe(size, round(ratio * size) + hidden)
    for size in sizes:
        assert abs(counter.estimate(size) - (ratio * size + hidden)) <= 2 + size / 500


def test_a_fixed_offset_is_not_taken_for_a_ratio() -> None:
    """Tiny prompts first (as an agent loop starts): a 346-token hidden prompt does not
    become a 4x ratio that later over- or under-counts a big prompt."""
    counter = cf.CalibratedCounter(cf.HeuristicCounter())
    for size in (120, 300, 900, 2_400, 5_000, 7_000):
        counter.observe(size, size + 346)
    assert counter.ratio == pytest.approx(1.0, abs=0.01)
    assert counter.offset == pytest.approx(346, abs=3)
    assert counter.estimate(8_000) == pytest.approx(8_346, abs=10)
