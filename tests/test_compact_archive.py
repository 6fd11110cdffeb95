"""compact() stores originals in the archive it is given, even an empty one (falsy: len 0)."""

from __future__ import annotations

import json
from pathlib import Path

import contextfold as cf

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "coding-session.openai-chat.json"


def test_an_empty_archive_passed_in_receives_the_originals(tmp_path: Path) -> None:
    payload = json.loads(EXAMPLE.read_text())
    with cf.Archive(cf.SqliteStore(tmp_path / "a.db")) as archive:
        assert len(archive) == 0
        result = cf.compact(payload, 5000, archive=archive)
        assert result.archive is archive
        assert result.report.refs
        assert set(result.report.refs) <= set(archive.refs())
