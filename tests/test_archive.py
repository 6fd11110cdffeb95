"""The archive gives back exactly what was stored, under content-addressed references."""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

import pytest
from hypothesis import given
from hypothesis import strategies as st

import contextfold._archive as archive_module
import contextfold._archive_copy as archive_copy
from contextfold import (
    Archive,
    ArchiveEntry,
    ArchiveError,
    Image,
    InvalidConversation,
    MemoryStore,
    Message,
    Opaque,
    Part,
    Reasoning,
    SqliteStore,
    Text,
    ToolCall,
    ToolResult,
    UnknownReference,
)
from contextfold._messages import REF_PATTERN
from contextfold._serialize import dump_message, dump_part, plain

from . import corpus
from .strategies import messages, parts, texts, wide_messages, wide_parts, wide_texts

items: st.SearchStrategy[Message | Part | str] = messages | parts | texts


def json_form(item: Message | Part | str) -> tuple[str, object]:
    """The entry kind and `_serialize` form of `item` (rule 1)."""
    if isinstance(item, str):
        return "text", item
    if isinstance(item, Message):
        return "message", dump_message(item)
    return "part", dump_part(item)


def expected_ref(item: Message | Part | str) -> str:
    """The reference the archive's rule 1 promises, computed independently."""
    kind, data = json_form(item)
    canonical = json.dumps(
        {"kind": kind, "item": data},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        default=plain,
    )
    return "r" + hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()[:10]


@pytest.fixture(params=["memory", "sqlite"])
def archive(request: pytest.FixtureRequest) -> Iterator[Archive]:
    store = MemoryStore() if request.param == "memory" else SqliteStore(":memory:")
    with Archive(store) as arch:
        yield arch


@given(items)
def test_put_then_get_gives_the_original_back(item: Message | Part | str) -> None:
    arch = Archive()
    ref = arch.put(item)
    assert arch.get(ref) == item
    assert type(arch.get(ref)) is type(item)


@given(items)
def test_ref_is_the_documented_content_hash(item: Message | Part | str) -> None:
    ref = Archive().put(item)
    assert re.fullmatch(REF_PATTERN, ref)
    assert ref == expected_ref(item)


@given(st.lists(items, max_size=8))
def test_same_content_is_stored_once_and_keeps_its_ref(batch: list[Message | Part | str]) -> None:
    first, second = Archive(), Archive()
    refs = [first.put(item) for item in batch]
    assert [second.put(item) for item in batch] == refs
    assert [first.put(item) for item in batch] == refs
    assert len(first) == len(set(refs)) == len(first.refs())
    assert first.refs() == list(dict.fromkeys(refs))


def test_key_order_in_extras_does_not_change_the_ref() -> None:
    one = Message("user", (Text("x", extras={"a": 1, "b": 2}),), extras={"p": 1, "q": [1, 2]})
    two = Message("user", (Text("x", extras={"b": 2, "a": 1}),), extras={"q": [1, 2], "p": 1})
    assert Archive().put(one) == Archive().put(two)


def test_text_and_text_part_are_different_entries(archive: Archive) -> None:
    assert archive.put("hello") != archive.put(Text("hello"))
    assert len(archive) == 2


def test_entry_carries_kind_and_the_first_label(archive: Archive) -> None:
    part = ToolResult("call_1", (Text("x" * 50),))
    ref = archive.put(part, label="read_file, 812 tokens")
    assert archive.put(part, label="another label") == ref
    assert archive.entry(ref) == ArchiveEntry(ref, "part", part, label="read_file, 812 tokens")
    assert archive.entry(archive.put("plain")).kind == "text"
    assert archive.entry(archive.put(Message("tool", ()))).label is None


def test_unknown_reference_raises_a_key_error_naming_it(archive: Archive) -> None:
    with pytest.raises(UnknownReference) as info:
        archive.get("r0123456789")
    assert isinstance(info.value, KeyError)
    assert info.value.ref == "r0123456789"
    assert "r0123456789" in str(info.value)
    assert "r0123456789" not in archive
    assert 42 not in archive


@pytest.mark.parametrize("bad", [42, None, b"bytes", ["a list"], {"role": "user"}])
def test_only_messages_parts_and_text_are_archived(bad: object) -> None:
    with pytest.raises(InvalidConversation, match="cannot archive"):
        Archive().put(bad)  # type: ignore[arg-type]


def test_unserializable_extras_are_a_library_error() -> None:
    with pytest.raises(InvalidConversation, match="not JSON-serializable"):
        Archive().put(Text("x", extras={"when": object()}))


def test_read_only_mappings_nested_in_extras_are_plain_json(archive: Archive) -> None:
    item = Text("x", extras={"meta": MappingProxyType({"b": 1, "a": (1, 2)})})
    ref = archive.put(item)
    assert ref == Archive().put(Text("x", extras={"meta": {"a": [1, 2], "b": 1}}))
    assert archive.get(ref) == Text("x", extras={"meta": {"a": [1, 2], "b": 1}})


def test_lone_surrogates_survive_every_store(archive: Archive) -> None:
    item = Message("user", (Text("broken \ud800 pair"),), extras={"k": "\udfff"})
    assert archive.get(archive.put(item)) == item


# --- collisions ------------------------------------------------------------------------------


def test_a_collision_moves_the_later_item_and_never_mixes_payloads(
    archive: Archive, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = archive_module.reference

    def colliding(canonical: bytes, probe: int = 0) -> str:
        return "r0000000000" if probe == 0 else real(canonical, probe)

    monkeypatch.setattr(archive_module, "reference", colliding)
    first, second = archive.put("first"), archive.put("second")
    assert first == "r0000000000" != second
    assert re.fullmatch(REF_PATTERN, second)
    assert (archive.get(first), archive.get(second)) == ("first", "second")
    assert archive.put("second") == second
    assert archive.refs() == [first, second]


def test_running_out_of_probes_is_an_archive_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(archive_module, "reference", lambda canonical, probe=0: "r0000000000")
    arch = Archive()
    arch.put("first")
    with pytest.raises(ArchiveError, match="candidate references"):
        arch.put("second")


# --- damaged entries -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ("{not json", "not JSON"),
        ("[1, 2]", "not an archive record"),
        ('{"kind": "text"}', "not an archive record"),
        ('{"item": "x", "kind": "video"}', "unknown kind"),
        ('{"item": "x", "kind": "text", "label": 3}', "label"),
        ('{"item": "x", "kind": "text", "probe": -1}', "probe"),
        ('{"item": "x", "kind": "text", "probe": true}', "probe"),
        ('{"item": 3, "kind": "text"}', "match its reference"),
        ('{"item": "someone else", "kind": "text"}', "match its reference"),
    ],
)
def test_a_damaged_entry_is_an_archive_error_not_a_wrong_payload(raw: str, why: str) -> None:
    store = MemoryStore()
    store.put("r0123456789", raw)
    with pytest.raises(ArchiveError, match=why):
        Archive(store).get("r0123456789")


@pytest.mark.parametrize(
    ("kind", "item"),
    [("text", 3), ("message", {"role": "robot", "parts": []}), ("part", {"kind": "nope"})],
)
def test_an_unloadable_item_is_reported_as_corrupt(kind: str, item: object) -> None:
    canonical = json.dumps({"item": item, "kind": kind}, sort_keys=True, separators=(",", ":"))
    ref = archive_module.reference(canonical.encode())
    store = MemoryStore()
    store.put(ref, canonical)
    with pytest.raises(ArchiveError, match="corrupt"):
        Archive(store).get(ref)


def test_a_damaged_entry_under_a_ref_is_skipped_by_put() -> None:
    store = MemoryStore()
    ref = expected_ref("payload")
    store.put(ref, "garbage")
    arch = Archive(store)
    moved = arch.put("payload")
    assert moved != ref
    assert arch.get(moved) == "payload"


# --- readable text ---------------------------------------------------------------------------


def test_recall_text_of_text_and_parts(archive: Archive) -> None:
    assert archive.recall_text(archive.put("as is\n  kept")) == "as is\n  kept"
    assert archive.recall_text(archive.put(Text("a part"))) == "a part"
    result = ToolResult("call_7", (Text("line 1"), Text("line 2")), is_error=True)
    assert archive.recall_text(archive.put(result)) == (
        "[tool result for call_7, error]\nline 1\nline 2"
    )
    opaque = Opaque({"type": "document", "source": {"data": "x" * 1000}})
    assert archive.recall_text(archive.put(opaque)) == "[document content, not text]"
    assert archive.recall_text(archive.put(Reasoning("", encrypted="gAAA"))) == (
        "[reasoning, not shown]"
    )


def test_recall_text_of_a_message_shows_role_calls_and_placeholders(archive: Archive) -> None:
    data_url = "data:image/png;base64," + "A" * 10_000
    message = Message(
        "assistant",
        (
            Text("Let me look."),
            ToolCall("call_1", "read_file", '{"path": "src/app.py"}'),
            Image(data_url),
            Image("https://example.com/cat.png"),
        ),
        name="agent",
    )
    text = archive.recall_text(archive.put(message))
    assert text == (
        "assistant (agent): Let me look.\n"
        '[tool call read_file, id call_1] {"path": "src/app.py"}\n'
        f"[image: inline image/png, {len(data_url)} characters]\n"
        "[image: https://example.com/cat.png]"
    )


@given(items)
def test_recall_text_never_fails_and_contains_every_text(item: Message | Part | str) -> None:
    arch = Archive()
    text = arch.recall_text(arch.put(item))
    if isinstance(item, str):
        assert text == item
    elif isinstance(item, Text):
        assert text == item.text
    elif isinstance(item, Message):
        assert text.startswith(f"{item.role}")
        for part in item.parts:
            if isinstance(part, Text):
                assert part.text in text


# --- threads ---------------------------------------------------------------------------------


def test_threads_putting_overlapping_items_agree_on_every_ref(archive: Archive) -> None:
    payloads = [f"payload {i % 40}" for i in range(200)]
    results: dict[int, list[str]] = {}

    def work(worker: int) -> None:
        results[worker] = [archive.put(p) for p in payloads[worker::4] + payloads[: 20 * worker]]

    threads = [threading.Thread(target=work, args=(w,)) for w in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(archive) == 40
    for worker, refs in results.items():
        chunk = payloads[worker::4] + payloads[: 20 * worker]
        assert [archive.get(r) for r in refs] == chunk


# --- the real corpus -------------------------------------------------------------------------


@pytest.mark.corpus
def test_every_corpus_payload_comes_back_from_a_sqlite_archive(tmp_path: Path) -> None:
    contents: list[str] = []
    for _, wire in corpus.conversations():
        for message in wire:
            content = message.get("content")
            if isinstance(content, list):
                content = "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
            if isinstance(content, str) and content:
                contents.append(content)
    assert len(contents) > 1000
    path = tmp_path / "corpus.db"
    with Archive(SqliteStore(path)) as arch:
        refs = [arch.put(Text(c)) for c in contents]
    assert len(set(refs)) == len(set(contents)), "two distinct payloads share a ref"
    with Archive(SqliteStore(path, create=False)) as again:
        assert again.refs() == list(dict.fromkeys(refs))
        assert all(again.get(r) == Text(c) for r, c in zip(refs, contents, strict=True))


@given(
    st.one_of(texts, messages, parts),
    st.one_of(st.none(), st.text()),
)
def test_stored_record_is_the_items_sorted_ascii_json(item: object, label: str | None) -> None:
    """The record written once from the canonical text equals a fresh ASCII JSON encoding."""
    store = archive_module.Archive()
    ref = store.put(item, label=label)  # type: ignore[arg-type]
    kind, data = json_form(item)  # type: ignore[arg-type]
    record: dict[str, object] = {"item": data, "kind": kind}
    if label is not None:
        record["label"] = label
    expected = json.dumps(record, sort_keys=True, separators=(",", ":"), default=plain)
    assert store.store.get(ref) == expected


@given(st.lists(items, max_size=8), st.lists(st.sampled_from([None, "a", "b"]), max_size=8))
def test_records_written_when_read_are_the_records_written_at_once(
    batch: list[Message | Part | str], labels: list[str | None]
) -> None:
    """The memory store writes a record when it is first read (rule 5): the text it then
    holds is exactly what an eager store (SQLite) holds for the same puts."""
    memory, eager = Archive(), Archive(SqliteStore(":memory:"))
    for item, label in zip(batch, labels + [None] * len(batch), strict=False):
        assert memory.put(item, label=label) == eager.put(item, label=label)
    assert memory.refs() == eager.refs()
    for ref in memory.refs():
        assert memory.store.get(ref) == eager.store.get(ref)
        assert memory.entry(ref) == eager.entry(ref)


def held(archive: Archive, ref: str) -> object:
    """What a memory store holds under `ref`: a record, or a function writing it when read."""
    store = archive.store
    assert isinstance(store, MemoryStore)
    return store._data[ref]


def test_an_item_with_a_callers_mutable_extra_is_kept_as_it_was_archived() -> None:
    """An extra holding the caller's list could change after the put: the memory store
    keeps a private copy of it (no record text), so recall gives what was archived."""
    tags, text = ["urgent"], "deploy on friday " * 40
    message = Message("user", (Text(text),), extras={"tags": tags})
    archive = Archive()
    ref = archive.put(message)
    tags.append("changed later")
    assert callable(held(archive, ref))  # written when read
    assert archive.get(ref) == Message("user", (Text(text),), extras={"tags": ["urgent"]})


def test_a_short_item_with_a_callers_mutable_extra_is_written_at_once() -> None:
    """Its record takes less memory than a copy would (COPY_OVER)."""
    tags, part = ["urgent"], Text("deploy on friday")
    archive = Archive()
    ref = archive.put(Message("user", (part,), extras={"tags": tags}))
    assert isinstance(held(archive, ref), str)
    tags.append("changed later")
    assert archive.get(ref) == Message("user", (part,), extras={"tags": ["urgent"]})


wide_items: st.SearchStrategy[Message | Part | str] = wide_messages | wide_parts | wide_texts


def scramble(item: Message | Part | str) -> None:
    """Mutate, in place, every list and dict a caller holds inside the extras and payloads
    of `item` (rule 5 does not cover replacing an extra in the extras mapping itself)."""
    if isinstance(item, Message | ToolResult):
        for part in item.parts:
            scramble(part)
    if isinstance(item, Opaque):
        scramble_value(item.payload)
    for value in getattr(item, "extras", {}).values():
        scramble_value(value)


def scramble_value(value: object) -> None:
    if isinstance(value, Mapping):
        for inner in value.values():
            scramble_value(inner)
    elif isinstance(value, list | tuple):
        for inner in value:
            scramble_value(inner)
    if isinstance(value, list):
        value.append("changed later")
    elif isinstance(value, dict):
        value["changed later"] = True


@given(
    st.lists(wide_items, max_size=6),
    st.lists(st.sampled_from([None, "a"]), max_size=6),
    st.sampled_from([0, archive_module.COPY_OVER]),
)
def test_what_a_caller_mutates_after_a_put_never_changes_the_archive(
    batch: list[Message | Part | str], labels: list[str | None], copy_over: int
) -> None:
    """Rule 5 for items at their widest: the memory store, which writes a record when it is
    read, ends up holding the records an eager store (SQLite) wrote at once, whatever the
    caller did in between to the lists and dicts inside extras and payloads."""
    memory, eager = Archive(), Archive(SqliteStore(":memory:"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(archive_module, "COPY_OVER", copy_over)  # 0: copy whatever it can
        for item, label in zip(batch, labels + [None] * len(batch), strict=False):
            ref = memory.put(item, label=label)
            assert ref == eager.put(item, label=label) == expected_ref(item)
    for item in batch:
        scramble(item)
    assert memory.refs() == eager.refs()
    for ref in memory.refs():
        assert memory.store.get(ref) == eager.store.get(ref)
        assert memory.entry(ref) == eager.entry(ref)


class Tags(list[str]):
    """A list subclass: encodable as JSON, but not a type the archive copies."""


@pytest.mark.parametrize(
    "extra",
    [Tags(["urgent"]), [[[["deep"]]]], {"a": Tags(["x"])}],
    ids=["list subclass", "nested", "nested subclass"],
)
def test_an_extra_the_archive_cannot_copy_is_written_at_once(
    extra: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(archive_copy, "MAX_DEPTH", 3)
    item = Text("deploy " * 100, extras={"tags": extra})
    before = Archive(SqliteStore(":memory:"))
    archive = Archive()
    ref = archive.put(item)
    assert before.put(item) == ref
    assert isinstance(held(archive, ref), str)
    scramble(item)
    assert archive.store.get(ref) == before.store.get(ref)


def test_a_copy_shares_the_callers_strings_and_nothing_mutable() -> None:
    text = "x" * 1000
    call = ToolCall("c1", "f", text, extras={"keys": ["id", "type"], "inner": {"k": ["a"]}})
    message = Message("assistant", (Text(text), call), extras={"n": 1})
    copy = archive_copy.private_copy(message)
    assert isinstance(copy, Message)
    assert copy == Message(
        "assistant",
        (Text(text), replace(call, extras={"keys": ("id", "type"), "inner": {"k": ("a",)}})),
        extras={"n": 1},
    )
    assert copy.parts[0] is message.parts[0]
    assert copy.parts[1].arguments is text  # type: ignore[union-attr]
    assert copy.extras is message.extras
    plain_item = Message("user", (Text(text, extras={"n": 1}),), extras={"s": "t"})
    assert archive_copy.private_copy(plain_item) is plain_item
