"""Cost section on tiny inputs: replays bill every strategy; compaction keeps to the budget."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench.billing import PRICINGS
from bench.common import Record, corpus
from bench.synthetic import history

from bench import cost, report


def test_replay_bills_every_strategy_on_a_synthetic_conversation() -> None:
    record = Record("synthetic", "swe", history(80, seed=2))
    bills = cost.replay(record, share=0.25)
    requests = sum(1 for i, m in enumerate(record.messages) if m["role"] == "assistant" and i)
    for name in cost.STRATEGIES:
        assert bills[name].requests == requests
        assert bills[name].summarizer_tokens == 0  # the embedded ledger makes no model call
    assert bills[cost.STRATEGIES[0]].over_budget > 0  # the budget forces compaction
    assert bills[cost.STRATEGIES[1]].over_budget == 0
    # only a turn whose protected tail alone is over the budget may be (fits: false)
    assert bills[cost.STRATEGIES[3]].over_budget <= requests // 10
    assert bills[cost.STRATEGIES[0] + cost.PAST].requests > 0


def test_run_lines_and_plot_on_the_corpus(tmp_path: Path) -> None:
    records = corpus(per_file=1)
    if not records:
        pytest.skip("corpus not found")
    bills = cost.run(records, 0.5, workers=1, show=False)
    assert {"all", "swe", "tau"} <= set(bills)
    text = "\n".join(cost.lines(bills))
    assert all(name in text for name in cost.STRATEGIES)
    assert all(p.name in text for p in PRICINGS)
    long = cost.replay_long(requests=10, budget=3_000)
    section = report.cost_section({0.5: bills}, long, (10, 3_000), "python -m bench", "cost.png")
    assert section.startswith(report.COST)
    assert "### Target" in section
    pytest.importorskip("matplotlib")
    cost.plot(bills, tmp_path / "cost.png", 0.5)
    assert (tmp_path / "cost.png").stat().st_size > 1_000


def test_long_loop_tiny() -> None:
    bills = cost.replay_long(requests=25, budget=4_000)
    assert set(bills) == set(cost.LONG_STRATEGIES)
    assert all(b.requests == 25 for b in bills.values())
    assert "cost vs trim" in "\n".join(cost.long_lines(bills, 25, 4_000))
