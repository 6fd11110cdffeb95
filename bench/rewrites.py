"""Prefix rewrites and cache-priced cost of a long agent loop with big tool outputs.

Usage: .venv/bin/python -m bench.rewrites [--turns N] [--no-write]

Rules:
1. One agent loop of `--turns` requests: each turn the agent calls a tool and gets a
   ~2,500-token file view back (distinct content every turn), as a coding agent reading
   files does. The budget is 8,000 or 32,000 tokens (exact o200k counts).
2. Strategies: trim_messages every turn (strategy "last", include_system, exact counter),
   ContextManager with a fixed low-water mark (`adapt=False`: before) and with the
   low-water mark adapting to the typical turn (the default: after).
3. Billing as in the cost section (`bench.billing`): the longest common prefix with the
   previous request is a cache read, the rest a write; a prefix rewrite is a request
   whose previous request is not a prefix of it.
"""

from __future__ import annotations

import argparse
import random
import sys

import contextfold as cf

from . import baselines as bl
from .billing import PRICINGS, Bill, Manager, Meter, Previous, Strategy, TrimIncremental, bill_one
from .common import ROOT, Wire, machine, table, write_section

BUDGETS = (8_000, 32_000)
LINES = 125
STRATEGIES = (
    "trim_messages every turn",
    "ContextManager, fixed low-water mark (before)",
    "ContextManager, adaptive low-water mark (after)",
)


def _view(turn: int, rng: random.Random) -> str:
    return "".join(
        f"{i + 1:4d}  result_{turn}_{i} = handler_{rng.getrandbits(24):06x}(request, {i})\n"
        for i in range(LINES)
    )


def turns(seed: int = 3) -> list[list[Wire]]:
    """The loop's turns after the opening (rule 1)."""
    rng = random.Random(seed)
    out: list[list[Wire]] = []
    for turn in range(10_000):
        call: Wire = {
            "id": f"call_{turn}",
            "type": "function",
            "function": {"name": "read_file", "arguments": f'{{"path": "src/m{turn}.py"}}'},
        }
        out.append(
            [
                {"role": "assistant", "content": None, "tool_calls": [call]},
                {"role": "tool", "tool_call_id": f"call_{turn}", "content": _view(turn, rng)},
            ]
        )
    return out


def run(requests: int, budget: int) -> dict[str, Bill]:
    """Bill `requests` turns of the loop for every strategy (rules 2-3)."""
    enc = bl.encoding()
    meter = Meter(cf.TiktokenCounter(enc))
    strategies: dict[str, Strategy] = {
        STRATEGIES[0]: TrimIncremental(budget, bl.lc_exact_counter(enc, memo=True)),
        STRATEGIES[1]: Manager(
            cf.ContextManager(
                budget, counter=cf.TiktokenCounter(enc), policy=cf.Policy(adapt=False)
            )
        ),
        STRATEGIES[2]: Manager(cf.ContextManager(budget, counter=cf.TiktokenCounter(enc))),
    }
    bills = {name: Bill() for name in strategies}
    previous: Previous = {}
    history: list[Wire] = [
        {"role": "system", "content": "You are a coding agent. Read the files you need."},
        {"role": "user", "content": "Find where invoice totals are rounded and fix it."},
    ]
    stream = iter(turns())
    for _ in range(requests):
        history += next(stream)
        for name, strategy in strategies.items():
            request = strategy.request(history)
            bill_one(bills[name], meter, previous, name=name, request=request, budget=budget)
    return bills


def section(results: dict[int, dict[str, Bill]], requests: int, command: str) -> str:
    """The BENCHMARKS.md section."""
    out = ["## Prefix rewrites in a long loop", ""]
    out.append(f"Command: `{command}` ({machine()}).")
    out += ["", *(__doc__ or "").split("Rules:", 1)[1].strip("\n").splitlines(), ""]
    header = [
        "budget",
        "strategy",
        "input tokens",
        "cache reads",
        "rewrites / 100 turns",
        "over budget",
        *(f"cost vs trim: {p.name.split(' (')[0]}" for p in PRICINGS),
    ]
    rows = []
    for budget, bills in results.items():
        trim = bills[STRATEGIES[0]]
        for name, b in bills.items():
            rows.append(
                [
                    f"{budget:,}",
                    name,
                    f"{b.tokens:,}",
                    f"{b.reads / b.tokens:.0%}",
                    f"{100 * b.rewrites / b.requests:.0f}",
                    b.over_budget,
                    *(f"{b.cost(p) / trim.cost(p):.2f}x" for p in PRICINGS),
                ]
            )
    out += table(header, rows, "ll" + "r" * (len(header) - 2))
    out += ["", *NOTES, ""]
    return "\n".join(out)


NOTES = (
    "At 8,000 tokens a turn is about a third of the window: whatever a compaction leaves,",
    "the next turn or the one after crosses the high-water mark, so every strategy rewrites",
    "the prefix nearly every turn there; contextfold still sends fewer tokens (the old reads",
    "are folded, not carried) and the adaptive mark, which compacts deeper when a turn",
    "cannot fit twice, wins more cache reads. The 0.25x-of-trimming cost target holds at",
    "32,000 (Anthropic pricing) and is missed at 8,000. At 32,000 the adaptive mark changes",
    "nothing: 60% of the budget already leaves room for several turns.",
    "",
    "Why 0.25x is out of reach at 8,000 for any strategy (arithmetic on the table): trim",
    "sends about 7,650 tokens a turn at 8,000 (3,060,078 over 400 turns), 99% of them",
    "written to the cache at 1.25x (Anthropic), about 9,500 token-units a turn. Every turn",
    "brings a new ~2,500-token file view that the model must see whole at least once, so",
    "any strategy writes at least those tokens at 1.25x, 3,125 token-units a turn: 0.33x",
    "of trimming before a single token of history is carried. At 32,000 a turn is a",
    "twelfth of the window instead of a third, and the target holds.",
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--turns", type=int, default=400)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    results = {budget: run(args.turns, budget) for budget in BUDGETS}
    command = ".venv/bin/python -m bench.rewrites" + (
        f" --turns {args.turns}" if args.turns != 400 else ""
    )
    text = section(results, args.turns, command)
    print(text)
    if not args.no_write:
        write_section(text, ROOT / "BENCHMARKS.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
