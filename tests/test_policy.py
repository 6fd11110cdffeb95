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
        {"recall_hints": "no"},
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


def test_without_recall_hints_no_summary_or_marker_names_the_recall_tool() -> None:
    """An integration whose model has no recall tool turns the hints off; the references
    stay (a person or the CLI can still recall them)."""
    output = "\n".join(f"line {i}: value {i * 7} of the report" for i in range(150))

    def views(hints: bool) -> str:
        manager = cf.ContextManager(6_000, "gpt-4o", recall_hints=hints)
        manager.add({"role": "system", "content": "Be brief."})
        seen: list[object] = []
        for i in range(15):
            call = {"id": f"c{i}", "type": "function", "function": {"name": "r", "arguments": "{}"}}
            manager.extend(
                [
                    {"role": "user", "content": f"Read part {i}."},
                    {"role": "assistant", "content": None, "tool_calls": [call]},
                    {"role": "tool", "tool_call_id": f"c{i}", "content": output},
                ]
            )
            seen += manager.view()
        return str(seen)

    hinted, plain = views(True), views(False)
    for text in (hinted, plain):  # both prune results and fold turns into a summary
        assert "chars pruned from this tool result" in text
        assert "Summary of earlier turns (every folded message: r" in text
    assert cf.RECALL_TOOL_NAME in hinted
    assert "recall with offset" in hinted
    assert cf.RECALL_TOOL_NAME not in plain
    assert "recall with offset" not in plain


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
