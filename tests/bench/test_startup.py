"""bench.startup with one run: every tree is timed, and the report names them all."""

from __future__ import annotations

from bench.common import ROOT

from bench import startup


def test_two_trees_are_timed_side_by_side() -> None:
    results = startup.measure({"installed": None, "src": ROOT / "src"}, 1)
    assert set(results) == {"installed", "src"}
    assert all(len(r.wall) == len(r.cpu) == 1 and r.wall[0] > 0 for r in results.values())
    lines = startup.report(results)
    assert [line.split(":")[0] for line in lines] == ["installed", "src"]
    assert all("wall median" in line and "CPU median" in line for line in lines)
