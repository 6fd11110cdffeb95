"""One-shot compaction against the cost of counting, a stateless re-sender, start-up, memory.

Rules:
1. Side by side in one run, interleaved rounds, medians of CPU time (`time.process_time`:
   the shared machine runs other work, which inflates wall time unevenly): the floor
   (tiktoken encoding every message's texts once, on the wire dicts), contextfold default
   and drop-only with exact counts, trim_messages with the same tiktoken Encoding, and the
   cheap counters on both sides (contextfold's heuristic and chars/4; LangChain's
   count_tokens_approximately). A compaction counts exactly only what decides where to cut
   and its report counts the rest when `tokens_before` is first read: the default also
   runs once reading it, so the cost of that number is shown beside the compaction.
2. Cold means cold: every contextfold run gets a fresh counter and `cf.clear_caches()`
   first, so nothing carries over from an earlier run. trim_messages gets LangChain
   messages converted beforehand (not timed), as in bench/speed.py.
3. Inputs: a tool-heavy synthetic history (bench/synthetic.py) and every corpus
   conversation in one pass; budget 25% of the exact o200k tokens.
4. The stateless re-sender sends the whole history plus one new exchange each call, with
   `model="gpt-4o"` as a server would (caches warm from its earlier calls); its per-call
   time is compared with the cold call and with trim_messages on the same payloads.
   The same re-sender through `cf.Sessions` (its history continues a ContextManager) runs
   `--session-turns` calls (default 1,000) after its first: median and mean per call (the
   mean pays for the compactions the manager runs now and then), against the same cold
   one-shot call; every one of its views is checked to fit the budget.
5. Start-up is measured in fresh processes: `-X importtime` for `import contextfold`, and
   the wall and CPU time of `contextfold compact` on the bundled example (bench/startup.py,
   which also compares source trees side by side). Peak memory (tracemalloc) is compared
   with the size of the input's JSON text. Both start-up runs write bytecode
   (PYTHONDONTWRITEBYTECODE unset) after one warm-up run, as an installed package has it.

Usage: .venv/bin/python -m bench.oneshot [--size N] [--rounds R] [--turns T]
       [--session-turns S] [--no-write]
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import re
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

import contextfold as cf

from . import baselines as bl
from . import startup
from .common import (
    Wire,
    command_line,
    corpus,
    machine,
    median_ratio,
    publish,
    seconds,
    table,
)
from .synthetic import exchanges, history

HEADING = "## One-shot speed against the cost of counting"
FLOOR = "floor: tiktoken, every message once"
CF_EXACT = "contextfold default, tiktoken"
CF_EXACT_BEFORE = "contextfold default, tiktoken, tokens_before read"
CF_DROP_EXACT = "contextfold drop-only, tiktoken"
LC_EXACT = "trim_messages, tiktoken"
CF_HEURISTIC = "contextfold default, heuristic"
CF_QUARTER = "contextfold default, chars/4"
CF_DROP_QUARTER = "contextfold drop-only, chars/4"
LC_CHEAP = "trim_messages, approximate"
K = TypeVar("K")
SYSTEMS = (
    FLOOR,
    CF_EXACT,
    CF_EXACT_BEFORE,
    CF_DROP_EXACT,
    LC_EXACT,
    CF_HEURISTIC,
    CF_QUARTER,
    CF_DROP_QUARTER,
    LC_CHEAP,
)


# --- the systems -------------------------------------------------------------------------


def _wire_texts(message: Wire) -> list[str]:
    """Every text of a chat wire message that a tokenizer reads."""
    out: list[str] = []
    content = message.get("content")
    if isinstance(content, str):
        out.append(content)
    elif isinstance(content, list):
        out += [str(b.get("text", "")) for b in content if isinstance(b, dict)]
    for call in message.get("tool_calls") or ():
        function = call.get("function", {})
        out += [str(call.get("id", "")), str(function.get("name", ""))]
        out.append(str(function.get("arguments", "")))
    for key in ("name", "tool_call_id"):
        if isinstance(message.get(key), str):
            out.append(message[key])
    return out


def floor(messages: Sequence[Wire], enc: Any) -> int:
    """Rule 1: tokens of every message's texts, each encoded once (no framing, no cache)."""
    return sum(
        len(enc.encode(text, disallowed_special=()))
        for message in messages
        for text in _wire_texts(message)
    )


def _cold(
    run: Callable[[Sequence[Wire], int], object],
) -> Callable[[Sequence[Wire], int], object]:
    def fn(messages: Sequence[Wire], budget: int) -> object:
        cf.clear_caches()
        return run(messages, budget)

    return fn


def systems(enc: Any) -> dict[str, Callable[[Sequence[Wire], int], object]]:
    """Name -> run(messages, budget) for every system of rule 1 (LangChain input converted
    beforehand: see `prepare`)."""
    drop = bl.POLICIES["drop-oldest"]
    quarter = bl.QuarterCounter()
    exact, cheap = bl.lc_exact_counter(enc), bl.lc_cheap_counter()

    def tik() -> cf.TiktokenCounter:
        return cf.TiktokenCounter(enc)

    return {
        FLOOR: lambda m, b: floor(m, enc),
        CF_EXACT: _cold(lambda m, b: cf.compact(list(m), b, counter=tik())),
        CF_EXACT_BEFORE: _cold(
            lambda m, b: cf.compact(list(m), b, counter=tik()).report.tokens_before
        ),
        CF_DROP_EXACT: _cold(lambda m, b: cf.compact(list(m), b, counter=tik(), policy=drop)),
        LC_EXACT: lambda m, b: bl.trim(_LC[id(m)], b, exact, bl.START_ON_TURN),
        CF_HEURISTIC: _cold(lambda m, b: cf.compact(list(m), b, counter=cf.HeuristicCounter())),
        CF_QUARTER: _cold(lambda m, b: cf.compact(list(m), b, counter=quarter)),
        CF_DROP_QUARTER: _cold(lambda m, b: cf.compact(list(m), b, counter=quarter, policy=drop)),
        LC_CHEAP: lambda m, b: bl.trim(_LC[id(m)], b, cheap, bl.START_ON_TURN),
    }


_LC: dict[int, list[Any]] = {}
"""LangChain messages for each input list (by identity), converted before timing."""


def prepare(inputs: Sequence[Sequence[Wire]]) -> None:
    """Convert every input for trim_messages (not timed, rule 2)."""
    _LC.clear()
    for messages in inputs:
        _LC[id(messages)] = bl.lc_messages(messages)


# --- measurements ------------------------------------------------------------------------


def cpu(fn: Callable[[], object]) -> float:
    """CPU seconds of one call, garbage collector paused (rule 1)."""
    gc.disable()
    try:
        start = time.process_time()
        fn()
        return time.process_time() - start
    finally:
        gc.enable()


def interleaved(systems: Mapping[K, Callable[[], object]], rounds: int) -> dict[K, list[float]]:
    """CPU seconds per run of each system; each round runs every system once, in turn."""
    times: dict[K, list[float]] = {name: [] for name in systems}
    for round_ in range(rounds):
        order = list(systems.items())
        for name, fn in order[::-1] if round_ % 2 else order:
            times[name].append(cpu(fn))
    return times


@dataclass
class Result:
    """Everything one run measured."""

    size: int = 0
    tokens: int = 0
    synthetic: dict[str, list[float]] = field(default_factory=dict)
    corpus_n: int = 0
    corpus_tokens: int = 0
    corpus: dict[str, list[float]] = field(default_factory=dict)
    sources: dict[str, Source] = field(default_factory=dict)
    """Corpus source (tau, swe) -> its share of the corpus pass."""
    resend: dict[str, list[float]] = field(default_factory=dict)
    resend_cold: float = 0.0
    turns: int = 0
    sessions: list[float] = field(default_factory=list)
    """CPU seconds of each `cf.Sessions` call after its first."""
    sessions_first: float = 0.0
    sessions_compactions: int = 0
    imports: list[float] = field(default_factory=list)
    cli: list[float] = field(default_factory=list)
    cli_cpu: list[float] = field(default_factory=list)
    memory: dict[str, Memory] = field(default_factory=dict)
    """input name -> memory of one cold default exact run."""


@dataclass(frozen=True)
class Memory:
    """Bytes (tracemalloc) of one cold default exact run, against its input's JSON."""

    peak: int
    result: int
    """Still allocated after the call and `cf.clear_caches()`: what the result holds."""
    caches: int
    """Freed by `cf.clear_caches()`: what the caches keep for the next call."""
    size: int
    """The input's JSON text, UTF-8."""


@dataclass
class Source:
    """One corpus source's conversations: their times within each corpus pass."""

    n: int
    over: int
    """Conversations that cannot fit: what compaction may not remove is over the budget."""
    times: dict[str, list[float]]


def batch(
    inputs: Sequence[tuple[Sequence[Wire], int]], run: Callable[[Sequence[Wire], int], object]
) -> Callable[[], object]:
    """One timed run of `run` over every (messages, budget) pair of `inputs`."""
    return lambda: [run(m, b) for m, b in inputs]


def measure_synthetic(size: int, rounds: int, enc: Any, out: Result) -> None:
    """Rule 1 on one synthetic history."""
    messages = history(size, 7)
    out.size, out.tokens = size, bl.exact_tokens(messages)
    budget = max(1, out.tokens // 4)
    prepare([messages])
    runs = {name: batch([(messages, budget)], fn) for name, fn in systems(enc).items()}
    out.synthetic = interleaved(runs, rounds)
    out.memory["synthetic"] = _memory(messages, budget, enc)


def measure_corpus(rounds: int, enc: Any, out: Result) -> None:
    """Rule 1 over every corpus conversation, one pass per round."""
    records = corpus()
    if not records:
        return
    tokens = [bl.exact_tokens(r.messages) for r in records]
    inputs = [(r.messages, max(1, t // 4)) for r, t in zip(records, tokens, strict=True)]
    out.corpus_n, out.corpus_tokens = len(inputs), sum(tokens)
    prepare([m for m, _ in inputs])
    names = sorted({r.source for r in records})
    groups = [[x for r, x in zip(records, inputs, strict=True) if r.source == n] for n in names]
    parts = [_group_runs(group, enc) for group in groups]
    runs = {(name, i): fn for i, part in enumerate(parts) for name, fn in part.items()}
    times = interleaved(runs, rounds)
    out.corpus = {
        k: [sum(t) for t in zip(*(times[k, i] for i in range(len(parts))), strict=True)]
        for k in SYSTEMS
    }
    for i, (name, group) in enumerate(zip(names, groups, strict=True)):
        over = sum(not _fits(m, b, enc) for m, b in group)
        out.sources[name] = Source(len(group), over, {k: times[k, i] for k in SYSTEMS})
    largest = max(inputs, key=lambda x: len(json.dumps(x[0])))
    out.memory["corpus (largest)"] = _memory(*largest, enc)
    out.memory["corpus (median conversation)"] = _median_memory(inputs, enc)


def _group_runs(
    inputs: Sequence[tuple[Sequence[Wire], int]], enc: Any
) -> dict[str, Callable[[], object]]:
    return {name: batch(inputs, fn) for name, fn in systems(enc).items()}


def _fits(messages: Sequence[Wire], budget: int, enc: Any) -> bool:
    cf.clear_caches()
    return cf.compact(list(messages), budget, counter=cf.TiktokenCounter(enc)).report.fits


def _memory(messages: Sequence[Wire], budget: int, enc: Any) -> Memory:
    size = len(json.dumps(list(messages)).encode())
    cf.clear_caches()
    gc.collect()
    tracemalloc.start()
    try:
        result = cf.compact(list(messages), budget, counter=cf.TiktokenCounter(enc))
        peak = tracemalloc.get_traced_memory()[1]
        gc.collect()  # Python's free lists too, so "caches" holds only what caches keep
        held = tracemalloc.get_traced_memory()[0]
        cf.clear_caches()
        gc.collect()
        alone = tracemalloc.get_traced_memory()[0]
        del result
    finally:
        tracemalloc.stop()
    return Memory(peak, alone, held - alone, size)


def _median_memory(inputs: Sequence[tuple[Sequence[Wire], int]], enc: Any) -> Memory:
    """The conversation whose peak / input ratio is the median of all of them."""
    found = sorted((_memory(m, b, enc) for m, b in inputs), key=lambda x: x.peak / x.size)
    return found[len(found) // 2]


def measure_resend(size: int, turns: int, enc: Any, out: Result) -> None:
    """Rule 4: history + one exchange per call, `turns` calls after a cold one."""
    messages = history(size, 7)
    budget = max(1, bl.exact_tokens(messages) // 4)
    stream = exchanges(99)
    cf.clear_caches()
    out.resend_cold = cpu(lambda: cf.compact(messages, budget, model="gpt-4o"))
    lc = bl.lc_messages(messages)
    cheap, exact = bl.lc_cheap_counter(), bl.lc_exact_counter(enc)
    times: dict[str, list[float]] = {"contextfold, gpt-4o": [], LC_CHEAP: [], LC_EXACT: []}
    for _ in range(turns):
        exchange = _next_exchange(stream)
        messages = messages + exchange
        lc = lc + bl.lc_messages(exchange, start=len(lc))
        runs = _resend_runs(messages, lc, budget, (cheap, exact))
        for name, seconds_ in interleaved(runs, 1).items():
            times[name] += seconds_
    out.resend, out.turns = times, turns


def measure_sessions(size: int, turns: int, out: Result) -> None:
    """Rule 4 through `cf.Sessions`: `turns` calls after a first, each view checked."""
    messages = history(size, 7)
    budget = max(1, bl.exact_tokens(messages) // 4)
    stream = exchanges(99)
    cf.clear_caches()
    sessions: cf.Sessions[Wire] = cf.Sessions(budget, "gpt-4o")
    out.sessions_first = cpu(lambda: sessions.view(messages))
    for _ in range(turns):
        messages = messages + _next_exchange(stream)
        box: list[cf.Resent[Wire]] = []
        out.sessions.append(cpu(partial(_view_into, sessions, messages, box)))
        resent = box[0]
        if not resent.continued:
            raise SystemExit("bench.oneshot: a re-sent history did not continue its session")
        if cf.count_tokens(resent.messages, model="gpt-4o") > budget:
            raise SystemExit("bench.oneshot: a Sessions view is over its budget")
        out.sessions_compactions += resent.report is not None


def _view_into(sessions: cf.Sessions[Wire], history: list[Wire], box: list[Any]) -> None:
    box.append(sessions.view(history))


def _resend_runs(
    messages: list[Wire], lc: list[Any], budget: int, counters: tuple[Any, Any]
) -> dict[str, Callable[[], object]]:
    cheap, exact = counters
    return {
        "contextfold, gpt-4o": lambda: cf.compact(messages, budget, model="gpt-4o"),
        LC_CHEAP: lambda: bl.trim(lc, budget, cheap, bl.START_ON_TURN),
        LC_EXACT: lambda: bl.trim(lc, budget, exact, bl.START_ON_TURN),
    }


def _next_exchange(stream: Any) -> list[Wire]:
    """One exchange: the next user request through the closing reply."""
    out: list[Wire] = [next(stream)]
    out += itertools.takewhile(lambda m: m["role"] != "user", stream)
    return out


def measure_startup(runs: int, out: Result) -> None:
    """Rule 5: import time and CLI wall time, in fresh processes."""
    pattern = re.compile(r"import time:\s+\d+ \|\s+(\d+) \| contextfold$", re.MULTILINE)
    env = startup.environment(None)
    for _ in range(runs):
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", "import contextfold"],
            capture_output=True,
            text=True,
            check=True,
            env=env,
        )
        found = pattern.search(done.stderr)
        if found:
            out.imports.append(int(found.group(1)) / 1e6)
    cli = startup.measure({"installed": None}, runs)["installed"]  # bench/startup.py rules
    out.cli += cli.wall
    out.cli_cpu += cli.cpu


# --- report ------------------------------------------------------------------------------


def _ratio_rows(times: dict[str, list[float]]) -> list[list[str]]:
    pairs = (
        (CF_EXACT, FLOOR, "<= 1.5x"),
        (CF_EXACT_BEFORE, FLOOR, ""),
        (CF_DROP_EXACT, FLOOR, ""),
        (LC_EXACT, FLOOR, ""),
        (CF_EXACT, LC_EXACT, "<= 0.5x"),
        (CF_EXACT_BEFORE, LC_EXACT, ""),
        (CF_DROP_EXACT, LC_EXACT, ""),
        (CF_QUARTER, LC_CHEAP, "<= 3x"),
        (CF_HEURISTIC, LC_CHEAP, ""),
        (CF_DROP_QUARTER, LC_CHEAP, ""),
    )
    return [[f"{a} / {b}", f"{median_ratio(times[a], times[b]):.2f}x", t] for a, b, t in pairs]


def _times(title: str, times: dict[str, list[float]]) -> list[str]:
    rows = [[name, seconds(statistics.median(times[name]))] for name in SYSTEMS]
    lines = [title, "", *table(["system", "median"], rows), ""]
    lines += table(["ratio (median of per-round ratios)", "measured", "target"], _ratio_rows(times))
    return [*lines, ""]


def section(result: Result, command: str) -> str:
    """Markdown for BENCHMARKS.md."""
    lines = [
        HEADING,
        "",
        f"Command: `{command}` ({machine()}).",
        "",
        "Rules in bench/oneshot.py. Times are CPU seconds (`time.process_time`), medians of "
        "interleaved rounds; the machine is shared and busy, which inflates wall time. "
        "Cold runs: a fresh counter and `cf.clear_caches()` before "
        "every contextfold run; budget 25% of the exact o200k tokens; trim_messages gets "
        "LangChain messages converted beforehand. The floor encodes every text of every "
        "message once with the same tiktoken Encoding (no framing, no cache).",
        "",
    ]
    lines += _times(
        f"Synthetic tool-heavy history, {result.size:,} messages ({result.tokens:,} tokens):",
        result.synthetic,
    )
    if result.corpus:
        lines += _times(
            f"The corpus, {result.corpus_n} conversations in one pass "
            f"({result.corpus_tokens:,} tokens):",
            result.corpus,
        )
        lines += _source_lines(result)
    lines += _resend_lines(result)
    lines += _startup_lines(result)
    return "\n".join(lines).rstrip() + "\n"


def _source_lines(result: Result) -> list[str]:
    pairs = ((CF_EXACT, FLOOR), (CF_EXACT, LC_EXACT), (CF_QUARTER, LC_CHEAP))
    rows = [
        [name, f"{part.n}", f"{part.over}"]
        + [f"{median_ratio(part.times[a], part.times[b]):.2f}x" for a, b in pairs]
        for name, part in result.sources.items()
    ]
    head = ["source", "conversations", "cannot fit"] + [f"{a} / {b}" for a, b in pairs]
    return [
        'The corpus by source, timed within the same passes. "Cannot fit": what compaction '
        "may not remove (the system prompt, the latest user message) is over the budget by "
        "itself, so everything else goes.",
        "",
        *table(head, rows),
        "",
    ]


def _resend_lines(result: Result) -> list[str]:
    cf_times = result.resend["contextfold, gpt-4o"]
    per_call = statistics.median(cf_times)
    rows = [[name, seconds(statistics.median(t))] for name, t in result.resend.items()]
    return [
        f"Stateless re-sender: the {result.size:,}-message history plus one exchange per call, "
        f"{result.turns} calls after a cold one ({seconds(result.resend_cold)}), "
        '`model="gpt-4o"`:',
        "",
        *table(["system", "median per call"], rows),
        "",
        f"contextfold per call / cold call: {per_call / result.resend_cold:.0%} (target <= 5%); "
        f"/ trim_messages approximate: {median_ratio(cf_times, result.resend[LC_CHEAP]):.1f}x.",
        "",
        *_sessions_lines(result),
    ]


def _sessions_lines(result: Result) -> list[str]:
    if not result.sessions:
        return []
    median = statistics.median(result.sessions)
    mean = statistics.fmean(result.sessions)
    cheap = statistics.median(result.resend[LC_CHEAP])
    return [
        f"The same re-sender through `cf.Sessions`: first call {seconds(result.sessions_first)}, "
        f"then {len(result.sessions):,} calls, {result.sessions_compactions} of which compacted; "
        f"every view fit the budget.",
        "",
        *table(
            ["per call", "CPU", "/ cold one-shot call", "/ trim_messages approximate"],
            [
                [name, seconds(t), f"{t / result.resend_cold:.2%}", f"{t / cheap:.2f}x"]
                for name, t in (("median", median), ("mean", mean), ("max", max(result.sessions)))
            ],
        ),
        "",
    ]


def _startup_lines(result: Result) -> list[str]:
    mib = 1 << 20
    rows = [
        [
            name,
            f"{m.size / mib:.2f} MiB",
            f"{m.peak / mib:.2f} MiB",
            f"{m.peak / m.size:.2f}x",
            f"{m.result / m.size:.2f}x",
            f"{m.caches / m.size:.2f}x",
        ]
        for name, m in result.memory.items()
    ]
    imports = ", ".join(f"{t * 1e3:.1f}" for t in result.imports)
    cli = ", ".join(f"{t:.2f}" for t in result.cli)
    cli_cpu = ", ".join(f"{t:.2f}" for t in result.cli_cpu)
    return [
        f"Start-up: `import contextfold` cumulative (-X importtime) {imports} ms "
        "(target < 150 ms); `contextfold compact` on the bundled example (-b 4000 -m gpt-4o) "
        f"wall median {statistics.median(result.cli):.3f} s ({cli}), CPU (user + system) "
        f"median {statistics.median(result.cli_cpu):.3f} s ({cli_cpu}) (target < 0.5 s wall).",
        "",
        "Peak memory of one cold default exact run (tracemalloc) against the input's JSON "
        "(target <= 2x), and what is still held when it returns: by the result (the output, "
        "the archive of what left it), and by the caches kept for the next call (freed by "
        "`cf.clear_caches()`):",
        "",
        *table(["input", "input JSON", "peak", "peak / input", "result", "caches"], rows),
        "",
    ]


def main(argv: list[str] | None = None) -> int:
    """Measure and print (and write) the section."""
    parser = argparse.ArgumentParser(prog="python -m bench.oneshot")
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--session-turns", type=int, default=1_000)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    enc = bl.encoding()
    warm = history(200, 1)
    for fn in systems(enc).values():  # imports and first-use set-up, outside the timings
        prepare([warm])
        fn(warm, 10_000)
    result = Result()
    measure_startup(10, result)
    measure_synthetic(args.size, args.rounds, enc, result)
    measure_corpus(args.rounds, enc, result)
    measure_resend(args.size, args.turns, enc, result)
    measure_sessions(args.size, args.session_turns, result)
    publish(section(result, command_line("bench.oneshot", argv)), not args.no_write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
