"""The ledger's reading is bounded by what it can show, not by the span it is given."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from contextfold import LedgerSummarizer, Message, SummaryRequest, Text
from contextfold._summarizers._ledger import estimate_tokens
from contextfold._summarizers._ledger_extract import extract
from contextfold._summarizers._ledger_reading import (
    PART_CHARS,
    UNREAD,
    Reading,
    reading,
    source,
    window,
)
from contextfold._summarizers._ledger_text import parse, render
from contextfold._summarizers._ledger_values import AGENT, TOOL, USER

from ..strategies import json_data
from .test_ledger import agent, call, ref, result, user

EVERYTHING = Reading((1 << 40, 1 << 40, 1 << 40))


def exchange(i: int, size: int) -> list[Message]:
    """A user request, a tool call, its output of about `size` characters, an answer."""
    rows = " ".join(f"row{i}-{k} sku_{k}{i}" for k in range(size // 16 + 1))
    return [
        user(f"Please check order ORD-{i:05d} for me."),
        agent(f"Looking up ORD-{i:05d}.", call(f"c{i}", "lookup", order_id=f"ORD-{i:05d}")),
        result(f"c{i}", rows[:size]),
        agent(f"Order ORD-{i:05d} is fine."),
    ]


def span(exchanges: int, size: int = 400) -> tuple[Message, ...]:
    return tuple(m for i in range(exchanges) for m in exchange(i, size))


def read_chars(messages: tuple[Message, ...], limit: Reading) -> list[int]:
    """Characters of the parts `window` reads, by source (user, agent, tool)."""
    seen = window(messages, limit)
    out = [0, 0, 0]
    for index in seen.indexes(len(messages)):
        for part in messages[index].parts:
            kind = source(messages[index], part)
            if kind in (USER, AGENT, TOOL) and seen.reads(index, kind):
                assert kind is not None
                out[kind] += min(PART_CHARS, len(_text(part)))
    return out


def _text(part: object) -> str:
    if isinstance(part, Text):
        return part.text
    arguments = getattr(part, "arguments", None)
    if isinstance(arguments, str):
        return arguments
    return "".join(_text(p) for p in getattr(part, "parts", ()))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 200), st.integers(16, 3_000), st.integers(20, 20_000))
def test_the_reading_does_not_grow_with_the_span(exchanges: int, bound: int, size: int) -> None:
    """Each source reads at most its allowance (plus its newest part), however long the span."""
    messages = span(exchanges, size)
    limit = reading(bound)
    chars = read_chars(messages, limit)
    for kind in (USER, AGENT, TOOL):
        assert chars[kind] <= limit.chars[kind] + PART_CHARS
    longer = span(4 * exchanges, size)
    assert sum(read_chars(longer, limit)) <= sum(limit.chars) + 3 * PART_CHARS


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 300), st.integers(16, 2_000))
def test_a_bounded_ledger_parses_back_fits_and_says_what_it_did_not_read(
    exchanges: int, bound: int
) -> None:
    messages = span(exchanges)
    refs = tuple(ref(i) for i in range(len(messages)))
    text = LedgerSummarizer().summarize(SummaryRequest(messages, refs=refs, max_tokens=bound)).text
    assert estimate_tokens(text) <= bound
    assert render(parse(text)) == text
    unread = window(messages, reading(bound)).unread
    if unread and bound >= 100:
        assert f"- {UNREAD}{len(unread):,} older message" in text
    if not unread:
        assert UNREAD not in text


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 40), st.integers(100, 2_000))
def test_a_span_within_the_reading_is_read_whole(exchanges: int, bound: int) -> None:
    """The bound changes nothing for a span it covers: the same entries as reading all."""
    messages = span(exchanges, 100)
    refs = tuple(ref(i) for i in range(len(messages)))
    limit = reading(bound)
    if sum(read_chars(messages, EVERYTHING)[k] > limit.chars[k] for k in (0, 1, 2)):
        return
    assert not window(messages, limit).unread
    assert (
        extract(messages, refs, 128, limit).entries
        == extract(messages, refs, 128, EVERYTHING).entries
    )


def test_a_long_span_reads_its_newest_messages_and_the_task() -> None:
    messages = (user("My goal is to audit every order before Friday."), *span(10_000))
    refs = tuple(ref(i) for i in range(len(messages)))
    seen = window(messages, reading(2_000))
    assert 0 in seen.extra
    assert seen.start > len(messages) - 5_000
    assert seen.agent <= seen.tool
    request = SummaryRequest(messages, refs=refs, max_tokens=2_000)
    text = LedgerSummarizer().summarize(request).text
    assert "My goal is to audit every order before Friday." in text
    assert "ORD-09999" in text
    assert "ORD-00001" not in text
    assert f"- {UNREAD}{len(seen.unread):,} older messages, in whole or in part" in text


def test_the_cost_of_a_span_is_that_of_its_newest_part() -> None:
    """10,000 exchanges read no more than 500 do, at the same bound."""
    limit = reading(1_000)
    small, large = span(500), span(10_000)
    assert read_chars(large, limit) == read_chars(small, limit)
    assert len(window(large, limit).indexes(len(large))) <= len(
        window(small, limit).indexes(len(small))
    )


def test_a_result_whose_call_was_not_read_still_names_its_tool() -> None:
    """Tool output may reach further back than the agent's parts; calls still name results."""
    messages = (
        agent("", call("old", "fetch_order", order_id="ORD-1")),
        result("old", "Error: order service unavailable", is_error=True),
        agent("x" * 40_000),
    )
    limit = Reading((1 << 20, 10, 1 << 20))
    seen = window(messages, limit)
    assert seen.agent == 2
    assert seen.tool == 0
    found = extract(messages, tuple(ref(i) for i in range(3)), 128, limit)
    errors = [e.text for e in found.entries if e.section == "errors"]
    assert errors == ["fetch_order: Error: order service unavailable"]


_LEAF_KEYS = ["id", "user_id", "flights", "date", "X1", "price", "codes", "a"]
_LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(-5, 10**6)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text("ab1.\n -", max_size=6)
)
_DATA = json_data(_LEAF_KEYS, _LEAVES, width=30, max_leaves=400)


@settings(max_examples=300)
@given(_DATA)
def test_ranked_leaves_are_the_sorted_leaves(data: object) -> None:
    """A JSON output's facts are its leaves sorted by `data_rank`, cut at `_PER_DATA`."""
    from contextfold._summarizers import _ledger_read as read

    expected = sorted(read._leaf_facts(data), key=read.data_rank)[: read._PER_DATA]
    assert read._ranked_leaves(data) == tuple(expected)
