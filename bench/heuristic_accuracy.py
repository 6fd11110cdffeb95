"""Heuristic vs exact o200k token counts, per content class; writes a BENCHMARKS.md section.

Usage: .venv/bin/python -m bench.heuristic_accuracy [--corpus DIR] [--no-write]

Every message of the shared corpus (OpenAI chat JSONL, read with a minimal converter so the
bench does not depend on an adapter) and every sample in tests/tokens/samples is counted
three ways with the same OpenAI chat overheads: exact (tiktoken o200k_base), the heuristic,
and chars/4. Errors are (estimate - exact) / exact per message; a message's class is the
heuristic's own `content_class` of its text (samples: their file's class).
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import contextfold as cf
from contextfold._tokens import _heuristic
from contextfold._tokens._accounting import Accountant
from contextfold._tokens._images import GPT_4O
from contextfold._tokens._profiles import OPENAI_CHAT

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "tests" / "tokens" / "samples"
CORPUS = Path(os.environ.get("CONTEXTFOLD_CORPUS", ROOT.parent / "shared" / "corpus"))
CORPUS_FILES = ("swe_agent_claude4_sonnet.jsonl", "tau_bench_gpt4o_airline.jsonl")
SECTION = "## Token counting: heuristic vs exact"
SEPARATOR = "\n---8<---\n"


@dataclass(frozen=True)
class Case:
    """One message to count, with where it came from and its content class."""

    source: str
    klass: str
    message: cf.Message


def _text_parts(content: object) -> tuple[cf.Part, ...]:
    if isinstance(content, str):
        return (cf.Text(content),) if content else ()
    if isinstance(content, list):
        return tuple(cf.Text(p["text"]) for p in content if p.get("type") == "text")
    return ()


def from_chat(wire: dict[str, object]) -> cf.Message:
    """A neutral Message from one OpenAI chat message (text, tool calls, tool results)."""
    role = str(wire["role"])
    parts = _text_parts(wire.get("content"))
    calls = wire.get("tool_calls") or []
    assert isinstance(calls, list)
    parts += tuple(
        cf.ToolCall(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in calls
    )
    if role == "tool":
        parts = (cf.ToolResult(str(wire["tool_call_id"]), parts),)
    name = wire.get("name")
    return cf.Message(role, parts, name=name if isinstance(name, str) else None)  # type: ignore[arg-type]


def corpus_cases(directory: Path) -> Iterator[Case]:
    for file in CORPUS_FILES:
        path = directory / file
        if not path.exists():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            for wire in json.loads(line)["messages"]:
                message = from_chat(wire)
                text = cf._messages.message_text(message)
                yield Case("corpus", _heuristic.content_class(text), message)


def sample_cases() -> Iterator[Case]:
    for path in sorted(SAMPLES.glob("*.txt")):
        for sample in path.read_text(encoding="utf-8").split(SEPARATOR):
            if sample.strip("\n"):
                yield Case("samples", path.stem, cf.Message("user", (cf.Text(sample.strip("\n")),)))


@dataclass(frozen=True)
class Row:
    n: int
    mean: float
    p95_abs: float
    worst_under: float
    under_5: int
    """Messages under-counted by more than 5%."""


def summarize(errors: list[float]) -> Row:
    ordered = sorted(abs(e) for e in errors)
    p95 = ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]
    under = sum(1 for e in errors if e < -0.05)
    return Row(len(errors), statistics.fmean(errors), p95, min(0.0, *errors), under)


def measure(cases: list[Case]) -> dict[tuple[str, str], tuple[Row, Row]]:
    exact = cf.TiktokenCounter("o200k_base")
    heuristic = cf.HeuristicCounter()
    quarter = Accountant(lambda t: math.ceil(len(t) / 4), OPENAI_CHAT, GPT_4O)
    groups: dict[tuple[str, str], tuple[list[float], list[float]]] = {}
    for case in cases:
        truth = exact.count(case.message)
        ours, naive = groups.setdefault((case.source, case.klass), ([], []))
        ours.append(heuristic.count(case.message) / truth - 1)
        naive.append(quarter.message(case.message) / truth - 1)
    return {key: (summarize(a), summarize(b)) for key, (a, b) in sorted(groups.items())}


def speed(texts: list[str]) -> tuple[float, float]:
    """Characters per second: heuristic (cold caches) and tiktoken `encode`, one thread."""
    chars = sum(map(len, texts))
    encoding = cf.TiktokenCounter("o200k_base").encoding

    def rate(fn: Callable[[str], object]) -> float:
        _heuristic.piece_cost.cache_clear()
        start = time.perf_counter()
        for text in texts:
            fn(text)
        return chars / (time.perf_counter() - start)

    return rate(_heuristic.count_text), rate(lambda t: encoding.encode(t, disallowed_special=()))


def fmt(x: float) -> str:
    return f"{x * 100:+.1f}%"


def render(results: dict[tuple[str, str], tuple[Row, Row]], rates: tuple[float, float]) -> str:
    lines = [
        SECTION,
        "",
        f"Command: `.venv/bin/python -m bench.heuristic_accuracy` ({datetime.date.today()}; "
        f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores).",
        "",
        "Error = (estimate - exact) / exact per message, with OpenAI chat overheads on both "
        "sides; exact = tiktoken `o200k_base`. Class = `content_class` of the message text "
        "(samples: their file). A negative worst underestimate is the largest undercount.",
        "",
        "| source | class | n | heuristic mean | heuristic p95 abs | heuristic worst under "
        "| heuristic n under >5% | chars/4 mean | chars/4 p95 abs | chars/4 worst under "
        "| chars/4 n under >5% |",
        "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for (source, klass), (ours, naive) in results.items():
        lines.append(
            f"| {source} | {klass} | {ours.n} | {fmt(ours.mean)} | {ours.p95_abs * 100:.1f}% "
            f"| {fmt(ours.worst_under)} | {ours.under_5} | {fmt(naive.mean)} "
            f"| {naive.p95_abs * 100:.1f}% | {fmt(naive.worst_under)} | {naive.under_5} |"
        )
    missed = [
        f"{source}/{klass}"
        for (source, klass), (ours, _) in results.items()
        if ours.worst_under < -0.05 or ours.p95_abs > 0.15
    ]
    ours_rate, tik_rate = rates
    lines += [
        "",
        "Target per class: no message under-counted by more than 5% and p95 |error| <= 15%. "
        + (f"Missed by: {', '.join(missed)}." if missed else "Met by every class."),
        "",
        f"Speed over the corpus texts, one thread, cold caches: heuristic "
        f"{ours_rate / 1e6:.2f} M chars/s, tiktoken `encode` {tik_rate / 1e6:.2f} M chars/s "
        f"(heuristic/tiktoken = {ours_rate / tik_rate:.2f}). Counters cache counts per text, so "
        "recounting a history costs lookups either way.",
        "",
    ]
    return "\n".join(lines)


def write_section(markdown: Path, section: str) -> None:
    text = (
        markdown.read_text(encoding="utf-8") if markdown.exists() else "# contextfold benchmarks\n"
    )
    start = text.find(SECTION)
    if start < 0:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        end = text.find("\n## ", start + len(SECTION))
        text = text[:start] + section + (text[end + 1 :] if end >= 0 else "")
    markdown.write_text(text.rstrip("\n") + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args(argv)
    cases = [*corpus_cases(args.corpus), *sample_cases()]
    results = measure(cases)
    texts = [cf._messages.message_text(c.message) for c in cases if c.source == "corpus"]
    section = render(results, speed(texts or [c.message.parts[0].text for c in cases]))  # type: ignore[union-attr]
    print(section)
    if not args.no_write:
        write_section(ROOT / "BENCHMARKS.md", section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
