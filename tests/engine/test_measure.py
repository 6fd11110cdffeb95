"""Counts: `over` answers as a full count would, counting the system prefix first."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from contextfold import Message, Text
from contextfold._engine._measure import Counts
from contextfold.testing import FixedCounter

COUNTER = FixedCounter()


class _Recording:
    """A FixedCounter that records the texts it counted."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def count(self, message: Message) -> int:
        part = message.parts[0]
        assert isinstance(part, Text)
        self.seen.append(part.text)
        return COUNTER.count(message)


def _messages(sizes: list[int], system: int) -> list[Message]:
    prefix = [Message("system", (Text("s" * system),))] if system else []
    return prefix + [Message("user", (Text(f"{i}" * n),)) for i, n in enumerate(sizes)]


@given(
    st.lists(st.integers(0, 40), max_size=8),
    st.integers(0, 60),
    st.integers(-5, 80),
    st.lists(st.integers(0, 8), max_size=3),
)
def test_over_is_the_full_total_compared(
    sizes: list[int], system: int, limit: int, asked: list[int]
) -> None:
    messages = _messages(sizes, system)
    counts = Counts(COUNTER, messages)
    for i in asked:  # counts already known are taken first
        if i < len(messages):
            counts[i]
    total = sum(COUNTER.count(m) for m in messages)
    assert counts.over(limit) is (total > limit)
    assert counts.total() == total


def test_a_system_prompt_over_the_limit_is_all_that_gets_counted() -> None:
    recording = _Recording()
    counts = Counts(recording, _messages([10, 10, 10], system=200))
    assert counts.over(40)
    assert recording.seen == ["s" * 200]


@given(
    st.lists(st.integers(0, 40), max_size=8),
    st.sets(st.integers(0, 8), max_size=9),
    st.integers(0, 9),
)
def test_later_is_the_total_and_keeps_only_what_is_not_counted(
    sizes: list[int], asked: set[int], extra: int
) -> None:
    messages = _messages(sizes, 0)
    total = sum(map(COUNTER.count, messages))
    recording = _Recording()
    counts = Counts(recording, messages)
    for i in asked:
        if i < len(messages):
            counts[i]  # counted and kept
    later = counts.later(extra)
    uncounted = [m for i, m in enumerate(messages) if i not in asked]
    if not uncounted:
        assert later == extra + total
        return
    assert callable(later)
    assert list(later.rest) == uncounted  # type: ignore[attr-defined]
    before = len(recording.seen)
    assert later() == extra + total
    assert len(recording.seen) - before == len(uncounted)  # only the rest is counted


@given(
    st.lists(st.integers(0, 40), max_size=8),
    st.integers(0, 60),
    st.integers(-5, 80),
    st.lists(st.integers(0, 8), max_size=3),
    st.lists(st.integers(0, 8), max_size=2),
)
def test_a_view_over_is_its_full_total_compared(
    sizes: list[int], system: int, limit: int, asked: list[int], made: list[int]
) -> None:
    """A view (some messages replaced by ones the engine made, some counted already)
    answers `over` as summing every message would."""
    messages = _messages(sizes, system)
    counts = Counts(COUNTER, messages)
    for i in asked:
        if i < len(messages):
            counts[i]
    body = list(messages)
    origins: list[int | None] = list(range(len(messages)))
    for i in made:  # a repair: a new message in place of the input's
        if i < len(body):
            body[i], origins[i] = Message("tool", (Text("x" * i),)), None
    view = counts.view(body, origins)
    total = sum(COUNTER.count(m) for m in body)
    assert view.over(limit) is (total > limit)
    assert sum(view[i] for i in range(len(body))) == total


def test_a_view_reads_what_is_counted_before_counting() -> None:
    recording = _Recording()
    messages = _messages([5, 5, 5], 400)
    counts = Counts(recording, messages)
    assert counts.over(40)  # the system prompt alone
    seen = len(recording.seen)
    assert counts.view(messages, list(range(len(messages)))).over(40)
    assert len(recording.seen) == seen  # the known count was enough
