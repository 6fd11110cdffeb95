"""Billing requests under prompt caching, and the strategies that produce the requests.

Rules:
1. The longest common prefix in tokens with the previous request is read from the cache;
   the rest is written to it (Anthropic, 1.25x) or sent uncached (OpenAI, 1x). Identical
   leading messages count in full, the first differing message by the common prefix of its
   token sequence (exact o200k counts).
2. Summarizer tokens are billed at the uncached input rate.
3. A prefix rewrite is a request whose previous request is not a prefix of it.
4. A strategy sees the whole history before each request and returns what it sends; it may
   keep state between requests (ContextManager does, trim_messages does not).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import contextfold as cf

from . import baselines as bl
from .common import Wire


@dataclass(frozen=True)
class Pricing:
    """Multipliers of the base input price."""

    name: str
    read: float
    write: float


PRICINGS = (
    Pricing("Anthropic (read 0.1x, write 1.25x)", 0.1, 1.25),
    Pricing("OpenAI GPT-4o (cached 0.5x)", 0.5, 1.0),
    Pricing("OpenAI GPT-4.1 (cached 0.25x)", 0.25, 1.0),
    Pricing("OpenAI GPT-5 (cached 0.1x)", 0.1, 1.0),
)


@dataclass
class Bill:
    """Totals for one strategy over many requests."""

    requests: int = 0
    tokens: int = 0
    reads: int = 0
    rewrites: int = 0
    over_budget: int = 0
    peak_share: float = 0.0
    """Largest request as a share of its conversation's budget."""
    summarizer_tokens: int = 0

    def cost(self, pricing: Pricing) -> float:
        """Input cost in base-price tokens."""
        uncached = self.tokens - self.reads
        return self.reads * pricing.read + uncached * pricing.write + self.summarizer_tokens

    def add(self, other: Bill) -> None:
        """Accumulate another bill."""
        self.requests += other.requests
        self.tokens += other.tokens
        self.reads += other.reads
        self.rewrites += other.rewrites
        self.over_budget += other.over_budget
        self.peak_share = max(self.peak_share, other.peak_share)
        self.summarizer_tokens += other.summarizer_tokens


@dataclass
class Meter:
    """Counts requests and their common prefixes in exact tokens (rule 2)."""

    counter: cf.TiktokenCounter
    _encoded: dict[str, list[int]] = field(default_factory=dict)

    _counts: dict[str, int] = field(default_factory=dict)

    def measure(self, request: Sequence[Wire]) -> tuple[list[str], list[int]]:
        """Canonical text and token count of every message of a request (cached)."""
        keys = [json.dumps(m, sort_keys=True) for m in request]
        for key, wire in zip(keys, request, strict=True):
            if key not in self._counts:
                self._counts[key] = self.counter.count(bl.from_chat(wire))
        return keys, [self._counts[k] for k in keys]

    def tokens_of(self, key: str) -> list[int]:
        """Token ids of a message's canonical text (cached)."""
        if key not in self._encoded:
            self._encoded[key] = self.counter.encoding.encode(key, disallowed_special=())
        return self._encoded[key]

    def common_prefix(
        self, previous: tuple[list[str], list[int]], current: tuple[list[str], list[int]]
    ) -> int:
        """Tokens of `current` that repeat the start of `previous`."""
        shared = 0
        pairs = zip(previous[0], current[0], current[1], strict=False)
        for old_key, key, count in pairs:
            if old_key == key:
                shared += count
                continue
            old, new = self.tokens_of(old_key), self.tokens_of(key)
            same = next(
                (i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b),
                min(len(old), len(new)),
            )
            return shared + min(same, count)
        return shared


class Strategy(Protocol):
    """Turns the history before an assistant turn into the request sent."""

    def request(self, history: list[Wire]) -> list[Wire]:
        """The messages to send."""
        ...

    def summarizer_tokens(self) -> int:
        """Tokens the summarizer spent so far."""
        ...


@dataclass
class Full:
    """No compaction (reference; may exceed the budget)."""

    def request(self, history: list[Wire]) -> list[Wire]:
        """The history as is."""
        return history

    def summarizer_tokens(self) -> int:
        """None."""
        return 0


@dataclass
class Trim:
    """trim_messages on the whole history every turn."""

    budget: int
    counter: bl.LcCounter

    def request(self, history: list[Wire]) -> list[Wire]:
        """The kept suffix (with the system prompt)."""
        return bl.trim_wire(history, self.budget, self.counter)

    def summarizer_tokens(self) -> int:
        """None."""
        return 0


@dataclass
class CompactEveryTurn:
    """contextfold's one-shot compact() on the whole history every turn (stateless)."""

    budget: int
    policy: cf.Policy
    counter: cf.TokenCounter
    spent: int = 0

    def request(self, history: list[Wire]) -> list[Wire]:
        """The compacted history."""
        result = bl.compact_wire(history, self.budget, self.policy, self.counter)
        self.spent += sum(s.input_tokens + s.output_tokens for s in result.report.summaries)
        payload = result.payload
        assert isinstance(payload, list)
        return payload

    def summarizer_tokens(self) -> int:
        """Summarizer tokens reported by every compaction."""
        return self.spent


@dataclass
class Manager:
    """contextfold's ContextManager: append what is new, send `view()`."""

    manager: cf.ContextManager
    fed: int = 0
    spent: int = 0

    def request(self, history: list[Wire]) -> list[Wire]:
        """The manager's view after appending the new messages."""
        self.manager.extend(history[self.fed :])
        self.fed = len(history)
        before = self.manager.last_report
        view = [dict(m) for m in self.manager.view() if isinstance(m, dict)]
        report = self.manager.last_report
        if report is not None and report is not before and report.compacted:
            self.spent += sum(s.input_tokens + s.output_tokens for s in report.summaries)
        return view

    def summarizer_tokens(self) -> int:
        """Summarizer tokens reported by every compaction."""
        return self.spent


@dataclass
class TrimIncremental:
    """trim_messages every turn on a LangChain history that grows by the new messages."""

    budget: int
    counter: bl.LcCounter
    history: list[Any] = field(default_factory=list)

    def request(self, history: list[Wire]) -> list[Wire]:
        """The kept suffix (with the system prompt)."""
        self.history += bl.lc_messages(history[len(self.history) :], start=len(self.history))
        kept = bl.trim(self.history, self.budget, self.counter, bl.START_ON_TURN)
        return [history[int(m.id)] for m in kept]

    def summarizer_tokens(self) -> int:
        """None."""
        return 0


Previous = dict[str, tuple[list[str], list[int]]]
"""The last request of each strategy, as measured."""


def bill_one(
    bill: Bill,
    meter: Meter,
    previous: dict[str, tuple[list[str], list[int]]],
    *,
    name: str,
    request: list[Wire],
    budget: int,
) -> None:
    """Bill one request of strategy `name` into `bill` (rules 1 and 3)."""
    current = meter.measure(request)
    total = sum(current[1]) + 3
    reads = meter.common_prefix(previous[name], current) if name in previous else 0
    if name in previous and reads < sum(previous[name][1]):
        bill.rewrites += 1
    previous[name] = current
    bill.requests += 1
    bill.tokens += total
    bill.reads += reads
    bill.over_budget += total > budget
    bill.peak_share = max(bill.peak_share, total / budget)
