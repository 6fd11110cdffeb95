"""How long does the embedded ledger take on large spans, alone and inside `compact()`?

Run `python -m tests.summarizers.speed` from the repository root. It prints:
1. the ledger over each whole corpus file as one span (every message but system prompts,
   `max_tokens=2000`), best of three;
2. the ledger over one synthetic span of 10,000 and of 40,000 messages (bench/synthetic.py,
   `max_tokens=2000`), best of three: how the time grows with the span;
3. one-shot `compact()` of a synthetic 10,000-message history (budget 25% of its exact o200k
   tokens, tiktoken counter), best of three, with the time spent inside the ledger's
   `summarize` calls and their share.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import contextfold as cf
from contextfold import SummaryRequest, SummaryResult
from contextfold._summarizers._ledger import LedgerSummarizer

from ..corpus import CORPUS_DIR, FILES


def corpus_span(name: str) -> tuple[cf.Message, ...]:
    """Every non-system message of one corpus file, in file order."""
    path = Path(CORPUS_DIR) / name
    span: list[cf.Message] = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                messages = cf.parse(json.loads(line)["messages"], format="openai-chat")[1].messages
                span.extend(m for m in messages if m.role != "system")
    return tuple(span)


def best_of(runs: int, request: SummaryRequest) -> tuple[float, str]:
    """(fastest seconds, text) of `runs` ledgers of `request`."""
    ledger = LedgerSummarizer()
    times: list[float] = []
    text = ""
    for _ in range(runs):
        start = time.perf_counter()
        text = ledger.summarize(request).text
        times.append(time.perf_counter() - start)
    return min(times), text


@dataclass
class Timed:
    """The ledger, timing every call."""

    inner: LedgerSummarizer = field(default_factory=LedgerSummarizer)
    seconds: float = 0.0
    messages: int = 0

    def summarize(self, request: SummaryRequest) -> SummaryResult:
        """The inner ledger's answer, timed."""
        start = time.perf_counter()
        result = self.inner.summarize(request)
        self.seconds += time.perf_counter() - start
        self.messages += len(request.messages)
        return result


def one_shot(size: int, runs: int = 3) -> tuple[float, float, int]:
    """(compact seconds, ledger seconds, folded messages) of the fastest of `runs`."""
    from bench.synthetic import history

    from bench import baselines as bl

    wire = history(size, 7)
    budget = bl.exact_tokens(wire) // 4
    best: tuple[float, float, int] | None = None
    for _ in range(runs):
        timed = Timed()
        counter = cf.TiktokenCounter(bl.encoding())
        start = time.perf_counter()
        cf.compact(wire, budget, counter=counter, summarizer=timed)
        total = time.perf_counter() - start
        if best is None or total < best[0]:
            best = (total, timed.seconds, timed.messages)
    assert best is not None
    return best


def synthetic_span(size: int) -> tuple[cf.Message, ...]:
    """`size` synthetic messages after the system prompt."""
    from bench.synthetic import history

    return cf.parse(history(size + 1, 3), "openai-chat")[1].messages[1:]


def main(argv: list[str]) -> None:
    """Print the three measurements."""
    for name in FILES:
        if not (Path(CORPUS_DIR) / name).exists():
            continue
        span = corpus_span(name)
        refs = tuple(f"r{i:010x}" for i in range(len(span)))
        seconds, text = best_of(3, SummaryRequest(span, refs=refs, max_tokens=2000))
        print(f"ledger, {name}: {len(span):,} messages, {seconds * 1000:.0f} ms, {len(text)} chars")
    for count in (10_000, 40_000):
        span = synthetic_span(count)
        refs = tuple(f"r{i:010x}" for i in range(len(span)))
        seconds, _ = best_of(3, SummaryRequest(span, refs=refs, max_tokens=2000))
        print(f"ledger, one synthetic span of {len(span):,} messages: {seconds * 1000:.0f} ms")
    size = int(argv[0]) if argv else 10_000
    total, ledger, folded = one_shot(size)
    print(
        f"compact(), synthetic {size:,} messages, tiktoken: {total * 1000:.0f} ms, ledger "
        f"{ledger * 1000:.0f} ms ({ledger / total:.0%}) over {folded:,} folded messages"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
