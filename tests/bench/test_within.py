"""bench.within: inputs within their budget come back unchanged; the section has every row."""

from __future__ import annotations

from bench import within


def test_inputs_within_their_budget_come_back_unchanged_and_are_timed() -> None:
    pairs = within.inputs(300)
    first = next(iter(pairs.values()))
    within.check(first)
    times = within.measure(first, 1)
    assert set(times) == set(within.SHOWN)
    assert all(len(t) == 1 and t[0] > 0 for t in times.values())
    text = within.section({"synthetic": times}, "python -m bench.within --size 300")
    assert text.startswith(within.HEADING)
    lines = text.splitlines()
    assert any(line.startswith("| system") and line.endswith("| synthetic |") for line in lines)
    for name in within.SHOWN:
        assert any(line.startswith(f"| {name} |") for line in lines), name
