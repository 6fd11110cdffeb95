"""What each layer of a one-shot call costs, against `trim_messages` approximate.

Rules:
1. The layers, each a whole call: parsing the wire format (`cf.parse`); parsing and
   rendering it back (`cf.render`); contextfold drop-only with chars/4 (no fold, no
   ledger: it still plans, archives what it removes and builds the card); contextfold
   default with chars/4. Beside them trim_messages with its approximate counter on
   LangChain messages converted beforehand, as bench/oneshot.py gives it.
2. Inputs and budgets as bench/oneshot.py: the synthetic tool-heavy history and every
   corpus conversation in one pass, 25% of the exact o200k tokens; cold runs (caches
   cleared before every contextfold call); CPU seconds, medians of interleaved rounds.
3. Each layer is reported as a ratio to trim_messages approximate (median of per-round
   ratios): what the cheap-counter target (within 3x) leaves each layer.

Usage: .venv/bin/python -m bench.layers [--size N] [--rounds R] [--no-write]
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

import contextfold as cf

from . import baselines as bl
from .common import Wire, corpus, header, ratio_rows, sized_main, table
from .oneshot import CF_DROP_QUARTER, CF_QUARTER, LC_CHEAP, batch, interleaved, prepare, systems
from .synthetic import history

HEADING = "## Layers of a one-shot call against trim_messages approximate"
PARSE = "cf.parse"
ROUND_TRIP = "cf.parse + cf.render"
SHOWN = (PARSE, ROUND_TRIP, CF_DROP_QUARTER, CF_QUARTER, LC_CHEAP)

Inputs = Sequence[tuple[Sequence[Wire], int]]
Run = Callable[[Sequence[Wire], int], object]


def inputs(size: int) -> dict[str, Inputs]:
    """Rule 2: name -> (messages, budget) pairs."""
    synthetic = history(size, 7)
    found: dict[str, Inputs] = {
        f"synthetic, {size:,} messages": [(synthetic, bl.exact_tokens(synthetic) // 4)]
    }
    records = corpus()
    if records:
        found[f"corpus, {len(records)} conversations"] = [
            (r.messages, max(1, bl.exact_tokens(r.messages) // 4)) for r in records
        ]
    return found


def _parse(messages: Sequence[Wire], budget: int) -> object:
    cf.clear_caches()
    return cf.parse(list(messages))


def _round_trip(messages: Sequence[Wire], budget: int) -> object:
    cf.clear_caches()
    fmt, conversation = cf.parse(list(messages))
    return cf.render(conversation, fmt)


def layers() -> dict[str, Run]:
    """Rule 1: name -> run(messages, budget)."""
    every = systems(bl.encoding())
    shown: dict[str, Run] = {PARSE: _parse, ROUND_TRIP: _round_trip}
    shown.update({name: every[name] for name in (CF_DROP_QUARTER, CF_QUARTER, LC_CHEAP)})
    return shown


def measure(pairs: Inputs, rounds: int) -> dict[str, list[float]]:
    """CPU seconds per round of each layer over `pairs` (rule 2)."""
    runs = layers()
    warm = history(200, 1)
    prepare([warm])
    for run in runs.values():  # imports and first-use set-up, outside the timings
        run(warm, 20_000)
    prepare([m for m, _ in pairs])
    return interleaved({name: batch(pairs, runs[name]) for name in SHOWN}, rounds)


def section(results: dict[str, dict[str, list[float]]], command: str) -> str:
    """Markdown for BENCHMARKS.md (rule 3)."""
    lines = [
        *header(HEADING, command),
        "Rules in bench/layers.py: each layer is a whole call, cold, on the inputs and "
        "budgets of bench/oneshot.py (25% of the exact o200k tokens); CPU seconds, medians "
        "of interleaved rounds; the ratio is to trim_messages approximate, which gets "
        "LangChain messages converted before the timer starts.",
        "",
    ]
    columns = ["layer: median CPU (x trim_messages approximate)", *results]
    return "\n".join([*lines, *table(columns, ratio_rows(results, SHOWN, LC_CHEAP)), ""])


def main(argv: list[str] | None = None) -> int:
    """Measure, print and (unless --no-write) write the section."""
    return sized_main("layers", argv, inputs, measure, section)


if __name__ == "__main__":
    sys.exit(main())
