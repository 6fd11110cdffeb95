"""Compaction of a conversation already within its budget: an agent loop's common turn.

Rules:
1. The systems, rounds and cold runs of bench/oneshot.py (rules 1-2): the tiktoken floor,
   contextfold default with exact counts and with chars/4, trim_messages with the same
   tiktoken Encoding and with its approximate counter; medians of interleaved rounds.
2. Inputs: the synthetic tool-heavy history and every corpus conversation in one pass, the
   budget twice the exact o200k tokens (nothing needs to go). Every contextfold result is
   checked to be the input unchanged.

Usage: .venv/bin/python -m bench.within [--size N] [--rounds R] [--no-write]
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Sequence

import contextfold as cf

from . import baselines as bl
from .common import Wire, corpus, header, median_ratio, seconds, sized_main, table
from .oneshot import (
    CF_EXACT,
    CF_QUARTER,
    FLOOR,
    LC_CHEAP,
    LC_EXACT,
    batch,
    interleaved,
    prepare,
    systems,
)
from .synthetic import history

HEADING = "## Within the budget: what a compaction that keeps everything costs"
SHOWN = (FLOOR, CF_EXACT, LC_EXACT, CF_QUARTER, LC_CHEAP)
RATIOS = ((CF_EXACT, FLOOR), (CF_EXACT, LC_EXACT), (CF_QUARTER, LC_CHEAP))

Inputs = Sequence[tuple[Sequence[Wire], int]]


def inputs(size: int) -> dict[str, Inputs]:
    """Rule 2: name -> (messages, budget) pairs."""
    synthetic = history(size, 7)
    found: dict[str, Inputs] = {
        f"synthetic, {size:,} messages": [(synthetic, 2 * bl.exact_tokens(synthetic))]
    }
    records = corpus()
    if records:
        found[f"corpus, {len(records)} conversations"] = [
            (r.messages, 2 * bl.exact_tokens(r.messages)) for r in records
        ]
    return found


def check(pairs: Inputs) -> None:
    """Rule 2: every contextfold result is its input, unchanged."""
    for messages, budget in pairs:
        result = cf.compact(list(messages), budget, counter=cf.TiktokenCounter(bl.encoding()))
        if result.report.compacted or result.payload != list(messages):
            raise SystemExit("bench.within: an input within its budget came back changed")


def measure(pairs: Inputs, rounds: int) -> dict[str, list[float]]:
    """CPU seconds per round of each shown system over `pairs`."""
    every = systems(bl.encoding())
    warm = history(200, 1)
    prepare([warm])
    for name in SHOWN:  # imports and first-use set-up, outside the timings
        every[name](warm, 20_000)
    prepare([m for m, _ in pairs])
    runs = {name: batch(pairs, every[name]) for name in SHOWN}
    return interleaved(runs, rounds)


def section(results: dict[str, dict[str, list[float]]], command: str) -> str:
    """Markdown for BENCHMARKS.md."""
    lines = [
        *header(HEADING, command),
        "Rules in bench/within.py: the budget is twice the exact o200k tokens, so nothing "
        "needs to go (every contextfold result was checked to be its input unchanged); "
        "cold runs, CPU seconds, medians of interleaved rounds, as bench/oneshot.py.",
        "",
    ]
    names = list(results)
    rows = [[s, *(seconds(statistics.median(results[n][s])) for n in names)] for s in SHOWN]
    rows += [
        [f"{a} / {b}", *(f"{median_ratio(results[n][a], results[n][b]):.2f}x" for n in names)]
        for a, b in RATIOS
    ]
    columns = ["system (median CPU) or ratio (median of per-round ratios)", *names]
    return "\n".join([*lines, *table(columns, rows), ""])


def main(argv: list[str] | None = None) -> int:
    """Check, measure, print and (unless --no-write) write the section."""
    return sized_main("within", argv, inputs, measure, section, check=check)


if __name__ == "__main__":
    sys.exit(main())
