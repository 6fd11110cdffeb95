"""One-shot compaction of texts built to be slow: one long run of a single shape.

Rules:
1. Each shape is `--size` characters of one pattern (a letter repeated, base64, blanks,
   `a-`, `a.b`, a repeated sentence, digits, `a/`), placed once as a tool result and
   once inside the user's message of a small coding conversation (system prompt, the
   user's task, one read_file call and its result, six short exchanges after it).
2. Each placement is compacted cold (`cf.clear_caches()`, a fresh counter) at a budget of
   300 tokens with the heuristic counter and with tiktoken's o200k_base: CPU seconds of
   one call, whether the result fits, and whether the provider would accept it
   (`cf.validate`). A call that raises is a row saying so: the benchmark records it
   instead of stopping (tiktoken raised a BaseException on a run of ~1M blanks before
   `_tokens/_long_runs`).
3. Scaling shows as the ratio between two sizes run in the same run (by default 200,000
   and ten times it): a quadratic shape takes about 100 times longer, a linear one 10.

Usage: .venv/bin/python -m bench.adversarial [--sizes N [N ...]] [--no-write]
"""

from __future__ import annotations

import argparse
import base64
import random
import time
from collections.abc import Callable
from typing import Any

import contextfold as cf

from .common import command_line, header, publish, table

HEADING = "## Adversarial texts: one long run of a single shape"
BUDGET = 300
SHAPES: dict[str, Callable[[int], str]] = {
    "one letter (x...)": lambda n: "x" * n,
    "base64": lambda n: base64.b64encode(random.Random(7).randbytes(n * 3 // 4)).decode(),
    "blanks (a + spaces + b)": lambda n: "a" + " " * n + "b",
    "a-a-a-": lambda n: "a-" * (n // 2),
    "a.ba.b": lambda n: "a.b" * (n // 3),
    "one sentence repeated": lambda n: (
        "keep the deploy window short and the logs tidy " * (n // 48)
    ),
    "digits": lambda n: "1234 5678 " * (n // 10),
    "a/a/a/": lambda n: "a/" * (n // 2),
}
COUNTERS: dict[str, Callable[[], Any]] = {
    "heuristic": cf.HeuristicCounter,
    "tiktoken": cf.TiktokenCounter,
}


def conversation(blob: str, where: str) -> list[dict[str, Any]]:
    """Rule 1: `blob` as the tool result (`where="tool"`) or in the user's message."""
    call = {"name": "read_file", "arguments": '{"path": "a.py"}'}
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "Fix the bug. " + (blob if where == "user" else "")},
        {"role": "assistant", "content": None,
         "tool_calls": [{"id": "c1", "type": "function", "function": call}]},
        {"role": "tool", "tool_call_id": "c1", "content": blob if where == "tool" else "ok"},
    ]  # fmt: skip
    for i in range(6):
        messages += [
            {"role": "user", "content": f"step {i}"},
            {"role": "assistant", "content": f"done {i}"},
        ]
    return messages


def run(messages: list[dict[str, Any]], counter: Any) -> tuple[float, str]:
    """Rule 2: CPU seconds of one cold call and what came of it."""
    cf.clear_caches()
    start = time.process_time()
    try:
        result = cf.compact(messages, BUDGET, counter=counter)
    except BaseException as exc:  # rule 2: a crash is a result
        if isinstance(exc, KeyboardInterrupt):
            raise
        return time.process_time() - start, f"raised {type(exc).__name__}"
    took = time.process_time() - start
    fits = "fits" if result.report.fits else "does not fit"
    valid = "valid" if not cf.validate(result.payload) else "INVALID"
    return took, f"{fits}, {valid}"


def measure(sizes: list[int]) -> list[list[str]]:
    """Rules 1-3: a row per shape and placement, a column per counter and size."""
    rows = []
    for name, make in SHAPES.items():
        blobs = [make(size) for size in sizes]
        for where in ("tool", "user"):
            row = [name, "tool result" if where == "tool" else "user message"]
            for counter in COUNTERS.values():
                for blob in blobs:
                    took, outcome = run(conversation(blob, where), counter())
                    row.append(f"{took:.2f} s ({outcome})")
            rows.append(row)
    return rows


def section(rows: list[list[str]], sizes: list[int], command: str) -> str:
    lines = header(HEADING, command)
    lines.append(
        f"One cold `cf.compact` at a budget of {BUDGET} tokens of a small conversation "
        "holding one run of the given characters (rules in bench/adversarial.py): CPU "
        "seconds, and whether the result fits and is valid."
    )
    lines.append("")
    columns = [f"{c}, {size:,} chars" for c in COUNTERS for size in sizes]
    lines += table(["shape", "where", *columns], rows, "ll" + "r" * len(columns))
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.adversarial")
    parser.add_argument("--sizes", type=int, nargs="+", default=[200_000, 2_000_000])
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    rows = measure(args.sizes)
    command = command_line("bench.adversarial", argv)
    publish(section(rows, args.sizes, command), not args.no_write)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
