"""Speed section in a tiny mode: every system runs, the tables and the plot come out."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import loop, report, speed

TINY = speed.OneShotConfig(sizes=(20, 60), rounds=(1, 2), memory_sizes=(20,), seed=1)


@pytest.fixture(scope="module")
def one_shot() -> speed.OneShot:
    return speed.run_one_shot(TINY, show=False)


def test_one_shot_times_every_system_at_every_size(one_shot: speed.OneShot) -> None:
    for size, rounds in zip(TINY.sizes, TINY.rounds, strict=True):
        assert set(one_shot.times[size]) == set(speed.SYSTEMS)
        assert all(len(t) == rounds and min(t) > 0 for t in one_shot.times[size].values())
        tokens, budget = one_shot.budgets[size]
        assert budget == tokens // 4
    assert set(one_shot.memory[20]) == set(speed.SYSTEMS)


def test_one_shot_lines_and_growth(one_shot: speed.OneShot) -> None:
    text = "\n".join(speed.one_shot_lines(one_shot))
    assert all(name in text for name in speed.SYSTEMS)
    assert "Peak memory" in text
    (small, large, factor), *_ = speed.growth(one_shot, speed.LC_EXACT)
    assert (small, large) == (20, 60)
    assert factor > 0


def test_plot_writes_a_png(one_shot: speed.OneShot, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    path = tmp_path / "speed.png"
    speed.plot(one_shot, path)
    assert path.read_bytes()[:4] == b"\x89PNG"


def test_agent_loop_and_section_tiny(one_shot: speed.OneShot) -> None:
    config = loop.LoopConfig(sizes=(30,), turns=6, stride_cheap=2, stride_exact=3, budget=5_000)
    runs = loop.run_all(config, show=False)
    assert set(runs) == {(30, "cheap"), (30, "exact")}
    for run in runs.values():
        assert len(run.cf_turns) == 6
        assert len(run.paired) == len(run.lc_turns) >= 2
        assert loop.amortized_ratio(run) > 0
    assert "ContextManager mean" in "\n".join(loop.loop_lines(runs, config))
    profile = report.Profile("tiny", [("_x.py:f", 0.5)], [("_x.py", 0.5)])
    section = report.speed_section(
        one_shot,
        runs,
        config,
        profiles=[profile],
        command="python -m bench --tiny",
        plot_path="plot.png",
    )
    assert section.startswith(report.SPEED + "\n")
    assert "`python -m bench --tiny`" in section
    assert "![time against messages](plot.png)" in section
    targets = section.split("### Targets", 1)[1]
    assert targets.count(": met") + targets.count(": missed") == 3
