"""What survives, measure 1: the facts an agent uses after a cut that it saw before it.

Rules:
1. A conversation is cut just before an assistant message at 30%, 50% and 70% of its
   length. The facts it needed are the identifier-like values (paths, ids, codes, names
   with `_` or `.`, numbers of 4+ digits, dates) in the assistant's later tool-call
   arguments and replies that appeared in the pre-cut history, did not appear in the
   system prompt (which every strategy keeps), and were not re-introduced by any later
   message before their first use.
2. The pre-cut history is compacted to the system prompt plus 10%, 25% or 50% of the rest
   of its tokens (exact o200k counts), by each strategy; contextfold's policies compact to
   the budget itself (`low=1.0`), like trim_messages, so every strategy gets the same room.
3. A fact survives when it appears anywhere in what the model would see: a verbatim
   message, a tool call's arguments, a marker, the card or a summary.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import contextfold as cf

from . import baselines as bl
from .common import Record, Wire, parallel_map, table

CUTS = (0.3, 0.5, 0.7)
SHARES = (0.1, 0.25, 0.5)
STRATEGIES = ("drop-oldest", "trim_messages", "mask-only", "contextfold default")

_TOKEN = re.compile(r"[A-Za-z0-9_./:#@+-]{4,}")
_INNER = frozenset("_./:")


def facts_in(text: str) -> set[str]:
    """Identifier-like values in `text` (rule 1)."""
    out = set()
    for raw in _TOKEN.findall(text):
        token = raw.strip(".,:;-")
        if len(token) < 4 or sum(c.isalnum() for c in token) < 3:
            continue
        if token.isdigit() or any(c.isdigit() for c in token) or not _INNER.isdisjoint(token):
            out.add(token)
    return out


def used_facts(message: cf.Message) -> set[str]:
    """Facts in an assistant message's tool-call arguments and text."""
    found: set[str] = set()
    for part in message.parts:
        for text in bl.part_texts(part):
            found |= facts_in(text)
    return found


def needed_facts(messages: Sequence[cf.Message], cut: int) -> set[str]:
    """The facts used after `cut` that the pre-cut history supplied (rule 1)."""
    system = bl.visible_text([m for m in messages[:cut] if m.role == "system"])
    before = bl.visible_text(messages[:cut], skip_system=True)
    later: list[str] = []
    needed: set[str] = set()
    seen: set[str] = set()
    for message in messages[cut:]:
        if message.role == "assistant":
            so_far = "\n".join(later)
            for fact in sorted(used_facts(message) - seen):
                seen.add(fact)
                if fact in before and fact not in system and fact not in so_far:
                    needed.add(fact)
        later.append(bl.visible_text([message]))
    return needed


def cut_points(messages: Sequence[Wire]) -> list[int]:
    """Indices of the assistant messages at or after each cut fraction."""
    out: list[int] = []
    for fraction in CUTS:
        start = max(3, int(fraction * len(messages)))
        index = next(
            (i for i in range(start, len(messages)) if messages[i]["role"] == "assistant"), None
        )
        if index is not None and index not in out:
            out.append(index)
    return out


@dataclass
class Score:
    """Facts needed and kept, and tokens used against the budget."""

    needed: int = 0
    kept: int = 0
    used: float = 0.0
    """Sum over compactions of output tokens / budget."""
    runs: int = 0
    over: int = 0
    """Compactions whose output is over the budget."""

    def add(self, other: Score) -> None:
        """Accumulate."""
        self.needed += other.needed
        self.kept += other.kept
        self.used += other.used
        self.runs += other.runs
        self.over += other.over


@dataclass
class Compactor:
    """Runs one strategy on wire messages and returns what the model would see."""

    enc: Any
    counter: cf.TiktokenCounter
    lc_counter: bl.LcCounter = field(init=False)

    def __post_init__(self) -> None:
        self.lc_counter = bl.lc_exact_counter(self.enc, memo=True)

    def run(self, strategy: str, wire: Sequence[Wire], budget: int) -> tuple[cf.Message, ...]:
        """The compacted messages in neutral form."""
        if strategy == "trim_messages":
            return bl.neutral(bl.trim_wire(wire, budget, self.lc_counter))
        policy = bl.POLICIES[strategy].replace(low=1.0, high=1.0)
        return bl.compact_wire(wire, budget, policy, self.counter).conversation.messages

    def tokens(self, messages: Sequence[cf.Message]) -> int:
        """Exact tokens of a request."""
        return 3 + sum(self.counter.count(m) for m in messages)


def budget_for(compactor: Compactor, messages: Sequence[cf.Message], share: float) -> int:
    """System prompt plus `share` of the rest (rule 2)."""
    system = sum(compactor.counter.count(m) for m in messages if m.role == "system")
    return system + int(share * (compactor.tokens(messages) - system))


def score_record(record: Record) -> dict[tuple[str, str, float], Score]:
    """Scores keyed by (source, strategy, share) for one conversation."""
    enc = bl.encoding()
    compactor = Compactor(enc, cf.TiktokenCounter(enc))
    full = bl.neutral(record.messages)
    out: dict[tuple[str, str, float], Score] = {}
    for cut in cut_points(record.messages):
        needed = needed_facts(full, cut)
        if not needed:
            continue
        for key, score in _score_cut(compactor, record.messages[:cut], full[:cut], needed):
            out.setdefault((record.source, *key), Score()).add(score)
    return out


def _score_cut(
    compactor: Compactor, wire: Sequence[Wire], messages: Sequence[cf.Message], needed: set[str]
) -> Iterator[tuple[tuple[str, float], Score]]:
    for share in SHARES:
        budget = budget_for(compactor, messages, share)
        for strategy in STRATEGIES:
            kept_messages = compactor.run(strategy, wire, budget)
            text = bl.visible_text(kept_messages)
            kept = sum(1 for fact in needed if fact in text)
            used = compactor.tokens(kept_messages) / budget
            yield (strategy, share), Score(len(needed), kept, used, 1, int(used > 1))


Scores = dict[tuple[str, str, float], Score]


def run(records: Sequence[Record], workers: int = 1, show: bool = True) -> Scores:
    """Scores over all records, plus source `all`."""
    total: Scores = {}
    for scores in parallel_map(score_record, records, workers, "survival: reference", show):
        for (source, strategy, share), score in scores.items():
            for key in ((source, strategy, share), ("all", strategy, share)):
                total.setdefault(key, Score()).add(score)
    return total


def lines(scores: Scores) -> list[str]:
    """Markdown: kept share of needed facts per source, strategy and budget; and losses."""
    out: list[str] = []
    sources = [s for s in ("all", "swe", "tau") if (s, STRATEGIES[0], SHARES[0]) in scores]
    header = ["source", "strategy", *(f"{s:.0%} budget" for s in SHARES), "over budget"]
    rows = []
    for source in sources:
        needed = scores[(source, STRATEGIES[0], SHARES[0])].needed
        for strategy in STRATEGIES:
            cells = [scores[(source, strategy, share)] for share in SHARES]
            rows.append(
                [
                    f"{source} ({needed:,} facts)",
                    strategy,
                    *(
                        f"{c.kept / max(1, c.needed):.1%} ({c.used / max(1, c.runs):.2f})"
                        for c in cells
                    ),
                    f"{sum(c.over for c in cells)} of {sum(c.runs for c in cells)}",
                ]
            )
    out += table(header, rows, "llrrrr")
    out += ["", *losses(scores, sources)]
    return out


def losses(scores: Scores, sources: Sequence[str]) -> list[str]:
    """Where contextfold's default keeps fewer needed facts than a baseline."""
    found = []
    for source in sources:
        for share in SHARES:
            ours = scores[(source, "contextfold default", share)]
            for strategy in STRATEGIES[:-1]:
                theirs = scores[(source, strategy, share)]
                if theirs.kept > ours.kept:
                    found.append(
                        f"{source} at {share:.0%}: {strategy} keeps {theirs.kept:,} facts, "
                        f"contextfold default {ours.kept:,}"
                    )
    if not found:
        return [
            "contextfold default keeps at least as many needed facts as every baseline in "
            "every cell."
        ]
    return [
        "contextfold default loses to a baseline in these cells:",
        "",
        *(f"- {x}" for x in found),
    ]


def plot(scores: Scores, path: Any) -> None:
    """Grouped bars: share of needed facts kept, per budget and strategy (all sources)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 3.6), dpi=100)
    width = 0.8 / len(STRATEGIES)
    for offset, strategy in enumerate(STRATEGIES):
        cells = [scores[("all", strategy, share)] for share in SHARES]
        ys = [c.kept / max(1, c.needed) for c in cells]
        xs = [i + (offset - (len(STRATEGIES) - 1) / 2) * width for i in range(len(SHARES))]
        ax.bar(xs, ys, width, label=strategy)
    ax.set_xticks(range(len(SHARES)), [f"{s:.0%} budget" for s in SHARES])
    ax.set_ylim(0, 1)
    ax.set_ylabel("needed facts still present")
    ax.set_title("Future reference: facts used after the cut, kept before it")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
