"""The hard ceiling in the loop, on a sample: no view over the budget when its floor fits."""

from __future__ import annotations

import pytest
from bench.common import CORPUS, corpus
from bench.replay import BUDGETS, replay_long, replay_record


def test_a_generated_loop_never_goes_over_at_any_budget() -> None:
    for budget, tally in replay_long(150).items():
        assert tally.views == 149
        assert tally.over == 0, (budget, tally)
        assert tally.peak > 0.5  # it really ran up against the budget


@pytest.mark.corpus
def test_corpus_conversations_in_every_format_never_go_over() -> None:
    records = corpus(CORPUS, per_file=2)
    if not records:
        pytest.skip(f"corpus not found at {CORPUS}")
    for record in records:
        for (fmt, budget), tally in replay_record(record).items():
            assert budget in BUDGETS
            assert tally.over == 0, (record.id, fmt, budget, tally)
