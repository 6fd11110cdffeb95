"""Run the benchmarks and rewrite their sections of BENCHMARKS.md.

Usage: .venv/bin/python -m bench [--quick] [--only speed,cost,survival] [--workers N]
                                 [--corpus DIR] [--no-write] [--write]

Sections: speed and scaling (timings on one process, nothing else running), cost under
prompt caching and what survives compaction (corpus replays, spread over `--workers`
processes). `--quick` runs small sizes and a corpus sample in about two minutes and, unless
`--write` is given, only prints (its plots go to a temporary folder). The token-counting
section belongs to `python -m bench.heuristic_accuracy` and is left alone.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import contextfold as cf

from . import baselines as bl
from . import cost, loop, reference, report, rounds, speed
from .common import CORPUS, PLOTS, ROOT, corpus, hot_spots, write_section
from .synthetic import history, turns


@dataclass(frozen=True)
class Mode:
    """Sizes for one run."""

    one_shot: speed.OneShotConfig
    loop: loop.LoopConfig
    profile_size: int
    per_file: int | None
    cost_shares: tuple[float, ...]
    long_loop: tuple[int, int]
    """(requests, budget) of the synthetic long loop billed in the cost section."""


FULL = Mode(
    speed.OneShotConfig(),
    loop.LoopConfig(),
    profile_size=10_000,
    per_file=None,
    cost_shares=cost.SHARES,
    long_loop=(400, 32_000),
)
QUICK = Mode(
    speed.OneShotConfig(sizes=(100, 1_000, 3_000), rounds=(3, 3, 2), memory_sizes=(1_000,)),
    loop.LoopConfig(sizes=(1_000,), turns=60, stride_cheap=5, stride_exact=20, budget=32_000),
    profile_size=1_000,
    per_file=5,
    cost_shares=(0.5,),
    long_loop=(100, 16_000),
)


def profiles(size: int, loop_config: loop.LoopConfig) -> list[report.Profile]:
    """Hot spots of one-shot compaction (both counters) and of agent-loop turns."""
    wire = history(size, 7)
    budget = bl.exact_tokens(wire) // 4
    enc = bl.encoding()
    out = []
    for title, counter in (
        ("tiktoken", cf.TiktokenCounter(enc)),
        ("heuristic", cf.HeuristicCounter()),
    ):
        functions, modules = hot_spots(lambda c=counter: cf.compact(wire, budget, counter=c))  # type: ignore[misc]
        out.append(
            report.Profile(f"one-shot `compact()`, {size:,} messages, {title}", functions, modules)
        )
    manager = cf.ContextManager(loop_config.budget, counter=cf.HeuristicCounter())
    manager.extend(wire)
    manager.view()
    source = turns(99)
    steps = [next(source) for _ in range(100)]

    def run_turns() -> None:
        for step in steps:
            manager.extend(step)
            manager.view()

    functions, modules = hot_spots(run_turns)
    title = f"100 `ContextManager` turns after a {size:,}-message prefill, heuristic"
    out.append(report.Profile(title, functions, modules))
    return out


def _command(args: argparse.Namespace) -> str:
    parts = [".venv/bin/python -m bench"]
    if args.quick:
        parts.append("--quick")
    if args.only:
        parts.append(f"--only {args.only}")
    return " ".join(parts)


def run_speed(mode: Mode, args: argparse.Namespace) -> str:
    """The speed section (single process)."""
    one_shot = speed.run_one_shot(mode.one_shot, show=not args.quiet)
    loops = loop.run_all(mode.loop, show=not args.quiet)
    found = profiles(mode.profile_size, mode.loop)
    speed.plot(one_shot, args.plots / "speed_scaling.png")
    return report.speed_section(
        one_shot,
        loops,
        mode.loop,
        profiles=found,
        command=_command(args),
        plot_path="bench/plots/speed_scaling.png",
    )


def run_cost(mode: Mode, args: argparse.Namespace) -> str:
    """The cost section (corpus replay, parallel)."""
    records = corpus(args.corpus, mode.per_file)
    results = {
        share: cost.run(records, share, args.workers, not args.quiet) for share in mode.cost_shares
    }
    requests, budget = mode.long_loop
    long = cost.replay_long(requests, budget)
    share, bills = next(iter(results.items()))
    cost.plot(bills, args.plots / "cost.png", share)
    return report.cost_section(
        results, long, mode.long_loop, _command(args), "bench/plots/cost.png"
    )


def run_survival(mode: Mode, args: argparse.Namespace) -> str:
    """The what-survives section (corpus replay, parallel)."""
    records = corpus(args.corpus, mode.per_file)
    scores = reference.run(records, args.workers, not args.quiet)
    survival = rounds.run(records, args.workers, not args.quiet)
    reference.plot(scores, args.plots / "survival_reference.png")
    rounds.plot(survival, args.plots / "survival_rounds.png")
    paths = ("bench/plots/survival_reference.png", "bench/plots/survival_rounds.png")
    return report.survival_section(scores, survival, _command(args), paths)


SECTIONS = {"speed": run_speed, "cost": run_cost, "survival": run_survival}


def main(argv: list[str] | None = None) -> int:
    """Run the chosen sections; print them and (unless told otherwise) write them."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, ~2 minutes")
    parser.add_argument("--only", default="", help="comma-separated: speed,cost,survival")
    parser.add_argument("--workers", type=int, default=2, help="processes for corpus replays")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--write", action="store_true", help="write even in --quick mode")
    args = parser.parse_args(argv)
    mode = QUICK if args.quick else FULL
    chosen = [s for s in args.only.split(",") if s] or list(SECTIONS)
    unknown = sorted(set(chosen) - set(SECTIONS))
    if unknown:
        parser.error(f"unknown section(s): {', '.join(unknown)}")
    write = args.write or not (args.quick or args.no_write)
    if not corpus(args.corpus, 1) and {"cost", "survival"} & set(chosen):
        print(f"corpus not found at {args.corpus}; skipping cost and survival", file=sys.stderr)
        chosen = [s for s in chosen if s == "speed"]
    args.plots = PLOTS if write else Path(tempfile.mkdtemp(prefix="contextfold-bench-"))
    args.plots.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    for name in chosen:
        section = SECTIONS[name](mode, args)
        print(section)
        if write:
            write_section(section, ROOT / "BENCHMARKS.md")
    print(f"done in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
