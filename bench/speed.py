"""Speed and scaling of one-shot compaction: contextfold vs LangChain's trim_messages.

Rules:
1. Inputs are synthetic histories (bench/synthetic.py) of each size; the budget is 25% of
   the history's exact o200k tokens, the same number for every system.
2. Each library gets its native input: contextfold the OpenAI chat wire messages (parse and
   render are timed), trim_messages a list of LangChain messages converted beforehand (not
   timed), which favours the baseline.
3. Counters: cheap (contextfold's HeuristicCounter, or a chars/4 counter like LangChain's
   count_tokens_approximately, which the baseline uses) and exact (tiktoken o200k_base,
   the same Encoding object on both sides). contextfold gets a fresh counter every run, so
   its per-text cache starts empty.
4. Runs are interleaved and summarized by medians; ratios are medians of per-round ratios.
   Peak memory is measured separately (tracemalloc slows everything down).
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import contextfold as cf

from . import baselines as bl
from .common import interleaved, median_ratio, peak_memory, progress, seconds, table
from .synthetic import history

CF_DEFAULT_HEURISTIC = "contextfold default, heuristic"
CF_DEFAULT_QUARTER = "contextfold default, chars/4"
CF_DROP_QUARTER = "contextfold drop-oldest, chars/4"
LC_CHEAP = "trim_messages, approximate"
CF_DEFAULT_EXACT = "contextfold default, tiktoken"
CF_DROP_EXACT = "contextfold drop-oldest, tiktoken"
LC_EXACT = "trim_messages, tiktoken"
SYSTEMS = (
    CF_DEFAULT_HEURISTIC,
    CF_DEFAULT_QUARTER,
    CF_DROP_QUARTER,
    LC_CHEAP,
    CF_DEFAULT_EXACT,
    CF_DROP_EXACT,
    LC_EXACT,
)
PAIRS = (
    (CF_DEFAULT_HEURISTIC, LC_CHEAP),
    (CF_DEFAULT_QUARTER, LC_CHEAP),
    (CF_DROP_QUARTER, LC_CHEAP),
    (CF_DEFAULT_EXACT, LC_EXACT),
    (CF_DROP_EXACT, LC_EXACT),
)


@dataclass(frozen=True)
class OneShotConfig:
    """Sizes and how many interleaved rounds each gets."""

    sizes: tuple[int, ...] = (100, 1_000, 10_000, 50_000)
    rounds: tuple[int, ...] = (5, 5, 3, 2)
    memory_sizes: tuple[int, ...] = (1_000, 10_000)
    seed: int = 7


@dataclass
class OneShot:
    """Seconds per run for each (size, system), and peak bytes where measured."""

    times: dict[int, dict[str, list[float]]] = field(default_factory=dict)
    memory: dict[int, dict[str, int]] = field(default_factory=dict)
    budgets: dict[int, tuple[int, int]] = field(default_factory=dict)
    """(exact tokens, budget) per size."""


def _systems(wire: list[Any], budget: int, enc: Any) -> dict[str, Callable[[], object]]:
    lc = bl.lc_messages(wire)
    cheap, exact = bl.lc_cheap_counter(), bl.lc_exact_counter(enc)
    drop = bl.POLICIES["drop-oldest"]
    human = bl.START_ON_HUMAN
    quarter = bl.QuarterCounter()
    return {
        CF_DEFAULT_HEURISTIC: lambda: cf.compact(wire, budget, counter=cf.HeuristicCounter()),
        CF_DEFAULT_QUARTER: lambda: cf.compact(wire, budget, counter=quarter),
        CF_DROP_QUARTER: lambda: cf.compact(wire, budget, counter=quarter, policy=drop),
        LC_CHEAP: lambda: bl.trim(lc, budget, cheap, human),
        CF_DEFAULT_EXACT: lambda: cf.compact(wire, budget, counter=cf.TiktokenCounter(enc)),
        CF_DROP_EXACT: lambda: cf.compact(
            wire, budget, counter=cf.TiktokenCounter(enc), policy=drop
        ),
        LC_EXACT: lambda: bl.trim(lc, budget, exact, human),
    }


def run_one_shot(config: OneShotConfig, show: bool = True) -> OneShot:
    """Time every system at every size; measure peak memory at `memory_sizes`."""
    enc = bl.encoding()
    out = OneShot()
    total = sum(len(SYSTEMS) * r for r in config.rounds) + len(SYSTEMS) * len(config.memory_sizes)
    bar = progress(total, "speed: one-shot", show)
    for size, rounds in zip(config.sizes, config.rounds, strict=True):
        wire = history(size, config.seed)
        tokens = bl.exact_tokens(wire)
        budget = max(1, tokens // 4)
        out.budgets[size] = (tokens, budget)
        systems = _systems(wire, budget, enc)
        if size == min(config.sizes):
            for fn in systems.values():
                fn()  # warm-up: imports, regex compilation, first-call caches
        out.times[size] = interleaved(systems, rounds, lambda: bar.update(1))
        if size in config.memory_sizes:
            out.memory[size] = {}
            for name, fn in systems.items():
                out.memory[size][name] = peak_memory(fn)
                bar.update(1)
    bar.close()
    return out


def growth(result: OneShot, name: str) -> list[tuple[int, int, float]]:
    """(from size, to size, time ratio scaled to 10x the messages) between adjacent sizes."""
    sizes = sorted(result.times)
    out = []
    for small, large in itertools.pairwise(sizes):
        ratio = statistics.median(result.times[large][name]) / statistics.median(
            result.times[small][name]
        )
        out.append((small, large, ratio ** (1 / math.log10(large / small))))
    return out


def one_shot_lines(result: OneShot) -> list[str]:
    """Markdown: times, ratios, growth and memory tables."""
    sizes = sorted(result.times)
    rows = []
    for size in sizes:
        tokens, budget = result.budgets[size]
        rows.append(
            [f"{size:,}", f"{tokens:,}", f"{budget:,}"]
            + [seconds(statistics.median(result.times[size][s])) for s in SYSTEMS]
        )
    lines = table(["messages", "tokens (o200k)", "budget", *SYSTEMS], rows)
    lines += [
        "",
        "Ratio contextfold / trim_messages (median of per-round ratios; < 1 is faster):",
        "",
    ]
    ratio_rows = [
        [f"{cf_name} / {lc_name}"]
        + [
            f"{median_ratio(result.times[s][cf_name], result.times[s][lc_name]):.2f}x"
            for s in sizes
        ]
        for cf_name, lc_name in PAIRS
    ]
    lines += table(["pair", *(f"{s:,}" for s in sizes)], ratio_rows)
    lines += [
        "",
        "Growth: time ratio between adjacent sizes, scaled to 10x the messages "
        "(linear = 10x; target <= 11x):",
        "",
    ]
    spans = [f"{a:,} -> {b:,}" for a, b, _ in growth(result, SYSTEMS[0])]
    lines += table(
        ["system", *spans],
        [[s] + [f"{g:.1f}x" for _, _, g in growth(result, s)] for s in SYSTEMS],
    )
    if result.memory:
        lines += ["", "Peak memory (tracemalloc, one run, input already built):", ""]
        mem_sizes = sorted(result.memory)
        lines += table(
            ["system", *(f"{s:,} messages" for s in mem_sizes)],
            [[s] + [f"{result.memory[m][s] / 2**20:.1f} MiB" for m in mem_sizes] for s in SYSTEMS],
        )
    return lines


def plot(result: OneShot, path: Any) -> None:
    """Log-log plot of median time against messages."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = sorted(result.times)
    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=100)
    styles = {
        CF_DEFAULT_HEURISTIC: "C4-o",
        CF_DEFAULT_QUARTER: "C0-o",
        CF_DROP_QUARTER: "C0:o",
        LC_CHEAP: "C1-s",
        CF_DEFAULT_EXACT: "C2-o",
        CF_DROP_EXACT: "C2:o",
        LC_EXACT: "C3-s",
    }
    for name in SYSTEMS:
        ys = [statistics.median(result.times[s][name]) for s in sizes]
        ax.loglog(sizes, ys, styles[name], label=name, markersize=4)
    ax.set_xlabel("messages in history")
    ax.set_ylabel("seconds per compaction (median)")
    ax.set_title("One-shot compaction to 25% of the tokens")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
