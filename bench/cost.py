"""Cost under prompt caching: replay corpus conversations as agent loops and bill them.

Rules:
1. Every assistant message of a conversation is one request: the history before it, as
   each strategy turns it into what is sent. The budget is the system prompt plus a share
   (50%, 25%) of the rest of the whole conversation's tokens, so conversations must compact.
2. Billing (exact o200k counts): the longest common prefix in tokens with the previous
   request of the same conversation is read from the cache; the rest is written to it
   (Anthropic, 1.25x) or sent uncached (OpenAI, 1x). Identical leading messages count in
   full, the first differing message by the common prefix of its token sequence. Output
   tokens are the same for every strategy and are left out.
3. Summarizer tokens are added at the uncached input rate; the embedded ledger makes no
   model call, so they are zero here (the report's `summaries` confirm it).
4. A prefix rewrite is a request whose previous request is not a prefix of it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import partial
from typing import Any

import contextfold as cf

from . import baselines as bl
from . import synthetic
from .billing import (
    PRICINGS,
    Bill,
    CompactEveryTurn,
    Full,
    Manager,
    Meter,
    Previous,
    Pricing,
    Strategy,
    Trim,
    TrimIncremental,
    bill_one,
)
from .common import Record, Wire, parallel_map, table

SHARES = (0.5, 0.25)


STRATEGIES = (
    "no compaction (reference)",
    "trim_messages every turn",
    "mask-only compact() every turn",
    "contextfold default (ContextManager)",
    "what-if: ContextManager, low=0.4, no prune tier",
)
WHAT_IF = cf.Policy(low=0.4, prune_at=1.0)
"""Deeper, rarer compactions: down to 40% of the budget, and no prune-only passes."""


def _strategies(budget: int, enc: Any) -> dict[str, Strategy]:
    return {
        STRATEGIES[0]: Full(),
        STRATEGIES[1]: Trim(budget, bl.lc_exact_counter(enc, memo=True)),
        STRATEGIES[2]: CompactEveryTurn(budget, bl.POLICIES["mask-only"], cf.TiktokenCounter(enc)),
        STRATEGIES[3]: Manager(cf.ContextManager(budget, counter=cf.TiktokenCounter(enc))),
        STRATEGIES[4]: Manager(
            cf.ContextManager(budget, counter=cf.TiktokenCounter(enc), policy=WHAT_IF)
        ),
    }


def conversation_budget(messages: list[Wire], meter: Meter, share: float) -> int:
    """System prompt plus `share` of the rest (rule 1)."""
    _, counts = meter.measure(messages)
    system = sum(c for m, c in zip(messages, counts, strict=True) if m["role"] == "system")
    return system + int(share * (sum(counts) + 3 - system))


PAST = " past the budget"
"""Suffix of the bill keys that cover only requests whose full history is over budget."""


def replay(record: Record, share: float) -> dict[str, Bill]:
    """Bill every strategy on one conversation (rules 1-4); keys with PAST bill only the
    requests whose full history no longer fits."""
    enc = bl.encoding()
    meter = Meter(cf.TiktokenCounter(enc))
    budget = conversation_budget(record.messages, meter, share)
    strategies = _strategies(budget, enc)
    bills = {name + suffix: Bill() for name in strategies for suffix in ("", PAST)}
    previous: Previous = {}
    for index, message in enumerate(record.messages):
        if message["role"] != "assistant" or index == 0:
            continue
        over = False
        for name, strategy in strategies.items():
            request = strategy.request(record.messages[:index])
            bill = Bill()
            bill_one(bill, meter, previous, name=name, request=request, budget=budget)
            over = over or (name == STRATEGIES[0] and bill.over_budget > 0)
            bills[name].add(bill)
            if over:
                bills[name + PAST].add(bill)
    for name, strategy in strategies.items():
        bills[name].summarizer_tokens = strategy.summarizer_tokens()
    return bills


Bills = dict[str, dict[str, Bill]]
"""Per source (`swe`, `tau`, `all`), per strategy (and strategy + PAST)."""


def run(records: Sequence[Record], share: float, workers: int = 1, show: bool = True) -> Bills:
    """Bills per source and strategy at one budget share."""
    out: Bills = {}
    replayed = parallel_map(
        partial(replay, share=share), records, workers, f"cost: replay at {share:.0%}", show
    )
    for record, bills in zip(records, replayed, strict=True):
        for name, bill in bills.items():
            for source in (record.source, "all"):
                out.setdefault(source, {}).setdefault(name, Bill()).add(bill)
    return out


def lines(bills: Bills) -> list[str]:
    """Markdown tables: one per source."""
    out: list[str] = []
    for source in ("all", "swe", "tau"):
        if source not in bills:
            continue
        by_name = bills[source]
        trim = by_name[STRATEGIES[1]]
        out += [f"**{_SOURCE_TITLES[source]}**", ""]
        header = [
            "strategy",
            "requests",
            "input tokens",
            "cache reads",
            "prefix rewrites",
            "peak / budget",
            "over budget",
            "summarizer tokens",
            *(f"cost vs trim: {p.name}" for p in PRICINGS),
            f"past the budget: {PRICINGS[0].name}",
        ]
        rows = []
        for name in STRATEGIES:
            bill = by_name[name]
            rows.append(
                [
                    name,
                    f"{bill.requests:,}",
                    f"{bill.tokens:,}",
                    f"{bill.reads / bill.tokens:.0%}",
                    f"{bill.rewrites:,}",
                    f"{bill.peak_share:.2f}",
                    f"{bill.over_budget:,}",
                    f"{bill.summarizer_tokens:,}",
                    *(f"{bill.cost(p) / trim.cost(p):.2f}x" for p in PRICINGS),
                    _ratio(by_name, name + PAST, STRATEGIES[1] + PAST, PRICINGS[0]),
                ]
            )
        out += [*table(header, rows), ""]
    return out


def _ratio(by_name: dict[str, Bill], name: str, base: str, pricing: Pricing) -> str:
    denominator = by_name[base].cost(pricing)
    return f"{by_name[name].cost(pricing) / denominator:.2f}x" if denominator else "-"


_SOURCE_TITLES = {
    "all": "All conversations",
    "swe": "SWE-agent (Claude Sonnet 4, coding)",
    "tau": "tau-bench airline (GPT-4o, customer service)",
}


def plot(bills: Bills, path: Any, share: float) -> None:
    """Grouped bars: each strategy's cost relative to trim_messages, per pricing."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    by_name = bills["all"]
    trim = by_name[STRATEGIES[1]]
    fig, ax = plt.subplots(figsize=(7.2, 4.4), dpi=100)
    width = 0.8 / len(STRATEGIES)
    for offset, name in enumerate(STRATEGIES):
        ys = [by_name[name].cost(p) / trim.cost(p) for p in PRICINGS]
        xs = [i + (offset - (len(STRATEGIES) - 1) / 2) * width for i in range(len(PRICINGS))]
        ax.bar(xs, ys, width, label=name)
    ax.axhline(0.25, color="black", linewidth=0.8, linestyle="--", label="target 0.25x")
    ax.set_xticks(range(len(PRICINGS)), [p.name.split(" (")[0] for p in PRICINGS], fontsize=8)
    ax.set_ylabel("input cost relative to trim_messages")
    ax.set_title(f"Corpus replay, budget = system prompt + {share:.0%} of the rest", fontsize=10)
    fig.legend(fontsize=7, loc="lower center", ncol=3)
    fig.tight_layout(rect=(0, 0.14, 1, 1))
    fig.savefig(path)
    plt.close(fig)


# --- a long synthetic loop: where per-turn trimming rewrites nearly every request ------------

LONG_STRATEGIES = (STRATEGIES[1], STRATEGIES[3], STRATEGIES[4])


def replay_long(requests: int, budget: int, seed: int = 5) -> dict[str, Bill]:
    """Bill `requests` requests of a synthetic agent loop (bench/synthetic.py turns)."""
    enc = bl.encoding()
    meter = Meter(cf.TiktokenCounter(enc))
    strategies: dict[str, Strategy] = {
        STRATEGIES[1]: TrimIncremental(budget, bl.lc_exact_counter(enc, memo=True)),
        STRATEGIES[3]: Manager(cf.ContextManager(budget, counter=cf.TiktokenCounter(enc))),
        STRATEGIES[4]: Manager(
            cf.ContextManager(budget, counter=cf.TiktokenCounter(enc), policy=WHAT_IF)
        ),
    }
    bills = {name: Bill() for name in strategies}
    previous: Previous = {}
    history: list[Wire] = [synthetic.system_prompt(random.Random(seed))]
    stream = synthetic.turns(seed)
    for _ in range(requests):
        history += next(stream)
        for name, strategy in strategies.items():
            request = strategy.request(history)
            bill_one(bills[name], meter, previous, name=name, request=request, budget=budget)
    return bills


def long_lines(bills: dict[str, Bill], requests: int, budget: int) -> list[str]:
    """Markdown table for the long loop."""
    trim = bills[STRATEGIES[1]]
    header = [
        "strategy",
        "input tokens",
        "cache reads",
        "prefix rewrites",
        *(f"cost vs trim: {p.name.split(' (')[0]}" for p in PRICINGS),
    ]
    rows = [
        [
            name,
            f"{b.tokens:,}",
            f"{b.reads / b.tokens:.0%}",
            f"{b.rewrites:,}",
            *(f"{b.cost(p) / trim.cost(p):.2f}x" for p in PRICINGS),
        ]
        for name, b in bills.items()
    ]
    return [
        f"Synthetic agent loop (bench/synthetic.py), {requests:,} requests, budget "
        f"{budget:,} tokens: long past the budget, as a long-running agent is.",
        "",
        *table(header, rows),
    ]
