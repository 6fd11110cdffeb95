"""How much of the newest tool output survives, and what it costs an agent loop.

Usage: .venv/bin/python -m bench.newest [--turns N]   (prints; run it on two trees with
PYTHONPATH=<tree>/src to compare them)

Rules:
1. One-shot: a 1.3 MB grep result (about 334,000 tokens) is the newest tool output; after
   it comes nothing, the user's next turn, or the agent's reply and the user's next turn.
   `cf.compact` at 25% and 50% of the conversation: tokens after, and how many of them
   the newest result keeps.
2. Loop: a `ContextManager` (budget 8,000 and 32,000 tokens) reads a file of 20-400 lines
   (about 33 tokens a line) every turn; every third turn the agent replies and the user
   answers. Compactions run and the mean view per turn.
"""

from __future__ import annotations

import argparse
import random
from typing import Any

import contextfold as cf

MODEL = "gpt-4o"
AFTER: dict[str, list[dict[str, Any]]] = {
    "nothing (it is the tail)": [],
    "the user's turn": [{"role": "user", "content": "Thanks, now fix it."}],
    "the agent's reply, the user's turn": [
        {"role": "assistant", "content": "Found several handlers."},
        {"role": "user", "content": "Thanks, now fix it."},
    ],
}


def source(path: str, lines: int) -> str:
    """A file of about 33 tokens a line."""
    return "\n".join(
        f"def {path}_f{i}(value: int) -> int:  # line {i} of {path}: return value + {i * 7}"
        for i in range(lines)
    )


def _call(call_id: str) -> dict[str, Any]:
    function = {"name": "read_file", "arguments": "{}"}
    return {"role": "assistant", "content": None,
            "tool_calls": [{"id": call_id, "type": "function", "function": function}]}  # fmt: skip


def one_shot(lines: int = 12_000) -> list[tuple[str, float, int, int, int]]:
    """Rule 1: (what follows, share, budget, tokens after, tokens of the newest result)."""
    grep = "\n".join(
        f"src/module_{i}.py:{i * 7}: def handler_{i}(request, context): "
        f"return process(request.payload, retries={i % 5})"
        for i in range(lines)
    )
    head = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "Find the handler that retries 3 times."},
        _call("c1"),
        {"role": "tool", "tool_call_id": "c1", "content": grep},
    ]
    rows = []
    for name, after in AFTER.items():
        payload = head + after
        tokens = cf.count_tokens(payload, MODEL)
        for share in (0.25, 0.5):
            budget = int(tokens * share)
            result = cf.compact(payload, budget, MODEL)
            out = result.payload
            kept = next(m for m in out if m.get("tool_call_id") == "c1")
            newest = cf.count_tokens([kept], MODEL)
            rows.append((name, share, budget, result.report.tokens_after, newest))
    return rows


def loop(budget: int, turns: int, seed: int = 5) -> tuple[int, int, int]:
    """Rule 2: (compactions, mean view, largest view)."""
    rng = random.Random(seed)
    manager = cf.ContextManager(budget, MODEL, system="You are a coding agent.")
    manager.extend([{"role": "user", "content": "Review the service. Never push to main."}])
    compactions, views, last = 0, [], None
    for t in range(turns):
        result = {"role": "tool", "tool_call_id": f"c{t}",
                  "content": source(f"m{t}", rng.randint(20, 400))}  # fmt: skip
        manager.extend([_call(f"c{t}"), result])
        if t % 3 == 2:
            manager.extend(
                [
                    {"role": "assistant", "content": f"Read m{t}; it looks fine."},
                    {"role": "user", "content": f"Good, continue with file {t + 1}."},
                ]
            )
        manager.view()
        report = manager.last_report
        compactions += report is not None and report is not last and report.compacted
        last = report
        views.append(manager.tokens())
    return compactions, sum(views) // len(views), max(views)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    args = parser.parse_args(argv)
    print("| newest result followed by | budget | tokens after | newest result keeps |")
    print("|---|--:|--:|--:|")
    for name, share, budget, after, newest in one_shot():
        print(f"| {name} | {budget:,} ({share:.0%}) | {after:,} | {newest:,} |")
    print(f"\n| loop budget | compactions in {args.turns} turns | mean view | largest view |")
    print("|--:|--:|--:|--:|")
    for budget in (8_000, 32_000):
        compactions, mean, most = loop(budget, args.turns)
        print(f"| {budget:,} | {compactions} | {mean:,} | {most:,} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
