"""Shared plumbing: section rewriting, interleaved timing, ratios, tables, hot spots."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench.common import (
    Pairs,
    Times,
    chunks,
    hot_spots,
    interleaved,
    median_ratio,
    ratio_rows,
    sized_main,
    table,
    write_section,
)
from bench.synthetic import history

import contextfold as cf

OTHER = "## Token counting: heuristic vs exact\n\nsomeone else's table\n"


def test_write_section_replaces_only_its_own_section(tmp_path: Path) -> None:
    markdown = tmp_path / "BENCHMARKS.md"
    markdown.write_text(f"# title\n\n{OTHER}\n## Speed and scaling\n\nold\n\n## Tail\n\nkeep\n")
    write_section("## Speed and scaling\n\nnew numbers\n", markdown)
    text = markdown.read_text()
    assert "new numbers" in text
    assert "old" not in text
    assert OTHER in text
    assert "## Tail\n\nkeep" in text
    assert text.index("## Token counting") < text.index("## Speed") < text.index("## Tail")


def test_write_section_appends_a_new_section(tmp_path: Path) -> None:
    markdown = tmp_path / "BENCHMARKS.md"
    markdown.write_text(f"# title\n\n{OTHER}")
    write_section("## Cost under prompt caching\n\nbills\n", markdown)
    write_section("## Cost under prompt caching\n\nbills again\n", markdown)
    text = markdown.read_text()
    assert text.count("## Cost under prompt caching") == 1
    assert text.endswith("bills again\n")
    assert OTHER in text


def test_interleaved_runs_every_system_every_round() -> None:
    calls: list[str] = []
    times = interleaved({"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}, 3)
    assert calls == ["a", "b", "b", "a", "a", "b"]
    assert all(len(v) == 3 and min(v) >= 0 for v in times.values())


def test_median_ratio_is_the_median_of_per_round_ratios() -> None:
    assert median_ratio([1.0, 10.0, 3.0], [1.0, 1.0, 1.0]) == 3.0
    assert median_ratio([2.0, 2.0], [1.0, 4.0]) == 1.25


def test_table_and_chunks() -> None:
    assert table(["a", "b"], [[1, 2]]) == ["| a | b |", "|---|--:|", "| 1 | 2 |"]
    items = [{"i": i} for i in range(7)]
    pieces = list(chunks(items, 3))
    assert [len(p) for p in pieces] == [3, 2, 2]
    assert [x for p in pieces for x in p] == items


def test_hot_spots_name_contextfold_functions() -> None:
    wire = history(60, seed=2)
    functions, modules = hot_spots(lambda: cf.compact(wire, 3_000, counter=cf.HeuristicCounter()))
    assert functions
    assert modules
    assert all(":" in name and not name.startswith("/") for name, _ in functions)
    assert 0 < sum(share for _, share in modules) <= 1.0 + 1e-9


def test_command_line_names_the_module_and_its_arguments() -> None:
    from bench.common import command_line

    assert command_line("bench.within", []) == "python -m bench.within"
    assert command_line("bench.oneshot", ["--rounds", "5"]) == "python -m bench.oneshot --rounds 5"


def test_ratio_rows_show_the_median_and_the_ratio_to_the_base() -> None:
    results = {"input": {"base": [2.0, 4.0, 2.0], "ours": [3.0, 4.0, 5.0]}}
    rows = ratio_rows(results, ["ours", "base"], "base")
    assert rows == [["ours", "4.00 s (1.50x)"], ["base", "2.00 s (1.00x)"]]


def test_sized_main_checks_measures_and_prints_without_writing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    seen: list[tuple[str, object]] = []

    def inputs(size: int) -> dict[str, Pairs]:
        return {f"{size} messages": [([{"role": "user", "content": "hi"}], 10)]}

    def measure(pairs: Pairs, rounds: int) -> Times:
        seen.append(("measure", rounds))
        return {"x": [1.0] * rounds}

    def section(results: dict[str, Times], command: str) -> str:
        return f"## Test\n\n{command}: {sorted(results)} {results['7 messages']['x']}\n"

    code = sized_main(
        "nothing",
        ["--size", "7", "--rounds", "2", "--no-write"],
        inputs,
        measure,
        section,
        check=lambda pairs: seen.append(("check", len(pairs))),
    )
    assert code == 0
    assert seen == [("check", 1), ("measure", 2)]
    out = capsys.readouterr().out
    assert "python -m bench.nothing --size 7 --rounds 2 --no-write" in out
    assert "['7 messages'] [1.0, 1.0]" in out
