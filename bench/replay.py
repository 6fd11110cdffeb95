"""The hard ceiling in the loop: replay real conversations through ContextManager in all
three formats at 4k/8k/32k and count views over the budget.

Usage: .venv/bin/python -m bench.replay [--per-file N] [--workers N] [--no-write]

Rules:
1. Every corpus conversation is converted to OpenAI Chat, OpenAI Responses and Anthropic
   Messages (`cf.convert`) and fed to a ContextManager one message at a time; after each
   assistant message (a request an agent would send) the view is taken.
2. A view is over budget when the manager's own count of it (the counter its reports use)
   exceeds the budget while its floor (system prompt, pins, latest user turn: the
   report's protected tokens) fits.
3. A long generated loop (bench/synthetic.py turns, 2,000 requests) runs the same way at
   each budget, in OpenAI Chat format.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import contextfold as cf

from . import baselines as bl
from . import synthetic
from .common import CORPUS, ROOT, Record, Wire, corpus, machine, parallel_map, table, write_section

BUDGETS = (4_000, 8_000, 32_000)
FORMATS = ("openai-chat", "openai-responses", "anthropic")


@dataclass
class Tally:
    """Views and views over the budget (rule 2)."""

    views: int = 0
    over: int = 0
    floor_over: int = 0
    worst: int = 0
    """Largest excess over the budget, in tokens, among views whose floor fits."""
    peak: float = 0.0
    """Largest view / budget."""

    def add(self, other: Tally) -> None:
        self.views += other.views
        self.over += other.over
        self.floor_over += other.floor_over
        self.worst = max(self.worst, other.worst)
        self.peak = max(self.peak, other.peak)


def _feed(fmt: str, messages: Sequence[object], budget: int, system: object = None) -> Tally:
    counter = cf.TiktokenCounter(bl.encoding())
    manager = cf.ContextManager(budget, counter=counter, format=fmt, system=system)  # type: ignore[arg-type]
    tally = Tally()
    for message in messages:
        manager.add(message)
        role = message.get("role") if isinstance(message, dict) else None
        kind = message.get("type") if isinstance(message, dict) else None
        if role != "assistant" and kind not in ("function_call", "message"):
            continue
        manager.view()
        tally.views += 1
        tokens = manager.tokens()
        tally.peak = max(tally.peak, tokens / budget)
        report = manager.last_report
        floor = report.protected_tokens if report is not None else 0
        if tokens > budget:
            if floor > budget:
                tally.floor_over += 1
            else:
                tally.over += 1
                tally.worst = max(tally.worst, tokens - budget)
    return tally


def replay_record(record: Record) -> dict[tuple[str, int], Tally]:
    """Every format and budget for one conversation (rule 1)."""
    out: dict[tuple[str, int], Tally] = {}
    for fmt in FORMATS:
        body = {"messages": record.messages}  # Anthropic's system prompt: the body's
        converted = cf.convert(body if fmt == "anthropic" else record.messages, fmt)
        system = None
        if isinstance(converted, dict):
            system = converted.get("system")
            items = converted.get("messages") or converted.get("input") or []
        else:
            items = converted
        for budget in BUDGETS:
            out[(fmt, budget)] = _feed(fmt, list(items), budget, system)
    return out


def replay_long(requests: int) -> dict[int, Tally]:
    """Rule 3."""
    history: list[Wire] = [synthetic.system_prompt(__import__("random").Random(7))]
    stream = synthetic.turns(7)
    for _ in range(requests):
        history += next(stream)
    return {budget: _feed("openai-chat", history, budget) for budget in BUDGETS}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--per-file", type=int, default=None)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--long", type=int, default=2_000)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    records = corpus(CORPUS, args.per_file)
    totals: dict[tuple[str, int], Tally] = {}
    for found in parallel_map(replay_record, records, args.workers, "replay", False):
        for key, tally in found.items():
            totals.setdefault(key, Tally()).add(tally)
    long = replay_long(args.long)
    command = ".venv/bin/python -m bench.replay" + (
        f" --per-file {args.per_file}" if args.per_file else ""
    )
    header = [
        "source",
        "format",
        "budget",
        "views",
        "over budget (floor fits)",
        "worst excess",
        "floor alone over",
        "peak / budget",
    ]
    rows = [
        [
            f"corpus ({len(records)} conversations)",
            fmt,
            f"{budget:,}",
            f"{t.views:,}",
            t.over,
            t.worst,
            t.floor_over,
            f"{t.peak:.2f}",
        ]
        for (fmt, budget), t in sorted(totals.items())
    ]
    rows += [
        [
            f"generated loop ({args.long:,} turns)",
            "openai-chat",
            f"{budget:,}",
            f"{t.views:,}",
            t.over,
            t.worst,
            t.floor_over,
            f"{t.peak:.2f}",
        ]
        for budget, t in long.items()
    ]
    lines = ["## The hard ceiling in the loop", "", f"Command: `{command}` ({machine()}).", ""]
    lines += [*(__doc__ or "").split("Rules:", 1)[1].strip("\n").splitlines(), ""]
    lines += table(header, rows, "ll" + "r" * (len(header) - 2))
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.no_write:
        write_section(text, ROOT / "BENCHMARKS.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
