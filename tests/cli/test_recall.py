"""`contextfold recall`: what compact --archive folded away comes back, by reference."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import contextfold as cf

from .conftest import CHAT_EXAMPLE, assert_one_line_error, run

MASKED = re.compile(r"\[cf:(r[0-9a-f]{10}) tool result masked")


@pytest.fixture(scope="module")
def archived(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, object], str]:
    """(archive, report, compacted stdout) of the example compacted with --archive."""
    folder = tmp_path_factory.mktemp("recall")
    db, report = folder / "session.db", folder / "report.json"
    ran = run("compact", CHAT_EXAMPLE, "-b", "5000", "--archive", db, "--report", report)
    assert ran.code == 0, ran
    assert f"originals archived in {db}" in ran.stderr
    return db, json.loads(report.read_text()), ran.stdout


def test_every_reference_in_the_report_is_in_the_archive(
    archived: tuple[Path, dict[str, object], str],
) -> None:
    db, report, _ = archived
    refs = report["refs"]
    assert isinstance(refs, list)
    assert refs
    with cf.Archive(cf.SqliteStore(db, create=False)) as archive:
        assert set(refs) <= set(archive.refs())


def test_a_masked_tool_result_comes_back_whole(
    archived: tuple[Path, dict[str, object], str],
) -> None:
    db, _, stdout = archived
    original = {
        m["tool_call_id"]: m["content"]
        for m in json.loads(CHAT_EXAMPLE.read_text())["messages"]
        if m["role"] == "tool"
    }
    masked = [
        (m["tool_call_id"], MASKED.search(m["content"]))
        for m in json.loads(stdout)["messages"]
        if m["role"] == "tool"
    ]
    call_id, found = next((c, f) for c, f in masked if f is not None)
    assert found is not None
    ran = run("recall", found.group(1), "--archive", db)
    assert ran.code == 0, ran
    assert original[call_id] in ran.stdout
    pasted = run("recall", found.group(0) + " 812 chars]", "--archive", db, "--json")
    data = json.loads(pasted.stdout)
    assert data["ref"] == found.group(1)
    assert original[call_id] in data["text"]


def test_unknown_reference_and_bad_archives(
    archived: tuple[Path, dict[str, object], str], tmp_path: Path
) -> None:
    db, _, _ = archived
    assert_one_line_error(run("recall", "r0000000000", "--archive", db), "r0000000000")
    missing = tmp_path / "none.db"
    assert_one_line_error(run("recall", "r0000000000", "--archive", missing), "does not exist")
    assert not missing.exists()
    assert_one_line_error(
        run("recall", "r0000000000", "--archive", CHAT_EXAMPLE), str(CHAT_EXAMPLE), "archive"
    )
    usage = run("recall", "not-a-ref", "--archive", db)
    assert usage.code == 2
    assert "is not a reference" in usage.stderr
