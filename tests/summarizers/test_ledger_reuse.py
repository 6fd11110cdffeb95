"""Work the ledger skips or reuses gives the same text: lazy leaving out, spans read before."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contextfold import LedgerSummarizer, Message, SummaryRequest, clear_caches
from contextfold._statements._facts import normalize
from contextfold._statements._kinds import replaced_values
from contextfold._statements._values import values
from contextfold._summarizers import _ledger
from contextfold._summarizers._ledger import estimate_tokens, merge, pool_size
from contextfold._summarizers._ledger_bound import bound
from contextfold._summarizers._ledger_carried import carried_test, without_carried
from contextfold._summarizers._ledger_extract import Extraction, extract
from contextfold._summarizers._ledger_reading import UNREAD, Reading, reading
from contextfold._summarizers._ledger_text import VALUES, Entry, Section, parse

from .test_ledger import agent, call, group_entries, result, text_entries, user

entries_st = st.lists(text_entries | group_entries, max_size=40)
EVERYTHING = Reading((1 << 40, 1 << 40, 1 << 40))
"""A reading that takes in every message (for tests of the pool and the bound)."""


def _eager(entries: list[Entry], size: int, carried: list[str], stale: list[str]) -> str:
    return bound(without_carried(entries, carried, stale), size, estimate_tokens)


def _lazy(entries: list[Entry], size: int, carried: list[str], stale: list[str]) -> str:
    return bound(entries, size, estimate_tokens, carried_test(carried, stale))


@given(entries_st, st.integers(0, 300), st.data())
def test_lazy_leaving_out_is_filtering_first(
    entries: list[Entry], size: int, data: st.DataObject
) -> None:
    texts = [e.text for e in entries] + ["never use tabs", "the host is db-7"]
    carried = data.draw(st.lists(st.sampled_from(texts), max_size=6))
    stale = data.draw(st.lists(st.sampled_from(texts), max_size=6))
    assert _lazy(entries, size, carried, stale) == _eager(entries, size, carried, stale)


def test_a_large_pool_with_many_carried_values() -> None:
    """A thousand entries, tight bounds: the selection stops early, with the same text."""
    messages = [user("Please migrate orders to the new schema; my user ID is usr-000.")]
    for i in range(400):
        args = {"path": f"src/mod_{i}.py", "ticket": f"TCK-{i:04d}"}
        messages.append(agent(f"Checking batch B{i:03d}.", call(f"c{i}", "read", **args)))
        rows = " ".join(f"ord-{i}-{k} sku_{k}{i} 2026-0{1 + k % 9}-1{k % 10}" for k in range(8))
        messages.append(result(f"c{i}", rows))
    refs = tuple(f"r{i:010x}" for i in range(len(messages)))
    found = extract(tuple(messages), refs, pool_size(600), EVERYTHING)
    entries = merge([], found)
    carried = [f"Keep ord-{i}-1 and TCK-{i:04d} as they are." for i in range(0, 400, 3)]
    stale = [f"The batch is B{i:03d}." for i in range(0, 400, 5)] + ["my user ID is usr-000"]
    assert len(entries) > 1_000
    for size in (0, 40, 600, 5_000, 200_000):
        assert _lazy(entries, size, carried, stale) == _eager(entries, size, carried, stale)
    assert _lazy(entries, 600, [], []) == bound(entries, 600, estimate_tokens)


def test_a_span_read_before_is_reused_only_for_the_same_messages(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same refs over other messages (refs need not be archive refs) are read anew."""
    reads: list[int] = []

    def counting(
        messages: tuple[Message, ...], refs: tuple[str, ...], pool: int, limit: Reading
    ) -> Extraction:
        reads.append(len(messages))
        return extract(messages, refs, pool, limit)

    monkeypatch.setattr(_ledger, "extract", counting)
    clear_caches()
    refs = ("r0000000001", "r0000000002")
    first = (user("My order id is ORD-1."), agent("Looking up ORD-1."))
    other = (user("My order id is ORD-2."), agent("Looking up ORD-2."))
    ledger = LedgerSummarizer()
    texts = [
        ledger.summarize(SummaryRequest(span, refs=refs, max_tokens=200)).text
        for span in (first, first, other, first)
    ]
    assert reads == [2, 2, 2]  # one span per refs: `other` took the place of `first`
    assert texts[0] == texts[1] == texts[3] != texts[2]
    assert "ORD-2" in texts[2]
    assert "ORD-2" not in texts[3]
    clear_caches()
    ledger.summarize(SummaryRequest(first, refs=refs, max_tokens=200))
    ledger.summarize(SummaryRequest(first, refs=refs, max_tokens=200))
    assert len(reads) == 4


def test_a_ledger_written_before_is_reused_only_for_the_same_request(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same span under the same bound and card gives the kept text; any other part of
    the request, or a counter that learns, bounds anew."""
    bounds: list[int] = []

    def counting(*args: object, **kwargs: object) -> str:
        bounds.append(1)
        return bound(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(_ledger, "bound", counting)
    clear_caches()
    refs = ("r0000000001", "r0000000002")
    span = (user("My order id is ORD-1. Never refund in cash."), agent("Looking up ORD-1."))
    ledger = LedgerSummarizer()
    first = SummaryRequest(span, refs=refs, max_tokens=200)
    texts = [ledger.summarize(first).text, ledger.summarize(first).text]
    assert len(bounds) == 1
    assert texts[0] == texts[1]
    for other in (
        SummaryRequest(span, refs=refs, max_tokens=199),
        SummaryRequest(span, refs=refs, max_tokens=200, stale=("My order id is ORD-1.",)),
        SummaryRequest(span, refs=refs, max_tokens=200, carried=("Never refund in cash.",)),
        SummaryRequest(span, refs=refs, max_tokens=200, previous="## Goals\n- ship it"),
    ):
        fresh = bound(
            merge(
                parse(other.previous) if other.previous else [],
                extract(span, refs, 128, reading(other.max_tokens)),
            ),
            other.max_tokens,
            estimate_tokens,
            carried_test(other.carried, other.stale),
        )
        assert ledger.summarize(other).text == fresh
    assert len(bounds) == 5

    class Learning:
        def __init__(self) -> None:
            self.scale = 1

        def __call__(self, text: str) -> int:
            return estimate_tokens(text) * self.scale

    learning = Learning()
    learner = LedgerSummarizer(count_text=learning)
    before = learner.summarize(first).text
    learning.scale = 50
    assert learner.summarize(first).text != before  # asked again, not remembered


def _eager_covered(entry: Entry, carried: list[str], stale: list[str]) -> bool:
    """Rules 1-3 of `_ledger_carried` as first written: every stale value read up front."""
    said = [t for t in (*carried, *stale) if t]
    current = {v for t in carried for v in values(t)} - {
        v for t in carried for v in replaced_values(t)
    }
    old = ({v for t in stale for v in values(t)} - current) | {
        v for t in (*carried, *stale) for v in replaced_values(t)
    }
    if entry.section in VALUES:
        return entry.text in old or any(entry.text in t for t in said)
    if entry.section not in {"goals", "decisions", "state", "notes"}:
        return False
    if entry.text.startswith(UNREAD):
        return False
    text = normalize(entry.text.rstrip("\u2026"))
    folded = [f for f in map(normalize, said) if f]
    if text and any(text in f or f in text for f in folded):
        return True
    return any(value in entry.text for value in old)


_PIECES = [
    "Use Python 3.12",
    "not 3.11",
    "my order is ORD-17",
    "instead of Postgres",
    "ship v2.4.1 on 2026-05-02",
    "ask Alice Smith",
    "the host db-7 is outdated",
    "budget $800",
    "port 8080",
    "src/app/main.py",
    "keep it short",
    "3 bags",
]
_SECTIONS: list[Section] = ["goals", "notes", "state", "user", "identifiers", "files"]
_statement_st = st.lists(st.sampled_from(_PIECES), min_size=1, max_size=3).map(" and ".join)


@given(
    st.lists(_statement_st, max_size=4),
    st.lists(_statement_st, max_size=6),
    st.lists(
        st.tuples(
            st.sampled_from(_SECTIONS),
            st.lists(st.sampled_from([*_PIECES, "3", "ORD", "Alice", "x"]), min_size=1, max_size=3),
        ),
        min_size=1,
        max_size=8,
    ),
)
def test_stale_values_read_lazily_leave_out_what_reading_them_all_did(
    carried: list[str], stale: list[str], drawn: list[tuple[Section, list[str]]]
) -> None:
    """Rule 5: value entries decided by containment alone, stale values read one statement
    at a time, leave out exactly what the eager reading of every stale value did."""
    covered = carried_test(carried, stale)
    entries = [Entry(section, " ".join(words)) for section, words in drawn]
    if covered is None:
        assert not [*carried, *stale]
        return
    assert [covered(e) for e in entries] == [_eager_covered(e, carried, stale) for e in entries]
