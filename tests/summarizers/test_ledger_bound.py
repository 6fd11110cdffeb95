"""The bound's shortcuts answer as the rules they stand for."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from contextfold._summarizers._ledger_bound import (
    _ID_LIKE,
    _RANK0_ORDER,
    RANKS,
    _id_like,
    _section_key,
    _task_values,
    goal_kinds,
    kind,
    priorities,
    weight,
)
from contextfold._summarizers._ledger_text import Entry

_CHARS = st.sampled_from(list("aZ09_/@. -\n\u0663é"))


@given(st.lists(_CHARS, max_size=40).map("".join))
def test_id_like_is_the_id_pattern(text: str) -> None:
    assert _id_like(text) == (_ID_LIKE.search(text) is not None)


_SECTIONS = st.sampled_from(
    ("goals", "user", "decisions", "identifiers", "seen", "errors", "files", "state", "notes")
)
_TEXTS = st.sampled_from(
    ("12:30", "$5", "3.5", "economy", "HAT12", "a b", "edited", "def f", "Not read: 3", "x")
)
_ENTRIES = st.lists(
    st.builds(
        lambda section, text, group, status, seq, new: Entry(
            section, text, group=group, status=status, refs=("r0000000001",), seq=seq, new=new
        ),
        _SECTIONS,
        _TEXTS,
        st.sampled_from(("", "command", "cabin", "user_id", "flights[].date", "path")),
        st.sampled_from(("", "open", "done", "fixed")),
        st.integers(-50, 50),
        st.booleans(),
    ),
    max_size=30,
)


@given(_ENTRIES)
def test_priorities_are_the_plain_keys(entries: list[Entry]) -> None:
    """`priorities`' shortcut for values gives the keys of the rank table, row by row."""
    kinds = goal_kinds(entries) | _task_values(entries)
    plain = []
    for index, entry in enumerate(entries):
        row = kinds.get(index) or kind(entry)
        rank = RANKS[row][0 if entry.new else 1]
        order = _RANK0_ORDER.get(row, 9) if rank == 0 else weight(entry)
        age = entry.seq if row == "user task" else -entry.seq
        plain.append((rank, _section_key(entry, rank), order, age))
    assert priorities(entries) == plain
