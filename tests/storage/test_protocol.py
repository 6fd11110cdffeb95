"""Every store keeps the ArchiveStore contract, and memory and SQLite behave identically."""

from __future__ import annotations

import re

import pytest
from hypothesis import assume, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, invariant, rule

from contextfold import (
    Archive,
    ArchiveError,
    ArchiveStore,
    MemoryStore,
    Message,
    Part,
    SqliteStore,
    UnknownReference,
)
from contextfold._messages import REF_PATTERN

from ..strategies import messages, parts, texts

items: st.SearchStrategy[Message | Part | str] = messages | parts | texts
foreign_refs = st.text(alphabet="xyz0123456789", min_size=1, max_size=12)


class MemoryAndSqliteAgree(RuleBasedStateMachine):
    """The same operations on a memory and an SQLite archive give the same answers."""

    stored = Bundle("stored")

    def __init__(self) -> None:
        super().__init__()
        self.memory = Archive(MemoryStore())
        self.sqlite = Archive(SqliteStore(":memory:"))
        self.model: dict[str, object] = {}
        """Everything either archive should hold, archive items and raw texts alike."""

    @rule(target=stored, item=items)
    def put(self, item: Message | Part | str) -> str:
        ref = self.memory.put(item)
        assert self.sqlite.put(item) == ref
        assert self.model.setdefault(ref, item) == item
        return ref

    @rule(ref=stored)
    def get(self, ref: str) -> None:
        assert self.memory.get(ref) == self.sqlite.get(ref) == self.model[ref]
        assert self.memory.entry(ref) == self.sqlite.entry(ref)
        assert self.memory.recall_text(ref) == self.sqlite.recall_text(ref)

    @rule(ref=st.from_regex(REF_PATTERN, fullmatch=True))
    def get_unknown(self, ref: str) -> None:
        assume(ref not in self.model)
        for archive in (self.memory, self.sqlite):
            assert ref not in archive
            with pytest.raises(UnknownReference):
                archive.get(ref)

    @rule(ref=foreign_refs, data=st.text(max_size=40))
    def raw_put_is_write_once(self, ref: str, data: str) -> None:
        held = self.model.setdefault(ref, data)
        assert self.memory.store.put(ref, data) == held
        assert self.sqlite.store.put(ref, data) == held
        assert self.memory.store.get(ref) == self.sqlite.store.get(ref) == held

    @invariant()
    def same_listing(self) -> None:
        order = list(self.model)
        assert self.memory.refs() == self.sqlite.refs() == order
        assert len(self.memory) == len(self.sqlite) == len(order)

    def teardown(self) -> None:
        self.memory.close()
        self.sqlite.close()


MemoryAndSqliteAgree.TestCase.settings = settings(max_examples=40, stateful_step_count=25)
test_memory_and_sqlite_agree = MemoryAndSqliteAgree.TestCase


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest) -> ArchiveStore:
    return MemoryStore() if request.param == "memory" else SqliteStore(":memory:")


def test_stores_satisfy_the_protocol(store: ArchiveStore) -> None:
    assert isinstance(store, ArchiveStore)
    store.close()


def test_put_keeps_the_first_text_and_refs_keep_insertion_order(store: ArchiveStore) -> None:
    assert store.put("b", "one") == "one"
    assert store.put("a", "two") == "two"
    assert store.put("b", "three") == "one"
    assert store.get("b") == "one"
    assert store.get("missing") is None
    assert list(store.refs()) == ["b", "a"]
    store.close()


def test_refs_is_a_snapshot(store: ArchiveStore) -> None:
    store.put("a", "1")
    listing = store.refs()
    store.put("b", "2")
    assert list(listing) == ["a"]
    store.close()


def test_a_closed_store_raises_archive_error(store: ArchiveStore) -> None:
    store.put("a", "1")
    store.close()
    store.close()
    assert "closed" in repr(store)
    for use in (lambda: store.get("a"), lambda: store.put("b", "2"), store.refs):
        with pytest.raises(ArchiveError, match="closed"):
            use()


def test_archive_refs_match_the_reference_pattern(store: ArchiveStore) -> None:
    with Archive(store) as archive:
        ref = archive.put("x")
        assert re.fullmatch(REF_PATTERN, ref)
        assert repr(archive).startswith("Archive(")
