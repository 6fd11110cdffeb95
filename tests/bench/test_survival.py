"""What-survives measures on crafted and tiny inputs."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench.common import Record, corpus
from bench.synthetic import history

import contextfold as cf
from bench import baselines as bl
from bench import reference, report, rounds


def test_facts_are_identifier_like_values() -> None:
    text = "Check HAT136 on 2024-05-15 for mia_li_3668 in /srv/app/db.py line 12; see self.run."
    assert reference.facts_in(text) == {
        "HAT136", "2024-05-15", "mia_li_3668", "/srv/app/db.py", "self.run",
    }  # fmt: skip
    assert reference.facts_in("plain words only, and 123") == set()


def test_needed_facts_come_from_before_the_cut_and_not_from_later_messages() -> None:
    wire = [
        {"role": "system", "content": "Agent for ACME; ids look like SYS-0001."},
        {"role": "user", "content": "My reservation is ZFA04Y and my user id is ana_9."},
        {"role": "assistant", "content": "Let me look."},
        {"role": "user", "content": "Also the ticket OPS-4471 matters."},
        {"role": "assistant", "content": "Looking at ZFA04Y, OPS-4471 and SYS-0001 now."},
    ]
    assert reference.needed_facts(bl.neutral(wire), cut=3) == {"ZFA04Y"}


def test_score_record_keeps_everything_at_a_roomy_budget_for_verbatim_strategies() -> None:
    record = Record("synthetic", "tau", history(40, seed=8))
    scores = reference.score_record(record)
    assert scores, "the synthetic agent reuses reservation ids after every cut"
    for (source, strategy, share), score in scores.items():
        assert source == "tau"
        assert strategy in reference.STRATEGIES
        assert share in reference.SHARES
        assert 0 <= score.kept <= score.needed
        assert score.runs > 0


def test_plants_segments_and_rounds() -> None:
    planted = rounds.plants(42)
    assert len({p.key for p in planted}) == 8
    assert all(p.key in p.sentence for p in planted)
    head, rest = rounds.planted(history(30, seed=1), planted)
    assert [m["role"] for m in head[-2:]] == ["user", "user"]
    pieces = rounds.segments(rest)
    assert len(pieces) == rounds.ROUNDS
    assert [m for p in pieces for m in p] == rest
    assert all(p[0]["role"] != "tool" for p in pieces if p)


def test_rounds_score_every_strategy_kind_and_round() -> None:
    survival = rounds.score_record(Record("synthetic", "swe", history(60, seed=3)))
    assert len(survival) == len(rounds.STRATEGIES) * rounds.ROUNDS * len(rounds.KINDS) * 2
    for (strategy, _, kind, _), (n, keys, verbatim) in survival.items():
        assert n == 1, (strategy, kind)
        assert 0 <= verbatim <= keys <= n, (strategy, kind)
    # trim_messages keeps nothing it dropped
    assert rounds.cell(survival, "trim_messages", rounds.ROUNDS, "rule")[1] == 0
    assert "<key>" in "\n".join(rounds.phrasing_lines(survival))


def test_corpus_sections_and_plots(tmp_path: Path) -> None:
    records = corpus(per_file=1)
    if not records:
        pytest.skip("corpus not found")
    scores = reference.run(records, workers=1, show=False)
    survival = rounds.run(records, workers=1, show=False)
    assert "contextfold default" in "\n".join(reference.lines(scores))
    assert "round 5" in "\n".join(rounds.lines(survival))
    section = report.survival_section(scores, survival, "python -m bench", ("a.png", "b.png"))
    assert section.startswith(report.SURVIVAL)
    assert "### Repeated rounds" in section
    assert "1. A conversation is cut" in section
    pytest.importorskip("matplotlib")
    reference.plot(scores, tmp_path / "a.png")
    rounds.plot(survival, tmp_path / "b.png")
    assert (tmp_path / "a.png").exists()
    assert (tmp_path / "b.png").exists()


def test_compactor_runs_each_strategy_within_a_roomy_budget() -> None:
    enc = bl.encoding()
    compactor = reference.Compactor(enc, cf.TiktokenCounter(enc))
    wire = history(30, seed=5)
    budget = compactor.tokens(bl.neutral(wire)) // 2
    for strategy in reference.STRATEGIES:
        kept = compactor.run(strategy, wire, budget)
        assert compactor.tokens(kept) <= budget, strategy
