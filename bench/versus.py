"""Cold one-shot CPU time of two source trees: before and after a speed change.

Rules:
1. Each run is a fresh process with one source tree first on `sys.path`: a warm-up on a
   small history, `clear_caches()` where the tree has it, then one cold default compaction
   with exact counts of the 10,000-message synthetic history and one pass over the corpus
   (budget 25%), as bench/oneshot.py times them. Trees alternate; medians of `--runs`.
2. An old tree comes from git: `git archive <commit> src | tar -x -C /tmp/old`.
3. The garbage collector is paused around each timed call, as timeit does; `--collector`
   leaves it on, as a caller's process has it.

Usage: .venv/bin/python -m bench.versus /tmp/old/src src [--runs 3] [--collector]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

from .common import ROOT

_CHILD = """
import gc, json, sys, time
sys.path[:0] = [sys.argv[1], sys.argv[2]]
pause = sys.argv[3] == "pause"
import contextfold as cf
assert cf.__file__.startswith(sys.argv[1]), cf.__file__
from bench import baselines as bl
from bench.common import corpus
from bench.synthetic import history
enc = bl.encoding()
wire = history(10_000, 7)
budget = bl.exact_tokens(wire) // 4
records = [(r.messages, bl.exact_tokens(r.messages) // 4) for r in corpus()]
cf.compact(history(200, 1), 10_000, counter=cf.TiktokenCounter(enc))
def cpu(fn):
    getattr(cf, "clear_caches", lambda: None)()
    gc.collect()
    if pause: gc.disable()
    start = time.process_time(); fn(); gc.enable()
    return time.process_time() - start
out = {"synthetic": cpu(lambda: cf.compact(wire, budget, counter=cf.TiktokenCounter(enc)))}
out["corpus"] = cpu(lambda: [cf.compact(m, b, counter=cf.TiktokenCounter(enc)) for m, b in records])
print(json.dumps(out))
"""


def run(src: Path, collector: bool = False) -> dict[str, float]:
    """One fresh process on `src` (rule 1), the collector paused unless `collector`."""
    mode = "on" if collector else "pause"
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(src.resolve()), str(ROOT), mode],
        capture_output=True,
        text=True,
        check=True,
    )
    found: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def main(argv: list[str] | None = None) -> int:
    """Alternate the trees and print medians."""
    parser = argparse.ArgumentParser(prog="python -m bench.versus")
    parser.add_argument("trees", nargs=2, type=Path)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--collector", action="store_true", help="leave the gc on (rule 3)")
    args = parser.parse_args(argv)
    times: dict[Path, list[dict[str, float]]] = {tree: [] for tree in args.trees}
    for _ in range(args.runs):
        for tree in args.trees:
            times[tree].append(run(tree, args.collector))
    for tree, runs in times.items():
        medians = {k: statistics.median(r[k] for r in runs) for k in ("synthetic", "corpus")}
        print(f"{tree}: cold CPU seconds, median of {args.runs}: {json.dumps(medians)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
