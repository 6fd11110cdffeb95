"""What the invariants ask of a one-shot call with exact counts, against the tiktoken floor.

Rules:
1. The parts every compaction of this design must do, each timed alone as a whole cold
   pass: the floor (tiktoken encoding every message's texts once, bench/oneshot.py);
   parsing the wire format (`cf.parse`); the least the archive needs (the canonical JSON,
   sorted keys, and its sha256 for every message but the first and the last: what leaves
   must be recoverable by a content reference; `json.dumps` of the wire dict, a lower
   bound of `Archive.put`); and reading what every user message states, as the card does
   (the card's own reader over the parsed messages: the user's rules must survive). Their
   sum (parsing counted once) is what they cost together, without planning, summaries or
   rendering.
2. Beside them contextfold drop-only and default with exact counts, cold (bench/oneshot.py).
3. Inputs and budgets as bench/oneshot.py (the synthetic tool-heavy history and every
   corpus conversation in one pass, 25% of the exact o200k tokens); CPU seconds, medians of
   interleaved rounds; each row is reported as a ratio to the floor (median of per-round
   ratios): what the 1.5x-floor target leaves the rest of the call.

Usage: .venv/bin/python -m bench.required [--size N] [--rounds R] [--no-write]
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable, Sequence

import contextfold as cf
from contextfold._engine._cards import new_card

from . import baselines as bl
from .common import Wire, header, ratio_rows, sized_main, table
from .layers import Inputs, inputs
from .oneshot import CF_DROP_EXACT, CF_EXACT, FLOOR, batch, interleaved, systems
from .synthetic import history

HEADING = "## What the invariants ask of a one-shot call, against the tiktoken floor"
PARSE = "parse the wire format (cf.parse)"
ARCHIVE = "archive at least: canonical JSON + sha256 of every message but the ends"
CARD = "parse + read every user message's statements (the card's reader)"
PARTS = (FLOOR, ARCHIVE, CARD)
"""What the sum adds up (parsing is in the card's row: the card reads parsed messages)."""
SUM = "floor + archive + parse and card"
SHOWN = (FLOOR, PARSE, ARCHIVE, CARD, CF_DROP_EXACT, CF_EXACT)

Run = Callable[[Sequence[Wire], int], object]


def _parse(messages: Sequence[Wire], budget: int) -> object:
    cf.clear_caches()
    return cf.parse(list(messages))


def _archive(messages: Sequence[Wire], budget: int) -> object:
    return [
        hashlib.sha256(
            json.dumps(m, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
        ).hexdigest()
        for m in messages[1:-1]
    ]


def _card(messages: Sequence[Wire], budget: int) -> object:
    """Rule 1: the card's reader over every parsed message (it reads the user's)."""
    cf.clear_caches()
    _, conversation = cf.parse(list(messages))
    return new_card(None, [(m, "r0000000000") for m in conversation.messages], None)


def runs() -> dict[str, Run]:
    """Rules 1-2: name -> run(messages, budget)."""
    every = systems(bl.encoding())
    shown: dict[str, Run] = {FLOOR: every[FLOOR], PARSE: _parse, ARCHIVE: _archive}
    shown[CARD] = _card
    shown.update({name: every[name] for name in (CF_DROP_EXACT, CF_EXACT)})
    return shown


def measure(pairs: Inputs, rounds: int) -> dict[str, list[float]]:
    """CPU seconds per round of each row over `pairs` (rule 3); the sum of the parts too."""
    every = runs()
    warm = history(200, 1)
    for run in every.values():  # imports and first-use set-up, outside the timings
        run(warm, 20_000)
    times = interleaved({name: batch(pairs, every[name]) for name in SHOWN}, rounds)
    times[SUM] = [sum(parts) for parts in zip(*(times[p] for p in PARTS), strict=True)]
    return times


def section(results: dict[str, dict[str, list[float]]], command: str) -> str:
    """Markdown for BENCHMARKS.md (rule 3)."""
    lines = [
        *header(HEADING, command),
        "Rules in bench/required.py: each row is a whole cold pass on the inputs and "
        "budgets of bench/oneshot.py (25% of the exact o200k tokens); CPU seconds, medians "
        "of interleaved rounds; the ratio is to the floor. The card's row includes parsing "
        "(the card reads parsed messages), so the sum adds the floor, the archive's and the "
        "card's rows.",
        "",
    ]
    rows = ratio_rows(results, (*SHOWN[:4], SUM, CF_DROP_EXACT, CF_EXACT), FLOOR)
    columns = ["part: median CPU (x the floor)", *results]
    return "\n".join([*lines, *table(columns, rows), ""])


def main(argv: list[str] | None = None) -> int:
    """Measure, print and (unless --no-write) write the section."""
    return sized_main("required", argv, inputs, measure, section)


if __name__ == "__main__":
    sys.exit(main())
