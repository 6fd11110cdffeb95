"""`contextfold inspect`: tables for people, JSON for programs, a dry run on request."""

from __future__ import annotations

import json
from pathlib import Path

import contextfold as cf

from .conftest import ANTHROPIC_EXAMPLE, CHAT_EXAMPLE, assert_one_line_error, run


def test_tables_show_roles_tools_largest_and_overheads() -> None:
    ran = run("inspect", CHAT_EXAMPLE, "--model", "gpt-4o")
    assert ran.code == 0, ran
    tokens = cf.count_tokens(json.loads(CHAT_EXAMPLE.read_text()), "gpt-4o")
    out = ran.stdout
    words = " ".join(out.split())  # the header wraps at COLUMNS, where depends on the path
    assert f"openai-chat, 50 messages, {tokens:,} tokens" in words
    for heading in ("Tokens by role", "Tokens by tool", "Largest messages", "Overheads:"):
        assert heading in out
    for name in ("system", "assistant", "view_file", "edit_file", "bash"):
        assert name in out
    assert "3 tool definitions" in out
    assert "Dry run" not in out
    assert max(len(line) for line in out.splitlines()) <= 100  # COLUMNS=100 is respected


def test_dry_run_matches_what_compact_does(tmp_path: Path) -> None:
    report_file = tmp_path / "report.json"
    compacted = run("compact", CHAT_EXAMPLE, "-b", "6000", "--report", report_file)
    assert compacted.code == 0
    ran = run("inspect", CHAT_EXAMPLE, "--budget", "6000", "--json")
    assert ran.code == 0, ran
    data = json.loads(ran.stdout)
    assert data["dry_run"] == json.loads(report_file.read_text())
    assert data["tokens"] == data["dry_run"]["tokens_before"]
    assert data["file"] == str(CHAT_EXAMPLE)
    assert {r["role"] for r in data["by_role"]} == {"system", "user", "assistant", "tool"}
    table = run("inspect", CHAT_EXAMPLE, "--budget", "6000")
    assert "Dry run at budget 6,000" in table.stdout
    assert data["dry_run"]["reason"] in table.stdout


def test_anthropic_from_stdin_as_json() -> None:
    ran = run("inspect", "--json", "--top", "2", stdin=ANTHROPIC_EXAMPLE.read_bytes())
    assert ran.code == 0, ran
    data = json.loads(ran.stdout)
    assert data["file"] == "<stdin>"
    assert data["format"] == "anthropic"
    assert len(data["largest"]) == 2
    assert data["dry_run"] is None


def test_bad_input_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('[{"role": "user", "content": "hi"}, {"role": "robot"}]')
    assert_one_line_error(run("inspect", path), str(path), "message 1", "'role'")
