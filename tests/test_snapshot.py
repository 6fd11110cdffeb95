"""Snapshots: plain JSON with a version, the policy and the archive's place; checked on
restore (a broken or changed one raises a typed error); a restore continues with the same
views (issue 12, fault 12)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import contextfold as cf
from contextfold import ContextManager
from contextfold._snapshot import _checksum

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "coding-session.openai-chat.json"


def _session() -> list[object]:
    messages = json.loads(EXAMPLE.read_text(encoding="utf-8"))["messages"]
    assert isinstance(messages, list)
    return messages


def _manager(archive: cf.Archive | None = None, policy: cf.Policy | None = None) -> ContextManager:
    manager = ContextManager(1500, "gpt-4o", archive=archive, policy=policy)
    manager.add({"role": "user", "content": "Summarize the logs."})
    for i in range(12):
        call = {"id": f"c{i}", "type": "function", "function": {"name": "cat", "arguments": "{}"}}
        manager.add({"role": "assistant", "content": None, "tool_calls": [call]})
        manager.add({"role": "tool", "tool_call_id": f"c{i}", "content": f"log {i}\n" * 150})
        manager.view()
    return manager


def _json(manager: ContextManager) -> dict[str, object]:
    snapshot = json.loads(json.dumps(manager.snapshot()))
    assert isinstance(snapshot, dict)
    return snapshot


def _resealed(snapshot: dict[str, object]) -> dict[str, object]:
    """A changed snapshot with a matching checksum: the field checks must still catch it."""
    return {**snapshot, "checksum": _checksum(snapshot)}


def test_snapshot_carries_version_policy_and_the_memory_archive() -> None:
    policy = cf.Policy(low=0.4, deadline=3.0, steps=cf.chain(cf.mask(), cf.drop()))
    manager = _manager(policy=policy)
    snapshot = _json(manager)
    assert snapshot["version"] == 2
    archive = snapshot["archive"]
    assert isinstance(archive, dict)
    assert archive["kind"] == "memory"
    assert archive["entries"]
    restored = ContextManager.restore(snapshot)
    assert restored.policy == policy
    assert restored.view() == manager.view()
    assert restored.messages() == manager.messages()


def test_sqlite_archive_is_found_again_by_its_path(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    manager = _manager(cf.Archive(cf.SqliteStore(path)))
    snapshot = _json(manager)
    assert snapshot["archive"] == {"kind": "sqlite", "path": str(path)}
    manager.archive.close()
    restored = ContextManager.restore(snapshot)  # no archive= needed
    assert restored.view() == manager.view()
    refs = manager.last_report.refs if manager.last_report else ()
    assert refs
    for ref in refs:
        restored.recall(ref)
    restored.archive.close()
    os.remove(path)
    with pytest.raises(cf.ArchiveError):
        ContextManager.restore(snapshot)


def test_an_sqlite_archive_that_went_on_in_memory_is_carried_by_the_snapshot(
    tmp_path: Path,
) -> None:
    """Its file gone (the folder removed), the store keeps the entries in memory: the
    snapshot carries them, where it named a path that no longer holds anything."""
    folder = tmp_path / "gone"
    folder.mkdir()
    manager = _manager(cf.Archive(cf.SqliteStore(folder / "a.db")))
    for path in folder.iterdir():
        path.unlink()
    folder.rmdir()
    manager.add({"role": "user", "content": "And the rest? " + "more " * 400})
    manager.view()
    assert any("kept in memory" in w for w in manager.archive.warnings)
    snapshot = _json(manager)
    assert isinstance(snapshot["archive"], dict)
    assert snapshot["archive"]["kind"] == "memory"
    restored = ContextManager.restore(snapshot)
    assert restored.view() == manager.view()
    for ref in manager.archive.refs():
        assert restored.archive.get(ref) == manager.archive.get(ref)


class _Elsewhere(cf.MemoryStore):
    """A store contextfold cannot reopen by itself (a Redis store, say)."""

    def __repr__(self) -> str:
        return "Elsewhere()"


def test_other_stores_must_be_passed_back() -> None:
    archive = cf.Archive(_Elsewhere())
    manager = _manager(archive)
    snapshot = _json(manager)
    assert snapshot["archive"] == {"kind": "external", "store": "Elsewhere()"}
    with pytest.raises(cf.ConfigurationError):
        ContextManager.restore(snapshot)
    assert ContextManager.restore(snapshot, archive=archive).view() == manager.view()


def test_the_wrong_archive_is_refused() -> None:
    snapshot = _json(_manager())
    with pytest.raises(cf.ArchiveError):
        ContextManager.restore(snapshot, archive=cf.Archive())


def test_a_changed_snapshot_fails_its_checksum() -> None:
    snapshot = _json(_manager())
    for change in ({"format": "anthropic"}, {"budget": 99}, {"pins": [0]}):
        with pytest.raises(cf.InvalidConversation) as info:
            ContextManager.restore({**snapshot, **change})
        assert info.value.field == "checksum"
    removed = {k: v for k, v in snapshot.items() if k != "archive"}
    with pytest.raises(cf.InvalidConversation):
        ContextManager.restore(removed)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"view": {}}, "view"),
        ({"seqs": [1]}, "seqs"),
        ({"budget": "big"}, "budget"),
        ({"model": 3}, "model"),
        ({"pins": ["x"]}, "pins"),
        ({"observed": [[1]]}, "observed"),
        ({"archive": []}, "archive"),
        ({"archive": {"kind": "memory", "entries": {"r1": 3}}}, "archive"),
        ({"archive": {"kind": "floppy"}}, "archive"),
        ({"format": "telex"}, "format"),
        ({"policy": {"steps": []}}, "policy.steps"),
        ({"policy": {"steps": [{"kind": "fold"}]}}, "policy.steps[0].kind"),
        ({"version": 1}, "version"),
        ({"next": 0}, "seqs"),  # the next message would reuse a number in the view
        ({"pins": [10**6]}, "pins"),
        ({"droppable": [-1]}, "droppable"),
    ],
)
def test_broken_snapshots_name_the_field(change: dict[str, object], field: str) -> None:
    snapshot = _resealed({**_json(_manager()), **change})
    with pytest.raises(cf.InvalidConversation) as info:
        ContextManager.restore(snapshot)
    assert info.value.field == field


def test_empty_messages_and_foreign_formats_are_refused() -> None:
    snapshot = _json(_manager())
    view, seqs = snapshot["view"], snapshot["seqs"]
    assert isinstance(view, list)
    assert isinstance(seqs, list)
    emptied = [{"role": "system", "parts": []}, *view]
    broken = _resealed({**snapshot, "view": emptied, "seqs": [None, *seqs]})
    with pytest.raises(cf.InvalidConversation) as info:
        ContextManager.restore(broken)
    assert info.value.index == 0
    switched = _resealed({**snapshot, "format": "anthropic"})  # tool messages: not Anthropic
    with pytest.raises(cf.InvalidConversation):
        ContextManager.restore(switched)


def test_not_a_snapshot() -> None:
    with pytest.raises(cf.InvalidConversation):
        ContextManager.restore({"version": 99})
    with pytest.raises(cf.InvalidConversation):
        ContextManager.restore([])


policies = st.builds(
    cf.Policy,
    high=st.sampled_from([0.8, 0.9, 1.0]),
    low=st.sampled_from([0.4, 0.6]),
    keep_last=st.integers(0, 3),
    deadline=st.sampled_from([1.0, 20.0]),
    steps=st.sampled_from(
        [
            cf.chain(cf.prune(), cf.mask(), cf.summarize(), cf.drop()),
            cf.chain(cf.mask(), cf.drop()),
            cf.chain(cf.summarize(eviction=cf.min_of(cf.evict_fraction(0.5), cf.retain_last(2)))),
        ]
    ),
)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    policy=policies,
    cut=st.integers(5, 45),
    budget=st.sampled_from([2500, 4000, 6000]),
    fmt=st.sampled_from(cf.FORMATS),
)
def test_restore_continues_with_the_same_views(
    policy: cf.Policy, cut: int, budget: int, fmt: str
) -> None:
    """Property: snapshot at any turn, restore without policy= or archive=, same views after."""
    session = _session()
    system: str | None = None
    if fmt == "anthropic":  # the system prompt has no place in a bare list: a body's
        body = cf.convert({"messages": session}, fmt, format="openai-chat")
        assert isinstance(body, dict)
        assert isinstance(body["system"], str)
        session, system = body["messages"], body["system"]
    elif fmt != "openai-chat":
        converted = cf.convert(session, fmt, format="openai-chat")
        assert isinstance(converted, list)
        session = converted
    manager = ContextManager(budget, "gpt-4o", format=fmt, policy=policy, system=system)
    for message in session[:cut]:
        manager.add(message)
        manager.view()
    restored = ContextManager.restore(json.loads(json.dumps(manager.snapshot())))
    assert restored.view() == manager.view()
    for message in session[cut:]:
        manager.add(message)
        restored.add(message)
        assert restored.view() == manager.view()
    assert restored.archive.refs() == manager.archive.refs()


def test_fields_of_the_wrong_type_inside_the_view_and_policy_name_the_field() -> None:
    snapshot = _json(_manager())
    view, policy = snapshot["view"], snapshot["policy"]
    assert isinstance(view, list)
    assert isinstance(policy, dict)
    untyped = [{"role": "user", "parts": [{"kind": "text", "text": None}]}, *view[1:]]
    with pytest.raises(cf.InvalidConversation) as info:
        ContextManager.restore(_resealed({**snapshot, "view": untyped}))
    assert info.value.field == "parts[0].text"
    with pytest.raises(cf.InvalidConversation) as info:
        ContextManager.restore(_resealed({**snapshot, "policy": {**policy, "keep_last": 1.5}}))
    assert info.value.field == "policy"


_JSON_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=5),
    st.just([]),
    st.just({}),
    st.just([1]),
    st.just({"kind": "text"}),
)


def _paths(value: object, path: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    """Every place in a snapshot's JSON (the first few items of each list)."""
    found = [path] if path else []
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value[:3]):
            found += _paths(item, (*path, i))
    return found


_SNAPSHOT = _json(_manager())
_PLACES = [p for p in _paths(_SNAPSHOT) if p != ("checksum",)]


@settings(max_examples=150, deadline=None)
@given(place=st.sampled_from(_PLACES), value=_JSON_VALUES)
@example(place=("view", 2, "extras", "openai-chat:keys", 0), value=[])  # found by this test
def test_a_resealed_snapshot_with_any_value_anywhere_restores_or_raises_typed(
    place: tuple[object, ...], value: object
) -> None:
    """Property: whatever one value of a snapshot becomes (checksum made to match), restore
    either gives a manager that works or raises a ContextFoldError; never TypeError & co."""
    snapshot = json.loads(json.dumps(_SNAPSHOT))
    holder = snapshot
    for key in place[:-1]:
        holder = holder[key]
    holder[place[-1]] = value
    try:
        restored = ContextManager.restore(_resealed(snapshot))
        restored.add({"role": "user", "content": "And the next log?"})
        restored.view()
        restored.snapshot()
    except cf.ContextFoldError:
        pass
