"""Policy, steps and eviction values: typed, validated, readable."""

from __future__ import annotations

import pytest

import contextfold as cf
from contextfold import Policy


@pytest.mark.parametrize(
    "changes",
    [
        {"low": 0.9, "high": 0.5},
        {"low": 0.0},
        {"high": 1.5},
        {"prune_at": 0.0},
        {"keep_last": -1},
        {"tail_share": 1.5},
        {"high": "0.9"},
        {"keep_last": True},
        {"steps": "prune"},
    ],
)
def test_bad_policy_values_are_configuration_errors(changes: dict[str, object]) -> None:
    with pytest.raises(cf.ConfigurationError):
        Policy().replace(**changes)


def test_unknown_option_names_the_known_ones() -> None:
    with pytest.raises(cf.ConfigurationError, match="keep_last"):
        Policy().replace(keep_lats=2)
    with pytest.raises(cf.ConfigurationError):
        cf.compact([{"role": "user", "content": "hi"}], 100, hihg=0.5)


def test_policy_options_reach_compact() -> None:
    payload = [{"role": "user", "content": "hi"}]
    assert cf.compact(payload, 100, low=0.5, keep_last=2).report.fits
    with pytest.raises(cf.ConfigurationError):
        cf.compact(payload, 0)
    with pytest.raises(cf.ConfigurationError):
        cf.compact(payload, 100, pins=["x"])  # type: ignore[list-item]


@pytest.mark.parametrize(
    "build",
    [
        lambda: cf.prune(over=0),
        lambda: cf.prune(keep=0),
        lambda: cf.prune(head_share=2.0),
        lambda: cf.mask(prose_over=0),
        lambda: cf.summarize(reserve=4),
        lambda: cf.summarize(chunk_tokens=10),
        lambda: cf.chain(cf.mask(), cf.mask()),
        lambda: cf.evict_fraction(0.0),
        lambda: cf.retain_last(-1),
    ],
)
def test_bad_step_values_are_configuration_errors(build: object) -> None:
    with pytest.raises(cf.ConfigurationError):
        build()  # type: ignore[operator]


def test_chains_sort_cheapest_first_and_read_well() -> None:
    steps = cf.chain(cf.drop(), cf.summarize(), cf.mask(), cf.prune())
    assert [s.kind for s in steps.steps] == ["prune", "mask", "summarize", "drop"]
    assert repr(cf.fit()) == "fit()"
    assert "chain(" in repr(steps)
    assert steps.get("nothing") is None
    assert cf.min_of(cf.fit(), cf.retain_last(1)).count(5) == 0
