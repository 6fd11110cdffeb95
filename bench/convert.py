"""Speed of `contextfold.convert` at growing sizes: is it linear (issue 12, fault 7)?

Rules:
1. Inputs are OpenAI chat message lists of n messages in two shapes: agent turns (user,
   assistant tool call, tool result, assistant text) and n consecutive user messages (the
   shape that was quadratic, since Anthropic joins a run of one role into one turn).
2. Each is converted to Anthropic and to Responses; runs are interleaved rounds and the
   table shows medians. Linear means the time per message stays flat as n grows: the last
   column divides it by the time per message at the smallest size.
3. The peer, side by side: LangChain's `convert_to_messages` reading the same chat list into
   its own message objects (a one-way read, less work than a conversion between formats).

Usage: .venv/bin/python -m bench.convert [--quick] [--no-write]
"""

from __future__ import annotations

import argparse
import gc
import statistics
from collections.abc import Callable

import contextfold as cf

from .common import interleaved, machine, seconds, table, write_section

SIZES = (2_000, 8_000, 32_000)
QUICK_SIZES = (500, 2_000)
ROUNDS = 5
HEADING = "## Conversion between formats"
BEFORE = (
    "",
    "Before the fix (commit 5c934b7, `--sizes 2000,8000` on the same machine), one role:",
    "2,000 messages 130.0 ms, 8,000 messages 1.89 s to anthropic (3.63x the time per message).",
)


def agent_turns(n: int) -> list[dict[str, object]]:
    """n messages of agent turns: user, assistant call, tool result, assistant text."""
    out: list[dict[str, object]] = [{"role": "system", "content": "You are an agent."}]
    for i in range(n // 4):
        call = {
            "id": f"call_{i}",
            "type": "function",
            "function": {"name": "ls", "arguments": "{}"},
        }
        out += [
            {"role": "user", "content": f"step {i}: list the files"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"call_{i}", "content": f"a.py b.py {i}"},
            {"role": "assistant", "content": f"Done with step {i}."},
        ]
    return out


def one_role(n: int) -> list[dict[str, object]]:
    """n consecutive user messages (one Anthropic turn)."""
    return [{"role": "user", "content": f"note {i}"} for i in range(n)]


SHAPES: dict[str, Callable[[int], list[dict[str, object]]]] = {
    "agent turns": agent_turns,
    "one role": one_role,
}


def _convert(payload: list[dict[str, object]], target: str) -> Callable[[], object]:
    body = {"messages": payload}  # a body: Anthropic's system prompt has no place in a list
    return lambda: cf.convert(body, target)


def _langchain(payload: list[dict[str, object]]) -> Callable[[], object]:
    from langchain_core.messages import convert_to_messages

    return lambda: convert_to_messages(payload)


def measure(sizes: tuple[int, ...], rounds: int) -> list[list[object]]:
    """Table rows: shape, size, then median seconds per system and the per-message ratio."""
    rows: list[list[object]] = []
    base: dict[tuple[str, str], float] = {}
    for shape, make in SHAPES.items():
        for n in sizes:
            payload = make(n)
            systems: dict[str, Callable[[], object]] = {
                "anthropic": _convert(payload, "anthropic"),
                "openai-responses": _convert(payload, "openai-responses"),
                "langchain": _langchain(payload),
            }
            gc.collect()
            times = {k: statistics.median(v) for k, v in interleaved(systems, rounds).items()}
            per = {k: t / n for k, t in times.items()}
            for key, value in per.items():
                base.setdefault((shape, key), value)
            growth = per["anthropic"] / base[(shape, "anthropic")]
            rows.append(
                [
                    shape,
                    f"{n:,}",
                    seconds(times["anthropic"]),
                    seconds(times["openai-responses"]),
                    seconds(times["langchain"]),
                    f"{growth:.2f}x",
                ]
            )
    return rows


def section(rows: list[list[object]], quick: bool) -> str:
    """The BENCHMARKS.md section."""
    command = ".venv/bin/python -m bench.convert" + (" --quick" if quick else "")
    header = [
        "input",
        "messages",
        "to anthropic",
        "to responses",
        "LangChain convert_to_messages",
        "anthropic time per message vs smallest",
    ]
    lines = [
        HEADING,
        "",
        f"Command: `{command}` ({machine()}).",
        "",
        "`cf.convert` from OpenAI chat, medians of interleaved rounds. Linear: the time per",
        "message stays flat as the input grows (last column; garbage collection of the",
        "growing heap adds a little).",
        *BEFORE,
        "",
        *table(header, rows),
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    """Run and write the section (unless --no-write)."""
    parser = argparse.ArgumentParser(prog="python -m bench.convert")
    parser.add_argument("--quick", action="store_true", help="small sizes, few rounds")
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--sizes", help="comma-separated sizes, e.g. 2000,8000")
    args = parser.parse_args()
    sizes: tuple[int, ...] = QUICK_SIZES if args.quick else SIZES
    rounds = 2 if args.quick else ROUNDS
    if args.sizes:
        sizes = tuple(int(s) for s in args.sizes.split(","))
    text = section(measure(sizes, rounds), args.quick)
    print(text)
    if not args.no_write:
        write_section(text)


if __name__ == "__main__":
    main()
