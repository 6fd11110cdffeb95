"""Per-turn cost in an agent loop: ContextManager vs trim_messages on the whole history.

Rules:
1. The history is prefilled with a synthetic history of the given size; every turn then
   appends what arrives between two requests (a tool call with its result, or a reply and
   the next user request) and asks for the messages to send.
2. contextfold: `ContextManager.extend(turn)` + `view()`; its mean per turn includes the
   compactions it runs at the high-water mark (amortized). The prefill and first view are
   reported apart.
3. LangChain: the new messages are converted and appended to a list of LangChain messages,
   then `trim_messages(history, ...)` runs on the whole list, as a LangGraph
   pre-model hook does every turn.
4. Turns are interleaved: the baseline runs on every `stride`-th turn, right after
   contextfold's, so both see the same moments of machine noise.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import contextfold as cf

from . import baselines as bl
from .common import clock, progress, seconds, table
from .synthetic import history, turns


@dataclass(frozen=True)
class LoopConfig:
    """Sizes, turns and budget."""

    sizes: tuple[int, ...] = (1_000, 10_000)
    turns: int = 300
    stride_cheap: int = 10
    stride_exact: int = 50
    budget: int = 128_000
    seed: int = 11


@dataclass
class LoopRun:
    """Per-turn seconds for both systems, with the counter pair used."""

    cf_turns: list[float] = field(default_factory=list)
    lc_turns: list[float] = field(default_factory=list)
    paired: list[tuple[float, float]] = field(default_factory=list)
    """(contextfold turn, baseline turn) for the interleaved turns."""
    compacted: list[bool] = field(default_factory=list)
    """Whether each ContextManager turn compacted."""
    first_view: float = 0.0
    compactions: int = 0


def _manager(budget: int, counter: cf.TokenCounter) -> cf.ContextManager:
    return cf.ContextManager(budget, counter=counter)


def run_loop(
    size: int,
    config: LoopConfig,
    *,
    counter: cf.TokenCounter,
    lc_counter: bl.LcCounter,
    stride: int,
    tick: Callable[[], None],
) -> LoopRun:
    """One size, one counter pair (rules 1-4)."""
    wire = history(size, config.seed)
    out = LoopRun()
    manager = _manager(config.budget, counter)
    manager.extend(wire)
    out.first_view = clock(manager.view)
    lc = bl.lc_messages(wire)
    source = turns(config.seed + 1)
    for index in range(config.turns):
        turn = next(source)

        def cf_turn(turn: list[Any] = turn) -> None:
            manager.extend(turn)
            manager.view()

        before = manager.last_report
        spent = clock(cf_turn)
        out.cf_turns.append(spent)
        report = manager.last_report
        compacted = report is not None and report is not before and report.compacted
        out.compacted.append(compacted)
        out.compactions += compacted
        if index % stride == 0:
            new = bl.lc_messages(turn)

            def lc_turn(new: list[Any] = new) -> None:
                lc.extend(new)
                bl.trim(lc, config.budget, lc_counter, bl.START_ON_HUMAN)

            baseline = clock(lc_turn)
            out.lc_turns.append(baseline)
            out.paired.append((spent, baseline))
        else:
            lc.extend(bl.lc_messages(turn))
        tick()
    return out


def run_all(config: LoopConfig, show: bool = True) -> dict[tuple[int, str], LoopRun]:
    """Every size with the cheap and the exact counter pair."""
    enc = bl.encoding()
    bar = progress(2 * len(config.sizes) * config.turns, "speed: agent loop", show)
    out = {}
    for size in config.sizes:
        out[(size, "cheap")] = run_loop(
            size,
            config,
            counter=cf.HeuristicCounter(),
            lc_counter=bl.lc_cheap_counter(),
            stride=config.stride_cheap,
            tick=lambda: bar.update(1),
        )
        out[(size, "exact")] = run_loop(
            size,
            config,
            counter=cf.TiktokenCounter(enc),
            lc_counter=bl.lc_exact_counter(enc),
            stride=config.stride_exact,
            tick=lambda: bar.update(1),
        )
    bar.close()
    return out


def amortized_ratio(run: LoopRun) -> float:
    """Baseline mean per turn over contextfold's mean per turn (compactions included)."""
    return statistics.fmean(run.lc_turns) / statistics.fmean(run.cf_turns)


def loop_lines(runs: dict[tuple[int, str], LoopRun], config: LoopConfig) -> list[str]:
    """Markdown table of per-turn costs and ratios."""
    rows = []
    for (size, pair), run in runs.items():
        cf_sorted = sorted(run.cf_turns)
        p99 = cf_sorted[min(len(cf_sorted) - 1, int(0.99 * len(cf_sorted)))]
        rows.append(
            [
                f"{size:,}",
                "HeuristicCounter / approximate" if pair == "cheap" else "tiktoken / tiktoken",
                seconds(run.first_view),
                seconds(statistics.fmean(run.cf_turns)),
                seconds(statistics.median(run.cf_turns)),
                seconds(p99),
                str(run.compactions),
                seconds(statistics.fmean(run.lc_turns)),
                seconds(statistics.median(run.lc_turns)),
                f"{amortized_ratio(run):.0f}x",
                f"{statistics.median(b / a for a, b in run.paired):.0f}x",
            ]
        )
    header = [
        "history",
        "counters (contextfold / LangChain)",
        "first view",
        "ContextManager mean",
        "median",
        "p99",
        "compactions",
        "trim_messages mean",
        "median",
        "mean ratio",
        "median paired ratio",
    ]
    return [
        f"{config.turns} turns per row after the prefill; budget {config.budget:,} tokens; the "
        f"baseline ran on every {config.stride_cheap}th (cheap) or {config.stride_exact}th "
        "(exact) turn, interleaved. Ratio = trim_messages time / ContextManager time per turn "
        "(target at 10,000 messages: >= 50x).",
        "",
        *table(header, rows, "llrrrrrrrrr"),
    ]
