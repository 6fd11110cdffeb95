"""Shared plumbing for the benchmarks: timing, the corpus, markdown and BENCHMARKS.md.

Rules:
1. Timings are interleaved (every system runs once per round, in turn) and summarized by
   medians; ratios are medians of the per-round ratios, so a noisy moment on the shared
   machine hits both sides of a comparison.
2. A section of BENCHMARKS.md is everything from its `## ` heading to the next one; writing
   a section replaces just that span and leaves the others (other helpers' too) alone.
3. Every section states its command, date and machine.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import os
import platform
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(os.environ.get("CONTEXTFOLD_CORPUS", ROOT.parent / "shared" / "corpus"))
CORPUS_FILES = ("swe_agent_claude4_sonnet.jsonl", "tau_bench_gpt4o_airline.jsonl")
MARKDOWN = ROOT / "BENCHMARKS.md"
PLOTS = ROOT / "bench" / "plots"

Wire = dict[str, Any]


@dataclass(frozen=True)
class Record:
    """One corpus conversation."""

    id: str
    source: str
    """`swe` or `tau`."""
    messages: list[Wire]


def corpus(directory: Path = CORPUS, per_file: int | None = None) -> list[Record]:
    """Corpus conversations (the first `per_file` of each file), [] when absent."""
    out: list[Record] = []
    for name in CORPUS_FILES:
        path = directory / name
        if not path.exists():
            continue
        lines = [x for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
        for line in lines[:per_file]:
            data = json.loads(line)
            out.append(Record(str(data["id"]), name.split("_", 1)[0], data["messages"]))
    return out


# --- timing ------------------------------------------------------------------------------


def clock(fn: Callable[[], object]) -> float:
    """Seconds one call takes, with the garbage collector paused (as `timeit` does)."""
    gc.disable()
    try:
        start = time.perf_counter()
        fn()
        return time.perf_counter() - start
    finally:
        gc.enable()


def interleaved(
    systems: dict[str, Callable[[], object]], rounds: int, tick: Callable[[], None] = lambda: None
) -> dict[str, list[float]]:
    """Seconds per run of each system; each round runs every system once (rule 1)."""
    times: dict[str, list[float]] = {name: [] for name in systems}
    for round_ in range(rounds):
        order = list(systems.items())
        if round_ % 2:
            order.reverse()
        for name, fn in order:
            times[name].append(clock(fn))
            tick()
    return times


def median_ratio(numerator: Sequence[float], denominator: Sequence[float]) -> float:
    """Median of per-round ratios."""
    return statistics.median(a / b for a, b in zip(numerator, denominator, strict=True))


def peak_memory(fn: Callable[[], object]) -> int:
    """Peak bytes allocated by one call (tracemalloc; allocations made before it excluded)."""
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def progress(total: int, desc: str, enabled: bool = True) -> Any:
    """A tqdm progress bar on stderr (a silent stand-in when tqdm is missing or disabled)."""
    try:
        from tqdm import tqdm
    except ImportError:
        enabled = False
    if not enabled:
        return _Silent()
    return tqdm(total=total, desc=desc, file=sys.stderr, leave=False, dynamic_ncols=True)


class _Silent:
    def update(self, n: int = 1) -> None:
        """Nothing."""

    def close(self) -> None:
        """Nothing."""


# --- markdown ----------------------------------------------------------------------------


def machine() -> str:
    """One line about where the numbers come from."""
    return (
        f"{datetime.date.today()}; Python {platform.python_version()}, {platform.machine()}, "
        f"{os.cpu_count()} cores, {platform.system()}; shared machine, numbers are medians"
    )


def table(header: Sequence[str], rows: Iterable[Sequence[object]], align: str = "") -> list[str]:
    """Markdown table lines; `align` has one of l/r per column (default: first l, rest r)."""
    spec = align or "l" + "r" * (len(header) - 1)
    rule = ["---" if a == "l" else "--:" for a in spec]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(rule) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines


def seconds(value: float) -> str:
    """A duration with a sensible unit."""
    if value < 1e-3:
        return f"{value * 1e6:.0f} µs"
    if value < 1:
        return f"{value * 1e3:.1f} ms"
    return f"{value:.2f} s"


def command_line(module: str, argv: list[str] | None) -> str:
    """The command that made a section: `python -m <module>` and its arguments."""
    return " ".join(["python -m", module, *(argv if argv is not None else sys.argv[1:])])


def publish(section: str, write: bool) -> None:
    """Print a section and, when `write`, put it in BENCHMARKS.md (`write_section`)."""
    print(section)
    if write:
        write_section(section)


def write_section(section: str, markdown: Path = MARKDOWN) -> None:
    """Replace (or append) the section whose heading is `section`'s first line (rule 2)."""
    heading = section.splitlines()[0]
    text = (
        markdown.read_text(encoding="utf-8") if markdown.exists() else "# contextfold benchmarks\n"
    )
    start = text.find(heading + "\n")
    if start < 0:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        end = text.find("\n## ", start + len(heading))
        text = text[:start] + section.rstrip("\n") + "\n" + (text[end:] if end >= 0 else "")
    markdown.write_text(text.rstrip("\n") + "\n", encoding="utf-8")


def chunks(items: Sequence[Wire], parts: int) -> Iterator[list[Wire]]:
    """`items` split into `parts` consecutive, nearly equal pieces."""
    size, extra = divmod(len(items), parts)
    start = 0
    for index in range(parts):
        end = start + size + (1 if index < extra else 0)
        yield list(items[start:end])
        start = end


def parallel_map(
    fn: Callable[[Record], Any], records: Sequence[Record], workers: int, desc: str, show: bool
) -> list[Any]:
    """`fn` over `records` in `workers` processes (in order), with a progress bar."""
    bar = progress(len(records), desc, show)
    try:
        if workers <= 1:
            out = []
            for record in records:
                out.append(fn(record))
                bar.update(1)
            return out
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=workers) as pool:
            results = []
            for result in pool.map(fn, records, chunksize=1):
                results.append(result)
                bar.update(1)
            return results
    finally:
        bar.close()


Shares = list[tuple[str, float]]


def hot_spots(fn: Callable[[], object], top: int = 10) -> tuple[Shares, Shares]:
    """Where one call spends its time, by contextfold function: each function's own time
    plus the time of the library code (regex, json, tiktoken, builtins) it calls, as a
    share of the total; and the same summed by module. Profiled with cProfile, which
    inflates small Python calls."""
    import cProfile
    import pstats

    profiler = cProfile.Profile()
    profiler.runcall(fn)
    stats: dict[Any, Any] = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    total = max(1e-9, sum(row[2] for row in stats.values()))
    credit: dict[str, float] = {}
    for key, row in stats.items():
        for owner, weight in _owners(stats, key, 0).items():
            credit[owner] = credit.get(owner, 0.0) + weight * row[2]
    modules: dict[str, float] = {}
    for name, value in credit.items():
        module = name.split(":", 1)[0]
        modules[module] = modules.get(module, 0.0) + value
    ranked = sorted(credit.items(), key=lambda kv: -kv[1])[:top]
    by_module = sorted(modules.items(), key=lambda kv: -kv[1])[:top]
    return [(n, v / total) for n, v in ranked], [(n, v / total) for n, v in by_module]


_MARK = "/src/contextfold/"


def _owners(stats: dict[Any, Any], key: Any, depth: int) -> dict[str, float]:
    """The contextfold functions a profiled function's time belongs to, with weights."""
    path, line, name = key
    if _MARK in path:
        label = f"{name}@{line}" if name.startswith("<") else name
        return {f"{path.split(_MARK, 1)[1]}:{label}": 1.0}
    callers = stats[key][4]
    spent = sum(c[3] for c in callers.values())
    if depth > 8 or not callers or spent <= 0:
        return {}
    out: dict[str, float] = {}
    for caller, row in callers.items():
        if caller not in stats:
            continue
        for owner, weight in _owners(stats, caller, depth + 1).items():
            out[owner] = out.get(owner, 0.0) + weight * row[3] / spent
    return out


def header(heading: str, command: str) -> list[str]:
    """A section's first lines: its heading, then its command, date and machine (rule 3)."""
    return [heading, "", f"Command: `{command}` ({machine()}).", ""]


Times = dict[str, list[float]]
"""CPU seconds per round, by system."""
Pairs = Sequence[tuple[Sequence[Wire], int]]
"""(messages, budget) inputs of one sized benchmark."""


def ratio_rows(results: dict[str, Times], rows: Sequence[str], base: str) -> list[list[str]]:
    """Per row, per input: the median CPU and its median ratio to `base` (rule 1)."""
    names = list(results)
    return [
        [
            row,
            *(
                f"{seconds(statistics.median(results[n][row]))} "
                f"({median_ratio(results[n][row], results[n][base]):.2f}x)"
                for n in names
            ),
        ]
        for row in rows
    ]


def sized_main(
    module: str,
    argv: list[str] | None,
    inputs: Callable[[int], dict[str, Pairs]],
    measure: Callable[[Pairs, int], Times],
    section: Callable[[dict[str, Times], str], str],
    *,
    check: Callable[[Pairs], None] | None = None,
) -> int:
    """`python -m bench.<module> [--size N] [--rounds R] [--no-write]`: measure each input
    (checked first when `check` is given), print the section and write it (rule 2)."""
    parser = argparse.ArgumentParser(prog=f"python -m bench.{module}")
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    results = {}
    for name, pairs in inputs(args.size).items():
        if check is not None:
            check(pairs)
        results[name] = measure(pairs, args.rounds)
    publish(section(results, command_line(f"bench.{module}", argv)), not args.no_write)
    return 0
