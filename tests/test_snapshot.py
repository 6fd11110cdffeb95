"""Snapshots are plain JSON; broken ones are rejected naming the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import contextfold as cf
from contextfold import ContextManager


def _manager(archive: cf.Archive | None = None) -> ContextManager:
    manager = ContextManager(1500, "gpt-4o", archive=archive)
    manager.add({"role": "user", "content": "Summarize the logs."})
    for i in range(12):
        call = {"id": f"c{i}", "type": "function", "function": {"name": "cat", "arguments": "{}"}}
        manager.add({"role": "assistant", "content": None, "tool_calls": [call]})
        manager.add({"role": "tool", "tool_call_id": f"c{i}", "content": f"log {i}\n" * 150})
        manager.view()
    return manager


def test_snapshot_is_json_and_carries_the_memory_archive() -> None:
    manager = _manager()
    snapshot = json.loads(json.dumps(manager.snapshot()))
    assert isinstance(snapshot["archive"], dict)
    assert snapshot["archive"]
    restored = ContextManager.restore(snapshot)
    assert restored.view() == manager.view()
    assert restored.messages() == manager.messages()


def test_sqlite_archive_is_passed_back_not_copied(tmp_path: Path) -> None:
    with cf.Archive(cf.SqliteStore(tmp_path / "a.db")) as archive:
        manager = _manager(archive)
        snapshot = json.loads(json.dumps(manager.snapshot()))
        assert snapshot["archive"] is None
        restored = ContextManager.restore(snapshot, archive=archive)
        assert restored.view() == manager.view()


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
        ({"archive": {"r1": 3}}, "archive"),
    ],
)
def test_broken_snapshots_name_the_field(change: dict[str, object], field: str) -> None:
    snapshot = json.loads(json.dumps(_manager().snapshot()))
    snapshot.update(change)
    with pytest.raises(cf.InvalidConversation) as info:
        ContextManager.restore(snapshot)
    assert info.value.field == field


def test_not_a_snapshot() -> None:
    with pytest.raises(cf.InvalidConversation):
        ContextManager.restore({"version": 99})
    with pytest.raises(cf.InvalidConversation):
        ContextManager.restore([])
