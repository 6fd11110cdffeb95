"""Billing: common prefixes in tokens, rewrites, cache pricing, counts that match contextfold."""

from __future__ import annotations

from bench.billing import PRICINGS, Bill, Meter, Previous, bill_one
from bench.synthetic import history

import contextfold as cf
from bench import baselines as bl

SYSTEM = {"role": "system", "content": "You are a careful agent."}
USER = {"role": "user", "content": "Please fix the failing test in /srv/app/test_io.py."}
REPLY = {"role": "assistant", "content": "I looked at the file and fixed the import."}


def meter() -> Meter:
    return Meter(cf.TiktokenCounter(bl.encoding()))


def test_an_extended_request_reads_the_whole_previous_one() -> None:
    m = meter()
    first, second = m.measure([SYSTEM, USER]), m.measure([SYSTEM, USER, REPLY])
    assert m.common_prefix(first, second) == sum(first[1])


def test_a_changed_message_breaks_the_prefix_inside_it() -> None:
    m = meter()
    edited = {"role": "user", "content": USER["content"].replace("test_io", "test_os")}
    first, second = m.measure([SYSTEM, USER, REPLY]), m.measure([SYSTEM, edited, REPLY])
    shared = m.common_prefix(first, second)
    assert first[1][0] < shared < first[1][0] + first[1][1]


def test_bill_one_counts_reads_rewrites_and_budget() -> None:
    m, bill = meter(), Bill()
    previous: Previous = {}
    bill_one(bill, m, previous, name="s", request=[SYSTEM, USER], budget=10_000)
    bill_one(bill, m, previous, name="s", request=[SYSTEM, USER, REPLY], budget=10_000)
    bill_one(bill, m, previous, name="s", request=[SYSTEM, REPLY], budget=10)
    assert bill.requests == 3
    assert bill.rewrites == 1
    assert bill.over_budget == 1
    assert 0 < bill.reads < bill.tokens


def test_cost_applies_the_multipliers() -> None:
    bill = Bill(requests=2, tokens=1_000, reads=600, summarizer_tokens=50)
    anthropic, gpt4o = PRICINGS[0], PRICINGS[1]
    assert anthropic.read == 0.1
    assert anthropic.write == 1.25
    assert bill.cost(anthropic) == 600 * 0.1 + 400 * 1.25 + 50
    assert bill.cost(gpt4o) == 600 * 0.5 + 400 * 1.0 + 50


def test_meter_counts_match_contextfolds_counter() -> None:
    wire = history(40, seed=6)
    counter = cf.TiktokenCounter(bl.encoding())
    _, counts = meter().measure(wire)
    assert counts == [counter.count(m) for m in bl.neutral(wire)]
