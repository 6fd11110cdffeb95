"""`contextfold compact` on the bundled example, in fresh processes, side by side for trees.

Rules:
1. The command a user types, `contextfold compact EXAMPLE -b 4000 -m gpt-4o`, runs with
   each tree's `src` first on PYTHONPATH: the same interpreter, packages and executable.
2. One warm-up run of each tree first, writing bytecode (PYTHONDONTWRITEBYTECODE unset),
   as an installed package has it; then `--runs` rounds, each tree once per round in
   turn. Medians of wall time and of CPU (user + system of the child), since the shared
   machine inflates wall time unevenly.
3. Every run of every tree must print the same stdout and stderr and exit 0, or the
   measurement stops: a faster start that changes the output is no result.

Usage: .venv/bin/python -m bench.startup [--runs N] [--tree NAME=SRC ...]
       (default: this checkout's src only; add e.g. --tree old=/tmp/old-cli/src)
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .common import ROOT

EXAMPLE = ROOT / "examples" / "coding-session.openai-chat.json"
ARGS = ("compact", str(EXAMPLE), "-b", "4000", "-m", "gpt-4o")


@dataclass
class Runs:
    """Wall and CPU seconds of one tree's runs."""

    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)


def command() -> list[str]:
    """The executable beside this interpreter, and the arguments (rule 1)."""
    return [str(Path(sys.executable).with_name("contextfold")), *ARGS]


def environment(src: Path | None) -> dict[str, str]:
    """This environment with bytecode writing on, and `src` first on the path."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(src), *filter(None, [env.get("PYTHONPATH")])])
    return env


def run_once(env: Mapping[str, str]) -> tuple[float, float, bytes]:
    """(wall, cpu, stdout + stderr) of one run in a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command(), capture_output=True, env=env, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    if done.returncode != 0:
        raise SystemExit(f"exit {done.returncode}: {done.stderr.decode(errors='replace')}")
    return wall, cpu, done.stdout + b"\0" + done.stderr


def measure(trees: Mapping[str, Path | None], runs: int) -> dict[str, Runs]:
    """Interleaved runs of every tree (rules 2 and 3)."""
    envs = {name: environment(src) for name, src in trees.items()}
    expected = {name: run_once(env)[2] for name, env in envs.items()}  # warm-up: bytecode
    if len(set(expected.values())) != 1:
        raise SystemExit("the trees print different output; compare them before timing them")
    out = {name: Runs() for name in trees}
    for _ in range(runs):
        for name, env in envs.items():
            wall, cpu, output = run_once(env)
            if output != expected[name]:
                raise SystemExit(f"{name}: the output changed between runs")
            out[name].wall.append(wall)
            out[name].cpu.append(cpu)
    return out


def report(results: Mapping[str, Runs]) -> list[str]:
    """One line per tree: medians, then the spread."""
    lines = []
    for name, r in results.items():
        lines.append(
            f"{name}: wall median {statistics.median(r.wall):.3f} s "
            f"(min {min(r.wall):.3f}, max {max(r.wall):.3f}); "
            f"CPU median {statistics.median(r.cpu):.3f} s "
            f"(min {min(r.cpu):.3f}, max {max(r.cpu):.3f}); {len(r.wall)} runs"
        )
    return lines


def _tree(text: str) -> tuple[str, Path]:
    name, sep, src = text.partition("=")
    if not sep or not Path(src).is_dir():
        raise argparse.ArgumentTypeError(f"expected NAME=SRC with SRC a directory, got {text!r}")
    return name, Path(src).resolve()


def main(argv: Sequence[str] | None = None) -> int:
    """Measure and print."""
    parser = argparse.ArgumentParser(prog="python -m bench.startup")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--tree", type=_tree, action="append", default=[])
    args = parser.parse_args(argv)
    trees: dict[str, Path | None] = {"this": ROOT / "src", **dict(args.tree)}
    print(f"`contextfold {' '.join(ARGS[:1])} <example> {' '.join(ARGS[2:])}`, fresh processes:")
    for line in report(measure(trees, args.runs)):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
