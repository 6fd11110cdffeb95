"""What survives, measure 2: planted rules, facts, goals and preferences over five rounds.

Rules:
1. Two user messages are planted right after a real conversation's first user message;
   each carries one rule, one fact, one goal and one preference, every one with a unique
   key (e.g. `R1-3F9A`) that appears nowhere else.
2. The rest of the conversation is split into five segments at turn boundaries (never
   between a tool call and its result). Round 1 compacts system prompt, first user
   message, plants and segment 1; each later round appends the next segment to the
   previous round's output and compacts again.
3. The budget is the system prompt plus 20% of the rest of the planted conversation's
   tokens (exact o200k); contextfold's policies compact to the budget itself (`low=1.0`).
4. A plant survives a round when its key appears anywhere the model would see it (a
   verbatim message, the card, a summary); `verbatim` counts plants whose whole sentence
   is still there word for word.
"""

from __future__ import annotations

import itertools
import random
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import contextfold as cf

from . import baselines as bl
from .common import Record, Wire, parallel_map, table
from .reference import Compactor

ROUNDS = 5
SHARE = 0.2
KINDS = ("rule", "fact", "goal", "preference")
STRATEGIES = ("drop-oldest", "trim_messages", "mask-only", "contextfold default")

TEMPLATES: dict[str, tuple[str, str]] = {
    "rule": (
        "Important rule for the rest of this session: never delete anything under the folder "
        "archive-{key}, and always ask me before running destructive commands.",
        "You must always mention the reference code {key} when you report a result to me.",
    ),
    "fact": (
        "For later: my customer number is {key}, in case you need to look me up.",
        "Note that the staging server we will need is build-{key}.internal on port 8443.",
    ),
    "goal": (
        "My overall goal here is to finish migration {key} without breaking existing behaviour.",
        "The end goal: everything should be ready for release {key} by the end of the week.",
    ),
    "preference": (
        "I prefer short, plain answers; please sign your final message with the tag {key}.",
        "Please write dates as YYYY-MM-DD and prices in euros (my preference profile {key}).",
    ),
}


@dataclass(frozen=True)
class Plant:
    """One planted sentence and its key."""

    kind: str
    item: int
    """Which of the kind's two phrasings (1 or 2)."""
    key: str
    sentence: str


def plants(seed: int) -> tuple[Plant, ...]:
    """Eight plants with keys unique to `seed` (rule 1)."""
    rng = random.Random(seed)
    out = []
    for item in range(2):
        for kind in KINDS:
            key = f"{kind[0].upper()}{item + 1}-{rng.getrandbits(24):06X}"
            out.append(Plant(kind, item + 1, key, TEMPLATES[kind][item].format(key=key)))
    return tuple(out)


def planted(messages: Sequence[Wire], planted_: Sequence[Plant]) -> tuple[list[Wire], list[Wire]]:
    """(head with the plants, rest of the conversation) (rules 1-2)."""
    first_user = next((i for i, m in enumerate(messages) if m["role"] == "user"), 0)
    head = list(messages[: first_user + 1])
    for item in range(2):
        text = " ".join(p.sentence for p in planted_[item * len(KINDS) : (item + 1) * len(KINDS)])
        head.append({"role": "user", "content": text})
    return head, list(messages[first_user + 1 :])


def segments(rest: Sequence[Wire], parts: int = ROUNDS) -> list[list[Wire]]:
    """`rest` in `parts` pieces cut only before user or assistant messages (rule 2)."""
    bounds = [i for i, m in enumerate(rest) if m["role"] != "tool"]
    cuts = [0]
    for index in range(1, parts):
        target = index * len(rest) / parts
        cut = min(bounds, key=lambda b: abs(b - target), default=len(rest))
        cuts.append(max(cut, cuts[-1]))
    cuts.append(len(rest))
    return [list(rest[a:b]) for a, b in itertools.pairwise(cuts)]


Survival = dict[tuple[str, int, str, int], tuple[int, int, int]]
"""(strategy, round, kind, item) -> (plants, keys present, sentences verbatim)."""


def cell(survival: Survival, strategy: str, round_: int, kind: str) -> tuple[int, int, int]:
    """Totals over both phrasings of a kind."""
    found = [survival[(strategy, round_, kind, item)] for item in (1, 2)]
    return (sum(f[0] for f in found), sum(f[1] for f in found), sum(f[2] for f in found))


def score_record(record: Record) -> Survival:
    """Survival per strategy, round and kind for one conversation."""
    enc = bl.encoding()
    compactor = Compactor(enc, cf.TiktokenCounter(enc))
    planted_ = plants(zlib.crc32(record.id.encode()))
    head, rest = planted(record.messages, planted_)
    pieces = segments(rest)
    everything = bl.neutral(head + rest)
    system = sum(compactor.counter.count(m) for m in everything if m.role == "system")
    budget = system + int(SHARE * (compactor.tokens(everything) - system))
    out: Survival = {}
    for strategy in STRATEGIES:
        wire = head
        for round_ in range(1, ROUNDS + 1):
            wire = _compact(compactor, strategy, wire + pieces[round_ - 1], budget)
            text = bl.visible_text(bl.neutral(wire))
            for p in planted_:
                out[(strategy, round_, p.kind, p.item)] = (1, p.key in text, p.sentence in text)
    return out


def _compact(compactor: Compactor, strategy: str, wire: list[Wire], budget: int) -> list[Wire]:
    if strategy == "trim_messages":
        return bl.trim_wire(wire, budget, compactor.lc_counter)
    policy = bl.POLICIES[strategy].replace(low=1.0, high=1.0)
    payload = bl.compact_wire(wire, budget, policy, compactor.counter).payload
    assert isinstance(payload, list)
    return payload


def run(records: Sequence[Record], workers: int = 1, show: bool = True) -> Survival:
    """Totals over all records."""
    total: Survival = {}
    for survival in parallel_map(score_record, records, workers, "survival: rounds", show):
        for key, (n, keys, verbatim) in survival.items():
            a, b, c = total.get(key, (0, 0, 0))
            total[key] = (a + n, b + keys, c + verbatim)
    return total


def lines(survival: Survival) -> list[str]:
    """Markdown: key survival per kind and round for each strategy, verbatim at round 5."""
    header = [
        "strategy",
        "kind",
        *(f"round {r}" for r in range(1, ROUNDS + 1)),
        f"verbatim, round {ROUNDS}",
    ]
    rows = []
    for strategy in STRATEGIES:
        for kind in KINDS:
            cells = [cell(survival, strategy, r, kind) for r in range(1, ROUNDS + 1)]
            n, _, verbatim = cells[-1]
            rows.append(
                [
                    strategy,
                    kind,
                    *(f"{keys / n:.0%}" for n, keys, _ in cells),
                    f"{verbatim / n:.0%}",
                ]
            )
    return table(header, rows, "ll" + "r" * (ROUNDS + 1))


def phrasing_lines(survival: Survival) -> list[str]:
    """Markdown: round-5 key survival of each phrasing, per strategy (which ones the card
    catches)."""
    header = ["kind", "phrasing", *STRATEGIES]
    rows = []
    for kind in KINDS:
        for item in (1, 2):
            sentence = TEMPLATES[kind][item - 1].format(key="<key>")
            shares = []
            for strategy in STRATEGIES:
                n, keys, _ = survival[(strategy, ROUNDS, kind, item)]
                shares.append(f"{keys / n:.0%}")
            rows.append([kind, sentence, *shares])
    return table(header, rows, "ll" + "r" * len(STRATEGIES))


def plot(survival: Survival, path: Any) -> None:
    """One panel per kind: share of plants whose key survives, by round and strategy."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(KINDS), figsize=(9.6, 2.8), dpi=100, sharey=True)
    rounds = list(range(1, ROUNDS + 1))
    for ax, kind in zip(axes, KINDS, strict=True):
        for strategy in STRATEGIES:
            ys = [
                cell(survival, strategy, r, kind)[1] / cell(survival, strategy, r, kind)[0]
                for r in rounds
            ]
            ax.plot(rounds, ys, "-o", markersize=3, label=strategy)
        ax.set_title(kind)
        ax.set_xticks(rounds)
        ax.set_xlabel("round")
        ax.set_ylim(-0.02, 1.02)
    axes[0].set_ylabel("plants whose key survives")
    axes[-1].legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
