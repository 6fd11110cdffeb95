"""Heuristic vs exact o200k token counts, per content class; writes a BENCHMARKS.md section.

Usage: .venv/bin/python -m bench.heuristic_accuracy [--corpus DIR] [--no-write]

Every message of the shared corpus (OpenAI chat JSONL, read with a minimal converter so the
bench does not depend on an adapter) and every sample in tests/tokens/samples is counted
with the same OpenAI chat overheads four ways: exact (tiktoken o200k_base), the heuristic
(HeuristicCounter), chars/4, and the best any per-piece rule of kind and length can do
(bucket means fitted on these very messages, see `RulesCeiling`). Errors are
(estimate - exact) / exact per message; a message's class is `content_class` of its text.
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
import tracemalloc
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import contextfold as cf
from contextfold._tokens import _bpe, _heuristic, _pretokenize
from contextfold._tokens._accounting import Accountant
from contextfold._tokens._images import GPT_4O
from contextfold._tokens._profiles import OPENAI_CHAT

from .common import CORPUS, ROOT, write_section

SAMPLES = ROOT / "tests" / "tokens" / "samples"
CORPUS_FILES = {"swe": "swe_agent_claude4_sonnet.jsonl", "tau": "tau_bench_gpt4o_airline.jsonl"}
SECTION = "## Token counting: heuristic vs exact"
SEPARATOR = "\n---8<---\n"
TARGET_UNDER = -0.05
TARGET_P95 = 0.15


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
    for short, file in CORPUS_FILES.items():
        path = directory / file
        if not path.exists():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            for wire in json.loads(line)["messages"]:
                message = from_chat(wire)
                text = cf._messages.message_text(message)
                yield Case(f"corpus {short}", _heuristic.content_class(text), message)


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

    @property
    def on_target(self) -> bool:
        slack = 1e-9  # a margin that lifts the worst to exactly -5% meets the target
        return self.worst_under >= TARGET_UNDER - slack and self.p95_abs <= TARGET_P95


def summarize(errors: list[float]) -> Row:
    ordered = sorted(abs(e) for e in errors)
    p95 = ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]
    under = sum(1 for e in errors if e < TARGET_UNDER)
    return Row(len(errors), statistics.fmean(errors), p95, min(0.0, *errors), under)


class RulesCeiling:
    """The best a rule of piece kind, lead, case and length can do: its exact mean here.

    Each o200k piece goes to a bucket; a bucket's price is the mean exact token count of its
    pieces over all the messages measured (fitted in-sample, so no rule of these features
    can do better on average); a text costs the sum of its pieces' prices, rounded up.
    """

    def __init__(self, texts: list[str], exact: Callable[[str], int]) -> None:
        totals: dict[tuple[str, int], list[int]] = {}
        for text in texts:
            for piece in _pretokenize.pieces(text):
                seen = totals.setdefault(self.bucket(piece), [0, 0])
                seen[0] += 1
                seen[1] += exact(piece)
        self.price = {key: tokens / n for key, (n, tokens) in totals.items()}

    @staticmethod
    def bucket(piece: str) -> tuple[str, int]:
        """(kind, length): kind is space, digits, punct or word/<lead>/<case>."""
        if piece.isspace():
            return ("newline" if "\n" in piece or "\r" in piece else "space"), len(piece)
        if piece[0].isdigit():
            return "digits", len(piece)
        lead = "" if piece[0].isalpha() else piece[0]
        core = piece[len(lead) :].split("'", maxsplit=1)[0]
        if not core.isalpha():
            return "punct", min(len(piece), 30)
        case = (
            "other-script" if not core.isascii()
            else "lower" if core.islower()
            else "capital" if core.istitle()
            else "upper" if core.isupper()
            else "mixed"
        )  # fmt: skip
        where = "space" if lead == " " else "none" if not lead else "punct"
        return f"word/{where}/{case}", min(len(core), 30)

    def count_text(self, text: str) -> int:
        return math.ceil(sum(self.price[self.bucket(p)] for p in _pretokenize.pieces(text)))


def _texts(message: cf.Message) -> list[str]:
    found = [message.role, *([message.name] if message.name else [])]
    for part in message.parts:
        if isinstance(part, cf.ToolCall):
            found += [part.id, part.name, part.arguments]
        elif isinstance(part, cf.ToolResult):
            found += [part.call_id, *(p.text for p in part.parts if isinstance(p, cf.Text))]
        elif isinstance(part, cf.Text):
            found.append(part.text)
    return found


@dataclass(frozen=True)
class Group:
    """One source and class: each estimator's row, and the rules ceiling with a margin."""

    ours: Row
    naive: Row
    rules: Row
    margin: float
    """The smallest class factor (minus 1) lifting the rules' worst undercount to -5%."""
    rules_margin: Row


def with_margin(errors: list[float]) -> tuple[float, Row]:
    """The rules errors after the smallest factor that removes undercounts past -5%."""
    factor = max(1.0, (1 + TARGET_UNDER) / (1 + min(errors)))
    return factor - 1, summarize([(1 + e) * factor - 1 for e in errors])


Results = dict[tuple[str, str], Group]


def measure(cases: list[Case]) -> Results:
    exact = cf.TiktokenCounter("o200k_base")
    heuristic = cf.HeuristicCounter()
    quarter = Accountant(lambda t: math.ceil(len(t) / 4), OPENAI_CHAT, GPT_4O)
    texts = [t for case in cases for t in _texts(case.message)]
    ceiling = Accountant(RulesCeiling(texts, exact.count_text).count_text, OPENAI_CHAT, GPT_4O)
    groups: dict[tuple[str, str], tuple[list[float], list[float], list[float]]] = {}
    for case in cases:
        truth = exact.count(case.message)
        ours, naive, rules = groups.setdefault((case.source, case.klass), ([], [], []))
        ours.append(heuristic.count(case.message) / truth - 1)
        naive.append(quarter.message(case.message) / truth - 1)
        rules.append(ceiling.message(case.message) / truth - 1)
    return {
        key: Group(summarize(a), summarize(b), summarize(c), *with_margin(c))
        for key, (a, b, c) in sorted(groups.items())
    }


def _reset() -> None:
    """Forget the vocabulary, the pattern and every cached piece count."""
    for loader in (_bpe.o200k_ranks, _pretokenize._pattern, _pretokenize._ranges_by_group):
        loader.cache_clear()
    _heuristic.piece_counts.cache_clear()


@dataclass(frozen=True)
class Speed:
    first_use_s: float
    first_use_mb: float
    cold: float
    """Characters per second with no piece counted yet (vocabulary already loaded)."""
    warm: float
    tiktoken: float


def speed(texts: list[str], rounds: int = 5) -> Speed:
    """Best of `rounds` passes for each, one thread; first use measured on its own."""
    chars = sum(map(len, texts))
    encoding = cf.TiktokenCounter("o200k_base").encoding
    _reset()
    tracemalloc.start()
    _heuristic.count_text("warm up")
    memory = tracemalloc.get_traced_memory()[0] / 1e6
    tracemalloc.stop()
    _reset()
    start = time.perf_counter()
    _heuristic.count_text("warm up")
    first_use = time.perf_counter() - start

    def seconds(fn: Callable[[str], object]) -> float:
        start = time.perf_counter()
        for text in texts:
            fn(text)
        return time.perf_counter() - start

    def tiktoken(text: str) -> object:
        return encoding.encode(text, disallowed_special=())

    count = _heuristic.count_text
    best = [math.inf] * 3
    for _ in range(rounds):  # interleaved, so a busy moment slows all three alike
        _heuristic.piece_counts().clear()
        times = (seconds(count), seconds(count), seconds(tiktoken))
        best = [min(a, b) for a, b in zip(best, times, strict=True)]
    return Speed(first_use, memory, *(chars / t for t in best))


def fmt(x: float) -> str:
    return f"{x * 100:+.1f}%"


def _row(source: str, klass: str, group: Group) -> str:
    ours, naive, rules, fixed = group.ours, group.naive, group.rules, group.rules_margin
    return (
        f"| {source} | {klass} | {ours.n} | {fmt(ours.mean)} | {ours.p95_abs * 100:.1f}% "
        f"| {fmt(ours.worst_under)} | {ours.under_5} | {fmt(naive.mean)} "
        f"| {naive.p95_abs * 100:.1f}% | {fmt(naive.worst_under)} | {naive.under_5} "
        f"| {rules.p95_abs * 100:.1f}% | {fmt(rules.worst_under)} | {rules.under_5} "
        f"| {fmt(group.margin)} | {fixed.p95_abs * 100:.1f}% |"
    )


def _verdict(results: Results, row: Callable[[Group], Row]) -> str:
    missed = [f"{s}/{k}" for (s, k), group in results.items() if not row(group).on_target]
    return f"missed by {', '.join(missed)}" if missed else "met by every class"


def render(results: Results, rates: Speed) -> str:
    lines = [
        SECTION,
        "",
        f"Command: `.venv/bin/python -m bench.heuristic_accuracy` ({datetime.date.today()}; "
        f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores, "
        "shared with other jobs, so speeds are the best of 5 interleaved rounds).",
        "",
        "Error = (estimate - exact) / exact per message, with OpenAI chat overheads on both "
        "sides; exact = tiktoken `o200k_base`. Class = `content_class` of the message text "
        "(samples: their file). A negative worst underestimate is the largest undercount. "
        "*Rules ceiling*: every o200k piece priced at the mean exact count of its bucket "
        "(space, digits, punctuation, or word by lead character, case and length), fitted "
        "on these same messages: the best any per-piece rule of those features can do on "
        "average. *+ class margin*: the smallest factor per source and class that lifts its "
        "worst undercount to -5%, and the p95 |error| the rules ceiling has with it.",
        "",
        "| source | class | n | heuristic mean | heuristic p95 abs | heuristic worst under "
        "| heuristic n under >5% | chars/4 mean | chars/4 p95 abs | chars/4 worst under "
        "| chars/4 n under >5% | rules ceiling p95 abs | rules ceiling worst under "
        "| rules ceiling n under >5% | + class margin | + class margin p95 abs |",
        "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
        *(_row(s, k, group) for (s, k), group in results.items()),
        "",
        "Target per class: no message under-counted by more than 5% and p95 |error| <= 15%: "
        f"heuristic {_verdict(results, lambda g: g.ours)}; "
        f"chars/4 {_verdict(results, lambda g: g.naive)}; "
        f"rules ceiling {_verdict(results, lambda g: g.rules)}; "
        f"rules ceiling + class margin {_verdict(results, lambda g: g.rules_margin)}.",
        "",
        "The heuristic is o200k's pre-tokenizer (standard `re`) and byte-pair merges over the "
        "vocabulary that ships in the package, in pure Python; nothing is fitted to this "
        "corpus, so there is no held-out split to make. Before it (the character-class rules "
        "estimator of commit 311dc07), 94 corpus messages were under-counted by more than 5% "
        "(worst -11.8%), p95 |error| reached 18-24% on prose, ids, listings, CJK and code "
        "samples, and it ran at 0.14-0.20x tiktoken's speed (two runs on this machine).",
        "",
        f"Speed over the corpus texts, one thread: heuristic {rates.cold / 1e6:.2f} M chars/s "
        f"with no piece cached, {rates.warm / 1e6:.2f} M chars/s with its piece cache warm; "
        f"tiktoken `encode` {rates.tiktoken / 1e6:.2f} M chars/s (heuristic/tiktoken = "
        f"{rates.cold / rates.tiktoken:.2f} cold, {rates.warm / rates.tiktoken:.2f} warm). "
        f"First use loads the vocabulary and builds the pattern: {rates.first_use_s:.2f} s, "
        f"{rates.first_use_mb:.0f} MB, once per process. Counters also cache counts per "
        "text, so recounting a history costs lookups either way.",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args(argv)
    cases = [*corpus_cases(args.corpus), *sample_cases()]
    results = measure(cases)
    texts = [cf._messages.message_text(c.message) for c in cases if c.source != "samples"]
    section = render(results, speed(texts or [cf._messages.message_text(c.message) for c in cases]))
    print(section)
    if not args.no_write:
        write_section(section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
