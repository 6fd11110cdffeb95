"""Storage faults degrade instead of ending a turn (issue 12, faults 6 and 13).

A real SQLite file deleted (or its folder removed) while a ContextManager runs: the store
recreates the file, or keeps the entries in memory, carries over what it could read, and
the report says so; nothing the manager holds is lost. An archive in a read-only folder is
recalled from by a process that may not write there (a forked child without privileges).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import contextfold as cf

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "coding-session.openai-chat.json"


def session() -> list[object]:
    data = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    messages = data["messages"]
    assert isinstance(messages, list)
    return messages


def run_with_fault(
    path: Path, fault: str, at: int = 25
) -> tuple[cf.ContextManager, list[cf.Report]]:
    manager = cf.ContextManager(3000, "gpt-4o", archive=cf.Archive(cf.SqliteStore(path)))
    reports: list[cf.Report] = []
    for i, message in enumerate(session()):
        manager.add(message)
        if i == at:
            if fault == "delete":
                for name in os.listdir(path.parent):
                    os.remove(path.parent / name)
            else:
                shutil.rmtree(path.parent)
        manager.view()
        report = manager.last_report
        if report is not None and (not reports or report is not reports[-1]):
            reports.append(report)  # every compaction's report, whether it changed the view
    return manager, reports


def all_refs(reports: list[cf.Report]) -> list[str]:
    return [ref for report in reports for ref in report.refs]


def test_deleted_file_is_recreated_with_every_entry(tmp_path: Path) -> None:
    path = tmp_path / "archive.db"
    manager, reports = run_with_fault(path, "delete")
    warned = [w for r in reports for w in r.warnings]
    assert len(warned) == 1, warned
    assert "deleted or replaced" in warned[0]
    assert "recreated" in warned[0]
    refs = all_refs(reports)
    assert refs
    for ref in refs:
        manager.recall(ref)  # in this process
    manager.archive.close()
    with cf.Archive(cf.SqliteStore(path, readonly=True)) as again:  # and from the file
        for ref in refs:
            assert again.get(ref) is not None


def test_removed_folder_falls_back_to_memory(tmp_path: Path) -> None:
    path = tmp_path / "gone" / "archive.db"
    path.parent.mkdir()
    manager, reports = run_with_fault(path, "rmtree")
    warned = [w for r in reports for w in r.warnings]
    assert any("kept in memory" in w for w in warned), warned
    for ref in all_refs(reports):
        manager.recall(ref)
    assert manager.tokens() <= 3000


def test_a_healthy_archive_warns_nothing(tmp_path: Path) -> None:
    manager = cf.ContextManager(
        3000, "gpt-4o", archive=cf.Archive(cf.SqliteStore(tmp_path / "a.db"))
    )
    for message in session():
        manager.add(message)
        manager.view()
        assert manager.last_report is None or manager.last_report.warnings == ()


def _recall_without_write_access(path: Path, ref: str, *, readonly: bool) -> str:
    """Recall `ref` in a forked child that cannot write to the archive's folder."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: drop privileges (root ignores permissions), then read
        os.close(read)
        try:
            if os.getuid() == 0:
                os.setgid(65534)
                os.setuid(65534)
            store = cf.SqliteStore(path, readonly=True) if readonly else cf.SqliteStore(path)
            with cf.Archive(store) as archive:
                answer = f"ok {archive.get(ref)}"
        except BaseException as error:
            answer = f"{type(error).__name__}: {error}"
        os.write(write, answer.encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        answer = pipe.read().decode()
    os.waitpid(pid, 0)
    return answer


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_read_only_folder_can_be_recalled_from() -> None:
    folder = Path(tempfile.mkdtemp(dir="/tmp" if os.path.isdir("/tmp") else None))
    try:
        path = folder / "archive.db"
        with cf.Archive(cf.SqliteStore(path)) as archive:
            ref = archive.put("the original")
        os.chmod(path, 0o444)
        os.chmod(folder, 0o555)
        writing = _recall_without_write_access(path, ref, readonly=False)
        assert "readonly" in writing or "read-only" in writing  # the fault as reported
        assert _recall_without_write_access(path, ref, readonly=True) == "ok the original"
        assert sorted(os.listdir(folder)) == ["archive.db"]
    finally:
        os.chmod(folder, 0o755)
        shutil.rmtree(folder)


def test_read_only_store_refuses_writes(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    with cf.Archive(cf.SqliteStore(path)) as archive:
        ref = archive.put("x")
    with cf.Archive(cf.SqliteStore(path, readonly=True)) as archive:
        assert archive.get(ref) == "x"
        with pytest.raises(cf.ArchiveError):
            archive.put("y")
    with pytest.raises(cf.ArchiveError):
        cf.SqliteStore(tmp_path / "missing.db", readonly=True)


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(at=st.integers(0, 48), fault=st.sampled_from(["delete", "rmtree"]))
def test_a_fault_at_any_turn_loses_nothing_in_memory(at: int, fault: str) -> None:
    """Property: whenever the file goes, every reference any report gave still recalls."""
    folder = Path(tempfile.mkdtemp())
    try:
        path = folder / "archive.db"
        manager, reports = run_with_fault(path, fault, at)
        for ref in all_refs(reports):
            manager.recall(ref)
        warned = [w for r in reports for w in r.warnings]
        assert len(warned) <= 1
        manager.archive.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
