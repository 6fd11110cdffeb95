"""bench.adversarial: every shape compacts, fits and is valid, with both counters."""

from __future__ import annotations

import pytest

from bench import adversarial

pytest.importorskip("tiktoken")


def test_every_shape_and_placement_compacts_into_a_valid_fitting_result() -> None:
    rows = adversarial.measure([3_000])
    assert len(rows) == 2 * len(adversarial.SHAPES)
    for row in rows:
        for cell in row[2:]:
            assert cell.endswith("(fits, valid)"), row


def test_a_run_of_a_million_blanks_no_longer_raises() -> None:
    blob = adversarial.SHAPES["blanks (a + spaces + b)"](1_000_000)
    _, outcome = adversarial.run(
        adversarial.conversation(blob, "tool"), adversarial.COUNTERS["tiktoken"]()
    )
    assert outcome == "fits, valid"


def test_the_section_has_a_column_per_counter_and_size() -> None:
    text = adversarial.section([["x", "tool result", "a", "b", "c", "d"]], [10, 20], "cmd")
    assert text.startswith(adversarial.HEADING)
    assert (
        "| shape | where | heuristic, 10 chars | heuristic, 20 chars | tiktoken, 10 chars |" in text
    )
