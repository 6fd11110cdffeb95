"""The conversion benchmark runs and writes its section's table."""

from __future__ import annotations

import contextfold as cf
from bench import convert


def test_shapes_are_valid_chat() -> None:
    for make in convert.SHAPES.values():
        assert cf.validate(make(40), "openai-chat") == []


def test_measure_and_section() -> None:
    rows = convert.measure((40, 80), 1)
    assert [row[:2] for row in rows] == [
        ["agent turns", "40"],
        ["agent turns", "80"],
        ["one role", "40"],
        ["one role", "80"],
    ]
    text = convert.section(rows, quick=True)
    assert text.startswith(convert.HEADING + "\n")
    assert "Command: `.venv/bin/python -m bench.convert --quick`" in text
